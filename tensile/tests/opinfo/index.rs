//! Gather, scatter, index ops and masks: `gather`, `scatter` (a tensor or a number, with the
//! legacy `reduce=`), `scatter_add`, `scatter_reduce`, `index_select`, `index_add`,
//! `index_copy`, `index_fill`, `index_reduce`, `take`, `take_along_dim`, `masked_select`,
//! `masked_scatter`, `masked_fill`, `nonzero`, `argwhere`, `count_nonzero` and the one-argument
//! `torch.where(cond)`.

use super::{Adapter, Arg, Args, Doc, OpInfo, P, Ret, Sample, Sig, Table, Through, X};
use tensile::{IndexAddOpts, Result, Scalar, Tensor};

/// The dim at position 1.
fn dim(a: &Args) -> i64 {
    match a.pos.get(1) {
        Some(Arg::Scalar(Scalar::Int(d))) => *d,
        _ => panic!("opinfo: argument 1 is an int dim"),
    }
}

/// The string at position `i` or in keyword `k`.
fn s<'a>(a: &'a Args, i: usize, k: &str) -> &'a str {
    match a.pos.get(i).or(a.kw_arg(k)) {
        Some(Arg::Str(s)) => s,
        _ => panic!("opinfo: {k} is a str"),
    }
}

/// `include_self=` (default true).
fn include_self(a: &Args) -> bool {
    a.kw_bool("include_self").unwrap_or(true)
}

/// `alpha=` of index_add (default 1).
fn alpha(a: &Args) -> IndexAddOpts {
    IndexAddOpts {
        alpha: a.kw_scalar("alpha").unwrap_or(Scalar::Int(1)),
    }
}

/// `count_nonzero(x)` / `count_nonzero(x, dim)`, `dim` an int or a list.
fn count_nonzero(a: &Args) -> Result<Tensor> {
    match a.pos.get(1) {
        None => a.t(0).count_nonzero(),
        Some(Arg::Scalar(Scalar::Int(d))) => a.t(0).count_nonzero_dim(vec![*d]),
        Some(Arg::Ints(v)) => a.t(0).count_nonzero_dim(v.clone()),
        _ => panic!("opinfo: count_nonzero's dim is an int or a list"),
    }
}

/// An int64 index tensor of a gradient-check sample (not differentiated).
const fn idx(v: &'static [i64], shape: &'static [usize]) -> P {
    P::Idx(v, shape)
}

/// The mask of the gradient-check samples: `[true, false, true]`, broadcast over rows.
const MASK: P = P::Mask(&[true, false, true], &[3]);

/// `[3, 4]` and `[3, 2]` inputs.
const X34: P = P::T(super::Dom::Any, &[3, 4]);
const X32: P = P::T(super::Dom::Any, &[3, 2]);

/// `scatter_reduce` samples, one per reduction.
const SCATTER_IDX: P = idx(&[0, 3, 1, 1, 2, 0], &[3, 2]);

const fn other(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call)
}

pub static OPS: &[OpInfo] = &[
    other("gather", |a| a.t(0).gather(dim(a), a.t(2)))
        .grad(&[Sample::new(&[X34, P::Int(1), idx(&[0, 3, 3, 1, 2, 2], &[3, 2])])])
        .docs(&[Doc::Row(Table::Index, "`x.gather(d, idx)`", "`x.gather(d, &idx)`")]),
    other(
        "scatter",
        method!(a => scatter_with, scatter_with_, dim(a), a.t(2), a.operand(3), a.kw_str("reduce")),
    )
    .in_place()
    .grad(&[
        Sample::new(&[X34, P::Int(1), idx(&[0, 3, 1, 2, 2, 0], &[3, 2]), X32]).no_bcast(),
        Sample::new(&[X34, P::Int(1), idx(&[0, 3, 1, 2, 2, 0], &[3, 2]), P::Num(0.5)])
            .named("scatter (number)"),
    ])
    .bench("T.scatter")
    .docs(&[
        Doc::Row(
            Table::Index,
            "`x.scatter(d, idx, src)`, `x.scatter(d, idx, value)`, `(…, reduce='add')`",
            "`x.scatter(d, &idx, &src)`, `x.scatter(d, &idx, 2.5)`, `x.scatter_with(d, &idx, &src, \"add\")`",
        ),
        Doc::Row(
            Table::Index,
            "`x.scatter_(d, idx, src)`, `(…, reduce='multiply')`",
            "`x.scatter_(d, &idx, &src)`, `x.scatter_with_(d, &idx, &src, \"multiply\")`",
        ),
    ]),
    other(
        "scatter_add",
        method!(a => scatter_add, scatter_add_, dim(a), a.t(2), a.t(3)),
    )
    .in_place()
    .grad(&[Sample::new(&[X34, P::Int(1), idx(&[0, 0, 1, 2, 2, 2], &[3, 2]), X32]).no_bcast()])
    .docs(&[Doc::Row(
        Table::Index,
        "`x.scatter_add(d, idx, src)`, `x.scatter_add_(…)`",
        "`x.scatter_add(d, &idx, &src)`, `x.scatter_add_(d, &idx, &src)`",
    )]),
    other(
        "scatter_reduce",
        method!(a => scatter_reduce_with, scatter_reduce_with_, dim(a), a.t(2), a.t(3), s(a, 4, "reduce"), include_self(a)),
    )
    .in_place()
    .grad(&[
        Sample::new(&[X34, P::Int(1), SCATTER_IDX, X32, P::Str("sum")])
            .named("scatter_reduce (sum)")
            .no_bcast(),
        Sample::new(&[X34, P::Int(1), SCATTER_IDX, X32, P::Str("prod")])
            .named("scatter_reduce (prod)")
            .no_bcast(),
        Sample::new(&[X34, P::Int(1), SCATTER_IDX, X32, P::Str("mean")])
            .named("scatter_reduce (mean)")
            .no_bcast(),
        Sample::new(&[X34, P::Int(1), SCATTER_IDX, X32, P::Str("amax")])
            .named("scatter_reduce (amax)")
            .no_bcast(),
        Sample::new(&[X34, P::Int(1), SCATTER_IDX, X32, P::Str("amin")])
            .named("scatter_reduce (amin)")
            .no_bcast(),
    ])
    .bench("T.scatter_reduce")
    .docs(&[Doc::Row(
        Table::Index,
        "`x.scatter_reduce(d, idx, src, 'amax')`, `(…, include_self=False)`; `scatter_reduce_` likewise",
        "`x.scatter_reduce(d, &idx, &src, \"amax\")`, `x.scatter_reduce_with(d, &idx, &src, \"amax\", false)`; `x.scatter_reduce_(…)`, `x.scatter_reduce_with_(…)`",
    )]),
    other("index_select", |a| a.t(0).index_select(dim(a), a.t(2)))
        .grad(&[Sample::new(&[X34, P::Int(1), idx(&[3, 0, 3], &[3])])])
        .bench("T.index_select"),
    other(
        "index_add",
        method!(a => index_add_with, index_add_with_, dim(a), a.t(2), a.t(3), alpha(a)),
    )
    .in_place()
    .grad(&[
        Sample::new(&[X34, P::Int(1), idx(&[3, 0], &[2]), X32])
            .kw(&[("alpha", P::Num(2.0))])
            .no_bcast(),
    ])
    .bench("T.index_add")
    .docs(&[Doc::Row(
        Table::Index,
        "`x.index_add(d, idx, src)`, `(…, alpha=a)`; `index_add_` likewise",
        "`x.index_add(d, &idx, &src)`, `x.index_add_with(d, &idx, &src, a)`; `x.index_add_(…)`, `x.index_add_with_(…)`",
    )]),
    other(
        "index_copy",
        method!(a => index_copy, index_copy_, dim(a), a.t(2), a.t(3)),
    )
    .in_place()
    .grad(&[Sample::new(&[X34, P::Int(1), idx(&[3, 0], &[2]), X32]).no_bcast()])
    .bench("T.index_copy")
    .docs(&[Doc::Row(
        Table::Index,
        "`x.index_copy(d, idx, src)`, `x.index_copy_(…)`",
        "`x.index_copy(d, &idx, &src)`, `x.index_copy_(d, &idx, &src)`",
    )]),
    other(
        "index_fill",
        method!(a => index_fill, index_fill_, dim(a), a.t(2), a.operand(3)),
    )
    .in_place()
    .grad(&[Sample::new(&[X34, P::Int(1), idx(&[3, 0], &[2]), P::Num(0.5)])])
    .docs(&[Doc::Row(
        Table::Index,
        "`x.index_fill(d, idx, v)`, `x.index_fill_(…)` (v a number or 0-d tensor)",
        "`x.index_fill(d, &idx, v)`, `x.index_fill_(d, &idx, &v0d)`",
    )]),
    other(
        "index_reduce",
        method!(a => index_reduce_with, index_reduce_with_, dim(a), a.t(2), a.t(3), s(a, 4, "reduce"), include_self(a)),
    )
    .in_place()
    .grad(&[Sample::new(&[
        X34,
        P::Int(1),
        idx(&[3, 0, 3], &[3]),
        P::T(super::Dom::Any, &[3, 3]),
        P::Str("prod"),
    ])
    .no_bcast()])
    .docs(&[Doc::Row(
        Table::Index,
        "`x.index_reduce(d, idx, src, 'mean')`, `(…, include_self=False)`; `index_reduce_` likewise",
        "`x.index_reduce(d, &idx, &src, \"mean\")`, `x.index_reduce_with(d, &idx, &src, \"mean\", false)`; `x.index_reduce_(…)`, `x.index_reduce_with_(…)`",
    )]),
    other("take", |a| a.t(0).take(a.t(1)))
        .grad(&[Sample::new(&[X34, idx(&[11, 0, 5, 5], &[2, 2])])])
        .bench("take")
        .docs(&[Doc::Row(Table::Index, "`torch.take(x, idx)`", "`x.take(&idx)`")]),
    other("take_along_dim", |a| match a.pos.get(2) {
        Some(Arg::Scalar(Scalar::Int(d))) => a.t(0).take_along_dim_with(a.t(1), *d),
        _ => a.t(0).take_along_dim(a.t(1)),
    })
    .grad(&[Sample::new(&[X34, idx(&[0, 3, 3, 1, 2, 2], &[3, 2]), P::Int(1)])])
    .docs(&[Doc::Row(
        Table::Index,
        "`torch.take_along_dim(x, idx)`, `(x, idx, d)`",
        "`x.take_along_dim(&idx)`, `x.take_along_dim_with(&idx, d)`",
    )]),
    other("masked_select", |a| a.t(0).masked_select(a.t(1)))
        .grad(&[Sample::new(&[X, MASK])])
        .docs(&[Doc::Row(Table::Index, "`x.masked_select(m)`", "`x.masked_select(&m)`")]),
    other(
        "masked_scatter",
        method!(a => masked_scatter, masked_scatter_, a.t(1), a.t(2)),
    )
    .in_place()
    .grad(&[Sample::new(&[X, MASK, P::T(super::Dom::Any, &[6])]).no_bcast()])
    .docs(&[Doc::Row(
        Table::Index,
        "`x.masked_scatter(m, src)`, `x.masked_scatter_(…)`",
        "`x.masked_scatter(&m, &src)`, `x.masked_scatter_(&m, &src)`",
    )]),
    other(
        "masked_fill",
        method!(a => masked_fill, masked_fill_, a.t(1), a.operand(2)),
    )
    .in_place()
    .grad(&[
        Sample::new(&[X, MASK, P::Num(0.5)]),
        Sample::new(&[X, P::Mask(&[true, false], &[2]), P::Num(0.25)])
            .in_place(Through::View(|y| y.t()))
            .named("masked_fill_ (through a view)"),
    ])
    .bench("T.masked_fill")
    .docs(&[
        Doc::Row(
            Table::Index,
            "`x.masked_fill(mask, n)`, `x.masked_fill_(mask, n)`",
            "`x.masked_fill(&mask, n)`, `x.masked_fill_(&mask, n)`",
        ),
        Doc::Row(
            Table::Index,
            "`x.masked_fill(m, v)` with v a 0-d tensor",
            "`x.masked_fill(&m, &v0d)`",
        ),
    ]),
    OpInfo::new_ret(
        "nonzero",
        Sig::Other,
        Adapter::Ret(|a| {
            if a.kw_bool("as_tuple") == Some(true) {
                a.t(0).nonzero_as_tuple().map(Ret::Many)
            } else {
                a.t(0).nonzero().map(Ret::One)
            }
        }),
    )
    .nograd("index")
    .bench("nonzero")
    .docs(&[Doc::Row(
        Table::Index,
        "`x.nonzero()`, `x.nonzero(as_tuple=True)`, `torch.argwhere(x)`",
        "`x.nonzero()`, `x.nonzero_as_tuple()` → `Vec<Tensor>`, `x.argwhere()`",
    )]),
    other("argwhere", |a| a.t(0).argwhere()).nograd("index"),
    OpInfo::new_ret(
        "where_cond_only",
        Sig::Args(1),
        Adapter::Ret(|a| tensile::where_cond_only(a.t(0)).map(Ret::Many)),
    )
    .aliases(&["where"])
    .nograd("index")
    .docs(&[Doc::Row(
        Table::Index,
        "`torch.where(cond)`",
        "`tensile::where_cond_only(&cond)` → `Vec<Tensor>`",
    )]),
    other("count_nonzero", count_nonzero)
        .nograd("integer")
        .docs(&[Doc::Row(
            Table::Index,
            "`torch.count_nonzero(x)`, `(x, d)`, `(x, (d0, d1))`",
            "`x.count_nonzero()`, `x.count_nonzero_dim(d)`, `x.count_nonzero_dim([d0, d1])`",
        )]),
];
