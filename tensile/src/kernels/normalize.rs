//! Float32 row and plane kernels of the normalizations (`rms_norm`, `batch_norm`,
//! `group_norm`, `instance_norm`): statistics accumulated in double, the affine map applied in
//! float. Callers pass element pointers of contiguous buffers (outputs fresh) and hold the
//! storage locks.

use rayon::prelude::*;

use crate::kernels::loops::GRAIN;
use crate::kernels::{Ptr, par};

/// Whether `work` elements are worth splitting across threads.
fn parallel(work: usize) -> bool {
    work >= 2 * GRAIN && par::threads() > 1
}

/// `y[r, :] = x[r, :] / sqrt(mean(x[r, :]²) + eps) * w` for `rows` rows of `n` elements
/// (`w` of `n` elements, or none).
///
/// # Safety
/// `x` and `y` hold `rows * n` elements, `w` (when given) `n`; `y` does not overlap `x` or
/// `w`; the caller holds the locks.
pub(crate) unsafe fn rms_rows_f32(
    x: *const f32,
    w: Option<*const f32>,
    y: *mut f32,
    rows: usize,
    n: usize,
    eps: f32,
) {
    let (xp, yp, wp) = (Ptr(x as *mut f32), Ptr(y), w.map(|p| Ptr(p as *mut f32)));
    let one = |r: usize| {
        // SAFETY: row r of x and y lies inside the buffers (the caller's contract); each row of
        // y is written by one task only.
        let (xs, ys, ws) = unsafe {
            (
                std::slice::from_raw_parts(xp.get().add(r * n) as *const f32, n),
                std::slice::from_raw_parts_mut(yp.get().add(r * n), n),
                wp.as_ref()
                    .map(|p| std::slice::from_raw_parts(p.get() as *const f32, n)),
            )
        };
        let mut acc = [0f64; 8];
        let chunks = xs.chunks_exact(8);
        let tail = chunks.remainder();
        for c in chunks {
            for k in 0..8 {
                acc[k] += (c[k] as f64) * (c[k] as f64);
            }
        }
        let total =
            acc.iter().sum::<f64>() + tail.iter().map(|&v| (v as f64) * (v as f64)).sum::<f64>();
        let r = 1.0 / ((total / n as f64) as f32 + eps).sqrt();
        match ws {
            Some(ws) => {
                for ((o, &v), &g) in ys.iter_mut().zip(xs).zip(ws) {
                    *o = v * r * g;
                }
            }
            None => {
                for (o, &v) in ys.iter_mut().zip(xs) {
                    *o = v * r;
                }
            }
        }
    };
    if parallel(rows * n) {
        par::run(|| (0..rows).into_par_iter().for_each(one));
    } else {
        (0..rows).for_each(one);
    }
}

/// `(mean, biased variance)` of each of `planes` contiguous runs of `inner` elements,
/// accumulated in double.
///
/// # Safety
/// `x` holds `planes * inner` elements; the caller holds the lock.
pub(crate) unsafe fn plane_moments_f32(
    x: *const f32,
    planes: usize,
    inner: usize,
) -> Vec<(f64, f64)> {
    let xp = Ptr(x as *mut f32);
    let one = |p: usize| {
        // SAFETY: plane p lies inside the buffer (the caller's contract).
        let xs =
            unsafe { std::slice::from_raw_parts(xp.get().add(p * inner) as *const f32, inner) };
        if inner == 0 {
            return (0.0, 0.0);
        }
        let mean = xs.iter().map(|&v| v as f64).sum::<f64>() / inner as f64;
        let var = xs
            .iter()
            .map(|&v| {
                let d = v as f64 - mean;
                d * d
            })
            .sum::<f64>()
            / inner as f64;
        (mean, var)
    };
    if parallel(planes * inner) {
        par::run(|| (0..planes).into_par_iter().map(one).collect())
    } else {
        (0..planes).map(one).collect()
    }
}

/// `y[i] = fma(x[i], a[i], b[i])`, rounded once.
#[inline(always)]
fn fma_rows_body(xs: &[f32], ys: &mut [f32], a: &[f32], b: &[f32]) {
    for (((o, &v), &a), &b) in ys.iter_mut().zip(xs).zip(a).zip(b) {
        *o = v.mul_add(a, b);
    }
}

/// `y[i] = fma(x[i], a, b)`, rounded once.
#[inline(always)]
fn fma_plane_body(xs: &[f32], ys: &mut [f32], a: f32, b: f32) {
    for (o, &v) in ys.iter_mut().zip(xs) {
        *o = v.mul_add(a, b);
    }
}

/// Runs `$body` compiled for AVX2 + FMA when the CPU has both (a fused multiply-add is one
/// instruction there, a libm call otherwise); the result is the same either way.
macro_rules! with_fma {
    (fn $name:ident = $body:ident ($($arg:ident : $ty:ty),*)) => {
        fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                    #[target_feature(enable = "avx2,fma")]
                    fn fast($($arg: $ty),*) {
                        $body($($arg),*)
                    }
                    // SAFETY: the CPU has AVX2 and FMA (checked just above).
                    return unsafe { fast($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}
with_fma!(fn fma_rows = fma_rows_body(xs: &[f32], ys: &mut [f32], a: &[f32], b: &[f32]));
with_fma!(fn fma_plane = fma_plane_body(xs: &[f32], ys: &mut [f32], a: f32, b: f32));

/// `y[o, c, i] = fma(x[o, c, i], alpha[c], beta[c])` (PyTorch's batch-norm transform, which
/// its compiler fuses) over an `(outer, channels, inner)` block
/// (`alpha`, `beta` of `channels` entries).
///
/// # Safety
/// `x` and `y` hold `outer * channels * inner` elements and do not overlap; the caller holds
/// the locks.
pub(crate) unsafe fn affine_f32(
    x: *const f32,
    y: *mut f32,
    outer: usize,
    alpha: &[f32],
    beta: &[f32],
    inner: usize,
) {
    let ch = alpha.len();
    let (xp, yp) = (Ptr(x as *mut f32), Ptr(y));
    let total = outer * ch * inner;
    if inner == 1 {
        // channels innermost: rows of `ch` elements.
        let one = |r: usize| {
            // SAFETY: row r lies inside both buffers; rows of y are written by one task each.
            let (xs, ys) = unsafe {
                (
                    std::slice::from_raw_parts(xp.get().add(r * ch) as *const f32, ch),
                    std::slice::from_raw_parts_mut(yp.get().add(r * ch), ch),
                )
            };
            fma_rows(xs, ys, alpha, beta);
        };
        if parallel(total) {
            par::run(|| (0..outer).into_par_iter().for_each(one));
        } else {
            (0..outer).for_each(one);
        }
        return;
    }
    let one = |p: usize| {
        let (a, b) = (alpha[p % ch], beta[p % ch]);
        // SAFETY: plane p lies inside both buffers; planes of y are written by one task each.
        let (xs, ys) = unsafe {
            (
                std::slice::from_raw_parts(xp.get().add(p * inner) as *const f32, inner),
                std::slice::from_raw_parts_mut(yp.get().add(p * inner), inner),
            )
        };
        fma_plane(xs, ys, a, b);
    };
    if parallel(total) {
        par::run(|| (0..outer * ch).into_par_iter().for_each(one));
    } else {
        (0..outer * ch).for_each(one);
    }
}
