//! The index ops ([`IndexId`]): along one dim, `index_select`, `index_add`, `index_copy`,
//! `index_fill`, `index_reduce` (and their in-place forms); element-wise, `gather`,
//! `scatter` (a tensor `src` or a number, with the legacy `reduce=`), `scatter_add`,
//! `scatter_reduce` and `take` (their methods are in [`crate::optable::scatter`]); advanced
//! indexing, `x[idx]` ([`Tensor::index`]), `index_put` and `x[idx] = v`
//! ([`Tensor::index_set_`]); and `embedding`.
//!
//! The forward functions are [`crate::ops::index_ops`]'s, [`crate::ops::gather_scatter`]'s,
//! [`crate::ops::advindex`]'s and [`crate::ops::nn`]'s `embedding_fwd`; the derivatives are
//! formulas of [`crate::autograd::formulas`]: the ops that only move elements are
//! `gathered` (their backward replays the forward function on element ids), the others
//! have formulas of their own in `formulas::index` and `formulas::index_write`. Each method
//! is a [`Call`], the op applied to its operands, whose forward function and derivative are
//! picked by exhaustive matches on it. The in-place forms write the forward function's
//! result into `self` and are recorded as the out-of-place op of `self`'s previous value
//! ([`Call::write`]). `take_along_dim`, which only calls `gather`, stays in `ops/`.

use crate::args::Int;
use crate::autograd::formulas::index::{
    gathered, index_add as index_add_node, scatter_add as scatter_add_node,
};
use crate::autograd::formulas::index_write::{
    Axis, index_copy as index_copy_node, index_fill as index_fill_node,
    index_put as index_put_node, reduce_op, scatter as scatter_node, take as take_node,
};
use crate::autograd::formulas::views::alias_if_same;
use crate::autograd::{inplace, no_grad};
use crate::dim::wrap_dim;
use crate::error::Result;
use crate::index::{TensorIndex, apply_select, apply_slicing};
use crate::ops::Operand;
use crate::ops::advindex::{
    IndexList, IndexPutOpts, SetItem, index_fill_shortcut, index_op, index_put_fwd, put_impl,
    setitem_masked_fill_raw_, setitem_plan,
};
use crate::ops::gather_scatter::{
    gather_fwd, scatter_add_fwd, scatter_fwd, scatter_reduce_fwd, take_fwd,
};
use crate::ops::index_ops::{
    IndexAddOpts, IndexReduceOpts, index_add_fwd, index_copy_fwd, index_fill_fwd, index_fill_raw_,
    index_reduce_fwd, index_select_fwd,
};
use crate::ops::nn::embedding_fwd;
use crate::tensor::{Scalar, Tensor};

op_ids! {
    /// An index op (see [`crate::OpId`]).
    pub enum IndexId {
        /// [`Tensor::index_select`]
        IndexSelect = "index_select" ["index_select"],
        /// [`Tensor::index_add_with`]
        IndexAdd = "index_add" ["index_add", "index_add_with", "index_add_", "index_add_with_"],
        /// [`Tensor::index_copy`]
        IndexCopy = "index_copy" ["index_copy", "index_copy_"],
        /// [`Tensor::index_fill`]
        IndexFill = "index_fill" ["index_fill", "index_fill_"],
        /// [`Tensor::index_reduce_with`]
        IndexReduce = "index_reduce" [
            "index_reduce",
            "index_reduce_with",
            "index_reduce_",
            "index_reduce_with_",
        ],
        /// [`Tensor::gather`]
        Gather = "gather" ["gather"],
        /// [`Tensor::scatter_with`]
        Scatter = "scatter" ["scatter", "scatter_with", "scatter_", "scatter_with_"],
        /// [`Tensor::scatter_add`]
        ScatterAdd = "scatter_add" ["scatter_add", "scatter_add_"],
        /// [`Tensor::scatter_reduce_with`]
        ScatterReduce = "scatter_reduce" [
            "scatter_reduce",
            "scatter_reduce_with",
            "scatter_reduce_",
            "scatter_reduce_with_",
        ],
        /// [`Tensor::take`]
        Take = "take" ["take"],
        /// [`Tensor::index`] (`x[idx]`, PyTorch's `aten::index`)
        Index = "index" ["index"],
        /// [`Tensor::index_put_with`] (and `x[idx] = v`, [`Tensor::index_set_`])
        IndexPut = "index_put" [
            "index_put",
            "index_put_with",
            "index_put_",
            "index_put_with_",
            "index_set_",
        ],
        /// [`crate::nn::functional::embedding`]
        Embedding = "embedding" [],
    }
}

/// An index op applied to its operands: what its forward function and its derivative read.
#[derive(Clone, Copy)]
pub(super) enum Call<'a> {
    /// `(self, dim, index)`.
    IndexSelect(&'a Tensor, i64, &'a Tensor),
    /// `(self, dim, index, source, alpha)`.
    IndexAdd(&'a Tensor, i64, &'a Tensor, &'a Tensor, Scalar),
    /// `(self, dim, index, source)`.
    IndexCopy(&'a Tensor, i64, &'a Tensor, &'a Tensor),
    /// `(self, dim, index, value)`.
    IndexFill(&'a Tensor, i64, &'a Tensor, Operand<'a>),
    /// `(self, dim, index, source, reduce, include_self)`.
    IndexReduce(&'a Tensor, i64, &'a Tensor, &'a Tensor, &'a str, bool),
    /// `(self, dim, index)`.
    Gather(&'a Tensor, i64, &'a Tensor),
    /// `(self, dim, index, src, reduce)`: `src` a tensor or a number, `reduce` the legacy
    /// `"add"`/`"multiply"` or `None`.
    Scatter(&'a Tensor, i64, &'a Tensor, Operand<'a>, Option<&'a str>),
    /// `(self, dim, index, src)`.
    ScatterAdd(&'a Tensor, i64, &'a Tensor, &'a Tensor),
    /// `(self, dim, index, src, reduce, include_self)`.
    ScatterReduce(&'a Tensor, i64, &'a Tensor, &'a Tensor, &'a str, bool),
    /// `(self, index)`.
    Take(&'a Tensor, &'a Tensor),
    /// `(src, indices)`: `src` the view the basic items select, `indices` aligned with its
    /// dims (PyTorch's `aten::index`).
    Index(&'a Tensor, &'a [Option<Tensor>]),
    /// `(self, indices, values, accumulate)`.
    IndexPut(&'a Tensor, &'a [Option<Tensor>], &'a Tensor, bool),
    /// `(input, weight)`: the indices first, as PyTorch's argument order.
    Embedding(&'a Tensor, &'a Tensor),
}

impl<'a> Call<'a> {
    /// The op's forward function (into a new tensor).
    fn forward(self) -> Result<Tensor> {
        match self {
            Call::IndexSelect(x, dim, index) => index_select_fwd(x, dim, index),
            Call::IndexAdd(x, dim, index, source, alpha) => {
                index_add_fwd(x, dim, index, source, alpha)
            }
            Call::IndexCopy(x, dim, index, source) => index_copy_fwd(x, dim, index, source),
            Call::IndexFill(x, dim, index, value) => index_fill_fwd(x, dim, index, value),
            Call::IndexReduce(x, dim, index, source, reduce, include_self) => {
                index_reduce_fwd(x, dim, index, source, reduce, include_self)
            }
            Call::Gather(x, dim, index) => gather_fwd(x, dim, index),
            Call::Scatter(x, dim, index, src, reduce) => scatter_fwd(x, dim, index, src, reduce),
            Call::ScatterAdd(x, dim, index, src) => scatter_add_fwd(x, dim, index, src),
            Call::ScatterReduce(x, dim, index, src, reduce, include_self) => {
                scatter_reduce_fwd(x, dim, index, src, reduce, include_self)
            }
            Call::Take(x, index) => take_fwd(x, index),
            Call::Index(src, indices) => {
                // the views and copies `aten::index` makes of `src` are not recorded
                let _ng = no_grad();
                index_op(src, indices)
            }
            Call::IndexPut(x, indices, values, accumulate) => {
                index_put_fwd(x, indices, values, accumulate)
            }
            Call::Embedding(input, weight) => embedding_fwd(input, weight),
        }
    }

    /// The op's derivative: records `r`, the op's result (when grad mode is on and a tensor
    /// operand requires grad).
    fn derivative(self, r: Tensor) -> Result<Tensor> {
        match self {
            Call::IndexSelect(x, dim, index) => gathered("IndexSelectBackward0", r, x, |ids| {
                index_select_fwd(ids, dim, index)
            }),
            Call::IndexAdd(x, dim, index, source, alpha) => {
                let d = wrap_dim(dim, x.dim())? as i64;
                index_add_node(r, x, d, index, source, alpha.to_f64())
            }
            Call::IndexCopy(x, dim, index, source) => {
                let d = wrap_dim(dim, x.dim())? as i64;
                index_copy_node(r, x, d, index, source)
            }
            Call::IndexFill(x, dim, index, value) => {
                let vt = match value {
                    Operand::Tensor(t) => Some(t),
                    Operand::Scalar(_) => None,
                };
                index_fill_node(r, x, dim, index, vt)
            }
            Call::IndexReduce(x, dim, index, source, reduce, include_self) => {
                let ax = Axis {
                    slices: true,
                    dim: wrap_dim(dim, x.dim())? as i64,
                    index: index.alias(),
                };
                reduce_op(r, x, ax, source, reduce, include_self)
            }
            Call::Gather(x, dim, index) => {
                gathered("GatherBackward0", r, x, |ids| gather_fwd(ids, dim, index))
            }
            Call::Scatter(x, dim, index, src, reduce) => {
                let st = match src {
                    Operand::Tensor(t) => Some(t),
                    Operand::Scalar(_) => None,
                };
                scatter_node(r, x, dim, index, st, reduce.is_some())
            }
            Call::ScatterAdd(x, dim, index, src) => scatter_add_node(r, x, dim, index, src),
            Call::ScatterReduce(x, dim, index, src, reduce, include_self) => {
                let ax = Axis {
                    slices: false,
                    dim,
                    index: index.alias(),
                };
                reduce_op(r, x, ax, src, reduce, include_self)
            }
            Call::Take(x, index) => take_node(r, x, index),
            Call::Index(src, indices) => {
                gathered("IndexBackward0", r, src, |ids| index_op(ids, indices))
            }
            Call::IndexPut(x, indices, values, accumulate) => {
                index_put_node(r, x, indices, values, accumulate)
            }
            Call::Embedding(input, weight) => gathered("EmbeddingBackward0", r, weight, |ids| {
                index_select_fwd(ids, 0, &input.reshape(-1)?)
            }),
        }
    }

    /// Runs the op into a new tensor and records its node.
    pub(super) fn call(self) -> Result<Tensor> {
        let r = self.forward()?;
        self.derivative(r)
    }

    /// The tensor an in-place form writes into (`self`; for `embedding`, `weight`).
    fn this(self) -> &'a Tensor {
        match self {
            Call::IndexSelect(x, ..)
            | Call::IndexAdd(x, ..)
            | Call::IndexCopy(x, ..)
            | Call::IndexFill(x, ..)
            | Call::IndexReduce(x, ..)
            | Call::Gather(x, ..)
            | Call::Scatter(x, ..)
            | Call::ScatterAdd(x, ..)
            | Call::ScatterReduce(x, ..)
            | Call::Take(x, ..)
            | Call::Index(x, ..)
            | Call::IndexPut(x, ..)
            | Call::Embedding(_, x) => x,
        }
    }

    /// The same op applied to `x` in place of `self` (the previous value an in-place form
    /// is recorded on).
    fn on<'b>(self, x: &'b Tensor) -> Call<'b>
    where
        'a: 'b,
    {
        match self {
            Call::IndexSelect(_, d, i) => Call::IndexSelect(x, d, i),
            Call::IndexAdd(_, d, i, s, a) => Call::IndexAdd(x, d, i, s, a),
            Call::IndexCopy(_, d, i, s) => Call::IndexCopy(x, d, i, s),
            Call::IndexFill(_, d, i, v) => Call::IndexFill(x, d, i, v),
            Call::IndexReduce(_, d, i, s, r, inc) => Call::IndexReduce(x, d, i, s, r, inc),
            Call::Gather(_, d, i) => Call::Gather(x, d, i),
            Call::Scatter(_, d, i, s, r) => Call::Scatter(x, d, i, s, r),
            Call::ScatterAdd(_, d, i, s) => Call::ScatterAdd(x, d, i, s),
            Call::ScatterReduce(_, d, i, s, r, inc) => Call::ScatterReduce(x, d, i, s, r, inc),
            Call::Take(_, i) => Call::Take(x, i),
            Call::Index(_, i) => Call::Index(x, i),
            Call::IndexPut(_, i, v, acc) => Call::IndexPut(x, i, v, acc),
            Call::Embedding(i, _) => Call::Embedding(i, x),
        }
    }

    /// The in-place form: the op's new values written into `self` (through views into the
    /// base), unrecorded, then recorded by [`inplace`] as the out-of-place op of `self`'s
    /// previous value; `others` are the tensor operands whose requiring grad makes it
    /// record. `index_fill_` and `index_put_` write with their own in-place forward
    /// functions; the others copy the forward function's result. Returns `self` (an alias).
    pub(super) fn write(self, others: &[&Tensor]) -> Result<Tensor> {
        let x = self.this();
        inplace(
            x,
            others,
            || {
                match self {
                    Call::IndexFill(x, dim, index, value) => index_fill_raw_(x, dim, index, value)?,
                    Call::IndexPut(x, indices, values, accumulate) => {
                        put_impl(x, indices, values, accumulate)?
                    }
                    _ => {
                        let r = self.forward()?;
                        x.copy_raw_(&r)?;
                    }
                }
                Ok(x.alias())
            },
            |old| self.on(old).call(),
        )
    }
}

/// `torch.nn.functional.embedding(input, weight)`: row `input[...]` of `weight` (PyTorch's
/// argument order: the indices first).
///
/// Shapes: `weight` `(num, dim)`, `indices` of any shape `S` (int64 or int32) → `S + (dim,)`,
/// fresh and contiguous.
///
/// Errors: `'weight' must be 2-D`; `Expected tensor for argument #1 'indices' to have one of
/// the following scalar types: Long, Int; but got torch.FloatTensor instead (while checking
/// arguments for embedding)`; `index out of range in self` (IndexError).
pub fn embedding(input: &Tensor, weight: &Tensor) -> Result<Tensor> {
    Call::Embedding(input, weight).call()
}

impl Tensor {
    /// Python's `t[items]` (`Tensor.__getitem__` with a tuple): basic indices give a view of
    /// `self`'s storage, advanced ones (index tensors, masks, lists, bools) a new tensor.
    /// Strides and offsets are in elements.
    ///
    /// Items are applied left to right, each to the next unindexed dim: an int selects (the
    /// dim disappears), a slice keeps the dim with `ceil(len/step)` elements (bounds clamped,
    /// never an error), `NewAxis` inserts a size-1 dim, and `Ellipsis` skips the dims no other
    /// item covers. Missing trailing items mean `:`. A list of exactly one `Int` is Python's
    /// `t[i]` (not `t[(i,)]`), which differs only on a 0-d tensor. A 0-d integer tensor item
    /// is an int (still a view).
    ///
    /// Advanced items: an int64/int32 index tensor picks positions along its dim (negative
    /// counting from the end); a bool/uint8 mask of `k` dims covers the next `k` dims and
    /// stands for the `k` int64 index tensors of its `True` positions (row-major order);
    /// `Bool(b)` inserts a size-1 dim indexed by `[0]` or by an empty index. All index
    /// tensors broadcast together to a shape `B`. If they are adjacent (no slice, `None` or
    /// `...` dim between them), `B` replaces their dims in place; otherwise `B` comes first,
    /// followed by the other dims in order (`x[[0, 1], :, [1, 2]]` on `(2, 3, 4)` is `(2, 3)`).
    /// The result is always a fresh tensor of `self`'s dtype, laid out as PyTorch's
    /// TensorIterator lays it out (unindexed dims keep `self`'s memory order).
    ///
    /// Errors, in PyTorch's order:
    /// IndexError `too many indices for tensor of dimension 2` (more ints, slices, index
    /// tensors and mask dims than dims, checked first); then per basic item, left to right:
    /// IndexError `index 5 is out of bounds for dimension 0 with size 5` (`dimension` is the
    /// item's position in the list), ValueError `slice step cannot be zero`,
    /// ValueError `step must be greater than zero`; and for `t[i]` on a 0-d tensor, IndexError
    /// ``invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number``.
    /// Then the advanced-indexing errors: IndexError `tensors used as indices must be long,
    /// int, byte or bool tensors`; IndexError `The shape of the mask [2] at index 0 does not
    /// match the shape of the indexed tensor [3, 4] at index 0`; IndexError `shape mismatch:
    /// indexing tensors could not be broadcast together with shapes [2], [3]`; IndexError
    /// `index is out of bounds for dimension with size 0`; IndexError `index 7 is out of
    /// bounds for dimension 1 with size 4` (`dimension` is the ordinal of the index tensor
    /// among the index tensors, masks counting one per dim).
    pub fn index(&self, items: &[TensorIndex]) -> Result<Tensor> {
        if let [TensorIndex::Int(i)] = items {
            return apply_select(self, 0, *i, 0);
        }
        // PyTorch skips the full slices of a tuple index: `x[:, :]` and `x[(slice(None),)]`
        // are `x` itself, returned as an alias (`AliasBackward0`). (Only a bare slice object,
        // `x[:]`, is not optimized; `items` is always a tuple here, as in the corpus.)
        let (result, indices) = apply_slicing(self, items, true)?;
        if indices.is_empty() {
            return alias_if_same(result, self);
        }
        Call::Index(&result, &indices).call()
    }

    /// `torch.index_select(self, dim, index)`: the slices `index[j]` of `self` along `dim`.
    ///
    /// Shapes: `self`'s with `dim` resized to `index.numel()`; `index` is 0-d or 1-d, int64 or
    /// int32. Output fresh and contiguous.
    ///
    /// Errors, in order: `Dimension out of range (…)` (IndexError); `index_select(): Index is
    /// supposed to be a vector` (IndexError); `index_select(): Index to scalar can have only 1
    /// value, got 2 value(s)`; `index_select(): Expected dtype int32 or int64 for
    /// index`; `index out of range in self` (IndexError; negative indices are out of range) —
    /// for dim 1 of a tensor with more dims, PyTorch's fast path says
    /// `INDICES element is out of DATA bounds, id=3 axis_dim=3` (RuntimeError), and for an
    /// empty multi-dim `self`, `index_select(): self indexing axis dim should be positive` or
    /// `index_select(): index 3 out of range for tensor of size [0, 3] at dimension 1`
    /// (IndexError; negative indices wrap there).
    pub fn index_select(&self, dim: impl Int, index: &Tensor) -> Result<Tensor> {
        Call::IndexSelect(self, dim.to_i64(), index).call()
    }

    /// `torch.index_add(self, dim, index, source)` (`alpha=1`): a copy of `self` with
    /// `out.select(dim, index[i]) += source.select(dim, i)`; duplicates accumulate (bool: or).
    ///
    /// Shapes: `index` 0-d or 1-d (int64 or int32) with `source.size(dim)` entries; `source`
    /// has `self`'s shape except along `dim`. The output has `self`'s shape and dtype,
    /// contiguous.
    ///
    /// Errors, in order: `Dimension out of range (…)` (IndexError); `index_add_(): Index is
    /// supposed to be a vector, but got dim: 2 with type: Long and size: [1, 1]` (IndexError);
    /// `index_add_(): Expected dtype int32/int64 for index but got: Float`; `index_add_(): self
    /// (Float) and source (Double) must have the same scalar type`; `index_add_(): Number of
    /// indices (3) should be equal to source.size(dim): (2), for dim: 1` (for a 0-d source,
    /// `Dimension specified as 0 but tensor has no dimensions`, IndexError); `source tensor shape
    /// must match self tensor shape, excluding the specified dimension. Got self.shape = [3,
    /// 4] source.shape = [2, 2]`; out of range (negative included): for `self` of 2 or more
    /// dims, an int64 index, `dim` first or last and `alpha` 1, `index 5 is out of bounds for dimension 0
    /// with size 3` (RuntimeError), else `index out of range in self` (IndexError).
    pub fn index_add(&self, dim: impl Int, index: &Tensor, source: &Tensor) -> Result<Tensor> {
        self.index_add_with(dim, index, source, IndexAddOpts::default())
    }

    /// `torch.index_add(self, dim, index, source, alpha=…)`: `source` scaled by `alpha` (cast
    /// to `self`'s dtype) first. Errors as [`Tensor::index_add`].
    pub fn index_add_with(
        &self,
        dim: impl Int,
        index: &Tensor,
        source: &Tensor,
        opts: impl Into<IndexAddOpts>,
    ) -> Result<Tensor> {
        let alpha = opts.into().alpha;
        Call::IndexAdd(self, dim.to_i64(), index, source, alpha).call()
    }

    /// `self.index_add_(dim, index, source)`: [`Tensor::index_add`] in place; returns `self`.
    pub fn index_add_(&self, dim: impl Int, index: &Tensor, source: &Tensor) -> Result<Tensor> {
        self.index_add_with_(dim, index, source, IndexAddOpts::default())
    }

    /// `self.index_add_(dim, index, source, alpha=…)` in place; returns `self`.
    pub fn index_add_with_(
        &self,
        dim: impl Int,
        index: &Tensor,
        source: &Tensor,
        opts: impl Into<IndexAddOpts>,
    ) -> Result<Tensor> {
        let alpha = opts.into().alpha;
        Call::IndexAdd(self, dim.to_i64(), index, source, alpha).write(&[source])
    }

    /// `torch.index_copy(self, dim, index, source)`: a copy of `self` with
    /// `out.select(dim, index[i]) = source.select(dim, i)`.
    ///
    /// Shapes: `index` 0-d or 1-d int64; `source` as `self` except along `dim`. Output
    /// `self`'s shape and dtype, contiguous.
    ///
    /// Errors, in order: `Dimension out of range (…)` (IndexError); `index_copy_(): Index
    /// should have dimension 1 or 0 (got 2)` (IndexError); `index_copy_(): When source is
    /// scalar, index should have one element (got 2)` (IndexError); `index_copy_(): When
    /// source and destination are not scalars, their dimensionality must match. Source
    /// dimensionality (1), destination dimensionality (2)` (IndexError); `index_copy_():
    /// Expected a long tensor for index, but got Int`; `index_copy_(): self and source
    /// expected to have the same dtype, but got (self) Float and (source) Double`;
    /// `index_copy_(): Source/destination tensor must have same slice shapes. Destination
    /// slice shape: 3 at dimension 1 and source slice shape: 2 at dimension 0.` (C++'s
    /// space-separated list);
    /// `index_copy_(): Number of indices (2) should be equal to source.size(dim) (3)`
    /// (IndexError); `index_copy_(): index 5 is out of bounds for dimension 1 with size 4`
    /// (IndexError; negative indices are out of bounds).
    pub fn index_copy(&self, dim: impl Int, index: &Tensor, source: &Tensor) -> Result<Tensor> {
        Call::IndexCopy(self, dim.to_i64(), index, source).call()
    }

    /// `self.index_copy_(dim, index, source)`: [`Tensor::index_copy`] in place; returns
    /// `self`.
    pub fn index_copy_(&self, dim: impl Int, index: &Tensor, source: &Tensor) -> Result<Tensor> {
        Call::IndexCopy(self, dim.to_i64(), index, source).write(&[source])
    }

    /// `torch.index_fill(self, dim, index, value)`: a copy of `self` (keeping its memory
    /// layout) with the slices `self.select(dim, index[i])` set to `value`, a number or a 0-d
    /// tensor of any dtype (cast to `self`'s, with an overflow check). Negative indices wrap.
    ///
    /// Shapes: `index` 0-d or 1-d int64; a 0-d `self` is read as `(1,)`. Output `self`'s
    /// shape, dtype and dim order.
    ///
    /// Errors: `index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1
    /// dimension(s).`; `index_fill_(): Expected dtype int64 for index.` (IndexError);
    /// `Dimension out of range (…)` (IndexError); `Index has to be a vector/scalar`; `index
    /// -5 is out of bounds for dimension 0 with size 3` (IndexError).
    pub fn index_fill<'a>(
        &self,
        dim: impl Int,
        index: &Tensor,
        value: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        Call::IndexFill(self, dim.to_i64(), index, value.into()).call()
    }

    /// `self.index_fill_(dim, index, value)`: [`Tensor::index_fill`] in place; returns `self`.
    pub fn index_fill_<'a>(
        &self,
        dim: impl Int,
        index: &Tensor,
        value: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        let value = value.into();
        let vt = value.as_tensor();
        Call::IndexFill(self, dim.to_i64(), index, value).write(&[&vt])
    }

    /// `torch.index_reduce(self, dim, index, source, reduce)` (`include_self=True`): each
    /// slice `self.select(dim, j)` becomes the reduction of itself and every
    /// `source.select(dim, i)` with `index[i] == j`; `reduce` is `"prod"`, `"mean"` (integer
    /// dtypes floor), `"amax"` or `"amin"` (NaN propagates).
    ///
    /// Shapes and the index/source checks as [`Tensor::index_add`] (with `index_reduce_():`
    /// prefixes). Output `self`'s shape and dtype, contiguous.
    ///
    /// Errors: first `index_reduce(): Expected reduce to be one of prod, mean, amax or amin but
    /// got sum.`; then as [`Tensor::index_add`]; out of range (negative included): `index out
    /// of range in self` (IndexError). Kernels PyTorch 2.15 lacks give its errors: bool `self`
    /// with `include_self=False`, `"index_reduce_func_exclude_input_init" not implemented for
    /// 'Bool'`; a 0-d or 1-d bool `self`, `"index_func_" not implemented for 'Bool'`; a bool
    /// `"mean"`, `"div_floor_cpu" not implemented for 'Bool'` (NotImplementedError); a float16
    /// or bfloat16 `"prod"` on a multi-dim `self` whose slices have one element, `iter.ninputs()
    /// == traits::arity INTERNAL ASSERT FAILED at "…/Loops.h":351, please report a bug to
    /// PyTorch. ` (RuntimeError).
    pub fn index_reduce(
        &self,
        dim: impl Int,
        index: &Tensor,
        source: &Tensor,
        reduce: &str,
    ) -> Result<Tensor> {
        self.index_reduce_with(dim, index, source, reduce, IndexReduceOpts::default())
    }

    /// `torch.index_reduce(…, include_self=…)`: without `include_self`, the indexed slices
    /// are first filled with the reduction's identity (as PyTorch does, with `index_fill_`'s
    /// checks: a too large index then reports `index 3 is out of bounds for dimension 0 with
    /// size 3`, IndexError).
    pub fn index_reduce_with(
        &self,
        dim: impl Int,
        index: &Tensor,
        source: &Tensor,
        reduce: &str,
        opts: impl Into<IndexReduceOpts>,
    ) -> Result<Tensor> {
        let include_self = opts.into().include_self;
        Call::IndexReduce(self, dim.to_i64(), index, source, reduce, include_self).call()
    }

    /// `self.index_reduce_(dim, index, source, reduce)`: [`Tensor::index_reduce`] in place.
    pub fn index_reduce_(
        &self,
        dim: impl Int,
        index: &Tensor,
        source: &Tensor,
        reduce: &str,
    ) -> Result<Tensor> {
        self.index_reduce_with_(dim, index, source, reduce, IndexReduceOpts::default())
    }

    /// `self.index_reduce_(…, include_self=…)` in place; returns `self`.
    pub fn index_reduce_with_(
        &self,
        dim: impl Int,
        index: &Tensor,
        source: &Tensor,
        reduce: &str,
        opts: impl Into<IndexReduceOpts>,
    ) -> Result<Tensor> {
        let include_self = opts.into().include_self;
        Call::IndexReduce(self, dim.to_i64(), index, source, reduce, include_self).write(&[source])
    }

    /// `self.index_put_(indices, values)` with PyTorch's default `accumulate=False`; see
    /// [`Tensor::index_put_with_`].
    pub fn index_put_(&self, indices: impl IndexList, values: &Tensor) -> Result<Tensor> {
        self.index_put_with_(indices, values, false)
    }

    /// PyTorch's `Tensor.index_put_(indices, values, accumulate=False)`: writes `values`
    /// (broadcast to the shape of `self[indices]`) into the elements `self[indices]` selects,
    /// in place (writing through views into the base); returns an alias of `self`.
    ///
    /// `indices` is a tuple of optional index tensors aligned with `self`'s leading dims
    /// (`None` = the whole dim), each int64/int32 (negative values count from the end) or a
    /// bool/uint8 mask covering as many dims as it has; they broadcast together and place
    /// their dims as in [`Tensor::index`]. Without `accumulate`, duplicate targets take the
    /// last value written (index order); with it, every value is added (in index order;
    /// bool adds as a logical or; float16/bfloat16 add in float32 and round each time).
    /// `values` must have `self`'s dtype, except in the masked-fill shortcut: no
    /// `accumulate`, one element, and exactly one mask (plus `None`s) among the indices, where
    /// `values.item()` is cast to `self`'s dtype.
    ///
    /// Errors, in PyTorch's order: IndexError `too many indices for tensor of dimension 2
    /// (got 3)`; (shortcut) IndexError `The shape of the mask [3] at index 0 does not match
    /// the shape of the indexed tensor [2, 3] at index 0`, RuntimeError `masked_fill_ only
    /// supports boolean masks, but got mask with dtype unsigned char`, RuntimeError `value
    /// cannot be converted to type uint8_t without overflow`; RuntimeError `unsupported
    /// operation: some elements of the input tensor and the written-to tensor refer to a
    /// single memory location. Please clone() the tensor before performing the operation.`
    /// (`values` or an index overlaps `self`); then the errors of [`Tensor::index`]'s advanced
    /// part (index dtype, mask shape, `shape mismatch: indexing tensors could not be broadcast
    /// together with shapes [2], [3]`, `index is out of bounds for dimension with size 0`);
    /// RuntimeError `shape mismatch: value tensor of shape [2] cannot be broadcast to indexing
    /// result of shape [3]`; RuntimeError `Index put requires the source and destination
    /// dtypes match, got Float for the destination and Long for the source.`; IndexError
    /// `index 5 is out of bounds for dimension 0 with size 3` (nothing is written then).
    /// An expanded `self` only warns (`Use of index_put_ on expanded tensors is deprecated…`).
    pub fn index_put_with_(
        &self,
        indices: impl IndexList,
        values: &Tensor,
        opts: impl Into<IndexPutOpts>,
    ) -> Result<Tensor> {
        let indices = indices.index_list();
        Call::IndexPut(self, &indices, values, opts.into().accumulate).write(&[values])?;
        Ok(self.alias())
    }

    /// `torch.index_put(self, indices, values)` with `accumulate=False`; see
    /// [`Tensor::index_put_with`].
    pub fn index_put(&self, indices: impl IndexList, values: &Tensor) -> Result<Tensor> {
        self.index_put_with(indices, values, false)
    }

    /// `torch.index_put(self, indices, values, accumulate=False)`: [`Tensor::index_put_with_`]
    /// on `self.clone()` (preserve-format strides: `self`'s own when dense), returning the
    /// copy; `self` is unchanged. Same shapes, dtypes and errors.
    pub fn index_put_with(
        &self,
        indices: impl IndexList,
        values: &Tensor,
        opts: impl Into<IndexPutOpts>,
    ) -> Result<Tensor> {
        let accumulate = opts.into().accumulate;
        let indices = indices.index_list();
        Call::IndexPut(self, &indices, values, accumulate).call()
    }

    /// Python's `self[items] = value` (`Tensor.__setitem__`), in place; returns an alias of
    /// `self`. `items` is an indexing list as for [`Tensor::index`] (build it with
    /// [`s!`](crate::s)); `value` is a tensor or a Rust number (a Python scalar).
    ///
    /// A number is first converted to `self`'s dtype (RuntimeError `value cannot be converted
    /// to type int8_t without overflow`; floats into integer dtypes truncate). With only basic
    /// items the selected view is filled (a number) or copied into (a tensor, of any dtype:
    /// cast; leading size-1 dims dropped, then broadcast: RuntimeError `The expanded size of
    /// the tensor (4) must match the existing size (5) at non-singleton dimension 1.  Target
    /// sizes: [3, 4].  Tensor sizes: [5]`). With advanced items, PyTorch's shortcuts apply for
    /// a number: one mask is a `masked_fill_` (bool masks only: RuntimeError `masked_fill_ only
    /// supports boolean masks, but got mask with dtype unsigned char`); one int64 index that is
    /// 1-d or contiguous is an `index_fill_` (out of range: IndexError `index 7 is out of
    /// bounds for dimension 1 with size 3`, naming the tensor dim); otherwise the value goes
    /// to [`Tensor::index_put_`] (a number as a 0-d tensor of `self`'s dtype, a tensor without
    /// its leading size-1 dims and with no cast: RuntimeError `Index put requires the source
    /// and destination dtypes match, …`), with its errors. Errors of the items themselves are
    /// [`Tensor::index`]'s.
    pub fn index_set_<'a>(
        &self,
        items: &[TensorIndex],
        value: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        match setitem_plan(self, items, value.into())? {
            SetItem::Done => {}
            SetItem::MaskedFill {
                view,
                dim,
                mask,
                value,
            } => {
                // `masked_fill_(mask, value)`: MaskedFillBackward0
                inplace(
                    &view,
                    &[],
                    || {
                        setitem_masked_fill_raw_(&view, dim, &mask, value)?;
                        Ok(view.alias())
                    },
                    |old| {
                        // the mask covers dims dim.., the trailing dims broadcast
                        let mut shape = mask.size().to_vec();
                        shape.resize(old.dim() - dim, 1);
                        old.masked_fill(&mask.reshape(&shape[..])?, value)
                    },
                )?;
            }
            SetItem::IndexFill {
                view,
                dim,
                index,
                value,
            } => {
                // `index_fill_(dim, index, value)`: IndexFillBackward0
                inplace(
                    &view,
                    &[],
                    || {
                        index_fill_shortcut(&view, dim, &index, value)?;
                        Ok(view.alias())
                    },
                    |old| old.index_fill(dim as i64, &index.reshape(-1)?, value),
                )?;
            }
            SetItem::Put {
                view,
                indices,
                values,
            } => {
                Call::IndexPut(&view, &indices, &values, false).write(&[&values])?;
            }
        }
        Ok(self.alias())
    }
}
