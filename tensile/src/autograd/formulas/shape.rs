//! Shape ops that copy (not views): `tril`/`triu`, `narrow_copy`, `diag` of a matrix,
//! `diag_embed` (also `diag` of a vector and `diagflat`, which PyTorch decomposes into it),
//! `block_diag`. PyTorch's `derivatives.yaml` entries, computed with tensile's own ops.

use super::super::record::{node, record};
use super::pointwise::lam;
use crate::error::Result;
use crate::tensor::Tensor;

/// `tril(x, k)` (`TrilBackward0`): `g.tril(k)`; `triu(x, k)` (`TriuBackward0`): `g.triu(k)`.
/// Saves nothing. The in-place forms record the same node (rebased onto `self`).
pub(crate) fn triangle(out: Tensor, x: &Tensor, k: i64, lower: bool) -> Result<Tensor> {
    record(out, &[x], || {
        if lower {
            node(lam("TrilBackward0", move |g, _| {
                Ok(vec![Some(g.tril_with(k)?)])
            }))
        } else {
            node(lam("TriuBackward0", move |g, _| {
                Ok(vec![Some(g.triu_with(k)?)])
            }))
        }
    })
}

/// `narrow_copy(x, dim, start, length)` (`NarrowCopyBackward0`), PyTorch's `slice_backward`:
/// zeros of `x`'s shape with `g` written into the narrowed window (`dim`, `start` as given:
/// the same `narrow` wraps them the same way). Saves nothing.
pub(crate) fn narrow_copy(
    out: Tensor,
    x: &Tensor,
    dim: i64,
    start: i64,
    length: i64,
) -> Result<Tensor> {
    let sizes = x.size().to_vec();
    record(out, &[x], || {
        node(lam("NarrowCopyBackward0", move |g, _| {
            let z = Tensor::zeros_with(&sizes[..], g.dtype())?;
            z.narrow(dim, start, length)?.copy_(g)?;
            Ok(vec![Some(z)])
        }))
    })
}

/// `diag(x, k)` of a matrix (`diagonal_copy`, node `DiagonalBackward0_copy` as PyTorch names
/// it), PyTorch's `diagonal_backward`: zeros of `x`'s shape with `g` written on diagonal `k`.
/// Saves nothing.
pub(crate) fn diagonal_copy(out: Tensor, x: &Tensor, k: i64) -> Result<Tensor> {
    let sizes = x.size().to_vec();
    record(out, &[x], || {
        node(lam("DiagonalBackward0_copy", move |g, _| {
            let z = Tensor::zeros_with(&sizes[..], g.dtype())?;
            z.diagonal_with(k)?.copy_(g)?;
            Ok(vec![Some(z)])
        }))
    })
}

/// `diag_embed(x, offset, dim1, dim2)` (`DiagEmbedBackward0`; also `diag` of a vector and
/// `diagflat`, composite in PyTorch): `g.diagonal(offset, dim1, dim2)` (the dims wrap
/// against `g.dim()`, as they did against the output's in the forward). Saves nothing.
pub(crate) fn diag_embed(
    out: Tensor,
    x: &Tensor,
    offset: i64,
    dim1: i64,
    dim2: i64,
) -> Result<Tensor> {
    let zero_d = x.dim() == 0;
    record(out, &[x], || {
        node(lam("DiagEmbedBackward0", move |g, _| {
            let d = g.diagonal_with((offset, dim1, dim2))?;
            // a 0-d input was embedded as one element
            Ok(vec![Some(if zero_d {
                d.reshape(Vec::<i64>::new())?
            } else {
                d
            })])
        }))
    })
}

/// `block_diag(tensors)` (`BlockDiagBackward0`), PyTorch's `block_diag_backward`: input `i`
/// gets its block of `g` (rows and columns after the previous blocks'), a 1-d input `(n,)`
/// the `(1, n)` block squeezed, a 0-d input the `(1, 1)` block squeezed, an empty 1-d input
/// an empty gradient. Saves nothing.
pub(crate) fn block_diag(out: Tensor, xs: &[&Tensor]) -> Result<Tensor> {
    let shapes: Vec<Vec<usize>> = xs.iter().map(|x| x.size().to_vec()).collect();
    record(out, xs, || {
        node(lam("BlockDiagBackward0", move |g, _| {
            let (mut r, mut c) = (0i64, 0i64);
            let mut res = Vec::with_capacity(shapes.len());
            for s in &shapes {
                if s[..] == [0] {
                    res.push(Some(Tensor::zeros_with([0], g.dtype())?));
                    continue;
                }
                let (h, w) = match s.len() {
                    2 => (s[0] as i64, s[1] as i64),
                    1 => (1, s[0] as i64),
                    _ => (1, 1),
                };
                let block = g.narrow(0, r, h)?.narrow(1, c, w)?;
                res.push(Some(match s.len() {
                    2 => block,
                    _ => block.reshape(&s[..])?,
                }));
                r += h;
                c += w;
            }
            Ok(res)
        }))
    })
}
