//! Binary pointwise ops: arithmetic, comparisons, logical and bitwise ops, and their in-place
//! forms. One table ([`BinaryOp`]) says each op's dtype rule; one function ([`binary`]) runs
//! them all through the engine.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::dispatch;
use crate::dtype::{DType, check_can_cast};
use crate::element::{Element, compute_dtype};
use crate::error::{Error, Result};
use crate::iter::{SmallPlan, TensorIter, result_type_of};
use crate::kernels::math::{Arith, Float};
use crate::kernels::pointwise;
use crate::ops::Operand;
use crate::tensor::{Scalar, Tensor};

/// The binary pointwise ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Remainder,
    FloorDivide,
    Pow,
    Maximum,
    Minimum,
    Atan2,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
}

use BinaryOp::*;

impl BinaryOp {
    fn returns_bool(self) -> bool {
        matches!(
            self,
            Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor
        )
    }
    /// The name of PyTorch's CPU kernel, for "not implemented for" errors.
    fn kernel_name(self) -> &'static str {
        match self {
            BitwiseAnd => "bitwise_and_cpu",
            BitwiseOr => "bitwise_or_cpu",
            BitwiseXor => "bitwise_xor_cpu",
            FloorDivide => "div_floor_cpu",
            Remainder => "remainder_cpu",
            _ => "binary_cpu",
        }
    }
}

fn not_implemented(op: BinaryOp, dt: DType) -> Error {
    Error::not_implemented_for(op.kernel_name(), dt)
}

/// PyTorch's `sub_check`, run before the iterator is built.
pub(crate) fn sub_check(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype == DType::Bool && b.dtype == DType::Bool {
        return Err(Error::not_implemented(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
        ));
    }
    if a.dtype == DType::Bool || b.dtype == DType::Bool {
        return Err(Error::not_implemented(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ));
    }
    Ok(())
}

/// The dtype the op computes in, given the inputs' common dtype.
fn op_dtype(op: BinaryOp, common: DType) -> Result<DType> {
    Ok(match op {
        Div | Atan2 if common.is_integral(true) => crate::dtype::DEFAULT_FLOAT,
        BitwiseAnd | BitwiseOr | BitwiseXor if common.is_floating_point() => {
            return Err(not_implemented(op, common));
        }
        FloorDivide | Remainder if common == DType::Bool => {
            return Err(not_implemented(op, common));
        }
        _ => common,
    })
}

/// Runs `op` on `a` and `b`; with `inplace`, writes into `a` (which must not change shape, and
/// whose dtype the result must be castable to).
pub(crate) fn binary(op: BinaryOp, a: &Tensor, b: Operand<'_>, inplace: bool) -> Result<Tensor> {
    binary_into(op, a, b, if inplace { Dest::InPlace } else { Dest::New })
}

/// Where a binary op writes.
pub(crate) enum Dest<'o> {
    /// A new tensor.
    New,
    /// Into the first operand.
    InPlace,
    /// Into an `out=` tensor (kept when its shape is right, replaced otherwise).
    Out(&'o Tensor),
}

/// PyTorch's kernel for a floating tensor to a number power (`pow_tensor_scalar_kernel` and
/// `pow_tensor_scalar_optimized_kernel` of its `PowKernel.cpp`), for result dtype `$opdt` and
/// exponent `$e`, run by `$run!(T, T, closure)`:
/// * float32, float64 and bfloat16: `0.5` is `sqrt`, `-0.5` is `1 / sqrt`, `-1` is `1 / x`
///   (so `(-0.0) ** 0.5` is `-0.0` and `(-inf) ** 0.5` NaN, where `pow` gives `+0` and `inf`);
/// * float32 and float64: an exponent of `2`, `3` or `-2` is `x * x`, `x * x * x` or
///   `1 / (x * x)`, each product rounded; bfloat16 compares the exponent rounded to
///   bfloat16 (`2.001` is `2`) and rounds each product to bfloat16;
/// * otherwise `pow`, the exponent rounded to float16/bfloat16 for those dtypes
///   (`x.half() ** 0.1` raises to 0.0999755859375).
macro_rules! pow_number {
    ($opdt:expr, $e:expr, $run:ident) => {{
        let (opdt, e): (DType, f64) = ($opdt, $e);
        let half = opdt == DType::Float16;
        let bf = opdt == DType::BFloat16;
        let et = crate::element::round_to(opdt, e);
        // a product as the dtype rounds it (bfloat16 rounds each one, computing in float32)
        let r = move |v: f32| {
            if bf {
                crate::element::round_half(DType::BFloat16, v)
            } else {
                v
            }
        };
        if opdt == DType::Float64 {
            match e {
                0.5 => $run!(f64, f64, |x: f64, _| x.sqrt()),
                -0.5 => $run!(f64, f64, |x: f64, _| 1.0 / x.sqrt()),
                -1.0 => $run!(f64, f64, |x: f64, _| 1.0 / x),
                2.0 => $run!(f64, f64, |x: f64, _| x * x),
                3.0 => $run!(f64, f64, |x: f64, _| x * x * x),
                -2.0 => $run!(f64, f64, |x: f64, _| 1.0 / (x * x)),
                _ => $run!(f64, f64, move |x: f64, _| x.powf(e)),
            }
        } else if !half && e == 0.5 {
            $run!(f32, f32, |x: f32, _| x.sqrt())
        } else if !half && e == -0.5 {
            $run!(f32, f32, |x: f32, _| 1.0 / x.sqrt())
        } else if !half && e == -1.0 {
            $run!(f32, f32, |x: f32, _| 1.0 / x)
        } else if !half && et == 2.0 {
            $run!(f32, f32, |x: f32, _| x * x)
        } else if !half && et == 3.0 {
            $run!(f32, f32, move |x: f32, _| r(x * x) * x)
        } else if !half && et == -2.0 {
            $run!(f32, f32, move |x: f32, _| 1.0 / r(x * x))
        } else {
            let ef = et as f32;
            $run!(f32, f32, move |x: f32, _| x.powf(ef))
        }
    }};
}

/// Every binary op's scalar function, for compute dtype `$cdt`, handed to the executor
/// macro `$run!(KernelInputType, OutputType, closure)`. The one place that says what each op
/// computes; `$zero_div` (an `AtomicBool`) records integer division by zero.
macro_rules! op_table {
    ($op:expr, $cdt:expr, $run:ident, $zero_div:ident) => {
        match $op {
            Atan2 => match $cdt {
                DType::Float64 => $run!(f64, f64, |x: f64, y: f64| Float::atan2(x, y)),
                // float32 and the half types: the vectorised float32 library
                _ => $run!(kernel crate::kernels::vmath::binary_kernel(crate::kernels::vmath::BOp::Atan2)),
            },
            // float32 and the half types: the vectorised float32 library
            Remainder if $cdt == DType::Float32 => {
                $run!(kernel crate::kernels::vmath::binary_kernel(crate::kernels::vmath::BOp::Remainder))
            }
            Pow if $cdt == DType::Float32 => {
                $run!(kernel crate::kernels::vmath::binary_kernel(crate::kernels::vmath::BOp::Pow))
            }
            op => dispatch!(@compute $cdt, T => {
                match op {
                    Add => $run!(T, T, |x: T, y: T| Arith::add(x, y)),
                    Sub => $run!(T, T, |x: T, y: T| Arith::sub(x, y)),
                    Mul => $run!(T, T, |x: T, y: T| Arith::mul(x, y)),
                    Div => $run!(T, T, |x: T, y: T| Arith::div(x, y)),
                    Remainder | FloorDivide => {
                        let floor = op == FloorDivide;
                        $run!(T, T, |x: T, y: T| {
                            if Arith::is_int_zero(y) && !<T as Element>::DTYPE.is_floating_point() {
                                $zero_div.store(true, Ordering::Relaxed);
                            }
                            if floor { Arith::floor_div(x, y) } else { Arith::rem(x, y) }
                        })
                    }
                    Pow => $run!(T, T, |x: T, y: T| Arith::pow(x, y)),
                    Maximum => $run!(T, T, |x: T, y: T| Arith::maximum(x, y)),
                    Minimum => $run!(T, T, |x: T, y: T| Arith::minimum(x, y)),
                    Eq => $run!(T, bool, |x: T, y: T| x == y),
                    Ne => $run!(T, bool, |x: T, y: T| x != y),
                    Lt => $run!(T, bool, |x: T, y: T| x < y),
                    Le => $run!(T, bool, |x: T, y: T| x <= y),
                    Gt => $run!(T, bool, |x: T, y: T| x > y),
                    Ge => $run!(T, bool, |x: T, y: T| x >= y),
                    LogicalAnd => $run!(T, bool, |x: T, y: T| Element::is_nonzero(x) && Element::is_nonzero(y)),
                    LogicalOr => $run!(T, bool, |x: T, y: T| Element::is_nonzero(x) || Element::is_nonzero(y)),
                    LogicalXor => $run!(T, bool, |x: T, y: T| Element::is_nonzero(x) != Element::is_nonzero(y)),
                    BitwiseAnd => $run!(T, T, |x: T, y: T| Arith::bitand(x, y)),
                    BitwiseOr => $run!(T, T, |x: T, y: T| Arith::bitor(x, y)),
                    BitwiseXor => $run!(T, T, |x: T, y: T| Arith::bitxor(x, y)),
                    Atan2 => {}
                }
            }),
        }
    };
}

/// PyTorch's first check in `pow(Tensor, Scalar)` (and `pow_`, `out=`), NumPy's rule: an
/// integer or bool base to a negative integer number fails. It concerns number exponents
/// only: a tensor exponent with negative values computes (`2 ** -1` is 0, `(-1) ** -1` is
/// -1, `1 ** -2` is 1, and `0 ** -1` is 0).
fn pow_scalar_check(base: &Tensor, exp: Operand<'_>) -> Result<()> {
    if let Operand::Scalar(Scalar::Int(e)) = exp
        && e < 0
        && base.dtype.is_integral(true)
    {
        return Err(Error::runtime(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    Ok(())
}

// Comparisons are generic over every dtype, bool included.
#[allow(clippy::bool_comparison)]
pub(crate) fn binary_into(
    op: BinaryOp,
    a: &Tensor,
    b: Operand<'_>,
    dest: Dest<'_>,
) -> Result<Tensor> {
    if op == Pow {
        pow_scalar_check(a, b)?;
    }
    // `pow(Tensor, Scalar)` is a unary op in PyTorch: the number takes no part in the layout
    let unary_layout = op == Pow && matches!(b, Operand::Scalar(_));
    let pow_exp = match b {
        Operand::Scalar(s) if op == Pow => Some(s.to_f64()),
        _ => None,
    };
    let b = b.as_tensor();
    let b: &Tensor = &b;
    if op == Sub {
        sub_check(a, b)?;
    }
    if matches!(dest, Dest::New)
        && pow_exp.is_none()
        && a.dtype == b.dtype
        && compute_dtype(a.dtype) == a.dtype
        && op_dtype(op, a.dtype).ok() == Some(a.dtype)
    {
        let mut plan = SmallPlan::<3>::empty();
        if plan.build(&[a, b]) {
            return binary_small(op, a, b, &plan);
        }
    }
    let inplace = matches!(dest, Dest::InPlace);
    let mut it = match dest {
        Dest::New => TensorIter::new(None, &[a, b])?,
        Dest::InPlace => TensorIter::new(Some(a), &[a, b])?,
        Dest::Out(o) => TensorIter::new_out(o, &[a, b])?,
    };
    if unary_layout {
        it.layout_from_first(1);
    }
    let out_given = match dest {
        Dest::Out(o) => it.keeps_out().then_some(o.dtype),
        _ => None,
    };
    if !a.wrapped && !b.wrapped {
        crate::backcompat::maybe_warn(a.size(), b.size());
    }
    let common = result_type_of(&[a, b]);
    // A given output (in place or `out=`) is checked first, as TensorIterator's build checks
    // it before the kernel is dispatched: the result type must cast to it (comparisons and
    // logical ops, whose result is bool, write into any dtype).
    let given = if inplace { Some(a.dtype) } else { out_given };
    let opdt = match (op_dtype(op, common), given) {
        (Ok(d), Some(g)) if !op.returns_bool() => {
            check_can_cast(d, g)?;
            d
        }
        (Err(e), Some(g)) if !op.returns_bool() => {
            check_can_cast(common, g)?;
            return Err(e);
        }
        (r, _) => r?,
    };
    it.promote_inputs(opdt);
    let out_dt = if let Some(g) = given {
        g
    } else if op.returns_bool() {
        DType::Bool
    } else {
        opdt
    };
    // A refused integer division must write nothing into a given output (in place or `out=`):
    // the divisor is checked for a zero before the kernel runs, as PyTorch leaves `self`
    // unchanged. (A new output is dropped on the error, so it needs no pre-check.)
    if !matches!(dest, Dest::New)
        && matches!(op, Remainder | FloorDivide)
        && !compute_dtype(opdt).is_floating_point()
        && a.numel() > 0
        && b.count_nonzero()?.item::<i64>()? != b.numel() as i64
    {
        return Err(Error::runtime("ZeroDivisionError"));
    }
    let lp = it.plan::<3>(out_dt)?;
    let cdt = compute_dtype(opdt);
    let zero_div = AtomicBool::new(false);
    macro_rules! run {
        (kernel $k:expr) => {
            lp.run(&$k)
        };
        ($T:ty, $O:ty, $f:expr) => {
            lp.run(&pointwise::binary_kernel::<$T, $O>($f))
        };
    }
    if let Some(e) = pow_exp
        && cdt.is_floating_point()
    {
        pow_number!(opdt, e, run);
        return Ok(lp.into_out());
    }
    op_table!(op, cdt, run, zero_div);
    if zero_div.load(Ordering::Relaxed) {
        return Err(Error::runtime("ZeroDivisionError"));
    }
    Ok(lp.into_out())
}

/// [`binary_into`] for a small op into a new tensor whose operands already have the compute
/// dtype: same semantics, a fraction of the setup ([`SmallPlan`]).
#[allow(clippy::bool_comparison)]
#[inline(always)] // one caller; saves moving the result
fn binary_small(op: BinaryOp, a: &Tensor, b: &Tensor, plan: &SmallPlan<'_, 3>) -> Result<Tensor> {
    if !a.wrapped && !b.wrapped {
        crate::backcompat::maybe_warn(a.size(), b.size());
    }
    let cdt = a.dtype;
    let zero_div = AtomicBool::new(false);
    // Each kernel's arm returns its result directly: no `Option<Result<Tensor>>` detour
    // (small ops are sensitive to moving a tensor around).
    macro_rules! run {
        (kernel $k:expr) => {{
            return plan.run_new(&$k);
        }};
        ($T:ty, $O:ty, $f:expr) => {{
            let out = plan.run_new(&pointwise::binary_kernel::<$T, $O>($f));
            if zero_div.load(Ordering::Relaxed) {
                return Err(Error::runtime("ZeroDivisionError"));
            }
            return out;
        }};
    }
    op_table!(op, cdt, run, zero_div);
    #[allow(unreachable_code)]
    Err(Error::runtime("internal error: no small kernel"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64], dt: DType) -> Tensor {
        Tensor::from_vec(v.to_vec(), [v.len()])
            .unwrap()
            .to(dt)
            .unwrap()
    }

    /// PyTorch 2.15's kernels for a float tensor to the number 0.5, -0.5 or -1 (`sqrt`,
    /// `1 / sqrt`, `1 / x`) in float32, float64 and bfloat16, and `pow` itself in float16:
    /// `(-0.0) ** 0.5` is -0.0 and `(-inf) ** 0.5` NaN in the first, 0.0 and inf in float16.
    #[test]
    fn pow_number_kernels_at_signed_zero_and_infinity() {
        let x = Tensor::from_vec(vec![-0.0f32, f32::NEG_INFINITY, 4.0, 0.0, -2.0], [5]).unwrap();
        let bits =
            |t: Tensor| -> Vec<u64> { t.to_vec::<f64>().iter().map(|v| v.to_bits()).collect() };
        let nan = f64::NAN.to_bits();
        let cases: [(f64, [f64; 5], [f64; 5]); 3] = [
            (
                0.5,
                [-0.0, f64::NAN, 2.0, 0.0, f64::NAN],
                [0.0, f64::INFINITY, 2.0, 0.0, f64::NAN],
            ),
            (
                -0.5,
                [f64::NEG_INFINITY, f64::NAN, 0.5, f64::INFINITY, f64::NAN],
                [f64::INFINITY, 0.0, 0.5, f64::INFINITY, f64::NAN],
            ),
            (
                -1.0,
                [f64::NEG_INFINITY, -0.0, 0.25, f64::INFINITY, -0.5],
                [f64::NEG_INFINITY, -0.0, 0.25, f64::INFINITY, -0.5],
            ),
        ];
        let want = |v: &[f64; 5]| -> Vec<u64> {
            v.iter()
                .map(|x| if x.is_nan() { nan } else { x.to_bits() })
                .collect()
        };
        for (e, fast, f16) in cases {
            for dt in [
                DType::Float32,
                DType::Float64,
                DType::BFloat16,
                DType::Float16,
            ] {
                let got = bits(x.to(dt).unwrap().pow(e).unwrap());
                let got: Vec<u64> = got
                    .into_iter()
                    .map(|b| if f64::from_bits(b).is_nan() { nan } else { b })
                    .collect();
                let w = if dt == DType::Float16 { &f16 } else { &fast };
                assert_eq!(got, want(w), "{dt:?} ** {e}");
            }
        }
    }

    /// PyTorch 2.15: an integer (or bool) tensor to a negative integer number fails, in every
    /// form; a tensor exponent with negative values (even a 0-d one) computes, as does a
    /// float number exponent.
    #[test]
    fn integers_to_negative_integer_numbers_fail() {
        const MSG: &str = "Integers to negative integer powers are not allowed.";
        for dt in [
            DType::Bool,
            DType::UInt8,
            DType::Int8,
            DType::Int16,
            DType::Int32,
            DType::Int64,
        ] {
            let a = ints(&[2, 3, 1], dt);
            assert_eq!(a.pow(-1).unwrap_err().to_string(), MSG, "{dt:?}");
            assert_eq!(a.pow(-2i32).unwrap_err().to_string(), MSG, "{dt:?}");
            assert_eq!(a.pow_(-1).unwrap_err().to_string(), MSG, "{dt:?}");
            let mut out = Tensor::zeros_with([3], dt).unwrap();
            assert_eq!(
                a.pow_out(-1, &mut out).unwrap_err().to_string(),
                MSG,
                "{dt:?}"
            );
            // a float number is no integer power
            assert!(a.pow(-1.0).is_ok(), "{dt:?}");
        }
        // 0-d tensor exponents compute: -1 as uint8 is 255 (3**255 wraps to 171)
        let neg = Tensor::from_vec(vec![-1i64], ()).unwrap();
        let r = |t: Result<Tensor>| t.unwrap().to_vec::<i64>();
        assert_eq!(r(ints(&[2, 3, 1], DType::UInt8).pow(&neg)), [0, 171, 1]);
        assert_eq!(r(ints(&[2, 3, 1], DType::Int8).pow(&neg)), [0, 0, 1]);
        assert_eq!(
            r(ints(&[-1, 1, 0, 2, -2], DType::Int64)
                .pow(&ints(&[-1, -2, -1, -1, -3], DType::Int64))),
            [-1, 1, 0, 0, 0]
        );
        // float bases, and non-negative exponents, are unaffected
        let f = Tensor::from_vec(vec![2.0f32], [1]).unwrap();
        assert_eq!(f.pow(-1).unwrap().to_vec::<f64>(), [0.5]);
        assert_eq!(r(ints(&[2, 3], DType::Int64).pow(0)), [1, 1]);
    }

    /// `pow(Tensor, Scalar)` is a unary TensorIterator op in PyTorch: a contiguous base with
    /// odd size-1 strides gives a contiguous output, while `mul` by a number (a wrapped 0-d
    /// operand) and `pow` by a 0-d tensor keep the base's strides.
    #[test]
    fn pow_number_exponent_lays_out_as_unary() {
        let x = Tensor::from_vec(vec![0.5f64; 8], [8])
            .unwrap()
            .as_strided([1, 2, 4], [4, 4, 1])
            .unwrap();
        assert_eq!(x.pow(3).unwrap().stride(), &[8, 4, 1]);
        assert_eq!(x.pow(1.5).unwrap().stride(), &[8, 4, 1]);
        assert_eq!(x.mul(3).unwrap().stride(), &[4, 4, 1]);
        let e = Tensor::scalar_tensor(3.0).unwrap();
        assert_eq!(x.pow(&e).unwrap().stride(), &[4, 4, 1]);
    }
}
