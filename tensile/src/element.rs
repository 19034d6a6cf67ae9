//! Rust element types and the one dtype-dispatch macro.
//!
//! [`Element`] maps a Rust type to its [`DType`] and gives the conversions PyTorch's casts use.
//! [`dispatch!`](crate::dispatch) turns a runtime dtype into a type parameter; it is the only
//! place in the crate that enumerates the dtypes, so ops are written once, generically.

use crate::dtype::DType;
use half::{bf16, f16};

/// A Rust type that can be a tensor element.
pub trait Element: Copy + Send + Sync + PartialEq + PartialOrd + std::fmt::Debug + 'static {
    /// The dtype of this element type.
    const DTYPE: DType;
    /// Widens to f64 (exact for every type but int64 beyond 2^53).
    fn to_f64(self) -> f64;
    /// Converts to i64 (floats truncate toward zero, saturating).
    fn to_i64(self) -> i64;
    /// Converts from f64: floats round to nearest even, ints truncate then wrap.
    fn from_f64(v: f64) -> Self;
    /// Converts from i64: ints wrap (two's complement), floats round.
    fn from_i64(v: i64) -> Self;
    /// Converts a float value (of any float dtype, widened exactly) as PyTorch's CPU cast
    /// (`static_cast`) does on x86-64: floats and bool as [`Element::from_f64`]; integers
    /// truncate toward zero with the CPU's conversion instructions, which give the "integer
    /// indefinite" value (the type's minimum) for NaN and out-of-range values, then keep the
    /// low bits. int64 converts in 64 bits and int32, int16 and int8 in 32 bits (NaN, ±inf,
    /// 1e20 give -2^63 as int64, -2^31 as int32, 0 as int16 and int8; 3e9 gives 0 as int16);
    /// uint8 converts in 64 bits (`-2147483649.0` gives 255).
    fn from_float(v: f64) -> Self {
        Self::from_f64(v)
    }
    /// `true` → 1, `false` → 0.
    fn from_bool(b: bool) -> Self;
    /// `self != 0` (NaN is non-zero).
    fn is_nonzero(self) -> bool;
    /// Zero.
    fn zero() -> Self {
        Self::from_i64(0)
    }
}

/// PyTorch's cast (`static_cast` in `c10::convert`) from `S` to `D`.
#[inline(always)]
pub fn cast<S: Element, D: Element>(s: S) -> D {
    if D::DTYPE == DType::Bool {
        D::from_bool(s.is_nonzero())
    } else if S::DTYPE.is_floating_point() {
        D::from_float(s.to_f64())
    } else if D::DTYPE == DType::Float32 {
        D::from_f64(s.to_i64() as f32 as f64)
    } else {
        D::from_i64(s.to_i64())
    }
}

/// x86-64's `cvttsd2si` into 64 bits: `v` truncated, or `i64::MIN` when that is NaN or
/// out of range.
#[inline(always)]
fn cvtt64(v: f64) -> i64 {
    let t = v.trunc();
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
        t as i64
    } else {
        i64::MIN
    }
}

/// x86-64's `cvttsd2si` into 32 bits: `v` truncated, or `i32::MIN` when that is NaN or
/// out of range.
#[inline(always)]
fn cvtt32(v: f64) -> i32 {
    let t = v.trunc();
    if (-2_147_483_648.0..2_147_483_648.0).contains(&t) {
        t as i32
    } else {
        i32::MIN
    }
}

macro_rules! int_element {
    ($($t:ty => $d:ident, $cvt:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)] fn to_f64(self) -> f64 { self as f64 }
            #[inline(always)] fn to_i64(self) -> i64 { self as i64 }
            #[inline(always)] fn from_float(v: f64) -> Self { $cvt(v) as $t }
            #[inline(always)] fn from_f64(v: f64) -> Self { (v as i64) as $t }
            #[inline(always)] fn from_i64(v: i64) -> Self { v as $t }
            #[inline(always)] fn from_bool(b: bool) -> Self { b as $t }
            #[inline(always)] fn is_nonzero(self) -> bool { self != 0 }
        }
    )*};
}
int_element!(u8 => UInt8, cvtt64, i8 => Int8, cvtt32, i16 => Int16, cvtt32, i32 => Int32, cvtt32,
    i64 => Int64, cvtt64);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    #[inline(always)]
    fn from_bool(b: bool) -> Self {
        b
    }
    #[inline(always)]
    fn is_nonzero(self) -> bool {
        self
    }
}

impl Element for f32 {
    const DTYPE: DType = DType::Float32;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v as f32
    }
    #[inline(always)]
    fn from_bool(b: bool) -> Self {
        b as u8 as f32
    }
    #[inline(always)]
    fn is_nonzero(self) -> bool {
        self != 0.0
    }
}

impl Element for f64 {
    const DTYPE: DType = DType::Float64;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v as f64
    }
    #[inline(always)]
    fn from_bool(b: bool) -> Self {
        b as u8 as f64
    }
    #[inline(always)]
    fn is_nonzero(self) -> bool {
        self != 0.0
    }
}

macro_rules! half_element {
    ($($t:ty => $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)] fn to_f64(self) -> f64 { self.to_f64() }
            #[inline(always)] fn to_i64(self) -> i64 { self.to_f32() as i64 }
            // PyTorch converts a double to a half type through float, each step rounding to
            // nearest even (`c10::Half(float)`); `half`'s own `from_f64` drops the low 32 bits
            // of the mantissa first, which rounds a value just above a midpoint down.
            #[inline(always)] fn from_f64(v: f64) -> Self { <$t>::from_f32(v as f32) }
            #[inline(always)] fn from_i64(v: i64) -> Self { <$t>::from_f32(v as f32) }
            #[inline(always)] fn from_bool(b: bool) -> Self { <$t>::from_f32(b as u8 as f32) }
            #[inline(always)] fn is_nonzero(self) -> bool { self.to_f32() != 0.0 }
        }
    )*};
}
half_element!(f16 => Float16, bf16 => BFloat16);

/// [`round_to`] for a float32 value: a value stored in, or a `Half` operation returning, the
/// reduced type `dt` (float16, bfloat16; float32 and float64 keep `v`).
pub(crate) fn round_half(dt: DType, v: f32) -> f32 {
    round_to(dt, v as f64) as f32
}

/// `v` converted to float dtype `dt` and back, as PyTorch converts a double (a Python float,
/// a double result) to the tensor's scalar type: float32 rounds to nearest even, float16 and
/// bfloat16 round to float32 first and then to the half type; float64 (and any other dtype)
/// keeps `v`.
pub(crate) fn round_to(dt: DType, v: f64) -> f64 {
    match dt {
        DType::Float16 => f16::from_f32(v as f32).to_f64(),
        DType::BFloat16 => bf16::from_f32(v as f32).to_f64(),
        DType::Float32 => v as f32 as f64,
        _ => v,
    }
}

/// Runs `$body` with `$T` bound to the Rust element type of dtype `$dt`.
///
/// `dispatch!(dt, T => body)` covers all ten dtypes. `dispatch!(@compute dt, T => body)` covers
/// the eight *compute* types (float16 and bfloat16 compute in float32, as PyTorch's
/// "opmath" does, so callers map them to float32 first; passing them is a logic error that
/// falls back to float32).
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch {
    ($dt:expr, $T:ident => $body:expr) => {
        $crate::dispatch!(@arms $dt, $T => $body;
            $crate::DType::Float16 => half::f16, $crate::DType::BFloat16 => half::bf16,
            $crate::DType::Float32 => f32)
    };
    (@compute $dt:expr, $T:ident => $body:expr) => {
        $crate::dispatch!(@arms $dt, $T => $body; _ => f32)
    };
    (@arms $dt:expr, $T:ident => $body:expr; $($extra:pat => $ty:ty),*) => {
        match $dt {
            $crate::DType::Bool => { type $T = bool; $body }
            $crate::DType::UInt8 => { type $T = u8; $body }
            $crate::DType::Int8 => { type $T = i8; $body }
            $crate::DType::Int16 => { type $T = i16; $body }
            $crate::DType::Int32 => { type $T = i32; $body }
            $crate::DType::Int64 => { type $T = i64; $body }
            $crate::DType::Float64 => { type $T = f64; $body }
            $($extra => { type $T = $ty; $body })*
        }
    };
}

/// The dtype a computation in `dt` runs in: float16 and bfloat16 compute in float32.
pub fn compute_dtype(dt: DType) -> DType {
    match dt {
        DType::Float16 | DType::BFloat16 => DType::Float32,
        d => d,
    }
}

#[cfg(test)]
mod tests {
    use crate::{DType, Tensor};

    /// Float → integer casts of NaN, infinities and out-of-range values, as PyTorch 2.15 on
    /// x86-64 gives them (the same from float32 and float64 sources, contiguous or strided).
    #[test]
    fn float_to_int_casts_match_pytorch_on_x86_64() {
        let (nan, inf) = (f64::NAN, f64::INFINITY);
        let vals = [
            nan, inf, -inf, 1e20, -1e20, 3e9, -3e9, 300.0, -300.0, -1.5, 40000.0,
        ];
        let want: [(DType, [i64; 11]); 5] = [
            (DType::UInt8, [0, 0, 0, 0, 0, 0, 0, 44, 212, 255, 64]),
            (DType::Int8, [0, 0, 0, 0, 0, 0, 0, 44, -44, -1, 64]),
            (DType::Int16, [0, 0, 0, 0, 0, 0, 0, 300, -300, -1, -25536]),
            (
                DType::Int32,
                [
                    i32::MIN as i64,
                    i32::MIN as i64,
                    i32::MIN as i64,
                    i32::MIN as i64,
                    i32::MIN as i64,
                    i32::MIN as i64,
                    i32::MIN as i64,
                    300,
                    -300,
                    -1,
                    40000,
                ],
            ),
            (
                DType::Int64,
                [
                    i64::MIN,
                    i64::MIN,
                    i64::MIN,
                    i64::MIN,
                    i64::MIN,
                    3_000_000_000,
                    -3_000_000_000,
                    300,
                    -300,
                    -1,
                    40000,
                ],
            ),
        ];
        for src in [DType::Float32, DType::Float64] {
            let t = Tensor::from_vec(vals.to_vec(), [vals.len()])
                .unwrap()
                .to(src)
                .unwrap();
            for (dt, w) in &want {
                assert_eq!(t.to(*dt).unwrap().to_vec::<i64>(), w, "{src:?} -> {dt:?}");
            }
            assert!(
                t.to(DType::Bool)
                    .unwrap()
                    .to_vec::<bool>()
                    .iter()
                    .all(|&b| b)
            );
        }
        // float64 only: uint8 converts through 64 bits, int8/int16/int32 through 32 bits
        let t = Tensor::from_vec(
            vec![5_000_000_003.0f64, -2_147_483_649.0, -2_147_483_648.9],
            [3],
        )
        .unwrap();
        let to = |dt| t.to(dt).unwrap().to_vec::<i64>();
        assert_eq!(to(DType::UInt8), [3, 255, 0]);
        assert_eq!(to(DType::Int8), [0, 0, 0]);
        assert_eq!(
            to(DType::Int32),
            [i32::MIN as i64, i32::MIN as i64, i32::MIN as i64]
        );
        assert_eq!(
            to(DType::Int64),
            [5_000_000_003, -2_147_483_649, -2_147_483_648]
        );
    }
}
