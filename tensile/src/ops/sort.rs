//! Sorting and searching: `sort`, `argsort`, `msort`, `topk`, `kthvalue`, `median`,
//! `nanmedian`, `unique`, `unique_consecutive`, `searchsorted`, `bucketize`, `isin`.
//!
//! Every op works on *lanes*: the slices of the input along one dim, gathered row by row in
//! the input's element type (the dim moved last, row-major over the other dims), so values are
//! never converted. Orders are PyTorch's: ascending with NaN the largest value, `-0.0 == 0.0`;
//! sorts are stable (equal values keep their input order, also when descending); where
//! PyTorch leaves the index of tied values unspecified (`topk`, `kthvalue`, `median` with a
//! dim) the lowest index among the tied values wins, which is what a stable sort gives.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::args::Int;
use crate::dim::{wrap_dim, wrap_dim_no_scalar};
use crate::dtype::{DType, result_type};
use crate::element::Element;
use crate::error::{Error, Result, fmt_list};
use crate::kernels::par;
use crate::layout::{contiguous_strides, preserve_format_strides};
use crate::ops::Operand;
use crate::tensor::{Scalar, Tensor};

// ---------------------------------------------------------------------------- order and lanes

/// PyTorch's sort order, a total order: ascending, NaN above everything (all NaNs equal),
/// `-0.0 == 0.0`.
#[inline]
pub(crate) fn nan_last_cmp<T: Element>(a: &T, b: &T) -> Ordering {
    match a.partial_cmp(b) {
        Some(o) => o,
        None => is_nan(*a).cmp(&is_nan(*b)),
    }
}

/// `x != x`, without the self-comparison lint.
#[inline]
fn is_nan<T: Element>(x: T) -> bool {
    x.partial_cmp(&x).is_none()
}

/// The order `(value, index)` pairs are selected in: by value (NaN last, or first when
/// `descending`), then by index, so that ties go to the lowest index.
#[inline]
fn pair_cmp<T: Element>(descending: bool) -> impl Fn(&(T, i64), &(T, i64)) -> Ordering + Copy {
    move |a, b| {
        let o = if descending {
            nan_last_cmp(&b.0, &a.0)
        } else {
            nan_last_cmp(&a.0, &b.0)
        };
        o.then(a.1.cmp(&b.1))
    }
}

/// The lanes of `t` along (wrapped) dim `d`, in `T` (the input's element type): all values
/// with dim `d` moved last, row-major, and the lane length. A 0-d tensor is one lane of one.
fn lanes<T: Element>(t: &Tensor, d: usize) -> Result<(Vec<T>, usize)> {
    if t.dim() == 0 {
        return Ok((t.try_to_vec::<T>()?, 1));
    }
    Ok((t.movedim(d as i64, -1)?.try_to_vec::<T>()?, t.size()[d]))
}

/// A fresh tensor of `sizes` with `strides` holding `vals`, given in lane order (dim `d` last,
/// row-major over the other dims), as [`lanes`] returns them.
fn from_lanes<T: Element>(
    vals: Vec<T>,
    sizes: &[usize],
    strides: &[usize],
    d: usize,
) -> Result<Tensor> {
    let out = Tensor::try_alloc(sizes, strides, T::DTYPE)?;
    let src = if sizes.is_empty() {
        Tensor::from_vec(vals, ())?
    } else {
        let mut moved = sizes.to_vec();
        let n = moved.remove(d);
        moved.push(n);
        Tensor::from_vec(vals, moved)?.movedim(-1, d as i64)?
    };
    crate::ops::copy::copy_unchecked(&out, &src);
    Ok(out)
}

/// Runs `f` on every lane (`vals` and `idx` cut in lanes of `n`), on the intra-op pool when
/// there is work for more than one task (of at least 2^14 elements).
fn for_lanes<T: Element, I: Send>(
    vals: &mut [T],
    idx: &mut [I],
    n: usize,
    f: impl Fn(&mut [T], &mut [I]) + Sync + Send,
) {
    if vals.is_empty() || n == 0 {
        return;
    }
    let per_task = (1usize << 14).div_ceil(n).max(1);
    if vals.len() / n >= 2 * per_task && par::threads() > 1 {
        par::run(|| {
            vals.par_chunks_mut(n)
                .zip(idx.par_chunks_mut(n))
                .with_min_len(per_task)
                .for_each(|(v, i)| f(v, i))
        });
    } else {
        vals.chunks_mut(n)
            .zip(idx.chunks_mut(n))
            .for_each(|(v, i)| f(v, i));
    }
}

/// The shape of a reduction over dim `d` (`keepdim` keeps it as size 1); a 0-d input gives 0-d.
fn reduced_shape(sizes: &[usize], d: usize, keepdim: bool) -> Vec<usize> {
    let mut s = sizes.to_vec();
    if !s.is_empty() {
        if keepdim {
            s[d] = 1;
        } else {
            s.remove(d);
        }
    }
    s
}

/// PyTorch's `zero_numel_check_dims`: the reduced dim must not be empty.
fn zero_numel_check(t: &Tensor, d: usize, name: &str) -> Result<()> {
    if t.dim() > 0 && t.size()[d] == 0 {
        return Err(Error::index(format!(
            "{name}: Expected reduction dim {d} to have non-zero size."
        )));
    }
    Ok(())
}

/// `"NAME" not implemented for 'Bool'` (NotImplementedError) for a bool input.
fn refuse_bool(t: &Tensor, name: &str) -> Result<()> {
    if t.dtype() == DType::Bool {
        return Err(Error::not_implemented(format!(
            "\"{name}\" not implemented for 'Bool'"
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------- sort, topk, …

/// `sort(self, dim, descending, stable)`: values and int64 indices, laid out like `self`
/// (its strides when non-overlapping and dense, else dense strides in its dim order).
pub(crate) fn sort_impl(t: &Tensor, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, t.dim())?;
    let strides = preserve_format_strides(t.size(), t.stride());
    crate::dispatch!(t.dtype(), T => {
        let (mut vals, n) = lanes::<T>(t, d)?;
        let mut idx = vec![0i64; vals.len()];
        for_lanes(&mut vals, &mut idx, n, |v, ix| sort_lane(v, ix, descending));
        Ok((
            from_lanes(vals, t.size(), &strides, d)?,
            from_lanes(idx, t.size(), &strides, d)?,
        ))
    })
}

/// Sorts one lane stably (equal values keep their order, also when descending), writing the
/// sorted values back and their original positions into `idx`.
fn sort_lane<T: Element>(v: &mut [T], idx: &mut [i64], descending: bool) {
    let mut pairs: Vec<(T, i64)> = v.iter().enumerate().map(|(i, &x)| (x, i as i64)).collect();
    let cmp = |a: &(T, i64), b: &(T, i64)| {
        if descending {
            nan_last_cmp(&b.0, &a.0)
        } else {
            nan_last_cmp(&a.0, &b.0)
        }
    };
    if pairs.len() >= 1 << 16 && par::threads() > 1 {
        par::run(|| pairs.par_sort_by(cmp));
    } else {
        pairs.sort_by(cmp);
    }
    for ((x, i), (pv, pi)) in v.iter_mut().zip(idx.iter_mut()).zip(pairs) {
        *x = pv;
        *i = pi;
    }
}

/// `topk`: the `k` largest (or smallest) of every lane, in order, without sorting the lane:
/// a selection, then a sort of the `k` selected.
pub(crate) fn topk_impl(t: &Tensor, k: i64, dim: i64, largest: bool) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, t.dim())?;
    let slice = if t.dim() == 0 { 1 } else { t.size()[d] };
    if k < 0 || k as usize > slice {
        return Err(Error::runtime("selected index k out of range"));
    }
    let k = k as usize;
    let mut out_sizes = t.size().to_vec();
    if t.dim() > 0 {
        out_sizes[d] = k;
    }
    let strides = contiguous_strides(&out_sizes);
    if t.dim() == 0 {
        // a 0-d input is copied whatever k (0 or 1) is, its index 0
        return Ok((
            crate::ops::copy::copy_with_strides(t, &[], t.dtype())?,
            Tensor::from_vec(vec![0i64], ())?,
        ));
    }
    if t.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "topk does not support bool dtypes on CPU",
        ));
    }
    crate::dispatch!(t.dtype(), T => {
        let lane_out = |vals: &[T], n: usize| -> (Vec<T>, Vec<i64>) {
            let rows = vals.len().checked_div(n).unwrap_or(0);
            let mut ov: Vec<T> = vec![T::zero(); rows * k];
            let mut oi: Vec<i64> = vec![0; rows * k];
            if k > 0 {
                let one = |(r, (v, i)): (usize, (&mut [T], &mut [i64]))| {
                    topk_lane(&vals[r * n..(r + 1) * n], largest, v, i)
                };
                if rows >= 2 && rows * n >= 1 << 16 && par::threads() > 1 {
                    par::run(|| {
                        ov.par_chunks_mut(k)
                            .zip(oi.par_chunks_mut(k))
                            .enumerate()
                            .for_each(one)
                    });
                } else {
                    ov.chunks_mut(k).zip(oi.chunks_mut(k)).enumerate().for_each(one);
                }
            }
            (ov, oi)
        };
        let (ov, oi) = if d + 1 == t.dim() && t.is_contiguous() {
            // the lanes are the rows of the input itself
            crate::iter::dense(&[], &[t], |s| Ok(lane_out(s.input::<T>(0)?, slice)))?
        } else {
            let (vals, n) = lanes::<T>(t, d)?;
            lane_out(&vals, n)
        };
        Ok((
            from_lanes(ov, &out_sizes, &strides, d)?,
            from_lanes(oi, &out_sizes, &strides, d)?,
        ))
    })
}

/// The `k = ov.len()` first `(value, index)` pairs of `lane` in [`pair_cmp`] order
/// (`largest`: descending), into `ov` and `oi`, in that order. A selection: pairs better
/// than the current k-th best are collected (a branch-free test per 16 values skips the
/// rest), the collection cut back to the best `k` whenever it fills, then sorted. A later
/// value equal to the k-th best loses the tie (higher index), so the test is strict.
fn topk_lane<T: Element>(lane: &[T], largest: bool, ov: &mut [T], oi: &mut [i64]) {
    let (n, k) = (lane.len(), ov.len());
    let cmp = pair_cmp::<T>(largest);
    let mut buf: Vec<(T, i64)> = Vec::new();
    if k * 8 >= n {
        buf.extend(lane.iter().enumerate().map(|(i, &x)| (x, i as i64)));
        if k < n {
            buf.select_nth_unstable_by(k - 1, cmp);
            buf.truncate(k);
        }
    } else {
        let cap = (4 * k).max(256);
        buf.reserve(cap);
        buf.extend(lane[..k].iter().enumerate().map(|(i, &x)| (x, i as i64)));
        let worst = |b: &[(T, i64)]| *b.iter().max_by(|a, b| cmp(a, b)).unwrap_or(&b[0]);
        let mut thr = worst(&buf);
        // may `x` beat `thr`? (true also for a NaN on either side, decided exactly below)
        let maybe = |x: T, t: T| if largest { !x.le(&t) } else { !x.ge(&t) };
        let mut i = k;
        while i < n {
            let end = (i + 16).min(n);
            let c = &lane[i..end];
            let t = thr.0;
            if c.iter().fold(false, |a, &x| a | maybe(x, t)) {
                for (j, &x) in c.iter().enumerate() {
                    let p = (x, (i + j) as i64);
                    if maybe(x, t) && cmp(&p, &thr) == Ordering::Less {
                        buf.push(p);
                        if buf.len() == cap {
                            buf.select_nth_unstable_by(k - 1, cmp);
                            buf.truncate(k);
                            thr = buf[k - 1];
                        }
                    }
                }
            }
            i = end;
        }
        if buf.len() > k {
            buf.select_nth_unstable_by(k - 1, cmp);
            buf.truncate(k);
        }
    }
    buf.sort_unstable_by(cmp);
    for ((x, i), (v, ix)) in buf.into_iter().zip(ov.iter_mut().zip(oi.iter_mut())) {
        *v = x;
        *ix = i;
    }
}

/// The `(value, index)` at position `k` (0-based) of a lane in [`pair_cmp`] order.
fn select_lane<T: Element>(lane: &[T], k: usize) -> (T, i64) {
    let mut pairs: Vec<(T, i64)> = lane
        .iter()
        .enumerate()
        .map(|(i, &x)| (x, i as i64))
        .collect();
    let (_, kth, _) = pairs.select_nth_unstable_by(k, pair_cmp::<T>(false));
    *kth
}

/// A reduction along `d` that picks one `(value, index)` per lane; results are contiguous
/// in the reduced (or kept) shape.
fn pick_per_lane(
    t: &Tensor,
    d: usize,
    keepdim: bool,
    pick: impl Fn(usize) -> PickRule,
) -> Result<(Tensor, Tensor)> {
    let shape = reduced_shape(t.size(), d, keepdim);
    crate::dispatch!(t.dtype(), T => {
        let (vals, n) = lanes::<T>(t, d)?;
        let rows = vals.len().checked_div(n).unwrap_or(0);
        let mut ov: Vec<T> = Vec::with_capacity(rows);
        let mut oi: Vec<i64> = Vec::with_capacity(rows);
        for lane in vals.chunks(n.max(1)).take(rows) {
            let (x, i) = match pick(n) {
                PickRule::Kth(k) => select_lane(lane, k),
                PickRule::Median { ignore_nan } => median_lane(lane, ignore_nan),
            };
            ov.push(x);
            oi.push(i);
        }
        Ok((Tensor::from_vec(ov, shape.clone())?, Tensor::from_vec(oi, shape)?))
    })
}

/// What [`pick_per_lane`] takes from each lane.
enum PickRule {
    /// The k-th smallest (0-based).
    Kth(usize),
    /// The lower median; `median` returns the first NaN of a lane holding one, `nanmedian`
    /// the median of the lane's non-NaN values (a NaN when there are none).
    Median { ignore_nan: bool },
}

/// The median of one lane and its index (see [`PickRule::Median`]).
fn median_lane<T: Element>(lane: &[T], ignore_nan: bool) -> (T, i64) {
    if !ignore_nan && let Some(p) = lane.iter().position(|&x| is_nan(x)) {
        return (lane[p], p as i64);
    }
    let nans = if ignore_nan {
        lane.iter().filter(|&&x| is_nan(x)).count()
    } else {
        0
    };
    // C++'s truncating division: an all-NaN lane gives k = 0
    let k = (lane.len() as i64 - nans as i64 - 1) / 2;
    select_lane(lane, k.max(0) as usize)
}

/// `median()` / `nanmedian()` without a dim: the lower median of all elements, 0-d. An empty
/// input gives NaN cast to the dtype.
pub(crate) fn median_all(t: &Tensor, ignore_nan: bool) -> Result<Tensor> {
    if t.numel() == 0 {
        return Tensor::from_vec(vec![f64::NAN], ())?.to(t.dtype());
    }
    refuse_bool(t, "median_cpu")?;
    crate::dispatch!(t.dtype(), T => {
        let all = t.try_to_vec::<T>()?;
        let (x, _) = median_lane(&all, ignore_nan);
        Tensor::from_vec(vec![x], ())
    })
}

/// `median(dim)` / `nanmedian(dim)`: the lower median of every lane along `dim` and its
/// int64 index, checks in PyTorch's order.
pub(crate) fn median_dim_fwd(
    t: &Tensor,
    dim: i64,
    keepdim: bool,
    ignore_nan: bool,
) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, t.dim())?;
    zero_numel_check(t, d, "median()")?;
    refuse_bool(t, "median_out")?;
    pick_per_lane(t, d, keepdim, |_| PickRule::Median { ignore_nan })
}

/// `kthvalue(k, dim, keepdim)`: the k-th smallest value (1-based) of every lane along `dim`
/// and its int64 index, checks in PyTorch's order.
pub(crate) fn kthvalue_fwd(
    t: &Tensor,
    k: i64,
    dim: i64,
    keepdim: bool,
) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, t.dim())?;
    zero_numel_check(t, d, "kthvalue()")?;
    let slice = if t.dim() == 0 { 1 } else { t.size()[d] };
    if k < 1 || k as usize > slice {
        return Err(Error::runtime(format!(
            "kthvalue(): selected number k out of range for dimension {d}"
        )));
    }
    if t.dim() > 0 {
        refuse_bool(t, "kthvalue_cpu")?;
    }
    pick_per_lane(t, d, keepdim, |_| PickRule::Kth(k as usize - 1))
}

/// Optional arguments of `sort` and `argsort` (`dim=-1, descending=False, stable=None`): an
/// integer is `dim`, a pair `(dim, descending)`, a triple `(dim, descending, stable)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SortOpts {
    /// The dim to sort along (default -1).
    pub dim: i64,
    /// Largest first (default false).
    pub descending: bool,
    /// Keep equal values in order (PyTorch's `bool? stable`, default `None`; tensile's sort is
    /// always stable). Giving it (`Some`, either value) calls PyTorch's `sort.stable` overload,
    /// whose node is `SortBackward1` (`SortBackward0` without it).
    pub stable: Option<bool>,
}
impl Default for SortOpts {
    fn default() -> Self {
        SortOpts {
            dim: -1,
            descending: false,
            stable: None,
        }
    }
}
impl<T: Int> From<T> for SortOpts {
    fn from(dim: T) -> Self {
        SortOpts {
            dim: dim.to_i64(),
            ..Default::default()
        }
    }
}
impl<T: Int> From<(T, bool)> for SortOpts {
    fn from((dim, descending): (T, bool)) -> Self {
        SortOpts {
            dim: dim.to_i64(),
            descending,
            ..Default::default()
        }
    }
}
impl<T: Int> From<(T, bool, bool)> for SortOpts {
    fn from((dim, descending, stable): (T, bool, bool)) -> Self {
        SortOpts {
            dim: dim.to_i64(),
            descending,
            stable: Some(stable),
        }
    }
}

/// Optional arguments of `topk` (`dim=-1, largest=True, sorted=True`): an integer is `dim`,
/// a pair `(dim, largest)`, a triple `(dim, largest, sorted)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TopkOpts {
    /// The dim (default -1).
    pub dim: i64,
    /// The largest values (default true) or the smallest.
    pub largest: bool,
    /// Return them in order (default true; tensile always does).
    pub sorted: bool,
}
impl Default for TopkOpts {
    fn default() -> Self {
        TopkOpts {
            dim: -1,
            largest: true,
            sorted: true,
        }
    }
}
impl<T: Int> From<T> for TopkOpts {
    fn from(dim: T) -> Self {
        TopkOpts {
            dim: dim.to_i64(),
            ..Default::default()
        }
    }
}
impl<T: Int> From<(T, bool)> for TopkOpts {
    fn from((dim, largest): (T, bool)) -> Self {
        TopkOpts {
            dim: dim.to_i64(),
            largest,
            ..Default::default()
        }
    }
}
impl<T: Int> From<(T, bool, bool)> for TopkOpts {
    fn from((dim, largest, sorted): (T, bool, bool)) -> Self {
        TopkOpts {
            dim: dim.to_i64(),
            largest,
            sorted,
        }
    }
}

/// Optional arguments of `kthvalue` (`dim=-1, keepdim=False`): an integer is `dim`, a pair
/// `(dim, keepdim)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KthvalueOpts {
    /// The dim (default -1).
    pub dim: i64,
    /// Keep the reduced dim as size 1 (default false).
    pub keepdim: bool,
}
impl Default for KthvalueOpts {
    fn default() -> Self {
        KthvalueOpts {
            dim: -1,
            keepdim: false,
        }
    }
}
impl<T: Int> From<T> for KthvalueOpts {
    fn from(dim: T) -> Self {
        KthvalueOpts {
            dim: dim.to_i64(),
            keepdim: false,
        }
    }
}
impl<T: Int> From<(T, bool)> for KthvalueOpts {
    fn from((dim, keepdim): (T, bool)) -> Self {
        KthvalueOpts {
            dim: dim.to_i64(),
            keepdim,
        }
    }
}

// ---------------------------------------------------------------------------- unique

/// The outputs of `unique`/`unique_consecutive`: values, then `inverse` and `counts` when
/// asked for.
pub type UniqueOutput = (Tensor, Option<Tensor>, Option<Tensor>);

/// Groups of equal values: `order` lists element positions with equal values adjacent
/// (`==`: NaNs are never equal); returns `(first position of each group, group of each
/// element position, size of each group)`.
fn group<T: Element>(vals: &[T], order: &[usize]) -> (Vec<usize>, Vec<i64>, Vec<i64>) {
    let mut reps: Vec<usize> = Vec::new();
    let mut counts: Vec<i64> = Vec::new();
    let mut inverse = vec![0i64; vals.len()];
    for &p in order {
        match reps.last() {
            Some(&r) if vals[r] == vals[p] => *counts.last_mut().unwrap_or(&mut 0) += 1,
            _ => {
                reps.push(p);
                counts.push(1);
            }
        }
        inverse[p] = reps.len() as i64 - 1;
    }
    (reps, inverse, counts)
}

/// `unique`/`unique_consecutive` over all elements (`consecutive`: only runs of equal
/// neighbours merge; else values are sorted). Without `need_inverse` the inverse is empty.
///
/// Sorting sorts the values themselves (in parallel above 2^16 elements), not positions
/// through them: integers alone when no inverse is wanted (equal integers are identical),
/// else `(value, position)` pairs, stably, so that each group of equal values (`-0.0` and
/// `0.0`) is represented by its first element in input order.
fn unique_flat(
    t: &Tensor,
    consecutive: bool,
    need_inverse: bool,
) -> Result<(Tensor, Tensor, Tensor)> {
    crate::dispatch!(t.dtype(), T => {
        let mut vals = t.try_to_vec::<T>()?;
        let n = vals.len();
        let big = n >= 1 << 16 && par::threads() > 1;
        let cmp = |a: &T, b: &T| nan_last_cmp(a, b);
        let (out, inverse, counts) = if consecutive {
            let order: Vec<usize> = (0..n).collect();
            let (reps, inverse, counts) = group(&vals, &order);
            (reps.iter().map(|&r| vals[r]).collect::<Vec<T>>(), inverse, counts)
        } else if !need_inverse && !T::DTYPE.is_floating_point() {
            if big {
                par::run(|| vals.par_sort_unstable_by(cmp));
            } else {
                vals.sort_unstable_by(cmp);
            }
            let mut out: Vec<T> = Vec::new();
            let mut counts: Vec<i64> = Vec::new();
            for &v in &vals {
                match out.last() {
                    Some(&l) if l == v => *counts.last_mut().unwrap_or(&mut 0) += 1,
                    _ => {
                        out.push(v);
                        counts.push(1);
                    }
                }
            }
            (out, Vec::new(), counts)
        } else {
            let mut pairs: Vec<(T, usize)> = vals.iter().copied().zip(0..n).collect();
            let pc = |a: &(T, usize), b: &(T, usize)| nan_last_cmp(&a.0, &b.0);
            if big {
                par::run(|| pairs.par_sort_by(pc));
            } else {
                pairs.sort_by(pc);
            }
            let mut out: Vec<T> = Vec::new();
            let mut counts: Vec<i64> = Vec::new();
            let mut inverse = vec![0i64; if need_inverse { n } else { 0 }];
            for &(v, p) in &pairs {
                // `==`: NaNs are never equal, each is its own group
                match out.last() {
                    Some(&l) if l == v => *counts.last_mut().unwrap_or(&mut 0) += 1,
                    _ => {
                        out.push(v);
                        counts.push(1);
                    }
                }
                if need_inverse {
                    inverse[p] = out.len() as i64 - 1;
                }
            }
            (out, inverse, counts)
        };
        let u = out.len();
        let inverse = if need_inverse {
            Tensor::from_vec(inverse, t.size())?
        } else {
            Tensor::from_vec(inverse, [0])?
        };
        Ok((
            Tensor::from_vec(out, [u])?,
            inverse,
            Tensor::from_vec(counts, [u])?,
        ))
    })
}

/// `unique(dim=…)`/`unique_consecutive(dim=…)`: the distinct slices along `dim` (compared
/// as whole slices, lexicographically in row-major order when sorting). PyTorch's
/// `_unique_dim_cpu_template`: the result is the stacked slices with `dim` moved to the front,
/// moved back (a permuted view of a fresh tensor).
fn unique_dim(t: &Tensor, dim: i64, consecutive: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let d = wrap_dim_no_scalar(dim, t.dim())?;
    let sizes = t.size();
    let zero_dims = sizes.iter().filter(|&&s| s == 0).count();
    if sizes[d] == 0 {
        if zero_dims != 1 {
            return Err(Error::runtime(
                "Number of zero sized dimensions is more than one, so unique cannot be applied ",
            ));
        }
        let empty_long = || Tensor::from_vec(Vec::<i64>::new(), [0]);
        return Ok((
            Tensor::try_alloc_contiguous(sizes, t.dtype())?,
            empty_long()?,
            empty_long()?,
        ));
    }
    if zero_dims != 0 {
        return Err(Error::runtime(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied",
        ));
    }
    let moved = t.movedim(d as i64, 0)?;
    let n = sizes[d];
    crate::dispatch!(t.dtype(), T => {
        let vals = moved.try_to_vec::<T>()?;
        let w = vals.len() / n;
        let row = |i: usize| &vals[i * w..(i + 1) * w];
        let mut order: Vec<usize> = (0..n).collect();
        if !consecutive {
            order.sort_by(|&a, &b| {
                row(a)
                    .iter()
                    .zip(row(b))
                    .map(|(x, y)| nan_last_cmp(x, y))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            });
        }
        let mut reps: Vec<usize> = Vec::new();
        let mut counts: Vec<i64> = Vec::new();
        let mut inverse = vec![0i64; n];
        for &p in &order {
            match reps.last() {
                Some(&r) if row(r) == row(p) => *counts.last_mut().unwrap_or(&mut 0) += 1,
                _ => {
                    reps.push(p);
                    counts.push(1);
                }
            }
            inverse[p] = reps.len() as i64 - 1;
        }
        let u = reps.len();
        let mut out: Vec<T> = Vec::with_capacity(u * w);
        for &r in &reps {
            out.extend_from_slice(row(r));
        }
        let mut shape = moved.size().to_vec();
        shape[0] = u;
        Ok((
            Tensor::from_vec(out, shape)?.movedim(0, d as i64)?,
            Tensor::from_vec(inverse, [n])?,
            Tensor::from_vec(counts, [u])?,
        ))
    })
}

/// Keeps the outputs asked for.
fn unique_outputs(
    (v, inv, cnt): (Tensor, Tensor, Tensor),
    return_inverse: bool,
    return_counts: bool,
) -> UniqueOutput {
    (
        v,
        return_inverse.then_some(inv),
        return_counts.then_some(cnt),
    )
}

impl Tensor {
    /// `torch.unique(self)`: the sorted distinct values, 1-D; see [`Tensor::unique_with`].
    pub fn unique(&self) -> Result<Tensor> {
        Ok(self.unique_with(UniqueOpts::default())?.0)
    }

    /// `torch.unique(self, sorted, return_inverse, return_counts, dim)`: `(values, inverse,
    /// counts)`, `inverse` and `counts` present when asked for.
    ///
    /// Without `dim`: `values` the distinct elements in ascending order (1-D, `self`'s dtype;
    /// each NaN is distinct and sorts last), `inverse` the int64 position in `values` of every
    /// element (`self`'s shape, contiguous; 0-d for a 0-d input), `counts` the int64
    /// occurrences of each value. With `dim`: the distinct slices along `dim`, sorted
    /// lexicographically; `values` is `self`'s shape with `dim` resized, laid out as PyTorch's
    /// (the slices stacked along a leading dim, moved back to `dim`); `inverse` and `counts`
    /// are 1-D. Values are always sorted (`sorted=False` leaves the order to the implementation).
    ///
    /// Errors with `dim` (IndexError): `Dimension specified as 0 but tensor has no dimensions`;
    /// the dim error; (RuntimeError) `Number of zero sized dimensions is more than one, so
    /// unique cannot be applied ` and `There are 0 sized dimensions, and they aren't selected,
    /// so unique cannot be applied`.
    pub fn unique_with(&self, opts: impl Into<UniqueOpts>) -> Result<UniqueOutput> {
        let o = opts.into();
        let r = match o.dim {
            None => unique_flat(self, false, o.return_inverse)?,
            Some(d) => unique_dim(self, d, false)?,
        };
        Ok(unique_outputs(r, o.return_inverse, o.return_counts))
    }

    /// `torch.unique_consecutive(self)`: each run of equal neighbours (flattened) once, 1-D;
    /// see [`Tensor::unique_consecutive_with`].
    pub fn unique_consecutive(&self) -> Result<Tensor> {
        Ok(self
            .unique_consecutive_with(UniqueConsecutiveOpts::default())?
            .0)
    }

    /// `torch.unique_consecutive(self, return_inverse, return_counts, dim)`: as
    /// [`Tensor::unique_with`] without sorting: only runs of equal neighbouring elements (or
    /// slices along `dim`) merge. `dim = 0` on a 1-D input is the flat form. Same shapes,
    /// layouts and errors.
    pub fn unique_consecutive_with(
        &self,
        opts: impl Into<UniqueConsecutiveOpts>,
    ) -> Result<UniqueOutput> {
        let o = opts.into();
        let r = match o.dim {
            Some(d) if !(d == 0 && self.dim() == 1) => unique_dim(self, d, true)?,
            _ => unique_flat(self, true, true)?,
        };
        Ok(unique_outputs(r, o.return_inverse, o.return_counts))
    }
}

/// Optional arguments of `unique` (`sorted=True, return_inverse=False, return_counts=False,
/// dim=None`): a bool is `sorted`, tuples the leading ones in that order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UniqueOpts {
    /// Sort the values (default true; tensile always does).
    pub sorted: bool,
    /// Also return `inverse` (default false).
    pub return_inverse: bool,
    /// Also return `counts` (default false).
    pub return_counts: bool,
    /// Unique slices along this dim instead of unique elements (default `None`).
    pub dim: Option<i64>,
}
impl Default for UniqueOpts {
    fn default() -> Self {
        UniqueOpts {
            sorted: true,
            return_inverse: false,
            return_counts: false,
            dim: None,
        }
    }
}
impl From<bool> for UniqueOpts {
    fn from(sorted: bool) -> Self {
        UniqueOpts {
            sorted,
            ..Default::default()
        }
    }
}
impl From<(bool, bool)> for UniqueOpts {
    fn from((sorted, return_inverse): (bool, bool)) -> Self {
        UniqueOpts {
            sorted,
            return_inverse,
            ..Default::default()
        }
    }
}
impl From<(bool, bool, bool)> for UniqueOpts {
    fn from((sorted, return_inverse, return_counts): (bool, bool, bool)) -> Self {
        UniqueOpts {
            sorted,
            return_inverse,
            return_counts,
            dim: None,
        }
    }
}
impl<T: Int> From<(bool, bool, bool, T)> for UniqueOpts {
    fn from((sorted, return_inverse, return_counts, dim): (bool, bool, bool, T)) -> Self {
        UniqueOpts {
            sorted,
            return_inverse,
            return_counts,
            dim: Some(dim.to_i64()),
        }
    }
}

/// Optional arguments of `unique_consecutive` (`return_inverse=False, return_counts=False,
/// dim=None`): a bool is `return_inverse`, tuples the leading ones in that order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UniqueConsecutiveOpts {
    /// Also return `inverse` (default false).
    pub return_inverse: bool,
    /// Also return `counts` (default false).
    pub return_counts: bool,
    /// Runs of slices along this dim instead of elements (default `None`).
    pub dim: Option<i64>,
}
impl From<bool> for UniqueConsecutiveOpts {
    fn from(return_inverse: bool) -> Self {
        UniqueConsecutiveOpts {
            return_inverse,
            ..Default::default()
        }
    }
}
impl From<(bool, bool)> for UniqueConsecutiveOpts {
    fn from((return_inverse, return_counts): (bool, bool)) -> Self {
        UniqueConsecutiveOpts {
            return_inverse,
            return_counts,
            dim: None,
        }
    }
}
impl<T: Int> From<(bool, bool, T)> for UniqueConsecutiveOpts {
    fn from((return_inverse, return_counts, dim): (bool, bool, T)) -> Self {
        UniqueConsecutiveOpts {
            return_inverse,
            return_counts,
            dim: Some(dim.to_i64()),
        }
    }
}

// ---------------------------------------------------------------------------- searching

/// A Python number as `searchsorted`/`bucketize` take it (`scalar_to_tensor`): a 0-d tensor
/// of int64, float64 or bool, which counts as a 0-d tensor (not a wrapped number) in type
/// promotion.
fn scalar_input(s: Scalar) -> Result<Tensor> {
    match s {
        Scalar::Bool(b) => Tensor::from_vec(vec![b], ()),
        Scalar::Int(i) => Tensor::from_vec(vec![i], ()),
        Scalar::Float(f) => Tensor::from_vec(vec![f], ()),
    }
}

/// `searchsorted`'s checks (`searchsorted_pre_check`), in PyTorch's order.
fn searchsorted_check(
    bd: &Tensor,
    input: &Tensor,
    right: bool,
    side: Option<&str>,
    sorter: Option<&Tensor>,
) -> Result<()> {
    if let Some(side) = side {
        if side != "left" && side != "right" {
            return Err(Error::runtime(format!(
                "torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )));
        }
        if right && side != "right" {
            return Err(Error::runtime(format!(
                "torch.searchsorted(): side and right can't be set to opposites, got side of {side} while right was True"
            )));
        }
    }
    if let Some(s) = sorter
        && s.size() != bd.size()
    {
        return Err(Error::runtime(format!(
            "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor {}and got sorter tensor {}",
            fmt_list(bd.size()),
            fmt_list(s.size())
        )));
    }
    if let Some(s) = sorter {
        if s.dtype() != DType::Int64 {
            return Err(Error::runtime(format!(
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype {}",
                s.dtype().scalar_type_name()
            )));
        }
        let m = bd.size().last().copied().unwrap_or(1) as i64;
        if s.try_to_vec::<i64>()?.iter().any(|&i| i < 0 || i >= m) {
            return Err(Error::runtime(
                "torch.searchsorted(): sorter index out of range",
            ));
        }
    }
    if !(input.dim() > 0 || (input.numel() == 1 && bd.dim() == 1)) {
        return Err(Error::runtime(format!(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries tensor dim({}) and input value's dim({}) numel({})",
            bd.dim(),
            input.dim(),
            input.numel()
        )));
    }
    if bd.dim() == 0 {
        return Err(Error::runtime(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension",
        ));
    }
    let lead_match =
        bd.dim() == input.dim() && bd.size()[..bd.dim() - 1] == input.size()[..input.dim() - 1];
    if bd.dim() != 1 && !lead_match {
        return Err(Error::runtime(format!(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor {} and input value tensor {}",
            fmt_list(bd.size()),
            fmt_list(input.size())
        )));
    }
    Ok(())
}

/// `searchsorted` on checked arguments: for every input value, the first position in its
/// boundaries row (the whole of a 1-D `bd`, else the row of the same leading index) whose
/// value is `>=` it (`> ` it when `right`), through `sorter` when given. Compared in the
/// promoted dtype of `bd` and `input` (PyTorch's `result_type`); a NaN value goes past the end.
fn searchsorted_impl(
    bd: &Tensor,
    input: &Tensor,
    out_int32: bool,
    right: bool,
    sorter: Option<&Tensor>,
) -> Result<Tensor> {
    let out_dtype = if out_int32 {
        DType::Int32
    } else {
        DType::Int64
    };
    if input.numel() == 0 {
        return Tensor::try_alloc_contiguous(input.size(), out_dtype);
    }
    if !input.is_contiguous() {
        warn_once_noncontiguous("input value tensor");
    }
    if !bd.is_contiguous() {
        warn_once_noncontiguous("boundary tensor");
    }
    let common = result_type(&[
        (bd.dtype(), bd.category()),
        (input.dtype(), input.category()),
    ]);
    if common == DType::Bool {
        return Err(Error::not_implemented(
            "\"searchsorted_out_cpu\" not implemented for 'Bool'",
        ));
    }
    let m = bd.size()[bd.dim() - 1];
    let in_row = if bd.dim() == 1 {
        input.numel()
    } else {
        input.size()[input.dim() - 1]
    };
    let order: Option<Vec<i64>> = sorter.map(|s| s.try_to_vec::<i64>()).transpose()?;
    crate::dispatch!(common, T => {
        let b = bd.to(common)?.try_to_vec::<T>()?;
        let x = input.to(common)?.try_to_vec::<T>()?;
        let mut pos = vec![0i64; x.len()];
        let one_d = bd.dim() == 1;
        // PyTorch's `cus_lower_bound` / `cus_upper_bound`, comparisons as written (`!(mid >
        // v)` / `!(mid >= v)`: a NaN on either side moves right), with the same midpoints;
        // the bounds move by conditional moves, not branches
        let search = |row: &[T], ord: Option<&[i64]>, v: T| -> i64 {
            let (mut lo, mut hi) = (0usize, row.len());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let b = match ord {
                    Some(o) => row[o[mid] as usize],
                    None => row[mid],
                };
                let go_right = if right { !b.gt(&v) } else { !b.ge(&v) };
                lo = if go_right { mid + 1 } else { lo };
                hi = if go_right { hi } else { mid };
            }
            lo as i64
        };
        // values `i0..` into `out`
        let block = |i0: usize, out: &mut [i64]| {
            for (k, p) in out.iter_mut().enumerate() {
                let i = i0 + k;
                let start = if one_d { 0 } else { i / in_row.max(1) * m };
                let row = &b[start..start + m];
                *p = match &order {
                    Some(o) => search(row, Some(&o[start..start + m]), x[i]),
                    None => search(row, None, x[i]),
                };
            }
        };
        let chunk = 4096;
        if x.len() >= 2 * chunk && par::threads() > 1 {
            par::run(|| {
                pos.par_chunks_mut(chunk)
                    .enumerate()
                    .for_each(|(c, out)| block(c * chunk, out))
            });
        } else {
            block(0, &mut pos);
        }
        Tensor::from_vec(pos, input.size())?.to(out_dtype)
    })
}

/// PyTorch's `TORCH_WARN_ONCE` for a non-contiguous `searchsorted` argument (once per
/// program for each kind).
fn warn_once_noncontiguous(what: &str) {
    use std::sync::atomic::{AtomicBool, Ordering as AO};
    static INPUT: AtomicBool = AtomicBool::new(false);
    static BOUNDARY: AtomicBool = AtomicBool::new(false);
    let flag = if what == "boundary tensor" {
        &BOUNDARY
    } else {
        &INPUT
    };
    if !flag.swap(true, AO::Relaxed) {
        crate::warnings::warn(&format!(
            "torch.searchsorted(): {what} is non-contiguous, this will lower the performance due to extra data copy when converting non-contiguous tensor to contiguous, please use contiguous {what} if possible. This message will only appear once per program."
        ));
    }
}

/// `torch.searchsorted(sorted_sequence, input)`: int64 insertion positions; see
/// [`searchsorted_with`].
pub fn searchsorted<'a>(sorted_sequence: &Tensor, input: impl Into<Operand<'a>>) -> Result<Tensor> {
    searchsorted_with(sorted_sequence, input, SearchsortedOpts::default())
}

/// `torch.searchsorted(sorted_sequence, input, out_int32=, right=, side=, sorter=)`: for
/// every value of `input` (a tensor, or a Python number giving a 0-d result), the index in
/// its row of `sorted_sequence` (the last dim; a 1-D sequence serves every value, else the
/// leading dims of both must match) where it would be inserted to keep the row sorted: the
/// first position whose value is `>=` it, or `>` it with `right=true` / `side="right"`.
/// `sorter` (int64, the sequence's shape) gives the sorted order of an unsorted sequence.
/// Values are compared in the promoted dtype of both (a number counts as a 0-d int64 /
/// float64 tensor); NaN goes past the end. Shape: `input`'s, contiguous; int64, or int32
/// with `out_int32`.
///
/// Errors (RuntimeError), in order: `torch.searchsorted(): side can only be 'left' or 'right'
/// but got mid`; `torch.searchsorted(): side and right can't be set to opposites, got side of
/// left while right was True`; `torch.searchsorted(): boundary and sorter must have the same
/// size, but got boundary tensor [2]and got sorter tensor [1]`; `torch.searchsorted(): input
/// value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries
/// tensor dim(2) and input value's dim(0) numel(1)`; `torch.searchsorted(): boundaries tensor
/// should have positive dimension, but got 0 dimension`; `torch.searchsorted(): boundaries
/// tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input
/// value tensor must match, but we got boundaries tensor [2, 3] and input value tensor [3,
/// 1]`; `"searchsorted_out_cpu" not implemented for 'Bool'` (NotImplementedError) when both
/// are bool.
pub fn searchsorted_with<'a, 'b>(
    sorted_sequence: &Tensor,
    input: impl Into<Operand<'a>>,
    opts: impl Into<SearchsortedOpts<'b>>,
) -> Result<Tensor> {
    let o = opts.into();
    let input = match input.into() {
        Operand::Tensor(t) => t.alias(),
        Operand::Scalar(s) => scalar_input(s)?,
    };
    searchsorted_check(sorted_sequence, &input, o.right, o.side, o.sorter)?;
    let right = match o.side {
        Some(s) => s == "right",
        None => o.right,
    };
    searchsorted_impl(sorted_sequence, &input, o.out_int32, right, o.sorter)
}

/// `torch.bucketize(input, boundaries)`: int64 bucket indices; see [`bucketize_with`].
pub fn bucketize<'a>(input: impl Into<Operand<'a>>, boundaries: &Tensor) -> Result<Tensor> {
    bucketize_with(input, boundaries, BucketizeOpts::default())
}

/// `torch.bucketize(input, boundaries, out_int32=, right=)`: [`searchsorted_with`] with a 1-D
/// `boundaries` serving every element of `input` (a tensor or a Python number). Shape:
/// `input`'s, contiguous; int64 or int32.
///
/// Errors: `boundaries tensor must be 1 dimension, but got dim(2)` (RuntimeError), then
/// `searchsorted`'s.
pub fn bucketize_with<'a>(
    input: impl Into<Operand<'a>>,
    boundaries: &Tensor,
    opts: impl Into<BucketizeOpts>,
) -> Result<Tensor> {
    let o = opts.into();
    if boundaries.dim() != 1 {
        return Err(Error::runtime(format!(
            "boundaries tensor must be 1 dimension, but got dim({})",
            boundaries.dim()
        )));
    }
    searchsorted_with(
        boundaries,
        input,
        SearchsortedOpts {
            out_int32: o.out_int32,
            right: o.right,
            side: None,
            sorter: None,
        },
    )
}

/// Optional arguments of `searchsorted` (`out_int32=False, right=False, side=None,
/// sorter=None`): a bool is `out_int32`, a pair `(out_int32, right)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchsortedOpts<'a> {
    /// int32 result instead of int64 (default false).
    pub out_int32: bool,
    /// The last suitable position instead of the first (default false).
    pub right: bool,
    /// `"left"` or `"right"`, the same choice as `right` (default `None`).
    pub side: Option<&'a str>,
    /// int64 indices sorting each row of the sequence (default `None`: it is sorted).
    pub sorter: Option<&'a Tensor>,
}
impl From<bool> for SearchsortedOpts<'_> {
    fn from(out_int32: bool) -> Self {
        SearchsortedOpts {
            out_int32,
            ..Default::default()
        }
    }
}
impl From<(bool, bool)> for SearchsortedOpts<'_> {
    fn from((out_int32, right): (bool, bool)) -> Self {
        SearchsortedOpts {
            out_int32,
            right,
            ..Default::default()
        }
    }
}

/// Optional arguments of `bucketize` (`out_int32=False, right=False`): a bool is `out_int32`,
/// a pair `(out_int32, right)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BucketizeOpts {
    /// int32 result instead of int64 (default false).
    pub out_int32: bool,
    /// `boundaries[i-1] <= x < boundaries[i]` instead of `boundaries[i-1] < x <= boundaries[i]`
    /// (default false).
    pub right: bool,
}
impl From<bool> for BucketizeOpts {
    fn from(out_int32: bool) -> Self {
        BucketizeOpts {
            out_int32,
            right: false,
        }
    }
}
impl From<(bool, bool)> for BucketizeOpts {
    fn from((out_int32, right): (bool, bool)) -> Self {
        BucketizeOpts { out_int32, right }
    }
}

// ---------------------------------------------------------------------------- isin

/// `Unsupported input type encountered for isin(): Bool` (NotImplementedError): bool is the one
/// real dtype `isin` refuses.
fn isin_dtype_check(d: DType) -> Result<()> {
    if d == DType::Bool {
        return Err(Error::not_implemented(
            "Unsupported input type encountered for isin(): Bool",
        ));
    }
    Ok(())
}

/// Whether `test_elements` is small enough for PyTorch's direct comparison loop (else it
/// sorts `elements` and `test_elements` together, which is what `assume_unique` changes).
fn isin_uses_loop(n_elements: usize, n_test: usize) -> bool {
    (n_test as i64) < (10.0f64 * (n_elements as f64).powf(0.145)) as i64
}

/// `isin` on two tensors of one dtype `T`: PyTorch's two algorithms. The loop answers "equal
/// to some test element"; the sort (used for large test sets) marks an element found when the
/// next value in the stable sort of `elements ++ test_elements` equals it, which is the same
/// answer unless `assume_unique` is given for elements that repeat.
fn isin_values<T: Element>(e: &[T], test: &[T], assume_unique: bool, invert: bool) -> Vec<bool> {
    if isin_uses_loop(e.len(), test.len()) || !assume_unique {
        let mut sorted: Vec<T> = test.iter().copied().filter(|&x| !is_nan(x)).collect();
        sorted.sort_by(nan_last_cmp);
        return e
            .iter()
            .map(|x| {
                let found = !is_nan(*x)
                    && sorted
                        .binary_search_by(|probe| nan_last_cmp(probe, x))
                        .is_ok();
                found != invert
            })
            .collect();
    }
    let all: Vec<T> = e.iter().chain(test).copied().collect();
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by(|&a, &b| nan_last_cmp(&all[a], &all[b]));
    let mut mask = vec![invert; all.len()];
    for w in order.windows(2) {
        mask[w[0]] = (all[w[1]] == all[w[0]]) != invert;
    }
    mask.truncate(e.len());
    mask
}

/// `torch.isin(elements, test_elements)`; see [`isin_with`].
pub fn isin<'a, 'b>(
    elements: impl Into<Operand<'a>>,
    test_elements: impl Into<Operand<'b>>,
) -> Result<Tensor> {
    isin_with(elements, test_elements, IsinOpts::default())
}

/// `torch.isin(elements, test_elements, assume_unique=, invert=)`: bool, `elements`'s shape
/// (contiguous; 0-d for a number): whether each element equals some test element (`invert`:
/// whether it equals none). Either argument may be a Python number (not both: PyTorch has no
/// such overload). Values are compared in the promoted dtype (`result_type` of the two, a
/// number as a wrapped number); NaN equals nothing, `-0.0` equals `0.0`. `assume_unique`
/// promises distinct values; given for repeated elements, PyTorch's sorting algorithm (used
/// when `test_elements` has at least `10·n^0.145` values for `n` elements) marks every
/// repeat found, and so does tensile.
///
/// Errors: `Unsupported input type encountered for isin(): Bool` (NotImplementedError) for
/// a bool tensor or a Python bool, `elements` checked first; two numbers: `isin() received an
/// invalid combination of arguments - got (int, int)` (TypeError; Python's message goes on to
/// list the accepted signatures).
pub fn isin_with<'a, 'b>(
    elements: impl Into<Operand<'a>>,
    test_elements: impl Into<Operand<'b>>,
    opts: impl Into<IsinOpts>,
) -> Result<Tensor> {
    let IsinOpts {
        assume_unique,
        invert,
    } = opts.into();
    let (e, t) = (elements.into(), test_elements.into());
    if let (Operand::Scalar(a), Operand::Scalar(b)) = (e, t) {
        let kind = |s: Scalar| match s {
            Scalar::Bool(_) => "bool",
            Scalar::Int(_) => "int",
            Scalar::Float(_) => "float",
        };
        return Err(Error::type_error(format!(
            "isin() received an invalid combination of arguments - got ({}, {})",
            kind(a),
            kind(b)
        )));
    }
    let (e, t) = (e.to_tensor(), t.to_tensor());
    isin_dtype_check(e.dtype())?;
    isin_dtype_check(t.dtype())?;
    let common = result_type(&[(e.dtype(), e.category()), (t.dtype(), t.category())]);
    let ec = e.to(common)?;
    let tc = t.to(common)?;
    let mask = crate::dispatch!(common, T => {
        isin_values(&ec.try_to_vec::<T>()?, &tc.try_to_vec::<T>()?, assume_unique, invert)
    });
    Tensor::from_vec(mask, e.size())
}

/// Optional arguments of `isin` (`assume_unique=False, invert=False`): a bool is
/// `assume_unique`, a pair `(assume_unique, invert)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IsinOpts {
    /// Both arguments hold distinct values (default false).
    pub assume_unique: bool,
    /// Whether each element is *not* among the test elements (default false).
    pub invert: bool,
}
impl From<bool> for IsinOpts {
    fn from(assume_unique: bool) -> Self {
        IsinOpts {
            assume_unique,
            invert: false,
        }
    }
}
impl From<(bool, bool)> for IsinOpts {
    fn from((assume_unique, invert): (bool, bool)) -> Self {
        IsinOpts {
            assume_unique,
            invert,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_sorts_last_and_signed_zeros_tie() {
        let t =
            Tensor::from_vec(vec![1.0f32, 0.0, -0.0, 1.0, f32::NAN, 2.0, f32::NAN], [7]).unwrap();
        let (v, i) = t.sort().unwrap();
        assert_eq!(i.to_vec::<i64>(), [1, 2, 0, 3, 5, 4, 6]);
        assert!(v.to_vec::<f32>()[5].is_nan());
        // descending and stable: NaNs first, ties in input order
        let (_, i) = t.sort_with((0, true)).unwrap();
        assert_eq!(i.to_vec::<i64>(), [4, 6, 5, 0, 3, 1, 2]);
    }

    #[test]
    fn sort_keeps_a_dense_layout_and_densifies_others() {
        let base = Tensor::arange(48).unwrap();
        let t = base.as_strided([2, 3, 4], [1, 8, 2]).unwrap();
        let (v, _) = t.sort_with(1).unwrap();
        assert_eq!(v.stride(), &[1, 8, 2]);
        let t = base.as_strided([2, 3, 4], [28, 8, 1]).unwrap();
        assert_eq!(t.sort_with(2).unwrap().0.stride(), &[12, 4, 1]);
    }

    #[test]
    fn medians_take_the_lower_middle_and_nan_rules() {
        let t = Tensor::from_vec(vec![4i32, 1, 3, 2], [4]).unwrap();
        assert_eq!(t.median().unwrap().item::<i64>().unwrap(), 2);
        let e = Tensor::from_vec(Vec::<i32>::new(), [0]).unwrap();
        assert_eq!(e.median().unwrap().item::<i64>().unwrap(), i32::MIN as i64);
        let f = Tensor::from_vec(vec![1.0, f64::NAN, 2.0, 5.0], [4]).unwrap();
        let (v, i) = f.median_dim(0, false).unwrap();
        assert!(v.item::<f64>().unwrap().is_nan());
        assert_eq!(i.item::<i64>().unwrap(), 1);
        let (v, i) = f.nanmedian_dim(0, false).unwrap();
        assert_eq!(
            (v.item::<f64>().unwrap(), i.item::<i64>().unwrap()),
            (2.0, 2)
        );
    }

    #[test]
    fn isin_assume_unique_marks_repeats_as_pytorch_does() {
        let e = Tensor::from_vec(vec![5i64, 5, 1], [3]).unwrap();
        let test = Tensor::arange((10, 50)).unwrap();
        let r = isin_with(&e, &test, true).unwrap();
        assert_eq!(r.to_vec::<bool>(), [true, false, false]);
        assert_eq!(
            isin(&e, &test).unwrap().to_vec::<bool>(),
            [false, false, false]
        );
    }

    #[test]
    fn searchsorted_compares_in_the_promoted_dtype() {
        let bd = Tensor::from_vec(vec![1i64, 2, 2, 3], [4]).unwrap();
        assert_eq!(searchsorted(&bd, 2).unwrap().item::<i64>().unwrap(), 1);
        assert_eq!(
            searchsorted_with(&bd, 2.5, (false, true))
                .unwrap()
                .item::<i64>()
                .unwrap(),
            3
        );
        let nan = Tensor::from_vec(vec![f32::NAN], [1]).unwrap();
        assert_eq!(searchsorted(&bd, &nan).unwrap().to_vec::<i64>(), [4]);
    }
}
