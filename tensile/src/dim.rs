//! Dimension wrapping (`maybe_wrap_dim`): negative dims count from the end.

use crate::error::{Error, Result};

/// Wraps `dim` against `ndim`, a 0-d tensor accepting `-1` and `0` (`wrap_scalar = true`).
///
/// Error (IndexError): `Dimension out of range (expected to be in range of [-2, 1], but got 2)`.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    wrap_dim_impl(dim, ndim, true)
}

/// Like [`wrap_dim`] but a 0-d tensor has no dims (`size(d)`, `stride(d)`).
///
/// Error (IndexError): `Dimension specified as 0 but tensor has no dimensions`.
pub fn wrap_dim_no_scalar(dim: i64, ndim: usize) -> Result<usize> {
    wrap_dim_impl(dim, ndim, false)
}

fn wrap_dim_impl(dim: i64, ndim: usize, wrap_scalar: bool) -> Result<usize> {
    let n = ndim as i64;
    if -n <= dim && dim < n {
        return Ok(if dim < 0 {
            (dim + n) as usize
        } else {
            dim as usize
        });
    }
    if ndim == 0 {
        if !wrap_scalar {
            return Err(Error::index(format!(
                "Dimension specified as {dim} but tensor has no dimensions"
            )));
        }
        return wrap_dim_impl(dim, 1, false);
    }
    Err(Error::index(format!(
        "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
        -n,
        n - 1
    )))
}

/// Wraps every dim of a list and rejects repeats:
/// `dim 1 appears multiple times in the list of dims` (the wrapped value).
pub fn wrap_dims(dims: &[i64], ndim: usize) -> Result<Vec<usize>> {
    if ndim > 64 {
        return Err(Error::runtime(
            "only tensors with up to 64 dims are supported",
        ));
    }
    let mut seen = 0u64;
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let w = wrap_dim(d, ndim)?;
        if seen & (1 << w) != 0 {
            return Err(Error::runtime(format!(
                "dim {w} appears multiple times in the list of dims"
            )));
        }
        seen |= 1 << w;
        out.push(w);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping() {
        assert_eq!(wrap_dim(-1, 3).unwrap(), 2);
        assert_eq!(wrap_dim(-1, 0).unwrap(), 0);
        assert_eq!(wrap_dim(0, 0).unwrap(), 0);
        assert_eq!(
            wrap_dim(3, 3).unwrap_err().message(),
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)"
        );
        assert_eq!(
            wrap_dim(1, 0).unwrap_err().message(),
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
        );
        assert_eq!(
            wrap_dim_no_scalar(0, 0).unwrap_err().message(),
            "Dimension specified as 0 but tensor has no dimensions"
        );
        assert_eq!(
            wrap_dims(&[1, -2], 3).unwrap_err().message(),
            "dim 1 appears multiple times in the list of dims"
        );
    }
}
