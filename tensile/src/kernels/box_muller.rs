//! PyTorch's float32 `normal_` transform (`NormalFill16<float>` of the AVX2 kernel): Box–Muller
//! on blocks of 16 uniforms, with the float32 `log` and `sincos` of `avx_mathfun.h`
//! (`log256_ps`, `sincos256_ps`) written lane by lane and compiled with FMA (and vectorised)
//! when the CPU has it, as PyTorch's AVX2 `normal_` kernel computes them: Cephes polynomials in single
//! precision, with the multiply-adds that GCC contracts into fused multiply-adds when it
//! compiles the intrinsics with `-mfma` (each `a*b` whose only use is an add or subtract,
//! taken in statement order). Every operation below is one rounding of PyTorch's sequence, so
//! `randn` matches PyTorch's float32 values bit for bit (checked against torch 2.15 on an
//! AVX512 machine, where `normal_stub` runs the AVX2 kernel).

#[inline(always)]
fn fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

// The header's constants are double literals stored into float arrays: rounded to double,
// then to float, as here.
const LOG_P: [f32; 9] = [
    7.0376836292E-2f64 as f32,
    -1.1514610310E-1f64 as f32,
    1.1676998740E-1f64 as f32,
    -1.2420140846E-1f64 as f32,
    1.4249322787E-1f64 as f32,
    -1.6668057665E-1f64 as f32,
    2.0000714765E-1f64 as f32,
    -2.4999993993E-1f64 as f32,
    3.3333331174E-1f64 as f32,
];
const LOG_Q1: f32 = -2.12194440e-4f64 as f32;
const LOG_Q2: f32 = 0.693359375f64 as f32;
const SQRTHF: f32 = std::f64::consts::FRAC_1_SQRT_2 as f32;

/// `log256_ps` on one lane (NaN for `x <= 0`).
#[inline(always)]
pub(crate) fn log_ps(x: f32) -> f32 {
    let invalid = x <= 0.0;
    // cut off denormals (`_mm256_max_ps` returns its second operand for NaN)
    let x = if x > f32::from_bits(0x0080_0000) {
        x
    } else {
        f32::from_bits(0x0080_0000)
    };
    let imm0 = (x.to_bits() >> 23) as i32 - 0x7f;
    let mut x = f32::from_bits((x.to_bits() & !0x7f80_0000) | 0.5f32.to_bits());
    let mut e = imm0 as f32 + 1.0;
    let mask = x < SQRTHF;
    let tmp = if mask { x } else { 0.0 };
    x -= 1.0;
    e -= if mask { 1.0 } else { 0.0 };
    x += tmp;
    let z = x * x;
    let mut y = LOG_P[0];
    for &p in &LOG_P[1..] {
        y = fma(y, x, p);
    }
    y *= x;
    y = fma(y, z, e * LOG_Q1);
    y = fma(-z, 0.5, y);
    x += y;
    x = fma(e, LOG_Q2, x);
    if invalid { f32::NAN } else { x }
}

const DP1: f32 = -0.78515625f64 as f32;
const DP2: f32 = -2.418_756_484_985_351_6e-4_f64 as f32;
const DP3: f32 = -3.774894977445941e-8f64 as f32;
const SIN_P: [f32; 3] = [
    -1.9515295891E-4f64 as f32,
    8.3321608736E-3f64 as f32,
    -1.6666654611E-1f64 as f32,
];
const COS_P: [f32; 3] = [
    2.443315711809948E-005f64 as f32,
    -1.388731625493765E-003f64 as f32,
    4.166664568298827E-002f64 as f32,
];
const FOPI: f32 = 1.27323954473516f64 as f32;

/// `sincos256_ps` on one lane: `(sin x, cos x)`.
#[inline(always)]
pub(crate) fn sincos_ps(x: f32) -> (f32, f32) {
    let mut sign_sin = x.to_bits() & 0x8000_0000;
    let mut x = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    // `_mm256_cvttps_epi32`: truncation, the "integer indefinite" value out of range
    let yf = x * FOPI;
    let mut j = if yf < 2_147_483_648.0 {
        yf as i32
    } else {
        i32::MIN
    };
    j = j.wrapping_add(1) & !1;
    let y = j as f32;
    let swap_sin = ((j & 4) as u32) << 29;
    let poly = (j & 2) == 0;
    x = fma(y, DP1, x);
    x = fma(y, DP2, x);
    x = fma(y, DP3, x);
    let jc = j.wrapping_sub(2);
    let sign_cos = ((!jc & 4) as u32) << 29;
    sign_sin ^= swap_sin;
    let z = x * x;
    let mut yc = fma(COS_P[0], z, COS_P[1]);
    yc = fma(yc, z, COS_P[2]);
    yc *= z;
    yc = fma(yc, z, -(z * 0.5));
    yc += 1.0;
    let mut y2 = fma(SIN_P[0], z, SIN_P[1]);
    y2 = fma(y2, z, SIN_P[2]);
    y2 *= z;
    y2 = fma(y2, x, x);
    let (ysin2, ysin1) = if poly { (y2, 0.0) } else { (0.0, yc) };
    let y2 = y2 - ysin2;
    let yc = yc - ysin1;
    let s = ysin1 + ysin2;
    let c = yc + y2;
    (
        f32::from_bits(s.to_bits() ^ sign_sin),
        f32::from_bits(c.to_bits() ^ sign_cos),
    )
}

/// `NormalFill16<float>` on every complete block of 16 in `d`, in place: for j in 0..8,
/// `u1 = 1 - d[j]`, `u2 = d[j + 8]`, `r = sqrt(-2 log u1)`, `θ = 2π u2`,
/// `d[j] = fma(r cos θ, std, mean)`, `d[j + 8] = fma(r sin θ, std, mean)`. A trailing partial
/// block is left as it is.
pub(crate) fn normal_blocks_f32(d: &mut [f32], mean: f32, std: f32) {
    super::simd::with_fma!(d: &mut [f32], mean: f32, std: f32 => blocks_loop(d, mean, std))
}

#[inline(always)]
fn blocks_loop(d: &mut [f32], mean: f32, std: f32) {
    let two_pi = (2.0 * std::f64::consts::PI) as f32;
    for b in d.chunks_exact_mut(16) {
        let (lo, hi) = b.split_at_mut(8);
        for j in 0..8 {
            let u1 = 1.0 - lo[j];
            let u2 = hi[j];
            let radius = (-2.0 * log_ps(u1)).sqrt();
            let theta = two_pi * u2;
            let (s, c) = sincos_ps(theta);
            lo[j] = fma(radius * c, std, mean);
            hi[j] = fma(radius * s, std, mean);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_to_libm() {
        for i in 1..2000 {
            let x = i as f32 / 2000.0;
            assert!(
                (log_ps(x) - x.ln()).abs() <= 2e-7 * x.ln().abs().max(1.0),
                "log {x}"
            );
            let t = x * std::f32::consts::TAU;
            let (s, c) = sincos_ps(t);
            assert!(
                (s - t.sin()).abs() < 3e-7 && (c - t.cos()).abs() < 3e-7,
                "sincos {t}"
            );
        }
        assert!(log_ps(0.0).is_nan() && log_ps(-1.0).is_nan());
    }
}
