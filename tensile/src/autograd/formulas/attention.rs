//! `scaled_dot_product_attention` when it records: PyTorch 2.15 on CPU then takes the math
//! path (`_scaled_dot_product_attention_math`), a composite of recorded ops, so its nodes
//! are those of the pieces (`UnsafeViewBackward0` from the final `matmul`, preceded by
//! `SqueezeBackward1` for 3-d inputs, which the CPU path runs as 4-d with a leading 1).
//! tensile records the same composite with its own recorded ops; the gradients are those of
//! the pieces' formulas (`matmul`, `mul`, `add`, `softmax`, the views).

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// The math path on checked inputs (shapes, dtypes, mask dtype, no dropout, not both
/// `is_causal` and a mask): `softmax(q·√s · (k·√s)ᵀ + mask) · v`, `s` = `scale` (a negative
/// scale flips the sign of the query's factor), grouped-query heads repeated along dim -3
/// (`rep_k`, `rep_v`), a boolean mask (and `is_causal`'s lower triangle) turned into
/// `0 / -inf`, rows masked everywhere giving 0 (`_safe_softmax`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn sdpa_math(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    mask: Option<&Tensor>,
    is_causal: bool,
    scale: f64,
    rep_k: usize,
    rep_v: usize,
) -> Result<Tensor> {
    let three_d = q.dim() == 3;
    let (q, k, v) = if three_d {
        (q.unsqueeze(0)?, k.unsqueeze(0)?, v.unsqueeze(0)?)
    } else {
        (q.alias(), k.alias(), v.alias())
    };
    let dtype = q.dtype();
    let sf = scale.abs().sqrt();
    let qs = q.mul(if scale < 0.0 { -sf } else { sf })?;
    let repeat = |t: &Tensor, rep: usize| -> Result<Tensor> {
        if rep == 1 || t.dim() < 3 {
            return Ok(t.alias());
        }
        // `repeat_interleave(rep, -3)` as views: (…, H, S, E) → (…, H, rep, S, E) → (…, H·rep, S, E)
        let n = t.dim();
        let mut sizes: Vec<usize> = t.size().to_vec();
        let e = t.unsqueeze(-3)?;
        let mut es = e.size().to_vec();
        es[n - 2] = rep;
        sizes[n - 3] *= rep;
        e.expand(es)?.reshape(sizes)
    };
    let (k, v) = (repeat(&k, rep_k)?, repeat(&v, rep_v)?);
    let kt = k.transpose(-2, -1)?.mul(sf)?;
    let mut attn = qs.matmul(&kt)?;
    let (l, s) = (q.size()[q.dim() - 2], k.size()[k.dim() - 2]);
    let additive = |m: &Tensor| -> Result<Tensor> {
        if m.dtype() == DType::Bool {
            let z = Tensor::zeros_like(m)?.to(dtype)?;
            crate::where_cond(m, &z, f64::NEG_INFINITY)
        } else {
            m.to(dtype)
        }
    };
    if is_causal {
        let m = Tensor::ones([l, s])?.to(DType::Bool)?.tril()?;
        attn = attn.add(&additive(&m)?)?;
    } else if let Some(m) = mask {
        attn = attn.add(&additive(m)?)?;
    }
    // `_safe_softmax`: a row that is -inf everywhere gives zeros (and no gradient)
    let dead = attn.eq(f64::NEG_INFINITY)?.all_dim(-1, true)?;
    let any_dead = dead.any()?.try_to_vec::<bool>()?[0];
    let w = if any_dead {
        attn.masked_fill(&dead, 0.0)?
            .softmax(-1)?
            .masked_fill(&dead, 0.0)?
    } else {
        attn.softmax(-1)?
    };
    let out = w.matmul(&v)?;
    if three_d && out.size()[0] == 1 {
        out.squeeze_dim(0)
    } else {
        Ok(out)
    }
}
