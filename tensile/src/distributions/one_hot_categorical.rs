//! `torch.distributions.OneHotCategorical`.

use crate::Tensor;
use crate::error::Result;

use super::discrete::check_param;
use super::utils::{shape_i64, validate_sample};
use super::{Categorical, Constraint, DistOpts, Distribution, constraints};

/// `torch.distributions.OneHotCategorical(probs=…, logits=…)`: a [`Categorical`]'s outcome
/// as a one-hot vector of length `K`. `batch_shape` is the categorical's, `event_shape`
/// `(K,)`.
///
/// As in PyTorch, the inner `Categorical(probs, logits)` is built with the *default*
/// validation (so its errors, with its repr, come first whatever `validate_args` says), and
/// `repr` prints no parameter (`OneHotCategorical()`): `probs` and `logits` are plain
/// properties here, and validation computes and checks both.
///
/// `arg_constraints`: `probs` `Simplex()`, `logits` `IndependentConstraint(Real(), 1)`;
/// support `OneHot()`; `has_enumerate_support`. Samples have the parameter's dtype;
/// `sample` draws exactly as the categorical's and one-hot encodes the indices.
#[derive(Clone, Debug)]
pub struct OneHotCategorical {
    cat: Categorical,
    validate: bool,
}

impl OneHotCategorical {
    /// `OneHotCategorical(probs, logits)` with exactly one of them `Some`.
    ///
    /// Errors: [`Categorical::new`]'s; ValueError `Expected parameter probs (Tensor of shape
    /// (3,)) of distribution OneHotCategorical() to satisfy the constraint Simplex(), but
    /// found invalid values:\n…` (`logits`' too) when the inner categorical did not validate.
    pub fn new(probs: Option<&Tensor>, logits: Option<&Tensor>) -> Result<OneHotCategorical> {
        OneHotCategorical::new_with(probs, logits, DistOpts::default())
    }

    /// `OneHotCategorical(probs, logits, validate_args=…)`; see [`OneHotCategorical::new`].
    pub fn new_with(
        probs: Option<&Tensor>,
        logits: Option<&Tensor>,
        opts: impl Into<DistOpts>,
    ) -> Result<OneHotCategorical> {
        let cat = Categorical::new(probs, logits)?;
        let d = OneHotCategorical {
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

    /// The inner [`Categorical`] (`_categorical`).
    pub fn categorical(&self) -> &Categorical {
        &self.cat
    }

    /// `probs`: the categorical's.
    ///
    /// Errors: none in practice (the ops' own).
    pub fn probs(&self) -> Result<Tensor> {
        self.cat.probs()
    }

    /// `logits`: the categorical's.
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

impl Distribution for OneHotCategorical {
    fn name(&self) -> &'static str {
        "OneHotCategorical"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.one_hot_categorical.OneHotCategorical"
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
        Ok(Constraint::OneHot)
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_enumerate_support(&self) -> bool {
        true
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        Ok(Box::new(OneHotCategorical {
            cat: self.cat.expand_cat(batch_shape)?,
            validate: self.validate,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let probs = self.probs()?;
        let indices = self.cat.sample(sample_shape)?;
        crate::nn::functional::one_hot_with(&indices, self.cat.num_events() as i64)?
            .to(probs.dtype())
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, value)?;
        }
        let indices = value.max_dim(-1, false)?.1;
        self.cat.log_prob(&indices)
    }
    fn entropy(&self) -> Result<Tensor> {
        self.cat.entropy()
    }
    fn mean(&self) -> Result<Tensor> {
        self.probs()
    }
    fn mode(&self) -> Result<Tensor> {
        let probs = self.probs()?;
        let mode = probs.argmax_dim(-1, false)?;
        crate::nn::functional::one_hot_with(&mode, self.cat.num_events() as i64)?.to(probs.dtype())
    }
    fn variance(&self) -> Result<Tensor> {
        let probs = self.probs()?;
        probs.mul(&probs.neg()?.add(1)?)
    }
    fn enumerate_support(&self, expand: bool) -> Result<Tensor> {
        let n = self.cat.num_events();
        let values = Tensor::eye_with(n as i64, self.cat.param().dtype())?;
        let batch = self.batch_shape();
        let mut view = vec![n as i64];
        view.extend(std::iter::repeat_n(1, batch.len()));
        view.push(n as i64);
        let values = values.view(&view)?;
        if expand {
            let mut s = vec![n as i64];
            s.extend(shape_i64(&batch));
            s.push(n as i64);
            values.expand(&s)
        } else {
            Ok(values)
        }
    }
}
