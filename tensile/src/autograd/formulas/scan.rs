//! Scans that keep their dim (PyTorch's `derivatives.yaml` entries of `cummax`, `cummin`,
//! `logcumsumexp`; `cumsum`/`cumprod` are in `reduce.rs`).

use super::super::node::Save;
use super::super::record::{node_saving, record, record_multi};
use super::pointwise::lam;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// `cummax(x, dim)` (`CummaxBackward0`), `cummin(x, dim)` (`CumminBackward0`): PyTorch's
/// `cummaxmin_backward`: `zeros_like(x).scatter_add(dim, indices, g)` (every position that
/// held the running extremum collects the gradients of the outputs it produced). `dim` is
/// wrapped. Saves `x` (as PyTorch, which checks its version) and the indices (output 1).
/// The indices output is integer, so not differentiable.
pub(crate) fn cummaxmin(
    name: &'static str,
    (values, indices): (Tensor, Tensor),
    x: &Tensor,
    dim: usize,
) -> Result<(Tensor, Tensor)> {
    let mut v = record_multi(vec![values, indices], &[x], || {
        node_saving(
            lam(name, move |g, s| {
                let (x, idx) = (&s[0], &s[1]);
                if x.numel() == 0 || x.dim() == 0 {
                    // empty: nothing to scatter; 0-d: the value is `x` itself (index 0)
                    return Ok(vec![Some(g.alias())]);
                }
                let z = Tensor::zeros_with(x.size(), g.dtype())?;
                Ok(vec![Some(z.scatter_add(dim as i64, idx, g)?)])
            }),
            vec![Save::Input(x.alias()), Save::Output(1)],
        )
    })?;
    let i = v.pop().expect("two outputs");
    let val = v.pop().expect("two outputs");
    Ok((val, i))
}

/// `numeric_limits<T>::lowest()` of a float dtype, as PyTorch's `logcumsumexp_backward` uses
/// for `log(0)`.
fn lowest(dtype: DType) -> f64 {
    match dtype {
        DType::Float64 => f64::MIN,
        DType::Float16 => -65504.0,
        DType::BFloat16 => -3.389_531_389_251_535_5e38,
        _ => f32::MIN as f64,
    }
}

/// `logcumsumexp(x, dim)` (`LogcumsumexpBackward0`), PyTorch's `logcumsumexp_backward`: with
/// `rev(t) = flip(logcumsumexp(flip(t, d), d), d)` and the gradient split by sign,
/// `exp(rev(log(g⁺) - r) + x) - exp(rev(log(g⁻) - r) + x)` (`log 0` as the dtype's lowest
/// value), stable where `exp(x - r)` would overflow. A 0-d or empty gradient passes through.
/// Saves `x` and the result.
pub(crate) fn logcumsumexp(out: Tensor, x: &Tensor, dim: usize) -> Result<Tensor> {
    record(out, &[x], || {
        node_saving(
            lam("LogcumsumexpBackward0", move |g, s| {
                let (x, r) = (&s[0], &s[1]);
                if g.dim() == 0 || g.numel() == 0 {
                    return Ok(vec![Some(g.alias())]);
                }
                let d = dim as i64;
                let low = lowest(g.dtype());
                let log_abs = g.abs()?.log()?;
                let pos = crate::where_cond(&g.gt(0.0)?, &log_abs, low)?;
                let neg = crate::where_cond(&g.lt(0.0)?, &log_abs, low)?;
                let rev = |t: &Tensor| -> Result<Tensor> { t.flip(d)?.logcumsumexp(d)?.flip(d) };
                let out_pos = rev(&pos.sub(r)?)?.add(x)?.exp()?;
                let out_neg = rev(&neg.sub(r)?)?.add(x)?.exp()?;
                Ok(vec![Some(out_pos.sub(&out_neg)?)])
            }),
            vec![Save::Input(x.alias()), Save::Output(0)],
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::Tensor;

    fn leaf(v: &[f64], shape: &[usize]) -> Tensor {
        let t = Tensor::from_vec(v.to_vec(), shape).unwrap();
        t.requires_grad_(true).unwrap();
        t
    }

    /// A position that held the running extremum for several outputs collects all their
    /// gradients (`scatter_add`); ties go to the later index (checked with torch 2.15).
    #[test]
    fn cummax_cummin_accumulate_at_the_indices() {
        let x = leaf(&[1.0, 3.0, 2.0, 3.0, 0.0], &[5]);
        let (v, i) = x.cummax(0).unwrap();
        assert_eq!(v.grad_fn().unwrap().name(), "CummaxBackward0");
        assert!(i.grad_fn().is_none() && !i.requires_grad());
        v.sum().unwrap().backward().unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), [1.0, 2.0, 0.0, 2.0, 0.0]);
        let x = leaf(&[1.0, 3.0, 2.0, 3.0, 0.0], &[5]);
        let (v, _) = x.cummin(-1).unwrap();
        assert_eq!(v.grad_fn().unwrap().name(), "CumminBackward0");
        v.sum().unwrap().backward().unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), [4.0, 0.0, 0.0, 0.0, 1.0]);
    }

    /// `cummax` saves its input: modifying it in place makes backward fail (torch's text).
    #[test]
    fn cummax_checks_its_saved_input() {
        let x = leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
        let y = x.mul(1.0).unwrap();
        let (v, _) = y.cummax(1).unwrap();
        y.add_(1.0).unwrap();
        let e = v.sum().unwrap().backward().unwrap_err();
        assert!(
            e.message().starts_with(
                "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.DoubleTensor [2, 2]], which is output 0 of Add, is at version 1; expected version 0 instead."
            ),
            "{}",
            e.message()
        );
    }

    /// The sign-split formula is exact where `exp(x - r)` alone would overflow, and a negative
    /// gradient contributes negatively (torch: `[1.5, 0.5, 0.0]`).
    #[test]
    fn logcumsumexp_backward_is_stable_and_signed() {
        let x = leaf(&[1000.0, 1000.0, -1000.0], &[3]);
        let r = x.logcumsumexp(0).unwrap();
        assert_eq!(r.grad_fn().unwrap().name(), "LogcumsumexpBackward0");
        let g = Tensor::from_vec(vec![1.0, -1.0, 2.0], [3]).unwrap();
        r.backward_with(Some(&g), false).unwrap();
        let got = x.grad().unwrap().to_vec::<f64>();
        for (a, b) in got.iter().zip([1.5, 0.5, 0.0]) {
            assert!((a - b).abs() < 1e-12, "{got:?}");
        }
    }
}
