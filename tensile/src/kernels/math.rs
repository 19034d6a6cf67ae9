//! Per-dtype scalar arithmetic with PyTorch's semantics (Python-style integer `%` and `//`,
//! NaN-propagating maximum/minimum, wrapping integer overflow, bool arithmetic as logic).
//!
//! Ops check dtypes before they reach a kernel, so methods that make no sense for a type
//! (bitwise ops on floats) are never called on it and return a neutral value.

use crate::element::Element;

/// Arithmetic every compute type has.
pub(crate) trait Arith: Element {
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    /// True division for floats; truncating for ints (only reached through `div_floor` etc.).
    fn div(self, b: Self) -> Self;
    /// Python's `%`: the sign of the divisor.
    fn rem(self, b: Self) -> Self;
    /// Python's `//`: rounds toward −∞.
    fn floor_div(self, b: Self) -> Self;
    fn pow(self, b: Self) -> Self;
    /// NaN-propagating maximum (`torch.maximum`).
    fn maximum(self, b: Self) -> Self;
    /// NaN-propagating minimum (`torch.minimum`).
    fn minimum(self, b: Self) -> Self;
    fn bitand(self, b: Self) -> Self;
    fn bitor(self, b: Self) -> Self;
    fn bitxor(self, b: Self) -> Self;
    fn bitnot(self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    fn sign(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn trunc(self) -> Self;
    fn is_nan(self) -> bool;
    /// `true` when this is an integer zero (for integer division errors).
    fn is_int_zero(self) -> bool;
}

/// Transcendental functions, for float32 and float64 (float16/bfloat16 compute in float32).
pub(crate) trait Float: Arith {
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sqrt(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tanh(self) -> Self;
    fn erf(self) -> Self;
    fn atan2(self, b: Self) -> Self;
    fn from_f(v: f64) -> Self;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            #[inline(always)] fn sub(self, b: Self) -> Self { self.wrapping_sub(b) }
            #[inline(always)] fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
            #[inline(always)] fn div(self, b: Self) -> Self { if b == 0 { 0 } else { self.wrapping_div(b) } }
            #[inline(always)] fn rem(self, b: Self) -> Self {
                if b == 0 { return 0; }
                let r = self.wrapping_rem(b);
                #[allow(unused_comparisons)]
                if r != 0 && ((r < 0) != (b < 0)) { r.wrapping_add(b) } else { r }
            }
            #[inline(always)] fn floor_div(self, b: Self) -> Self {
                if b == 0 { return 0; }
                let q = self.wrapping_div(b);
                #[allow(unused_comparisons)]
                if self.wrapping_rem(b) != 0 && ((self < 0) != (b < 0)) { q.wrapping_sub(1) } else { q }
            }
            #[inline(always)] fn pow(self, b: Self) -> Self {
                #[allow(unused_comparisons)]
                if b < 0 {
                    // integer base to a negative power: 1/base^|b| truncated
                    return match self as i64 { 1 => 1, -1 => if (b as i64) % 2 == 0 { 1 } else { self }, _ => 0 };
                }
                let (mut base, mut e, mut acc) = (self, b as u64, 1 as $t);
                while e > 0 {
                    if e & 1 == 1 { acc = acc.wrapping_mul(base); }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
            #[inline(always)] fn maximum(self, b: Self) -> Self { if self > b { self } else { b } }
            #[inline(always)] fn minimum(self, b: Self) -> Self { if self < b { self } else { b } }
            #[inline(always)] fn bitand(self, b: Self) -> Self { self & b }
            #[inline(always)] fn bitor(self, b: Self) -> Self { self | b }
            #[inline(always)] fn bitxor(self, b: Self) -> Self { self ^ b }
            #[inline(always)] fn bitnot(self) -> Self { !self }
            #[inline(always)] fn neg(self) -> Self { (0 as $t).wrapping_sub(self) }
            #[inline(always)] fn abs(self) -> Self {
                #[allow(unused_comparisons)]
                if self < 0 { (0 as $t).wrapping_sub(self) } else { self }
            }
            #[inline(always)] fn sign(self) -> Self {
                #[allow(unused_comparisons)]
                if self > 0 { 1 } else if self < 0 { (0 as $t).wrapping_sub(1) } else { 0 }
            }
            #[inline(always)] fn floor(self) -> Self { self }
            #[inline(always)] fn ceil(self) -> Self { self }
            #[inline(always)] fn round(self) -> Self { self }
            #[inline(always)] fn trunc(self) -> Self { self }
            #[inline(always)] fn is_nan(self) -> bool { false }
            #[inline(always)] fn is_int_zero(self) -> bool { self == 0 }
        }
    )*};
}
int_arith!(u8, i8, i16, i32, i64);

impl Arith for bool {
    fn add(self, b: Self) -> Self {
        self | b
    }
    fn sub(self, b: Self) -> Self {
        self ^ b
    }
    fn mul(self, b: Self) -> Self {
        self & b
    }
    fn div(self, b: Self) -> Self {
        self & b
    }
    fn rem(self, _b: Self) -> Self {
        false
    }
    fn floor_div(self, b: Self) -> Self {
        self & b
    }
    fn pow(self, b: Self) -> Self {
        self | !b
    }
    fn maximum(self, b: Self) -> Self {
        self | b
    }
    fn minimum(self, b: Self) -> Self {
        self & b
    }
    fn bitand(self, b: Self) -> Self {
        self & b
    }
    fn bitor(self, b: Self) -> Self {
        self | b
    }
    fn bitxor(self, b: Self) -> Self {
        self ^ b
    }
    fn bitnot(self) -> Self {
        !self
    }
    fn neg(self) -> Self {
        self
    }
    fn abs(self) -> Self {
        self
    }
    fn sign(self) -> Self {
        self
    }
    fn floor(self) -> Self {
        self
    }
    fn ceil(self) -> Self {
        self
    }
    fn round(self) -> Self {
        self
    }
    fn trunc(self) -> Self {
        self
    }
    fn is_nan(self) -> bool {
        false
    }
    fn is_int_zero(self) -> bool {
        !self
    }
}

macro_rules! float_arith {
    ($($t:ty, $erf:path);*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, b: Self) -> Self { self + b }
            #[inline(always)] fn sub(self, b: Self) -> Self { self - b }
            #[inline(always)] fn mul(self, b: Self) -> Self { self * b }
            #[inline(always)] fn div(self, b: Self) -> Self { self / b }
            #[inline(always)] fn rem(self, b: Self) -> Self {
                let m = self % b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) { m + b } else { m }
            }
            #[inline(always)] fn floor_div(self, b: Self) -> Self {
                if b == 0.0 { return self / b; }
                let m = self % b;
                let mut div = (self - m) / b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) { div -= 1.0; }
                if div != 0.0 {
                    let mut f = div.floor();
                    if div - f > 0.5 { f += 1.0; }
                    f
                } else {
                    (0.0 as $t).copysign(self / b)
                }
            }
            #[inline(always)] fn pow(self, b: Self) -> Self { self.powf(b) }
            // NaN when either is; between equal values (±0) the bits AND (maximum: +0 wins)
            // or OR (minimum: -0 wins). Written as selects, which vectorise as compares and
            // blends.
            #[inline(always)] fn maximum(self, b: Self) -> Self {
                let m = if self > b { self } else { b };
                let m = if self == b { <$t>::from_bits(self.to_bits() & b.to_bits()) } else { m };
                if self.is_nan() || b.is_nan() { <$t>::NAN } else { m }
            }
            #[inline(always)] fn minimum(self, b: Self) -> Self {
                let m = if self < b { self } else { b };
                let m = if self == b { <$t>::from_bits(self.to_bits() | b.to_bits()) } else { m };
                if self.is_nan() || b.is_nan() { <$t>::NAN } else { m }
            }
            #[inline(always)] fn bitand(self, _b: Self) -> Self { 0.0 }
            #[inline(always)] fn bitor(self, _b: Self) -> Self { 0.0 }
            #[inline(always)] fn bitxor(self, _b: Self) -> Self { 0.0 }
            #[inline(always)] fn bitnot(self) -> Self { 0.0 }
            #[inline(always)] fn neg(self) -> Self { -self }
            #[inline(always)] fn abs(self) -> Self { self.abs() }
            #[inline(always)] fn sign(self) -> Self {
                // NaN (like ±0) gives 0, as PyTorch's CPU kernel does
                if self > 0.0 { 1.0 } else if self < 0.0 { -1.0 } else { 0.0 }
            }
            #[inline(always)] fn floor(self) -> Self { self.floor() }
            #[inline(always)] fn ceil(self) -> Self { self.ceil() }
            #[inline(always)] fn round(self) -> Self { self.round_ties_even() }
            #[inline(always)] fn trunc(self) -> Self { self.trunc() }
            #[inline(always)] fn is_nan(self) -> bool { self.is_nan() }
            #[inline(always)] fn is_int_zero(self) -> bool { false }
        }
        impl Float for $t {
            #[inline(always)] fn exp(self) -> Self { self.exp() }
            #[inline(always)] fn ln(self) -> Self { self.ln() }
            #[inline(always)] fn sqrt(self) -> Self { self.sqrt() }
            #[inline(always)] fn sin(self) -> Self { self.sin() }
            #[inline(always)] fn cos(self) -> Self { self.cos() }
            #[inline(always)] fn tanh(self) -> Self { self.tanh() }
            #[inline(always)] fn erf(self) -> Self { $erf(self) }
            #[inline(always)] fn atan2(self, b: Self) -> Self { self.atan2(b) }
            #[inline(always)] fn from_f(v: f64) -> Self { v as $t }
        }
    )*};
}
float_arith!(f32, libm::erff; f64, libm::erf);
