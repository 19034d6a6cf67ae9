//! `torch.distributions.Categorical`.

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, ErrorKind, Result};

use super::discrete::{ProbsLogits, either_error};
use super::utils::{self, extended_shape, shape_i64, validate_sample};
use super::{Bound, Constraint, DistOpts, Distribution, constraints};

/// `torch.distributions.Categorical(probs=…, logits=…)`: integers `0..K` (`K =
/// probs.size(-1)`) drawn with the given relative probabilities. Exactly one of `probs`
/// (non-negative weights, normalised to sum to 1 along the last dim) and `logits`
/// (unnormalised log-probabilities, normalised by subtracting their `logsumexp`) is given;
/// the other is computed on first use and cached (PyTorch's `lazy_property`).
/// `batch_shape` is the parameter's shape without its last dim; `event_shape` `()`.
///
/// `arg_constraints`: `probs` `Simplex()`, `logits` `IndependentConstraint(Real(), 1)`;
/// support `IntegerInterval(lower_bound=0, upper_bound=K - 1)`; `has_enumerate_support`.
/// Samples are int64. `sample(shape)` is `torch.multinomial(probs.reshape(-1, K),
/// shape.numel(), True).T` reshaped: PyTorch's stream (one exponential per weight for a
/// single sample, else the cumulative-sum search with one uniform double per draw).
#[derive(Clone, Debug)]
pub struct Categorical {
    p: ProbsLogits,
    num_events: usize,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl Categorical {
    /// `Categorical(probs, logits)` with exactly one of them `Some`, validating the
    /// arguments unless [`set_default_validate_args(false)`](super::set_default_validate_args).
    ///
    /// Errors (ValueError): `Either `probs` or `logits` must be specified, but not both.`;
    /// ``probs` parameter must be at least one-dimensional.` (and `logits`'); `Expected
    /// parameter probs (Tensor of shape (3,)) of distribution Categorical(probs:
    /// torch.Size([3])) to satisfy the constraint Simplex(), but found invalid values:\n…`
    /// (of the normalised probs), and `logits`' with `IndependentConstraint(Real(), 1)`.
    pub fn new(probs: Option<&Tensor>, logits: Option<&Tensor>) -> Result<Categorical> {
        Categorical::new_with(probs, logits, DistOpts::default())
    }

    /// `Categorical(probs=probs)`; see [`Categorical::new`].
    pub fn from_probs(probs: &Tensor) -> Result<Categorical> {
        Categorical::new(Some(probs), None)
    }

    /// `Categorical(logits=logits)`; see [`Categorical::new`].
    pub fn from_logits(logits: &Tensor) -> Result<Categorical> {
        Categorical::new(None, Some(logits))
    }

    /// `Categorical(probs, logits, validate_args=…)`; see [`Categorical::new`].
    pub fn new_with(
        probs: Option<&Tensor>,
        logits: Option<&Tensor>,
        opts: impl Into<DistOpts>,
    ) -> Result<Categorical> {
        let p = match (probs, logits) {
            (Some(p), None) => {
                if p.dim() < 1 {
                    return Err(Error::new(
                        ErrorKind::ValueError,
                        "`probs` parameter must be at least one-dimensional.",
                    ));
                }
                ProbsLogits::new(p.div(&p.sum_dim(-1, true)?)?, true, false)
            }
            (None, Some(l)) => {
                if l.dim() < 1 {
                    return Err(Error::new(
                        ErrorKind::ValueError,
                        "`logits` parameter must be at least one-dimensional.",
                    ));
                }
                ProbsLogits::new(l.sub(&l.logsumexp_dim(-1, true)?)?, false, false)
            }
            _ => return Err(either_error()),
        };
        let size = p.param().size().to_vec();
        let num_events = size[size.len() - 1];
        let batch_shape = if size.len() > 1 {
            size[..size.len() - 1].to_vec()
        } else {
            Vec::new()
        };
        let d = Categorical {
            p,
            num_events,
            batch_shape,
            validate: opts.into().validate(),
        };
        utils::validate_params(&d)?;
        Ok(d)
    }

    /// `probs`: the normalised probabilities (`softmax(logits, -1)` when built from logits).
    ///
    /// Errors: none in practice (the ops' own).
    pub fn probs(&self) -> Result<Tensor> {
        self.p.probs()
    }

    /// `logits`: the normalised log-probabilities (`log` of the clamped probs when built
    /// from probs).
    ///
    /// Errors: none in practice (the ops' own).
    pub fn logits(&self) -> Result<Tensor> {
        self.p.logits()
    }

    /// `param_shape`: the shape of the given parameter (`batch_shape + (K,)`).
    pub fn param_shape(&self) -> Vec<usize> {
        self.p.param().size().to_vec()
    }

    /// `_num_events`: `K`.
    pub fn num_events(&self) -> usize {
        self.num_events
    }

    pub(crate) fn param(&self) -> &Tensor {
        self.p.param()
    }

    fn nan_full(&self) -> Result<Tensor> {
        let probs = self.probs()?;
        Tensor::full_with(&extended_shape(self, &[])[..], f64::NAN, probs.dtype())
    }
}

impl Distribution for Categorical {
    fn name(&self) -> &'static str {
        "Categorical"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.categorical.Categorical"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        self.p.present()
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        vec![
            ("probs", Constraint::Simplex),
            ("logits", constraints::real_vector()),
        ]
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::IntegerInterval(
            Bound::Int(0),
            Bound::Int(self.num_events as i64 - 1),
        ))
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_enumerate_support(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(self.expand_cat(batch_shape)?))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let n: usize = sample_shape.iter().product();
        let probs_2d = self.probs()?.reshape([-1, self.num_events as i64])?;
        let samples_2d = probs_2d.multinomial_with(n as i64, true)?.mT()?;
        samples_2d.reshape(&shape_i64(&extended_shape(self, sample_shape))[..])
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let value = value.to(DType::Int64)?.unsqueeze(-1)?;
        let logits = self.logits()?;
        let b = crate::broadcast_tensors(&[&value, &logits])?;
        let value = b[0].narrow(-1, 0, 1)?;
        b[1].gather(-1, &value)?.squeeze_dim(-1)
    }
    fn entropy(&self) -> Result<Tensor> {
        let logits = self.logits()?;
        let min_real = logits.dtype().finfo()?.min;
        let logits = logits.clamp_min(min_real)?;
        logits.mul(&self.probs()?)?.sum_dim(-1, false)?.neg()
    }
    fn mean(&self) -> Result<Tensor> {
        self.nan_full()
    }
    fn mode(&self) -> Result<Tensor> {
        self.probs()?.argmax_dim(-1, false)
    }
    fn variance(&self) -> Result<Tensor> {
        self.nan_full()
    }
    fn enumerate_support(&self, expand: bool) -> Result<Tensor> {
        let values = Tensor::arange_with(self.num_events as i64, DType::Int64)?;
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

impl Categorical {
    /// `expand(batch_shape)` as a `Categorical`.
    pub(crate) fn expand_cat(&self, batch_shape: &[usize]) -> Result<Categorical> {
        let mut param_shape = batch_shape.to_vec();
        param_shape.push(self.num_events);
        Ok(Categorical {
            p: self.p.expand(&param_shape)?,
            num_events: self.num_events,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        })
    }
}
