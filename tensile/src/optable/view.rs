//! The view ops ([`ViewId`]): `view`, `reshape`, `flatten`, `ravel`, `unflatten`, `squeeze`,
//! `unsqueeze`, `transpose`, `t`, `T`, `permute`, `movedim`, `narrow`, `select`, `slice`,
//! `expand`, `diagonal`, `unfold`, `as_strided`, and the multi-output `split`,
//! `split_with_sizes`, `chunk`, `unbind`.
//!
//! The forward functions are the `*_fwd` methods of [`crate::views`] (the geometry, no
//! recording); the derivatives are the view formulas of `autograd::formulas::views`
//! (`view`, `view_replay`, `reshape`, `reshape_replay`, `pieces`, `views`), picked with the
//! node name by an exhaustive `match` on the id ([`record`], [`record_multi`]). The composite
//! forms (`view_as`, `reshape_as`, `flatten`, `mT`, `expand_as`, `broadcast_to`, `diagonal`,
//! `split`, `chunk`, `unbind`) stay in `views.rs` and call these.

use crate::args::{Int, IntoDims, IntoShape};
use crate::autograd::formulas::views as f;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::views::{DiagonalOpts, FlattenOpts, SplitSizes, SplitSpec};

op_ids! {
    /// A view op (see [`crate::OpId`]).
    pub enum ViewId {
        /// [`Tensor::view`]
        View = "view" ["view"],
        /// [`Tensor::reshape`]
        Reshape = "reshape" ["reshape"],
        /// [`Tensor::flatten_with`]
        Flatten = "flatten" ["flatten_with"],
        /// [`Tensor::ravel`]
        Ravel = "ravel" ["ravel"],
        /// [`Tensor::unflatten`]
        Unflatten = "unflatten" ["unflatten"],
        /// [`Tensor::squeeze`]
        Squeeze = "squeeze" ["squeeze"],
        /// [`Tensor::squeeze_dim`]
        SqueezeDim = "squeeze.dim" ["squeeze_dim"],
        /// [`Tensor::squeeze_dim`] given a list of dims
        SqueezeDims = "squeeze.dims" ["squeeze_dim"],
        /// [`Tensor::unsqueeze`]
        Unsqueeze = "unsqueeze" ["unsqueeze"],
        /// [`Tensor::transpose`]
        Transpose = "transpose" ["transpose"],
        /// [`Tensor::t`]
        T = "t" ["t"],
        /// [`Tensor::T`]
        ReverseDims = "T" ["T"],
        /// [`Tensor::permute`]
        Permute = "permute" ["permute"],
        /// [`Tensor::movedim`]
        Movedim = "movedim" ["movedim"],
        /// [`Tensor::narrow`]
        Narrow = "narrow" ["narrow"],
        /// [`Tensor::select`]
        Select = "select" ["select"],
        /// [`Tensor::slice`]
        Slice = "slice" ["slice"],
        /// [`Tensor::expand`]
        Expand = "expand" ["expand"],
        /// [`Tensor::diagonal_with`]
        Diagonal = "diagonal" ["diagonal_with"],
        /// [`Tensor::unfold`]
        Unfold = "unfold" ["unfold"],
        /// [`Tensor::as_strided_with`]
        AsStrided = "as_strided" ["as_strided", "as_strided_with"],
        /// [`Tensor::split_with`]
        Split = "split" ["split_with"],
        /// [`Tensor::split_with_sizes`]
        SplitWithSizes = "split_with_sizes" ["split_with_sizes"],
        /// [`Tensor::chunk_with`]
        Chunk = "chunk" ["chunk_with"],
        /// [`Tensor::unbind_with`]
        Unbind = "unbind" ["unbind_with"],
    }
}

/// The replay of an op whose derivative does not replay it (see [`record`]).
fn no_replay(_: &Tensor) -> Result<Tensor> {
    Err(Error::runtime("internal error: this view op has no replay"))
}

/// Records the single-output view `out` of `x` made by `op`: its node name and formula (a
/// plain strided view, or one that replays the op on element ids when `x` overlaps).
fn record(
    op: ViewId,
    out: Tensor,
    x: &Tensor,
    replay: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    use ViewId as V;
    match op {
        V::View | V::Unflatten => f::view_replay("ViewBackward0", out, x, replay),
        V::Reshape => f::reshape_replay(out, x, replay),
        V::Flatten => f::reshape_replay(out, x, replay),
        V::Ravel => f::view("ViewBackward0", out, x),
        V::Squeeze => f::view_replay("SqueezeBackward0", out, x, replay),
        V::SqueezeDim => f::view_replay("SqueezeBackward1", out, x, replay),
        V::SqueezeDims => f::view_replay("SqueezeBackward2", out, x, replay),
        V::Unsqueeze => f::view_replay("UnsqueezeBackward0", out, x, replay),
        V::Transpose => f::view_replay("TransposeBackward0", out, x, replay),
        V::T => f::view_replay("TBackward0", out, x, replay),
        V::Permute => f::view_replay("PermuteBackward0", out, x, replay),
        V::ReverseDims | V::Movedim => f::view_replay("PermuteBackward0", out, x, replay),
        V::Narrow | V::Slice => f::view_replay("SliceBackward0", out, x, replay),
        V::Select => f::view_replay("SelectBackward0", out, x, replay),
        V::Expand => f::view_replay("ExpandBackward0", out, x, replay),
        V::Diagonal => f::view_replay("DiagonalBackward0", out, x, replay),
        V::Unfold => f::view_replay("UnfoldBackward0", out, x, replay),
        V::AsStrided => f::view("AsStridedBackward0", out, x),
        V::Split | V::SplitWithSizes | V::Chunk | V::Unbind => Err(Error::runtime(format!(
            "internal error: {} returns several views",
            op.name()
        ))),
    }
}

/// Records the pieces `outs` of `x` made by a multi-output view op (`split`,
/// `split_with_sizes`, `chunk`: consecutive `narrow`s of `lengths` along dim `d`, `geo`).
fn record_multi(
    op: ViewId,
    outs: Vec<Tensor>,
    x: &Tensor,
    geo: (usize, Vec<usize>),
) -> Result<Vec<Tensor>> {
    use ViewId as V;
    let name = match op {
        V::Split | V::Chunk => "SplitBackward0",
        V::SplitWithSizes => "SplitWithSizesBackward0",
        V::Unbind => return f::views("UnbindBackward0", outs, x),
        V::View
        | V::Reshape
        | V::Flatten
        | V::Ravel
        | V::Unflatten
        | V::Squeeze
        | V::SqueezeDim
        | V::SqueezeDims
        | V::Unsqueeze
        | V::Transpose
        | V::T
        | V::ReverseDims
        | V::Permute
        | V::Movedim
        | V::Narrow
        | V::Select
        | V::Slice
        | V::Expand
        | V::Diagonal
        | V::Unfold
        | V::AsStrided => {
            return Err(Error::runtime(format!(
                "internal error: {} returns one view",
                op.name()
            )));
        }
    };
    f::pieces(name, outs, x, Some(geo))
}

/// `at::_unsafe_view(x, shape)`: `x` (a fresh result no one else holds) seen with sizes
/// `shape`, sharing its storage but not a view for autograd (`UnsafeViewBackward0`, the
/// gradient reshaped back), as PyTorch's composites end (`kron`, batched `matmul`). Errors:
/// [`Tensor::view`]'s.
pub(crate) fn unsafe_view(x: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let out = x.view_fwd(shape)?;
    f::unsafe_view(out, x)
}

/// Records `unbind`'s views of `x` (see [`record_multi`]).
fn record_unbind(outs: Vec<Tensor>, x: &Tensor) -> Result<Vec<Tensor>> {
    record_multi(ViewId::Unbind, outs, x, (0, Vec::new()))
}

impl Tensor {
    /// `self.view(shape)`: the same elements, in row-major order, seen with sizes `shape` (one
    /// entry may be `-1`, inferred from the element count). Always a view: strides (in
    /// elements) come from PyTorch's `computeStride`, the storage offset is kept.
    ///
    /// Errors (RuntimeError): `only one dimension can be inferred`;
    /// `invalid shape dimension -2 at index 0 of shape [-2, 3]`;
    /// `shape '[5, -1]' is invalid for input of size 24`;
    /// `cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension size -1 can be any value and is ambiguous`;
    /// `view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.`
    pub fn view(&self, shape: impl IntoShape) -> Result<Tensor> {
        let shape = shape.into_shape();
        let out = self.view_fwd(&shape)?;
        record(ViewId::View, out, self, |ids| ids.view(shape.clone()))
    }

    /// `self.reshape(shape)`: as [`Tensor::view`] when the layout allows a view; otherwise a
    /// contiguous copy (fresh storage, row-major strides) with sizes `shape`. One entry may be
    /// `-1`.
    ///
    /// Errors: the shape errors of [`Tensor::view`] (`only one dimension can be inferred`,
    /// `invalid shape dimension …`, `shape '[5, -1]' is invalid for input of size 24`,
    /// `cannot reshape tensor of 0 elements into shape …`).
    pub fn reshape(&self, shape: impl IntoShape) -> Result<Tensor> {
        let shape = shape.into_shape();
        let out = self.reshape_fwd(&shape)?;
        record(ViewId::Reshape, out, self, |ids| ids.reshape(shape.clone()))
    }

    /// `self.flatten(start_dim, end_dim)`: as [`Tensor::flatten`] with PyTorch's optional
    /// arguments: `x.flatten_with(1)` (start_dim), `x.flatten_with((1, 2))`, or
    /// [`FlattenOpts`] (`FlattenOpts { end_dim: 1, ..Default::default() }`). Errors as
    /// [`Tensor::flatten`].
    pub fn flatten_with(&self, opts: impl Into<FlattenOpts>) -> Result<Tensor> {
        let opts = opts.into();
        let out = self.flatten_fwd(opts)?;
        record(ViewId::Flatten, out, self, |ids| ids.flatten_with(opts))
    }

    /// `self.ravel()` = `self.contiguous().view(-1)`: 1-d, `numel()` elements; a view of
    /// `self` when it is contiguous, otherwise a contiguous copy with fresh storage (even when a
    /// strided 1-d view would do: `arange(20)[::4].ravel()` is a copy, as in PyTorch).
    pub fn ravel(&self) -> Result<Tensor> {
        let (c, r) = self.ravel_fwd()?;
        record(ViewId::Ravel, r, &c, no_replay)
    }

    /// `self.unflatten(dim, sizes)`: dim `dim` split into `sizes` (one entry may be `-1`),
    /// e.g. `(2,12).unflatten(1, [3,-1])` → `(2,3,4)`. Always a view.
    ///
    /// Errors: IndexError `Dimension out of range (…)`; RuntimeError
    /// `unflatten: sizes must be non-empty`;
    /// `unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor`
    /// (the wrapped dim); any other failure of the size inference is reported as
    /// `unflatten got an unexpected error:\n{original message}` (e.g. two `-1`s, or a 0-d input:
    /// `…\nDimension specified as 0 but tensor has no dimensions`).
    pub fn unflatten(&self, dim: impl Int, sizes: impl IntoShape) -> Result<Tensor> {
        let out = self.unflatten_fwd(dim.to_i64(), &sizes.into_shape())?;
        let shape = out.size().to_vec();
        record(ViewId::Unflatten, out, self, |ids| ids.reshape(&shape[..]))
    }

    /// `self.squeeze()`: every size-1 dim removed (`(1,3,1)` → `(3,)`, `(1,1)` → 0-d); the
    /// other sizes and strides (elements) are kept. A view; never an error.
    pub fn squeeze(&self) -> Result<Tensor> {
        let out = self.squeeze_fwd(None)?;
        record(ViewId::Squeeze, out, self, |ids| ids.squeeze())
    }

    /// `self.squeeze(dim)`: the listed dims (one dim or a list, [`IntoDims`]) that have size 1
    /// removed; an empty list gives an unchanged view. A 0-d input accepts `0` and `-1` and
    /// stays 0-d. Autograd: `SqueezeBackward1` for one int (`squeeze.dim`), `SqueezeBackward2`
    /// for a list, even of one dim (`squeeze.dims`).
    ///
    /// Errors: IndexError `Dimension out of range (…)`; RuntimeError
    /// `dim 1 appears multiple times in the list of dims` (the wrapped dim).
    pub fn squeeze_dim(&self, dims: impl IntoDims) -> Result<Tensor> {
        let id = if dims.is_single_int() {
            ViewId::SqueezeDim
        } else {
            ViewId::SqueezeDims
        };
        let out = self.squeeze_fwd(Some(&dims.into_shape()))?;
        let shape = out.size().to_vec();
        record(id, out, self, |ids| ids.reshape(&shape[..]))
    }

    /// `self.unsqueeze(dim)`: a size-1 dim inserted at `dim` (wrapped against `ndim+1`), with
    /// stride `size*stride` of the dim that follows it (1 when last): `(2,3).unsqueeze(1)` has
    /// strides `(3,3,1)`. A view.
    ///
    /// Error: IndexError `Dimension out of range (expected to be in range of [-3, 2], but got 3)`.
    pub fn unsqueeze(&self, dim: impl Int) -> Result<Tensor> {
        let dim = dim.to_i64();
        let out = self.unsqueeze_fwd(dim)?;
        record(ViewId::Unsqueeze, out, self, |ids| ids.unsqueeze(dim))
    }

    /// `self.transpose(dim0, dim1)`: the two dims' sizes and strides swapped (a view; equal
    /// dims give an alias). A 0-d tensor accepts `0`/`-1`.
    ///
    /// Error: IndexError `Dimension out of range (expected to be in range of [-2, 1], but got 2)`.
    pub fn transpose(&self, dim0: impl Int, dim1: impl Int) -> Result<Tensor> {
        let (dim0, dim1) = (dim0.to_i64(), dim1.to_i64());
        let out = self.transpose_fwd(dim0, dim1)?;
        record(ViewId::Transpose, out, self, |ids| {
            ids.transpose(dim0, dim1)
        })
    }

    /// `self.t()`: `transpose(0, 1)` of a 2-d tensor; 0-d and 1-d tensors come back as an
    /// unchanged view.
    ///
    /// Error: RuntimeError `t() expects a tensor with <= 2 dimensions, but self is 3D`.
    pub fn t(&self) -> Result<Tensor> {
        let out = self.t_fwd()?;
        record(ViewId::T, out, self, |ids| ids.t())
    }

    /// `self.T`: all dims reversed (`permute(n-1, …, 0)`), a view; never an error.
    ///
    /// Warns once per process (through [`crate::warnings::warn`]) for ndim ∉ {0, 2}:
    /// ``The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.``
    /// and for 0-d: `Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.`
    #[allow(non_snake_case)]
    pub fn T(&self) -> Result<Tensor> {
        let out = self.T_fwd()?;
        let rev: Vec<i64> = (0..self.dim() as i64).rev().collect();
        record(ViewId::ReverseDims, out, self, |ids| ids.permute(rev))
    }

    /// `self.permute(dims)`: result dim `i` is input dim `dims[i]` (sizes and strides moved
    /// together), a view.
    ///
    /// Errors: RuntimeError `permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 3`;
    /// IndexError `Dimension out of range (…)`; RuntimeError `permute(): duplicate dims are not allowed.`
    pub fn permute(&self, dims: impl IntoDims) -> Result<Tensor> {
        let dims = dims.into_shape();
        let out = self.permute_fwd(&dims)?;
        record(ViewId::Permute, out, self, |ids| ids.permute(dims.clone()))
    }

    /// `self.movedim(source, destination)` (alias `moveaxis`): dims `source[i]` moved to
    /// positions `destination[i]`, the others keeping their relative order. A view; a 0-d
    /// input gives an alias.
    ///
    /// Errors: RuntimeError `movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same number of dims as destination ([2] dims)`;
    /// IndexError `Dimension out of range (…)`;
    /// RuntimeError ``movedim: repeated dim in `source` ([0, 0])``,
    /// ``movedim: repeated dim in `destination` ([2, 2])`` (lists as given).
    pub fn movedim(&self, source: impl IntoDims, destination: impl IntoDims) -> Result<Tensor> {
        let (source, destination) = (source.into_shape(), destination.into_shape());
        let out = self.movedim_fwd(&source, &destination)?;
        record(ViewId::Movedim, out, self, |ids| {
            ids.movedim(source.clone(), destination.clone())
        })
    }

    /// `self.narrow(dim, start, length)`: elements `start..start+length` of dim `dim` (a
    /// negative `start` counts from the end); same strides, offset moved by
    /// `start*stride[dim]`. A view.
    ///
    /// Errors, in PyTorch's order: RuntimeError `narrow() cannot be applied to a 0-dim tensor.`;
    /// RuntimeError `narrow(): length must be non-negative.`; IndexError `Dimension out of range (…)`;
    /// IndexError `start out of range (expected to be in range of [-3, 3], but got 4)`;
    /// RuntimeError `start (2) + length (2) exceeds dimension size (3).` (the wrapped start).
    pub fn narrow(&self, dim: impl Int, start: impl Int, length: impl Int) -> Result<Tensor> {
        let (dim, start, length) = (dim.to_i64(), start.to_i64(), length.to_i64());
        let out = self.narrow_fwd(dim, start, length)?;
        record(ViewId::Narrow, out, self, |ids| {
            ids.narrow(dim, start, length)
        })
    }

    /// `self.select(dim, index)` (what `t[..., index]` does on one dim): dim `dim` removed,
    /// offset moved by `index*stride[dim]` (a negative `index` counts from the end). A view.
    ///
    /// Errors: IndexError `select() cannot be applied to a 0-dim tensor.`;
    /// IndexError `Dimension out of range (…)`;
    /// IndexError `select(): index 5 out of range for tensor of size [5, 2] at dimension 0`.
    pub fn select(&self, dim: impl Int, index: impl Int) -> Result<Tensor> {
        let (dim, index) = (dim.to_i64(), index.to_i64());
        let out = self.select_fwd(dim, index)?;
        record(ViewId::Select, out, self, |ids| ids.select(dim, index))
    }

    /// `torch.slice(self, dim, start, end, step)` (Python's `t[:, start:end:step]` on one
    /// dim): bounds default to `0` and `i64::MAX`, negative ones count from the end, and both
    /// are clamped into the dim, so there is never an out-of-range error. New size
    /// `ceil((end-start)/step)`, stride `stride*step`, offset moved by `start*stride`. A view.
    ///
    /// Errors: IndexError `slice() cannot be applied to a 0-dim tensor.`;
    /// IndexError `Dimension out of range (…)`; RuntimeError `slice step must be positive`.
    pub fn slice(
        &self,
        dim: impl Int,
        start: Option<i64>,
        end: Option<i64>,
        step: impl Int,
    ) -> Result<Tensor> {
        let (dim, step) = (dim.to_i64(), step.to_i64());
        let out = self.slice_fwd(dim, start, end, step)?;
        record(ViewId::Slice, out, self, |ids| {
            ids.slice(dim, start, end, step)
        })
    }

    /// `self.expand(*sizes)`: size-1 dims repeated to `sizes` (stride 0), new leading dims
    /// added; `-1` keeps a size. A view with the same storage offset, even when nothing
    /// changes. Strides (elements): kept for unchanged dims, 0 for expanded dims, and for a new
    /// leading dim of size 1 the `size*stride` of the dim to its right (`ones(3).expand(1,3)`
    /// has strides `(3,1)`); a 0-d input takes `sizes` verbatim with all-zero strides.
    ///
    /// Errors (RuntimeError):
    /// `expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)`;
    /// `The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0`;
    /// `The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]`;
    /// `numel: integer multiplication overflow` (a negative size other than -1 on a size-1 dim).
    pub fn expand(&self, sizes: impl IntoShape) -> Result<Tensor> {
        let sizes = sizes.into_shape();
        let out = self.expand_fwd(&sizes)?;
        record(ViewId::Expand, out, self, |ids| ids.expand(sizes.clone()))
    }

    /// `self.diagonal(offset, dim1, dim2)`: as [`Tensor::diagonal`] with PyTorch's optional
    /// arguments: `x.diagonal_with(1)` (offset), `x.diagonal_with((0, -2, -1))`, or
    /// [`DiagonalOpts`]. Errors as [`Tensor::diagonal`].
    pub fn diagonal_with(&self, opts: impl Into<DiagonalOpts>) -> Result<Tensor> {
        let opts = opts.into();
        let out = self.diagonal_fwd(opts)?;
        record(ViewId::Diagonal, out, self, |ids| ids.diagonal_with(opts))
    }

    /// `self.unfold(dim, size, step)`: all windows of length `size` taken every `step` along
    /// `dim`; dim `dim` becomes the window count `(sizes[dim]-size)/step + 1` (stride
    /// `stride*step`) and a new last dim of length `size` (stride `stride[dim]`) is added. A
    /// 0-d tensor counts as 1-d of size 1. A view: `arange(7).unfold(0,3,2)` is `(3,3)` with
    /// strides `(2,1)`.
    ///
    /// Errors: IndexError `Dimension out of range (…)`; RuntimeError
    /// `maximum size for tensor at dimension 0 is 7 but size is 8`, `size is -1 but must be >= 0`,
    /// `step is 0 but must be > 0`.
    pub fn unfold(&self, dim: impl Int, size: impl Int, step: impl Int) -> Result<Tensor> {
        let (dim, size, step) = (dim.to_i64(), size.to_i64(), step.to_i64());
        let out = self.unfold_fwd(dim, size, step)?;
        record(ViewId::Unfold, out, self, |ids| ids.unfold(dim, size, step))
    }

    /// `self.as_strided(size, stride, storage_offset)`: a view of the same storage with the
    /// given sizes, strides (elements) and offset (elements, absolute — not relative to
    /// `self`'s offset; `None` keeps `self`'s). Bounds-checked against the storage; a view with
    /// no elements skips the check.
    ///
    /// Errors (RuntimeError), in PyTorch's order: `mismatch in length of strides and shape`;
    /// `as_strided: Negative strides are not supported at the moment, got strides: [1, -1]`;
    /// `Storage size calculation overflowed with sizes=[2, -2] and strides=[1, 1]`;
    /// `setStorage: sizes [2, 2], strides [3, 3], storage offset 1, and itemsize 4 requiring a storage size of 32 are out of bounds for storage of size 24`;
    /// `Tensor: invalid storage offset -1`; `numel: integer multiplication overflow`.
    ///
    /// Stricter than PyTorch for absurd empty views, so that byte arithmetic elsewhere cannot
    /// overflow: sizes (0 counted as 1) multiplying past `i64::MAX / itemsize` give
    /// `numel: integer multiplication overflow`; a dim of size ≥ 2 whose `size*stride` bytes
    /// pass `i64::MAX` gives `Storage size calculation overflowed with sizes=… and strides=…`;
    /// an offset past `i64::MAX / itemsize` gives `storage offset overflows int64`. The stride
    /// of a size-0 or size-1 dim is clamped to `i64::MAX / itemsize`.
    pub fn as_strided(&self, size: impl IntoShape, stride: impl IntoShape) -> Result<Tensor> {
        let offset = self.offset as i64;
        let out = self.as_strided_fwd(&size.into_shape(), &stride.into_shape(), offset)?;
        record(ViewId::AsStrided, out, self, no_replay)
    }

    /// `self.as_strided(size, stride, storage_offset)`: as [`Tensor::as_strided`] with an
    /// explicit storage offset (elements, absolute). Errors as [`Tensor::as_strided`].
    pub fn as_strided_with(
        &self,
        size: impl IntoShape,
        stride: impl IntoShape,
        storage_offset: impl Int,
    ) -> Result<Tensor> {
        let (size, stride) = (size.into_shape(), stride.into_shape());
        let out = self.as_strided_fwd(&size, &stride, storage_offset.to_i64())?;
        record(ViewId::AsStrided, out, self, no_replay)
    }

    /// `self.split(split_size_or_sections, dim)`: consecutive views along `dim` (`narrow`s).
    /// An integer gives pieces of that many elements, the last one shorter (`(5,).split(2)`
    /// → sizes 2, 2, 1); a list (`[1, 3]`, `vec![…]`, `&sizes[..]`) gives pieces of exactly
    /// those sizes ([`Tensor::split_with_sizes`]).
    ///
    /// Errors: RuntimeError `split expects at least a 1-dimensional tensor`;
    /// `split expects split_size be non-negative, but got split_size=-1`;
    /// IndexError `Dimension out of range (…)`;
    /// RuntimeError `split_size can only be 0 if dimension size is 0, but got dimension size of 3`;
    /// and those of [`Tensor::split_with_sizes`] for a list.
    pub fn split_with(
        &self,
        split_size_or_sections: impl SplitSizes,
        dim: impl Int,
    ) -> Result<Vec<Tensor>> {
        let dim = dim.to_i64();
        let split_size = match split_size_or_sections.into_split() {
            SplitSpec::Sizes(sizes) => return self.split_with_sizes(&sizes[..], dim),
            SplitSpec::Size(s) => s,
        };
        let (outs, geo) = self.split_fwd(split_size, dim)?;
        record_multi(ViewId::Split, outs, self, geo)
    }

    /// `torch.split_with_sizes(self, split_sizes, dim)`: consecutive views along `dim` of
    /// exactly the given sizes.
    ///
    /// Errors: RuntimeError `split expects at least a 1-dimensional tensor`; IndexError
    /// `Dimension out of range (…)`; RuntimeError `split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[1, -1]`;
    /// `split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension -1), but got split_sizes=[2, 2]`
    /// (the dim as given).
    pub fn split_with_sizes(
        &self,
        split_sizes: impl IntoShape,
        dim: impl Int,
    ) -> Result<Vec<Tensor>> {
        let (outs, geo) = self.split_with_sizes_fwd(&split_sizes.into_shape(), dim.to_i64())?;
        record_multi(ViewId::SplitWithSizes, outs, self, geo)
    }

    /// `self.chunk(chunks, dim)`: as [`Tensor::chunk`] along `dim`.
    pub fn chunk_with(&self, chunks: impl Int, dim: impl Int) -> Result<Vec<Tensor>> {
        let (outs, geo) = self.chunk_fwd(chunks.to_i64(), dim.to_i64())?;
        record_multi(ViewId::Chunk, outs, self, geo)
    }

    /// `self.unbind(dim)`: as [`Tensor::unbind`] along `dim`.
    pub fn unbind_with(&self, dim: impl Int) -> Result<Vec<Tensor>> {
        let outs = self.unbind_fwd(dim.to_i64())?;
        record_unbind(outs, self)
    }
}
