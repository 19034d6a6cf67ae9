//! Similarities and distances written with differentiable ops: `F.cosine_similarity` and
//! `F.pairwise_distance`, with PyTorch's checks and messages (`torch.cdist` and `F.pdist` are
//! rows of the op table, `crate::optable::nn`).

use crate::Tensor;
use crate::args::Int;
use crate::error::{Error, Result};

/// `F.cosine_similarity`'s optional arguments (`dim=1, eps=1e-8`), for
/// [`cosine_similarity_with`]: `dim`, `(dim, eps)`, or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CosineSimilarityOpts {
    /// The dim the vectors lie along (default 1).
    pub dim: i64,
    /// Lower bound of each norm (default 1e-8).
    pub eps: f64,
}
impl Default for CosineSimilarityOpts {
    fn default() -> Self {
        CosineSimilarityOpts { dim: 1, eps: 1e-8 }
    }
}
impl<D: Int> From<D> for CosineSimilarityOpts {
    fn from(dim: D) -> Self {
        CosineSimilarityOpts {
            dim: dim.to_i64(),
            ..Default::default()
        }
    }
}
impl<D: Int> From<(D, f64)> for CosineSimilarityOpts {
    fn from((dim, eps): (D, f64)) -> Self {
        CosineSimilarityOpts {
            dim: dim.to_i64(),
            eps,
        }
    }
}

/// `torch.linalg.vector_norm(t, p, dims, keepdim)`: [`Tensor::norm_with`] with a number `p`.
fn vector_norm(t: &Tensor, p: f64, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    t.norm_with(crate::NormOpts {
        p: crate::NormP::Num(p),
        dim: Some(crate::args::IntList::from_slice(dims)),
        keepdim,
        dtype: None,
    })
}

/// `F.cosine_similarity(x1, x2)` (`dim=1`); see [`cosine_similarity_with`].
pub fn cosine_similarity(x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    cosine_similarity_with(x1, x2, CosineSimilarityOpts::default())
}

/// `F.cosine_similarity(x1, x2, dim, eps)`: `Σ (x1/max(‖x1‖, eps)) · (x2/max(‖x2‖, eps))`
/// along `dim`, after broadcasting `x1` with `x2`.
///
/// Shapes: the broadcast shape without `dim`; contiguous. dtype: the promoted float dtype
/// (integer inputs are converted to it).
///
/// Errors: `The size of tensor a (3) must match the size of tensor b (2) at non-singleton
/// dimension 1`; `expected common dtype to be floating point, yet common dtype is Long`;
/// IndexError `Dimension out of range (expected to be in range of [-1, 0], but got 1)`.
pub fn cosine_similarity_with(
    x1: &Tensor,
    x2: &Tensor,
    opts: impl Into<CosineSimilarityOpts>,
) -> Result<Tensor> {
    let CosineSimilarityOpts { dim, eps } = opts.into();
    let common = crate::dtype::result_type(&[(x1.dtype, x1.category()), (x2.dtype, x2.category())]);
    if !common.is_floating_point() {
        return Err(Error::runtime(format!(
            "expected common dtype to be floating point, yet common dtype is {}",
            common.scalar_type_name()
        )));
    }
    let cast = |t: &Tensor| -> Result<Tensor> {
        if t.dtype.is_floating_point() {
            Ok(t.alias())
        } else {
            t.to(common)
        }
    };
    let (a, b) = (cast(x1)?, cast(x2)?);
    let v = crate::broadcast_tensors(&[&a, &b])?;
    let n1 = vector_norm(&v[0], 2.0, &[dim], true)?.clamp_min(eps)?;
    let n2 = vector_norm(&v[1], 2.0, &[dim], true)?.clamp_min(eps)?;
    v[0].div(&n1)?.mul(&v[1].div(&n2)?)?.sum_dim(dim, false)
}

/// `F.pairwise_distance`'s optional arguments (`p=2.0, eps=1e-6, keepdim=False`), for
/// [`pairwise_distance_with`]: `p`, `(p, eps)`, `(p, eps, keepdim)`, or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairwiseDistanceOpts {
    /// The norm's exponent (default 2).
    pub p: f64,
    /// Added to the difference (default 1e-6).
    pub eps: f64,
    /// Keep the reduced last dim as size 1.
    pub keepdim: bool,
}
impl Default for PairwiseDistanceOpts {
    fn default() -> Self {
        PairwiseDistanceOpts {
            p: 2.0,
            eps: 1e-6,
            keepdim: false,
        }
    }
}
impl From<f64> for PairwiseDistanceOpts {
    fn from(p: f64) -> Self {
        PairwiseDistanceOpts {
            p,
            ..Default::default()
        }
    }
}
impl From<(f64, f64)> for PairwiseDistanceOpts {
    fn from((p, eps): (f64, f64)) -> Self {
        PairwiseDistanceOpts {
            p,
            eps,
            keepdim: false,
        }
    }
}
impl From<(f64, f64, bool)> for PairwiseDistanceOpts {
    fn from((p, eps, keepdim): (f64, f64, bool)) -> Self {
        PairwiseDistanceOpts { p, eps, keepdim }
    }
}

/// `F.pairwise_distance(x1, x2)` (`p=2, eps=1e-6`); see [`pairwise_distance_with`].
pub fn pairwise_distance(x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    pairwise_distance_with(x1, x2, PairwiseDistanceOpts::default())
}

/// `F.pairwise_distance(x1, x2, p, eps, keepdim)`: `‖x1 - x2 + eps‖_p` along the last dim
/// of the broadcast shape.
///
/// Shapes: the broadcast shape without its last dim (kept as 1 with `keepdim`); contiguous.
/// dtype: the promoted float dtype.
///
/// Errors: `The size of tensor a (3) must match the size of tensor b (2) at non-singleton
/// dimension 1`; NotImplementedError `linalg.vector_norm: Expected a floating point or complex
/// tensor as input. Got Long`.
pub fn pairwise_distance_with(
    x1: &Tensor,
    x2: &Tensor,
    opts: impl Into<PairwiseDistanceOpts>,
) -> Result<Tensor> {
    let PairwiseDistanceOpts { p, eps, keepdim } = opts.into();
    let nd = x1.dim().max(x2.dim());
    let d = x1.sub(x2)?.add(eps)?;
    let dims: &[i64] = if nd == 0 { &[] } else { &[-1] };
    // PyTorch's composite calls `at::norm(…, p, dim, keepdim)`: `NormBackward1`
    crate::optable::reduce::vector_norm_dim(&d, p, dims, keepdim)
}
