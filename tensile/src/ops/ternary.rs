//! `torch.where(condition, self, other)`: three-way broadcasting.

// issue 29: this file's `unsafe` calls of raw-pointer kernels move behind the engine's
// safe dense API, and this opt-out goes.
#![allow(unsafe_code)]

use crate::dispatch;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::iter::{TensorIter, lock_operands};
use crate::kernels::pointwise;
use crate::ops::Operand;
use crate::tensor::Tensor;

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
    let (input, other) = (input.into(), other.into());
    let r = {
        let _ng = crate::autograd::no_grad();
        where_raw(condition, input, other)?
    };
    crate::autograd::formulas::pointwise::where_(r, condition, input, other)
}

fn where_raw(condition: &Tensor, input: Operand<'_>, other: Operand<'_>) -> Result<Tensor> {
    if condition.dtype != DType::Bool && condition.dtype != DType::UInt8 {
        return Err(Error::runtime(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            condition.dtype.scalar_type_name()
        )));
    }
    let (a, b) = (input.to_tensor(), other.to_tensor());
    // PyTorch's iterator computes the broadcast numel first: `numel: integer multiplication overflow`.
    if let Ok(ab) = crate::broadcast::infer_size(condition.size(), a.size())
        && let Ok(shape) = crate::broadcast::infer_size(&ab, b.size())
    {
        crate::layout::checked_numel(&shape)?;
    }
    let cond = condition.to(DType::Bool)?;
    let common = crate::iter::result_type_of(&[&a, &b]);
    // PyTorch converts both values to the common dtype before building the iterator.
    let (a, b) = (a.to(common)?, b.to(common)?);
    let it = TensorIter::new(None, &[&cond, &a, &b])?;
    let (out, lp) = it.finish::<4>(common)?;
    // The new output is not shared yet: only the inputs need locks.
    let guard = lock_operands(&[&cond, &a, &b], 0);
    dispatch!(common, T => {
        // SAFETY: fresh output from the iterator; locks held; every operand has its storage
        // dtype, so no conversion happens.
        unsafe { lp.run([common, DType::Bool, common, common], 1, &|p, s, n| pointwise::select::<T>(p, s, n)) }
    });
    drop(guard);
    Ok(out)
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
