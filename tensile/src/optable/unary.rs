//! The unary pointwise ops: one row each (method, in-place method, id, forward function,
//! derivative, doc). The forward functions are [`crate::ops::unary::unary`] (the ops with
//! their own kernels: `exp`, `relu`, rounding, logical and bitwise not) and
//! [`crate::ops::unary_math::float_op`] (float functions computed in double and rounded once:
//! `tan`, `log1p`, `lgamma`, …). A derivative is a node builder of
//! [`crate::autograd::formulas::pointwise`]: `in1(name, x, d)` (saves the input, `g · d(x)`),
//! `out1(name, d)` (saves the result, `g · d(r)`), or a named formula.
//!
//! Also here, by hand, the unary ops whose signature no row has (`logit(eps)`,
//! `nan_to_num(nan, posinf, neginf)`, `zero_`).

use std::f64::consts::{FRAC_2_SQRT_PI, LN_2, LN_10, PI};

use crate::autograd::formulas::binary_math::nan_to_num as nan_to_num_node;
use crate::autograd::formulas::pointwise::{
    gelu_node, in1, in1_typed, lam, logit as logit_node, relu_node, sgn, trigamma, trigamma_f32,
    zero_node,
};
use crate::autograd::record::{Built, node, record};
use crate::autograd::{inplace, write_back};
use crate::error::Result;
use crate::ops::unary::{UnaryOp, unary};
use crate::ops::unary_math::{
    FloatOp, LogitOpts, NanToNumOpts, float_op, logit_fwd, nan_to_num_fwd,
};
use crate::tensor::Tensor;

use crate::autograd::formulas::pointwise::out1;

const DEG2RAD: f64 = PI / 180.0;
const RAD2DEG: f64 = 180.0 / PI;

macro_rules! unary_ops {
    ($x:ident; $($suffix:literal {
        $($name:ident, $name_:ident, $Id:ident, $fwd:expr, $grad:expr, $doc:literal;)*
    })*) => {
        /// A unary pointwise op of the table (see [`crate::OpId`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum UnaryId {
            $($(#[doc = concat!("[`Tensor::", stringify!($name), "`]")] $Id,)*)*
        }

        impl UnaryId {
            /// Every unary op of the table, in table order.
            pub const ALL: &'static [UnaryId] = &[$($(UnaryId::$Id,)*)*];

            /// PyTorch's name of the op.
            pub fn name(self) -> &'static str {
                match self {
                    $($(UnaryId::$Id => stringify!($name),)*)*
                }
            }

            /// The methods the row generates (`["exp", "exp_"]`).
            pub fn methods(self) -> &'static [&'static str] {
                match self {
                    $($(UnaryId::$Id => &[stringify!($name), stringify!($name_)],)*)*
                }
            }

            /// The row's forward function.
            fn forward(self, $x: &Tensor) -> Result<Tensor> {
                match self {
                    $($(UnaryId::$Id => $fwd,)*)*
                }
            }

            /// The row's derivative: the node recorded for `self` applied to `x`.
            fn derivative(self, $x: &Tensor) -> Built {
                match self {
                    $($(UnaryId::$Id => $grad,)*)*
                }
            }
        }

        impl Tensor {$($(
            #[doc = concat!($doc, "\n\n", $suffix)]
            pub fn $name(&self) -> Result<Tensor> {
                UnaryId::$Id.call(self)
            }
            #[doc = concat!("In place: `self.", stringify!($name_), "()`, the result of [`Tensor::", stringify!($name), "`] written into `self` (through views, into the base). Returns `self`.\n\n",
                "Errors, in PyTorch's order: `unsupported operation: more than one element of the written-to tensor refers to a single memory location. …` (an expanded `self`); the op's own dtype errors; `result type Float can't be cast to the desired output type Long` (an integer `self` with a float-valued op).")]
            pub fn $name_(&self) -> Result<Tensor> {
                write_back(self, |t| t.$name())
            }
        )*)*}
    };
}

impl UnaryId {
    /// Runs the op on `x` and records its node (when grad mode is on and `x` requires grad).
    pub(crate) fn call(self, x: &Tensor) -> Result<Tensor> {
        let out = self.forward(x)?;
        record(out, &[x], || self.derivative(x))
    }
}

/// Rounding and sign functions: a zero gradient.
fn zero(name: &'static str) -> Built {
    node(lam(name, |g, _| Ok(vec![Some(Tensor::zeros_like(g)?)])))
}

/// Bool- and integer-valued ops (`logical_not`, `bitwise_not`): never recorded (their outputs
/// are not floating point); the node would refuse.
fn none(name: &'static str) -> Built {
    node(lam(name, |_, _| Ok(vec![None])))
}

unary_ops! { x;
    "Shape: same as `self`, with `self`'s dim order (a permuted dense input gives a permuted output)." {
        neg, neg_, Neg, unary(UnaryOp::Neg, x), node(lam("NegBackward0", |g, _| Ok(vec![Some(g.neg()?)]))),
            "`torch.neg`: `-self`. Error for bool: ``Negation, the `-` operator, on a bool tensor is not supported. …``";
        abs, abs_, Abs, unary(UnaryOp::Abs, x), in1("AbsBackward0", x, sgn),
            "`torch.abs`: absolute value (integers wrap at their minimum).";
        exp, exp_, Exp, unary(UnaryOp::Exp, x), out1("ExpBackward0", |r| r),
            "`torch.exp`. Integer and bool inputs give float32.";
        log, log_, Log, unary(UnaryOp::Log, x), in1("LogBackward0", x, |x| 1.0 / x),
            "`torch.log` (natural). Integer and bool inputs give float32.";
        sqrt, sqrt_, Sqrt, unary(UnaryOp::Sqrt, x), out1("SqrtBackward0", |r| 1.0 / (2.0 * r)),
            "`torch.sqrt`. Integer and bool inputs give float32.";
        rsqrt, rsqrt_, Rsqrt, unary(UnaryOp::Rsqrt, x), out1("RsqrtBackward0", |r| -0.5 * r * r * r),
            "`torch.rsqrt`: `1/sqrt(self)`. Integer and bool inputs give float32.";
        sin, sin_, Sin, unary(UnaryOp::Sin, x), in1("SinBackward0", x, f64::cos),
            "`torch.sin`. Integer and bool inputs give float32.";
        cos, cos_, Cos, unary(UnaryOp::Cos, x), in1("CosBackward0", x, |x| -x.sin()),
            "`torch.cos`. Integer and bool inputs give float32.";
        tanh, tanh_, Tanh, unary(UnaryOp::Tanh, x), out1("TanhBackward0", |r| 1.0 - r * r),
            "`torch.tanh`. Integer and bool inputs give float32.";
        sigmoid, sigmoid_, Sigmoid, unary(UnaryOp::Sigmoid, x), out1("SigmoidBackward0", |r| r * (1.0 - r)),
            "`torch.sigmoid`: `1/(1+exp(-self))`. Integer and bool inputs give float32.";
        relu, relu_, Relu, unary(UnaryOp::Relu, x), relu_node(),
            "`torch.nn.functional.relu`: `max(self, 0)`, NaN kept. Error for bool: `Boolean inputs not supported for relu`.";
        gelu, gelu_, Gelu, unary(UnaryOp::Gelu, x), gelu_node(x),
            "`torch.nn.functional.gelu` (exact, erf-based): `x/2 * (1 + erf(x/sqrt(2)))`. Floats only.";
        silu, silu_, Silu, unary(UnaryOp::Silu, x), in1("SiluBackward0", x, |x| {
                let s = 1.0 / (1.0 + (-x).exp());
                s * (1.0 + x * (1.0 - s))
            }),
            "`torch.nn.functional.silu`: `x * sigmoid(x)`. Floats only.";
        erf, erf_, Erf, unary(UnaryOp::Erf, x), in1("ErfBackward0", x, |x| FRAC_2_SQRT_PI * (-x * x).exp()),
            "`torch.erf`. Integer and bool inputs give float32.";
        floor, floor_, Floor, unary(UnaryOp::Floor, x), zero("FloorBackward0"),
            "`torch.floor`. Integers are returned unchanged (same dtype).";
        ceil, ceil_, Ceil, unary(UnaryOp::Ceil, x), zero("CeilBackward0"),
            "`torch.ceil`. Integers are returned unchanged (same dtype).";
        round, round_, Round, unary(UnaryOp::Round, x), zero("RoundBackward0"),
            "`torch.round`: half to even. Integers are returned unchanged.";
        trunc, trunc_, Trunc, unary(UnaryOp::Trunc, x), zero("TruncBackward0"),
            "`torch.trunc`: toward zero. Integers are returned unchanged.";
        sign, sign_, Sign, unary(UnaryOp::Sign, x), zero("SignBackward0"),
            "`torch.sign`: -1, 0 or 1; NaN gives 0 (PyTorch's CPU result, for float16, bfloat16, float32 and float64).";
        reciprocal, reciprocal_, Reciprocal, unary(UnaryOp::Reciprocal, x), out1("ReciprocalBackward0", |r| -r * r),
            "`torch.reciprocal`: `1/self`. Integer and bool inputs give float32.";
        square, square_, Square, unary(UnaryOp::Square, x), in1("PowBackward0", x, |x| 2.0 * x),
            "`torch.square`: `self*self`; bool gives int64.";
        logical_not, logical_not_, LogicalNot, unary(UnaryOp::LogicalNot, x), none("LogicalNotBackward0"),
            "`torch.logical_not`: bool output, `self == 0` (the in-place form writes 0/1 in `self`'s dtype).";
        bitwise_not, bitwise_not_, BitwiseNot, unary(UnaryOp::BitwiseNot, x), none("BitwiseNotBackward0"),
            "`torch.bitwise_not` (`~`): integers and bool only.";
    }
    "Shape: same as `self`, with `self`'s dim order. Dtype: a float `self` keeps its dtype (float16/bfloat16 computed in higher precision and rounded once); integer and bool inputs give float32 unless an error is listed." {
        tan, tan_, Tan, float_op(x, FloatOp::Tan), out1("TanBackward0", |r| 1.0 + r * r),
            "`torch.tan`.";
        atan, atan_, Atan, float_op(x, FloatOp::Atan), in1("AtanBackward0", x, |x| 1.0 / (1.0 + x * x)),
            "`torch.atan` (`arctan`).";
        asin, asin_, Asin, float_op(x, FloatOp::Asin), in1("AsinBackward0", x, |x| 1.0 / (1.0 - x * x).sqrt()),
            "`torch.asin` (`arcsin`): NaN outside `[-1, 1]`.";
        acos, acos_, Acos, float_op(x, FloatOp::Acos), in1("AcosBackward0", x, |x| -1.0 / (1.0 - x * x).sqrt()),
            "`torch.acos` (`arccos`): NaN outside `[-1, 1]`.";
        sinh, sinh_, Sinh, float_op(x, FloatOp::Sinh), in1("SinhBackward0", x, f64::cosh),
            "`torch.sinh`.";
        cosh, cosh_, Cosh, float_op(x, FloatOp::Cosh), in1("CoshBackward0", x, f64::sinh),
            "`torch.cosh`.";
        asinh, asinh_, Asinh, float_op(x, FloatOp::Asinh), in1("AsinhBackward0", x, |x| 1.0 / (x * x + 1.0).sqrt()),
            "`torch.asinh` (`arcsinh`).";
        acosh, acosh_, Acosh, float_op(x, FloatOp::Acosh), in1("AcoshBackward0", x, |x| 1.0 / (x * x - 1.0).sqrt()),
            "`torch.acosh` (`arccosh`): NaN below 1.";
        atanh, atanh_, Atanh, float_op(x, FloatOp::Atanh), in1("AtanhBackward0", x, |x| 1.0 / (1.0 - x * x)),
            "`torch.atanh` (`arctanh`): `±inf` at `±1`, NaN outside.";
        exp2, exp2_, Exp2, float_op(x, FloatOp::Exp2), out1("Exp2Backward0", |r| r * LN_2),
            "`torch.exp2`: `2**self`.";
        expm1, expm1_, Expm1, float_op(x, FloatOp::Expm1), out1("Expm1Backward0", |r| r + 1.0),
            "`torch.expm1`: `exp(self) - 1`, accurate near 0.";
        log1p, log1p_, Log1p, float_op(x, FloatOp::Log1p), in1("Log1PBackward0", x, |x| 1.0 / (1.0 + x)),
            "`torch.log1p`: `log(1 + self)`, accurate near 0.";
        log2, log2_, Log2, float_op(x, FloatOp::Log2), in1("Log2Backward0", x, |x| 1.0 / (x * LN_2)),
            "`torch.log2`.";
        log10, log10_, Log10, float_op(x, FloatOp::Log10), in1("Log10Backward0", x, |x| 1.0 / (x * LN_10)),
            "`torch.log10`.";
        erfc, erfc_, Erfc, float_op(x, FloatOp::Erfc), in1("ErfcBackward0", x, |x| -FRAC_2_SQRT_PI * (-x * x).exp()),
            "`torch.erfc`: `1 - erf(self)`.";
        erfinv, erfinv_, Erfinv, float_op(x, FloatOp::Erfinv), in1("ErfinvBackward0", x, |x| {
                let y = FloatOp::Erfinv.scalar()(x);
                0.5 * PI.sqrt() * (y * y).exp()
            }),
            "`torch.erfinv`: the inverse error function; `±inf` at `±1`, NaN outside `[-1, 1]`.";
        lgamma, lgamma_, Lgamma, float_op(x, FloatOp::Lgamma), in1("LgammaBackward0", x, FloatOp::Digamma.scalar()),
            "`torch.lgamma`: `ln|Γ(self)|`.";
        digamma, digamma_, Digamma, float_op(x, FloatOp::Digamma), in1_typed("DigammaBackward0", x, trigamma, trigamma_f32),
            "`torch.digamma` (`special.psi`): `Γ'/Γ`; `∓inf` at `±0`, NaN at negative integers.";
        sinc, sinc_, Sinc, float_op(x, FloatOp::Sinc), in1("SincBackward0", x, |x| {
                // PyTorch's `sinc_backward`: 0 where `x·x·π` is 0 (also where it underflows)
                if x * x * PI == 0.0 {
                    0.0
                } else {
                    let p = PI * x;
                    (p.cos() * p - p.sin()) / (x * x * PI)
                }
            }),
            "`torch.sinc`: `sin(πx)/(πx)`, 1 at 0.";
        deg2rad, deg2rad_, Deg2rad, float_op(x, FloatOp::Deg2rad), in1("Deg2RadBackward0", x, |_| DEG2RAD),
            "`torch.deg2rad`: `self * π/180`.";
        rad2deg, rad2deg_, Rad2deg, float_op(x, FloatOp::Rad2deg), in1("Rad2DegBackward0", x, |_| RAD2DEG),
            "`torch.rad2deg`: `self * 180/π`.";
        frac, frac_, Frac, float_op(x, FloatOp::Frac), node(lam("FracBackward0", |g, _| Ok(vec![Some(g.alias())]))),
            "`torch.frac`: `self - trunc(self)` (sign of `self`). Floats only: integers and bool give `\"frac_cpu\" not implemented for 'Long'` (NotImplementedError).";
    }
}

impl Tensor {
    /// `torch.logit(self)` = [`Tensor::logit_with`] with no `eps`.
    pub fn logit(&self) -> Result<Tensor> {
        self.logit_with(LogitOpts::default())
    }
    /// `torch.logit(self, eps=…)`: `ln(x / (1 - x))`, `x` first clamped to `[eps, 1 - eps]`
    /// when `eps` is given (the bounds rounded to the result dtype); NaN outside `[0, 1]`
    /// without `eps`. Shape: same as `self`; dtype as the float functions (integers give
    /// float32). Gradient: `LogitBackward0` (`g / (x (1 - x))`, 0 outside the bounds).
    pub fn logit_with(&self, opts: impl Into<LogitOpts>) -> Result<Tensor> {
        let eps = opts.into().eps;
        let (r, eps) = logit_fwd(self, eps)?;
        record(r, &[self], || logit_node(self, eps))
    }
    /// `self.logit_()`: [`Tensor::logit`] in place (errors as the other in-place float
    /// functions).
    pub fn logit_(&self) -> Result<Tensor> {
        write_back(self, |t| t.logit())
    }
    /// `self.logit_(eps=…)`: [`Tensor::logit_with`] in place.
    pub fn logit_with_(&self, opts: impl Into<LogitOpts>) -> Result<Tensor> {
        let opts = opts.into();
        write_back(self, |t| t.logit_with(opts))
    }

    /// `torch.nan_to_num(self)`: NaN → 0, ±inf → the dtype's largest finite values; see
    /// [`Tensor::nan_to_num_with`].
    pub fn nan_to_num(&self) -> Result<Tensor> {
        self.nan_to_num_with(NanToNumOpts::default())
    }
    /// `torch.nan_to_num(self, nan=…, posinf=…, neginf=…)`: NaN, +inf and -inf replaced by
    /// the given numbers (defaults: 0, the dtype's largest and lowest finite values).
    /// Integer and bool tensors are returned as a copy. Shape, dtype and dense layout of
    /// `self` (preserve format). Gradient: `NanToNumBackward0` (`g` where `self` is finite).
    pub fn nan_to_num_with(&self, opts: impl Into<NanToNumOpts>) -> Result<Tensor> {
        let r = nan_to_num_fwd(self, opts.into())?;
        record(r, &[self], || nan_to_num_node(self))
    }
    /// `self.nan_to_num_()`: [`Tensor::nan_to_num`] in place.
    pub fn nan_to_num_(&self) -> Result<Tensor> {
        write_back(self, |t| t.nan_to_num())
    }
    /// `self.nan_to_num_(nan=…, posinf=…, neginf=…)`: [`Tensor::nan_to_num_with`] in place.
    pub fn nan_to_num_with_(&self, opts: impl Into<NanToNumOpts>) -> Result<Tensor> {
        let opts = opts.into();
        write_back(self, |t| t.nan_to_num_with(opts))
    }

    /// `self.zero_()` = `self.fill_(0)`: zeros written through views into the base (an
    /// expanded `self` is allowed, as in PyTorch). Returns `self`. Never fails.
    /// Gradient: `ZeroBackward0` (a zero gradient for `self`'s previous value).
    pub fn zero_(&self) -> Result<Tensor> {
        inplace(
            self,
            &[],
            || self.fill_raw_(0),
            |old| zero_node("ZeroBackward0", old),
        )
    }
}
