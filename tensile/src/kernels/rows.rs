//! Row kernels over contiguous buffers: `flip` (rows copied, reversed or not), the float
//! `cumsum`/`cumprod` scans (accumulated in double, as PyTorch's CPU `cpu_cum_base_kernel`)
//! and float32 `softplus`'s function (run by `vmath`). Callers pass the operands' slices (`crate::iter::dense`).

use crate::element::Element;
use crate::kernels::loops::GRAIN;
use crate::kernels::par;

/// Whether `work` elements are worth splitting across threads.
fn parallel(work: usize) -> bool {
    work >= 2 * GRAIN && par::threads() > 1
}

/// The unsigned integers rows are moved as: every bit pattern is a value.
pub(crate) trait Word: Copy {}
impl Word for u8 {}
impl Word for u16 {}
impl Word for u32 {}
impl Word for u64 {}

/// `src` and `dst` as slices of the word `T`, when both are aligned for it and hold whole
/// words (decided once per call, not per row).
pub(crate) fn as_words<'a, T: Word>(
    src: &'a [u8],
    dst: &'a mut [u8],
) -> Option<(&'a [T], &'a mut [T])> {
    // SAFETY: `T` is an unsigned integer type (every bit pattern is a value); `align_to`
    // only reinterprets the aligned middle of each slice, which is used only when the whole
    // slice is that middle.
    let ((sp, sm, ss), (dp, dm, ds)) = unsafe { (src.align_to::<T>(), dst.align_to_mut::<T>()) };
    (sp.is_empty() && ss.is_empty() && dp.is_empty() && ds.is_empty()).then_some((sm, dm))
}

/// `dst` row `r` (of `n` units `T`) = `src` row `src_rows[r]`, reversed when `rev`; rows are
/// written in parallel above the grain size, counted in elements (`elems` per row).
fn rows_as<T: Copy + Send + Sync>(
    src: &[T],
    dst: &mut [T],
    src_rows: &[usize],
    (n, elems): (usize, usize),
    rev: bool,
) {
    let dst = &mut dst[..src_rows.len() * n];
    let one = |(r, d): (usize, &mut [T])| {
        let s = &src[src_rows[r] * n..][..n];
        if rev {
            for (o, i) in d.iter_mut().zip(s.iter().rev()) {
                *o = *i;
            }
        } else {
            d.copy_from_slice(s);
        }
    };
    if parallel(src_rows.len() * elems) {
        let rows = src_rows.len();
        let per = par::rows_per_block(rows, elems);
        par::for_each_block(dst, per * n, &|b, db| {
            db.chunks_mut(n)
                .enumerate()
                .for_each(|(i, r)| one((b * per + i, r)))
        });
    } else {
        dst.chunks_mut(n).enumerate().for_each(one);
    }
}

/// `dst` row `r` (of `n` elements of `esize` bytes) = `src` row `src_rows[r]`, reversed when
/// `rev`; rows are written in parallel above the grain size. `dst` holds `src_rows.len()`
/// rows and `src` every row named (a shorter slice is an internal error: it panics). Rows are
/// moved as whole words (`u16`/`u32`/`u64`) when the element size and alignment allow.
pub(crate) fn flip_rows(
    src: &[u8],
    dst: &mut [u8],
    src_rows: &[usize],
    n: usize,
    esize: usize,
    rev: bool,
) {
    let row = n * esize;
    if row == 0 {
        return;
    }
    if !rev || esize == 1 {
        return rows_as(src, dst, src_rows, (row, n), rev);
    }
    let done = match esize {
        2 => as_words::<u16>(src, dst).map(|(s, d)| rows_as(s, d, src_rows, (n, n), true)),
        4 => as_words::<u32>(src, dst).map(|(s, d)| rows_as(s, d, src_rows, (n, n), true)),
        8 => as_words::<u64>(src, dst).map(|(s, d)| rows_as(s, d, src_rows, (n, n), true)),
        _ => None,
    };
    if done.is_some() {
        return;
    }
    // other element sizes, or unaligned rows: element by element
    let dst = &mut dst[..src_rows.len() * row];
    let one = |(r, d): (usize, &mut [u8])| {
        let s = &src[src_rows[r] * row..][..row];
        for (o, i) in d.chunks_exact_mut(esize).zip(s.chunks_exact(esize).rev()) {
            o.copy_from_slice(i);
        }
    };
    if parallel(src_rows.len() * n) {
        let rows = src_rows.len();
        let per = par::rows_per_block(rows, n);
        par::for_each_block(dst, per * row, &|b, db| {
            db.chunks_mut(row)
                .enumerate()
                .for_each(|(i, r)| one((b * per + i, r)))
        });
    } else {
        dst.chunks_mut(row).enumerate().for_each(one);
    }
}

/// Running sums (or products) along the middle dim of a contiguous `(outer, n, inner)` buffer
/// of `T`, accumulated in double and rounded once per element into `dst` (same shape); blocks
/// run in parallel above the grain size. Both slices hold `outer * n * inner` elements (a
/// shorter one is an internal error: it panics).
pub(crate) fn cum_f64<T: Element>(
    src: &[T],
    dst: &mut [T],
    outer: usize,
    n: usize,
    inner: usize,
    prod: bool,
) {
    let len = n * inner;
    if len == 0 {
        return;
    }
    let (src, dst) = (&src[..outer * len], &mut dst[..outer * len]);
    let one = |(ys, xs): (&mut [T], &[T])| {
        if inner == 1 {
            let mut acc = if prod { 1.0 } else { 0.0 };
            if prod {
                for (y, x) in ys.iter_mut().zip(xs) {
                    acc *= x.to_f64();
                    *y = T::from_f64(acc);
                }
            } else {
                for (y, x) in ys.iter_mut().zip(xs) {
                    acc += x.to_f64();
                    *y = T::from_f64(acc);
                }
            }
        } else {
            let mut acc = vec![if prod { 1.0f64 } else { 0.0 }; inner];
            for (yr, xr) in ys.chunks_exact_mut(inner).zip(xs.chunks_exact(inner)) {
                for ((a, y), x) in acc.iter_mut().zip(yr).zip(xr) {
                    if prod {
                        *a *= x.to_f64();
                    } else {
                        *a += x.to_f64();
                    }
                    *y = T::from_f64(*a);
                }
            }
        }
    };
    if parallel(outer * len) {
        let per = par::rows_per_block(outer, len);
        par::for_each_block(dst, per * len, &|b, db| {
            db.chunks_mut(len)
                .zip(src[b * per * len..].chunks(len))
                .for_each(&one)
        });
    } else {
        dst.chunks_mut(len).zip(src.chunks(len)).for_each(one);
    }
}

/// `log1p(exp(y)) / b` for `y = x*b` (float, as PyTorch forms it) with `x*b > t` giving `x`:
/// computed in double as `max(y, 0) + log1p(exp(-|y|))` with polynomial `exp` and `log1p`
/// (relative error below 1e-9, far under float32's rounding), rounded once. Branch-free, so
/// loops over it vectorise.
#[inline(always)]
pub(crate) fn softplus_f32(x: f32, b: f32, t: f32) -> f32 {
    const SHIFT: f64 = 6755399441055744.0; // 1.5 * 2^52: adding it rounds to an integer
    const LN2_HI: f64 = 0.693_147_180_369_123_8;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    let y = x * b;
    let yd = y as f64;
    let neg = if yd < 0.0 { yd } else { -yd };
    // exp(-|y|) in (0, 1]; the clamp keeps 2^n normal (NaN passes through the comparison)
    let a = if neg < -700.0 { -700.0 } else { neg };
    let kf = a * std::f64::consts::LOG2_E + SHIFT;
    let nf = kf - SHIFT;
    let r = a - nf * LN2_HI - nf * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (1.0 / 2.0
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0
                        + r * (1.0 / 120.0
                            + r * (1.0 / 720.0 + r * (1.0 / 5040.0 + r * (1.0 / 40320.0))))))));
    let ni = (kf.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
    let u = p * f64::from_bits((ni.wrapping_add(1023) << 52) as u64);
    // log1p(u) = 2 atanh(s), s = u / (2 + u) in (0, 1/3]
    let s = u / (2.0 + u);
    let s2 = s * s;
    let q = 1.0
        + s2 * (1.0 / 3.0
            + s2 * (1.0 / 5.0
                + s2 * (1.0 / 7.0
                    + s2 * (1.0 / 9.0
                        + s2 * (1.0 / 11.0
                            + s2 * (1.0 / 13.0
                                + s2 * (1.0 / 15.0 + s2 * (1.0 / 17.0 + s2 * (1.0 / 19.0)))))))));
    let l = 2.0 * s * q;
    let pos = if yd > 0.0 { yd } else { 0.0 };
    let v = ((pos + l) * (1.0 / b as f64)) as f32;
    if y > t { x } else { v }
}
