//! `torch.distributions`: probability distributions with PyTorch's parameters, shapes,
//! validation messages and random streams.
//!
//! Every distribution implements [`Distribution`]. Shapes follow PyTorch: a sample of
//! `sample_shape` has shape `sample_shape + batch_shape + event_shape`; `log_prob(value)`
//! broadcasts `value` against `batch_shape + event_shape` and returns its shape without the
//! event dims. Parameters given as numbers become tensors of the first tensor parameter's
//! dtype (float32 when all are numbers), as `broadcast_all` does, and broadcast together.
//!
//! Sampling draws from the default generator ([`crate::manual_seed`]), exactly as PyTorch's
//! `sample`/`rsample` do: the same seed gives the same values. `rsample` (where
//! `has_rsample()`) is differentiable through tensile's autograd; `sample` never records.
//!
//! Argument validation is on by default, as in PyTorch (`validate_args=None` under
//! `__debug__`): constructors check every parameter against its constraint and `log_prob`,
//! `cdf` check the value's shape and support, with PyTorch's `ValueError` texts
//! (`Expected parameter scale (Tensor of shape (2,)) of distribution Normal(loc:
//! torch.Size([2]), scale: torch.Size([2])) to satisfy the constraint
//! GreaterThan(lower_bound=0.0), but found invalid values:` and the tensor). Turn it off per
//! distribution with the constructor's `_with` form ([`DistOpts`]) or for all with
//! [`set_default_validate_args`].

use std::any::Any;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

mod bernoulli;
mod binomial;
mod categorical;
pub mod constraints;
mod continuous;
mod dirichlet;
mod discrete;
mod gamma;
mod independent;
mod kl;
mod kl_cross;
mod mixture_same_family;
mod multinomial;
mod multivariate_normal;
mod normal;
mod one_hot_categorical;
mod poisson;
mod studentt;
mod transformed;
pub mod transforms;
mod utils;

pub use bernoulli::Bernoulli;
pub use binomial::{Binomial, Geometric, ProbsOrLogits};
pub use categorical::Categorical;
pub use constraints::{Bound, Constraint};
pub use continuous::{Cauchy, Exponential, Laplace, Uniform};
pub use dirichlet::{Beta, Dirichlet};
pub use gamma::{Chi2, Gamma};
pub use independent::Independent;
pub use kl::kl_divergence;
pub use mixture_same_family::MixtureSameFamily;
pub use multinomial::Multinomial;
pub use multivariate_normal::MultivariateNormal;
pub use normal::Normal;
pub use one_hot_categorical::OneHotCategorical;
pub use poisson::Poisson;
pub use studentt::StudentT;
pub use transformed::{Gumbel, HalfNormal, LogNormal, TransformedDistribution};
pub use transforms::{
    AbsTransform, AffineTransform, ComposeTransform, ExpTransform, InverseTransform,
    PowerTransform, SigmoidTransform, SoftmaxTransform, StickBreakingTransform, TanhTransform,
    Transform, TransformRef,
};
pub use utils::broadcast_all;

static VALIDATE_DEFAULT: AtomicBool = AtomicBool::new(true);

/// `torch.distributions.Distribution.set_default_validate_args(value)`: whether
/// distributions built without an explicit `validate_args` validate (default true).
pub fn set_default_validate_args(value: bool) {
    VALIDATE_DEFAULT.store(value, Ordering::Relaxed);
}

/// The options every distribution constructor's `_with` form takes: PyTorch's
/// `validate_args` (`None`: the default of [`set_default_validate_args`]). A `bool` converts
/// into it.
#[derive(Clone, Copy, Debug, Default)]
pub struct DistOpts {
    /// `validate_args=`.
    pub validate_args: Option<bool>,
}

impl From<bool> for DistOpts {
    fn from(v: bool) -> Self {
        DistOpts {
            validate_args: Some(v),
        }
    }
}

impl From<Option<bool>> for DistOpts {
    fn from(v: Option<bool>) -> Self {
        DistOpts { validate_args: v }
    }
}

impl DistOpts {
    /// The effective flag.
    pub fn validate(&self) -> bool {
        self.validate_args
            .unwrap_or_else(|| VALIDATE_DEFAULT.load(Ordering::Relaxed))
    }
}

/// `Any` for distribution trait objects (what [`kl_divergence`]-style double dispatch
/// downcasts with). Implemented for every `'static` type.
pub trait AsAny {
    /// `self` as `&dyn Any`.
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// `torch.distributions.Distribution`.
///
/// Required: [`name`](Distribution::name), [`params`](Distribution::params),
/// [`arg_constraints`](Distribution::arg_constraints),
/// [`batch_shape`](Distribution::batch_shape), [`support`](Distribution::support),
/// [`expand`](Distribution::expand), [`validate_args`](Distribution::validate_args).
/// Every other method has PyTorch's base-class behaviour as its default: `NotImplementedError`
/// (with PyTorch's text: empty, or `<class '…'> does not implement mode`), `stddev` as
/// `variance.sqrt()`, `sample` as `rsample` under `no_grad`.
pub trait Distribution: AsAny + fmt::Debug + Send + Sync {
    /// The class name (`"Normal"`), as `repr` and the error texts print it.
    fn name(&self) -> &'static str;
    /// The Python module path of the class (`"torch.distributions.normal.Normal"`), for the
    /// `<class '…'> does not implement mode` text.
    fn class_path(&self) -> &'static str;
    /// The parameters held (PyTorch's `arg_constraints` keys present in `__dict__`), in
    /// `arg_constraints` order: what `repr` prints and construction validates.
    fn params(&self) -> Vec<(&'static str, Tensor)>;
    /// `arg_constraints`: the constraint of each parameter, by name.
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)>;
    /// `repr` when the class has its own `__repr__` (`MixtureSameFamily`, `Independent`):
    /// `None` (the default) prints PyTorch's base-class repr of
    /// [`params`](Distribution::params).
    fn custom_repr(&self) -> Option<String> {
        None
    }
    /// `batch_shape`.
    fn batch_shape(&self) -> Vec<usize>;
    /// `event_shape` (default `()`).
    fn event_shape(&self) -> Vec<usize> {
        Vec::new()
    }
    /// `support`: the constraint every sample satisfies.
    fn support(&self) -> Result<Constraint>;
    /// Whether argument validation is on for this instance (`_validate_args`).
    fn validate_args(&self) -> bool;
    /// `has_rsample`: whether [`rsample`](Distribution::rsample) is implemented.
    fn has_rsample(&self) -> bool {
        false
    }
    /// Whether the class derives from PyTorch's `ExponentialFamily` (for
    /// [`kl_divergence`]'s fallback text).
    fn is_exponential_family(&self) -> bool {
        false
    }
    /// `has_enumerate_support`.
    fn has_enumerate_support(&self) -> bool {
        false
    }
    /// `expand(batch_shape)`: the same distribution with its parameters expanded (views) to
    /// `batch_shape`.
    ///
    /// Errors: the expand's (`The expanded size of the tensor (2) must match the existing size
    /// (3) at non-singleton dimension 0.  Target sizes: [2].  Tensor sizes: [3]`).
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>>;
    /// `sample(sample_shape)`: a sample of shape `sample_shape + batch_shape + event_shape`,
    /// drawn from the default generator without recording gradients. Default: `rsample`
    /// under `no_grad`.
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let _g = crate::autograd::no_grad();
        self.rsample(sample_shape)
    }
    /// `rsample(sample_shape)`: a reparameterised sample, differentiable with respect to the
    /// parameters. Default: NotImplementedError (empty text, PyTorch's).
    fn rsample(&self, _sample_shape: &[usize]) -> Result<Tensor> {
        Err(not_implemented())
    }
    /// `log_prob(value)`: the log density or mass at `value`, of shape
    /// `broadcast(value.shape, batch_shape + event_shape)` without the event dims.
    fn log_prob(&self, _value: &Tensor) -> Result<Tensor> {
        Err(not_implemented())
    }
    /// `cdf(value)`. Default: NotImplementedError.
    fn cdf(&self, _value: &Tensor) -> Result<Tensor> {
        Err(not_implemented())
    }
    /// `icdf(value)`: the inverse cdf at probabilities `value`. Default: NotImplementedError.
    fn icdf(&self, _value: &Tensor) -> Result<Tensor> {
        Err(not_implemented())
    }
    /// `entropy()`, of shape `batch_shape`. Default: NotImplementedError.
    fn entropy(&self) -> Result<Tensor> {
        Err(not_implemented())
    }
    /// `mean`, of shape `batch_shape + event_shape`. Default: NotImplementedError.
    fn mean(&self) -> Result<Tensor> {
        Err(not_implemented())
    }
    /// `mode`. Default: NotImplementedError `<class '…'> does not implement mode`.
    fn mode(&self) -> Result<Tensor> {
        Err(Error::new(
            ErrorKind::NotImplementedError,
            format!("<class '{}'> does not implement mode", self.class_path()),
        ))
    }
    /// `variance`. Default: NotImplementedError.
    fn variance(&self) -> Result<Tensor> {
        Err(not_implemented())
    }
    /// `stddev`: `variance.sqrt()` unless the distribution has its own.
    fn stddev(&self) -> Result<Tensor> {
        self.variance()?.sqrt()
    }
    /// `perplexity()`: `exp(entropy())`.
    fn perplexity(&self) -> Result<Tensor> {
        self.entropy()?.exp()
    }
    /// `enumerate_support(expand)`: every value of a discrete support, along a new leading
    /// dim (expanded over the batch dims when `expand`). Default: NotImplementedError.
    fn enumerate_support(&self, _expand: bool) -> Result<Tensor> {
        Err(not_implemented())
    }
}

/// PyTorch's bare `raise NotImplementedError` (empty text).
pub(crate) fn not_implemented() -> Error {
    Error::new(ErrorKind::NotImplementedError, "")
}

/// `repr(distribution)`: `Normal(loc: torch.Size([3]), scale: torch.Size([3]))`, a
/// one-element parameter printed as its value (`Normal(loc: 0.0, scale: 1.0)`,
/// `Normal(loc: tensor([0.]), …)` for shape `(1,)`).
impl fmt::Display for dyn Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&utils::repr(self))
    }
}
