//! `torch.where(condition, self, other)`: three-way broadcasting (the forward function; the
//! methods and the recording are in [`crate::optable::ternary`]).

use crate::dispatch;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::pointwise;
use crate::ops::Operand;
use crate::tensor::Tensor;

/// The forward function of `torch.where(condition, input, other)` ([`crate::where_cond`]):
/// the condition's dtype check, the broadcast numel check, then the select kernel over the
/// condition and both values converted to their common dtype.
pub(crate) fn where_fwd(
    condition: &Tensor,
    input: Operand<'_>,
    other: Operand<'_>,
) -> Result<Tensor> {
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
