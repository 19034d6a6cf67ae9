//! `torch.distributions.Uniform`, `Exponential`, `Laplace`, `Cauchy`: the continuous
//! distributions PyTorch writes directly (not as a `TransformedDistribution`).

use crate::Operand;
use crate::Tensor;
use crate::error::Result;

use super::utils::{self, broadcast_all, extended_shape, shape_i64, two_params, validate_sample};
use super::{Bound, Constraint, DistOpts, Distribution, constraints};

/// `self.new(shape)` (an uninitialised tensor of `like`'s dtype), to be filled by a random
/// op, outside the graph.
fn new_like(like: &Tensor, shape: &[usize]) -> Result<Tensor> {
    Tensor::empty_with(shape, like.dtype())
}

// ------------------------------------------------------------------ Uniform

/// `torch.distributions.Uniform(low, high)`: uniform on the half-open interval `[low, high)`
/// (`low`, `high` broadcast together; `batch_shape` their shape, `()` when both are numbers;
/// `event_shape` `()`).
///
/// `arg_constraints`: `low` `LessThan(upper_bound=high)`, `high` `GreaterThan(lower_bound=low)`
/// (tensor bounds, printed as tensors); support `Interval(lower_bound=low, upper_bound=high)`;
/// `has_rsample`. `sample`/`rsample` are `low + rand(shape, dtype=low.dtype) * (high - low)`:
/// one `torch.rand` draw per element from the default generator, PyTorch's stream.
/// `mode` is NaN; `log_prob` is `-inf` outside `[low, high)` (with validation off).
#[derive(Clone, Debug)]
pub struct Uniform {
    /// `low`: the inclusive lower bound.
    pub low: Tensor,
    /// `high`: the exclusive upper bound.
    pub high: Tensor,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Uniform {
    /// `Uniform(low, high)`; see [`Uniform::new_with`].
    pub fn new<'a, 'b>(
        low: impl Into<Operand<'a>>,
        high: impl Into<Operand<'b>>,
    ) -> Result<Uniform> {
        Uniform::new_with(low, high, DistOpts::default())
    }

    /// `Uniform(low, high, validate_args=…)`.
    ///
    /// Errors: broadcasting's; ValueError `Expected parameter low (Tensor of shape (2,)) of
    /// distribution Uniform(low: torch.Size([2]), high: torch.Size([2])) to satisfy the
    /// constraint LessThan(upper_bound=tensor([1., 0.])), but found invalid values:\n…` (and
    /// `high`'s with `GreaterThan(lower_bound=…)`, for a NaN).
    pub fn new_with<'a, 'b>(
        low: impl Into<Operand<'a>>,
        high: impl Into<Operand<'b>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Uniform> {
        let (low, high, batch_shape) = two_params(low.into(), high.into())?;
        let d = Uniform {
            low,
            high,
            batch_shape,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }
}

impl Distribution for Uniform {
    fn name(&self) -> &'static str {
        "Uniform"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.uniform.Uniform"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        vec![("low", self.low.clone()), ("high", self.high.clone())]
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            (
                "low",
                Constraint::LessThan(Bound::Tensor(self.high.clone())),
            ),
            (
                "high",
                Constraint::GreaterThan(Bound::Tensor(self.low.clone())),
            ),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::Interval(
            Bound::Tensor(self.low.clone()),
            Bound::Tensor(self.high.clone()),
        ))
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_rsample(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let s = shape_i64(batch_shape);
        Ok(Box::new(Uniform {
            low: self.low.expand(&s)?,
            high: self.high.expand(&s)?,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = extended_shape(self, sample_shape);
        let rand = {
            let _g = crate::autograd::no_grad();
            Tensor::rand_with(&shape[..], self.low.dtype())?
        };
        self.low.add(&rand.mul(&self.high.sub(&self.low)?)?)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let lb = self.low.le(value)?.to(self.low.dtype())?;
        let ub = self.high.gt(value)?.to(self.low.dtype())?;
        lb.mul(&ub)?.log()?.sub(&self.high.sub(&self.low)?.log()?)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        value
            .sub(&self.low)?
            .div(&self.high.sub(&self.low)?)?
            .clamp(0, 1)
    }
    fn icdf(&self, value: &Tensor) -> Result<Tensor> {
        value.mul(&self.high.sub(&self.low)?)?.add(&self.low)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.high.sub(&self.low)?.log()
    }
    fn mean(&self) -> Result<Tensor> {
        self.high.add(&self.low)?.div(2)
    }
    fn mode(&self) -> Result<Tensor> {
        self.high.mul(f64::NAN)
    }
    fn stddev(&self) -> Result<Tensor> {
        self.high.sub(&self.low)?.div(12f64.powf(0.5))
    }
    fn variance(&self) -> Result<Tensor> {
        self.high.sub(&self.low)?.pow(2)?.div(12)
    }
}

// ------------------------------------------------------------------ Exponential

/// `torch.distributions.Exponential(rate)`: density `rate · exp(-rate · x)` on `x >= 0`
/// (`batch_shape` `rate`'s shape, `()` for a number; `event_shape` `()`).
///
/// `arg_constraints`: `rate` positive; support `GreaterThanEq(lower_bound=0.0)`;
/// `has_rsample`; an exponential family. `sample`/`rsample` are
/// `rate.new(shape).exponential_() / rate`: one `exponential_` draw per element from the
/// default generator, PyTorch's stream.
#[derive(Clone, Debug)]
pub struct Exponential {
    /// `rate`: the inverse scale.
    pub rate: Tensor,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Exponential {
    /// `Exponential(rate)`; see [`Exponential::new_with`].
    pub fn new<'a>(rate: impl Into<Operand<'a>>) -> Result<Exponential> {
        Exponential::new_with(rate, DistOpts::default())
    }

    /// `Exponential(rate, validate_args=…)`.
    ///
    /// Errors: ValueError `Expected parameter rate (Tensor of shape (2,)) of distribution
    /// Exponential(rate: torch.Size([2])) to satisfy the constraint
    /// GreaterThan(lower_bound=0.0), but found invalid values:\n…`.
    pub fn new_with<'a>(
        rate: impl Into<Operand<'a>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Exponential> {
        let rate = rate.into();
        let numbers = utils::all_numbers(&[&rate]);
        let rate = broadcast_all(&[rate])?.remove(0);
        let batch_shape = if numbers {
            Vec::new()
        } else {
            rate.size().to_vec()
        };
        let d = Exponential {
            rate,
            batch_shape,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }
}

impl Distribution for Exponential {
    fn name(&self) -> &'static str {
        "Exponential"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.exponential.Exponential"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        vec![("rate", self.rate.clone())]
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![("rate", constraints::positive())]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(constraints::nonnegative())
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
        Ok(Box::new(Exponential {
            rate: self.rate.expand(shape_i64(batch_shape))?,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = extended_shape(self, sample_shape);
        let e = {
            let _g = crate::autograd::no_grad();
            new_like(&self.rate, &shape)?.exponential_()?
        };
        e.div(&self.rate)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        self.rate.log()?.sub(&self.rate.mul(value)?)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        crate::rsub(&self.rate.neg()?.mul(value)?.exp()?, 1)
    }
    fn icdf(&self, value: &Tensor) -> Result<Tensor> {
        value.neg()?.log1p()?.neg()?.div(&self.rate)
    }
    fn entropy(&self) -> Result<Tensor> {
        crate::rsub(&self.rate.log()?, 1.0)
    }
    fn mean(&self) -> Result<Tensor> {
        self.rate.reciprocal()
    }
    fn mode(&self) -> Result<Tensor> {
        Tensor::zeros_like(&self.rate)
    }
    fn stddev(&self) -> Result<Tensor> {
        self.rate.reciprocal()
    }
    fn variance(&self) -> Result<Tensor> {
        self.rate.pow(-2)
    }
}

// ------------------------------------------------------------------ Laplace

/// `torch.distributions.Laplace(loc, scale)`: density `exp(-|x - loc| / scale) / (2 scale)`
/// (`loc`, `scale` broadcast together; `batch_shape` their shape, `()` when both are numbers;
/// `event_shape` `()`).
///
/// `arg_constraints`: `loc` real, `scale` positive; support real; `has_rsample`.
/// `sample`/`rsample` draw `u = loc.new(shape).uniform_(eps - 1, 1)` (`eps` the dtype's
/// machine epsilon; one `uniform_` draw per element from the default generator) and return
/// `loc - scale * u.sign() * log1p(-|u|)`, as PyTorch does.
#[derive(Clone, Debug)]
pub struct Laplace {
    /// `loc`: the mean.
    pub loc: Tensor,
    /// `scale`: the scale (`stddev / √2`).
    pub scale: Tensor,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Laplace {
    /// `Laplace(loc, scale)`; see [`Laplace::new_with`].
    pub fn new<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
    ) -> Result<Laplace> {
        Laplace::new_with(loc, scale, DistOpts::default())
    }

    /// `Laplace(loc, scale, validate_args=…)`.
    ///
    /// Errors: broadcasting's; ValueError `Expected parameter scale (Tensor of shape (2,)) of
    /// distribution Laplace(loc: torch.Size([2]), scale: torch.Size([2])) to satisfy the
    /// constraint GreaterThan(lower_bound=0.0), but found invalid values:\n…` (and `loc`'s
    /// with `Real()`, for a NaN).
    pub fn new_with<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Laplace> {
        let (loc, scale, batch_shape) = two_params(loc.into(), scale.into())?;
        let d = Laplace {
            loc,
            scale,
            batch_shape,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }
}

impl Distribution for Laplace {
    fn name(&self) -> &'static str {
        "Laplace"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.laplace.Laplace"
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
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let s = shape_i64(batch_shape);
        Ok(Box::new(Laplace {
            loc: self.loc.expand(&s)?,
            scale: self.scale.expand(&s)?,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = extended_shape(self, sample_shape);
        let eps = self.loc.dtype().finfo()?.eps;
        let u = {
            let _g = crate::autograd::no_grad();
            new_like(&self.loc, &shape)?.uniform_with_((eps - 1.0, 1.0))?
        };
        let t = u.abs()?.neg()?.log1p()?;
        self.loc.sub(&self.scale.mul(&u.sign()?)?.mul(&t)?)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        self.scale
            .mul(2)?
            .log()?
            .neg()?
            .sub(&value.sub(&self.loc)?.abs()?.div(&self.scale)?)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let d = value.sub(&self.loc)?;
        let e = d.abs()?.neg()?.div(&self.scale)?.expm1()?;
        crate::rsub(&d.sign()?.mul(0.5)?.mul(&e)?, 0.5)
    }
    fn icdf(&self, value: &Tensor) -> Result<Tensor> {
        let term = value.sub(0.5)?;
        let l = term.abs()?.mul(-2)?.log1p()?;
        self.loc.sub(&self.scale.mul(&term.sign()?)?.mul(&l)?)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.scale.mul(2)?.log()?.add(1)
    }
    fn mean(&self) -> Result<Tensor> {
        Ok(self.loc.clone())
    }
    fn mode(&self) -> Result<Tensor> {
        Ok(self.loc.clone())
    }
    fn stddev(&self) -> Result<Tensor> {
        self.scale.mul(2f64.powf(0.5))
    }
    fn variance(&self) -> Result<Tensor> {
        self.scale.pow(2)?.mul(2)
    }
}

// ------------------------------------------------------------------ Cauchy

/// `torch.distributions.Cauchy(loc, scale)`: the Cauchy (Lorentz) distribution with median
/// `loc` and half width `scale` (`loc`, `scale` broadcast together; `batch_shape` their
/// shape, `()` when both are numbers; `event_shape` `()`).
///
/// `arg_constraints`: `loc` real, `scale` positive; support real; `has_rsample`. `mean` is
/// NaN and `variance` infinite (filled tensors of `batch_shape`). `sample`/`rsample` are
/// `loc + loc.new(shape).cauchy_() * scale`: one `cauchy_` draw per element from the default
/// generator, PyTorch's stream.
#[derive(Clone, Debug)]
pub struct Cauchy {
    /// `loc`: the median.
    pub loc: Tensor,
    /// `scale`: the half width at half maximum.
    pub scale: Tensor,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Cauchy {
    /// `Cauchy(loc, scale)`; see [`Cauchy::new_with`].
    pub fn new<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
    ) -> Result<Cauchy> {
        Cauchy::new_with(loc, scale, DistOpts::default())
    }

    /// `Cauchy(loc, scale, validate_args=…)`.
    ///
    /// Errors: broadcasting's; ValueError `Expected parameter scale (Tensor of shape (2,)) of
    /// distribution Cauchy(loc: torch.Size([2]), scale: torch.Size([2])) to satisfy the
    /// constraint GreaterThan(lower_bound=0.0), but found invalid values:\n…` (and `loc`'s
    /// with `Real()`, for a NaN).
    pub fn new_with<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Cauchy> {
        let (loc, scale, batch_shape) = two_params(loc.into(), scale.into())?;
        let d = Cauchy {
            loc,
            scale,
            batch_shape,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }
}

impl Distribution for Cauchy {
    fn name(&self) -> &'static str {
        "Cauchy"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.cauchy.Cauchy"
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
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let s = shape_i64(batch_shape);
        Ok(Box::new(Cauchy {
            loc: self.loc.expand(&s)?,
            scale: self.scale.expand(&s)?,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let shape = extended_shape(self, sample_shape);
        let eps = {
            let _g = crate::autograd::no_grad();
            new_like(&self.loc, &shape)?.cauchy_()?
        };
        self.loc.add(&eps.mul(&self.scale)?)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let z = value.sub(&self.loc)?.div(&self.scale)?.pow(2)?.log1p()?;
        crate::rsub(&self.scale.log()?, -std::f64::consts::PI.ln())?.sub(&z)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        value
            .sub(&self.loc)?
            .div(&self.scale)?
            .atan()?
            .div(std::f64::consts::PI)?
            .add(0.5)
    }
    fn icdf(&self, value: &Tensor) -> Result<Tensor> {
        value
            .sub(0.5)?
            .mul(std::f64::consts::PI)?
            .tan()?
            .mul(&self.scale)?
            .add(&self.loc)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.scale.log()?.add((4.0 * std::f64::consts::PI).ln())
    }
    fn mean(&self) -> Result<Tensor> {
        Tensor::full_with(&self.batch_shape[..], f64::NAN, self.loc.dtype())
    }
    fn mode(&self) -> Result<Tensor> {
        Ok(self.loc.clone())
    }
    fn variance(&self) -> Result<Tensor> {
        Tensor::full_with(&self.batch_shape[..], f64::INFINITY, self.loc.dtype())
    }
}

// ------------------------------------------------------------------ kl_divergence

use super::kl::{KlRule, kl_divergence, pair};
use super::transformed::{EULER, Gumbel, HalfNormal, as_transformed};
use super::transforms::{sum_rightmost, transforms_equal};
use super::{Independent, Normal};

/// The KL rules PyTorch registers among Uniform, Exponential, Laplace, Cauchy, Gumbel,
/// HalfNormal, LogNormal, Normal, Independent and TransformedDistribution (the
/// `(TransformedDistribution, TransformedDistribution)` rule last: the more specific pairs
/// win, as PyTorch's dispatch picks them).
pub(crate) const KL_RULES: &[KlRule] = &[
    kl_uniform_uniform,
    kl_exponential_exponential,
    kl_laplace_laplace,
    kl_cauchy_cauchy,
    kl_gumbel_gumbel,
    kl_halfnormal_halfnormal,
    kl_infinite,
    kl_exponential_gumbel,
    kl_exponential_normal,
    kl_gumbel_normal,
    kl_laplace_normal,
    kl_normal_gumbel,
    kl_normal_laplace,
    kl_uniform_exponential,
    kl_uniform_gumbel,
    kl_uniform_normal,
    kl_independent_independent,
    kl_transformed_transformed,
];

type KlOut = Option<Result<Tensor>>;

/// `_kl_uniform_uniform`: `log((q.high - q.low) / (p.high - p.low))`, `inf` where `q`'s
/// interval does not cover `p`'s.
fn kl_uniform_uniform(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Uniform, Uniform>(p, q)?;
    Some((|| {
        let r = q.high.sub(&q.low)?.div(&p.high.sub(&p.low)?)?.log()?;
        let mask = q.low.gt(&p.low)?.logical_or(&q.high.lt(&p.high)?)?;
        r.masked_fill(&mask, f64::INFINITY)
    })())
}

/// `_kl_exponential_exponential`: `-log r + r - 1`, `r = q.rate / p.rate`.
fn kl_exponential_exponential(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Exponential, Exponential>(p, q)?;
    Some((|| {
        let r = q.rate.div(&p.rate)?;
        r.log()?.neg()?.add(&r)?.sub(1)
    })())
}

/// `_kl_laplace_laplace`.
fn kl_laplace_laplace(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Laplace, Laplace>(p, q)?;
    Some((|| {
        let scale_ratio = p.scale.div(&q.scale)?;
        let loc_abs_diff = p.loc.sub(&q.loc)?.abs()?;
        let t1 = scale_ratio.log()?.neg()?;
        let t2 = loc_abs_diff.div(&q.scale)?;
        let t3 = scale_ratio.mul(&loc_abs_diff.neg()?.div(&p.scale)?.exp()?)?;
        t1.add(&t2)?.add(&t3)?.sub(1)
    })())
}

/// `_kl_cauchy_cauchy`: `log((σp + σq)² + (μp - μq)²) - log(4 σp σq)`.
fn kl_cauchy_cauchy(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Cauchy, Cauchy>(p, q)?;
    Some((|| {
        let t1 = p
            .scale
            .add(&q.scale)?
            .pow(2)?
            .add(&p.loc.sub(&q.loc)?.pow(2)?)?
            .log()?;
        let t2 = p.scale.mul(4)?.mul(&q.scale)?.log()?;
        t1.sub(&t2)
    })())
}

/// `_kl_gumbel_gumbel`.
fn kl_gumbel_gumbel(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Gumbel, Gumbel>(p, q)?;
    Some((|| {
        let ct1 = p.scale.div(&q.scale)?;
        let ct2 = q.loc.div(&q.scale)?;
        let ct3 = p.loc.div(&q.scale)?;
        let t1 = ct1.log()?.neg()?.sub(&ct2)?.add(&ct3)?;
        let t2 = ct1.mul(EULER)?;
        let t3 = ct2.add(&ct1.add(1)?.lgamma()?)?.sub(&ct3)?.exp()?;
        t1.add(&t2)?.add(&t3)?.sub(1.0 + EULER)
    })())
}

/// `_kl_halfnormal_halfnormal`: the base Normals' KL.
fn kl_halfnormal_halfnormal(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<HalfNormal, HalfNormal>(p, q)?;
    Some(kl_divergence(p.base_normal(), q.base_normal()))
}

/// The pairs PyTorch scores `inf` (`_infinite_like` of `p`'s parameter): Exponential‖Uniform,
/// Gumbel‖{Exponential, Uniform}, Laplace‖{Exponential, Uniform}, Normal‖{Exponential,
/// Uniform}.
fn kl_infinite(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let qa = q.as_any();
    let q_exp_or_unif = qa.is::<Exponential>() || qa.is::<Uniform>();
    let pa = p.as_any();
    let like = if let Some(e) = pa.downcast_ref::<Exponential>() {
        if !qa.is::<Uniform>() {
            return None;
        }
        e.rate.clone()
    } else if let Some(g) = pa.downcast_ref::<Gumbel>() {
        if !q_exp_or_unif {
            return None;
        }
        g.loc.clone()
    } else if let Some(l) = pa.downcast_ref::<Laplace>() {
        if !q_exp_or_unif {
            return None;
        }
        l.loc.clone()
    } else if let Some(n) = pa.downcast_ref::<Normal>() {
        if !q_exp_or_unif {
            return None;
        }
        n.loc.clone()
    } else {
        return None;
    };
    Some(Tensor::full_like(&like, f64::INFINITY))
}

/// `_kl_exponential_gumbel`.
fn kl_exponential_gumbel(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Exponential, Gumbel>(p, q)?;
    Some((|| {
        let srp = p.rate.mul(&q.scale)?;
        let lsr = q.loc.div(&q.scale)?;
        let t1 = srp.log()?.sub(1)?;
        let t2 = lsr.exp()?.mul(&srp)?.div(&srp.add(1)?)?;
        let t3 = srp.reciprocal()?;
        t1.sub(&lsr)?.add(&t2)?.add(&t3)
    })())
}

/// `_kl_exponential_normal`.
fn kl_exponential_normal(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Exponential, Normal>(p, q)?;
    Some((|| {
        let var_normal = q.scale.pow(2)?;
        let rate_sqr = p.rate.pow(2)?;
        let t1 = rate_sqr
            .mul(&var_normal)?
            .mul(2)?
            .mul(std::f64::consts::PI)?
            .log()?
            .mul(0.5)?;
        let t2 = rate_sqr.reciprocal()?;
        let t3 = q.loc.div(&p.rate)?;
        let t4 = q.loc.pow(2)?.mul(0.5)?;
        t1.sub(1)?.add(&t2.sub(&t3)?.add(&t4)?.div(&var_normal)?)
    })())
}

/// `_kl_gumbel_normal`.
fn kl_gumbel_normal(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Gumbel, Normal>(p, q)?;
    Some((|| {
        let pi = std::f64::consts::PI;
        let param_ratio = p.scale.div(&q.scale)?;
        let t1 = param_ratio.div((2.0 * pi).sqrt())?.log()?;
        let t2 = param_ratio.mul(pi)?.mul(0.5)?.pow(2)?.div(3)?;
        let t3 = p
            .loc
            .add(&p.scale.mul(EULER)?)?
            .sub(&q.loc)?
            .div(&q.scale)?
            .pow(2)?
            .mul(0.5)?;
        t1.neg()?.add(&t2)?.add(&t3)?.sub(EULER + 1.0)
    })())
}

/// `_kl_laplace_normal`.
fn kl_laplace_normal(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Laplace, Normal>(p, q)?;
    Some((|| {
        let var_normal = q.scale.pow(2)?;
        let ssvr = p.scale.pow(2)?.div(&var_normal)?;
        let t1 = ssvr.mul(2)?.div(std::f64::consts::PI)?.log()?.mul(0.5)?;
        let t2 = p.loc.pow(2)?.mul(0.5)?;
        let t3 = p.loc.mul(&q.loc)?;
        let t4 = q.loc.pow(2)?.mul(0.5)?;
        t1.neg()?
            .add(&ssvr)?
            .add(&t2.sub(&t3)?.add(&t4)?.div(&var_normal)?)?
            .sub(1)
    })())
}

/// `_kl_normal_gumbel`.
fn kl_normal_gumbel(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Normal, Gumbel>(p, q)?;
    Some((|| {
        let msr = p.loc.div(&q.scale)?;
        let vssr = p.scale.div(&q.scale)?.pow(2)?;
        let lsr = q.loc.div(&q.scale)?;
        let t1 = vssr.log()?.mul(0.5)?;
        let t2 = msr.sub(&lsr)?;
        let t3 = msr.neg()?.add(&vssr.mul(0.5)?)?.add(&lsr)?.exp()?;
        let c = 0.5 * (1.0 + (2.0 * std::f64::consts::PI).ln());
        t1.neg()?.add(&t2)?.add(&t3)?.sub(c)
    })())
}

/// `_kl_normal_laplace`.
fn kl_normal_laplace(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Normal, Laplace>(p, q)?;
    Some((|| {
        let pi = std::f64::consts::PI;
        let loc_diff = p.loc.sub(&q.loc)?;
        let scale_ratio = p.scale.div(&q.scale)?;
        let ldsr = loc_diff.div(&p.scale)?;
        let t1 = scale_ratio.log()?;
        let t2 = p
            .scale
            .mul((2.0 / pi).sqrt())?
            .mul(&ldsr.pow(2)?.mul(-0.5)?.exp()?)?;
        let t3 = loc_diff.mul(&ldsr.mul(0.5f64.sqrt())?.erf()?)?;
        let c = 0.5 * (1.0 + (0.5 * pi).ln());
        t1.neg()?.add(&t2.add(&t3)?.div(&q.scale)?)?.sub(c)
    })())
}

/// `_kl_uniform_exponetial`: `inf` where `p.low < 0` (a mask of `p`'s shape, as PyTorch's
/// `result[mask] = inf`).
fn kl_uniform_exponential(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Uniform, Exponential>(p, q)?;
    Some((|| {
        let a = q.rate.mul(&p.high.add(&p.low)?)?.div(2)?;
        let b = p.high.sub(&p.low)?.mul(&q.rate)?.log()?;
        super::kl_cross::set_inf(a.sub(&b)?, &p.low.lt(0.0)?)
    })())
}

/// `_kl_uniform_gumbel`.
fn kl_uniform_gumbel(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Uniform, Gumbel>(p, q)?;
    Some((|| {
        let common = q.scale.div(&p.high.sub(&p.low)?)?;
        let hld = p.high.sub(&q.loc)?.div(&q.scale)?;
        let lld = p.low.sub(&q.loc)?.div(&q.scale)?;
        let t1 = common.log()?.add(&hld.add(&lld)?.mul(0.5)?)?;
        let t2 = common.mul(&hld.neg()?.exp()?.sub(&lld.neg()?.exp()?)?)?;
        t1.sub(&t2)
    })())
}

/// `_kl_uniform_normal`.
fn kl_uniform_normal(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Uniform, Normal>(p, q)?;
    Some((|| {
        let common = p.high.sub(&p.low)?;
        let t1 = q
            .scale
            .mul((std::f64::consts::PI * 2.0).sqrt())?
            .div(&common)?
            .log()?;
        let t2 = common.pow(2)?.div(12)?;
        let t3 = p.high.add(&p.low)?.sub(&q.loc.mul(2)?)?.div(2)?.pow(2)?;
        t1.add(&t2.add(&t3)?.mul(0.5)?.div(&q.scale.pow(2)?)?)
    })())
}

/// `_kl_independent_independent`: the bases' KL summed over the reinterpreted dims;
/// NotImplementedError (empty text) when the counts differ.
fn kl_independent_independent(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (p, q) = pair::<Independent, Independent>(p, q)?;
    Some((|| {
        if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims {
            return Err(super::not_implemented());
        }
        let r = kl_divergence(&*p.base_dist, &*q.base_dist)?;
        sum_rightmost(&r, p.reinterpreted_batch_ndims as isize)
    })())
}

/// `_kl_transformed_transformed`: the bases' KL when both have equal transforms and event
/// shapes; NotImplementedError (empty text) otherwise.
fn kl_transformed_transformed(p: &dyn Distribution, q: &dyn Distribution) -> KlOut {
    let (tp, tq) = (as_transformed(p)?, as_transformed(q)?);
    Some((|| {
        if !transforms_equal(&tp.transforms, &tq.transforms) || p.event_shape() != q.event_shape() {
            return Err(super::not_implemented());
        }
        kl_divergence(&*tp.base_dist, &*tq.base_dist)
    })())
}
