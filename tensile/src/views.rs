//! View ops: `view`, `reshape`, `flatten`, `squeeze`, `transpose`, `permute`, `narrow`,
//! `select`, `slice`, `expand`, `diagonal`, `unfold`, `as_strided`, `split`, `chunk`, …
//!
//! Every op here returns a tensor that shares storage with its input (apart from `reshape`,
//! `flatten` and `ravel`, which copy when no view is possible, exactly as PyTorch does).
//! Sizes, strides and storage offsets are in **elements**, never bytes.
//!
//! The shape and stride algebra, with its checks, lives in `crate::geometry::view` (pure
//! functions over slices); the [`Tensor`] methods here only call it and build the view with
//! [`Tensor::view_with`] through one checked constructor (`geometry::view::fit_geometry`),
//! which keeps every byte stride, byte offset and size product within `i64` so that no later
//! computation in the crate can overflow. Error texts (and their Python exception classes) are
//! PyTorch 2.15's.

use crate::args::{Int, IntoDims, IntoShape};
use crate::dim::wrap_dim;
use crate::error::{Error, Result};
use crate::geometry::view as g;
use crate::layout;
use crate::tensor::{Dims, Tensor};

/// The pieces of a multi-output view op and their plan `(dim, lengths)`.
pub(crate) type Pieces = (Vec<Tensor>, (usize, Vec<usize>));

fn as_i64(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

// ====================================================================== Tensor methods

impl Tensor {
    /// A view of this storage with the given geometry, made safe by [`fit_geometry`].
    fn checked_view(
        &self,
        sizes: impl Into<Dims>,
        strides: impl Into<Dims>,
        offset: usize,
    ) -> Result<Tensor> {
        let sizes = sizes.into();
        let mut strides = strides.into();
        g::fit_geometry(&sizes, &mut strides, offset, self.element_size())?;
        Ok(self.view_with(sizes, strides, offset))
    }

    /// A view with the given geometry, after PyTorch's `as_strided` checks.
    fn as_strided_i64(&self, sizes: &[i64], strides: &[i64], offset: i64) -> Result<Tensor> {
        let (sz, st, off) = g::as_strided_geometry(
            sizes,
            strides,
            offset,
            self.element_size(),
            self.storage_nbytes(),
        )?;
        self.checked_view(sz, st, off)
    }

    /// View as `new` sizes (already resolved), or `None` when the layout does not allow it.
    fn try_view_sizes(&self, new: &[usize]) -> Result<Option<Tensor>> {
        g::check_dense_extent(new)?;
        layout::compute_stride(&self.sizes, &self.strides, new)
            .map(|st| self.checked_view(new.to_vec(), st, self.offset))
            .transpose()
    }

    fn view_sizes(&self, new: &[usize]) -> Result<Tensor> {
        self.try_view_sizes(new)?.ok_or_else(|| {
            Error::runtime(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
            )
        })
    }

    fn reshape_sizes(&self, new: &[usize]) -> Result<Tensor> {
        if let Some(v) = self.try_view_sizes(new)? {
            return Ok(v);
        }
        let c = self.try_contiguous()?;
        let st = layout::compute_stride(&c.sizes, &c.strides, new)
            .unwrap_or_else(|| layout::contiguous_strides(new));
        c.checked_view(new.to_vec(), st, c.offset)
    }

    /// `view`'s forward: `self` seen with sizes `shape` (one entry may be `-1`).
    pub(crate) fn view_fwd(&self, shape: &[i64]) -> Result<Tensor> {
        let new = layout::infer_shape(shape, self.numel())?;
        self.view_sizes(&new)
    }

    /// `self.view_as(other)` = `self.view(other.size())`; errors as [`Tensor::view`].
    pub fn view_as(&self, other: &Tensor) -> Result<Tensor> {
        self.view(as_i64(&other.sizes))
    }

    /// `reshape`'s forward: a view when the layout allows one, else a contiguous copy.
    pub(crate) fn reshape_fwd(&self, shape: &[i64]) -> Result<Tensor> {
        let new = layout::infer_shape(shape, self.numel())?;
        self.reshape_sizes(&new)
    }

    /// `self.reshape_as(other)` = `self.reshape(other.size())`; errors as [`Tensor::reshape`].
    pub fn reshape_as(&self, other: &Tensor) -> Result<Tensor> {
        self.reshape(as_i64(&other.sizes))
    }

    /// `self.flatten()`: every dim merged into one (`start_dim=0, end_dim=-1`); in general
    /// ([`Tensor::flatten_with`]) dims `start..=end` merged into one of their product
    /// size (`(2,3,4).flatten(1,2)` → `(2,12)`). A 0-d input gives `reshape([1])`;
    /// `start == end` gives an alias; otherwise `reshape` (a view when possible, else a copy).
    ///
    /// Errors: IndexError `Dimension out of range (expected to be in range of [-2, 1], but got 2)`;
    /// RuntimeError `flatten() has invalid args: start_dim cannot come after end_dim`.
    pub fn flatten(&self) -> Result<Tensor> {
        self.flatten_with(FlattenOpts::default())
    }

    /// `flatten_with`'s forward.
    pub(crate) fn flatten_fwd(&self, opts: FlattenOpts) -> Result<Tensor> {
        let FlattenOpts { start_dim, end_dim } = opts;
        let (start, end) = g::flatten_dims(self.dim(), start_dim, end_dim)?;
        if self.dim() == 0 {
            return self.reshape_sizes(&[1]);
        }
        if start == end {
            return Ok(self.alias());
        }
        self.reshape_sizes(&g::flatten_sizes(&self.sizes, start, end)?)
    }

    /// `ravel`'s forward: `(c, r)`, `c` the contiguous input (`self` or a copy) and `r` the
    /// 1-d view of `c`.
    pub(crate) fn ravel_fwd(&self) -> Result<(Tensor, Tensor)> {
        let c = self.try_contiguous()?;
        let n = c.numel();
        let r = c.view_sizes(&[n])?;
        Ok((c, r))
    }

    /// `unflatten`'s forward.
    pub(crate) fn unflatten_fwd(&self, dim: i64, sizes: &[i64]) -> Result<Tensor> {
        let shape = g::unflatten_sizes(&self.sizes, dim, sizes)?;
        self.view_sizes(&shape)
    }

    /// `squeeze`'s forward: the listed dims of size 1 removed (`None`: every size-1 dim).
    pub(crate) fn squeeze_fwd(&self, dims: Option<&[i64]>) -> Result<Tensor> {
        let mask = match dims {
            Some(dims) => Some(g::squeeze_mask(dims, self.dim())?),
            None => None,
        };
        let (sz, st) = g::squeeze_geometry(&self.sizes, &self.strides, mask.as_deref());
        self.checked_view(sz, st, self.offset)
    }

    /// `unsqueeze`'s forward.
    pub(crate) fn unsqueeze_fwd(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim() + 1)?;
        let (sz, st) = g::unsqueeze_geometry(&self.sizes, &self.strides, d);
        self.checked_view(sz, st, self.offset)
    }

    /// `transpose`'s forward.
    pub(crate) fn transpose_fwd(&self, dim0: i64, dim1: i64) -> Result<Tensor> {
        let (sz, st) = g::transpose_geometry(&self.sizes, &self.strides, dim0, dim1)?;
        self.checked_view(sz, st, self.offset)
    }

    /// `t`'s forward: the ndim check, then [`Tensor::transpose`] (recorded as such; the
    /// caller records `t` over it).
    pub(crate) fn t_fwd(&self) -> Result<Tensor> {
        let nd = self.dim();
        if nd > 2 {
            return Err(Error::runtime(format!(
                "t() expects a tensor with <= 2 dimensions, but self is {nd}D"
            )));
        }
        self.transpose(0, if nd < 2 { 0 } else { 1 })
    }

    /// `T`'s forward: all dims reversed, with PyTorch's deprecation warnings.
    #[allow(non_snake_case)]
    pub(crate) fn T_fwd(&self) -> Result<Tensor> {
        use std::sync::atomic::{AtomicBool, Ordering};
        static WARNED_ND: AtomicBool = AtomicBool::new(false);
        static WARNED_0D: AtomicBool = AtomicBool::new(false);
        let n = self.dim();
        if n != 2 && n != 0 && !WARNED_ND.swap(true, Ordering::Relaxed) {
            crate::warnings::warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
            );
        }
        if n == 0 && !WARNED_0D.swap(true, Ordering::Relaxed) {
            crate::warnings::warn(
                "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
            );
        }
        let sz: Vec<usize> = self.sizes.iter().rev().copied().collect();
        let st: Vec<usize> = self.strides.iter().rev().copied().collect();
        self.checked_view(sz, st, self.offset)
    }

    /// `self.mT`: the last two dims transposed (`transpose(-2, -1)`), a view. A 0-d tensor is
    /// returned as an alias, warning once per process
    /// `Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.`
    ///
    /// Error: RuntimeError `tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.`
    #[allow(non_snake_case)]
    pub fn mT(&self) -> Result<Tensor> {
        use std::sync::atomic::{AtomicBool, Ordering};
        static WARNED: AtomicBool = AtomicBool::new(false);
        let n = self.dim();
        if n == 0 {
            if !WARNED.swap(true, Ordering::Relaxed) {
                crate::warnings::warn(
                    "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
                );
            }
            return Ok(self.alias());
        }
        if n < 2 {
            return Err(Error::runtime(format!(
                "tensor.mT is only supported on matrices or batches of matrices. Got {n}-D tensor."
            )));
        }
        self.transpose(-2, -1)
    }

    /// `permute`'s forward.
    pub(crate) fn permute_fwd(&self, dims: &[i64]) -> Result<Tensor> {
        let (sz, st) = g::permute_geometry(&self.sizes, &self.strides, dims)?;
        self.checked_view(sz, st, self.offset)
    }

    /// `movedim`'s forward (an alias for a 0-d input).
    pub(crate) fn movedim_fwd(&self, source: &[i64], destination: &[i64]) -> Result<Tensor> {
        match g::movedim_geometry(&self.sizes, &self.strides, source, destination)? {
            None => Ok(self.alias()),
            Some((sz, st)) => self.checked_view(sz, st, self.offset),
        }
    }

    /// `narrow`'s forward.
    pub(crate) fn narrow_fwd(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        let ((sz, st), shift) = g::narrow_geometry(&self.sizes, &self.strides, dim, start, length)?;
        let off = g::shifted(self.offset, self.element_size(), shift)?;
        self.checked_view(sz, st, off)
    }

    /// `select`'s forward.
    pub(crate) fn select_fwd(&self, dim: i64, index: i64) -> Result<Tensor> {
        let ((sz, st), shift) = g::select_geometry(&self.sizes, &self.strides, dim, index)?;
        let off = g::shifted(self.offset, self.element_size(), shift)?;
        self.checked_view(sz, st, off)
    }

    /// `slice`'s forward.
    pub(crate) fn slice_fwd(
        &self,
        dim: i64,
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> Result<Tensor> {
        let ((sz, st), shift) =
            g::slice_geometry(&self.sizes, &self.strides, dim, start, end, step)?;
        let off = g::shifted(self.offset, self.element_size(), shift)?;
        self.checked_view(sz, st, off)
    }

    /// `expand`'s forward.
    pub(crate) fn expand_fwd(&self, sizes: &[i64]) -> Result<Tensor> {
        g::check_expand_len(&self.sizes, sizes, self.dtype)?;
        let (sz, st) = g::expand_geometry(&self.sizes, &self.strides, sizes)?;
        self.as_strided_i64(&sz, &st, self.offset as i64)
    }

    /// `self.expand_as(other)` = `self.expand(other.size())`; errors as [`Tensor::expand`].
    pub fn expand_as(&self, other: &Tensor) -> Result<Tensor> {
        self.expand(as_i64(&other.sizes))
    }

    /// `torch.broadcast_to(self, shape)` = `self.expand(shape)`; errors as [`Tensor::expand`].
    pub fn broadcast_to(&self, shape: impl IntoShape) -> Result<Tensor> {
        let shape = &shape.into_shape()[..];
        self.expand(shape)
    }

    /// `torch.broadcast_tensors(*tensors)`: every tensor expanded (a view sharing its storage,
    /// expanded dims with stride 0) to the broadcast shape of all of them, folded left to right.
    /// No tensors give an empty list. Same as the free function `views::broadcast_tensors`.
    ///
    /// Error (RuntimeError): `The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1`
    /// ("tensor a" is the shape accumulated so far).
    pub fn broadcast_tensors(tensors: &[&Tensor]) -> Result<Vec<Tensor>> {
        broadcast_tensors(tensors)
    }

    /// `self.diagonal()` (offset 0, dims 0 and 1); in general ([`Tensor::diagonal_with`]) the
    /// diagonal of the `(dim1, dim2)` planes, as a
    /// new last dim of length `min(size1, size2 - offset)` (clamped at 0; `offset < 0` counts
    /// below the main diagonal) and stride `stride1 + stride2`; both dims removed. A view:
    /// `(3,4).diagonal(1)` has size `(3,)`, stride `(5,)`, offset 1.
    ///
    /// Errors: IndexError `Dimension out of range (…)`;
    /// RuntimeError `diagonal dimensions cannot be identical 0, -2` (the arguments as given).
    pub fn diagonal(&self) -> Result<Tensor> {
        self.diagonal_with(DiagonalOpts::default())
    }

    /// `diagonal_with`'s forward.
    pub(crate) fn diagonal_fwd(&self, opts: DiagonalOpts) -> Result<Tensor> {
        let DiagonalOpts { offset, dim1, dim2 } = opts;
        let ((sz, st), shift) =
            g::diagonal_geometry(&self.sizes, &self.strides, offset, dim1, dim2)?;
        let off = g::shifted(self.offset, self.element_size(), shift)?;
        self.checked_view(sz, st, off)
    }

    /// `unfold`'s forward.
    pub(crate) fn unfold_fwd(&self, dim: i64, size: i64, step: i64) -> Result<Tensor> {
        let (sz, st) = g::unfold_geometry(&self.sizes, &self.strides, dim, size, step)?;
        self.checked_view(sz, st, self.offset)
    }

    /// `as_strided`'s forward (`offset` absolute, in elements).
    pub(crate) fn as_strided_fwd(
        &self,
        size: &[i64],
        stride: &[i64],
        offset: i64,
    ) -> Result<Tensor> {
        self.as_strided_i64(size, stride, offset)
    }

    /// `self.split(split_size_or_sections)` along dim 0; see [`Tensor::split_with`].
    pub fn split(&self, split_size_or_sections: impl SplitSizes) -> Result<Vec<Tensor>> {
        self.split_with(split_size_or_sections, 0)
    }

    /// `split_with`'s forward for an integer size: the pieces and their plan `(dim, lengths)`.
    pub(crate) fn split_fwd(&self, split_size: i64, dim: i64) -> Result<Pieces> {
        let (d, lengths) = g::split_plan(&self.sizes, split_size, dim)?;
        let geo = (d, lengths.to_vec());
        Ok((self.pieces(d, &lengths)?, geo))
    }

    /// `split_with_sizes`'s forward: the pieces and their plan `(dim, lengths)`.
    pub(crate) fn split_with_sizes_fwd(&self, split_sizes: &[i64], dim: i64) -> Result<Pieces> {
        let (d, lengths) = g::split_with_sizes_plan(&self.sizes, split_sizes, dim)?;
        let geo = (d, lengths.to_vec());
        Ok((self.pieces(d, &lengths)?, geo))
    }

    /// Consecutive `narrow`s of the given lengths along (wrapped) dim `d`.
    fn pieces(&self, d: usize, lengths: &[usize]) -> Result<Vec<Tensor>> {
        let mut out = Vec::new();
        out.try_reserve(lengths.len())
            .map_err(|_| Error::runtime("too many pieces"))?;
        let mut start = 0usize;
        for &len in lengths {
            let mut sz = self.sizes.clone();
            sz[d] = len;
            let off = g::shifted(
                self.offset,
                self.element_size(),
                start as i128 * self.strides[d] as i128,
            )?;
            out.push(self.checked_view(sz, self.strides.clone(), off)?);
            start += len;
        }
        Ok(out)
    }

    /// `self.chunk(chunks)` (dim 0; [`Tensor::chunk_with`] takes a dim):
    /// `split(ceil(size/chunks), dim)`, so there may be fewer than
    /// `chunks` pieces (`(5,6).chunk(4,1)` gives three of size 2); a 0-size dim gives exactly
    /// `chunks` empty pieces. Views.
    ///
    /// Errors: RuntimeError `chunk expects at least a 1-dimensional tensor`;
    /// `chunk expects `chunks` to be greater than 0, got: 0`; IndexError `Dimension out of range (…)`.
    pub fn chunk(&self, chunks: impl Int) -> Result<Vec<Tensor>> {
        self.chunk_with(chunks, 0)
    }

    /// `chunk_with`'s forward: the pieces and their plan `(dim, lengths)`.
    pub(crate) fn chunk_fwd(&self, chunks: i64, dim: i64) -> Result<Pieces> {
        let (d, lengths) = g::chunk_plan(&self.sizes, chunks, dim)?;
        let geo = (d, lengths.to_vec());
        Ok((self.pieces(d, &lengths)?, geo))
    }

    /// `self.unbind()` (dim 0; [`Tensor::unbind_with`] takes a dim): the `size(dim)` slices `select(dim, i)`, each with `dim` removed.
    ///
    /// Errors: IndexError `Dimension out of range (…)`;
    /// IndexError `Dimension specified as 0 but tensor has no dimensions` (0-d input); the
    /// allocator's error when the list of `size(dim)` views can't be held.
    pub fn unbind(&self) -> Result<Vec<Tensor>> {
        self.unbind_with(0)
    }

    /// `unbind_with`'s forward: `select(dim, i)` for every `i` (each recorded as such; the
    /// caller records `unbind` over them).
    pub(crate) fn unbind_fwd(&self, dim: i64) -> Result<Vec<Tensor>> {
        let d = wrap_dim(dim, self.dim())?;
        let size = self.size_of(d as i64)?;
        // one view per index: the list itself is allocated fallibly (an expanded dim can
        // name far more views than memory holds)
        let mut out: Vec<Tensor> = crate::error::try_vec(size)?;
        for i in 0..size {
            out.push(self.select(d as i64, i as i64)?);
        }
        Ok(out)
    }
}

/// `torch.broadcast_tensors(*tensors)`: each tensor expanded (a view sharing its storage) to
/// the broadcast shape of all of them, folded left to right. Strides of expanded dims are 0.
/// No tensors give an empty list.
///
/// Error (RuntimeError): `The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1`
/// ("tensor a" is the shape accumulated so far).
pub fn broadcast_tensors(tensors: &[&Tensor]) -> Result<Vec<Tensor>> {
    let shape = crate::broadcast::infer_size_all(tensors.iter().map(|t| t.size()))?;
    let target = as_i64(&shape);
    tensors.iter().map(|t| t.expand(&target)).collect()
}

// ====================================================================== tests

/// `flatten`'s optional arguments (`start_dim=0, end_dim=-1`), for [`Tensor::flatten_with`]:
/// a single integer is `start_dim`, a pair is `(start_dim, end_dim)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlattenOpts {
    /// First dim to merge (default 0).
    pub start_dim: i64,
    /// Last dim to merge, inclusive (default -1).
    pub end_dim: i64,
}
impl Default for FlattenOpts {
    fn default() -> Self {
        FlattenOpts {
            start_dim: 0,
            end_dim: -1,
        }
    }
}
impl<T: Int> From<T> for FlattenOpts {
    fn from(start_dim: T) -> Self {
        FlattenOpts {
            start_dim: start_dim.to_i64(),
            ..Default::default()
        }
    }
}
impl<A: Int, B: Int> From<(A, B)> for FlattenOpts {
    fn from((s, e): (A, B)) -> Self {
        FlattenOpts {
            start_dim: s.to_i64(),
            end_dim: e.to_i64(),
        }
    }
}

/// `diagonal`'s optional arguments (`offset=0, dim1=0, dim2=1`), for
/// [`Tensor::diagonal_with`]: a single integer is `offset`, a triple `(offset, dim1, dim2)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiagonalOpts {
    /// Diagonal offset: > 0 above the main diagonal, < 0 below (default 0).
    pub offset: i64,
    /// First dim of the planes (default 0).
    pub dim1: i64,
    /// Second dim of the planes (default 1).
    pub dim2: i64,
}
impl Default for DiagonalOpts {
    fn default() -> Self {
        DiagonalOpts {
            offset: 0,
            dim1: 0,
            dim2: 1,
        }
    }
}
impl<T: Int> From<T> for DiagonalOpts {
    fn from(offset: T) -> Self {
        DiagonalOpts {
            offset: offset.to_i64(),
            ..Default::default()
        }
    }
}
impl<A: Int, B: Int, C: Int> From<(A, B, C)> for DiagonalOpts {
    fn from((o, a, b): (A, B, C)) -> Self {
        DiagonalOpts {
            offset: o.to_i64(),
            dim1: a.to_i64(),
            dim2: b.to_i64(),
        }
    }
}

/// `split`'s first argument: an integer piece size, or a list of piece sizes (PyTorch's
/// `split_size_or_sections`).
pub trait SplitSizes {
    /// The size or the list of sizes.
    fn into_split(self) -> SplitSpec;
}

/// What [`SplitSizes`] holds.
#[derive(Clone, Debug, PartialEq)]
pub enum SplitSpec {
    /// Pieces of this many elements, the last one shorter.
    Size(i64),
    /// Pieces of exactly these sizes.
    Sizes(crate::args::IntList),
}

impl<T: Int> SplitSizes for T {
    fn into_split(self) -> SplitSpec {
        SplitSpec::Size(self.to_i64())
    }
}
macro_rules! split_sizes_list {
    ($($ty:ty),*) => {$(
        impl<T: Int, const N: usize> SplitSizes for $ty {
            fn into_split(self) -> SplitSpec {
                SplitSpec::Sizes(self.into_shape())
            }
        }
    )*};
}
split_sizes_list!([T; N], &[T; N]);
impl<T: Int> SplitSizes for &[T] {
    fn into_split(self) -> SplitSpec {
        SplitSpec::Sizes(self.into_shape())
    }
}
impl<T: Int> SplitSizes for Vec<T> {
    fn into_split(self) -> SplitSpec {
        SplitSpec::Sizes(self.into_shape())
    }
}
impl<T: Int> SplitSizes for &Vec<T> {
    fn into_split(self) -> SplitSpec {
        SplitSpec::Sizes(self.into_shape())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use proptest::prelude::*;

    #[test]
    fn ravel_of_a_strided_tensor_is_a_copy() {
        let x = Tensor::arange(20).unwrap();
        let s = x.slice(0, None, None, 4).unwrap();
        let r = s.ravel().unwrap();
        assert!(!r.shares_storage(&x));
        assert_eq!(r.to_vec::<i64>(), vec![0, 4, 8, 12, 16]);
        r.fill_(7).unwrap();
        assert_eq!(x.to_vec::<i64>()[4], 4);
        assert!(x.ravel().unwrap().shares_storage(&x));
    }

    fn arange(n: usize) -> Tensor {
        Tensor::from_vec((0..n as i64).collect::<Vec<i64>>(), [n]).unwrap()
    }

    fn geom(t: &Tensor) -> (Vec<usize>, Vec<usize>, usize) {
        (t.size().to_vec(), t.stride().to_vec(), t.storage_offset())
    }

    #[test]
    fn expand_errors() {
        let t = Tensor::ones_with([2, 3], DType::Float32).unwrap();
        assert_eq!(
            t.expand([3]).unwrap_err().message(),
            "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)"
        );
        let s = Tensor::scalar_tensor_with(5.0, DType::Float32).unwrap();
        assert_eq!(
            s.expand([-1]).unwrap_err().message(),
            "numel: integer multiplication overflow"
        );
        assert_eq!(
            geom(&s.expand([2, 3]).unwrap()),
            (vec![2, 3], vec![0, 0], 0)
        );
        assert_eq!(geom(&s.expand(()).unwrap()), (vec![], vec![], 0));
        let one = Tensor::ones_with([1], DType::Float32).unwrap();
        assert_eq!(
            one.expand([-2]).unwrap_err().message(),
            "numel: integer multiplication overflow"
        );
        assert!(one.expand([i64::MAX, 4]).is_err());
    }

    #[test]
    fn as_strided_checks() {
        let t = Tensor::ones_with([6], DType::Float32).unwrap();
        assert_eq!(
            t.as_strided([2], [1, 1]).unwrap_err().message(),
            "mismatch in length of strides and shape"
        );
        assert_eq!(
            t.as_strided([2, 2], [1, -1]).unwrap_err().message(),
            "as_strided: Negative strides are not supported at the moment, got strides: [1, -1]"
        );
        assert_eq!(
            t.as_strided([2, -2], [1, 1]).unwrap_err().message(),
            "Storage size calculation overflowed with sizes=[2, -2] and strides=[1, 1]"
        );
        assert_eq!(
            t.as_strided_with([2, 2], [3, 3], 1).unwrap_err().message(),
            "setStorage: sizes [2, 2], strides [3, 3], storage offset 1, and itemsize 4 requiring a storage size of 32 are out of bounds for storage of size 24"
        );
        assert_eq!(
            t.as_strided_with([2], [1], -1).unwrap_err().message(),
            "Tensor: invalid storage offset -1"
        );
        assert_eq!(
            geom(&t.as_strided_with([0], [1], 100).unwrap()),
            (vec![0], vec![1], 100)
        );
        assert_eq!(
            geom(&t.as_strided_with([3, 2], [1, 3], 0).unwrap()),
            (vec![3, 2], vec![1, 3], 0)
        );
        assert!(t.as_strided([i64::MAX, 4], [0, 0]).is_err());
        assert!(t.as_strided([i64::MAX], [i64::MAX]).is_err());
    }

    #[test]
    fn absurd_inputs_error_instead_of_panicking() {
        let t = Tensor::ones_with([4], DType::Int64).unwrap();
        // an empty view may sit anywhere, but its byte offset must fit in i64
        assert!(t.as_strided_with([0], [1], 1i64 << 40).is_ok());
        assert!(t.as_strided_with([0], [1], i64::MAX).is_err());
        // PyTorch's int64 arithmetic would wrap offset*itemsize and accept this
        assert!(t.as_strided_with([2], [1], 1i64 << 61).is_err());
        // byte strides must fit in i64 (PyTorch accepts this empty view; we refuse it)
        assert_eq!(
            t.as_strided_with([0, 3], [1, i64::MAX / 2], 0)
                .unwrap_err()
                .message(),
            "Storage size calculation overflowed with sizes=[0, 3] and strides=[1, 4611686018427387903]"
        );
        // ... but a size-1 dim's stride is never used: it is clamped
        let e = t.as_strided_with([0, 1], [1, i64::MAX], 0).unwrap();
        assert_eq!(e.stride(), &[1, i64::MAX as usize / 8]);
        let e = t.as_strided_with([0, 3], [1i64 << 40, 1 << 40], 0).unwrap();
        assert!(e.narrow(1, 3, 0).is_ok());
        assert!(e.unsqueeze(1).is_ok());
        // sizes whose nonzero product overflows are refused, even next to a 0
        assert_eq!(
            t.as_strided([0, 1i64 << 40, 1 << 40], [1, 1, 1])
                .unwrap_err()
                .message(),
            "numel: integer multiplication overflow"
        );
        let z = t.as_strided([0, 1 << 28, 1 << 28], [1, 1, 1]).unwrap();
        assert!(z.flatten_with((1, 2)).is_ok());
        assert!(z.view([0, -1]).is_err());
        assert!(z.view([1i64 << 40, 1 << 40, 0]).is_err());
        let r = t.slice(0, None, None, i64::MAX).unwrap();
        assert_eq!(
            (r.size(), r.stride()),
            (&[1usize][..], &[i64::MAX as usize / 8][..])
        );
        assert_eq!(
            t.index(&[crate::index::TensorIndex::Int(i64::MIN)])
                .unwrap_err()
                .message(),
            "index -9223372036854775808 is out of bounds for dimension 0 with size 4"
        );
        assert!(t.narrow(0, i64::MIN, 0).is_err());
        assert!(t.unfold(0, 1, i64::MAX).is_ok());
        assert!(t.diagonal_with((i64::MIN, 0, -1)).is_err());
        assert!(
            t.view([2, 2])
                .unwrap()
                .diagonal_with((i64::MIN, 0, 1))
                .is_ok()
        );
        assert!(
            t.view([2, 2])
                .unwrap()
                .diagonal_with((i64::MAX, 0, 1))
                .is_ok()
        );
        assert!(t.chunk_with(i64::MAX, 0).is_ok());
        assert!(t.split_with(i64::MAX, 0).is_ok());
        // PyTorch 2.15: numel, not bytes, must fit in int64 (`expand((2**63-1)//4, 4)` is a view)
        assert!(t.expand([i64::MAX / 16, 4]).is_ok());
        assert!(t.expand([i64::MAX / 4, 4]).is_ok());
        assert!(t.expand([i64::MAX / 2, 4]).is_err());
        assert_eq!(
            t.expand([i64::MAX, 4]).unwrap_err().message(),
            "numel: integer multiplication overflow"
        );
    }

    #[test]
    fn fuzz_regression_1() {
        let t = Tensor::scalar_tensor_with(0i64, DType::Int64).unwrap();
        let (a, b, c) = (1i64 << 40, 0, 1i64 << 40);
        for r in &all_views(&t, a, b, c, &[]) {
            for r2 in all_views(r, c, a, b, &[]) {
                exercise(&r2);
            }
            exercise(r);
        }
    }

    #[test]
    fn view_examples() {
        let x = arange(6).view([2, 3]).unwrap().t().unwrap();
        assert_eq!(
            geom(&x.view([1, 3, 2, 1]).unwrap()),
            (vec![1, 3, 2, 1], vec![3, 1, 3, 3], 0)
        );
        assert!(
            x.view([6])
                .unwrap_err()
                .message()
                .starts_with("view size is not compatible")
        );
        let r = x.reshape([6]).unwrap();
        assert!(!r.shares_storage(&x));
        assert_eq!(r.to_vec::<i64>(), vec![0, 3, 1, 4, 2, 5]);
        assert!(x.reshape([3, 2]).unwrap().shares_storage(&x));
        assert_eq!(
            arange(24).view([5, -1]).unwrap_err().message(),
            "shape '[5, -1]' is invalid for input of size 24"
        );
    }

    #[test]
    fn flatten_unflatten() {
        let x = arange(24).view([2, 3, 4]).unwrap();
        assert_eq!(x.flatten_with((1, 2)).unwrap().size(), &[2, 12]);
        assert_eq!(
            x.flatten_with((2, 1)).unwrap_err().message(),
            "flatten() has invalid args: start_dim cannot come after end_dim"
        );
        let s = Tensor::scalar_tensor_with(1.0, DType::Float32).unwrap();
        assert_eq!(s.flatten_with((0, -1)).unwrap().size(), &[1]);
        let z = Tensor::zeros_with([0, 1, 3, 0], DType::Float32).unwrap();
        assert_eq!(z.flatten_with((1, 2)).unwrap().size(), &[0, 3, 0]);
        assert_eq!(x.unflatten(2, [2, -1]).unwrap().size(), &[2, 3, 2, 2]);
        assert_eq!(
            x.unflatten(1, [2, 2]).unwrap_err().message(),
            "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor"
        );
        assert_eq!(
            x.unflatten(1, ()).unwrap_err().message(),
            "unflatten: sizes must be non-empty"
        );
        assert!(
            x.unflatten(1, [-1, -1])
                .unwrap_err()
                .message()
                .starts_with("unflatten got an unexpected error:\n")
        );
        assert_eq!(
            s.unflatten(0, [1]).unwrap_err().message(),
            "unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions"
        );
    }

    #[test]
    fn squeeze_unsqueeze() {
        let x = Tensor::zeros_with([2, 3], DType::Float32).unwrap();
        assert_eq!(
            geom(&x.unsqueeze(1).unwrap()),
            (vec![2, 1, 3], vec![3, 3, 1], 0)
        );
        assert_eq!(
            geom(&x.unsqueeze(2).unwrap()),
            (vec![2, 3, 1], vec![3, 1, 1], 0)
        );
        assert_eq!(
            geom(&x.t().unwrap().unsqueeze(1).unwrap()),
            (vec![3, 1, 2], vec![1, 6, 3], 0)
        );
        let z = Tensor::zeros_with([2, 0], DType::Float32).unwrap();
        assert_eq!(
            geom(&z.unsqueeze(1).unwrap()),
            (vec![2, 1, 0], vec![1, 0, 1], 0)
        );
        assert_eq!(
            x.unsqueeze(3).unwrap_err().message(),
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)"
        );
        let o = Tensor::zeros_with([1, 1], DType::Float32).unwrap();
        assert_eq!(o.squeeze().unwrap().dim(), 0);
        assert_eq!(
            Tensor::zeros_with([0, 1], DType::Float32)
                .unwrap()
                .squeeze()
                .unwrap()
                .size(),
            &[0]
        );
        assert_eq!(x.squeeze_dim(0).unwrap().size(), &[2, 3]);
        assert_eq!(o.squeeze_dim([0]).unwrap().size(), &[1]);
        assert_eq!(
            o.squeeze_dim([0, -2]).unwrap_err().message(),
            "dim 0 appears multiple times in the list of dims"
        );
        let s = Tensor::scalar_tensor_with(1.0, DType::Float32).unwrap();
        assert_eq!(s.squeeze_dim(-1).unwrap().dim(), 0);
        assert_eq!(s.squeeze_dim([0]).unwrap().dim(), 0);
    }

    #[test]
    fn transpose_family() {
        let x = Tensor::zeros_with([2, 3, 4], DType::Float32).unwrap();
        assert_eq!(
            x.t().unwrap_err().message(),
            "t() expects a tensor with <= 2 dimensions, but self is 3D"
        );
        assert_eq!(geom(&x.T().unwrap()), (vec![4, 3, 2], vec![1, 4, 12], 0));
        assert_eq!(geom(&x.mT().unwrap()), (vec![2, 4, 3], vec![12, 1, 4], 0));
        assert_eq!(
            arange(3).mT().unwrap_err().message(),
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
        );
        assert_eq!(
            geom(&x.permute([2, 0, 1]).unwrap()),
            (vec![4, 2, 3], vec![1, 12, 4], 0)
        );
        assert_eq!(
            x.permute([0, 0, 1]).unwrap_err().message(),
            "permute(): duplicate dims are not allowed."
        );
        assert!(
            x.permute([0, 1])
                .unwrap_err()
                .message()
                .starts_with("permute(sparse_coo): number of dimensions")
        );
        assert_eq!(x.movedim([0], [2]).unwrap().size(), &[3, 4, 2]);
        assert_eq!(
            x.movedim([0, 1], [2]).unwrap_err().message(),
            "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same number of dims as destination ([2] dims)"
        );
        assert_eq!(
            x.movedim([0, -3], [1, 2]).unwrap_err().message(),
            "movedim: repeated dim in `source` ([0, -3])"
        );
    }

    #[test]
    fn narrow_select_slice() {
        let x = arange(12).view([3, 4]).unwrap();
        assert_eq!(
            geom(&x.narrow(1, -2, 2).unwrap()),
            (vec![3, 2], vec![4, 1], 2)
        );
        assert_eq!(
            geom(&x.narrow(0, 3, 0).unwrap()),
            (vec![0, 4], vec![4, 1], 12)
        );
        assert_eq!(
            x.narrow(0, 2, 2).unwrap_err().message(),
            "start (2) + length (2) exceeds dimension size (3)."
        );
        assert_eq!(
            x.narrow(0, 4, 0).unwrap_err().message(),
            "start out of range (expected to be in range of [-3, 3], but got 4)"
        );
        assert_eq!(
            x.narrow(0, 0, -1).unwrap_err().message(),
            "narrow(): length must be non-negative."
        );
        assert_eq!(x.select(1, -1).unwrap().to_vec::<i64>(), vec![3, 7, 11]);
        assert_eq!(
            x.select(0, 3).unwrap_err().message(),
            "select(): index 3 out of range for tensor of size [3, 4] at dimension 0"
        );
        assert_eq!(
            geom(&x.slice(1, Some(10), None, 1).unwrap()),
            (vec![3, 0], vec![4, 1], 4)
        );
        assert_eq!(
            geom(&x.slice(1, None, None, 3).unwrap()),
            (vec![3, 2], vec![4, 3], 0)
        );
        assert_eq!(
            x.slice(1, None, None, 0).unwrap_err().message(),
            "slice step must be positive"
        );
    }

    #[test]
    fn diagonal_unfold() {
        let x = Tensor::zeros_with([3, 4], DType::Float32).unwrap();
        assert_eq!(
            geom(&x.diagonal_with((1, 0, 1)).unwrap()),
            (vec![3], vec![5], 1)
        );
        let y = Tensor::zeros_with([2, 3, 4], DType::Float32).unwrap();
        assert_eq!(
            geom(&y.diagonal_with((0, 0, 2)).unwrap()),
            (vec![3, 2], vec![4, 13], 0)
        );
        assert_eq!(
            y.diagonal_with((0, 0, -3)).unwrap_err().message(),
            "diagonal dimensions cannot be identical 0, -3"
        );
        assert_eq!(
            geom(&x.diagonal_with((-5, 0, 1)).unwrap()),
            (vec![0], vec![5], 0)
        );
        let a = arange(7);
        assert_eq!(
            geom(&a.unfold(0, 3, 2).unwrap()),
            (vec![3, 3], vec![2, 1], 0)
        );
        assert_eq!(
            geom(&arange(7).unfold(0, 0, 1).unwrap()),
            (vec![8, 0], vec![1, 1], 0)
        );
        assert_eq!(
            a.unfold(0, 8, 1).unwrap_err().message(),
            "maximum size for tensor at dimension 0 is 7 but size is 8"
        );
        assert_eq!(
            a.unfold(0, -1, 1).unwrap_err().message(),
            "size is -1 but must be >= 0"
        );
        assert_eq!(
            a.unfold(0, 1, 0).unwrap_err().message(),
            "step is 0 but must be > 0"
        );
        let s = Tensor::scalar_tensor_with(1.0, DType::Float32).unwrap();
        assert_eq!(geom(&s.unfold(0, 1, 1).unwrap()), (vec![1], vec![1], 0));
    }

    #[test]
    fn split_chunk_unbind() {
        let x = Tensor::zeros_with([5, 6], DType::Float32).unwrap();
        let c = x.chunk_with(4, 1).unwrap();
        assert_eq!(c.len(), 3);
        assert!(c.iter().all(|p| p.size() == [5, 2]));
        let s = x.split_with(2, 0).unwrap();
        assert_eq!(
            s.iter().map(|p| p.size()[0]).collect::<Vec<_>>(),
            vec![2, 2, 1]
        );
        assert_eq!(s[2].storage_offset(), 24);
        assert_eq!(x.split_with(10, 0).unwrap().len(), 1);
        let z = Tensor::zeros_with([0, 2], DType::Float32).unwrap();
        assert_eq!(z.chunk_with(3, 0).unwrap().len(), 3);
        assert_eq!(z.split_with(0, 0).unwrap().len(), 1);
        assert_eq!(
            x.split_with(0, 0).unwrap_err().message(),
            "split_size can only be 0 if dimension size is 0, but got dimension size of 5"
        );
        assert_eq!(
            x.chunk_with(0, 0).unwrap_err().message(),
            "chunk expects `chunks` to be greater than 0, got: 0"
        );
        assert_eq!(x.unbind_with(1).unwrap().len(), 6);
        let sc = Tensor::scalar_tensor_with(1.0, DType::Float32).unwrap();
        assert_eq!(
            sc.split_with(1, 0).unwrap_err().message(),
            "split expects at least a 1-dimensional tensor"
        );
        assert_eq!(
            sc.unbind_with(0).unwrap_err().message(),
            "Dimension specified as 0 but tensor has no dimensions"
        );
    }

    #[test]
    fn broadcasting_views() {
        let a = Tensor::zeros_with([3, 1], DType::Float32).unwrap();
        let b = Tensor::zeros_with([4], DType::Float32).unwrap();
        let r = broadcast_tensors(&[&a, &b]).unwrap();
        assert_eq!(geom(&r[0]), (vec![3, 4], vec![1, 0], 0));
        assert_eq!(geom(&r[1]), (vec![3, 4], vec![0, 1], 0));
        assert!(r[0].shares_storage(&a));
        let c = Tensor::zeros_with([2], DType::Float32).unwrap();
        assert_eq!(
            broadcast_tensors(&[&b, &c]).unwrap_err().message(),
            "The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 0"
        );
    }

    fn arg_strategy() -> impl Strategy<Value = i64> {
        prop_oneof![
            -5i64..6,
            Just(i64::MIN),
            Just(i64::MAX),
            Just(i64::MAX / 2),
            Just(-(1i64 << 40)),
            Just(1i64 << 40),
        ]
    }

    fn index_item_strategy() -> impl Strategy<Value = crate::index::TensorIndex> {
        use crate::index::TensorIndex as I;
        let opt = || proptest::option::of(arg_strategy());
        prop_oneof![
            arg_strategy().prop_map(I::Int),
            (opt(), opt(), opt()).prop_map(|(a, b, c)| I::Slice(a, b, c)),
            Just(I::NewAxis),
            Just(I::Ellipsis),
        ]
    }

    /// Every view op with the same extreme arguments; the successful results.
    fn all_views(
        t: &Tensor,
        a: i64,
        b: i64,
        c: i64,
        items: &[crate::index::TensorIndex],
    ) -> Vec<Tensor> {
        let mut results: Vec<Result<Tensor>> = vec![
            t.view([a, b]),
            t.unflatten(a, [b, c]),
            t.squeeze_dim(a),
            t.squeeze_dim([a, b]),
            t.unsqueeze(a),
            t.transpose(a, b),
            t.permute([a, b, c]),
            t.movedim([a], [b]),
            t.narrow(a, b, c),
            t.select(a, b),
            t.slice(a, Some(b), Some(c), c),
            t.expand([a, b, c]),
            t.diagonal_with((a, b, c)),
            t.unfold(a, b, c),
            t.as_strided_with([a, b], [b, c], c),
            t.as_strided([a], [b]),
            t.index(items),
            t.T(),
            t.mT(),
            t.t(),
            t.squeeze(),
        ];
        // these may copy: a huge expanded tensor would need terabytes
        if t.numel() < 1 << 20 {
            results.extend([t.reshape([a, b, c]), t.flatten_with((a, b)), t.ravel()]);
        }
        // split/chunk/unbind of a huge (stride-0) dim would legitimately make billions of views
        let lists = if t.size().iter().all(|&s| s <= 64) {
            vec![t.split_with(a, b), t.chunk_with(a, b), t.unbind_with(a)]
        } else {
            vec![]
        };
        results
            .into_iter()
            .flatten()
            .chain(lists.into_iter().flatten().flatten())
            .collect()
    }

    /// Reads a view through the pointwise engine (when small enough to copy).
    fn exercise(r: &Tensor) {
        if r.numel() < 10_000 {
            let _ = r.to_vec::<i64>();
            let _ = r.contiguous();
            let _ = r.clone();
        }
        let _ = (
            r.is_contiguous(),
            r.is_non_overlapping_and_dense(),
            r.data_ptr(),
        );
    }

    fn shape_strategy() -> impl Strategy<Value = Vec<usize>> {
        proptest::collection::vec(0usize..4, 0..5)
    }

    proptest! {
        #[test]
        fn compute_stride_ok_on_contiguous(sizes in shape_strategy(), perm_seed in any::<u64>()) {
            let st = layout::contiguous_strides(&sizes);
            let n = layout::numel(&sizes);
            // any regrouping of the elements: a random shape with the same numel
            let mut target = vec![n];
            if n > 1 && perm_seed % 2 == 0 { target = vec![1, n, 1]; }
            prop_assert!(layout::compute_stride(&sizes, &st, &target).is_some());
            prop_assert!(layout::compute_stride(&sizes, &st, &sizes).is_some());
        }

        #[test]
        fn view_contiguous_agrees_with_reshape(sizes in proptest::collection::vec(1usize..4, 1..4), perm_seed in any::<u64>()) {
            let n = layout::numel(&sizes);
            let base = Tensor::from_vec((0..n as i64).collect::<Vec<i64>>(), &sizes).unwrap();
            // a permuted (non-contiguous) view
            let mut perm: Vec<i64> = (0..sizes.len() as i64).collect();
            let k = perm.len();
            perm.rotate_left((perm_seed as usize) % k);
            let p = base.permute(&perm).unwrap();
            let flat = p.reshape([-1]).unwrap();
            let via_contig = p.contiguous().view([-1]).unwrap();
            prop_assert_eq!(flat.to_vec::<i64>(), via_contig.to_vec::<i64>());
            prop_assert_eq!(flat.to_vec::<i64>(), p.to_vec::<i64>());
            if let Ok(v) = p.view([-1]) {
                prop_assert_eq!(v.to_vec::<i64>(), p.to_vec::<i64>());
                prop_assert!(v.shares_storage(&p));
            }
        }

        #[test]
        fn expand_then_squeeze_round_trip(sizes in proptest::collection::vec(1usize..4, 0..4), extra in 1i64..4) {
            let n = layout::numel(&sizes);
            let t = Tensor::from_vec((0..n as i64).collect::<Vec<i64>>(), &sizes).unwrap();
            let u = t.unsqueeze(0).unwrap();
            let mut target = vec![extra];
            target.extend(sizes.iter().map(|&s| s as i64));
            let e = u.expand(&target).unwrap();
            if extra > 1 { prop_assert_eq!(e.stride()[0], 0); }
            let back = e.select(0, extra - 1).unwrap();
            prop_assert_eq!(back.size(), t.size());
            prop_assert_eq!(back.to_vec::<i64>(), t.to_vec::<i64>());
            let sq = u.squeeze_dim(0).unwrap();
            prop_assert_eq!(sq.size(), t.size());
            prop_assert_eq!(sq.stride(), t.stride());
        }

        #[test]
        fn ops_never_panic(
            sizes in proptest::collection::vec(0usize..4, 0..4),
            perm_seed in any::<u64>(),
            a in arg_strategy(), b in arg_strategy(), c in arg_strategy(),
            items in proptest::collection::vec(index_item_strategy(), 0..5),
        ) {
            let n = layout::numel(&sizes);
            let base = Tensor::from_vec((0..n as i64).collect::<Vec<i64>>(), &sizes).unwrap();
            let mut perm: Vec<i64> = (0..sizes.len() as i64).collect();
            if !perm.is_empty() {
                let k = perm.len();
                perm.rotate_left((perm_seed as usize) % k);
            }
            let t = base.permute(&perm).unwrap();
            // two rounds: every op on the input, then every op on every result
            let first = all_views(&t, a, b, c, &items);
            for r in &first {
                for r2 in all_views(r, c, a, b, &items) {
                    exercise(&r2);
                }
                exercise(r);
            }
        }

        #[test]
        fn as_strided_never_panics(sizes in proptest::collection::vec(-3i64..5, 0..4), strides in proptest::collection::vec(-1i64..5, 0..4), off in -2i64..10) {
            let t = Tensor::ones_with([8], DType::Int64).unwrap();
            if let Ok(v) = t.as_strided_with(&sizes, &strides, off) {
                let _ = v.to_vec::<i64>();
            }
        }
    }
}
