//! Ops of the `scan` family, for the conformance runner.
use super::{Arg, Out, kw_arg, kw_int};
use tensile::DiffOpts;

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let t = || args[0].tensor();
    let dtype = match kw_arg(kw, "dtype") {
        Some(Arg::DType(d)) => Some(d),
        _ => None,
    };
    let dim = || match kw_int(kw, "dim") {
        Some(d) => d,
        None => args[1].int(),
    };
    let one = |r: tensile::Result<tensile::Tensor>| Some(r.map(Out::Tensor));
    let two = |r: tensile::Result<(tensile::Tensor, tensile::Tensor)>| {
        Some(r.map(|(a, b)| Out::Tensors(vec![a, b])))
    };
    match op {
        "cumsum" => one(match dtype {
            Some(d) => t().cumsum_with(dim(), d),
            None => t().cumsum(dim()),
        }),
        "cumprod" => one(match dtype {
            Some(d) => t().cumprod_with(dim(), d),
            None => t().cumprod(dim()),
        }),
        "cumsum_" => one(match dtype {
            Some(d) => t().cumsum_with_(dim(), d),
            None => t().cumsum_(dim()),
        }),
        "cumprod_" => one(match dtype {
            Some(d) => t().cumprod_with_(dim(), d),
            None => t().cumprod_(dim()),
        }),
        "cummax" => two(t().cummax(dim())),
        "cummin" => two(t().cummin(dim())),
        "logcumsumexp" => one(t().logcumsumexp(dim())),
        "diff" => {
            let pre = kw_arg(kw, "prepend");
            let app = kw_arg(kw, "append");
            let opts = DiffOpts {
                n: kw_int(kw, "n").unwrap_or(1),
                dim: kw_int(kw, "dim").unwrap_or(-1),
                prepend: pre.as_ref().map(|a| a.tensor()),
                append: app.as_ref().map(|a| a.tensor()),
            };
            one(t().diff_with(opts))
        }
        _ => None,
    }
}
