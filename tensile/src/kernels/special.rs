//! Special functions as pure scalar functions of `f64`, written as PyTorch's CPU kernels
//! compute them (`aten/src/ATen/native/Math.h`), for the unary math ops (`digamma`,
//! `erfinv`, …). The float32 and half dtypes compute these in double and round once; the
//! conformance corpus keeps only points where float32 and float64 agree, so this is within
//! tolerance of PyTorch's float kernels.

use std::f64::consts::PI;

/// Horner evaluation `c[0]*x^n + … + c[n]` (Cephes `polevl`).
fn polevl(x: f64, c: &[f64]) -> f64 {
    c.iter().fold(0.0, |acc, &k| acc * x + k)
}

/// `torch.digamma` (`calc_digamma`): ψ(x). `±0` gives `∓inf`; negative integers give NaN;
/// negative non-integers use the reflection `ψ(1-x) - π/tan(π·frac(x))`; otherwise the
/// recurrence up to `x >= 10`, then the asymptotic series.
// The constants are Cephes' as PyTorch spells them (more digits than a double holds).
#[allow(clippy::excessive_precision)]
pub(crate) fn digamma(x: f64) -> f64 {
    const PSI_10: f64 = 2.251_752_589_066_721_107_64;
    if x == 0.0 {
        return f64::INFINITY.copysign(-x);
    }
    if x < 0.0 {
        if x == x.trunc() {
            return f64::NAN;
        }
        let r = x.fract();
        return digamma(1.0 - x) - PI / (PI * r).tan();
    }
    let mut x = x;
    let mut result = 0.0;
    while x < 10.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    if x == 10.0 {
        return result + PSI_10;
    }
    const A: [f64; 7] = DIGAMMA_SERIES;
    let mut y = 0.0;
    if x < 1.0e17 {
        let z = 1.0 / (x * x);
        y = z * polevl(z, &A);
    }
    result + x.ln() - 0.5 / x - y
}

/// `torch.erfinv` (`calc_erfinv`): the inverse error function. `|y| > 1` gives NaN, `±1`
/// gives `±inf`; otherwise a rational first guess refined by two Newton steps.
pub(crate) fn erfinv(y: f64) -> f64 {
    const A: [f64; 4] = [0.886226899, -1.645349621, 0.914624893, -0.140543331];
    const B: [f64; 4] = [-2.118377725, 1.442710462, -0.329097515, 0.012229801];
    const C: [f64; 4] = [-1.970840454, -1.624906493, 3.429567803, 1.641345311];
    const D: [f64; 2] = [3.543889200, 1.637067800];
    let y_abs = y.abs();
    if y_abs > 1.0 {
        return f64::NAN;
    }
    if y_abs == 1.0 {
        return f64::INFINITY.copysign(y);
    }
    let mut x = if y_abs <= 0.7 {
        let z = y * y;
        let num = ((A[3] * z + A[2]) * z + A[1]) * z + A[0];
        let dem = (((B[3] * z + B[2]) * z + B[1]) * z + B[0]) * z + 1.0;
        y * num / dem
    } else {
        let z = (-((1.0 - y_abs) / 2.0).ln()).sqrt();
        let num = ((C[3] * z + C[2]) * z + C[1]) * z + C[0];
        let dem = (D[1] * z + D[0]) * z + 1.0;
        num.copysign(y) / dem
    };
    let two_over_sqrt_pi = 2.0 / PI.sqrt();
    for _ in 0..2 {
        x -= (libm::erf(x) - y) / (two_over_sqrt_pi * (-x * x).exp());
    }
    x
}

/// `torch.lgamma`: `ln|Γ(x)|` (C's `lgamma`).
pub(crate) fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// `torch.erfc`: `1 - erf(x)` without cancellation (C's `erfc`).
pub(crate) fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// `torch.sinc`: `sin(πx)/(πx)`, 1 at 0.
pub(crate) fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        let p = PI * x;
        p.sin() / p
    }
}

/// `torch.logit(x, eps)`: `ln(x/(1-x))` after clamping `x` to `[eps, hi]` when `eps` is
/// given and non-negative (NaN stays NaN); `hi` is `1 - eps` (as the caller rounds it,
/// `1 - eps` when `None`).
pub(crate) fn logit(x: f64, eps: Option<f64>, hi: Option<f64>) -> f64 {
    let x = match eps {
        Some(e) if e >= 0.0 => {
            let hi = hi.unwrap_or(1.0 - e);
            if x < e {
                e
            } else if x > hi {
                hi
            } else {
                x
            }
        }
        _ => x,
    };
    (x / (1.0 - x)).ln()
}

/// `log1p(exp(x))` without overflow: `softplus` with beta 1 and no threshold.
pub(crate) fn log1pexp(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// The coefficients of digamma's asymptotic series (Cephes' `psi`, highest order first), used
/// by [`digamma`] and the vector `digamma_f32` of `kernels::vspecial`.
#[allow(clippy::excessive_precision)]
pub(crate) const DIGAMMA_SERIES: [f64; 7] = [
    8.333_333_333_333_333_333_33E-2,
    -2.109_279_609_279_609_279_61E-2,
    7.575_757_575_757_575_757_58E-3,
    -4.166_666_666_666_666_666_67E-3,
    3.968_253_968_253_968_253_97E-3,
    -8.333_333_333_333_333_333_33E-3,
    8.333_333_333_333_333_333_33E-2,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digamma_values() {
        // ψ(1) = -γ, ψ(0.5) = -γ - 2 ln 2, ψ(10) = PSI_10
        let g = 0.577_215_664_901_532_9;
        assert!((digamma(1.0) + g).abs() < 1e-14);
        assert!((digamma(0.5) + g + 2.0 * 2f64.ln()).abs() < 1e-14);
        assert!((digamma(6.0) - 1.706_117_668_431_800_5).abs() < 1e-14);
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        assert_eq!(digamma(-0.0), f64::INFINITY);
        assert!(digamma(-2.0).is_nan());
    }

    #[test]
    fn erfinv_inverts_erf() {
        for &y in &[-0.999, -0.75, -0.3, 0.0, 0.1, 0.5, 0.7, 0.71, 0.9, 0.99999] {
            assert!((libm::erf(erfinv(y)) - y).abs() < 1e-15, "{y}");
        }
        assert_eq!(erfinv(1.0), f64::INFINITY);
        assert_eq!(erfinv(-1.0), f64::NEG_INFINITY);
        assert!(erfinv(1.25).is_nan());
    }

    #[test]
    fn logit_clamps_only_with_eps() {
        assert_eq!(logit(0.0, Some(0.0), None), f64::NEG_INFINITY);
        assert!(logit(-1.0, None, None).is_nan());
        assert_eq!(logit(-1.0, Some(0.25), None), (0.25f64 / 0.75).ln());
        assert!(logit(f64::NAN, Some(0.25), None).is_nan());
    }
}
