//! Row normalisations over contiguous rows of `n` elements, for float32 and the half types
//! (computed in float32, as PyTorch's CPU kernels do), parallel over rows above the grain:
//!
//! * [`layer_norm_rows`]: `y = (x - mean) · rstd · w + b`, `rstd = 1/sqrt(var + eps)` with the
//!   biased variance; the statistics of a row come from two passes over it while it sits in
//!   L1 (sum, then squared deviations, accumulated in double lanes), then one output pass in
//!   float32 as PyTorch forms it: `(x · rstd + (-mean · rstd)) · w + b`.
//!
//! [`layer_norm_f64`] is the float64 form (statistics and affine map in double), and
//! [`layer_norm_backward_rows`] the float32 backward. (`rms_norm` has its own row kernel in
//! `normalize.rs`.)

use rayon::prelude::*;

use crate::kernels::loops::GRAIN;
use crate::kernels::softmax::SoftElem;
use crate::kernels::vmath::multiversion;

/// `Σx` (`dev` false, `c` ignored) or `Σ(x - c)²` (`dev` true) of a row, in double on 16
/// independent lanes combined pairwise (shared with `normalize.rs`'s plane moments).
#[inline(always)]
fn sums_body(xs: &[f32], c: f64, dev: bool) -> f64 {
    let mut acc = [0f64; 16];
    let chunks = xs.chunks_exact(16);
    let rem = chunks.remainder();
    for ch in chunks {
        for l in 0..16 {
            let v = ch[l] as f64;
            acc[l] += if dev { (v - c) * (v - c) } else { v };
        }
    }
    let mut s = 0.0;
    for &v in rem {
        let v = v as f64;
        s += if dev { (v - c) * (v - c) } else { v };
    }
    let mut w = acc;
    let mut k = 16;
    while k > 1 {
        k /= 2;
        for l in 0..k {
            w[l] += w[l + k];
        }
    }
    w[0] + s
}
multiversion!(pub(crate) fn row_sum = sums_body(xs: &[f32], c: f64, dev: bool) -> f64);

/// `y = (x · scale + shift) · w + b`, `w`/`b` absent meaning 1/0.
#[inline(always)]
fn affine_body(xs: &[f32], ys: &mut [f32], scale: f32, shift: f32, w: &[f32], b: &[f32]) {
    match (w.is_empty(), b.is_empty()) {
        (false, false) => {
            for (((y, &x), &w), &b) in ys.iter_mut().zip(xs).zip(w).zip(b) {
                *y = (x * scale + shift) * w + b;
            }
        }
        (false, true) => {
            for ((y, &x), &w) in ys.iter_mut().zip(xs).zip(w) {
                *y = (x * scale + shift) * w;
            }
        }
        (true, false) => {
            for ((y, &x), &b) in ys.iter_mut().zip(xs).zip(b) {
                *y = (x * scale + shift) + b;
            }
        }
        (true, true) => {
            for (y, &x) in ys.iter_mut().zip(xs) {
                *y = x * scale + shift;
            }
        }
    }
}
multiversion!(fn affine = affine_body(xs: &[f32], ys: &mut [f32], scale: f32, shift: f32, w: &[f32], b: &[f32]));

/// A parameter vector in float32 (empty when absent).
fn params<P: SoftElem>(p: Option<&[P]>, n: usize) -> Vec<f32> {
    match p {
        Some(p) => {
            let mut v = vec![0f32; n];
            P::load(&p[..n], &mut v);
            v
        }
        None => Vec::new(),
    }
}

/// Runs `f(x_row, y_row)` on float32 views of each row of `x` and `y` (converted through
/// per-task buffers for the half types), in parallel above the grain.
fn for_rows<T: SoftElem>(x: &[T], y: &mut [T], n: usize, f: impl Fn(&[f32], &mut [f32]) + Sync) {
    let rows = x.len().min(y.len()).checked_div(n).unwrap_or(0);
    if rows == 0 {
        return;
    }
    let (x, y) = (&x[..rows * n], &mut y[..rows * n]);
    let one = |buf: &mut Vec<f32>, (xr, yr): (&[T], &mut [T])| {
        let direct = std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>();
        if direct {
            // float32 rows are used in place (no copy through the buffers)
            let xf: &[f32] = bytemuck_f32(xr);
            let yf: &mut [f32] = bytemuck_f32_mut(yr);
            f(xf, yf);
        } else {
            buf.resize(2 * n, 0.0);
            let (xb, yb) = buf.split_at_mut(n);
            T::load(xr, xb);
            f(xb, yb);
            T::store(yb, yr);
        }
    };
    if rows * n >= 2 * GRAIN && crate::kernels::par::threads() > 1 {
        let per = crate::kernels::par::rows_per_block(rows, n);
        crate::kernels::par::for_each_block(y, per * n, &|b, yb| {
            let mut buf = Vec::new();
            x[b * per * n..]
                .chunks(n)
                .zip(yb.chunks_mut(n))
                .for_each(|p| one(&mut buf, p))
        });
    } else {
        let mut buf = Vec::new();
        x.chunks(n)
            .zip(y.chunks_mut(n))
            .for_each(|p| one(&mut buf, p));
    }
}

/// `xs` as float32 when `T` is float32 (checked by the caller with `TypeId`).
fn bytemuck_f32<T: SoftElem>(xs: &[T]) -> &[f32] {
    assert_eq!(std::any::TypeId::of::<T>(), std::any::TypeId::of::<f32>());
    // SAFETY: T is f32 (asserted), so the slice's memory holds float32 values.
    unsafe { std::slice::from_raw_parts(xs.as_ptr() as *const f32, xs.len()) }
}

/// `ys` as float32 when `T` is float32.
fn bytemuck_f32_mut<T: SoftElem>(ys: &mut [T]) -> &mut [f32] {
    assert_eq!(std::any::TypeId::of::<T>(), std::any::TypeId::of::<f32>());
    // SAFETY: as above.
    unsafe { std::slice::from_raw_parts_mut(ys.as_mut_ptr() as *mut f32, ys.len()) }
}

/// `layer_norm` of each row of `n` elements of `x` into `y`: `(x - mean)/sqrt(var + eps)`,
/// times `w` and plus `b` when given (each `n` elements).
pub(crate) fn layer_norm_rows<T: SoftElem, P: SoftElem>(
    x: &[T],
    y: &mut [T],
    n: usize,
    w: Option<&[P]>,
    b: Option<&[P]>,
    eps: f64,
) {
    let (wf, bf) = (params(w, n), params(b, n));
    for_rows(x, y, n, |xs, ys| {
        let mean = row_sum(xs, 0.0, false) / n as f64;
        let var = row_sum(xs, mean, true) / n as f64;
        let rstd = 1.0 / (var.max(0.0) + eps).sqrt();
        // As PyTorch: `x * scale + (-mean * scale)`, both products in float32, so a row of
        // equal values normalises to exactly 0.
        let scale = rstd as f32;
        let shift = -(mean as f32) * scale;
        affine(xs, ys, scale, shift, &wf, &bf);
    });
}

/// `layer_norm` in float64 (PyTorch's double kernel): each row of `n` elements of `x` into
/// `y`, `(x - mean)/sqrt(var + eps)` with the biased variance, times `w` and plus `b` when
/// given (each `n` elements), statistics and affine map in float64; rows in parallel above
/// the grain. A slice shorter than its `n`-element rows is an internal error (it panics).
pub(crate) fn layer_norm_f64(
    x: &[f64],
    y: &mut [f64],
    n: usize,
    w: Option<&[f64]>,
    b: Option<&[f64]>,
    eps: f64,
) {
    let rows = x.len().min(y.len()).checked_div(n).unwrap_or(0);
    if rows == 0 {
        return;
    }
    let (x, y) = (&x[..rows * n], &mut y[..rows * n]);
    let (w, b) = (w.map(|w| &w[..n]), b.map(|b| &b[..n]));
    let one = |(xs, ys): (&[f64], &mut [f64])| {
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
        let rstd = 1.0 / (var.max(0.0) + eps).sqrt();
        for (k, (o, v)) in ys.iter_mut().zip(xs).enumerate() {
            let mut z = (v - mean) * rstd;
            if let Some(w) = w {
                z *= w[k];
            }
            if let Some(b) = b {
                z += b[k];
            }
            *o = z;
        }
    };
    if rows * n >= 2 * GRAIN && crate::kernels::par::threads() > 1 {
        let per = crate::kernels::par::rows_per_block(rows, n);
        crate::kernels::par::for_each_block(y, per * n, &|b, yb| {
            x[b * per * n..]
                .chunks(n)
                .zip(yb.chunks_mut(n))
                .for_each(&one)
        });
    } else {
        x.chunks(n).zip(y.chunks_mut(n)).for_each(one);
    }
}

/// One row of [`layer_norm_backward_rows`]: statistics as the forward (float64 sums), then
/// `x̂`, `Σ gx̂`, `Σ gx̂·x̂` and `dx` in float64, rounded once.
#[inline(always)]
fn ln_backward_body(xs: &[f32], gs: &[f32], w: &[f32], eps: f64, dx: &mut [f32], xh: &mut [f32]) {
    let n = xs.len();
    let mean = row_sum(xs, 0.0, false) / n as f64;
    let var = row_sum(xs, mean, true) / n as f64;
    let rstd = 1.0 / (var.max(0.0) + eps).sqrt();
    let (mut a, mut b) = (0f64, 0f64);
    for i in 0..n {
        let h = (xs[i] as f64 - mean) * rstd;
        let gh = gs[i] as f64 * if w.is_empty() { 1.0 } else { w[i] as f64 };
        a += gh;
        b += gh * h;
        xh[i] = h as f32;
    }
    let (a, b) = (a / n as f64, b / n as f64);
    for i in 0..n {
        let h = (xs[i] as f64 - mean) * rstd;
        let gh = gs[i] as f64 * if w.is_empty() { 1.0 } else { w[i] as f64 };
        dx[i] = (rstd * (gh - a - h * b)) as f32;
    }
}
multiversion!(fn ln_backward_row = ln_backward_body(xs: &[f32], gs: &[f32], w: &[f32], eps: f64, dx: &mut [f32], xh: &mut [f32]));

/// The backward of [`layer_norm_rows`] for float32 (PyTorch's `LayerNormBackwardKernel`):
/// for each row of `n` elements of `x` and its output gradient `g`, the input gradient
/// `dx = rstd · (gx̂ - mean(gx̂) - x̂ · mean(gx̂ · x̂))` with `gx̂ = g · w` (`w` empty: no
/// weight), and `x̂ = (x - mean) · rstd` into `xhat` (the weight's gradient is `Σ_rows g · x̂`).
/// Parallel over rows above the grain.
pub(crate) fn layer_norm_backward_rows(
    x: &[f32],
    g: &[f32],
    w: &[f32],
    n: usize,
    eps: f64,
    dx: &mut [f32],
    xhat: &mut [f32],
) {
    if n == 0 {
        return;
    }
    type Row<'a> = (((&'a [f32], &'a [f32]), &'a mut [f32]), &'a mut [f32]);
    let one = |(((xs, gs), d), h): Row<'_>| ln_backward_row(xs, gs, w, eps, d, h);
    if x.len() >= 2 * GRAIN && crate::kernels::par::threads() > 1 {
        crate::kernels::par::run(|| {
            x.par_chunks(n)
                .zip(g.par_chunks(n))
                .zip(dx.par_chunks_mut(n))
                .zip(xhat.par_chunks_mut(n))
                .with_min_len((GRAIN / n).max(1))
                .for_each(one)
        });
    } else {
        x.chunks(n)
            .zip(g.chunks(n))
            .zip(dx.chunks_mut(n))
            .zip(xhat.chunks_mut(n))
            .for_each(one);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    fn data(rows: usize, n: usize) -> Vec<f32> {
        (0..rows * n)
            .map(|i| ((i * 7919 % 1000) as f32) * 0.003 + 0.5)
            .collect()
    }

    #[test]
    fn layer_norm_backward_matches_double() {
        // dx = rstd·(g·w - mean(g·w) - x̂·mean(g·w·x̂)), computed here directly in float64
        let (rows, n) = (3, 37);
        let x = data(rows, n);
        let g: Vec<f32> = (0..rows * n)
            .map(|i| ((i * 31 % 17) as f32) * 0.1 - 0.8)
            .collect();
        let w: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 0.01).collect();
        let (mut dx, mut xh) = (vec![0f32; rows * n], vec![0f32; rows * n]);
        layer_norm_backward_rows(&x, &g, &w, n, 1e-5, &mut dx, &mut xh);
        for r in 0..rows {
            let xs: Vec<f64> = x[r * n..(r + 1) * n].iter().map(|&v| v as f64).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let var = xs.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
            let rstd = 1.0 / (var + 1e-5).sqrt();
            let h: Vec<f64> = xs.iter().map(|v| (v - mean) * rstd).collect();
            let gh: Vec<f64> = (0..n).map(|i| g[r * n + i] as f64 * w[i] as f64).collect();
            let a = gh.iter().sum::<f64>() / n as f64;
            let b = gh.iter().zip(&h).map(|(p, q)| p * q).sum::<f64>() / n as f64;
            for i in 0..n {
                let want = rstd * (gh[i] - a - h[i] * b);
                assert!((dx[r * n + i] as f64 - want).abs() <= 1e-5 * (1.0 + want.abs()));
                assert!((xh[r * n + i] as f64 - h[i]).abs() <= 1e-6 * (1.0 + h[i].abs()));
            }
        }
    }

    #[test]
    fn layer_norm_matches_double() {
        for &(rows, n) in &[(1, 1), (3, 5), (2, 17), (300, 768), (5, 1000)] {
            let x = data(rows, n);
            let w: Vec<f32> = (0..n).map(|j| 0.5 + j as f32 * 0.01).collect();
            let b: Vec<f32> = (0..n).map(|j| j as f32 * -0.02).collect();
            let mut y = vec![0f32; rows * n];
            layer_norm_rows(&x, &mut y, n, Some(&w[..]), Some(&b[..]), 1e-5);
            for r in 0..rows {
                let xr: Vec<f64> = x[r * n..(r + 1) * n].iter().map(|&v| v as f64).collect();
                let mean = xr.iter().sum::<f64>() / n as f64;
                let var = xr.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
                for j in 0..n {
                    let want = (xr[j] - mean) / (var + 1e-5).sqrt() * w[j] as f64 + b[j] as f64;
                    let got = y[r * n + j] as f64;
                    assert!(
                        (got - want).abs() < 1e-5 + 1e-5 * want.abs(),
                        "{got} {want}"
                    );
                }
            }
            let xh: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
            let mut yh = vec![bf16::ZERO; rows * n];
            layer_norm_rows::<bf16, f32>(&xh, &mut yh, n, None, None, 1e-5);
            assert!(yh.iter().all(|v| v.to_f32().abs() < 1e3));
        }
    }
}
