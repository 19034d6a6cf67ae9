//! `softmax` and `log_softmax` over one dim: one row each in [`SoftmaxId`] (forward function
//! [`crate::ops::softmax::softmax_raw`], derivative
//! [`crate::autograd::formulas::reduce::softmax`]).

use crate::args::Int;
use crate::autograd::formulas::reduce;
use crate::autograd::no_grad;
use crate::error::Result;
use crate::ops::softmax::softmax_raw;
use crate::tensor::Tensor;

op_ids! {
    /// `softmax` or `log_softmax` (see [`crate::OpId`]).
    pub enum SoftmaxId {
        /// [`Tensor::softmax`]
        Softmax = "softmax" ["softmax"],
        /// [`Tensor::log_softmax`]
        LogSoftmax = "log_softmax" ["log_softmax"],
    }
}

impl SoftmaxId {
    /// Whether the op is `log_softmax` (the forward function's and the formula's flag).
    fn log(self) -> bool {
        match self {
            SoftmaxId::Softmax => false,
            SoftmaxId::LogSoftmax => true,
        }
    }

    /// Runs the op on `x` along `dim` and records its node (`SoftmaxBackward0`,
    /// `LogSoftmaxBackward0`).
    pub(crate) fn call(self, x: &Tensor, dim: i64) -> Result<Tensor> {
        let r = {
            let _ng = no_grad();
            softmax_raw(x, dim, self.log())?
        };
        reduce::softmax(r, x, dim, self.log())
    }
}

impl Tensor {
    /// `torch.softmax(self, dim)`: `exp(x - max) / sum(exp(x - max))` along `dim`.
    ///
    /// Shape: same as `self`, contiguous output. Floats only (integers give
    /// `"softmax_lastdim_kernel_impl" not implemented for 'Long'`); dim errors as `wrap_dim`.
    pub fn softmax(&self, dim: impl Int) -> Result<Tensor> {
        SoftmaxId::Softmax.call(self, dim.to_i64())
    }

    /// `torch.log_softmax(self, dim)`: `x - max - log(sum(exp(x - max)))` along `dim`.
    /// Shapes and errors as [`Tensor::softmax`].
    pub fn log_softmax(&self, dim: impl Int) -> Result<Tensor> {
        SoftmaxId::LogSoftmax.call(self, dim.to_i64())
    }
}
