//! Scalar functions of the binary and ternary math ops ([`super::math_binary`],
//! [`super::math_ternary`]), each written as PyTorch's CPU kernel computes it (`BinaryOps.cpp`,
//! `BinaryOpsKernel.cpp`, `Math.h`). Floats compute in float32 (float16/bfloat16 converted in
//! and rounded once on the way out) or float64; integers in their own width.

use crate::kernels::math::Float;

/// Float functions beyond [`Float`], for float32 and float64.
pub(crate) trait FloatMath: Float {
    fn ln_1p(self) -> Self;
    fn exp2(self) -> Self;
    fn hypot(self, b: Self) -> Self;
    fn copysign(self, b: Self) -> Self;
    fn fmod(self, b: Self) -> Self;
    fn max_std(self, b: Self) -> Self;
    fn abs_(self) -> Self;
    fn is_inf(self) -> bool;
}

macro_rules! float_math {
    ($($t:ty),*) => {$(
        impl FloatMath for $t {
            #[inline(always)] fn ln_1p(self) -> Self { self.ln_1p() }
            #[inline(always)] fn exp2(self) -> Self { self.exp2() }
            #[inline(always)] fn hypot(self, b: Self) -> Self { self.hypot(b) }
            #[inline(always)] fn copysign(self, b: Self) -> Self { self.copysign(b) }
            #[inline(always)] fn fmod(self, b: Self) -> Self { self % b }
            /// `std::max(a, b)`: `a` unless `a < b` (so a NaN `b` gives `a`).
            #[inline(always)] fn max_std(self, b: Self) -> Self { if self < b { b } else { self } }
            #[inline(always)] fn abs_(self) -> Self { self.abs() }
            #[inline(always)] fn is_inf(self) -> bool { self.is_infinite() }
        }
    )*};
}
float_math!(f32, f64);

/// `torch.xlogy`: NaN where `y` is NaN, 0 where `x` is 0, else `x * log(y)`.
#[inline(always)]
pub(crate) fn xlogy<F: FloatMath>(x: F, y: F) -> F {
    if y.is_nan() {
        return y;
    }
    if x == F::from_f(0.0) {
        return F::from_f(0.0);
    }
    x.mul(y.ln())
}

/// `torch.special.xlog1py`: NaN where `y` is NaN, 0 where `x` is 0, else `x * log1p(y)`.
#[inline(always)]
pub(crate) fn xlog1py<F: FloatMath>(x: F, y: F) -> F {
    if y.is_nan() {
        return y;
    }
    if x == F::from_f(0.0) {
        return F::from_f(0.0);
    }
    x.mul(y.ln_1p())
}

/// `torch.logaddexp`: `a` when both are the same infinity, else
/// `max(a, b) + log1p(exp(-|a - b|))`.
#[inline(always)]
pub(crate) fn logaddexp<F: FloatMath>(a: F, b: F) -> F {
    if a.is_inf() && a == b {
        return a;
    }
    let m = a.max_std(b);
    m.add(a.sub(b).abs_().neg().exp().ln_1p())
}

/// `torch.logaddexp2`: `a` when both are the same infinity, else
/// `max(a, b) + log1p(exp2(-|a - b|)) / ln 2`.
#[inline(always)]
pub(crate) fn logaddexp2<F: FloatMath>(a: F, b: F) -> F {
    if a.is_inf() && a == b {
        return a;
    }
    let m = a.max_std(b);
    let inv_ln2 = F::from_f(1.0 / std::f64::consts::LN_2);
    m.add(a.sub(b).abs_().neg().exp2().ln_1p().mul(inv_ln2))
}

/// `torch.lerp`'s formula (`Lerp.h`): `self + w * (end - self)` when `|w| < 0.5`, else
/// `end - (end - self) * (1 - w)`.
#[inline(always)]
pub(crate) fn lerp<F: FloatMath>(a: F, b: F, w: F) -> F {
    if w.abs_() < F::from_f(0.5) {
        a.add(w.mul(b.sub(a)))
    } else {
        b.sub(b.sub(a).mul(F::from_f(1.0).sub(w)))
    }
}

/// `torch.nextafter` on the bit pattern of a float (`std::nextafter`, and `c10::nextafter`
/// for float16/bfloat16): the next representable value from `x` toward `y`.
pub(crate) trait NextAfter: Copy + PartialOrd {
    fn nextafter(self, y: Self) -> Self;
}

macro_rules! nextafter_impl {
    ($($t:ty, $bits:ty, $to:expr, $from:expr, $sign:expr);*) => {$(
        impl NextAfter for $t {
            #[inline(always)]
            fn nextafter(self, y: Self) -> Self {
                let to: fn($t) -> $bits = $to;
                let from: fn($bits) -> $t = $from;
                #[allow(clippy::eq_op)]
                let nan = |v: $t| v != v;
                if nan(self) || nan(y) {
                    return if nan(self) { self } else { y };
                }
                if self == y {
                    return y;
                }
                let xb = to(self);
                if xb & !$sign == 0 {
                    // ±0: the smallest subnormal with y's sign
                    return from((to(y) & $sign) | 1);
                }
                // away from zero increments the magnitude bits, toward zero decrements them
                let positive = xb & $sign == 0;
                if (y > self) == positive { from(xb + 1) } else { from(xb - 1) }
            }
        }
    )*};
}
nextafter_impl!(
    f32, u32, f32::to_bits, f32::from_bits, 1u32 << 31;
    f64, u64, f64::to_bits, f64::from_bits, 1u64 << 63;
    half::f16, u16, half::f16::to_bits, half::f16::from_bits, 1u16 << 15;
    half::bf16, u16, half::bf16::to_bits, half::bf16::from_bits, 1u16 << 15
);

/// Integer functions: `gcd`, `lcm`, the shifts, truncating division and `fmod`, each as
/// PyTorch's integer kernel computes it (C++'s promotion of 8- and 16-bit operands to `int`
/// included).
pub(crate) trait IntMath: Copy {
    fn gcd(self, b: Self) -> Self;
    fn lcm(self, b: Self) -> Self;
    fn shl(self, b: Self) -> Self;
    fn shr(self, b: Self) -> Self;
    /// C's `%` (the sign of the dividend); 0 for a zero divisor (reported by the caller).
    fn fmod(self, b: Self) -> Self;
    fn is_zero(self) -> bool;
}

macro_rules! int_math {
    ($($t:ty, $u:ty, $s:ty, $wide:ty);*) => {$(
        impl IntMath for $t {
            #[inline(always)]
            fn gcd(self, b: Self) -> Self {
                // `calc_gcd`: a = abs(a), b = abs(b) (abs wraps at the minimum), then Euclid
                let (mut a, mut b) = (self.wrapping_abs_(), b.wrapping_abs_());
                while a != 0 {
                    let c = a;
                    a = b.wrapping_rem(a);
                    b = c;
                }
                b
            }
            #[inline(always)]
            fn lcm(self, b: Self) -> Self {
                let g = self.gcd(b);
                if g == 0 {
                    return 0;
                }
                // `abs(a / g * b)` in C++'s promoted type, converted back
                let (a, g, b) = (self as $wide, g as $wide, b as $wide);
                a.wrapping_div(g).wrapping_mul(b).wrapping_abs() as $t
            }
            #[inline(always)]
            fn shl(self, b: Self) -> Self {
                const BITS: $t = (std::mem::size_of::<$t>() * 8) as $t;
                if (b as $s) < 0 || b >= BITS {
                    return 0;
                }
                ((self as $u) << b) as $t
            }
            #[inline(always)]
            fn shr(self, b: Self) -> Self {
                // signed: shifts of the width or more fill with the sign; unsigned: 0
                #[allow(unused_comparisons)]
                const SIGNED: bool = <$t>::MIN < 0;
                const MAX: $t = (std::mem::size_of::<$t>() * 8) as $t - SIGNED as $t;
                if (b as $s) < 0 || b >= MAX {
                    return if SIGNED { self >> (MAX as u32) } else { 0 };
                }
                self >> (b as u32)
            }
            #[inline(always)]
            fn fmod(self, b: Self) -> Self {
                if b == 0 { 0 } else { self.wrapping_rem(b) }
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0
            }
        }
    )*};
}

/// `abs` that wraps at the minimum, for signed and unsigned types alike.
trait WrappingAbs {
    fn wrapping_abs_(self) -> Self;
}
macro_rules! wabs {
    (signed $($t:ty),*) => {$( impl WrappingAbs for $t { #[inline(always)] fn wrapping_abs_(self) -> Self { self.wrapping_abs() } } )*};
    (unsigned $($t:ty),*) => {$( impl WrappingAbs for $t { #[inline(always)] fn wrapping_abs_(self) -> Self { self } } )*};
}
wabs!(signed i8, i16, i32, i64);
wabs!(unsigned u8);

int_math!(
    u8, u8, i8, i32;
    i8, u8, i8, i32;
    i16, u16, i16, i32;
    i32, u32, i32, i32;
    i64, u64, i64, i64
);

#[cfg(test)]
mod tests {
    use super::*;

    /// PyTorch 2.15: `lcm` of int8 100 and 3 is 44 (300 computed in `int`, then cast),
    /// shifts of the width or more give 0 (left) or the sign fill (right), negative shifts
    /// likewise.
    #[test]
    fn integer_rules() {
        assert_eq!(100i8.lcm(3), 44);
        assert_eq!((-4i64).gcd(6), 2);
        assert_eq!(0i32.gcd(0), 0);
        assert_eq!(1i8.shl(8), 0);
        assert_eq!(1i8.shl(7), -128);
        assert_eq!((-8i8).shr(7), -1);
        assert_eq!((-8i8).shr(-1), -1);
        assert_eq!(200u8.shr(8), 0);
        assert_eq!(200u8.shr(200), 0);
        assert_eq!(3u8.shl(200), 0);
        assert_eq!((-7i32).fmod(2), -1);
    }

    #[test]
    fn nextafter_steps_one_ulp() {
        assert_eq!(1.0f32.nextafter(2.0), 1.0 + f32::EPSILON);
        assert_eq!(0.0f64.nextafter(-1.0), -f64::from_bits(1));
        assert_eq!(
            half::f16::from_f32(1.0)
                .nextafter(half::f16::from_f32(2.0))
                .to_f32(),
            1.0 + 1.0 / 1024.0
        );
        assert_eq!(f32::INFINITY.nextafter(0.0), f32::MAX);
        assert!(f32::NAN.nextafter(0.0).is_nan());
    }
}
