//! `linalg.cholesky_ex` (`LinalgCholeskyExBackward0`) and `linalg.solve_triangular`
//! (`LinalgSolveTriangularBackward0`): PyTorch's `cholesky_backward` and
//! `linalg_solve_triangular_backward` (FunctionsManual.cpp), composed of differentiable ops
//! so that double backward works too.

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::lam;
use crate::error::Result;
use crate::linalg::solve_triangular_with;
use crate::tensor::Tensor;

/// `x = solve_triangular(a, b, upper, left, unit)` (`LinalgSolveTriangularBackward0`).
pub(crate) fn solve_triangular(
    x: Tensor,
    a: &Tensor,
    b: &Tensor,
    upper: bool,
    left: bool,
    unit: bool,
) -> Result<Tensor> {
    record(x, &[a, b], || {
        let (ra, rb) = (a.requires_grad(), b.requires_grad());
        node_saving(
            lam("LinalgSolveTriangularBackward0", move |g, s| {
                let (a, x) = (&s[0], &s[1]);
                // G_B = A^{-H} G; G_A = -G_B X^H (left) or -X^H G_B, on A's triangle.
                let gb = solve_triangular_with(&a.mT()?, g, !upper, left, unit)?;
                let ga = if ra {
                    let xh = x.mT()?;
                    let m = if left {
                        gb.matmul(&xh)?.neg()?
                    } else {
                        xh.matmul(&gb)?.neg()?
                    };
                    let d = i64::from(unit);
                    Some(if upper {
                        m.triu_with(d)?
                    } else {
                        m.tril_with(-d)?
                    })
                } else {
                    None
                };
                Ok(vec![ga, rb.then_some(gb)])
            }),
            vec![Save::Input(a.alias()), Save::Output(0)],
        )
    })
}

/// `linalg.cholesky_ex`'s factor with autograd: `cholesky_backward(gL, upper, L)`.
pub(crate) fn cholesky(l: Tensor, a: &Tensor, upper: bool) -> Result<Tensor> {
    record(l, &[a], || {
        node_saving(
            lam("LinalgCholeskyExBackward0", move |g, s| {
                let l = if upper { s[0].mT()? } else { s[0].alias() };
                let gl = if upper { g.mT()? } else { g.alias() };
                let ga = l.mT()?.matmul(&gl)?.tril()?;
                let ga = ga.add(&ga.tril_with(-1)?.mT()?)?.mul(0.5)?;
                let ga = solve_triangular_with(&l.mT()?, &ga, true, true, false)?;
                let ga = solve_triangular_with(&l, &ga, false, false, false)?;
                Ok(vec![Some(ga)])
            }),
            vec![Save::Output(0)],
        )
    })
}
