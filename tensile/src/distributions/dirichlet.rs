//! `torch.distributions.Dirichlet` and `Beta` (a Dirichlet over two categories).

use crate::Operand;
use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

use super::utils::{self, broadcast_all, extended_shape, shape_i64, validate_sample};
use super::{Bound, Constraint, DistOpts, Distribution, constraints};

/// `torch.distributions.Dirichlet(concentration)`: over the last dim of `concentration` (at
/// least 1-d): `batch_shape` its leading dims, `event_shape` its last.
///
/// `arg_constraints`: `concentration` `IndependentConstraint(GreaterThan(lower_bound=0.0),
/// 1)`; support `Simplex()`; `has_rsample`; an exponential family.
/// `rsample` is `_sample_dirichlet(concentration.expand(shape))` (see
/// [`crate::random::sample_dirichlet`] for the draws), differentiable in `concentration`
/// through `_dirichlet_grad` (PyTorch's `_Dirichlet` function); `sample` draws the same.
#[derive(Clone, Debug)]
pub struct Dirichlet {
    /// `concentration` (α), `batch_shape + event_shape`.
    pub concentration: Tensor,
    validate: bool,
}

impl Dirichlet {
    /// `Dirichlet(concentration)`, validating unless
    /// [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors (ValueError): ``\`concentration\` parameter must be at least one-dimensional.``;
    /// `Expected parameter concentration (Tensor of shape (2,)) of distribution
    /// Dirichlet(concentration: torch.Size([2])) to satisfy the constraint
    /// IndependentConstraint(GreaterThan(lower_bound=0.0), 1), but found invalid values:\n…`.
    pub fn new(concentration: &Tensor) -> Result<Dirichlet> {
        Dirichlet::new_with(concentration, DistOpts::default())
    }

    /// `Dirichlet(concentration, validate_args=…)`; see [`Dirichlet::new`].
    pub fn new_with(concentration: &Tensor, opts: impl Into<DistOpts>) -> Result<Dirichlet> {
        if concentration.dim() < 1 {
            return Err(Error::new(
                ErrorKind::ValueError,
                "`concentration` parameter must be at least one-dimensional.",
            ));
        }
        let d = Dirichlet {
            concentration: concentration.clone(),
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }
}

impl Distribution for Dirichlet {
    fn name(&self) -> &'static str {
        "Dirichlet"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.dirichlet.Dirichlet"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        vec![("concentration", self.concentration.clone())]
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![(
            "concentration",
            Constraint::Independent(Box::new(constraints::positive()), 1),
        )]
    }
    fn batch_shape(&self) -> Vec<usize> {
        let s = self.concentration.size();
        s[..s.len() - 1].to_vec()
    }
    fn event_shape(&self) -> Vec<usize> {
        let s = self.concentration.size();
        s[s.len() - 1..].to_vec()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::Simplex)
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
        let mut s = batch_shape.to_vec();
        s.extend(self.event_shape());
        Ok(Box::new(Dirichlet {
            concentration: self.concentration.expand(shape_i64(&s))?,
            validate: self.validate,
        }))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = shape_i64(&extended_shape(self, sample_shape));
        let conc = self.concentration.expand(&shape)?;
        let x = crate::random::sample_dirichlet(&conc)?;
        crate::autograd::formulas::distributions::dirichlet(x, &conc)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let c = &self.concentration;
        crate::xlogy(&c.sub(1.0)?, value)?
            .sum_dim(-1, false)?
            .add(&c.sum_dim(-1, false)?.lgamma()?)?
            .sub(&c.lgamma()?.sum_dim(-1, false)?)
    }
    fn mean(&self) -> Result<Tensor> {
        self.concentration
            .div(&self.concentration.sum_dim(-1, true)?)
    }
    fn mode(&self) -> Result<Tensor> {
        let c = &self.concentration;
        let cm1 = c.sub(1)?.clamp_min(0.0)?;
        let mode = cm1.div(&cm1.sum_dim(-1, true)?)?;
        let mask = c.lt(1)?.all_dim(-1, false)?;
        let k = cm1.size()[cm1.dim() - 1];
        let hot = crate::nn::functional::one_hot_with(&mode.argmax_dim(-1, false)?, k as i64)?
            .to(mode.dtype())?;
        crate::where_cond(&mask.unsqueeze(-1)?, &hot, &mode)
    }
    fn variance(&self) -> Result<Tensor> {
        let c = &self.concentration;
        let con0 = c.sum_dim(-1, true)?;
        c.mul(&con0.sub(c)?)?.div(&con0.pow(2)?.mul(&con0.add(1)?)?)
    }
    fn entropy(&self) -> Result<Tensor> {
        let c = &self.concentration;
        let k = c.size()[c.dim() - 1] as f64;
        let a0 = c.sum_dim(-1, false)?;
        c.lgamma()?
            .sum_dim(-1, false)?
            .sub(&a0.lgamma()?)?
            .sub(&crate::rsub(&a0, k)?.mul(&a0.digamma()?)?)?
            .sub(&c.sub(1.0)?.mul(&c.digamma()?)?.sum_dim(-1, false)?)
    }
}

/// `torch.distributions.Beta(concentration1, concentration0)`: a Dirichlet over
/// `stack([concentration1, concentration0], -1)` (`torch.tensor([c1, c0])`, float32, when
/// both are numbers), of which it takes the first coordinate.
///
/// `arg_constraints`: both positive (checked by the inner Dirichlet, whose text the error
/// has); support `Interval(lower_bound=0.0, upper_bound=1.0)`; `has_rsample`; an exponential
/// family. `repr` is `Beta()` (PyTorch holds the parameters only in the Dirichlet).
/// `rsample` is the Dirichlet's, `select(-1, 0)`.
#[derive(Clone, Debug)]
pub struct Beta {
    /// The Dirichlet over `(concentration1, concentration0)`.
    pub dirichlet: Dirichlet,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Beta {
    /// `Beta(concentration1, concentration0)`, validating unless
    /// [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors: broadcasting's; ValueError `Expected parameter concentration (Tensor of shape
    /// (2, 2)) of distribution Dirichlet(concentration: torch.Size([2, 2])) to satisfy the
    /// constraint IndependentConstraint(GreaterThan(lower_bound=0.0), 1), but found invalid
    /// values:\n…`.
    pub fn new<'a, 'b>(
        concentration1: impl Into<Operand<'a>>,
        concentration0: impl Into<Operand<'b>>,
    ) -> Result<Beta> {
        Beta::new_with(concentration1, concentration0, DistOpts::default())
    }

    /// `Beta(concentration1, concentration0, validate_args=…)`; see [`Beta::new`].
    pub fn new_with<'a, 'b>(
        concentration1: impl Into<Operand<'a>>,
        concentration0: impl Into<Operand<'b>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Beta> {
        let (c1, c0) = (concentration1.into(), concentration0.into());
        let opts = opts.into();
        let both = match (c1, c0) {
            (Operand::Scalar(a), Operand::Scalar(b)) => {
                Tensor::from_vec(vec![a.to_f64() as f32, b.to_f64() as f32], [2])?
            }
            _ => {
                let p = broadcast_all(&[c1, c0])?;
                crate::stack_with(&p, -1)?
            }
        };
        let dirichlet = Dirichlet::new_with(&both, opts)?;
        let batch_shape = dirichlet.batch_shape();
        Ok(Beta {
            dirichlet,
            batch_shape,
            validate: opts.validate(),
        })
    }

    /// The `concentration1` property: `concentration[..., 0]`.
    pub fn concentration1(&self) -> Result<Tensor> {
        self.dirichlet.concentration.select(-1, 0)
    }

    /// The `concentration0` property: `concentration[..., 1]`.
    pub fn concentration0(&self) -> Result<Tensor> {
        self.dirichlet.concentration.select(-1, 1)
    }
}

impl Distribution for Beta {
    fn name(&self) -> &'static str {
        "Beta"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.beta.Beta"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        Vec::new()
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("concentration1", constraints::positive()),
            ("concentration0", constraints::positive()),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::Interval(Bound::Float(0.0), Bound::Float(1.0)))
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
        let mut s = batch_shape.to_vec();
        s.push(2);
        Ok(Box::new(Beta {
            dirichlet: Dirichlet {
                concentration: self.dirichlet.concentration.expand(shape_i64(&s))?,
                validate: self.dirichlet.validate,
            },
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.dirichlet.rsample(sample_shape)?.select(-1, 0)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let heads_tails = crate::stack_with(&[value.clone(), crate::rsub(value, 1.0)?], -1)?;
        self.dirichlet.log_prob(&heads_tails)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.dirichlet.entropy()
    }
    fn mean(&self) -> Result<Tensor> {
        let c1 = self.concentration1()?;
        c1.div(&c1.add(&self.concentration0()?)?)
    }
    fn mode(&self) -> Result<Tensor> {
        self.dirichlet.mode()?.select(-1, 0)
    }
    fn variance(&self) -> Result<Tensor> {
        let (c1, c0) = (self.concentration1()?, self.concentration0()?);
        let total = c1.add(&c0)?;
        c1.mul(&c0)?.div(&total.pow(2)?.mul(&total.add(1)?)?)
    }
}
