//! `rsub` (PyTorch's `rsub.Tensor` / `rsub.Scalar` entries of `derivatives.yaml`):
//! `out = other - alpha · input`.

use super::super::record::{node, record};
use super::pointwise::lam;
use crate::error::Result;
use crate::tensor::Tensor;

/// `rsub(input, other, alpha)`: `input` gets `-alpha · g`; a tensor `other` gets `g`
/// (`RsubBackward0`); with a number `other` the node is `RsubBackward1` and has one input.
/// Nothing saved. The engine sums broadcast gradients back to each input's shape.
pub(crate) fn rsub(
    out: Tensor,
    input: &Tensor,
    other: Option<&Tensor>,
    alpha: f64,
) -> Result<Tensor> {
    match other {
        Some(o) => {
            let rg = [input.requires_grad(), o.requires_grad()];
            record(out, &[input, o], || {
                node(lam("RsubBackward0", move |g, _| {
                    Ok(vec![
                        if rg[0] { Some(g.mul(-alpha)?) } else { None },
                        if rg[1] { Some(g.alias()) } else { None },
                    ])
                }))
            })
        }
        None => record(out, &[input], || {
            node(lam("RsubBackward1", move |g, _| {
                Ok(vec![Some(g.mul(-alpha)?)])
            }))
        }),
    }
}
