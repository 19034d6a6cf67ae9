//! Value loops of the gather/scatter family (`gather`, `scatter`, `scatter_add`,
//! `scatter_reduce`, `index_add`, `index_copy`, `index_fill`, `index_reduce`):
//! [`scatter_along`] and [`gather_along`] walk an index along one dim over the operands'
//! slices and strides (`crate::iter::dense`), with the dtype chosen once by the op and a
//! contiguous run per index value where the layout gives one; [`reduce_into`] applies
//! precomputed `(target, value)` pairs.

use rayon::prelude::*;

use crate::element::{Element, cast};
use crate::kernels::Ptr;
use crate::kernels::loops::GRAIN;
use crate::kernels::math::Arith;
use crate::kernels::par;

/// A reduction applied at each written position, in PyTorch's CPU kernel's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reduce {
    /// Plain assignment (`scatter`, `index_copy`).
    Assign,
    /// `+=` (`sum`, `add`).
    Sum,
    /// `*=` (`prod`, `multiply`).
    Prod,
    /// The sum, divided by the number of contributions at the end.
    Mean,
    /// `amax` (NaN propagates).
    Max,
    /// `amin` (NaN propagates).
    Min,
}

impl Reduce {
    /// The value a target takes before the contributions when `self` is excluded
    /// (`include_self=False`): PyTorch fills the scattered-to positions with it first.
    fn identity<C: Arith>(self) -> C {
        match self {
            Reduce::Sum | Reduce::Mean | Reduce::Assign => C::zero(),
            Reduce::Prod => C::from_i64(1),
            Reduce::Max => lowest::<C>(),
            Reduce::Min => highest::<C>(),
        }
    }
}

/// `-inf` for floats, the minimum for integers, `false` for bool.
fn lowest<C: Arith>() -> C {
    if C::DTYPE.is_floating_point() {
        C::from_f64(f64::NEG_INFINITY)
    } else {
        match C::DTYPE {
            crate::DType::Bool | crate::DType::UInt8 => C::zero(),
            crate::DType::Int8 => C::from_i64(i8::MIN as i64),
            crate::DType::Int16 => C::from_i64(i16::MIN as i64),
            crate::DType::Int32 => C::from_i64(i32::MIN as i64),
            _ => C::from_i64(i64::MIN),
        }
    }
}

/// `+inf` for floats, the maximum for integers, `true` for bool.
fn highest<C: Arith>() -> C {
    if C::DTYPE.is_floating_point() {
        C::from_f64(f64::INFINITY)
    } else {
        match C::DTYPE {
            crate::DType::Bool => C::from_bool(true),
            crate::DType::UInt8 => C::from_i64(255),
            crate::DType::Int8 => C::from_i64(i8::MAX as i64),
            crate::DType::Int16 => C::from_i64(i16::MAX as i64),
            crate::DType::Int32 => C::from_i64(i32::MAX as i64),
            _ => C::from_i64(i64::MAX),
        }
    }
}

/// One step of `r`: `cur op v`, rounded by `rnd` (float16/bfloat16 round each step).
#[inline]
fn step<C: Arith>(r: Reduce, cur: C, v: C, rnd: &impl Fn(C) -> C) -> C {
    match r {
        Reduce::Assign => v,
        Reduce::Sum | Reduce::Mean => rnd(cur.add(v)),
        Reduce::Prod => rnd(cur.mul(v)),
        // std::max / std::min after a NaN check of the source, as PyTorch's kernel
        Reduce::Max => {
            if v.is_nan() || cur < v {
                v
            } else {
                cur
            }
        }
        Reduce::Min => {
            if v.is_nan() || v < cur {
                v
            } else {
                cur
            }
        }
    }
}

/// The offsets (elements) of every row-major position of `shape` under three stride lists.
fn offsets(shape: &[usize], strides: [&[usize]; 3]) -> Vec<[usize; 3]> {
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut c = vec![0usize; shape.len()];
    let mut cur = [0usize; 3];
    for _ in 0..n {
        out.push(cur);
        for d in (0..shape.len()).rev() {
            c[d] += 1;
            for q in 0..3 {
                cur[q] += strides[q][d];
            }
            if c[d] < shape[d] {
                break;
            }
            for q in 0..3 {
                cur[q] -= strides[q][d] * shape[d];
            }
            c[d] = 0;
        }
    }
    out
}

/// Where the elements of an operation along one dim lie: the index's shape split at `dim`
/// into outer positions (the dims before it), `n` steps along it and inner positions (the
/// dims after it), each with its offsets (elements) in the three operands `[target, index,
/// source]`. The target's element for index value `v` at `(o, j, k)` is `outer[o][0] +
/// inner[k][0] + v * step[0]`; the index's and the source's are `outer[o][q] + inner[k][q] +
/// j * step[q]`.
pub(crate) struct AlongDim {
    outer: Vec<[usize; 3]>,
    inner: Vec<[usize; 3]>,
    n: usize,
    step: [usize; 3],
    /// The inner positions are consecutive in the target and the source and the index is
    /// constant over them: each `(o, j)` moves one contiguous run of `inner.len()` elements.
    run: bool,
}

impl AlongDim {
    /// The geometry of an index of shape `shape` along `dim` with the strides (elements) of
    /// the target, the index and the source.
    pub(crate) fn new(shape: &[usize], dim: usize, strides: [&[usize]; 3]) -> AlongDim {
        let cut = |a: usize, b: usize| [&strides[0][a..b], &strides[1][a..b], &strides[2][a..b]];
        let outer = offsets(&shape[..dim], cut(0, dim));
        let inner = offsets(&shape[dim + 1..], cut(dim + 1, shape.len()));
        let run = inner
            .iter()
            .enumerate()
            .all(|(k, &[t, i, s])| t == k && i == 0 && s == k);
        AlongDim {
            outer,
            inner,
            n: shape[dim],
            step: [strides[0][dim], strides[1][dim], strides[2][dim]],
            run,
        }
    }

    /// The number of elements the index addresses.
    fn numel(&self) -> usize {
        self.outer.len() * self.n * self.inner.len()
    }

    /// The number of `(outer, inner)` tasks to split `work` over: 1 below the grain size or
    /// on one thread.
    fn tasks(&self) -> usize {
        let t = par::threads();
        if t <= 1 || self.numel() < 2 * GRAIN {
            1
        } else {
            t
        }
    }
}

/// The first index value outside `[0, size)` in `idx`'s order, if any.
pub(crate) fn first_out_of_range(idx: &[i64], size: usize) -> Option<i64> {
    let bad = |v: i64| v < 0 || v as u64 >= size as u64;
    // a branch-free pass per block finds the block, then the value is looked up
    idx.chunks(1024)
        .find(|c| c.iter().fold(false, |a, &v| a | bad(v)))
        .and_then(|c| c.iter().copied().find(|&v| bad(v)))
}

/// The minimum and maximum of `v` (`(i64::MAX, i64::MIN)` when empty), in one pass.
pub(crate) fn min_max_i64(v: &[i64]) -> (i64, i64) {
    v.iter()
        .fold((i64::MAX, i64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)))
}

/// The half-open range of part `p` of `parts` equal parts of `0..n`.
fn part(n: usize, p: usize, parts: usize) -> (usize, usize) {
    (n * p / parts, n * (p + 1) / parts)
}

/// Scatters along one dim into `out`, the row-major values of a tensor of shape `out_shape`:
/// for every position `(o, j, k)` of an index of shape `shape` (of `out_shape`'s rank, no
/// larger in any dim but `dim`), in row-major order, `out[.., idx, ..] = out[.., idx, ..] op
/// src[.., j, ..]` by the reduction `r` (`idx` and `src` addressed through their strides in
/// elements; a source stride 0 repeats a value). Values are loaded to the compute type `C`
/// and stored back after every step (float16/bfloat16 round each step, as PyTorch's kernels);
/// `alpha` scales every source value first (rounded). Without `include_self` every target is
/// first set to the reduction's identity; `Mean` divides by the number of contributions
/// (plus one for `self`) at the end, flooring for integers.
///
/// Contributions to one target all come from one `(o, k)`, in order of `j`, so the tasks
/// split the outer positions (or, when there are too few, the inner ones) and the result is
/// the serial one at every thread count.
///
/// Every index value must lie in `[0, out_shape[dim])` (see [`first_out_of_range`]) and the
/// shapes must be as above: otherwise it panics (an internal error of the op).
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter_along<T: Element, C: Arith>(
    out: &mut [T],
    out_shape: &[usize],
    idx: (&[i64], &[usize]),
    src: (&[T], &[usize]),
    shape: &[usize],
    dim: usize,
    (r, include_self, alpha): (Reduce, bool, Option<C>),
) {
    let rank = out_shape.len();
    assert!(
        shape.len() == rank
            && idx.1.len() == rank
            && src.1.len() == rank
            && dim < rank
            && (0..rank).all(|e| e == dim || shape[e] <= out_shape[e])
            && out.len() == out_shape.iter().product::<usize>(),
        "scatter_along: shapes"
    );
    let ostr = crate::layout::contiguous_strides(out_shape);
    let g = AlongDim::new(shape, dim, [&ostr, idx.1, src.1]);
    if g.numel() == 0 {
        return;
    }
    // every index and source position read lies inside its slice
    let last = |q: usize, len: usize| {
        let o = g.outer.last().map_or(0, |o| o[q]);
        let i = g.inner.last().map_or(0, |i| i[q]);
        assert!(o + i + (g.n - 1) * g.step[q] < len, "scatter_along: spans");
    };
    last(1, idx.0.len());
    last(2, src.0.len());
    let size = out_shape[dim];
    let load = |v: T| cast::<T, C>(v);
    let store = |v: C| cast::<C, T>(v);
    let scale = |v: T| match alpha {
        Some(a) => load(store(load(v).mul(a))),
        None => load(v),
    };
    let mut counts: Vec<u32> = if r == Reduce::Mean {
        vec![include_self as u32; out.len()]
    } else {
        Vec::new()
    };
    let outp = Ptr(out.as_mut_ptr());
    let cntp = Ptr(counts.as_mut_ptr());
    let ident = store(r.identity::<C>());
    let (s0, s1, s2) = (g.step[0], g.step[1], g.step[2]);
    // the inner positions as one strided line (`inner[k] = k * lin`), when they are
    let lin = match g.inner.get(1) {
        None => Some([0; 3]),
        Some(&d) => g
            .inner
            .iter()
            .enumerate()
            .all(|(k, i)| (0..3).all(|q| i[q] == k * d[q]))
            .then_some(d),
    };
    // one task: outer positions `o0..o1`, inner positions `k0..k1`, targets whose index
    // value lies in `v0..v1` (the others are left to other tasks)
    let task = |(o0, o1): (usize, usize), (k0, k1): (usize, usize), (v0, v1): (usize, usize)| {
        let all = v0 == 0 && v1 == size;
        let at = |t: usize| -> *mut T {
            // SAFETY: `t` is `out`'s offset of a position inside `out_shape` (the index value
            // was checked just above, the outer and inner coordinates lie inside the index's
            // shape, which fits in `out_shape`), so inside `out`; the pointer is only used
            // for this task's positions, which no other task touches (module docs above).
            unsafe { outp.get().add(t) }
        };
        for o in &g.outer[o0..o1] {
            if !include_self && r != Reduce::Assign {
                for j in 0..g.n {
                    for k in k0..k1 {
                        let v = idx.0[o[1] + g.inner[k][1] + j * s1];
                        assert!(v >= 0 && (v as u64) < size as u64, "scatter_along: index");
                        if (v0..v1).contains(&(v as usize)) {
                            // SAFETY: see `at`.
                            unsafe { *at(o[0] + g.inner[k][0] + v as usize * s0) = ident };
                        }
                    }
                }
            }
            if r != Reduce::Mean
                && let Some(d) = lin
            {
                // typed loops: the reduction is one closure, monomorphised per kind
                let (tb, ib, sb) = (o[0] + k0 * d[0], o[1] + k0 * d[1], o[2] + k0 * d[2]);
                let len = k1 - k0;
                let geo = Line {
                    tb,
                    ib,
                    sb,
                    steps: [s0, s1, s2],
                    inner: d,
                    n: g.n,
                    len,
                    size,
                    vals: (v0, v1),
                };
                macro_rules! lines {
                    ($f:expr) => {{
                        let f = $f;
                        // SAFETY: the spans of the index and the source were checked above
                        // (`last`), every index value is checked in the line loops, and the
                        // targets of this task are its own (see `at`).
                        unsafe {
                            if g.run && len > 1 {
                                geo.rows(outp, idx.0, src.0, &f)
                            } else {
                                geo.elements(outp, idx.0, src.0, &f)
                            }
                        }
                    }};
                }
                match (r, alpha) {
                    (Reduce::Assign, None) => lines!(|_: T, x: T| x),
                    (Reduce::Sum, None) => lines!(|a: T, x: T| store(load(a).add(load(x)))),
                    (Reduce::Sum, Some(al)) => {
                        lines!(|a: T, x: T| store(load(a).add(load(store(load(x).mul(al))))))
                    }
                    (Reduce::Max, None) => {
                        lines!(|a: T, x: T| store(step(Reduce::Max, load(a), load(x), &|y| y)))
                    }
                    (Reduce::Min, None) => {
                        lines!(|a: T, x: T| store(step(Reduce::Min, load(a), load(x), &|y| y)))
                    }
                    _ => lines!(|a: T, x: T| store(step(r, load(a), scale(x), &|y| y))),
                }
                continue;
            }
            // one `(o, k)` at a time: its targets see their contributions in order of `j`,
            // and no other `(o, k)` shares a target
            for inn in &g.inner[k0..k1] {
                let (tb, ib, sb) = (o[0] + inn[0], o[1] + inn[1], o[2] + inn[2]);
                macro_rules! walk {
                    ($f:expr) => {
                        for j in 0..g.n {
                            let v = idx.0[ib + j * g.step[1]];
                            assert!(v >= 0 && (v as u64) < size as u64, "scatter_along: index");
                            if !all && !(v0..v1).contains(&(v as usize)) {
                                continue;
                            }
                            let t = tb + v as usize * g.step[0];
                            let x = scale(src.0[sb + j * g.step[2]]);
                            // SAFETY: see `at`.
                            let p = unsafe { &mut *at(t) };
                            *p = store(($f)(load(*p), x));
                            if r == Reduce::Mean {
                                // SAFETY: `counts` has `out`'s length and positions; as in
                                // `at`.
                                unsafe { *cntp.get().add(t) += 1 };
                            }
                        }
                    };
                }
                match r {
                    Reduce::Assign => walk!(|_: C, x: C| x),
                    Reduce::Sum | Reduce::Mean => walk!(|a: C, x: C| a.add(x)),
                    _ => walk!(|a: C, x: C| step(r, a, x, &|y| y)),
                }
            }
        }
    };
    let tasks = g.tasks();
    let (no, ni) = (g.outer.len(), g.inner.len());
    let full = (0, size);
    if tasks <= 1 {
        task((0, no), (0, ni), full);
    } else if no >= tasks {
        par::for_each_task(tasks, &|p| task(part(no, p, tasks), (0, ni), full));
    } else if g.run && ni < 1024 && size >= tasks {
        // short rows: each task owns a range of target rows and walks the whole index (its
        // contributions still arrive in order of `j`), so no two tasks share a cache line
        par::for_each_task(tasks, &|p| task((0, no), (0, ni), part(size, p, tasks)));
    } else {
        let t = tasks.min(ni);
        par::for_each_task(t, &|p| task((0, no), part(ni, p, t), full));
    }
    if r == Reduce::Mean {
        let float = C::DTYPE.is_floating_point();
        for (o, &c) in out.iter_mut().zip(&counts) {
            let c = load(store(C::from_i64(c.max(1) as i64)));
            let x = load(*o);
            *o = store(if float { x.div(c) } else { x.floor_div(c) });
        }
    }
}

/// One line of a scatter: `n` steps along the dim times `len` inner positions, the index
/// value at step `j` and inner position `k` at `idx[ib + j * steps[1] + k * inner[1]]`,
/// the source value at `src[sb + j * steps[2] + k * inner[2]]`, its target at `out[tb + v *
/// steps[0] + k * inner[0]]`; only targets whose index value `v` lies in `vals` are written.
struct Line {
    tb: usize,
    ib: usize,
    sb: usize,
    steps: [usize; 3],
    inner: [usize; 3],
    n: usize,
    len: usize,
    size: usize,
    vals: (usize, usize),
}

impl Line {
    /// `out[t] = f(out[t], src)` over the line, step by step along the dim (each inner
    /// position's targets see their contributions in order of `j`), every index value
    /// checked once (a bad one panics).
    ///
    /// # Safety
    /// Every index and source position of the line lies inside `idx` and `src`; every
    /// target of an index value in `[0, size)` lies inside `out`'s allocation and no other
    /// thread touches the targets of index values in `vals` meanwhile.
    #[inline(always)]
    unsafe fn elements<T: Copy>(
        &self,
        out: Ptr<T>,
        idx: &[i64],
        src: &[T],
        f: &impl Fn(T, T) -> T,
    ) {
        let [s0, s1, s2] = self.steps;
        let [d0, d1, d2] = self.inner;
        let (v0, v1) = self.vals;
        let all = v0 == 0 && v1 == self.size;
        let (ip, sp, op) = (idx.as_ptr(), src.as_ptr(), out.get());
        for j in 0..self.n {
            let (ib, sb) = (self.ib + j * s1, self.sb + j * s2);
            for k in 0..self.len {
                // SAFETY: inside the line (the caller's contract).
                let v = unsafe { *ip.add(ib + k * d1) };
                assert!((v as u64) < self.size as u64, "scatter_along: index");
                if !all && !(v0..v1).contains(&(v as usize)) {
                    continue;
                }
                // SAFETY: as above; the target of a checked value is inside `out`.
                unsafe {
                    let p = op.add(self.tb + v as usize * s0 + k * d0);
                    *p = f(*p, *sp.add(sb + k * d2));
                }
            }
        }
    }

    /// [`Line::elements`] when the index value is one per step (`inner[1] == 0`) and the
    /// targets and sources of a step are `len` consecutive elements: one row update per step,
    /// a plain loop the compiler vectorises.
    ///
    /// # Safety
    /// As [`Line::elements`].
    #[inline(always)]
    unsafe fn rows<T: Copy>(&self, out: Ptr<T>, idx: &[i64], src: &[T], f: &impl Fn(T, T) -> T) {
        let [s0, s1, s2] = self.steps;
        let (v0, v1) = self.vals;
        let (ip, sp, op) = (idx.as_ptr(), src.as_ptr(), out.get());
        for j in 0..self.n {
            // SAFETY: inside the line (the caller's contract).
            let v = unsafe { *ip.add(self.ib + j * s1) };
            assert!((v as u64) < self.size as u64, "scatter_along: index");
            if !(v0..v1).contains(&(v as usize)) {
                continue;
            }
            // SAFETY: the row of a checked value is inside `out`, the source row inside
            // `src`, and they do not overlap (`out` is written by this op only).
            let (d, s) = unsafe {
                (
                    std::slice::from_raw_parts_mut(op.add(self.tb + v as usize * s0), self.len),
                    std::slice::from_raw_parts(sp.add(self.sb + j * s2), self.len),
                )
            };
            for (d, &s) in d.iter_mut().zip(s) {
                *d = f(*d, s);
            }
        }
    }
}

/// Gathers along one dim: `out[o, j, k] = x[.., idx[o, j, k], ..]` for an index of shape
/// `shape` (`out` its row-major values), `x` of `x_size` elements along `dim` addressed
/// through its strides, `idx` through its own; rows are gathered in parallel above the grain
/// size. Every index value must lie in `[0, x_size)` (checked; a bad one panics: the op
/// checks first).
pub(crate) fn gather_along<T: Element>(
    out: &mut [T],
    x: (&[T], &[usize], usize),
    idx: (&[i64], &[usize]),
    shape: &[usize],
    dim: usize,
) {
    let ostr = crate::layout::contiguous_strides(shape);
    let g = AlongDim::new(shape, dim, [x.1, idx.1, &ostr]);
    let (n, ni) = (g.n, g.inner.len());
    if g.numel() == 0 {
        return;
    }
    let out = &mut out[..g.numel()];
    let (s0, s1) = (g.step[0], g.step[1]);
    // rows `(o, j)` from row `r0` on, `dst` holding whole rows of `ni` elements: a tight
    // loop over `j` for each outer position
    let block = |r0: usize, dst: &mut [T]| {
        let (mut o, mut j) = (r0 / n, r0 % n);
        let mut rest = dst;
        while !rest.is_empty() {
            let m = (n - j).min(rest.len() / ni);
            let (seg, tail) = std::mem::take(&mut rest).split_at_mut(m * ni);
            rest = tail;
            let oo = &g.outer[o];
            if ni == 1 {
                let (xb, ib) = (oo[0] + g.inner[0][0], oo[1] + g.inner[0][1] + j * s1);
                for (jj, e) in seg.iter_mut().enumerate() {
                    let v = idx.0[ib + jj * s1];
                    assert!(v >= 0 && (v as u64) < x.2 as u64, "gather_along: index");
                    *e = x.0[xb + v as usize * s0];
                }
            } else {
                for (jj, d) in seg.chunks_mut(ni).enumerate() {
                    let i0 = oo[1] + (j + jj) * s1;
                    for (e, inn) in d.iter_mut().zip(&g.inner) {
                        let v = idx.0[i0 + inn[1]];
                        assert!(v >= 0 && (v as u64) < x.2 as u64, "gather_along: index");
                        *e = x.0[oo[0] + inn[0] + v as usize * s0];
                    }
                }
            }
            (o, j) = (o + 1, 0);
        }
    };
    let rows = (GRAIN / ni).max(1);
    if g.tasks() <= 1 {
        block(0, out);
    } else {
        par::run(|| {
            out.par_chunks_mut(rows * ni)
                .enumerate()
                .for_each(|(b, d)| block(b * rows, d))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `self` of 4 elements, index `[0, 0, 2]`, src `[1, 2, 3]` along dim 0.
    fn run<C: Arith>(init: &[C], idx: &[i64], src: &[C], r: Reduce, inc: bool) -> Vec<C> {
        let mut o = init.to_vec();
        let n = o.len();
        scatter_along::<C, C>(
            &mut o,
            &[n],
            (idx, &[1]),
            (src, &[1]),
            &[idx.len()],
            0,
            (r, inc, None),
        );
        o
    }

    #[test]
    fn scatter_reduce_examples_of_the_spec() {
        let (idx, src) = ([0i64, 0, 2], [1.0f64, 2.0, 3.0]);
        let s = [10.0f64; 4];
        assert_eq!(
            run(&s, &idx, &src, Reduce::Sum, true),
            [13.0, 10.0, 13.0, 10.0]
        );
        assert_eq!(
            run(&s, &idx, &src, Reduce::Sum, false),
            [3.0, 10.0, 3.0, 10.0]
        );
        assert_eq!(
            run(&s, &idx, &src, Reduce::Mean, false),
            [1.5, 10.0, 3.0, 10.0]
        );
        assert_eq!(
            run(&s, &idx, &src, Reduce::Prod, false),
            [2.0, 10.0, 3.0, 10.0]
        );
        assert_eq!(run(&s, &idx, &src, Reduce::Mean, true)[2], 6.5);
        assert_eq!(
            run(&s, &idx, &src, Reduce::Assign, true),
            [2.0, 10.0, 3.0, 10.0]
        );
        // integer mean floors: (10+1+2)/3 = 4, (-10+1)/2 = -5
        let o = run(&[10i64, -10], &[0, 0, 1], &[1, 2, 1], Reduce::Mean, true);
        assert_eq!(o, [4, -5]);
        // NaN propagates through amax from either side
        let o = run(
            &[f64::NAN, 1.0],
            &[0, 1, 1],
            &[5.0, f64::NAN, 7.0],
            Reduce::Max,
            true,
        );
        assert!(o[0].is_nan() && o[1].is_nan());
    }

    #[test]
    fn rows_of_a_dim_0_scatter_are_runs() {
        // out (3, 2), index [2, 0, 2] repeated over dim 1 (stride 0), src (3, 2)
        let mut o = vec![0.0f32; 6];
        let src = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        scatter_along::<f32, f32>(
            &mut o,
            &[3, 2],
            (&[2, 0, 2], &[1, 0]),
            (&src, &[2, 1]),
            &[3, 2],
            0,
            (Reduce::Sum, true, None),
        );
        assert_eq!(o, [3.0, 4.0, 0.0, 0.0, 6.0, 8.0]);
    }
}
