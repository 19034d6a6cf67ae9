//! `torch.distributions.TransformedDistribution` and its subclasses `LogNormal`,
//! `HalfNormal`, `Gumbel` (each wraps a `TransformedDistribution` built as PyTorch's
//! `__init__` builds it, so samples, shapes and the inherited methods are PyTorch's).

use std::sync::Arc;

use crate::Operand;
use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

use super::constraints;
use super::transforms::{
    self, AbsTransform, AffineTransform, ComposeTransform, ExpTransform, Param, Sign, TransformRef,
    sum_rightmost,
};
use super::utils::{self, broadcast_all, shape_i64, size_str, validate_sample};
use super::{Constraint, DistOpts, Distribution, Independent, Normal, Transform, Uniform};

/// `torch.distributions.TransformedDistribution(base_distribution, transforms)`: `Y = f(X)`,
/// `X ~ base`, `f` the transforms applied in order.
///
/// Shapes: the base's shape mapped through the transforms' `forward_shape`; `event_shape`
/// the largest the base and the transforms need (the base expanded, or wrapped in
/// `Independent`, as PyTorch does). No parameters (`repr` `TransformedDistribution()`);
/// support the last transform's codomain (made `Independent` over extra event dims), the
/// base's when there are no transforms; `has_rsample` the base's. `sample` is the base's
/// `sample` (its draws) pushed through the transforms; `log_prob` inverts the transforms
/// and subtracts their log-abs-det-Jacobians; `cdf`/`icdf` go through the base and flip by
/// the transforms' `sign` (so need monotone transforms). `mean`, `variance`, `entropy`:
/// NotImplementedError (empty text), as in PyTorch.
#[derive(Debug)]
pub struct TransformedDistribution {
    /// `base_dist`.
    pub base_dist: Box<dyn Distribution>,
    /// `transforms`.
    pub transforms: Vec<TransformRef>,
    batch_shape: Vec<usize>,
    event_shape: Vec<usize>,
    validate: bool,
}

impl TransformedDistribution {
    /// `TransformedDistribution(base, transforms)`; see
    /// [`TransformedDistribution::new_with`].
    pub fn new(base: Box<dyn Distribution>, transforms: Vec<TransformRef>) -> Result<Self> {
        TransformedDistribution::new_with(base, transforms, DistOpts::default())
    }

    /// `TransformedDistribution(base, transforms, validate_args=…)`.
    ///
    /// Errors: ValueError `base_distribution needs to have shape with size at least 1, but got
    /// torch.Size([]).`; the transforms' shape errors (`Too few dimensions on input`,
    /// broadcasting's).
    pub fn new_with(
        base: Box<dyn Distribution>,
        transforms: Vec<TransformRef>,
        opts: impl Into<DistOpts>,
    ) -> Result<Self> {
        let mut base_shape = base.batch_shape();
        base_shape.extend(base.event_shape());
        let base_event_dim = base.event_shape().len();
        let transform = ComposeTransform::new(transforms.clone());
        let domain_ed = transform.domain().event_dim();
        let codomain_ed = transform.codomain().event_dim();
        if base_shape.len() < domain_ed {
            return Err(Error::new(
                ErrorKind::ValueError,
                format!(
                    "base_distribution needs to have shape with size at least {domain_ed}, but got {}.",
                    size_str(&base_shape)
                ),
            ));
        }
        let forward_shape = transform.forward_shape(&base_shape)?;
        let expanded_base_shape = transform.inverse_shape(&forward_shape)?;
        let mut base = base;
        if base_shape != expanded_base_shape {
            let n = expanded_base_shape.len().saturating_sub(base_event_dim);
            base = base.expand(&expanded_base_shape[..n])?;
        }
        if domain_ed > base_event_dim {
            base = Box::new(Independent::new(base, domain_ed - base_event_dim)?);
        }
        let change = codomain_ed as isize - domain_ed as isize;
        let event_dim = (codomain_ed as isize).max(base_event_dim as isize + change) as usize;
        let cut = forward_shape.len().saturating_sub(event_dim);
        Ok(TransformedDistribution {
            base_dist: base,
            transforms,
            batch_shape: forward_shape[..cut].to_vec(),
            event_shape: forward_shape[cut..].to_vec(),
            validate: opts.into().validate(),
        })
    }

    fn expand_td(&self, batch_shape: &[usize]) -> Result<TransformedDistribution> {
        let mut shape = batch_shape.to_vec();
        shape.extend_from_slice(&self.event_shape);
        for t in self.transforms.iter().rev() {
            shape = t.inverse_shape(&shape)?;
        }
        let n = shape
            .len()
            .saturating_sub(self.base_dist.event_shape().len());
        Ok(TransformedDistribution {
            base_dist: self.base_dist.expand(&shape[..n])?,
            transforms: self.transforms.clone(),
            batch_shape: batch_shape.to_vec(),
            event_shape: self.event_shape.clone(),
            validate: self.validate,
        })
    }

    /// The transforms' log-density correction and the base's log_prob (PyTorch's
    /// `TransformedDistribution.log_prob` after validation).
    fn log_prob_raw(&self, value: &Tensor) -> Result<Tensor> {
        let mut event_dim = self.event_shape.len() as isize;
        let mut lp: Option<Tensor> = None;
        let mut y = value.clone();
        for t in self.transforms.iter().rev() {
            let x = t.inverse(&y)?;
            let (d, c) = (
                t.domain().event_dim() as isize,
                t.codomain().event_dim() as isize,
            );
            event_dim += d - c;
            let term = sum_rightmost(&t.log_abs_det_jacobian(&x, &y)?, event_dim - d)?;
            lp = Some(match lp {
                None => crate::rsub(&term, 0.0)?,
                Some(a) => a.sub(&term)?,
            });
            y = x;
        }
        let base = sum_rightmost(
            &self.base_dist.log_prob(&y)?,
            event_dim - self.base_dist.event_shape().len() as isize,
        )?;
        match lp {
            None => base.add(0.0),
            Some(a) => a.add(&base),
        }
    }

    /// `_monotonize_cdf(value)`: `value` when the transforms' signs multiply to the int 1,
    /// else `sign * (value - 0.5) + 0.5`.
    fn monotonize_cdf(&self, value: Tensor) -> Result<Tensor> {
        let mut sign = Sign::Int(1);
        for t in &self.transforms {
            sign = sign.mul(&t.sign()?)?;
        }
        match sign {
            Sign::Int(1) => Ok(value),
            Sign::Int(s) => value.sub(0.5)?.mul(s)?.add(0.5),
            Sign::Tensor(s) => s.mul(&value.sub(0.5)?)?.add(0.5),
        }
    }

    fn td_support(&self) -> Result<Constraint> {
        let Some(last) = self.transforms.last() else {
            return self.base_dist.support();
        };
        let s = last.codomain();
        let ed = s.event_dim();
        Ok(if self.event_shape.len() > ed {
            Constraint::Independent(Box::new(s), self.event_shape.len() - ed)
        } else {
            s
        })
    }

    fn td_sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let _g = crate::autograd::no_grad();
        let mut x = self.base_dist.sample(sample_shape)?;
        for t in &self.transforms {
            x = t.call(&x)?;
        }
        Ok(x)
    }

    fn td_rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let mut x = self.base_dist.rsample(sample_shape)?;
        for t in &self.transforms {
            x = t.call(&x)?;
        }
        Ok(x)
    }

    /// `cdf` after the subclass's own checks: invert, validate against the base, the base's
    /// cdf, monotonize.
    fn td_cdf(&self, value: &Tensor) -> Result<Tensor> {
        let mut v = value.clone();
        for t in self.transforms.iter().rev() {
            v = t.inverse(&v)?;
        }
        if self.validate {
            validate_sample(&*self.base_dist, &v)?;
        }
        let c = self.base_dist.cdf(&v)?;
        self.monotonize_cdf(c)
    }

    fn td_icdf(&self, value: &Tensor) -> Result<Tensor> {
        let v = self.monotonize_cdf(value.clone())?;
        let mut v = self.base_dist.icdf(&v)?;
        for t in &self.transforms {
            v = t.call(&v)?;
        }
        Ok(v)
    }
}

impl Distribution for TransformedDistribution {
    fn name(&self) -> &'static str {
        "TransformedDistribution"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.transformed_distribution.TransformedDistribution"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        Vec::new()
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        Vec::new()
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn event_shape(&self) -> Vec<usize> {
        self.event_shape.clone()
    }
    fn support(&self) -> Result<Constraint> {
        self.td_support()
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_rsample(&self) -> bool {
        self.base_dist.has_rsample()
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(self.expand_td(batch_shape)?))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.td_sample(sample_shape)
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.td_rsample(sample_shape)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        self.log_prob_raw(value)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        self.td_cdf(value)
    }
    fn icdf(&self, value: &Tensor) -> Result<Tensor> {
        self.td_icdf(value)
    }
}

/// The `TransformedDistribution` inside a `TransformedDistribution` or one of its
/// subclasses here (for `kl_divergence`'s `(TransformedDistribution,
/// TransformedDistribution)` rule).
pub(crate) fn as_transformed(d: &dyn Distribution) -> Option<&TransformedDistribution> {
    let a = d.as_any();
    a.downcast_ref::<TransformedDistribution>()
        .or_else(|| a.downcast_ref::<LogNormal>().map(|d| &d.td))
        .or_else(|| a.downcast_ref::<HalfNormal>().map(|d| &d.td))
        .or_else(|| a.downcast_ref::<Gumbel>().map(|d| &d.td))
}

// ------------------------------------------------------------------ LogNormal

/// `torch.distributions.LogNormal(loc, scale)`: `exp(X)` for `X ~ Normal(loc, scale)` (a
/// `TransformedDistribution` of `Normal(loc, scale)` by `ExpTransform()`; shapes the
/// Normal's).
///
/// `arg_constraints`: `loc` real, `scale` positive (`repr` prints neither:
/// `LogNormal()`); support `GreaterThan(lower_bound=0.0)`; `has_rsample`. `sample`/`rsample`
/// are the Normal's draws (its stream) exponentiated; `log_prob`, `cdf`, `icdf` are
/// `TransformedDistribution`'s; `mean` `exp(loc + scale²/2)`, `mode` `exp(loc - scale²)`,
/// `variance` `expm1(scale²) · exp(2 loc + scale²)`, `entropy` the Normal's `+ loc`.
#[derive(Debug)]
pub struct LogNormal {
    td: TransformedDistribution,
}

impl LogNormal {
    /// `LogNormal(loc, scale)`; see [`LogNormal::new_with`].
    pub fn new<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
    ) -> Result<LogNormal> {
        LogNormal::new_with(loc, scale, DistOpts::default())
    }

    /// `LogNormal(loc, scale, validate_args=…)`.
    ///
    /// Errors: the base `Normal`'s (`Expected parameter scale (Tensor of shape (1,)) of
    /// distribution Normal(loc: tensor([0.]), scale: tensor([-1.])) to satisfy the constraint
    /// GreaterThan(lower_bound=0.0), but found invalid values:\n…`).
    pub fn new_with<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
        opts: impl Into<DistOpts>,
    ) -> Result<LogNormal> {
        let opts = opts.into();
        let base = Normal::new_with(loc, scale, opts)?;
        let td = TransformedDistribution::new_with(
            Box::new(base),
            vec![Arc::new(ExpTransform) as TransformRef],
            opts,
        )?;
        let d = LogNormal { td };
        utils::validate_param_values(&d, &[("loc", d.loc()), ("scale", d.scale())])?;
        Ok(d)
    }

    fn normal(&self) -> &Normal {
        (*self.td.base_dist)
            .as_any()
            .downcast_ref::<Normal>()
            .expect("LogNormal's base is a Normal")
    }

    /// `loc` (the base Normal's).
    pub fn loc(&self) -> Tensor {
        self.normal().loc.clone()
    }

    /// `scale` (the base Normal's).
    pub fn scale(&self) -> Tensor {
        self.normal().scale.clone()
    }

    /// The `TransformedDistribution` it is.
    pub fn transformed(&self) -> &TransformedDistribution {
        &self.td
    }
}

impl Distribution for LogNormal {
    fn name(&self) -> &'static str {
        "LogNormal"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.log_normal.LogNormal"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        Vec::new()
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("loc", Constraint::Real),
            ("scale", constraints::positive()),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.td.batch_shape()
    }
    fn event_shape(&self) -> Vec<usize> {
        self.td.event_shape()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(constraints::positive())
    }
    fn validate_args(&self) -> bool {
        self.td.validate
    }
    fn has_rsample(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(LogNormal {
            td: self.td.expand_td(batch_shape)?,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.td.td_sample(sample_shape)
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.td.td_rsample(sample_shape)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.td.validate {
            validate_sample(self, value)?;
        }
        self.td.log_prob_raw(value)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        self.td.td_cdf(value)
    }
    fn icdf(&self, value: &Tensor) -> Result<Tensor> {
        self.td.td_icdf(value)
    }
    fn mean(&self) -> Result<Tensor> {
        self.loc().add(&self.scale().pow(2)?.div(2)?)?.exp()
    }
    fn mode(&self) -> Result<Tensor> {
        self.loc().sub(&self.scale().square()?)?.exp()
    }
    fn variance(&self) -> Result<Tensor> {
        let s2 = self.scale().pow(2)?;
        s2.expm1()?.mul(&self.loc().mul(2)?.add(&s2)?.exp()?)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.normal().entropy()?.add(&self.loc())
    }
}

// ------------------------------------------------------------------ HalfNormal

/// `torch.distributions.HalfNormal(scale)`: `|X|` for `X ~ Normal(0, scale)` (a
/// `TransformedDistribution` of `Normal(0, scale, validate_args=False)` by
/// `AbsTransform()`; shapes the Normal's).
///
/// `arg_constraints`: `scale` positive (`repr` `HalfNormal()`); support
/// `GreaterThanEq(lower_bound=0.0)`; `has_rsample`. `sample`/`rsample` are the Normal's
/// draws (its stream) made absolute; `log_prob` the Normal's `+ log 2` (`-inf` below 0),
/// `cdf` `2 Φ - 1`, `icdf` the Normal's at `(p + 1) / 2`; `mean` `scale √(2/π)`, `mode` 0,
/// `variance` `scale² (1 - 2/π)`, `entropy` the Normal's `- log 2`.
#[derive(Debug)]
pub struct HalfNormal {
    td: TransformedDistribution,
}

impl HalfNormal {
    /// `HalfNormal(scale)`; see [`HalfNormal::new_with`].
    pub fn new<'a>(scale: impl Into<Operand<'a>>) -> Result<HalfNormal> {
        HalfNormal::new_with(scale, DistOpts::default())
    }

    /// `HalfNormal(scale, validate_args=…)`.
    ///
    /// Errors: ValueError `Expected parameter scale (Tensor of shape (1,)) of distribution
    /// HalfNormal() to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid
    /// values:\n…`.
    pub fn new_with<'a>(
        scale: impl Into<Operand<'a>>,
        opts: impl Into<DistOpts>,
    ) -> Result<HalfNormal> {
        let opts = opts.into();
        let base = Normal::new_with(0.0, scale, false)?;
        let td = TransformedDistribution::new_with(
            Box::new(base),
            vec![Arc::new(AbsTransform) as TransformRef],
            opts,
        )?;
        let d = HalfNormal { td };
        utils::validate_param_values(&d, &[("scale", d.scale())])?;
        Ok(d)
    }

    fn normal(&self) -> &Normal {
        (*self.td.base_dist)
            .as_any()
            .downcast_ref::<Normal>()
            .expect("HalfNormal's base is a Normal")
    }

    /// `scale` (the base Normal's).
    pub fn scale(&self) -> Tensor {
        self.normal().scale.clone()
    }

    /// The base `Normal(0, scale)`.
    pub fn base_normal(&self) -> &Normal {
        self.normal()
    }
}

impl Distribution for HalfNormal {
    fn name(&self) -> &'static str {
        "HalfNormal"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.half_normal.HalfNormal"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        Vec::new()
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![("scale", constraints::positive())]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.td.batch_shape()
    }
    fn event_shape(&self) -> Vec<usize> {
        self.td.event_shape()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(constraints::nonnegative())
    }
    fn validate_args(&self) -> bool {
        self.td.validate
    }
    fn has_rsample(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(HalfNormal {
            td: self.td.expand_td(batch_shape)?,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.td.td_sample(sample_shape)
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.td.td_rsample(sample_shape)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.td.validate {
            validate_sample(self, value)?;
        }
        let lp = self.normal().log_prob(value)?.add(2f64.ln())?;
        crate::where_cond(&value.ge(0)?, &lp, f64::NEG_INFINITY)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        if self.td.validate {
            validate_sample(self, value)?;
        }
        self.normal().cdf(value)?.mul(2)?.sub(1)
    }
    fn icdf(&self, value: &Tensor) -> Result<Tensor> {
        self.normal().icdf(&value.add(1)?.div(2)?)
    }
    fn mean(&self) -> Result<Tensor> {
        self.scale().mul((2.0 / std::f64::consts::PI).sqrt())
    }
    fn mode(&self) -> Result<Tensor> {
        Tensor::zeros_like(&self.scale())
    }
    fn variance(&self) -> Result<Tensor> {
        self.scale().pow(2)?.mul(1.0 - 2.0 / std::f64::consts::PI)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.normal().entropy()?.sub(2f64.ln())
    }
}

// ------------------------------------------------------------------ Gumbel

/// Euler–Mascheroni constant (`torch.distributions.utils.euler_constant`).
pub(crate) const EULER: f64 = 0.577_215_664_901_532_9;

/// `torch.distributions.Gumbel(loc, scale)`: the Gumbel (type-I extreme value)
/// distribution (`loc`, `scale` broadcast together; `batch_shape` their shape, `()` when both
/// are numbers).
///
/// Built as PyTorch builds it: a `TransformedDistribution` of `Uniform(tiny, 1 - eps)` (the
/// dtype's `finfo`) by `[ExpTransform().inv, AffineTransform(0, -ones), ExpTransform().inv,
/// AffineTransform(loc, -scale)]`, so `sample`/`rsample` draw one `torch.rand` per element
/// (PyTorch's stream) and compute `loc - scale · log(-log u)`; `cdf`/`icdf` are
/// `TransformedDistribution`'s (`cdf` validates the inverted value against the Uniform's
/// support, as PyTorch does). `arg_constraints`: `loc` real, `scale` positive (`repr`
/// `Gumbel(loc: …, scale: …)`); support real; `log_prob` `(y - exp(y)) - log scale` with
/// `y = (loc - x) / scale`; `mean` `loc + scale γ`; `mode` `loc`; `stddev` `π/√6 · scale`;
/// `entropy` `log scale + 1 + γ`.
#[derive(Debug)]
pub struct Gumbel {
    /// `loc`.
    pub loc: Tensor,
    /// `scale`.
    pub scale: Tensor,
    td: TransformedDistribution,
}

impl Gumbel {
    /// `Gumbel(loc, scale)`; see [`Gumbel::new_with`].
    pub fn new<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
    ) -> Result<Gumbel> {
        Gumbel::new_with(loc, scale, DistOpts::default())
    }

    /// `Gumbel(loc, scale, validate_args=…)`.
    ///
    /// Errors: broadcasting's; ValueError `Expected parameter scale (Tensor of shape (2,)) of
    /// distribution Gumbel(loc: torch.Size([2]), scale: torch.Size([2])) to satisfy the
    /// constraint GreaterThan(lower_bound=0.0), but found invalid values:\n…` (and `loc`'s
    /// with `Real()`, for a NaN).
    pub fn new_with<'a, 'b>(
        loc: impl Into<Operand<'a>>,
        scale: impl Into<Operand<'b>>,
        opts: impl Into<DistOpts>,
    ) -> Result<Gumbel> {
        let opts = opts.into();
        let (loc_in, scale_in) = (loc.into(), scale.into());
        let numbers = utils::all_numbers(&[&loc_in, &scale_in]);
        let loc_param = match &loc_in {
            Operand::Tensor(t) => Param::Tensor((*t).clone()),
            Operand::Scalar(s) => Param::Number(s.to_f64()),
        };
        let mut p = broadcast_all(&[loc_in, scale_in])?.into_iter();
        let (loc, scale) = (p.next().expect("two"), p.next().expect("two"));
        let fi = loc.dtype().finfo()?;
        let base = if numbers {
            Uniform::new_with(fi.tiny, 1.0 - fi.eps, opts)?
        } else {
            Uniform::new_with(
                &Tensor::full_like(&loc, fi.tiny)?,
                &Tensor::full_like(&loc, 1.0 - fi.eps)?,
                opts,
            )?
        };
        let exp_inv = transforms::inv(&(Arc::new(ExpTransform) as TransformRef));
        let ts: Vec<TransformRef> = vec![
            exp_inv.clone(),
            Arc::new(AffineTransform::new(0.0, Tensor::ones_like(&scale)?.neg()?)),
            exp_inv,
            Arc::new(AffineTransform::new(loc_param, scale.neg()?)),
        ];
        let td = TransformedDistribution::new_with(Box::new(base), ts, opts)?;
        let d = Gumbel { loc, scale, td };
        utils::validate_params(&d)?;
        Ok(d)
    }
}

impl Distribution for Gumbel {
    fn name(&self) -> &'static str {
        "Gumbel"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.gumbel.Gumbel"
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
        self.td.batch_shape()
    }
    fn event_shape(&self) -> Vec<usize> {
        self.td.event_shape()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::Real)
    }
    fn validate_args(&self) -> bool {
        self.td.validate
    }
    fn has_rsample(&self) -> bool {
        self.td.has_rsample()
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let s = shape_i64(batch_shape);
        Ok(Box::new(Gumbel {
            loc: self.loc.expand(&s)?,
            scale: self.scale.expand(&s)?,
            td: self.td.expand_td(batch_shape)?,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.td.td_sample(sample_shape)
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.td.td_rsample(sample_shape)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.td.validate {
            validate_sample(self, value)?;
        }
        let y = self.loc.sub(value)?.div(&self.scale)?;
        y.sub(&y.exp()?)?.sub(&self.scale.log()?)
    }
    fn cdf(&self, value: &Tensor) -> Result<Tensor> {
        self.td.td_cdf(value)
    }
    fn icdf(&self, value: &Tensor) -> Result<Tensor> {
        self.td.td_icdf(value)
    }
    fn mean(&self) -> Result<Tensor> {
        self.loc.add(&self.scale.mul(EULER)?)
    }
    fn mode(&self) -> Result<Tensor> {
        Ok(self.loc.clone())
    }
    fn stddev(&self) -> Result<Tensor> {
        self.scale.mul(std::f64::consts::PI / 6f64.sqrt())
    }
    fn variance(&self) -> Result<Tensor> {
        self.stddev()?.pow(2)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.scale.log()?.add(1.0 + EULER)
    }
}
