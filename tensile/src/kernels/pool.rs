//! Pooling and resampling kernels over plain slices (safe code: the ops copy their input out
//! and their output in).
//!
//! Every pooling op (max, average, adaptive, over 1, 2 or 3 spatial dims) is a window
//! reduction: for each output position and each of the (up to) three spatial dims, a window of
//! input positions `lo..hi` stepping `step`. [`pool`] runs it over `N·C` planes, stored either
//! contiguously (`(N, C, D, H, W)`, parallel over planes) or channels-last (`(N, D, H, W, C)`,
//! parallel over output positions, channels innermost). Interpolation ([`resample`]) is a
//! separable weighted sum: per dim and output index, a few `(input index, weight)` taps.

use rayon::prelude::*;

use crate::geometry::pool::{Reduce, Win};
use crate::geometry::resample::{Real, Taps};
use crate::kernels::par;

/// The float types the kernels compute in: `f32` (also for float16/bfloat16 data, as PyTorch's
/// CPU `opmath_t`) and `f64`; the arithmetic the taps are computed in is geometry's [`Real`].
pub(crate) trait PoolFloat: Real + Send + Sync {
    const NEG_INF: Self;
    fn nan(self) -> bool;
}
impl PoolFloat for f32 {
    const NEG_INF: Self = f32::NEG_INFINITY;
    fn nan(self) -> bool {
        self.is_nan()
    }
}
impl PoolFloat for f64 {
    const NEG_INF: Self = f64::NEG_INFINITY;
    fn nan(self) -> bool {
        self.is_nan()
    }
}

/// An integer pooled in `i64` (every integer dtype widened), with two's-complement
/// arithmetic: PyTorch's integer pooling kernels sum in the data's type, wrapping, and
/// divide with C++'s truncating division; `i64::MIN / -1` wraps too, so no input panics.
/// The max starts from `i64::MIN` (PyTorch's `numeric_limits::lowest()` for types without an
/// infinity); no value is NaN.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub(crate) struct WrapI64(pub i64);

/// `impl Op for WrapI64` by the wrapping `i64` method.
macro_rules! wrapping_op {
    ($($tr:ident $f:ident $w:ident),*) => {$(
        impl std::ops::$tr for WrapI64 {
            type Output = Self;
            fn $f(self, o: Self) -> Self {
                WrapI64(self.0.$w(o.0))
            }
        }
    )*};
}
wrapping_op!(Add add wrapping_add, Sub sub wrapping_sub, Mul mul wrapping_mul);
impl std::ops::Div for WrapI64 {
    type Output = Self;
    /// Truncating division; a zero divisor (refused before any kernel runs) gives 0.
    fn div(self, o: Self) -> Self {
        WrapI64(if o.0 == 0 {
            0
        } else {
            self.0.wrapping_div(o.0)
        })
    }
}
impl Real for WrapI64 {
    const ZERO: Self = WrapI64(0);
    fn of(v: f64) -> Self {
        WrapI64(v as i64)
    }
    fn of_usize(v: usize) -> Self {
        WrapI64(v as i64)
    }
    fn floor(self) -> Self {
        self
    }
    fn f64(self) -> f64 {
        self.0 as f64
    }
}
impl PoolFloat for WrapI64 {
    const NEG_INF: Self = WrapI64(i64::MIN);
    fn nan(self) -> bool {
        false
    }
}

/// The geometry of a pooling: `planes = n·c` planes of `ins` input and `outs` output
/// positions (`[D, H, W]`, unused leading dims of size 1) and per-dim windows
/// (`wins[k][o]`).
pub(crate) struct Geo {
    pub n: usize,
    pub c: usize,
    pub ins: [usize; 3],
    pub outs: [usize; 3],
    pub wins: [Vec<Win>; 3],
    /// Channels-last storage (`(N, D, H, W, C)`) of input and output; else `(N, C, D, H, W)`.
    pub cl: bool,
}

const MIN_TASK: usize = 1 << 14;

impl Geo {
    fn in_plane(&self) -> usize {
        self.ins.iter().product()
    }
    fn out_plane(&self) -> usize {
        self.outs.iter().product()
    }
}

/// Runs the pooling of `g` from `x` into `out` (and the max indices into `idx`, when given;
/// `Reduce::Max` only). `x` and `out` hold `n·c` planes in `g`'s layout.
pub(crate) fn pool<T: PoolFloat>(
    x: &[T],
    out: &mut [T],
    idx: Option<&mut [i64]>,
    g: &Geo,
    r: Reduce,
) {
    let (ip, op) = (g.in_plane(), g.out_plane());
    if op == 0 || g.n * g.c == 0 {
        return;
    }
    let work = (g.n * g.c * op * 4).max(1);
    let parallel = work >= MIN_TASK && par::threads() > 1;
    if !g.cl {
        // one task per plane group
        let per = (MIN_TASK / (op * 4).max(1)).max(1);
        let two = matches!(r, Reduce::Max) && all_2x2(g);
        let plane = |p: usize, o: &mut [T], ix: Option<&mut [i64]>| {
            let xs = &x[p * ip..(p + 1) * ip];
            if two {
                plane_max_2x2(xs, o, ix, g);
            } else {
                plane_pool(xs, o, ix, g, r);
            }
        };
        match idx {
            Some(idx) => {
                if parallel {
                    par::run(|| {
                        out.par_chunks_mut(op)
                            .zip(idx.par_chunks_mut(op))
                            .enumerate()
                            .with_min_len(per)
                            .for_each(|(p, (o, ix))| plane(p, o, Some(ix)))
                    });
                } else {
                    out.chunks_mut(op)
                        .zip(idx.chunks_mut(op))
                        .enumerate()
                        .for_each(|(p, (o, ix))| plane(p, o, Some(ix)));
                }
            }
            None => {
                if parallel {
                    let per = per.max(par::rows_per_block(g.n * g.c, op * 4));
                    par::for_each_block(out, per * op, &|b, ob| {
                        ob.chunks_mut(op)
                            .enumerate()
                            .for_each(|(i, o)| plane(b * per + i, o, None))
                    });
                } else {
                    out.chunks_mut(op)
                        .enumerate()
                        .for_each(|(p, o)| plane(p, o, None));
                }
            }
        }
    } else {
        let c = g.c;
        let per = (MIN_TASK / (c * 4).max(1)).max(1);
        let pos = |q: usize, o: &mut [T], ix: Option<&mut [i64]>| {
            let (n, of) = (q / op, q % op);
            let xs = &x[n * ip * c..(n + 1) * ip * c];
            cl_pool(xs, o, ix, g, r, of);
        };
        match idx {
            Some(idx) => {
                if parallel {
                    par::run(|| {
                        out.par_chunks_mut(c)
                            .zip(idx.par_chunks_mut(c))
                            .enumerate()
                            .with_min_len(per)
                            .for_each(|(q, (o, ix))| pos(q, o, Some(ix)))
                    });
                } else {
                    out.chunks_mut(c)
                        .zip(idx.chunks_mut(c))
                        .enumerate()
                        .for_each(|(q, (o, ix))| pos(q, o, Some(ix)));
                }
            }
            None => {
                if parallel {
                    let per = per.max(par::rows_per_block(g.n * op, c * 4));
                    par::for_each_block(out, per * c, &|b, ob| {
                        ob.chunks_mut(c)
                            .enumerate()
                            .for_each(|(i, o)| pos(b * per + i, o, None))
                    });
                } else {
                    out.chunks_mut(c)
                        .enumerate()
                        .for_each(|(q, o)| pos(q, o, None));
                }
            }
        }
    }
}

/// The divisor of an average window, as PyTorch's `int64_t divide_factor` (a negative
/// `divisor_override` divides by that negative number).
fn divisor<T: Real>(r: Reduce, wd: &Win, wh: &Win, ww: &Win) -> T {
    match r {
        Reduce::Avg {
            divisor_override: Some(d),
            ..
        } => T::of(d as f64),
        Reduce::Avg {
            count_include_pad: true,
            ..
        } => T::of_usize(wd.padded * wh.padded * ww.padded),
        _ => T::of_usize(wd.len() * wh.len() * ww.len()),
    }
}

/// Whether every window of `g` is a full 2×2 block of a 2-D plane (`MaxPool2d(2)`, the most
/// common pooling: kernel 2, stride 2, no padding or dilation, or any geometry whose windows
/// all come out so).
fn all_2x2(g: &Geo) -> bool {
    g.ins[0] == 1
        && g.outs[0] == 1
        && g.wins[0].first().is_some_and(|w| w.len() == 1)
        && (1..3).all(|k| {
            g.wins[k]
                .iter()
                .take(g.outs[k])
                .all(|w| w.step == 1 && w.hi == w.lo + 2)
        })
}

/// Max pooling of one plane whose windows are all 2×2 blocks ([`all_2x2`]): the four values
/// are compared in the general loop's order (row by row), with selects instead of branches.
fn plane_max_2x2<T: PoolFloat>(x: &[T], out: &mut [T], mut idx: Option<&mut [i64]>, g: &Geo) {
    let iw = g.ins[2];
    let ow = g.outs[2];
    for (oh, wh) in g.wins[1].iter().take(g.outs[1]).enumerate() {
        let (r0, r1) = (wh.lo * iw, (wh.lo + 1) * iw);
        for (oc, ww) in g.wins[2].iter().take(ow).enumerate() {
            let c = ww.lo;
            let mut best = x[r0 + c];
            let mut bi = r0 + c;
            for at in [r0 + c + 1, r1 + c, r1 + c + 1] {
                let v = x[at];
                let take = (v > best) | v.nan();
                best = if take { v } else { best };
                bi = if take { at } else { bi };
            }
            // the general loop starts from -inf and takes the first value unless it is -inf
            // (then keeping its index anyway): the same winner and index
            let o = oh * ow + oc;
            out[o] = best;
            if let Some(ix) = idx.as_deref_mut() {
                ix[o] = bi as i64;
            }
        }
    }
}

/// One contiguous plane.
fn plane_pool<T: PoolFloat>(
    x: &[T],
    out: &mut [T],
    mut idx: Option<&mut [i64]>,
    g: &Geo,
    r: Reduce,
) {
    let [_, ih, iw] = g.ins;
    let [od, oh, ow] = g.outs;
    let mut o = 0;
    for wd in &g.wins[0][..od] {
        for wh in &g.wins[1][..oh] {
            for ww in &g.wins[2][..ow] {
                match r {
                    Reduce::Max => {
                        let mut best = T::NEG_INF;
                        let mut bi = (wd.lo * ih + wh.lo) * iw + ww.lo;
                        let mut d = wd.lo;
                        while d < wd.hi {
                            let mut h = wh.lo;
                            while h < wh.hi {
                                let row = (d * ih + h) * iw;
                                let mut w = ww.lo;
                                while w < ww.hi {
                                    let v = x[row + w];
                                    // `|` not `||`, and selects: a data-dependent branch
                                    // here mispredicts about every other element
                                    let take = (v > best) | v.nan();
                                    best = if take { v } else { best };
                                    bi = if take { row + w } else { bi };
                                    w += ww.step;
                                }
                                h += wh.step;
                            }
                            d += wd.step;
                        }
                        out[o] = best;
                        if let Some(ix) = idx.as_deref_mut() {
                            ix[o] = bi as i64;
                        }
                    }
                    Reduce::Avg { .. } => {
                        if wd.len() * wh.len() * ww.len() == 0 {
                            out[o] = T::ZERO;
                        } else {
                            let mut s = T::ZERO;
                            for d in wd.lo..wd.hi {
                                for h in wh.lo..wh.hi {
                                    let row = (d * ih + h) * iw;
                                    for &v in &x[row + ww.lo..row + ww.hi] {
                                        s = s + v;
                                    }
                                }
                            }
                            out[o] = s / divisor::<T>(r, wd, wh, ww);
                        }
                    }
                }
                o += 1;
            }
        }
    }
}

/// One output position `of` (flat over `outs`) of a channels-last batch item: all channels.
fn cl_pool<T: PoolFloat>(
    x: &[T],
    out: &mut [T],
    idx: Option<&mut [i64]>,
    g: &Geo,
    r: Reduce,
    of: usize,
) {
    let [_, ih, iw] = g.ins;
    let [_, oh, ow] = g.outs;
    let c = g.c;
    let (wd, wh, ww) = (
        &g.wins[0][of / (oh * ow)],
        &g.wins[1][(of / ow) % oh],
        &g.wins[2][of % ow],
    );
    // every window position's channel vector, in the general loop's order
    let window = |f: &mut dyn FnMut(usize)| {
        let mut d = wd.lo;
        while d < wd.hi {
            let mut h = wh.lo;
            while h < wh.hi {
                let mut w = ww.lo;
                while w < ww.hi {
                    f((d * ih + h) * iw + w);
                    w += ww.step;
                }
                h += wh.step;
            }
            d += wd.step;
        }
    };
    match r {
        Reduce::Max => {
            out.fill(T::NEG_INF);
            // the channels are independent lanes: selects, no branch, so the loops vectorise
            match idx {
                None => window(&mut |p| {
                    for (b, &v) in out.iter_mut().zip(&x[p * c..(p + 1) * c]) {
                        let take = (v > *b) | v.nan();
                        *b = if take { v } else { *b };
                    }
                }),
                Some(ix) => {
                    ix.fill(((wd.lo * ih + wh.lo) * iw + ww.lo) as i64);
                    window(&mut |p| {
                        let pi = p as i64;
                        for ((b, i), &v) in out
                            .iter_mut()
                            .zip(ix.iter_mut())
                            .zip(&x[p * c..(p + 1) * c])
                        {
                            let take = (v > *b) | v.nan();
                            *b = if take { v } else { *b };
                            *i = if take { pi } else { *i };
                        }
                    })
                }
            }
        }
        Reduce::Avg { .. } => {
            out.fill(T::ZERO);
            if wd.len() * wh.len() * ww.len() == 0 {
                return;
            }
            for d in wd.lo..wd.hi {
                for h in wh.lo..wh.hi {
                    for w in ww.lo..ww.hi {
                        let p = (d * ih + h) * iw + w;
                        for (s, &v) in out.iter_mut().zip(&x[p * c..(p + 1) * c]) {
                            *s = *s + v;
                        }
                    }
                }
            }
            let dv = divisor::<T>(r, wd, wh, ww);
            for s in out.iter_mut() {
                *s = *s / dv;
            }
        }
    }
}

/// Separable resampling of `n·c` planes (`ins` → `outs`, `[D, H, W]`) in `cl` layout
/// (as [`Geo::cl`]): `out[o] = Σ w_d·w_h·w_w · x[i_d, i_h, i_w]` over the taps of each dim.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resample<T: PoolFloat>(
    x: &[T],
    out: &mut [T],
    n: usize,
    c: usize,
    ins: [usize; 3],
    outs: [usize; 3],
    taps: &[Vec<Taps<T>>; 3],
    cl: bool,
) {
    let ip: usize = ins.iter().product();
    let op: usize = outs.iter().product();
    if op == 0 || n * c == 0 {
        return;
    }
    let [_, ih, iw] = ins;
    let [_, oh, ow] = outs;
    let big = n * c * op >= MIN_TASK && par::threads() > 1;
    if !cl {
        let plane = |p: usize, o: &mut [T]| {
            let xs = &x[p * ip..(p + 1) * ip];
            let mut k = 0;
            for td in &taps[0] {
                for th in &taps[1] {
                    for tw in &taps[2] {
                        let mut s = T::ZERO;
                        for &(d, a) in td {
                            for &(h, b) in th {
                                let row = (d * ih + h) * iw;
                                let ab = a * b;
                                for &(w, e) in tw {
                                    s = s + ab * e * xs[row + w];
                                }
                            }
                        }
                        o[k] = s;
                        k += 1;
                    }
                }
            }
        };
        if big {
            let per = par::rows_per_block(n * c, op * 4);
            par::for_each_block(out, per * op, &|b, ob| {
                ob.chunks_mut(op)
                    .enumerate()
                    .for_each(|(i, o)| plane(b * per + i, o))
            });
        } else {
            out.chunks_mut(op)
                .enumerate()
                .for_each(|(p, o)| plane(p, o));
        }
    } else {
        let pos = |q: usize, o: &mut [T]| {
            let (b, of) = (q / op, q % op);
            let xs = &x[b * ip * c..(b + 1) * ip * c];
            let (td, th, tw) = (
                &taps[0][of / (oh * ow)],
                &taps[1][(of / ow) % oh],
                &taps[2][of % ow],
            );
            o.fill(T::ZERO);
            for &(d, a) in td {
                for &(h, bw) in th {
                    let ab = a * bw;
                    for &(w, e) in tw {
                        let wt = ab * e;
                        let p = (d * ih + h) * iw + w;
                        for (s, &v) in o.iter_mut().zip(&xs[p * c..(p + 1) * c]) {
                            *s = *s + wt * v;
                        }
                    }
                }
            }
        };
        if big {
            let per = (MIN_TASK / c.max(1))
                .max(1)
                .max(par::rows_per_block(n * op, c * 4));
            par::for_each_block(out, per * c, &|b, ob| {
                ob.chunks_mut(c)
                    .enumerate()
                    .for_each(|(i, o)| pos(b * per + i, o))
            });
        } else {
            out.chunks_mut(c).enumerate().for_each(|(q, o)| pos(q, o));
        }
    }
}
