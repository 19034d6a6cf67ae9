//! Pointwise ops of three operands, or of a tensor and two optional bounds: `where`, `clamp`,
//! `clip`, `lerp`, `addcmul`, `addcdiv`.

use super::{Args, Doc, OpInfo, P, POS, PROB, Sample, Sig, Table, X};
use tensile::{ClampOpts, Scalar};

/// The bounds of `clamp`/`clip`: positional (`x.clamp(lo, hi)`) or keywords (`min=`, `max=`;
/// either may be absent).
fn bounds(a: &Args) -> ClampOpts<'_> {
    ClampOpts {
        min: a.pos.get(1).map(|b| b.operand()).or(a.kw_operand("min")),
        max: a.pos.get(2).map(|b| b.operand()).or(a.kw_operand("max")),
    }
}

/// `value=` of addcmul/addcdiv (default 1).
fn value(a: &Args) -> Scalar {
    a.kw_scalar("value").unwrap_or(Scalar::Int(1))
}

/// `value=0.5`.
const HALF: &[(&str, P)] = &[("value", P::Num(0.5))];

pub static OPS: &[OpInfo] = &[
    OpInfo::new("where", Sig::Ternary, |a| {
        tensile::where_cond(a.t(0), a.operand(1), a.operand(2))
    })
    .grad(&[
        Sample::new(&[P::Mask(&[true, false, true], &[1, 3]), X, X])
            .named("where_cond")
            .bcast(&[&[2, 1], &[3]]),
    ])
    .bench("where")
    .docs(&[Doc::Row(
        Table::Pointwise,
        "`torch.where(c, x, y)`, `x.where(c, y)`",
        "`tensile::where_cond(&c, &x, &y)`, `x.where_self(&c, &y)`",
    )]),
    // the method form `x.where(cond, y)`
    OpInfo::new("Tensor.where", Sig::Other, |a| {
        a.t(0).where_self(a.t(1), a.operand(2))
    })
    .grad(&[
        Sample::new(&[X, P::Mask(&[true, false, true], &[3]), X])
            .named("where_self")
            .bcast(&[&[2, 1], &[3]]),
    ]),
    OpInfo::new(
        "clamp",
        Sig::Other,
        method!(a => clamp_with, clamp_with_, bounds(a)),
    )
        .in_place()
        .grad(&[
            Sample::new(&[X, P::Num(-0.5), P::Num(0.7)]),
            Sample::new(&[X, X, X])
                .named("clamp (tensor bounds)")
                .bcast(&[&[3, 1], &[4], &[1]]),
        ])
        .bench("clamp")
        .docs(&[
            Doc::Row(
                Table::Pointwise,
                "`x.clamp(lo, hi)`, `clamp(min=lo)`, `clamp(max=hi)`",
                "`x.clamp(lo, hi)`, `x.clamp_min(lo)`, `x.clamp_max(hi)` (numbers or tensors)",
            ),
            Doc::Row(
                Table::Pointwise,
                "`x.clamp(min=lo, max=hi)` with either optional",
                "`x.clamp_with(ClampOpts { min: Some(lo.into()), max: None })`",
            ),
            Doc::Row(
                Table::Pointwise,
                "`x.clamp_(lo, hi)`, `clamp_min_`, `clamp_max_`",
                "`x.clamp_(lo, hi)`, `x.clamp_min_(lo)`, `x.clamp_max_(hi)`, `x.clamp_with_(opts)`",
            ),
        ]),
    OpInfo::new(
        "clip",
        Sig::Other,
        method!(a => clip_with, clip_with_, bounds(a)),
    )
    .in_place()
    .grad(&[Sample::new(&[X, P::Num(-0.5), P::Num(0.7)])])
    .docs(&[Doc::Row(
        Table::MathBinary,
        "`torch.clip(x, min, max)`, `x.clip_(..)`",
        "`x.clip(lo, hi)`, `x.clip_with(ClampOpts { .. })`, `x.clip_(lo, hi)`, `x.clip_with_(opts)`",
    )]),
    OpInfo::new(
        "lerp",
        Sig::Ternary,
        method!(a => lerp, lerp_, a.t(1), a.operand(2)),
    )
    .in_place()
    .grad(&[
        Sample::new(&[X, X, PROB]),
        Sample::new(&[X, X, P::Num(0.3)]).named("lerp (number weight)"),
    ])
    .docs(&[Doc::Row(
        Table::MathBinary,
        "`torch.lerp(x, end, w)`, `x.lerp_(end, w)`",
        "`x.lerp(&end, w)`, `x.lerp_(&end, w)` (`w` a number or a tensor)",
    )]),
    OpInfo::new(
        "addcmul",
        Sig::Ternary,
        method!(a => addcmul_with, addcmul_with_, a.t(1), a.t(2), value(a)),
    )
    .in_place()
    .grad(&[Sample::new(&[X, X, X]).kw(HALF)])
    .bench("addcmul")
    .docs(&[Doc::Row(
        Table::MathBinary,
        "`torch.addcmul(x, t1, t2, value=v)`, `x.addcmul_(..)`; `addcdiv` likewise",
        "`x.addcmul(&t1, &t2)`, `x.addcmul_with(&t1, &t2, v)`, `x.addcmul_(..)`, `x.addcmul_with_(..)`; `addcdiv` likewise",
    )]),
    OpInfo::new(
        "addcdiv",
        Sig::Ternary,
        method!(a => addcdiv_with, addcdiv_with_, a.t(1), a.t(2), value(a)),
    )
    .in_place()
    .grad(&[Sample::new(&[X, X, POS]).kw(HALF)])
    .bench("addcdiv"),
];
