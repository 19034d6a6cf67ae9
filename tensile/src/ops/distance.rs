//! The forward functions of `torch.cdist` and `F.pdist` (their functions and recording are
//! `crate::optable::nn`'s): the p-norm distances between rows, computed in double and rounded
//! once to the inputs' float dtype, with PyTorch's checks and messages.

use rayon::prelude::*;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `torch.cdist`'s optional arguments (`p=2.0, compute_mode=None`), for [`crate::cdist_with`]: `p`
/// or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CdistOpts<'a> {
    /// The norm's exponent, ≥ 0 (`0` counts differing coordinates, `inf` the largest
    /// difference). Default 2.
    pub p: f64,
    /// PyTorch's choice between the direct and the matrix-product Euclidean distance (`p = 2`
    /// only): `"use_mm_for_euclid_dist_if_necessary"` (`None`: the product when either input
    /// has more than 25 rows), `"use_mm_for_euclid_dist"` (always), or
    /// `"donot_use_mm_for_euclid_dist"` (never).
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

/// `torch.cdist`'s checks, in PyTorch's order (errors as `crate::optable::nn::cdist_with`).
pub(crate) fn cdist_check(x1: &Tensor, x2: &Tensor, p: f64) -> Result<()> {
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
    Ok(())
}

/// `_euclidean_dist(x1, x2)`, the matrix-product form of `cdist(p=2)` that PyTorch takes
/// for more than 25 rows (`compute_mode` permitting), op for op:
/// `cat([-2·x1, Σx1², 1]) @ cat([x2, 1, Σx2²])ᵀ`, clamped at 0, square-rooted. So the
/// distance of a row to itself is the rounding residue of `‖a‖² - 2a·a + ‖a‖²`, not 0, as in
/// PyTorch. `x1` `(B, R1, M)` or `(R1, M)`, `x2` alike. Its caller turns recording off.
pub(crate) fn euclidean_dist_fwd(x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    let n1 = x1.pow(2)?.sum_dim(-1, true)?;
    let n2 = x2.pow(2)?.sum_dim(-1, true)?;
    let a = crate::cat_with(&[x1.mul(-2)?, n1.alias(), Tensor::ones_like(&n1)?], -1)?;
    let b = crate::cat_with(&[x2.alias(), Tensor::ones_like(&n2)?, n2], -1)?;
    let r = a.matmul(&b.mT()?)?;
    r.clamp_min_(0)?.sqrt_()
}

/// `torch.cdist(x1, x2, p)`'s value by the direct kernel (see `crate::optable::nn::cdist_with`
/// for shapes and errors); records nothing.
pub(crate) fn cdist_fwd(x1: &Tensor, x2: &Tensor, p: f64) -> Result<Tensor> {
    cdist_check(x1, x2, p)?;
    let m1 = x1.sizes[x1.dim() - 1];
    let (r1, r2) = (x1.sizes[x1.dim() - 2], x2.sizes[x2.dim() - 2]);
    let batch = crate::broadcast::infer_size(&x1.sizes[..x1.dim() - 2], &x2.sizes[..x2.dim() - 2])?;
    let dtype = crate::iter::result_type_of(&[x1, x2]);
    // the output's size checked first, as PyTorch allocates it first: `(1, 2^62, 0)` against
    // itself overflowed `nb * r1 * r2`
    let mut out_shape = batch.clone();
    out_shape.extend([r1, r2]);
    crate::layout::storage_nbytes_contiguous(&out_shape, dtype.itemsize())?;
    // the kernel (float32 and float64 only) runs for a non-empty output with columns
    let nb: usize = batch.iter().product();
    if nb * r1 * r2 * m1 != 0 && !matches!(dtype, DType::Float32 | DType::Float64) {
        return Err(Error::not_implemented_for("cdist", dtype));
    }
    let expand = |t: &Tensor, r: usize| -> Result<Vec<f64>> {
        let mut s: Vec<i64> = batch.iter().map(|&b| b as i64).collect();
        s.extend([r as i64, m1 as i64]);
        t.expand(&s)?.try_to_vec::<f64>()
    };
    let (a, b) = (expand(x1, r1)?, expand(x2, r2)?);
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
    Ok(r)
}

/// `F.pdist(input, p)`'s value (see `crate::optable::nn::pdist_with` for shapes and errors);
/// records nothing.
pub(crate) fn pdist_fwd(input: &Tensor, p: f64) -> Result<Tensor> {
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
    // the kernel (float32 and float64 only) runs for pairs with columns
    if pairs > 0 && m > 0 && !matches!(input.dtype, DType::Float32 | DType::Float64) {
        return Err(Error::not_implemented_for("pdist", input.dtype));
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
    Ok(r)
}
