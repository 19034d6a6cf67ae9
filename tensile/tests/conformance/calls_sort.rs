//! Ops of the `sort_search` family, for the conformance runner.
use super::{Arg, Out, kw_arg, kw_bool, kw_int, kw_str};
use tensile::{
    BucketizeOpts, IsinOpts, KthvalueOpts, SearchsortedOpts, SortOpts, TopkOpts,
    UniqueConsecutiveOpts, UniqueOpts, UniqueOutput,
};

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let t = || args[0].tensor();
    let keepdim = kw_bool(kw, "keepdim").unwrap_or(false);
    let one = |r: tensile::Result<tensile::Tensor>| Some(r.map(Out::Tensor));
    let two = |r: tensile::Result<(tensile::Tensor, tensile::Tensor)>| {
        Some(r.map(|(a, b)| Out::Tensors(vec![a, b])))
    };
    // unique's outputs as Python returns them: the values alone, or a tuple of those asked for
    let uniq = |r: tensile::Result<UniqueOutput>| {
        Some(r.map(|(v, inv, cnt)| {
            if inv.is_none() && cnt.is_none() {
                Out::Tensor(v)
            } else {
                Out::Tensors(std::iter::once(v).chain(inv).chain(cnt).collect())
            }
        }))
    };
    let sort_opts = || SortOpts {
        dim: kw_int(kw, "dim").unwrap_or(-1),
        descending: kw_bool(kw, "descending").unwrap_or(false),
        stable: kw_bool(kw, "stable").unwrap_or(false),
    };
    match op {
        "sort" => two(t().sort_with(sort_opts())),
        "argsort" => one(t().argsort_with(sort_opts())),
        "msort" => one(t().msort()),
        "topk" => two(t().topk_with(
            args[1].int(),
            TopkOpts {
                dim: kw_int(kw, "dim").unwrap_or(-1),
                largest: kw_bool(kw, "largest").unwrap_or(true),
                sorted: kw_bool(kw, "sorted").unwrap_or(true),
            },
        )),
        "kthvalue" => two(t().kthvalue_with(
            args[1].int(),
            KthvalueOpts {
                dim: args.get(2).map(|a| a.int()).unwrap_or(-1),
                keepdim,
            },
        )),
        "median" | "nanmedian" => match (args.get(1), op == "median") {
            (None, true) => one(t().median()),
            (None, false) => one(t().nanmedian()),
            (Some(d), true) => two(t().median_dim(d.int(), keepdim)),
            (Some(d), false) => two(t().nanmedian_dim(d.int(), keepdim)),
        },
        "unique" => uniq(t().unique_with(UniqueOpts {
            sorted: kw_bool(kw, "sorted").unwrap_or(true),
            return_inverse: kw_bool(kw, "return_inverse").unwrap_or(false),
            return_counts: kw_bool(kw, "return_counts").unwrap_or(false),
            dim: kw_int(kw, "dim"),
        })),
        "unique_consecutive" => uniq(t().unique_consecutive_with(UniqueConsecutiveOpts {
            return_inverse: kw_bool(kw, "return_inverse").unwrap_or(false),
            return_counts: kw_bool(kw, "return_counts").unwrap_or(false),
            dim: kw_int(kw, "dim"),
        })),
        "searchsorted" => {
            let sorter = kw_arg(kw, "sorter");
            let opts = SearchsortedOpts {
                out_int32: kw_bool(kw, "out_int32").unwrap_or(false),
                right: kw_bool(kw, "right").unwrap_or(false),
                side: kw_str(kw, "side"),
                sorter: sorter.as_ref().map(|a| a.tensor()),
            };
            one(tensile::searchsorted_with(t(), args[1].operand(), opts))
        }
        "bucketize" => one(tensile::bucketize_with(
            args[0].operand(),
            args[1].tensor(),
            BucketizeOpts {
                out_int32: kw_bool(kw, "out_int32").unwrap_or(false),
                right: kw_bool(kw, "right").unwrap_or(false),
            },
        )),
        "isin" => one(tensile::isin_with(
            args[0].operand(),
            args[1].operand(),
            IsinOpts {
                assume_unique: kw_bool(kw, "assume_unique").unwrap_or(false),
                invert: kw_bool(kw, "invert").unwrap_or(false),
            },
        )),
        _ => None,
    }
}
