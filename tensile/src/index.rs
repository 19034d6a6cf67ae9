//! Indexing: Python's `t[i, a:b:c, None, ..., idx, mask, [0, 2]]` on a tensor.
//!
//! Basic indices (ints, slices, `None`, `...`) give a view; index tensors, masks, lists and
//! bools (advanced indices, `crate::ops::advindex`) give a copy.
//! [`Tensor::index`] itself and its recording are in `crate::optable::index`; here are the
//! items and the basic indexing they reduce to.
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
//! let idx = Tensor::from_vec(vec![2i64, 0, 1], [3]).unwrap();
//! let a = y.index(&s![&idx, .., [1, 0, 1]]).unwrap(); // Python: y[idx, :, [1, 0, 1]]
//! assert_eq!(a.size(), &[3, 1]); // separated index tensors: their dim first
//! ```

use crate::args::Int;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// One item of an indexing tuple, as in Python's `t[...]`.
///
/// `Int`, `Slice`, `NewAxis` and `Ellipsis` are basic indices; `Tensor` and `Bool` are
/// advanced. A Python list is a `Tensor` item: `Vec`s, slices and arrays of integers convert
/// into an int64 index tensor, of `bool`s into a bool mask (`From` impls below), as
/// `torch.tensor(list)` would make them.
#[derive(Clone, Debug)]
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
    /// Python's `True`/`False` inside a tuple: a new size-1 dim indexed by `[0]` (`True`) or
    /// by an empty index (`False`), an advanced index.
    Bool(bool),
    /// An index tensor (int64 or int32: positions along the next dim, negative counting from
    /// the end) or a mask (bool or uint8: covers as many dims as it has, selecting its
    /// `True` positions). A 0-d integer tensor acts as an `Int` (a view), a 0-d bool/uint8
    /// tensor as a `Bool`. Other dtypes are refused when the indexing runs.
    Tensor(Tensor),
}

impl PartialEq for TensorIndex {
    /// Items are equal when they are the same item; two `Tensor` items are equal when they
    /// are the same view (storage, dtype, sizes, strides, offset), not when their values are.
    fn eq(&self, other: &TensorIndex) -> bool {
        use TensorIndex::*;
        match (self, other) {
            (Int(a), Int(b)) => a == b,
            (Slice(a, b, c), Slice(d, e, f)) => (a, b, c) == (d, e, f),
            (NewAxis, NewAxis) | (Ellipsis, Ellipsis) => true,
            (Bool(a), Bool(b)) => a == b,
            (Tensor(a), Tensor(b)) => {
                a.shares_storage(b)
                    && a.dtype() == b.dtype()
                    && a.size() == b.size()
                    && a.stride() == b.stride()
                    && a.storage_offset() == b.storage_offset()
            }
            _ => false,
        }
    }
}

impl From<&Tensor> for TensorIndex {
    /// An index tensor or mask (an alias of the tensor, no copy).
    fn from(t: &Tensor) -> TensorIndex {
        TensorIndex::Tensor(t.alias())
    }
}

impl From<Tensor> for TensorIndex {
    /// An index tensor or mask.
    fn from(t: Tensor) -> TensorIndex {
        TensorIndex::Tensor(t)
    }
}

impl From<bool> for TensorIndex {
    /// Python's `True`/`False` item.
    fn from(b: bool) -> TensorIndex {
        TensorIndex::Bool(b)
    }
}

/// A Python list of ints: a 1-d int64 index tensor.
fn int_list<T: Int>(v: &[T]) -> TensorIndex {
    let n = v.len();
    TensorIndex::Tensor(
        Tensor::from_vec(v.iter().map(|x| x.to_i64()).collect::<Vec<i64>>(), [n])
            .expect("a 1-d tensor of n elements"),
    )
}

/// A Python list of bools: a 1-d bool mask (an empty list is an empty int64 index, as
/// `torch.tensor([])` is not a bool tensor).
fn bool_list(v: &[bool]) -> TensorIndex {
    if v.is_empty() {
        return int_list::<i64>(&[]);
    }
    TensorIndex::Tensor(Tensor::from_vec(v.to_vec(), [v.len()]).expect("a 1-d tensor"))
}

impl<T: Int> From<&[T]> for TensorIndex {
    /// A Python list of ints (`[0, 2]`): a 1-d int64 index tensor.
    fn from(v: &[T]) -> TensorIndex {
        int_list(v)
    }
}
impl<T: Int> From<Vec<T>> for TensorIndex {
    /// A Python list of ints: a 1-d int64 index tensor.
    fn from(v: Vec<T>) -> TensorIndex {
        int_list(&v)
    }
}
impl<T: Int, const N: usize> From<[T; N]> for TensorIndex {
    /// A Python list of ints: a 1-d int64 index tensor.
    fn from(v: [T; N]) -> TensorIndex {
        int_list(&v)
    }
}
impl<T: Int, const N: usize> From<&[T; N]> for TensorIndex {
    /// A Python list of ints: a 1-d int64 index tensor.
    fn from(v: &[T; N]) -> TensorIndex {
        int_list(v)
    }
}
impl From<&[bool]> for TensorIndex {
    /// A Python list of bools (`[True, False]`): a 1-d bool mask.
    fn from(v: &[bool]) -> TensorIndex {
        bool_list(v)
    }
}
impl From<Vec<bool>> for TensorIndex {
    /// A Python list of bools: a 1-d bool mask.
    fn from(v: Vec<bool>) -> TensorIndex {
        bool_list(&v)
    }
}
impl<const N: usize> From<[bool; N]> for TensorIndex {
    /// A Python list of bools: a 1-d bool mask.
    fn from(v: [bool; N]) -> TensorIndex {
        bool_list(&v)
    }
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

/// Dims an item consumes (`specified` in PyTorch's `applySlicing`): a mask its rank, any
/// other tensor, an int or a slice one, the rest none.
fn consumed(item: &TensorIndex) -> usize {
    match item {
        TensorIndex::Int(_) | TensorIndex::Slice(..) => 1,
        TensorIndex::Tensor(t) if matches!(t.dtype(), DType::Bool | DType::UInt8) => t.dim(),
        TensorIndex::Tensor(_) => 1,
        _ => 0,
    }
}

/// The single-element index a `True` (`[0]`) or `False` (empty) item stands for.
fn bool_index(b: bool) -> Tensor {
    let v: Vec<i64> = if b { vec![0] } else { vec![] };
    let n = v.len();
    Tensor::from_vec(v, [n]).expect("a 1-d tensor")
}

/// PyTorch's `applySlicing`: applies the basic items of `items` to `t` (a view) and collects
/// the advanced ones as a list of optional index tensors aligned with the view's dims
/// (empty when there is none; trailing `None`s dropped). With `skip_full`, a full slice
/// (start `None`/0, stop `None`/≥ the size, step `None`/1) is not applied (PyTorch's
/// `applySlice` optimization, disabled only for a lone slice in `__getitem__`).
pub(crate) fn apply_slicing(
    t: &Tensor,
    items: &[TensorIndex],
    skip_full: bool,
) -> Result<(Tensor, Vec<Option<Tensor>>)> {
    let ndim = t.dim();
    let specified: usize = items.iter().map(consumed).sum();
    if specified > ndim {
        return Err(too_many(ndim));
    }
    let mut result = t.alias();
    let mut dim = 0usize;
    let mut out: Vec<Option<Tensor>> = Vec::new();
    let record = |out: &mut Vec<Option<Tensor>>, dim: &mut usize, idx: Tensor| {
        if out.is_empty() {
            out.resize(*dim, None);
        }
        *dim += if matches!(idx.dtype(), DType::Bool | DType::UInt8) {
            idx.dim()
        } else {
            1
        };
        out.push(Some(idx));
    };
    for (real_dim, item) in items.iter().enumerate() {
        match item {
            TensorIndex::Int(i) => {
                if dim >= result.dim() {
                    return Err(too_many(ndim));
                }
                result = apply_select(&result, dim, *i, real_dim)?;
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
                let full = matches!(start, None | Some(0))
                    && step == 1
                    && stop.is_none_or(|s| s >= result.size()[dim] as i64);
                if !(skip_full && full) {
                    result = result.slice(dim as i64, *start, *stop, step)?;
                }
                dim += 1;
                if !out.is_empty() {
                    out.push(None);
                }
            }
            TensorIndex::NewAxis => {
                if dim > result.dim() {
                    return Err(too_many(ndim));
                }
                result = result.unsqueeze(dim as i64)?;
                dim += 1;
                if !out.is_empty() {
                    out.push(None);
                }
            }
            TensorIndex::Ellipsis => {
                let k = ndim - specified;
                dim += k;
                if !out.is_empty() {
                    out.resize(out.len() + k, None);
                }
            }
            TensorIndex::Bool(b) => {
                if dim > result.dim() {
                    return Err(too_many(ndim));
                }
                result = result.unsqueeze(dim as i64)?;
                record(&mut out, &mut dim, bool_index(*b));
            }
            TensorIndex::Tensor(x) if x.dim() == 0 && x.dtype().is_integral(true) => {
                if matches!(x.dtype(), DType::Bool | DType::UInt8) {
                    if dim > result.dim() {
                        return Err(too_many(ndim));
                    }
                    result = result.unsqueeze(dim as i64)?;
                    record(&mut out, &mut dim, bool_index(x.item::<i64>()? != 0));
                } else {
                    if dim >= result.dim() {
                        return Err(too_many(ndim));
                    }
                    result = apply_select(&result, dim, x.item::<i64>()?, real_dim)?;
                }
            }
            TensorIndex::Tensor(x) => record(&mut out, &mut dim, x.alias()),
        }
    }
    while matches!(out.last(), Some(None)) {
        out.pop();
    }
    Ok((result, out))
}

fn too_many(ndim: usize) -> Error {
    Error::index(format!("too many indices for tensor of dimension {ndim}"))
}

/// `applySelect`: Python's integer index `i` on dim `dim` of `t`, reporting `real_dim` (the
/// item's position in the index tuple).
pub(crate) fn apply_select(t: &Tensor, dim: usize, i: i64, real_dim: usize) -> Result<Tensor> {
    if t.dim() == 0 {
        return Err(Error::index(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
        ));
    }
    crate::geometry::index::wrap_index(i, t.size()[dim], real_dim)?;
    t.select(dim as i64, i)
}

/// Hidden helpers the [`s!`](crate::s) macro expands to (reachable as `$crate::Tensor::…`).
impl Tensor {
    /// `s!` helper: an integer, range, tensor, list or bool item.
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

/// Builds an indexing list for [`Tensor::index`] (and [`Tensor::index_set_`]) with
/// Python-like syntax, returning an array `[TensorIndex; N]`:
///
/// | `s![…]` item | Python | meaning |
/// |---|---|---|
/// | `2`, `-1`, `i` (any integer expression) | `2`, `-1`, `i` | select (removes the dim) |
/// | `1..3`, `1..`, `..3`, `..`, `1..=2` | `1:3`, `1:`, `:3`, `:`, `1:3` | slice with step 1 |
/// | `1..3;2`, `..;2`, `3..;-1` | `1:3:2`, `::2`, `3::-1` | slice with a step |
/// | `None` | `None` | new size-1 dim |
/// | `...` | `...` | all remaining dims |
/// | `&idx` (a `&Tensor`), `idx` (a `Tensor`) | `idx` | index tensor or mask (advanced) |
/// | `[0, 2]`, `vec![0, 2]`, `&v[..]` | `[0, 2]` | list of ints: an int64 index tensor |
/// | `[true, false]` | `[True, False]` | list of bools: a bool mask |
/// | `true`, `false` | `True`, `False` | a size-1 dim indexed by `[0]` / by `[]` |
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
    use super::TensorIndex::{Ellipsis, Int, NewAxis, Slice};
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
