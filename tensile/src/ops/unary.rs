//! Unary pointwise ops: math functions, activations, rounding, logical and bitwise not.
//! The output keeps the input's dim order (TensorIterator with one input).

use crate::dispatch;
use crate::dtype::{DEFAULT_FLOAT, DType};
use crate::element::{Element, compute_dtype};
use crate::error::{Error, Result};
use crate::iter::TensorIter;
use crate::kernels::math::{Arith, Float};
use crate::kernels::pointwise;
use crate::kernels::vmath::{self, VOp};
use crate::tensor::Tensor;

/// The unary pointwise ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnaryOp {
    Neg,
    Abs,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Relu,
    Gelu,
    Silu,
    Erf,
    Floor,
    Ceil,
    Round,
    Trunc,
    Sign,
    Reciprocal,
    Square,
    LogicalNot,
    BitwiseNot,
    IsNan,
}

use UnaryOp::*;

impl UnaryOp {
    fn is_float_fn(self) -> bool {
        matches!(
            self,
            Exp | Log | Sqrt | Rsqrt | Sin | Cos | Tanh | Sigmoid | Erf | Reciprocal
        )
    }
    fn returns_bool(self) -> bool {
        matches!(self, LogicalNot | IsNan)
    }
}

fn not_impl(name: &str, dt: DType) -> Error {
    Error::not_implemented_for(name, dt)
}

/// The dtype `op` computes and returns in, for an input of dtype `dt`.
fn op_dtype(op: UnaryOp, dt: DType) -> Result<DType> {
    Ok(match op {
        _ if op.is_float_fn() && dt.is_integral(true) => DEFAULT_FLOAT,
        Neg if dt == DType::Bool => {
            return Err(Error::not_implemented(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
            ));
        }
        Gelu if !dt.is_floating_point() => return Err(not_impl("GeluKernelImpl", dt)),
        Silu if !dt.is_floating_point() => return Err(not_impl("silu_cpu", dt)),
        Relu if dt == DType::Bool => {
            return Err(Error::not_implemented(
                "Boolean inputs not supported for relu",
            ));
        }
        Floor if dt == DType::Bool => return Err(not_impl("floor_vml_cpu", dt)),
        Ceil if dt == DType::Bool => return Err(not_impl("ceil_vml_cpu", dt)),
        Round if dt == DType::Bool => return Err(not_impl("round_vml_cpu", dt)),
        Trunc if dt == DType::Bool => return Err(not_impl("trunc_vml_cpu", dt)),
        Abs if dt == DType::Bool => return Err(not_impl("abs_cpu", dt)),
        BitwiseNot if dt.is_floating_point() => return Err(not_impl("bitwise_not_cpu", dt)),
        Square if dt == DType::Bool => DType::Int64,
        _ => dt,
    })
}

/// Runs `op` on `a` into a new tensor.
// Generic over every dtype, bool included.
#[allow(clippy::bool_comparison)]
pub(crate) fn unary(op: UnaryOp, a: &Tensor) -> Result<Tensor> {
    let mut it = TensorIter::new(None, &[a])?;
    let opdt = op_dtype(op, a.dtype)?;
    if !op.returns_bool() {
        // integer inputs of float functions, and bool squared, are converted first
        it.promote_inputs(opdt);
    }
    let out_dt = if op.returns_bool() { DType::Bool } else { opdt };
    let lp = it.plan::<2>(out_dt)?;
    let cdt = compute_dtype(opdt);
    macro_rules! run {
        ($T:ty, $O:ty, $f:expr) => {
            lp.run(&pointwise::unary_kernel::<$T, $O>($f))
        };
    }
    macro_rules! float_fn {
        ($f:expr) => {
            match cdt {
                DType::Float64 => run!(f64, f64, |x: f64| $f(x)),
                _ => run!(f32, f32, |x: f32| $f(x)),
            }
        };
    }
    fn sigmoid<F: Float>(x: F) -> F {
        F::from_f(1.0).div(F::from_f(1.0).add(Arith::neg(x).exp()))
    }
    fn gelu<F: Float>(x: F) -> F {
        x.mul(F::from_f(0.5))
            .mul(F::from_f(1.0).add(x.mul(F::from_f(std::f64::consts::FRAC_1_SQRT_2)).erf()))
    }
    fn silu<F: Float>(x: F) -> F {
        x.div(F::from_f(1.0).add(Arith::neg(x).exp()))
    }
    // float32 (and the half types, computed in float32): the vectorised kernels
    let vop = match op {
        Exp => Some(VOp::Exp),
        Tanh => Some(VOp::Tanh),
        Sigmoid => Some(VOp::Sigmoid),
        Silu => Some(VOp::Silu),
        Gelu => Some(VOp::Gelu),
        Log => Some(VOp::Log),
        Sin => Some(VOp::Sin),
        Cos => Some(VOp::Cos),
        Erf => Some(VOp::Erf),
        _ => None,
    };
    if let (Some(v), DType::Float32) = (vop, cdt) {
        // float32 operands (conversion buffers for a half type)
        lp.run(&vmath::unary_kernel(v));
        return Ok(lp.into_out());
    }
    match op {
        Exp => float_fn!(Float::exp),
        Log => float_fn!(Float::ln),
        Sqrt => float_fn!(Float::sqrt),
        Rsqrt => float_fn!(|x| Arith::div(Float::from_f(1.0), Float::sqrt(x))),
        Sin => float_fn!(Float::sin),
        Cos => float_fn!(Float::cos),
        Tanh => float_fn!(Float::tanh),
        Erf => float_fn!(Float::erf),
        Sigmoid => float_fn!(sigmoid),
        Gelu => float_fn!(gelu),
        Silu => float_fn!(silu),
        Reciprocal => float_fn!(|x| Arith::div(Float::from_f(1.0), x)),
        _ => dispatch!(@compute cdt, T => {
            match op {
                Neg => run!(T, T, |x: T| Arith::neg(x)),
                Abs => run!(T, T, |x: T| Arith::abs(x)),
                Floor => run!(T, T, |x: T| Arith::floor(x)),
                Ceil => run!(T, T, |x: T| Arith::ceil(x)),
                Round => run!(T, T, |x: T| Arith::round(x)),
                Trunc => run!(T, T, |x: T| Arith::trunc(x)),
                Sign => run!(T, T, |x: T| Arith::sign(x)),
                Square => run!(T, T, |x: T| Arith::mul(x, x)),
                Relu => run!(T, T, |x: T| if Arith::is_nan(x) || x > <T as Element>::zero() { x } else { <T as Element>::zero() }),
                LogicalNot => run!(T, bool, |x: T| !Element::is_nonzero(x)),
                BitwiseNot => run!(T, T, |x: T| Arith::bitnot(x)),
                IsNan => run!(T, bool, |x: T| Arith::is_nan(x)),
                _ => {}
            }
        }),
    }
    Ok(lp.into_out())
}

impl Tensor {
    /// `torch.isnan`: bool output, same shape and dim order as `self`.
    pub fn isnan(&self) -> Result<Tensor> {
        unary(UnaryOp::IsNan, self)
    }
    /// `torch.positive(self)` (`+self`): `self` itself, a view sharing its storage, shape and
    /// strides (Python array API `positive`).
    ///
    /// Errors for a bool `self` (NotImplementedError): ``The `+` operator, on a bool tensor is
    /// not supported.``
    pub fn positive(&self) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            return Err(Error::not_implemented(
                "The `+` operator, on a bool tensor is not supported.",
            ));
        }
        Ok(self.alias())
    }
}

#[allow(dead_code)]
fn _assert_element<T: Element>() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyTorch 2.15 on CPU: `sign` of NaN (either sign bit) is 0 in every float dtype, on the
    /// vectorised path (20 elements) as on the scalar one.
    #[test]
    fn sign_of_nan_is_zero() {
        let v = vec![f64::NAN, -f64::NAN, 1.5, -0.0, 0.0, -2.0];
        for dt in [
            DType::Float16,
            DType::BFloat16,
            DType::Float32,
            DType::Float64,
        ] {
            let t = Tensor::from_vec(v.clone(), [6]).unwrap().to(dt).unwrap();
            assert_eq!(
                t.sign().unwrap().to_vec::<f64>(),
                [0.0, 0.0, 1.0, 0.0, 0.0, -1.0],
                "{dt:?}"
            );
            let many = Tensor::full_with([20], f64::NAN, dt)
                .unwrap()
                .sign()
                .unwrap();
            assert!(many.to_vec::<f64>().iter().all(|&x| x == 0.0), "{dt:?}");
        }
    }
}
