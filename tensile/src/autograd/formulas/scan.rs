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
