//! `torch.distributions.MixtureSameFamily`.

use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

use super::utils::{shape_i64, size_str, validate_sample};
use super::{Categorical, Constraint, DistOpts, Distribution};

/// `torch.distributions.MixtureSameFamily(mixture_distribution, component_distribution)`:
/// a mixture of `k` components of one family. The component distribution has
/// `batch_shape` `B + (k,)`; the mixture weights are a [`Categorical`] over `k` of a batch
/// shape compatible with `B` (trailing sizes equal or 1). `batch_shape` is `B`,
/// `event_shape` the component's.
///
/// No `arg_constraints`; support `MixtureSameFamilyConstraint(<component support>)`; no
/// `rsample`. `sample(shape)` draws, without gradients and in PyTorch's order, the
/// mixture's categorical sample of `shape` and then the component's full sample of `shape`,
/// and gathers each draw's chosen component. `mean`, `variance`, `cdf` and `log_prob`
/// (`logsumexp` of the component log-densities plus `log_softmax` of the logits) are
/// PyTorch's formulas; `entropy` and `mode` are not implemented (PyTorch's
/// NotImplementedError). `repr` is PyTorch's: `MixtureSameFamily(\n  Categorical(…),\n
/// Normal(…))`.
#[derive(Debug)]
pub struct MixtureSameFamily {
    mixture: Categorical,
    component: Box<dyn Distribution>,
    num_component: usize,
    batch_shape: Vec<usize>,
    validate: bool,
}

impl MixtureSameFamily {
    /// `MixtureSameFamily(mixture_distribution, component_distribution)`; see
    /// [`MixtureSameFamily::new_with`].
    pub fn new(
        mixture: Categorical,
        component: Box<dyn Distribution>,
    ) -> Result<MixtureSameFamily> {
        MixtureSameFamily::new_with(mixture, component, DistOpts::default())
    }

    /// `MixtureSameFamily(mixture_distribution, component_distribution, validate_args=…)`.
    /// (PyTorch's type checks of the two arguments are the types here.)
    ///
    /// Errors: ValueError `` `mixture_distribution.batch_shape` (torch.Size([3])) is not
    /// compatible with `component_distribution.batch_shape`(torch.Size([2])) ``; IndexError
    /// `tuple index out of range` (a component with no batch dims); ValueError ``
    /// `mixture_distribution component` (3) does not equal
    /// `component_distribution.batch_shape[-1]` (2) ``.
    pub fn new_with(
        mixture: Categorical,
        component: Box<dyn Distribution>,
        opts: impl Into<DistOpts>,
    ) -> Result<MixtureSameFamily> {
        let mdbs = mixture.batch_shape();
        let cbs = component.batch_shape();
        let cdbs = cbs[..cbs.len().saturating_sub(1)].to_vec();
        for (s1, s2) in mdbs.iter().rev().zip(cdbs.iter().rev()) {
            if *s1 != 1 && *s2 != 1 && s1 != s2 {
                return Err(Error::new(
                    ErrorKind::ValueError,
                    format!(
                        "`mixture_distribution.batch_shape` ({}) is not compatible with `component_distribution.batch_shape`({})",
                        size_str(&mdbs),
                        size_str(&cdbs)
                    ),
                ));
            }
        }
        let logits = mixture.logits()?;
        let km = logits.size()[logits.dim() - 1];
        let Some(&kc) = cbs.last() else {
            return Err(Error::new(
                ErrorKind::IndexError,
                "tuple index out of range",
            ));
        };
        if km != kc {
            return Err(Error::new(
                ErrorKind::ValueError,
                format!(
                    "`mixture_distribution component` ({km}) does not equal `component_distribution.batch_shape[-1]` ({kc})"
                ),
            ));
        }
        Ok(MixtureSameFamily {
            mixture,
            component,
            num_component: km,
            batch_shape: cdbs,
            validate: opts.into().validate(),
        })
    }

    /// `mixture_distribution`.
    pub fn mixture_distribution(&self) -> &Categorical {
        &self.mixture
    }

    /// `component_distribution`.
    pub fn component_distribution(&self) -> &dyn Distribution {
        &*self.component
    }

    fn event_ndims(&self) -> usize {
        self.component.event_shape().len()
    }

    /// `_pad(x)`: `x.unsqueeze(-1 - event_ndims)`.
    fn pad(&self, x: &Tensor) -> Result<Tensor> {
        x.unsqueeze(-1 - self.event_ndims() as i64)
    }

    /// `_pad_mixture_dimensions(x)`.
    fn pad_mixture_dimensions(&self, x: &Tensor) -> Result<Tensor> {
        let dist_batch_ndims = self.batch_shape.len();
        let cat_batch_ndims = self.mixture.batch_shape().len();
        let pad = if cat_batch_ndims == 1 {
            0
        } else {
            dist_batch_ndims - cat_batch_ndims
        };
        let xs = x.size();
        let mut s = shape_i64(&xs[..xs.len() - 1]);
        s.extend(std::iter::repeat_n(1, pad));
        s.push(xs[xs.len() - 1] as i64);
        s.extend(std::iter::repeat_n(1, self.event_ndims()));
        x.reshape(&s[..])
    }
}

impl Distribution for MixtureSameFamily {
    fn name(&self) -> &'static str {
        "MixtureSameFamily"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.mixture_same_family.MixtureSameFamily"
    }
    fn params(&self) -> Vec<(&'static str, Tensor)> {
        Vec::new()
    }
    fn arg_constraints(&self) -> Vec<(&'static str, Constraint)> {
        Vec::new()
    }
    fn custom_repr(&self) -> Option<String> {
        Some(format!(
            "MixtureSameFamily(\n  {},\n  {})",
            super::utils::repr(&self.mixture),
            super::utils::repr(&*self.component)
        ))
    }
    fn batch_shape(&self) -> Vec<usize> {
        self.batch_shape.clone()
    }
    fn event_shape(&self) -> Vec<usize> {
        self.component.event_shape()
    }
    fn support(&self) -> Result<Constraint> {
        Ok(Constraint::MixtureSameFamily(Box::new(
            self.component.support()?,
        )))
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let mut comp_shape = batch_shape.to_vec();
        comp_shape.push(self.num_component);
        Ok(Box::new(MixtureSameFamily {
            mixture: self.mixture.expand_cat(batch_shape)?,
            component: self.component.expand(&comp_shape)?,
            num_component: self.num_component,
            batch_shape: batch_shape.to_vec(),
            validate: self.validate,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        let _g = crate::autograd::no_grad();
        let gather_dim = (sample_shape.len() + self.batch_shape.len()) as i64;
        let es = self.event_shape();
        let mix_sample = self.mixture.sample(sample_shape)?;
        let mix_shape = mix_sample.size().to_vec();
        let comp_samples = self.component.sample(sample_shape)?;
        let mut r = shape_i64(&mix_shape);
        r.extend(std::iter::repeat_n(1, es.len() + 1));
        let mut rep = vec![1i64; mix_shape.len() + 1];
        rep.extend(shape_i64(&es));
        let idx = mix_sample.reshape(&r[..])?.repeat(&rep[..])?;
        comp_samples
            .gather(gather_dim, &idx)?
            .squeeze_dim(gather_dim)
    }
    fn log_prob(&self, x: &Tensor) -> Result<Tensor> {
        if self.validate {
            validate_sample(self, x)?;
        }
        let x = self.pad(x)?;
        let log_prob_x = self.component.log_prob(&x)?;
        let log_mix_prob = self.mixture.logits()?.log_softmax(-1)?;
        log_prob_x.add(&log_mix_prob)?.logsumexp_dim(-1, false)
    }
    fn cdf(&self, x: &Tensor) -> Result<Tensor> {
        let x = self.pad(x)?;
        let cdf_x = self.component.cdf(&x)?;
        cdf_x.mul(&self.mixture.probs()?)?.sum_dim(-1, false)
    }
    fn mean(&self) -> Result<Tensor> {
        let probs = self.pad_mixture_dimensions(&self.mixture.probs()?)?;
        probs
            .mul(&self.component.mean()?)?
            .sum_dim(-1 - self.event_ndims() as i64, false)
    }
    fn variance(&self) -> Result<Tensor> {
        let probs = self.pad_mixture_dimensions(&self.mixture.probs()?)?;
        let d = -1 - self.event_ndims() as i64;
        let mean_cond_var = probs.mul(&self.component.variance()?)?.sum_dim(d, false)?;
        let dev = self.component.mean()?.sub(&self.pad(&self.mean()?)?)?;
        let var_cond_mean = probs.mul(&dev.pow(2.0)?)?.sum_dim(d, false)?;
        mean_cond_var.add(&var_cond_mean)
    }
}
