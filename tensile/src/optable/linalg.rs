//! The matrix products and `torch.linalg`'s factorisations ([`LinalgId`]): `matmul`, `mm`,
//! `bmm`, `mv`, `dot`, `addmm`, `baddbmm`, `linear`, `linalg.cholesky`, `linalg.cholesky_ex`,
//! `linalg.solve_triangular`.
//!
//! The forward functions are [`crate::ops::matmul`]'s (`matmul_fwd`, `mm_fwd`, …, PyTorch's
//! `_matmul_impl` paths) and [`crate::ops::cholesky`]'s; the derivatives are the formulas of
//! `autograd/formulas/linalg.rs`, `linalg_batch.rs` and `cholesky.rs`. Each op is a [`Call`]
//! whose forward function and derivative are picked by exhaustive matches on it. `linear`
//! is a composite (an `addmm`, or a `matmul` and an `add_`), recorded as PyTorch records it.

use crate::autograd::formulas::cholesky::{
    cholesky as cholesky_node, solve_triangular as solve_node,
};
use crate::autograd::formulas::linalg::{addmm as addmm_node, matmul as matmul_node};
use crate::autograd::formulas::linalg_batch::baddbmm as baddbmm_node;
use crate::autograd::formulas::views::unsafe_view;
use crate::error::{Error, Result};
use crate::ops::cholesky::{cholesky_ex_raw, solve_triangular_raw};
use crate::ops::matmul::{
    AddmmOpts, addmm_fwd, addmm_raw, as_shape, baddbmm_fwd, bmm_fwd, dot_fwd, matmul_fwd, mm_fwd,
    mv_fwd,
};
use crate::tensor::Tensor;

op_ids! {
    /// A matrix product or factorisation of the table (see [`crate::OpId`]). The names of
    /// `torch.linalg`'s ops carry their `linalg_` prefix, as ATen names them.
    pub enum LinalgId {
        /// [`Tensor::matmul`]
        Matmul = "matmul" ["matmul"],
        /// [`Tensor::mm`]
        Mm = "mm" ["mm"],
        /// [`Tensor::bmm`]
        Bmm = "bmm" ["bmm"],
        /// [`Tensor::mv`]
        Mv = "mv" ["mv"],
        /// [`Tensor::dot`]
        Dot = "dot" ["dot"],
        /// [`addmm_with`]
        Addmm = "addmm" [],
        /// [`baddbmm_with`]
        Baddbmm = "baddbmm" [],
        /// [`Tensor::linear_with`]
        Linear = "linear" ["linear", "linear_with"],
        /// [`crate::linalg::cholesky_with`]
        Cholesky = "linalg_cholesky" [],
        /// [`crate::linalg::cholesky_ex_with`]
        CholeskyEx = "linalg_cholesky_ex" [],
        /// [`crate::linalg::solve_triangular_with`]
        SolveTriangular = "linalg_solve_triangular" [],
    }
}

/// A product applied to its operands: what its forward function and its derivative read.
#[derive(Clone, Copy)]
enum Call<'a> {
    /// `(self, other)`.
    Matmul(&'a Tensor, &'a Tensor),
    /// `(self, mat2)`.
    Mm(&'a Tensor, &'a Tensor),
    /// `(self, mat2)`.
    Bmm(&'a Tensor, &'a Tensor),
    /// `(self, vec)`.
    Mv(&'a Tensor, &'a Tensor),
    /// `(self, other)`.
    Dot(&'a Tensor, &'a Tensor),
    /// `(input, mat1, mat2, beta, alpha)`.
    Addmm(&'a Tensor, &'a Tensor, &'a Tensor, f64, f64),
    /// `(input, batch1, batch2, beta, alpha)`.
    Baddbmm(&'a Tensor, &'a Tensor, &'a Tensor, f64, f64),
    /// `(A, B, upper, left, unitriangular)`.
    SolveTriangular(&'a Tensor, &'a Tensor, bool, bool, bool),
}

impl Call<'_> {
    /// The op's forward function (into a new tensor).
    fn forward(self) -> Result<Tensor> {
        match self {
            Call::Matmul(a, b) => matmul_fwd(a, b),
            Call::Mm(a, b) => mm_fwd(a, b),
            Call::Bmm(a, b) => bmm_fwd(a, b),
            Call::Mv(a, b) => mv_fwd(a, b),
            Call::Dot(a, b) => dot_fwd(a, b),
            Call::Addmm(m, a, b, beta, alpha) => addmm_fwd(m, a, b, beta, alpha),
            Call::Baddbmm(m, a, b, beta, alpha) => baddbmm_fwd(m, a, b, beta, alpha),
            Call::SolveTriangular(a, b, upper, left, unit) => {
                solve_triangular_raw(a, b, upper, left, unit)
            }
        }
    }

    /// The op's derivative: records `r`, the op's result (when grad mode is on and an input
    /// requires grad).
    fn derivative(self, r: Tensor) -> Result<Tensor> {
        match self {
            Call::Matmul(a, b) => {
                let (name, self_first) = matmul_node_name(a, b, &r);
                matmul_node(r, a, b, name, self_first)
            }
            Call::Mm(a, b) => matmul_node(r, a, b, "MmBackward0", false),
            Call::Bmm(a, b) => matmul_node(r, a, b, "BmmBackward0", false),
            Call::Mv(a, b) => matmul_node(r, a, b, "MvBackward0", true),
            Call::Dot(a, b) => matmul_node(r, a, b, "DotBackward0", true),
            Call::Addmm(m, a, b, beta, alpha) => addmm_node(r, m, a, b, beta, alpha),
            Call::Baddbmm(m, a, b, beta, alpha) => baddbmm_node(r, m, a, b, beta, alpha),
            Call::SolveTriangular(a, b, upper, left, unit) => {
                solve_node(r, a, b, upper, left, unit)
            }
        }
    }

    /// Runs the op into a new tensor and records its node.
    fn call(self) -> Result<Tensor> {
        let r = self.forward()?;
        self.derivative(r)
    }
}

/// The node PyTorch's `matmul` ends with for operands `a`, `b` and result `r` (the path it
/// takes), and whether the node saves `self` first (`dot`, `mv`: PyTorch's unpack order).
fn matmul_node_name(a: &Tensor, b: &Tensor, r: &Tensor) -> (&'static str, bool) {
    match (a.dim(), b.dim()) {
        (1, 1) => ("DotBackward0", true),
        (2, 1) => ("MvBackward0", true),
        (1, 2) => ("SqueezeBackward4", false),
        (2, 2) => ("MmBackward0", false),
        // only `self`'s batch dims expanded and `self` requiring grad: PyTorch's matmul
        // ends with a copy (for a 2-D `self`, the folded product transposed back)
        (da, db)
            if a.requires_grad()
                && da >= 2
                && db >= 3
                && a.size()[..da - 2] != r.size()[..r.dim() - 2]
                && b.size()[..db - 2] == r.size()[..r.dim() - 2] =>
        {
            ("CloneBackward0", false)
        }
        _ => ("UnsafeViewBackward0", false),
    }
}

/// `torch.addmm(input, mat1, mat2)`: `input + mat1 @ mat2`, see [`addmm_with`].
pub fn addmm(input: &Tensor, mat1: &Tensor, mat2: &Tensor) -> Result<Tensor> {
    addmm_with(input, mat1, mat2, AddmmOpts::default())
}

/// `torch.addmm(input, mat1, mat2, beta=b, alpha=a)`: `b · input + a · (mat1 @ mat2)`
/// (`AddmmBackward0`).
///
/// Shapes: `mat1` `(n, k)`, `mat2` `(k, m)`, `input` broadcastable to `(n, m)` → `(n, m)`,
/// fresh and contiguous. dtype: the operands' (all three must match); integer dtypes truncate
/// `beta` and `alpha`.
///
/// Errors (RuntimeError), in order: `self and mat2 must have the same dtype, but got Float and
/// Double`; `mat1 and mat2 must have the same dtype, but got Float and Double`; `addmm: self
/// must be a matrix, got 1-D tensor` (PyTorch's name for `mat1`); `addmm: mat2 must be a
/// matrix, got 1-D tensor`; `addmm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x2)`;
/// `input` not broadcastable: `The expanded size of the tensor (2) must match the existing
/// size (3) at non-singleton dimension 0.  Target sizes: [2, 2].  Tensor sizes: [3, 2]`;
/// bool: `"addmm_impl_cpu_" not implemented for 'Bool'` (NotImplementedError).
pub fn addmm_with(
    input: &Tensor,
    mat1: &Tensor,
    mat2: &Tensor,
    opts: impl Into<AddmmOpts>,
) -> Result<Tensor> {
    let AddmmOpts { beta, alpha } = opts.into();
    Call::Addmm(input, mat1, mat2, beta, alpha).call()
}

/// `torch.baddbmm(input, batch1, batch2)`: `input + batch1 @ batch2`, see [`baddbmm_with`].
pub fn baddbmm(input: &Tensor, batch1: &Tensor, batch2: &Tensor) -> Result<Tensor> {
    baddbmm_with(input, batch1, batch2, AddmmOpts::default())
}

/// `torch.baddbmm(input, batch1, batch2, beta=b, alpha=a)`: `b · input + a · (batch1 @
/// batch2)` per batch (`BaddbmmBackward0`).
///
/// Shapes: `batch1` `(b, n, k)`, `batch2` `(b, k, m)`, `input` broadcastable to `(b, n, m)` →
/// `(b, n, m)`, fresh and contiguous. dtype: the operands' (all three must match).
///
/// Errors, in PyTorch's order: a `batch1` or `batch2` too small for `input`'s target shape:
/// `Dimension out of range (expected to be in range of [-2, 1], but got 2)` (IndexError);
/// `input` not broadcastable to `(b, n, m)`: `The expanded size of the tensor …`; `Input
/// dtypes must be the same, got: input float, batch1: double, batch2: double`; `batch1 must
/// be a 3D tensor`; `batch2 must be a 3D tensor`; `Expected size for first two dimensions of
/// batch2 tensor to be: [2, 3] but got: [2, 4].`; bool: `"baddbmm" not implemented for
/// 'Bool'` (NotImplementedError); `expected scalar type Double but found Float` (`batch2`'s
/// dtype).
pub fn baddbmm_with(
    input: &Tensor,
    batch1: &Tensor,
    batch2: &Tensor,
    opts: impl Into<AddmmOpts>,
) -> Result<Tensor> {
    let AddmmOpts { beta, alpha } = opts.into();
    Call::Baddbmm(input, batch1, batch2, beta, alpha).call()
}

impl Tensor {
    /// `torch.matmul(self, other)` (`self @ other`).
    ///
    /// Shapes: `(k,)·(k,)` → `()`; `(m,k)·(k,)` → `(m,)`; `(k,)·(k,n)` → `(n,)`;
    /// `(m,k)·(k,n)` → `(m,n)`; otherwise the leading (batch) dims broadcast:
    /// `(*a, m, k)·(*b, k, n)` → `(broadcast(a, b), m, n)`, a 1-D left operand acting as
    /// `(1, k)` and a 1-D right operand as `(k, 1)`, their dim dropped from the result.
    /// dtype: the operands' (they must match); float16/bfloat16 compute in float32; integer
    /// products wrap. The output is fresh and contiguous.
    ///
    /// Errors (RuntimeError), by path:
    /// `both arguments to matmul need to be at least 1D, but they are 0D and 2D`;
    /// `inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively`;
    /// `dot : expected both vectors to have same dtype, but found Float and Double`;
    /// `size mismatch, got input (5), mat (5x4), vec (3)`;
    /// `addmv input tensors must have the same dtype, but got Double, Float, and Double`;
    /// `mm: mat1 and mat2 shapes cannot be multiplied (5x3 and 4x2)`;
    /// `expected m1 and m2 to have the same dtype, but got: float != double`;
    /// `The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1`;
    /// `Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].`;
    /// `Storage size calculation overflowed with sizes=[…]` (a broadcast batch too large, e.g.
    /// `(2^62, 1, 1, 1)·(1, 2^62, 1, 1)` of expanded operands);
    /// `expected scalar type Float but found Double` (batched); bool operands:
    /// `"addmm_impl_cpu_" not implemented for 'Bool'` (`"dot"`, `"addmv_impl_cpu"`, `"bmm"`).
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        Call::Matmul(self, other).call()
    }

    /// `torch.nn.functional.linear(self, weight)`: `self @ weight.T`, no bias; see
    /// [`Tensor::linear_with`] for shapes and errors.
    pub fn linear(&self, weight: &Tensor) -> Result<Tensor> {
        self.linear_with(weight, None)
    }

    /// `torch.nn.functional.linear(self, weight, bias)`: `self @ weight.T + bias` (`bias` a
    /// `&Tensor` or an `Option<&Tensor>`).
    ///
    /// Shapes: `self` `(*, in)`, `weight` `(out, in)` (or `(in,)`, giving no `out` dim),
    /// `bias` broadcastable to `(*, out)` → `(*, out)`. A 2-D input with a bias (and a
    /// contiguous 3-D input, or any contiguous input with a 1-D bias, flattened to 2-D) runs
    /// as one `addmm` with the bias as the accumulator (a contiguous bias only, as PyTorch 2.15);
    /// anything else is `matmul` then `add_`.
    ///
    /// Errors: `both arguments to linear need to be at least 1D, but they are 0D and 2D`;
    /// `t() expects a tensor with <= 2 dimensions, but self is 3D`; `addmm`'s
    /// `addmm: mat1 and mat2 shapes cannot be multiplied (4x3 and 5x2)`,
    /// `self and mat2 must have the same dtype, but got Float and Double`,
    /// `addmm: mat2 must be a matrix, got 1-D tensor`, and a bias that does not broadcast:
    /// `The expanded size of the tensor (5) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [3]`;
    /// otherwise [`Tensor::matmul`]'s errors and `add_`'s.
    pub fn linear_with<'b>(
        &self,
        weight: &Tensor,
        bias: impl Into<Option<&'b Tensor>>,
    ) -> Result<Tensor> {
        let bias = bias.into();
        let (di, dw) = (self.dim(), weight.dim());
        if di == 0 || dw == 0 {
            return Err(Error::runtime(format!(
                "both arguments to linear need to be at least 1D, but they are {di}D and {dw}D"
            )));
        }
        if dw > 2 {
            return Err(Error::runtime(format!(
                "t() expects a tensor with <= 2 dimensions, but self is {dw}D"
            )));
        }
        // `weight.t()` recorded (PyTorch's `TBackward0`) so the weight's gradient flows
        let wt = if dw == 2 {
            weight.transpose(0, 1)?
        } else {
            weight.alias()
        };
        if let Some(b) = bias {
            if di == 2 {
                let r = addmm_raw(b, self, &wt)?;
                return addmm_node(r, b, self, &wt, 1.0, 1.0);
            }
            if self.is_contiguous() && b.is_contiguous() && (di == 3 || b.dim() == 1) {
                let k = self.size()[di - 1];
                let rows: usize = self.size()[..di - 1].iter().product();
                let flat = self.reshape(vec![rows as i64, k as i64])?;
                let r = addmm_raw(b, &flat, &wt)?;
                let r = addmm_node(r, b, &flat, &wt, 1.0, 1.0)?;
                let mut shape = self.size()[..di - 1].to_vec();
                shape.push(r.size()[1]);
                let out = as_shape(r.alias(), &shape);
                return unsafe_view(out, &r);
            }
        }
        let out = self.matmul(&wt)?;
        match bias {
            Some(b) => out.add_(b),
            None => Ok(out),
        }
    }

    /// `torch.mm(self, mat2)`: `(n, k) @ (k, m)` → `(n, m)`, fresh and contiguous, same dtype.
    ///
    /// Errors (RuntimeError): `mm: self must be a matrix, got 1-D tensor` (and `mat2`);
    /// `mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)`;
    /// `expected m1 and m2 to have the same dtype, but got: float != double`;
    /// `"addmm_impl_cpu_" not implemented for 'Bool'`.
    pub fn mm(&self, mat2: &Tensor) -> Result<Tensor> {
        Call::Mm(self, mat2).call()
    }

    /// `torch.bmm(self, mat2)`: `(b, n, k) @ (b, k, m)` → `(b, n, m)`, no broadcasting.
    ///
    /// Errors (RuntimeError): `batch1 must be a 3D tensor`; `batch2 must be a 3D tensor`;
    /// `Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [4, 3].`;
    /// `expected scalar type Float but found Double`; `"bmm" not implemented for 'Bool'`.
    pub fn bmm(&self, mat2: &Tensor) -> Result<Tensor> {
        Call::Bmm(self, mat2).call()
    }

    /// `torch.mv(self, vec)`: `(n, k) @ (k,)` → `(n,)`.
    ///
    /// Errors (RuntimeError): `vector + matrix @ vector expected, got 1, 3, 1` (the output's,
    /// `self`'s and `vec`'s dims); `size mismatch, got input (5), mat (5x4), vec (3)`;
    /// `addmv input tensors must have the same dtype, but got Double, Float, and Double`.
    pub fn mv(&self, vec: &Tensor) -> Result<Tensor> {
        Call::Mv(self, vec).call()
    }

    /// `torch.dot(self, other)`: 1-D · 1-D → 0-d, same dtype.
    ///
    /// Errors (RuntimeError): `1D tensors expected, but got 2D and 1D tensors`;
    /// `dot : expected both vectors to have same dtype, but found Float and Double`;
    /// `inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively`.
    pub fn dot(&self, other: &Tensor) -> Result<Tensor> {
        Call::Dot(self, other).call()
    }
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
    let (l, _) = cholesky_ex_raw(a, upper, true, "linalg.cholesky")?;
    cholesky_node(l, a, upper)
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
    let (l, info) = cholesky_ex_raw(a, upper, check_errors, "linalg.cholesky_ex")?;
    Ok((cholesky_node(l, a, upper)?, info))
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
    Call::SolveTriangular(a, b, upper, left, unitriangular).call()
}
