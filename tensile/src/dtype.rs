//! Dtypes, their names, and PyTorch's type promotion.
//!
//! [`promote_types`] is PyTorch's pairwise lattice (`c10/core/ScalarType.cpp`);
//! [`result_type`] sorts operands into PyTorch's three categories (dimensioned tensors,
//! 0-d tensors, Python scalars) and combines them (`TypeProperties.cpp`). [`can_cast`] is the
//! rule in-place ops apply to their output.

use crate::error::{Error, Result};
use crate::tensor::Scalar;

/// A tensor element type, named as in PyTorch (`torch.float32` is [`DType::Float32`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `torch.bool`
    Bool,
    /// `torch.uint8`
    UInt8,
    /// `torch.int8`
    Int8,
    /// `torch.int16`
    Int16,
    /// `torch.int32`
    Int32,
    /// `torch.int64`
    Int64,
    /// `torch.float16` (IEEE half, via the `half` crate)
    Float16,
    /// `torch.bfloat16` (via the `half` crate)
    BFloat16,
    /// `torch.float32`
    Float32,
    /// `torch.float64`
    Float64,
}

pub use DType::*;

/// The short aliases PyTorch users know (`tensile::float32`, …).
#[allow(non_upper_case_globals)]
pub mod names {
    use super::DType;
    /// `torch.bool`
    pub const bool: DType = DType::Bool;
    /// `torch.uint8`
    pub const uint8: DType = DType::UInt8;
    /// `torch.int8`
    pub const int8: DType = DType::Int8;
    /// `torch.int16`
    pub const int16: DType = DType::Int16;
    /// `torch.int32`
    pub const int32: DType = DType::Int32;
    /// `torch.int64` (also `torch.long`)
    pub const int64: DType = DType::Int64;
    /// `torch.float16` (also `torch.half`)
    pub const float16: DType = DType::Float16;
    /// `torch.bfloat16`
    pub const bfloat16: DType = DType::BFloat16;
    /// `torch.float32` (also `torch.float`)
    pub const float32: DType = DType::Float32;
    /// `torch.float64` (also `torch.double`)
    pub const float64: DType = DType::Float64;
}

/// Every dtype, in PyTorch's enum order.
pub const ALL_DTYPES: [DType; 10] = [
    Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64,
];

impl DType {
    /// The name after `torch.`: `"float32"`, `"int64"`, `"bool"`…
    pub fn name(self) -> &'static str {
        match self {
            Bool => "bool",
            UInt8 => "uint8",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            Float16 => "float16",
            BFloat16 => "bfloat16",
            Float32 => "float32",
            Float64 => "float64",
        }
    }

    /// Parses a name as printed by [`DType::name`].
    pub fn from_name(name: &str) -> Option<DType> {
        ALL_DTYPES.iter().copied().find(|d| d.name() == name)
    }

    /// The C++ ScalarType name used inside PyTorch's error messages: `Float`, `Long`, `Bool`…
    pub fn scalar_type_name(self) -> &'static str {
        match self {
            Bool => "Bool",
            UInt8 => "Byte",
            Int8 => "Char",
            Int16 => "Short",
            Int32 => "Int",
            Int64 => "Long",
            Float16 => "Half",
            BFloat16 => "BFloat16",
            Float32 => "Float",
            Float64 => "Double",
        }
    }

    /// The legacy CPU tensor-type name (`torch.FloatTensor`, `CPUBoolType`) used by `expand` errors.
    pub fn legacy_type_name(self) -> &'static str {
        match self {
            Bool => "CPUBoolType",
            UInt8 => "torch.ByteTensor",
            Int8 => "torch.CharTensor",
            Int16 => "torch.ShortTensor",
            Int32 => "torch.IntTensor",
            Int64 => "torch.LongTensor",
            Float16 => "torch.HalfTensor",
            BFloat16 => "CPUBFloat16Type",
            Float32 => "torch.FloatTensor",
            Float64 => "torch.DoubleTensor",
        }
    }

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        match self {
            Bool | UInt8 | Int8 => 1,
            Int16 | Float16 | BFloat16 => 2,
            Int32 | Float32 => 4,
            Int64 | Float64 => 8,
        }
    }

    /// float16, bfloat16, float32, float64.
    pub fn is_floating_point(self) -> bool {
        matches!(self, Float16 | BFloat16 | Float32 | Float64)
    }

    /// Integer dtypes; `include_bool` also counts bool (PyTorch's `isIntegralType`).
    pub fn is_integral(self, include_bool: bool) -> bool {
        matches!(self, UInt8 | Int8 | Int16 | Int32 | Int64) || (include_bool && self == Bool)
    }

    /// Signed dtypes (every float and int8…int64).
    pub fn is_signed(self) -> bool {
        !matches!(self, Bool | UInt8)
    }

    /// `torch.finfo(dtype)`: the machine limits of a floating dtype (Python array API
    /// `finfo`). float16: eps 2^-10, max 65504, tiny 2^-14, resolution 1e-3; bfloat16: eps
    /// 2^-7, resolution 1e-2; float32 and float64 as IEEE 754.
    ///
    /// Errors (TypeError) for a non-float dtype: `torch.finfo() requires a floating point input
    /// type. Use torch.iinfo to handle 'torch.finfo'`.
    pub fn finfo(self) -> Result<FInfo> {
        let (bits, eps, max, tiny, resolution) = match self {
            Float16 => (16, 2f64.powi(-10), 65504.0, 2f64.powi(-14), 1e-3),
            BFloat16 => (
                16,
                2f64.powi(-7),
                f64::from(half::bf16::MAX),
                f64::from(f32::MIN_POSITIVE),
                1e-2,
            ),
            Float32 => (
                32,
                f64::from(f32::EPSILON),
                f64::from(f32::MAX),
                f64::from(f32::MIN_POSITIVE),
                1e-6,
            ),
            Float64 => (64, f64::EPSILON, f64::MAX, f64::MIN_POSITIVE, 1e-15),
            _ => {
                return Err(Error::type_error(
                    "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'",
                ));
            }
        };
        Ok(FInfo {
            bits,
            eps,
            max,
            min: -max,
            tiny,
            smallest_normal: tiny,
            resolution,
            dtype: self,
        })
    }

    /// `torch.iinfo(dtype)`: the limits of an integer dtype (Python array API `iinfo`).
    ///
    /// Errors (TypeError): a float dtype gives `torch.iinfo() requires an integer input type.
    /// Use torch.finfo to handle 'torch.iinfo'`; bool gives `torch.bool is not supported by
    /// torch.iinfo`.
    pub fn iinfo(self) -> Result<IInfo> {
        let (bits, min, max) = match self {
            UInt8 => (8, 0, 255),
            Int8 => (8, i8::MIN as i64, i8::MAX as i64),
            Int16 => (16, i16::MIN as i64, i16::MAX as i64),
            Int32 => (32, i32::MIN as i64, i32::MAX as i64),
            Int64 => (64, i64::MIN, i64::MAX),
            Bool => {
                return Err(Error::type_error(
                    "torch.bool is not supported by torch.iinfo",
                ));
            }
            _ => {
                return Err(Error::type_error(
                    "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'",
                ));
            }
        };
        Ok(IInfo {
            bits,
            min,
            max,
            dtype: self,
        })
    }

    /// The Python array API's `isdtype(dtype, kind)`: whether `self` is of `kind`, one of
    /// `"bool"`, `"signed integer"`, `"unsigned integer"`, `"integral"`, `"real floating"`,
    /// `"complex floating"` (never: tensile has no complex dtypes) or `"numeric"` (every dtype
    /// but bool). PyTorch has no such function; this is array-api-compat's rule for torch.
    ///
    /// Errors (ValueError) for any other kind: `Unrecognized data type kind: 'KIND'`.
    pub fn isdtype(self, kind: &str) -> Result<bool> {
        Ok(match kind {
            "bool" => self == Bool,
            "signed integer" => matches!(self, Int8 | Int16 | Int32 | Int64),
            "unsigned integer" => self == UInt8,
            "integral" => self.is_integral(false),
            "real floating" => self.is_floating_point(),
            "complex floating" => false,
            "numeric" => self != Bool,
            _ => {
                return Err(Error::value(format!(
                    "Unrecognized data type kind: '{kind}'"
                )));
            }
        })
    }

    fn category(self) -> u8 {
        match self {
            Bool => 0,
            UInt8 | Int8 | Int16 | Int32 | Int64 => 1,
            _ => 2,
        }
    }
}

/// The limits of a floating dtype, as `torch.finfo` gives them (values as f64).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FInfo {
    /// Bits per element.
    pub bits: u32,
    /// The difference between 1.0 and the next larger representable number.
    pub eps: f64,
    /// The largest finite value.
    pub max: f64,
    /// The most negative finite value (`-max`).
    pub min: f64,
    /// The smallest positive normal number.
    pub tiny: f64,
    /// Equal to `tiny`.
    pub smallest_normal: f64,
    /// The approximate decimal resolution, `10^-floor(digits)`.
    pub resolution: f64,
    /// The dtype these describe.
    pub dtype: DType,
}

/// The limits of an integer dtype, as `torch.iinfo` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IInfo {
    /// Bits per element.
    pub bits: u32,
    /// The smallest value.
    pub min: i64,
    /// The largest value.
    pub max: i64,
    /// The dtype these describe.
    pub dtype: DType,
}

impl std::fmt::Display for DType {
    /// Prints `torch.float32`, as Python does.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "torch.{}", self.name())
    }
}

/// The default float dtype (`torch.get_default_dtype()`): float32. Python float scalars and
/// true division of integers produce it.
pub const DEFAULT_FLOAT: DType = Float32;

/// `torch.promote_types(a, b)`: the pairwise promotion lattice.
///
/// Symmetric; `promote_types(a, a) == a`. Within a kind the wider type wins; uint8 with a
/// signed int goes to the next signed width; any int with any float gives that float;
/// float16 with bfloat16 gives float32; bool is the bottom.
pub fn promote_types(a: DType, b: DType) -> DType {
    if a == b {
        return a;
    }
    if a == Bool {
        return b;
    }
    if b == Bool {
        return a;
    }
    match (a.is_floating_point(), b.is_floating_point()) {
        (true, true) => {
            if matches!((a, b), (Float16, BFloat16) | (BFloat16, Float16)) {
                Float32
            } else if a.itemsize() >= b.itemsize() {
                a
            } else {
                b
            }
        }
        (true, false) => a,
        (false, true) => b,
        (false, false) => {
            // both integral, not equal
            if a == UInt8 || b == UInt8 {
                let other = if a == UInt8 { b } else { a };
                if other == Int8 { Int16 } else { other }
            } else if a.itemsize() >= b.itemsize() {
                a
            } else {
                b
            }
        }
    }
}

/// PyTorch's `canCast(from, to)`: may a computation in `from` be written to a `to` output?
///
/// Floats can't go to integers, and nothing but bool can go to bool.
pub fn can_cast(from: DType, to: DType) -> bool {
    if from.is_floating_point() && to.is_integral(false) {
        return false;
    }
    !(from != Bool && to == Bool)
}

/// How an operand takes part in type promotion (PyTorch's three categories).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// A tensor with at least one dimension (including `(1,)` and `(0,)`).
    Dim,
    /// A 0-d tensor that is not a wrapped Python number.
    ZeroDim,
    /// A Python scalar (bool → bool, int → int64, float → the default float dtype).
    Wrapped,
}

/// Accumulates operands into PyTorch's `ResultTypeState` and gives the common dtype.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResultTypeState {
    dim: Option<DType>,
    zero: Option<DType>,
    wrapped: Option<DType>,
}

fn fold(acc: Option<DType>, d: DType) -> Option<DType> {
    Some(match acc {
        None => d,
        Some(a) => promote_types(a, d),
    })
}

impl ResultTypeState {
    /// Adds an operand of `dtype` in `cat`. A wrapped float becomes the default float dtype.
    pub fn update(&mut self, dtype: DType, cat: Category) {
        match cat {
            Category::Dim => self.dim = fold(self.dim, dtype),
            Category::ZeroDim => self.zero = fold(self.zero, dtype),
            Category::Wrapped => {
                let d = if dtype.is_floating_point() {
                    DEFAULT_FLOAT
                } else {
                    dtype
                };
                self.wrapped = fold(self.wrapped, d)
            }
        }
    }

    /// The common dtype: `combine(dim, combine(zero, wrapped))`. A lower-priority bucket only
    /// matters when it is of a higher category (bool < integral < floating).
    pub fn result(&self) -> DType {
        combine(self.dim, combine(self.zero, self.wrapped)).unwrap_or(DEFAULT_FLOAT)
    }
}

fn combine(hi: Option<DType>, lo: Option<DType>) -> Option<DType> {
    match (hi, lo) {
        (None, lo) => lo,
        (hi, None) => hi,
        (Some(h), Some(l)) => {
            if h.category() >= l.category() {
                Some(h)
            } else {
                Some(promote_types(h, l))
            }
        }
    }
}

/// `torch.result_type` over operands given as `(dtype, category)`.
pub fn result_type(operands: &[(DType, Category)]) -> DType {
    let mut st = ResultTypeState::default();
    for &(d, c) in operands {
        st.update(d, c);
    }
    st.result()
}

/// `result type {C} can't be cast to the desired output type {out}` unless [`can_cast`].
pub fn check_can_cast(common: DType, out: DType) -> Result<()> {
    if out != common && !can_cast(common, out) {
        return Err(Error::runtime(format!(
            "result type {} can't be cast to the desired output type {}",
            common.scalar_type_name(),
            out.scalar_type_name()
        )));
    }
    Ok(())
}

/// The C++ type name PyTorch prints for a dtype in `mm`'s dtype error.
pub(crate) fn type_meta_name(dt: DType) -> &'static str {
    match dt {
        DType::Bool => "bool",
        DType::UInt8 => "unsigned char",
        DType::Int8 => "signed char",
        DType::Int16 => "short int",
        DType::Int32 => "int",
        DType::Int64 => "long int",
        DType::Float16 => "c10::Half",
        DType::BFloat16 => "c10::BFloat16",
        DType::Float32 => "float",
        DType::Float64 => "double",
    }
}

/// c10's `overflows` check of a fill value against the dtype's range: `value cannot be
/// converted to type int8_t without overflow` (RuntimeError; non-finite floats into integer
/// dtypes too). Float64 and bool take anything.
pub(crate) fn check_fill_range(dtype: DType, value: Scalar) -> Result<()> {
    let v = value.to_f64();
    let (lo, hi, cname) = match dtype {
        DType::UInt8 => (0.0, 255.0, "uint8_t"),
        DType::Int8 => (-128.0, 127.0, "int8_t"),
        DType::Int16 => (-32768.0, 32767.0, "int16_t"),
        DType::Int32 => (i32::MIN as f64, i32::MAX as f64, "int"),
        DType::Int64 => (i64::MIN as f64, i64::MAX as f64, "int64_t"),
        DType::Float16 => (-65504.0, 65504.0, "c10::Half"),
        DType::BFloat16 => (
            -3.3895313892515355e38,
            3.3895313892515355e38,
            "c10::BFloat16",
        ),
        DType::Float32 => (f32::MIN as f64, f32::MAX as f64, "float"),
        _ => return Ok(()),
    };
    // c10's `overflows`: an unsigned target also takes negative integers down to -max
    // (they wrap: uint8 <- -1 stores 255)
    let lo = match (dtype, value) {
        (DType::UInt8, Scalar::Int(_)) => -hi,
        _ => lo,
    };
    if v.is_finite() && (v < lo || v > hi) {
        return Err(Error::runtime(format!(
            "value cannot be converted to type {cname} without overflow"
        )));
    }
    if !v.is_finite() && !dtype.is_floating_point() && matches!(value, Scalar::Float(_)) {
        return Err(Error::runtime(format!(
            "value cannot be converted to type {cname} without overflow"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn finfo_iinfo_as_pytorch() {
        use super::*;
        let f = Float16.finfo().unwrap();
        assert_eq!(
            (f.bits, f.eps, f.max, f.tiny),
            (16, 0.0009765625, 65504.0, 6.103515625e-05)
        );
        let b = BFloat16.finfo().unwrap();
        assert_eq!((b.eps, b.max), (0.0078125, 3.3895313892515355e+38));
        assert_eq!(Float32.finfo().unwrap().eps, 1.1920928955078125e-07);
        assert_eq!(Float64.finfo().unwrap().min, -1.7976931348623157e+308);
        assert_eq!(
            Int64.finfo().unwrap_err().message(),
            "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"
        );
        assert_eq!(
            (Int8.iinfo().unwrap().min, UInt8.iinfo().unwrap().max),
            (-128, 255)
        );
        assert_eq!(
            Bool.iinfo().unwrap_err().message(),
            "torch.bool is not supported by torch.iinfo"
        );
        assert_eq!(
            Float32.iinfo().unwrap_err().kind(),
            crate::ErrorKind::TypeError
        );
        assert!(
            Int32.isdtype("signed integer").unwrap() && !UInt8.isdtype("signed integer").unwrap()
        );
        assert!(Bool.isdtype("bool").unwrap() && !Bool.isdtype("numeric").unwrap());
        assert!(Int8.isdtype("foo").is_err());
    }

    use super::*;

    #[test]
    fn lattice_spot_checks() {
        assert_eq!(promote_types(UInt8, Int8), Int16);
        assert_eq!(promote_types(Int64, Float16), Float16);
        assert_eq!(promote_types(Float16, BFloat16), Float32);
        assert_eq!(promote_types(Bool, Int32), Int32);
        assert_eq!(promote_types(Int32, Float64), Float64);
    }

    #[test]
    fn lattice_is_symmetric() {
        for a in ALL_DTYPES {
            for b in ALL_DTYPES {
                assert_eq!(promote_types(a, b), promote_types(b, a));
            }
        }
    }

    #[test]
    fn categories() {
        use Category::*;
        assert_eq!(result_type(&[(Int32, Dim), (Int64, ZeroDim)]), Int32);
        assert_eq!(result_type(&[(Int32, Dim), (Float64, ZeroDim)]), Float64);
        assert_eq!(result_type(&[(Int32, Dim), (Float64, Wrapped)]), Float32);
        assert_eq!(result_type(&[(Float16, Dim), (Float64, ZeroDim)]), Float16);
        assert_eq!(result_type(&[(Bool, Dim), (Int64, Wrapped)]), Int64);
        assert_eq!(result_type(&[(Int8, Dim), (Bool, Wrapped)]), Int8);
        assert_eq!(result_type(&[(UInt8, Dim), (Int8, ZeroDim)]), UInt8);
    }
}
