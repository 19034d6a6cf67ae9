//! Factory functions: `torch.empty`, `zeros`, `ones`, `full`, the `*_like` family,
//! `scalar_tensor`, `arange`, and the seeded `rand`/`randn`.
//!
//! Each has a short form taking PyTorch's defaults (dtype float32 for `zeros`/`ones`/`empty`,
//! inferred from the values for `full` and `arange`, the input's for `*_like`) and a `_with`
//! form taking [`TensorOptions`] (a [`DType`] converts into it).

use crate::args::{IntoShape, new_sizes};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout;
use crate::tensor::{Scalar, Tensor};

/// PyTorch's factory keyword arguments (`dtype=`), for the `_with` form of every factory.
///
/// `dtype: None` means PyTorch's default for that factory (float32, or the dtype inferred
/// from the fill value, or the input's dtype for `*_like`). `DType::Int64.into()` gives
/// `TensorOptions { dtype: Some(DType::Int64) }`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TensorOptions {
    /// `dtype=`: the result's dtype; `None` is PyTorch's default for the factory.
    pub dtype: Option<DType>,
}

impl From<DType> for TensorOptions {
    fn from(d: DType) -> TensorOptions {
        TensorOptions { dtype: Some(d) }
    }
}

/// The dtype a Python number gives a factory that infers it (`torch.full`, `torch.arange`):
/// bool → bool, int → int64, float → the default dtype float32.
fn inferred_dtype(s: Scalar) -> DType {
    match s {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::Int64,
        Scalar::Float(_) => DType::Float32,
    }
}

/// `arange`'s positional arguments: `end`, `(start, end)` or `(start, end, step)`, each any
/// Rust number (PyTorch's Python int or float).
pub trait ArangeArgs {
    /// `(start, end, step)`, with PyTorch's defaults `start = 0`, `step = 1` (ints).
    fn into_arange(self) -> (Scalar, Scalar, Scalar);
}

macro_rules! arange_end {
    ($($t:ty),*) => {$(
        impl ArangeArgs for $t {
            fn into_arange(self) -> (Scalar, Scalar, Scalar) {
                (Scalar::Int(0), self.into(), Scalar::Int(1))
            }
        }
    )*};
}
arange_end!(
    i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, Scalar
);

impl<A: Into<Scalar>, B: Into<Scalar>> ArangeArgs for (A, B) {
    fn into_arange(self) -> (Scalar, Scalar, Scalar) {
        (self.0.into(), self.1.into(), Scalar::Int(1))
    }
}
impl<A: Into<Scalar>, B: Into<Scalar>, C: Into<Scalar>> ArangeArgs for (A, B, C) {
    fn into_arange(self) -> (Scalar, Scalar, Scalar) {
        (self.0.into(), self.1.into(), self.2.into())
    }
}

/// Formats a double as C++'s `operator<<` does by default (6 significant digits, `%g`).
fn fmt_g(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (-5..6).contains(&exp) {
        trim(format!("{:.*}", (5 - exp).max(0) as usize, x))
    } else {
        let s = format!("{:.5e}", x);
        let (m, e) = s.split_once('e').unwrap();
        let e: i32 = e.parse().unwrap();
        format!(
            "{}e{}{:02}",
            trim(m.to_string()),
            if e < 0 { '-' } else { '+' },
            e.abs()
        )
    }
}

/// `Scalar::to<int64_t>()`: a float is truncated toward zero, refused when out of range.
fn scalar_to_i64(s: Scalar) -> Result<i64> {
    match s {
        Scalar::Bool(b) => Ok(b as i64),
        Scalar::Int(i) => Ok(i),
        Scalar::Float(f) => {
            if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
                Ok(f as i64)
            } else {
                Err(Error::runtime(format!(
                    "value cannot be converted to type int64_t without overflow: {}",
                    fmt_g(f)
                )))
            }
        }
    }
}

/// PyTorch's `compute_arange_size`: the bound checks (in double precision), then the length
/// — exact integer arithmetic when the result is int64 and every bound is an int, otherwise
/// `ceil((end - start) / step)` in double.
fn arange_size(start: Scalar, end: Scalar, step: Scalar, dtype: DType) -> Result<usize> {
    let (ds, de, dst) = (start.to_f64(), end.to_f64(), step.to_f64());
    if dst == 0.0 || dst.is_nan() {
        return Err(Error::runtime("step must be nonzero"));
    }
    if !(ds.is_finite() && de.is_finite()) {
        return Err(Error::runtime(format!(
            "unsupported range: {} -> {}",
            fmt_g(ds),
            fmt_g(de)
        )));
    }
    if !((dst > 0.0 && de >= ds) || (dst < 0.0 && de <= ds)) {
        return Err(Error::runtime(
            "upper bound and lower bound inconsistent with step sign",
        ));
    }
    let size_d = match (dtype, start, end, step) {
        (DType::Int64, Scalar::Int(s), Scalar::Int(e), Scalar::Int(st)) => {
            let sgn = st.signum() as i128;
            ((e as i128 - s as i128 + st as i128 - sgn) / st as i128) as f64
        }
        _ => ((de - ds) / dst).ceil(),
    };
    if !(size_d >= 0.0 && size_d <= i64::MAX as f64) {
        return Err(Error::runtime("invalid size, possible overflow?"));
    }
    Ok(size_d as usize)
}

impl Tensor {
    /// `torch.empty(size)`: float32, contiguous; contents unspecified (zero here, for safety).
    ///
    /// `size`: any [`IntoShape`] (`[2, 3]`, `x.size()`, `vec![n, m]`). Errors (RuntimeError):
    /// `Trying to create tensor with negative dimension -1: [-1, 3]`; PyTorch's allocator
    /// error `DefaultCPUAllocator: can't allocate memory: …` when the memory is not there.
    pub fn empty(size: impl IntoShape) -> Result<Tensor> {
        Tensor::empty_with(size, DType::Float32)
    }
    /// `torch.empty(size, dtype=…)`; errors as [`Tensor::empty`].
    pub fn empty_with(size: impl IntoShape, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        let sizes = new_sizes(size)?;
        Tensor::zeros_with(&sizes[..], opts)
    }
    /// `torch.zeros(size)`: float32 zeros, contiguous. Errors as [`Tensor::empty`], except
    /// that a negative size gives PyTorch's `zeros: Dimension size must be non-negative.`
    pub fn zeros(size: impl IntoShape) -> Result<Tensor> {
        Tensor::zeros_with(size, DType::Float32)
    }
    /// `torch.zeros(size, dtype=…)` (dtype default float32). Errors as [`Tensor::empty`].
    pub fn zeros_with(size: impl IntoShape, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        let sizes = new_sizes(size)
            .map_err(|_| Error::runtime("zeros: Dimension size must be non-negative."))?;
        let dtype = opts.into().dtype.unwrap_or(DType::Float32);
        let t = Tensor::try_alloc_contiguous(&sizes, dtype)?;
        crate::ops::copy::fill_unchecked(&t, Scalar::Int(0));
        Ok(t)
    }
    /// `torch.ones(size)`: float32 ones. Errors as [`Tensor::empty`].
    pub fn ones(size: impl IntoShape) -> Result<Tensor> {
        Tensor::full_with(size, 1, DType::Float32)
    }
    /// `torch.ones(size, dtype=…)` (dtype default float32). Errors as [`Tensor::empty`].
    pub fn ones_with(size: impl IntoShape, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        let dtype = opts.into().dtype.unwrap_or(DType::Float32);
        Tensor::full_with(size, 1, dtype)
    }
    /// `torch.full(size, value)`: the dtype is inferred from the value as PyTorch infers it
    /// (bool → bool, integer → int64, float → float32). Errors as [`Tensor::empty`], and
    /// `value cannot be converted to type uint8_t without overflow` for a value outside the
    /// dtype's range.
    pub fn full(size: impl IntoShape, value: impl Into<Scalar>) -> Result<Tensor> {
        Tensor::full_with(size, value, TensorOptions::default())
    }
    /// `torch.full(size, value, dtype=…)`; the value is cast to the dtype as PyTorch casts.
    /// Errors as [`Tensor::empty`].
    pub fn full_with(
        size: impl IntoShape,
        value: impl Into<Scalar>,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        let value = value.into();
        let sizes = new_sizes(size)?;
        let dtype = opts.into().dtype.unwrap_or_else(|| inferred_dtype(value));
        crate::ops::copy::check_fill_range(dtype, value)?;
        let t = Tensor::try_alloc_contiguous(&sizes, dtype)?;
        crate::ops::copy::fill_unchecked(&t, value);
        Ok(t)
    }
    /// `torch.zeros_like(t)`: same shape and dtype, preserve-format strides (a dense input's
    /// strides are kept; others get dense strides in the same dim order). Error: the
    /// allocator's.
    pub fn zeros_like(t: &Tensor) -> Result<Tensor> {
        Tensor::full_like_with(t, 0, TensorOptions::default())
    }
    /// `torch.zeros_like(t, dtype=…)`.
    pub fn zeros_like_with(t: &Tensor, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::full_like_with(t, 0, opts)
    }
    /// `torch.empty_like(t)`: as [`Tensor::zeros_like`] (contents unspecified; zero here).
    pub fn empty_like(t: &Tensor) -> Result<Tensor> {
        Tensor::zeros_like(t)
    }
    /// `torch.empty_like(t, dtype=…)`.
    pub fn empty_like_with(t: &Tensor, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::full_like_with(t, 0, opts)
    }
    /// `torch.ones_like(t)`.
    pub fn ones_like(t: &Tensor) -> Result<Tensor> {
        Tensor::full_like_with(t, 1, TensorOptions::default())
    }
    /// `torch.ones_like(t, dtype=…)`.
    pub fn ones_like_with(t: &Tensor, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        Tensor::full_like_with(t, 1, opts)
    }
    /// `torch.full_like(t, value)`: `t`'s shape, dtype and preserve-format strides.
    pub fn full_like(t: &Tensor, value: impl Into<Scalar>) -> Result<Tensor> {
        Tensor::full_like_with(t, value, TensorOptions::default())
    }
    /// `torch.full_like(t, value, dtype=…)`.
    pub fn full_like_with(
        t: &Tensor,
        value: impl Into<Scalar>,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        let dtype = opts.into().dtype.unwrap_or(t.dtype);
        let value = value.into();
        crate::ops::copy::check_fill_range(dtype, value)?;
        let strides = layout::preserve_format_strides(&t.sizes, &t.strides);
        let out = Tensor::try_alloc(&t.sizes, &strides, dtype)?;
        crate::ops::copy::fill_unchecked(&out, value);
        Ok(out)
    }
    /// `torch.scalar_tensor(value)`: a 0-d float32 tensor.
    pub fn scalar_tensor(value: impl Into<Scalar>) -> Result<Tensor> {
        Tensor::full_with((), value, DType::Float32)
    }
    /// `torch.scalar_tensor(value, dtype=…)`: a 0-d tensor (dtype default float32).
    pub fn scalar_tensor_with(
        value: impl Into<Scalar>,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        let dtype = opts.into().dtype.unwrap_or(DType::Float32);
        Tensor::full_with((), value, dtype)
    }

    /// `torch.arange(end)`, `torch.arange(start, end)`, `torch.arange(start, end, step)`:
    /// `Tensor::arange(5)`, `Tensor::arange((2, 10))`, `Tensor::arange((0.0, 1.0, 0.25))`.
    /// The dtype is int64 when every argument is an integer, float32 otherwise (PyTorch's
    /// inference from Python scalars); see [`Tensor::arange_with`] for `dtype=`.
    ///
    /// Length: `ceil((end - start) / step)` in double precision, or exactly in integers when
    /// the result is int64 and every bound is an integer. Values `start + i*step`, computed
    /// in the result's accumulate type (int64 for integer dtypes, so int64 values above 2^53
    /// are exact; float bounds with an integer dtype are truncated first, as PyTorch does).
    ///
    /// Errors (RuntimeError): `step must be nonzero`; `unsupported range: 0 -> inf`;
    /// `upper bound and lower bound inconsistent with step sign`;
    /// `invalid size, possible overflow?`; the allocator's error.
    pub fn arange(args: impl ArangeArgs) -> Result<Tensor> {
        Tensor::arange_with(args, TensorOptions::default())
    }
    /// `torch.arange(…, dtype=…)`; as [`Tensor::arange`]. Error for bool:
    /// `"arange_cpu" not implemented for 'Bool'`.
    pub fn arange_with(args: impl ArangeArgs, opts: impl Into<TensorOptions>) -> Result<Tensor> {
        let (start, end, step) = args.into_arange();
        let any_float = [start, end, step]
            .iter()
            .any(|s| matches!(s, Scalar::Float(_)));
        let dtype = opts.into().dtype.unwrap_or(if any_float {
            DType::Float32
        } else {
            DType::Int64
        });
        let n = arange_size(start, end, step, dtype)?;
        if dtype == DType::Bool {
            return Err(Error::runtime("\"arange_cpu\" not implemented for 'Bool'"));
        }
        if dtype.is_floating_point() {
            let vals: Vec<f64> = match dtype {
                // half types accumulate in float32
                DType::Float16 | DType::BFloat16 => {
                    let (s, st) = (start.to_f64() as f32, step.to_f64() as f32);
                    (0..n).map(|i| (s + st * i as f32) as f64).collect()
                }
                _ => {
                    let (s, st) = (start.to_f64(), step.to_f64());
                    (0..n).map(|i| s + st * i as f64).collect()
                }
            };
            Tensor::from_vec(vals, [n])?.to(dtype)
        } else {
            let (s, st) = (scalar_to_i64(start)?, scalar_to_i64(step)?);
            let vals: Vec<i64> = (0..n)
                .map(|i| s.wrapping_add(st.wrapping_mul(i as i64)))
                .collect();
            Tensor::from_vec(vals, [n])?.to(dtype)
        }
    }

    /// `torch.rand(size, generator=seeded)`: float32 uniform in [0, 1), reproducible for a
    /// `seed` (the stream differs from PyTorch's generator). Errors as [`Tensor::empty`].
    pub fn rand(size: impl IntoShape, seed: u64) -> Result<Tensor> {
        Tensor::rand_with(size, seed, DType::Float32)
    }
    /// `torch.rand(size, generator=seeded, dtype=…)`.
    pub fn rand_with(
        size: impl IntoShape,
        seed: u64,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        let sizes = new_sizes(size)?;
        let mut rng = SplitMix64(seed);
        let vals: Vec<f64> = (0..layout::numel(&sizes)).map(|_| rng.next_f64()).collect();
        Tensor::from_vec(vals, &sizes[..])?.to(opts.into().dtype.unwrap_or(DType::Float32))
    }
    /// `torch.randn(size, generator=seeded)`: float32 standard normal (Box–Muller),
    /// reproducible for `seed`. Errors as [`Tensor::empty`].
    pub fn randn(size: impl IntoShape, seed: u64) -> Result<Tensor> {
        Tensor::randn_with(size, seed, DType::Float32)
    }
    /// `torch.randn(size, generator=seeded, dtype=…)`.
    pub fn randn_with(
        size: impl IntoShape,
        seed: u64,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        let sizes = new_sizes(size)?;
        let mut rng = SplitMix64(seed);
        let vals: Vec<f64> = (0..layout::numel(&sizes))
            .map(|_| {
                let u1 = 1.0 - rng.next_f64();
                let u2 = rng.next_f64();
                (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            })
            .collect();
        Tensor::from_vec(vals, &sizes[..])?.to(opts.into().dtype.unwrap_or(DType::Float32))
    }
}

/// A tiny seeded generator for `rand`/`randn` (SplitMix64).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arange_forms_and_inferred_dtypes() {
        let a = Tensor::arange(5).unwrap();
        assert_eq!(
            (a.dtype(), a.to_vec::<i64>()),
            (DType::Int64, vec![0, 1, 2, 3, 4])
        );
        let b = Tensor::arange((2u8, 7usize, 2)).unwrap();
        assert_eq!(b.to_vec::<i64>(), vec![2, 4, 6]);
        let c = Tensor::arange((0, 1.0, 0.25)).unwrap();
        assert_eq!(c.dtype(), DType::Float32);
        assert_eq!(c.to_vec::<f64>(), vec![0.0, 0.25, 0.5, 0.75]);
        let d = Tensor::arange_with(3, DType::Float64).unwrap();
        assert_eq!(d.dtype(), DType::Float64);
    }

    #[test]
    fn arange_int64_is_exact_above_2_pow_53() {
        let s = (1i64 << 53) + 1;
        let t = Tensor::arange((s, s + 6, 2)).unwrap();
        assert_eq!(t.to_vec::<i64>(), vec![s, s + 2, s + 4]);
    }

    #[test]
    fn arange_refuses_a_step_of_the_wrong_sign() {
        for e in [
            Tensor::arange(-6).unwrap_err(),
            Tensor::arange((5, 1, 1)).unwrap_err(),
            Tensor::arange((-4, 1, -4)).unwrap_err(),
        ] {
            assert_eq!(
                e.to_string(),
                "upper bound and lower bound inconsistent with step sign"
            );
        }
        assert_eq!(
            Tensor::arange((0, 1, 0)).unwrap_err().to_string(),
            "step must be nonzero"
        );
        assert_eq!(
            Tensor::arange((0.0, 1e300, 1.0)).unwrap_err().to_string(),
            "invalid size, possible overflow?"
        );
        assert_eq!(
            Tensor::arange((0.0, f64::INFINITY))
                .unwrap_err()
                .to_string(),
            "unsupported range: 0 -> inf"
        );
    }

    #[test]
    fn factories_refuse_negative_dimensions() {
        let e = Tensor::empty([2, -1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Trying to create tensor with negative dimension -1: [2, -1]"
        );
        assert_eq!(
            Tensor::zeros([-1]).unwrap_err().to_string(),
            "zeros: Dimension size must be non-negative."
        );
        let f = Tensor::full([2], 7).unwrap();
        assert_eq!((f.dtype(), f.to_vec::<i64>()), (DType::Int64, vec![7, 7]));
        assert_eq!(Tensor::full([1], true).unwrap().dtype(), DType::Bool);
        assert_eq!(Tensor::full([1], 0.5).unwrap().dtype(), DType::Float32);
    }
}
