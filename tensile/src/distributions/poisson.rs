//! `torch.distributions.Poisson`.

use crate::Operand;
use crate::Tensor;
use crate::error::Result;

use super::utils::{self, broadcast_all, extended_shape, shape_i64, validate_sample};
use super::{Constraint, DistOpts, Distribution, constraints};

/// `torch.distributions.Poisson(rate)`: `batch_shape` `rate`'s shape (`()` for a number).
///
/// `arg_constraints`: `rate` `GreaterThanEq(lower_bound=0.0)`; support
/// `IntegerGreaterThan(lower_bound=0)`; an exponential family; no `rsample`, `entropy` or
/// `cdf` (NotImplementedError). `sample` is `torch.poisson(rate.expand(shape))` (see
/// [`crate::random::poisson`] for the draws).
#[derive(Clone, Debug)]
pub struct Poisson {
    /// `rate` (λ).
    pub rate: Tensor,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Poisson {
    /// `Poisson(rate)`, validating unless
    /// [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors: ValueError `Expected parameter rate (Tensor of shape (2,)) of distribution
    /// Poisson(rate: torch.Size([2])) to satisfy the constraint GreaterThanEq(lower_bound=0.0),
    /// but found invalid values:\n…`.
    pub fn new<'a>(rate: impl Into<Operand<'a>>) -> Result<Poisson> {
        Poisson::new_with(rate, DistOpts::default())
    }

    /// `Poisson(rate, validate_args=…)`; see [`Poisson::new`].
    pub fn new_with<'a>(
        rate: impl Into<Operand<'a>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Poisson> {
        let rate = rate.into();
        let number = utils::all_numbers(&[&rate]);
        let rate = broadcast_all(&[rate])?.pop().expect("one");
        let batch_shape = if number {
            Vec::new()
        } else {
            rate.size().to_vec()
        };
        let d = Poisson {
            rate,
            batch_shape,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }
}

impl Distribution for Poisson {
    fn name(&self) -> &'static str {
        "Poisson"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.poisson.Poisson"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        vec![("rate", self.rate.clone())]
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![("rate", constraints::nonnegative())]
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
    fn is_exponential_family(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(Poisson {
            rate: self.rate.expand(shape_i64(batch_shape))?,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = shape_i64(&extended_shape(self, sample_shape));
        let _g = crate::autograd::no_grad();
        crate::random::poisson(&self.rate.expand(&shape)?)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let mut p = broadcast_all(&[(&self.rate).into(), value.into()])?.into_iter();
        let (rate, value) = (p.next().expect("two"), p.next().expect("two"));
        value
            .xlogy(&rate)?
            .sub(&rate)?
            .sub(&value.add(1)?.lgamma()?)
    }
    fn mean(&self) -> Result<Tensor> {
        Ok(self.rate.clone())
    }
    fn mode(&self) -> Result<Tensor> {
        self.rate.floor()
    }
    fn variance(&self) -> Result<Tensor> {
        Ok(self.rate.clone())
    }
}
