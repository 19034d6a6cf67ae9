//! The pointwise ops of three operands ([`TernaryId`]): `torch.where`, `lerp`, `addcmul`,
//! `addcdiv`, and `clamp` (`clip`, `clamp_min`, `clamp_max`) with number or tensor bounds,
//! with their in-place forms.
//!
//! The forward functions are [`crate::ops::ternary::where_fwd`] and
//! [`crate::ops::math_ternary`]'s `lerp_impl`, `addc_impl` and `clamp_raw` (each also runs in
//! place); the derivatives are formulas of [`crate::autograd::formulas::pointwise`]
//! (`addcdiv`'s is in `binary_math`). The ops' signatures differ, so the methods are written
//! by hand, each one a [`Call`]: the op applied to its operands, whose forward function and
//! derivative are picked by exhaustive matches on it (a `Call` names its op's [`TernaryId`]).
//! An in-place form runs the forward function into `self` and is recorded as the
//! out-of-place op of `self`'s previous value.

use crate::autograd::formulas::binary_math::addcdiv as addcdiv_node;
use crate::autograd::formulas::pointwise::{
    addcmul as addcmul_node, clamp as clamp_node, clamp_named, lerp as lerp_node,
    where_ as where_node,
};
use crate::autograd::{inplace, no_grad};
use crate::error::Result;
use crate::ops::Operand;
use crate::ops::math_ternary::{addc_impl, clamp_raw, lerp_impl};
use crate::ops::nn::ClampOpts;
use crate::ops::ternary::where_fwd;
use crate::tensor::{Scalar, Tensor};

op_ids! {
    /// A pointwise op of three operands (see [`crate::OpId`]).
    pub enum TernaryId {
        /// [`crate::where_cond`] (`torch.where(condition, input, other)`)
        Where = "where" ["where_self"],
        /// [`Tensor::lerp`]
        Lerp = "lerp" ["lerp", "lerp_"],
        /// [`Tensor::addcmul`]
        Addcmul = "addcmul" ["addcmul", "addcmul_with", "addcmul_", "addcmul_with_"],
        /// [`Tensor::addcdiv`]
        Addcdiv = "addcdiv" ["addcdiv", "addcdiv_with", "addcdiv_", "addcdiv_with_"],
        /// [`Tensor::clamp`] (and its alias `clip`)
        Clamp = "clamp" ["clamp", "clamp_with", "clamp_", "clamp_with_", "clip", "clip_with", "clip_", "clip_with_"],
        /// [`Tensor::clamp_min`]
        ClampMin = "clamp_min" ["clamp_min", "clamp_min_"],
        /// [`Tensor::clamp_max`]
        ClampMax = "clamp_max" ["clamp_max", "clamp_max_"],
    }
}

/// An op of the family applied to its operands (`self` first): what its forward function
/// and its derivative read.
#[derive(Clone, Copy)]
enum Call<'a> {
    /// `(condition, input, other)`.
    Where(&'a Tensor, Operand<'a>, Operand<'a>),
    /// `(self, end, weight)`.
    Lerp(&'a Tensor, &'a Tensor, Operand<'a>),
    /// `(self, tensor1, tensor2, value)`.
    Addcmul(&'a Tensor, &'a Tensor, &'a Tensor, Scalar),
    /// `(self, tensor1, tensor2, value)`.
    Addcdiv(&'a Tensor, &'a Tensor, &'a Tensor, Scalar),
    /// `(self, min, max)`.
    Clamp(&'a Tensor, Option<Operand<'a>>, Option<Operand<'a>>),
    /// `(self, min, None)`.
    ClampMin(&'a Tensor, Option<Operand<'a>>, Option<Operand<'a>>),
    /// `(self, None, max)`.
    ClampMax(&'a Tensor, Option<Operand<'a>>, Option<Operand<'a>>),
}

impl<'a> Call<'a> {
    /// The op's forward function, into a new tensor or (`inplace`) into `self`.
    fn forward(self, inplace: bool) -> Result<Tensor> {
        match self {
            Call::Where(c, a, b) => {
                // its dtype conversions are not recorded
                let _ng = no_grad();
                where_fwd(c, a, b)
            }
            Call::Lerp(x, end, w) => lerp_impl(x, end, w, inplace),
            Call::Addcmul(x, t1, t2, v) => addc_impl(x, t1, t2, v, false, inplace),
            Call::Addcdiv(x, t1, t2, v) => addc_impl(x, t1, t2, v, true, inplace),
            Call::Clamp(x, lo, hi) | Call::ClampMin(x, lo, hi) | Call::ClampMax(x, lo, hi) => {
                clamp_raw(x, lo, hi, inplace)
            }
        }
    }

    /// The op's derivative: records `r`, the op's result (when grad mode is on and a tensor
    /// operand requires grad).
    fn derivative(self, r: Tensor) -> Result<Tensor> {
        match self {
            Call::Where(c, a, b) => where_node(r, c, a, b),
            Call::Lerp(x, end, w) => lerp_node(r, x, end, w),
            Call::Addcmul(x, t1, t2, v) => addcmul_node(r, x, t1, t2, v.to_f64()),
            Call::Addcdiv(x, t1, t2, v) => addcdiv_node(r, x, t1, t2, v.to_f64()),
            // the node PyTorch names per overload (number bounds, tensor bounds)
            Call::Clamp(x, lo, hi) => clamp_node(r, x, lo, hi),
            Call::ClampMin(x, lo, hi) => {
                clamp_named(r, x, lo, hi, ["ClampMinBackward0", "ClampMinBackward1"])
            }
            Call::ClampMax(x, lo, hi) => {
                clamp_named(r, x, lo, hi, ["ClampMaxBackward0", "ClampMaxBackward1"])
            }
        }
    }

    /// The same op with `x` in place of `self` (the input operand of `where`).
    fn on<'b>(self, x: &'b Tensor) -> Call<'b>
    where
        'a: 'b,
    {
        match self {
            Call::Where(c, _, b) => Call::Where(c, Operand::Tensor(x), b),
            Call::Lerp(_, end, w) => Call::Lerp(x, end, w),
            Call::Addcmul(_, t1, t2, v) => Call::Addcmul(x, t1, t2, v),
            Call::Addcdiv(_, t1, t2, v) => Call::Addcdiv(x, t1, t2, v),
            Call::Clamp(_, lo, hi) => Call::Clamp(x, lo, hi),
            Call::ClampMin(_, lo, hi) => Call::ClampMin(x, lo, hi),
            Call::ClampMax(_, lo, hi) => Call::ClampMax(x, lo, hi),
        }
    }

    /// Runs the op into a new tensor and records its node.
    fn call(self) -> Result<Tensor> {
        let r = self.forward(false)?;
        self.derivative(r)
    }

    /// The in-place form: the forward function into `dst` (the op's `self`), recorded as the
    /// out-of-place op of `dst`'s previous value (`others`: the other tensor operands, whose
    /// requiring grad also records).
    fn call_(self, dst: &Tensor, others: &[&Tensor]) -> Result<Tensor> {
        inplace(
            dst,
            others,
            || self.forward(true),
            |old| self.on(old).call(),
        )
    }
}

/// `x.clamp_(min, max)`, recorded as `clamp` (the tensor bounds are the other operands).
fn clamp_(x: &Tensor, min: Option<Operand<'_>>, max: Option<Operand<'_>>) -> Result<Tensor> {
    let bounds: Vec<Tensor> = [min, max]
        .iter()
        .filter_map(|o| match o {
            Some(Operand::Tensor(t)) => Some(t.alias()),
            _ => None,
        })
        .collect();
    let refs: Vec<&Tensor> = bounds.iter().collect();
    Call::Clamp(x, min, max).call_(x, &refs)
}

/// `torch.where(condition, input, other)`: `input` where `condition` is true, else `other`.
/// (`where` is a Rust keyword, and a trailing `_` means in place in tensile, hence `where_cond`;
/// `input` and `other` are tensors or numbers.)
///
/// Shapes: all three broadcast together (folded left to right: condition, input, other).
/// dtype: the promotion of `input` and `other` (the condition does not take part).
/// Errors: the broadcast error (`The size of tensor a (..) must match …`), and
/// `where expected condition to be a boolean tensor, but got a tensor with dtype Float`.
pub fn where_cond<'a, 'b>(
    condition: &Tensor,
    input: impl Into<Operand<'a>>,
    other: impl Into<Operand<'b>>,
) -> Result<Tensor> {
    Call::Where(condition, input.into(), other.into()).call()
}

impl Tensor {
    /// `self.where(condition, other)` = `torch.where(condition, self, other)`; see [`where_cond`].
    pub fn where_self<'b>(
        &self,
        condition: &Tensor,
        other: impl Into<Operand<'b>>,
    ) -> Result<Tensor> {
        where_cond(condition, self, other)
    }
}

impl Tensor {
    /// `torch.lerp(self, end, weight)`: `self + weight * (end - self)` (computed as PyTorch
    /// does: from `end` backwards when `|weight| >= 0.5`). `weight` is a number or a tensor.
    ///
    /// Shapes: `self`, `end` (and a tensor `weight`) broadcast together. dtype: `self`'s,
    /// which `end` and a tensor `weight` must share; floats only.
    ///
    /// Errors, in order: `expected dtype float for `end` but got dtype long int` (C++ type
    /// names; likewise for `weight`); the broadcast error; `"lerp_kernel_scalar" not
    /// implemented for 'Long'` (`lerp_kernel_tensor` with a tensor weight).
    pub fn lerp<'w>(&self, end: &Tensor, weight: impl Into<Operand<'w>>) -> Result<Tensor> {
        Call::Lerp(self, end, weight.into()).call()
    }
    /// `self.lerp_(end, weight)`: [`Tensor::lerp`] written into `self` (the others broadcast
    /// to `self`'s shape: `output with shape [2, 2] doesn't match the broadcast shape [1, 2,
    /// 2]`). Returns `self`.
    pub fn lerp_<'w>(&self, end: &Tensor, weight: impl Into<Operand<'w>>) -> Result<Tensor> {
        let w = weight.into();
        let wt = w.as_tensor();
        Call::Lerp(self, end, w).call_(self, &[end, &wt])
    }

    /// `torch.addcmul(self, tensor1, tensor2)`: `self + tensor1 * tensor2` (`value = 1`).
    ///
    /// Shapes: all three broadcast together. dtype: the promotion of all three. Errors: the
    /// broadcast error; bool: `"addcmul_cpu_out" not implemented for 'Bool'`.
    pub fn addcmul(&self, tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
        self.addcmul_with(tensor1, tensor2, 1)
    }
    /// `torch.addcmul(self, tensor1, tensor2, value=v)`: `self + v * tensor1 * tensor2`; `v`
    /// is converted to the result dtype first (`0.5` is 0 for an int64 result).
    pub fn addcmul_with(
        &self,
        tensor1: &Tensor,
        tensor2: &Tensor,
        value: impl Into<Scalar>,
    ) -> Result<Tensor> {
        Call::Addcmul(self, tensor1, tensor2, value.into()).call()
    }
    /// `self.addcmul_(tensor1, tensor2)`: in place (`result type Float can't be cast to the
    /// desired output type Long`, and the in-place broadcast errors). Returns `self`.
    pub fn addcmul_(&self, tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
        self.addcmul_with_(tensor1, tensor2, 1)
    }
    /// `self.addcmul_(tensor1, tensor2, value=v)`: [`Tensor::addcmul_with`] in place.
    pub fn addcmul_with_(
        &self,
        tensor1: &Tensor,
        tensor2: &Tensor,
        value: impl Into<Scalar>,
    ) -> Result<Tensor> {
        Call::Addcmul(self, tensor1, tensor2, value.into()).call_(self, &[tensor1, tensor2])
    }

    /// `torch.addcdiv(self, tensor1, tensor2)`: `self + tensor1 / tensor2` (`value = 1`).
    ///
    /// Shapes: all three broadcast together. dtype: the promotion of all three.
    /// Errors, in order: `tensor1` and `tensor2` both integer or bool: `Integer division with
    /// addcdiv is no longer supported, and in a future  release addcdiv will perform a true
    /// division of tensor1 and tensor2. …`; the broadcast error.
    pub fn addcdiv(&self, tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
        self.addcdiv_with(tensor1, tensor2, 1)
    }
    /// `torch.addcdiv(self, tensor1, tensor2, value=v)`: `self + v * tensor1 / tensor2`.
    pub fn addcdiv_with(
        &self,
        tensor1: &Tensor,
        tensor2: &Tensor,
        value: impl Into<Scalar>,
    ) -> Result<Tensor> {
        Call::Addcdiv(self, tensor1, tensor2, value.into()).call()
    }
    /// `self.addcdiv_(tensor1, tensor2)`: in place. Returns `self`.
    pub fn addcdiv_(&self, tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
        Call::Addcdiv(self, tensor1, tensor2, Scalar::Int(1)).call_(self, &[tensor1, tensor2])
    }
    /// `self.addcdiv_(tensor1, tensor2, value=v)`: [`Tensor::addcdiv_with`] in place.
    pub fn addcdiv_with_(
        &self,
        tensor1: &Tensor,
        tensor2: &Tensor,
        value: impl Into<Scalar>,
    ) -> Result<Tensor> {
        Call::Addcdiv(self, tensor1, tensor2, value.into()).call_(self, &[tensor1, tensor2])
    }

    /// `torch.clip(self, min, max)`: an alias of [`Tensor::clamp`].
    pub fn clip<'a, 'b>(
        &self,
        min: impl Into<Operand<'a>>,
        max: impl Into<Operand<'b>>,
    ) -> Result<Tensor> {
        Call::Clamp(self, Some(min.into()), Some(max.into())).call()
    }
    /// `torch.clip(self, min=…, max=…)` with either bound optional: [`Tensor::clamp_with`].
    pub fn clip_with<'a>(&self, opts: ClampOpts<'a>) -> Result<Tensor> {
        Call::Clamp(self, opts.min, opts.max).call()
    }
    /// `self.clip_(min, max)`: an alias of [`Tensor::clamp_`].
    pub fn clip_<'a, 'b>(
        &self,
        min: impl Into<Operand<'a>>,
        max: impl Into<Operand<'b>>,
    ) -> Result<Tensor> {
        clamp_(self, Some(min.into()), Some(max.into()))
    }
    /// `self.clip_(min=…, max=…)` with either bound optional: [`Tensor::clamp_with_`].
    pub fn clip_with_<'a>(&self, opts: ClampOpts<'a>) -> Result<Tensor> {
        clamp_(self, opts.min, opts.max)
    }
}

impl Tensor {
    /// `torch.clamp(self, min, max)`: `min(max(self, min), max)` elementwise; NaN stays NaN;
    /// where `min > max` every element becomes `max`. `min` and `max` are numbers or tensors
    /// (tensors broadcast with `self`); [`Tensor::clamp_min`] / [`Tensor::clamp_max`] give one
    /// bound, [`Tensor::clamp_with`] an optional pair.
    ///
    /// dtype: the promotion of `self` with the bounds (numbers count as Python scalars: an int
    /// tensor clamped by `0.5` gives float32, a float tensor keeps its dtype). Shape: the
    /// broadcast of `self` and tensor bounds.
    ///
    /// Errors: the broadcast error; a bool result:
    /// `"clamp_scalar_cpu" not implemented for 'Bool'` (NotImplementedError; `clamp_min_scalar_cpu`
    /// or `clamp_max_scalar_cpu` when only one bound is given; with two tensor bounds
    /// `"clamp_cpu" not implemented for 'Bool'`, while one bool tensor bound computes).
    /// Tensor bounds make one iterator over all operands (PyTorch's `clamp.Tensor`): the
    /// output's layout follows all of them, and its dtype is the promotion of all of them.
    pub fn clamp<'a, 'b>(
        &self,
        min: impl Into<Operand<'a>>,
        max: impl Into<Operand<'b>>,
    ) -> Result<Tensor> {
        Call::Clamp(self, Some(min.into()), Some(max.into())).call()
    }
    /// `torch.clamp_min(self, min)` = `torch.clamp(self, min=min)`; see [`Tensor::clamp`].
    pub fn clamp_min<'a>(&self, min: impl Into<Operand<'a>>) -> Result<Tensor> {
        Call::ClampMin(self, Some(min.into()), None).call()
    }
    /// `torch.clamp_max(self, max)` = `torch.clamp(self, max=max)`; see [`Tensor::clamp`].
    pub fn clamp_max<'a>(&self, max: impl Into<Operand<'a>>) -> Result<Tensor> {
        Call::ClampMax(self, None, Some(max.into())).call()
    }
    /// `torch.clamp(self, min=…, max=…)` with either bound optional (`None`), as PyTorch's
    /// keywords: `x.clamp_with(ClampOpts { min: Some(0.into()), max: None })`. Errors as
    /// [`Tensor::clamp`], and `torch.clamp: At least one of 'min' or 'max' must not be None`.
    pub fn clamp_with<'a>(&self, opts: ClampOpts<'a>) -> Result<Tensor> {
        Call::Clamp(self, opts.min, opts.max).call()
    }
    /// `self.clamp_(min, max)`: [`Tensor::clamp`] written into `self` (the result dtype must
    /// cast to `self`'s: `result type Float can't be cast to the desired output type Long`;
    /// tensor bounds must broadcast to `self`'s shape). Returns `self`.
    pub fn clamp_<'a, 'b>(
        &self,
        min: impl Into<Operand<'a>>,
        max: impl Into<Operand<'b>>,
    ) -> Result<Tensor> {
        clamp_(self, Some(min.into()), Some(max.into()))
    }
    /// `self.clamp_(min=…, max=…)` with either bound optional; see [`Tensor::clamp_`].
    pub fn clamp_with_<'a>(&self, opts: ClampOpts<'a>) -> Result<Tensor> {
        clamp_(self, opts.min, opts.max)
    }
    /// `self.clamp_min_(min)`: in place, `self = max(self, min)` (NaN propagates), `min` a
    /// tensor broadcastable to `self` or a number. Errors as the other in-place ops, and
    /// those of number bounds in [`Tensor::clamp`] (`Clamp min value 300 is outside the
    /// representable range of Byte`; a bound below an integer dtype's range changes nothing).
    pub fn clamp_min_<'a>(&self, min: impl Into<Operand<'a>>) -> Result<Tensor> {
        clamp_(self, Some(min.into()), None)
    }
    /// `self.clamp_max_(max)`: in place, `self = min(self, max)`.
    pub fn clamp_max_<'a>(&self, max: impl Into<Operand<'a>>) -> Result<Tensor> {
        clamp_(self, None, Some(max.into()))
    }
}
