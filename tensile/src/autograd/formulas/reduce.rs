//! Reductions (spec §9.3): the gradient expanded back over the reduced dims.

use super::super::node::Save;
use super::super::record::{node, node_saving, record};
use super::pointwise::{lam, map_n};
use crate::error::Result;
use crate::tensor::Tensor;

/// `g` with the reduced `dims` put back (size 1) when `keepdim` was false, expanded to
/// `sizes`.
pub(crate) fn expand_back(
    g: &Tensor,
    sizes: &[usize],
    dims: &[usize],
    keepdim: bool,
) -> Result<Tensor> {
    let mut g = g.alias();
    if !keepdim {
        let mut ds = dims.to_vec();
        ds.sort_unstable();
        for d in ds {
            g = g.unsqueeze(d as i64)?;
        }
    }
    g.expand(sizes)
}

/// The reduced dims, wrapped (an empty list means every dim, as PyTorch's `dim=[]`).
pub(crate) fn wrap_dims(x: &Tensor, dims: &[i64]) -> Vec<usize> {
    let n = x.dim() as i64;
    if dims.is_empty() {
        return (0..x.dim()).collect();
    }
    dims.iter()
        .map(|&d| (if d < 0 { d + n.max(1) } else { d }) as usize)
        .filter(|&d| d < x.dim().max(1))
        .collect()
}

/// `sum()` (`SumBackward0`), `sum(dims, keepdim)` (`SumBackward1`), `nansum`
/// (`NansumBackward0`: zero where the input is NaN).
pub(crate) fn sum(
    out: Tensor,
    x: &Tensor,
    dims: Option<(&[i64], bool)>,
    nan: bool,
) -> Result<Tensor> {
    let sizes: Vec<usize> = x.size().to_vec();
    let (ds, keep) = match dims {
        None => ((0..x.dim()).collect::<Vec<_>>(), false),
        Some((d, k)) => (wrap_dims(x, d), k),
    };
    let name = match (nan, dims.is_some()) {
        (true, _) => "NansumBackward0",
        (false, false) => "SumBackward0",
        (false, true) => "SumBackward1",
    };
    record(out, &[x], || {
        if nan {
            node_saving(
                lam(name, move |g, s| {
                    let e = expand_back(g, &sizes, &ds, keep)?;
                    Ok(vec![Some(map_n(&[&e, &s[0]], g.dtype(), |v| {
                        if v[1].is_nan() { 0.0 } else { v[0] }
                    })?)])
                }),
                vec![Save::Input(x.alias())],
            )
        } else {
            node(lam(name, move |g, _| {
                Ok(vec![Some(expand_back(g, &sizes, &ds, keep)?)])
            }))
        }
    })
}

/// `mean()` (`MeanBackward0`), `mean(dims, keepdim)` (`MeanBackward1`): `g / N`.
pub(crate) fn mean(out: Tensor, x: &Tensor, dims: Option<(&[i64], bool)>) -> Result<Tensor> {
    let sizes: Vec<usize> = x.size().to_vec();
    let (ds, keep) = match dims {
        None => ((0..x.dim()).collect::<Vec<_>>(), false),
        Some((d, k)) => (wrap_dims(x, d), k),
    };
    let n: usize = ds
        .iter()
        .map(|&d| sizes.get(d).copied().unwrap_or(1))
        .product();
    let name = if dims.is_some() {
        "MeanBackward1"
    } else {
        "MeanBackward0"
    };
    record(out, &[x], || {
        node(lam(name, move |g, _| {
            Ok(vec![Some(expand_back(
                &g.div(n as f64)?,
                &sizes,
                &ds,
                keep,
            )?)])
        }))
    })
}
