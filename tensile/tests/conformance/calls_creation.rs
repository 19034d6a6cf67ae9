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
        _ => return None,
    };
    Some(r.map(Out::Tensor))
}
