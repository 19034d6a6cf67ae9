//! Matrix products (spec §9.4). Broadcast batch dims are summed by the engine's `sum_to`.

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::lam;
use crate::error::Result;
use crate::tensor::Tensor;

fn mt(t: &Tensor) -> Result<Tensor> {
    t.transpose(-2, -1)
}

/// `a @ b` for every operand rank: `MmBackward0` (2-d @ 2-d), `MvBackward0`, `DotBackward0`,
/// `BmmBackward0`, and `name` for the other (batched, broadcast) cases.
pub(crate) fn matmul(out: Tensor, a: &Tensor, b: &Tensor, name: &'static str) -> Result<Tensor> {
    let (ra, rb) = (a.requires_grad(), b.requires_grad());
    // saved in PyTorch's unpack order (the first one changed in place is the one reported):
    // `self` first for `dot` and `mv`, `mat2` first for `mm`, `bmm` (Functions.h)
    let self_first = matches!(name, "DotBackward0" | "MvBackward0");
    record(out, &[a, b], || {
        let saves = if self_first {
            vec![Save::Input(a.alias()), Save::Input(b.alias())]
        } else {
            vec![Save::Input(b.alias()), Save::Input(a.alias())]
        };
        node_saving(
            lam(name, move |g, s| {
                let (a, b) = if self_first {
                    (&s[0], &s[1])
                } else {
                    (&s[1], &s[0])
                };
                let (da, db) = (a.dim(), b.dim());
                let (ga, gb) = match (da, db) {
                    (1, 1) => (g.mul(b)?, g.mul(a)?),
                    (_, 1) => {
                        let gu = g.unsqueeze(-1)?;
                        (gu.mul(b)?, mt(a)?.matmul(&gu)?.squeeze_dim(-1)?)
                    }
                    (1, _) => {
                        let gu = g.unsqueeze(-2)?;
                        (
                            gu.matmul(&mt(b)?)?.squeeze_dim(-2)?,
                            a.unsqueeze(-1)?.matmul(&gu)?,
                        )
                    }
                    _ => (g.matmul(&mt(b)?)?, mt(a)?.matmul(g)?),
                };
                Ok(vec![ra.then_some(ga), rb.then_some(gb)])
            }),
            saves,
        )
    })
}

/// `addmm(m, a, b, beta, alpha)` (`AddmmBackward0`), also `linear` with a bias.
pub(crate) fn addmm(
    out: Tensor,
    m: &Tensor,
    a: &Tensor,
    b: &Tensor,
    beta: f64,
    alpha: f64,
) -> Result<Tensor> {
    record(out, &[m, a, b], || {
        node_saving(
            lam("AddmmBackward0", move |g, s| {
                let gm = if beta == 1.0 { g.alias() } else { g.mul(beta)? };
                let ga = g.matmul(&mt(&s[1])?)?.mul(alpha)?;
                let gb = mt(&s[0])?.matmul(g)?.mul(alpha)?;
                Ok(vec![Some(gm), Some(ga), Some(gb)])
            }),
            vec![Save::Input(a.alias()), Save::Input(b.alias())],
        )
    })
}
