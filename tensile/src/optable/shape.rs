//! The shape ops that copy ([`ShapeId`]): `cat`, `stack`, `flip`, `roll`, `rot90`, `repeat`,
//! `tril`/`triu` (and in place), `narrow_copy`, `diag`, `diag_embed`, `block_diag`, and
//! `trace` (the sum of what `diag` copies).
//!
//! The forward functions are [`crate::ops::cat`]'s `cat_impl` and `stack_impl` and
//! [`crate::ops::shape`]'s (`flip_fwd`, `roll_fwd`, …); the derivatives are formulas of
//! [`crate::autograd::formulas`]: the element-moving ops are `gathered` (their backward
//! replays the forward function on element ids), the others have formulas of their own in
//! `formulas::shape`. Each method is a [`Call`], the op applied to its operands, whose
//! forward function and derivative are picked by exhaustive matches on it. The composite
//! forms (`tril`, `roll`, `fliplr`, `hstack`, …) stay in `ops/` and call these.

use crate::args::{Int, IntoDims, IntoShape};
use crate::autograd::formulas::index::{gathered, gathered_n};
use crate::autograd::formulas::shape::{
    block_diag as block_diag_node, diag_embed as diag_embed_node, diagonal_copy,
    narrow_copy as narrow_copy_node, trace as trace_node, triangle,
};
use crate::autograd::{inplace, no_grad};
use crate::error::Result;
use crate::ops::cat::{cat_impl, stack_impl};
use crate::ops::shape::{
    DiagEmbedOpts, block_diag_fwd, diag_embed_fwd, diag_fwd, flip_fwd, narrow_copy_fwd, repeat_fwd,
    roll_fwd, rot90_fwd, trace_fwd, triangle_fwd,
};
use crate::tensor::Tensor;

op_ids! {
    /// A shape op that copies (see [`crate::OpId`]).
    pub enum ShapeId {
        /// [`crate::cat_with`]
        Cat = "cat" [],
        /// [`crate::stack_with`]
        Stack = "stack" [],
        /// [`Tensor::flip`]
        Flip = "flip" ["flip"],
        /// [`Tensor::roll_with`]
        Roll = "roll" ["roll_with"],
        /// [`Tensor::rot90_with`]
        Rot90 = "rot90" ["rot90", "rot90_with"],
        /// [`Tensor::repeat`]
        Repeat = "repeat" ["repeat"],
        /// [`Tensor::tril_with`]
        Tril = "tril" ["tril_with", "tril_with_"],
        /// [`Tensor::triu_with`]
        Triu = "triu" ["triu_with", "triu_with_"],
        /// [`Tensor::narrow_copy`]
        NarrowCopy = "narrow_copy" ["narrow_copy"],
        /// [`Tensor::diag_with`]
        Diag = "diag" ["diag_with"],
        /// [`Tensor::diag_embed_with`]
        DiagEmbed = "diag_embed" ["diag_embed_with"],
        /// [`crate::block_diag`]
        BlockDiag = "block_diag" [],
        /// [`Tensor::trace`]
        Trace = "trace" ["trace"],
    }
}

/// A shape op applied to its operands: what its forward function and its derivative read.
#[derive(Clone, Copy)]
enum Call<'a> {
    /// `(tensors, dim)`.
    Cat(&'a [&'a Tensor], i64),
    /// `(tensors, dim)`.
    Stack(&'a [&'a Tensor], i64),
    /// `(self, dims)`.
    Flip(&'a Tensor, &'a [i64]),
    /// `(self, shifts, dims)`.
    Roll(&'a Tensor, &'a [i64], &'a [i64]),
    /// `(self, k, dims)`.
    Rot90(&'a Tensor, i64, &'a [i64]),
    /// `(self, sizes)`.
    Repeat(&'a Tensor, &'a [i64]),
    /// `(self, diagonal)`.
    Tril(&'a Tensor, i64),
    /// `(self, diagonal)`.
    Triu(&'a Tensor, i64),
    /// `(self, dim, start, length)`.
    NarrowCopy(&'a Tensor, i64, i64, i64),
    /// `(self, diagonal)`, `self` not 1-d.
    Diag(&'a Tensor, i64),
    /// `(self, (offset, dim1, dim2))`.
    DiagEmbed(&'a Tensor, DiagEmbedOpts),
    /// `(tensors)`.
    BlockDiag(&'a [&'a Tensor]),
    /// `(self)`.
    Trace(&'a Tensor),
}

impl Call<'_> {
    /// The op's forward function (into a new tensor).
    fn forward(self) -> Result<Tensor> {
        match self {
            Call::Cat(ts, d) => cat_impl(ts, d),
            Call::Stack(ts, d) => stack_impl(ts, d),
            Call::Flip(x, dims) => flip_fwd(x, dims),
            Call::Roll(x, shifts, dims) => roll_fwd(x, shifts, dims),
            Call::Rot90(x, k, dims) => rot90_fwd(x, k, dims),
            Call::Repeat(x, sizes) => repeat_fwd(x, sizes),
            Call::Tril(x, k) => triangle_fwd(x, k, true),
            Call::Triu(x, k) => triangle_fwd(x, k, false),
            Call::NarrowCopy(x, dim, start, length) => narrow_copy_fwd(x, dim, start, length),
            Call::Diag(x, k) => diag_fwd(x, k),
            Call::DiagEmbed(x, o) => diag_embed_fwd(x, o),
            Call::BlockDiag(ts) => {
                // its block copies are not recorded
                let _ng = no_grad();
                block_diag_fwd(ts)
            }
            Call::Trace(x) => {
                // its diagonal and sum are not recorded
                let _ng = no_grad();
                trace_fwd(x)
            }
        }
    }

    /// The op's derivative: records `r`, the op's result (when grad mode is on and an input
    /// requires grad).
    fn derivative(self, r: Tensor) -> Result<Tensor> {
        match self {
            Call::Cat(ts, d) => gathered_n("CatBackward0", r, ts, |ids| {
                let rs: Vec<&Tensor> = ids.iter().collect();
                cat_impl(&rs, d)
            }),
            Call::Stack(ts, d) => gathered_n("StackBackward0", r, ts, |ids| {
                let rs: Vec<&Tensor> = ids.iter().collect();
                stack_impl(&rs, d)
            }),
            Call::Flip(x, dims) => gathered("FlipBackward0", r, x, |ids| flip_fwd(ids, dims)),
            Call::Roll(x, shifts, dims) => {
                gathered("RollBackward0", r, x, |ids| roll_fwd(ids, shifts, dims))
            }
            Call::Rot90(x, k, dims) => {
                gathered("Rot90Backward0", r, x, |ids| rot90_fwd(ids, k, dims))
            }
            Call::Repeat(x, sizes) => {
                gathered("RepeatBackward0", r, x, |ids| repeat_fwd(ids, sizes))
            }
            Call::Tril(x, k) => triangle(r, x, k, true),
            Call::Triu(x, k) => triangle(r, x, k, false),
            Call::NarrowCopy(x, dim, start, length) => narrow_copy_node(r, x, dim, start, length),
            Call::Diag(x, k) => diagonal_copy(r, x, k),
            // the dims wrap against the gradient's dims as they did against the output's
            Call::DiagEmbed(x, o) => diag_embed_node(r, x, o.offset, o.dim1, o.dim2),
            Call::BlockDiag(ts) => block_diag_node(r, ts),
            Call::Trace(x) => trace_node(r, x),
        }
    }

    /// Runs the op into a new tensor and records its node.
    fn call(self) -> Result<Tensor> {
        let r = self.forward()?;
        self.derivative(r)
    }
}

/// `x.tril_(k)` (`lower`) or `x.triu_(k)`: the triangle written into `x`, recorded as the
/// out-of-place op of `x`'s previous value.
fn triangle_(x: &Tensor, k: i64, lower: bool) -> Result<Tensor> {
    fn call(t: &Tensor, k: i64, lower: bool) -> Call<'_> {
        if lower {
            Call::Tril(t, k)
        } else {
            Call::Triu(t, k)
        }
    }
    inplace(
        x,
        &[],
        || {
            let r = call(&x.detached(), k, lower).forward()?;
            x.copy_(&r)
        },
        |old| call(old, k, lower).call(),
    )
}

/// `torch.cat(tensors)`: joins `tensors` (a slice of `Tensor`s or of `&Tensor`s) along dim 0.
/// Shapes, dtypes and errors: [`cat_with`].
pub fn cat<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Tensor> {
    cat_with(tensors, 0)
}

/// `torch.cat(tensors, dim)`: joins tensors along an existing dim.
///
/// Shapes: every tensor has the same sizes except along `dim`; the output's `dim` is the sum.
/// 1-D empty tensors (shape `(0,)`) are skipped whatever their rank (PyTorch's legacy rule),
/// and `dim` wraps against the first tensor that is not skipped. dtype: the promotion of every
/// input's dtype (`int32` with `float32` gives `float32`). The output is contiguous, or
/// channels-last when every input suggests channels-last.
///
/// Errors, in PyTorch's order: `zero-dimensional tensor (at position 0) cannot be
/// concatenated`; `Dimension out of range (expected to be in range of [-2, 1], but got 2)`
/// (IndexError); `torch.cat(): expected a non-empty list of Tensors` (ValueError); `Tensors must have same
/// number of dimensions: got 2 and 1`; `Sizes of tensors must match except in dimension 1.
/// Expected size 2 but got size 1 for tensor number 1 in the list.`; `Trying to create tensor
/// with negative dimension …` (summed sizes in `[2^63, 2^64)`); `torch.cat: the summed sizes
/// along dimension 0 (18446744073709551616) overflow int64` (four `(2^62, 0)` inputs).
pub fn cat_with<T: AsRef<Tensor>>(tensors: &[T], dim: impl Int) -> Result<Tensor> {
    let refs: Vec<&Tensor> = tensors.iter().map(|t| t.as_ref()).collect();
    Call::Cat(&refs, dim.to_i64()).call()
}

/// `torch.stack(tensors)`: joins equally-shaped tensors along a new dim 0. See
/// [`stack_with`].
pub fn stack<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Tensor> {
    stack_with(tensors, 0)
}

/// `torch.stack(tensors, dim)`: joins equally-shaped tensors along a new dim.
///
/// Shapes: `n` tensors of shape `S` → `S` with `n` inserted at `dim` (which wraps against
/// `S.len() + 1`). dtype: the promotion of the inputs' dtypes, as [`cat_with`].
///
/// Errors: `stack expects a non-empty TensorList`; `Dimension out of range (expected to be in
/// range of [-3, 2], but got 3)` (IndexError); `stack expects each tensor to be equal size,
/// but got [3, 1] at entry 0 and [1, 2] at entry 1`.
pub fn stack_with<T: AsRef<Tensor>>(tensors: &[T], dim: impl Int) -> Result<Tensor> {
    let refs: Vec<&Tensor> = tensors.iter().map(|t| t.as_ref()).collect();
    Call::Stack(&refs, dim.to_i64()).call()
}

/// `torch.block_diag(*tensors)`: the tensors (0-d as `(1, 1)`, 1-d `(n,)` as `(1, n)`, 2-d
/// as they are) placed along the diagonal of a zero matrix of the summed sizes. dtype: the
/// promotion of all (as `torch.result_type`). No tensors give an empty `(1, 0)` float32.
///
/// Error (RuntimeError): `torch.block_diag: Input tensors must have 2 or fewer dimensions.
/// Input 0 has 3 dimensions`; `torch.block_diag: the summed sizes [.., ..] overflow int64`
/// (e.g. four `(2^62, 0)` inputs).
pub fn block_diag<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Tensor> {
    let ts: Vec<&Tensor> = tensors.iter().map(|t| t.as_ref()).collect();
    Call::BlockDiag(&ts).call()
}

impl Tensor {
    /// `torch.flip(self, dims)`: the elements in reverse order along each of `dims`.
    ///
    /// Shapes: as `self`. dtype: `self`'s. Output fresh, with `self`'s strides order
    /// (`empty_like(self)`, preserve format).
    ///
    /// Errors: IndexError `Dimension out of range (expected to be in range of [-2, 1], but got
    /// -3)`; RuntimeError `dim 0 appears multiple times in the list of dims`.
    pub fn flip(&self, dims: impl IntoDims) -> Result<Tensor> {
        let dims = dims.into_shape();
        Call::Flip(self, &dims).call()
    }

    /// `torch.roll(self, shifts, dims)`: element `i` along `dims[k]` moves to
    /// `(i + shifts[k]) mod size`; dims rolled one after the other. With no dims and one
    /// shift the flattened tensor is rolled.
    ///
    /// Shapes: as `self`; dtype `self`'s; output fresh (`cat` of two `narrow`s: contiguous
    /// unless `self` is channels-last; an empty `self` is cloned, preserve format).
    ///
    /// Errors (RuntimeError): ``` `shifts` required ```; `shifts and dimensions must align.
    /// shifts: 3, dims:2`; IndexError `Dimension out of range (…)`, `Dimension specified as 0
    /// but tensor has no dimensions`.
    pub fn roll_with(&self, shifts: impl IntoShape, dims: impl IntoDims) -> Result<Tensor> {
        let (shifts, dims) = (shifts.into_shape(), dims.into_shape());
        Call::Roll(self, &shifts, &dims).call()
    }

    /// `torch.rot90(self)`: `rot90_with(1, [0, 1])`.
    pub fn rot90(&self) -> Result<Tensor> {
        self.rot90_with(1, [0, 1])
    }

    /// `torch.rot90(self, k, dims)`: rotates the plane of `dims` by `k` quarter turns (from
    /// the first dim towards the second). `k mod 4` = 1: `flip(dims[1]).transpose_(dims)`;
    /// 2: `flip(dims)`; 3: `flip(dims[0]).transpose_(dims)`; 0: a contiguous copy. The output
    /// is always fresh (not a view), with transposed strides for odd `k`. dtype: `self`'s.
    /// Autograd: `Rot90Backward0` (whatever `k`).
    ///
    /// Errors (RuntimeError, in order): `expected total rotation dims == 2, but got dims = 3`;
    /// `expected total dims >= 2, but got total dims = 1`; `expected rotation dims to be
    /// different, but got dim0 = 1 and dim1 = -1`; IndexError `Dimension out of range (…)`.
    pub fn rot90_with(&self, k: impl Int, dims: impl IntoDims) -> Result<Tensor> {
        let dims = dims.into_shape();
        Call::Rot90(self, k.to_i64(), &dims).call()
    }

    /// `torch.trace(self)`: the sum of the main diagonal of a matrix (`(n, m)` → 0-d), in the
    /// dtype `sum` gives (integers → int64). Autograd: `TraceBackward0` (`g` on the diagonal
    /// of zeros of `self`'s shape).
    ///
    /// Errors: RuntimeError `trace: expected a matrix, but got tensor with dim 3`;
    /// NotImplementedError `"trace" not implemented for 'Bool'`.
    pub fn trace(&self) -> Result<Tensor> {
        Call::Trace(self).call()
    }

    /// `self.repeat(*sizes)`: `self` tiled `sizes[d]` times along each dim; with more sizes
    /// than dims, `self` first gets leading size-1 dims.
    ///
    /// Shapes: `(s_0*r_0, …)` over the padded sizes. Output fresh, contiguous, `self`'s dtype.
    ///
    /// Errors (RuntimeError): `Number of dimensions of repeat dims can not be smaller than
    /// number of dimensions of tensor`; `Trying to create tensor with negative dimension -3:
    /// [-3, 4]`; the allocator's `DefaultCPUAllocator: can't allocate memory: …` for a
    /// result too large to allocate.
    pub fn repeat(&self, sizes: impl IntoShape) -> Result<Tensor> {
        let sizes = sizes.into_shape();
        Call::Repeat(self, &sizes).call()
    }

    /// `torch.tril(self, diagonal)`: the lower triangle of the last two dims (element `(i, j)`
    /// kept where `j - i <= diagonal`, zero elsewhere), batched over leading dims.
    ///
    /// Shapes: as `self` (at least 2-d). Output fresh, contiguous, `self`'s dtype.
    ///
    /// Error (RuntimeError): `tril: input tensor must have at least 2 dimensions`.
    pub fn tril_with(&self, diagonal: impl Int) -> Result<Tensor> {
        Call::Tril(self, diagonal.to_i64()).call()
    }

    /// `torch.triu(self, diagonal)`: the upper triangle (`j - i >= diagonal` kept); as
    /// [`Tensor::tril_with`].
    ///
    /// Error (RuntimeError): `triu: input tensor must have at least 2 dimensions`.
    pub fn triu_with(&self, diagonal: impl Int) -> Result<Tensor> {
        Call::Triu(self, diagonal.to_i64()).call()
    }

    /// `self.tril_(diagonal)`: [`Tensor::tril_with`] in place (through views into the base);
    /// returns `self`. Autograd: `TrilBackward0` rebased onto `self` (`CopySlices` on a
    /// view's base). Errors as [`Tensor::tril_with`], after the in-place autograd checks.
    pub fn tril_with_(&self, diagonal: impl Int) -> Result<Tensor> {
        triangle_(self, diagonal.to_i64(), true)
    }

    /// `self.triu_(diagonal)`: [`Tensor::triu_with`] in place; as [`Tensor::tril_with_`]
    /// (`TriuBackward0`).
    pub fn triu_with_(&self, diagonal: impl Int) -> Result<Tensor> {
        triangle_(self, diagonal.to_i64(), false)
    }

    /// `torch.narrow_copy(self, dim, start, length)`: a fresh contiguous copy of
    /// [`Tensor::narrow`] (elements `start..start+length` of `dim`; `self`'s dtype).
    ///
    /// Errors, in PyTorch's order: RuntimeError `narrow() cannot be applied to a 0-dim
    /// tensor.`; IndexError `Dimension out of range (…)` for a negative `dim`; for a positive
    /// `dim` past the last, RuntimeError `Expected dim < static_cast<int64_t>(self_sizes.size())
    /// to be true, but got false.  (Could this error message be improved?  If so, please report
    /// an enhancement request to PyTorch.)`; IndexError `start out of range (expected to be in
    /// range of [-3, 3], but got 4)`; RuntimeError `start (0) + length (-1) exceeds dimension
    /// size (3).` (a negative length too).
    pub fn narrow_copy(&self, dim: impl Int, start: impl Int, length: impl Int) -> Result<Tensor> {
        Call::NarrowCopy(self, dim.to_i64(), start.to_i64(), length.to_i64()).call()
    }

    /// `torch.diag(self, diagonal)`: for a 1-d `(n,)`, the `(n+|d|, n+|d|)` matrix with
    /// `self` on diagonal `d` and zeros elsewhere; for a 2-d, a contiguous copy of
    /// `diagonal(d)` (1-d).
    ///
    /// Error (RuntimeError): `diag(): Supports 1D or 2D tensors. Got 3D`.
    pub fn diag_with(&self, diagonal: impl Int) -> Result<Tensor> {
        let k = diagonal.to_i64();
        if self.dim() == 1 {
            return self.diag_embed_with((k, 0, 1));
        }
        Call::Diag(self, k).call()
    }

    /// `torch.diag_embed(self, offset, dim1, dim2)`: the last dim of `self` (size `n`) becomes
    /// diagonal `offset` of new planes of size `n+|offset|` at output dims `dim1`, `dim2`
    /// (which wrap against `self.dim() + 1`); zeros elsewhere.
    ///
    /// Shapes: `(*, n)` → `*` with two dims of `n+|offset|` inserted. Output fresh,
    /// contiguous, `self`'s dtype.
    ///
    /// Errors: IndexError `Dimension out of range (expected to be in range of [-1, 0], but got
    /// -2)`; RuntimeError `diagonal dimensions cannot be identical -1, 0` (as given).
    pub fn diag_embed_with(&self, opts: impl Into<DiagEmbedOpts>) -> Result<Tensor> {
        Call::DiagEmbed(self, opts.into()).call()
    }
}
