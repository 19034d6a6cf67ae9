//! The fused float32 path of `F.cross_entropy` (the function and its recording are
//! `crate::optable::loss_class`'s): contiguous `(N, C)` logits, int64 targets, no label
//! smoothing — one pass per row in `kernels::loss`, parallel over rows. Records nothing.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// cross_entropy of contiguous float32 `(N, C)` logits (the `n·c` values; targets already
/// read, geometry checked), or `None` when the input does not qualify. `mean`: `None` gives
/// the `(N,)` per-row losses (reduction `none`), `Some(true)` their weighted mean, `Some(false)`
/// their sum (0-d). Errors: IndexError `Target 5 is out of bounds.` for the first bad target.
pub(crate) fn cross_entropy_rows_f32(
    input: &Tensor,
    target: &[i64],
    weight: Option<&Tensor>,
    ignore: i64,
    n: usize,
    c: usize,
    mean: Option<bool>,
) -> Result<Option<Tensor>> {
    if input.dtype() != DType::Float32
        || input.dim() != 2
        || !input.is_contiguous()
        || weight.is_some_and(|w| w.dtype() != DType::Float32)
    {
        return Ok(None);
    }
    for &t in &target[..n] {
        if t != ignore && (t < 0 || t >= c as i64) {
            return Err(Error::index(format!("Target {t} is out of bounds.")));
        }
    }
    let w: Option<Vec<f32>> = weight.map(|w| w.try_to_vec::<f32>()).transpose()?;
    // `input` is contiguous: its slice is its `(n, c)` rows
    let (out, ()) = crate::iter::dense_new(&[n], DType::Float32, &[input], |mut s| {
        let x = &s.input::<f32>(0)?[..n * c];
        let o = s.out::<f32>(0)?;
        crate::kernels::loss::cross_entropy_rows_f32(x, c, target, w.as_deref(), ignore, o);
        Ok(())
    })?;
    let Some(mean) = mean else {
        return Ok(Some(out));
    };
    let per = out.try_to_vec::<f32>()?;
    let sum: f64 = per.iter().map(|&v| v as f64).sum();
    let v = if mean {
        let total: f64 = match &w {
            None => target[..n].iter().filter(|&&t| t != ignore).count() as f64,
            Some(w) => target[..n]
                .iter()
                .filter(|&&t| t != ignore)
                .map(|&t| w[t as usize] as f64)
                .sum(),
        };
        sum / total
    } else {
        sum
    };
    Ok(Some(Tensor::from_vec(vec![v as f32], ())?))
}

/// The dtype check of a kernel dispatched over float32 and float64 only
/// (`AT_DISPATCH_FLOATING_TYPES`; `ctc_loss`):
/// `"multi_margin_loss_cpu_kernel" not implemented for 'Half'` (NotImplementedError).
pub(crate) fn f32_f64_only(t: &Tensor, kernel: &str) -> Result<()> {
    if matches!(t.dtype(), DType::Float32 | DType::Float64) {
        Ok(())
    } else {
        Err(Error::not_implemented_for(kernel, t.dtype()))
    }
}
