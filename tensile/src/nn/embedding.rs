//! `F.embedding` with its optional arguments and `F.embedding_bag` (sums, means or maxima of
//! bags of embedding rows), with PyTorch's checks and messages.

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// `F.embedding`'s optional argument `padding_idx=None`, for [`embedding_with`]: an int or
/// the struct. (PyTorch's `max_norm`, `scale_grad_by_freq` and `sparse` only matter for
/// training and are not taken.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmbeddingOpts {
    /// The row whose gradient is not accumulated; negative counts from the end. In the forward
    /// pass it is only validated.
    pub padding_idx: Option<i64>,
}
impl From<i64> for EmbeddingOpts {
    fn from(padding_idx: i64) -> Self {
        EmbeddingOpts {
            padding_idx: Some(padding_idx),
        }
    }
}

/// `F.embedding(input, weight, padding_idx)`: as [`crate::nn::functional::embedding`], after
/// checking `padding_idx` against `weight`'s rows (it does not change the result).
///
/// Errors: AssertionError `Padding_idx must be within num_embeddings` (`padding_idx` not in
/// `-num..num`), then those of `embedding`.
pub fn embedding_with(
    input: &Tensor,
    weight: &Tensor,
    opts: impl Into<EmbeddingOpts>,
) -> Result<Tensor> {
    if let Some(p) = opts.into().padding_idx {
        let num = weight.size().first().copied().unwrap_or(0) as i64;
        if (p > 0 && p >= num) || (p < 0 && p < -num) {
            return Err(Error::assertion(
                "Padding_idx must be within num_embeddings",
            ));
        }
        if crate::autograd::api::any_requires_grad(&[weight]) {
            // the padding row gets no gradient: its own node
            let out = {
                let _ng = crate::autograd::no_grad();
                crate::nn::functional::embedding(input, weight)?
            };
            return crate::autograd::formulas::embedding::embedding_padded(out, input, weight, p);
        }
    }
    crate::nn::functional::embedding(input, weight)
}

/// `F.embedding_bag`'s optional arguments (`offsets=None, mode='mean',
/// per_sample_weights=None, include_last_offset=False, padding_idx=None`), for
/// [`embedding_bag_with`]: an offsets tensor, a pair `(&offsets, mode)`, or the struct.
#[derive(Clone, Copy, Debug)]
pub struct EmbeddingBagOpts<'a> {
    /// Start of each bag in a 1-D `input` (int64 or int32); must be `None` for a 2-D one.
    pub offsets: Option<&'a Tensor>,
    /// `"sum"`, `"mean"` (default) or `"max"`.
    pub mode: &'a str,
    /// A weight per index (`input`'s shape), `"sum"` mode only.
    pub per_sample_weights: Option<&'a Tensor>,
    /// `offsets` has one more entry, the end of the last bag.
    pub include_last_offset: bool,
    /// Indices equal to it are skipped (not counted in a mean).
    pub padding_idx: Option<i64>,
}
impl Default for EmbeddingBagOpts<'_> {
    fn default() -> Self {
        EmbeddingBagOpts {
            offsets: None,
            mode: "mean",
            per_sample_weights: None,
            include_last_offset: false,
            padding_idx: None,
        }
    }
}
impl<'a> From<&'a Tensor> for EmbeddingBagOpts<'a> {
    fn from(offsets: &'a Tensor) -> Self {
        EmbeddingBagOpts {
            offsets: Some(offsets),
            ..Default::default()
        }
    }
}
impl<'a> From<(&'a Tensor, &'a str)> for EmbeddingBagOpts<'a> {
    fn from((offsets, mode): (&'a Tensor, &'a str)) -> Self {
        EmbeddingBagOpts {
            offsets: Some(offsets),
            mode,
            ..Default::default()
        }
    }
}

/// `F.embedding_bag(input, weight)` of a 2-D `input` (each row a bag), mode `mean`; see
/// [`embedding_bag_with`].
pub fn embedding_bag(input: &Tensor, weight: &Tensor) -> Result<Tensor> {
    embedding_bag_with(input, weight, EmbeddingBagOpts::default())
}

/// `F.embedding_bag(input, weight, offsets, …, mode, …, per_sample_weights,
/// include_last_offset, padding_idx)`: for each bag, the sum, mean or elementwise max of the
/// rows `weight[i]` of its indices (each scaled by its `per_sample_weights` entry in `sum`
/// mode), skipping indices equal to `padding_idx`; an empty bag gives zeros.
///
/// Bags: a 2-D `input` `(B, L)` has one bag per row; a 1-D `input` is cut at `offsets`
/// (bag `b` is `input[offsets[b]..offsets[b+1]]`, the last running to the end, or with
/// `include_last_offset` to the last offset; then there are `len(offsets) - 1` bags).
///
/// Shapes: `weight` `(num, dim)` → `(B, dim)`, contiguous, `weight`'s dtype. Indices int64 or
/// int32. The result is PyTorch's first output (the bag values) only.
///
/// Errors: ValueError `embedding_bag: If per_sample_weights ([3]) is not None, then it must
/// have the same shape as the input ([4])`; `weight has to be a 2D Tensor, but got Tensor of
/// dimension 1`; `if input is 2D, then offsets has to be None, as input is treated is a
/// mini-batch of fixed length sequences. However, found offsets of type Tensor`; `offsets has
/// to be a 1D Tensor but got None`; `offsets has to be a 1D Tensor`; `input has to be 1D or
/// 2D Tensor, but got Tensor of dimension 3`; `mode has to be one of sum, mean or max`;
/// NotImplementedError `embedding_bag: per_sample_weights was not None. per_sample_weights is
/// only supported for mode='sum' (got mode='max'). Please open a feature request on
/// GitHub.`; RuntimeError `Expected tensor for argument #1 'weight' to have one of the
/// following scalar types: Half, BFloat16, Float, Double; but got torch.LongTensor instead
/// (while checking arguments for embedding_bag)`; `offsets[0] has to be 0, i.e., the first sequence in the
/// mini-batch has to start from position 0. However, got 1`; `offsets[-1] can not be greater
/// than input's length 3, but got offsets[-1] of 4`; `embedding_bag: Expected idx >= 0 && idx
/// < num_embeddings but found idx to be 7`; the allocator's error when the bags of a 2-D
/// input can't be counted in memory.
pub fn embedding_bag_with<'a>(
    input: &Tensor,
    weight: &Tensor,
    opts: impl Into<EmbeddingBagOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let shape_str = |t: &Tensor| crate::error::fmt_list(&t.sizes);
    if let Some(p) = o.per_sample_weights
        && p.sizes != input.sizes
    {
        return Err(Error::value(format!(
            "embedding_bag: If per_sample_weights ({}) is not None, then it must have the same shape as the input ({})",
            shape_str(p),
            shape_str(input)
        )));
    }
    if weight.dim() != 2 {
        return Err(Error::value(format!(
            "weight has to be a 2D Tensor, but got Tensor of dimension {}",
            weight.dim()
        )));
    }
    let idx: Vec<i64>;
    let offs: Vec<i64>;
    match input.dim() {
        2 => {
            if o.offsets.is_some() {
                return Err(Error::value(
                    "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type Tensor",
                ));
            }
            let (b, l) = (input.sizes[0], input.sizes[1]);
            idx = input.try_to_vec::<i64>()?;
            // one offset per bag, allocated fallibly (an empty (2^62, 0) input has 2^62 bags)
            let mut o: Vec<i64> = crate::error::try_vec(b)?;
            o.extend((0..b).map(|i| i.wrapping_mul(l) as i64));
            offs = o;
        }
        1 => {
            let Some(off) = o.offsets else {
                return Err(Error::value("offsets has to be a 1D Tensor but got None"));
            };
            if off.dim() != 1 {
                return Err(Error::value("offsets has to be a 1D Tensor"));
            }
            idx = input.try_to_vec::<i64>()?;
            offs = off.try_to_vec::<i64>()?;
        }
        d => {
            return Err(Error::value(format!(
                "input has to be 1D or 2D Tensor, but got Tensor of dimension {d}"
            )));
        }
    }
    let mode = match o.mode {
        "sum" | "mean" | "max" => o.mode,
        _ => return Err(Error::value("mode has to be one of sum, mean or max")),
    };
    if o.per_sample_weights.is_some() && mode != "sum" {
        return Err(Error::not_implemented(format!(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='{mode}'). Please open a feature request on GitHub."
        )));
    }
    for (name, t) in [("indices", Some(input)), ("offsets", o.offsets)] {
        if let Some(t) = t
            && !matches!(t.dtype, DType::Int64 | DType::Int32)
        {
            return Err(Error::runtime(format!(
                "Expected tensor for argument #1 '{name}' to have one of the following scalar types: Long, Int; but got {} instead (while checking arguments for embedding_bag)",
                t.dtype.legacy_type_name()
            )));
        }
    }
    if !weight.dtype.is_floating_point() {
        return Err(Error::runtime(format!(
            "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, Float, Double; but got {} instead (while checking arguments for embedding_bag)",
            weight.dtype.legacy_type_name()
        )));
    }
    if let (Some(&first), Some(&last)) = (offs.first(), offs.last()) {
        if first != 0 {
            return Err(Error::runtime(format!(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got {first}"
            )));
        }
        if last > idx.len() as i64 {
            return Err(Error::runtime(format!(
                "offsets[-1] can not be greater than input's length {}, but got offsets[-1] of {last}",
                idx.len()
            )));
        }
    }
    let (num, dim) = (weight.sizes[0], weight.sizes[1]);
    if let Some(&bad) = idx.iter().find(|&&i| i < 0 || i >= num as i64) {
        return Err(Error::runtime(format!(
            "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {bad}"
        )));
    }
    let bags = if o.include_last_offset {
        offs.len().saturating_sub(1)
    } else {
        offs.len()
    };
    let w = weight.try_to_vec::<f64>()?;
    let psw = o
        .per_sample_weights
        .map(|p| p.try_to_vec::<f64>())
        .transpose()?;
    let pad = o
        .padding_idx
        .map(|p| if p < 0 { p + num as i64 } else { p });
    let mut out = crate::error::try_filled(0.0, bags * dim)?;
    for b in 0..bags {
        let start = offs[b].max(0) as usize;
        let end = if b + 1 < offs.len() {
            offs[b + 1].max(0) as usize
        } else {
            idx.len()
        }
        .min(idx.len());
        let row = &mut out[b * dim..(b + 1) * dim];
        let mut count = 0usize;
        for (j, &i) in idx.iter().enumerate().take(end).skip(start) {
            if Some(i) == pad {
                continue;
            }
            let src = &w[i as usize * dim..(i as usize + 1) * dim];
            let scale = psw.as_ref().map_or(1.0, |p| p[j]);
            for (o, &v) in row.iter_mut().zip(src) {
                *o = match mode {
                    "max" if count > 0 => f64::max(*o, v),
                    "max" => v,
                    _ => *o + v * scale,
                };
            }
            count += 1;
        }
        if mode == "mean" && count > 0 {
            for o in row.iter_mut() {
                *o /= count as f64;
            }
        }
    }
    let r = Tensor::from_vec(out, [bags, dim])?.to(weight.dtype)?;
    crate::autograd::formulas::embedding::embedding_bag(r, weight, o.per_sample_weights, || {
        let ranges = (0..bags)
            .map(|b| {
                let start = offs[b].max(0) as usize;
                let end = if b + 1 < offs.len() {
                    offs[b + 1].max(0) as usize
                } else {
                    idx.len()
                }
                .min(idx.len());
                (start.min(end), end)
            })
            .collect();
        crate::autograd::formulas::embedding::Bags {
            idx,
            ranges,
            pad,
            mode: match mode {
                "max" => "max",
                "mean" => "mean",
                _ => "sum",
            },
        }
    })
}
