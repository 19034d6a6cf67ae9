//! The forward code of `torch.nn.functional.scaled_dot_product_attention` (the function and
//! its recording are `crate::optable::nn`'s): `softmax(q·kᵀ·scale + mask)·v` with boolean or
//! additive masks, causal masking, grouped-query attention, PyTorch's checks and messages,
//! and the output layout of the backend PyTorch's CPU dispatcher picks.
//!
//! The arithmetic is one fused kernel (`crate::kernels::attention`) in float32 (float32,
//! bfloat16 and float16 inputs, converted back at the end, as PyTorch's math path computes
//! the half types in float) or float64.

use crate::Tensor;
use crate::broadcast::infer_size;
use crate::dim::wrap_dim_no_scalar;
use crate::dtype::DType;
use crate::dtype::type_meta_name;
use crate::error::{Error, Result, fmt_list};
use crate::kernels::attention::{AttnFloat, AttnGeom, Mask, attention};
use crate::layout::{contiguous_strides, preserve_format_strides};

/// `F.scaled_dot_product_attention`'s optional arguments (`attn_mask=None, dropout_p=0.0,
/// is_causal=False, scale=None, enable_gqa=False`), for
/// [`crate::nn::functional::scaled_dot_product_attention_with`].
/// A `&Tensor` (or `Option<&Tensor>`) is `attn_mask`; tuples give the leading parameters in
/// PyTorch's order: `(attn_mask, dropout_p)`, `(attn_mask, dropout_p, is_causal)`,
/// `(attn_mask, dropout_p, is_causal, scale)`, `(attn_mask, dropout_p, is_causal, scale,
/// enable_gqa)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScaledDotProductAttentionOpts<'a> {
    /// Broadcast to `(…, L, S)`: bool (`false` = masked out) or float (added to the scores:
    /// float32 or the query's dtype).
    pub attn_mask: Option<&'a Tensor>,
    /// Only 0 is computed (tensile has no random generator); outside `[0, 1]` is an error.
    pub dropout_p: f64,
    /// Mask with the top-left-aligned lower triangle `ones(L, S).tril()`.
    pub is_causal: bool,
    /// Multiplies the scores; `None` = `1/sqrt(E)`.
    pub scale: Option<f64>,
    /// Repeat each key/value head `Hq/Hk` times along dim -3 (`repeat_interleave`).
    pub enable_gqa: bool,
}
impl<'a> From<&'a Tensor> for ScaledDotProductAttentionOpts<'a> {
    fn from(attn_mask: &'a Tensor) -> Self {
        ScaledDotProductAttentionOpts {
            attn_mask: Some(attn_mask),
            ..Default::default()
        }
    }
}
impl<'a> From<Option<&'a Tensor>> for ScaledDotProductAttentionOpts<'a> {
    fn from(attn_mask: Option<&'a Tensor>) -> Self {
        ScaledDotProductAttentionOpts {
            attn_mask,
            ..Default::default()
        }
    }
}
impl<'a> From<(Option<&'a Tensor>, f64)> for ScaledDotProductAttentionOpts<'a> {
    fn from((attn_mask, dropout_p): (Option<&'a Tensor>, f64)) -> Self {
        ScaledDotProductAttentionOpts {
            attn_mask,
            dropout_p,
            ..Default::default()
        }
    }
}
impl<'a> From<(Option<&'a Tensor>, f64, bool)> for ScaledDotProductAttentionOpts<'a> {
    fn from((attn_mask, dropout_p, is_causal): (Option<&'a Tensor>, f64, bool)) -> Self {
        ScaledDotProductAttentionOpts {
            attn_mask,
            dropout_p,
            is_causal,
            ..Default::default()
        }
    }
}
impl<'a> From<(Option<&'a Tensor>, f64, bool, Option<f64>)> for ScaledDotProductAttentionOpts<'a> {
    fn from(
        (attn_mask, dropout_p, is_causal, scale): (Option<&'a Tensor>, f64, bool, Option<f64>),
    ) -> Self {
        ScaledDotProductAttentionOpts {
            attn_mask,
            dropout_p,
            is_causal,
            scale,
            enable_gqa: false,
        }
    }
}
impl<'a> From<(Option<&'a Tensor>, f64, bool, Option<f64>, bool)>
    for ScaledDotProductAttentionOpts<'a>
{
    fn from(
        (attn_mask, dropout_p, is_causal, scale, enable_gqa): (
            Option<&'a Tensor>,
            f64,
            bool,
            Option<f64>,
            bool,
        ),
    ) -> Self {
        ScaledDotProductAttentionOpts {
            attn_mask,
            dropout_p,
            is_causal,
            scale,
            enable_gqa,
        }
    }
}

/// `F.scaled_dot_product_attention`'s checks, in PyTorch's order, and the shapes and backend
/// they settle (see `crate::optable::nn::scaled_dot_product_attention_with` for the errors).
pub(crate) fn sdpa_check(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    o: &ScaledDotProductAttentionOpts<'_>,
) -> Result<(AttnShapes, bool)> {
    validate(q, k, v, o.attn_mask)?;
    let geo = |t: &Tensor| Operand {
        sizes: t.size().to_vec(),
        strides: t.stride().to_vec(),
    };
    let flash = uses_flash(
        &geo(q),
        &geo(k),
        &geo(v),
        o.attn_mask.map(|m| m.size()),
        q.dtype(),
        o.dropout_p,
        o.enable_gqa,
    )?;
    if flash && o.dropout_p != 0.0 {
        return Err(Error::runtime(
            "scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0",
        ));
    }
    if o.is_causal && o.attn_mask.is_some() {
        return Err(Error::runtime(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True",
        ));
    }
    // `convert_boolean_attn_mask`: a bool mask becomes `-inf`/0 in the query's dtype, whose
    // range check refuses -inf for the integer dtypes
    if let Some(m) = o.attn_mask
        && m.dtype() == DType::Bool
    {
        crate::dtype::check_fill_range(q.dtype(), crate::Scalar::Float(f64::NEG_INFINITY))?;
    }
    let shapes = math_shapes(
        q.size(),
        k.size(),
        v.size(),
        o.attn_mask.map(|m| m.size()),
        o.enable_gqa,
    )?;
    if !(0.0..=1.0).contains(&o.dropout_p) {
        return Err(Error::runtime(format!(
            "dropout probability has to be between 0 and 1, but got {}",
            o.dropout_p
        )));
    }
    if o.dropout_p > 0.0 {
        return Err(Error::not_implemented(
            "scaled_dot_product_attention: dropout_p > 0 draws random numbers, which tensile does not do",
        ));
    }
    let dtype = q.dtype();
    if !dtype.is_floating_point() {
        // PyTorch's math path scales query and key by a Python float (giving float), then
        // multiplies the float weights by the integer value
        let two_d = shapes.attn_batch.is_empty() && v.dim() == 2;
        return Err(Error::runtime(if two_d {
            format!(
                "expected m1 and m2 to have the same dtype, but got: float != {}",
                type_meta_name(dtype)
            )
        } else {
            format!(
                "expected scalar type Float but found {}",
                dtype.scalar_type_name()
            )
        }));
    }
    Ok((shapes, flash))
}

/// `F.scaled_dot_product_attention`'s value by the fused kernel, after [`sdpa_check`] gave
/// `shapes` and `flash` (the backend PyTorch's dispatcher picks, which sets the output's
/// layout); records nothing.
pub(crate) fn sdpa_fused(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    o: ScaledDotProductAttentionOpts<'_>,
    shapes: &AttnShapes,
    flash: bool,
) -> Result<Tensor> {
    let dtype = q.dtype();
    let out_strides = if flash {
        preserve_format_strides(q.size(), q.stride())
    } else {
        contiguous_strides(&shapes.out)
    };
    let out = if flash {
        Tensor::try_alloc(&shapes.out, &out_strides, dtype)?
    } else {
        Tensor::try_alloc_contiguous(&shapes.out, dtype)?
    };
    if out.numel() == 0 {
        return Ok(out);
    }
    let e = q.size()[q.dim() - 1];
    let scale = match o.scale {
        // an empty product is 0 whatever the scale (PyTorch scales q and k before it)
        _ if e == 0 => 1.0,
        Some(s) => s,
        None => 1.0 / (e as f64).sqrt(),
    };
    match dtype {
        DType::Float64 => run::<f64>(q, k, v, o, shapes, scale, &out),
        _ => run::<f32>(q, k, v, o, shapes, scale, &out),
    }?;
    Ok(out)
}

/// `validate_sdpa_input`: dtypes, ranks and the mask's dtype.
fn validate(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Result<()> {
    if q.dtype() != k.dtype() || q.dtype() != v.dtype() {
        return Err(Error::runtime(format!(
            "Expected query, key, and value to have the same dtype, but got query.dtype: {} key.dtype: {} and value.dtype: {} instead.",
            type_meta_name(q.dtype()),
            type_meta_name(k.dtype()),
            type_meta_name(v.dtype())
        )));
    }
    if q.dim() < 2 || k.dim() < 2 || v.dim() < 2 {
        return Err(Error::runtime(format!(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: {} key.dim: {} and value.dim: {} instead.",
            q.dim(),
            k.dim(),
            v.dim()
        )));
    }
    if let Some(m) = mask {
        let md = m.dtype();
        if !(md == DType::Bool || md == DType::Float32 || md == q.dtype()) {
            return Err(Error::runtime(format!(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: {} and  query.dtype: {} instead.",
                type_meta_name(md),
                type_meta_name(q.dtype())
            )));
        }
    }
    Ok(())
}

/// Sizes and strides of one operand, for the pure layout rules.
#[derive(Clone, Debug)]
pub(crate) struct Operand {
    pub sizes: Vec<usize>,
    pub strides: Vec<usize>,
}

/// Whether PyTorch 2.15's CPU dispatcher (`select_sdp_backend_cpp`) picks the flash kernel,
/// whose output is laid out like the query: no dropout; query, key and value all 3-d or all
/// 4-d (3-d ones, and then masks of fewer than 4 dims, read with a leading 1); equal batch
/// (dim 0); key and value heads (dim -3) equal, and equal to the query's or 1 (with
/// `enable_gqa`: dividing the query's); a mask whose last two sizes are `L` or 1 and `S` or 1,
/// 2-d, or 4-d with batch and heads matching or 1; `E` the same for all three; `L, S > 0`;
/// last-dim stride 1 everywhere; a float dtype.
///
/// Errors (IndexError, from the mask check on a 4-d query): a 1-d mask `Dimension out of
/// range (expected to be in range of [-1, 0], but got -2)`, a 0-d one `Dimension specified as
/// -2 but tensor has no dimensions`.
pub(crate) fn uses_flash(
    q: &Operand,
    k: &Operand,
    v: &Operand,
    mask: Option<&[usize]>,
    dtype: DType,
    dropout_p: f64,
    enable_gqa: bool,
) -> Result<bool> {
    if dropout_p > 0.0 {
        return Ok(false);
    }
    let nd = q.sizes.len();
    if !(nd == k.sizes.len() && nd == v.sizes.len() && (nd == 3 || nd == 4)) {
        return Ok(false);
    }
    let pad = |s: &[usize], to: usize| -> Vec<usize> {
        let mut p = vec![1; to.saturating_sub(s.len())];
        p.extend_from_slice(s);
        p
    };
    let (qs, ks, vs) = (pad(&q.sizes, 4), pad(&k.sizes, 4), pad(&v.sizes, 4));
    if !(qs[0] == ks[0] && qs[0] == vs[0]) {
        return Ok(false);
    }
    let (hq, hk, hv) = (qs[1], ks[1], vs[1]);
    let heads_ok = if enable_gqa {
        hk == hv && hk != 0 && hq.is_multiple_of(hk)
    } else {
        hk == hv && (hk == hq || hk == 1)
    };
    if !heads_ok {
        return Ok(false);
    }
    if let Some(m) = mask {
        let m = if nd == 3 { pad(m, 4) } else { m.to_vec() };
        let md = m.len();
        wrap_dim_no_scalar(-2, md)?;
        let (ml, ms) = (m[md - 2], m[md - 1]);
        if !(ml == qs[2] || ml == 1) || !(ms == ks[2] || ms == 1) {
            return Ok(false);
        }
        let shape_ok =
            md == 2 || (md == 4 && (m[0] == 1 || m[0] == qs[0]) && (m[1] == 1 || m[1] == hq));
        if !shape_ok {
            return Ok(false);
        }
    }
    if !(qs[3] == ks[3] && qs[3] == vs[3]) {
        return Ok(false);
    }
    if qs[2] == 0 || ks[2] == 0 {
        return Ok(false);
    }
    if [q, k, v].iter().any(|t| t.strides[nd - 1] != 1) {
        return Ok(false);
    }
    Ok(dtype.is_floating_point())
}

/// The shapes of the math definition, checked in PyTorch's order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AttnShapes {
    /// Batch dims of the scores `query·keyᵀ`.
    pub attn_batch: Vec<usize>,
    /// Batch dims of the result.
    pub out_batch: Vec<usize>,
    /// The result's shape `out_batch + [L, Ev]`.
    pub out: Vec<usize>,
    /// Key/value head repeat factors (1 without grouped-query attention).
    pub rep_k: usize,
    pub rep_v: usize,
}

/// Shapes of `softmax(q·kᵀ + mask)·v` (the math path): grouped-query heads, `matmul`
/// broadcasting of the batch dims, the in-place mask addition, then the product with `v`.
pub(crate) fn math_shapes(
    q: &[usize],
    k: &[usize],
    v: &[usize],
    mask: Option<&[usize]>,
    enable_gqa: bool,
) -> Result<AttnShapes> {
    let (mut rep_k, mut rep_v) = (1, 1);
    if enable_gqa {
        let hq = q[wrap_dim_no_scalar(-3, q.len())?];
        let hk = k[wrap_dim_no_scalar(-3, k.len())?];
        let hv = v[wrap_dim_no_scalar(-3, v.len())?];
        let all_equal = hq == hk && hk == hv;
        let divides = |h: usize| h != 0 && hq.is_multiple_of(h);
        if !(all_equal || divides(hk) && divides(hv)) {
            return Err(Error::runtime(
                "Number of heads in key and value must divide the number of heads in query",
            ));
        }
        if !all_equal {
            (rep_k, rep_v) = (hq / hk, hq / hv);
        }
    }
    let split = |s: &[usize], rep: usize| -> (Vec<usize>, usize, usize) {
        let n = s.len();
        let mut b = s[..n - 2].to_vec();
        if let Some(h) = b.last_mut() {
            *h *= rep;
        }
        (b, s[n - 2], s[n - 1])
    };
    let (qb, l, e) = split(q, 1);
    let (kb, s, ek) = split(k, rep_k);
    let (vb, sv, ev) = split(v, rep_v);
    let attn_batch = infer_size(&qb, &kb)?;
    let nb = |b: &[usize]| b.iter().product::<usize>();
    if e != ek {
        return Err(Error::runtime(if q.len() == 2 && k.len() == 2 {
            format!("mm: mat1 and mat2 shapes cannot be multiplied ({l}x{e} and {ek}x{s})")
        } else {
            let n = nb(&attn_batch);
            format!(
                "Expected size for first two dimensions of batch2 tensor to be: [{n}, {e}] but got: [{n}, {ek}]."
            )
        }));
    }
    let mut attn_shape = attn_batch.clone();
    attn_shape.extend([l, s]);
    if let Some(m) = mask {
        let b = infer_size(&attn_shape, m)?;
        if b != attn_shape {
            return Err(Error::runtime(format!(
                "output with shape {} doesn't match the broadcast shape {}",
                fmt_list(&attn_shape),
                fmt_list(&b)
            )));
        }
    }
    let out_batch = infer_size(&attn_batch, &vb)?;
    if s != sv {
        return Err(Error::runtime(if attn_batch.is_empty() && v.len() == 2 {
            format!("mm: mat1 and mat2 shapes cannot be multiplied ({l}x{s} and {sv}x{ev})")
        } else {
            let n = nb(&out_batch);
            format!(
                "Expected size for first two dimensions of batch2 tensor to be: [{n}, {s}] but got: [{n}, {sv}]."
            )
        }));
    }
    let mut out = out_batch.clone();
    out.extend([l, ev]);
    Ok(AttnShapes {
        attn_batch,
        out_batch,
        out,
        rep_k,
        rep_v,
    })
}

/// Offsets, for every index of `out_batch` (row-major), of an operand whose batch dims
/// `sizes`/`strides` align right with it; size-1 dims broadcast, and the last batch dim's
/// index is divided by `rep` (grouped-query heads).
fn batch_offsets(
    out_batch: &[usize],
    sizes: &[usize],
    strides: &[usize],
    rep: usize,
) -> Vec<usize> {
    let n = out_batch.len();
    let total: usize = out_batch.iter().product();
    let shift = n - sizes.len();
    let mut idx = vec![0usize; n];
    let mut offs = Vec::with_capacity(total);
    for _ in 0..total {
        let mut off = 0;
        for (d, (&sz, &st)) in sizes.iter().zip(strides).enumerate() {
            if sz != 1 {
                let mut i = idx[d + shift];
                if d + 1 == sizes.len() {
                    i /= rep;
                }
                off += i * st;
            }
        }
        offs.push(off);
        for d in (0..n).rev() {
            idx[d] += 1;
            if idx[d] < out_batch[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    offs
}

/// Converts `t` to the kernel's float dtype `T` (an alias when it already is).
fn as_dtype(t: &Tensor, d: DType) -> Result<Tensor> {
    if t.dtype() == d {
        Ok(t.alias())
    } else {
        t.to(d)
    }
}

/// Runs the kernel in `T` (float32 or float64) for shapes already checked, writing `out`.
fn run<T: AttnFloat + crate::Element>(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    o: ScaledDotProductAttentionOpts<'_>,
    sh: &AttnShapes,
    scale: f64,
    out: &Tensor,
) -> Result<()> {
    let td = T::DTYPE;
    let (q, k, v) = (as_dtype(q, td)?, as_dtype(k, td)?, as_dtype(v, td)?);
    let mask = match o.attn_mask {
        Some(m) if m.dtype() != DType::Bool => Some(as_dtype(m, td)?),
        Some(m) => Some(m.alias()),
        None => None,
    };
    // the kernel writes rows with unit column stride: otherwise through a contiguous buffer
    let direct =
        out.dtype() == td && (out.stride()[out.dim() - 1] == 1 || sh.out[out.dim() - 1] <= 1);
    let dst = if direct {
        out.alias()
    } else {
        Tensor::try_alloc_contiguous(&sh.out, td)?
    };
    let last2 = |t: &Tensor| {
        let n = t.dim();
        (t.stride()[n - 2], t.stride()[n - 1])
    };
    let bsz = |t: &Tensor| {
        (
            t.size()[..t.dim() - 2].to_vec(),
            t.stride()[..t.dim() - 2].to_vec(),
        )
    };
    let ob = &sh.out_batch;
    let offs = |t: &Tensor, rep: usize| {
        let (s, st) = bsz(t);
        batch_offsets(ob, &s, &st, rep)
    };
    let (q_rs, q_cs) = last2(&q);
    let (k_rs, k_cs) = last2(&k);
    let (v_rs, v_cs) = last2(&v);
    let (o_rs, _) = last2(&dst);
    // the mask: padded to 2 dims, broadcast dims read with stride 0
    let (m_off, m_rs, m_cs) = match &mask {
        Some(m) => {
            let (ms, mst) = (m.size(), m.stride());
            let nd = ms.len();
            let at = |back: usize| {
                if nd >= back && ms[nd - back] != 1 {
                    mst[nd - back]
                } else {
                    0
                }
            };
            let nbd = nd.saturating_sub(2);
            (batch_offsets(ob, &ms[..nbd], &mst[..nbd], 1), at(2), at(1))
        }
        None => (vec![0; ob.iter().product()], 0, 0),
    };
    let l = sh.out[sh.out.len() - 2];
    let n = q.dim();
    let g = AttnGeom {
        l,
        s: k.size()[k.dim() - 2],
        e: q.size()[n - 1],
        ev: sh.out[sh.out.len() - 1],
        q_off: offs(&q, 1),
        k_off: offs(&k, sh.rep_k),
        v_off: offs(&v, sh.rep_v),
        m_off,
        o_off: offs(&dst, 1),
        q_rs,
        q_cs,
        k_rs,
        k_cs,
        v_rs,
        v_cs,
        m_rs,
        m_cs,
        o_rs,
        causal: o.is_causal,
    };
    let mut ins: Vec<&Tensor> = vec![&q, &k, &v];
    ins.extend(&mask);
    // the operands' slices start at their first elements, as the offsets and strides of `g`
    // (elements) do
    crate::iter::dense(&[&dst], &ins, |mut s| {
        let m = match &mask {
            None => Mask::None,
            Some(m) if m.dtype() == DType::Bool => Mask::Bool(s.input(3)?),
            Some(_) => Mask::Add(s.input(3)?),
        };
        let (q, k, v) = (s.input(0)?, s.input(1)?, s.input(2)?);
        attention::<T>(&g, q, k, v, m, s.out(0)?, scale);
        Ok(())
    })?;
    if !direct {
        out.copy_(&dst)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(sizes: &[usize]) -> Operand {
        Operand {
            sizes: sizes.to_vec(),
            strides: contiguous_strides(sizes),
        }
    }

    #[test]
    fn flash_choice() {
        let f = |q: &[usize], k: &[usize], m: Option<&[usize]>, gqa: bool| {
            uses_flash(&op(q), &op(k), &op(k), m, DType::Float32, 0.0, gqa)
        };
        assert!(f(&[2, 3, 4, 5], &[2, 3, 6, 5], None, false).unwrap());
        // 3-d inputs count as one batch of heads; 2-d and 5-d never
        assert!(f(&[3, 4, 5], &[1, 6, 5], Some(&[6]), false).unwrap());
        assert!(!f(&[4, 5], &[6, 5], None, false).unwrap());
        assert!(!f(&[1, 2, 3, 4, 5], &[1, 2, 3, 6, 5], None, false).unwrap());
        // heads: equal or 1; dividing only with enable_gqa
        assert!(f(&[1, 4, 2, 3], &[1, 1, 2, 3], None, false).unwrap());
        assert!(!f(&[1, 4, 2, 3], &[1, 2, 2, 3], None, false).unwrap());
        assert!(f(&[1, 4, 2, 3], &[1, 2, 2, 3], None, true).unwrap());
        assert!(!f(&[2, 3, 4, 5], &[1, 3, 6, 5], None, false).unwrap());
        // masks on 4-d inputs: 2-d or 4-d only; 1-d is PyTorch's IndexError
        assert!(!f(&[2, 3, 4, 5], &[2, 3, 6, 5], Some(&[3, 4, 6]), false).unwrap());
        assert!(f(&[2, 3, 4, 5], &[2, 3, 6, 5], Some(&[2, 1, 4, 6]), false).unwrap());
        let e = f(&[2, 3, 4, 5], &[2, 3, 6, 5], Some(&[6]), false).unwrap_err();
        assert_eq!(
            e.message(),
            "Dimension out of range (expected to be in range of [-1, 0], but got -2)"
        );
        // a permuted last dim
        let mut q = op(&[2, 3, 4, 5]);
        q.strides = vec![60, 20, 1, 4];
        assert!(
            !uses_flash(
                &q,
                &op(&[2, 3, 6, 5]),
                &op(&[2, 3, 6, 5]),
                None,
                DType::Float32,
                0.0,
                false
            )
            .unwrap()
        );
    }

    #[test]
    fn shapes_broadcast_and_gqa() {
        let s = math_shapes(&[2, 4, 3, 5], &[2, 2, 6, 5], &[2, 2, 6, 7], None, true).unwrap();
        assert_eq!(s.out, vec![2, 4, 3, 7]);
        assert_eq!((s.rep_k, s.rep_v), (2, 2));
        let s = math_shapes(&[3, 5], &[4, 2, 6, 5], &[6, 7], Some(&[3, 6]), false).unwrap();
        assert_eq!(s.out, vec![4, 2, 3, 7]);
        let e = math_shapes(
            &[2, 3, 4, 5],
            &[2, 3, 6, 5],
            &[2, 3, 6, 5],
            Some(&[3, 2, 3, 4, 6]),
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.message(),
            "output with shape [2, 3, 4, 6] doesn't match the broadcast shape [3, 2, 3, 4, 6]"
        );
        let e = math_shapes(&[3, 5], &[6, 5], &[6, 5], None, true).unwrap_err();
        assert_eq!(
            e.message(),
            "Dimension out of range (expected to be in range of [-2, 1], but got -3)"
        );
    }
}
