//! Basic indexing: Python's `t[i, a:b:c, None, ...]` on a tensor, always giving a view.
//!
//! [`Tensor::index`] takes a list of [`TensorIndex`] items; the [`s!`](crate::s) macro builds
//! that list with Python-like syntax:
//!
//! ```
//! use tensile::{s, DType, Tensor};
//! let y = Tensor::zeros_with(&[3, 1, 2], DType::Float32).unwrap();
//! let v = y.index(&s![None, ..]).unwrap(); // Python: y[None, :]
//! assert_eq!(v.size(), &[1, 3, 1, 2]);
//! let w = y.index(&s![1.., 0, ..;2]).unwrap(); // Python: y[1:, 0, ::2]
//! assert_eq!(w.size(), &[2, 1]);
//! ```

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// One item of a basic-indexing tuple, as in Python's `t[...]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorIndex {
    /// An integer `i`: selects element `i` of the next dim and removes that dim (`t[i]`);
    /// negative counts from the end.
    Int(i64),
    /// A slice `start:stop:step` (`None` for an omitted part): keeps the dim, clamped like
    /// Python slices; the step must be positive.
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// `None` (`np.newaxis`): inserts a size-1 dim.
    NewAxis,
    /// `...`: stands for as many full slices `:` as needed to cover the unindexed dims.
    Ellipsis,
}

impl TensorIndex {
    /// The full slice `:`.
    pub const FULL: TensorIndex = TensorIndex::Slice(None, None, None);
}

macro_rules! index_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for TensorIndex {
            /// An integer index.
            fn from(i: $t) -> TensorIndex {
                TensorIndex::Int(i as i64)
            }
        }
    )*};
}
index_from_int!(i64, i32, isize, usize, u32);

/// A Rust range usable as a slice in [`s!`](crate::s): `a..b`, `a..`, `..b`, `..`, `a..=b`,
/// `..=b`. Its bounds become a slice's `start`/`stop`.
pub trait SliceRange {
    /// `(start, stop)` of the slice.
    fn bounds(self) -> (Option<i64>, Option<i64>);
}

macro_rules! slice_ranges {
    ($($t:ty),*) => {$(
        impl SliceRange for std::ops::Range<$t> {
            fn bounds(self) -> (Option<i64>, Option<i64>) { (Some(self.start as i64), Some(self.end as i64)) }
        }
        impl SliceRange for std::ops::RangeFrom<$t> {
            fn bounds(self) -> (Option<i64>, Option<i64>) { (Some(self.start as i64), None) }
        }
        impl SliceRange for std::ops::RangeTo<$t> {
            fn bounds(self) -> (Option<i64>, Option<i64>) { (None, Some(self.end as i64)) }
        }
        impl SliceRange for std::ops::RangeInclusive<$t> {
            /// `a..=b` is `a:b+1`, except that `..=-1` means "to the end".
            fn bounds(self) -> (Option<i64>, Option<i64>) {
                let end = *self.end() as i64;
                (Some(*self.start() as i64), if end == -1 { None } else { end.checked_add(1) })
            }
        }
        impl SliceRange for std::ops::RangeToInclusive<$t> {
            /// `..=b` is `:b+1`, except that `..=-1` means "to the end".
            fn bounds(self) -> (Option<i64>, Option<i64>) {
                let end = self.end as i64;
                (None, if end == -1 { None } else { end.checked_add(1) })
            }
        }
    )*};
}
slice_ranges!(i64, i32, isize, usize, u32);

impl SliceRange for std::ops::RangeFull {
    fn bounds(self) -> (Option<i64>, Option<i64>) {
        (None, None)
    }
}

impl<R: SliceRange> From<R> for TensorIndex {
    /// A slice with step 1.
    fn from(r: R) -> TensorIndex {
        let (a, b) = r.bounds();
        TensorIndex::Slice(a, b, None)
    }
}

impl Tensor {
    /// Python's `t[index]` for basic indices (ints, slices, `None`, `...`): always a view of
    /// `self`'s storage. Strides and offsets are in elements.
    ///
    /// Items are applied left to right, each to the next unindexed dim: an int selects (the
    /// dim disappears), a slice keeps the dim with `ceil(len/step)` elements (bounds clamped,
    /// never an error), `NewAxis` inserts a size-1 dim, and `Ellipsis` skips the dims no other
    /// item covers. Missing trailing items mean `:`. A list of exactly one `Int` is Python's
    /// `t[i]` (not `t[(i,)]`), which differs only on a 0-d tensor.
    ///
    /// Errors, in PyTorch's order:
    /// IndexError `too many indices for tensor of dimension 2` (more ints and slices than
    /// dims, checked first); then per item, left to right:
    /// IndexError `index 5 is out of bounds for dimension 0 with size 5` (`dimension` is the
    /// item's position in the list), ValueError `slice step cannot be zero`,
    /// ValueError `step must be greater than zero`; and for `t[i]` on a 0-d tensor, IndexError
    /// ``invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number``.
    pub fn index(&self, items: &[TensorIndex]) -> Result<Tensor> {
        if let [TensorIndex::Int(i)] = items {
            return apply_select(self, 0, *i, 0);
        }
        let ndim = self.dim();
        let specified = items
            .iter()
            .filter(|x| matches!(x, TensorIndex::Int(_) | TensorIndex::Slice(..)))
            .count();
        if specified > ndim {
            return Err(too_many(ndim));
        }
        let mut result = self.alias();
        let mut dim = 0usize;
        for (real_dim, item) in items.iter().enumerate() {
            match *item {
                TensorIndex::Int(i) => {
                    if dim >= result.dim() {
                        return Err(too_many(ndim));
                    }
                    result = apply_select(&result, dim, i, real_dim)?;
                }
                TensorIndex::Slice(start, stop, step) => {
                    let step = step.unwrap_or(1);
                    if step == 0 {
                        return Err(Error::value("slice step cannot be zero"));
                    }
                    if step < 0 {
                        return Err(Error::value("step must be greater than zero"));
                    }
                    if dim >= result.dim() {
                        return Err(too_many(ndim));
                    }
                    result = result.slice(dim as i64, start, stop, step)?;
                    dim += 1;
                }
                TensorIndex::NewAxis => {
                    if dim > result.dim() {
                        return Err(too_many(ndim));
                    }
                    result = result.unsqueeze(dim as i64)?;
                    dim += 1;
                }
                TensorIndex::Ellipsis => dim += ndim - specified,
            }
        }
        Ok(result)
    }
}

fn too_many(ndim: usize) -> Error {
    Error::index(format!("too many indices for tensor of dimension {ndim}"))
}

/// `applySelect`: Python's integer index `i` on dim `dim` of `t`, reporting `real_dim` (the
/// item's position in the index tuple).
fn apply_select(t: &Tensor, dim: usize, i: i64, real_dim: usize) -> Result<Tensor> {
    if t.dim() == 0 {
        return Err(Error::index(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
        ));
    }
    let size = t.size()[dim] as i64;
    if !(size > -1 - i && size > i) {
        return Err(Error::index(format!(
            "index {i} is out of bounds for dimension {real_dim} with size {size}"
        )));
    }
    t.select(dim as i64, i)
}

/// Hidden helpers the [`s!`](crate::s) macro expands to (reachable as `$crate::Tensor::…`).
impl Tensor {
    /// `s!` helper: an integer or range item.
    #[doc(hidden)]
    pub fn __s_item(x: impl Into<TensorIndex>) -> TensorIndex {
        x.into()
    }
    /// `s!` helper: a range with a step.
    #[doc(hidden)]
    pub fn __s_stepped(r: impl SliceRange, step: i64) -> TensorIndex {
        let (a, b) = r.bounds();
        TensorIndex::Slice(a, b, Some(step))
    }
    /// A slice item `start:stop:step` (used by the conformance runner).
    #[doc(hidden)]
    pub fn __s_slice(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> TensorIndex {
        TensorIndex::Slice(start, stop, step)
    }
    /// `s!` helper: `None`.
    #[doc(hidden)]
    pub const __S_NEW_AXIS: TensorIndex = TensorIndex::NewAxis;
    /// `s!` helper: `...`.
    #[doc(hidden)]
    pub const __S_ELLIPSIS: TensorIndex = TensorIndex::Ellipsis;
}

/// Builds a basic-indexing list for [`Tensor::index`] with Python-like syntax, returning an
/// array `[TensorIndex; N]`:
///
/// | `s![…]` item | Python | meaning |
/// |---|---|---|
/// | `2`, `-1`, `i` (any integer expression) | `2`, `-1`, `i` | select (removes the dim) |
/// | `1..3`, `1..`, `..3`, `..`, `1..=2` | `1:3`, `1:`, `:3`, `:`, `1:3` | slice with step 1 |
/// | `1..3;2`, `..;2`, `3..;-1` | `1:3:2`, `::2`, `3::-1` | slice with a step |
/// | `None` | `None` | new size-1 dim |
/// | `...` | `...` | all remaining dims |
///
/// ```
/// use tensile::{s, DType, Tensor};
/// let t = Tensor::zeros_with(&[4, 5, 6], DType::Int64).unwrap();
/// // Python: t[None, 1:3, ..., -1]
/// assert_eq!(t.index(&s![None, 1..3, ..., -1]).unwrap().size(), &[1, 2, 5]);
/// // Python: t[:, ::2]
/// assert_eq!(t.index(&s![.., ..;2]).unwrap().size(), &[4, 3, 6]);
/// ```
#[macro_export]
macro_rules! s {
    (@acc [$($acc:expr,)*]) => { [$($acc,)*] };
    (@acc [$($acc:expr,)*] None $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc,)* $crate::Tensor::__S_NEW_AXIS,] $($($rest)*)?)
    };
    (@acc [$($acc:expr,)*] ... $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc,)* $crate::Tensor::__S_ELLIPSIS,] $($($rest)*)?)
    };
    (@acc [$($acc:expr,)*] $r:expr ; $step:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc,)* $crate::Tensor::__s_stepped($r, $step),] $($($rest)*)?)
    };
    (@acc [$($acc:expr,)*] $e:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($acc,)* $crate::Tensor::__s_item($e),] $($($rest)*)?)
    };
    ($($t:tt)*) => { $crate::s!(@acc [] $($t)*) };
}

#[cfg(test)]
mod tests {
    use super::TensorIndex::*;
    use super::*;
    use crate::dtype::DType;

    fn arange(sizes: &[usize]) -> Tensor {
        let n: usize = sizes.iter().product();
        Tensor::from_vec((0..n as i64).collect::<Vec<i64>>(), sizes).unwrap()
    }

    #[test]
    fn basic() {
        let t = arange(&[3, 4]);
        let r = t.index(&[Int(1)]).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![4, 5, 6, 7]);
        let r = t.index(&[Slice(None, None, None), Int(-1)]).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![3, 7, 11]);
        let r = t.index(&[NewAxis, Slice(Some(1), None, Some(2))]).unwrap();
        assert_eq!(r.size(), &[1, 1, 4]);
        assert_eq!(r.storage_offset(), 4);
        let r = t.index(&[Ellipsis, NewAxis]).unwrap();
        assert_eq!(r.size(), &[3, 4, 1]);
        assert_eq!(r.stride(), &[4, 1, 1]);
        assert!(r.shares_storage(&t));
        assert_eq!(t.index(&[]).unwrap().size(), &[3, 4]);
    }

    #[test]
    fn errors() {
        let t = arange(&[5, 2]);
        assert_eq!(
            t.index(&[Int(5)]).unwrap_err().message(),
            "index 5 is out of bounds for dimension 0 with size 5"
        );
        assert_eq!(
            t.index(&[NewAxis, Int(0), Int(-3)]).unwrap_err().message(),
            "index -3 is out of bounds for dimension 2 with size 2"
        );
        assert_eq!(
            t.index(&[Int(0), Int(0), Int(0)]).unwrap_err().message(),
            "too many indices for tensor of dimension 2"
        );
        let e = t.index(&[Slice(None, None, Some(0))]).unwrap_err();
        assert_eq!(
            (e.kind(), e.message()),
            (crate::ErrorKind::ValueError, "slice step cannot be zero")
        );
        assert_eq!(
            t.index(&[Slice(None, None, Some(-1))])
                .unwrap_err()
                .message(),
            "step must be greater than zero"
        );
        let s = Tensor::scalar_tensor_with(1.0, DType::Float32).unwrap();
        assert!(
            s.index(&[Int(0)])
                .unwrap_err()
                .message()
                .starts_with("invalid index of a 0-dim tensor.")
        );
        assert_eq!(
            s.index(&[TensorIndex::FULL]).unwrap_err().message(),
            "too many indices for tensor of dimension 0"
        );
        assert_eq!(s.index(&[NewAxis]).unwrap().size(), &[1]);
        assert_eq!(s.index(&[Ellipsis]).unwrap().size(), &[] as &[usize]);
        // several ellipses are accepted, as in PyTorch
        assert_eq!(t.index(&[Ellipsis, Ellipsis]).unwrap().size(), &[5, 2]);
    }

    #[test]
    fn macro_syntax() {
        let t = arange(&[4, 5, 6]);
        let a = s![None, 1..3, ..., -1];
        assert_eq!(
            a,
            [NewAxis, Slice(Some(1), Some(3), None), Ellipsis, Int(-1)]
        );
        assert_eq!(
            s![.., ..;2, 1..;3, ..4],
            [
                TensorIndex::FULL,
                Slice(None, None, Some(2)),
                Slice(Some(1), None, Some(3)),
                Slice(None, Some(4), None)
            ]
        );
        assert_eq!(
            s![1..=2, ..=-1],
            [Slice(Some(1), Some(3), None), Slice(None, None, None)]
        );
        let i = 2usize;
        assert_eq!(s![i, i as i64 - 3], [Int(2), Int(-1)]);
        assert_eq!(t.index(&s![None, ..]).unwrap().size(), &[1, 4, 5, 6]);
        assert_eq!(t.index(&s![..., 0]).unwrap().size(), &[4, 5]);
        let empty: [TensorIndex; 0] = s![];
        assert_eq!(t.index(&empty).unwrap().size(), &[4, 5, 6]);
    }
}
