//! The element-wise index ops' methods: `gather`, `scatter` (a tensor `src` or a number,
//! with the legacy `reduce=`), `scatter_add`, `scatter_reduce` and `take`, and their in-place
//! forms. They are rows of [`IndexId`](crate::IndexId): each method is a
//! [`Call`] of [`crate::optable::index`], whose forward function
//! ([`crate::ops::gather_scatter`]) and derivative are picked there.

use super::index::Call;
use crate::args::Int;
use crate::error::Result;
use crate::ops::Operand;
use crate::ops::gather_scatter::{ScatterOpts, ScatterReduceOpts};
use crate::tensor::Tensor;

impl Tensor {
    /// `torch.gather(self, dim, index)`: `out[i][j][k] = self[i][index[i][j][k]][k]` (dim=1).
    ///
    /// Shapes: `index` has `self`'s number of dims (0-d read as `(1,)`) and `index.size(d) <=
    /// self.size(d)` for `d != dim`; the output has `index`'s shape, `self`'s dtype, and is
    /// contiguous. No broadcasting and no negative wrapping.
    ///
    /// Errors, in order: `Dimension out of range (…)` (IndexError); `gather(): Expected dtype
    /// int32/int64 for index` (only for a non-empty index); `Index tensor must have the same
    /// number of dimensions as input tensor`; `Size does not match at dimension 0 expected
    /// index [3, 1] to be no larger than self [2, 2] apart from dimension 1`; `index 5 is out of
    /// bounds for dimension 1 with size 2` (all RuntimeError).
    pub fn gather(&self, dim: impl Int, index: &Tensor) -> Result<Tensor> {
        Call::Gather(self, dim.to_i64(), index).call()
    }

    /// `torch.scatter(self, dim, index, src)` (or `value`): a copy of `self` with
    /// `out[i][index[i][j]] = src[i][j]` (dim=1) at every position of `index`; `src` is a
    /// tensor of `self`'s dtype (only its `index`-shaped corner is read) or a number (cast to
    /// `self`'s dtype with an overflow check).
    ///
    /// Shapes: `index` has `self`'s number of dims, `index.size(d) <= self.size(d)` for `d !=
    /// dim` and `<= src.size(d)` for every `d`; an empty `index` skips every check but the
    /// dtype checks. The output has `self`'s shape and dtype, contiguous. Duplicate targets:
    /// the last write along `dim` wins.
    ///
    /// Errors, in order (RuntimeError unless noted): `Dimension out of range (…)`
    /// (IndexError); `scatter(): Expected dtype int32/int64 for index`; `scatter(): Expected
    /// self.dtype to be equal to src.dtype`; `Index tensor must have the same number of
    /// dimensions as self tensor`; `Expected index [2, 3] to be no larger than self [2, 2]
    /// apart from dimension 0 and to be no larger size than src [2, 2]` (without the `src`
    /// part for a value); `Index tensor must have the same number of dimensions as src
    /// tensor`; `index 4 is out of bounds for dimension 0 with size 2`.
    pub fn scatter<'a>(
        &self,
        dim: impl Int,
        index: &Tensor,
        src: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        self.scatter_with(dim, index, src, ScatterOpts::default())
    }

    /// `torch.scatter(self, dim, index, src, reduce=…)`: as [`Tensor::scatter`], with the
    /// legacy `reduce` `"add"` or `"multiply"` combining instead of assigning. Extra error
    /// (after the shape checks): `reduce argument must be either add or multiply.`
    pub fn scatter_with<'a, 'o>(
        &self,
        dim: impl Int,
        index: &Tensor,
        src: impl Into<Operand<'a>>,
        opts: impl Into<ScatterOpts<'o>>,
    ) -> Result<Tensor> {
        let reduce = opts.into().reduce;
        Call::Scatter(self, dim.to_i64(), index, src.into(), reduce).call()
    }

    /// `self.scatter_(dim, index, src)` (or `value`): [`Tensor::scatter`] in place (`self`
    /// keeps its shape; writes go through views into the base). Returns `self`. Errors as
    /// [`Tensor::scatter`].
    pub fn scatter_<'a>(
        &self,
        dim: impl Int,
        index: &Tensor,
        src: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        self.scatter_with_(dim, index, src, ScatterOpts::default())
    }

    /// `self.scatter_(dim, index, src, reduce=…)`: [`Tensor::scatter_with`] in place.
    pub fn scatter_with_<'a, 'o>(
        &self,
        dim: impl Int,
        index: &Tensor,
        src: impl Into<Operand<'a>>,
        opts: impl Into<ScatterOpts<'o>>,
    ) -> Result<Tensor> {
        let (src, opts) = (src.into(), opts.into());
        let st = src.as_tensor();
        Call::Scatter(self, dim.to_i64(), index, src, opts.reduce).write(&[&st])
    }

    /// `torch.scatter_add(self, dim, index, src)`: a copy of `self` with `out[i][index[i][j]]
    /// += src[i][j]` (dim=1); every duplicate contributes (bool: logical or). Shapes, layout and
    /// errors as [`Tensor::scatter`] with a tensor `src`.
    pub fn scatter_add(&self, dim: impl Int, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        Call::ScatterAdd(self, dim.to_i64(), index, src).call()
    }

    /// `self.scatter_add_(dim, index, src)`: [`Tensor::scatter_add`] in place; returns `self`.
    pub fn scatter_add_(&self, dim: impl Int, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        Call::ScatterAdd(self, dim.to_i64(), index, src).write(&[src])
    }

    /// `torch.scatter_reduce(self, dim, index, src, reduce)` (`include_self=True`): every
    /// target receiving at least one `src` element becomes the reduction of `self`'s value and
    /// those elements; `reduce` is `"sum"`, `"prod"`, `"mean"` (integer dtypes floor the
    /// division), `"amax"` or `"amin"` (NaN propagates). Shapes and errors as
    /// [`Tensor::scatter`]; extra error (after the shape checks): `reduce argument must be
    /// either sum, prod, mean, amax or amin, got add`.
    /// A bool `self` has no mean kernel: `"scatter_gather_tensor_cpu_reduce_mean" not implemented
    /// for 'Bool'` (`"div_floor_cpu" …` for an empty index; NotImplementedError).
    pub fn scatter_reduce(
        &self,
        dim: impl Int,
        index: &Tensor,
        src: &Tensor,
        reduce: &str,
    ) -> Result<Tensor> {
        self.scatter_reduce_with(dim, index, src, reduce, ScatterReduceOpts::default())
    }

    /// `torch.scatter_reduce(self, dim, index, src, reduce, include_self=…)`: without
    /// `include_self`, `self`'s value at a receiving target is left out (targets receiving
    /// nothing keep it).
    pub fn scatter_reduce_with(
        &self,
        dim: impl Int,
        index: &Tensor,
        src: &Tensor,
        reduce: &str,
        opts: impl Into<ScatterReduceOpts>,
    ) -> Result<Tensor> {
        let include_self = opts.into().include_self;
        Call::ScatterReduce(self, dim.to_i64(), index, src, reduce, include_self).call()
    }

    /// `self.scatter_reduce_(dim, index, src, reduce)`: [`Tensor::scatter_reduce`] in place.
    pub fn scatter_reduce_(
        &self,
        dim: impl Int,
        index: &Tensor,
        src: &Tensor,
        reduce: &str,
    ) -> Result<Tensor> {
        self.scatter_reduce_with_(dim, index, src, reduce, ScatterReduceOpts::default())
    }

    /// `self.scatter_reduce_(dim, index, src, reduce, include_self=…)` in place.
    pub fn scatter_reduce_with_(
        &self,
        dim: impl Int,
        index: &Tensor,
        src: &Tensor,
        reduce: &str,
        opts: impl Into<ScatterReduceOpts>,
    ) -> Result<Tensor> {
        let include_self = opts.into().include_self;
        Call::ScatterReduce(self, dim.to_i64(), index, src, reduce, include_self).write(&[src])
    }

    /// `torch.take(self, index)`: `self` read as if flattened (row-major, whatever its
    /// strides) at `index`; negative indices wrap by `numel`.
    ///
    /// Shapes: the output has `index`'s shape and `self`'s dtype, contiguous.
    ///
    /// Errors: `take(): Expected a long tensor for index, but got Float` (RuntimeError);
    /// `take(): tried to take from an empty tensor` (IndexError); `out of range: tried to
    /// access index 12 on a tensor of 12 elements.` (IndexError).
    pub fn take(&self, index: &Tensor) -> Result<Tensor> {
        Call::Take(self, index).call()
    }
}
