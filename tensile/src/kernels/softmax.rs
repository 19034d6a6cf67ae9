//! `softmax` and `log_softmax` of float32, float16 and bfloat16 in float32 (PyTorch's
//! accumulation type for all three), with the vectorised [`exp_f32`].
//!
//! The buffer is seen as `(outer, len, inner)` with the reduced dim in the middle. When
//! `inner == 1` (the last dim) each row is one task: its max, then `e = exp(x - max)` with
//! their sum in the same pass, then `e · (1/sum)` (`softmax`) or `(x - max) - log(sum)`
//! (`log_softmax`), as PyTorch's `_vec_softmax_lastdim` / `_vec_log_softmax_lastdim`. Other
//! dims take blocks of up to [`COLS`] adjacent columns, reduced across rows, with no
//! transposed copy. Half types are converted to float32 a row (or block) at a time and
//! rounded once on the way out, except PyTorch's last-dim half `log_softmax`, which rounds
//! the sum and its log to the half type too (see [`softmax`]'s `half_lastdim_log`).

use half::{bf16, f16};

use crate::kernels::Ptr;
use crate::kernels::loops::GRAIN;
use crate::kernels::vmath::{exp_f32, multiversion};

/// Columns per block when the reduced dim is not the last.
const COLS: usize = 64;

/// An element type the kernels compute in float32.
pub(crate) trait SoftElem: Copy + Send + Sync + 'static {
    /// `dst[i] = src[i] as f32`.
    fn load(src: &[Self], dst: &mut [f32]);
    /// `dst[i] = src[i]` rounded to `Self`.
    fn store(src: &[f32], dst: &mut [Self]);
    /// `v` rounded to `Self` and back.
    fn round(v: f32) -> f32;
}

impl SoftElem for f32 {
    fn load(src: &[f32], dst: &mut [f32]) {
        dst.copy_from_slice(src)
    }
    fn store(src: &[f32], dst: &mut [f32]) {
        dst.copy_from_slice(src)
    }
    fn round(v: f32) -> f32 {
        v
    }
}

/// float16 loads and stores a block at a time with the CPU's conversions (`simd`'s).
impl SoftElem for f16 {
    fn load(src: &[f16], dst: &mut [f32]) {
        crate::kernels::simd::f16_to_f32(src, dst)
    }
    fn store(src: &[f32], dst: &mut [f16]) {
        crate::kernels::simd::f32_to_f16(src, dst)
    }
    fn round(v: f32) -> f32 {
        f16::from_f32(v).to_f32()
    }
}

/// bfloat16 loads and stores as bit moves (and round-to-nearest-even bit arithmetic) in
/// loops the compiler vectorises.
impl SoftElem for bf16 {
    fn load(src: &[bf16], dst: &mut [f32]) {
        crate::kernels::cast::bf16_to_f32_slice(src, dst)
    }
    fn store(src: &[f32], dst: &mut [bf16]) {
        crate::kernels::cast::f32_to_bf16_slice(src, dst)
    }
    fn round(v: f32) -> f32 {
        bf16::from_f32(v).to_f32()
    }
}

/// The largest element (NaN ignored: a NaN anywhere makes the sum, and so every output,
/// NaN anyway); `-inf` for an empty row.
#[inline(always)]
fn max_body(xs: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; 16];
    let chunks = xs.chunks_exact(16);
    let rem = chunks.remainder();
    for c in chunks {
        for l in 0..16 {
            acc[l] = if c[l] > acc[l] { c[l] } else { acc[l] };
        }
    }
    let mut m = f32::NEG_INFINITY;
    for &v in acc.iter().chain(rem) {
        if v > m {
            m = v;
        }
    }
    m
}
multiversion!(fn row_max = max_body(xs: &[f32]) -> f32);

/// Sum of 16 lanes, pairwise.
#[inline(always)]
fn lanes_sum(a: &[f32; 16]) -> f32 {
    let mut w = *a;
    let mut n = 16;
    while n > 1 {
        n /= 2;
        for l in 0..n {
            w[l] += w[l + n];
        }
    }
    w[0]
}

/// `ys[i] = exp(xs[i] - m)` (when `store`), returning their sum.
#[inline(always)]
fn exp_sum_body(xs: &[f32], ys: &mut [f32], m: f32, store: bool) -> f32 {
    let mut acc = [0f32; 16];
    let xc = xs.chunks_exact(16);
    let xr = xc.remainder();
    let mut s = 0.0;
    if store {
        let n = xs.len().min(ys.len());
        let mut yc = ys[..n].chunks_exact_mut(16);
        for (x, y) in xc.zip(&mut yc) {
            for l in 0..16 {
                let e = exp_f32(x[l] - m);
                y[l] = e;
                acc[l] += e;
            }
        }
        for (x, y) in xr.iter().zip(yc.into_remainder()) {
            let e = exp_f32(*x - m);
            *y = e;
            s += e;
        }
    } else {
        for x in xc {
            for l in 0..16 {
                acc[l] += exp_f32(x[l] - m);
            }
        }
        for x in xr {
            s += exp_f32(*x - m);
        }
    }
    lanes_sum(&acc) + s
}
multiversion!(fn exp_sum = exp_sum_body(xs: &[f32], ys: &mut [f32], m: f32, store: bool) -> f32);

/// `ys[i] *= k`.
#[inline(always)]
fn scale_body(ys: &mut [f32], k: f32) {
    for y in ys {
        *y *= k;
    }
}
multiversion!(fn scale = scale_body(ys: &mut [f32], k: f32));

/// `ys[i] = (xs[i] - m) - lse`.
#[inline(always)]
fn log_out_body(xs: &[f32], ys: &mut [f32], m: f32, lse: f32) {
    for (y, &x) in ys.iter_mut().zip(xs) {
        *y = (x - m) - lse;
    }
}
multiversion!(fn log_out = log_out_body(xs: &[f32], ys: &mut [f32], m: f32, lse: f32));

/// One row: `x` in, `y` out (both float32, `len` elements).
fn row(x: &[f32], y: &mut [f32], log: bool, round: Option<fn(f32) -> f32>) {
    let mut m = row_max(x);
    if m.is_infinite() {
        m = 0.0;
    }
    if log {
        let s = exp_sum(x, &mut [], m, false);
        let lse = match round {
            Some(r) => r(r(s).ln()),
            None => s.ln(),
        };
        log_out(x, y, m, lse);
    } else {
        let s = exp_sum(x, y, m, true);
        scale(y, 1.0 / s);
    }
}

/// A block of up to [`COLS`] columns, reduced down the columns: `xs[k]` is row `k` of the
/// input block and `ys[k]` the same row of the output block (`cw` elements each). Per column:
/// its max, `e = exp(x - max)` and their sum, then `e · (1/sum)` or `(x - max) - log(sum)`.
#[inline(always)]
fn block_body(xs: &[&[f32]], ys: &mut [&mut [f32]], log: bool) {
    let cw = ys.first().map_or(0, |y| y.len()).min(COLS);
    let mut mx = [f32::NEG_INFINITY; COLS];
    let mut sum = [0f32; COLS];
    let (mx, sum) = (&mut mx[..cw], &mut sum[..cw]);
    for x in xs {
        for (m, &v) in mx.iter_mut().zip(&x[..cw]) {
            *m = if v > *m { v } else { *m };
        }
    }
    for m in mx.iter_mut() {
        if m.is_infinite() {
            *m = 0.0;
        }
    }
    for (x, y) in xs.iter().zip(ys.iter_mut()) {
        for (((s, m), &v), y) in sum
            .iter_mut()
            .zip(mx.iter())
            .zip(&x[..cw])
            .zip(&mut y[..cw])
        {
            let e = exp_f32(v - *m);
            if !log {
                *y = e;
            }
            *s += e;
        }
    }
    if log {
        for s in sum.iter_mut() {
            *s = s.ln();
        }
        for (x, y) in xs.iter().zip(ys.iter_mut()) {
            for (((y, m), s), &v) in y[..cw]
                .iter_mut()
                .zip(mx.iter())
                .zip(sum.iter())
                .zip(&x[..cw])
            {
                *y = (v - *m) - *s;
            }
        }
    } else {
        for s in sum.iter_mut() {
            *s = 1.0 / *s;
        }
        for y in ys.iter_mut() {
            for (v, s) in y[..cw].iter_mut().zip(sum.iter()) {
                *v *= *s;
            }
        }
    }
}
multiversion!(fn block = block_body(xs: &[&[f32]], ys: &mut [&mut [f32]], log: bool));

/// Whether `work` elements are worth splitting across threads.
fn parallel(work: usize) -> bool {
    work >= 2 * GRAIN && crate::kernels::par::threads() > 1
}

/// `softmax` (or `log_softmax` when `log`) along the middle dim of a contiguous
/// `(outer, len, inner)` buffer `src` into `dst` (same shape and dtype), in parallel above the
/// grain size. `half_lastdim_log` asks for PyTorch's last-dim half-type `log_softmax`, which
/// rounds the sum of exponentials and its log to `T` before the subtraction. Both slices hold
/// `outer · len · inner` elements (a shorter one is an internal error: it panics).
pub(crate) fn softmax<T: SoftElem>(
    src: &[T],
    dst: &mut [T],
    outer: usize,
    len: usize,
    inner: usize,
    log: bool,
    half_lastdim_log: bool,
) {
    let total = outer * len * inner;
    if total == 0 {
        return;
    }
    let (src, dst) = (&src[..total], &mut dst[..total]);
    let f32_direct = std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>();
    let round: Option<fn(f32) -> f32> = if half_lastdim_log {
        Some(T::round)
    } else {
        None
    };
    if inner == 1 {
        let one = |scratch: &mut Vec<f32>, (ys, xs): (&mut [T], &[T])| {
            if f32_direct {
                // SAFETY: T is f32 (checked by TypeId), so the slices are float32 slices of
                // the same lengths.
                let (xf, yf) = unsafe {
                    (
                        std::slice::from_raw_parts(xs.as_ptr() as *const f32, xs.len()),
                        std::slice::from_raw_parts_mut(ys.as_mut_ptr() as *mut f32, ys.len()),
                    )
                };
                row(xf, yf, log, round);
            } else {
                scratch.resize(2 * len, 0.0);
                let (xb, yb) = scratch.split_at_mut(len);
                T::load(xs, xb);
                row(xb, yb, log, round);
                T::store(yb, ys);
            }
        };
        if parallel(total) {
            let rows = dst.len() / len;
            let per = crate::kernels::par::rows_per_block(rows, len);
            crate::kernels::par::for_each_block(dst, per * len, &|b, db| {
                let mut scratch = Vec::new();
                db.chunks_mut(len)
                    .zip(src[b * per * len..].chunks(len))
                    .for_each(|rows| one(&mut scratch, rows))
            });
        } else {
            let mut scratch = Vec::new();
            dst.chunks_mut(len)
                .zip(src.chunks(len))
                .for_each(|rows| one(&mut scratch, rows));
        }
        return;
    }
    // Column blocks: a task writes `cw` columns of each of `len` rows, not one run, so the
    // blocks are reached through a pointer; `dst` is this call's alone. Float32 blocks are
    // read and written in place; the half types go through float32 buffers.
    let (sp, dp) = (Ptr(src.as_ptr() as *mut T), Ptr(dst.as_mut_ptr()));
    let nblk = inner.div_ceil(COLS);
    let one = |scratch: &mut Vec<f32>, u: usize| {
        let (o, j0) = (u / nblk, (u % nblk) * COLS);
        let cw = COLS.min(inner - j0);
        let at = |k: usize| (o * len + k) * inner + j0;
        // SAFETY: `cw` elements from `at(k)` lie inside `src`, of `total` elements (o < outer,
        // k < len, j0 + cw <= inner); `src` is only read.
        let xs = (0..len)
            .map(|k| unsafe { std::slice::from_raw_parts(sp.get().add(at(k)) as *const T, cw) });
        // SAFETY: as above, in `dst`; the block's columns of `dst` are written by this task
        // only (the rows' runs are disjoint), and nothing else reads or writes `dst` during
        // the call (`&mut`).
        let ys =
            (0..len).map(|k| unsafe { std::slice::from_raw_parts_mut(dp.get().add(at(k)), cw) });
        if f32_direct {
            // SAFETY: T is f32 (checked by TypeId), so the runs are float32 runs.
            let xf: Vec<&[f32]> = xs
                .map(|x| unsafe { &*(x as *const [T] as *const [f32]) })
                .collect();
            // SAFETY: as above.
            let mut yf: Vec<&mut [f32]> = ys
                .map(|y| unsafe { &mut *(y as *mut [T] as *mut [f32]) })
                .collect();
            block(&xf, &mut yf, log);
            return;
        }
        scratch.resize(2 * len * cw, 0.0);
        let (xb, yb) = scratch.split_at_mut(len * cw);
        for (x, b) in xs.zip(xb.chunks_exact_mut(cw)) {
            T::load(x, b);
        }
        let xf: Vec<&[f32]> = xb.chunks_exact(cw).collect();
        let mut yf: Vec<&mut [f32]> = yb.chunks_exact_mut(cw).collect();
        block(&xf, &mut yf, log);
        for (y, b) in ys.zip(yb.chunks_exact(cw)) {
            T::store(b, y);
        }
    };
    let units = outer * nblk;
    if parallel(total) {
        let per = crate::kernels::par::rows_per_block(units, len * COLS);
        crate::kernels::par::for_each_task(units.div_ceil(per), &|b| {
            let mut scratch = Vec::new();
            (b * per..((b + 1) * per).min(units)).for_each(|u| one(&mut scratch, u))
        });
    } else {
        let mut scratch = Vec::new();
        (0..units).for_each(|u| one(&mut scratch, u));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(x: &[f64], outer: usize, len: usize, inner: usize, log: bool) -> Vec<f64> {
        let mut y = x.to_vec();
        for o in 0..outer {
            for i in 0..inner {
                let at = |k: usize| (o * len + k) * inner + i;
                let m = (0..len).map(|k| x[at(k)]).fold(f64::NEG_INFINITY, f64::max);
                let s: f64 = (0..len).map(|k| (x[at(k)] - m).exp()).sum();
                for k in 0..len {
                    y[at(k)] = if log {
                        x[at(k)] - m - s.ln()
                    } else {
                        (x[at(k)] - m).exp() / s
                    };
                }
            }
        }
        y
    }

    #[test]
    fn matches_double_reference() {
        for &(outer, len, inner) in &[
            (1, 1, 1),
            (3, 17, 1),
            (2, 100, 1),
            (2, 5, 3),
            (3, 33, 70),
            (600, 130, 1),
        ] {
            let n = outer * len * inner;
            let x: Vec<f32> = (0..n)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.17)
                .collect();
            let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            for log in [false, true] {
                let want = reference(&xd, outer, len, inner, log);
                let mut y = vec![0f32; n];
                softmax(&x, &mut y, outer, len, inner, log, false);
                for (g, w) in y.iter().zip(&want) {
                    assert!(
                        (*g as f64 - w).abs() <= 1e-6 + 1e-6 * w.abs(),
                        "{outer} {len} {inner} {log}: {g} vs {w}"
                    );
                }
                let xh: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
                let mut yh = vec![f16::ZERO; n];
                softmax(&xh, &mut yh, outer, len, inner, log, false);
                let xd: Vec<f64> = xh.iter().map(|v| v.to_f64()).collect();
                let want = reference(&xd, outer, len, inner, log);
                for (g, w) in yh.iter().zip(&want) {
                    assert!((g.to_f64() - w).abs() <= 1e-3 * (1.0 + w.abs()));
                }
            }
        }
    }
}
