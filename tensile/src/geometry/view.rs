//! View geometry: the sizes, strides and storage-offset shifts (all in elements) of every
//! view op, with PyTorch 2.15's checks and error texts (and Python exception classes).
//!
//! The view ops (`crate::views`) wrap their arguments, call these, and build the view through
//! [`fit_geometry`], which keeps every byte stride, byte offset and size product within `i64`
//! so that no later computation in the crate can overflow.

use crate::dim::{wrap_dim, wrap_dims};
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};

/// Sizes and strides (in elements) of a view.
pub type Geometry = (Vec<usize>, Vec<usize>);

/// `numel: integer multiplication overflow` (RuntimeError).
pub fn numel_overflow() -> Error {
    Error::runtime("numel: integer multiplication overflow")
}

/// PyTorch's `safe_compute_numel` applied to requested sizes: the product (as unsigned 64-bit,
/// so a negative size counts as huge) must not overflow nor exceed `i64::MAX`.
///
/// Error: `numel: integer multiplication overflow`. A negative size that survives (only
/// possible next to a 0) is refused with the same text, since it cannot be represented.
pub fn checked_sizes(sizes: &[i64]) -> Result<Vec<usize>> {
    let unsigned: Vec<usize> = sizes.iter().map(|&s| s as u64 as usize).collect();
    crate::layout::checked_numel(&unsigned)?;
    if sizes.iter().any(|&s| s < 0) {
        return Err(numel_overflow());
    }
    Ok(unsigned)
}

/// Refuses shapes whose dense strides (`contiguous_strides`, a size 0 counting as 1) would
/// not fit in `i64`: only reachable with a 0-size dim next to astronomically large ones.
///
/// Error: `numel: integer multiplication overflow`.
pub fn check_dense_extent(sizes: &[usize]) -> Result<()> {
    let mut acc: usize = 1;
    for &s in sizes {
        acc = acc
            .checked_mul(s.max(1))
            .filter(|&a| a <= i64::MAX as usize)
            .ok_or_else(numel_overflow)?;
    }
    Ok(())
}

/// `computeStorageNbytes(sizes, strides, itemsize)`: bytes a layout needs from offset 0, with
/// PyTorch's unsigned 64-bit overflow detection; 0 when any size is 0.
///
/// Error: `Storage size calculation overflowed with sizes=[2, -2] and strides=[1, 1]`.
pub fn storage_bytes_needed(sizes: &[i64], strides: &[i64], itemsize: usize) -> Result<u64> {
    let mut size: u64 = 1;
    let mut overflow = false;
    for (&sz, &st) in sizes.iter().zip(strides) {
        if sz == 0 {
            return Ok(0);
        }
        let (strided, o1) = (st as u64).overflowing_mul(sz.wrapping_sub(1) as u64);
        let (s, o2) = size.overflowing_add(strided);
        size = s;
        overflow |= o1 | o2;
    }
    let (bytes, o3) = size.overflowing_mul(itemsize as u64);
    if overflow || o3 || bytes > i64::MAX as u64 {
        return Err(Error::runtime(format!(
            "Storage size calculation overflowed with sizes={} and strides={}",
            fmt_list(sizes),
            fmt_list(strides)
        )));
    }
    Ok(bytes)
}

/// Validates an `as_strided(size, stride, storage_offset)` request against a storage of
/// `storage_nbytes` bytes holding elements of `itemsize` bytes (PyTorch's `setStrided`), and
/// returns the geometry and offset (elements).
///
/// Errors, in PyTorch's order:
/// `mismatch in length of strides and shape`;
/// `as_strided: Negative strides are not supported at the moment, got strides: [1, -1]`;
/// `Storage size calculation overflowed with sizes=[2, -2] and strides=[1, 1]`;
/// `setStorage: sizes [2, 2], strides [3, 3], storage offset 1, and itemsize 4 requiring a storage size of 32 are out of bounds for storage of size 24`
/// (skipped when the view has no elements);
/// `Tensor: invalid storage offset -1`; `numel: integer multiplication overflow`.
pub fn as_strided_geometry(
    sizes: &[i64],
    strides: &[i64],
    offset: i64,
    itemsize: usize,
    storage_nbytes: usize,
) -> Result<(Vec<usize>, Vec<usize>, usize)> {
    if sizes.len() != strides.len() {
        return Err(Error::runtime("mismatch in length of strides and shape"));
    }
    if strides.iter().any(|&s| s < 0) {
        return Err(Error::runtime(format!(
            "as_strided: Negative strides are not supported at the moment, got strides: {}",
            fmt_list(strides)
        )));
    }
    let needed = storage_bytes_needed(sizes, strides, itemsize)?;
    // i128: PyTorch's int64 arithmetic could wrap here and accept an out-of-bounds view.
    let offset_bytes = offset as i128 * itemsize as i128;
    if needed != 0 {
        let total = needed as i128 + offset_bytes;
        if total > storage_nbytes as i128 {
            return Err(Error::runtime(format!(
                "setStorage: sizes {}, strides {}, storage offset {offset}, and itemsize {itemsize} requiring a storage size of {total} are out of bounds for storage of size {storage_nbytes}",
                fmt_list(sizes),
                fmt_list(strides)
            )));
        }
    }
    if offset < 0 {
        return Err(Error::runtime(format!(
            "Tensor: invalid storage offset {offset}"
        )));
    }
    if offset_bytes > i64::MAX as i128 {
        return Err(Error::runtime(format!(
            "Storage size calculation overflowed with sizes={} and strides={}",
            fmt_list(sizes),
            fmt_list(strides)
        )));
    }
    let sz = checked_sizes(sizes)?;
    Ok((
        sz,
        strides.iter().map(|&s| s as usize).collect(),
        offset as usize,
    ))
}

/// `expand`'s first check: `target` (the requested sizes) names at least as many dims as
/// `sizes` has. `dtype` names the tensor in the message.
///
/// Error: `expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)`.
pub fn check_expand_len(sizes: &[usize], target: &[i64], dtype: DType) -> Result<()> {
    if target.len() < sizes.len() {
        return Err(Error::runtime(format!(
            "expand({}{{{}}}, size={}): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
            dtype.legacy_type_name(),
            fmt_list(sizes),
            fmt_list(target),
            target.len(),
            sizes.len()
        )));
    }
    Ok(())
}

/// `inferExpandGeometry`: sizes and strides (as signed values, before `as_strided`'s checks)
/// of `(sizes, strides)` expanded to `target`, where `-1` keeps a size. Expanded dims get
/// stride 0; a new leading dim of size 1 gets `size*stride` of the dim to its right. A 0-d
/// input takes `target` verbatim with all-zero strides. `target.len() >= sizes.len()` is
/// checked first by [`check_expand_len`].
///
/// Errors: `The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0`;
/// `The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]`.
pub fn expand_geometry(
    sizes: &[usize],
    strides: &[usize],
    target: &[i64],
) -> Result<(Vec<i64>, Vec<i64>)> {
    let n = target.len();
    let nd = sizes.len();
    if nd == 0 {
        return Ok((target.to_vec(), vec![0; n]));
    }
    let mut es = vec![0i64; n];
    let mut est = vec![0i64; n];
    for i in (0..n).rev() {
        let off = n - 1 - i;
        let existing = (off < nd).then(|| nd - 1 - off);
        let (mut size, mut stride) = match existing {
            Some(d) => (sizes[d] as i64, strides[d] as i64),
            // off >= nd >= 1, so i + 1 < n
            None => (1, es[i + 1].saturating_mul(est[i + 1])),
        };
        let mut tgt = target[i];
        if tgt == -1 {
            if existing.is_none() {
                return Err(Error::runtime(format!(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )));
            }
            tgt = size;
        }
        if size != tgt {
            if size != 1 {
                return Err(Error::runtime(format!(
                    "The expanded size of the tensor ({tgt}) must match the existing size ({size}) at non-singleton dimension {i}.  Target sizes: {}.  Tensor sizes: {}",
                    fmt_list(target),
                    fmt_list(sizes)
                )));
            }
            size = tgt;
            stride = 0;
        }
        es[i] = size;
        est[i] = stride;
    }
    Ok((es, est))
}

/// `flatten(start_dim, end_dim)`'s dims, wrapped against `ndim` (a 0-d tensor accepts `0`
/// and `-1`).
///
/// Errors: IndexError `Dimension out of range (expected to be in range of [-2, 1], but got 2)`;
/// RuntimeError `flatten() has invalid args: start_dim cannot come after end_dim`.
pub fn flatten_dims(ndim: usize, start_dim: i64, end_dim: i64) -> Result<(usize, usize)> {
    let start = wrap_dim(start_dim, ndim)?;
    let end = wrap_dim(end_dim, ndim)?;
    if start > end {
        return Err(Error::runtime(
            "flatten() has invalid args: start_dim cannot come after end_dim",
        ));
    }
    Ok((start, end))
}

/// The sizes of `sizes` with dims `start..=end` (wrapped, `start <= end < sizes.len()`)
/// merged into one of their product.
///
/// Error: `numel: integer multiplication overflow` (the merged dims may multiply past `i64`
/// only next to a 0-size dim).
pub fn flatten_sizes(sizes: &[usize], start: usize, end: usize) -> Result<Vec<usize>> {
    let prod = sizes[start..=end]
        .iter()
        .try_fold(1usize, |acc, &s| {
            acc.checked_mul(s).filter(|&p| p <= i64::MAX as usize)
        })
        .ok_or_else(numel_overflow)?;
    let mut shape: Vec<usize> = sizes[..start].to_vec();
    shape.push(prod);
    shape.extend_from_slice(&sizes[end + 1..]);
    Ok(shape)
}

/// `unflatten(dim, split)`: the sizes of `sizes` with dim `dim` split into `split` (one entry
/// may be `-1`, inferred).
///
/// Errors: IndexError `Dimension out of range (…)`; RuntimeError
/// `unflatten: sizes must be non-empty`;
/// `unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor`
/// (the wrapped dim); any other failure of the size inference is reported as
/// `unflatten got an unexpected error:\n{original message}` (e.g. two `-1`s, or a 0-d input:
/// `…\nDimension specified as 0 but tensor has no dimensions`).
pub fn unflatten_sizes(sizes: &[usize], dim: i64, split: &[i64]) -> Result<Vec<usize>> {
    let d = wrap_dim(dim, sizes.len())?;
    if split.is_empty() {
        return Err(Error::runtime("unflatten: sizes must be non-empty"));
    }
    let unexpected = |e: Error| {
        Error::runtime(format!(
            "unflatten got an unexpected error:\n{}",
            e.message()
        ))
    };
    let size = sizes[crate::dim::wrap_dim_no_scalar(d as i64, sizes.len()).map_err(unexpected)?];
    let inferred = crate::layout::infer_shape(split, size).map_err(|e| {
        if e.message().contains("is invalid for input of size") {
            Error::runtime(format!(
                "unflatten: Provided sizes {} don't multiply up to the size of dim {d} ({size}) in the input tensor",
                fmt_list(split)
            ))
        } else {
            unexpected(e)
        }
    })?;
    let mut shape: Vec<usize> = sizes[..d].to_vec();
    shape.extend_from_slice(&inferred);
    shape.extend_from_slice(&sizes[d + 1..]);
    Ok(shape)
}

/// `inferSqueezeGeometry`: drops the size-1 dims selected by `mask` (every size-1 dim when
/// `mask` is `None`), keeping the other sizes and strides.
pub fn squeeze_geometry(sizes: &[usize], strides: &[usize], mask: Option<&[bool]>) -> Geometry {
    let keep =
        |d: usize| sizes[d] != 1 || mask.is_some_and(|m| !m.get(d).copied().unwrap_or(false));
    let dims: Vec<usize> = (0..sizes.len()).filter(|&d| keep(d)).collect();
    (
        dims.iter().map(|&d| sizes[d]).collect(),
        dims.iter().map(|&d| strides[d]).collect(),
    )
}

/// `squeeze(dims)`'s mask over `ndim` dims: `true` at each listed (wrapped) dim.
///
/// Errors: IndexError `Dimension out of range (…)`; RuntimeError
/// `dim 1 appears multiple times in the list of dims` (the wrapped dim).
pub fn squeeze_mask(dims: &[i64], ndim: usize) -> Result<Vec<bool>> {
    let wrapped = wrap_dims(dims, ndim)?;
    let mut mask = vec![false; ndim];
    for d in wrapped {
        if let Some(m) = mask.get_mut(d) {
            *m = true;
        }
    }
    Ok(mask)
}

/// `inferUnsqueezeGeometry`: inserts a size-1 dim at `dim` (`0..=ndim`, already wrapped) with
/// stride `sizes[dim]*strides[dim]` (the dim now to its right), or 1 when appended last.
pub fn unsqueeze_geometry(sizes: &[usize], strides: &[usize], dim: usize) -> Geometry {
    let new_stride = if dim >= sizes.len() {
        1
    } else {
        mul_stride(sizes[dim], strides[dim])
    };
    let mut sz = sizes.to_vec();
    let mut st = strides.to_vec();
    sz.insert(dim, 1);
    st.insert(dim, new_stride);
    (sz, st)
}

/// `transpose(dim0, dim1)`: the two dims' sizes and strides swapped (equal dims: unchanged).
/// A 0-d geometry accepts `0`/`-1`.
///
/// Error: IndexError `Dimension out of range (expected to be in range of [-2, 1], but got 2)`.
pub fn transpose_geometry(
    sizes: &[usize],
    strides: &[usize],
    dim0: i64,
    dim1: i64,
) -> Result<Geometry> {
    let nd = sizes.len();
    let a = wrap_dim(dim0, nd)?;
    let b = wrap_dim(dim1, nd)?;
    let mut sz = sizes.to_vec();
    let mut st = strides.to_vec();
    if a != b {
        sz.swap(a, b);
        st.swap(a, b);
    }
    Ok((sz, st))
}

/// `permute(dims)`: result dim `i` is dim `dims[i]` (sizes and strides moved together).
///
/// Errors: RuntimeError `permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 3`;
/// IndexError `Dimension out of range (…)`; RuntimeError `permute(): duplicate dims are not allowed.`
pub fn permute_geometry(sizes: &[usize], strides: &[usize], dims: &[i64]) -> Result<Geometry> {
    let nd = sizes.len();
    if dims.len() != nd {
        return Err(Error::runtime(format!(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to len(dims) = {}",
            dims.len()
        )));
    }
    let mut seen = vec![false; nd];
    let mut sz = Vec::with_capacity(nd);
    let mut st = Vec::with_capacity(nd);
    for &d in dims {
        let w = wrap_dim(d, nd)?;
        if seen[w] {
            return Err(Error::runtime("permute(): duplicate dims are not allowed."));
        }
        seen[w] = true;
        sz.push(sizes[w]);
        st.push(strides[w]);
    }
    Ok((sz, st))
}

/// The permutation `movedim(src, dst)` applies (`order[i]` is the old dim placed at `i`), for
/// wrapped, duplicate-free `src`/`dst` of equal length: `order[dst[i]] = src[i]`, and the
/// other old dims fill the other slots in ascending order.
pub fn movedim_order(ndim: usize, src: &[usize], dst: &[usize]) -> Vec<usize> {
    let mut order: Vec<Option<usize>> = vec![None; ndim];
    for (&s, &d) in src.iter().zip(dst) {
        order[d] = Some(s);
    }
    let mut rest = (0..ndim).filter(|d| !src.contains(d));
    order
        .into_iter()
        .map(|o| o.or_else(|| rest.next()).unwrap_or(0))
        .collect()
}

/// `movedim(source, destination)`: dims `source[i]` moved to positions `destination[i]`, the
/// others keeping their relative order; `None` for a 0-d geometry (the op returns an alias).
///
/// Errors: RuntimeError `movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same number of dims as destination ([2] dims)`;
/// IndexError `Dimension out of range (…)`;
/// RuntimeError ``movedim: repeated dim in `source` ([0, 0])``,
/// ``movedim: repeated dim in `destination` ([2, 2])`` (lists as given).
pub fn movedim_geometry(
    sizes: &[usize],
    strides: &[usize],
    source: &[i64],
    destination: &[i64],
) -> Result<Option<Geometry>> {
    if source.len() != destination.len() {
        return Err(Error::runtime(format!(
            "movedim: Invalid source or destination dims: source ({} dims) should contain the same number of dims as destination ({} dims)",
            fmt_list(source),
            fmt_list(destination)
        )));
    }
    let nd = sizes.len();
    let src = source
        .iter()
        .map(|&d| wrap_dim(d, nd))
        .collect::<Result<Vec<_>>>()?;
    let dst = destination
        .iter()
        .map(|&d| wrap_dim(d, nd))
        .collect::<Result<Vec<_>>>()?;
    let unique = |v: &[usize]| {
        let mut c = v.to_vec();
        c.sort_unstable();
        c.windows(2).all(|w| w[0] != w[1])
    };
    if !unique(&src) {
        return Err(Error::runtime(format!(
            "movedim: repeated dim in `source` ({})",
            fmt_list(source)
        )));
    }
    if !unique(&dst) {
        return Err(Error::runtime(format!(
            "movedim: repeated dim in `destination` ({})",
            fmt_list(destination)
        )));
    }
    if nd == 0 {
        return Ok(None);
    }
    let order = movedim_order(nd, &src, &dst);
    let sz: Vec<usize> = order.iter().map(|&d| sizes[d]).collect();
    let st: Vec<usize> = order.iter().map(|&d| strides[d]).collect();
    Ok(Some((sz, st)))
}

/// `narrow(dim, start, length)`: elements `start..start+length` of dim `dim` (a negative
/// `start` counts from the end). Returns the geometry (strides unchanged) and the
/// storage-offset shift `start*stride[dim]` (elements).
///
/// Errors, in PyTorch's order: RuntimeError `narrow() cannot be applied to a 0-dim tensor.`;
/// RuntimeError `narrow(): length must be non-negative.`; IndexError `Dimension out of range (…)`;
/// IndexError `start out of range (expected to be in range of [-3, 3], but got 4)`;
/// RuntimeError `start (2) + length (2) exceeds dimension size (3).` (the wrapped start).
pub fn narrow_geometry(
    sizes: &[usize],
    strides: &[usize],
    dim: i64,
    start: i64,
    length: i64,
) -> Result<(Geometry, i128)> {
    if sizes.is_empty() {
        return Err(Error::runtime(
            "narrow() cannot be applied to a 0-dim tensor.",
        ));
    }
    if length < 0 {
        return Err(Error::runtime("narrow(): length must be non-negative."));
    }
    let d = wrap_dim(dim, sizes.len())?;
    let size = sizes[d] as i64;
    if !(-size <= start && start <= size) {
        return Err(Error::index(format!(
            "start out of range (expected to be in range of [{}, {size}], but got {start})",
            -size
        )));
    }
    let start = if start < 0 { start + size } else { start };
    if start > size - length {
        return Err(Error::runtime(format!(
            "start ({start}) + length ({length}) exceeds dimension size ({size})."
        )));
    }
    let mut sz = sizes.to_vec();
    sz[d] = length as usize;
    Ok(((sz, strides.to_vec()), start as i128 * strides[d] as i128))
}

/// `select(dim, index)`: dim `dim` removed; returns the geometry and the storage-offset shift
/// `index*stride[dim]` (a negative `index` counts from the end).
///
/// Errors: IndexError `select() cannot be applied to a 0-dim tensor.`;
/// IndexError `Dimension out of range (…)`;
/// IndexError `select(): index 5 out of range for tensor of size [5, 2] at dimension 0`.
pub fn select_geometry(
    sizes: &[usize],
    strides: &[usize],
    dim: i64,
    index: i64,
) -> Result<(Geometry, i128)> {
    if sizes.is_empty() {
        return Err(Error::index(
            "select() cannot be applied to a 0-dim tensor.",
        ));
    }
    let d = wrap_dim(dim, sizes.len())?;
    let size = sizes[d] as i64;
    if index < -size || index >= size {
        return Err(Error::index(format!(
            "select(): index {index} out of range for tensor of size {} at dimension {d}",
            fmt_list(sizes)
        )));
    }
    let i = if index < 0 { index + size } else { index };
    let mut sz = sizes.to_vec();
    let mut st = strides.to_vec();
    sz.remove(d);
    st.remove(d);
    Ok(((sz, st), i as i128 * strides[d] as i128))
}

/// `slice` clamping for one dim of size `size`: returns `(start, new_size)` for
/// `start:end:step` (`step > 0`), where missing bounds are `0` and `i64::MAX`, negative ones
/// count from the end, and everything is clamped into `[0, size]`; never an error.
pub fn slice_bounds(
    size: usize,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> (usize, usize) {
    let size_i = size as i64;
    let mut start = start.unwrap_or(0);
    let mut end = end.unwrap_or(i64::MAX);
    if start < 0 {
        start += size_i;
    }
    if end < 0 {
        end += size_i;
    }
    start = start.clamp(0, size_i);
    end = end.clamp(start, size_i);
    let len = end - start;
    let n = len / step + i64::from(len % step != 0);
    (start as usize, n as usize)
}

/// `slice(dim, start, end, step)`: new size `ceil((end-start)/step)` after
/// [`slice_bounds`]' clamping, stride `stride*step`; returns the geometry and the
/// storage-offset shift `start*stride` (elements).
///
/// Errors: IndexError `slice() cannot be applied to a 0-dim tensor.`;
/// IndexError `Dimension out of range (…)`; RuntimeError `slice step must be positive`.
pub fn slice_geometry(
    sizes: &[usize],
    strides: &[usize],
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<(Geometry, i128)> {
    if sizes.is_empty() {
        return Err(Error::index("slice() cannot be applied to a 0-dim tensor."));
    }
    let d = wrap_dim(dim, sizes.len())?;
    if step <= 0 {
        return Err(Error::runtime("slice step must be positive"));
    }
    let (s, n) = slice_bounds(sizes[d], start, end, step);
    let mut sz = sizes.to_vec();
    let mut st = strides.to_vec();
    sz[d] = n;
    st[d] = mul_stride(st[d], step as usize);
    Ok(((sz, st), s as i128 * strides[d] as i128))
}

/// `diagonal(offset, dim1, dim2)`: removes both dims and appends one of length
/// `min(size1, size2 - offset)` (clamped at 0; `offset < 0` counts below the main diagonal)
/// and stride `stride1 + stride2`. Returns the geometry and the storage-offset shift
/// (elements).
///
/// Errors: IndexError `Dimension out of range (…)`;
/// RuntimeError `diagonal dimensions cannot be identical 0, -2` (the arguments as given).
pub fn diagonal_geometry(
    sizes: &[usize],
    strides: &[usize],
    offset: i64,
    dim1: i64,
    dim2: i64,
) -> Result<(Geometry, i128)> {
    let nd = sizes.len();
    let d1 = wrap_dim(dim1, nd)?;
    let d2 = wrap_dim(dim2, nd)?;
    if d1 == d2 {
        return Err(Error::runtime(format!(
            "diagonal dimensions cannot be identical {dim1}, {dim2}"
        )));
    }
    let (s1, s2) = (sizes[d1] as i128, sizes[d2] as i128);
    let off = offset as i128;
    let len = if off >= 0 {
        s1.min(s2 - off).max(0)
    } else {
        (s1 + off).min(s2).max(0)
    };
    let shift = if len == 0 {
        0
    } else if off >= 0 {
        off * strides[d2] as i128
    } else {
        -off * strides[d1] as i128
    };
    let mut sz = Vec::with_capacity(nd - 1);
    let mut st = Vec::with_capacity(nd - 1);
    for d in (0..nd).filter(|&d| d != d1 && d != d2) {
        sz.push(sizes[d]);
        st.push(strides[d]);
    }
    sz.push(len as usize);
    st.push(strides[d1].saturating_add(strides[d2]));
    Ok(((sz, st), shift))
}

/// `unfold(dim, size, step)`: all windows of length `size` taken every `step` along `dim`;
/// dim `dim` becomes the window count `(sizes[dim]-size)/step + 1` (stride `stride*step`) and
/// a new last dim of length `size` (stride `stride[dim]`) is added. A 0-d geometry counts as
/// 1-d of size 1.
///
/// Errors: IndexError `Dimension out of range (…)`; RuntimeError
/// `maximum size for tensor at dimension 0 is 7 but size is 8`, `size is -1 but must be >= 0`,
/// `step is 0 but must be > 0`.
pub fn unfold_geometry(
    sizes: &[usize],
    strides: &[usize],
    dim: i64,
    size: i64,
    step: i64,
) -> Result<Geometry> {
    let nd = sizes.len();
    let d = wrap_dim(dim, nd)?;
    let max_size = if nd == 0 { 1 } else { sizes[d] as i64 };
    if size > max_size {
        return Err(Error::runtime(format!(
            "maximum size for tensor at dimension {d} is {max_size} but size is {size}"
        )));
    }
    if size < 0 {
        return Err(Error::runtime(format!("size is {size} but must be >= 0")));
    }
    if step <= 0 {
        return Err(Error::runtime(format!("step is {step} but must be > 0")));
    }
    let mut sz = sizes.to_vec();
    let mut st = strides.to_vec();
    sz.push(size as usize);
    st.push(if nd == 0 { 1 } else { strides[d] });
    if d < nd {
        sz[d] = ((sizes[d] as i64 - size) / step + 1) as usize;
        st[d] = mul_stride(st[d], step as usize);
    }
    Ok((sz, st))
}

/// Lengths of the pieces `split(split_size)` cuts a dim of `dim_size` into: `split_size` each,
/// the last one shorter; one piece when `split_size >= dim_size` or both are 0.
///
/// Errors: `split expects split_size be non-negative, but got split_size=-1`;
/// `split_size can only be 0 if dimension size is 0, but got dimension size of 3`;
/// `split: too many pieces` (the list of lengths cannot be held).
pub fn split_lengths(dim_size: usize, split_size: i64) -> Result<Vec<usize>> {
    if split_size < 0 {
        return Err(Error::runtime(format!(
            "split expects split_size be non-negative, but got split_size={split_size}"
        )));
    }
    if split_size == 0 && dim_size != 0 {
        return Err(Error::runtime(format!(
            "split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}"
        )));
    }
    let ss = split_size as u64;
    let ds = dim_size as u64;
    let num = if ss == 0 { 1 } else { ds.div_ceil(ss).max(1) };
    let mut out = Vec::new();
    out.try_reserve(num as usize)
        .map_err(|_| Error::runtime("split: too many pieces"))?;
    for i in 0..num {
        // ss * (num - 1) < ds whenever num > 1, so the last piece is never negative
        out.push(if i + 1 < num {
            ss as usize
        } else {
            (ds - ss * (num - 1)) as usize
        });
    }
    Ok(out)
}

/// `split(split_size, dim)`: the wrapped dim and the lengths of its pieces
/// ([`split_lengths`]).
///
/// Errors, in PyTorch's order: RuntimeError `split expects at least a 1-dimensional tensor`;
/// `split expects split_size be non-negative, but got split_size=-1`;
/// IndexError `Dimension out of range (…)`;
/// RuntimeError `split_size can only be 0 if dimension size is 0, but got dimension size of 3`.
pub fn split_plan(sizes: &[usize], split_size: i64, dim: i64) -> Result<(usize, Vec<usize>)> {
    if sizes.is_empty() {
        return Err(Error::runtime(
            "split expects at least a 1-dimensional tensor",
        ));
    }
    if split_size < 0 {
        return Err(Error::runtime(format!(
            "split expects split_size be non-negative, but got split_size={split_size}"
        )));
    }
    let d = wrap_dim(dim, sizes.len())?;
    Ok((d, split_lengths(sizes[d], split_size)?))
}

/// `split_with_sizes(split_sizes, dim)`: the wrapped dim and the (checked) lengths.
///
/// Errors: RuntimeError `split expects at least a 1-dimensional tensor`; IndexError
/// `Dimension out of range (…)`; RuntimeError `split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[1, -1]`;
/// `split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension -1), but got split_sizes=[2, 2]`
/// (the dim as given).
pub fn split_with_sizes_plan(
    sizes: &[usize],
    split_sizes: &[i64],
    dim: i64,
) -> Result<(usize, Vec<usize>)> {
    if sizes.is_empty() {
        return Err(Error::runtime(
            "split expects at least a 1-dimensional tensor",
        ));
    }
    let d = wrap_dim(dim, sizes.len())?;
    if split_sizes.iter().any(|&x| x < 0) {
        return Err(Error::runtime(format!(
            "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={}",
            fmt_list(split_sizes)
        )));
    }
    let total = split_sizes.iter().try_fold(0i64, |a, &x| a.checked_add(x));
    let dim_size = sizes.get(d).copied().unwrap_or(1);
    if total != Some(dim_size as i64) {
        return Err(Error::runtime(format!(
            "split_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's size at dimension {dim}), but got split_sizes={}",
            fmt_list(split_sizes)
        )));
    }
    Ok((d, split_sizes.iter().map(|&x| x as usize).collect()))
}

/// `chunk(chunks, dim)`: the wrapped dim and the piece lengths of
/// `split(ceil(size/chunks), dim)`, or exactly `chunks` empty pieces for a 0-size dim.
///
/// Errors: RuntimeError `chunk expects at least a 1-dimensional tensor`;
/// `chunk expects `chunks` to be greater than 0, got: 0`; IndexError `Dimension out of range (…)`;
/// RuntimeError `too many pieces` (the list of lengths cannot be held).
pub fn chunk_plan(sizes: &[usize], chunks: i64, dim: i64) -> Result<(usize, Vec<usize>)> {
    if sizes.is_empty() {
        return Err(Error::runtime(
            "chunk expects at least a 1-dimensional tensor",
        ));
    }
    if chunks <= 0 {
        return Err(Error::runtime(format!(
            "chunk expects `chunks` to be greater than 0, got: {chunks}"
        )));
    }
    let d = wrap_dim(dim, sizes.len())?;
    let size = sizes[d];
    let split = (size as u64).div_ceil(chunks as u64);
    if split == 0 && size == 0 {
        let n = usize::try_from(chunks).map_err(|_| Error::runtime("too many pieces"))?;
        let mut lengths = Vec::new();
        lengths
            .try_reserve(n)
            .map_err(|_| Error::runtime("too many pieces"))?;
        lengths.resize(n, 0);
        return Ok((d, lengths));
    }
    Ok((d, split_lengths(size, split as i64)?))
}

/// A stride product, saturating instead of wrapping as PyTorch's int64 arithmetic does; only
/// absurd inputs saturate, and [`fit_geometry`] then clamps or refuses the result.
pub fn mul_stride(a: usize, b: usize) -> usize {
    a.saturating_mul(b)
}

/// Makes a view's geometry safe for the rest of the crate, which computes byte offsets in
/// `isize`: every dim must satisfy `max(size,1) * stride * itemsize <= i64::MAX`, and the
/// offset `offset * itemsize <= i64::MAX`. A dim of size 0 or 1 never uses its stride to reach
/// an element, so an oversized stride there is clamped to the largest allowed value (PyTorch
/// would report a wrapped int64); elsewhere the view is refused. The sizes, with 0 counted as
/// 1, must also multiply to at most `i64::MAX / itemsize`, so that any product of sizes and
/// any dense copy's strides fit.
///
/// Errors: `numel: integer multiplication overflow`;
/// `Storage size calculation overflowed with sizes=[0, 2] and strides=[1, 4611686018427387904]`;
/// `storage offset overflows int64`.
pub fn fit_geometry(
    sizes: &[usize],
    strides: &mut [usize],
    offset: usize,
    itemsize: usize,
) -> Result<()> {
    let max = i64::MAX as u128;
    let item = itemsize.max(1) as u128;
    // sizes multiply (in any order, and into dense strides) without overflow
    // (the element size does not count: PyTorch's `expand(2**62)` of float32 is a valid view)
    let dense = sizes.iter().try_fold(1u128, |acc, &sz| {
        Some(acc * sz.max(1) as u128).filter(|&p| p <= max)
    });
    if dense.is_none() {
        return Err(numel_overflow());
    }
    let too_big = |sz: usize, st: usize| (sz.max(1) as u128) * (st as u128) * item > max;
    if sizes
        .iter()
        .zip(strides.iter())
        .any(|(&sz, &st)| sz > 1 && too_big(sz, st))
    {
        return Err(Error::runtime(format!(
            "Storage size calculation overflowed with sizes={} and strides={}",
            fmt_list(sizes),
            fmt_list(strides)
        )));
    }
    for (&sz, st) in sizes.iter().zip(strides.iter_mut()) {
        if too_big(sz, *st) {
            *st = (max / item) as usize;
        }
    }
    if offset as u128 * item > max {
        return Err(Error::runtime("storage offset overflows int64"));
    }
    Ok(())
}

/// The storage offset `base + shift` (elements) of a view of a tensor with elements of
/// `itemsize` bytes; its byte offset must fit in `i64`.
///
/// Error: `storage offset overflows int64` (only for empty tensors made with absurd strides).
pub fn shifted(base: usize, itemsize: usize, shift: i128) -> Result<usize> {
    let v = base as i128 + shift;
    if v < 0 || v * itemsize as i128 > i64::MAX as i128 {
        return Err(Error::runtime("storage offset overflows int64"));
    }
    Ok(v as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn expand_rules() {
        assert_eq!(
            expand_geometry(&[3], &[1], &[1, 3]).unwrap(),
            (vec![1, 3], vec![3, 1])
        );
        assert_eq!(
            expand_geometry(&[3], &[1], &[1, 1, 3]).unwrap(),
            (vec![1, 1, 3], vec![3, 3, 1])
        );
        assert_eq!(
            expand_geometry(&[3, 1], &[1, 1], &[2, 3, 4]).unwrap(),
            (vec![2, 3, 4], vec![0, 1, 0])
        );
        assert_eq!(
            expand_geometry(&[3, 1], &[1, 1], &[-1, -1]).unwrap(),
            (vec![3, 1], vec![1, 1])
        );
        assert_eq!(
            expand_geometry(&[2, 1], &[1, 1], &[2, 0]).unwrap(),
            (vec![2, 0], vec![1, 0])
        );
        assert_eq!(
            expand_geometry(&[0], &[1], &[2, 0]).unwrap(),
            (vec![2, 0], vec![0, 1])
        );
        assert_eq!(
            expand_geometry(&[], &[], &[2, 3]).unwrap(),
            (vec![2, 3], vec![0, 0])
        );
        assert_eq!(
            expand_geometry(&[2, 3], &[3, 1], &[2, 4])
                .unwrap_err()
                .message(),
            "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]"
        );
        assert_eq!(
            expand_geometry(&[3], &[1], &[-1, 3]).unwrap_err().message(),
            "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"
        );
        assert!(expand_geometry(&[0], &[1], &[3]).is_err());
        assert_eq!(
            check_expand_len(&[2, 3], &[3], DType::Float32)
                .unwrap_err()
                .message(),
            "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)"
        );
    }

    /// Checked against PyTorch: `torch.empty(3, 4).narrow(1, -2, 2)` has stride (4, 1) and
    /// offset 2; `select`, `slice`, `diagonal`, `unfold` likewise.
    #[test]
    fn offsets_and_strides_match_pytorch() {
        let (sz, st) = (&[3usize, 4][..], &[4usize, 1][..]);
        assert_eq!(
            narrow_geometry(sz, st, 1, -2, 2).unwrap(),
            ((vec![3, 2], vec![4, 1]), 2)
        );
        assert_eq!(
            narrow_geometry(sz, st, 0, 3, 0).unwrap(),
            ((vec![0, 4], vec![4, 1]), 12)
        );
        assert_eq!(
            select_geometry(sz, st, 1, -1).unwrap(),
            ((vec![3], vec![4]), 3)
        );
        assert_eq!(
            slice_geometry(sz, st, 1, None, None, 3).unwrap(),
            ((vec![3, 2], vec![4, 3]), 0)
        );
        assert_eq!(
            slice_geometry(sz, st, 1, Some(10), None, 1).unwrap(),
            ((vec![3, 0], vec![4, 1]), 4)
        );
        assert_eq!(
            diagonal_geometry(sz, st, 1, 0, 1).unwrap(),
            ((vec![3], vec![5]), 1)
        );
        assert_eq!(
            diagonal_geometry(sz, st, -5, 0, 1).unwrap(),
            ((vec![0], vec![5]), 0)
        );
        assert_eq!(
            unfold_geometry(&[7], &[1], 0, 3, 2).unwrap(),
            (vec![3, 3], vec![2, 1])
        );
        assert_eq!(
            unfold_geometry(&[], &[], 0, 1, 1).unwrap(),
            (vec![1], vec![1])
        );
        assert_eq!(
            permute_geometry(&[2, 3, 4], &[12, 4, 1], &[2, 0, 1]).unwrap(),
            (vec![4, 2, 3], vec![1, 12, 4])
        );
        assert_eq!(
            unsqueeze_geometry(&[2, 3], &[3, 1], 1),
            (vec![2, 1, 3], vec![3, 3, 1])
        );
        assert_eq!(
            unsqueeze_geometry(&[2, 0], &[1, 1], 1),
            (vec![2, 1, 0], vec![1, 0, 1])
        );
        assert_eq!(movedim_order(5, &[0, 1], &[2, 4]), vec![2, 3, 0, 4, 1]);
        assert_eq!(
            movedim_geometry(&[2, 3, 4], &[12, 4, 1], &[0], &[2]).unwrap(),
            Some((vec![3, 4, 2], vec![4, 1, 12]))
        );
        assert_eq!(movedim_geometry(&[], &[], &[0], &[-1]).unwrap(), None);
        assert_eq!(flatten_sizes(&[2, 3, 4], 1, 2).unwrap(), vec![2, 12]);
        assert_eq!(
            unflatten_sizes(&[2, 3, 4], 2, &[2, -1]).unwrap(),
            vec![2, 3, 2, 2]
        );
    }

    #[test]
    fn errors_in_pytorch_order() {
        let (sz, st) = (&[3usize, 4][..], &[4usize, 1][..]);
        let msg = |r: Result<(Geometry, i128)>| r.unwrap_err().message().to_string();
        assert_eq!(
            msg(narrow_geometry(&[], &[], 5, 0, -1)),
            "narrow() cannot be applied to a 0-dim tensor."
        );
        assert_eq!(
            msg(narrow_geometry(sz, st, 5, 0, -1)),
            "narrow(): length must be non-negative."
        );
        assert_eq!(
            msg(narrow_geometry(sz, st, 0, 4, 0)),
            "start out of range (expected to be in range of [-3, 3], but got 4)"
        );
        assert_eq!(
            msg(narrow_geometry(sz, st, 0, -1, 2)),
            "start (2) + length (2) exceeds dimension size (3)."
        );
        assert_eq!(
            msg(select_geometry(sz, st, 0, 3)),
            "select(): index 3 out of range for tensor of size [3, 4] at dimension 0"
        );
        assert_eq!(
            msg(slice_geometry(sz, st, 1, None, None, 0)),
            "slice step must be positive"
        );
        assert_eq!(
            msg(diagonal_geometry(&[2, 3, 4], &[12, 4, 1], 0, 0, -3)),
            "diagonal dimensions cannot be identical 0, -3"
        );
        assert_eq!(
            unfold_geometry(&[7], &[1], 0, 8, 1).unwrap_err().message(),
            "maximum size for tensor at dimension 0 is 7 but size is 8"
        );
        assert_eq!(
            flatten_dims(3, 2, 1).unwrap_err().message(),
            "flatten() has invalid args: start_dim cannot come after end_dim"
        );
        assert_eq!(
            unflatten_sizes(&[], 0, &[1]).unwrap_err().message(),
            "unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions"
        );
        assert_eq!(
            unflatten_sizes(&[2, 3], 1, &[2, 2]).unwrap_err().message(),
            "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor"
        );
        assert_eq!(
            permute_geometry(&[2, 3], &[3, 1], &[0, 0])
                .unwrap_err()
                .message(),
            "permute(): duplicate dims are not allowed."
        );
        assert_eq!(
            squeeze_mask(&[0, -2], 2).unwrap_err().message(),
            "dim 0 appears multiple times in the list of dims"
        );
        assert_eq!(
            split_with_sizes_plan(&[3], &[2, 2], -1)
                .unwrap_err()
                .message(),
            "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension -1), but got split_sizes=[2, 2]"
        );
        assert_eq!(
            chunk_plan(&[5, 6], 0, 0).unwrap_err().message(),
            "chunk expects `chunks` to be greater than 0, got: 0"
        );
    }

    #[test]
    fn split_and_chunk_lengths() {
        assert_eq!(split_lengths(7, 3).unwrap(), vec![3, 3, 1]);
        assert_eq!(split_lengths(6, 3).unwrap(), vec![3, 3]);
        assert_eq!(split_lengths(2, i64::MAX).unwrap(), vec![2]);
        assert_eq!(split_lengths(0, 0).unwrap(), vec![0]);
        // torch.zeros(5, 6).chunk(4, 1): three pieces of 2
        assert_eq!(chunk_plan(&[5, 6], 4, 1).unwrap(), (1, vec![2, 2, 2]));
        // torch.zeros(0, 2).chunk(3): three empty pieces
        assert_eq!(chunk_plan(&[0, 2], 3, 0).unwrap(), (0, vec![0, 0, 0]));
        assert_eq!(slice_bounds(5, Some(-7), Some(-1), 2), (0, 2));
        assert_eq!(slice_bounds(5, Some(3), Some(1), 1), (3, 0));
        assert_eq!(slice_bounds(5, None, None, i64::MAX), (0, 1));
    }

    /// Every element address `offset + Σ i_d·stride_d` of a geometry, or `None` when empty.
    fn address_range(sizes: &[usize], strides: &[usize], offset: i128) -> Option<(i128, i128)> {
        if sizes.contains(&0) {
            return None;
        }
        let hi: i128 = sizes
            .iter()
            .zip(strides)
            .map(|(&s, &st)| (s as i128 - 1) * st as i128)
            .sum();
        Some((offset, offset + hi))
    }

    fn geometry_strategy() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
        proptest::collection::vec((0usize..5, 0usize..7), 0..5).prop_map(|v| v.into_iter().unzip())
    }

    fn arg() -> impl Strategy<Value = i64> {
        prop_oneof![-6i64..7, Just(i64::MIN), Just(i64::MAX)]
    }

    proptest! {
        /// A view's element addresses all lie inside the base's (narrow, select, slice,
        /// diagonal, unfold, transpose, permute, movedim, squeeze, unsqueeze, expand).
        #[test]
        fn views_stay_inside_the_base(
            (sizes, strides) in geometry_strategy(),
            a in arg(), b in arg(), c in arg(),
        ) {
            let base = address_range(&sizes, &strides, 0);
            let mut views: Vec<(Geometry, i128)> = Vec::new();
            views.extend(narrow_geometry(&sizes, &strides, a, b, c).ok());
            views.extend(select_geometry(&sizes, &strides, a, b).ok());
            views.extend(slice_geometry(&sizes, &strides, a, Some(b), Some(c), c).ok());
            views.extend(slice_geometry(&sizes, &strides, a, None, Some(b), c).ok());
            views.extend(diagonal_geometry(&sizes, &strides, a, b, c).ok());
            views.extend(unfold_geometry(&sizes, &strides, a, b, c).ok().map(|g| (g, 0)));
            views.extend(transpose_geometry(&sizes, &strides, a, b).ok().map(|g| (g, 0)));
            views.extend(permute_geometry(&sizes, &strides, &[a, b, c][..sizes.len().min(3)]).ok().map(|g| (g, 0)));
            views.extend(movedim_geometry(&sizes, &strides, &[a], &[b]).ok().flatten().map(|g| (g, 0)));
            views.push((squeeze_geometry(&sizes, &strides, None), 0));
            if let Ok(d) = wrap_dim(a, sizes.len() + 1) {
                views.push((unsqueeze_geometry(&sizes, &strides, d), 0));
            }
            let target: Vec<i64> = std::iter::once(b.rem_euclid(3))
                .chain(sizes.iter().map(|&s| if s == 1 { c.rem_euclid(4) } else { -1 }))
                .collect();
            if let Ok((sz, st)) = expand_geometry(&sizes, &strides, &target)
                && let Ok(sz) = checked_sizes(&sz)
            {
                views.push(((sz, st.iter().map(|&s| s as usize).collect()), 0));
            }
            for ((sz, st), shift) in views {
                prop_assert_eq!(sz.len(), st.len());
                if let Some((lo, hi)) = address_range(&sz, &st, shift) {
                    let (blo, bhi) = base.expect("a non-empty view of an empty base");
                    prop_assert!(blo <= lo && hi <= bhi, "{:?} {:?} -> {:?} {:?}", sizes, strides, (lo, hi), (blo, bhi));
                }
            }
        }

        #[test]
        fn split_pieces_cover(size in 0usize..20, split in 1i64..7) {
            let l = split_lengths(size, split).unwrap();
            prop_assert_eq!(l.iter().sum::<usize>(), size);
            prop_assert!(l.iter().all(|&x| x as i64 <= split));
        }

        #[test]
        fn chunk_pieces_cover(size in 0usize..20, chunks in 1i64..9) {
            let (_, l) = chunk_plan(&[size], chunks, 0).unwrap();
            if size > 0 {
                prop_assert_eq!(l.iter().sum::<usize>(), size);
                prop_assert!(l.len() as i64 <= chunks);
            } else {
                prop_assert_eq!(l.len() as i64, chunks);
            }
        }

        /// `fit_geometry` accepts only views whose byte extents fit in i64, and leaves the
        /// strides of dims that reach an element unchanged.
        #[test]
        fn fitted_geometries_fit(
            sizes in proptest::collection::vec(prop_oneof![0usize..4, Just(1usize << 40), Just(usize::MAX)], 0..4),
            strides in proptest::collection::vec(prop_oneof![0usize..4, Just(1usize << 62), Just(usize::MAX)], 0..4),
            offset in prop_oneof![0usize..9, Just(1usize << 62)],
            itemsize in prop_oneof![Just(1usize), Just(8usize)],
        ) {
            let n = sizes.len().min(strides.len());
            let (sizes, mut st) = (sizes[..n].to_vec(), strides[..n].to_vec());
            let before = st.clone();
            if fit_geometry(&sizes, &mut st, offset, itemsize).is_ok() {
                for ((&sz, &s), &b) in sizes.iter().zip(&st).zip(&before) {
                    prop_assert!((sz.max(1) as u128) * s as u128 * itemsize as u128 <= i64::MAX as u128);
                    if sz > 1 { prop_assert_eq!(s, b); }
                }
                prop_assert!(offset as u128 * itemsize as u128 <= i64::MAX as u128);
            }
        }
    }
}
