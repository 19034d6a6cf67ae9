//! `torch.distributions.Normal`.

use crate::Operand;
use crate::Tensor;
use crate::error::Result;

use super::utils::{self, extended_shape, shape_i64, validate_sample};
use super::{Constraint, DistOpts, Distribution, constraints};

/// `torch.distributions.Normal(loc, scale)`: the normal distribution with mean `loc` and
/// standard deviation `scale` (broadcast together; `batch_shape` their shape, `()` when both
/// are numbers; `event_shape` `()`).
///
/// `arg_constraints`: `loc` real, `scale` positive; support real; `has_rsample`.
/// `sample` is `torch.normal(loc.expand(shape), scale.expand(shape))` and `rsample`
/// `loc + eps * scale` with `eps = empty(shape).normal_()`: both draw one standard normal per
/// element from the default generator (PyTorch's `normal_` stream), so the same seed gives
/// PyTorch's values.
#[derive(Clone, Debug)]
pub struct Normal {
    /// `loc`: the mean.
    pub loc: Tensor,
    /// `scale`: the standard deviation.
    pub scale: Tensor,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Normal {
    /// `Normal(loc, scale)`, validating the arguments unless
    /// [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors: broadcasting's; ValueError `Expected parameter scale (Tensor of shape (2,)) of
    /// distribution Normal(loc: torch.Size([2]), scale: torch.Size([2])) to satisfy the
    /// constraint GreaterThan(lower_bound=0.0), but found invalid values:\n…` (and `loc`'s,
    /// for a NaN, with `Real()`).
    pub fn new<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
    ) -> Result<Normal> {
        Normal::new_with(loc, scale, DistOpts::default())
    }

    /// `Normal(loc, scale, validate_args=…)`; see [`Normal::new`].
    pub fn new_with<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Normal> {
        let (loc, scale, batch_shape) = utils::two_params(loc.into(), scale.into())?;
        let d = Normal {
            loc,
            scale,
            batch_shape,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }
}

impl Distribution for Normal {
    fn name(&self) -> &'static str {
        "Normal"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.normal.Normal"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        vec![("loc", self.loc.clone()), ("scale", self.scale.clone())]
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("loc", Constraint::Real),
            ("scale", constraints::positive()),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::Real)
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_rsample(&self) -> bool {
        true
    }
    fn is_exponential_family(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let s = shape_i64(batch_shape);
        Ok(Box::new(Normal {
            loc: self.loc.expand(&s)?,
            scale: self.scale.expand(&s)?,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = shape_i64(&extended_shape(self, sample_shape));
        let _g = crate::autograd::no_grad();
        crate::random::normal(&self.loc.expand(&shape)?, &self.scale.expand(&shape)?)
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = extended_shape(self, sample_shape);
        let eps = {
            let _g = crate::autograd::no_grad();
            Tensor::empty_with(&shape[..], self.loc.dtype())?.normal_()?
        };
        self.loc.add(&eps.mul(&self.scale)?)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let var = self.scale.pow(2)?;
        let log_scale = self.scale.log()?;
        let half_log_2pi = (2.0 * std::f64::consts::PI).sqrt().ln();
        value
            .sub(&self.loc)?
            .pow(2)?
            .neg()?
            .div(&var.mul(2)?)?
            .sub(&log_scale)?
            .sub(half_log_2pi)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let z = value
            .sub(&self.loc)?
            .mul(&self.scale.reciprocal()?)?
            .div(std::f64::consts::SQRT_2)?;
        z.erf()?.add(1)?.mul(0.5)
    }
    fn icdf(&self, value: &Tensor) -> Result<Tensor> {
        let e = value
            .mul(2)?
            .sub(1)?
            .erfinv()?
            .mul(std::f64::consts::SQRT_2)?;
        self.loc.add(&self.scale.mul(&e)?)
    }
    fn entropy(&self) -> Result<Tensor> {
        let c = 0.5 + 0.5 * (2.0 * std::f64::consts::PI).ln();
        self.scale.log()?.add(c)
    }
    fn mean(&self) -> Result<Tensor> {
        Ok(self.loc.clone())
    }
    fn mode(&self) -> Result<Tensor> {
        Ok(self.loc.clone())
    }
    fn stddev(&self) -> Result<Tensor> {
        Ok(self.scale.clone())
    }
    fn variance(&self) -> Result<Tensor> {
        self.scale.pow(2)
    }
}
