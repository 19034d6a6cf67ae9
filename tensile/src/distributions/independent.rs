//! `torch.distributions.Independent`.

use crate::Tensor;
use crate::error::{Error, ErrorKind, Result};

use super::transforms::sum_rightmost;
use super::{Constraint, DistOpts, Distribution};

/// `torch.distributions.Independent(base_distribution, reinterpreted_batch_ndims)`: the same
/// distribution with the rightmost `reinterpreted_batch_ndims` batch dims of `base` read as
/// event dims (`batch_shape` the rest, `event_shape` those dims + `base.event_shape`).
///
/// No parameters (`arg_constraints` empty; `repr` is `Independent(<base repr>, n)`); support
/// `IndependentConstraint(base support, n)` (the base's when `n == 0`); `has_rsample` the
/// base's. `sample`/`rsample` are the base's (the same draws); `log_prob` and `entropy` the
/// base's summed over the reinterpreted dims; `mean`, `mode`, `variance` the base's;
/// `cdf`/`icdf` NotImplementedError (empty text), as in PyTorch.
#[derive(Debug)]
pub struct Independent {
    /// `base_dist`.
    pub base_dist: Box<dyn Distribution>,
    /// `reinterpreted_batch_ndims`.
    pub reinterpreted_batch_ndims: usize,
    batch_shape: Vec<usize>,
    event_shape: Vec<usize>,
    validate: bool,
}

impl Independent {
    /// `Independent(base, n)`; see [`Independent::new_with`].
    pub fn new(base: Box<dyn Distribution>, reinterpreted_batch_ndims: usize) -> Result<Self> {
        Independent::new_with(base, reinterpreted_batch_ndims, DistOpts::default())
    }

    /// `Independent(base, n, validate_args=…)`.
    ///
    /// Errors: ValueError `Expected reinterpreted_batch_ndims <=
    /// len(base_distribution.batch_shape), actual 2 vs 1`.
    pub fn new_with(
        base: Box<dyn Distribution>,
        reinterpreted_batch_ndims: usize,
        opts: impl Into<DistOpts>,
    ) -> Result<Self> {
        let bs = base.batch_shape();
        if reinterpreted_batch_ndims > bs.len() {
            return Err(Error::new(
                ErrorKind::ValueError,
                format!(
                    "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual {reinterpreted_batch_ndims} vs {}",
                    bs.len()
                ),
            ));
        }
        let mut shape = bs;
        shape.extend(base.event_shape());
        let event_dim = reinterpreted_batch_ndims + base.event_shape().len();
        let cut = shape.len() - event_dim;
        Ok(Independent {
            batch_shape: shape[..cut].to_vec(),
            event_shape: shape[cut..].to_vec(),
            base_dist: base,
            reinterpreted_batch_ndims,
            validate: opts.into().validate(),
        })
    }
}

impl Distribution for Independent {
    fn name(&self) -> &'static str {
        "Independent"
    }
    fn class_path(&self) -> &'static str {
        "torch.distributions.independent.Independent"
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
        let s = self.base_dist.support()?;
        Ok(if self.reinterpreted_batch_ndims > 0 {
            Constraint::Independent(Box::new(s), self.reinterpreted_batch_ndims)
        } else {
            s
        })
    }
    fn validate_args(&self) -> bool {
        self.validate
    }
    fn has_rsample(&self) -> bool {
        self.base_dist.has_rsample()
    }
    fn has_enumerate_support(&self) -> bool {
        self.reinterpreted_batch_ndims == 0 && self.base_dist.has_enumerate_support()
    }
    fn custom_repr(&self) -> Option<String> {
        Some(format!(
            "Independent({}, {})",
            super::utils::repr(&*self.base_dist),
            self.reinterpreted_batch_ndims
        ))
    }
    fn expand(&self, batch_shape: &[usize]) -> Result<Box<dyn Distribution>> {
        let mut base_shape = batch_shape.to_vec();
        base_shape.extend_from_slice(&self.event_shape[..self.reinterpreted_batch_ndims]);
        Ok(Box::new(Independent {
            base_dist: self.base_dist.expand(&base_shape)?,
            reinterpreted_batch_ndims: self.reinterpreted_batch_ndims,
            batch_shape: batch_shape.to_vec(),
            event_shape: self.event_shape.clone(),
            validate: self.validate,
        }))
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.base_dist.sample(sample_shape)
    }
    fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor> {
        self.base_dist.rsample(sample_shape)
    }
    fn log_prob(&self, value: &Tensor) -> Result<Tensor> {
        let lp = self.base_dist.log_prob(value)?;
        sum_rightmost(&lp, self.reinterpreted_batch_ndims as isize)
    }
    fn entropy(&self) -> Result<Tensor> {
        let e = self.base_dist.entropy()?;
        sum_rightmost(&e, self.reinterpreted_batch_ndims as isize)
    }
    fn mean(&self) -> Result<Tensor> {
        self.base_dist.mean()
    }
    fn mode(&self) -> Result<Tensor> {
        self.base_dist.mode()
    }
    fn variance(&self) -> Result<Tensor> {
        self.base_dist.variance()
    }
    /// Errors: NotImplementedError `Enumeration over cartesian product is not implemented`
    /// when `reinterpreted_batch_ndims > 0`; the base's otherwise.
    fn enumerate_support(&self, expand: bool) -> Result<Tensor> {
        if self.reinterpreted_batch_ndims > 0 {
            return Err(Error::new(
                ErrorKind::NotImplementedError,
                "Enumeration over cartesian product is not implemented",
            ));
        }
        self.base_dist.enumerate_support(expand)
    }
}
