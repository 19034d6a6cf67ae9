//! Vectorisable float32 transcendentals: `exp`/`expm1`, `log`/`log2`/`log10`/`log1p`,
//! `sin`/`cos`/`tan`, `atan`/`atan2`/`asin`/`acos`, `sinh`/`cosh`/`tanh`,
//! `asinh`/`acosh`/`atanh`, `erf`, the special functions of [`super::vspecial`] (`erfinv`,
//! `lgamma`, `digamma`), `sinc`, `logit`, the activations built on them (`sigmoid`, `silu`,
//! `gelu`, `gelu` with the tanh approximation, the ELU family, `mish`, `logsigmoid`,
//! `softplus`, `hardtanh`) and the binary `atan2`, `pow`, `fmod`, `remainder`, `hypot`,
//! `logaddexp`,
//! written branch-free (selects, bit tricks, polynomials) so loops over them vectorise, and run
//! over contiguous runs in functions compiled for AVX-512F or AVX2 when the CPU has them
//! (run-time detection, as in [`super::simd`]).
//!
//! Accuracy: `exp` is Cephes' `expf` (about 1 ulp); `log` Cephes' `logf`, `sin`/`cos` its
//! `sinf`/`cosf` polynomials after a reduction in double (about 1 ulp; past `|x| = 10^5` in
//! double); the inverse and hyperbolic functions Cephes' polynomials with reductions on these
//! (1 to 2.6 ulp); the measured maxima are in the tests below and README; `tanh` is Cephes'
//! `tanhf` (a polynomial below 0.625, `1 - 2/(exp(2|x|)+1)` above); `erf` is PyTorch's own
//! vectorised float `erf` (Abramowitz–Stegun 7.1.26, absolute error below 1.5e-7), the one its
//! `gelu` uses.

pub(crate) use super::vspecial::{
    digamma_f32, erfinv_f32, fmod_f32, fmod_f32_fast, hypot_f32, lgamma_f32, pow_f32, pow_f32_fast,
    remainder_adjust, remainder_f32,
};

/// Defines `$name`, the function `$body` compiled three times (AVX-512F, AVX2, baseline) and
/// chosen at run time. `$body` must be `#[inline(always)]` so each copy is compiled for its
/// instruction set.
macro_rules! multiversion {
    ($vis:vis fn $name:ident = $body:ident ($($arg:ident : $ty:ty),*) $(-> $ret:ty)?) => {
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                if $crate::kernels::simd::has_avx512() {
                    #[target_feature(enable = "avx512f")]
                    fn with_avx512($($arg: $ty),*) $(-> $ret)? {
                        $body($($arg),*)
                    }
                    // SAFETY: the CPU has AVX-512F (checked just above).
                    return unsafe { with_avx512($($arg),*) };
                }
                if $crate::kernels::simd::has_avx2() {
                    #[target_feature(enable = "avx2")]
                    fn with_avx2($($arg: $ty),*) $(-> $ret)? {
                        $body($($arg),*)
                    }
                    // SAFETY: the CPU has AVX2 (checked just above).
                    return unsafe { with_avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use multiversion;

/// `1.5 · 2^23`: adding it to a float of magnitude below `2^22` rounds it to an integer held
/// in the low mantissa bits.
const SHIFT: f32 = 12_582_912.0;

/// `e^x` (Cephes `expf`): `x = n·ln2 + r`, `|r| ≤ ln2/2`, a degree-6 polynomial for `e^r`,
/// scaled by `2^n` in two steps (so `2^n` below the normal range gives subnormals). NaN stays
/// NaN, `+inf` gives `+inf`, `-inf` gives 0.
#[inline(always)]
#[allow(clippy::manual_clamp)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    // NaN fails both comparisons and passes through
    let xc = if x < -104.0 {
        -104.0
    } else if x > 88.8 {
        88.8
    } else {
        x
    };
    let (r, n) = exp_reduce(xc);
    let p = exp_poly(r) + r + 1.0;
    let n1 = n >> 1;
    p * pow2i(n1) * pow2i(n - n1)
}

/// `tanh(x)` (Cephes `tanhf`).
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn tanh_f32(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    let small = ((((-5.704_988_727_45e-3 * z + 2.063_908_879_54e-2) * z - 5.373_971_555_31e-2)
        * z
        + 1.333_144_220_36e-1)
        * z
        - 3.333_328_194_22e-1)
        * z
        * x
        + x;
    let e = exp_f32(a + a);
    let big = (1.0 - 2.0 / (e + 1.0)).copysign(x);
    if a < 0.625 { small } else { big }
}

/// `erf(x)` as PyTorch's vectorised float kernel computes it (Abramowitz–Stegun 7.1.26):
/// `sign(x) · (1 - t·P(t)·e^{-x²})`, `t = 1/(1 + 0.3275911|x|)`.
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn erf_f32(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (0.327_591_1 * a + 1.0);
    let r = (((1.061_405_429 * t - 1.453_152_027) * t + 1.421_413_741) * t - 0.284_496_736) * t
        + 0.254_829_592;
    let e = exp_neg_normal(-(x * x));
    (1.0 - r * t * e).copysign(x)
}

/// `e^x` for `x <= 0` (or NaN) as [`exp_f32`] computes it while the result is normal
/// (`x >= -87`: the same bits); below, `e^-87 ≈ 1.6e-38`. One scaling instead of two, for
/// [`erf_f32`], where `1 - r·t·e` rounds to 1 long before.
#[inline(always)]
fn exp_neg_normal(x: f32) -> f32 {
    let xc = if x < -87.0 { -87.0 } else { x };
    let (r, n) = exp_reduce(xc);
    (exp_poly(r) + r + 1.0) * pow2i(n)
}

/// `1/(1 + e^{-x})`.
#[inline(always)]
pub(crate) fn sigmoid_f32(x: f32) -> f32 {
    1.0 / (1.0 + exp_f32(-x))
}

/// `x/(1 + e^{-x})` (PyTorch's `silu`; `-inf` gives NaN, as there).
#[inline(always)]
pub(crate) fn silu_f32(x: f32) -> f32 {
    x / (1.0 + exp_f32(-x))
}

/// `x/2 · (1 + erf(x/√2))` (PyTorch's `GeluKernelImpl`, `approximate='none'`).
#[inline(always)]
pub(crate) fn gelu_f32(x: f32) -> f32 {
    x * 0.5 * (1.0 + erf_f32(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `x/2 · (1 + tanh(√(2/π)·(x + 0.044715x³)))` (`approximate='tanh'`).
#[inline(always)]
pub(crate) fn gelu_tanh_f32(x: f32) -> f32 {
    const BETA: f32 = std::f32::consts::SQRT_2 * std::f32::consts::FRAC_2_SQRT_PI * 0.5;
    let inner = BETA * (x + 0.044715 * (x * x * x));
    0.5 * x * (1.0 + tanh_f32(inner))
}

/// `ln(x)` (Cephes `logf`, about 1 ulp): `x = 2^e·m` with `m` in `[√½, √2)`, `ln(m)` by a
/// degree-9 polynomial in `m - 1`, plus `e·ln2` in two parts. Subnormals are scaled up first;
/// `ln(0) = -inf`, `ln(+inf) = +inf`, negative and NaN inputs give NaN.
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn log_f32(x: f32) -> f32 {
    let (e, f, pz, z) = log_parts(x);
    // Cephes' order: the small terms first, the large `e·ln2` part last
    let r = f + ((pz + e * -2.121_944_4e-4) - 0.5 * z) + e * 0.693_359_375;
    log_special(x, r)
}

/// `log2(x)`: [`log_f32`]'s `e + ln(m)·log2(e)`, so a power of two gives its exponent exactly.
#[inline(always)]
pub(crate) fn log2_f32(x: f32) -> f32 {
    let (e, f, pz, z) = log_parts(x);
    let r = (f + (pz - 0.5 * z)) * std::f32::consts::LOG2_E + e;
    log_special(x, r)
}

/// `log10(x)`: `e·log10(2) + ln(m)·log10(e)` from [`log_f32`]'s parts.
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn log10_f32(x: f32) -> f32 {
    let (e, f, pz, z) = log_parts(x);
    let r = (f + (pz - 0.5 * z)) * std::f32::consts::LOG10_E
        + e * 4.605_038_981_195_214e-6
        + e * 3.010_253_906_25e-1;
    log_special(x, r)
}

/// `ln(1 + x)`: with `u = 1 + x` rounded, `ln(u)·x/(u - 1)` (the quotient corrects `u`'s
/// rounding), `x` itself where `u` rounds to 1; `+inf` for `+inf`, `-inf` for -1, NaN below.
#[inline(always)]
pub(crate) fn log1p_f32(x: f32) -> f32 {
    let u = 1.0 + x;
    let r = log_f32(u) * (x / (u - 1.0));
    if u == 1.0 || x == f32::INFINITY { x } else { r }
}

/// Cephes `logf`'s reduction of a positive finite `x`: the exponent `e`, `f = m - 1` with `m`
/// in `[√½, √2)`, the polynomial part `f³·P(f)` and `z = f²`, so that
/// `ln(x) = f + f³·P(f) - z/2 + e·ln2`.
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn log_parts(x: f32) -> (f32, f32, f32, f32) {
    // subnormals: scale by 2^25 and take 25 off the exponent
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 33_554_432.0 } else { x };
    let bits = xs.to_bits();
    let mut e = ((bits >> 23) & 0xff) as i32 - 126 - if sub { 25 } else { 0 };
    // the mantissa in [0.5, 1)
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f00_0000);
    let low = m < std::f32::consts::FRAC_1_SQRT_2;
    e -= low as i32;
    let f = if low { m + m - 1.0 } else { m - 1.0 };
    let z = f * f;
    let mut p = 7.037_683_629_2e-2f32;
    for c in [
        -1.151_461_031_0e-1,
        1.167_699_874_0e-1,
        -1.242_014_084_6e-1,
        1.424_932_278_7e-1,
        -1.666_805_766_5e-1,
        2.000_071_476_5e-1,
        -2.499_999_399_3e-1,
        3.333_333_117_4e-1,
    ] {
        p = p * f + c;
    }
    (e as f32, f, p * f * z, z)
}

/// The logarithms' special values over a result `r` computed as if `x` were positive and
/// finite: `+inf` for `+inf`, `-inf` for ±0, NaN for negative and NaN inputs.
#[inline(always)]
fn log_special(x: f32, r: f32) -> f32 {
    if x == f32::INFINITY {
        x
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x > 0.0 {
        r
    } else {
        f32::NAN
    }
}

/// The largest `|x|` [`sin_f32`]/[`cos_f32`] reduce accurately (octant counts below 2^17);
/// beyond it, and for ±inf and NaN, [`map_f32`] recomputes in double.
const TRIG_MAX: f32 = 100_000.0;
/// `π/4` to 36 bits, and the rest of `π/4` (with the error of `FRAC_PI_4` itself).
const PIO4_HI: f64 = f64::from_bits(std::f64::consts::FRAC_PI_4.to_bits() & !0x1_ffff);
const PIO4_LO: f64 = (std::f64::consts::FRAC_PI_4 - PIO4_HI) + 3.061_616_997_868_383e-17;

/// `sin(x)` and `cos(x)` (Cephes `sinf`/`cosf` polynomials, about 1 ulp for `|x| <= 10^5`):
/// `x` reduced by the nearest even multiple of `π/4` in double, then the sine or cosine
/// polynomial of the octant.
/// `cos = true` shifts the octant by two.
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn sincos_f32(x: f32, cos: bool) -> f32 {
    let a = x.abs();
    let j0 = (a * std::f32::consts::FRAC_2_PI * 2.0) as i32;
    // round the octant up to even
    let j = (j0 + 1) & !1;
    let y = j as f32;
    // Cody–Waite in double: `y·PIO4_HI` is exact (y < 2^17, PIO4_HI has 36 bits), so the
    // reduced argument is good to far below a float32 ulp even next to a multiple of π
    let yd = y as f64;
    let r = ((a as f64 - yd * PIO4_HI) - yd * PIO4_LO) as f32;
    let q = if cos { j + 2 } else { j };
    let z = r * r;
    let pc = ((2.443_315_711_809_948e-5 * z - 1.388_731_625_493_765e-3) * z
        + 4.166_664_568_298_827e-2)
        * z
        * z
        - 0.5 * z
        + 1.0;
    let ps = ((-1.951_529_589_1e-4 * z + 8.332_160_873_6e-3) * z - 1.666_665_461_1e-1) * z * r + r;
    // octants 2 and 6 (mod 8) take the cosine polynomial
    let v = if q & 2 != 0 { pc } else { ps };
    // the sign: octants 4..7 negate; the sine is odd in x, the cosine even
    let neg = (q & 4 != 0) ^ (!cos && x.is_sign_negative());
    if neg { -v } else { v }
}

/// `sin(x)`; see [`sincos_f32`].
#[inline(always)]
pub(crate) fn sin_f32(x: f32) -> f32 {
    sincos_f32(x, false)
}

/// `cos(x)`; see [`sincos_f32`].
#[inline(always)]
pub(crate) fn cos_f32(x: f32) -> f32 {
    sincos_f32(x, true)
}

/// Whether `x` is past [`sin_f32`]'s reduction: `|x| > TRIG_MAX`, ±inf or NaN.
#[inline(always)]
fn past_trig_range(x: f32) -> bool {
    x.abs() > TRIG_MAX || x.is_nan()
}

/// [`sin_f32`] for one element, large arguments in double.
fn sin_one(x: f32) -> f32 {
    if past_trig_range(x) {
        (x as f64).sin() as f32
    } else {
        sin_f32(x)
    }
}

/// [`cos_f32`] for one element, large arguments in double.
fn cos_one(x: f32) -> f32 {
    if past_trig_range(x) {
        (x as f64).cos() as f32
    } else {
        cos_f32(x)
    }
}

/// Cephes `expf`'s reduction of a float `x` (NaN or `|x| <= 128·ln2`): `(r, n)` with
/// `x = n·ln2 + r`, `|r| <= ln2/2`, `ln2` in two parts so `r` is nearly exact.
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn exp_reduce(x: f32) -> (f32, i32) {
    let kf = x * std::f32::consts::LOG2_E + SHIFT;
    let nf = kf - SHIFT;
    let r = x - nf * 0.693_359_375 - nf * -2.121_944_4e-4;
    let n = (kf.to_bits() as i32).wrapping_sub(SHIFT.to_bits() as i32);
    (r, n)
}

/// Cephes `expf`'s polynomial: `r²·P(r)` with `e^r ≈ 1 + r + r²·P(r)` for `|r| <= ln2/2`.
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn exp_poly(r: f32) -> f32 {
    (((((1.987_569_15e-4 * r + 1.398_199_95e-3) * r + 8.333_451_9e-3) * r + 4.166_579_6e-2) * r
        + 1.666_666_5e-1)
        * r
        + 5.000_000_1e-1)
        * (r * r)
}

/// `2^n` for `n` in the normal range `[-126, 127]` (built from its exponent bits).
#[inline(always)]
fn pow2i(n: i32) -> f32 {
    f32::from_bits((n.wrapping_add(127) << 23) as u32)
}

/// `e^x - 1`, about 1 ulp: with `x = n·ln2 + r` as in [`exp_f32`], `e^r - 1 = r + r²·P(r)`
/// and `e^x - 1 = 2·(t·(e^r - 1) + (t - 1/2))`, `t = 2^(n-1)` (every step exact but the
/// last sum, so no cancellation near 0). ±0 stay, `+inf` gives `+inf`, `-inf` gives -1,
/// NaN stays NaN.
#[inline(always)]
#[allow(clippy::manual_clamp)]
pub(crate) fn expm1_f32(x: f32) -> f32 {
    // below -20, e^x - 1 rounds to -1; past 88.8 it overflows (NaN passes both)
    let xc = if x < -20.0 {
        -20.0
    } else if x > 88.8 {
        88.8
    } else {
        x
    };
    let (r, n) = exp_reduce(xc);
    let p = exp_poly(r) + r;
    let t = pow2i(n - 1);
    let y = 2.0 * (t * p + (t - 0.5));
    if x == 0.0 { x } else { y }
}

/// `e^a / 2` for `a >= 0` (NaN stays NaN, `+inf` and `a > 89.5` give `+inf`): [`exp_f32`]'s
/// polynomial scaled by `2^(n-1)` in two steps, so it stays finite up to `sinh`'s and
/// `cosh`'s own overflow at 89.4.
#[inline(always)]
fn half_exp(a: f32) -> f32 {
    let ac = if a > 89.5 { 89.5 } else { a };
    let (r, n) = exp_reduce(ac);
    let p = exp_poly(r) + r + 1.0;
    let m = n - 1;
    let m1 = m >> 1;
    p * pow2i(m1) * pow2i(m - m1)
}

/// `sinh(x)` (Cephes `sinhf`): `x + x³·P(x²)` for `|x| <= 1`, else `e^|x|/2 - 1/(2e^|x|)`
/// with the sign of `x`; about 1.5 ulp.
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn sinh_f32(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    let small =
        ((2.037_219_129_45e-4 * z + 8.330_283_762_39e-3) * z + 1.666_671_602_11e-1) * z * x + x;
    let h = half_exp(a);
    let big = (h - 0.25 / h).copysign(x);
    if a > 1.0 { big } else { small }
}

/// `cosh(x) = e^|x|/2 + 1/(2e^|x|)`, about 1 ulp.
#[inline(always)]
pub(crate) fn cosh_f32(x: f32) -> f32 {
    let h = half_exp(x.abs());
    h + 0.25 / h
}

/// `π/4` in two parts: `PIO4_HI_F` has 20 significant bits, so `k·PIO4_HI_F` is exact for
/// the small integers `k` the inverse trigonometric functions use.
const PIO4_HI_F: f32 = f32::from_bits(std::f32::consts::FRAC_PI_4.to_bits() & !0xf);
const PIO4_LO_F: f32 = (std::f64::consts::FRAC_PI_4 - PIO4_HI_F as f64) as f32;

/// `k·π/4 + t` rounded once (`k` a small integer as a float).
#[inline(always)]
fn add_pio4(k: f32, t: f32) -> f32 {
    (k * PIO4_LO_F + t) + k * PIO4_HI_F
}

/// `atan(a)` of `a >= 0` (or NaN) as `(k, t)` with `atan(a) = k·π/4 + t` (Cephes `atanf`):
/// `k = 2, u = -1/a` above `tan(3π/8)`, `k = 1, u = (a-1)/(a+1)` above `tan(π/8)`, else
/// `k = 0, u = a`; `t = u + u³·P(u²)`.
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn atan_parts(a: f32) -> (f32, f32) {
    let big = a > 2.414_213_562_373_095;
    let mid = a > 0.414_213_562_373_095;
    let (num, den, k) = if big {
        (-1.0, a, 2.0)
    } else if mid {
        (a - 1.0, a + 1.0, 1.0)
    } else {
        (a, 1.0, 0.0)
    };
    let u = num / den;
    let z = u * u;
    let t = (((8.053_744_495_38e-2 * z - 1.387_768_560_32e-1) * z + 1.997_771_064_78e-1) * z
        - 3.333_294_915_39e-1)
        * z
        * u
        + u;
    (k, t)
}

/// `atan(x)` (Cephes `atanf`'s reduction and polynomial, the multiple of `π/4` added last
/// in two parts); `±inf` gives `±π/2`, ±0 and NaN stay.
#[inline(always)]
pub(crate) fn atan_f32(x: f32) -> f32 {
    let (k, t) = atan_parts(x.abs());
    add_pio4(k, t).copysign(x)
}

/// `atan2(y, x)`, the angle of `(x, y)` in `[-π, π]`, with C's special values (±0 and ±inf
/// in either argument; NaN in either gives NaN): `atan` of the smaller magnitude over the
/// larger, then `π/2 - ·` when `|y| > |x|` and `π - ·` when `x` is negative (sign bit), as a
/// multiple of `π/4` plus a small term added in two parts, then the sign of `y`.
#[inline(always)]
pub(crate) fn atan2_f32(y: f32, x: f32) -> f32 {
    let (mut ay, mut ax) = (y.abs(), x.abs());
    // both infinite: the angle of (±1, ±1)
    if ay == f32::INFINITY && ax == f32::INFINITY {
        ay = 1.0;
        ax = 1.0;
    }
    let swap = ay > ax;
    let (n, d) = if swap { (ax, ay) } else { (ay, ax) };
    // both zero: 0 (n <= d, so d = 0 means n = 0)
    let q = if d == 0.0 { 0.0 } else { n / d };
    let (k, t) = atan_parts(q);
    let (k, t) = if swap { (2.0 - k, -t) } else { (k, t) };
    let (k, t) = if x.is_sign_negative() {
        (4.0 - k, -t)
    } else {
        (k, t)
    };
    let r = add_pio4(k, t).copysign(y);
    if x.is_nan() || y.is_nan() { x + y } else { r }
}

/// Cephes `asinf`'s polynomial: `asin(s) ≈ s + s·z·P(z)`, `z = s²`, `s <= 1/2`.
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn asin_poly(z: f32, s: f32) -> f32 {
    ((((4.216_319_904_8e-2 * z + 2.418_131_104_9e-2) * z + 4.547_002_599_8e-2) * z
        + 7.495_300_268_6e-2)
        * z
        + 1.666_675_242_2e-1)
        * z
        * s
        + s
}

/// `|x|` reduced for [`asin_poly`]: above 1/2, `s = √((1-|x|)/2)` (so
/// `asin|x| = π/2 - 2·asin s`), else `s = |x|`. Returns `(big, asin s)`.
#[inline(always)]
fn asin_parts(x: f32) -> (bool, f32) {
    let a = x.abs();
    let big = a > 0.5;
    let z = if big { 0.5 * (1.0 - a) } else { a * a };
    let s = if big { z.sqrt() } else { a };
    (big, asin_poly(z, s))
}

/// `asin(x)` (Cephes `asinf`), about 1 ulp; NaN outside `[-1, 1]`.
#[inline(always)]
pub(crate) fn asin_f32(x: f32) -> f32 {
    let (big, p) = asin_parts(x);
    let r = if big { add_pio4(2.0, -2.0 * p) } else { p };
    r.copysign(x)
}

/// `acos(x)` (Cephes `acosf`: `2·asin s` or `π - 2·asin s` beyond 1/2 in magnitude, else
/// `π/2 - asin x`), about 1 ulp; NaN outside `[-1, 1]`.
#[inline(always)]
pub(crate) fn acos_f32(x: f32) -> f32 {
    let (big, p) = asin_parts(x);
    let (k, t) = if !big {
        (2.0, -p.copysign(x))
    } else if x < 0.0 {
        (4.0, -2.0 * p)
    } else {
        (0.0, 2.0 * p)
    };
    add_pio4(k, t)
}

/// `asinh(x)`: Cephes `asinhf`'s odd polynomial below 1/2 in magnitude, else
/// `log1p(|x| + x²/(1 + √(1 + x²)))` (`ln|x| + ln2` past `2^28`), with the sign of `x`.
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn asinh_f32(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    let small = (((2.012_200_330_9e-2 * z - 4.269_934_097_2e-2) * z + 7.484_758_608_8e-2) * z
        - 1.666_628_813_4e-1)
        * z
        * x
        + x;
    let mid = log1p_f32(a + z / (1.0 + (1.0 + z).sqrt()));
    let huge = log_f32(a) + std::f32::consts::LN_2;
    let big = if a > 268_435_456.0 { huge } else { mid };
    // the polynomial's sign is `x`'s (`-0` included)
    if a < 0.5 { small } else { big }.copysign(x)
}

/// `acosh(x) = log1p(t + √(t·(t+2)))`, `t = x - 1` (exact near 1); `ln x + ln2` past `2^28`;
/// NaN below 1.
#[inline(always)]
pub(crate) fn acosh_f32(x: f32) -> f32 {
    let t = x - 1.0;
    let mid = log1p_f32(t + (t * (t + 2.0)).sqrt());
    let huge = log_f32(x) + std::f32::consts::LN_2;
    let r = if x > 268_435_456.0 { huge } else { mid };
    if x < 1.0 { f32::NAN } else { r }
}

/// `atanh(x)`: Cephes `atanhf`'s odd polynomial below 1/2 in magnitude, else
/// `log1p(2|x|/(1-|x|))/2` with the sign of `x`; `±inf` at ±1, NaN beyond.
#[inline(always)]
#[allow(clippy::excessive_precision)]
pub(crate) fn atanh_f32(x: f32) -> f32 {
    let a = x.abs();
    let z = x * x;
    let small = ((((1.817_400_783_49e-1 * z + 8.243_703_010_58e-2) * z + 1.466_914_317_30e-1) * z
        + 1.997_821_645_00e-1)
        * z
        + 3.333_373_003_03e-1)
        * z
        * x
        + x;
    let big = 0.5 * log1p_f32((a + a) / (1.0 - a));
    if a < 0.5 { small } else { big }.copysign(x)
}

/// `tan(x)` (Cephes `tanf`'s polynomial, about 1.5 ulp for `|x| <= 10^5`): `x` reduced by
/// the nearest even multiple of `π/4` in double as in [`sincos_f32`], the polynomial `p` of
/// the remainder, `-1/p` in the odd quadrants.
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn tan_f32(x: f32) -> f32 {
    let a = x.abs();
    let j0 = (a * std::f32::consts::FRAC_2_PI * 2.0) as i32;
    let j = (j0 + 1) & !1;
    let yd = j as f64;
    let r = ((a as f64 - yd * PIO4_HI) - yd * PIO4_LO) as f32;
    let z = r * r;
    let p = (((((9.385_401_855_43e-3 * z + 3.119_922_326_97e-3) * z + 2.443_013_545_25e-2) * z
        + 5.341_128_070_05e-2)
        * z
        + 1.333_879_940_85e-1)
        * z
        + 3.333_315_685_48e-1)
        * z
        * r
        + r;
    let v = if j & 2 != 0 { -1.0 / p } else { p };
    if x.is_sign_negative() { -v } else { v }
}

/// `min(x, 0) - log1p(e^{-|x|})`, `log(sigmoid(x))` as PyTorch's kernel composes it, with
/// [`log1p_unit`] for the logarithm (about 2.6 ulp).
#[inline(always)]
pub(crate) fn logsigmoid_f32(x: f32) -> f32 {
    let m = if x < 0.0 { x } else { 0.0 };
    m - log1p_unit(exp_f32(-x.abs()))
}

/// `ln(1 + e)` for `e` in `[0, 1]` (NaN stays NaN), about 2 ulp and cheaper than
/// [`log1p_f32`]: `2·atanh(s)` by its series to `s⁹`, `s = e/(2 + e)`, or above `√2 - 1`
/// `ln2 + 2·atanh(s)`, `s = (e - 1)/(e + 3)` (so `|s| <= 0.172`).
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn log1p_unit(e: f32) -> f32 {
    let big = e > 0.414_213_56;
    let num = if big { e - 1.0 } else { e };
    let den = if big { e + 3.0 } else { e + 2.0 };
    let s = num / den;
    let z = s * s;
    let p = (((2.0 / 9.0) * z + 2.0 / 7.0) * z + 2.0 / 5.0) * z + 2.0 / 3.0;
    let l = p * z * s + (s + s);
    // ln2 in two parts, as in `log_f32`
    if big {
        (l + -2.121_944_4e-4) + 0.693_359_375
    } else {
        l
    }
}

/// `x·tanh(softplus(x)) = x·tanh(log(1 + e^x))` (PyTorch's `mish`), computed as
/// `x·n/(n + 2)` in double, `n = e^x·(e^x + 2)` (the same function: `tanh(log u) =
/// (u² - 1)/(u² + 1)`), `x` itself past 15 (where the factor rounds to 1); `-inf` gives NaN,
/// as there. About 1.7 ulp (down to -87; below, `e^x` is subnormal, in PyTorch too).
#[inline(always)]
pub(crate) fn mish_f32(x: f32) -> f32 {
    let e = exp_f32(x) as f64;
    let n = e * (e + 2.0);
    let t = if x > 15.0 { 1.0 } else { n / (n + 2.0) };
    (x as f64 * t) as f32
}

/// PyTorch's ELU family on float: `x < 0 ? expm1(x·scale)·neg : x·pos` (`elu`, `selu`,
/// `celu` with their coefficients).
#[inline(always)]
pub(crate) fn elu_f32(x: f32, neg: f32, pos: f32, scale: f32) -> f32 {
    let n = expm1_f32(x * scale) * neg;
    if x < 0.0 { n } else { x * pos }
}

/// [`tan_f32`] for one element, large arguments in double.
fn tan_one(x: f32) -> f32 {
    if past_trig_range(x) {
        (x as f64).tan() as f32
    } else {
        tan_f32(x)
    }
}

/// `x` clamped to `[lo, hi]` as PyTorch's `hardtanh` (`clamp`) does: NaN stays NaN.
#[inline(always)]
pub(crate) fn hardtanh_f32(x: f32, lo: f32, hi: f32) -> f32 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// `x·min(max(x+3, 0), 6)/6` in float, operation by operation, as PyTorch's float kernel
/// (`hardswish_kernel`: `x * minimum(maximum(x + 3, 0), 6) / 6`; the half types convert to
/// float first). Computing in double and rounding once differs from it in about 15% of
/// float32 inputs (by one ulp). NaN stays NaN.
#[inline(always)]
pub(crate) fn hardswish_f32(x: f32) -> f32 {
    x * hardtanh_f32(x + 3.0, 0.0, 6.0) / 6.0
}

/// `min(max(x+3, 0), 6)/6` in float, as PyTorch's float kernel (`hardsigmoid_kernel`). NaN
/// stays NaN.
#[inline(always)]
pub(crate) fn hardsigmoid_f32(x: f32) -> f32 {
    hardtanh_f32(x + 3.0, 0.0, 6.0) / 6.0
}

/// `sinc(x)` as PyTorch's kernel computes it for float: `p = π·x` rounded to float, then
/// `sin(p)/p` (large `p` in double); 1 at ±0.
fn sinc_one(x: f32) -> f32 {
    if x == 0.0 {
        return 1.0;
    }
    let p = std::f32::consts::PI * x;
    sin_one(p) / p
}

/// `ln(x/(1-x))` after clamping `x` to `[lo, hi]` (NaN stays NaN), as PyTorch's float
/// `logit` kernel: the quotient and the logarithm in float (`+inf` at 1).
#[inline(always)]
pub(crate) fn logit_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let x = hardtanh_f32(x, lo, hi);
    log_f32(x / (1.0 - x))
}

/// The float32 functions this module runs over runs of elements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum VOp {
    Exp,
    Expm1,
    Tanh,
    Sigmoid,
    Silu,
    Gelu,
    Log,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    Atan,
    Asin,
    Acos,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    Erf,
    Logsigmoid,
    Mish,
    /// [`elu_f32`] with its coefficients.
    Elu {
        neg: f32,
        pos: f32,
        scale: f32,
    },
    /// [`hardtanh_f32`] with its bounds.
    Hardtanh {
        lo: f32,
        hi: f32,
    },
    /// [`hardswish_f32`].
    Hardswish,
    /// [`hardsigmoid_f32`].
    Hardsigmoid,
    /// [`gelu_tanh_f32`].
    GeluTanh,
    /// [`erfinv_f32`].
    Erfinv,
    /// [`lgamma_f32`].
    Lgamma,
    /// [`digamma_f32`].
    Digamma,
    /// `sin(πx)/(πx)` with the product rounded to float first, 1 at 0 (PyTorch's `sinc`).
    Sinc,
    /// [`logit_f32`] with its clamp bounds (infinite when there is no `eps`).
    Logit {
        lo: f32,
        hi: f32,
    },
    /// `softplus` with its coefficients in float (`super::rows::softplus_f32`).
    Softplus {
        beta: f32,
        threshold: f32,
    },
}

impl VOp {
    /// The function on one element.
    #[inline(always)]
    pub(crate) fn scalar(self) -> impl Fn(f32) -> f32 {
        move |x| match self {
            VOp::Exp => exp_f32(x),
            VOp::Expm1 => expm1_f32(x),
            VOp::Tanh => tanh_f32(x),
            VOp::Sigmoid => sigmoid_f32(x),
            VOp::Silu => silu_f32(x),
            VOp::Gelu => gelu_f32(x),
            VOp::Log => log_f32(x),
            VOp::Log2 => log2_f32(x),
            VOp::Log10 => log10_f32(x),
            VOp::Log1p => log1p_f32(x),
            VOp::Sin => sin_one(x),
            VOp::Cos => cos_one(x),
            VOp::Tan => tan_one(x),
            VOp::Atan => atan_f32(x),
            VOp::Asin => asin_f32(x),
            VOp::Acos => acos_f32(x),
            VOp::Sinh => sinh_f32(x),
            VOp::Cosh => cosh_f32(x),
            VOp::Asinh => asinh_f32(x),
            VOp::Acosh => acosh_f32(x),
            VOp::Atanh => atanh_f32(x),
            VOp::Erf => erf_f32(x),
            VOp::Logsigmoid => logsigmoid_f32(x),
            VOp::Mish => mish_f32(x),
            VOp::Elu { neg, pos, scale } => elu_f32(x, neg, pos, scale),
            VOp::Hardtanh { lo, hi } => hardtanh_f32(x, lo, hi),
            VOp::Hardswish => hardswish_f32(x),
            VOp::Hardsigmoid => hardsigmoid_f32(x),
            VOp::GeluTanh => gelu_tanh_f32(x),
            VOp::Erfinv => erfinv_f32(x),
            VOp::Lgamma => lgamma_f32(x),
            VOp::Digamma => digamma_f32(x),
            VOp::Sinc => sinc_one(x),
            VOp::Logit { lo, hi } => logit_f32(x, lo, hi),
            VOp::Softplus { beta, threshold } => super::rows::softplus_f32(x, beta, threshold),
        }
    }
}

/// `op` over `xs` into `ys` (the same length), one monomorphic loop per function so each
/// vectorises.
#[inline(always)]
fn map_body(op: VOp, xs: &[f32], ys: &mut [f32]) {
    macro_rules! go {
        ($f:expr) => {
            for (y, &x) in ys.iter_mut().zip(xs) {
                *y = $f(x);
            }
        };
    }
    match op {
        VOp::Exp => go!(exp_f32),
        VOp::Expm1 => go!(expm1_f32),
        VOp::Tanh => go!(tanh_f32),
        VOp::Sigmoid => go!(sigmoid_f32),
        VOp::Silu => go!(silu_f32),
        VOp::Gelu => go!(gelu_f32),
        VOp::Log => go!(log_f32),
        VOp::Log2 => go!(log2_f32),
        VOp::Log10 => go!(log10_f32),
        VOp::Log1p => go!(log1p_f32),
        VOp::Atan => go!(atan_f32),
        VOp::Asin => go!(asin_f32),
        VOp::Acos => go!(acos_f32),
        VOp::Sinh => go!(sinh_f32),
        VOp::Cosh => go!(cosh_f32),
        VOp::Asinh => go!(asinh_f32),
        VOp::Acosh => go!(acosh_f32),
        VOp::Atanh => go!(atanh_f32),
        VOp::Erf => go!(erf_f32),
        VOp::Logsigmoid => go!(logsigmoid_f32),
        VOp::Mish => go!(mish_f32),
        VOp::Elu { neg, pos, scale } => go!(|x| elu_f32(x, neg, pos, scale)),
        VOp::Hardtanh { lo, hi } => go!(|x| hardtanh_f32(x, lo, hi)),
        VOp::Hardswish => go!(hardswish_f32),
        VOp::Hardsigmoid => go!(hardsigmoid_f32),
        VOp::GeluTanh => go!(gelu_tanh_f32),
        VOp::Erfinv => go!(erfinv_f32),
        VOp::Lgamma => go!(lgamma_f32),
        VOp::Digamma => go!(digamma_f32),
        VOp::Logit { lo, hi } => go!(|x| logit_f32(x, lo, hi)),
        VOp::Softplus { beta, threshold } => {
            go!(|x| super::rows::softplus_f32(x, beta, threshold))
        }
        VOp::Sin | VOp::Cos | VOp::Tan | VOp::Sinc => {
            let mut big = false;
            if op == VOp::Sinc {
                for (y, &x) in ys.iter_mut().zip(xs) {
                    let p = std::f32::consts::PI * x;
                    let v = sincos_f32(p, false) / p;
                    *y = if x == 0.0 { 1.0 } else { v };
                    big |= past_trig_range(p);
                }
            } else if op == VOp::Tan {
                for (y, &x) in ys.iter_mut().zip(xs) {
                    *y = tan_f32(x);
                    big |= past_trig_range(x);
                }
            } else {
                let cos = op == VOp::Cos;
                for (y, &x) in ys.iter_mut().zip(xs) {
                    *y = sincos_f32(x, cos);
                    big |= past_trig_range(x);
                }
            }
            // the rare arguments past the reduction's range (and ±inf, NaN) again in double
            if big {
                let f = op.scalar();
                for (y, &x) in ys.iter_mut().zip(xs) {
                    let arg = if op == VOp::Sinc {
                        std::f32::consts::PI * x
                    } else {
                        x
                    };
                    if past_trig_range(arg) {
                        *y = f(x);
                    }
                }
            }
        }
    }
}

multiversion!(pub(crate) fn map_f32 = map_body(op: VOp, xs: &[f32], ys: &mut [f32]));

/// `g · (Φ(x) + x·φ(x))`, the input gradient of exact `gelu` (PyTorch's
/// `GeluBackwardKernelImpl` for float: `cdf = 0.5·(1 + erf(x/√2))`, `pdf = α·e^{-x²/2}`,
/// `α = 2/√π · 1/√2 · 1/2`).
#[inline(always)]
pub(crate) fn gelu_backward_f32(g: f32, x: f32) -> f32 {
    const ALPHA: f32 = std::f32::consts::FRAC_2_SQRT_PI * std::f32::consts::FRAC_1_SQRT_2 * 0.5;
    let cdf = 0.5 * (1.0 + erf_f32(x * std::f32::consts::FRAC_1_SQRT_2));
    let pdf = ALPHA * exp_f32(x * x * -0.5);
    g * (cdf + x * pdf)
}

/// `logaddexp(a, b)` as PyTorch's float kernel: `a` when both are the same infinity, else
/// `max(a, b) + log1p(e^{-|a-b|})` ([`log1p_unit`] for the logarithm).
#[inline(always)]
pub(crate) fn logaddexp_f32(a: f32, b: f32) -> f32 {
    let m = if a < b { b } else { a };
    let r = m + log1p_unit(exp_f32(-(a - b).abs()));
    if a == b && a.abs() == f32::INFINITY {
        a
    } else {
        r
    }
}

/// The float32 functions of two arguments this module runs over runs of elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BOp {
    /// [`gelu_backward_f32`]`(g, x)`.
    GeluBackward,
    /// [`atan2_f32`]`(y, x)`.
    Atan2,
    /// [`fmod_f32`]`(x, y)` (exact).
    Fmod,
    /// [`remainder_f32`]`(x, y)` (PyTorch's float `remainder`).
    Remainder,
    /// [`hypot_f32`]`(x, y)`.
    Hypot,
    /// [`logaddexp_f32`]`(a, b)`.
    Logaddexp,
    /// [`pow_f32`]`(x, y)`.
    Pow,
}

impl BOp {
    /// The function on one pair of elements.
    #[inline(always)]
    fn scalar(self, a: f32, b: f32) -> f32 {
        match self {
            BOp::GeluBackward => gelu_backward_f32(a, b),
            BOp::Atan2 => atan2_f32(a, b),
            BOp::Fmod => fmod_f32(a, b),
            BOp::Remainder => remainder_f32(a, b),
            BOp::Hypot => hypot_f32(a, b),
            BOp::Logaddexp => logaddexp_f32(a, b),
            BOp::Pow => pow_f32(a, b),
        }
    }
}

/// `op` over `a` and `b` into `ys` (the same length), one monomorphic loop per function.
#[inline(always)]
fn map2_body(op: BOp, a: &[f32], b: &[f32], ys: &mut [f32]) {
    macro_rules! go {
        ($f:expr) => {
            for ((y, &u), &v) in ys.iter_mut().zip(a).zip(b) {
                *y = $f(u, v);
            }
        };
    }
    match op {
        BOp::GeluBackward => go!(gelu_backward_f32),
        BOp::Atan2 => go!(atan2_f32),
        BOp::Hypot => go!(hypot_f32),
        BOp::Logaddexp => go!(logaddexp_f32),
        BOp::Fmod | BOp::Remainder | BOp::Pow => {
            // the vector form, then the arguments it leaves to the scalar one
            let mut rest = false;
            macro_rules! split {
                ($fast:expr, $post:expr) => {
                    for ((y, &u), &v) in ys.iter_mut().zip(a).zip(b) {
                        let (r, ok) = $fast(u, v);
                        *y = $post(r, v);
                        rest |= !ok;
                    }
                };
            }
            match op {
                BOp::Fmod => split!(fmod_f32_fast, |r, _| r),
                BOp::Remainder => split!(fmod_f32_fast, remainder_adjust),
                _ => split!(pow_f32_fast, |r, _| r),
            }
            if rest {
                for ((y, &u), &v) in ys.iter_mut().zip(a).zip(b) {
                    let ok = match op {
                        BOp::Pow => pow_f32_fast(u, v).1,
                        _ => fmod_f32_fast(u, v).1,
                    };
                    if !ok {
                        *y = op.scalar(u, v);
                    }
                }
            }
        }
    }
}
multiversion!(fn map2_f32 = map2_body(op: BOp, a: &[f32], b: &[f32], ys: &mut [f32]));

/// [`map2_f32`] for the tests.
#[cfg(test)]
pub(crate) fn map2_f32_pub(op: BOp, a: &[f32], b: &[f32], ys: &mut [f32]) {
    map2_f32(op, a, b, ys)
}

/// [`gelu_backward_run`] as a kernel for the engine's safe entry points (float32 operands).
pub(crate) fn gelu_backward_kernel()
-> super::loops::TypedKernel<impl Fn(&[*mut u8; 3], &[isize; 3], usize) + Sync, 3> {
    binary_kernel(BOp::GeluBackward)
}

/// [`binary_run`] of `op` as a kernel for the engine's safe entry points (float32 operands).
pub(crate) fn binary_kernel(
    op: BOp,
) -> super::loops::TypedKernel<impl Fn(&[*mut u8; 3], &[isize; 3], usize) + Sync, 3> {
    // SAFETY: `binary_run` reads two float32 inputs and writes a float32 output within `n`
    // elements at the strides given, and nothing else: `TypedKernel::new`'s contract.
    unsafe {
        super::loops::TypedKernel::new([crate::dtype::DType::Float32; 3], move |p, s, n| {
            binary_run(op, p, s, n)
        })
    }
}

/// Whether the contiguous runs of `n` floats at `a` and `b` share no byte.
fn disjoint(a: *const f32, b: *const f32, n: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    a + 4 * n <= b || b + 4 * n <= a
}

/// A kernel for [`super::loops::Loop::run`]: `out = op(a, b)` over one run of float32
/// (vectorised when the run is contiguous and the output overlaps no input).
///
/// # Safety
/// `p` holds a float32 output and two float32 inputs valid for `n` elements at the element
/// strides `s`; the caller holds the locks.
pub(crate) unsafe fn binary_run(op: BOp, p: &[*mut u8; 3], s: &[isize; 3], n: usize) {
    let (o, a, b) = (p[0] as *mut f32, p[1] as *const f32, p[2] as *const f32);
    if s[0] == 1 && s[1] == 1 && s[2] == 1 && disjoint(o, a, n) && disjoint(o, b, n) {
        // SAFETY: the caller's contract: n contiguous elements each; the output overlaps
        // neither input (checked).
        let (xs, zs, ys) = unsafe {
            (
                std::slice::from_raw_parts(a, n),
                std::slice::from_raw_parts(b, n),
                std::slice::from_raw_parts_mut(o, n),
            )
        };
        map2_f32(op, xs, zs, ys);
        return;
    }
    for i in 0..n as isize {
        // SAFETY: element i of each operand lies in its run (caller's contract).
        unsafe { *o.offset(i * s[0]) = op.scalar(*a.offset(i * s[1]), *b.offset(i * s[2])) };
    }
}

/// [`unary_run`] of `op` as a kernel for the engine's safe entry points (float32 operands).
pub(crate) fn unary_kernel(
    op: VOp,
) -> super::loops::TypedKernel<impl Fn(&[*mut u8; 2], &[isize; 2], usize) + Sync, 2> {
    // SAFETY: `unary_run` reads a float32 input and writes a float32 output within `n`
    // elements at the strides given, and nothing else: `TypedKernel::new`'s contract.
    unsafe {
        super::loops::TypedKernel::new([crate::dtype::DType::Float32; 2], move |p, s, n| {
            unary_run(op, p, s, n)
        })
    }
}

/// A kernel for [`super::loops::Loop::run`]: `out = op(a)` over one run of float32
/// (vectorised when the run is contiguous and the output does not overlap the input).
///
/// # Safety
/// `p` holds a float32 output and a float32 input valid for `n` elements at the element
/// strides `s`; the caller holds the storage locks.
pub(crate) unsafe fn unary_run(op: VOp, p: &[*mut u8; 2], s: &[isize; 2], n: usize) {
    let (o, a) = (p[0] as *mut f32, p[1] as *const f32);
    if s[0] == 1 && s[1] == 1 && disjoint(o, a, n) {
        // SAFETY: the caller's contract: n contiguous elements each, not overlapping
        // (checked).
        let (xs, ys) = unsafe {
            (
                std::slice::from_raw_parts(a, n),
                std::slice::from_raw_parts_mut(o, n),
            )
        };
        map_f32(op, xs, ys);
        return;
    }
    let f = op.scalar();
    for i in 0..n as isize {
        // SAFETY: the caller's contract: element i of each operand is valid.
        unsafe { *o.offset(i * s[0]) = f(*a.offset(i * s[1])) };
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn gelu_backward_matches_double() {
        for k in -400..400 {
            let x = k as f32 * 0.02;
            let xd = x as f64;
            let cdf = 0.5 * (1.0 + libm::erf(xd / std::f64::consts::SQRT_2));
            let pdf = (-0.5 * xd * xd).exp() / (2.0 * std::f64::consts::PI).sqrt();
            let want = 1.5 * (cdf + xd * pdf);
            let got = super::gelu_backward_f32(1.5, x) as f64;
            assert!((got - want).abs() <= 1e-6, "x={x}: {got} vs {want}");
        }
    }

    use super::*;

    fn grid() -> Vec<f32> {
        let mut v: Vec<f32> = (-20000..=20000).map(|i| i as f32 * 1e-3).collect();
        v.extend((-1000..=1000).map(|i| i as f32 * 0.1));
        v.extend([
            1e-30, -1e-30, 1e-8, -1e-8, 0.0, -0.0, 88.7, -87.5, -100.0, -103.5,
        ]);
        v
    }

    fn check(name: &str, f: impl Fn(f32) -> f32, want: impl Fn(f64) -> f64, rtol: f64, atol: f64) {
        let xs = grid();
        for &x in &xs {
            let (g, w) = (f(x) as f64, want(x as f64) as f32 as f64);
            let ok = if w.is_finite() {
                (g - w).abs() <= atol + rtol * w.abs()
            } else {
                g == w || (g.is_nan() && w.is_nan())
            };
            assert!(ok, "{name}({x}) = {g}, want {w}");
        }
    }

    #[test]
    fn accurate_to_float32() {
        check("exp", exp_f32, f64::exp, 3e-7, 1e-30);
        check("tanh", tanh_f32, f64::tanh, 4e-7, 1e-30);
        check(
            "sigmoid",
            sigmoid_f32,
            |x| 1.0 / (1.0 + (-x).exp()),
            4e-7,
            1e-30,
        );
        check("silu", silu_f32, |x| x / (1.0 + (-x).exp()), 4e-7, 1e-30);
        check("erf", erf_f32, libm::erf, 0.0, 5e-7);
        let gelu = |x: f64| x * 0.5 * (1.0 + libm::erf(x / 2f64.sqrt()));
        check("gelu", gelu_f32, gelu, 3e-7, 5e-7);
        let k = (2.0 / std::f64::consts::PI).sqrt();
        let gt = move |x: f64| 0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh());
        check("gelu_tanh", gelu_tanh_f32, gt, 1e-6, 1e-7);
    }

    #[test]
    fn special_values() {
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(89.0), f32::INFINITY);
        assert_eq!(exp_f32(0.0), 1.0);
        assert!(exp_f32(f32::NAN).is_nan());
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
        assert_eq!(sigmoid_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(sigmoid_f32(f32::INFINITY), 1.0);
        assert!(silu_f32(f32::NEG_INFINITY).is_nan());
        assert_eq!(gelu_f32(f32::INFINITY), f32::INFINITY);
        assert!(gelu_f32(f32::NAN).is_nan());
        // the vectorised loop and the scalar function agree
        let xs: Vec<f32> = (0..1000).map(|i| i as f32 * 0.037 - 18.0).collect();
        let ops = [
            VOp::Exp,
            VOp::Tanh,
            VOp::Sigmoid,
            VOp::Silu,
            VOp::Gelu,
            VOp::Log,
            VOp::Log2,
            VOp::Log10,
            VOp::Log1p,
            VOp::Sin,
            VOp::Cos,
            VOp::Tan,
            VOp::Erf,
            VOp::Expm1,
            VOp::Atan,
            VOp::Asin,
            VOp::Acos,
            VOp::Sinh,
            VOp::Cosh,
            VOp::Asinh,
            VOp::Acosh,
            VOp::Atanh,
            VOp::Logsigmoid,
            VOp::Mish,
            VOp::Elu {
                neg: 1.758_099_3,
                pos: 1.050_701,
                scale: 1.0,
            },
            VOp::Hardtanh { lo: -1.0, hi: 2.5 },
            VOp::Hardswish,
            VOp::Hardsigmoid,
        ];
        let xs: Vec<f32> = xs.iter().map(|x| x.abs() * 1e3).chain(xs.clone()).collect();
        let mut ys = vec![0.0; xs.len()];
        for op in ops {
            map_f32(op, &xs, &mut ys);
            for (x, y) in xs.iter().zip(&ys) {
                assert_eq!(y.to_bits(), op.scalar()(*x).to_bits(), "{op:?}({x})");
            }
        }
    }

    /// The error of `f` in float32 ulps of the correctly rounded result, against `reference`
    /// in double: the largest over every 127th float32 bit pattern (either sign) in `[lo, hi]`,
    /// about 1.7·10⁷ arguments for the whole range.
    fn max_ulp(f: fn(f32) -> f32, reference: fn(f64) -> f64, lo: f32, hi: f32) -> (f64, f32) {
        let mut worst = (0.0f64, 0.0f32);
        let mut check = |x: f32| {
            let want = reference(x as f64);
            let got = f(x);
            if !want.is_finite() || (want as f32).is_infinite() {
                return;
            }
            let w = want as f32;
            let ulp = (f32::from_bits(w.abs().to_bits() + 1) - w.abs()) as f64;
            let err = (got as f64 - want).abs() / ulp;
            if err > worst.0 || err.is_nan() {
                worst = (err, x);
            }
        };
        let mut b = 0u32;
        while b < 0x7f80_0000 {
            let x = f32::from_bits(b);
            for x in [x, -x] {
                if x >= lo && x <= hi {
                    check(x);
                }
            }
            b += 127;
        }
        worst
    }

    fn logsigmoid_f64(x: f64) -> f64 {
        if x < 0.0 {
            x - x.exp().ln_1p()
        } else {
            -(-x).exp().ln_1p()
        }
    }

    fn mish_f64(x: f64) -> f64 {
        x * x.exp().ln_1p().tanh()
    }

    thread_local! {
        /// The fixed argument of [`atan2_y`] and [`atan2_x`].
        static ATAN2_OTHER: std::cell::Cell<f32> = const { std::cell::Cell::new(1.0) };
    }
    thread_local! {
        /// The function of two arguments [`pair_y`] and [`pair_x`] measure, and its reference.
        #[allow(clippy::type_complexity)]
        static PAIR: std::cell::Cell<(fn(f32, f32) -> f32, fn(f64, f64) -> f64)> =
            const { std::cell::Cell::new((atan2_f32, f64::atan2)) };
    }
    fn pair_y(y: f32) -> f32 {
        PAIR.get().0(y, ATAN2_OTHER.get())
    }
    fn pair_y_f64(y: f64) -> f64 {
        PAIR.get().1(y, ATAN2_OTHER.get() as f64)
    }
    fn pair_x(x: f32) -> f32 {
        PAIR.get().0(ATAN2_OTHER.get(), x)
    }
    fn pair_x_f64(x: f64) -> f64 {
        PAIR.get().1(ATAN2_OTHER.get() as f64, x)
    }
    fn atan2_y(y: f32) -> f32 {
        atan2_f32(y, ATAN2_OTHER.get())
    }
    fn atan2_y_f64(y: f64) -> f64 {
        y.atan2(ATAN2_OTHER.get() as f64)
    }
    fn atan2_x(x: f32) -> f32 {
        atan2_f32(ATAN2_OTHER.get(), x)
    }
    fn atan2_x_f64(x: f64) -> f64 {
        (ATAN2_OTHER.get() as f64).atan2(x)
    }

    /// The accuracy table of README ("The float32 math library"): the largest error in ulps
    /// over the range each function is used on. Run with `--nocapture` to print it.
    #[test]
    fn accuracy_in_ulps() {
        // name, function, double reference, range, bound in ulps
        type Row = (&'static str, fn(f32) -> f32, fn(f64) -> f64, f32, f32, f64);
        let m = f32::MAX;
        let table: [Row; 21] = [
            ("exp", exp_f32, f64::exp, -104.0, 88.7, 1.5),
            ("expm1", expm1_f32, f64::exp_m1, -m, 88.7, 2.0),
            ("log", log_f32, f64::ln, 0.0, f32::MAX, 1.5),
            ("log2", log2_f32, f64::log2, 0.0, f32::MAX, 2.0),
            ("log10", log10_f32, f64::log10, 0.0, f32::MAX, 2.0),
            ("log1p", log1p_f32, f64::ln_1p, -1.0, f32::MAX, 2.5),
            ("sin", sin_one, f64::sin, -f32::MAX, f32::MAX, 2.0),
            ("cos", cos_one, f64::cos, -f32::MAX, f32::MAX, 2.0),
            ("tan", tan_one, f64::tan, -m, m, 3.0),
            ("atan", atan_f32, f64::atan, -m, m, 2.5),
            ("asin", asin_f32, f64::asin, -1.0, 1.0, 2.5),
            ("acos", acos_f32, f64::acos, -1.0, 1.0, 1.5),
            ("sinh", sinh_f32, f64::sinh, -m, m, 2.0),
            ("cosh", cosh_f32, f64::cosh, -m, m, 2.0),
            ("tanh", tanh_f32, f64::tanh, -20.0, 20.0, 3.0),
            ("asinh", asinh_f32, f64::asinh, -m, m, 2.5),
            ("acosh", acosh_f32, f64::acosh, 1.0, m, 3.0),
            ("atanh", atanh_f32, f64::atanh, -1.0, 1.0, 2.5),
            ("logsigmoid", logsigmoid_f32, logsigmoid_f64, -m, m, 3.0),
            ("log1p_unit", log1p_unit, f64::ln_1p, 0.0, 1.0, 2.5),
            // below -87 e^x is subnormal, and so is the result: its few bits are PyTorch's too
            ("mish", mish_f32, mish_f64, -87.0, m, 2.0),
        ];
        for (name, f, r, lo, hi, bound) in table {
            let (err, at) = max_ulp(f, r, lo, hi);
            println!("{name}: {err:.3} ulp (at {at:e})");
            assert!(err <= bound, "{name}: {err} ulp at {at:e}");
        }
        // atan2: every 127th float for one argument, against a few values of the other
        let mut worst = (0.0f64, 0.0f32, 0.0f32);
        for other in [1.7f32, -0.3, 4e-5, -2e7] {
            ATAN2_OTHER.set(other);
            for (f, r) in [
                (atan2_y as fn(f32) -> f32, atan2_y_f64 as fn(f64) -> f64),
                (atan2_x, atan2_x_f64),
            ] {
                let (err, at) = max_ulp(f, r, -m, m);
                if err > worst.0 {
                    worst = (err, at, other);
                }
            }
        }
        println!(
            "atan2: {:.3} ulp (at {:e} against {:e})",
            worst.0, worst.1, worst.2
        );
        assert!(worst.0 <= 3.0, "atan2: {worst:?}");
        // the special functions, each over its whole domain (lgamma and digamma on each side
        // of 0 separately: near their zeros the result's magnitude vanishes, and the error in
        // ulps of it grows, in PyTorch's float functions as well)
        let special: [Row; 5] = [
            (
                "erfinv",
                erfinv_f32,
                super::super::special::erfinv,
                -1.0,
                1.0,
                1.0,
            ),
            ("lgamma (x > 0)", lgamma_f32, libm::lgamma, 0.0, m, 3.0),
            ("lgamma (x < 0)", lgamma_f32, libm::lgamma, -m, -0.0, 3.0),
            (
                "digamma (x > 0)",
                digamma_f32,
                super::super::special::digamma,
                0.0,
                m,
                3.0,
            ),
            (
                "digamma (x < 0)",
                digamma_f32,
                super::super::special::digamma,
                -m,
                -0.0,
                1e9,
            ),
        ];
        for (name, f, r, lo, hi, bound) in special {
            let (err, at) = max_ulp(f, r, lo, hi);
            println!("{name}: {err:.3} ulp (at {at:e})");
            assert!(err <= bound, "{name}: {err} ulp at {at:e}");
        }
        // pow, hypot and logaddexp: every 127th float for one argument against a few values
        // of the other, as atan2
        type Pair = (&'static str, fn(f32, f32) -> f32, fn(f64, f64) -> f64, f64);
        let pairs: [Pair; 2] = [
            ("pow", pow_f32, f64::powf, 1.0),
            ("hypot", hypot_f32, f64::hypot, 1.0),
        ];
        for (name, f, r, bound) in pairs {
            PAIR.set((f, r));
            let mut worst = (0.0f64, 0.0f32, 0.0f32);
            for other in [1.7f32, -0.3, 4e-5, -2e7, 3.0, -7.0, 0.5] {
                ATAN2_OTHER.set(other);
                for (f, r) in [
                    (pair_y as fn(f32) -> f32, pair_y_f64 as fn(f64) -> f64),
                    (pair_x, pair_x_f64),
                ] {
                    let (err, at) = max_ulp(f, r, -m, m);
                    if err > worst.0 {
                        worst = (err, at, other);
                    }
                }
            }
            println!(
                "{name}: {:.3} ulp (at {:e} against {:e})",
                worst.0, worst.1, worst.2
            );
            assert!(worst.0 <= bound, "{name}: {worst:?}");
        }
        // logaddexp: PyTorch's float formula `max + log1p(exp(-|a-b|))` cancels where the
        // result crosses zero (`logaddexp(-1.35, -0.3)` is about 1e-3), so any formula of its
        // shape errs there by many ulps of the result; its error is bounded in ulps of the
        // largest of the arguments and the result instead
        let mut worst = (0.0f64, 0.0f32, 0.0f32);
        for other in [1.7f32, -0.3, 4e-5, -2e7, 3.0, -7.0, 0.5] {
            let mut b = 0u32;
            while b < 0x7f80_0000 {
                for x in [f32::from_bits(b), -f32::from_bits(b)] {
                    let (a, c) = (x as f64, other as f64);
                    let want = a.max(c) + (-(a - c).abs()).exp().ln_1p();
                    if !want.is_finite() || (want as f32).is_infinite() {
                        continue;
                    }
                    let scale = (want.abs().max(a.abs()).max(c.abs())) as f32;
                    let ulp = (f32::from_bits(scale.to_bits() + 1) - scale) as f64;
                    let err = (logaddexp_f32(x, other) as f64 - want).abs() / ulp;
                    if err > worst.0 || err.is_nan() {
                        worst = (err, x, other);
                    }
                }
                b += 127;
            }
        }
        println!(
            "logaddexp: {:.3} ulp of the largest magnitude (at {:e} against {:e})",
            worst.0, worst.1, worst.2
        );
        assert!(worst.0 <= 3.5, "logaddexp: {worst:?}");
        // fmod and remainder are exact: fmod against double's (exact too), remainder its
        // adjustment in float
        for other in [1.7f32, -0.3, 4e-5, -2e7, 3.0, 1e-40, -7.5e30] {
            let mut b = 0u32;
            while b < 0x7f80_0000 {
                for x in [f32::from_bits(b), -f32::from_bits(b)] {
                    let want = ((x as f64) % (other as f64)) as f32;
                    let got = fmod_f32(x, other);
                    assert_eq!(got.to_bits(), want.to_bits(), "fmod({x:e}, {other:e})");
                    let m = x % other;
                    let rem = if m != 0.0 && ((other < 0.0) != (m < 0.0)) {
                        m + other
                    } else {
                        m
                    };
                    assert_eq!(remainder_f32(x, other).to_bits(), rem.to_bits());
                }
                b += 127;
            }
        }
        // special values
        assert_eq!(log_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(log_f32(-0.0), f32::NEG_INFINITY);
        assert_eq!(log_f32(f32::INFINITY), f32::INFINITY);
        assert!(log_f32(-1.0).is_nan() && log_f32(f32::NAN).is_nan());
        assert_eq!(log2_f32(8.0), 3.0);
        assert_eq!(log2_f32(f32::from_bits(1)), -149.0);
        assert_eq!(log_f32(1.0), 0.0);
        assert_eq!(log1p_f32(-1.0), f32::NEG_INFINITY);
        assert_eq!(log1p_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(log1p_f32(1e-30), 1e-30);
        assert_eq!(log1p_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert!(log1p_f32(-2.0).is_nan() && log1p_f32(f32::NAN).is_nan());
        assert!(sin_one(f32::INFINITY).is_nan() && cos_one(f32::NAN).is_nan());
        assert_eq!(sin_f32(0.0), 0.0);
        assert_eq!(sin_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(cos_f32(0.0), 1.0);
        let neg0 = (-0.0f32).to_bits();
        assert_eq!(expm1_f32(f32::NEG_INFINITY), -1.0);
        assert_eq!(expm1_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(expm1_f32(-0.0).to_bits(), neg0);
        assert_eq!(expm1_f32(1e-30), 1e-30);
        assert_eq!(sinh_f32(f32::NEG_INFINITY), f32::NEG_INFINITY);
        let s89 = 89f64.sinh();
        assert!((sinh_f32(89.0) as f64 - s89).abs() < 2e-7 * s89);
        assert_eq!(cosh_f32(f32::NEG_INFINITY), f32::INFINITY);
        assert_eq!(cosh_f32(0.0), 1.0);
        assert_eq!(tan_one(-0.0).to_bits(), neg0);
        assert!(tan_one(f32::INFINITY).is_nan());
        let pi = std::f32::consts::PI;
        assert_eq!(atan_f32(f32::INFINITY), pi / 2.0);
        assert_eq!(atan_f32(-0.0).to_bits(), neg0);
        assert_eq!(asin_f32(-1.0), -pi / 2.0);
        assert_eq!(acos_f32(-1.0), pi);
        assert_eq!(acos_f32(1.0), 0.0);
        assert!(asin_f32(1.5).is_nan() && acos_f32(-1.5).is_nan());
        assert_eq!(asinh_f32(-0.0).to_bits(), neg0);
        assert_eq!(asinh_f32(f32::NEG_INFINITY), f32::NEG_INFINITY);
        assert_eq!(acosh_f32(1.0), 0.0);
        assert_eq!(acosh_f32(f32::INFINITY), f32::INFINITY);
        assert!(acosh_f32(0.5).is_nan() && acosh_f32(-3.0).is_nan());
        assert_eq!(atanh_f32(-1.0), f32::NEG_INFINITY);
        assert_eq!(atanh_f32(-0.0).to_bits(), neg0);
        assert!(atanh_f32(1.5).is_nan());
        assert_eq!(logsigmoid_f32(f32::NEG_INFINITY), f32::NEG_INFINITY);
        assert_eq!(logsigmoid_f32(f32::INFINITY), 0.0);
        assert!(mish_f32(f32::NEG_INFINITY).is_nan());
        assert_eq!(mish_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(elu_f32(-0.0, 2.0, 1.0, 1.0).to_bits(), neg0);
        assert_eq!(elu_f32(f32::NEG_INFINITY, 2.0, 1.0, 1.0), -2.0);
        assert!(hardtanh_f32(f32::NAN, -1.0, 1.0).is_nan());
        // atan2's special values (C99 Annex F, as SLEEF and PyTorch)
        let (inf, z) = (f32::INFINITY, 0.0f32);
        for (y, x, want) in [
            (z, z, 0.0),
            (-z, z, -0.0),
            (z, -z, pi),
            (-z, -z, -pi),
            (z, -1.0, pi),
            (-z, 1.0, -0.0),
            (1.0, z, pi / 2.0),
            (-1.0, -z, -pi / 2.0),
            (inf, inf, pi / 4.0),
            (-inf, -inf, -3.0 * pi / 4.0),
            (1.0, -inf, pi),
            (-1.0, inf, -0.0),
            (inf, -5.0, pi / 2.0),
        ] {
            let got = atan2_f32(y, x);
            assert_eq!(got.to_bits(), want.to_bits(), "atan2({y}, {x}) = {got}");
        }
        assert!(atan2_f32(f32::NAN, 0.0).is_nan() && atan2_f32(0.0, f32::NAN).is_nan());
        // erf is PyTorch's own vectorised approximation: absolute error
        let mut worst = 0.0f64;
        for k in -60000..60000 {
            let x = k as f32 * 1e-4;
            worst = worst.max((erf_f32(x) as f64 - libm::erf(x as f64)).abs());
        }
        println!("erf: {worst:.2e} absolute");
        assert!(worst < 5e-7, "erf: {worst}");
    }
}
