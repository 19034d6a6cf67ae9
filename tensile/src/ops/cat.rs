//! `cat` and `stack`, with PyTorch's type promotion, output memory format and errors
//! (plus `DefaultCPUAllocator: can't allocate memory: …` for an output too large to allocate):
//! their forward functions; the public functions and their recording are in
//! [`crate::optable::shape`].

use crate::dim::wrap_dim;
use crate::dtype::promote_types;
use crate::error::{Error, Result, fmt_list};
use crate::layout::{channels_last_strides, compute_stride, contiguous_strides};
use crate::ops::copy::copy_unchecked;
use crate::tensor::Tensor;

/// `is_channels_last_strides_2d_s4` / `_3d_s5`: whether strides look channels-last, with
/// PyTorch's tie-breaks for size-0/1 dims (`order` is C, then the spatial dims from the
/// innermost, then N).
pub(crate) fn strides_like_channels_last(
    sizes: &[usize],
    strides: &[usize],
    order: &[usize],
) -> bool {
    if strides[1] == 0 {
        return false;
    }
    let mut min = 0usize;
    for &d in order {
        if sizes[d] == 0 || strides[d] < min {
            return false;
        }
        if d == 0 && min == strides[1] {
            return false;
        }
        min = strides[d];
        if sizes[d] > 1 {
            min *= sizes[d];
        }
    }
    true
}

/// The memory formats `cat` can give its output.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Contiguous,
    ChannelsLast,
    ChannelsLast3d,
}

/// `t.suggest_memory_format()`.
fn suggest_memory_format(t: &Tensor) -> Format {
    match t.dim() {
        4 if strides_like_channels_last(&t.sizes, &t.strides, &[1, 3, 2, 0]) => {
            Format::ChannelsLast
        }
        5 if strides_like_channels_last(&t.sizes, &t.strides, &[1, 4, 3, 2, 0]) => {
            Format::ChannelsLast3d
        }
        _ => Format::Contiguous,
    }
}

/// Whether `t.suggest_memory_format()` is channels-last (4-d) or channels-last-3d (5-d).
pub(crate) fn suggests_channels_last(t: &Tensor) -> bool {
    suggest_memory_format(t) != Format::Contiguous
}

/// `cat_compute_output_memory_format`: the inputs' common suggested format, else contiguous.
fn output_format(ts: &[&Tensor]) -> Format {
    let mut format = None;
    for t in ts {
        let f = suggest_memory_format(t);
        if f == Format::Contiguous || format.is_some_and(|g| g != f) {
            return Format::Contiguous;
        }
        format = Some(f);
    }
    format.unwrap_or(Format::Contiguous)
}

/// A tensor `cat` skips: 1-D and empty (the legacy `torch.tensor([])`).
fn skipped(t: &Tensor) -> bool {
    t.dim() == 1 && t.sizes[0] == 0
}

/// The forward function of `torch.cat(tensors, dim)`: joins tensors along an existing dim
/// ([`crate::cat`], [`crate::cat_with`]).
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
/// with negative dimension -9223372036854775808: [-9223372036854775808, 0]` (summed sizes in
/// `[2^63, 2^64)`, as PyTorch's wrapped int64 sum); `torch.cat: the summed sizes along
/// dimension 0 (18446744073709551616) overflow int64` (four `(2^62, 0)` inputs).
pub(crate) fn cat_impl(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
    for (i, t) in tensors.iter().enumerate() {
        if t.dim() == 0 {
            return Err(Error::runtime(format!(
                "zero-dimensional tensor (at position {i}) cannot be concatenated"
            )));
        }
    }
    let valid = tensors.iter().position(|t| !skipped(t));
    let d = match valid {
        Some(v) => wrap_dim(dim, tensors[v].dim())?,
        None => 0,
    };
    if tensors.is_empty() {
        return Err(Error::value(
            "torch.cat(): expected a non-empty list of Tensors",
        ));
    }
    let format = output_format(tensors);
    let dtype = tensors
        .iter()
        .skip(1)
        .fold(tensors[0].dtype, |acc, t| promote_types(acc, t.dtype));
    let Some(v) = valid else {
        return Tensor::empty_with([0], dtype);
    };
    let first = tensors[v];
    let mut total = 0usize;
    // also summed in u128: four `(2^62, 0)` inputs wrap usize back to 0
    let mut total128 = 0u128;
    for (i, t) in tensors.iter().enumerate() {
        if skipped(t) {
            continue;
        }
        if t.dim() != first.dim() {
            return Err(Error::runtime(format!(
                "Tensors must have same number of dimensions: got {} and {}",
                first.dim(),
                t.dim()
            )));
        }
        for k in 0..first.dim() {
            if k != d && first.sizes[k] != t.sizes[k] {
                return Err(Error::runtime(format!(
                    "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                    first.sizes[k], t.sizes[k]
                )));
            }
        }
        // PyTorch sums in int64, which wraps: a negative total is refused as a negative size.
        total = total.wrapping_add(t.sizes[d]);
        total128 += t.sizes[d] as u128;
    }
    let mut sizes = first.sizes.to_vec();
    sizes[d] = total;
    if total128 > usize::MAX as u128 {
        return Err(Error::runtime(format!(
            "torch.cat: the summed sizes along dimension {d} ({total128}) overflow int64"
        )));
    }
    if total > i64::MAX as usize {
        let s: Vec<i64> = sizes.iter().map(|&x| x as i64).collect();
        return Err(Error::runtime(format!(
            "Trying to create tensor with negative dimension {}: {}",
            total as i64,
            crate::error::fmt_list(&s)
        )));
    }
    let strides = match format {
        Format::Contiguous => contiguous_strides(&sizes),
        _ => channels_last_strides(&sizes),
    };
    let out = Tensor::try_alloc(&sizes, &strides, dtype)?;
    let mut pos = 0usize;
    for t in tensors.iter().filter(|t| !skipped(t)) {
        let len = t.sizes[d];
        if len > 0 && t.numel() > 0 {
            let part = out.view_with(t.sizes.clone(), out.strides.clone(), pos * out.strides[d]);
            copy_unchecked(&part, t);
        }
        pos += len;
    }
    Ok(out)
}

/// The forward function of `torch.stack(tensors, dim)`: joins equally-shaped tensors along a
/// new dim ([`crate::stack`], [`crate::stack_with`]).
///
/// Shapes: `n` tensors of shape `S` → `S` with `n` inserted at `dim` (which wraps against
/// `S.len() + 1`). dtype: the promotion of the inputs' dtypes, as [`crate::cat`].
///
/// Errors: `stack expects a non-empty TensorList`; `Dimension out of range (expected to be in
/// range of [-3, 2], but got 3)` (IndexError); `stack expects each tensor to be equal size,
/// but got [3, 1] at entry 0 and [1, 2] at entry 1`.
pub(crate) fn stack_impl(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
    let Some(t0) = tensors.first() else {
        return Err(Error::runtime("stack expects a non-empty TensorList"));
    };
    let nd = t0.dim();
    let wd = wrap_dim(dim, nd + 1)?;
    for (i, t) in tensors.iter().enumerate().skip(1) {
        if t.sizes != t0.sizes {
            return Err(Error::runtime(format!(
                "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}",
                fmt_list(&t0.sizes),
                fmt_list(&t.sizes)
            )));
        }
    }
    let mut result_sizes = t0.sizes.to_vec();
    result_sizes.insert(wd, tensors.len());
    // joined along the existing dim only when `n * size` fits: four `(2^62, 0)` inputs stack
    // to `(4, 2^62, 0)` as in PyTorch, though their cat along dim 0 would overflow
    let fits = (t0.sizes.get(wd).copied().unwrap_or(1) as u128) * (tensors.len() as u128)
        <= i64::MAX as u128;
    if wd < nd && fits {
        let out = cat_impl(tensors, wd as i64)?;
        return Ok(
            match compute_stride(&out.sizes, &out.strides, &result_sizes) {
                Some(st) => out.view_with(result_sizes, st, out.offset),
                None => {
                    let c = out.try_contiguous()?;
                    c.view_with(
                        result_sizes.clone(),
                        contiguous_strides(&result_sizes),
                        c.offset,
                    )
                }
            },
        );
    }
    let unsqueezed: Vec<Tensor> = tensors
        .iter()
        .map(|t| {
            let (mut s, mut st) = (t.sizes.to_vec(), t.strides.to_vec());
            s.insert(wd, 1);
            st.insert(wd, 1);
            t.view_with(s, st, t.offset)
        })
        .collect();
    let refs: Vec<&Tensor> = unsqueezed.iter().collect();
    cat_impl(&refs, wd as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, cat_with, stack_with};

    #[test]
    fn cat_and_stack() {
        let a = Tensor::from_vec(vec![1i32, 2, 3, 4], [2, 2]).unwrap();
        let b = Tensor::from_vec(vec![0.5f32, 1.5], [2, 1]).unwrap();
        let r = cat_with(&[&a, &b], -1).unwrap();
        assert_eq!((r.size(), r.dtype()), (&[2usize, 3][..], DType::Float32));
        assert_eq!(r.to_vec::<f64>(), vec![1.0, 2.0, 0.5, 3.0, 4.0, 1.5]);
        // legacy skipped (0,) tensors still take part in the dtype
        let skip = Tensor::ones_with([0], DType::Float64).unwrap();
        let r = cat_with(&[&skip, &a], 1).unwrap();
        assert_eq!((r.size(), r.dtype()), (&[2usize, 2][..], DType::Float64));
        assert_eq!(cat_with(&[&skip, &skip], 5).unwrap().size(), &[0]);
        // channels-last inputs give a channels-last output; stack views it back
        let cl = Tensor::ones_with([2, 3, 4, 5], DType::Float32)
            .unwrap()
            .contiguous_channels_last()
            .unwrap();
        let r = cat_with(&[&cl, &cl], 1).unwrap();
        assert_eq!(r.stride(), &[120, 1, 30, 6]);
        let s = stack_with(&[&cl, &cl], 1).unwrap();
        assert_eq!(
            (s.size(), s.stride()),
            (&[2usize, 2, 3, 4, 5][..], &[120usize, 3, 1, 30, 6][..])
        );
        let s = stack_with(&[&a, &a, &a], 2).unwrap();
        assert_eq!(
            (s.size(), s.stride()),
            (&[2usize, 2, 3][..], &[6usize, 3, 1][..])
        );
        assert_eq!(s.to_vec::<i64>(), vec![1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]);
        let z = Tensor::scalar_tensor_with(7, DType::Int64).unwrap();
        assert_eq!(
            stack_with(&[&z, &z], 0).unwrap().to_vec::<i64>(),
            vec![7, 7]
        );
        let u = Tensor::ones_with([2], DType::UInt8).unwrap();
        let i = Tensor::ones_with([2], DType::Int8).unwrap();
        assert_eq!(cat_with(&[&u, &i], 0).unwrap().dtype(), DType::Int16);
    }

    #[test]
    fn errors() {
        let e = |r: Result<Tensor>| {
            let e = r.unwrap_err();
            (e.kind(), e.to_string())
        };
        use crate::ErrorKind::*;
        let a = Tensor::ones_with([2, 2], DType::Float32).unwrap();
        let b = Tensor::ones_with([1, 3], DType::Float32).unwrap();
        assert_eq!(
            e(cat_with::<Tensor>(&[], 0)),
            (
                ValueError,
                "torch.cat(): expected a non-empty list of Tensors".into()
            )
        );
        assert_eq!(
            e(stack_with::<Tensor>(&[], 0)),
            (RuntimeError, "stack expects a non-empty TensorList".into())
        );
        assert_eq!(
            e(cat_with(&[&a, &b], 1)),
            (
                RuntimeError,
                "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 1 for tensor number 1 in the list.".into()
            )
        );
        assert_eq!(
            e(cat_with(
                &[&a, &Tensor::ones_with([2], DType::Float32).unwrap()],
                0
            )),
            (
                RuntimeError,
                "Tensors must have same number of dimensions: got 2 and 1".into()
            )
        );
        assert_eq!(
            e(cat_with(
                &[&Tensor::scalar_tensor_with(1, DType::Int32).unwrap(), &a],
                0
            )),
            (
                RuntimeError,
                "zero-dimensional tensor (at position 0) cannot be concatenated".into()
            )
        );
        assert_eq!(
            e(stack_with(&[&a, &b], 0)),
            (RuntimeError, "stack expects each tensor to be equal size, but got [2, 2] at entry 0 and [1, 3] at entry 1".into())
        );
        assert_eq!(
            e(stack_with(&[&a], 3)),
            (
                IndexError,
                "Dimension out of range (expected to be in range of [-3, 2], but got 3)".into()
            )
        );
    }
}
