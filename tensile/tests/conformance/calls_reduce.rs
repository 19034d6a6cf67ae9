//! Ops of the `reduce`, `matmul` and `cat` families, for the conformance runner.
use super::{Arg, Out};
use tensile::Tensor;

/// The reduction form of a case: `[t]` (every dim), `[t, {"int": d}]` or `[t, {"dims": [..]}]`.
enum Form<'a> {
    All,
    Dim(i64),
    Dims(&'a [i64]),
}

fn form(args: &[Arg]) -> Form<'_> {
    match args.get(1) {
        None => Form::All,
        Some(Arg::Int(d)) => Form::Dim(*d),
        Some(Arg::Dims(ds)) => Form::Dims(ds),
        Some(_) => panic!("corpus: reduction dim argument"),
    }
}

/// Runs a reduction in the form the case gives: every dim, one dim, or a list of dims (the
/// `_dim` method takes both).
macro_rules! reduction {
    ($args:expr, $keepdim:expr, $all:ident, $dim:ident) => {{
        let t = $args[0].tensor();
        match form($args) {
            Form::All => t.$all(),
            Form::Dim(d) => t.$dim(d, $keepdim),
            Form::Dims(ds) => t.$dim(ds, $keepdim),
        }
        .map(Out::Tensor)
    }};
}

pub fn call(op: &str, args: &[Arg], kwargs: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let keepdim = kwargs
        .get("keepdim")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let r = match op {
        "sum" => reduction!(args, keepdim, sum, sum_dim),
        "mean" => reduction!(args, keepdim, mean, mean_dim),
        "amax" => reduction!(args, keepdim, amax, amax_dim),
        "amin" => reduction!(args, keepdim, amin, amin_dim),
        "all" => reduction!(args, keepdim, all, all_dim),
        "any" => reduction!(args, keepdim, any, any_dim),
        "std" | "var" if kwargs.get("correction").is_some_and(|c| c.is_number()) => {
            let opts = tensile::VarOpts {
                dim: match form(args) {
                    Form::All => None,
                    Form::Dim(d) => Some(std::iter::once(d).collect()),
                    Form::Dims(ds) => Some(ds.iter().copied().collect()),
                },
                correction: kwargs["correction"].as_f64().unwrap(),
                keepdim,
            };
            let t = args[0].tensor();
            if op == "std" {
                t.std_with(opts)
            } else {
                t.var_with(opts)
            }
            .map(Out::Tensor)
        }
        "norm" => {
            let p = match kwargs.get("p") {
                Some(v) if v.as_str() == Some("fro") => tensile::NormP::Fro,
                Some(v) if v.as_str() == Some("nuc") => tensile::NormP::Nuc,
                Some(v) if v.is_number() => tensile::NormP::Num(v.as_f64().unwrap()),
                _ => tensile::NormP::Fro,
            };
            let dim = match kwargs.get("dim") {
                Some(v) if v.is_i64() => Some(std::iter::once(v.as_i64().unwrap()).collect()),
                Some(v) if v.is_array() => Some(
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_i64().unwrap())
                        .collect(),
                ),
                _ => None,
            };
            args[0]
                .tensor()
                .norm_with(tensile::NormOpts {
                    p,
                    dim,
                    keepdim,
                    dtype: None,
                })
                .map(Out::Tensor)
        }
        "nansum" => reduction!(args, keepdim, nansum, nansum_dim),
        "var_mean" | "std_mean" => {
            let opts = tensile::VarOpts {
                dim: match form(args) {
                    Form::All => None,
                    Form::Dim(d) => Some(std::iter::once(d).collect()),
                    Form::Dims(ds) => Some(ds.iter().copied().collect()),
                },
                correction: kwargs
                    .get("correction")
                    .and_then(|c| c.as_f64())
                    .unwrap_or(1.0),
                keepdim,
            };
            let t = args[0].tensor();
            if op == "std_mean" {
                tensile::std_mean_with(t, opts)
            } else {
                tensile::var_mean_with(t, opts)
            }
            .map(|(a, b)| Out::Tensors(vec![a, b]))
        }
        "std" => reduction!(args, keepdim, std, std_dim),
        "var" => reduction!(args, keepdim, var, var_dim),
        "logsumexp" => reduction!(args, keepdim, logsumexp, logsumexp_dim),
        "prod" => {
            let t = args[0].tensor();
            match form(args) {
                Form::All => t.prod(),
                Form::Dim(d) => t.prod_dim(d, keepdim),
                Form::Dims(_) => panic!("corpus: prod takes one dim"),
            }
            .map(Out::Tensor)
        }
        "argmax" | "argmin" => {
            let t = args[0].tensor();
            match (form(args), op == "argmax") {
                (Form::All, true) => t.argmax(),
                (Form::All, false) => t.argmin(),
                (Form::Dim(d), true) => t.argmax_dim(d, keepdim),
                (Form::Dim(d), false) => t.argmin_dim(d, keepdim),
                (Form::Dims(_), _) => panic!("corpus: {op} takes one dim"),
            }
            .map(Out::Tensor)
        }
        "max_dim" | "min_dim" => {
            let t = args[0].tensor();
            let d = args[1].int();
            if op == "max_dim" {
                t.max_dim(d, keepdim)
            } else {
                t.min_dim(d, keepdim)
            }
            .map(|(v, i)| Out::Tensors(vec![v, i]))
        }
        "matmul" => args[0].tensor().matmul(args[1].tensor()).map(Out::Tensor),
        "cat" | "stack" => {
            let ts: Vec<&Tensor> = match &args[0] {
                Arg::Tensors(ts) => ts.iter().collect(),
                _ => panic!("corpus: {op} takes a list of tensors"),
            };
            let d = args[1].int();
            if op == "cat" {
                tensile::cat_with(&ts, d)
            } else {
                tensile::stack_with(&ts, d)
            }
            .map(Out::Tensor)
        }
        _ => return None,
    };
    Some(r)
}
