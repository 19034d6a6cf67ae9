//! `torch.distributions.Bernoulli`.

use crate::Operand;
use crate::Tensor;
use crate::error::Result;

use super::discrete::{ProbsLogits, either_error};
use super::utils::{self, broadcast_all, extended_shape, shape_i64, validate_sample};
use super::{Constraint, DistOpts, Distribution, constraints};

/// `torch.distributions.Bernoulli(probs=…, logits=…)`: 0/1 outcomes, 1 with probability
/// `probs` (`sigmoid(logits)`). Exactly one of `probs` and `logits` is given; the other is
/// computed on first use and cached (PyTorch's `lazy_property`: `repr` and `expand` show it
/// only from then on). `batch_shape` is the parameter's shape (`()` for a number, which
/// becomes a float32 0-d tensor); `event_shape` `()`.
///
/// `arg_constraints`: `probs` in `[0, 1]`, `logits` real; support `Boolean()`;
/// `has_enumerate_support`; an exponential family. Samples have the parameter's dtype.
/// `sample` is `torch.bernoulli(probs.expand(shape))`: one uniform draw per element from the
/// default generator, as PyTorch's.
#[derive(Clone, Debug)]
pub struct Bernoulli {
    p: ProbsLogits,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Bernoulli {
    /// `Bernoulli(probs, logits)` with exactly one of them `Some`, validating the arguments
    /// unless [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors: ValueError `Either `probs` or `logits` must be specified, but not both.`;
    /// ValueError `Expected parameter probs (Tensor of shape (2,)) of distribution
    /// Bernoulli(probs: torch.Size([2])) to satisfy the constraint Interval(lower_bound=0.0,
    /// upper_bound=1.0), but found invalid values:\n…` (`logits`: `Real()`, for a NaN).
    pub fn new(probs: Option<Operand<'_>>, logits: Option<Operand<'_>>) -> Result<Bernoulli> {
        Bernoulli::new_with(probs, logits, DistOpts::default())
    }

    /// `Bernoulli(probs=probs)`; see [`Bernoulli::new`].
    pub fn from_probs<'a>(probs: impl Into<Operand<'a>>) -> Result<Bernoulli> {
        Bernoulli::new(Some(probs.into()), None)
    }

    /// `Bernoulli(logits=logits)`; see [`Bernoulli::new`].
    pub fn from_logits<'a>(logits: impl Into<Operand<'a>>) -> Result<Bernoulli> {
        Bernoulli::new(None, Some(logits.into()))
    }

    /// `Bernoulli(probs, logits, validate_args=…)`; see [`Bernoulli::new`].
    pub fn new_with(
        probs: Option<Operand<'_>>,
        logits: Option<Operand<'_>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Bernoulli> {
        let (given, from_probs) = match (probs, logits) {
            (Some(p), None) => (p, true),
            (None, Some(l)) => (l, false),
            _ => return Err(either_error()),
        };
        let is_scalar = utils::all_numbers(&[&given]);
        let t = broadcast_all(&[given])?.remove(0);
        let batch_shape = if is_scalar {
            Vec::new()
        } else {
            t.size().to_vec()
        };
        let d = Bernoulli {
            p: ProbsLogits::new(t, from_probs, true),
            batch_shape,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }

    /// `probs`: the probability of 1 (`sigmoid(logits)` when built from logits).
    ///
    /// Errors: none in practice (the ops' own).
    pub fn probs(&self) -> Result<Tensor> {
        self.p.probs()
    }

    /// `logits`: the log-odds (`log(p) - log1p(-p)` of the clamped probs when built from
    /// probs).
    ///
    /// Errors: none in practice (the ops' own).
    pub fn logits(&self) -> Result<Tensor> {
        self.p.logits()
    }

    /// `param_shape`: the shape of the given parameter.
    pub fn param_shape(&self) -> Vec<usize> {
        self.p.param().size().to_vec()
    }
}

impl Distribution for Bernoulli {
    fn name(&self) -> &'static str {
        "Bernoulli"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.bernoulli.Bernoulli"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        self.p.present()
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
        Ok(Constraint::Boolean)
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn is_exponential_family(&self) -> bool {
        true
    }
    fn has_enumerate_support(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(Bernoulli {
            p: self.p.expand(batch_shape)?,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = shape_i64(&extended_shape(self, sample_shape));
        let _g = crate::autograd::no_grad();
        self.probs()?.expand(&shape)?.bernoulli()
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let logits = self.logits()?;
        let b = broadcast_all(&[(&logits).into(), value.into()])?;
        crate::nn::functional::binary_cross_entropy_with_logits_with(&b[0], &b[1], (None, "none"))?
            .neg()
    }
    fn entropy(&self) -> Result<Tensor> {
        crate::nn::functional::binary_cross_entropy_with_logits_with(
            &self.logits()?,
            &self.probs()?,
            (None, "none"),
        )
    }
    fn mean(&self) -> Result<Tensor> {
        self.probs()
    }
    fn mode(&self) -> Result<Tensor> {
        let probs = self.probs()?;
        let mode = probs.ge(0.5)?.to(probs.dtype())?;
        mode.masked_fill(&probs.eq(0.5)?, f64::NAN)
    }
    fn variance(&self) -> Result<Tensor> {
        let probs = self.probs()?;
        probs.mul(&probs.neg()?.add(1)?)
    }
    fn enumerate_support(&self, expand: bool) -> Result<Tensor> {
        let values = Tensor::arange_with(2, self.p.param().dtype())?;
        let mut view = vec![-1i64];
        view.extend(std::iter::repeat_n(1, self.batch_shape.len()));
        let values = values.view(&view)?;
        if expand {
            let mut s = vec![-1i64];
            s.extend(shape_i64(&self.batch_shape));
            values.expand(&s)
        } else {
            Ok(values)
        }
    }
}
