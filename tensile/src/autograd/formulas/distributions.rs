//! The reparameterisation gradients of the samplers `torch.distributions` differentiates
//! through: `_standard_gamma` (`StandardGammaBackward0`, derivatives.yaml's
//! `grad * _standard_gamma_grad(self, result)`) and `_sample_dirichlet` through PyTorch's
//! Python function `_Dirichlet` (`_DirichletBackward`).

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::lam;
use crate::error::Result;
use crate::tensor::Tensor;

/// Records `out = _standard_gamma(alpha)`. Saves `alpha`, `out`; the gradient is
/// `grad * _standard_gamma_grad(alpha, out)` in the dtype (PyTorch's float product).
pub(crate) fn standard_gamma(out: Tensor, alpha: &Tensor) -> Result<Tensor> {
    record(out, &[alpha], || {
        node_saving(
            lam("StandardGammaBackward0", |g, s| {
                let d = crate::random::standard_gamma_grad(&s[0], &s[1])?;
                Ok(vec![Some(g.mul(&d)?)])
            }),
            vec![Save::Input(alpha.alias()), Save::Output(0)],
        )
    })
}

/// Records `out = _Dirichlet.apply(concentration)` (`out` a `_sample_dirichlet` of it).
/// Saves `out`, `concentration`; the gradient is `_Dirichlet_backward`'s
/// `_dirichlet_grad(x, α, α.sum(-1, True).expand_as(α)) * (grad - (x * grad).sum(-1, True))`.
pub(crate) fn dirichlet(out: Tensor, concentration: &Tensor) -> Result<Tensor> {
    record(out, &[concentration], || {
        node_saving(
            lam("_DirichletBackward", |g, s| {
                let (x, conc) = (&s[0], &s[1]);
                let shape: Vec<i64> = conc.size().iter().map(|&d| d as i64).collect();
                let total = conc.sum_dim(-1, true)?.expand(&shape)?;
                let grad = crate::random::dirichlet_grad(x, conc, &total)?;
                let inner = g.sub(&x.mul(g)?.sum_dim(-1, true)?)?;
                Ok(vec![Some(grad.mul(&inner)?)])
            }),
            vec![Save::Output(0), Save::Input(concentration.alias())],
        )
    })
}
