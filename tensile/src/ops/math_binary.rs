//! Binary math ops beyond arithmetic: `fmod`, `copysign`, `hypot`, `xlogy`,
//! `special.xlog1py`, `float_power`, `nextafter`, `logaddexp(2)`, `gcd`, `lcm`, the bitwise
//! shifts, `heaviside`, `div` with a rounding mode, `true_divide`, and `add`/`sub` with
//! `alpha`; each with its in-place form. One table ([`MathOp`]) says each op's dtype rule;
//! one function ([`math2`]) runs them all through the pointwise engine, in PyTorch's order of
//! checks (the op's own checks, overlap, broadcast, output shape, cast to the in-place
//! output, the kernel's dtype).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::dispatch;
use crate::dtype::{DEFAULT_FLOAT, DType, check_can_cast};
use crate::element::{Element, compute_dtype};
use crate::error::{Error, Result};
use crate::iter::{Plan, TensorIter, result_type_of};
use crate::kernels::math::Arith;
use crate::kernels::pointwise;
use crate::kernels::vmath::BOp;
use crate::ops::Operand;
use crate::ops::binary::{BinaryOp, binary};
use crate::ops::math_scalar::{self as sm, FloatMath, IntMath, NextAfter};
use crate::tensor::{Scalar, Tensor};

/// The binary math ops of this file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum MathOp {
    Fmod,
    Copysign,
    Hypot,
    Xlogy,
    Xlog1py,
    FloatPower,
    Nextafter,
    Logaddexp,
    Logaddexp2,
    Gcd,
    Lcm,
    LeftShift,
    RightShift,
    Heaviside,
    Fmax,
    Fmin,
    DivTrunc,
    /// `self + alpha * other` (`sub` passes `-alpha`).
    AddAlpha(Scalar),
}

use MathOp::*;

/// `"NAME" not implemented for 'Dtype'` (NotImplementedError), PyTorch's dispatch error.
pub(crate) fn not_impl(kernel: &str, dt: DType) -> Error {
    Error::not_implemented_for(kernel, dt)
}

/// The dtype `op` computes and returns in, given its inputs' common dtype; or the kernel's
/// dispatch error.
fn op_dtype(op: MathOp, common: DType) -> Result<DType> {
    let float_only = |name: &str| {
        if common.is_floating_point() {
            Ok(common)
        } else {
            Err(not_impl(name, common))
        }
    };
    let int_only = |name: &str, bool_ok: bool| {
        if common.is_integral(bool_ok) && (bool_ok || common != DType::Bool) {
            Ok(common)
        } else {
            Err(not_impl(name, common))
        }
    };
    match op {
        Copysign | Xlogy | Xlog1py if common.is_integral(true) => Ok(DEFAULT_FLOAT),
        Copysign | Xlogy | Xlog1py | Heaviside | Fmax | Fmin | AddAlpha(_) => Ok(common),
        FloatPower => Ok(DType::Float64),
        Fmod if common == DType::Bool => Err(not_impl("fmod_cpu", common)),
        DivTrunc if common == DType::Bool => Err(not_impl("div_trunc_cpu", common)),
        Fmod | DivTrunc => Ok(common),
        Hypot => float_only("hypot_cpu"),
        Nextafter => float_only("nextafter_cpu"),
        Logaddexp => float_only("logaddexp_cpu"),
        Logaddexp2 => float_only("logaddexp2_cpu"),
        Gcd => int_only("gcd_cpu", false),
        Lcm => int_only("lcm_cpu", false),
        LeftShift => int_only("lshift_cpu", false),
        RightShift => int_only("rshift_cpu", false),
    }
}

/// PyTorch's `alpha_check`, run on the common dtype after the iterator is built.
fn alpha_check(dtype: DType, alpha: Scalar) -> Result<()> {
    if matches!(alpha, Scalar::Bool(_)) && dtype != DType::Bool {
        return Err(Error::runtime(
            "Boolean alpha only supported for Boolean results.",
        ));
    }
    if !dtype.is_floating_point() && matches!(alpha, Scalar::Float(_)) {
        return Err(Error::runtime(
            "For integral input tensors, argument alpha must not be a floating point number.",
        ));
    }
    Ok(())
}

/// A number converted to an element type as PyTorch's `Scalar::to<T>()` does.
pub(crate) fn scalar_as<T: Element>(s: Scalar) -> T {
    match s {
        Scalar::Bool(b) => T::from_bool(b),
        Scalar::Int(i) => T::from_i64(i),
        Scalar::Float(f) => T::from_float(f),
    }
}

/// Runs `f` over the plan `lp` of `[out, a, b]`, the inputs presented as `T`, the output
/// as `O`.
pub(crate) fn run2<T: Element, O: Element>(lp: &Plan<'_, 3>, f: impl Fn(T, T) -> O + Sync) {
    lp.run(&pointwise::binary_kernel::<T, O>(f))
}

/// Runs binary math `op` on `a` and `b`; with `inplace`, writes into `a`.
// The heaviside kernel is generic over every dtype, bool included.
#[allow(clippy::bool_comparison)]
pub(crate) fn math2(op: MathOp, a: &Tensor, b: Operand<'_>, inplace: bool) -> Result<Tensor> {
    let b_number = matches!(b, Operand::Scalar(_));
    let b = b.as_tensor();
    let b: &Tensor = &b;
    match op {
        Heaviside if a.dtype != b.dtype => {
            return Err(Error::runtime(
                "heaviside is not yet implemented for tensors with different dtypes.",
            ));
        }
        FloatPower if inplace && a.dtype != DType::Float64 => {
            return Err(Error::runtime(format!(
                "the base given to float_power_ has dtype {} but the operation's result requires dtype Double",
                a.dtype.scalar_type_name()
            )));
        }
        _ => {}
    }
    let mut it = TensorIter::new(inplace.then_some(a), &[a, b])?;
    if op == FloatPower && b_number {
        // PyTorch's `pow(self.to(double), exponent)`: a number exponent is no operand of
        // that unary TensorIterator op, so the output follows `self` alone
        it.layout_from_first(1);
    }
    let common = result_type_of(&[a, b]);
    let opdt = match (op_dtype(op, common), inplace) {
        (Ok(d), true) => {
            check_can_cast(d, a.dtype)?;
            d
        }
        (Err(e), true) => {
            check_can_cast(common, a.dtype)?;
            return Err(e);
        }
        (r, false) => r?,
    };
    if let AddAlpha(alpha) = op {
        alpha_check(common, alpha)?;
    }
    it.promote_inputs(opdt);
    let lp = it.plan::<3>(if inplace { a.dtype } else { opdt })?;
    let cdt = compute_dtype(opdt);
    let zero_div = AtomicBool::new(false);
    macro_rules! run {
        ($T:ty, $f:expr) => {
            run2::<$T, $T>(&lp, $f)
        };
    }
    macro_rules! float {
        ($f:expr) => {
            match cdt {
                DType::Float64 => run!(f64, |x: f64, y: f64| $f(x, y)),
                _ => run!(f32, |x: f32, y: f32| $f(x, y)),
            }
        };
    }
    macro_rules! int {
        ($f:expr) => {
            match cdt {
                DType::UInt8 => run!(u8, |x: u8, y: u8| $f(x, y)),
                DType::Int8 => run!(i8, |x: i8, y: i8| $f(x, y)),
                DType::Int16 => run!(i16, |x: i16, y: i16| $f(x, y)),
                DType::Int32 => run!(i32, |x: i32, y: i32| $f(x, y)),
                _ => run!(i64, |x: i64, y: i64| $f(x, y)),
            }
        };
    }
    let zero = &zero_div;
    match op {
        // float32 and the half types: the vectorised float32 library
        Fmod | Hypot | Logaddexp if cdt == DType::Float32 => {
            let bop = match op {
                Fmod => BOp::Fmod,
                Hypot => BOp::Hypot,
                _ => BOp::Logaddexp,
            };
            lp.run(&crate::kernels::vmath::binary_kernel(bop))
        }
        Fmod if cdt.is_floating_point() => float!(FloatMath::fmod),
        Fmod => int!(|x, y| {
            if IntMath::is_zero(y) {
                zero.store(true, Ordering::Relaxed);
            }
            IntMath::fmod(x, y)
        }),
        Copysign => float!(FloatMath::copysign),
        Hypot => float!(FloatMath::hypot),
        // PyTorch's scalar kernel over `Half` values: the logarithm of a `Half` is rounded to
        // the type before the product (one more rounding than the float computation)
        Xlogy | Xlog1py if matches!(opdt, DType::Float16 | DType::BFloat16) => {
            let h = move |v: f32| crate::element::round_half(opdt, v);
            let log: fn(f32) -> f32 = if matches!(op, Xlogy) {
                f32::ln
            } else {
                f32::ln_1p
            };
            run!(f32, move |x: f32, y: f32| {
                if y.is_nan() {
                    y
                } else if x == 0.0 {
                    0.0
                } else {
                    x * h(log(y))
                }
            })
        }
        Xlogy => float!(sm::xlogy),
        Xlog1py => float!(sm::xlog1py),
        // a number exponent: PyTorch's `pow(self.to(double), exponent)`, whose kernel
        // computes the common exponents directly (as `pow` with a number)
        FloatPower if b_number => match b.item::<f64>()? {
            0.5 => run!(f64, |x: f64, _| x.sqrt()),
            -0.5 => run!(f64, |x: f64, _| 1.0 / x.sqrt()),
            -1.0 => run!(f64, |x: f64, _| 1.0 / x),
            2.0 => run!(f64, |x: f64, _| x * x),
            3.0 => run!(f64, |x: f64, _| x * x * x),
            -2.0 => run!(f64, |x: f64, _| 1.0 / (x * x)),
            e => run!(f64, move |x: f64, _| x.powf(e)),
        },
        FloatPower => run!(f64, |x: f64, y: f64| x.powf(y)),
        Logaddexp => float!(sm::logaddexp),
        Logaddexp2 => float!(sm::logaddexp2),
        // nextafter steps in the dtype's own bits, float16 and bfloat16 included
        Nextafter => match opdt {
            DType::Float16 => run!(half::f16, NextAfter::nextafter),
            DType::BFloat16 => run!(half::bf16, NextAfter::nextafter),
            DType::Float64 => run!(f64, NextAfter::nextafter),
            _ => run!(f32, NextAfter::nextafter),
        },
        Gcd => int!(IntMath::gcd),
        Lcm => int!(IntMath::lcm),
        LeftShift => int!(IntMath::shl),
        RightShift => int!(IntMath::shr),
        Heaviside => dispatch!(@compute cdt, T => run!(T, |x: T, y: T| {
            if x == T::zero() { y } else { T::from_bool(x > T::zero()) }
        })),
        // NaN loses; of two equal values (±0) the first wins, as PyTorch's CPU kernels
        Fmax => dispatch!(@compute cdt, T => run!(T, |x: T, y: T| {
            if Arith::is_nan(x) || y > x { y } else { x }
        })),
        Fmin => dispatch!(@compute cdt, T => run!(T, |x: T, y: T| {
            if Arith::is_nan(x) || y < x { y } else { x }
        })),
        DivTrunc => dispatch!(@compute cdt, T => run!(T, |x: T, y: T| {
            if Arith::is_int_zero(y) && !<T as Element>::DTYPE.is_floating_point() {
                zero.store(true, Ordering::Relaxed);
            }
            Arith::trunc(Arith::div(x, y))
        })),
        AddAlpha(alpha) if matches!(opdt, DType::Float16 | DType::BFloat16) => {
            // PyTorch's add kernel for the half types, alpha converted to the type: over whole
            // 64-byte blocks of a contiguous run (32 elements) its vectorized lambda computes
            // `fmadd(other, alpha, self)` in float and rounds once; elsewhere its scalar lambda
            // computes `self + alpha * other` over `Half` values, rounding the product and the
            // sum (checked element by element against PyTorch 2.15)
            let h = move |v: f32| crate::element::round_half(opdt, v);
            let al = h(alpha.to_f64() as f32);
            macro_rules! split {
                ($H:ty) => {
                    lp.run(&pointwise::binary_split_kernel::<$H, $H>(
                        32,
                        move |x: $H, y: $H| <$H>::from_f32(y.to_f32().mul_add(al, x.to_f32())),
                        move |x: $H, y: $H| <$H>::from_f32(x.to_f32() + h(al * y.to_f32())),
                    ))
                };
            }
            match opdt {
                DType::Float16 => split!(half::f16),
                _ => split!(half::bf16),
            }
        }
        AddAlpha(alpha) => dispatch!(@compute cdt, T => {
            let al: T = scalar_as(alpha);
            run!(T, |x: T, y: T| Arith::add(x, Arith::mul(al, y)))
        }),
    }
    if zero_div.load(Ordering::Relaxed) {
        return Err(Error::runtime("ZeroDivisionError"));
    }
    Ok(lp.into_out())
}

/// `add` with alpha: plain [`Tensor::add`] for `alpha = 1` (the same rules and result).
pub(crate) fn add_alpha(
    a: &Tensor,
    b: Operand<'_>,
    alpha: Scalar,
    inplace: bool,
) -> Result<Tensor> {
    if alpha == Scalar::Int(1) {
        return binary(BinaryOp::Add, a, b, inplace);
    }
    math2(AddAlpha(alpha), a, b, inplace)
}

/// `sub` with alpha: PyTorch's `sub_check`, then `add` with `-alpha` (plain [`Tensor::sub`]
/// for `alpha = 1`).
pub(crate) fn sub_alpha(
    a: &Tensor,
    b: Operand<'_>,
    alpha: Scalar,
    inplace: bool,
) -> Result<Tensor> {
    if alpha == Scalar::Int(1) {
        return binary(BinaryOp::Sub, a, b, inplace);
    }
    {
        let bt = b.as_tensor();
        crate::ops::binary::sub_check(a, &bt)?;
    }
    let neg = match alpha {
        Scalar::Int(i) => Scalar::Int(i.wrapping_neg()),
        Scalar::Float(f) => Scalar::Float(-f),
        // PyTorch negates a bool alpha to an int; the bool check below refuses it anyway
        Scalar::Bool(b) => Scalar::Bool(b),
    };
    math2(AddAlpha(neg), a, b, inplace)
}

/// `torch.div`'s optional argument (`rounding_mode=None`), for [`Tensor::div_with`]: a string
/// (`"trunc"`, `"floor"`), `None`, or the struct.
#[derive(Clone, Copy, Debug, Default)]
pub struct DivOpts<'m> {
    /// `None` (true division), `Some("trunc")` or `Some("floor")`.
    pub rounding_mode: Option<&'m str>,
}
impl<'m> From<&'m str> for DivOpts<'m> {
    fn from(m: &'m str) -> Self {
        DivOpts {
            rounding_mode: Some(m),
        }
    }
}
impl<'m> From<Option<&'m str>> for DivOpts<'m> {
    fn from(m: Option<&'m str>) -> Self {
        DivOpts { rounding_mode: m }
    }
}

/// `torch.add`/`torch.sub`'s optional argument (`alpha=1`), for [`Tensor::add_with`]: any
/// number, or the struct.
#[derive(Clone, Copy, Debug)]
pub struct AddOpts {
    /// The multiplier of `other`.
    pub alpha: Scalar,
}
impl Default for AddOpts {
    fn default() -> Self {
        AddOpts {
            alpha: Scalar::Int(1),
        }
    }
}
impl<T: crate::args::Number> From<T> for AddOpts {
    fn from(x: T) -> Self {
        AddOpts {
            alpha: x.to_scalar(),
        }
    }
}

/// `div` with a rounding mode (`None`, `"trunc"`, `"floor"`); with `inplace`, into `a`.
pub(crate) fn div_mode(
    a: &Tensor,
    b: Operand<'_>,
    opts: DivOpts<'_>,
    inplace: bool,
) -> Result<Tensor> {
    match opts.rounding_mode {
        None => binary(BinaryOp::Div, a, b, inplace),
        Some("trunc") => math2(DivTrunc, a, b, inplace),
        Some("floor") => binary(BinaryOp::FloorDivide, a, b, inplace),
        Some(m) => Err(Error::runtime(format!(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'"
        ))),
    }
}

/// Math op `op` of `input` and `other`, either of which may be a number (a wrapped 0-d
/// tensor, as PyTorch's `torch.NAME(2, t)`); two numbers: `NAME(): at least one of 'input'
/// and 'other' must be a tensor`.
pub(crate) fn with_number_input(
    op: MathOp,
    input: Operand<'_>,
    other: Operand<'_>,
    name: &str,
) -> Result<Tensor> {
    match (input, other) {
        (Operand::Tensor(t), o) => math2(op, t, o, false),
        (Operand::Scalar(s), o @ Operand::Tensor(_)) => {
            math2(op, &Tensor::wrapped_scalar(s), o, false)
        }
        (Operand::Scalar(_), Operand::Scalar(_)) => Err(Error::runtime(format!(
            "{name}(): at least one of 'input' and 'other' must be a tensor"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bitwise_left_shift, float_power, rsub, rsub_with, special};

    fn t<T: Element>(v: Vec<T>) -> Tensor {
        let n = v.len();
        Tensor::from_vec(v, [n]).unwrap()
    }

    /// The op-specific checks come before broadcasting; alpha is checked on the common dtype.
    #[test]
    fn checks_and_their_order() {
        let f = t(vec![1.0f32, 2.0]);
        let bad = t(vec![1.0f32, 2.0, 3.0]);
        assert_eq!(
            f.float_power_(&bad).unwrap_err().to_string(),
            "the base given to float_power_ has dtype Float but the operation's result requires dtype Double"
        );
        assert_eq!(
            f.heaviside(&t(vec![1.0f64, 2.0, 3.0]))
                .unwrap_err()
                .to_string(),
            "heaviside is not yet implemented for tensors with different dtypes."
        );
        let i = t(vec![3i64, -4]);
        assert_eq!(
            i.add_with(&i, 0.5).unwrap_err().to_string(),
            "For integral input tensors, argument alpha must not be a floating point number."
        );
        assert_eq!(
            i.add_with(&i, true).unwrap_err().to_string(),
            "Boolean alpha only supported for Boolean results."
        );
        assert_eq!(i.sub_with(&i, 2).unwrap().to_vec::<i64>(), [-3, 4]);
        assert_eq!(
            i.div_with(0, "trunc").unwrap_err().to_string(),
            "ZeroDivisionError"
        );
        assert_eq!(
            i.div_with(2, "x").unwrap_err().to_string(),
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'x'"
        );
        assert_eq!(i.div_with(2, "trunc").unwrap().to_vec::<i64>(), [1, -2]);
        assert_eq!(i.div_with(2, "floor").unwrap().to_vec::<i64>(), [1, -2]);
        assert_eq!(i.fmod(-2).unwrap().to_vec::<i64>(), [1, 0]);
    }

    /// float_power is float64 whatever the inputs; the shifts take a number on the left.
    #[test]
    fn dtypes_and_number_operands() {
        let i = t(vec![2i64, -1]);
        let r = float_power(2, &i).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f64>()),
            (DType::Float64, vec![4.0, 0.5])
        );
        assert_eq!(bitwise_left_shift(1, &i).unwrap().to_vec::<i64>(), [4, 0]);
        let r = special::xlog1py(&t(vec![0.0f32, 2.0]), f64::NAN).unwrap();
        assert!(r.to_vec::<f64>().iter().all(|v| v.is_nan()));
        assert_eq!(
            t(vec![true])
                .bitwise_left_shift(&t(vec![true]))
                .unwrap_err()
                .to_string(),
            "\"lshift_cpu\" not implemented for 'Bool'"
        );
    }

    /// `rsub(input, other, alpha)` is `other - alpha * input`, with `other` the first
    /// operand of the broadcast (its size is tensor a's in the error).
    #[test]
    fn rsub_is_swapped_sub() {
        let a = Tensor::from_vec(vec![1.0f64, 2.0], [2]).unwrap();
        let b = Tensor::from_vec(vec![10.0f64, 20.0], [2]).unwrap();
        assert_eq!(
            rsub_with(&a, &b, 2).unwrap().to_vec::<f64>(),
            vec![8.0, 16.0]
        );
        assert_eq!(rsub(&a, 1.5).unwrap().to_vec::<f64>(), vec![0.5, -0.5]);
        let c = Tensor::zeros_with([2, 3], DType::Float64).unwrap();
        assert_eq!(
            rsub(&c, &a).unwrap_err().message(),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
        );
    }
}
