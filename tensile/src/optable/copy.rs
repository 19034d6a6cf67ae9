//! The copies and casts ([`CopyId`]): `copy_`, `fill_`, `to`, `contiguous` (and
//! `contiguous_channels_last`), `clone` (`try_clone`).
//!
//! The forward functions are [`crate::ops::copy`]'s (`to_fwd`, `contiguous_fwd`,
//! `channels_last_fwd`, `clone_preserve`, and the unrecorded in-place `copy_raw_` and
//! `fill_raw_`). A copy that returns its input (`to` of the same dtype, `contiguous` of a
//! contiguous tensor) records nothing; the others are recorded as a [`Call`] picks by an
//! exhaustive match: `ToCopyBackward0` or `CloneBackward0`, the gradient passing through.
//! `copy_` and `fill_` are in-place ops of their own (`CopyBackwards`, `FillBackward2`).

use crate::autograd::formulas::pointwise::{copy_node, zero_node};
use crate::autograd::formulas::views::copy_like;
use crate::autograd::inplace;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::copy::{channels_last_fwd, clone_preserve, contiguous_fwd, to_fwd};
use crate::tensor::{Scalar, Tensor};

op_ids! {
    /// A copy or cast (see [`crate::OpId`]).
    pub enum CopyId {
        /// [`Tensor::copy_`]
        Copy = "copy_" ["copy_"],
        /// [`Tensor::fill_`]
        Fill = "fill_" ["fill_"],
        /// [`Tensor::to`]
        To = "to" ["to"],
        /// [`Tensor::try_contiguous`] and [`Tensor::contiguous_channels_last`]
        Contiguous = "contiguous" ["try_contiguous", "contiguous_channels_last"],
        /// [`Tensor::try_clone`]
        Clone = "clone" ["try_clone"],
    }
}

/// A copying op applied to its operand: what its forward function and its derivative read.
#[derive(Clone, Copy)]
enum Call<'a> {
    /// `self.to(dtype)`.
    To(&'a Tensor, DType),
    /// `self.contiguous()`.
    Contiguous(&'a Tensor),
    /// `self.contiguous(memory_format=torch.channels_last)`.
    ChannelsLast(&'a Tensor),
    /// `self.clone()`.
    Clone(&'a Tensor),
}

impl Call<'_> {
    /// The op's forward function: the copy, or `None` when the op returns its input.
    fn forward(self) -> Result<Option<Tensor>> {
        match self {
            Call::To(x, dtype) => to_fwd(x, dtype),
            Call::Contiguous(x) => contiguous_fwd(x),
            Call::ChannelsLast(x) => channels_last_fwd(x),
            Call::Clone(x) => clone_preserve(x).map(Some),
        }
    }

    /// The op's derivative: records `r`, the copy of `x` (the gradient passes through, cast
    /// back by the engine).
    fn derivative(self, r: Tensor) -> Result<Tensor> {
        match self {
            Call::To(x, _) => copy_like("ToCopyBackward0", r, x),
            Call::Contiguous(x) | Call::ChannelsLast(x) | Call::Clone(x) => {
                copy_like("CloneBackward0", r, x)
            }
        }
    }

    /// Runs the op: its input itself (an alias, nothing recorded), or the copy, recorded.
    fn call(self) -> Result<Tensor> {
        match self.forward()? {
            Some(r) => self.derivative(r),
            None => match self {
                Call::To(x, _) | Call::Contiguous(x) | Call::ChannelsLast(x) | Call::Clone(x) => {
                    Ok(x.alias())
                }
            },
        }
    }
}

impl Tensor {
    /// `self.copy_(src)`: copies `src` into `self`, broadcasting `src` to `self`'s shape and
    /// casting to `self`'s dtype. Returns `self` (an alias).
    ///
    /// Errors, in PyTorch's order: the two memory-overlap errors (`unsupported operation: …`);
    /// `The size of tensor a (4) must match the size of tensor b (12) at non-singleton dimension 1`;
    /// `output with shape [3, 1] doesn't match the broadcast shape [3, 4]`.
    pub fn copy_(&self, src: &Tensor) -> Result<Tensor> {
        inplace(
            self,
            &[src],
            || self.copy_raw_(src),
            |old| copy_node(old, src),
        )
    }

    /// `self.fill_(value)`: writes `value` into every element of `self` (through views, into
    /// the base). Returns `self`.
    ///
    /// An expanded `self` is allowed, as in PyTorch (which skips the overlap check for
    /// `fill_`): every storage element it reaches gets the value. (The expanded dims are
    /// written once, through a view where they have size 1, so no element is written twice.)
    ///
    /// Error: `value cannot be converted to type uint8_t without overflow` when the value is
    /// out of the dtype's range.
    pub fn fill_(&self, value: impl Into<Scalar>) -> Result<Tensor> {
        let value = value.into();
        inplace(
            self,
            &[],
            || self.fill_raw_(value),
            |old| zero_node("FillBackward2", old),
        )
    }

    /// `self.to(dtype)`: `self` itself (an alias) when the dtype is unchanged, otherwise a copy
    /// with preserve-format strides, cast as PyTorch casts (floats to ints truncate; anything
    /// non-zero to bool is `true`).
    pub fn to(&self, dtype: DType) -> Result<Tensor> {
        Call::To(self, dtype).call()
    }

    /// As [`Tensor::contiguous`], with PyTorch's allocator error instead of an abort:
    /// `[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes. Error code 12 (Cannot allocate memory)`,
    /// or `Storage size calculation overflowed with sizes=[…]`.
    pub fn try_contiguous(&self) -> Result<Tensor> {
        Call::Contiguous(self).call()
    }

    /// `self.clone()` (preserve format) with PyTorch's allocator error instead of the abort of
    /// `Clone::clone`; errors as [`Tensor::try_contiguous`].
    pub fn try_clone(&self) -> Result<Tensor> {
        Call::Clone(self).call()
    }

    /// `self.contiguous(memory_format=torch.channels_last)`: a 4-d tensor with channels-last
    /// strides (`self` when already so).
    ///
    /// Error: `required rank 4 tensor to use channels_last format`.
    pub fn contiguous_channels_last(&self) -> Result<Tensor> {
        Call::ChannelsLast(self).call()
    }
}
