//! The fused float32 path of `F.cross_entropy`: contiguous `(N, C)` logits, int64 targets,
//! no label smoothing — one pass per row in `kernels::loss`, parallel over rows.

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::nn::loss_class::ClassGeom;
use crate::nn::loss_opts::Reduction;

/// cross_entropy of contiguous float32 `(N, C)` logits (targets already read, geometry
/// checked), or `None` when the input does not qualify. Errors: IndexError `Target 5 is out
/// of bounds.` for the first bad target.
pub(crate) fn cross_entropy_rows_f32(
    input: &Tensor,
    target: &[i64],
    weight: Option<&Tensor>,
    ignore: i64,
    g: &ClassGeom,
    r: &Reduction,
) -> Result<Option<Tensor>> {
    if input.dtype() != DType::Float32
        || input.dim() != 2
        || !input.is_contiguous()
        || weight.is_some_and(|w| w.dtype() != DType::Float32)
    {
        return Ok(None);
    }
    let (n, c) = (g.n, g.c);
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
    if *r == Reduction::None {
        return Ok(Some(out));
    }
    let per = out.try_to_vec::<f32>()?;
    let sum: f64 = per.iter().map(|&v| v as f64).sum();
    let v = if *r == Reduction::Mean {
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
