//! Advanced indexing: `x[idx]` with index tensors and masks (PyTorch's `aten::index`),
//! `x[items] = value` ([`Tensor::index_set_`], Python's `__setitem__`) and
//! [`Tensor::index_put_`] / [`Tensor::index_put`]: their forward functions (the methods and
//! their recording are in [`crate::optable::index`]).
//!
//! The steps are PyTorch's `make_info` and `AdvancedIndex`: check the index dtypes, expand
//! every mask into the int64 indices of its `True` positions, broadcast the index tensors to
//! one shape `B`, move the indexed dims to the front when they are not adjacent, then read
//! (or write) `src[p, idx_1[b], …, idx_k[b], q]` for every result position `(p, b, q)`. The
//! geometry (broadcast, adjacency, permutation, result shape, offsets) is
//! `crate::geometry::index`; the element moves are one serial kernel
//! (`crate::kernels::advindex`).

use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::geometry::index::{
    broadcast_index_shapes, check_indexed_empty, expandable, front_permutation,
    has_contiguous_subspace, packed_tail, placement, restrided, result_shape, row_major_offsets,
    wrap_index,
};
use crate::index::{TensorIndex, apply_slicing};
use crate::ops::Operand;
use crate::tensor::{Scalar, Tensor};

fn is_mask(t: &Tensor) -> bool {
    matches!(t.dtype(), DType::Bool | DType::UInt8)
}

// ====================================================================== make_info

/// PyTorch's `AdvancedIndex`: `src` with its indexed dims adjacent, and the int64 index
/// tensors (broadcast to `b`) aligned with `src`'s dims.
struct Info {
    src: Tensor,
    indices: Vec<Option<Tensor>>,
    before: usize,
    k: usize,
    b: Vec<usize>,
}

impl Info {
    fn result_shape(&self) -> Vec<usize> {
        result_shape(self.src.size(), self.before, self.k, &self.b)
    }

    /// Storage offsets of the elements `src[p, idx[b], q]` for every result position in
    /// row-major order, checking every index value (`index 7 is out of bounds for dimension
    /// 1 with size 4`, `dimension` being the index's ordinal). Only the positions with the
    /// last `drop` dims (all after the indexed ones) at 0: the first elements of the rows
    /// those dims span.
    fn offsets_outer(&self, drop: usize) -> Result<Vec<usize>> {
        let (src, before, k) = (&self.src, self.before, self.k);
        let r = self.result_shape();
        // the kernel visits no element (and so checks no index) when the result is empty
        if r.contains(&0) {
            return Ok(Vec::new());
        }
        let nb: usize = self.b.iter().product();
        let mut boff = vec![0usize; nb];
        let vals: Vec<Vec<i64>> = self
            .indices
            .iter()
            .flatten()
            .map(|t| t.try_to_vec::<i64>())
            .collect::<Result<_>>()?;
        for (e, slot) in boff.iter_mut().enumerate() {
            for (j, v) in vals.iter().enumerate() {
                let x = wrap_index(v[e], src.size()[before + j], j)?;
                *slot += x * src.stride()[before + j];
            }
        }
        let nr = r.len();
        let st = restrided(src.stride(), before, k, self.b.len());
        let mut bst = vec![0usize; nr];
        let bc = crate::layout::contiguous_strides(&self.b);
        bst[before..before + self.b.len()].copy_from_slice(&bc);
        let keep = nr - drop;
        let base = row_major_offsets(&r[..keep], &st[..keep], src.storage_offset())?;
        let bpos = row_major_offsets(&r[..keep], &bst[..keep], 0)?;
        Ok(base.iter().zip(&bpos).map(|(a, &p)| a + boff[p]).collect())
    }
}

/// The int64 indices of a mask's `True` positions, one per mask dim, as the columns of
/// `nonzero(mask)` (an `(N, ndim)` contiguous tensor).
fn mask_indices(mask: &Tensor) -> Result<Vec<Tensor>> {
    let nd = mask.dim();
    if nd == 0 {
        return Ok(Vec::new());
    }
    // the column-major coordinates of the compaction kernel: one contiguous column per dim
    let (n, coords) = if mask.dtype() == DType::Bool && mask.is_contiguous() {
        crate::iter::dense(&[], &[mask], |s| {
            Ok(crate::kernels::compact::nonzero(
                s.input::<bool>(0)?,
                mask.size(),
            ))
        })?
    } else {
        crate::kernels::compact::nonzero(&mask.try_to_vec::<bool>()?, mask.size())
    };
    let nz = Tensor::from_vec(coords, [nd, n])?;
    (0..nd).map(|j| nz.select(0, j)).collect()
}

/// `The shape of the mask [2] at index 0 does not match the shape of the indexed tensor
/// [3, 4] at index 1`: mask dim `j` lines up with dim `first + j` of `src`.
fn check_mask(src: &Tensor, mask: &Tensor, first: usize) -> Result<()> {
    for j in 0..mask.dim() {
        let s = first + j;
        if mask.size()[j] != src.size_of(s as i64)? {
            return Err(Error::index(format!(
                "The shape of the mask {} at index {j} does not match the shape of the indexed tensor {} at index {s}",
                fmt_list(mask.size()),
                fmt_list(src.size())
            )));
        }
    }
    Ok(())
}

/// PyTorch's `make_info` and the `AdvancedIndex` constructor's checks.
fn make_info(src: &Tensor, orig: &[Option<Tensor>]) -> Result<Info> {
    // checkIndexTensorTypes
    for t in orig.iter().flatten() {
        if !matches!(
            t.dtype(),
            DType::Int64 | DType::Int32 | DType::UInt8 | DType::Bool
        ) {
            return Err(Error::index(
                "tensors used as indices must be long, int, byte or bool tensors",
            ));
        }
    }
    // expandTensors: masks become the indices of their True positions
    let mut list: Vec<Option<Tensor>> = Vec::new();
    for it in orig {
        match it {
            None => list.push(None),
            Some(t) if is_mask(t) => {
                if t.dtype() == DType::UInt8 {
                    crate::warnings::warn(
                        "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                    );
                }
                check_mask(src, t, list.len())?;
                list.extend(mask_indices(t)?.into_iter().map(Some));
            }
            Some(t) => list.push(Some(t.alias())),
        }
    }
    // broadcast the index tensors together
    let shapes: Vec<&[usize]> = list.iter().flatten().map(|t| t.size()).collect();
    let b = broadcast_index_shapes(&shapes)?;
    let mut indices: Vec<Option<Tensor>> = list
        .into_iter()
        .map(|o| {
            o.map(|t| {
                if t.size() == &b[..] {
                    Ok(t)
                } else {
                    t.expand(&b)
                }
            })
            .transpose()
        })
        .collect::<Result<_>>()?;
    if indices.len() < src.dim() {
        indices.resize(src.dim(), None);
    }
    let defined: Vec<bool> = indices.iter().map(|o| o.is_some()).collect();
    let mut src = src.alias();
    if !has_contiguous_subspace(&defined) {
        let perm = front_permutation(&defined);
        src = src.permute(&perm)?;
        indices = perm.iter().map(|&d| indices[d].clone()).collect();
    }
    for t in indices.iter_mut().flatten() {
        if t.dtype() == DType::Int32 {
            *t = t.to(DType::Int64)?;
        }
    }
    let defined: Vec<bool> = indices.iter().map(|o| o.is_some()).collect();
    let (before, k) = placement(&defined);
    check_indexed_empty(src.size(), before, k, &b)?;
    Ok(Info {
        src,
        indices,
        before,
        k,
        b,
    })
}

fn too_many_got(ndim: usize, n: usize) -> Error {
    Error::index(format!(
        "too many indices for tensor of dimension {ndim} (got {n})"
    ))
}

/// PyTorch's `aten::index(src, indices)`: the copy `src[indices]` for a list of optional
/// index tensors aligned with `src`'s dims (what `x[...]` reduces to once its basic items
/// are applied). Laid out as PyTorch's TensorIterator lays out a new output over `src`
/// restrided to the result shape and the index tensors reshaped to it.
pub(crate) fn index_op(src: &Tensor, indices: &[Option<Tensor>]) -> Result<Tensor> {
    if indices.len() > src.dim() {
        return Err(too_many_got(src.dim(), indices.len()));
    }
    // one bool mask of `src`'s whole shape: the selected elements in row-major order, which
    // is `masked_select` (the compaction kernel, no index list)
    if let [Some(m)] = indices
        && m.dtype() == DType::Bool
        && src.dim() >= 1
        && m.size() == src.size()
    {
        return crate::ops::masked::masked_select_fwd(src, m);
    }
    let info = make_info(src, indices)?;
    let r = info.result_shape();
    // the TensorIterator operands: src restrided, each index reshaped
    let (before, k) = (info.before, info.k);
    let s = &info.src;
    let st = restrided(s.stride(), before, k, info.b.len());
    let restrided = s.view_with(&r[..], &st[..], s.storage_offset());
    let after = s.dim() - before - k;
    let mut shape = vec![1usize; before];
    shape.extend_from_slice(&info.b);
    shape.extend(std::iter::repeat_n(1, after));
    let reshaped: Vec<Tensor> = info
        .indices
        .iter()
        .flatten()
        .map(|t| t.reshape(&shape))
        .collect::<Result<_>>()?;
    let mut ops: Vec<&Tensor> = vec![&restrided];
    ops.extend(reshaped.iter());
    let strides = crate::iter::new_output_strides(&r, &ops);
    let out = Tensor::try_alloc(&r, &strides, s.dtype())?;
    // rows: the trailing dims packed alike in src and out move as contiguous blocks
    let drop = packed_tail(&r[r.len() - after..], &st[r.len() - after..], out.stride());
    let inner: usize = r[r.len() - drop..].iter().product();
    let keep = r.len() - drop;
    if r.contains(&0) {
        // nothing to move (and no index is checked: PyTorch's kernel visits no element)
        return Ok(out);
    }
    let src_offs = info.offsets_outer(drop)?;
    let dst_offs = row_major_offsets(&r[..keep], &out.stride()[..keep], out.storage_offset())?;
    move_rows_or_fail(&out, &dst_offs, s, &src_offs, inner, false, true)?;
    Ok(out)
}

fn move_rows_or_fail(
    dst: &Tensor,
    dst_offs: &[usize],
    src: &Tensor,
    src_offs: &[usize],
    inner: usize,
    accumulate: bool,
    fresh: bool,
) -> Result<()> {
    let locks = crate::iter::lock_operands(&[dst, src], 1);
    let moved = crate::kernels::advindex::move_rows(
        dst.mem(),
        dst_offs,
        src.mem(),
        src_offs,
        inner,
        accumulate,
        fresh,
    );
    drop(locks);
    if moved {
        Ok(())
    } else {
        Err(Error::runtime("internal error: advanced indexing offsets"))
    }
}

// ====================================================================== writes

/// `get_overlap_status(a, b)` is `Full` or `Partial`: `a` and `b` are dense and their
/// memory ranges meet.
fn overlaps(a: &Tensor, b: &Tensor) -> bool {
    if !a.shares_storage(b) || a.numel() == 0 || b.numel() == 0 {
        return false;
    }
    if !a.is_non_overlapping_and_dense() || !b.is_non_overlapping_and_dense() {
        return false;
    }
    let (a0, b0) = (a.data_ptr(), b.data_ptr());
    let (a1, b1) = (
        a0 + a.numel() * a.element_size(),
        b0 + b.numel() * b.element_size(),
    );
    a0 < b1 && b0 < a1
}

fn assert_no_overlap(a: &Tensor, b: &Tensor) -> Result<()> {
    if overlaps(a, b) {
        return Err(Error::runtime(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
        ));
    }
    Ok(())
}

/// A one-element tensor's value as a Python number of its kind.
fn item_scalar(t: &Tensor) -> Result<Scalar> {
    Ok(match t.dtype() {
        DType::Bool => Scalar::Bool(t.item::<bool>()?),
        d if d.is_floating_point() => Scalar::Float(t.item::<f64>()?),
        _ => Scalar::Int(t.item::<i64>()?),
    })
}

/// A Python number as a 0-d tensor of `dtype`, with PyTorch's range check
/// (`value cannot be converted to type int8_t without overflow`).
fn scalar_as(dtype: DType, s: Scalar) -> Result<Tensor> {
    crate::dtype::check_fill_range(dtype, s)?;
    Tensor::full_with((), s, dtype)
}

/// `canDispatchToMaskedFill`: with one element to write and exactly one mask among the
/// indices, the mask (checked against `t`, unsqueezed at the end to `t`'s rank)
/// and the `None`s before it; `None` when the shortcut does not apply.
fn masked_fill_mask(t: &Tensor, indices: &[Option<Tensor>]) -> Result<Option<(usize, Tensor)>> {
    let mut num = 0usize;
    let mut found: Option<(usize, Tensor)> = None;
    for it in indices {
        match it {
            None => num += 1,
            Some(m) => {
                if !is_mask(m) || found.is_some() {
                    return Ok(None);
                }
                check_mask(t, m, num)?;
                found = Some((num, m.alias()));
                num += m.dim();
            }
        }
    }
    Ok(found)
}

/// `self.masked_fill_(mask, value)` as the index-put shortcut runs it: a bool mask only
/// (`masked_fill_ only supports boolean masks, but got mask with dtype unsigned char`),
/// `value` cast to `t`'s dtype with the range check.
fn masked_fill_shortcut(t: &Tensor, lead: usize, mask: &Tensor, value: Scalar) -> Result<()> {
    if mask.dtype() != DType::Bool {
        return Err(Error::runtime(format!(
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            match mask.dtype() {
                DType::UInt8 => "unsigned char",
                d => d.name(),
            }
        )));
    }
    let v = scalar_as(t.dtype(), value)?;
    let mut list: Vec<Option<Tensor>> = vec![None; lead];
    list.push(Some(mask.alias()));
    put_unchecked(t, &list, &v, false)
}

/// The general `index_put_` after its shortcut and overlap checks: `make_info`, then the
/// value checks, then the writes (bounds checked first, so nothing is written on error).
fn put_unchecked(
    t: &Tensor,
    indices: &[Option<Tensor>],
    values: &Tensor,
    accumulate: bool,
) -> Result<()> {
    let info = make_info(t, indices)?;
    let r = info.result_shape();
    if !expandable(values.size(), &r) {
        return Err(Error::runtime(format!(
            "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
            fmt_list(values.size()),
            fmt_list(&r)
        )));
    }
    if values.dtype() != t.dtype() {
        return Err(Error::runtime(format!(
            "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
            t.dtype().scalar_type_name(),
            values.dtype().scalar_type_name()
        )));
    }
    let v = values.expand(&r)?;
    let after = info.src.dim() - info.before - info.k;
    let n = r.len();
    let drop = packed_tail(&r[n - after..], info.src.stride(), v.stride());
    let inner: usize = r[n - drop..].iter().product();
    let dst_offs = info.offsets_outer(drop)?;
    if r.contains(&0) {
        return move_rows_or_fail(t, &[], &v, &[], inner, accumulate, false);
    }
    let src_offs = row_major_offsets(&r[..n - drop], &v.stride()[..n - drop], v.storage_offset())?;
    move_rows_or_fail(t, &dst_offs, &v, &src_offs, inner, accumulate, false)
}

/// `slicePrefix1sSize`: `v` without its leading size-1 dims (a view).
fn strip_leading_ones(v: &Tensor) -> Result<Tensor> {
    let n = v.size().iter().take_while(|&&s| s == 1).count();
    if n == 0 {
        return Ok(v.alias());
    }
    v.view(&v.size()[n..])
}

/// `index_put_`'s optional argument (`accumulate=False`), for [`Tensor::index_put_with_`]
/// and [`Tensor::index_put_with`]: a `bool` is `accumulate`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexPutOpts {
    /// Add the values to the indexed elements (every duplicate contributes) instead of
    /// writing them (default `false`).
    pub accumulate: bool,
}

impl From<bool> for IndexPutOpts {
    fn from(accumulate: bool) -> Self {
        IndexPutOpts { accumulate }
    }
}

/// The `indices` argument of [`Tensor::index_put_`] (PyTorch's tuple of optional tensors):
/// slices, arrays and `Vec`s of `Tensor`, `&Tensor`, `Option<Tensor>` or `Option<&Tensor>`
/// (`None` leaves its dim unindexed, like `:`).
pub trait IndexList {
    /// The list as optional tensors (aliases, no copies).
    fn index_list(self) -> Vec<Option<Tensor>>;
}

/// One entry of an [`IndexList`].
pub trait IndexEntry {
    /// The entry as an optional tensor (an alias).
    fn index_entry(&self) -> Option<Tensor>;
}
impl IndexEntry for Tensor {
    fn index_entry(&self) -> Option<Tensor> {
        Some(self.alias())
    }
}
impl IndexEntry for &Tensor {
    fn index_entry(&self) -> Option<Tensor> {
        Some(self.alias())
    }
}
impl IndexEntry for Option<Tensor> {
    fn index_entry(&self) -> Option<Tensor> {
        self.as_ref().map(|t| t.alias())
    }
}
impl IndexEntry for Option<&Tensor> {
    fn index_entry(&self) -> Option<Tensor> {
        self.map(|t| t.alias())
    }
}
impl<E: IndexEntry> IndexList for &[E] {
    fn index_list(self) -> Vec<Option<Tensor>> {
        self.iter().map(|e| e.index_entry()).collect()
    }
}
impl<E: IndexEntry, const N: usize> IndexList for [E; N] {
    fn index_list(self) -> Vec<Option<Tensor>> {
        self.iter().map(|e| e.index_entry()).collect()
    }
}
impl<E: IndexEntry, const N: usize> IndexList for &[E; N] {
    fn index_list(self) -> Vec<Option<Tensor>> {
        self.iter().map(|e| e.index_entry()).collect()
    }
}
impl<E: IndexEntry> IndexList for Vec<E> {
    fn index_list(self) -> Vec<Option<Tensor>> {
        self.iter().map(|e| e.index_entry()).collect()
    }
}
impl<E: IndexEntry> IndexList for &Vec<E> {
    fn index_list(self) -> Vec<Option<Tensor>> {
        self.iter().map(|e| e.index_entry()).collect()
    }
}

/// The forward function of `torch.index_put(self, indices, values, accumulate)`:
/// [`put_impl`] on a copy of `self` (preserve-format strides), errors as
/// [`Tensor::index_put_with_`].
pub(crate) fn index_put_fwd(
    x: &Tensor,
    indices: &[Option<Tensor>],
    values: &Tensor,
    accumulate: bool,
) -> Result<Tensor> {
    let out = crate::ops::copy::clone_preserve(x)?;
    put_impl(&out, indices, values, accumulate)?;
    Ok(out)
}

/// What `self[items] = value` ([`Tensor::index_set_`]) does once its items are applied: the
/// write PyTorch's `__setitem__` dispatches to, on the view the basic items select.
pub(crate) enum SetItem {
    /// Only basic items: the value is already written into the view.
    Done,
    /// A number and exactly one bool/uint8 mask: `view.masked_fill_(mask, value)`, the mask
    /// covering the view's dims from `dim` on ([`setitem_masked_fill_raw_`]).
    MaskedFill {
        view: Tensor,
        dim: usize,
        mask: Tensor,
        value: Scalar,
    },
    /// A number and exactly one int64 index that is 1-d or contiguous:
    /// `view.index_fill_(dim, index.view(-1), value)` ([`index_fill_shortcut`]).
    IndexFill {
        view: Tensor,
        dim: usize,
        index: Tensor,
        value: Scalar,
    },
    /// The general case: `view.index_put_(indices, values)`.
    Put {
        view: Tensor,
        indices: Vec<Option<Tensor>>,
        values: Tensor,
    },
}

/// `self[items] = value` up to the write: the value's range check, the items applied (basic
/// only: the value written into the view), then which write of [`SetItem`] remains (errors
/// as [`Tensor::index_set_`]).
pub(crate) fn setitem_plan(
    x: &Tensor,
    items: &[TensorIndex],
    value: Operand<'_>,
) -> Result<SetItem> {
    if let Operand::Scalar(s) = value {
        crate::dtype::check_fill_range(x.dtype(), s)?;
    }
    let (sliced, idx) = if let [TensorIndex::Int(_)] = items {
        (x.index(items)?, Vec::new())
    } else {
        apply_slicing(x, items, true)?
    };
    if idx.is_empty() {
        copy_to(&sliced, value)?;
        return Ok(SetItem::Done);
    }
    let values = match value {
        Operand::Scalar(s) => {
            let defined: Vec<(usize, &Tensor)> = idx
                .iter()
                .enumerate()
                .filter_map(|(d, o)| o.as_ref().map(|t| (d, t)))
                .collect();
            if let [(d, t)] = defined[..] {
                if is_mask(t) {
                    return Ok(SetItem::MaskedFill {
                        view: sliced,
                        dim: d,
                        mask: t.alias(),
                        value: s,
                    });
                }
                if t.dtype() == DType::Int64 && (t.dim() == 1 || t.is_contiguous()) {
                    return Ok(SetItem::IndexFill {
                        view: sliced,
                        dim: d,
                        index: t.alias(),
                        value: s,
                    });
                }
            }
            scalar_as(x.dtype(), s)?
        }
        Operand::Tensor(v) => strip_leading_ones(v)?,
    };
    Ok(SetItem::Put {
        view: sliced,
        indices: idx,
        values,
    })
}

/// `view.masked_fill_(mask, value)` as `__setitem__`'s shortcut runs it, unrecorded: the
/// mask's shape checked against the view's dims from `dim` on, then the fill.
pub(crate) fn setitem_masked_fill_raw_(
    view: &Tensor,
    dim: usize,
    mask: &Tensor,
    value: Scalar,
) -> Result<()> {
    check_mask(view, mask, dim)?;
    masked_fill_shortcut(view, dim, mask, value)
}

/// `self.index_fill_(d, index.view(-1), value)` as `__setitem__`'s shortcut runs it:
/// negative indices wrap; out of range names the tensor dim `d`.
pub(crate) fn index_fill_shortcut(
    t: &Tensor,
    d: usize,
    index: &Tensor,
    value: Scalar,
) -> Result<()> {
    let flat = index.reshape(-1)?;
    let size = t.size()[d] as i64;
    for x in flat.try_to_vec::<i64>()? {
        if x < -size || x >= size {
            return Err(Error::index(format!(
                "index {x} is out of bounds for dimension {d} with size {size}"
            )));
        }
    }
    let v = scalar_as(t.dtype(), value)?;
    let mut list: Vec<Option<Tensor>> = vec![None; d];
    list.push(Some(flat));
    put_unchecked(t, &list, &v, false)
}

/// `copy_to(dst, value)`: assignment through basic indices only.
fn copy_to(dst: &Tensor, value: Operand<'_>) -> Result<()> {
    match value {
        Operand::Scalar(s) => {
            dst.fill_(s)?;
        }
        Operand::Tensor(v) => {
            if v.size() == dst.size() {
                dst.copy_(v)?;
            } else if v.dim() == 0 {
                // fill_.Tensor, unlike fill_.Scalar, refuses an expanded destination
                crate::iter::check_overlap(dst, &[])?;
                dst.fill_(item_scalar(v)?)?;
            } else {
                let vs = strip_leading_ones(v)?;
                dst.copy_(&vs.expand(dst.size())?)?;
            }
        }
    }
    Ok(())
}

/// `_index_put_impl_`: the checks and the shortcut, then the general write.
pub(crate) fn put_impl(
    t: &Tensor,
    indices: &[Option<Tensor>],
    values: &Tensor,
    accumulate: bool,
) -> Result<()> {
    if indices.len() > t.dim() {
        return Err(too_many_got(t.dim(), indices.len()));
    }
    if t.size()
        .iter()
        .zip(t.stride())
        .any(|(&s, &st)| s > 1 && st == 0)
    {
        crate::warnings::warn(
            "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before performing this operation. This also applies to advanced indexing e.g. tensor[indices] = tensor",
        );
    }
    if !accumulate
        && values.numel() == 1
        && let Some((lead, mask)) = masked_fill_mask(t, indices)?
    {
        return masked_fill_shortcut(t, lead, &mask, item_scalar(values)?);
    }
    assert_no_overlap(t, values)?;
    for i in indices.iter().flatten() {
        assert_no_overlap(t, i)?;
    }
    put_unchecked(t, indices, values, accumulate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s;

    fn arange(sizes: &[usize]) -> Tensor {
        let n: usize = sizes.iter().product();
        Tensor::from_vec((0..n as i64).collect::<Vec<i64>>(), sizes).unwrap()
    }

    fn ix(v: &[i64]) -> Tensor {
        Tensor::from_vec(v.to_vec(), [v.len()]).unwrap()
    }

    #[test]
    fn placement_rule() {
        let x = arange(&[2, 3, 4]);
        let i = ix(&[0, 1]);
        // adjacent: stays in place
        let r = x.index(&s![.., &i, &i]).unwrap();
        assert_eq!(r.size(), &[2, 2]);
        assert_eq!(r.to_vec::<i64>(), [0, 5, 12, 17]);
        // separated by a slice: the broadcast dims go first
        let r = x.index(&s![&i, .., [1, 2]]).unwrap();
        assert_eq!(r.size(), &[2, 3]);
        assert_eq!(r.to_vec::<i64>(), [1, 5, 9, 14, 18, 22]);
        // separated by None
        assert_eq!(x.index(&s![&i, None, &i]).unwrap().size(), &[2, 1, 4]);
        // an int is a basic index: x[0, :, [1, 2]] is (3, 2)
        assert_eq!(x.index(&s![0, .., [1, 2]]).unwrap().size(), &[3, 2]);
        // Python bools
        assert_eq!(x.index(&s![.., false]).unwrap().size(), &[2, 0, 3, 4]);
        assert_eq!(x.index(&s![[0, 1], true]).unwrap().size(), &[2, 3, 4]);
        assert!(!x.index(&s![&i]).unwrap().shares_storage(&x));
    }

    #[test]
    fn masks_and_errors() {
        let x = arange(&[2, 3]);
        let m = Tensor::from_vec(vec![true, false, true, false, true, true], [2, 3]).unwrap();
        assert_eq!(x.index(&s![&m]).unwrap().to_vec::<i64>(), [0, 2, 4, 5]);
        let e = x.index(&s![.., [true, false]]).unwrap_err();
        assert_eq!(
            e.message(),
            "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [2, 3] at index 1"
        );
        let e = x.index(&s![[0, 1], [0, 1, 2]]).unwrap_err();
        assert_eq!(
            e.message(),
            "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"
        );
        let e = x.index(&s![.., [-4]]).unwrap_err();
        assert_eq!(
            e.message(),
            "index -4 is out of bounds for dimension 0 with size 3"
        );
        let f = Tensor::from_vec(vec![0.0f32], [1]).unwrap();
        let e = x.index(&s![&f]).unwrap_err();
        assert_eq!(
            e.message(),
            "tensors used as indices must be long, int, byte or bool tensors"
        );
        let z = Tensor::zeros_with([0, 3], DType::Int64).unwrap();
        assert_eq!(
            z.index(&s![[0]]).unwrap_err().message(),
            "index is out of bounds for dimension with size 0"
        );
        assert_eq!(z.index(&s![Vec::<i64>::new()]).unwrap().size(), &[0, 3]);
    }

    #[test]
    fn result_strides_follow_the_source() {
        // a transposed (2, 4, 3) view with strides (12, 1, 4)
        let xt = arange(&[2, 3, 4]).transpose(1, 2).unwrap();
        assert_eq!(xt.index(&s![[0, 1]]).unwrap().stride(), &[12, 1, 4]);
        assert_eq!(xt.index(&s![.., [0, 1]]).unwrap().stride(), &[6, 3, 1]);
    }

    #[test]
    fn put_and_accumulate() {
        let x = Tensor::zeros_with([4], DType::Float32).unwrap();
        let v = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], [3]).unwrap();
        x.index_put_with_([&ix(&[0, 0, 2])], &v, true).unwrap();
        assert_eq!(x.to_vec::<f32>(), [3.0, 0.0, 3.0, 0.0]);
        // without accumulate, the last write wins
        x.index_put_([&ix(&[1, 1, 1])], &v).unwrap();
        assert_eq!(x.to_vec::<f32>(), [3.0, 3.0, 3.0, 0.0]);
        let b = Tensor::from_vec(vec![true, false], [2]).unwrap();
        let y = Tensor::zeros_with([2, 2], DType::Int64).unwrap();
        let out = y
            .index_put_with(
                [Some(&b)],
                &Tensor::full_with((), 7, DType::Int64).unwrap(),
                false,
            )
            .unwrap();
        assert_eq!(out.to_vec::<i64>(), [7, 7, 0, 0]);
        assert_eq!(y.to_vec::<i64>(), [0, 0, 0, 0]);
        let e = y.index_put_([&ix(&[0])], &v).unwrap_err();
        assert_eq!(
            e.message(),
            "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [1, 2]"
        );
    }

    #[test]
    fn setitem() {
        let x = Tensor::zeros_with([2, 3], DType::Float32).unwrap();
        x.index_set_(&s![.., [0, 2]], 5).unwrap();
        assert_eq!(x.to_vec::<f32>(), [5.0, 0.0, 5.0, 5.0, 0.0, 5.0]);
        let e = x.index_set_(&s![.., [7]], 1).unwrap_err();
        assert_eq!(
            e.message(),
            "index 7 is out of bounds for dimension 1 with size 3"
        );
        let v = Tensor::from_vec(vec![1.0f32, 2.0], [1, 2, 1]).unwrap();
        x.index_set_(&s![[1, 0]], &v).unwrap();
        assert_eq!(x.to_vec::<f32>(), [2.0, 2.0, 2.0, 1.0, 1.0, 1.0]);
        x.index_set_(&s![0], 9).unwrap();
        assert_eq!(x.to_vec::<f32>(), [9.0, 9.0, 9.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn empty_results_check_no_index_and_uint8_takes_negatives() {
        let x = arange(&[4, 5]);
        // the slice leaves no element, so the bad index 4 is never read (as in PyTorch)
        assert_eq!(
            x.index(&s![[4], TensorIndex::Slice(Some(4), Some(2), None)])
                .unwrap()
                .size(),
            &[1, 0]
        );
        let u = Tensor::zeros_with([3], DType::UInt8).unwrap();
        u.index_set_(&s![[0, 2]], -1).unwrap();
        assert_eq!(u.to_vec::<i64>(), [255, 0, 255]);
        assert_eq!(
            u.index_set_(&s![[0]], -256).unwrap_err().message(),
            "value cannot be converted to type uint8_t without overflow"
        );
    }
}
