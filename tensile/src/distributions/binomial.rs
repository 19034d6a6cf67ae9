//! `torch.distributions.Binomial` and `Geometric`, parameterised by `probs` or `logits`.

use std::sync::OnceLock;

use crate::Operand;
use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

use super::utils::{
    self, broadcast_all, extended_shape, logits_to_probs, probs_to_logits, shape_i64,
    validate_sample,
};
use super::{Bound, Constraint, DistOpts, Distribution, constraints};

/// Which of `probs` / `logits` a distribution was given (the other is PyTorch's
/// `lazy_property`: computed from it when first asked and then held, so that it shows in
/// `repr` and is expanded by `expand`, as in PyTorch).
#[derive(Clone, Debug)]
pub enum ProbsOrLogits {
    /// `probs=`: probabilities in `[0, 1]`.
    Probs(Tensor),
    /// `logits=`: log-odds.
    Logits(Tensor),
}

/// The given parameter and the lazily computed other one.
#[derive(Clone, Debug)]
struct Lazy {
    given: ProbsOrLogits,
    other: OnceLock<Tensor>,
}

impl Lazy {
    fn new(given: ProbsOrLogits) -> Lazy {
        Lazy {
            given,
            other: OnceLock::new(),
        }
    }
    fn tensor(&self) -> &Tensor {
        match &self.given {
            ProbsOrLogits::Probs(t) | ProbsOrLogits::Logits(t) => t,
        }
    }
    /// The parameters held, in `arg_constraints` order (`probs` before `logits`).
    fn held(&self) -> Vec<(&'static str, Tensor)> {
        let (p, l) = match &self.given {
            ProbsOrLogits::Probs(t) => (Some(t.clone()), self.other.get().cloned()),
            ProbsOrLogits::Logits(t) => (self.other.get().cloned(), Some(t.clone())),
        };
        let mut v = Vec::new();
        if let Some(p) = p {
            v.push(("probs", p));
        }
        if let Some(l) = l {
            v.push(("logits", l));
        }
        v
    }
    fn expand(&self, s: &[i64]) -> Result<Lazy> {
        let given = match &self.given {
            ProbsOrLogits::Probs(t) => ProbsOrLogits::Probs(t.expand(s)?),
            ProbsOrLogits::Logits(t) => ProbsOrLogits::Logits(t.expand(s)?),
        };
        let other = OnceLock::new();
        if let Some(o) = self.other.get() {
            let _ = other.set(o.expand(s)?);
        }
        Ok(Lazy { given, other })
    }
    fn cached(&self, make: impl FnOnce() -> Result<Tensor>) -> Result<Tensor> {
        if let Some(t) = self.other.get() {
            return Ok(t.clone());
        }
        let t = make()?;
        Ok(self.other.get_or_init(|| t).clone())
    }
    /// `probs` (given, or `logits_to_probs(logits, is_binary=True)`, then held).
    fn probs(&self) -> Result<Tensor> {
        match &self.given {
            ProbsOrLogits::Probs(t) => Ok(t.clone()),
            ProbsOrLogits::Logits(t) => self.cached(|| logits_to_probs(t, true)),
        }
    }
    /// `logits` (given, or `probs_to_logits(probs, is_binary=True)`, then held).
    fn logits(&self) -> Result<Tensor> {
        match &self.given {
            ProbsOrLogits::Logits(t) => Ok(t.clone()),
            ProbsOrLogits::Probs(t) => self.cached(|| probs_to_logits(t, true)),
        }
    }
}

fn either<'a>(
    probs: Option<Operand<'a>>,
    logits: Option<Operand<'a>>,
) -> Result<(Operand<'a>, bool)> {
    match (probs, logits) {
        (Some(p), None) => Ok((p, true)),
        (None, Some(l)) => Ok((l, false)),
        _ => Err(Error::new(
            ErrorKind::ValueError,
            "Either `probs` or `logits` must be specified, but not both.",
        )),
    }
}

/// `torch.distributions.Binomial(total_count=1, probs=None, logits=None)`: `total_count`
/// trials of probability `probs` (or `sigmoid(logits)`), broadcast together, `total_count`
/// cast to the parameter's dtype; `batch_shape` the parameter's shape.
///
/// `arg_constraints`: `total_count` `IntegerGreaterThan(lower_bound=0)`, `probs`
/// `Interval(lower_bound=0.0, upper_bound=1.0)`, `logits` real; support
/// `IntegerInterval(lower_bound=0, upper_bound=total_count)`; `has_enumerate_support`; no
/// `rsample`. `sample` is `torch.binomial(total_count.expand(shape), probs.expand(shape))`
/// (see [`crate::random::binomial`] for the draws).
#[derive(Clone, Debug)]
pub struct Binomial {
    /// `total_count`, in the parameter's dtype.
    pub total_count: Tensor,
    param: Lazy,
    validate: bool,
}

impl Binomial {
    /// `Binomial(total_count, probs=…)` or `Binomial(total_count, logits=…)` (exactly one of
    /// the two), validating unless
    /// [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors (ValueError): `Either \`probs\` or \`logits\` must be specified, but not both.`;
    /// broadcasting's; `Expected parameter total_count (Tensor of shape (2,)) of distribution
    /// Binomial(total_count: torch.Size([2]), probs: torch.Size([2])) to satisfy the
    /// constraint IntegerGreaterThan(lower_bound=0), but found invalid values:\n…` (and
    /// `probs`' with `Interval(lower_bound=0.0, upper_bound=1.0)`, `logits`' with `Real()`).
    pub fn new<'a>(
        total_count: impl Into<Operand<'a>>,
        probs: Option<Operand<'a>>,
        logits: Option<Operand<'a>>,
    ) -> Result<Binomial> {
        Binomial::new_with(total_count, probs, logits, DistOpts::default())
    }

    /// `Binomial(total_count, probs, logits, validate_args=…)`; see [`Binomial::new`].
    pub fn new_with<'a>(
        total_count: impl Into<Operand<'a>>,
        probs: Option<Operand<'a>>,
        logits: Option<Operand<'a>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Binomial> {
        let (p, is_probs) = either(probs, logits)?;
        let mut b = broadcast_all(&[total_count.into(), p])?.into_iter();
        let (tc, p) = (b.next().expect("two"), b.next().expect("two"));
        let total_count = tc.to(p.dtype())?;
        let param = Lazy::new(if is_probs {
            ProbsOrLogits::Probs(p)
        } else {
            ProbsOrLogits::Logits(p)
        });
        let d = Binomial {
            total_count,
            param,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }

    /// The parameter given (`probs=` or `logits=`).
    pub fn given(&self) -> &ProbsOrLogits {
        &self.param.given
    }

    /// `probs`.
    pub fn probs(&self) -> Result<Tensor> {
        self.param.probs()
    }

    /// `logits`.
    pub fn logits(&self) -> Result<Tensor> {
        self.param.logits()
    }

    /// `int(total_count.max())`, or NotImplementedError `Inhomogeneous total count not
    /// supported by \`what\`.` unless every count is that.
    fn homogeneous(&self, what: &str) -> Result<i64> {
        let _g = crate::autograd::no_grad();
        let max = self.total_count.max()?.item::<f64>()?;
        let n = max.trunc();
        if self.total_count.min()?.item::<f64>()? != n {
            return Err(Error::new(
                ErrorKind::NotImplementedError,
                format!("Inhomogeneous total count not supported by `{what}`."),
            ));
        }
        Ok(n as i64)
    }

    fn support_values(&self, expand: bool) -> Result<Tensor> {
        let n = self.homogeneous("enumerate_support")?;
        let dt = self.param.tensor().dtype();
        let values = Tensor::arange_with(1 + n, dt)?;
        let batch = self.batch_shape();
        let mut v = vec![-1i64];
        v.extend(std::iter::repeat_n(1i64, batch.len()));
        let values = values.view(&v[..])?;
        if expand {
            let mut e = vec![-1i64];
            e.extend(shape_i64(&batch));
            values.expand(&e)
        } else {
            Ok(values)
        }
    }
}

/// `_clamp_by_zero(x)`: `(x.clamp(min=0) + x - x.clamp(max=0)) / 2`.
fn clamp_by_zero(x: &Tensor) -> Result<Tensor> {
    x.clamp_min(0)?.add(x)?.sub(&x.clamp_max(0)?)?.div(2)
}

impl Distribution for Binomial {
    fn name(&self) -> &'static str {
        "Binomial"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.binomial.Binomial"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        let mut v = vec![("total_count", self.total_count.clone())];
        v.extend(self.param.held());
        v
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("total_count", constraints::nonnegative_integer()),
            ("probs", constraints::unit_interval()),
            ("logits", Constraint::Real),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.param.tensor().size().to_vec()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::IntegerInterval(
            Bound::Int(0),
            Bound::Tensor(self.total_count.clone()),
        ))
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_enumerate_support(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let s = shape_i64(batch_shape);
        Ok(Box::new(Binomial {
            total_count: self.total_count.expand(&s)?,
            param: self.param.expand(&s)?,
            validate: self.validate,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = shape_i64(&extended_shape(self, sample_shape));
        let _g = crate::autograd::no_grad();
        crate::random::binomial(
            &self.total_count.expand(&shape)?,
            &self.probs()?.expand(&shape)?,
        )
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let n = &self.total_count;
        let logits = self.logits()?;
        let log_factorial_n = n.add(1)?.lgamma()?;
        let log_factorial_k = value.add(1)?.lgamma()?;
        let log_factorial_nmk = n.sub(value)?.add(1)?.lgamma()?;
        let normalize_term = n
            .mul(&clamp_by_zero(&logits)?)?
            .add(&n.mul(&logits.abs()?.neg()?.exp()?.log1p()?)?)?
            .sub(&log_factorial_n)?;
        value
            .mul(&logits)?
            .sub(&log_factorial_k)?
            .sub(&log_factorial_nmk)?
            .sub(&normalize_term)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.homogeneous("entropy")?;
        let lp = self.log_prob(&self.support_values(false)?)?;
        lp.exp()?.mul(&lp)?.sum_dim(0, false)?.neg()
    }
    fn enumerate_support(&self, expand: bool) -> Result<Tensor> {
        self.support_values(expand)
    }
    fn mean(&self) -> Result<Tensor> {
        self.total_count.mul(&self.probs()?)
    }
    fn mode(&self) -> Result<Tensor> {
        self.total_count
            .add(1)?
            .mul(&self.probs()?)?
            .floor()?
            .clamp_max(&self.total_count)
    }
    fn variance(&self) -> Result<Tensor> {
        let p = self.probs()?;
        self.total_count.mul(&p)?.mul(&crate::rsub(&p, 1)?)
    }
}

/// `torch.distributions.Geometric(probs=None, logits=None)`: the number of failures before
/// the first success, success probability `probs` (or `sigmoid(logits)`); `batch_shape` the
/// parameter's shape (`()` for a number).
///
/// `arg_constraints`: `probs` `Interval(lower_bound=0.0, upper_bound=1.0)` (and, validating,
/// positive), `logits` real; support `IntegerGreaterThan(lower_bound=0)`; no `rsample`.
/// `sample` fills `empty(shape)` with `uniform_(finfo.tiny, 1)` (one draw per element, see
/// [`Tensor::uniform_with_`]) and returns `floor(log(u) / log1p(-probs))`.
#[derive(Clone, Debug)]
pub struct Geometric {
    param: Lazy,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Geometric {
    /// `Geometric(probs=…)` or `Geometric(logits=…)` (exactly one), validating unless
    /// [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors (ValueError): `Either \`probs\` or \`logits\` must be specified, but not both.`;
    /// `Expected parameter probs (Tensor of shape (2,)) of distribution Geometric(probs:
    /// torch.Size([2])) to satisfy the constraint Interval(lower_bound=0.0, upper_bound=1.0),
    /// but found invalid values:\n…`; `Expected parameter probs (Tensor of shape (2,)) of
    /// distribution Geometric(probs: torch.Size([2])) to be positive but found invalid
    /// values:\ntensor([0.])` (the zero entries).
    pub fn new<'a>(probs: Option<Operand<'a>>, logits: Option<Operand<'a>>) -> Result<Geometric> {
        Geometric::new_with(probs, logits, DistOpts::default())
    }

    /// `Geometric(probs, logits, validate_args=…)`; see [`Geometric::new`].
    pub fn new_with<'a>(
        probs: Option<Operand<'a>>,
        logits: Option<Operand<'a>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Geometric> {
        let (p, is_probs) = either(probs, logits)?;
        let number = utils::all_numbers(&[&p]);
        let t = broadcast_all(&[p])?.pop().expect("one");
        let batch_shape = if number {
            Vec::new()
        } else {
            t.size().to_vec()
        };
        let param = Lazy::new(if is_probs {
            ProbsOrLogits::Probs(t)
        } else {
            ProbsOrLogits::Logits(t)
        });
        let d = Geometric {
            param,
            batch_shape,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        if let (true, ProbsOrLogits::Probs(value)) = (d.validate, &d.param.given) {
            let _g = crate::autograd::no_grad();
            let valid = value.gt(0)?;
            if !valid.all()?.item::<bool>()? {
                let invalid = value.masked_select(&valid.logical_not()?)?;
                return Err(Error::new(
                    ErrorKind::ValueError,
                    format!(
                        "Expected parameter probs (Tensor of shape {}) of distribution {} to be positive but found invalid values:\n{invalid}",
                        utils::tuple_str(value.size()),
                        utils::repr(&d)
                    ),
                ));
            }
        }
        Ok(d)
    }

    /// The parameter given (`probs=` or `logits=`).
    pub fn given(&self) -> &ProbsOrLogits {
        &self.param.given
    }

    /// `probs`.
    pub fn probs(&self) -> Result<Tensor> {
        self.param.probs()
    }

    /// `logits`.
    pub fn logits(&self) -> Result<Tensor> {
        self.param.logits()
    }
}

impl Distribution for Geometric {
    fn name(&self) -> &'static str {
        "Geometric"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.geometric.Geometric"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        self.param.held()
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("probs", constraints::unit_interval()),
            ("logits", Constraint::Real),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(constraints::nonnegative_integer())
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let s = shape_i64(batch_shape);
        Ok(Box::new(Geometric {
            param: self.param.expand(&s)?,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = extended_shape(self, sample_shape);
        let _g = crate::autograd::no_grad();
        let probs = self.probs()?;
        let tiny = probs.dtype().finfo()?.tiny;
        let u = Tensor::empty_with(&shape[..], probs.dtype())?.uniform_with_((tiny, 1.0))?;
        u.log()?.div(&probs.neg()?.log1p()?)?.floor()
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let self_probs = self.probs()?;
        let mut b = broadcast_all(&[value.into(), (&self_probs).into()])?.into_iter();
        let (value, probs) = (b.next().expect("two"), b.next().expect("two"));
        let mask = probs.eq(1)?.logical_and(&value.eq(0)?)?;
        let probs = crate::where_cond(&mask, 0.0, &probs)?;
        value.mul(&probs.neg()?.log1p()?)?.add(&self_probs.log()?)
    }
    fn entropy(&self) -> Result<Tensor> {
        let probs = self.probs()?;
        let opts = crate::nn::functional::BceWithLogitsOpts {
            reduction: crate::nn::functional::Reduction::None,
            ..Default::default()
        };
        crate::nn::functional::binary_cross_entropy_with_logits_with(&self.logits()?, &probs, opts)?
            .div(&probs)
    }
    fn mean(&self) -> Result<Tensor> {
        self.probs()?.reciprocal()?.sub(1.0)
    }
    fn mode(&self) -> Result<Tensor> {
        Tensor::zeros_like(&self.probs()?)
    }
    fn variance(&self) -> Result<Tensor> {
        let p = self.probs()?;
        p.reciprocal()?.sub(1.0)?.div(&p)
    }
}
