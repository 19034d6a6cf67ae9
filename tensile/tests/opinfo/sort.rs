//! Sorting and searching: `sort`, `argsort`, `msort`, `topk`, `kthvalue`, `median` and
//! `nanmedian` (all, or along a dim with indices), `unique`, `unique_consecutive`,
//! `searchsorted`, `bucketize`, `isin`.

use super::{Adapter, Args, Doc, Dom, OpInfo, P, Ret, Sample, Sig, Table, X, pair};
use tensile::{
    BucketizeOpts, IsinOpts, KthvalueOpts, Result, SearchsortedOpts, SortOpts, TopkOpts,
    UniqueConsecutiveOpts, UniqueOpts, UniqueOutput,
};

/// `sort`'s and `argsort`'s `(dim=-1, descending=False, stable=None)`.
fn sort_opts(a: &Args) -> SortOpts {
    SortOpts {
        dim: a.int_at(1, "dim").unwrap_or(-1),
        descending: a.bool_at(2, "descending").unwrap_or(false),
        // given at all (`stable=None` too) selects PyTorch's `sort.stable` overload
        stable: a
            .kw_arg("stable")
            .map(|_| a.kw_bool("stable").unwrap_or(false)),
    }
}

/// `unique`'s outputs as Python returns them: the values alone, or a tuple of those asked for.
fn uniq(r: Result<UniqueOutput>) -> Result<Ret> {
    r.map(|(v, inv, cnt)| {
        if inv.is_none() && cnt.is_none() {
            Ret::One(v)
        } else {
            Ret::Many(std::iter::once(v).chain(inv).chain(cnt).collect())
        }
    })
}

/// `median(x)` / `median(x, dim, keepdim=False)`, `nanmedian` likewise.
fn median(a: &Args, nan: bool) -> Result<Ret> {
    let x = a.t(0);
    let keepdim = a.bool_at(2, "keepdim").unwrap_or(false);
    match (a.int_at(1, "dim"), nan) {
        (None, false) => x.median().map(Ret::One),
        (None, true) => x.nanmedian().map(Ret::One),
        (Some(d), false) => pair(x.median_dim(d, keepdim)),
        (Some(d), true) => pair(x.nanmedian_dim(d, keepdim)),
    }
}

fn topk(a: &Args) -> Result<Ret> {
    let k = a.int_at(1, "k").expect("opinfo: topk takes k");
    pair(a.t(0).topk_with(
        k,
        TopkOpts {
            dim: a.int_at(2, "dim").unwrap_or(-1),
            largest: a.bool_at(3, "largest").unwrap_or(true),
            sorted: a.bool_at(4, "sorted").unwrap_or(true),
        },
    ))
}

fn kthvalue(a: &Args) -> Result<Ret> {
    let k = a.int_at(1, "k").expect("opinfo: kthvalue takes k");
    pair(a.t(0).kthvalue_with(
        k,
        KthvalueOpts {
            dim: a.int_at(2, "dim").unwrap_or(-1),
            keepdim: a.bool_at(3, "keepdim").unwrap_or(false),
        },
    ))
}

fn searchsorted(a: &Args) -> Result<tensile::Tensor> {
    let opts = SearchsortedOpts {
        out_int32: a.kw_bool("out_int32").unwrap_or(false),
        right: a.kw_bool("right").unwrap_or(false),
        side: a.kw_str("side"),
        sorter: a.kw_tensor("sorter"),
    };
    tensile::searchsorted_with(a.t(0), a.operand(1), opts)
}

fn bucketize(a: &Args) -> Result<tensile::Tensor> {
    tensile::bucketize_with(
        a.operand(0),
        a.t(1),
        BucketizeOpts {
            out_int32: a.kw_bool("out_int32").unwrap_or(false),
            right: a.kw_bool("right").unwrap_or(false),
        },
    )
}

fn isin(a: &Args) -> Result<tensile::Tensor> {
    tensile::isin_with(
        a.operand(0),
        a.operand(1),
        IsinOpts {
            assume_unique: a.kw_bool("assume_unique").unwrap_or(false),
            invert: a.kw_bool("invert").unwrap_or(false),
        },
    )
}

const fn other(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call)
}

const fn other_ret(name: &'static str, call: super::CallRet) -> OpInfo {
    OpInfo::new_ret(name, Sig::Other, Adapter::Ret(call))
}

pub static OPS: &[OpInfo] = &[
    other_ret("sort", |a| pair(a.t(0).sort_with(sort_opts(a))))
        .grad(&[Sample::new(&[X])])
        .bench("T.sort")
        .docs(&[Doc::Row(
            Table::Sorting,
            "`x.sort()`, `x.sort(d, descending, stable=True)`",
            "`x.sort()`, `x.sort_with(d)`, `x.sort_with((d, descending))`, `x.sort_with(SortOpts { .. })` → `(values, indices)`",
        )]),
    other("argsort", |a| a.t(0).argsort_with(sort_opts(a)))
        .nograd("index")
        .bench("T.argsort")
        .docs(&[Doc::Row(
            Table::Sorting,
            "`x.argsort()`, `x.argsort(d, descending, stable=True)`",
            "`x.argsort()`, `x.argsort_with(d)`, `x.argsort_with((d, descending))`",
        )]),
    other("msort", |a| a.t(0).msort())
        .grad(&[Sample::new(&[P::T(Dom::Any, &[3, 2])])])
        .docs(&[Doc::Row(Table::Sorting, "`x.msort()`", "`x.msort()`")]),
    other_ret("topk", topk)
        .grad(&[Sample::new(&[P::T(Dom::Any, &[2, 4]), P::Int(2)])])
        .bench("T.topk")
        .docs(&[Doc::Row(
            Table::Sorting,
            "`x.topk(k)`, `x.topk(k, d, largest, sorted)`",
            "`x.topk(k)`, `x.topk_with(k, d)`, `x.topk_with(k, (d, largest))` → `(values, indices)`",
        )]),
    other_ret("kthvalue", kthvalue)
        .grad(&[Sample::new(&[X, P::Int(2)])])
        .bench("T.kthvalue")
        .docs(&[Doc::Row(
            Table::Sorting,
            "`x.kthvalue(k)`, `x.kthvalue(k, d, keepdim)`",
            "`x.kthvalue(k)`, `x.kthvalue_with(k, d)`, `x.kthvalue_with(k, (d, keepdim))` → `(values, indices)`",
        )]),
    other_ret("median", |a| median(a, false))
        .grad(&[
            Sample::new(&[X]),
            Sample::new(&[X, P::Int(1)]).named("median_dim"),
        ])
        .bench("T.median")
        .docs(&[Doc::Row(
            Table::Sorting,
            "`x.median()`, `x.median(d, keepdim)`; `nanmedian` likewise",
            "`x.median()`, `x.median_dim(d, keepdim)` → `(values, indices)`; `x.nanmedian()`, `x.nanmedian_dim(d, keepdim)`",
        )]),
    other_ret("nanmedian", |a| median(a, true)).grad(&[
        Sample::new(&[X]),
        Sample::new(&[X, P::Int(1)]).named("nanmedian_dim"),
    ]),
    other_ret("unique", |a| {
        uniq(a.t(0).unique_with(UniqueOpts {
            sorted: a.kw_bool("sorted").unwrap_or(true),
            return_inverse: a.kw_bool("return_inverse").unwrap_or(false),
            return_counts: a.kw_bool("return_counts").unwrap_or(false),
            dim: a.kw_int("dim"),
        }))
    })
    .nograd("pytorch")
    .bench("unique")
    .docs(&[Doc::Row(
        Table::Sorting,
        "`x.unique()`, `x.unique(sorted, return_inverse, return_counts, dim)`",
        "`x.unique()`, `x.unique_with(UniqueOpts { return_inverse: true, dim: Some(d), .. })` → `(values, Option<inverse>, Option<counts>)`",
    )]),
    other_ret("unique_consecutive", |a| {
        uniq(a.t(0).unique_consecutive_with(UniqueConsecutiveOpts {
            return_inverse: a.kw_bool("return_inverse").unwrap_or(false),
            return_counts: a.kw_bool("return_counts").unwrap_or(false),
            dim: a.kw_int("dim"),
        }))
    })
    .nograd("pytorch")
    .docs(&[Doc::Row(
        Table::Sorting,
        "`x.unique_consecutive()`, `(return_inverse, return_counts, dim)`",
        "`x.unique_consecutive()`, `x.unique_consecutive_with((inv, counts))`, `x.unique_consecutive_with((inv, counts, d))` → `(values, Option<inverse>, Option<counts>)`",
    )]),
    other("searchsorted", searchsorted)
        .nograd("index")
        .bench("searchsorted")
        .docs(&[Doc::Row(
            Table::Sorting,
            "`torch.searchsorted(seq, v)`, `(seq, v, out_int32=, right=, side=, sorter=)`; `v` a tensor or number",
            "`tensile::searchsorted(&seq, &v)`, `tensile::searchsorted_with(&seq, 2.5, SearchsortedOpts { side: Some(\"right\"), sorter: Some(&s), .. })`",
        )]),
    other("bucketize", bucketize)
        .nograd("index")
        .bench("bucketize")
        .docs(&[Doc::Row(
            Table::Sorting,
            "`torch.bucketize(v, b)`, `(v, b, out_int32=, right=)`",
            "`tensile::bucketize(&v, &b)`, `tensile::bucketize_with(&v, &b, (out_int32, right))`",
        )]),
    other("isin", isin)
        .nograd("comparison")
        .bench("isin")
        .docs(&[Doc::Row(
            Table::Sorting,
            "`torch.isin(e, t)`, `(e, t, assume_unique=, invert=)`; either a number",
            "`tensile::isin(&e, &t)`, `tensile::isin_with(3, &t, (assume_unique, invert))`",
        )]),
];
