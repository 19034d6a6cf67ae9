//! `torch.linalg`: `cross`, `vecdot`, `cholesky`, `cholesky_ex` and `solve_triangular`.

use crate::args::Int;
use crate::error::Result;
use crate::tensor::Tensor;

pub use crate::ops::linalg::vecdot;
pub use crate::optable::linalg::{
    cholesky, cholesky_ex, cholesky_ex_with, cholesky_with, solve_triangular, solve_triangular_with,
};

/// `torch.linalg.cross(input, other)`: the cross product along the last dim; see
/// [`cross_with`].
pub fn cross(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    cross_with(input, other, -1)
}

/// `torch.linalg.cross(input, other, dim=dim)`: the cross product of the 3-vectors along
/// `dim` (`a1*b2 - a2*b1`, `a2*b0 - a0*b2`, `a0*b1 - a1*b0`, in the dtype), batch dims
/// broadcast. Output fresh, contiguous, of the broadcast shape and `input`'s dtype.
///
/// Errors, in order: RuntimeError `linalg.cross: inputs must have the same number of
/// dimensions.`; IndexError `Dimension out of range (…)`; RuntimeError `linalg.cross: inputs
/// dimension 1 must have length 3. Got 3 and 1` (the dim as given); `The size of tensor a (2)
/// must match the size of tensor b (0) at non-singleton dimension 3`; NotImplementedError
/// `"cross" not implemented for 'Bool'`; RuntimeError `expected scalar type Double but found
/// Short` (`other`'s dtype differs).
pub fn cross_with(input: &Tensor, other: &Tensor, dim: impl Int) -> Result<Tensor> {
    crate::ops::einsum::cross(input, other, dim.to_i64())
}
