//! Rust operators for tensors, beside the fallible methods: `&a + &b`, `&a - 2.0`, `2.0 * &a`,
//! `-&a`, `!&a`, `&a & &b`, `a += &b`, …
//!
//! Each operator is the PyTorch operator of the same spelling (`Tensor.__add__`,
//! `__radd__`, `__iadd__`, …) and calls the method that PyTorch's operator calls:
//!
//! | Rust | PyTorch | method |
//! |---|---|---|
//! | `a + b`, `a - b`, `a * b`, `a / b`, `a % b` | same | [`add`](Tensor::add), [`sub`](Tensor::sub), [`mul`](Tensor::mul), [`div`](Tensor::div) (true division), [`remainder`](Tensor::remainder) |
//! | `a & b`, `a \| b`, `a ^ b` | same | [`bitwise_and`](Tensor::bitwise_and), [`bitwise_or`](Tensor::bitwise_or), [`bitwise_xor`](Tensor::bitwise_xor) |
//! | `-a` | `-a` | [`neg`](Tensor::neg) |
//! | `!a` | `~a` | [`bitwise_not`](Tensor::bitwise_not) (logical not for bool) |
//! | `a += b`, `-=`, `*=`, `/=`, `%=`, `&=`, `\|=`, `^=` | same | [`add_`](Tensor::add_), [`sub_`](Tensor::sub_), … in place |
//! | `2.0 - a`, `2.0 / a`, `2 % a` | `__rsub__`, `__rtruediv__`, `__rmod__` | `rsub`, `reciprocal() * 2.0`, `remainder(2, a)` |
//!
//! Operands: `&Tensor` or `Tensor` on either side of a binary operator, or a number. On the
//! right a number is any Rust number ([`Number`](crate::Number): every integer and float type,
//! `usize` included, `bool`, `f16`/`bf16`, or a [`Scalar`]); on the left it is `f64`, `i64` or [`Scalar`] (`bool` or `i64` for `&`, `|`,
//! `^`), so that `2.0 * &t` and `1 - &t` need no suffix. A number is a Python scalar for type
//! promotion: `int32 tensor + 2.5` is float32, `int32 tensor + 2` stays int32.
//!
//! Operators cannot return a `Result`, so they **panic** where the method returns an error,
//! with exactly the method's error text (PyTorch's message) as the panic message. Use the
//! methods when an error is possible and must be handled:
//!
//! ```
//! use tensile::{DType, Tensor};
//! let a = Tensor::ones_with(&[4, 1], DType::Float32).unwrap();
//! let b = Tensor::ones_with(&[4], DType::Float32).unwrap();
//! let c = &a + &b;                       // broadcasts to (4, 4)
//! assert_eq!(c.size(), &[4, 4]);
//! let d = 2.0 * &c - 1.0;                // numbers on either side
//! assert_eq!(d.to_vec::<f32>(), vec![3.0; 16]);
//! let mut x = Tensor::zeros_with(&[3, 4], DType::Int64).unwrap();
//! x += 5;                                // in place: same storage, shape and dtype
//! x %= &Tensor::full_with(&[4], 3, DType::Int64).unwrap();
//! assert_eq!(x.to_vec::<i64>(), vec![2; 12]);
//! // The fallible form of a panicking operator:
//! let e = Tensor::ones_with(&[3, 3], DType::Float32).unwrap().add(&Tensor::ones_with(&[2, 3], DType::Float32).unwrap()).unwrap_err();
//! assert_eq!(e.message(), "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0");
//! ```
//!
//! One caveat of the by-value forms: when a `std::ops` trait is imported (`use std::ops::Add;`),
//! `x.add(&y)` on an owned `x` resolves to the operator (which returns a `Tensor` and panics)
//! instead of the method; write `Tensor::add(&x, &y)` or `(&x).add(&y)` there.

use std::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Not, Rem, RemAssign, Sub, SubAssign,
};

use crate::args::Number;
use crate::error::Result;
use crate::ops::Operand;
use crate::tensor::{Scalar, Tensor};

/// The operators' way out of a `Result`: the value, or a panic whose message is PyTorch's.
#[track_caller]
fn or_panic(r: Result<Tensor>) -> Tensor {
    match r {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    }
}

/// The number `s` as PyTorch wraps a Python scalar operand: a 0-d "wrapped number" tensor.
fn wrapped(s: impl Into<Scalar>) -> Tensor {
    Operand::Scalar(s.into()).to_tensor()
}

macro_rules! broadcast_panic {
    () => {
        "the shapes do not broadcast (`The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0`)"
    };
}

/// `impl Trait<rhs> for lhs` for every tensor/tensor and tensor/number combination.
macro_rules! binary_operator {
    ($Trait:ident, $method:ident, $sym:literal, $torch:literal, $func:ident, $panics:expr) => {
        binary_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, [], &Tensor, &Tensor, |a, b| Tensor::$func(a, b));
        binary_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, [], &Tensor, Tensor, |a, b| Tensor::$func(a, &b));
        binary_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, [], Tensor, &Tensor, |a, b| Tensor::$func(&a, b));
        binary_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, [], Tensor, Tensor, |a, b| Tensor::$func(&a, &b));
        binary_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, [S: Number], &Tensor, S, |a, b| Tensor::$func(a, b.to_scalar()));
        binary_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, [S: Number], Tensor, S, |a, b| Tensor::$func(&a, b.to_scalar()));
    };
    (
        @one $Trait:ident, $method:ident, $sym:literal, $torch:literal, $func:ident, $panics:expr,
        [$($gen:tt)*], $L:ty, $R:ty, |$a:ident, $b:ident| $body:expr
    ) => {
        #[doc = concat!("`", stringify!($L), " ", $sym, " ", stringify!($R), "`: PyTorch's `a ", $sym, " b` (`",
            $torch, "`), i.e. [`Tensor::", stringify!($func), "`].")]
        impl<$($gen)*> $Trait<$R> for $L {
            type Output = Tensor;
            #[doc = concat!("`a ", $sym, " b`: `", $torch, "(a, b)` ([`Tensor::", stringify!($func),
                "`]). Shapes: `a` and `b` broadcast to the output shape (a number is 0-d); the dtype is \
                PyTorch's promotion of both (a number counts as a Python scalar).\n\n# Panics\n\n\
                With PyTorch's message (the method's error text) when ", $panics, "; use [`Tensor::",
                stringify!($func), "`] for a `Result`.")]
            #[track_caller]
            fn $method(self, rhs: $R) -> Tensor {
                let ($a, $b) = (self, rhs);
                or_panic($body)
            }
        }
    };
}

/// `impl Trait<Tensor> for number`: the number on the left (Python's reflected operator).
macro_rules! reflected_operator {
    (
        $Trait:ident, $method:ident, $sym:literal, $torch:literal, $func:literal, $panics:expr,
        [$($S:ty),*], |$s:ident, $t:ident| $body:expr
    ) => {$(
        reflected_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, $S, &Tensor, |$s, $t| $body);
        reflected_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, $S, Tensor, |$s, $t| $body);
    )*};
    (
        @one $Trait:ident, $method:ident, $sym:literal, $torch:literal, $func:literal, $panics:expr,
        $S:ty, $R:ty, |$s:ident, $t:ident| $body:expr
    ) => {
        #[doc = concat!("`", stringify!($S), " ", $sym, " ", stringify!($R), "`: PyTorch's `x ", $sym,
            " t` for a Python number `x` (`", $torch, "`).")]
        impl $Trait<$R> for $S {
            type Output = Tensor;
            #[doc = concat!("`x ", $sym, " t` for a number `x`: `", $torch, "`. Shape: `t`'s; the number \
                promotes as a Python scalar.\n\n# Panics\n\nWith PyTorch's message when ", $panics, "; use ",
                $func, " for a `Result`.")]
            #[track_caller]
            fn $method(self, rhs: $R) -> Tensor {
                let $s = self;
                let $t: &Tensor = &rhs;
                or_panic($body)
            }
        }
    };
}

/// `impl TraitAssign<rhs> for Tensor`: in place through the `op_` method.
macro_rules! assign_operator {
    ($Trait:ident, $method:ident, $sym:literal, $torch:literal, $func:ident, $panics:expr) => {
        assign_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, [], &Tensor, |a, b| Tensor::$func(a, b));
        assign_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, [], Tensor, |a, b| Tensor::$func(a, &b));
        assign_operator!(@one $Trait, $method, $sym, $torch, $func, $panics, [S: Number], S, |a, b| Tensor::$func(a, b.to_scalar()));
    };
    (
        @one $Trait:ident, $method:ident, $sym:literal, $torch:literal, $func:ident, $panics:expr,
        [$($gen:tt)*], $R:ty, |$a:ident, $b:ident| $body:expr
    ) => {
        #[doc = concat!("`Tensor ", $sym, " ", stringify!($R), "`: PyTorch's `a ", $sym, " b` (`", $torch,
            "`), i.e. [`Tensor::", stringify!($func), "`], in place.")]
        impl<$($gen)*> $Trait<$R> for Tensor {
            #[doc = concat!("`a ", $sym, " b`: `", $torch, "` in place ([`Tensor::", stringify!($func),
                "`]): `b` broadcasts to `a`'s shape; `a` keeps its storage, shape, strides and dtype \
                (views write into their base).\n\n# Panics\n\nWith PyTorch's message when ", $panics,
                "; use [`Tensor::", stringify!($func), "`] for a `Result`.")]
            #[track_caller]
            fn $method(&mut self, rhs: $R) {
                let ($a, $b) = (&*self, rhs);
                or_panic($body);
            }
        }
    };
}

macro_rules! sub_panic {
    () => {
        "the shapes do not broadcast (`The size of tensor a (3) must match …`), or an operand is bool (``Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.``; two bools: ``Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.``)"
    };
}
macro_rules! rem_panic {
    () => {
        "the shapes do not broadcast (`The size of tensor a (3) must match …`), both operands are bool (`\"remainder_cpu\" not implemented for 'Bool'`), or an integer is divided by zero (`ZeroDivisionError`)"
    };
}
macro_rules! bit_panic {
    () => {
        "the shapes do not broadcast (`The size of tensor a (3) must match …`), or the common dtype is a float (`\"bitwise_and_cpu\" not implemented for 'Float'`, `bitwise_or_cpu`, `bitwise_xor_cpu`)"
    };
}

binary_operator!(Add, add, "+", "torch.add", add, broadcast_panic!());
binary_operator!(Sub, sub, "-", "torch.sub", sub, sub_panic!());
binary_operator!(Mul, mul, "*", "torch.mul", mul, broadcast_panic!());
binary_operator!(Div, div, "/", "torch.div", div, broadcast_panic!());
binary_operator!(Rem, rem, "%", "torch.remainder", remainder, rem_panic!());
binary_operator!(
    BitAnd,
    bitand,
    "&",
    "torch.bitwise_and",
    bitwise_and,
    bit_panic!()
);
binary_operator!(
    BitOr,
    bitor,
    "|",
    "torch.bitwise_or",
    bitwise_or,
    bit_panic!()
);
binary_operator!(
    BitXor,
    bitxor,
    "^",
    "torch.bitwise_xor",
    bitwise_xor,
    bit_panic!()
);

reflected_operator!(
    Add,
    add,
    "+",
    "Tensor.__radd__: torch.add(t, x)",
    "`t.add(x)`",
    broadcast_panic!(),
    [f64, i64, Scalar],
    |x, t| Tensor::add(t, x)
);
reflected_operator!(
    Mul,
    mul,
    "*",
    "Tensor.__rmul__: torch.mul(t, x)",
    "`t.mul(x)`",
    broadcast_panic!(),
    [f64, i64, Scalar],
    |x, t| Tensor::mul(t, x)
);
reflected_operator!(
    Sub,
    sub,
    "-",
    "Tensor.__rsub__: torch.rsub(t, x), i.e. sub(x, t)",
    "`Tensor::scalar_tensor_with(x, ..).unwrap()` and `sub`",
    "`t` is bool (``Subtraction, the `-` operator, with a bool tensor is not supported. …``)",
    [f64, i64, Scalar],
    |x, t| Tensor::sub(&wrapped(x), t)
);
reflected_operator!(
    Div,
    div,
    "/",
    "Tensor.__rtruediv__: t.reciprocal() * x",
    "`t.reciprocal()` and `mul`",
    "never (integer and bool `t` give float32)",
    [f64, i64, Scalar],
    |x, t| Tensor::reciprocal(t).and_then(|r| Tensor::mul(&r, x))
);
reflected_operator!(
    Rem,
    rem,
    "%",
    "Tensor.__rmod__: torch.remainder(x, t)",
    "`Tensor::scalar_tensor_with(x, ..).unwrap()` and `remainder`",
    "both are bool (`\"remainder_cpu\" not implemented for 'Bool'`) or an integer is divided by zero (`ZeroDivisionError`)",
    [f64, i64, Scalar],
    |x, t| Tensor::remainder(&wrapped(x), t)
);
reflected_operator!(
    BitAnd,
    bitand,
    "&",
    "Tensor.__rand__: torch.bitwise_and(t, x)",
    "`t.bitwise_and(x)`",
    "`t` is a float tensor (`\"bitwise_and_cpu\" not implemented for 'Float'`)",
    [bool, i64],
    |x, t| Tensor::bitwise_and(t, x)
);
reflected_operator!(
    BitOr,
    bitor,
    "|",
    "Tensor.__ror__: torch.bitwise_or(t, x)",
    "`t.bitwise_or(x)`",
    "`t` is a float tensor (`\"bitwise_or_cpu\" not implemented for 'Float'`)",
    [bool, i64],
    |x, t| Tensor::bitwise_or(t, x)
);
reflected_operator!(
    BitXor,
    bitxor,
    "^",
    "Tensor.__rxor__: torch.bitwise_xor(t, x)",
    "`t.bitwise_xor(x)`",
    "`t` is a float tensor (`\"bitwise_xor_cpu\" not implemented for 'Float'`)",
    [bool, i64],
    |x, t| Tensor::bitwise_xor(t, x)
);

macro_rules! assign_panic {
    () => {
        "PyTorch's in-place checks fail, in its order: memory overlap (`unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.`), broadcast (`The size of tensor a (3) must match …`), shape (`output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]`), dtype (`result type Float can't be cast to the desired output type Long`), or the op's own dtype errors"
    };
}

assign_operator!(
    AddAssign,
    add_assign,
    "+=",
    "Tensor.add_",
    add_,
    assign_panic!()
);
assign_operator!(
    SubAssign,
    sub_assign,
    "-=",
    "Tensor.sub_",
    sub_,
    assign_panic!()
);
assign_operator!(
    MulAssign,
    mul_assign,
    "*=",
    "Tensor.mul_",
    mul_,
    assign_panic!()
);
assign_operator!(
    DivAssign,
    div_assign,
    "/=",
    "Tensor.div_",
    div_,
    assign_panic!()
);
assign_operator!(
    RemAssign,
    rem_assign,
    "%=",
    "Tensor.remainder_",
    remainder_,
    assign_panic!()
);
assign_operator!(
    BitAndAssign,
    bitand_assign,
    "&=",
    "Tensor.bitwise_and_",
    bitwise_and_,
    assign_panic!()
);
assign_operator!(
    BitOrAssign,
    bitor_assign,
    "|=",
    "Tensor.bitwise_or_",
    bitwise_or_,
    assign_panic!()
);
assign_operator!(
    BitXorAssign,
    bitxor_assign,
    "^=",
    "Tensor.bitwise_xor_",
    bitwise_xor_,
    assign_panic!()
);

/// `-&t`: PyTorch's `-t` (`torch.neg`), i.e. [`Tensor::neg`].
impl Neg for &Tensor {
    type Output = Tensor;
    /// `-t`: `torch.neg(t)`. Shape and dtype: `t`'s (ints wrap).
    ///
    /// # Panics
    ///
    /// With PyTorch's message when `t` is bool: ``Negation, the `-` operator, on a bool tensor is
    /// not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator
    /// instead.``; use [`Tensor::neg`] for a `Result`.
    #[track_caller]
    fn neg(self) -> Tensor {
        or_panic(Tensor::neg(self))
    }
}

/// `-t`: as `-&t`.
impl Neg for Tensor {
    type Output = Tensor;
    /// `-t`: `torch.neg(t)`. Shape and dtype: `t`'s.
    ///
    /// # Panics
    ///
    /// With PyTorch's message when `t` is bool (``Negation, the `-` operator, on a bool tensor is
    /// not supported. …``); use [`Tensor::neg`] for a `Result`.
    #[track_caller]
    fn neg(self) -> Tensor {
        or_panic(Tensor::neg(&self))
    }
}

/// `!&t`: PyTorch's `~t` (`torch.bitwise_not`), i.e. [`Tensor::bitwise_not`]: bitwise for
/// integers, logical for bool.
impl Not for &Tensor {
    type Output = Tensor;
    /// `~t`: `torch.bitwise_not(t)`. Shape and dtype: `t`'s.
    ///
    /// # Panics
    ///
    /// With PyTorch's message when `t` is a float tensor (`"bitwise_not_cpu" not implemented for
    /// 'Float'`); use [`Tensor::bitwise_not`] for a `Result`.
    #[track_caller]
    fn not(self) -> Tensor {
        or_panic(self.bitwise_not())
    }
}

/// `!t`: as `!&t`.
impl Not for Tensor {
    type Output = Tensor;
    /// `~t`: `torch.bitwise_not(t)`. Shape and dtype: `t`'s.
    ///
    /// # Panics
    ///
    /// With PyTorch's message when `t` is a float tensor (`"bitwise_not_cpu" not implemented for
    /// 'Float'`); use [`Tensor::bitwise_not`] for a `Result`.
    #[track_caller]
    fn not(self) -> Tensor {
        or_panic(self.bitwise_not())
    }
}

#[cfg(test)]
mod tests {
    use crate::DType;
    use crate::tensor::Tensor;

    fn f32s(v: &[f32], shape: &[usize]) -> Tensor {
        Tensor::from_slice(v, shape).unwrap()
    }

    #[test]
    fn operators_match_methods() {
        let a = f32s(&[1.0, 2.0, 3.0, 4.0], &[4, 1]);
        let b = f32s(&[1.0, -2.0, 3.0, 0.5], &[4]);
        for (op, m) in [
            (&a + &b, Tensor::add(&a, &b).unwrap()),
            (&a - &b, Tensor::sub(&a, &b).unwrap()),
            (&a * &b, Tensor::mul(&a, &b).unwrap()),
            (&a / &b, Tensor::div(&a, &b).unwrap()),
            (&a % &b, Tensor::remainder(&a, &b).unwrap()),
        ] {
            assert_eq!(op.size(), &[4, 4]);
            assert_eq!(op.to_vec::<f64>(), m.to_vec::<f64>());
        }
    }

    #[test]
    fn reflected_sub_div_rem() {
        let t = Tensor::from_slice(&[1i32, 2, 4], [3]).unwrap();
        let r = 10 - &t;
        assert_eq!(
            (r.dtype(), r.to_vec::<i64>()),
            (DType::Int32, vec![9, 8, 6])
        );
        let r = 1.0 / &t;
        assert_eq!(
            (r.dtype(), r.to_vec::<f64>()),
            (DType::Float32, vec![1.0, 0.5, 0.25])
        );
        let r = 7 % &t;
        assert_eq!(r.to_vec::<i64>(), vec![0, 1, 3]);
        let r = -7 % &t;
        assert_eq!(r.to_vec::<i64>(), vec![0, 1, 1]);
    }

    #[test]
    fn assign_is_in_place() {
        let mut x = Tensor::zeros_with([2, 3], DType::Float32).unwrap();
        let before = (x.data_ptr(), x.stride().to_vec());
        x += &f32s(&[1.0, 2.0, 3.0], &[3]);
        x *= 2;
        x -= 0.5;
        x /= 2.0f32;
        assert_eq!((x.data_ptr(), x.stride().to_vec()), before);
        assert_eq!(x.to_vec::<f32>(), vec![0.75, 1.75, 2.75, 0.75, 1.75, 2.75]);
    }

    #[test]
    #[should_panic(
        expected = "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]"
    )]
    fn assign_panics_with_pytorch_message() {
        let mut x = Tensor::ones_with([1, 3, 1], DType::Float32).unwrap();
        x += &Tensor::ones_with([3, 1, 7], DType::Float32).unwrap();
    }
}
