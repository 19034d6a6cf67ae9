//! Ops of the `gather_scatter` family, for the conformance runner.
use super::{Arg, Out, kw_arg, kw_bool, kw_str};
use tensile::{IndexAddOpts, Scalar, Tensor};

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let t = || args[0].tensor();
    let dim = || args[1].int();
    let ten = |i: usize| args[i].tensor();
    let s = |i: usize| match &args[i] {
        Arg::Str(s) => s.as_str(),
        _ => panic!("corpus: expected a str argument"),
    };
    let one = |r: tensile::Result<Tensor>| Some(r.map(Out::Tensor));
    let many = |r: tensile::Result<Vec<Tensor>>| Some(r.map(Out::Tensors));
    let include_self = kw_bool(kw, "include_self").unwrap_or(true);
    let alpha = || match kw_arg(kw, "alpha") {
        Some(Arg::Scalar(a)) => IndexAddOpts { alpha: a },
        _ => IndexAddOpts {
            alpha: Scalar::Int(1),
        },
    };
    let reduce = kw_str(kw, "reduce");
    match op {
        "gather" => one(t().gather(dim(), ten(2))),
        "scatter" => one(t().scatter_with(dim(), ten(2), args[3].operand(), reduce)),
        "scatter_" => one(t().scatter_with_(dim(), ten(2), args[3].operand(), reduce)),
        "scatter_add" => one(t().scatter_add(dim(), ten(2), ten(3))),
        "scatter_add_" => one(t().scatter_add_(dim(), ten(2), ten(3))),
        "scatter_reduce" => one(t().scatter_reduce_with(dim(), ten(2), ten(3), s(4), include_self)),
        "scatter_reduce_" => {
            one(t().scatter_reduce_with_(dim(), ten(2), ten(3), s(4), include_self))
        }
        "index_select" => one(t().index_select(dim(), ten(2))),
        "index_add" => one(t().index_add_with(dim(), ten(2), ten(3), alpha())),
        "index_add_" => one(t().index_add_with_(dim(), ten(2), ten(3), alpha())),
        "index_copy" => one(t().index_copy(dim(), ten(2), ten(3))),
        "index_copy_" => one(t().index_copy_(dim(), ten(2), ten(3))),
        "index_fill" => one(t().index_fill(dim(), ten(2), args[3].operand())),
        "index_fill_" => one(t().index_fill_(dim(), ten(2), args[3].operand())),
        "index_reduce" => one(t().index_reduce_with(dim(), ten(2), ten(3), s(4), include_self)),
        "index_reduce_" => one(t().index_reduce_with_(dim(), ten(2), ten(3), s(4), include_self)),
        "take" => one(t().take(ten(1))),
        "take_along_dim" if args.len() == 3 => one(t().take_along_dim_with(ten(1), args[2].int())),
        "take_along_dim" => one(t().take_along_dim(ten(1))),
        "masked_select" => one(t().masked_select(ten(1))),
        "masked_scatter" => one(t().masked_scatter(ten(1), ten(2))),
        "masked_scatter_" => one(t().masked_scatter_(ten(1), ten(2))),
        "masked_fill" => one(t().masked_fill(ten(1), args[2].operand())),
        "masked_fill_" => one(t().masked_fill_(ten(1), args[2].operand())),
        "nonzero" if kw_bool(kw, "as_tuple") == Some(true) => many(t().nonzero_as_tuple()),
        "nonzero" => one(t().nonzero()),
        "argwhere" => one(t().argwhere()),
        "count_nonzero" if args.len() == 2 => one(t().count_nonzero_dim(match &args[1] {
            Arg::Int(d) => vec![*d],
            a => a.list().to_vec(),
        })),
        "count_nonzero" => one(t().count_nonzero()),
        "where" if args.len() == 1 => many(tensile::where_cond_only(t())),
        _ => None,
    }
}
