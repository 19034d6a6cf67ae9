//! Matrix products (spec §9.4). Broadcast batch dims are summed by the engine's `sum_to`.

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::lam;
use crate::error::Result;
use crate::tensor::Tensor;

fn mt(t: &Tensor) -> Result<Tensor> {
    t.transpose(-2, -1)
}

/// PyTorch's `maybe_multiply`: `t * s`, skipped when `s` is 1.
fn times(t: Tensor, s: f64) -> Result<Tensor> {
    if s == 1.0 { Ok(t) } else { t.mul(s) }
}

/// A 2-d matrix stored column-major (PyTorch's test: `strides[0] == 1 && strides[1] ==
/// sizes[0]`), e.g. a weight seen through `.t()`.
fn col_major(m: &Tensor) -> bool {
    m.dim() == 2 && m.stride()[0] == 1 && m.stride()[1] == m.size()[0]
}

/// PyTorch's `mm_mat1_backward`: the gradient of `mat1` in `mat1 @ mat2` (2-d), computed
/// column-major when `mat1` is, so that it has `mat1`'s layout.
fn mm_mat1_backward(g: &Tensor, mat2: &Tensor, mat1: &Tensor, alpha: f64) -> Result<Tensor> {
    let r = if col_major(mat1) {
        mat2.matmul(&g.t()?)?.t()?
    } else {
        g.matmul(&mat2.t()?)?
    };
    times(r, alpha)
}

/// PyTorch's `mm_mat2_backward`: the gradient of `mat2` in `mat1 @ mat2` (2-d), computed
/// column-major when `mat2` is (a `linear` weight: the gradient of `weight.t()` then comes
/// out with the weight's own layout and `AccumulateGrad` keeps it without a copy).
fn mm_mat2_backward(g: &Tensor, mat1: &Tensor, mat2: &Tensor, alpha: f64) -> Result<Tensor> {
    let r = if col_major(mat2) {
        g.t()?.matmul(mat1)?.t()?
    } else {
        mat1.t()?.matmul(g)?
    };
    times(r, alpha)
}

/// `a @ b` for every operand rank, recorded as node `name` (`MmBackward0` for 2-d @ 2-d,
/// `MvBackward0`, `DotBackward0`, `BmmBackward0`, and the node of the path `matmul` took for
/// the other cases). `self_first`: the node saves `a` before `b`, PyTorch's unpack order
/// (the first one changed in place is the one reported): `self` first for `dot` and `mv`,
/// `mat2` first for `mm` and `bmm` (Functions.h).
pub(crate) fn matmul(
    out: Tensor,
    a: &Tensor,
    b: &Tensor,
    name: &'static str,
    self_first: bool,
) -> Result<Tensor> {
    let (ra, rb) = (a.requires_grad(), b.requires_grad());
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
                    (2, 2) => (
                        if ra {
                            mm_mat1_backward(g, b, a, 1.0)?
                        } else {
                            g.alias()
                        },
                        if rb {
                            mm_mat2_backward(g, a, b, 1.0)?
                        } else {
                            g.alias()
                        },
                    ),
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
    let needs = [m.requires_grad(), a.requires_grad(), b.requires_grad()];
    record(out, &[m, a, b], || {
        node_saving(
            lam("AddmmBackward0", move |g, s| {
                let gm = needs[0].then(|| times(g.alias(), beta)).transpose()?;
                let ga = needs[1]
                    .then(|| mm_mat1_backward(g, &s[1], &s[0], alpha))
                    .transpose()?;
                let gb = needs[2]
                    .then(|| mm_mat2_backward(g, &s[0], &s[1], alpha))
                    .transpose()?;
                Ok(vec![gm, ga, gb])
            }),
            vec![Save::Input(a.alias()), Save::Input(b.alias())],
        )
    })
}
