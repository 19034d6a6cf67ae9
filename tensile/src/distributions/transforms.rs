//! `torch.distributions.transforms`: invertible maps between constrained sets, with their
//! log-abs-det-Jacobians, as [`Transform`] trait objects ([`TransformRef`], shared).
//!
//! Every transform computes exactly PyTorch's ops in PyTorch's order, so values and
//! gradients match. Transforms never cache (PyTorch's default `cache_size=0`).

use std::fmt;
use std::sync::Arc;

use crate::Operand;
use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};
use crate::nn::functional as F;

use super::{AsAny, Constraint, constraints, not_implemented};

/// A transform's `sign`: PyTorch's Python int (`+1`, `-1`, `0`) or a tensor (an
/// `AffineTransform` with a tensor `scale`, a `PowerTransform`).
#[derive(Clone, Debug)]
pub enum Sign {
    /// A Python int.
    Int(i64),
    /// A tensor of signs.
    Tensor(Tensor),
}

impl Sign {
    /// `self * other`, as Python multiplies ints and tensors.
    pub fn mul(&self, other: &Sign) -> Result<Sign> {
        Ok(match (self, other) {
            (Sign::Int(a), Sign::Int(b)) => Sign::Int(a * b),
            (Sign::Int(a), Sign::Tensor(t)) => Sign::Tensor(t.mul(*a)?),
            (Sign::Tensor(t), Sign::Int(b)) => Sign::Tensor(t.mul(*b)?),
            (Sign::Tensor(a), Sign::Tensor(b)) => Sign::Tensor(a.mul(b)?),
        })
    }
}

/// A number or a tensor parameter (`AffineTransform`'s `loc` and `scale`).
#[derive(Clone, Debug)]
pub enum Param {
    /// A Python number.
    Number(f64),
    /// A tensor.
    Tensor(Tensor),
}

impl Param {
    fn op(&self) -> Operand<'_> {
        match self {
            Param::Number(x) => (*x).into(),
            Param::Tensor(t) => t.into(),
        }
    }
    fn shape(&self) -> Vec<i64> {
        match self {
            Param::Number(_) => Vec::new(),
            Param::Tensor(t) => t.size().iter().map(|&d| d as i64).collect(),
        }
    }
}

impl From<f64> for Param {
    fn from(x: f64) -> Self {
        Param::Number(x)
    }
}

impl From<Tensor> for Param {
    fn from(t: Tensor) -> Self {
        Param::Tensor(t)
    }
}

impl From<&Tensor> for Param {
    fn from(t: &Tensor) -> Self {
        Param::Tensor(t.clone())
    }
}

/// `torch.distributions.transforms.Transform`: an invertible (or not) map `y = f(x)` with
/// `domain`, `codomain`, `log_abs_det_jacobian(x, y) = log |det df/dx|` and the shape maps.
///
/// `Display` is PyTorch's `repr` (`ExpTransform()`, `_InverseTransform(ExpTransform())`,
/// `ComposeTransform(\n    ExpTransform(),\n    AffineTransform()\n)`).
pub trait Transform: AsAny + fmt::Debug + Send + Sync {
    /// PyTorch's `repr`.
    fn repr(&self) -> String;
    /// `t(x)`: the forward map.
    ///
    /// Errors: NotImplementedError (empty text) where PyTorch's `_call` raises.
    fn call(&self, x: &Tensor) -> Result<Tensor>;
    /// `t.inv(y)`: the inverse map. Default: NotImplementedError (empty text).
    fn inverse(&self, _y: &Tensor) -> Result<Tensor> {
        Err(not_implemented())
    }
    /// `log_abs_det_jacobian(x, y)`, of `x`'s shape without the event dims. Default:
    /// NotImplementedError (empty text).
    fn log_abs_det_jacobian(&self, _x: &Tensor, _y: &Tensor) -> Result<Tensor> {
        Err(not_implemented())
    }
    /// `domain`: the constraint of valid inputs.
    fn domain(&self) -> Constraint;
    /// `codomain`: the constraint of outputs.
    fn codomain(&self) -> Constraint;
    /// `bijective` (default false).
    fn bijective(&self) -> bool {
        false
    }
    /// `sign`: of the derivative, for monotone univariate transforms.
    ///
    /// Errors: NotImplementedError (empty text) where PyTorch's has none.
    fn sign(&self) -> Result<Sign> {
        Err(not_implemented())
    }
    /// `event_dim`: the domain's event dim when it equals the codomain's.
    ///
    /// Errors: ValueError `Please use either .domain.event_dim or .codomain.event_dim`.
    fn event_dim(&self) -> Result<usize> {
        let (d, c) = (self.domain().event_dim(), self.codomain().event_dim());
        if d == c {
            Ok(d)
        } else {
            Err(Error::new(
                ErrorKind::ValueError,
                "Please use either .domain.event_dim or .codomain.event_dim",
            ))
        }
    }
    /// `forward_shape(shape)`: the output shape for an input shape (default: the same).
    fn forward_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        Ok(shape.to_vec())
    }
    /// `inverse_shape(shape)`: the input shape for an output shape (default: the same).
    fn inverse_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        Ok(shape.to_vec())
    }
    /// `self == other`, PyTorch's `__eq__` (by class for the parameterless transforms, by
    /// value for `AffineTransform`/`PowerTransform`, part by part for `ComposeTransform`).
    fn equals(&self, other: &dyn Transform) -> bool;
}

/// A shared transform.
pub type TransformRef = Arc<dyn Transform>;

impl fmt::Display for dyn Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr())
    }
}

/// `t.inv`: the inverse transform (`_InverseTransform(t)`; the inner transform of an
/// inverse; a `ComposeTransform` of the inverted parts in reverse order).
pub fn inv(t: &TransformRef) -> TransformRef {
    if let Some(i) = (**t).as_any().downcast_ref::<InverseTransform>() {
        return i.inner.clone();
    }
    if let Some(c) = (**t).as_any().downcast_ref::<ComposeTransform>() {
        return Arc::new(ComposeTransform {
            parts: c.parts.iter().rev().map(inv).collect(),
        });
    }
    Arc::new(InverseTransform { inner: t.clone() })
}

/// `_sum_rightmost(value, dim)`: `value` with its rightmost `dim` dims summed out.
pub(crate) fn sum_rightmost(value: &Tensor, dim: isize) -> Result<Tensor> {
    if dim <= 0 {
        return Ok(value.clone());
    }
    let dim = dim as usize;
    let n = value.dim();
    let keep = n.saturating_sub(dim);
    let mut shape: Vec<i64> = value.size()[..keep].iter().map(|&d| d as i64).collect();
    shape.push(-1);
    value.reshape(&shape)?.sum_dim(-1, false)
}

fn too_few() -> Error {
    Error::new(ErrorKind::ValueError, "Too few dimensions on input")
}

macro_rules! same_class_eq {
    () => {
        fn equals(&self, other: &dyn Transform) -> bool {
            other.as_any().is::<Self>()
        }
    };
}

/// PyTorch's `_InverseTransform(t)` (what [`inv`] builds): `domain`/`codomain` swapped,
/// forward is `t`'s inverse, `log_abs_det_jacobian(x, y) = -t.log_abs_det_jacobian(y, x)`.
#[derive(Debug)]
pub struct InverseTransform {
    inner: TransformRef,
}

impl InverseTransform {
    /// `_InverseTransform(t)`.
    pub fn new(t: TransformRef) -> InverseTransform {
        InverseTransform { inner: t }
    }
}

impl Transform for InverseTransform {
    fn repr(&self) -> String {
        format!("_InverseTransform({})", self.inner.repr())
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        self.inner.inverse(x)
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        self.inner.call(y)
    }
    fn log_abs_det_jacobian(&self, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        self.inner.log_abs_det_jacobian(y, x)?.neg()
    }
    fn domain(&self) -> Constraint {
        self.inner.codomain()
    }
    fn codomain(&self) -> Constraint {
        self.inner.domain()
    }
    fn bijective(&self) -> bool {
        self.inner.bijective()
    }
    fn sign(&self) -> Result<Sign> {
        self.inner.sign()
    }
    fn forward_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        self.inner.inverse_shape(shape)
    }
    fn inverse_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        self.inner.forward_shape(shape)
    }
    fn equals(&self, other: &dyn Transform) -> bool {
        match other.as_any().downcast_ref::<InverseTransform>() {
            Some(o) => self.inner.equals(&*o.inner),
            None => false,
        }
    }
}

/// `ComposeTransform(parts)`: the parts applied in order; `domain`/`codomain` widened to the
/// largest event dim the chain needs; `sign` the product; empty is the identity on reals.
#[derive(Debug, Default)]
pub struct ComposeTransform {
    /// The parts, first applied first.
    pub parts: Vec<TransformRef>,
}

impl ComposeTransform {
    /// `ComposeTransform(parts)`.
    pub fn new(parts: Vec<TransformRef>) -> ComposeTransform {
        ComposeTransform { parts }
    }
}

impl Transform for ComposeTransform {
    fn repr(&self) -> String {
        let parts: Vec<String> = self.parts.iter().map(|p| p.repr()).collect();
        format!("ComposeTransform(\n    {}\n)", parts.join(",\n    "))
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        let mut x = x.clone();
        for p in &self.parts {
            x = p.call(&x)?;
        }
        Ok(x)
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        let mut y = y.clone();
        for p in self.parts.iter().rev() {
            y = p.inverse(&y)?;
        }
        Ok(y)
    }
    fn log_abs_det_jacobian(&self, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        if self.parts.is_empty() {
            return Tensor::zeros_like(x);
        }
        let mut xs = vec![x.clone()];
        for p in &self.parts[..self.parts.len() - 1] {
            let next = p.call(xs.last().expect("nonempty"))?;
            xs.push(next);
        }
        xs.push(y.clone());
        let mut event_dim = self.domain().event_dim() as isize;
        let mut acc: Option<Tensor> = None;
        for (i, p) in self.parts.iter().enumerate() {
            let term = sum_rightmost(
                &p.log_abs_det_jacobian(&xs[i], &xs[i + 1])?,
                event_dim - p.domain().event_dim() as isize,
            )?;
            event_dim += p.codomain().event_dim() as isize - p.domain().event_dim() as isize;
            acc = Some(match acc {
                None => term,
                Some(a) => a.add(&term)?,
            });
        }
        Ok(acc.expect("nonempty"))
    }
    fn domain(&self) -> Constraint {
        let (Some(first), Some(last)) = (self.parts.first(), self.parts.last()) else {
            return Constraint::Real;
        };
        let domain = first.domain();
        let mut event_dim = last.codomain().event_dim() as isize;
        for p in self.parts.iter().rev() {
            event_dim += p.domain().event_dim() as isize - p.codomain().event_dim() as isize;
            event_dim = event_dim.max(p.domain().event_dim() as isize);
        }
        let d = domain.event_dim() as isize;
        if event_dim > d {
            Constraint::Independent(Box::new(domain), (event_dim - d) as usize)
        } else {
            domain
        }
    }
    fn codomain(&self) -> Constraint {
        let (Some(first), Some(last)) = (self.parts.first(), self.parts.last()) else {
            return Constraint::Real;
        };
        let codomain = last.codomain();
        let mut event_dim = first.domain().event_dim() as isize;
        for p in &self.parts {
            event_dim += p.codomain().event_dim() as isize - p.domain().event_dim() as isize;
            event_dim = event_dim.max(p.codomain().event_dim() as isize);
        }
        let c = codomain.event_dim() as isize;
        if event_dim > c {
            Constraint::Independent(Box::new(codomain), (event_dim - c) as usize)
        } else {
            codomain
        }
    }
    fn bijective(&self) -> bool {
        self.parts.iter().all(|p| p.bijective())
    }
    fn sign(&self) -> Result<Sign> {
        let mut s = Sign::Int(1);
        for p in &self.parts {
            s = s.mul(&p.sign()?)?;
        }
        Ok(s)
    }
    fn forward_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        let mut s = shape.to_vec();
        for p in &self.parts {
            s = p.forward_shape(&s)?;
        }
        Ok(s)
    }
    fn inverse_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        let mut s = shape.to_vec();
        for p in self.parts.iter().rev() {
            s = p.inverse_shape(&s)?;
        }
        Ok(s)
    }
    fn equals(&self, other: &dyn Transform) -> bool {
        match other.as_any().downcast_ref::<ComposeTransform>() {
            Some(o) => transforms_equal(&self.parts, &o.parts),
            None => false,
        }
    }
}

/// Python's `list == list` of transforms: same length, pairwise `==`.
pub(crate) fn transforms_equal(a: &[TransformRef], b: &[TransformRef]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals(&**y))
}

/// `ExpTransform()`: `y = exp(x)`, reals to positive reals; `log_abs_det_jacobian` is `x`;
/// sign `+1`.
#[derive(Debug, Default)]
pub struct ExpTransform;

impl Transform for ExpTransform {
    fn repr(&self) -> String {
        "ExpTransform()".into()
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        x.exp()
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        y.log()
    }
    fn log_abs_det_jacobian(&self, x: &Tensor, _y: &Tensor) -> Result<Tensor> {
        Ok(x.clone())
    }
    fn domain(&self) -> Constraint {
        Constraint::Real
    }
    fn codomain(&self) -> Constraint {
        constraints::positive()
    }
    fn bijective(&self) -> bool {
        true
    }
    fn sign(&self) -> Result<Sign> {
        Ok(Sign::Int(1))
    }
    same_class_eq!();
}

/// `PowerTransform(exponent)`: `y = x ** exponent` on positive reals (`exponent` a tensor,
/// a number becoming a float32 0-d tensor); sign `exponent.sign()`.
#[derive(Debug)]
pub struct PowerTransform {
    /// `exponent`.
    pub exponent: Tensor,
}

impl PowerTransform {
    /// `PowerTransform(exponent)`.
    ///
    /// Errors: none beyond the conversion's.
    pub fn new<'a>(exponent: impl Into<Operand<'a>>) -> Result<PowerTransform> {
        let exponent = super::broadcast_all(&[exponent.into()])?.remove(0);
        Ok(PowerTransform { exponent })
    }
}

impl Transform for PowerTransform {
    fn repr(&self) -> String {
        "PowerTransform()".into()
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        x.pow(&self.exponent)
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        y.pow(&self.exponent.reciprocal()?)
    }
    fn log_abs_det_jacobian(&self, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        self.exponent.mul(y)?.div(x)?.abs()?.log()
    }
    fn domain(&self) -> Constraint {
        constraints::positive()
    }
    fn codomain(&self) -> Constraint {
        constraints::positive()
    }
    fn bijective(&self) -> bool {
        true
    }
    fn sign(&self) -> Result<Sign> {
        Ok(Sign::Tensor(self.exponent.sign()?))
    }
    fn forward_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        bshape(shape, &[Param::Tensor(self.exponent.clone()).shape()])
    }
    fn inverse_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        self.forward_shape(shape)
    }
    fn equals(&self, other: &dyn Transform) -> bool {
        match other.as_any().downcast_ref::<PowerTransform>() {
            Some(o) => all_eq(&self.exponent, (&o.exponent).into()),
            None => false,
        }
    }
}

fn all_eq(a: &Tensor, b: Operand<'_>) -> bool {
    let _g = crate::autograd::no_grad();
    a.eq(b)
        .and_then(|t| t.all())
        .and_then(|t| t.item::<bool>())
        .unwrap_or(false)
}

fn bshape(shape: &[usize], others: &[Vec<i64>]) -> Result<Vec<usize>> {
    let s: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let mut all: Vec<&[i64]> = vec![&s];
    all.extend(others.iter().map(|o| &o[..]));
    Ok(crate::broadcast::broadcast_shapes(&all)?
        .into_iter()
        .map(|d| d as usize)
        .collect())
}

/// `torch.clamp(torch.sigmoid(x), min=tiny, max=1 - eps)` (`_clipped_sigmoid`).
fn clipped_sigmoid(x: &Tensor) -> Result<Tensor> {
    let fi = x.dtype().finfo()?;
    x.sigmoid()?.clamp(fi.tiny, 1.0 - fi.eps)
}

/// `SigmoidTransform()`: `y = sigmoid(x)` clamped to `[tiny, 1 - eps]`, reals to the unit
/// interval; `log_abs_det_jacobian` `-softplus(-x) - softplus(x)`; sign `+1`.
#[derive(Debug, Default)]
pub struct SigmoidTransform;

impl Transform for SigmoidTransform {
    fn repr(&self) -> String {
        "SigmoidTransform()".into()
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        clipped_sigmoid(x)
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        let fi = y.dtype().finfo()?;
        let y = y.clamp(fi.tiny, 1.0 - fi.eps)?;
        y.log()?.sub(&y.neg()?.log1p()?)
    }
    fn log_abs_det_jacobian(&self, x: &Tensor, _y: &Tensor) -> Result<Tensor> {
        F::softplus(&x.neg()?)?.neg()?.sub(&F::softplus(x)?)
    }
    fn domain(&self) -> Constraint {
        Constraint::Real
    }
    fn codomain(&self) -> Constraint {
        constraints::unit_interval()
    }
    fn bijective(&self) -> bool {
        true
    }
    fn sign(&self) -> Result<Sign> {
        Ok(Sign::Int(1))
    }
    same_class_eq!();
}

/// `TanhTransform()`: `y = tanh(x)`, reals to `[-1, 1]`; `log_abs_det_jacobian`
/// `2 (log 2 - x - softplus(-2x))`; sign `+1`.
#[derive(Debug, Default)]
pub struct TanhTransform;

impl Transform for TanhTransform {
    fn repr(&self) -> String {
        "TanhTransform()".into()
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        x.tanh()
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        y.atanh()
    }
    fn log_abs_det_jacobian(&self, x: &Tensor, _y: &Tensor) -> Result<Tensor> {
        let a = crate::rsub(x, 2f64.ln())?;
        a.sub(&F::softplus(&x.mul(-2.0)?)?)?.mul(2.0)
    }
    fn domain(&self) -> Constraint {
        Constraint::Real
    }
    fn codomain(&self) -> Constraint {
        Constraint::Interval(super::Bound::Float(-1.0), super::Bound::Float(1.0))
    }
    fn bijective(&self) -> bool {
        true
    }
    fn sign(&self) -> Result<Sign> {
        Ok(Sign::Int(1))
    }
    same_class_eq!();
}

/// `AbsTransform()`: `y = |x|`, reals to positive reals (not bijective: its inverse is the
/// identity, it has no `log_abs_det_jacobian` nor `sign`).
#[derive(Debug, Default)]
pub struct AbsTransform;

impl Transform for AbsTransform {
    fn repr(&self) -> String {
        "AbsTransform()".into()
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        x.abs()
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        Ok(y.clone())
    }
    fn domain(&self) -> Constraint {
        Constraint::Real
    }
    fn codomain(&self) -> Constraint {
        constraints::positive()
    }
    same_class_eq!();
}

/// `AffineTransform(loc, scale, event_dim=0)`: `y = loc + scale * x` (`loc`, `scale`
/// numbers or tensors); `log_abs_det_jacobian` `log |scale|` (summed over the `event_dim`
/// rightmost dims) expanded to `x`'s shape; sign the sign of `scale` (an int for a number,
/// a tensor otherwise); domain and codomain real (`IndependentConstraint(Real(), event_dim)`
/// when `event_dim > 0`).
#[derive(Debug)]
pub struct AffineTransform {
    /// `loc`.
    pub loc: Param,
    /// `scale`.
    pub scale: Param,
    event_dim: usize,
}

impl AffineTransform {
    /// `AffineTransform(loc, scale)`.
    pub fn new(loc: impl Into<Param>, scale: impl Into<Param>) -> AffineTransform {
        AffineTransform::with_event_dim(loc, scale, 0)
    }
    /// `AffineTransform(loc, scale, event_dim)`.
    pub fn with_event_dim(
        loc: impl Into<Param>,
        scale: impl Into<Param>,
        event_dim: usize,
    ) -> AffineTransform {
        AffineTransform {
            loc: loc.into(),
            scale: scale.into(),
            event_dim,
        }
    }
    fn space(&self) -> Constraint {
        if self.event_dim == 0 {
            Constraint::Real
        } else {
            Constraint::Independent(Box::new(Constraint::Real), self.event_dim)
        }
    }
}

impl Transform for AffineTransform {
    fn repr(&self) -> String {
        "AffineTransform()".into()
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        let sx = x.mul(self.scale.op())?;
        match &self.loc {
            Param::Number(l) => sx.add(*l),
            Param::Tensor(l) => l.add(&sx),
        }
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        y.sub(self.loc.op())?.div(self.scale.op())
    }
    fn log_abs_det_jacobian(&self, x: &Tensor, _y: &Tensor) -> Result<Tensor> {
        let mut shape: Vec<i64> = x.size().iter().map(|&d| d as i64).collect();
        let mut result = match &self.scale {
            Param::Number(s) => Tensor::full_like(x, s.abs().ln())?,
            Param::Tensor(s) => s.abs()?.log()?,
        };
        if self.event_dim > 0 {
            let n = result.dim().saturating_sub(self.event_dim);
            let mut rs: Vec<i64> = result.size()[..n].iter().map(|&d| d as i64).collect();
            rs.push(-1);
            result = result.view(&rs)?.sum_dim(-1, false)?;
            shape.truncate(shape.len().saturating_sub(self.event_dim));
        }
        result.expand(&shape)
    }
    fn domain(&self) -> Constraint {
        self.space()
    }
    fn codomain(&self) -> Constraint {
        self.space()
    }
    fn bijective(&self) -> bool {
        true
    }
    fn event_dim(&self) -> Result<usize> {
        Ok(self.event_dim)
    }
    fn sign(&self) -> Result<Sign> {
        Ok(match &self.scale {
            Param::Number(s) => Sign::Int(if *s > 0.0 {
                1
            } else if *s < 0.0 {
                -1
            } else {
                0
            }),
            Param::Tensor(t) => Sign::Tensor(t.sign()?),
        })
    }
    fn forward_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        bshape(shape, &[self.loc.shape(), self.scale.shape()])
    }
    fn inverse_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        self.forward_shape(shape)
    }
    fn equals(&self, other: &dyn Transform) -> bool {
        let Some(o) = other.as_any().downcast_ref::<AffineTransform>() else {
            return false;
        };
        let same = |a: &Param, b: &Param| match (a, b) {
            (Param::Number(x), Param::Number(y)) => x == y,
            (Param::Tensor(t), p) => all_eq(t, p.op()),
            (p, Param::Tensor(t)) => all_eq(t, p.op()),
        };
        same(&self.loc, &o.loc) && same(&self.scale, &o.scale)
    }
}

/// `SoftmaxTransform()`: `y = exp(x - max) / sum` over the last dim, real vectors to the
/// simplex (not bijective; inverse `log y`; no `log_abs_det_jacobian`).
#[derive(Debug, Default)]
pub struct SoftmaxTransform;

impl Transform for SoftmaxTransform {
    fn repr(&self) -> String {
        "SoftmaxTransform()".into()
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        let m = x.max_dim(-1, true)?.0;
        let probs = x.sub(&m)?.exp()?;
        probs.div(&probs.sum_dim(-1, true)?)
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        y.log()
    }
    fn domain(&self) -> Constraint {
        constraints::real_vector()
    }
    fn codomain(&self) -> Constraint {
        Constraint::Simplex
    }
    /// Errors: ValueError `Too few dimensions on input` for `()`.
    fn forward_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        if shape.is_empty() {
            return Err(too_few());
        }
        Ok(shape.to_vec())
    }
    fn inverse_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        self.forward_shape(shape)
    }
    same_class_eq!();
}

/// `StickBreakingTransform()`: real vectors of length `K` to the simplex of `K + 1` entries
/// by stick breaking (bijective), PyTorch's ops and order.
#[derive(Debug, Default)]
pub struct StickBreakingTransform;

/// `n + 1 - ones(n).cumsum(-1)` (or `n - …` with `plus = 0`) in `like`'s dtype.
fn sb_offset(like: &Tensor, n: usize, total: usize) -> Result<Tensor> {
    let ones = Tensor::ones_with([n], like.dtype())?.cumsum(-1)?;
    crate::rsub(&ones, total as i64)
}

impl Transform for StickBreakingTransform {
    fn repr(&self) -> String {
        "StickBreakingTransform()".into()
    }
    fn call(&self, x: &Tensor) -> Result<Tensor> {
        let n = *x.size().last().ok_or_else(too_few)?;
        let offset = sb_offset(x, n, n + 1)?;
        let z = clipped_sigmoid(&x.sub(&offset.log()?)?)?;
        let z_cumprod = crate::rsub(&z, 1)?.cumprod(-1)?;
        let a = F::pad_with(
            &z,
            [0i64, 1],
            F::PadOpts {
                mode: "constant",
                value: Some(1.0),
            },
        )?;
        let b = F::pad_with(
            &z_cumprod,
            [1i64, 0],
            F::PadOpts {
                mode: "constant",
                value: Some(1.0),
            },
        )?;
        a.mul(&b)
    }
    fn inverse(&self, y: &Tensor) -> Result<Tensor> {
        let n = *y.size().last().ok_or_else(too_few)?;
        let y_crop = y.narrow(-1, 0, n.saturating_sub(1))?;
        let offset = sb_offset(y, n.saturating_sub(1), n)?;
        let sf = crate::rsub(&y_crop.cumsum(-1)?, 1)?;
        let sf = sf.clamp_min(y.dtype().finfo()?.tiny)?;
        y_crop.log()?.sub(&sf.log()?)?.add(&offset.log()?)
    }
    fn log_abs_det_jacobian(&self, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        let n = *x.size().last().ok_or_else(too_few)?;
        let offset = sb_offset(x, n, n + 1)?;
        let x = x.sub(&offset.log()?)?;
        let m = *y.size().last().ok_or_else(too_few)?;
        let yc = y.narrow(-1, 0, m.saturating_sub(1))?;
        x.neg()?
            .add(&F::logsigmoid(&x)?)?
            .add(&yc.log()?)?
            .sum_dim(-1, false)
    }
    fn domain(&self) -> Constraint {
        constraints::real_vector()
    }
    fn codomain(&self) -> Constraint {
        Constraint::Simplex
    }
    fn bijective(&self) -> bool {
        true
    }
    /// Errors: ValueError `Too few dimensions on input` for `()`.
    fn forward_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        let (last, rest) = shape.split_last().ok_or_else(too_few)?;
        let mut s = rest.to_vec();
        s.push(last + 1);
        Ok(s)
    }
    /// Errors: ValueError `Too few dimensions on input` for `()`.
    fn inverse_shape(&self, shape: &[usize]) -> Result<Vec<usize>> {
        let (last, rest) = shape.split_last().ok_or_else(too_few)?;
        let mut s = rest.to_vec();
        s.push(last.saturating_sub(1));
        Ok(s)
    }
    same_class_eq!();
}
