//! Scans along one dim: `cumsum` and `cumprod` (with `dtype=` and in-place forms),
//! `cummax`/`cummin` (values and indices), `logcumsumexp`, and `diff`.

use super::{Adapter, Arg, Args, Doc, Dom, OpInfo, P, Sample, Sig, Table, X, pair};
use tensile::{DiffOpts, Result, Scalar, Tensor};

/// The dim of a scan: positional or `dim=`.
fn dim(a: &Args) -> i64 {
    match a.pos.get(1).or(a.kw_arg("dim")) {
        Some(Arg::Scalar(Scalar::Int(d))) => *d,
        _ => panic!("opinfo: a scan takes an int dim"),
    }
}

/// `torch.diff(x, n=1, dim=-1, prepend=None, append=None)`.
fn diff(a: &Args) -> Result<Tensor> {
    a.t(0).diff_with(DiffOpts {
        n: a.int_at(1, "n").unwrap_or(1),
        dim: a.int_at(2, "dim").unwrap_or(-1),
        prepend: a.kw_tensor("prepend"),
        append: a.kw_tensor("append"),
    })
}

const fn scan(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Scan, call).fuzz()
}

pub static OPS: &[OpInfo] = &[
    scan(
        "cumsum",
        with_kw!(a => kw_dtype("dtype"), cumsum, cumsum_, cumsum_with, cumsum_with_, dim(a)),
    )
    .in_place()
    .grad(&[Sample::new(&[X, P::Int(1)])])
    .bench("T.cumsum")
    .docs(&[
        Doc::Row(
            Table::Scans,
            "`x.cumsum(d)`, `x.cumsum(d, dtype=t)`; `cumprod` likewise",
            "`x.cumsum(d)`, `x.cumsum_with(d, t)`; `x.cumprod(d)`, `x.cumprod_with(d, t)`",
        ),
        Doc::Row(
            Table::Scans,
            "`x.cumsum_(d)`, `x.cumsum_(d, dtype=t)`; `cumprod_` likewise",
            "`x.cumsum_(d)`, `x.cumsum_with_(d, t)`; `x.cumprod_(d)`, `x.cumprod_with_(d, t)`",
        ),
    ]),
    scan(
        "cumprod",
        with_kw!(a => kw_dtype("dtype"), cumprod, cumprod_, cumprod_with, cumprod_with_, dim(a)),
    )
    .in_place()
    .grad(&[Sample::new(&[X, P::Int(1)])])
    .bench("T.cumprod"),
    OpInfo::new_ret(
        "cummax",
        Sig::Scan,
        Adapter::Ret(|a| pair(a.t(0).cummax(dim(a)))),
    )
    .fuzz()
    .grad(&[Sample::new(&[X, P::Int(1)])])
    .bench("T.cummax")
    .docs(&[Doc::Row(
        Table::Scans,
        "`x.cummax(d)`, `x.cummin(d)`",
        "`x.cummax(d)`, `x.cummin(d)` → `(values, indices)`",
    )]),
    OpInfo::new_ret(
        "cummin",
        Sig::Scan,
        Adapter::Ret(|a| pair(a.t(0).cummin(dim(a)))),
    )
    .fuzz()
    .grad(&[Sample::new(&[X, P::Int(0)])]),
    scan("logcumsumexp", |a| a.t(0).logcumsumexp(dim(a)))
        .grad(&[Sample::new(&[X, P::Int(1)])])
        .bench("T.logcumsumexp")
        .docs(&[Doc::Row(
            Table::Scans,
            "`x.logcumsumexp(d)`",
            "`x.logcumsumexp(d)`",
        )]),
    scan("diff", diff)
        .grad(&[Sample::new(&[P::T(Dom::Any, &[2, 4])])])
        .bench("T.diff")
        .docs(&[Doc::Row(
            Table::Scans,
            "`x.diff()`, `x.diff(n, d, prepend, append)`",
            "`x.diff()`, `x.diff_with(n)`, `x.diff_with((n, d))`, `x.diff_with(DiffOpts { prepend: Some(&p), ..Default::default() })`",
        )]),
];
