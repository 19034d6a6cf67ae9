//! The binary pointwise ops: two operands that broadcast (`other` a tensor or a number).
//!
//! * [`BinaryId`]: arithmetic, comparisons, logical and bitwise ops
//!   ([`crate::ops::binary::binary`]; each with `f`, `f_` and `f_out`); their derivatives are
//!   [`crate::autograd::formulas::pointwise::binary`]'s, keyed by the kernel op.
//! * [`MathId`]: the math functions of [`crate::ops::math_binary::math2`] (`fmod`, `hypot`,
//!   `logaddexp`, `fmax`, …); a row gives the elementwise derivative `(∂f/∂a, ∂f/∂b)` at
//!   `(a, b, r)` and the node names PyTorch gives the tensor-tensor, tensor-number and
//!   number-tensor overloads.
//!
//! Also here, by hand, the binary ops with extra arguments (`add`/`sub` with `alpha`, `div`
//! with `rounding_mode`, `rsub`, `true_divide`, `pow` with a number base) and the free
//! functions that take a number as the first operand (`torch.xlogy(2, t)`).

use crate::autograd::formulas::pointwise::{
    self as pw, D2, add_alpha as add_alpha_node, binary_fn, div_rounding, pow_scalar_base,
};
use crate::autograd::formulas::rsub::rsub as rsub_node;
use crate::autograd::{inplace, no_grad};
use crate::error::{Error, Result};
use crate::ops::Operand;
use crate::ops::binary::{BinaryOp, Dest, binary, binary_into};
use crate::ops::math_binary::{
    AddOpts, DivOpts, MathOp, add_alpha, div_mode, math2, sub_alpha, with_number_input,
};
use crate::tensor::Tensor;

macro_rules! binary_ops {
    ($($name:ident, $name_:ident, $name_out:ident, $Id:ident, $torch:literal;)*) => {
        /// An arithmetic, comparison, logical or bitwise op of the table (see
        /// [`crate::OpId`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum BinaryId {
            $(#[doc = concat!("[`Tensor::", stringify!($name), "`]")] $Id,)*
        }

        impl BinaryId {
            /// Every op of the family, in table order.
            pub const ALL: &'static [BinaryId] = &[$(BinaryId::$Id,)*];

            /// PyTorch's name of the op.
            pub fn name(self) -> &'static str {
                match self {
                    $(BinaryId::$Id => $torch,)*
                }
            }

            /// The methods the row generates (`["add", "add_", "add_out"]`).
            pub fn methods(self) -> &'static [&'static str] {
                match self {
                    $(BinaryId::$Id => &[stringify!($name), stringify!($name_), stringify!($name_out)],)*
                }
            }

            /// The kernel op (the forward function's selector and the derivative's key).
            fn op(self) -> BinaryOp {
                match self {
                    $(BinaryId::$Id => BinaryOp::$Id,)*
                }
            }
        }

        impl Tensor {$(
            #[doc = concat!("`torch.", $torch, "(self, other)`: broadcasts both operands (trailing dims aligned, size 1 stretched, missing leading dims added) and promotes their dtypes (tensors over 0-d tensors over scalars).\n\n",
                "Shapes: `self` and `other` broadcast to the output shape. Errors: `The size of tensor a (A) must match the size of tensor b (B) at non-singleton dimension D`, and the op's dtype errors.")]
            pub fn $name<'a>(&self, other: impl Into<Operand<'a>>) -> Result<Tensor> {
                BinaryId::$Id.call(self, other.into())
            }
            #[doc = concat!("`self.", $torch, "_(other)`: in place. `other` may broadcast to `self`'s shape; `self`'s shape, strides and dtype never change, and writes through a view land in its base.\n\n",
                "Errors, in PyTorch's order: memory overlap (`unsupported operation: …`), broadcast (`The size of tensor a …`), `output with shape [..] doesn't match the broadcast shape [..]`, `result type Float can't be cast to the desired output type Long`.")]
            pub fn $name_<'a>(&self, other: impl Into<Operand<'a>>) -> Result<Tensor> {
                BinaryId::$Id.call_(self, other.into())
            }
            #[doc = concat!("`torch.", $torch, "(self, other, out=out)`: writes the result into `out`, keeping its strides when its shape is the broadcast shape; otherwise `out` is replaced by a new tensor of the right shape (PyTorch's resize, with its deprecation warning when `out` had elements). The result must be castable to `out`'s dtype (`result type Float can't be cast to the desired output type Long`).")]
            pub fn $name_out<'a>(&self, other: impl Into<Operand<'a>>, out: &mut Tensor) -> Result<()> {
                BinaryId::$Id.call_out(self, other.into(), out)
            }
        )*}
    };
}

impl BinaryId {
    /// Runs the op into a new tensor and records its node.
    pub(crate) fn call(self, a: &Tensor, b: Operand<'_>) -> Result<Tensor> {
        let r = binary(self.op(), a, b, false)?;
        pw::binary(self.op(), r, a, b)
    }
    /// The in-place form: the in-place kernel, recorded as the out-of-place op of `self`'s
    /// previous value.
    fn call_(self, a: &Tensor, b: Operand<'_>) -> Result<Tensor> {
        let bt = b.as_tensor();
        inplace(
            a,
            &[&bt],
            || binary(self.op(), a, b, true),
            |old| self.call(old, b),
        )
    }
    /// The `out=` form (not recorded, as PyTorch refuses `out=` with grad).
    fn call_out(self, a: &Tensor, b: Operand<'_>, out: &mut Tensor) -> Result<()> {
        let r = binary_into(self.op(), a, b, Dest::Out(out))?;
        if !r.shares_storage(out) {
            *out = r;
        }
        Ok(())
    }
}

binary_ops! {
    add, add_, add_out, Add, "add";
    sub, sub_, sub_out, Sub, "sub";
    mul, mul_, mul_out, Mul, "mul";
    div, div_, div_out, Div, "div";
    remainder, remainder_, remainder_out, Remainder, "remainder";
    floor_divide, floor_divide_, floor_divide_out, FloorDivide, "floor_divide";
    pow, pow_, pow_out, Pow, "pow";
    maximum, maximum_, maximum_out, Maximum, "maximum";
    minimum, minimum_, minimum_out, Minimum, "minimum";
    atan2, atan2_, atan2_out, Atan2, "atan2";
    eq, eq_, eq_out, Eq, "eq";
    ne, ne_, ne_out, Ne, "ne";
    lt, lt_, lt_out, Lt, "lt";
    le, le_, le_out, Le, "le";
    gt, gt_, gt_out, Gt, "gt";
    ge, ge_, ge_out, Ge, "ge";
    logical_and, logical_and_, logical_and_out, LogicalAnd, "logical_and";
    logical_or, logical_or_, logical_or_out, LogicalOr, "logical_or";
    logical_xor, logical_xor_, logical_xor_out, LogicalXor, "logical_xor";
    bitwise_and, bitwise_and_, bitwise_and_out, BitwiseAnd, "bitwise_and";
    bitwise_or, bitwise_or_, bitwise_or_out, BitwiseOr, "bitwise_or";
    bitwise_xor, bitwise_xor_, bitwise_xor_out, BitwiseXor, "bitwise_xor";
}

/// A math op's derivative.
#[derive(Clone, Copy)]
enum MathGrad {
    /// Elementwise `(∂f/∂a, ∂f/∂b)` at `(a, b, r)`, with the node names of the
    /// tensor-tensor, tensor-number and number-tensor overloads.
    Elementwise((&'static str, &'static str, &'static str), D2),
    /// Integer-only ops (`gcd`, shifts): their outputs are never differentiable.
    Integer,
    /// No derivative in PyTorch: recorded as its `NotImplemented` node, whose backward fails
    /// with `derivative for aten::NAME is not implemented`.
    NotImplemented(&'static str),
}
use MathGrad::{Elementwise, Integer, NotImplemented};

/// The method forms a math row has: `self.f(other)` and `self.f_(other)`, `self.f(other)`
/// only (PyTorch has no in-place form), or none (a free function only).
macro_rules! math_method {
    (method $name:ident; $Id:ident; $doc:literal; $suffix:literal; $ip:literal) => {
        impl Tensor {
            #[doc = concat!("`torch.", stringify!($name), "(self, other)`: ", $doc, "\n\n", $suffix)]
            pub fn $name<'a>(&self, other: impl Into<Operand<'a>>) -> Result<Tensor> {
                MathId::$Id.call(Operand::Tensor(self), other.into())
            }
        }
    };
    (method $name:ident / $name_:ident; $Id:ident; $doc:literal; $suffix:literal; $ip:literal) => {
        math_method!(method $name; $Id; $doc; $suffix; $ip);
        impl Tensor {
            #[doc = concat!("`self.", stringify!($name), "_(other)`: [`Tensor::", stringify!($name), "`] in place. ", $ip)]
            pub fn $name_<'a>(&self, other: impl Into<Operand<'a>>) -> Result<Tensor> {
                MathId::$Id.call_(self, other.into())
            }
        }
    };
    (tensor $name:ident; $Id:ident; $doc:literal; $suffix:literal; $ip:literal) => {
        impl Tensor {
            #[doc = concat!("`torch.", stringify!($name), "(self, other)`: ", $doc, "\n\n",
                "Shapes: `self` and `other` broadcast to the output shape; dtypes promote as PyTorch's (`other` is a tensor: PyTorch's `", stringify!($name), "` takes no number). Errors: `The size of tensor a (A) must match the size of tensor b (B) at non-singleton dimension D`.")]
            pub fn $name(&self, other: &Tensor) -> Result<Tensor> {
                MathId::$Id.call(Operand::Tensor(self), Operand::Tensor(other))
            }
        }
    };
    (function $name:ident; $Id:ident; $doc:literal; $suffix:literal; $ip:literal) => {};
}

/// The method names of a math row, by its kind.
macro_rules! math_method_names {
    (method $name:ident $(/ $name_:ident)?) => {
        &[stringify!($name) $(, stringify!($name_))?]
    };
    (tensor $name:ident) => {
        &[stringify!($name)]
    };
    (function $name:ident) => {
        &[]
    };
}

macro_rules! math_ops {
    ($suffix:literal; $ip:literal; $($kind:ident $name:ident $(/ $name_:ident)?, $Id:ident, $grad:expr, $doc:literal;)*) => {
        /// A binary math function of the table (see [`crate::OpId`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum MathId {
            $(#[doc = concat!("`torch.", stringify!($name), "`")] $Id,)*
        }

        impl MathId {
            /// Every op of the family, in table order.
            pub const ALL: &'static [MathId] = &[$(MathId::$Id,)*];

            /// PyTorch's name of the op.
            pub fn name(self) -> &'static str {
                match self {
                    $(MathId::$Id => stringify!($name),)*
                }
            }

            /// The methods the row generates (`["fmod", "fmod_"]`; none for a free function
            /// such as `special.xlog1py`).
            pub fn methods(self) -> &'static [&'static str] {
                match self {
                    $(MathId::$Id => math_method_names!($kind $name $(/ $name_)?),)*
                }
            }

            /// The kernel op.
            fn op(self) -> MathOp {
                match self {
                    $(MathId::$Id => MathOp::$Id,)*
                }
            }

            /// The row's derivative.
            fn derivative(self) -> MathGrad {
                match self {
                    $(MathId::$Id => $grad,)*
                }
            }
        }

        $(math_method!($kind $name $(/ $name_)?; $Id; $doc; $suffix; $ip);)*
    };
}

impl MathId {
    /// Runs the op on `a` and `b` (either may be a number, not both: `NAME(): at least one
    /// of 'input' and 'other' must be a tensor`) and records its node.
    pub(crate) fn call(self, a: Operand<'_>, b: Operand<'_>) -> Result<Tensor> {
        let r = with_number_input(self.op(), a, b, self.name())?;
        self.record(r, a, b)
    }
    /// The in-place form: the in-place kernel, recorded as the out-of-place op of `self`'s
    /// previous value.
    fn call_(self, a: &Tensor, b: Operand<'_>) -> Result<Tensor> {
        let bt = b.as_tensor();
        inplace(
            a,
            &[&bt],
            || math2(self.op(), a, b, true),
            |old| self.call(Operand::Tensor(old), b),
        )
    }
    fn record(self, r: Tensor, a: Operand<'_>, b: Operand<'_>) -> Result<Tensor> {
        match self.derivative() {
            Elementwise(names, d) => binary_fn(names, r, a, b, d),
            Integer => Ok(r),
            NotImplemented(name) => pw::not_implemented_fn(name, r, a, b),
        }
    }
}

math_ops! {
    "Shapes: `self` and `other` (a tensor or a number) broadcast to the output shape; dtypes promote as PyTorch's (a number counts as a Python scalar). Errors: `The size of tensor a (A) must match the size of tensor b (B) at non-singleton dimension D`, and the dtype errors above.";
    "`other` broadcasts to `self`'s shape; `self`'s shape, strides and dtype never change, and writes through a view land in its base. Returns `self`.\n\nErrors, in PyTorch's order: memory overlap (`unsupported operation: …`), broadcast (`The size of tensor a …`), `output with shape [..] doesn't match the broadcast shape [..]`, `result type Float can't be cast to the desired output type Long`, then the op's dtype error.";
    method fmod / fmod_, Fmod,
        Elementwise(("FmodBackward1", "FmodBackward0", "FmodBackward0"), |a, b, _| (1.0, -(a / b).trunc())),
        "C's `fmod`: the remainder of truncating division, with the sign of `self`. Same dtype as the promotion; integers: `ZeroDivisionError` (RuntimeError) for a zero divisor; bool: `\"fmod_cpu\" not implemented for 'Bool'`.";
    method copysign / copysign_, Copysign,
        Elementwise(("CopysignBackward0", "CopysignBackward1", "CopysignBackward0"), |a, _, r| (if a == 0.0 { 0.0 } else { r / a }, 0.0)),
        "`|self|` with the sign of `other` (sign bits of ±0 and NaN count). Integer and bool inputs give float32.";
    method hypot / hypot_, Hypot,
        Elementwise(("HypotBackward0", "HypotBackward0", "HypotBackward0"), |a, b, r| (a / r, b / r)),
        "`sqrt(self² + other²)` without overflow. Floats only: `\"hypot_cpu\" not implemented for 'Long'`.";
    method xlogy / xlogy_, Xlogy,
        Elementwise(("XlogyBackward0", "XlogyBackward2", "XlogyBackward1"), |a, b, _| (if a == 0.0 && b <= 0.0 { 0.0 } else { b.ln() }, a / b)),
        "`self * log(other)`, 0 where `self` is 0, NaN where `other` is NaN. Integer and bool inputs give float32. A number `self`: [`xlogy`].";
    function xlog1py, Xlog1py,
        Elementwise(("SpecialXlog1PyBackward0", "SpecialXlog1PyBackward2", "SpecialXlog1PyBackward1"), |a, b, _| (if a == 0.0 && b <= -1.0 { 0.0 } else { b.ln_1p() }, a / (b + 1.0))),
        "`self * log1p(other)`: [`special::xlog1py`].";
    method float_power / float_power_, FloatPower,
        Elementwise(("PowBackward1", "PowBackward0", "PowBackward2"), |a, b, r| (
            if b == 0.0 { 0.0 } else { b * a.powf(b - 1.0) },
            if a == 0.0 && b >= 0.0 { 0.0 } else { r * a.ln() },
        )),
        "`self ** other` computed in float64; the result is always float64. In place, `self` must be float64: `the base given to float_power_ has dtype Float but the operation's result requires dtype Double` (checked first). A number `self`: [`float_power`].";
    method nextafter / nextafter_, Nextafter,
        Elementwise(("NextafterBackward0", "NextafterBackward0", "NextafterBackward0"), |_, _, _| (1.0, 0.0)),
        "the next representable value after `self` toward `other`, in the dtype's own precision (float16 and bfloat16 step by their own ulp). Floats only: `\"nextafter_cpu\" not implemented for 'Long'`.";
    method logaddexp, Logaddexp,
        Elementwise(("LogaddexpBackward0", "LogaddexpBackward0", "LogaddexpBackward0"), |a, b, _| (1.0 / (1.0 + (b - a).exp()), 1.0 / (1.0 + (a - b).exp()))),
        "`log(exp(self) + exp(other))` without overflow (`max + log1p(exp(-|self - other|))`; two equal infinities give that infinity). Floats only: `\"logaddexp_cpu\" not implemented for 'Long'` (NotImplementedError).";
    method logaddexp2, Logaddexp2,
        Elementwise(("Logaddexp2Backward0", "Logaddexp2Backward0", "Logaddexp2Backward0"), |a, b, _| (1.0 / (1.0 + (b - a).exp2()), 1.0 / (1.0 + (a - b).exp2()))),
        "`log2(2**self + 2**other)` without overflow. Floats only: `\"logaddexp2_cpu\" not implemented for 'Long'` (NotImplementedError).";
    method gcd / gcd_, Gcd, Integer,
        "the non-negative greatest common divisor (`gcd(0, 0) = 0`). Integers only (not bool): `\"gcd_cpu\" not implemented for 'Float'`.";
    method lcm / lcm_, Lcm, Integer,
        "`|self / gcd * other|` (0 when both are 0), wrapping as PyTorch's integer arithmetic does (8- and 16-bit operands in `int`, then cast). Integers only: `\"lcm_cpu\" not implemented for 'Float'`.";
    method bitwise_left_shift / bitwise_left_shift_, LeftShift, Integer,
        "`self << other`; a shift by a negative amount or by the width or more gives 0. Integers only: `\"lshift_cpu\" not implemented for 'Float'` (and 'Bool'). A number `self`: [`bitwise_left_shift`].";
    method bitwise_right_shift / bitwise_right_shift_, RightShift, Integer,
        "`self >> other` (arithmetic for signed types); a shift by a negative amount or by the width or more gives the sign fill (0 or -1; 0 for uint8). Integers only: `\"rshift_cpu\" not implemented for 'Float'` (and 'Bool').";
    tensor fmax, Fmax,
        Elementwise(("FmaxBackward0", "FmaxBackward0", "FmaxBackward0"), |a, b, _| (
            if a == b { 0.5 } else if a > b || b.is_nan() { 1.0 } else { 0.0 },
            if a == b { 0.5 } else if b > a || (a.is_nan() && !b.is_nan()) { 1.0 } else { 0.0 },
        )),
        "the larger of `self` and `other` where NaN loses (C's `fmax`): NaN only where both are NaN; of two equal values (`-0.0` and `0.0`) `self`'s. Every dtype, bool included (the promotion). Gradient (`FmaxBackward0`): `g` to the larger, halved on ties; to the one that is not NaN.";
    tensor fmin, Fmin,
        Elementwise(("FminBackward0", "FminBackward0", "FminBackward0"), |a, b, _| (
            if a == b { 0.5 } else if a < b || b.is_nan() { 1.0 } else { 0.0 },
            if a == b { 0.5 } else if b < a || (a.is_nan() && !b.is_nan()) { 1.0 } else { 0.0 },
        )),
        "the smaller of `self` and `other` where NaN loses (C's `fmin`): NaN only where both are NaN; of two equal values `self`'s. Every dtype, bool included. Gradient (`FminBackward0`): `g` to the smaller, halved on ties; to the one that is not NaN.";
    method heaviside / heaviside_, Heaviside, NotImplemented("heaviside"),
        "the step function: `other` where `self` is 0, else 1 where `self > 0`, 0 where `self < 0` or NaN. Both must have the same dtype: `heaviside is not yet implemented for tensors with different dtypes.` (checked before broadcasting).";
}

impl Tensor {
    /// `torch.true_divide(self, other)` = `torch.div(self, other)`: true division; integer
    /// and bool inputs give float32. Shapes broadcast. See [`Tensor::div`].
    pub fn true_divide<'a>(&self, other: impl Into<Operand<'a>>) -> Result<Tensor> {
        BinaryId::Div.call(self, other.into())
    }
    /// `self.true_divide_(other)`: in place; an integer `self` fails with `result type Float
    /// can't be cast to the desired output type Long`. See [`Tensor::div_`].
    pub fn true_divide_<'a>(&self, other: impl Into<Operand<'a>>) -> Result<Tensor> {
        BinaryId::Div.call_(self, other.into())
    }

    /// `torch.div(self, other, rounding_mode=…)`: `x.div_with(&y, "trunc")`,
    /// `x.div_with(&y, "floor")`, or `x.div_with(&y, None)` (true division, [`Tensor::div`]).
    ///
    /// `"trunc"` rounds the quotient toward zero, `"floor"` toward −∞ (= [`Tensor::floor_divide`]);
    /// both keep the promoted dtype (integers stay integers). Shapes broadcast. Gradient:
    /// [`Tensor::div`]'s without a rounding mode, else zero (`DivBackward2`).
    ///
    /// Errors: `div expected rounding_mode to be one of None, 'trunc', or 'floor' but found
    /// 'x'`; integer division by zero: `ZeroDivisionError` (RuntimeError); bool:
    /// `"div_trunc_cpu" not implemented for 'Bool'` / `"div_floor_cpu" …`.
    pub fn div_with<'a, 'm>(
        &self,
        other: impl Into<Operand<'a>>,
        opts: impl Into<DivOpts<'m>>,
    ) -> Result<Tensor> {
        let (other, opts) = (other.into(), opts.into());
        let r = div_mode(self, other, opts, false)?;
        match opts.rounding_mode {
            None => pw::binary(BinaryOp::Div, r, self, other),
            Some(_) => div_rounding(r, self, other),
        }
    }
    /// `self.div_(other, rounding_mode=…)`: [`Tensor::div_with`] in place. Errors as there,
    /// and those of the in-place ops (`result type Float can't be cast to the desired output
    /// type Long` for true division of an integer `self`).
    pub fn div_with_<'a, 'm>(
        &self,
        other: impl Into<Operand<'a>>,
        opts: impl Into<DivOpts<'m>>,
    ) -> Result<Tensor> {
        let (other, opts) = (other.into(), opts.into());
        let ot = other.as_tensor();
        inplace(
            self,
            &[&ot],
            || div_mode(self, other, opts, true),
            |old| old.div_with(other, opts),
        )
    }

    /// `torch.add(self, other, alpha=…)`: `self + alpha * other`, e.g. `x.add_with(&y, 2)`.
    ///
    /// Shapes broadcast; dtype: the promotion of `self` and `other` (alpha takes no part).
    /// Bool tensors: `self or (alpha and other)`.
    ///
    /// Errors: the broadcast error; `For integral input tensors, argument alpha must not be a
    /// floating point number.`; `Boolean alpha only supported for Boolean results.`
    pub fn add_with<'a>(
        &self,
        other: impl Into<Operand<'a>>,
        opts: impl Into<AddOpts>,
    ) -> Result<Tensor> {
        let (other, alpha) = (other.into(), opts.into().alpha);
        let r = add_alpha(self, other, alpha, false)?;
        add_alpha_node(r, self, other, alpha.to_f64(), false)
    }
    /// `self.add_(other, alpha=…)`: [`Tensor::add_with`] in place (cast errors as the other
    /// in-place ops, checked before alpha).
    pub fn add_with_<'a>(
        &self,
        other: impl Into<Operand<'a>>,
        opts: impl Into<AddOpts>,
    ) -> Result<Tensor> {
        let (other, alpha) = (other.into(), opts.into().alpha);
        let ot = other.as_tensor();
        inplace(
            self,
            &[&ot],
            || add_alpha(self, other, alpha, true),
            |old| old.add_with(other, AddOpts { alpha }),
        )
    }
    /// `torch.sub(self, other, alpha=…)`: `self - alpha * other`. Errors as
    /// [`Tensor::add_with`], and first the bool refusal of [`Tensor::sub`]
    /// (``Subtraction, the `-` operator, with a bool tensor is not supported. …``).
    pub fn sub_with<'a>(
        &self,
        other: impl Into<Operand<'a>>,
        opts: impl Into<AddOpts>,
    ) -> Result<Tensor> {
        let (other, alpha) = (other.into(), opts.into().alpha);
        let r = sub_alpha(self, other, alpha, false)?;
        add_alpha_node(r, self, other, alpha.to_f64(), true)
    }
    /// `self.sub_(other, alpha=…)`: [`Tensor::sub_with`] in place.
    pub fn sub_with_<'a>(
        &self,
        other: impl Into<Operand<'a>>,
        opts: impl Into<AddOpts>,
    ) -> Result<Tensor> {
        let (other, alpha) = (other.into(), opts.into().alpha);
        let ot = other.as_tensor();
        inplace(
            self,
            &[&ot],
            || sub_alpha(self, other, alpha, true),
            |old| old.sub_with(other, AddOpts { alpha }),
        )
    }
}

/// `torch.rsub(input, other)`: `other - input` (`other` a tensor or a number); see
/// [`rsub_with`].
pub fn rsub<'a>(input: &Tensor, other: impl Into<Operand<'a>>) -> Result<Tensor> {
    rsub_with(input, other, AddOpts::default())
}

/// `torch.rsub(input, other, alpha=…)`: `other - alpha · input`, i.e. PyTorch's
/// `sub(other, input, alpha)` (a number `other` becomes a wrapped 0-d tensor, the first
/// operand): shapes broadcast, dtypes promote, errors and their order are
/// [`Tensor::sub_with`]'s with the operands swapped (`The size of tensor a (2) must match the
/// size of tensor b (3) at non-singleton dimension 1` names `other` as `a`; ``Subtraction, the
/// `-` operator, with a bool tensor is not supported. …``; `For integral input tensors,
/// argument alpha must not be a floating point number.`; `Boolean alpha only supported for
/// Boolean results.`). Gradient: `RsubBackward0` (tensor `other`), `RsubBackward1` (number).
pub fn rsub_with<'a>(
    input: &Tensor,
    other: impl Into<Operand<'a>>,
    opts: impl Into<AddOpts>,
) -> Result<Tensor> {
    let (other, alpha) = (other.into(), opts.into().alpha);
    let r = {
        let _ng = no_grad();
        match other {
            Operand::Tensor(o) => sub_alpha(o, Operand::Tensor(input), alpha, false)?,
            Operand::Scalar(v) => sub_alpha(
                &Tensor::wrapped_scalar(v),
                Operand::Tensor(input),
                alpha,
                false,
            )?,
        }
    };
    let o = match other {
        Operand::Tensor(o) => Some(o),
        Operand::Scalar(_) => None,
    };
    rsub_node(r, input, o, alpha.to_f64())
}

/// `torch.pow(input, exponent)` with either side a number: `tensile::pow(2, &t)` is PyTorch's
/// `torch.pow(2, t)` / `2 ** t`, `tensile::pow(&t, 0.5)` is `t.pow(0.5)`.
///
/// Shapes: the tensor operands broadcast; a number is a Python scalar (lowest promotion
/// priority: `pow(2, int_tensor)` stays int64, `pow(2.0, int_tensor)` gives float32).
///
/// Errors: those of [`Tensor::pow`] (`Integers to negative integer powers are not allowed.`
/// for an integer tensor and a negative integer exponent); two numbers:
/// `pow(): at least one of 'input' and 'exponent' must be a tensor` (Rust has `f64::powf`).
pub fn pow<'a, 'b>(
    input: impl Into<Operand<'a>>,
    exponent: impl Into<Operand<'b>>,
) -> Result<Tensor> {
    match (input.into(), exponent.into()) {
        (Operand::Tensor(t), e) => t.pow(e),
        (Operand::Scalar(s), Operand::Tensor(e)) => {
            let r = binary(
                BinaryOp::Pow,
                &Tensor::wrapped_scalar(s),
                Operand::Tensor(e),
                false,
            )?;
            pow_scalar_base(r, s.to_f64(), e)
        }
        (Operand::Scalar(_), Operand::Scalar(_)) => Err(Error::runtime(
            "pow(): at least one of 'input' and 'exponent' must be a tensor",
        )),
    }
}

/// `torch.bitwise_left_shift(input, other)` with a number allowed on either side:
/// `tensile::bitwise_left_shift(1, &t)` is PyTorch's `1 << t`. See
/// [`Tensor::bitwise_left_shift`]; two numbers fail
/// (`bitwise_left_shift(): at least one of 'input' and 'other' must be a tensor`).
pub fn bitwise_left_shift<'a, 'b>(
    input: impl Into<Operand<'a>>,
    other: impl Into<Operand<'b>>,
) -> Result<Tensor> {
    MathId::LeftShift.call(input.into(), other.into())
}

/// `torch.bitwise_right_shift(input, other)` with a number allowed on either side. See
/// [`bitwise_left_shift`].
pub fn bitwise_right_shift<'a, 'b>(
    input: impl Into<Operand<'a>>,
    other: impl Into<Operand<'b>>,
) -> Result<Tensor> {
    MathId::RightShift.call(input.into(), other.into())
}

/// `torch.xlogy(input, other)` with a number allowed as `input` (`torch.xlogy(2, t)`). See
/// [`Tensor::xlogy`]; two numbers: `xlogy(): at least one of 'input' and 'other' must be a
/// tensor`.
pub fn xlogy<'a, 'b>(
    input: impl Into<Operand<'a>>,
    other: impl Into<Operand<'b>>,
) -> Result<Tensor> {
    MathId::Xlogy.call(input.into(), other.into())
}

/// `torch.float_power(input, exponent)` with a number allowed on either side
/// (`torch.float_power(2, t)`). See [`Tensor::float_power`].
pub fn float_power<'a, 'b>(
    input: impl Into<Operand<'a>>,
    exponent: impl Into<Operand<'b>>,
) -> Result<Tensor> {
    MathId::FloatPower.call(input.into(), exponent.into())
}

/// `torch.special`: the special functions of this crate.
pub mod special {
    use super::*;

    /// `torch.special.xlog1py(input, other)`: `input * log1p(other)`, 0 where `input` is 0,
    /// NaN where `other` is NaN; either may be a number (not both).
    ///
    /// Shapes: broadcast. dtype: the promotion; integer and bool inputs give float32.
    /// Gradient: `SpecialXlog1PyBackward0` (`log1p(other)`, 0 where `input` is 0 and
    /// `other <= -1`; `input / (other + 1)`).
    /// Errors: the broadcast error; two numbers:
    /// `xlog1py(): at least one of 'input' and 'other' must be a tensor`.
    pub fn xlog1py<'a, 'b>(
        input: impl Into<Operand<'a>>,
        other: impl Into<Operand<'b>>,
    ) -> Result<Tensor> {
        MathId::Xlog1py.call(input.into(), other.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f64]) -> Tensor {
        Tensor::from_vec(v.to_vec(), [v.len()]).unwrap()
    }

    /// PyTorch 2.15: `torch.special.xlog1py(a, b)` with both requiring grad gives
    /// `SpecialXlog1PyBackward0`, `a.grad = log1p(b)` (0 only where `a == 0` and `b <= -1`),
    /// `b.grad = a / (b + 1)`; a number on either side names the node `…Backward2` (number
    /// `b`) or `…Backward1` (number `a`).
    #[test]
    fn xlog1py_records_pytorchs_gradient() {
        let a = t(&[0.0, 1.0, -1.0, 2.0]).requires_grad_(true).unwrap();
        let b = t(&[0.5, -1.0, -2.0, 3.0]).requires_grad_(true).unwrap();
        let r = special::xlog1py(&a, &b).unwrap();
        assert_eq!(r.grad_fn().unwrap().name(), "SpecialXlog1PyBackward0");
        r.sum().unwrap().backward().unwrap();
        let ga = a.grad().unwrap().to_vec::<f64>();
        assert!((ga[0] - 1.5f64.ln()).abs() < 1e-12 && ga[1] == f64::NEG_INFINITY);
        assert!(ga[2].is_nan() && (ga[3] - 4f64.ln()).abs() < 1e-12);
        assert_eq!(
            b.grad().unwrap().to_vec::<f64>(),
            [0.0, f64::INFINITY, 1.0, 0.5]
        );
        let name = |r: Tensor| r.grad_fn().unwrap().name().to_string();
        assert_eq!(
            name(special::xlog1py(&a, 2.0).unwrap()),
            "SpecialXlog1PyBackward2"
        );
        assert_eq!(
            name(special::xlog1py(2.0, &b).unwrap()),
            "SpecialXlog1PyBackward1"
        );
    }

    /// PyTorch 2.15: `heaviside` of a requiring input records `NotImplemented`, whose
    /// backward fails with `derivative for aten::heaviside is not implemented`.
    #[test]
    fn heaviside_records_not_implemented() {
        let a = t(&[0.0, 1.0]).requires_grad_(true).unwrap();
        let r = a.heaviside(&t(&[0.5, 0.5])).unwrap();
        assert_eq!(r.grad_fn().unwrap().name(), "NotImplemented");
        let e = r.sum().unwrap().backward().unwrap_err();
        assert_eq!(
            e.to_string(),
            "derivative for aten::heaviside is not implemented"
        );
    }

    /// PyTorch 2.15's `fmax`/`fmin`: NaN loses, two NaN give NaN, ties give `self`'s value
    /// (`fmax(-0.0, 0.0)` is `-0.0`), integers and bool compare as numbers; the gradient goes
    /// to the winner, halved on ties, and to the non-NaN operand (both NaN: to `self`).
    #[test]
    fn fmax_fmin_values_and_gradients_are_pytorchs() {
        let nan = f64::NAN;
        let x = t(&[nan, 2.0, 1.0, -0.0, 1.0, nan, 3.0])
            .requires_grad_(true)
            .unwrap();
        let y = t(&[nan, 2.0, nan, 0.0, 2.0, 1.0, nan])
            .requires_grad_(true)
            .unwrap();
        let r = x.fmax(&y).unwrap();
        let v = r.to_vec::<f64>();
        assert!(v[0].is_nan());
        assert_eq!(&v[1..], [2.0, 1.0, -0.0, 2.0, 1.0, 3.0]);
        assert!(v[3].is_sign_negative());
        assert_eq!(r.grad_fn().unwrap().name(), "FmaxBackward0");
        r.sum().unwrap().backward().unwrap();
        assert_eq!(
            x.grad().unwrap().to_vec::<f64>(),
            [1.0, 0.5, 1.0, 0.5, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            y.grad().unwrap().to_vec::<f64>(),
            [0.0, 0.5, 0.0, 0.5, 1.0, 1.0, 0.0]
        );
        let (xd, yd) = (x.detach(), y.detach());
        let m = xd.fmin(&yd).unwrap().to_vec::<f64>();
        assert_eq!(&m[1..], [2.0, 1.0, -0.0, 1.0, 1.0, 3.0]);
        assert!(m[3].is_sign_negative());
        assert!(yd.fmin(&xd).unwrap().to_vec::<f64>()[3].is_sign_positive());
        let i = |v: Vec<i64>| Tensor::from_vec(v, [2]).unwrap();
        assert_eq!(
            i(vec![1, 5]).fmax(&i(vec![2, 3])).unwrap().to_vec::<i64>(),
            [2, 5]
        );
        let b = |v: Vec<bool>| Tensor::from_vec(v, [2]).unwrap();
        let r = b(vec![true, false]).fmin(&b(vec![false, false])).unwrap();
        assert_eq!(r.to_vec::<bool>(), [false, false]);
    }
}
