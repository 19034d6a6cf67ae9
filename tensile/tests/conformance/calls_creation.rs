//! Ops of the `creation` family, for the conformance runner.
use super::{Arg, Out, kw_arg};
use tensile::{Scalar, Tensor, TensorOptions};

fn scalar(a: &Arg) -> Scalar {
    match a {
        Arg::Scalar(s) => *s,
        Arg::Int(i) => Scalar::Int(*i),
        _ => panic!("corpus: expected a number"),
    }
}

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let opts = TensorOptions {
        dtype: match kw_arg(kw, "dtype") {
            Some(Arg::DType(d)) => Some(d),
            _ => None,
        },
    };
    let r = match op {
        "arange" => match args {
            [e] => Tensor::arange_with(scalar(e), opts),
            [s, e] => Tensor::arange_with((scalar(s), scalar(e)), opts),
            [s, e, st] => Tensor::arange_with((scalar(s), scalar(e), scalar(st)), opts),
            _ => panic!("corpus: arange arity"),
        },
        "zeros" => Tensor::zeros_with(args[0].list(), opts),
        "ones" => Tensor::ones_with(args[0].list(), opts),
        "full" => Tensor::full_with(args[0].list(), scalar(&args[1]), opts),
        "zeros_like" => Tensor::zeros_like_with(args[0].tensor(), opts),
        "ones_like" => Tensor::ones_like_with(args[0].tensor(), opts),
        "empty_like" => Tensor::empty_like_with(args[0].tensor(), opts),
        "full_like" => Tensor::full_like_with(args[0].tensor(), scalar(&args[1]), opts),
        "linspace" => {
            Tensor::linspace_with(scalar(&args[0]), scalar(&args[1]), args[2].int(), opts)
        }
        "logspace" => {
            let base = match kw_arg(kw, "base") {
                Some(a) => scalar(&a).to_f64(),
                None => 10.0,
            };
            let lo = tensile::LogspaceOpts {
                base,
                dtype: opts.dtype,
            };
            Tensor::logspace_with(scalar(&args[0]), scalar(&args[1]), args[2].int(), lo)
        }
        "eye" => Tensor::eye_with(
            args[0].int(),
            tensile::EyeOpts {
                m: args.get(1).map(|a| a.int()),
                dtype: opts.dtype,
            },
        ),
        "tril_indices" | "triu_indices" => {
            let off = args.get(2).map(|a| a.int()).unwrap_or(0);
            if op == "tril_indices" {
                tensile::tril_indices_with(args[0].int(), args[1].int(), off)
            } else {
                tensile::triu_indices_with(args[0].int(), args[1].int(), off)
            }
        }
        "one_hot" => match args.get(1) {
            Some(k) => tensile::nn::functional::one_hot_with(args[0].tensor(), k.int()),
            None => tensile::nn::functional::one_hot(args[0].tensor()),
        },
        "meshgrid" => {
            let ts: Vec<&Tensor> = args.iter().map(|a| a.tensor()).collect();
            let indexing = kw.get("indexing").and_then(|v| v.as_str()).unwrap_or("ij");
            return Some(tensile::meshgrid_with(&ts, indexing).map(Out::Tensors));
        }
        _ => return None,
    };
    Some(r.map(Out::Tensor))
}
