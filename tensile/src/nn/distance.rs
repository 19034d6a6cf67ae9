//! Distances and similarities: `F.cosine_similarity`, `F.pairwise_distance`, `torch.cdist`
//! and `F.pdist`, with PyTorch's checks and messages.

use rayon::prelude::*;

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
    let common = crate::iter::result_type_of(&[x1, x2]);
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
    vector_norm(&d, p, dims, keepdim)
}

/// `torch.cdist`'s optional arguments (`p=2.0, compute_mode=None`), for [`cdist_with`]: `p`
/// or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CdistOpts<'a> {
    /// The norm's exponent, ≥ 0 (`0` counts differing coordinates, `inf` the largest
    /// difference). Default 2.
    pub p: f64,
    /// PyTorch's choice between the direct and the matrix-product Euclidean distance; tensile
    /// always computes directly (in double), so every mode gives the direct distances.
    pub compute_mode: Option<&'a str>,
}
impl Default for CdistOpts<'_> {
    fn default() -> Self {
        CdistOpts {
            p: 2.0,
            compute_mode: None,
        }
    }
}
impl From<f64> for CdistOpts<'_> {
    fn from(p: f64) -> Self {
        CdistOpts {
            p,
            compute_mode: None,
        }
    }
}

/// The p-norm of the coordinate differences of two rows.
#[inline]
fn dist(a: &[f64], b: &[f64], p: f64) -> f64 {
    let it = a.iter().zip(b).map(|(x, y)| (x - y).abs());
    if p == 0.0 {
        it.filter(|&d| d != 0.0).count() as f64
    } else if p == 1.0 {
        it.sum()
    } else if p == 2.0 {
        it.map(|d| d * d).sum::<f64>().sqrt()
    } else if p.is_infinite() {
        it.fold(0.0, f64::max)
    } else {
        it.map(|d| d.powf(p)).sum::<f64>().powf(1.0 / p)
    }
}

/// `torch.cdist(x1, x2)` (`p=2`); see [`cdist_with`].
pub fn cdist(x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    cdist_with(x1, x2, CdistOpts::default())
}

/// `torch.cdist(x1, x2, p, compute_mode)`: the p-norm distance between every row of `x1` and
/// every row of `x2`, batched over the broadcast leading dims.
///
/// Shapes: `x1` `(*a, P, M)`, `x2` `(*b, R, M)` → `(broadcast(a, b), P, R)`, contiguous.
/// dtype: the inputs' float dtype (computed in double, rounded once).
///
/// Errors (RuntimeError): `cdist only supports at least 2D tensors, X1 got: 1D` (X2 alike);
/// `X1 and X2 must have the same number of columns. X1: 3 X2: 4`; `cdist only supports
/// non-negative p values`; `cdist only supports floating-point dtypes, X1 got: Long`; `The
/// size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 0`;
/// `Storage size calculation overflowed with sizes=[1, 4611686018427387904, 4611686018427387904]`
/// (an output too large, e.g. two `(1, 2^62, 0)` inputs); the allocator's error.
pub fn cdist_with<'a>(x1: &Tensor, x2: &Tensor, opts: impl Into<CdistOpts<'a>>) -> Result<Tensor> {
    let p = opts.into().p;
    for (name, t) in [("X1", x1), ("X2", x2)] {
        if t.dim() < 2 {
            return Err(Error::runtime(format!(
                "cdist only supports at least 2D tensors, {name} got: {}D",
                t.dim()
            )));
        }
    }
    let (m1, m2) = (x1.sizes[x1.dim() - 1], x2.sizes[x2.dim() - 1]);
    if m1 != m2 {
        return Err(Error::runtime(format!(
            "X1 and X2 must have the same number of columns. X1: {m1} X2: {m2}"
        )));
    }
    if p.is_nan() || p < 0.0 {
        return Err(Error::runtime("cdist only supports non-negative p values"));
    }
    for (name, t) in [("X1", x1), ("X2", x2)] {
        if !t.dtype.is_floating_point() {
            return Err(Error::runtime(format!(
                "cdist only supports floating-point dtypes, {name} got: {}",
                t.dtype.scalar_type_name()
            )));
        }
    }
    let (r1, r2) = (x1.sizes[x1.dim() - 2], x2.sizes[x2.dim() - 2]);
    let batch = crate::broadcast::infer_size(&x1.sizes[..x1.dim() - 2], &x2.sizes[..x2.dim() - 2])?;
    let dtype = crate::iter::result_type_of(&[x1, x2]);
    // the output's size checked first, as PyTorch allocates it first: `(1, 2^62, 0)` against
    // itself overflowed `nb * r1 * r2`
    let mut out_shape = batch.clone();
    out_shape.extend([r1, r2]);
    crate::layout::storage_nbytes_contiguous(&out_shape, dtype.itemsize())?;
    let expand = |t: &Tensor, r: usize| -> Result<Vec<f64>> {
        let mut s: Vec<i64> = batch.iter().map(|&b| b as i64).collect();
        s.extend([r as i64, m1 as i64]);
        t.expand(&s)?.try_to_vec::<f64>()
    };
    let (a, b) = (expand(x1, r1)?, expand(x2, r2)?);
    let nb: usize = batch.iter().product();
    let m = m1;
    let mut out = crate::error::try_filled(0.0, nb * r1 * r2)?;
    let fill = |(k, o): (usize, &mut [f64])| {
        if r2 == 0 {
            return;
        }
        let (bi, i) = (k / r1, k % r1);
        let row = &a[(bi * r1 + i) * m..(bi * r1 + i + 1) * m];
        for (j, e) in o.iter_mut().enumerate() {
            *e = dist(row, &b[(bi * r2 + j) * m..(bi * r2 + j + 1) * m], p);
        }
    };
    if nb * r1 * r2 * m > 1 << 16 && crate::kernels::par::threads() > 1 {
        crate::kernels::par::run(|| out.par_chunks_mut(r2.max(1)).enumerate().for_each(fill));
    } else {
        out.chunks_mut(r2.max(1)).enumerate().for_each(fill);
    }
    let mut shape = batch.clone();
    shape.extend([r1, r2]);
    let r = Tensor::from_vec(out, &shape[..])?.to(dtype)?;
    crate::autograd::formulas::distance::cdist(r, x1, x2, p)
}

/// `F.pdist(input)` (`p=2`); see [`pdist_with`].
pub fn pdist(input: &Tensor) -> Result<Tensor> {
    pdist_with(input, 2.0)
}

/// `F.pdist(input, p)`: the p-norm distance between rows `i < j` of an `(N, M)` input, in
/// row-major order of the upper triangle: shape `(N*(N-1)/2,)`, contiguous, `input`'s dtype.
///
/// Errors (RuntimeError): `pdist only supports 2D tensors, got: 3D`; `pdist only supports
/// floating-point dtypes`; `pdist only supports non-negative p values`; `pdist: the number
/// of pairs 10633823966279326980924613473029062656 of 4611686018427387904 rows overflows
/// int64` (an `(2^62, 0)` input); the allocator's error.
pub fn pdist_with(input: &Tensor, p: f64) -> Result<Tensor> {
    if input.dim() != 2 {
        return Err(Error::runtime(format!(
            "pdist only supports 2D tensors, got: {}D",
            input.dim()
        )));
    }
    if !input.dtype.is_floating_point() {
        return Err(Error::runtime("pdist only supports floating-point dtypes"));
    }
    if p.is_nan() || p < 0.0 {
        return Err(Error::runtime("pdist only supports non-negative p values"));
    }
    let (n, m) = (input.sizes[0], input.sizes[1]);
    // the pair count in u128 and its buffer held fallibly: an `(2^62, 0)` input overflowed
    // `n * (n - 1)` (and then walked ~2^123 pairs)
    let pairs = n as u128 * (n as u128).saturating_sub(1) / 2;
    if pairs > i64::MAX as u128 {
        return Err(Error::runtime(format!(
            "pdist: the number of pairs {pairs} of {n} rows overflows int64"
        )));
    }
    let v = input.try_to_vec::<f64>()?;
    let mut out = crate::error::try_vec(pairs as usize)?;
    for i in 0..n {
        for j in i + 1..n {
            out.push(dist(&v[i * m..(i + 1) * m], &v[j * m..(j + 1) * m], p));
        }
    }
    let len = out.len();
    let r = Tensor::from_vec(out, [len])?.to(input.dtype)?;
    crate::autograd::formulas::distance::pdist(r, input, p)
}
