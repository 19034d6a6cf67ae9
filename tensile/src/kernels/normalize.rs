//! Float32 row and plane kernels of the normalizations (`rms_norm`, `batch_norm`,
//! `group_norm`, `instance_norm`): statistics accumulated in double, the affine map applied in
//! float. Callers pass the slices of contiguous buffers (`crate::iter::dense`); a slice
//! shorter than the sizes given is an internal error (it panics).

use crate::kernels::loops::GRAIN;
use crate::kernels::par;

/// Whether `work` elements are worth splitting across threads.
fn parallel(work: usize) -> bool {
    work >= 2 * GRAIN && par::threads() > 1
}

/// `y[r, :] = x[r, :] / sqrt(mean(x[r, :]²) + eps) * w` for `rows` rows of `n` elements
/// (`w` of `n` elements, or none), rows in parallel above the grain size.
pub(crate) fn rms_rows_f32(
    x: &[f32],
    w: Option<&[f32]>,
    y: &mut [f32],
    rows: usize,
    n: usize,
    eps: f32,
) {
    if rows * n == 0 {
        return;
    }
    let (x, y, ws) = (&x[..rows * n], &mut y[..rows * n], w.map(|w| &w[..n]));
    let one = |(ys, xs): (&mut [f32], &[f32])| {
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
        let per = par::rows_per_block(rows, n);
        par::for_each_block(y, per * n, &|b, yb| {
            yb.chunks_mut(n)
                .zip(x[b * per * n..].chunks(n))
                .for_each(&one)
        });
    } else {
        y.chunks_mut(n).zip(x.chunks(n)).for_each(one);
    }
}

/// `(mean, biased variance)` of each of `planes` contiguous runs of `inner` elements,
/// accumulated in double (two passes, on independent lanes), planes in parallel above the
/// grain size.
pub(crate) fn plane_moments_f32(x: &[f32], planes: usize, inner: usize) -> Vec<(f64, f64)> {
    let x = &x[..planes * inner];
    let one = |p: usize| {
        let xs = &x[p * inner..(p + 1) * inner];
        if inner == 0 {
            return (0.0, 0.0);
        }
        // two passes (the plane is in cache for the second), each on independent double
        // lanes the compiler vectorises
        let mean = crate::kernels::norm::row_sum(xs, 0.0, false) / inner as f64;
        let var = crate::kernels::norm::row_sum(xs, mean, true) / inner as f64;
        (mean, var)
    };
    if parallel(planes * inner) {
        let per = par::rows_per_block(planes, inner);
        par::map_tasks(planes.div_ceil(per), |b| {
            (b * per..((b + 1) * per).min(planes))
                .map(one)
                .collect::<Vec<_>>()
        })
        .concat()
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
/// its compiler fuses) over an `(outer, channels, inner)` block (`alpha`, `beta` of `channels`
/// entries), in parallel above the grain size.
pub(crate) fn affine_f32(
    x: &[f32],
    y: &mut [f32],
    outer: usize,
    alpha: &[f32],
    beta: &[f32],
    inner: usize,
) {
    let ch = alpha.len();
    let total = outer * ch * inner;
    if total == 0 {
        return;
    }
    let (x, y) = (&x[..total], &mut y[..total]);
    if inner == 1 {
        // channels innermost: rows of `ch` elements.
        let one = |(ys, xs): (&mut [f32], &[f32])| fma_rows(xs, ys, alpha, beta);
        if parallel(total) {
            let per = par::rows_per_block(outer, ch);
            par::for_each_block(y, per * ch, &|b, yb| {
                yb.chunks_mut(ch)
                    .zip(x[b * per * ch..].chunks(ch))
                    .for_each(&one)
            });
        } else {
            y.chunks_mut(ch).zip(x.chunks(ch)).for_each(one);
        }
        return;
    }
    let one = |(p, (ys, xs)): (usize, (&mut [f32], &[f32]))| {
        fma_plane(xs, ys, alpha[p % ch], beta[p % ch]);
    };
    if parallel(total) {
        let planes = outer * ch;
        let per = par::rows_per_block(planes, inner);
        par::for_each_block(y, per * inner, &|b, yb| {
            yb.chunks_mut(inner)
                .zip(x[b * per * inner..].chunks(inner))
                .enumerate()
                .for_each(|(i, r)| one((b * per + i, r)))
        });
    } else {
        y.chunks_mut(inner)
            .zip(x.chunks(inner))
            .enumerate()
            .for_each(one);
    }
}
