//! Loss kernels: the fused float32 cross-entropy row pass (row max, then `Σ exp(x - max)`
//! with a vectorisable exp, then `log-sum-exp - x[target]`), parallel over rows.

use super::vmath::exp_f32;

/// `(max, has_nan)` of a non-empty row.
#[inline(always)]
fn row_max(xs: &[f32]) -> (f32, bool) {
    let mut m = [f32::NEG_INFINITY; 16];
    let mut nan = [false; 16];
    let chunks = xs.chunks_exact(16);
    let rem = chunks.remainder();
    for c in chunks {
        for l in 0..16 {
            m[l] = if c[l] > m[l] { c[l] } else { m[l] };
            nan[l] |= c[l].is_nan();
        }
    }
    let mut mm = m.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let mut any = nan.iter().any(|&b| b);
    for &v in rem {
        mm = mm.max(v);
        any |= v.is_nan();
    }
    (mm, any)
}

/// `Σ exp(x - m)` of a row whose max is the finite `m`.
#[inline(always)]
fn row_exp_sum(xs: &[f32], m: f32) -> f32 {
    let mut acc = [0.0f32; 16];
    let chunks = xs.chunks_exact(16);
    let rem = chunks.remainder();
    for c in chunks {
        for l in 0..16 {
            acc[l] += exp_f32(c[l] - m);
        }
    }
    let mut s: f32 = acc.iter().sum();
    for &v in rem {
        s += exp_f32(v - m);
    }
    s
}

/// `log-sum-exp(row) - row[t]`, in double for rows holding NaN or infinities.
#[inline(always)]
fn row_loss(xs: &[f32], t: usize) -> f32 {
    let (m, nan) = row_max(xs);
    if nan || !m.is_finite() {
        let m = xs.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b as f64));
        let m = if m.is_infinite() { 0.0 } else { m };
        let s: f64 = xs.iter().map(|&v| (v as f64 - m).exp()).sum();
        let nanrow = xs.iter().any(|v| v.is_nan());
        if nanrow {
            return f32::NAN;
        }
        return (s.ln() - (xs[t] as f64 - m)) as f32;
    }
    let s = row_exp_sum(xs, m);
    (m + s.ln()) - xs[t]
}

fn rows_body(
    x: &[f32],
    c: usize,
    target: &[i64],
    weight: Option<&[f32]>,
    ignore: i64,
    out: &mut [f32],
) {
    for (i, o) in out.iter_mut().enumerate() {
        let t = target[i];
        if t == ignore {
            *o = 0.0;
            continue;
        }
        let t = t as usize;
        let w = weight.map_or(1.0, |w| w[t]);
        *o = row_loss(&x[i * c..(i + 1) * c], t) * w;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn rows_avx2(
    x: &[f32],
    c: usize,
    target: &[i64],
    weight: Option<&[f32]>,
    ignore: i64,
    out: &mut [f32],
) {
    rows_body(x, c, target, weight, ignore, out)
}

fn rows(x: &[f32], c: usize, target: &[i64], weight: Option<&[f32]>, ignore: i64, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::simd::has_avx2() && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has AVX2 and FMA (checked just above).
        unsafe { rows_avx2(x, c, target, weight, ignore, out) };
        return;
    }
    rows_body(x, c, target, weight, ignore, out)
}

/// Per-row cross-entropy of `(n, c)` row-major float32 logits `x`: `out[i] =
/// (logsumexp(x[i]) - x[i][t_i])·w[t_i]`, 0 where `t_i == ignore`. Every other target must be
/// in `0..c` (the caller checks). Rows are split across the intra-op pool when the work is
/// large.
pub(crate) fn cross_entropy_rows_f32(
    x: &[f32],
    c: usize,
    target: &[i64],
    weight: Option<&[f32]>,
    ignore: i64,
    out: &mut [f32],
) {
    let n = out.len();
    if c == 0 || n == 0 {
        return;
    }
    let work = n * c;
    if work >= 2 * crate::kernels::loops::GRAIN && crate::kernels::par::threads() > 1 {
        let rows_per = (2 * crate::kernels::loops::GRAIN / c).max(1);
        crate::kernels::par::for_each_block(out, rows_per, &|k, o| {
            let r0 = k * rows_per;
            let r1 = r0 + o.len();
            rows(&x[r0 * c..r1 * c], c, &target[r0..r1], weight, ignore, o);
        });
    } else {
        rows(x, c, target, weight, ignore, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_match_a_plain_log_softmax() {
        let c = 37;
        let x: Vec<f32> = (0..3 * c)
            .map(|i| ((i * 7919) % 101) as f32 / 13.0 - 4.0)
            .collect();
        let t = [3i64, -100, 36];
        let mut out = [0f32; 3];
        cross_entropy_rows_f32(&x, c, &t, None, -100, &mut out);
        for (i, &ti) in t.iter().enumerate() {
            if ti < 0 {
                assert_eq!(out[i], 0.0);
                continue;
            }
            let row = &x[i * c..(i + 1) * c];
            let m = row.iter().fold(f64::MIN, |a, &b| a.max(b as f64));
            let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
            let want = m + s.ln() - row[ti as usize] as f64;
            assert!((out[i] as f64 - want).abs() < 1e-5 * want.abs().max(1.0));
        }
    }
}
