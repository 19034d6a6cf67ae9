//! Vectorisable float32 special functions and binary functions for [`super::vmath`]:
//! `erfinv`, `lgamma`, `digamma`, `pow` with a tensor exponent, `fmod`/`remainder`,
//! `hypot` and `logaddexp`. Each reads float32 and computes in double with branch-free code
//! (selects, bit tricks, fixed-trip loops) so loops over them vectorise; arguments a function
//! leaves to its scalar form (`fmod` past `2^24` quotients, `pow` of zero, infinite or NaN
//! operands) are flagged and recomputed after the vector loop, as `sin` does.
//!
//! Accuracy (measured in `vmath`'s `accuracy_in_ulps` test, over every 127th float):
//! `erfinv`, `pow`, `hypot` round a double result once (about 0.5 ulp); `lgamma` and
//! `digamma` are within a few ulp except next to their zeros, where the result's own
//! magnitude vanishes; `fmod`/`remainder` are exact (IEEE `fmod`, then PyTorch's
//! `mod + b` adjustment in float for `remainder`).

use std::f64::consts::PI;

/// `1.5 · 2^52`: adding it to a double of magnitude below `2^51` rounds it to an integer
/// held in the low mantissa bits.
const SHIFT52: f64 = 6_755_399_441_055_744.0;
/// `ln 2` in two parts (fdlibm's): the high part has 21 trailing zero bits, so `n·LN2_HI` is
/// exact for `|n| < 2^21`.
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;

/// Horner evaluation `c[0] + c[1]·u + … + c[n]·u^n` (coefficients from the constant term up).
#[inline(always)]
fn horner(u: f64, c: &[f64]) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * u + k)
}

/// `ln(x)` for a positive, finite, normal double (other arguments give meaningless values
/// the callers replace), about 1 double ulp: `x = 2^e·m`, `m` in `[√½, √2)`,
/// `ln m = 2·atanh(s)`, `s = (m-1)/(m+1)`, by its series to `s^23`.
#[inline(always)]
pub(crate) fn log_f64(x: f64) -> f64 {
    let bits = x.to_bits();
    let e0 = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m0 = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let big = m0 > std::f64::consts::SQRT_2;
    let m = if big { m0 * 0.5 } else { m0 };
    let e = (e0 + big as i64) as f64;
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let p = horner(
        z,
        &[
            1.0 / 3.0,
            1.0 / 5.0,
            1.0 / 7.0,
            1.0 / 9.0,
            1.0 / 11.0,
            1.0 / 13.0,
            1.0 / 15.0,
            1.0 / 17.0,
            1.0 / 19.0,
            1.0 / 21.0,
            1.0 / 23.0,
        ],
    );
    let lm = (s + s) + (s + s) * z * p;
    e * LN2_HI + (e * LN2_LO + lm)
}

/// `e^t` in double for `t` in `[-200, 200]` (clamped there; NaN stays NaN), about 1 double
/// ulp: `t = n·ln2 + r`, `|r| <= ln2/2`, Taylor's series of `e^r` to `r^13`, scaled by `2^n`.
#[inline(always)]
#[allow(clippy::manual_clamp)]
fn exp_f64(t: f64) -> f64 {
    let t = if t < -200.0 {
        -200.0
    } else if t > 200.0 {
        200.0
    } else {
        t
    };
    let kf = t * std::f64::consts::LOG2_E + SHIFT52;
    let nf = kf - SHIFT52;
    let r = t - nf * LN2_HI - nf * LN2_LO;
    let p = horner(r, &INV_FACTORIAL);
    let n = (kf.to_bits() as i64).wrapping_sub(SHIFT52.to_bits() as i64);
    p * f64::from_bits((n.wrapping_add(1023) << 52) as u64)
}

/// `1/k!` for `k <= 13` (Taylor's coefficients of `e^r`).
const INV_FACTORIAL: [f64; 14] = [
    1.0,
    1.0,
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// `(sin(π·r), cos(π·r))` for `r` in `[-1/2, 1/2]` (Taylor's series to `u^19`/`u^20`,
/// `u = π·r`; about 1 double ulp).
#[inline(always)]
fn sincospi(r: f64) -> (f64, f64) {
    let u = PI * r;
    let z = u * u;
    // sin u = u·(1 - z/3! + z²/5! - …), cos u = 1 - z/2! + z²/4! - …
    const S: [f64; 10] = [
        1.0,
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
        1.0 / 6_227_020_800.0,
        -1.0 / 1_307_674_368_000.0,
        1.0 / 355_687_428_096_000.0,
        -1.0 / 121_645_100_408_832_000.0,
    ];
    const C: [f64; 11] = [
        1.0,
        -1.0 / 2.0,
        1.0 / 24.0,
        -1.0 / 720.0,
        1.0 / 40320.0,
        -1.0 / 3_628_800.0,
        1.0 / 479_001_600.0,
        -1.0 / 87_178_291_200.0,
        1.0 / 20_922_789_888_000.0,
        -1.0 / 6_402_373_705_728_000.0,
        1.0 / 2_432_902_008_176_640_000.0,
    ];
    (u * horner(z, &S), horner(z, &C))
}

/// `x - round(x)` for a double holding a float: the signed distance to the nearest integer
/// (0 for `|x| >= 2^23`, where every float is an integer).
#[inline(always)]
fn frac_near(x: f64) -> f64 {
    let n = (x + SHIFT52) - SHIFT52;
    if x.abs() < 8_388_608.0 { x - n } else { 0.0 }
}

/// The central polynomial of [`erfinv_f32`]: `erfinv(x)/x` in `u = (w - 2.5)/2.5`,
/// `w = -ln(1 - x²) < 5` (a Chebyshev fit, relative error 6.4e-10).
const ERFINV_C: [f64; 12] = [
    1.501_409_351_728_238_5,
    0.616_600_691_986_701_6,
    -0.026_108_280_762_074_74,
    -0.019_573_564_270_673_676,
    0.008_525_934_497_769_843,
    -0.000_487_876_474_818_949_8,
    -0.000_836_468_738_089_140_7,
    0.000_292_135_779_440_801_95,
    2.515_743_521_097_411e-5,
    -4.140_043_586_626_061_5e-5,
    4.149_577_499_286_915e-6,
    2.931_136_923_336_272_5e-6,
];
/// The tail polynomial of [`erfinv_f32`]: `erfinv(x)/x` in `u = (√w - c)/h` over
/// `√w` in `[√5, 4]` (`c`, `h` its centre and half-width; relative error 7.0e-10).
const ERFINV_T: [f64; 12] = [
    2.951_328_577_035_752_7,
    0.885_158_486_868_411_3,
    0.005_569_428_583_369_089_5,
    -0.003_710_203_862_064_13,
    0.002_348_457_972_247_471,
    -0.001_372_481_818_123_153,
    0.000_605_566_829_824_965_3,
    -0.000_136_247_087_694_814_77,
    -4.512_219_997_597_111e-5,
    4.878_587_404_522_39e-5,
    -8.630_363_956_916_763e-6,
    -2.821_538_596_348_934e-6,
];

/// `erfinv(x)` (PyTorch's `erfinv`): `x·g(w)` with `w = -ln((1-x)(1+x))` (exact product in
/// double) and `g` one of two polynomials fitted to `erfinv(x)/x` (Giles' split at `w = 5`,
/// the tail in `√w`), all in double and rounded once. `±1` gives `±inf`, `|x| > 1` and NaN
/// give NaN, ±0 stay.
#[inline(always)]
pub(crate) fn erfinv_f32(x: f32) -> f32 {
    let xd = x as f64;
    let a = xd.abs();
    let t = (1.0 - a) * (1.0 + a);
    let w = -log_f64(if t > 0.0 { t } else { 1.0 });
    let central = horner((w - 2.5) * 0.4, &ERFINV_C);
    const MID: f64 = (2.236_067_977_499_79 + 4.0) * 0.5;
    const HALF: f64 = (4.0 - 2.236_067_977_499_79) * 0.5;
    let tail = horner((w.sqrt() - MID) * (1.0 / HALF), &ERFINV_T);
    let g = if w < 5.0 { central } else { tail };
    let r = (g * xd) as f32;
    if a < 1.0 {
        r
    } else if a == 1.0 {
        f32::INFINITY.copysign(x)
    } else {
        f32::NAN
    }
}

/// `ln Γ(z)` for `z >= 8` by Stirling's series to `z^-15` (truncation below 1e-16).
#[inline(always)]
fn lgamma_stirling(z: f64) -> f64 {
    const HALF_LN_2PI: f64 = 0.918_938_533_204_672_8;
    let iz = 1.0 / z;
    let iz2 = iz * iz;
    let ser = iz
        * horner(
            iz2,
            &[
                1.0 / 12.0,
                -1.0 / 360.0,
                1.0 / 1260.0,
                -1.0 / 1680.0,
                1.0 / 1188.0,
                -691.0 / 360_360.0,
                1.0 / 156.0,
                -3617.0 / 122_400.0,
            ],
        );
    (z - 0.5) * log_f64(z) - z + HALF_LN_2PI + ser
}

/// `ln|Γ(x)|` (PyTorch's `lgamma`), in double, rounded once: for `a = |x|`, the recurrence
/// `Γ(a) = Γ(a+k)/(a(a+1)…(a+k-1))` up to `a + k >= 8`, then Stirling's series; negative `x`
/// by the reflection `ln|Γ(x)| = ln(π/|a·sin(πa)|) - ln Γ(a)`. `+inf` at 0, the negative
/// integers and ±inf; NaN stays NaN.
#[inline(always)]
pub(crate) fn lgamma_f32(x: f32) -> f32 {
    let xd = x as f64;
    let a = xd.abs();
    let ok = a > 0.0 && a < f64::INFINITY;
    let a = if ok { a } else { 1.0 };
    let mut z = a;
    let mut p = 1.0;
    for _ in 0..8 {
        let s = z < 8.0;
        p = if s { p * z } else { p };
        z = if s { z + 1.0 } else { z };
    }
    // ln Γ(a) = S(z) - ln p; for x < 0, ln(π/(a·|sin πa|)) - ln Γ(a) = ln π - S(z) - ln q
    // with q = a·|sin πa|/p: one logarithm either way
    let r = frac_near(a);
    let (s, _) = sincospi(r);
    let neg = xd < 0.0 && r != 0.0;
    let q = if neg { a * s.abs() / p } else { p };
    let st = lgamma_stirling(z);
    let lq = log_f64(q);
    let v = if neg {
        1.144_729_885_849_400_2 - st - lq // ln π
    } else {
        st - lq
    } as f32;
    let pole = !ok || (xd < 0.0 && r == 0.0);
    if x.is_nan() {
        x
    } else if pole {
        f32::INFINITY
    } else if x == 1.0 || x == 2.0 {
        // the zeros of ln Γ, exact as C's lgamma (the series leaves ~1e-15)
        0.0
    } else {
        v
    }
}

/// `ψ(x)` (PyTorch's `digamma`), in double, rounded once: for `x < 0` the reflection
/// `ψ(x) = ψ(1-x) - π/tan(πx)`; the recurrence `ψ(z) = ψ(z+1) - 1/z` up to `z >= 10` (the
/// sum of the reciprocals kept as one fraction), then the asymptotic series (Cephes' and
/// PyTorch's coefficients). `∓inf` at ±0, NaN at the negative integers and `-inf`, `+inf` at
/// `+inf`, NaN stays NaN.
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn digamma_f32(x: f32) -> f32 {
    const A: [f64; 7] = super::special::DIGAMMA_SERIES;
    let xd = x as f64;
    let neg = xd < 0.0;
    let fin = xd.abs() < f64::INFINITY && xd != 0.0;
    let z0 = if neg { 1.0 - xd } else { xd };
    let mut z = if fin { z0 } else { 1.0 };
    let (mut num, mut den) = (0.0, 1.0);
    for _ in 0..10 {
        let s = z < 10.0;
        num = if s { num * z + den } else { num };
        den = if s { den * z } else { den };
        z = if s { z + 1.0 } else { z };
    }
    let iz = 1.0 / z;
    let iz2 = iz * iz;
    // Cephes' polynomial, highest power first
    let y = iz2 * A.iter().fold(0.0, |acc, &k| acc * iz2 + k);
    let psi = log_f64(z) - 0.5 * iz - y - num / den;
    let r = frac_near(xd);
    let (s, c) = sincospi(r);
    let refl = PI * c / (if r != 0.0 { s } else { 1.0 });
    let v = if neg { psi - refl } else { psi } as f32;
    if x.is_nan() {
        x
    } else if x == 0.0 {
        f32::INFINITY.copysign(-x)
    } else if x == f32::INFINITY {
        x
    } else if neg && r == 0.0 {
        // the negative integers and -inf
        f32::NAN
    } else {
        v
    }
}

/// `x^y` for float32 (PyTorch's `pow` with a tensor exponent) as `e^(y·ln|x|)` in double,
/// rounded once, with the sign of a negative base to an odd integer (NaN to a non-integer).
/// Returns whether the arguments are ones this form covers: finite non-zero `x` and finite
/// `y`; the caller computes the others with the scalar `powf`.
#[inline(always)]
pub(crate) fn pow_f32_fast(x: f32, y: f32) -> (f32, bool) {
    let (xd, yd) = (x as f64, y as f64);
    let a = xd.abs();
    let ok = a > 0.0 && a < f64::INFINITY && yd.abs() < f64::INFINITY;
    let l = log_f64(if ok { a } else { 1.0 });
    let r = exp_f64(yd * l) as f32;
    let half = yd * 0.5;
    let yint = yd == yd.trunc();
    let odd = yint && half != half.trunc();
    let v = if x < 0.0 {
        if !yint {
            f32::NAN
        } else if odd {
            -r
        } else {
            r
        }
    } else {
        r
    };
    (v, ok)
}

/// `x^y` (the scalar form of [`pow_f32_fast`], `powf` for what it leaves).
pub(crate) fn pow_f32(x: f32, y: f32) -> f32 {
    match pow_f32_fast(x, y) {
        (v, true) => v,
        _ => x.powf(y),
    }
}

/// `fmod(x, y)` (C's, exact) for float32 with `|x| < 2^24·|y|` and `y` finite: the quotient
/// truncated in double is then exact, and so is `x - q·y` in double. Returns whether the
/// arguments are in that range (NaN, a zero or infinite `y`, an infinite `x` are not); the
/// caller computes the others with `%`.
#[inline(always)]
pub(crate) fn fmod_f32_fast(x: f32, y: f32) -> (f32, bool) {
    let (xd, yd) = (x as f64, y as f64);
    let ok = xd.abs() < yd.abs() * 16_777_216.0 && yd.abs() < f64::INFINITY;
    let q = (xd / yd).trunc();
    let r = xd - q * yd;
    ((r.abs() as f32).copysign(x), ok)
}

/// PyTorch's float `remainder` from `fmod`: `mod + y` when `mod` is non-zero and its sign
/// differs from `y`'s (rounded in float, as PyTorch's kernel).
#[inline(always)]
pub(crate) fn remainder_adjust(m: f32, y: f32) -> f32 {
    if m != 0.0 && ((y < 0.0) != (m < 0.0)) {
        m + y
    } else {
        m
    }
}

/// `fmod(x, y)` for one pair.
pub(crate) fn fmod_f32(x: f32, y: f32) -> f32 {
    match fmod_f32_fast(x, y) {
        (v, true) => v,
        _ => x % y,
    }
}

/// `remainder(x, y)` for one pair (PyTorch's float kernel: `fmod`, then the adjustment).
pub(crate) fn remainder_f32(x: f32, y: f32) -> f32 {
    remainder_adjust(fmod_f32(x, y), y)
}

/// `hypot(x, y)`: `√(x² + y²)` in double (exact squares and sum up to rounding), rounded
/// once; `+inf` when either is infinite (even with a NaN), NaN otherwise for a NaN.
#[inline(always)]
pub(crate) fn hypot_f32(x: f32, y: f32) -> f32 {
    let (xd, yd) = (x as f64, y as f64);
    let h = (xd * xd + yd * yd).sqrt() as f32;
    if x.abs() == f32::INFINITY || y.abs() == f32::INFINITY {
        f32::INFINITY
    } else {
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_helpers() {
        for k in 1..4000 {
            let x = k as f64 * 0.37;
            assert!(
                (log_f64(x) - x.ln()).abs() <= 4e-16 * x.ln().abs().max(1.0),
                "{x}"
            );
            let t = k as f64 * 0.1 - 200.0;
            let e = exp_f64(t);
            assert!((e - t.exp()).abs() <= 4e-16 * t.exp(), "{t}");
            let r = k as f64 / 4000.0 - 0.5;
            let (s, c) = sincospi(r);
            assert!((s - (PI * r).sin()).abs() < 6e-16 && (c - (PI * r).cos()).abs() < 6e-16);
        }
    }
}

#[cfg(test)]
mod dump {
    /// Writes the new functions over a set of arguments to `$TENSILE_VSPECIAL_DUMP` (for a
    /// comparison against PyTorch; run by hand).
    #[test]
    #[ignore]
    fn dump_for_torch() {
        use super::super::vmath::{BOp, VOp, map_f32, map2_f32_pub};
        let Ok(path) = std::env::var("TENSILE_VSPECIAL_DUMP") else {
            return;
        };
        let x: Vec<f32> = std::fs::read(format!("{path}.x"))
            .unwrap()
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let y: Vec<f32> = std::fs::read(format!("{path}.y"))
            .unwrap()
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let mut out = Vec::new();
        let mut r = vec![0.0f32; x.len()];
        for op in [
            VOp::Erfinv,
            VOp::Lgamma,
            VOp::Digamma,
            VOp::Sinc,
            VOp::GeluTanh,
        ] {
            map_f32(op, &x, &mut r);
            out.extend(r.iter().flat_map(|v| v.to_le_bytes()));
        }
        map_f32(
            VOp::Logit {
                lo: f32::NEG_INFINITY,
                hi: f32::INFINITY,
            },
            &x,
            &mut r,
        );
        out.extend(r.iter().flat_map(|v| v.to_le_bytes()));
        for op in [
            BOp::Fmod,
            BOp::Remainder,
            BOp::Hypot,
            BOp::Logaddexp,
            BOp::Pow,
        ] {
            map2_f32_pub(op, &x, &y, &mut r);
            out.extend(r.iter().flat_map(|v| v.to_le_bytes()));
        }
        std::fs::write(format!("{path}.out"), out).unwrap();
    }
}
