//! Shape ops that copy (not views): `tril`/`triu`, `narrow_copy`, `diag` of a matrix,
//! `diag_embed` (also `diag` of a vector and `diagflat`, which PyTorch decomposes into it),
//! `block_diag`, `trace`. PyTorch's `derivatives.yaml` entries, computed with tensile's own ops.

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

/// `trace(x)` (`TraceBackward0`), PyTorch's `trace_backward`: zeros of `x`'s shape with the
/// 0-d `g` written along the main diagonal. Saves nothing.
pub(crate) fn trace(out: Tensor, x: &Tensor) -> Result<Tensor> {
    let sizes = x.size().to_vec();
    record(out, &[x], || {
        node(lam("TraceBackward0", move |g, _| {
            let z = Tensor::zeros_with(&sizes[..], g.dtype())?;
            z.diagonal()?.copy_(g)?;
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

#[cfg(test)]
mod tests {
    use crate::Tensor;

    fn leaf(v: &[f64], shape: &[usize]) -> Tensor {
        let t = Tensor::from_vec(v.to_vec(), shape).unwrap();
        t.requires_grad_(true).unwrap();
        t
    }

    fn name(t: &Tensor) -> String {
        t.grad_fn().unwrap().name().to_string()
    }

    /// The nodes PyTorch 2.15 records: `diag` of a vector is `diag_embed`, of a matrix
    /// `diagonal_copy` (`DiagonalBackward0_copy`); `diagflat` is `contiguous().view(-1)`
    /// then `diag`, so a non-contiguous input gives DiagEmbed → View → Clone.
    #[test]
    fn diag_family_node_names() {
        let v = leaf(&[1.0, 2.0, 3.0], &[3]);
        assert_eq!(name(&v.diag().unwrap()), "DiagEmbedBackward0");
        let m = leaf(&[1.0; 12], &[3, 4]);
        assert_eq!(name(&m.diag_with(1).unwrap()), "DiagonalBackward0_copy");
        assert_eq!(name(&m.diag_embed().unwrap()), "DiagEmbedBackward0");
        let f = m.t().unwrap().diagflat().unwrap();
        assert_eq!(name(&f), "DiagEmbedBackward0");
        let view = f.grad_fn().unwrap().next_functions()[0].clone().unwrap().0;
        assert_eq!(view.name(), "ViewBackward0");
        let clone = view.next_functions()[0].clone().unwrap().0;
        assert_eq!(clone.name(), "CloneBackward0");
        assert_eq!(
            name(&m.narrow_copy(1, 1, 2).unwrap()),
            "NarrowCopyBackward0"
        );
    }

    /// `block_diag`'s gradient: each input's block, 1-d inputs from a `(1, n)` block, 0-d
    /// from a `(1, 1)` one, an empty 1-d input (a `(1, 0)` block: one more row) an empty
    /// gradient (torch 2.15's values).
    #[test]
    fn block_diag_splits_the_gradient_by_block() {
        let a = leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
        let b = leaf(&[5.0, 6.0], &[2]);
        let c = leaf(&[7.0], &[]);
        let d = leaf(&[], &[0]);
        let r = crate::block_diag(&[&a, &b, &c, &d]).unwrap();
        assert_eq!(name(&r), "BlockDiagBackward0");
        assert_eq!(r.size(), &[5, 5]);
        let g = Tensor::arange(25.0).unwrap().reshape([5, 5]).unwrap();
        r.backward_with(Some(&g), false).unwrap();
        assert_eq!(a.grad().unwrap().to_vec::<f64>(), [0.0, 1.0, 5.0, 6.0]);
        assert_eq!(b.grad().unwrap().to_vec::<f64>(), [12.0, 13.0]);
        assert_eq!(c.grad().unwrap().to_vec::<f64>(), [19.0]);
        assert_eq!(c.grad().unwrap().size(), &[] as &[usize]);
        assert_eq!(d.grad().unwrap().size(), &[0]);
    }

    /// `triu_` through a view of a non-leaf: the base gets `CopySlices`, the view its
    /// regenerated `AsStridedBackward0`; the gradient is `g.triu(k)` on the view's window.
    #[test]
    fn triu_in_place_through_a_view() {
        let x = leaf(&[1.0; 9], &[3, 3]);
        let y = x.mul(1.0).unwrap();
        let v = y.narrow(0, 1, 2).unwrap();
        v.triu_with_(1).unwrap();
        assert_eq!(name(&y), "CopySlices");
        assert_eq!(name(&v), "AsStridedBackward0");
        assert_eq!(y.version(), 1);
        y.sum().unwrap().backward().unwrap();
        assert_eq!(
            x.grad().unwrap().to_vec::<f64>(),
            [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]
        );
        let z = x.mul(1.0).unwrap();
        z.tril_().unwrap();
        assert_eq!(name(&z), "TrilBackward0");
        let e = x
            .mul(1.0)
            .unwrap()
            .reshape([9])
            .unwrap()
            .tril_()
            .unwrap_err();
        assert_eq!(
            e.message(),
            "tril: input tensor must have at least 2 dimensions"
        );
        let e = x.tril_().unwrap_err();
        assert_eq!(
            e.message(),
            "a leaf Variable that requires grad is being used in an in-place operation."
        );
    }
}
