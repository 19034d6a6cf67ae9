//! Shape ops that copy: `flip`, `fliplr`, `flipud`, `roll`, `rot90`, `repeat`, `tile`,
//! `repeat_interleave`, `tril`, `triu`, `narrow_copy`, `trace`, `diag`, `diag_embed`,
//! `diagflat`, `block_diag`, `cartesian_prod`, `combinations`; and the view ops that split or
//! reshape (`tensor_split`, `hsplit`/`vsplit`/`dsplit`, `swapaxes`/`swapdims`,
//! `atleast_1d/2d/3d`) and the joins built on `cat` (`hstack`, `vstack`, `dstack`,
//! `column_stack`).
//!
//! Data movement goes through one rule, [`gather_axes`]: the output element at multi-index
//! `o` is the input element at `(map_0[o_0], …, map_{n-1}[o_{n-1}])`, moved by the copy engine
//! of `kernels/axes.rs` (runs of consecutive source elements as `memcpy`s); each op only says
//! how its output coordinates map to input ones. It records no gradient: its callers are the
//! table's forward functions, and `repeat_interleave` with a number when no gradient is
//! recorded.

use crate::args::{Int, IntList, IntoDims, IntoShape, new_sizes};
use crate::dim::{wrap_dim, wrap_dims};
use crate::error::{Error, Result, fmt_list};
use crate::layout::{contiguous_strides, preserve_format_strides};
use crate::ops::cat::cat_impl;
use crate::ops::copy::copy_with_strides;
use crate::tensor::Tensor;

fn overflow() -> Error {
    Error::runtime("DefaultCPUAllocator: can't allocate memory: the requested size overflows")
}

/// The output of shape `maps[d].len()` per dim whose element at `o` is
/// `src[maps[0][o_0], …]`. Fresh, contiguous, `src`'s dtype. `maps.len() == src.dim()`
/// and every entry of `maps[d]` is `< src.size(d)`.
pub(crate) fn gather_axes(src: &Tensor, maps: &[Vec<usize>]) -> Result<Tensor> {
    debug_assert_eq!(maps.len(), src.dim());
    let out_sizes: Vec<usize> = maps.iter().map(|m| m.len()).collect();
    out_sizes
        .iter()
        .try_fold(1usize, |a, &s| a.checked_mul(s))
        .ok_or_else(overflow)?;
    let strides = src.stride().to_vec();
    let esize = src.dtype().itemsize();
    let m: Vec<&[usize]> = maps.iter().map(|v| &v[..]).collect();
    let (out, ()) = crate::iter::dense_new(&out_sizes, src.dtype(), &[src], |mut s| {
        let from = s.input_bytes(0)?;
        crate::kernels::axes::gather_axes(from, &strides, &m, s.out_bytes(0)?, esize);
        Ok(())
    })?;
    Ok(out)
}

/// `flip` of a contiguous, non-empty `src` of at least one dim as row copies (each output row
/// along the last dim is a source row, reversed when the last dim is flipped): a fresh
/// contiguous tensor, or `None` for other inputs.
fn flip_contiguous(src: &Tensor, ds: &[usize]) -> Result<Option<Tensor>> {
    if src.dim() == 0 || src.numel() == 0 || !src.is_contiguous() {
        return Ok(None);
    }
    let sizes = src.size();
    let last = sizes.len() - 1;
    let n = sizes[last];
    let rows = src.numel() / n;
    let mut flipped = vec![false; sizes.len()];
    for &d in ds {
        flipped[d] = true;
    }
    // the source row of each output row: its multi-index over the leading dims, mirrored in
    // the flipped ones
    let mut src_rows = Vec::new();
    src_rows.try_reserve(rows).map_err(|_| overflow())?;
    let row_st = contiguous_strides(&sizes[..last]);
    let mut pos = vec![0usize; last];
    for _ in 0..rows {
        let r: usize = (0..last)
            .map(|d| {
                let i = if flipped[d] {
                    sizes[d] - 1 - pos[d]
                } else {
                    pos[d]
                };
                i * row_st[d]
            })
            .sum();
        src_rows.push(r);
        for d in (0..last).rev() {
            pos[d] += 1;
            if pos[d] < sizes[d] {
                break;
            }
            pos[d] = 0;
        }
    }
    // `src` is contiguous: its bytes are its rows, each `src_rows` entry one of them
    let (out, ()) = crate::iter::dense_new(sizes, src.dtype(), &[src], |mut s| {
        crate::kernels::rows::flip_rows(
            s.input_bytes(0)?,
            s.out_bytes(0)?,
            &src_rows,
            n,
            src.element_size(),
            flipped[last],
        );
        Ok(())
    })?;
    Ok(Some(out))
}

/// Identity maps for every dim of `t`.
pub(crate) fn identity_maps(t: &Tensor) -> Result<Vec<Vec<usize>>> {
    t.size().iter().map(|&n| axis_map(n, |i| i)).collect()
}

/// `(0..n).map(f).collect()` for an index map of [`gather_axes`], with the allocator's error
/// instead of an abort (a dim of an expanded input may be far longer than its storage).
pub(crate) fn axis_map(n: usize, f: impl Fn(usize) -> usize) -> Result<Vec<usize>> {
    let mut v = crate::error::try_vec(n)?;
    v.extend((0..n).map(f));
    Ok(v)
}

/// Checks that an output of `sizes` and `dtype` can be allocated, with PyTorch's errors
/// (the freed buffer goes back to the storage pool, so the real allocation reuses it): ops
/// that build index maps first call it so that a huge output fails with the allocator's
/// message for the output, as in PyTorch.
pub(crate) fn reserve_output(sizes: &[usize], dtype: crate::dtype::DType) -> Result<()> {
    Tensor::try_alloc_contiguous(sizes, dtype).map(drop)
}

/// A fresh contiguous copy (`clone(memory_format=torch.contiguous_format)`).
pub(crate) fn fresh_contiguous(t: &Tensor) -> Result<Tensor> {
    copy_with_strides(t, &contiguous_strides(t.size()), t.dtype())
}

/// `trace(x)`'s forward (checked as PyTorch checks it): the sum of the main diagonal of a
/// matrix, a 0-d tensor of the dtype `sum` gives (integers → int64).
pub(crate) fn trace_fwd(x: &Tensor) -> Result<Tensor> {
    if x.dim() != 2 {
        return Err(Error::runtime(format!(
            "trace: expected a matrix, but got tensor with dim {}",
            x.dim()
        )));
    }
    if x.dtype() == crate::DType::Bool {
        return Err(Error::not_implemented(
            "\"trace\" not implemented for 'Bool'",
        ));
    }
    x.diagonal()?.sum()
}

/// `rot90(x, k, dims)`'s forward (checked as PyTorch checks it): `k mod 4` = 1:
/// `flip(dims[1]).transpose_(dims)`; 2: `flip(dims)`; 3: `flip(dims[0]).transpose_(dims)`;
/// 0: a contiguous copy. Always a fresh tensor (for odd `k` its strides are transposed, as
/// PyTorch's in-place `transpose_` leaves them), never a view.
pub(crate) fn rot90_fwd(x: &Tensor, k: i64, dims: &[i64]) -> Result<Tensor> {
    let nd = x.dim() as i64;
    if dims.len() != 2 {
        return Err(Error::runtime(format!(
            "expected total rotation dims == 2, but got dims = {}",
            dims.len()
        )));
    }
    if nd < 2 {
        return Err(Error::runtime(format!(
            "expected total dims >= 2, but got total dims = {nd}"
        )));
    }
    let (a, b) = (dims[0], dims[1]);
    if a == b || (a as i128 - b as i128).abs() == nd as i128 {
        return Err(Error::runtime(format!(
            "expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}"
        )));
    }
    let d0 = wrap_dim(a, x.dim())?;
    let d1 = wrap_dim(b, x.dim())?;
    let mut r = match k.rem_euclid(4) {
        1 => flip_fwd(x, &[d1 as i64])?,
        2 => return flip_fwd(x, &[d0 as i64, d1 as i64]),
        3 => flip_fwd(x, &[d0 as i64])?,
        _ => return fresh_contiguous(x),
    };
    // `transpose_`: the fresh result's own sizes and strides swapped
    r.sizes.swap(d0, d1);
    r.strides.swap(d0, d1);
    Ok(r)
}

/// `out` (contiguous, `like`'s shape) restrided as `empty_like(like, preserve_format)`.
fn preserve_like(out: Tensor, like: &Tensor) -> Result<Tensor> {
    let st = preserve_format_strides(like.size(), like.stride());
    if st == contiguous_strides(out.size()) {
        Ok(out)
    } else {
        copy_with_strides(&out, &st, out.dtype())
    }
}

/// `tensor_split`'s second argument: a number of sections, a list of split indices, or an
/// index tensor (int64, 0-d for sections, 1-d for indices).
///
/// Made with `.into()` from any [`Int`] (sections), an array, slice or `Vec` of ints
/// (indices), or a `&Tensor`.
#[derive(Clone, Debug)]
pub enum TensorSplitArg<'a> {
    /// Split into this many nearly equal parts (the first `size % n` one longer).
    Sections(i64),
    /// Split before each of these indices (Python slice semantics: clamped, may be unsorted).
    Indices(IntList),
    /// An int64 tensor: 0-d is a number of sections, 1-d a list of indices.
    Tensor(&'a Tensor),
}
impl<T: Int> From<T> for TensorSplitArg<'_> {
    fn from(n: T) -> Self {
        TensorSplitArg::Sections(n.to_i64())
    }
}
impl<'a> From<&'a Tensor> for TensorSplitArg<'a> {
    fn from(t: &'a Tensor) -> Self {
        TensorSplitArg::Tensor(t)
    }
}
macro_rules! split_arg_list {
    ($($ty:ty),*) => {$(
        impl<T: Int, const N: usize> From<$ty> for TensorSplitArg<'_> {
            fn from(v: $ty) -> Self {
                TensorSplitArg::Indices(v.into_shape())
            }
        }
    )*};
}
split_arg_list!([T; N], &[T; N]);
impl<T: Int> From<&[T]> for TensorSplitArg<'_> {
    fn from(v: &[T]) -> Self {
        TensorSplitArg::Indices(v.into_shape())
    }
}
impl<T: Int> From<Vec<T>> for TensorSplitArg<'_> {
    fn from(v: Vec<T>) -> Self {
        TensorSplitArg::Indices(v.into_shape())
    }
}
impl<T: Int> From<&Vec<T>> for TensorSplitArg<'_> {
    fn from(v: &Vec<T>) -> Self {
        TensorSplitArg::Indices(v.into_shape())
    }
}

/// `repeat_interleave`'s `repeats`: an integer, or a 0-d/1-d int64 tensor.
#[derive(Clone, Copy, Debug)]
pub enum Repeats<'a> {
    /// Every element repeated this many times.
    Int(i64),
    /// Per-element counts (a 0-d or one-element tensor applies to every element).
    Tensor(&'a Tensor),
}
impl<T: Int> From<T> for Repeats<'_> {
    fn from(n: T) -> Self {
        Repeats::Int(n.to_i64())
    }
}
impl<'a> From<&'a Tensor> for Repeats<'a> {
    fn from(t: &'a Tensor) -> Self {
        Repeats::Tensor(t)
    }
}

/// `repeat_interleave`'s optional arguments (`dim=None, output_size=None`), for
/// [`Tensor::repeat_interleave_with`]: a single integer is `dim`, a pair `(dim, output_size)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RepeatInterleaveOpts {
    /// The dim to repeat along; `None` flattens the input first.
    pub dim: Option<i64>,
    /// The output's length along `dim` when known (the sum of the repeats).
    pub output_size: Option<i64>,
}
impl<T: Int> From<T> for RepeatInterleaveOpts {
    fn from(dim: T) -> Self {
        RepeatInterleaveOpts {
            dim: Some(dim.to_i64()),
            output_size: None,
        }
    }
}
impl<A: Int, B: Int> From<(A, B)> for RepeatInterleaveOpts {
    fn from((d, o): (A, B)) -> Self {
        RepeatInterleaveOpts {
            dim: Some(d.to_i64()),
            output_size: Some(o.to_i64()),
        }
    }
}

/// `diag_embed`'s optional arguments (`offset=0, dim1=-2, dim2=-1`), for
/// [`Tensor::diag_embed_with`]: a single integer is `offset`, a triple `(offset, dim1, dim2)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiagEmbedOpts {
    /// Which diagonal: > 0 above the main one, < 0 below (default 0).
    pub offset: i64,
    /// First dim of the new planes, in the output's dims (default -2).
    pub dim1: i64,
    /// Second dim of the new planes (default -1).
    pub dim2: i64,
}
impl Default for DiagEmbedOpts {
    fn default() -> Self {
        DiagEmbedOpts {
            offset: 0,
            dim1: -2,
            dim2: -1,
        }
    }
}
impl<T: Int> From<T> for DiagEmbedOpts {
    fn from(offset: T) -> Self {
        DiagEmbedOpts {
            offset: offset.to_i64(),
            ..Default::default()
        }
    }
}
impl<A: Int, B: Int, C: Int> From<(A, B, C)> for DiagEmbedOpts {
    fn from((o, a, b): (A, B, C)) -> Self {
        DiagEmbedOpts {
            offset: o.to_i64(),
            dim1: a.to_i64(),
            dim2: b.to_i64(),
        }
    }
}

/// `combinations`' optional arguments (`r=2, with_replacement=False`), for
/// [`combinations_with`]: a single integer is `r`, a pair `(r, with_replacement)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CombinationsOpts {
    /// Length of each combination (default 2).
    pub r: i64,
    /// Whether an element may repeat within a combination (default false).
    pub with_replacement: bool,
}
impl Default for CombinationsOpts {
    fn default() -> Self {
        CombinationsOpts {
            r: 2,
            with_replacement: false,
        }
    }
}
impl<T: Int> From<T> for CombinationsOpts {
    fn from(r: T) -> Self {
        CombinationsOpts {
            r: r.to_i64(),
            ..Default::default()
        }
    }
}
impl<T: Int> From<(T, bool)> for CombinationsOpts {
    fn from((r, w): (T, bool)) -> Self {
        CombinationsOpts {
            r: r.to_i64(),
            with_replacement: w,
        }
    }
}

/// `start` index of `roll`'s second piece: `(size - shift) mod size`, in `[0, size)`.
fn roll_start(size: i64, shift: i64) -> i64 {
    let s = (size as i128 - shift as i128) % size as i128;
    (if s < 0 { s + size as i128 } else { s }) as i64
}

/// The pieces' `(start, end)` bounds of `tensor_split(sections)` on a dim of `size`: the first
/// `size % sections` pieces have one more element.
fn section_bounds(size: usize, sections: usize) -> impl Iterator<Item = (usize, usize)> {
    let (q, r) = (size / sections, size % sections);
    let mut start = 0;
    (0..sections).map(move |i| {
        let len = q + usize::from(i < r);
        let b = (start, start + len);
        start += len;
        b
    })
}

/// Every `r`-combination of `0..n` in lexicographic order (non-decreasing with replacement,
/// increasing without).
fn combination_indices(n: usize, r: usize, with_replacement: bool) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur: Vec<usize> = Vec::with_capacity(r);
    fn rec(
        n: usize,
        r: usize,
        w: bool,
        start: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == r {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            cur.push(i);
            rec(n, r, w, if w { i } else { i + 1 }, cur, out);
            cur.pop();
        }
    }
    rec(n, r, with_replacement, 0, &mut cur, &mut out);
    out
}

/// The forward function of `torch.flip(self, dims)`.
pub(crate) fn flip_fwd(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let ds = wrap_dims(dims, x.dim())?;
    if let Some(out) = flip_contiguous(x, &ds)? {
        return preserve_like(out, x);
    }
    reserve_output(x.size(), x.dtype())?;
    let mut maps = identity_maps(x)?;
    for d in ds {
        // a 0-d tensor accepts dim 0 / -1 and has no axis to reverse
        if let Some(m) = maps.get_mut(d) {
            m.reverse();
        }
    }
    preserve_like(gather_axes(x, &maps)?, x)
}

/// The forward function of `torch.roll(self, shifts, dims)`: dims rolled one after the other,
/// each as the `cat` of two `narrow`s.
pub(crate) fn roll_fwd(x: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
    if dims.len() != 1 || shifts.len() != 1 {
        if shifts.is_empty() {
            return Err(Error::runtime("`shifts` required"));
        }
        if dims.is_empty() && shifts.len() == 1 {
            let flat = x.try_contiguous()?.view(x.numel())?;
            return roll_fwd(&flat, shifts, &[0])?.view(x.size());
        }
        if shifts.len() != dims.len() {
            return Err(Error::runtime(format!(
                "shifts and dimensions must align. shifts: {}, dims:{}",
                shifts.len(),
                dims.len()
            )));
        }
        let first = roll_fwd(x, &shifts[..1], &dims[..1])?;
        return roll_fwd(&first, &shifts[1..], &dims[1..]);
    }
    if x.numel() == 0 {
        return x.try_clone();
    }
    let d = dims[0];
    let size = x.size_of(d)? as i64;
    let start = roll_start(size, shifts[0]);
    let t0 = x.narrow(d, start, size - start)?;
    let t1 = x.narrow(d, 0, start)?;
    cat_impl(&[&t0, &t1], d)
}

/// The forward function of `self.repeat(*sizes)`.
pub(crate) fn repeat_fwd(x: &Tensor, sizes: &[i64]) -> Result<Tensor> {
    let reps = sizes;
    if reps.len() < x.dim() {
        return Err(Error::runtime(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
        ));
    }
    let lead = reps.len() - x.dim();
    let padded: Vec<i64> = std::iter::repeat_n(1, lead)
        .chain(x.size().iter().map(|&s| s as i64))
        .collect();
    let target: Vec<i64> = padded
        .iter()
        .zip(reps)
        .map(|(&p, &r)| p.checked_mul(r).ok_or_else(overflow))
        .collect::<Result<_>>()?;
    let target = new_sizes(&target)?;
    if target.contains(&0) {
        return Tensor::try_alloc_contiguous(&target, x.dtype());
    }
    // The result must be allocatable before its per-axis index maps are built (an
    // axis of 2^32 in a result of 2^40 elements would otherwise abort on the map).
    drop(Tensor::try_alloc_contiguous(&target, x.dtype())?);
    let x = x.expand(&padded)?;
    // One index map per axis, as long as the result's axis: allocated fallibly (an
    // axis of 2^32 would abort), the allocator's error if it can't be had.
    let maps: Vec<Vec<usize>> = target
        .iter()
        .zip(&padded)
        .map(|(&t, &p)| {
            let mut v: Vec<usize> = Vec::new();
            v.try_reserve_exact(t)
                .map_err(|_| Error::alloc(t as u128 * std::mem::size_of::<usize>() as u128))?;
            v.extend((0..t).map(|i| i % p as usize));
            Ok(v)
        })
        .collect::<Result<_>>()?;
    gather_axes(&x, &maps)
}

/// The forward function of `torch.tril(self, k)` (`lower`) and `torch.triu(self, k)`.
pub(crate) fn triangle_fwd(x: &Tensor, k: i64, lower: bool) -> Result<Tensor> {
    if x.dim() < 2 {
        return Err(Error::runtime(format!(
            "{}: input tensor must have at least 2 dimensions",
            if lower { "tril" } else { "triu" }
        )));
    }
    let strides = x.stride().to_vec();
    let esize = x.dtype().itemsize();
    let (out, ()) = crate::iter::dense_new(x.size(), x.dtype(), &[x], |mut s| {
        let from = s.input_bytes(0)?;
        let to = s.out_bytes(0)?;
        crate::kernels::axes::triangle(from, &strides, x.size(), to, esize, (k, lower));
        Ok(())
    })?;
    Ok(out)
}

/// The forward function of `torch.narrow_copy(self, dim, start, length)`.
///
/// Checked as PyTorch's `narrow_copy_dense_cpu_out` checks, which differs from `narrow`: a
/// negative `dim` wraps (IndexError), a positive one past the last dim fails its bare
/// `TORCH_CHECK` (RuntimeError `Expected dim < static_cast<int64_t>(self_sizes.size()) to be
/// true, but got false.  (Could this error message be improved?  If so, please report an
/// enhancement request to PyTorch.)`), and a negative `length` gives `start (0) + length (-1)
/// exceeds dimension size (3).`
pub(crate) fn narrow_copy_fwd(x: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
    if x.dim() == 0 {
        return Err(Error::runtime(
            "narrow() cannot be applied to a 0-dim tensor.",
        ));
    }
    let d = if dim < 0 {
        wrap_dim(dim, x.dim())?
    } else if dim < x.dim() as i64 {
        dim as usize
    } else {
        return Err(Error::runtime(
            "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)",
        ));
    };
    let size = x.size()[d] as i64;
    if !(-size <= start && start <= size) {
        return Err(Error::index(format!(
            "start out of range (expected to be in range of [{}, {size}], but got {start})",
            -size
        )));
    }
    let start = if start < 0 { start + size } else { start };
    if length < 0 || start > size - length {
        return Err(Error::runtime(format!(
            "start ({start}) + length ({length}) exceeds dimension size ({size})."
        )));
    }
    fresh_contiguous(&x.detached().narrow(d, start, length)?)
}

/// The forward function of `torch.diag(self, diagonal)` for a matrix: a contiguous copy of
/// `diagonal(diagonal)`. Error for other than 2 dims: `diag(): Supports 1D or 2D tensors. Got
/// 3D` (a vector is `diag_embed`'s).
pub(crate) fn diag_fwd(x: &Tensor, k: i64) -> Result<Tensor> {
    match x.dim() {
        2 => fresh_contiguous(&x.detached().diagonal_with(k)?),
        n => Err(Error::runtime(format!(
            "diag(): Supports 1D or 2D tensors. Got {n}D"
        ))),
    }
}

/// The forward function of `torch.diag_embed(self, offset, dim1, dim2)`.
pub(crate) fn diag_embed_fwd(x: &Tensor, o: DiagEmbedOpts) -> Result<Tensor> {
    let nd = x.dim() + 1;
    let d1 = wrap_dim(o.dim1, nd)?;
    let d2 = wrap_dim(o.dim2, nd)?;
    if d1 == d2 {
        return Err(Error::runtime(format!(
            "diagonal dimensions cannot be identical {}, {}",
            o.dim1, o.dim2
        )));
    }
    let last = if x.dim() == 0 {
        1
    } else {
        x.size()[x.dim() - 1]
    };
    let n = (o.offset.unsigned_abs() as usize)
        .checked_add(last)
        .ok_or_else(overflow)?;
    let mut sizes: Vec<usize> = x.size().to_vec();
    sizes.pop();
    sizes.insert(d1.min(d2), n);
    sizes.insert(d1.max(d2), n);
    let out = Tensor::zeros_with(&sizes[..], x.dtype())?;
    let diag = out.diagonal_with((o.offset, d1 as i64, d2 as i64))?;
    crate::ops::copy::copy_unchecked(&diag, &x.detached().expand(diag.size())?);
    Ok(out)
}

/// The forward function of `torch.block_diag(*tensors)` (the blocks are copied in with
/// `copy_`, which the caller keeps from recording).
pub(crate) fn block_diag_fwd(ts: &[&Tensor]) -> Result<Tensor> {
    if ts.is_empty() {
        return Tensor::zeros_with([1, 0], crate::DType::Float32);
    }
    let dtype = crate::iter::result_type_of(ts);
    let mut blocks = Vec::with_capacity(ts.len());
    let (mut r128, mut c128) = (0u128, 0u128);
    for (i, t) in ts.iter().enumerate() {
        let b = match t.dim() {
            0 => t.expand([1, 1])?,
            1 => t.expand([1, t.size()[0]])?,
            2 => t.alias(),
            n => {
                return Err(Error::runtime(format!(
                    "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {n} dimensions"
                )));
            }
        };
        // summed in u128: sizes near 2^62 (beside an empty dim) pass usize after a few inputs
        r128 += b.size()[0] as u128;
        c128 += b.size()[1] as u128;
        blocks.push(b);
    }
    if r128 > i64::MAX as u128 || c128 > i64::MAX as u128 {
        return Err(Error::runtime(format!(
            "torch.block_diag: the summed sizes [{r128}, {c128}] overflow int64"
        )));
    }
    let (r, c) = (r128 as usize, c128 as usize);
    let out = Tensor::zeros_with([r, c], dtype)?;
    let (mut i, mut j) = (0i64, 0i64);
    for b in &blocks {
        let (h, w) = (b.size()[0] as i64, b.size()[1] as i64);
        let part = out.narrow(0, i, h)?.narrow(1, j, w)?;
        part.copy_(b)?;
        i += h;
        j += w;
    }
    Ok(out)
}

impl Tensor {
    /// `torch.fliplr(self)`: `flip(1)`.
    ///
    /// Error (RuntimeError): `Input must be >= 2-d.`
    pub fn fliplr(&self) -> Result<Tensor> {
        if self.dim() < 2 {
            return Err(Error::runtime("Input must be >= 2-d."));
        }
        self.flip(1)
    }

    /// `torch.flipud(self)`: `flip(0)`.
    ///
    /// Error (RuntimeError): `Input must be >= 1-d.`
    pub fn flipud(&self) -> Result<Tensor> {
        if self.dim() < 1 {
            return Err(Error::runtime("Input must be >= 1-d."));
        }
        self.flip(0)
    }

    /// `torch.roll(self, shifts)` (no dims): the flattened elements shifted by `shifts`
    /// (one int) positions, wrapping around, then viewed as `self`'s shape.
    /// See [`Tensor::roll_with`].
    pub fn roll(&self, shifts: impl IntoShape) -> Result<Tensor> {
        self.roll_with(shifts, ())
    }

    /// `torch.tile(self, dims)`: [`Tensor::repeat`] with `dims` first padded with leading 1s
    /// to `self.dim()` entries. Errors: those of `repeat`.
    pub fn tile(&self, dims: impl IntoShape) -> Result<Tensor> {
        let mut d = dims.into_shape();
        if self.dim() > d.len() {
            let mut p: IntList = std::iter::repeat_n(1, self.dim() - d.len()).collect();
            p.extend(d);
            d = p;
        }
        self.repeat(d)
    }

    /// `self.repeat_interleave(repeats)` (dim None: over the flattened tensor); see
    /// [`Tensor::repeat_interleave_with`].
    pub fn repeat_interleave<'a>(&self, repeats: impl Into<Repeats<'a>>) -> Result<Tensor> {
        self.repeat_interleave_with(repeats, RepeatInterleaveOpts::default())
    }

    /// `self.repeat_interleave(repeats, dim, output_size=…)`: each element (slice along `dim`)
    /// repeated `repeats` times in place (`[a, b]` by 2 → `[a, a, b, b]`). `repeats` an
    /// integer, or an int64 tensor: 0-d or one element (every slice the same count) or one
    /// count per slice. Without `dim` the input is flattened first.
    ///
    /// Shapes: `self`'s with `dim` resized to the sum of the counts (1-d without dim). Output
    /// fresh, contiguous, `self`'s dtype.
    ///
    /// Errors: IndexError `Dimension out of range (…)` (an integer `repeats` wraps `dim`
    /// against `self.dim()` then unsqueezes `dim + 1`); RuntimeError `Repeats must be
    /// non-negative`; IndexError `Dimension specified as -1 but tensor has no dimensions`;
    /// RuntimeError `repeats must have the same size as input along dim, but got
    /// repeats.size(0) = 2 and input.size(-1) = 3`; `repeats must be 0-dim or 1-dim tensor`;
    /// `allocated size does not match required size` (an `output_size` other than the sum;
    /// ignored for an integer `repeats`); and those of [`repeat_interleave`].
    pub fn repeat_interleave_with<'a>(
        &self,
        repeats: impl Into<Repeats<'a>>,
        opts: impl Into<RepeatInterleaveOpts>,
    ) -> Result<Tensor> {
        let opts = opts.into();
        let input = match opts.dim {
            Some(_) => self.alias(),
            None => self.flatten()?,
        };
        match repeats.into() {
            Repeats::Int(r) => {
                let d = wrap_dim(opts.dim.unwrap_or(0), self.dim())?;
                input.unsqueeze(d as i64 + 1)?;
                if r < 0 {
                    return Err(Error::runtime("Repeats must be non-negative"));
                }
                let n = input.size()[d];
                let len = n.checked_mul(r as usize).ok_or_else(overflow)?;
                let mut out_sizes = input.size().to_vec();
                out_sizes[d] = len;
                reserve_output(&out_sizes, input.dtype())?;
                if input.requires_grad() {
                    // PyTorch's composite, whose nodes the gradient flows through:
                    // `unsqueeze(d + 1).expand(…).clone().view(…)` (ViewBackward0 on
                    // CloneBackward0 on ExpandBackward0 on UnsqueezeBackward0)
                    let mut wide = input.size().to_vec();
                    wide.insert(d + 1, r as usize);
                    let wide: Vec<i64> = wide.iter().map(|&v| v as i64).collect();
                    let sizes: Vec<i64> = out_sizes.iter().map(|&v| v as i64).collect();
                    return input
                        .unsqueeze(d as i64 + 1)?
                        .expand(&wide[..])?
                        .try_clone()?
                        .view(&sizes[..]);
                }
                // the same values and contiguous layout, moved by the copy engine
                let mut maps = identity_maps(&input)?;
                maps[d] = axis_map(len, |j| j / r as usize)?;
                gather_axes(&input, &maps)
            }
            Repeats::Tensor(rep) => {
                let d = opts.dim.unwrap_or(0);
                let size = input.size_of(d)?;
                let reps = if rep.dim() == 0 || (rep.dim() == 1 && rep.size()[0] == 1) {
                    rep.reshape(1)?.expand(size)?
                } else if rep.dim() == 1 {
                    if rep.size()[0] != size {
                        return Err(Error::runtime(format!(
                            "repeats must have the same size as input along dim, but got repeats.size(0) = {} and input.size({d}) = {size}",
                            rep.size()[0]
                        )));
                    }
                    rep.alias()
                } else {
                    return Err(Error::runtime("repeats must be 0-dim or 1-dim tensor"));
                };
                let idx = repeat_interleave_counts(&reps, opts.output_size)?;
                input.index_select(d, &idx)
            }
        }
    }

    /// `torch.tril(self)`: `tril_with(0)`.
    pub fn tril(&self) -> Result<Tensor> {
        self.tril_with(0)
    }

    /// `torch.triu(self)`: `triu_with(0)`.
    pub fn triu(&self) -> Result<Tensor> {
        self.triu_with(0)
    }

    /// `self.tril_()`: `tril_with_(0)`.
    pub fn tril_(&self) -> Result<Tensor> {
        self.tril_with_(0)
    }

    /// `self.triu_()`: `triu_with_(0)`.
    pub fn triu_(&self) -> Result<Tensor> {
        self.triu_with_(0)
    }

    /// `torch.tensor_split(self, indices_or_sections)` along dim 0; see
    /// [`Tensor::tensor_split_with`].
    pub fn tensor_split<'a>(
        &self,
        indices_or_sections: impl Into<TensorSplitArg<'a>>,
    ) -> Result<Vec<Tensor>> {
        self.tensor_split_with(indices_or_sections, 0)
    }

    /// `torch.tensor_split(self, indices_or_sections, dim)`: views along `dim`. An integer
    /// `n` gives `n` pieces, the first `size % n` one element longer (`(5,)` by 3 → 2, 2, 1);
    /// a list of indices `[i, j]` gives `self[:i]`, `self[i:j]`, `self[j:]` with Python slice
    /// rules (negative indices count from the end, out-of-range ones clamp, a decreasing one
    /// gives an empty piece); an int64 tensor stands for either (0-d: sections, 1-d:
    /// indices).
    ///
    /// Errors (RuntimeError): `tensor_split expected at least a 1-dimensional tensor, but got a
    /// tensor with 0 dims`; `number of sections must be larger than 0, got 0`;
    /// `tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float`;
    /// `tensor_split expected tensor_indices_or_sections to be a zero-dimensional or
    /// one-dimensional tensor, but got a tensor with 2 dims`; IndexError `Dimension out of
    /// range (…)`.
    pub fn tensor_split_with<'a>(
        &self,
        indices_or_sections: impl Into<TensorSplitArg<'a>>,
        dim: impl Int,
    ) -> Result<Vec<Tensor>> {
        let dim = dim.to_i64();
        if self.dim() == 0 {
            return Err(Error::runtime(format!(
                "tensor_split expected at least a 1-dimensional tensor, but got a tensor with {} dims",
                self.dim()
            )));
        }
        match indices_or_sections.into() {
            TensorSplitArg::Sections(n) => {
                if n <= 0 {
                    return Err(Error::runtime(format!(
                        "number of sections must be larger than 0, got {n}"
                    )));
                }
                let d = wrap_dim(dim, self.dim())?;
                let n = usize::try_from(n).map_err(|_| overflow())?;
                // PyTorch's std::vector<Tensor> of n entries (8 bytes each)
                if n > isize::MAX as usize / 8 {
                    return Err(Error::runtime(
                        "cannot create std::vector larger than max_size()",
                    ));
                }
                let mut out = crate::error::try_vec(n)?;
                for (s, e) in section_bounds(self.size()[d], n) {
                    out.push(self.narrow(d as i64, s as i64, (e - s) as i64)?);
                }
                Ok(out)
            }
            TensorSplitArg::Indices(idx) => {
                let d = wrap_dim(dim, self.dim())? as i64;
                let mut out = Vec::with_capacity(idx.len() + 1);
                let mut start = 0i64;
                for &end in &idx {
                    out.push(self.slice(d, Some(start), Some(end), 1)?);
                    start = end;
                }
                out.push(self.slice(d, Some(start), Some(self.size()[d as usize] as i64), 1)?);
                Ok(out)
            }
            TensorSplitArg::Tensor(t) => {
                if t.dtype() != crate::DType::Int64 {
                    return Err(Error::runtime(format!(
                        "tensor_split expected tensor_indices_or_sections to have dtype of long, but got {}",
                        t.dtype().scalar_type_name()
                    )));
                }
                match t.dim() {
                    0 => self.tensor_split_with(t.item::<i64>()?, dim),
                    1 => self.tensor_split_with(t.try_to_vec::<i64>()?, dim),
                    n => Err(Error::runtime(format!(
                        "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a tensor with {n} dims"
                    ))),
                }
            }
        }
    }

    /// `torch.hsplit(self, indices_or_sections)`: [`Tensor::tensor_split_with`] along dim 1
    /// (dim 0 for a 1-d tensor); sections must divide that dim.
    ///
    /// Errors (RuntimeError): `torch.hsplit requires a tensor with at least 1 dimension, but
    /// got a tensor with 0 dimensions!`; `torch.hsplit attempted to split along dimension 1,
    /// but the size of the dimension 3 is not divisible by the split_size 4!`.
    pub fn hsplit<'a>(
        &self,
        indices_or_sections: impl Into<TensorSplitArg<'a>>,
    ) -> Result<Vec<Tensor>> {
        let dim = if self.dim() == 1 { 0 } else { 1 };
        self.dir_split("hsplit", 1, dim, indices_or_sections.into())
    }

    /// `torch.vsplit(self, indices_or_sections)`: split along dim 0 of an at least 2-d tensor;
    /// as [`Tensor::hsplit`] (`torch.vsplit requires a tensor with at least 2 dimension, …`).
    pub fn vsplit<'a>(
        &self,
        indices_or_sections: impl Into<TensorSplitArg<'a>>,
    ) -> Result<Vec<Tensor>> {
        self.dir_split("vsplit", 2, 0, indices_or_sections.into())
    }

    /// `torch.dsplit(self, indices_or_sections)`: split along dim 2 of an at least 3-d tensor;
    /// as [`Tensor::hsplit`] (`torch.dsplit requires a tensor with at least 3 dimension, …`).
    pub fn dsplit<'a>(
        &self,
        indices_or_sections: impl Into<TensorSplitArg<'a>>,
    ) -> Result<Vec<Tensor>> {
        self.dir_split("dsplit", 3, 2, indices_or_sections.into())
    }

    fn dir_split(
        &self,
        name: &str,
        min: usize,
        dim: usize,
        arg: TensorSplitArg<'_>,
    ) -> Result<Vec<Tensor>> {
        if self.dim() < min {
            return Err(Error::runtime(format!(
                "torch.{name} requires a tensor with at least {min} dimension, but got a tensor with {} dimensions!",
                self.dim()
            )));
        }
        if let TensorSplitArg::Sections(n) = arg {
            let size = self.size()[dim] as i64;
            if n == 0 || size % n != 0 {
                return Err(Error::runtime(format!(
                    "torch.{name} attempted to split along dimension {dim}, but the size of the dimension {size} is not divisible by the split_size {n}!"
                )));
            }
        }
        self.tensor_split_with(arg, dim)
    }

    /// `torch.swapaxes(self, axis0, axis1)`: [`Tensor::transpose`] (a view).
    pub fn swapaxes(&self, axis0: impl Int, axis1: impl Int) -> Result<Tensor> {
        self.transpose(axis0, axis1)
    }

    /// `torch.swapdims(self, dim0, dim1)`: [`Tensor::transpose`] (a view).
    pub fn swapdims(&self, dim0: impl Int, dim1: impl Int) -> Result<Tensor> {
        self.transpose(dim0, dim1)
    }

    /// `torch.atleast_1d(self)`: a 0-d tensor viewed as `(1,)`, any other `self` itself (a
    /// view either way).
    pub fn atleast_1d(&self) -> Result<Tensor> {
        match self.dim() {
            0 => self.reshape([1]),
            _ => Ok(self.alias()),
        }
    }

    /// `torch.atleast_2d(self)`: 0-d → `(1, 1)`, 1-d `(n,)` → `(1, n)`, else `self` (views).
    pub fn atleast_2d(&self) -> Result<Tensor> {
        match self.dim() {
            0 => self.reshape([1, 1]),
            1 => self.unsqueeze(0),
            _ => Ok(self.alias()),
        }
    }

    /// `torch.atleast_3d(self)`: 0-d → `(1, 1, 1)`, `(n,)` → `(1, n, 1)`, `(m, n)` →
    /// `(m, n, 1)`, else `self` (views).
    pub fn atleast_3d(&self) -> Result<Tensor> {
        match self.dim() {
            0 => self.reshape([1, 1, 1]),
            1 => self.unsqueeze(0)?.unsqueeze(-1),
            2 => self.unsqueeze(-1),
            _ => Ok(self.alias()),
        }
    }

    /// `torch.diag(self)`: `diag_with(0)`.
    pub fn diag(&self) -> Result<Tensor> {
        self.diag_with(0)
    }

    /// `torch.diag_embed(self)`: `diag_embed_with((0, -2, -1))`.
    pub fn diag_embed(&self) -> Result<Tensor> {
        self.diag_embed_with(DiagEmbedOpts::default())
    }

    /// `torch.diagflat(self)`: `diagflat_with(0)`.
    pub fn diagflat(&self) -> Result<Tensor> {
        self.diagflat_with(0)
    }

    /// `torch.diagflat(self, offset)`: [`Tensor::diag_with`] of the flattened `self`: an
    /// `(n+|offset|)`-square matrix.
    pub fn diagflat_with(&self, offset: impl Int) -> Result<Tensor> {
        self.try_contiguous()?.view(-1)?.diag_with(offset)
    }
}

/// The tensor-only `torch.repeat_interleave(repeats)`: `[0]*r0 + [1]*r1 + …`, the dtype of
/// `repeats`. An `output_size` must equal the sum (`allocated size does not match required
/// size`); with it, negative counts are not checked (they count as 0).
fn repeat_interleave_counts(repeats: &Tensor, output_size: Option<i64>) -> Result<Tensor> {
    if repeats.dim() != 1 {
        return Err(Error::runtime(
            "repeat_interleave only accept 1D vector as repeat",
        ));
    }
    if !matches!(repeats.dtype(), crate::DType::Int64 | crate::DType::Int32) {
        return Err(Error::runtime("repeats has to be Long or Int tensor"));
    }
    let counts = repeats.try_to_vec::<i64>()?;
    if counts.is_empty() {
        return Tensor::try_alloc_contiguous(&[0], repeats.dtype());
    }
    if output_size.is_none() && counts.iter().any(|&c| c < 0) {
        return Err(Error::runtime("repeats can not be negative"));
    }
    // Summed (in i128) before anything is allocated: counts near 2^62 grew the list until
    // the allocator aborted; a sum past int64 is refused as PyTorch's wrapped int64 total is.
    let total: i128 = counts.iter().map(|&c| c.max(0) as i128).sum();
    if output_size.is_some_and(|n| n as i128 != total) {
        return Err(Error::runtime(
            "allocated size does not match required size",
        ));
    }
    if total > i64::MAX as i128 {
        return Err(if total < 1i128 << 64 {
            let wrapped = total as u64 as i64;
            Error::runtime(format!(
                "Trying to create tensor with negative dimension {wrapped}: [{wrapped}]"
            ))
        } else {
            Error::runtime(format!(
                "repeat_interleave: the sum of repeats ({total}) overflows int64"
            ))
        });
    }
    let n = total as usize;
    let mut out: Vec<i64> = crate::error::try_vec(n)?;
    for (i, &c) in counts.iter().enumerate() {
        out.extend(std::iter::repeat_n(i as i64, c.max(0) as usize));
    }
    Tensor::from_vec(out, [n])?.to(repeats.dtype())
}

/// `torch.repeat_interleave(repeats)`: for a 1-d int64/int32 `repeats`, the indices
/// `[0]*repeats[0] + [1]*repeats[1] + …` (1-d, `repeats`' dtype).
///
/// Errors (RuntimeError): `repeat_interleave only accept 1D vector as repeat`; `repeats has to
/// be Long or Int tensor`; `repeats can not be negative`; `Trying to create tensor with
/// negative dimension -9223372036854775808: [-9223372036854775808]` (a sum in
/// `[2^63, 2^64)`, PyTorch's wrapped int64 total); `repeat_interleave: the sum of repeats
/// (18446744073709551616) overflows int64`; the allocator's error for a sum too large to hold.
pub fn repeat_interleave(repeats: &Tensor) -> Result<Tensor> {
    repeat_interleave_counts(repeats, None)
}

fn refs<T: AsRef<Tensor>>(ts: &[T]) -> Vec<&Tensor> {
    ts.iter().map(|t| t.as_ref()).collect()
}

/// `torch.atleast_1d(*tensors)` for a list: [`Tensor::atleast_1d`] of each.
pub fn atleast_1d<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Vec<Tensor>> {
    tensors.iter().map(|t| t.as_ref().atleast_1d()).collect()
}
/// `torch.atleast_2d(*tensors)` for a list: [`Tensor::atleast_2d`] of each.
pub fn atleast_2d<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Vec<Tensor>> {
    tensors.iter().map(|t| t.as_ref().atleast_2d()).collect()
}
/// `torch.atleast_3d(*tensors)` for a list: [`Tensor::atleast_3d`] of each.
pub fn atleast_3d<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Vec<Tensor>> {
    tensors.iter().map(|t| t.as_ref().atleast_3d()).collect()
}

fn non_empty(name: &str, n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::runtime(format!(
            "{name} expects a non-empty TensorList"
        )));
    }
    Ok(())
}

/// `torch.hstack(tensors)`: [`atleast_1d`] of each, then `cat` along dim 1 (dim 0 when the
/// first is 1-d). dtype promoted as `cat`. Errors: `hstack expects a non-empty TensorList`
/// and `cat`'s.
pub fn hstack<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Tensor> {
    non_empty("hstack", tensors.len())?;
    let rep = atleast_1d(tensors)?;
    let dim = if rep[0].dim() == 1 { 0 } else { 1 };
    crate::cat_with(&rep, dim)
}

/// `torch.vstack(tensors)`: [`atleast_2d`] of each, then `cat` along dim 0. Errors: `vstack
/// expects a non-empty TensorList` and `cat`'s.
pub fn vstack<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Tensor> {
    non_empty("vstack", tensors.len())?;
    crate::cat_with(&atleast_2d(tensors)?, 0)
}

/// `torch.dstack(tensors)`: [`atleast_3d`] of each, then `cat` along dim 2. Errors: `dstack
/// expects a non-empty TensorList` and `cat`'s.
pub fn dstack<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Tensor> {
    non_empty("dstack", tensors.len())?;
    crate::cat_with(&atleast_3d(tensors)?, 2)
}

/// `torch.column_stack(tensors)`: 0-d and 1-d tensors become columns `(n, 1)`, then `cat`
/// along dim 1. Errors: `column_stack expects a non-empty TensorList` and `cat`'s.
pub fn column_stack<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Tensor> {
    non_empty("column_stack", tensors.len())?;
    let cols: Vec<Tensor> = refs(tensors)
        .into_iter()
        .map(|t| {
            if t.dim() <= 1 {
                t.reshape([t.numel(), 1])
            } else {
                Ok(t.alias())
            }
        })
        .collect::<Result<_>>()?;
    crate::cat_with(&cols, 1)
}

/// `torch.cartesian_prod(*tensors)`: for 1-d tensors of sizes `n1..nk`, the `(n1*…*nk, k)`
/// matrix of every tuple in lexicographic order (`meshgrid` + `stack`); one tensor is
/// returned as it is (the same tensor).
///
/// Errors (RuntimeError): `Expect a 1D vector, but got shape [2, 2]`; `meshgrid expects all
/// tensors to have the same dtype`.
pub fn cartesian_prod<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Tensor> {
    let ts = refs(tensors);
    for t in &ts {
        if t.dim() != 1 {
            return Err(Error::runtime(format!(
                "Expect a 1D vector, but got shape {}",
                fmt_list(t.size())
            )));
        }
    }
    if ts.len() == 1 {
        return Ok(ts[0].alias());
    }
    let grids = crate::ops::creation::meshgrid_with(&ts, "ij")?;
    let flat: Vec<Tensor> = grids.iter().map(|g| g.flatten()).collect::<Result<_>>()?;
    crate::stack_with(&flat, 1)
}

/// `torch.combinations(input)`: `combinations_with(input, (2, false))`.
pub fn combinations(input: &Tensor) -> Result<Tensor> {
    combinations_with(input, CombinationsOpts::default())
}

/// `torch.combinations(input, r, with_replacement)`: every length-`r` combination of the
/// elements of the 1-d `input`, as rows of an `(count, r)` tensor in lexicographic order of
/// positions (`r = 0` gives an empty `(0,)`). Fresh, contiguous, `input`'s dtype. Autograd:
/// `IndexBackward0` (`input` indexed by the combinations' positions).
///
/// Errors (RuntimeError): `Expect a 1D vector, but got shape [2, 2]`; `Expect a non-negative
/// number, but got -1`.
pub fn combinations_with(input: &Tensor, opts: impl Into<CombinationsOpts>) -> Result<Tensor> {
    let o = opts.into();
    if input.dim() != 1 {
        return Err(Error::runtime(format!(
            "Expect a 1D vector, but got shape {}",
            fmt_list(input.size())
        )));
    }
    if o.r < 0 {
        return Err(Error::runtime(format!(
            "Expect a non-negative number, but got {}",
            o.r
        )));
    }
    if o.r == 0 {
        return Tensor::try_alloc_contiguous(&[0], input.dtype());
    }
    let r = o.r as usize;
    let combos = combination_indices(input.numel(), r, o.with_replacement);
    let idx: Vec<i64> = combos.iter().flatten().map(|&i| i as i64).collect();
    // `input[indices]` with a `(count, r)` index, as PyTorch's composite ends (`IndexBackward0`)
    let index = Tensor::from_vec(idx, [combos.len(), r])?;
    input.index(&[crate::TensorIndex::Tensor(index)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roll_start_wraps_both_ways() {
        assert_eq!(roll_start(4, 1), 3);
        assert_eq!(roll_start(4, -1), 1);
        assert_eq!(roll_start(4, 9), 3);
        assert_eq!(roll_start(3, -7), 1);
    }

    #[test]
    fn sections_give_longer_pieces_first() {
        assert_eq!(
            section_bounds(5, 3).collect::<Vec<_>>(),
            vec![(0, 2), (2, 4), (4, 5)]
        );
        assert_eq!(
            section_bounds(2, 4).collect::<Vec<_>>(),
            vec![(0, 1), (1, 2), (2, 2), (2, 2)]
        );
    }

    #[test]
    fn combinations_are_lexicographic() {
        assert_eq!(
            combination_indices(3, 2, false),
            vec![vec![0, 1], vec![0, 2], vec![1, 2]]
        );
        assert_eq!(combination_indices(2, 2, true).len(), 3);
    }

    #[test]
    fn flip_keeps_the_input_layout() {
        let x = Tensor::from_vec((0..6i64).collect::<Vec<_>>(), [2, 3]).unwrap();
        let f = x.t().unwrap().flip(0).unwrap();
        assert_eq!(f.stride(), &[1, 3]);
        assert_eq!(f.to_vec::<i64>(), vec![2, 5, 1, 4, 0, 3]);
    }
}
