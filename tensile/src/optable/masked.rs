//! The mask ops ([`MaskedId`]): `masked_fill`, `masked_select`, `masked_scatter`, and the
//! in-place `masked_fill_` and `masked_scatter_`.
//!
//! The forward functions are [`crate::ops::masked`]'s (`masked_fill_fwd`, `masked_select_fwd`,
//! `masked_scatter_fwd`, and the unrecorded in-place `masked_fill_raw_` and
//! `masked_scatter_raw_`); the derivatives are formulas of [`crate::autograd::formulas`]. Each
//! method is a [`Call`], the op applied to its operands, whose forward function and derivative
//! are picked by exhaustive matches on it. The in-place forms run their own in-place forward
//! function and are recorded as the out-of-place op of `self`'s previous value.

use crate::autograd::formulas::index::gathered;
use crate::autograd::formulas::index_write::masked_scatter as masked_scatter_node;
use crate::autograd::formulas::pointwise::masked_fill as masked_fill_node;
use crate::autograd::inplace;
use crate::error::Result;
use crate::ops::Operand;
use crate::ops::masked::{masked_fill_fwd, masked_scatter_fwd, masked_select_fwd};
use crate::tensor::Tensor;

op_ids! {
    /// A mask op (see [`crate::OpId`]).
    pub enum MaskedId {
        /// [`Tensor::masked_fill`]
        Fill = "masked_fill" ["masked_fill", "masked_fill_"],
        /// [`Tensor::masked_select`]
        Select = "masked_select" ["masked_select"],
        /// [`Tensor::masked_scatter`]
        Scatter = "masked_scatter" ["masked_scatter", "masked_scatter_"],
    }
}

/// A mask op applied to its operands: what its forward function and its derivative read.
#[derive(Clone, Copy)]
enum Call<'a> {
    /// `(self, mask, value)`.
    Fill(&'a Tensor, &'a Tensor, Operand<'a>),
    /// `(self, mask)`.
    Select(&'a Tensor, &'a Tensor),
    /// `(self, mask, source)`.
    Scatter(&'a Tensor, &'a Tensor, &'a Tensor),
}

impl Call<'_> {
    /// The op's forward function (into a new tensor).
    fn forward(self) -> Result<Tensor> {
        match self {
            Call::Fill(x, mask, value) => masked_fill_fwd(x, mask, value),
            Call::Select(x, mask) => masked_select_fwd(x, mask),
            Call::Scatter(x, mask, source) => masked_scatter_fwd(x, mask, source),
        }
    }

    /// The op's derivative: records `r`, the op's result (when grad mode is on and a tensor
    /// operand requires grad).
    fn derivative(self, r: Tensor) -> Result<Tensor> {
        match self {
            Call::Fill(x, mask, value) => masked_fill_node(r, x, mask, value),
            Call::Select(x, mask) => gathered("MaskedSelectBackward0", r, x, |ids| {
                masked_select_fwd(ids, mask)
            }),
            Call::Scatter(x, mask, source) => masked_scatter_node(r, x, mask, source),
        }
    }

    /// Runs the op into a new tensor and records its node.
    fn call(self) -> Result<Tensor> {
        let r = self.forward()?;
        self.derivative(r)
    }
}

impl Tensor {
    /// `torch.masked_fill(self, mask, value)`: `value` (a number or a 0-d tensor of any
    /// dtype, cast to `self`'s dtype with an overflow check) where `mask` is true, `self`
    /// elsewhere.
    ///
    /// Shapes: `mask` and `self` broadcast together (`mask` is "tensor a"); the output has the
    /// broadcast shape, `self`'s dtype, contiguous strides.
    ///
    /// Errors, in order: `The size of tensor a (3) must match the size of tensor b (4) at
    /// non-singleton dimension 1`; `masked_fill_ only supports a 0-dimensional value tensor,
    /// but got tensor with 1 dimension(s).`; `masked_fill_ only supports boolean masks, but
    /// got mask with dtype unsigned char`; `value cannot be converted to type uint8_t without
    /// overflow`.
    pub fn masked_fill<'a>(&self, mask: &Tensor, value: impl Into<Operand<'a>>) -> Result<Tensor> {
        Call::Fill(self, mask, value.into()).call()
    }

    /// `self.masked_fill_(mask, value)`: `value` written where `mask` (broadcast to `self`'s
    /// shape) is true, through views into the base. Returns `self`. On an expanded `self`
    /// (stride 0), as PyTorch, every storage element a masked position reaches is written
    /// (with the warning `Use of masked_fill_ on expanded tensors is deprecated. …`).
    ///
    /// Errors, in order: `masked_fill_ only supports a 0-dimensional value tensor, but got
    /// tensor with 1 dimension(s).`; `masked_fill_ only supports boolean masks, but got mask
    /// with dtype unsigned char`; `The size of tensor a (3) must match the size of tensor b
    /// (4) at non-singleton dimension 1` (`self` is a); `output with shape [3, 4] doesn't
    /// match the broadcast shape [2, 3, 4]`; `value cannot be converted to type uint8_t
    /// without overflow`.
    pub fn masked_fill_<'a>(&self, mask: &Tensor, value: impl Into<Operand<'a>>) -> Result<Tensor> {
        let value = value.into();
        let vt = value.as_tensor();
        inplace(
            self,
            &[&vt],
            || self.masked_fill_raw_(mask, value),
            |old| Call::Fill(old, mask, value).call(),
        )
    }

    /// `torch.masked_select(self, mask)`: the elements of `self` where `mask` is true, both
    /// broadcast together (`mask` is "tensor a"), in row-major order of the broadcast shape.
    ///
    /// Shapes: a 1-d contiguous output of `self`'s dtype.
    ///
    /// Errors: `masked_select: expected BoolTensor for mask`; the broadcast error.
    pub fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        Call::Select(self, mask).call()
    }

    /// `torch.masked_scatter(self, mask, source)`: a copy of `self` where the positions with
    /// `mask` true, in row-major order, take consecutive elements of `source` (flattened).
    ///
    /// Shapes: `self` and `mask` broadcast (`mask` is "tensor a"; a larger mask grows the
    /// result); output contiguous, `self`'s dtype. Errors as [`Tensor::masked_scatter_`],
    /// after the broadcast error.
    pub fn masked_scatter(&self, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
        Call::Scatter(self, mask, source).call()
    }

    /// `self.masked_scatter_(mask, source)`: [`Tensor::masked_scatter`] in place; `mask` must
    /// expand to `self`'s shape. Returns `self`.
    ///
    /// Errors, in order: `masked_scatter: expected self and source to have same dtypes but
    /// gotFloat and Long` (sic); `masked_scatter_ only supports boolean masks, but got mask
    /// with dtype Byte`; the expand errors (`expand(CPUBoolType{[2, 4]}, size=[4]): the number
    /// of sizes provided (1) must be greater or equal to the number of dimensions in the tensor
    /// (2)`); `Number of elements of source < number of ones in mask`.
    pub fn masked_scatter_(&self, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
        inplace(
            self,
            &[source],
            || self.masked_scatter_raw_(mask, source),
            |old| Call::Scatter(old, mask, source).call(),
        )
    }
}
