//! The cross-group KL rules of `torch/distributions/kl.py`: the registered pairs whose two
//! types come from different groups (Bernoulli‖Poisson, Beta‖{Exponential, Uniform},
//! Exponential‖Gamma, Gamma‖{Exponential, Gumbel}, Uniform‖{Beta, Gamma}) and the pairs
//! PyTorch scores `inf` (`_infinite_like` of `p`'s parameter) that no group covers.
//!
//! Each formula follows kl.py op by op (so float32 agrees to the ulp); Chi2 takes the Gamma
//! rules on either side, as PyTorch's dispatch on the subclass does.

use crate::Tensor;
use crate::TensorIndex;
use crate::error::Result;

use super::gamma::as_gamma;
use super::kl::{KlRule, pair};
use super::transformed::EULER;
use super::{Bernoulli, Beta, Distribution, Exponential, Gumbel, Laplace, Poisson, Uniform};

/// The rules, tried after the groups' rules.
pub(crate) const KL_RULES: &[KlRule] = &[
    kl_bernoulli_poisson,
    kl_beta_exponential,
    kl_beta_uniform,
    kl_exponential_gamma,
    kl_gamma_exponential,
    kl_gamma_gumbel,
    kl_uniform_beta,
    kl_uniform_gamma,
    kl_cross_infinite,
];

type KlOut = Option<Result<Tensor>>;

/// Python's `result[mask] = v` for a number `v`: a boolean-mask `index_put_` (the mask lines
/// up with `result`'s leading dims, IndexError `The shape of the mask [3] at index 0 does not
/// match the shape of the indexed tensor [2, 3] at index 0` when it does not; a mask with
/// fewer dims selects whole rows).
pub(crate) fn index_set_mask(result: Tensor, mask: &Tensor, v: f64) -> Result<Tensor> {
    result.index_set_(&[TensorIndex::from(mask)], v)?;
    Ok(result)
}

/// `result[mask] = inf`; see [`index_set_mask`].
pub(crate) fn set_inf(result: Tensor, mask: &Tensor) -> Result<Tensor> {
    index_set_mask(result, mask, f64::INFINITY)
}

/// `_x_log_x`: `xlogy(x, x)` (0 at 0).
fn x_log_x(x: &Tensor) -> Result<Tensor> {
    crate::xlogy(x, x)
}

/// `_kl_bernoulli_poisson`: `-p.entropy() - (p.probs * log(q.rate) - q.rate)`.
fn kl_bernoulli_poisson(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Bernoulli, Poisson>(p, q)?;
    Some((|| {
        let t = p.probs()?.mul(&q.rate.log()?)?.sub(&q.rate)?;
        p.entropy()?.neg()?.sub(&t)
    })())
}

/// `_kl_beta_exponential`: `-p.entropy() - log(q.rate) + q.rate * (α / (α + β))`.
fn kl_beta_exponential(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Beta, Exponential>(p, q)?;
    Some((|| {
        let (c1, c0) = (p.concentration1()?, p.concentration0()?);
        let m = c1.div(&c1.add(&c0)?)?;
        p.entropy()?
            .neg()?
            .sub(&q.rate.log()?)?
            .add(&q.rate.mul(&m)?)
    })())
}

/// `_kl_beta_uniform`: `-p.entropy() + log(q.high - q.low)`, `inf` where `q` does not cover
/// `[0, 1]` (a mask of `q`'s shape, as PyTorch's `result[mask] = inf`).
fn kl_beta_uniform(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Beta, Uniform>(p, q)?;
    Some((|| {
        let result = p.entropy()?.neg()?.add(&q.high.sub(&q.low)?.log()?)?;
        let mask = q.low.gt(0.0)?.logical_or(&q.high.lt(1.0)?)?;
        set_inf(result, &mask)
    })())
}

/// `_kl_exponential_gamma`.
fn kl_exponential_gamma(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let p = p.as_any().downcast_ref::<Exponential>()?;
    let q = as_gamma(q)?;
    Some((|| {
        let c = &q.concentration;
        let ratio = q.rate.div(&p.rate)?;
        let t1 = c.neg()?.mul(&ratio.log()?)?;
        t1.add(&ratio)?
            .add(&c.lgamma()?)?
            .add(&c.mul(EULER)?)?
            .sub(1.0 + EULER)
    })())
}

/// `_kl_gamma_exponential`: `-p.entropy() - log(q.rate) + q.rate * p.concentration /
/// p.rate`.
fn kl_gamma_exponential(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let p = as_gamma(p)?;
    let q = q.as_any().downcast_ref::<Exponential>()?;
    Some((|| {
        let t = q.rate.mul(&p.concentration)?.div(&p.rate)?;
        p.entropy()?.neg()?.sub(&q.rate.log()?)?.add(&t)
    })())
}

/// `_kl_gamma_gumbel`.
fn kl_gamma_gumbel(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let p = as_gamma(p)?;
    let q = q.as_any().downcast_ref::<Gumbel>()?;
    Some((|| {
        let c = &p.concentration;
        let bsp = p.rate.mul(&q.scale)?;
        let lsr = q.loc.div(&q.scale)?;
        let t1 = c.sub(1)?.mul(&c.digamma()?)?.sub(&c.lgamma()?)?.sub(c)?;
        let t2 = bsp.log()?.add(&c.div(&bsp)?)?;
        let t3 = lsr
            .exp()?
            .mul(&bsp.reciprocal()?.add(1)?.pow(&c.neg()?)?)?
            .sub(&lsr)?;
        t1.add(&t2)?.add(&t3)
    })())
}

/// `_kl_uniform_beta`: `inf` where `p`'s interval leaves `[0, 1]` (a mask of `p`'s shape).
fn kl_uniform_beta(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Uniform, Beta>(p, q)?;
    Some((|| {
        let (c1, c0) = (q.concentration1()?, q.concentration0()?);
        let common = p.high.sub(&p.low)?;
        let t1 = common.log()?;
        let t2 = c1
            .sub(1)?
            .mul(&x_log_x(&p.high)?.sub(&x_log_x(&p.low)?)?.sub(&common)?)?
            .div(&common)?;
        let one_m_high = crate::rsub(&p.high, 1)?;
        let one_m_low = crate::rsub(&p.low, 1)?;
        let t3 = c0
            .sub(1)?
            .mul(
                &x_log_x(&one_m_high)?
                    .sub(&x_log_x(&one_m_low)?)?
                    .add(&common)?,
            )?
            .div(&common)?;
        let t4 = c1
            .lgamma()?
            .add(&c0.lgamma()?)?
            .sub(&c1.add(&c0)?.lgamma()?)?;
        let result = t3.add(&t4)?.sub(&t1)?.sub(&t2)?;
        let mask = p.high.gt(1.0)?.logical_or(&p.low.lt(0.0)?)?;
        set_inf(result, &mask)
    })())
}

/// `_kl_uniform_gamma`: `inf` where `p.low < 0` (a mask of `p`'s shape).
fn kl_uniform_gamma(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let p = p.as_any().downcast_ref::<Uniform>()?;
    let q = as_gamma(q)?;
    Some((|| {
        let c = &q.concentration;
        let common = p.high.sub(&p.low)?;
        let t1 = common.log()?;
        let t2 = c.lgamma()?.sub(&c.mul(&q.rate.log()?)?)?;
        let t3 = crate::rsub(c, 1)?
            .mul(&x_log_x(&p.high)?.sub(&x_log_x(&p.low)?)?.sub(&common)?)?
            .div(&common)?;
        let t4 = q.rate.mul(&p.high.add(&p.low)?)?.div(2)?;
        let result = t1.neg()?.add(&t2)?.add(&t3)?.add(&t4)?;
        set_inf(result, &p.low.lt(0.0)?)
    })())
}

/// The `inf` pairs no group covers (`_infinite_like` of `p`'s parameter):
/// Exponential‖Beta (`p.rate`), Gamma‖Uniform (`p.concentration`), Gumbel‖{Beta, Gamma} and
/// Laplace‖{Beta, Gamma} (`p.loc`), Poisson‖Bernoulli (`p.rate`).
fn kl_cross_infinite(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let qa = q.as_any();
    let q_beta = qa.is::<Beta>();
    let q_beta_or_gamma = q_beta || as_gamma(q).is_some();
    let pa = p.as_any();
    let like = if let Some(e) = pa.downcast_ref::<Exponential>() {
        if !q_beta {
            return None;
        }
        &e.rate
    } else if let Some(g) = as_gamma(p) {
        if !qa.is::<Uniform>() {
            return None;
        }
        &g.concentration
    } else if let Some(g) = pa.downcast_ref::<Gumbel>() {
        if !q_beta_or_gamma {
            return None;
        }
        &g.loc
    } else if let Some(l) = pa.downcast_ref::<Laplace>() {
        if !q_beta_or_gamma {
            return None;
        }
        &l.loc
    } else if let Some(r) = pa.downcast_ref::<Poisson>() {
        if !qa.is::<Bernoulli>() {
            return None;
        }
        &r.rate
    } else {
        return None;
    };
    Some(Tensor::full_like(like, f64::INFINITY))
}
