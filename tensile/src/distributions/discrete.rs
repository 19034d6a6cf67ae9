//! What the discrete distributions share: PyTorch's lazily computed `probs`/`logits` pair,
//! the constructor checks that report a parameter of another (inner) distribution, and the
//! `kl_divergence` rules of the group.

use std::sync::OnceLock;

use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

use super::kl::{KlRule, pair};
use super::utils::{self, logits_to_probs, probs_to_logits, shape_i64};
use super::{
    Bernoulli, Categorical, Constraint, Distribution, MultivariateNormal, OneHotCategorical,
};

/// A `probs`/`logits` pair as PyTorch keeps it: the parameter given to the constructor, and
/// the other one computed on first use and then cached (`lazy_property`), so that `repr` and
/// `expand` see it only once it has been computed, as in PyTorch.
#[derive(Clone, Debug)]
pub(crate) struct ProbsLogits {
    given: Tensor,
    from_probs: bool,
    is_binary: bool,
    other: OnceLock<Tensor>,
}

impl ProbsLogits {
    pub(crate) fn new(given: Tensor, from_probs: bool, is_binary: bool) -> ProbsLogits {
        ProbsLogits {
            given,
            from_probs,
            is_binary,
            other: OnceLock::new(),
        }
    }

    /// `_param`: the tensor the constructor was given.
    pub(crate) fn param(&self) -> &Tensor {
        &self.given
    }

    fn other(&self) -> Result<Tensor> {
        if let Some(t) = self.other.get() {
            return Ok(t.clone());
        }
        let t = if self.from_probs {
            probs_to_logits(&self.given, self.is_binary)?
        } else {
            logits_to_probs(&self.given, self.is_binary)?
        };
        Ok(self.other.get_or_init(|| t).clone())
    }

    /// `probs` (computed from `logits` and cached on first use).
    pub(crate) fn probs(&self) -> Result<Tensor> {
        if self.from_probs {
            Ok(self.given.clone())
        } else {
            self.other()
        }
    }

    /// `logits` (computed from `probs` and cached on first use).
    pub(crate) fn logits(&self) -> Result<Tensor> {
        if self.from_probs {
            self.other()
        } else {
            Ok(self.given.clone())
        }
    }

    /// The ones in the instance's `__dict__`, in `arg_constraints` order (`probs`, `logits`).
    pub(crate) fn present(&self) -> Vec<(&'static str, Tensor)> {
        let mut v = Vec::new();
        let other = self.other.get().cloned();
        if self.from_probs {
            v.push(("probs", self.given.clone()));
            if let Some(l) = other {
                v.push(("logits", l));
            }
        } else {
            if let Some(p) = other {
                v.push(("probs", p));
            }
            v.push(("logits", self.given.clone()));
        }
        v
    }

    /// Every present tensor expanded to `shape` (PyTorch's `expand` of each one in
    /// `__dict__`).
    pub(crate) fn expand(&self, shape: &[usize]) -> Result<ProbsLogits> {
        let s = shape_i64(shape);
        let other = OnceLock::new();
        if let Some(t) = self.other.get() {
            let _ = other.set(t.expand(&s)?);
        }
        Ok(ProbsLogits {
            given: self.given.expand(&s)?,
            from_probs: self.from_probs,
            is_binary: self.is_binary,
            other,
        })
    }
}

/// PyTorch's `Either `probs` or `logits` must be specified, but not both.` (ValueError).
pub(crate) fn either_error() -> Error {
    Error::new(
        ErrorKind::ValueError,
        "Either `probs` or `logits` must be specified, but not both.",
    )
}

/// `Distribution.__init__`'s check of one parameter, for the distributions whose `probs`
/// and `logits` are plain properties (PyTorch computes and checks both, and `repr` prints
/// neither): ValueError `Expected parameter probs (Tensor of shape (3,)) of distribution
/// OneHotCategorical() to satisfy the constraint Simplex(), but found invalid values:\n…`.
pub(crate) fn check_param(
    d: &dyn Distribution,
    name: &str,
    c: &Constraint,
    value: &Tensor,
) -> Result<()> {
    let _g = crate::autograd::no_grad();
    if !c.check(value)?.all()?.item::<bool>()? {
        return Err(Error::new(
            ErrorKind::ValueError,
            format!(
                "Expected parameter {name} (Tensor of shape {}) of distribution {} to satisfy the constraint {c}, but found invalid values:\n{value}",
                utils::tuple_str(value.size()),
                utils::repr(d)
            ),
        ));
    }
    Ok(())
}

/// The group's `kl_divergence` rules (for `kl.rs`'s table).
pub(crate) const KL_RULES: &[KlRule] = &[
    kl_bernoulli_bernoulli,
    kl_categorical_categorical,
    kl_onehot_onehot,
    kl_mvn_mvn,
];

/// `_kl_bernoulli_bernoulli`: `t1 = p·(softplus(-lq) - softplus(-lp))` (inf where `q = 0`,
/// 0 where `p = 0`) plus `t2 = (1 - p)·(softplus(lq) - softplus(lp))` (inf where `q = 1`,
/// 0 where `p = 1`).
fn kl_bernoulli_bernoulli(p: &dyn Distribution, q: &dyn Distribution) -> Option<Result<Tensor>> {
    let (p, q) = pair::<Bernoulli, Bernoulli>(p, q)?;
    Some((|| {
        use crate::nn::functional::softplus;
        let (pp, pl) = (p.probs()?, p.logits()?);
        let (qp, ql) = (q.probs()?, q.logits()?);
        let t1 = pp.mul(&softplus(&ql.neg()?)?.sub(&softplus(&pl.neg()?)?)?)?;
        let t1 = masked_set(&t1, &qp.eq(0)?, f64::INFINITY)?;
        let t1 = masked_set(&t1, &pp.eq(0)?, 0.0)?;
        let t2 = pp
            .neg()?
            .add(1)?
            .mul(&softplus(&ql)?.sub(&softplus(&pl)?)?)?;
        let t2 = masked_set(&t2, &qp.eq(1)?, f64::INFINITY)?;
        let t2 = masked_set(&t2, &pp.eq(1)?, 0.0)?;
        t1.add(&t2)
    })())
}

/// `t[mask] = v`: PyTorch's boolean-index assignment of a number (the mask lines up with
/// `t`'s leading dims; IndexError `The shape of the mask [3] at index 0 does not match the
/// shape of the indexed tensor [2, 3] at index 0` otherwise, e.g. for a `p` of batch shape
/// `[3]` against a `q` of `[2, 1]`).
fn masked_set(t: &Tensor, mask: &Tensor, v: f64) -> Result<Tensor> {
    super::kl_cross::index_set_mask(t.clone(), mask, v)
}

fn kl_categorical(p: &Categorical, q: &Categorical) -> Result<Tensor> {
    let (pp, pl) = (p.probs()?, p.logits()?);
    let (qp, ql) = (q.probs()?, q.logits()?);
    let t = pp.mul(&pl.sub(&ql)?)?;
    let t = masked_set(&t, &qp.eq(0)?.expand_as(&t)?, f64::INFINITY)?;
    let t = masked_set(&t, &pp.eq(0)?.expand_as(&t)?, 0.0)?;
    t.sum_dim(-1, false)
}

/// `_kl_categorical_categorical`: `Σ p·(log p - log q)` over the last dim (inf where
/// `q = 0`, 0 where `p = 0`).
fn kl_categorical_categorical(
    p: &dyn Distribution,
    q: &dyn Distribution,
) -> Option<Result<Tensor>> {
    let (p, q) = pair::<Categorical, Categorical>(p, q)?;
    Some(kl_categorical(p, q))
}

/// `_kl_onehotcategorical_onehotcategorical`: the KL of the inner categoricals.
fn kl_onehot_onehot(p: &dyn Distribution, q: &dyn Distribution) -> Option<Result<Tensor>> {
    let (p, q) = pair::<OneHotCategorical, OneHotCategorical>(p, q)?;
    Some(kl_categorical(p.categorical(), q.categorical()))
}

/// `_kl_multivariatenormal_multivariatenormal`.
fn kl_mvn_mvn(p: &dyn Distribution, q: &dyn Distribution) -> Option<Result<Tensor>> {
    let (p, q) = pair::<MultivariateNormal, MultivariateNormal>(p, q)?;
    Some(super::multivariate_normal::kl_mvn_mvn(p, q))
}
