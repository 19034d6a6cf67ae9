//! `torch.where(condition, self, other)`: three-way broadcasting.

use crate::dispatch;
use crate::dtype::DType;
use crate::error::{Error, Result};
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
    dispatch!(common, T => {
        crate::iter::run_new(&[&cond, &a, &b], common, &pointwise::select_kernel::<T>())
    })
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
