//! Pointwise two-operand ops: `x.NAME(y)` with `y` a tensor or a number (some with a number
//! `x` as well, through the free function), in place `x.NAME_(y)`.

use super::{Arg, Args, Doc, Dom, Group, OpInfo, P, POS, Sample, Table, Through, X};
use tensile::{Result, Tensor};

/// `x.$f(y)` / `x.$f_(y)`, and `$free(n, y)` when `x` is a number (`torch.xlogy(2, t)`).
macro_rules! bin_or_free {
    ($f:ident, $f_:ident, $free:path) => {
        |a: &Args| match &a.pos[0] {
            Arg::Tensor(x) if a.inplace => x.$f_(a.operand(1)),
            Arg::Tensor(x) => x.$f(a.operand(1)),
            _ => $free(a.operand(0), a.operand(1)),
        }
    };
}

/// The binary math functions with nothing but `x.NAME(y)` and `x.NAME_(y)`.
static MATH: Group = Group {
    table: Table::MathBinary,
    head: "`",
    item: "{}",
    sep: " ",
    tail: "`",
    tensile: "`x.NAME(y)`, `x.NAME_(y)`",
};

const TWO_X: &[Sample] = &[Sample::new(&[X, X])];
const X_POS: &[Sample] = &[Sample::new(&[X, POS])];
const IN_MATH: &[Doc] = &[Doc::In(&MATH)];

/// `torch.rsub(x, y, alpha=…)`: `y - alpha·x`.
fn rsub(a: &Args) -> Result<Tensor> {
    match a.kw_scalar("alpha") {
        None => tensile::rsub(a.t(0), a.operand(1)),
        Some(al) => tensile::rsub_with(a.t(0), a.operand(1), al),
    }
}

pub static OPS: &[OpInfo] = &[
    OpInfo::binary(
        "add",
        with_kw!(a => kw_scalar("alpha"), add, add_, add_with, add_with_, a.operand(1)),
    )
        .grad(&[
            Sample::new(&[X, X]),
            Sample::new(&[X, X])
                .named("add_with")
                .kw(&[("alpha", P::Num(2.5))]),
        ])
        .bench("add")
        .docs(&[
            Doc::Row(
                Table::Pointwise,
                "`x + y`, `torch.add(x, y)`, `x.add_(y)`, `x += y`",
                "`&x + &y`, `x.add(&y)`, `x.add_(&y)`, `x += &y`",
            ),
            Doc::Row(
                Table::MathBinary,
                "`torch.add(x, y, alpha=a)`, `x.add_(y, alpha=a)`; `sub` likewise",
                "`x.add_with(y, a)`, `x.add_with_(y, a)`, `x.sub_with(y, a)`, `x.sub_with_(y, a)` (`AddOpts`)",
            ),
        ]),
    OpInfo::binary(
        "sub",
        with_kw!(a => kw_scalar("alpha"), sub, sub_, sub_with, sub_with_, a.operand(1)),
    )
        .grad(&[
            Sample::new(&[X, X]),
            Sample::new(&[X, X])
                .named("sub_with")
                .kw(&[("alpha", P::Num(2.5))]),
        ])
        .bench("sub")
        .docs(&[Doc::Row(
            Table::Pointwise,
            "`sub`, `mul`, `div` (true), `remainder` (`%`), `floor_divide`",
            "`x.sub(y)`, `x.mul(y)`, `x.div(y)`, `x.remainder(y)`, `x.floor_divide(y)` (and `-`, `*`, `/`, `%`)",
        )]),
    OpInfo::binary("mul", method!(a => mul, mul_, a.operand(1)))
        .grad(&[
            Sample::new(&[X, X]),
            Sample::new(&[X, P::Num(-1.5)]).named("mul (tensor, number)"),
            Sample::new(&[X, P::T(Dom::Any, &[3])])
                .in_place(Through::Base)
                .named("mul_"),
        ])
        .bench("mul"),
    OpInfo::binary(
        "div",
        with_kw!(a => kw_str("rounding_mode"), div, div_, div_with, div_with_, a.operand(1)),
    )
        .grad(&[
            Sample::new(&[X, POS]),
            Sample::new(&[X, POS])
                .named("div_with")
                .kw(&[("rounding_mode", P::Str("trunc"))]),
        ])
        .bench("div")
        .docs(&[Doc::Row(
            Table::MathBinary,
            "`torch.div(x, y, rounding_mode=m)`, `x.div_(y, rounding_mode=m)`",
            "`x.div_with(y, \"trunc\")`, `x.div_with(y, \"floor\")`, `x.div_with(y, None)`, `x.div_with_(y, m)` (`DivOpts`)",
        )]),
    OpInfo::binary("remainder", method!(a => remainder, remainder_, a.operand(1)))
        .grad(X_POS)
        .bench("remainder"),
    OpInfo::binary("floor_divide", method!(a => floor_divide, floor_divide_, a.operand(1)))
        .nograd("pytorch")
        .bench("floor_divide"),
    OpInfo::binary("pow", bin_or_free!(pow, pow_, tensile::pow))
        .grad(&[
            Sample::new(&[POS, X]),
            Sample::new(&[POS, P::Num(2.5)]).named("pow (tensor, number)"),
            Sample::new(&[P::Num(1.7), X]).named("pow (number, tensor)"),
        ])
        .bench("pow")
        .docs(&[
            Doc::Row(Table::Pointwise, "`x ** y`, `torch.pow(x, y)`", "`x.pow(y)`"),
            Doc::Row(
                Table::Pointwise,
                "`n ** x`, `torch.pow(n, x)`",
                "`tensile::pow(n, &x)`",
            ),
        ]),
    OpInfo::binary("maximum", method!(a => maximum, maximum_, a.operand(1)))
        .grad(TWO_X)
        .bench("maximum")
        .docs(&[Doc::Row(
            Table::Pointwise,
            "`torch.maximum`, `minimum`, `atan2`",
            "`x.maximum(y)`, `x.minimum(y)`, `x.atan2(y)`",
        )]),
    OpInfo::binary("minimum", method!(a => minimum, minimum_, a.operand(1))).grad(TWO_X),
    OpInfo::binary("atan2", method!(a => atan2, atan2_, a.operand(1)))
        .grad(TWO_X)
        .bench("atan2"),
    OpInfo::binary("eq", method!(a => eq, eq_, a.operand(1)))
        .nograd("comparison")
        .bench("eq")
        .docs(&[Doc::Row(
            Table::Pointwise,
            "`eq ne lt le gt ge` (`==` etc.)",
            "`x.eq(y)`, `x.ne(y)`, `x.lt(y)`, `x.le(y)`, `x.gt(y)`, `x.ge(y)`",
        )]),
    OpInfo::binary("ne", method!(a => ne, ne_, a.operand(1))).nograd("comparison"),
    OpInfo::binary("lt", method!(a => lt, lt_, a.operand(1))).nograd("comparison"),
    OpInfo::binary("le", method!(a => le, le_, a.operand(1))).nograd("comparison"),
    OpInfo::binary("gt", method!(a => gt, gt_, a.operand(1)))
        .nograd("comparison")
        .bench("gt"),
    OpInfo::binary("ge", method!(a => ge, ge_, a.operand(1))).nograd("comparison"),
    OpInfo::binary("logical_and", method!(a => logical_and, logical_and_, a.operand(1)))
        .nograd("comparison")
        .bench("logical_and")
        .docs(&[Doc::Row(
            Table::Pointwise,
            "`logical_and`, `logical_or`, `logical_xor`",
            "`x.logical_and(y)`, `x.logical_or(y)`, `x.logical_xor(y)`",
        )]),
    OpInfo::binary("logical_or", method!(a => logical_or, logical_or_, a.operand(1))).nograd("comparison"),
    OpInfo::binary("logical_xor", method!(a => logical_xor, logical_xor_, a.operand(1))).nograd("comparison"),
    OpInfo::binary("bitwise_and", method!(a => bitwise_and, bitwise_and_, a.operand(1)))
        .nograd("integer")
        .bench("bitwise_and")
        .docs(&[Doc::Row(
            Table::Pointwise,
            "`bitwise_and` (`&`), `bitwise_or` (`\\|`), `bitwise_xor` (`^`)",
            "`x.bitwise_and(y)`, `x.bitwise_or(y)`, `x.bitwise_xor(y)` (and `&`, `\\|`, `^`)",
        )]),
    OpInfo::binary("bitwise_or", method!(a => bitwise_or, bitwise_or_, a.operand(1))).nograd("integer"),
    OpInfo::binary("bitwise_xor", method!(a => bitwise_xor, bitwise_xor_, a.operand(1))).nograd("integer"),
    // ------------------------------------------------------------ binary math
    OpInfo::binary("true_divide", method!(a => true_divide, true_divide_, a.operand(1)))
        .grad(X_POS)
        .docs(&[Doc::Row(
            Table::MathBinary,
            "`torch.true_divide(x, y)`, `x.true_divide_(y)`",
            "`x.true_divide(y)`, `x.true_divide_(y)`",
        )]),
    OpInfo::binary("fmod", method!(a => fmod, fmod_, a.operand(1)))
        .grad(X_POS)
        .bench("fmod")
        .docs(IN_MATH),
    OpInfo::binary("copysign", method!(a => copysign, copysign_, a.operand(1)))
        .grad(TWO_X)
        .bench("copysign")
        .docs(IN_MATH),
    OpInfo::binary("hypot", method!(a => hypot, hypot_, a.operand(1)))
        .grad(TWO_X)
        .docs(IN_MATH),
    OpInfo::binary("nextafter", method!(a => nextafter, nextafter_, a.operand(1)))
        .grad(TWO_X)
        .bench("nextafter")
        .docs(IN_MATH),
    OpInfo::binary("fmax", |a| a.t(0).fmax(a.t(1)))
        .no_inplace()
        .no_fuzz()
        .grad(TWO_X)
        .docs(&[Doc::Row(
            Table::MathBinary,
            "`torch.fmax(x, y)`, `torch.fmin(x, y)`",
            "`x.fmax(&y)`, `x.fmin(&y)`",
        )]),
    OpInfo::binary("fmin", |a| a.t(0).fmin(a.t(1)))
        .no_inplace()
        .no_fuzz()
        .grad(TWO_X),
    OpInfo::binary("gcd", method!(a => gcd, gcd_, a.operand(1)))
        .nograd("integer")
        .bench("gcd")
        .docs(IN_MATH),
    OpInfo::binary("lcm", method!(a => lcm, lcm_, a.operand(1)))
        .nograd("integer")
        .docs(IN_MATH),
    OpInfo::binary("heaviside", method!(a => heaviside, heaviside_, a.operand(1)))
        .nograd("pytorch")
        .bench("heaviside")
        .docs(IN_MATH),
    OpInfo::binary("xlogy", bin_or_free!(xlogy, xlogy_, tensile::xlogy))
        .grad(X_POS)
        .bench("xlogy")
        .docs(&[Doc::Row(
            Table::MathBinary,
            "`torch.xlogy(x, y)`, `torch.xlogy(n, y)`, `x.xlogy_(y)`",
            "`x.xlogy(y)`, `tensile::xlogy(n, &y)`, `x.xlogy_(y)`",
        )]),
    OpInfo::binary("special.xlog1py", |a| {
        tensile::special::xlog1py(a.operand(0), a.operand(1))
    })
    .no_inplace()
    .no_fuzz()
    .docs(&[Doc::Row(
        Table::MathBinary,
        "`torch.special.xlog1py(x, y)`",
        "`tensile::special::xlog1py(&x, y)` (either side a number)",
    )]),
    OpInfo::binary(
        "float_power",
        bin_or_free!(float_power, float_power_, tensile::float_power),
    )
    .grad(&[Sample::new(&[POS, X])])
    .bench("float_power")
    .docs(&[Doc::Row(
        Table::MathBinary,
        "`torch.float_power(x, y)`, `torch.float_power(n, y)`, `x.float_power_(y)`",
        "`x.float_power(y)`, `tensile::float_power(n, &y)`, `x.float_power_(y)`",
    )]),
    OpInfo::binary("logaddexp", |a| a.t(0).logaddexp(a.operand(1)))
        .no_inplace()
        .grad(TWO_X)
        .bench("logaddexp")
        .docs(&[Doc::Row(
            Table::MathBinary,
            "`torch.logaddexp(x, y)`, `torch.logaddexp2(x, y)`",
            "`x.logaddexp(y)`, `x.logaddexp2(y)`",
        )]),
    OpInfo::binary("logaddexp2", |a| a.t(0).logaddexp2(a.operand(1)))
        .no_inplace()
        .grad(TWO_X),
    OpInfo::binary(
        "bitwise_left_shift",
        bin_or_free!(
            bitwise_left_shift,
            bitwise_left_shift_,
            tensile::bitwise_left_shift
        ),
    )
    .nograd("integer")
    .bench("bitwise_left_shift")
    .docs(&[Doc::Row(
        Table::MathBinary,
        "`torch.bitwise_left_shift(x, y)` (`x << y`), `bitwise_right_shift`, `_` forms",
        "`x.bitwise_left_shift(y)`, `tensile::bitwise_left_shift(n, &y)`, `x.bitwise_left_shift_(y)`; right likewise",
    )]),
    OpInfo::binary(
        "bitwise_right_shift",
        bin_or_free!(
            bitwise_right_shift,
            bitwise_right_shift_,
            tensile::bitwise_right_shift
        ),
    )
    .nograd("integer"),
    OpInfo::binary("rsub", rsub)
        .no_inplace()
        .no_fuzz()
        .grad(&[
            Sample::new(&[X, X]),
            Sample::new(&[X, X])
                .named("rsub_with")
                .kw(&[("alpha", P::Num(2.5))]),
            Sample::new(&[X, P::Num(1.5)])
                .named("rsub_with (tensor, number)")
                .kw(&[("alpha", P::Int(-2))]),
        ])
        .docs(&[Doc::Row(
            Table::MathBinary,
            "`torch.rsub(x, y)`, `torch.rsub(x, 2.0, alpha=a)`",
            "`tensile::rsub(&x, &y)` (`y - x`), `tensile::rsub_with(&x, 2.0, a)`",
        )]),
    OpInfo::binary("clamp_min", method!(a => clamp_min, clamp_min_, a.operand(1)))
        .grad(&[Sample::new(&[X, P::Num(0.3)])]),
    OpInfo::binary("clamp_max", method!(a => clamp_max, clamp_max_, a.operand(1)))
        .grad(&[Sample::new(&[X, P::Num(0.3)])]),
];
