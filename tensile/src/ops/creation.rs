//! Factory functions: `torch.empty`, `zeros`, `ones`, `full`, the `*_like` family,
//! `scalar_tensor`, `arange`, `linspace`, `logspace`, `eye`, the index grids. (The random
//! factories are in [`crate::random`].)
//!
//! Each has a short form taking PyTorch's defaults (dtype float32 for `zeros`/`ones`/`empty`,
//! inferred from the values for `full` and `arange`, the input's for `*_like`) and a `_with`
//! form taking [`TensorOptions`] (a [`DType`] converts into it).

use crate::args::{Int, IntoShape, new_sizes};
use crate::dtype::DType;
use crate::error::fmt_g;
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
    /// [`Tensor::empty_with`]'s tensor without the zero fill (its errors, its storage left as
    /// the allocator gives it), for a caller that writes every element before anyone reads
    /// the tensor: the random creation functions, which fill it in place.
    pub(crate) fn empty_for_overwrite(size: impl IntoShape, dtype: DType) -> Result<Tensor> {
        let sizes = new_sizes(size)?;
        Tensor::try_alloc_contiguous(&sizes, dtype)
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
        crate::dtype::check_fill_range(dtype, value)?;
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
        crate::dtype::check_fill_range(dtype, value)?;
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
        // each point computed and cast into the new tensor (PyTorch's storage-size check and
        // allocation of the result come first)
        let fill = |f: &dyn Fn(&mut Slices<'_>) -> Result<()>| -> Result<Tensor> {
            Ok(crate::iter::dense_new(&[n], dtype, &[], |mut sl| f(&mut sl))?.0)
        };
        use crate::element::cast;
        use crate::iter::Slices;
        if dtype.is_floating_point() {
            match dtype {
                // half types accumulate in float32
                DType::Float16 | DType::BFloat16 => {
                    let (s, st) = (start.to_f64() as f32, step.to_f64() as f32);
                    fill(&|sl| {
                        crate::dispatch!(dtype, T => {
                            for (i, o) in sl.out::<T>(0)?.iter_mut().enumerate() {
                                *o = cast::<f32, T>(s + st * i as f32);
                            }
                        });
                        Ok(())
                    })
                }
                _ => {
                    let (s, st) = (start.to_f64(), step.to_f64());
                    fill(&|sl| {
                        crate::dispatch!(dtype, T => {
                            for (i, o) in sl.out::<T>(0)?.iter_mut().enumerate() {
                                *o = cast::<f64, T>(s + st * i as f64);
                            }
                        });
                        Ok(())
                    })
                }
            }
        } else {
            let (s, st) = (scalar_to_i64(start)?, scalar_to_i64(step)?);
            fill(&|sl| {
                crate::dispatch!(dtype, T => {
                    for (i, o) in sl.out::<T>(0)?.iter_mut().enumerate() {
                        *o = cast::<i64, T>(s.wrapping_add(st.wrapping_mul(i as i64)));
                    }
                });
                Ok(())
            })
        }
    }
}

/// `logspace`'s optional arguments (`base=10.0`, `dtype=None`), for
/// [`Tensor::logspace_with`]: a number is `base`, a [`DType`] the dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogspaceOpts {
    /// The base of the powers (default 10).
    pub base: f64,
    /// The result's dtype (default float32).
    pub dtype: Option<DType>,
}
impl Default for LogspaceOpts {
    fn default() -> Self {
        LogspaceOpts {
            base: 10.0,
            dtype: None,
        }
    }
}
impl<T: crate::args::Number> From<T> for LogspaceOpts {
    fn from(base: T) -> Self {
        LogspaceOpts {
            base: base.to_scalar().to_f64(),
            dtype: None,
        }
    }
}
impl From<DType> for LogspaceOpts {
    fn from(d: DType) -> Self {
        LogspaceOpts {
            base: 10.0,
            dtype: Some(d),
        }
    }
}
impl<T: crate::args::Number> From<(T, DType)> for LogspaceOpts {
    fn from((base, d): (T, DType)) -> Self {
        LogspaceOpts {
            base: base.to_scalar().to_f64(),
            dtype: Some(d),
        }
    }
}

/// `eye`'s optional arguments (`m=None` (= n), `dtype=None`), for [`Tensor::eye_with`]: an
/// integer is `m`, a [`DType`] the dtype, `(m, dtype)` both.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EyeOpts {
    /// Number of columns (default: `n`).
    pub m: Option<i64>,
    /// The result's dtype (default float32).
    pub dtype: Option<DType>,
}
impl<T: crate::args::Int> From<T> for EyeOpts {
    fn from(m: T) -> Self {
        EyeOpts {
            m: Some(m.to_i64()),
            dtype: None,
        }
    }
}
impl From<DType> for EyeOpts {
    fn from(d: DType) -> Self {
        EyeOpts {
            m: None,
            dtype: Some(d),
        }
    }
}
impl<T: crate::args::Int> From<(T, DType)> for EyeOpts {
    fn from((m, d): (T, DType)) -> Self {
        EyeOpts {
            m: Some(m.to_i64()),
            dtype: Some(d),
        }
    }
}

/// The points of PyTorch's CPU `linspace` kernel for the integer dtypes: the first half
/// counted up from `start`, the second half down from `end` (so both ends are exact), in
/// double.
fn linspace_points(start: f64, end: f64, steps: usize) -> Vec<f64> {
    let step = (end - start) / (steps as f64 - 1.0);
    let half = steps / 2;
    (0..steps)
        .map(|i| {
            if i < half {
                start + step * i as f64
            } else {
                end - step * (steps - i - 1) as f64
            }
        })
        .collect()
}

/// PyTorch 2.15's CPU `linspace` kernel for float16 and bfloat16: `start` and `end` rounded to
/// the dtype, then the step and every point in float32 (the kernel's `opmath_t`), rounded to the
/// dtype once at the end. The point `start + step·idx` is a fused multiply-add for bfloat16 and
/// two float roundings for float16, as GCC compiled the two instantiations of PyTorch 2.15's
/// kernel (checked bit for bit for 3 to 40000 steps: `linspace(31, -31, 27)` in float16 and
/// `linspace(17, -34, 10)` in bfloat16 tell the two forms apart).
fn linspace_half(start: f64, end: f64, steps: usize, dtype: DType) -> Vec<f64> {
    let r = |v| crate::element::round_to(dtype, v);
    let (s, e) = (r(start) as f32, r(end) as f32);
    let step = (e - s) / (steps - 1) as f32;
    let fused = dtype == DType::BFloat16;
    let half = steps / 2;
    (0..steps)
        .map(|idx| {
            let (base, step, k) = if idx < half {
                (s, step, idx as f32)
            } else {
                (e, -step, (steps - idx - 1) as f32)
            };
            let v = if fused {
                step.mul_add(k, base)
            } else {
                base + step * k
            };
            r(f64::from(v))
        })
        .collect()
}

/// `Scalar::to<scalar_t>()` for an integer dtype: truncation toward zero, then PyTorch's
/// range check (`value cannot be converted to type int16_t without overflow`).
fn scalar_to_int(s: Scalar, dtype: DType) -> Result<f64> {
    crate::dtype::check_fill_range(dtype, s)?;
    Ok(s.to_f64().trunc())
}

/// The values of `linspace(start, end, steps)` before the final cast to `dtype`: float32 and
/// float64 with fused multiply-adds, the half types in float32 ([`linspace_half`]), integer
/// dtypes truncating the ends to integers and stepping in double.
fn linspace_values(start: Scalar, end: Scalar, steps: usize, dtype: DType) -> Result<Vec<f64>> {
    alloc_points(steps, dtype)?;
    if dtype.is_floating_point() {
        if steps == 1 {
            return Ok(vec![start.to_f64()]);
        }
        let (s, e) = (start.to_f64(), end.to_f64());
        return Ok(match dtype {
            DType::Float32 => {
                let mut v = vec![0f32; steps];
                crate::kernels::ranges::linspace_f32(&mut v, s as f32, e as f32);
                v.into_iter().map(f64::from).collect()
            }
            DType::Float64 => {
                let mut v = vec![0f64; steps];
                crate::kernels::ranges::linspace_f64(&mut v, s, e);
                v
            }
            _ => linspace_half(s, e, steps, dtype),
        });
    }
    if steps == 1 {
        return Ok(vec![scalar_to_int(start, dtype)?]);
    }
    let (s, e) = (scalar_to_int(start, dtype)?, scalar_to_int(end, dtype)?);
    Ok(linspace_points(s, e, steps))
}

/// PyTorch allocates the result first (`Storage size calculation overflowed with sizes=[…]` or
/// the allocator's error), before any value is computed.
fn alloc_points(steps: usize, dtype: DType) -> Result<()> {
    drop(Tensor::try_alloc_contiguous(&[steps], dtype)?);
    crate::kernels::cast::try_reserve_elems::<f64>(steps)
}

/// The values of `logspace(start, end, steps, base)` before the final cast to `dtype`, as
/// PyTorch's `logspace_out` computes them: `start` and `end` converted to the dtype
/// (truncated for integer dtypes), their difference taken in the dtype, the step in double,
/// and each point `base ** (start + step·i)` (from `end` back for the second half) in double.
/// One step is `base ** start` in double, whatever the dtype.
fn logspace_values(
    start: Scalar,
    end: Scalar,
    steps: usize,
    base: f64,
    dtype: DType,
) -> Result<Vec<f64>> {
    alloc_points(steps, dtype)?;
    if steps == 1 {
        return Ok(vec![base.powf(start.to_f64())]);
    }
    let (s, e, diff) = if dtype.is_floating_point() {
        let r = |v| crate::element::round_to(dtype, v);
        let (s, e) = (r(start.to_f64()), r(end.to_f64()));
        (s, e, r(e - s))
    } else {
        let (s, e) = (scalar_to_int(start, dtype)?, scalar_to_int(end, dtype)?);
        (s, e, e - s)
    };
    let step = diff / (steps - 1) as f64;
    let half = steps / 2;
    Ok((0..steps)
        .map(|i| {
            if i < half {
                base.powf(s + step * i as f64)
            } else {
                base.powf(e - step * (steps - i - 1) as f64)
            }
        })
        .collect())
}

fn check_steps(steps: i64) -> Result<usize> {
    if steps < 0 {
        return Err(Error::runtime("number of steps must be non-negative"));
    }
    usize::try_from(steps).map_err(|_| Error::runtime("number of steps must be non-negative"))
}

impl Tensor {
    /// `torch.linspace(start, end, steps)`: `steps` float32 points from `start` to `end`
    /// inclusive, computed as PyTorch's CPU kernel computes them (the first half counted from
    /// `start`, the second half back from `end`, in the result's dtype). Shape `(steps,)`.
    ///
    /// Errors (RuntimeError): `number of steps must be non-negative`; the allocator's.
    pub fn linspace(
        start: impl Into<Scalar>,
        end: impl Into<Scalar>,
        steps: impl Int,
    ) -> Result<Tensor> {
        Tensor::linspace_with(start, end, steps, TensorOptions::default())
    }
    /// `torch.linspace(start, end, steps, dtype=…)`: as [`Tensor::linspace`]; integer dtypes
    /// truncate `start` and `end` to integers first, step in double, values truncated;
    /// float16/bfloat16 round `start` and `end` to the dtype and compute in float32, rounding
    /// each point once (PyTorch 2.15's `opmath_t`).
    pub fn linspace_with(
        start: impl Into<Scalar>,
        end: impl Into<Scalar>,
        steps: impl Int,
        opts: impl Into<TensorOptions>,
    ) -> Result<Tensor> {
        let steps = check_steps(steps.to_i64())?;
        let dtype = opts.into().dtype.unwrap_or(DType::Float32);
        let (start, end) = (start.into(), end.into());
        if steps >= 2 && matches!(dtype, DType::Float32 | DType::Float64) {
            // written in place by the fused kernel (the values `linspace_values` gives)
            let (s, e) = (start.to_f64(), end.to_f64());
            let (t, ()) = crate::iter::dense_new(&[steps], dtype, &[], |mut sl| {
                if dtype == DType::Float32 {
                    crate::kernels::ranges::linspace_f32(sl.out::<f32>(0)?, s as f32, e as f32);
                } else {
                    crate::kernels::ranges::linspace_f64(sl.out::<f64>(0)?, s, e);
                }
                Ok(())
            })?;
            return Ok(t);
        }
        let vals = linspace_values(start, end, steps, dtype)?;
        Tensor::from_vec(vals, [steps])?.to(dtype)
    }

    /// `torch.logspace(start, end, steps)`: `10 ** linspace(start, end, steps)`, float32.
    /// Errors as [`Tensor::linspace`].
    pub fn logspace(
        start: impl Into<Scalar>,
        end: impl Into<Scalar>,
        steps: impl Int,
    ) -> Result<Tensor> {
        Tensor::logspace_with(start, end, steps, LogspaceOpts::default())
    }
    /// `torch.logspace(start, end, steps, base, dtype=…)`: [`LogspaceOpts`] (`2.0`,
    /// `DType::Float64`, `(2.0, DType::Int64)`). As PyTorch's CPU kernel: `start` and `end`
    /// converted to the dtype (truncated for integer dtypes) and subtracted in it, the step
    /// `(end - start) / (steps - 1)` in double, each exponent in double (the second half counted
    /// back from `end`) and each power in double, then cast to the dtype as PyTorch casts.
    pub fn logspace_with(
        start: impl Into<Scalar>,
        end: impl Into<Scalar>,
        steps: impl Int,
        opts: impl Into<LogspaceOpts>,
    ) -> Result<Tensor> {
        let LogspaceOpts { base, dtype } = opts.into();
        let start = start.into();
        let steps = check_steps(steps.to_i64())?;
        let dtype = dtype.unwrap_or(DType::Float32);
        let vals = logspace_values(start, end.into(), steps, base, dtype)?;
        Tensor::from_vec(vals, [steps])?.to(dtype)
    }

    /// `torch.eye(n)`: the `n × n` float32 identity, contiguous.
    ///
    /// Errors (RuntimeError): `n must be greater or equal to 0, got -1`,
    /// `m must be greater or equal to 0, got -1`; the allocator's.
    pub fn eye(n: impl Int) -> Result<Tensor> {
        Tensor::eye_with(n, EyeOpts::default())
    }
    /// `torch.eye(n, m, dtype=…)`: [`EyeOpts`] (`5` for m, `DType::Int64`, `(5, DType::Bool)`).
    pub fn eye_with(n: impl Int, opts: impl Into<EyeOpts>) -> Result<Tensor> {
        let EyeOpts { m, dtype } = opts.into();
        let n = n.to_i64();
        let m = m.unwrap_or(n);
        if n < 0 {
            return Err(Error::runtime(format!(
                "n must be greater or equal to 0, got {n}"
            )));
        }
        if m < 0 {
            return Err(Error::runtime(format!(
                "m must be greater or equal to 0, got {m}"
            )));
        }
        // PyTorch's eye checks the numel before allocating (`torch.eye(2**40)`).
        layout::checked_numel(&[n as usize, m as usize])?;
        let t = Tensor::zeros_with([n, m], dtype.unwrap_or(DType::Float32))?;
        let k = n.min(m);
        if k > 0 {
            t.diagonal()?.fill_(1)?;
        }
        Ok(t)
    }
}

/// `torch.tril_indices(row, col)`: the (2, N) int64 coordinates of the lower triangle of a
/// `row × col` matrix (diagonal included), row by row. See [`tril_indices_with`].
pub fn tril_indices(row: impl Int, col: impl Int) -> Result<Tensor> {
    tril_indices_with(row, col, 0)
}

/// `torch.tril_indices(row, col, offset)`: coordinates `(i, j)` with `j - i <= offset`, in
/// row-major order, as a contiguous (2, N) int64 tensor.
///
/// Errors (RuntimeError): `row must be non-negative, got-1`, `col must be non-negative, got-1`
/// (PyTorch's spacing); the allocator's (`… DefaultCPUAllocator: can't allocate memory …`)
/// when the coordinates cannot be held (`row`, `col` near 2^40).
pub fn tril_indices_with(row: impl Int, col: impl Int, offset: impl Int) -> Result<Tensor> {
    tri_indices(row.to_i64(), col.to_i64(), offset.to_i64(), true)
}

/// `torch.triu_indices(row, col)`: the upper triangle's coordinates; see
/// [`triu_indices_with`].
pub fn triu_indices(row: impl Int, col: impl Int) -> Result<Tensor> {
    triu_indices_with(row, col, 0)
}

/// `torch.triu_indices(row, col, offset)`: coordinates `(i, j)` with `j - i >= offset`, in
/// row-major order, as a contiguous (2, N) int64 tensor. Errors as [`tril_indices_with`].
pub fn triu_indices_with(row: impl Int, col: impl Int, offset: impl Int) -> Result<Tensor> {
    tri_indices(row.to_i64(), col.to_i64(), offset.to_i64(), false)
}

fn tri_indices(row: i64, col: i64, offset: i64, lower: bool) -> Result<Tensor> {
    if row < 0 {
        return Err(Error::runtime(format!(
            "row must be non-negative, got{row}"
        )));
    }
    if col < 0 {
        return Err(Error::runtime(format!(
            "col must be non-negative, got{col}"
        )));
    }
    // The count first, in closed form (i128): `row`, `col` near 2^62 or an offset near
    // i64::MAX made the row-by-row walk run for 2^62 steps or grow its lists until the
    // allocator aborted. Row `i` keeps `j < clamp(i + offset + 1, 0, col)` (lower) or
    // `j >= clamp(i + offset, 0, col)` (upper).
    let (r, c, o) = (row as i128, col as i128, offset as i128);
    // sum over i in 0..row of clamp(i + shift, 0, col)
    let clamped_sum = |shift: i128| {
        let lo = (-shift).clamp(0, r);
        let hi = (c - shift).clamp(lo, r);
        let n1 = hi - lo;
        n1 * (lo + shift) + n1 * (n1 - 1) / 2 + (r - hi) * c
    };
    let total = if lower {
        clamped_sum(o + 1)
    } else {
        r * c - clamped_sum(o)
    };
    let n = usize::try_from(total)
        .ok()
        .filter(|&n| n <= (i64::MAX / 2) as usize)
        .ok_or_else(|| Error::alloc((total as u128).saturating_mul(16)))?;
    if n == 0 {
        return Tensor::from_vec(Vec::<i64>::new(), [2, 0]);
    }
    let mut rs = crate::error::try_vec::<i64>(2 * n)?;
    let mut cs = crate::error::try_vec::<i64>(n)?;
    // only the rows that keep something (each keeps at least one once `n > 0`)
    let (first, end) = if lower {
        ((-(o + 1)).clamp(0, r) as i64, row)
    } else {
        (0, (c - o).clamp(0, r) as i64)
    };
    for i in first..end {
        let (j0, j1) = if lower {
            (0, (i as i128 + o + 1).clamp(0, c) as i64)
        } else {
            ((i as i128 + o).clamp(0, c) as i64, col)
        };
        for j in j0..j1 {
            rs.push(i);
            cs.push(j);
        }
    }
    debug_assert_eq!(rs.len(), n);
    let n = rs.len();
    rs.extend(cs);
    Tensor::from_vec(rs, [2, n])
}

/// `torch.meshgrid(*tensors)` with `indexing='ij'`; see [`meshgrid_with`].
pub fn meshgrid<T: AsRef<Tensor>>(tensors: &[T]) -> Result<Vec<Tensor>> {
    meshgrid_with(tensors, "ij")
}

/// `torch.meshgrid(*tensors, indexing=…)`: for `k` 0-d or 1-d tensors of sizes `n1..nk`, `k`
/// views of shape `(n1, …, nk)` (with `"xy"`, the first two sizes swapped), tensor `i`
/// expanded along every other dim (stride 0). 0-d tensors count as size 1.
///
/// Errors (RuntimeError): `torch.meshgrid: Expected 0D or 1D tensor in the tensor list but
/// got: …` (the tensor as C++ prints it; only its first line is PyTorch's exactly);
/// `meshgrid expects all tensors to have the same dtype`; `torch.meshgrid: indexing must be one
/// of "xy" or "ij", but received: ab`.
pub fn meshgrid_with<T: AsRef<Tensor>>(tensors: &[T], indexing: &str) -> Result<Vec<Tensor>> {
    let ts: Vec<&Tensor> = tensors.iter().map(|t| t.as_ref()).collect();
    if indexing != "ij" && indexing != "xy" {
        return Err(Error::runtime(format!(
            "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}"
        )));
    }
    for t in &ts {
        if t.dim() > 1 {
            return Err(Error::runtime(format!(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {}",
                crate::print::cpp_first_line(t)
            )));
        }
    }
    if let Some(t0) = ts.first()
        && ts.iter().any(|t| t.dtype != t0.dtype)
    {
        return Err(Error::runtime(
            "meshgrid expects all tensors to have the same dtype",
        ));
    }
    let swap = indexing == "xy" && ts.len() >= 2;
    // with "xy" the first two tensors trade places in the output's dims
    let pos_of = |i: usize| if swap && i < 2 { 1 - i } else { i };
    let mut sizes = vec![0usize; ts.len()];
    for (i, t) in ts.iter().enumerate() {
        sizes[pos_of(i)] = t.numel();
    }
    let mut out = Vec::with_capacity(ts.len());
    for (i, t) in ts.iter().enumerate() {
        let mut shape = vec![1i64; ts.len()];
        shape[pos_of(i)] = -1;
        out.push(t.reshape(&shape[..])?.expand(&sizes[..])?);
    }
    Ok(out)
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

    /// The closed-form count and the walk over only the rows that keep something agree with
    /// the plain row-by-row walk; sizes near 2^62 return at once (audit: they ran 2^62 steps
    /// or grew lists until the allocator aborted).
    #[test]
    fn tri_indices_counts_and_huge_sizes() {
        for row in 0..6i64 {
            for col in 0..6i64 {
                for off in -7..8i64 {
                    for lower in [true, false] {
                        let mut want = (vec![], vec![]);
                        for i in 0..row {
                            for j in 0..col {
                                if (lower && j - i <= off) || (!lower && j - i >= off) {
                                    want.0.push(i);
                                    want.1.push(j);
                                }
                            }
                        }
                        let t = tri_indices(row, col, off, lower).unwrap();
                        let n = want.0.len();
                        assert_eq!(t.size(), &[2, n]);
                        let mut flat = want.0;
                        flat.extend(want.1);
                        assert_eq!(t.to_vec::<i64>(), flat, "{row} {col} {off} {lower}");
                    }
                }
            }
        }
        let big = 1i64 << 62;
        assert_eq!(tril_indices(big, 0).unwrap().size(), &[2, 0]);
        assert_eq!(triu_indices(0, big).unwrap().size(), &[2, 0]);
        assert_eq!(
            tril_indices_with(big, big, 1 - big)
                .unwrap()
                .to_vec::<i64>(),
            [big - 1, 0]
        );
        assert_eq!(
            triu_indices_with(big, big, big - 1)
                .unwrap()
                .to_vec::<i64>(),
            [0, big - 1]
        );
        assert!(tril_indices(big, big).is_err());
        assert!(triu_indices_with(i64::MAX, i64::MAX, i64::MIN).is_err());
        assert!(tril_indices_with(i64::MAX, i64::MAX, i64::MAX).is_err());
    }
}
