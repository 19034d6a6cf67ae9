//! Batched matrix products with an added input (PyTorch's `baddbmm` entry of
//! `derivatives.yaml`); `addmm` is in `linalg.rs`.

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::lam;
use crate::error::Result;
use crate::tensor::Tensor;

/// `baddbmm(input, b1, b2, beta, alpha)` (`BaddbmmBackward0`): `input`: `beta · g` (summed
/// back to `input`'s shape by the engine); `b1`: `alpha · g @ b2ᵀ`; `b2`: `alpha · b1ᵀ @ g`
/// (`ᵀ` swaps the last two dims). Saves `b1`, `b2`.
pub(crate) fn baddbmm(
    out: Tensor,
    input: &Tensor,
    b1: &Tensor,
    b2: &Tensor,
    beta: f64,
    alpha: f64,
) -> Result<Tensor> {
    let rg = [
        input.requires_grad(),
        b1.requires_grad(),
        b2.requires_grad(),
    ];
    record(out, &[input, b1, b2], || {
        node_saving(
            lam("BaddbmmBackward0", move |g, s| {
                let scale = |t: Tensor, k: f64| if k == 1.0 { Ok(t) } else { t.mul(k) };
                let gi = if rg[0] {
                    Some(scale(g.alias(), beta)?)
                } else {
                    None
                };
                let g1 = if rg[1] {
                    Some(scale(g.bmm(&s[1].transpose(1, 2)?)?, alpha)?)
                } else {
                    None
                };
                let g2 = if rg[2] {
                    Some(scale(s[0].transpose(1, 2)?.bmm(g)?, alpha)?)
                } else {
                    None
                };
                Ok(vec![gi, g1, g2])
            }),
            vec![Save::Input(b1.alias()), Save::Input(b2.alias())],
        )
    })
}
