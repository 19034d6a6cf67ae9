//! `torch.distributions.Multinomial`.

use crate::Operand;
use crate::dtype::DType;
use crate::error::{Error, ErrorKind, Result};
use crate::{Scalar, Tensor};

use super::discrete::check_param;
use super::utils::{self, broadcast_all, extended_shape, validate_sample};
use super::{Bound, Categorical, Constraint, DistOpts, Distribution, constraints};

/// `torch.distributions.Multinomial(total_count, probs=…, logits=…)`: the counts of
/// `total_count` independent draws of a [`Categorical`] over `K` classes. `batch_shape` is
/// the categorical's, `event_shape` `(K,)`.
///
/// As in PyTorch, the inner `Categorical(probs, logits)` and `Binomial(total_count,
/// probs)` are built with the *default* validation (their errors come first), and `repr`
/// prints no parameter (`Multinomial()`): validation computes and checks both `probs` and
/// `logits`.
///
/// `arg_constraints`: `probs` `Simplex()`, `logits` `IndependentConstraint(Real(), 1)`;
/// support `Multinomial()` (non-negative counts summing to at most `total_count`). `sample`
/// draws `categorical.sample((total_count,) + sample_shape)` (PyTorch's multinomial stream)
/// and counts them with `scatter_add_`; the counts have the parameter's dtype. `mode` is
/// not implemented (PyTorch's NotImplementedError).
#[derive(Clone, Debug)]
pub struct Multinomial {
    /// `total_count`: the number of draws.
    pub total_count: i64,
    cat: Categorical,
    validate: bool,
}

/// The `Binomial(total_count, probs)` PyTorch builds inside `Multinomial`: only what
/// validation (its repr and constraints) and `entropy` use.
#[derive(Debug)]
struct InnerBinomial {
    total_count: Tensor,
    probs: Tensor,
}

impl Distribution for InnerBinomial {
    fn name(&self) -> &'static str {
        "Binomial"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.binomial.Binomial"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        vec![
            ("total_count", self.total_count.clone()),
            ("probs", self.probs.clone()),
        ]
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("total_count", constraints::nonnegative_integer()),
            ("probs", constraints::unit_interval()),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.probs.size().to_vec()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::IntegerInterval(
            Bound::Int(0),
            Bound::Tensor(self.total_count.clone()),
        ))
    }
    fn validate_args(&self) -> bool {
        super::DistOpts::default().validate()
    }
    fn expand(&self, _batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Err(super::not_implemented())
    }
}

impl InnerBinomial {
    fn new(total_count: i64, probs: &Tensor) -> Result<InnerBinomial> {
        let b = broadcast_all(&[total_count.into(), probs.into()])?;
        let d = InnerBinomial {
            total_count: b[0].to(b[1].dtype())?,
            probs: b[1].clone(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }

    /// `Binomial.log_prob(value)` (values always in the support here).
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        let n = &self.total_count;
        let logits = utils::probs_to_logits(&self.probs, true)?;
        let log_factorial_n = n.add(1)?.lgamma()?;
        let log_factorial_k = value.add(1)?.lgamma()?;
        let log_factorial_nmk = n.sub(value)?.add(1)?.lgamma()?;
        // _clamp_by_zero(x) = (x.clamp(min=0) + x - x.clamp(max=0)) / 2
        let clamped = logits
            .clamp_min(0)?
            .add(&logits)?
            .sub(&logits.clamp_max(0)?)?
            .div(2)?;
        let normalize = n
            .mul(&clamped)?
            .add(&n.mul(&logits.abs()?.neg()?.exp()?.log1p()?)?)?
            .sub(&log_factorial_n)?;
        value
            .mul(&logits)?
            .sub(&log_factorial_k)?
            .sub(&log_factorial_nmk)?
            .sub(&normalize)
    }
}

impl Multinomial {
    /// `Multinomial(total_count, probs, logits)` with exactly one of `probs`, `logits`
    /// `Some` and `total_count` a Python int.
    ///
    /// Errors: NotImplementedError `inhomogeneous total_count is not supported` (a tensor or
    /// a float `total_count`); [`Categorical::new`]'s; ValueError `Expected parameter
    /// total_count (Tensor of shape (3,)) of distribution Binomial(total_count:
    /// torch.Size([3]), probs: torch.Size([3])) to satisfy the constraint
    /// IntegerGreaterThan(lower_bound=0), but found invalid values:\n…` (a negative count);
    /// ValueError `Expected parameter probs (Tensor of shape (3,)) of distribution
    /// Multinomial() to satisfy the constraint Simplex(), …` when the inner distributions did
    /// not validate.
    pub fn new<'a>(
        total_count: impl Into<Operand<'a>>,
        probs: Option<&Tensor>,
        logits: Option<&Tensor>,
    ) -> Result<Multinomial> {
        Multinomial::new_with(total_count, probs, logits, DistOpts::default())
    }

    /// `Multinomial(total_count, probs, logits, validate_args=…)`; see [`Multinomial::new`].
    pub fn new_with<'a>(
        total_count: impl Into<Operand<'a>>,
        probs: Option<&Tensor>,
        logits: Option<&Tensor>,
        opts: impl Into<DistOpts>,
    ) -> Result<Multinomial> {
        let total_count = match total_count.into() {
            Operand::Scalar(Scalar::Int(n)) => n,
            _ => {
                return Err(Error::new(
                    ErrorKind::NotImplementedError,
                    "inhomogeneous total_count is not supported",
                ));
            }
        };
        let cat = Categorical::new(probs, logits)?;
        InnerBinomial::new(total_count, &cat.probs()?)?;
        let d = Multinomial {
            total_count,
            cat,
            validate: opts.into().validate(),
        };
        if d.validate {
            for (name, c) in d.arg_constraints() {
                let v = if name == "probs" {
                    d.cat.probs()?
                } else {
                    d.cat.logits()?
                };
                check_param(&d, name, &c, &v)?;
            }
        }
        Ok(d)
    }

    /// `probs`: the inner categorical's (normalised).
    ///
    /// Errors: none in practice (the ops' own).
    pub fn probs(&self) -> Result<Tensor> {
        self.cat.probs()
    }

    /// `logits`: the inner categorical's (normalised).
    ///
    /// Errors: none in practice (the ops' own).
    pub fn logits(&self) -> Result<Tensor> {
        self.cat.logits()
    }

    /// `param_shape`: the categorical's.
    pub fn param_shape(&self) -> Vec<usize> {
        self.cat.param_shape()
    }
}

impl Distribution for Multinomial {
    fn name(&self) -> &'static str {
        "Multinomial"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.multinomial.Multinomial"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        Vec::new()
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("probs", Constraint::Simplex),
            ("logits", constraints::real_vector()),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.cat.batch_shape()
    }
    fn event_shape(&self) -> Vec<usize> {
        vec![self.cat.num_events()]
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::Multinomial(Bound::Int(self.total_count)))
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(Multinomial {
            total_count: self.total_count,
            cat: self.cat.expand_cat(batch_shape)?,
            validate: self.validate,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        if self.total_count < 0 {
            // (built without validation) PyTorch's multinomial refuses the negative count.
            return Err(Error::runtime("cannot sample n_sample <= 0 samples"));
        }
        let mut shape = vec![self.total_count as usize];
        shape.extend_from_slice(sample_shape);
        let samples = self.cat.sample(&shape)?;
        let mut perm: Vec<i64> = (1..samples.dim() as i64).collect();
        perm.push(0);
        let samples = samples.permute(&perm[..])?;
        let counts = Tensor::zeros_with(&extended_shape(self, sample_shape)[..], DType::Int64)?;
        let _g = crate::autograd::no_grad();
        counts.scatter_add_(-1, &samples, &Tensor::ones_like(&samples)?)?;
        counts.to(self.probs()?.dtype())
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let b = broadcast_all(&[(&self.logits()?).into(), value.into()])?;
        let (logits, value) = (&b[0], &b[1]);
        let log_factorial_n = value.sum_dim(-1, false)?.add(1)?.lgamma()?;
        let log_factorial_xs = value.add(1)?.lgamma()?.sum_dim(-1, false)?;
        let mask = value.eq(0)?.logical_and(&logits.eq(f64::NEG_INFINITY)?)?;
        let logits = logits.masked_fill(&mask, 0.0)?;
        let log_powers = logits.mul(value)?.sum_dim(-1, false)?;
        log_factorial_n.sub(&log_factorial_xs)?.add(&log_powers)
    }
    fn entropy(&self) -> Result<Tensor> {
        let probs = self.probs()?;
        let n = Tensor::scalar_tensor_with(self.total_count, probs.dtype())?;
        let cat_entropy = self.cat.entropy()?;
        let term1 = n.mul(&cat_entropy)?.sub(&n.add(1)?.lgamma()?)?;
        // Binomial(total_count, probs) over batch_shape + event_shape.
        let bin = InnerBinomial {
            total_count: Tensor::scalar_tensor_with(self.total_count, probs.dtype())?,
            probs: probs.clone(),
        };
        let nb = probs.dim();
        let total = self.total_count.max(0);
        let values = Tensor::arange_with(1 + total, probs.dtype())?;
        let mut view = vec![-1i64];
        view.extend(std::iter::repeat_n(1, nb));
        let support = values.view(&view)?.narrow(0, 1, total)?;
        let binomial_probs = bin.log_prob(&support)?.exp()?;
        let weights = support.add(1)?.lgamma()?;
        let term2 = binomial_probs.mul(&weights)?.sum_dim([0, -1], false)?;
        term1.add(&term2)
    }
    fn mean(&self) -> Result<Tensor> {
        self.probs()?.mul(self.total_count)
    }
    fn variance(&self) -> Result<Tensor> {
        let probs = self.probs()?;
        probs.mul(self.total_count)?.mul(&probs.neg()?.add(1)?)
    }
}
