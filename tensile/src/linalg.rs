//! `torch.linalg`: `cross`, `vecdot`, `cholesky`, `cholesky_ex` and `solve_triangular`.

use crate::args::Int;
use crate::error::Result;
use crate::tensor::Tensor;

pub use crate::ops::linalg::vecdot;

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

/// `torch.linalg.cholesky(A)`: the lower Cholesky factor `L` of each symmetric
/// positive-definite matrix of `A` (`A = L Lᴴ`); see [`cholesky_with`].
pub fn cholesky(a: &Tensor) -> Result<Tensor> {
    cholesky_with(a, false)
}

/// `torch.linalg.cholesky(A, upper=upper)`: `A` of shape `(*, n, n)`, float32 or float64;
/// the factor (lower `L`, or upper `U = Lᵀ` when `upper`) of the same shape and dtype, its
/// other triangle zero. Only the lower (upper) triangle of `A` is read. Computed per matrix
/// in float64 by the unblocked algorithm (LAPACK's `potf2`) and rounded to the dtype.
/// Differentiable (`LinalgCholeskyExBackward0`, PyTorch's `cholesky_backward`).
///
/// Errors, in order: RuntimeError `linalg.cholesky: The input tensor A must have at least 2
/// dimensions.`; RuntimeError `linalg.cholesky: A must be batches of square matrices, but
/// they are 2 by 3 matrices`; NotImplementedError `linalg.cholesky: Expected a floating
/// point or complex tensor as input. Got Long` (`"cholesky_cpu" not implemented for 'Half'`
/// for a reduced float); `_LinAlgError` (ErrorKind::LinAlgError) `linalg.cholesky: (Batch
/// element 1): The factorization could not be completed because the input is not
/// positive-definite (the leading minor of order 2 is not positive-definite).` (no `(Batch
/// element …)` prefix for a single matrix).
pub fn cholesky_with(a: &Tensor, upper: bool) -> Result<Tensor> {
    let (l, _) = crate::ops::cholesky::cholesky_ex_raw(a, upper, true, "linalg.cholesky")?;
    crate::autograd::formulas::cholesky::cholesky(l, a, upper)
}

/// `torch.linalg.cholesky_ex(A)`: `(L, info)` without raising on a matrix that is not
/// positive-definite; see [`cholesky_ex_with`].
pub fn cholesky_ex(a: &Tensor) -> Result<(Tensor, Tensor)> {
    cholesky_ex_with(a, false, false)
}

/// `torch.linalg.cholesky_ex(A, upper=, check_errors=)`: the factor as
/// [`cholesky_with`] and `info`, an int32 tensor of the batch shape `*`: 0 where the
/// factorisation succeeded, else the order of the first leading minor that is not
/// positive-definite (the factor then holds LAPACK's partial result). Differentiable in `L`.
///
/// Errors: as [`cholesky_with`] (with `linalg.cholesky` in the texts; PyTorch's
/// `cholesky_ex` reports its checks under that name), the `_LinAlgError` (`linalg.cholesky_ex:
/// …`) only when `check_errors`.
pub fn cholesky_ex_with(a: &Tensor, upper: bool, check_errors: bool) -> Result<(Tensor, Tensor)> {
    let (l, info) =
        crate::ops::cholesky::cholesky_ex_raw(a, upper, check_errors, "linalg.cholesky_ex")?;
    Ok((
        crate::autograd::formulas::cholesky::cholesky(l, a, upper)?,
        info,
    ))
}

/// `torch.linalg.solve_triangular(A, B, upper=upper)`: `X` with `A X = B` for triangular
/// `A`; see [`solve_triangular_with`].
pub fn solve_triangular(a: &Tensor, b: &Tensor, upper: bool) -> Result<Tensor> {
    solve_triangular_with(a, b, upper, true, false)
}

/// `torch.linalg.solve_triangular(A, B, upper=, left=, unitriangular=)`: `A` of shape
/// `(*, n, n)` (only its upper or lower triangle read; its diagonal taken as ones when
/// `unitriangular`), `B` of shape `(*, n, k)` (`(*, k, n)` when `left` is false, solving `X
/// A = B`); batch dims broadcast. The result has `B`'s matrix shape, the broadcast batch
/// shape and `A`'s dtype (float32 or float64). A zero pivot gives infinities and NaNs, as
/// LAPACK's `trsm`. Computed in float64 and rounded. Differentiable in `A` and `B`
/// (`LinalgSolveTriangularBackward0`).
///
/// Errors, in order: RuntimeError `linalg.solve_triangular: The input tensor B must have at
/// least 2 dimensions.` (`A`'s likewise); `linalg.solve_triangular: A must be batches of
/// square matrices, but they are 2 by 3 matrices`; `linalg.solve_triangular: Incompatible
/// shapes of A and B for the equation AX = B (2x2 and 3x1)` (`XA = B` when not `left`);
/// NotImplementedError `"triangular_solve_cpu" not implemented for 'Long'`; the broadcast
/// error of the batch dims.
pub fn solve_triangular_with(
    a: &Tensor,
    b: &Tensor,
    upper: bool,
    left: bool,
    unitriangular: bool,
) -> Result<Tensor> {
    crate::autograd::formulas::cholesky::solve_triangular(a, b, upper, left, unitriangular)
}
