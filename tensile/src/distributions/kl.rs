//! `torch.distributions.kl_divergence`: KL(p ‖ q) for the pairs PyTorch registers.
//!
//! Each group of distributions contributes its rules (functions that return `None` for a
//! pair they do not cover); [`kl_divergence`] takes the first that answers, which is PyTorch's
//! most specific registered pair since no two rules here cover the same pair of types.

use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

use super::{Distribution, Normal};

/// A KL rule: `Some(KL(p ‖ q))` when it covers the pair of types, else `None`.
pub(crate) type KlRule = fn(&dyn Distribution, &dyn Distribution) -> Option<Result<Tensor>>;

/// Every group's rules, tried in order.
const RULES: &[&[KlRule]] = &[
    &[kl_normal_normal],
    super::continuous::KL_RULES,
    super::discrete::KL_RULES,
    &[super::gamma::kl_rules],
    super::kl_cross::KL_RULES,
];

/// `torch.distributions.kl_divergence(p, q)`: the KL divergence of `q` from `p`, of shape
/// `broadcast(p.batch_shape, q.batch_shape)`, differentiable through both's parameters.
///
/// Errors (NotImplementedError): `No KL(p || q) is implemented for p type Normal and q type
/// Cauchy`; between two different exponential families without a registered pair, PyTorch's
/// Bregman fallback text `The cross KL-divergence between different exponential families
/// cannot                             be computed using Bregman divergences` (its source's
/// line continuation keeps the spaces).
pub fn kl_divergence(p: &dyn Distribution, q: &dyn Distribution) -> Result<Tensor> {
    for rule in RULES.iter().flat_map(|g| g.iter()) {
        if let Some(r) = rule(p, q) {
            return r;
        }
    }
    if p.is_exponential_family() && q.is_exponential_family() {
        return Err(Error::new(
            ErrorKind::NotImplementedError,
            "The cross KL-divergence between different exponential families cannot                             be computed using Bregman divergences",
        ));
    }
    Err(Error::new(
        ErrorKind::NotImplementedError,
        format!(
            "No KL(p || q) is implemented for p type {} and q type {}",
            p.name(),
            q.name()
        ),
    ))
}

/// Both sides downcast to `P` and `Q`, or `None`.
pub(crate) fn pair<'a, P: 'static, Q: 'static>(
    p: &'a dyn Distribution,
    q: &'a dyn Distribution,
) -> Option<(&'a P, &'a Q)> {
    Some((
        p.as_any().downcast_ref::<P>()?,
        q.as_any().downcast_ref::<Q>()?,
    ))
}

/// `_kl_normal_normal`: `0.5 * (r + ((μp - μq) / σq)² - 1 - log r)`, `r = (σp / σq)²`.
fn kl_normal_normal(p: &dyn Distribution, q: &dyn Distribution) -> Option<Result<Tensor>> {
    let (p, q) = pair::<Normal, Normal>(p, q)?;
    Some((|| {
        let var_ratio = p.scale.div(&q.scale)?.pow(2)?;
        let t1 = p.loc.sub(&q.loc)?.div(&q.scale)?.pow(2)?;
        var_ratio.add(&t1)?.sub(1)?.sub(&var_ratio.log()?)?.mul(0.5)
    })())
}
