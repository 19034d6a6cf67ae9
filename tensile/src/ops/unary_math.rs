//! One-tensor elementwise math beyond [`crate::ops::unary`]: trigonometric and hyperbolic
//! functions and their inverses, `exp2`/`expm1`/`log1p`/`log2`/`log10`, the special functions
//! (`erfc`, `erfinv`, `lgamma`, `digamma`, `sinc`, `logit`), `frac`, `deg2rad`/`rad2deg`,
//! `nan_to_num`, and the predicates `signbit`/`isinf`/`isposinf`/`isneginf`/`isfinite`/
//! `isreal`; plus the small engine ([`map`], [`map2`]) the activations of
//! [`crate::nn::functional`] are built on.
//!
//! Float functions compute in double and round once to the output dtype (PyTorch computes the
//! half types in float32 and rounds once; the corpus tolerance covers the difference), except
//! the trigonometric and hyperbolic functions and their inverses, `expm1`, `log1p`, `log2`,
//! `log10`, `erfinv`, `lgamma`, `digamma`, `sinc` and `logit` of float32 and the half types
//! (`logit`: float32 only), which run the vectorised float32 library
//! (`crate::kernels::vmath`), as PyTorch runs SLEEF's. Integer
//! and bool inputs of float functions give the default float dtype (float32), laid out as
//! PyTorch lays out the converted input.

use crate::dtype::{DEFAULT_FLOAT, DType};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::iter::TensorIter;
use crate::kernels::vmath::VOp;
use crate::kernels::{pointwise, special};
use crate::layout::preserve_format_strides;
use crate::tensor::Tensor;

/// The output layout of a one-input op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// TensorIterator's: the input's dim order.
    Iter,
    /// `empty_like(self)` (preserve format): a dense input's strides, else dense strides in
    /// the input's dim order (`nan_to_num`, `hardtanh`, `isreal`, and `isinf`/`isfinite`
    /// of integers).
    Preserve,
    /// `empty_like(self, memory_format=contiguous)` (`logsigmoid`).
    Contiguous,
    /// TensorIterator's over `self.abs()` and a 0-d number, which never takes the fast
    /// setup: a size-1 dim's stride comes from its place in the dim order (`isinf`/`isfinite`
    /// of floats, PyTorch's `self.abs() == inf` and `(self == self) * (self.abs() != inf)`).
    WithNumber,
}

/// PyTorch's dispatch error: `"NAME" not implemented for 'Long'`.
pub(crate) fn not_impl(name: &str, dt: DType) -> Error {
    Error::not_implemented_for(name, dt)
}

/// Runs `f` over `a` into a new tensor of `out_dt`: the kernel sees `I` and writes `O`, the
/// loop converts from `a`'s dtype and to `out_dt`. `promote`: `a` counts as converted to
/// `out_dt` for the layout (a float function of an integer input).
pub(crate) fn map<I: Element, O: Element>(
    a: &Tensor,
    out_dt: DType,
    promote: bool,
    layout: Layout,
    f: impl Fn(I) -> O + Sync,
) -> Result<Tensor> {
    if I::DTYPE == DType::Float64
        && O::DTYPE == DType::Float64
        && a.dtype == DType::Float32
        && out_dt == DType::Float32
    {
        // A double function of float32 data: widened and rounded back in registers, in the
        // kernel's own loop, rather than through the loop's conversion buffers (a pass over
        // each buffer per block, which cost more than the function). The same values: each
        // element is widened exactly, `f` runs in double, the result is rounded once.
        return map_with(a, out_dt, promote, layout, |lp| {
            lp.run(&pointwise::unary_kernel::<f32, f32>(move |x: f32| {
                f(I::from_f64(f64::from(x))).to_f64() as f32
            }))
        });
    }
    map_with(a, out_dt, promote, layout, |lp| {
        lp.run(&pointwise::unary_kernel::<I, O>(f))
    })
}

/// The vectorised float32 function `op` over a float tensor `a` into a new tensor of `a`'s
/// dtype laid out per `layout` (the half types convert to float32 and back around it).
pub(crate) fn map_vop(a: &Tensor, layout: Layout, op: VOp) -> Result<Tensor> {
    map_with(a, a.dtype, false, layout, |lp| {
        lp.run(&crate::kernels::vmath::unary_kernel(op))
    })
}

/// [`map`] with the loop run by `run` (a kernel of its own, such as a vectorised one).
fn map_with(
    a: &Tensor,
    out_dt: DType,
    promote: bool,
    layout: Layout,
    run: impl FnOnce(&crate::iter::Plan<'_, 2>),
) -> Result<Tensor> {
    let pre;
    let mut it = match layout {
        Layout::Iter => TensorIter::new(None, &[a])?,
        Layout::Preserve => {
            pre = Tensor::try_alloc(
                &a.sizes,
                &preserve_format_strides(&a.sizes, &a.strides),
                out_dt,
            )?;
            TensorIter::new(Some(&pre), &[a])?
        }
        Layout::Contiguous => {
            pre = Tensor::try_alloc_contiguous(&a.sizes, out_dt)?;
            TensorIter::new(Some(&pre), &[a])?
        }
        Layout::WithNumber => {
            // `self.abs()` (a unary op: the fast setup keeps a dense input's strides, an
            // empty input becomes contiguous), then the comparison with the number
            let unary = crate::iter::output_strides_of(&a.sizes, &[(&a.sizes, &a.strides)]);
            let number: (&[usize], &[usize]) = (&[], &[]);
            let st = crate::iter::output_strides_of(&a.sizes, &[(&a.sizes, &unary), number]);
            pre = Tensor::try_alloc(&a.sizes, &st, out_dt)?;
            TensorIter::new(Some(&pre), &[a])?
        }
    };
    if promote {
        it.promote_inputs(out_dt);
    }
    let lp = it.plan::<2>(out_dt)?;
    run(&lp);
    Ok(lp.into_out())
}

/// Runs `f` over `a` and `b` broadcast together (TensorIterator's layout) into a new tensor
/// of `out_dt`; the kernel sees both inputs as `I` and writes `O`.
pub(crate) fn map2<I: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    out_dt: DType,
    f: impl Fn(I, I) -> O + Sync,
) -> Result<Tensor> {
    crate::iter::run_new(&[a, b], out_dt, &pointwise::binary_kernel::<I, O>(f))
}

/// As [`map2`] into `empty_like(like)` (preserve format: `like`'s own strides when dense or
/// empty, else dense strides in its dim order; `like` has the broadcast shape), as PyTorch's
/// ops that allocate their result that way before running the kernel (`_prelu_kernel`,
/// `binary_cross_entropy_with_logits`).
pub(crate) fn map2_like<I: Element, O: Element>(
    like: &Tensor,
    a: &Tensor,
    b: &Tensor,
    out_dt: DType,
    f: impl Fn(I, I) -> O + Sync,
) -> Result<Tensor> {
    let pre = Tensor::try_alloc(
        &like.sizes,
        &preserve_format_strides(&like.sizes, &like.strides),
        out_dt,
    )?;
    let it = TensorIter::new(Some(&pre), &[a, b])?;
    let lp = it.plan::<3>(out_dt)?;
    lp.run(&pointwise::binary_kernel::<I, O>(f));
    Ok(lp.into_out())
}

/// A float function of one tensor: floats keep their dtype; integers and bool give float32,
/// or PyTorch's `"NAME" not implemented for 'Long'` when `int_error` names the kernel.
pub(crate) fn float_fn(
    a: &Tensor,
    int_error: Option<&str>,
    layout: Layout,
    f: impl Fn(f64) -> f64 + Sync,
) -> Result<Tensor> {
    if a.dtype.is_floating_point() {
        return map::<f64, f64>(a, a.dtype, false, layout, f);
    }
    if let Some(name) = int_error {
        return Err(not_impl(name, a.dtype));
    }
    map::<f64, f64>(a, DEFAULT_FLOAT, true, layout, f)
}

pub(crate) use crate::element::round_to;

/// The largest finite value of a float dtype (`std::numeric_limits<T>::max()`).
fn float_max(dt: DType) -> f64 {
    match dt {
        DType::Float16 => 65504.0,
        DType::BFloat16 => 3.389_531_389_251_535_5e38,
        DType::Float32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

/// `torch.logit`'s optional argument `eps` (default `None`: no clamping). From an `f64`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LogitOpts {
    /// When given and non-negative, the input is clamped to `[eps, 1 - eps]` first.
    pub eps: Option<f64>,
}
impl From<f64> for LogitOpts {
    fn from(eps: f64) -> Self {
        LogitOpts { eps: Some(eps) }
    }
}
impl From<Option<f64>> for LogitOpts {
    fn from(eps: Option<f64>) -> Self {
        LogitOpts { eps }
    }
}

/// `torch.nan_to_num`'s optional arguments (`nan=0.0, posinf=None, neginf=None`): an `f64`
/// (nan), a pair or triple of `f64` (nan, posinf[, neginf]), or the struct. `None` for
/// `posinf`/`neginf` means the dtype's largest/lowest finite value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NanToNumOpts {
    /// Replaces NaN (default 0).
    pub nan: Option<f64>,
    /// Replaces `+inf` (default: the dtype's largest finite value).
    pub posinf: Option<f64>,
    /// Replaces `-inf` (default: the dtype's lowest finite value).
    pub neginf: Option<f64>,
}
impl Default for NanToNumOpts {
    fn default() -> Self {
        NanToNumOpts {
            nan: Some(0.0),
            posinf: None,
            neginf: None,
        }
    }
}
impl From<f64> for NanToNumOpts {
    fn from(nan: f64) -> Self {
        NanToNumOpts {
            nan: Some(nan),
            ..Default::default()
        }
    }
}
impl From<(f64, f64)> for NanToNumOpts {
    fn from((nan, posinf): (f64, f64)) -> Self {
        NanToNumOpts {
            nan: Some(nan),
            posinf: Some(posinf),
            neginf: None,
        }
    }
}
impl From<(f64, f64, f64)> for NanToNumOpts {
    fn from((nan, posinf, neginf): (f64, f64, f64)) -> Self {
        NanToNumOpts {
            nan: Some(nan),
            posinf: Some(posinf),
            neginf: Some(neginf),
        }
    }
}

macro_rules! float_ops {
    ($($Op:ident, $int_err:expr, $f:expr;)*) => {
        /// The float functions of this file (the ops of [`float_op`]), each a scalar function
        /// of a double.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum FloatOp {
            $($Op,)*
        }

        impl FloatOp {
            /// The scalar function (for derivatives that need it: `lgamma`'s is `digamma`).
            pub(crate) fn scalar(self) -> fn(f64) -> f64 {
                match self {
                    $(FloatOp::$Op => $f,)*
                }
            }
        }

        /// Runs float function `op` over `a`: floats keep their dtype; integers and bool give
        /// float32, or PyTorch's `"NAME" not implemented for 'Long'` for the floats-only ones
        /// (`frac`). Each arm is its own monomorphic loop.
        ///
        /// The output is TensorIterator's, except for `deg2rad`/`rad2deg`, which PyTorch runs
        /// into `empty_like(self)` (preserve format: a dense or empty input's own strides).
        pub(crate) fn float_op(a: &Tensor, op: FloatOp) -> Result<Tensor> {
            let layout = match op {
                FloatOp::Deg2rad | FloatOp::Rad2deg => Layout::Preserve,
                _ => Layout::Iter,
            };
            // float32 and the half types (and integers, which give float32) through the
            // vectorised float32 library where it has the function
            let vop = match op {
                FloatOp::Tan => Some(VOp::Tan),
                FloatOp::Atan => Some(VOp::Atan),
                FloatOp::Asin => Some(VOp::Asin),
                FloatOp::Acos => Some(VOp::Acos),
                FloatOp::Sinh => Some(VOp::Sinh),
                FloatOp::Cosh => Some(VOp::Cosh),
                FloatOp::Asinh => Some(VOp::Asinh),
                FloatOp::Acosh => Some(VOp::Acosh),
                FloatOp::Atanh => Some(VOp::Atanh),
                FloatOp::Expm1 => Some(VOp::Expm1),
                FloatOp::Log2 => Some(VOp::Log2),
                FloatOp::Log10 => Some(VOp::Log10),
                FloatOp::Log1p => Some(VOp::Log1p),
                FloatOp::Erfinv => Some(VOp::Erfinv),
                FloatOp::Lgamma => Some(VOp::Lgamma),
                FloatOp::Digamma => Some(VOp::Digamma),
                FloatOp::Sinc => Some(VOp::Sinc),
                _ => None,
            };
            if let (Some(v), false) = (vop, a.dtype == DType::Float64) {
                let (out_dt, promote) = if a.dtype.is_floating_point() {
                    (a.dtype, false)
                } else {
                    (DEFAULT_FLOAT, true)
                };
                return map_with(a, out_dt, promote, layout, |lp| {
                    lp.run(&crate::kernels::vmath::unary_kernel(v))
                });
            }
            match op {
                $(FloatOp::$Op => float_fn(a, $int_err, layout, $f),)*
            }
        }
    };
}

const DEG2RAD: f64 = std::f64::consts::PI / 180.0;
const RAD2DEG: f64 = 180.0 / std::f64::consts::PI;

float_ops! {
    Tan, None, f64::tan;
    Atan, None, f64::atan;
    Asin, None, f64::asin;
    Acos, None, f64::acos;
    Sinh, None, f64::sinh;
    Cosh, None, f64::cosh;
    Asinh, None, f64::asinh;
    Acosh, None, f64::acosh;
    Atanh, None, f64::atanh;
    Exp2, None, f64::exp2;
    Expm1, None, f64::exp_m1;
    Log1p, None, f64::ln_1p;
    Log2, None, f64::log2;
    Log10, None, f64::log10;
    Erfc, None, special::erfc;
    Erfinv, None, special::erfinv;
    Lgamma, None, special::lgamma;
    Digamma, None, special::digamma;
    Sinc, None, special::sinc;
    Deg2rad, None, |x| x * DEG2RAD;
    Rad2deg, None, |x| x * RAD2DEG;
    Frac, Some("frac_cpu"), |x: f64| x - x.trunc();
}

/// `torch.logit(a, eps)`'s forward: `ln(x/(1-x))`, with `x` clamped to `[eps, 1-eps]` first
/// when `eps` is given and non-negative (NaN stays NaN). The bounds are computed in the
/// result dtype, as PyTorch's kernel does (`eps` and `1 - eps` rounded to it: with
/// `eps=1e-6`, float32's upper bound is `0.99999899…`). Shape: `a`'s, in its dim order.
/// Dtype: floats keep theirs; integers and bool give float32. Returns the result and `eps`
/// as rounded (the derivative's bounds).
pub(crate) fn logit_fwd(a: &Tensor, eps: Option<f64>) -> Result<(Tensor, Option<f64>)> {
    let out_dt = if a.dtype.is_floating_point() {
        a.dtype
    } else {
        DEFAULT_FLOAT
    };
    let eps = eps.map(|e| round_to(out_dt, e));
    let hi = eps.map(|e| round_to(out_dt, 1.0 - e));
    if matches!(out_dt, DType::Float16 | DType::BFloat16) {
        // PyTorch's kernel over `Half` values: `log(x / (1 - x))` with each operation rounded
        // to the type (`1 - x`, the quotient, the log)
        let h = move |v: f64| round_to(out_dt, v);
        let f = move |x: f64| {
            let x = match (eps, hi) {
                (Some(lo), Some(hi)) => {
                    if x < lo {
                        lo
                    } else if x > hi {
                        hi
                    } else {
                        x
                    }
                }
                _ => x,
            };
            if eps.is_none() && x == 1.0 {
                return f64::INFINITY;
            }
            h(h(x / h(1.0 - x)).ln())
        };
        return Ok((float_fn(a, None, Layout::Iter, f)?, eps));
    }
    if out_dt == DType::Float32 {
        // PyTorch's float kernel, on the vectorised library (bounds as float)
        let (lo, hi) = match (eps, hi) {
            (Some(lo), Some(hi)) if lo >= 0.0 => (lo as f32, hi as f32),
            _ => (f32::NEG_INFINITY, f32::INFINITY),
        };
        let out = map_with(
            a,
            out_dt,
            !a.dtype.is_floating_point(),
            Layout::Iter,
            |lp| lp.run(&crate::kernels::vmath::unary_kernel(VOp::Logit { lo, hi })),
        )?;
        return Ok((out, eps));
    }
    Ok((
        float_fn(a, None, Layout::Iter, move |x| special::logit(x, eps, hi))?,
        eps,
    ))
}

/// `torch.nan_to_num(a, nan, posinf, neginf)`'s forward: replaces NaN, `+inf` and `-inf` (the
/// replacement values rounded to `a`'s dtype; an omitted `posinf`/`neginf` is the dtype's
/// largest/lowest finite value). Integer and bool tensors are copied unchanged. Shape and
/// dtype: `a`'s, with `empty_like(a)`'s strides (a dense `a`'s own, else dense in its dim
/// order). Never fails but for allocation.
pub(crate) fn nan_to_num_fwd(a: &Tensor, o: NanToNumOpts) -> Result<Tensor> {
    let dt = a.dtype;
    if !dt.is_floating_point() {
        return map::<i64, i64>(a, dt, false, Layout::Preserve, |x| x);
    }
    let nan = o.nan.unwrap_or(0.0);
    let pos = o.posinf.unwrap_or(float_max(dt));
    let neg = o.neginf.unwrap_or(-float_max(dt));
    map::<f64, f64>(a, dt, false, Layout::Preserve, move |x| {
        if x.is_nan() {
            nan
        } else if x == f64::INFINITY {
            pos
        } else if x == f64::NEG_INFINITY {
            neg
        } else {
            x
        }
    })
}

impl Tensor {
    /// `torch.signbit`: bool, whether the sign bit is set (`-0.0` and negative NaN included;
    /// `x < 0` for integers, false for bool and uint8). Shape: `self`'s, in its dim order.
    pub fn signbit(&self) -> Result<Tensor> {
        if self.dtype.is_floating_point() {
            map::<f64, bool>(
                self,
                DType::Bool,
                false,
                Layout::Iter,
                f64::is_sign_negative,
            )
        } else {
            map::<i64, bool>(self, DType::Bool, false, Layout::Iter, |x| x < 0)
        }
    }
    /// `torch.isinf`: bool, `±inf`. Integers and bool give all false (as
    /// `zeros_like(self, dtype=bool)`, preserve-format strides). Shape: `self`'s; a float
    /// input's layout is that of PyTorch's `self.abs() == inf` (a comparison with a number).
    pub fn isinf(&self) -> Result<Tensor> {
        self.float_pred(
            false,
            (Layout::WithNumber, Layout::Preserve),
            f64::is_infinite,
        )
    }
    /// `torch.isposinf`: bool, `+inf` (all false for integers and bool). Shape: `self`'s.
    pub fn isposinf(&self) -> Result<Tensor> {
        self.float_pred(false, (Layout::Iter, Layout::Iter), |x| x == f64::INFINITY)
    }
    /// `torch.isneginf`: bool, `-inf` (all false for integers and bool). Shape: `self`'s.
    pub fn isneginf(&self) -> Result<Tensor> {
        self.float_pred(false, (Layout::Iter, Layout::Iter), |x| {
            x == f64::NEG_INFINITY
        })
    }
    /// `torch.isfinite`: bool, neither NaN nor `±inf`. Integers and bool give all true (as
    /// `ones_like(self, dtype=bool)`). Shape: `self`'s; a float input's layout is that of
    /// PyTorch's `(self == self) * (self.abs() != inf)` (a comparison with a number).
    pub fn isfinite(&self) -> Result<Tensor> {
        self.float_pred(true, (Layout::WithNumber, Layout::Preserve), f64::is_finite)
    }
    /// `torch.isreal`: bool, all true for every (real) dtype (as `ones_like(self,
    /// dtype=bool)`, preserve-format strides). Shape: `self`'s.
    pub fn isreal(&self) -> Result<Tensor> {
        map::<bool, bool>(self, DType::Bool, false, Layout::Preserve, |_| true)
    }

    /// A float predicate: `f` for floats (laid out per `float_layout`), the constant
    /// `int_value` (laid out per `int_layout`) for integers and bool.
    fn float_pred(
        &self,
        int_value: bool,
        (float_layout, int_layout): (Layout, Layout),
        f: impl Fn(f64) -> bool + Sync,
    ) -> Result<Tensor> {
        if self.dtype.is_floating_point() {
            map::<f64, bool>(self, DType::Bool, false, float_layout, f)
        } else {
            map::<bool, bool>(self, DType::Bool, false, int_layout, move |_| int_value)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_inputs_give_float32_and_in_place_refuses() {
        let t = Tensor::from_vec(vec![0i64, 1, 2], [3]).unwrap();
        let r = t.expm1().unwrap();
        assert_eq!(r.dtype(), DType::Float32);
        let e = t.expm1_().unwrap_err();
        assert_eq!(
            e.to_string(),
            "result type Float can't be cast to the desired output type Long"
        );
        assert!(t.frac().unwrap_err().to_string().contains("frac_cpu"));
    }

    #[test]
    fn nan_to_num_defaults_are_the_dtype_limits() {
        let v = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.5];
        let t = Tensor::from_vec(v, [4])
            .unwrap()
            .to(DType::Float16)
            .unwrap();
        assert_eq!(
            t.nan_to_num().unwrap().to_vec::<f64>(),
            [0.0, 65504.0, -65504.0, 1.5]
        );
        let r = t.nan_to_num_with((7.0, 100.0)).unwrap().to_vec::<f64>();
        assert_eq!(r, [7.0, 100.0, -65504.0, 1.5]);
    }

    /// PyTorch 2.15: `torch.logit(torch.tensor([1], dtype=torch.int32), eps=1e-6)` is
    /// 13.80231761932373 (bounds `eps`, `1-eps` in float32), not double's 13.8155.
    #[test]
    fn logit_bounds_are_in_the_result_dtype() {
        let t = Tensor::from_vec(vec![1i32], [1]).unwrap();
        let r = t.logit_with(1e-6).unwrap().to_vec::<f64>()[0];
        assert!((r - 13.802_317_619_323_73).abs() < 1e-5, "{r}");
    }

    #[test]
    fn signbit_sees_negative_zero() {
        let t = Tensor::from_vec(vec![-0.0f64, 0.0, -1.0, f64::NAN], [4]).unwrap();
        assert_eq!(
            t.signbit().unwrap().to_vec::<bool>(),
            [true, false, true, false]
        );
    }
}
