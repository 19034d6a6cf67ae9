//! Pointwise one-tensor ops: the unary math functions (`x.NAME()`, in place `x.NAME_()`), the
//! predicates (`isnan`, `signbit`, …) and the `torch.nn.functional` activations (their
//! `inplace=True` forms read by the adapters).

use super::{Args, BIG, Doc, Group, OpInfo, P, POS, PROB, Sample, Sig, Table, Through, UNIT, X};
use tensile::nn::functional as F;
use tensile::{NanToNumOpts, Result, Tensor};

/// The basic unary ops of the Pointwise table.
static BASIC: Group = Group {
    table: Table::Pointwise,
    head: "unary: `",
    item: "{}",
    sep: " ",
    tail: "`",
    tensile: "`x.NAME()`, in place `x.NAME_()`",
};
/// The unary math functions.
static MATH: Group = Group {
    table: Table::MathUnary,
    head: "`",
    item: "{}",
    sep: " ",
    tail: "`",
    tensile: "`x.NAME()`, in place `x.NAME_()`",
};
/// The predicates.
static PRED: Group = Group {
    table: Table::MathUnary,
    head: "`",
    item: "{}",
    sep: " ",
    tail: "`",
    tensile: "`x.NAME()` (bool results)",
};
/// The activations with no parameter and an in-place form.
static ACT: Group = Group {
    table: Table::MathUnary,
    head: "",
    item: "`F.{}`",
    sep: ", ",
    tail: ", `inplace=True`",
    tensile: "`F::NAME(&x)`, `F::NAME_(&x)`",
};

const ONE_X: &[Sample] = &[Sample::new(&[X])];
const ONE_POS: &[Sample] = &[Sample::new(&[POS])];
const ONE_UNIT: &[Sample] = &[Sample::new(&[UNIT])];
const IN_BASIC: &[Doc] = &[Doc::In(&BASIC)];
const IN_MATH: &[Doc] = &[Doc::In(&MATH)];
const IN_PRED: &[Doc] = &[Doc::In(&PRED)];
const IN_ACT: &[Doc] = &[Doc::In(&ACT)];

/// A basic unary op: `x.NAME()` / `x.NAME_()`, in the Pointwise table's unary row.
const fn basic(name: &'static str, call: super::Call, grad: &'static [Sample]) -> OpInfo {
    OpInfo::unary(name, call).grad(grad).docs(IN_BASIC)
}
/// A unary math function: `x.NAME()` / `x.NAME_()`, in the math table's row.
const fn math(name: &'static str, call: super::Call, grad: &'static [Sample]) -> OpInfo {
    OpInfo::unary(name, call).grad(grad).docs(IN_MATH)
}
/// A predicate: `x.NAME()`, a bool result, no gradient.
const fn pred(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::unary(name, call)
        .no_inplace()
        .nograd("comparison")
        .docs(IN_PRED)
}

/// `eps=` of logit.
fn eps(a: &Args) -> Option<f64> {
    a.kw_f64("eps")
}

/// The replacements of nan_to_num (`nan=` 0 by default).
fn nan_to_num(a: &Args) -> NanToNumOpts {
    NanToNumOpts {
        nan: Some(a.kw_f64("nan").unwrap_or(0.0)),
        posinf: a.kw_f64("posinf"),
        neginf: a.kw_f64("neginf"),
    }
}

fn softplus(a: &Args) -> Result<Tensor> {
    let d = F::SoftplusOpts::default();
    let opts = F::SoftplusOpts {
        beta: a.kw_f64("beta").unwrap_or(d.beta),
        threshold: a.kw_f64("threshold").unwrap_or(d.threshold),
    };
    F::softplus_with(a.t(0), opts)
}

/// The slope of leaky_relu: positional or `negative_slope=` (0.01 by default).
fn slope(a: &Args) -> f64 {
    a.opt_scalar(1)
        .map(|s| s.to_f64())
        .or(a.kw_f64("negative_slope"))
        .unwrap_or(0.01)
}

/// `alpha=` of elu and celu (1 by default).
fn alpha(a: &Args) -> f64 {
    a.kw_f64("alpha").unwrap_or(1.0)
}

/// `min_val=`, `max_val=` of hardtanh (-1 and 1 by default).
fn hardtanh(a: &Args) -> F::HardtanhOpts {
    F::HardtanhOpts {
        min_val: a.kw_f64("min_val").unwrap_or(-1.0),
        max_val: a.kw_f64("max_val").unwrap_or(1.0),
    }
}

fn gelu(a: &Args) -> Result<Tensor> {
    if a.inplace {
        a.t(0).gelu_()
    } else {
        F::gelu_with(a.t(0), a.kw_str("approximate").unwrap_or("none"))
    }
}

pub static OPS: &[OpInfo] = &[
    basic("neg", method!(a => neg, neg_), ONE_X).bench("neg").docs(&[
        Doc::Row(
            Table::Pointwise,
            "`-x`, `~x`",
            "`-&x` (`x.neg()`), `!&x` (`x.bitwise_not()`)",
        ),
        Doc::In(&BASIC),
    ]),
    basic("abs", method!(a => abs, abs_), ONE_X).bench("abs"),
    basic(
        "exp",
        method!(a => exp, exp_),
        &[
            Sample::new(&[X]),
            Sample::new(&[X]).in_place(Through::Base).named("exp_"),
        ],
    )
    .bench("exp"),
    basic("log", method!(a => log, log_), ONE_POS).bench("log"),
    basic("sqrt", method!(a => sqrt, sqrt_), ONE_POS).bench("sqrt"),
    basic("rsqrt", method!(a => rsqrt, rsqrt_), ONE_POS).bench("rsqrt"),
    basic("sin", method!(a => sin, sin_), ONE_X).bench("sin"),
    basic("cos", method!(a => cos, cos_), ONE_X).bench("cos"),
    basic("tanh", method!(a => tanh, tanh_), ONE_X).bench("tanh"),
    basic("sigmoid", method!(a => sigmoid, sigmoid_), ONE_X)
        .bench("sigmoid")
        .docs(&[
            Doc::In(&BASIC),
            Doc::Row(
                Table::Pointwise,
                "`F.sigmoid`, `F.tanh`",
                "`F::sigmoid(&x)`, `F::tanh(&x)`",
            ),
        ]),
    basic("erf", method!(a => erf, erf_), ONE_X).bench("erf"),
    basic("floor", method!(a => floor, floor_), ONE_X).bench("floor"),
    basic("ceil", method!(a => ceil, ceil_), ONE_X),
    basic("round", method!(a => round, round_), ONE_X).bench("round"),
    basic("trunc", method!(a => trunc, trunc_), ONE_X),
    basic("sign", method!(a => sign, sign_), ONE_X).bench("sign"),
    basic("reciprocal", method!(a => reciprocal, reciprocal_), ONE_X).bench("reciprocal"),
    basic("square", method!(a => square, square_), ONE_X).bench("square"),
    basic("logical_not", method!(a => logical_not, logical_not_), &[])
        .nograd("comparison")
        .bench("logical_not"),
    basic("bitwise_not", method!(a => bitwise_not, bitwise_not_), &[])
        .nograd("integer")
        .bench("bitwise_not"),
    OpInfo::unary("isnan", |a| a.t(0).isnan())
        .no_inplace()
        .nograd("comparison")
        .bench("isnan")
        .docs(&[Doc::Row(Table::Pointwise, "`torch.isnan(x)`", "`x.isnan()`")]),
    OpInfo::unary("positive", |a| a.t(0).positive())
        .no_inplace()
        .grad(ONE_X)
        .docs(&[Doc::Row(
            Table::Pointwise,
            "`torch.positive(x)`, `+x`",
            "`x.positive()` (`x` itself)",
        )]),
    OpInfo::unary("relu", function!(a => F::relu, F::relu_))
        .grad(ONE_X)
        .bench("F.relu")
        .docs(&[Doc::Row(
            Table::Pointwise,
            "`F.relu`, `F.relu_` / `F.relu(inplace=True)`",
            "`x.relu()` / `F::relu(&x)`, `x.relu_()` / `F::relu_(&x)`",
        )]),
    OpInfo::unary("silu", method!(a => silu, silu_))
        .grad(ONE_X)
        .bench("F.silu"),
    OpInfo::new("zero_", Sig::Unary, |a| a.t(0).zero_())
        .fuzz()
        .grad(&[Sample::new(&[X])
            .in_place(Through::View(|y| y.narrow(1, 1, 1)))
            .named("zero_")]),
    // ------------------------------------------------------------ unary math
    math("tan", method!(a => tan, tan_), ONE_UNIT),
    math("atan", method!(a => atan, atan_), ONE_X).bench("atan"),
    math("asin", method!(a => asin, asin_), ONE_UNIT),
    math("acos", method!(a => acos, acos_), ONE_UNIT),
    math("sinh", method!(a => sinh, sinh_), ONE_X).bench("sinh"),
    math("cosh", method!(a => cosh, cosh_), ONE_X),
    math("asinh", method!(a => asinh, asinh_), ONE_X).bench("asinh"),
    math("acosh", method!(a => acosh, acosh_), &[Sample::new(&[BIG])]),
    math("atanh", method!(a => atanh, atanh_), ONE_UNIT),
    math("exp2", method!(a => exp2, exp2_), ONE_X),
    math("expm1", method!(a => expm1, expm1_), ONE_X).bench("expm1"),
    math("log1p", method!(a => log1p, log1p_), ONE_POS).bench("log1p"),
    math("log2", method!(a => log2, log2_), ONE_POS).bench("log2"),
    math("log10", method!(a => log10, log10_), ONE_POS),
    math("erfc", method!(a => erfc, erfc_), ONE_X),
    math("erfinv", method!(a => erfinv, erfinv_), ONE_UNIT).bench("erfinv"),
    math("lgamma", method!(a => lgamma, lgamma_), ONE_POS).bench("lgamma"),
    math("digamma", method!(a => digamma, digamma_), ONE_POS).bench("digamma"),
    math("sinc", method!(a => sinc, sinc_), ONE_X).bench("sinc"),
    math("deg2rad", method!(a => deg2rad, deg2rad_), ONE_X),
    math("rad2deg", method!(a => rad2deg, rad2deg_), ONE_X),
    math("frac", method!(a => frac, frac_), ONE_X).bench("frac"),
    OpInfo::unary("logit", method!(a => logit_with, logit_with_, eps(a)))
        .grad(&[
            Sample::new(&[PROB]),
            Sample::new(&[PROB])
                .named("logit_with")
                .kw(&[("eps", P::Num(0.2))]),
        ])
        .bench("logit")
        .docs(&[Doc::Row(
            Table::MathUnary,
            "`x.logit()`, `x.logit(eps)`, `x.logit_(eps)`",
            "`x.logit()`, `x.logit_with(eps)`, `x.logit_()`, `x.logit_with_(eps)`",
        )]),
    OpInfo::unary(
        "nan_to_num",
        method!(a => nan_to_num_with, nan_to_num_with_, nan_to_num(a)),
    )
        .grad(ONE_X)
        .bench("nan_to_num")
        .docs(&[Doc::Row(
            Table::MathUnary,
            "`torch.nan_to_num(x, nan, posinf, neginf)`, `x.nan_to_num_(…)`",
            "`x.nan_to_num()`, `x.nan_to_num_with((nan, posinf, neginf))` or `NanToNumOpts { .. }`, `x.nan_to_num_()`, `x.nan_to_num_with_(opts)`",
        )]),
    pred("signbit", |a| a.t(0).signbit()),
    pred("isinf", |a| a.t(0).isinf()),
    pred("isposinf", |a| a.t(0).isposinf()),
    pred("isneginf", |a| a.t(0).isneginf()),
    pred("isfinite", |a| a.t(0).isfinite()),
    pred("isreal", |a| a.t(0).isreal()),
    // ------------------------------------------------------------ activations
    OpInfo::new("softplus", Sig::Unary, softplus)
        .grad(ONE_X)
        .docs(&[Doc::Row(
            Table::MathUnary,
            "`F.softplus(x)`, `F.softplus(x, beta, threshold)`",
            "`F::softplus(&x)`, `F::softplus_with(&x, (beta, threshold))`",
        )]),
    OpInfo::new(
        "leaky_relu",
        Sig::Unary,
        function!(a => F::leaky_relu_with, F::leaky_relu_with_, slope(a)),
    )
        .grad(ONE_X)
        .bench("F.leaky_relu")
        .docs(&[Doc::Row(
            Table::MathUnary,
            "`F.leaky_relu(x, slope)`, `inplace=True`",
            "`F::leaky_relu(&x)`, `F::leaky_relu_with(&x, slope)`, `F::leaky_relu_(&x)`, `F::leaky_relu_with_(&x, slope)`",
        )]),
    OpInfo::new(
        "elu",
        Sig::Unary,
        function!(a => F::elu_with, F::elu_with_, alpha(a)),
    )
        .grad(ONE_X)
        .bench("F.elu")
        .docs(&[Doc::Row(
            Table::MathUnary,
            "`F.elu(x, alpha)`, `F.celu(x, alpha)`, `inplace=True`",
            "`F::elu(&x)`, `F::elu_with(&x, alpha)`, `F::elu_(&x)`, `F::elu_with_(&x, alpha)`; `celu` likewise",
        )]),
    OpInfo::new(
        "celu",
        Sig::Unary,
        function!(a => F::celu_with, F::celu_with_, alpha(a)),
    ).grad(ONE_X),
    OpInfo::new("selu", Sig::Unary, function!(a => F::selu, F::selu_))
        .grad(ONE_X)
        .bench("F.selu")
        .docs(IN_ACT),
    OpInfo::new("hardswish", Sig::Unary, function!(a => F::hardswish, F::hardswish_))
        .grad(ONE_X)
        .bench("F.hardswish")
        .docs(IN_ACT),
    OpInfo::new("hardsigmoid", Sig::Unary, function!(a => F::hardsigmoid, F::hardsigmoid_))
        .grad(ONE_X)
        .bench("F.hardsigmoid")
        .docs(IN_ACT),
    OpInfo::new("relu6", Sig::Unary, function!(a => F::relu6, F::relu6_))
        .grad(ONE_X)
        .bench("F.relu6")
        .docs(IN_ACT),
    OpInfo::new("mish", Sig::Unary, function!(a => F::mish, F::mish_))
        .grad(ONE_X)
        .bench("F.mish")
        .docs(IN_ACT),
    OpInfo::new(
        "hardtanh",
        Sig::Unary,
        function!(a => F::hardtanh_with, F::hardtanh_with_, hardtanh(a)),
    )
        .grad(ONE_X)
        .bench("F.hardtanh")
        .docs(&[Doc::Row(
            Table::MathUnary,
            "`F.hardtanh(x, min_val, max_val)`, `inplace=True`",
            "`F::hardtanh(&x)`, `F::hardtanh_with(&x, (min_val, max_val))`, `F::hardtanh_(&x)`, `F::hardtanh_with_(&x, opts)`",
        )]),
    OpInfo::new(
        "threshold",
        Sig::Other,
        function!(a => F::threshold, F::threshold_, a.scalar(1), a.scalar(2)),
    )
        .grad(&[Sample::new(&[X, P::Num(0.3), P::Num(-1.0)])])
        .docs(&[Doc::Row(
            Table::MathUnary,
            "`F.threshold(x, th, v)`, `inplace=True`",
            "`F::threshold(&x, th, v)`, `F::threshold_(&x, th, v)`",
        )]),
    OpInfo::new("logsigmoid", Sig::Unary, |a| F::logsigmoid(a.t(0)))
        .grad(ONE_X)
        .bench("F.logsigmoid")
        .docs(&[Doc::Row(
            Table::MathUnary,
            "`F.logsigmoid`, `F.softsign`, `F.tanhshrink`",
            "`F::logsigmoid(&x)`, `F::softsign(&x)`, `F::tanhshrink(&x)`",
        )]),
    OpInfo::new("softsign", Sig::Unary, |a| F::softsign(a.t(0)))
        .grad(ONE_X)
        .bench("F.softsign"),
    OpInfo::new("tanhshrink", Sig::Unary, |a| F::tanhshrink(a.t(0))).grad(ONE_X),
    OpInfo::unary("gelu", gelu)
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X])
                .named("gelu (tanh)")
                .kw(&[("approximate", P::Str("tanh"))]),
        ])
        .bench("F.gelu")
        .docs(&[
            Doc::Row(
                Table::Pointwise,
                "`F.gelu` (exact), `F.silu`, `F.silu(inplace=True)`",
                "`x.gelu()` / `F::gelu(&x)`, `x.silu()` / `F::silu(&x)`, `x.silu_()` / `F::silu_(&x)`",
            ),
            Doc::Row(
                Table::MathUnary,
                "`F.gelu(x, approximate=\"tanh\")`",
                "`F::gelu_with(&x, \"tanh\")`",
            ),
        ]),
    OpInfo::new("glu", Sig::Unary, |a| {
        F::glu_with(a.t(0), a.kw_int("dim").unwrap_or(-1))
    })
    .grad(&[Sample::new(&[P::T(super::Dom::Any, &[2, 4])])])
    .docs(&[Doc::Row(
        Table::MathUnary,
        "`F.glu(x)`, `F.glu(x, dim)`",
        "`F::glu(&x)`, `F::glu_with(&x, dim)`",
    )]),
    OpInfo::new("prelu", Sig::Other, |a| F::prelu(a.t(0), a.t(1)))
        .grad(&[Sample::new(&[
            P::T(super::Dom::Any, &[2, 3, 2]),
            P::T(super::Dom::Any, &[3]),
        ])
        .no_bcast()])
        .docs(&[Doc::Row(
            Table::MathUnary,
            "`F.prelu(x, w)`, `x.prelu(w)`",
            "`F::prelu(&x, &w)`, `x.prelu(&w)`",
        )]),
];
