//! Reductions: `f(x)` over every dim, `f(x, dim, keepdim=False)` over an int or a list of dims
//! (`x.NAME()`, `x.NAME_dim(dims, keepdim)`), the moments with `correction=`, `norm`, and
//! `max`/`min`, whose dim form returns values and indices.

use super::{Adapter, Arg, Args, Doc, Dom, Group, OpInfo, P, Ret, Sample, Sig, Table, X, pair};
use tensile::{NormOpts, NormP, Result, Scalar, Tensor, VarOpts};

/// The dims a call reduces.
enum Dims {
    All,
    One(i64),
    Many(Vec<i64>),
}

/// The dims at position `i` or in `dim=`: absent (every dim), an int or a list.
fn dims(a: &Args, i: usize) -> Dims {
    match a.pos.get(i).or(a.kw_arg("dim")) {
        None => Dims::All,
        Some(Arg::Scalar(Scalar::Int(d))) => Dims::One(*d),
        Some(Arg::Ints(v)) => Dims::Many(v.clone()),
        Some(_) => panic!("opinfo: a reduction's dim is an int or a list of ints"),
    }
}

/// The dims as the option structs take them (`None`: every dim).
fn dim_list(a: &Args, i: usize) -> Option<tensile::args::IntList> {
    match dims(a, i) {
        Dims::All => None,
        Dims::One(d) => Some(std::iter::once(d).collect()),
        Dims::Many(ds) => Some(ds.into_iter().collect()),
    }
}

/// `keepdim=` (false by default).
fn keepdim(a: &Args) -> bool {
    a.kw_bool("keepdim").unwrap_or(false)
}

/// `x.$all()`, or `x.$dim(dims, keepdim)` (an int or a list).
macro_rules! reduction {
    ($all:ident, $dim:ident) => {
        |a: &Args| {
            let (t, k) = (a.t(0), keepdim(a));
            match dims(a, 1) {
                Dims::All => t.$all(),
                Dims::One(d) => t.$dim(d, k),
                Dims::Many(ds) => t.$dim(ds.as_slice(), k),
            }
        }
    };
}

/// `x.$all()`, or `x.$dim(d, keepdim)` over one dim.
macro_rules! reduction_one {
    ($all:ident, $dim:ident) => {
        |a: &Args| {
            let (t, k) = (a.t(0), keepdim(a));
            match dims(a, 1) {
                Dims::All => t.$all(),
                Dims::One(d) => t.$dim(d, k),
                Dims::Many(_) => panic!(concat!("opinfo: ", stringify!($all), " takes one dim")),
            }
        }
    };
}

/// `x.$with(VarOpts { .. })` when `correction=` is given, else `x.$all()` /
/// `x.$dim(dims, keepdim)`.
macro_rules! moment {
    ($all:ident, $dim:ident, $with:ident) => {
        |a: &Args| match a.kw_f64("correction") {
            Some(c) => a.t(0).$with(var_opts(a, c)),
            None => (reduction!($all, $dim))(a),
        }
    };
}

/// `torch.max(x)` (one tensor) or `torch.max(x, dim, keepdim)` (values and indices).
macro_rules! max_min {
    ($all:ident, $dim:ident) => {
        |a: &Args| match dims(a, 1) {
            Dims::One(d) => pair(a.t(0).$dim(d, keepdim(a))),
            _ => a.t(0).$all().map(Ret::One),
        }
    };
}

fn var_opts(a: &Args, correction: f64) -> VarOpts {
    VarOpts {
        dim: dim_list(a, 1),
        correction,
        keepdim: keepdim(a),
    }
}

/// `torch.var_mean(x, dim, correction=, keepdim=)` / `std_mean` (correction 1 by default).
fn moments(a: &Args, f: fn(&Tensor, VarOpts) -> Result<(Tensor, Tensor)>) -> Result<Ret> {
    pair(f(
        a.t(0),
        var_opts(a, a.kw_f64("correction").unwrap_or(1.0)),
    ))
}

/// `torch.norm(x, p='fro', dim=None, keepdim=False)`.
fn norm(a: &Args) -> Result<Tensor> {
    let p = match a.pos.get(1).or(a.kw_arg("p")) {
        Some(Arg::Str(s)) if s == "nuc" => NormP::Nuc,
        Some(Arg::Scalar(s)) => NormP::Num(s.to_f64()),
        _ => NormP::Fro,
    };
    a.t(0).norm_with(NormOpts {
        p,
        dim: dim_list(a, 2),
        keepdim: keepdim(a),
        dtype: None,
    })
}

/// The reductions with nothing but `x.NAME()` and `x.NAME_dim(dims, keepdim)`.
static SAME: Group = Group {
    table: Table::Reductions,
    head: "",
    item: "`{}`",
    sep: ", ",
    tail: "",
    tensile: "same pattern: `x.NAME()`, `x.NAME_dim(dims, keepdim)`",
};
const IN_SAME: &[Doc] = &[Doc::In(&SAME)];

/// A `[2, 3, 2]` input.
const X3: P = P::T(Dom::Any, &[2, 3, 2]);
const KEEP: &[(&str, P)] = &[("keepdim", P::Bool(true))];

const fn reduce(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Reduce, call).fuzz()
}
const fn reduce_one(name: &'static str, call: Adapter) -> OpInfo {
    OpInfo::new_ret(name, Sig::ReduceDim, call).fuzz()
}

pub static OPS: &[OpInfo] = &[
    reduce("sum", reduction!(sum, sum_dim))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X3, P::Ints(&[0, 2])]).named("sum_dim"),
        ])
        .bench("T.sum")
        .docs(&[Doc::Row(
            Table::Reductions,
            "`x.sum()`, `x.sum(d)`, `x.sum((d1, d2), keepdim=True)`",
            "`x.sum()`, `x.sum_dim(d, false)`, `x.sum_dim([d1, d2], true)`",
        )]),
    reduce("mean", reduction!(mean, mean_dim))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X3, P::Int(1)]).named("mean_dim").kw(KEEP),
        ])
        .bench("T.mean")
        .docs(IN_SAME),
    reduce("amax", reduction!(amax, amax_dim))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X, P::Int(1)]).named("amax_dim"),
        ])
        .bench("T.amax")
        .docs(IN_SAME),
    reduce("amin", reduction!(amin, amin_dim))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X, P::Int(0)]).named("amin_dim").kw(KEEP),
        ])
        .docs(IN_SAME),
    reduce("all", reduction!(all, all_dim))
        .nograd("integer")
        .bench("T.all")
        .docs(IN_SAME),
    reduce("any", reduction!(any, any_dim))
        .nograd("integer")
        .bench("T.any")
        .docs(IN_SAME),
    reduce("logsumexp", reduction!(logsumexp, logsumexp_dim))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X, P::Int(1)]).named("logsumexp_dim"),
        ])
        .bench("T.logsumexp")
        .docs(IN_SAME),
    reduce_one("prod", Adapter::One(reduction_one!(prod, prod_dim)))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X, P::Int(1)]).named("prod_dim"),
        ])
        .bench("T.prod")
        .docs(&[Doc::Row(
            Table::Reductions,
            "`x.prod()`, `x.prod(d, keepdim)`",
            "`x.prod()`, `x.prod_dim(d, keepdim)`",
        )]),
    reduce("var", moment!(var, var_dim, var_with))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X, P::Int(1)]).named("var_dim"),
        ])
        .bench("T.var")
        .docs(&[
            Doc::In(&SAME),
            Doc::Row(
                Table::Reductions,
                "`x.var(d, correction=c, keepdim=k)`, `std` likewise",
                "`x.var_with(VarOpts { dim: Some(..), correction: c, keepdim: k })`, `x.std_with(..)`",
            ),
        ]),
    reduce("std", moment!(std, std_dim, std_with))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X, P::Int(0)]).named("std_dim").kw(KEEP),
        ])
        .bench("T.std")
        .docs(IN_SAME),
    reduce("nansum", reduction!(nansum, nansum_dim))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X3, P::Ints(&[0, 2])]).named("nansum_dim"),
            Sample::new(&[X])
                .named("nansum_with")
                .kw(&[("dim", P::Ints(&[1])), ("keepdim", P::Bool(true))]),
        ])
        .docs(&[Doc::Row(
            Table::Reductions,
            "`x.nansum()`, `x.nansum(d, keepdim)`, `x.nansum(dtype=..)`",
            "`x.nansum()`, `x.nansum_dim(d, keepdim)`, `x.nansum_with(NansumOpts { dim, keepdim, dtype })`",
        )]),
    reduce("norm", norm)
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X]).named("norm_with").kw(&[
                ("p", P::Num(3.0)),
                ("dim", P::Ints(&[1])),
                ("keepdim", P::Bool(true)),
            ]),
        ])
        .docs(&[Doc::Row(
            Table::Reductions,
            "`x.norm()`, `x.norm(p, dim, keepdim)`, `x.norm('fro')`",
            "`x.norm()`, `x.norm_with(NormOpts { p: NormP::Num(p), dim: Some(..), keepdim, dtype: None })`, `x.norm_with(NormP::Fro)`; a number alone is `p`: `x.norm_with(1.0)`",
        )]),
    OpInfo::new_ret(
        "var_mean",
        Sig::Reduce,
        Adapter::Ret(|a| moments(a, tensile::var_mean_with)),
    )
    .fuzz()
    .grad(&[
        Sample::new(&[X]),
        Sample::new(&[X]).named("var_mean_with").kw(&[
            ("dim", P::Ints(&[1])),
            ("correction", P::Num(0.0)),
        ]),
    ])
    .docs(&[Doc::Row(
        Table::Reductions,
        "`torch.var_mean(x)`, `torch.var_mean(x, d, correction=c, keepdim=k)`; `std_mean` likewise",
        "`tensile::var_mean(&x)`, `tensile::var_mean_with(&x, VarOpts { .. })` → `(var, mean)`; `std_mean` likewise",
    )]),
    OpInfo::new_ret(
        "std_mean",
        Sig::Reduce,
        Adapter::Ret(|a| moments(a, tensile::std_mean_with)),
    )
    .fuzz()
    .grad(&[
        Sample::new(&[X]),
        Sample::new(&[X]).named("std_mean_with").kw(&[
            ("dim", P::Ints(&[0])),
            ("correction", P::Num(1.0)),
            ("keepdim", P::Bool(true)),
        ]),
    ]),
    reduce_one("max", Adapter::Ret(max_min!(max, max_dim)))
        .aliases(&["max_dim"])
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X, P::Int(1)]).named("max_dim"),
        ])
        .bench("T.max")
        .docs(&[
            Doc::Row(Table::Reductions, "`x.max()`, `x.min()`", "`x.max()`, `x.min()`"),
            Doc::Row(
                Table::Reductions,
                "`x.max(d, keepdim)`, `x.min(d, keepdim)`",
                "`x.max_dim(d, keepdim)`, `x.min_dim(d, keepdim)` → `(values, indices)`",
            ),
        ]),
    reduce_one("min", Adapter::Ret(max_min!(min, min_dim)))
        .aliases(&["min_dim"])
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X, P::Int(0)]).named("min_dim").kw(KEEP),
        ])
        .bench("T.min"),
    reduce_one("argmax", Adapter::One(reduction_one!(argmax, argmax_dim)))
        .nograd("index")
        .bench("T.argmax")
        .docs(&[Doc::Row(
            Table::Reductions,
            "`x.argmax()`, `x.argmax(d, keepdim)`, `x.argmax(keepdim=True)`",
            "`x.argmax()`, `x.argmax_dim(d, keepdim)`, `x.argmax_with(ArgmaxOpts { dim: None, keepdim: true })`; `argmin` likewise",
        )]),
    reduce_one("argmin", Adapter::One(reduction_one!(argmin, argmin_dim))).nograd("index"),
];
