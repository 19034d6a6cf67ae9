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

type Fns = (
    fn(&Tensor) -> tensile::Result<Tensor>,
    fn(&Tensor, i64, bool) -> tensile::Result<Tensor>,
    fn(&Tensor, &[i64], bool) -> tensile::Result<Tensor>,
);

fn reduction(f: Fns, args: &[Arg], keepdim: bool) -> tensile::Result<Out> {
    let t = args[0].tensor();
    match form(args) {
        Form::All => f.0(t),
        Form::Dim(d) => f.1(t, d, keepdim),
        Form::Dims(ds) => f.2(t, ds, keepdim),
    }
    .map(Out::Tensor)
}

pub fn call(op: &str, args: &[Arg], kwargs: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let keepdim = kwargs
        .get("keepdim")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let r = match op {
        "sum" => reduction(
            (Tensor::sum, Tensor::sum_dim, Tensor::sum_dims),
            args,
            keepdim,
        ),
        "mean" => reduction(
            (Tensor::mean, Tensor::mean_dim, Tensor::mean_dims),
            args,
            keepdim,
        ),
        "amax" => reduction(
            (Tensor::amax, Tensor::amax_dim, Tensor::amax_dims),
            args,
            keepdim,
        ),
        "amin" => reduction(
            (Tensor::amin, Tensor::amin_dim, Tensor::amin_dims),
            args,
            keepdim,
        ),
        "all" => reduction(
            (Tensor::all, Tensor::all_dim, Tensor::all_dims),
            args,
            keepdim,
        ),
        "any" => reduction(
            (Tensor::any, Tensor::any_dim, Tensor::any_dims),
            args,
            keepdim,
        ),
        "std" => reduction(
            (Tensor::std, Tensor::std_dim, Tensor::std_dims),
            args,
            keepdim,
        ),
        "var" => reduction(
            (Tensor::var, Tensor::var_dim, Tensor::var_dims),
            args,
            keepdim,
        ),
        "logsumexp" => reduction(
            (
                Tensor::logsumexp,
                Tensor::logsumexp_dim,
                Tensor::logsumexp_dims,
            ),
            args,
            keepdim,
        ),
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
            let dim = match form(args) {
                Form::All => None,
                Form::Dim(d) => Some(d),
                Form::Dims(_) => panic!("corpus: {op} takes one dim"),
            };
            if op == "argmax" {
                t.argmax(dim, keepdim)
            } else {
                t.argmin(dim, keepdim)
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
                Tensor::cat(&ts, d)
            } else {
                Tensor::stack(&ts, d)
            }
            .map(Out::Tensor)
        }
        _ => return None,
    };
    Some(r)
}
