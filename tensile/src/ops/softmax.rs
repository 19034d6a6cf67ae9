//! `softmax` and `log_softmax` over one dim: float32 and the half types in float32 by
//! `kernels::softmax` (one fused pass per row, parallel over rows); float64 in double.
//!
//! float16/bfloat16 `log_softmax` over the last dim (PyTorch's `_vec_log_softmax_lastdim`;
//! only for `dim` = the last dim, not for a dim followed by size-1 dims) rounds its float32
//! intermediates to the half type twice before the output: the sum of `exp(x - max)` is
//! stored in the half type, its log too, and then `(x - max) - log_sum` is computed in
//! float32 and rounded. So `[-3, -4, 0, 2, -4]` gives `-0.13757` at the `2` in float16, not
//! the correctly rounded `-0.13721`. (Other dims, and `softmax`, round once.)

use crate::dim::wrap_dim;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::iter::Slices;
use crate::tensor::Tensor;

/// `softmax` (`log`: `log_softmax`) of `t` along `dim`: a fresh contiguous tensor of `t`'s
/// float dtype.
pub(crate) fn softmax_raw(t: &Tensor, dim: i64, log: bool) -> Result<Tensor> {
    let d = wrap_dim(dim, t.dim())?;
    if !t.dtype.is_floating_point() {
        let last = if d + 1 == t.dim().max(1) {
            "_lastdim"
        } else {
            ""
        };
        let name = format!("{}softmax{last}_kernel_impl", if log { "log_" } else { "" });
        return Err(Error::not_implemented_for(&name, t.dtype));
    }
    let sizes = t.size().to_vec();
    let (outer, len, inner) = if sizes.is_empty() {
        (1, 1, 1)
    } else {
        (
            sizes[..d].iter().product::<usize>(),
            sizes[d],
            sizes[d + 1..].iter().product::<usize>(),
        )
    };
    if t.dtype != DType::Float64 {
        let x = t.try_contiguous()?;
        let half_lastdim_log = log && d + 1 == t.dim() && t.dtype != DType::Float32;
        // both contiguous: their slices are their values, seen as (outer, len, inner); the
        // half types are computed in float32 by the kernel
        let shape = (outer, len, inner);
        let (out, ()) = crate::iter::dense_new(&sizes, t.dtype, &[&x], |mut s| match t.dtype {
            DType::Float16 => rows::<half::f16>(&mut s, shape, log, half_lastdim_log),
            DType::BFloat16 => rows::<half::bf16>(&mut s, shape, log, half_lastdim_log),
            _ => rows::<f32>(&mut s, shape, log, half_lastdim_log),
        })?;
        return Ok(out);
    }
    let mut x: Vec<f64> = t.try_to_vec::<f64>()?;
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * len + k) * inner + i;
            let mut m = f64::NEG_INFINITY;
            for k in 0..len {
                m = m.max(x[at(k)]);
            }
            if m.is_infinite() {
                m = 0.0;
            }
            let mut sum = 0.0;
            for k in 0..len {
                sum += (x[at(k)] - m).exp();
            }
            for k in 0..len {
                let idx = at(k);
                x[idx] = if log {
                    x[idx] - m - sum.ln()
                } else {
                    (x[idx] - m).exp() / sum
                };
            }
        }
    }
    Tensor::from_vec(x, &sizes)
}

/// The softmax kernel over a contiguous `(outer, len, inner)` input and output of `T`.
fn rows<T: Element + crate::kernels::softmax::SoftElem>(
    s: &mut Slices<'_>,
    (outer, len, inner): (usize, usize, usize),
    log: bool,
    half_lastdim_log: bool,
) -> Result<()> {
    crate::kernels::softmax::softmax::<T>(
        s.input(0)?,
        s.out(0)?,
        outer,
        len,
        inner,
        log,
        half_lastdim_log,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from PyTorch 2.15: the last-dim kernel rounds the sum of exponentials and its
    /// log to the half type; any other dim computes in float32 and rounds once.
    #[test]
    fn half_log_softmax_rounds_like_pytorch() {
        let r = || Tensor::from_vec(vec![-3.0f32, -4.0, 0.0, 2.0, -4.0], [5]).unwrap();
        let ls = |t: Tensor, dim: i64| t.log_softmax(dim).unwrap().to_vec::<f64>();
        let h = r().to(DType::Float16).unwrap();
        assert_eq!(
            ls(h.alias(), 0),
            [
                -5.13671875,
                -6.13671875,
                -2.13671875,
                -0.1375732421875,
                -6.13671875
            ]
        );
        let b = r().to(DType::BFloat16).unwrap();
        assert_eq!(ls(b, -1), [-5.125, -6.125, -2.140625, -0.138671875, -6.125]);
        let col = h.reshape([5, 1]).unwrap();
        assert_eq!(
            ls(col, 0),
            [
                -5.13671875,
                -6.13671875,
                -2.13671875,
                -0.13720703125,
                -6.13671875
            ]
        );
    }
}
