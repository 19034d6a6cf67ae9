//! Distances (PyTorch's `_cdist_backward`, `_pdist_backward`). `cosine_similarity` and
//! `pairwise_distance` are composites in PyTorch and in tensile (their pieces record:
//! `vector_norm` is in `norm.rs`).

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::{lam, map_n};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// `∂‖d‖_p / ∂d` for one difference element `d` of a distance `r`: `sgn(d)·|d|^(p-1)/r^(p-1)`
/// (`p = 1`: `sgn(d)`; `p = 2`: `d/r`; `p = ∞`: `sgn(d)` where `|d| = r`; `p = 0`, or `r = 0`
/// for `p > 1`: 0), as PyTorch's `cdist` backward kernels.
fn d_dist(p: f64, d: f64, r: f64) -> f64 {
    let sgn = if d > 0.0 {
        1.0
    } else if d < 0.0 {
        -1.0
    } else {
        0.0
    };
    if p == 0.0 {
        0.0
    } else if p == 1.0 {
        sgn
    } else if p.is_infinite() {
        if d.abs() == r { sgn } else { 0.0 }
    } else if r == 0.0 {
        0.0
    } else if p == 2.0 {
        d / r
    } else if p < 1.0 && d == 0.0 {
        0.0
    } else {
        sgn * d.abs().powf(p - 1.0) / r.powf(p - 1.0)
    }
}

/// Gradients of `cdist(x1, x2, p)` (`(…, R1, M)`, `(…, R2, M)` → `(…, R1, R2)`) for the
/// output gradient `g` and the output `r`: `gx1[i] = Σ_j g[i,j]·∂(i,j)`, `gx2[j] = -Σ_i …`.
fn cdist_grads(
    g: &Tensor,
    x1: &Tensor,
    x2: &Tensor,
    r: &Tensor,
    p: f64,
) -> Result<(Tensor, Tensor)> {
    let (a, b) = (x1.to(DType::Float64)?, x2.to(DType::Float64)?);
    let diff = a.unsqueeze(-2)?.sub(&b.unsqueeze(-3)?)?; // (…, R1, R2, M)
    let d = map_n(
        &[&g.unsqueeze(-1)?, &diff, &r.unsqueeze(-1)?],
        DType::Float64,
        |v| v[0] * d_dist(p, v[1], v[2]),
    )?;
    Ok((d.sum_dim(-2, false)?, d.sum_dim(-3, false)?.neg()?))
}

/// `torch.cdist(x1, x2, p)` (`CdistBackward0`). Saves `x1`, `x2` and the output.
pub(crate) fn cdist(out: Tensor, x1: &Tensor, x2: &Tensor, p: f64) -> Result<Tensor> {
    let (r1, r2) = (x1.requires_grad(), x2.requires_grad());
    record(out, &[x1, x2], || {
        node_saving(
            lam("CdistBackward0", move |g, s| {
                let (g1, g2) = cdist_grads(g, &s[0], &s[1], &s[2], p)?;
                Ok(vec![r1.then_some(g1), r2.then_some(g2)])
            }),
            vec![
                Save::Input(x1.alias()),
                Save::Input(x2.alias()),
                Save::Output(0),
            ],
        )
    })
}

/// `_euclidean_dist(x1, x2)` (`EuclideanDistBackward0`), the matrix-product form of
/// `cdist(p=2)`: PyTorch's `_euclidean_dist_backward`, `ratio = g / r` (0 where `r = 0`),
/// `gx1 = x1·Σ_j ratio - ratio @ x2`, `gx2 = x2·Σ_i ratio - ratioᵀ @ x1`. Saves `x1`, `x2`
/// and the output.
pub(crate) fn euclidean_dist(out: Tensor, x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    let (r1, r2) = (x1.requires_grad(), x2.requires_grad());
    record(out, &[x1, x2], || {
        node_saving(
            lam("EuclideanDistBackward0", move |g, s| {
                let (a, b, r) = (&s[0], &s[1], &s[2]);
                let ratio = g.div(r)?.masked_fill(&r.eq(0)?, 0)?;
                let g1 = a.mul(&ratio.sum_dim(-1, true)?)?.sub(&ratio.matmul(b)?)?;
                let g2 = b
                    .mul(&ratio.sum_dim(-2, false)?.unsqueeze(-1)?)?
                    .sub(&ratio.mT()?.matmul(a)?)?;
                Ok(vec![r1.then_some(g1), r2.then_some(g2)])
            }),
            vec![
                Save::Input(x1.alias()),
                Save::Input(x2.alias()),
                Save::Output(0),
            ],
        )
    })
}

/// `F.pdist(x, p)` (`PdistBackward0`): the distances of the pairs `i < j` of the rows of `x`
/// (`(N, M)` → `(N(N-1)/2,)`); the gradient is `cdist`'s for `x1 = x2 = x` with the
/// symmetric gradient matrix `G + Gᵀ` (`G[i,j] = g[k(i,j)]` for `i < j`). Saves `x` and the
/// output.
pub(crate) fn pdist(out: Tensor, x: &Tensor, p: f64) -> Result<Tensor> {
    let n = x.size()[0];
    record(out, &[x], || {
        node_saving(
            lam("PdistBackward0", move |g, s| {
                let (gv, rv) = (g.try_to_vec::<f64>()?, s[1].try_to_vec::<f64>()?);
                let (mut gm, mut rm) = (vec![0.0; n * n], vec![0.0; n * n]);
                let mut k = 0;
                for i in 0..n {
                    for j in i + 1..n {
                        gm[i * n + j] = gv[k];
                        gm[j * n + i] = gv[k];
                        rm[i * n + j] = rv[k];
                        rm[j * n + i] = rv[k];
                        k += 1;
                    }
                }
                let gm = Tensor::from_vec(gm, [n, n])?;
                let rm = Tensor::from_vec(rm, [n, n])?;
                let (gx, _) = cdist_grads(&gm, &s[0], &s[0], &rm, p)?;
                Ok(vec![Some(gx)])
            }),
            vec![Save::Input(x.alias()), Save::Output(0)],
        )
    })
}

#[cfg(test)]
mod tests {
    use super::d_dist;

    #[test]
    fn distance_derivative_special_cases() {
        // p = 2 at a zero distance is 0 (not NaN); p = ∞ only where |d| reaches the distance
        assert_eq!(d_dist(2.0, 0.0, 0.0), 0.0);
        assert_eq!(d_dist(f64::INFINITY, -2.0, 2.0), -1.0);
        assert_eq!(d_dist(f64::INFINITY, 1.0, 2.0), 0.0);
        assert_eq!(d_dist(0.0, 1.0, 2.0), 0.0);
        assert!((d_dist(3.0, 2.0, 4.0) - 0.25).abs() < 1e-15);
    }
}
