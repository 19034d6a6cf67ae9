//! The one-tensor ops of the `math` family (unary math functions, their in-place forms, and
//! the `torch.nn.functional` activations with their `inplace=True` forms), for the
//! conformance runner.
use super::{Arg, Out, kw_arg, kw_bool, kw_int, kw_str};
use tensile::nn::functional as F;
use tensile::{NanToNumOpts, Tensor};

/// A number keyword argument (`{"scalar": …}`, or a plain JSON number as the `grad`
/// family writes it), as f64.
fn kw_num(kw: &serde_json::Value, name: &str) -> Option<f64> {
    match kw_arg(kw, name) {
        Some(Arg::Scalar(s)) => Some(s.to_f64()),
        _ => kw.get(name).and_then(|v| v.as_f64()),
    }
}

fn num(a: &Arg) -> f64 {
    match a {
        Arg::Scalar(s) => s.to_f64(),
        _ => panic!("corpus: expected a number"),
    }
}

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let t = || args[0].tensor();
    let inplace = kw_bool(kw, "inplace").unwrap_or(false);
    // An activation with an `inplace=` keyword: `$f` or its in-place form `$f_`.
    macro_rules! act {
        ($f:expr, $f_:expr) => {
            if inplace { $f_ } else { $f }
        };
    }
    let r: tensile::Result<Tensor> = match op {
        "tan" => t().tan(),
        "tan_" => t().tan_(),
        "atan" => t().atan(),
        "atan_" => t().atan_(),
        "asin" => t().asin(),
        "asin_" => t().asin_(),
        "acos" => t().acos(),
        "acos_" => t().acos_(),
        "sinh" => t().sinh(),
        "sinh_" => t().sinh_(),
        "cosh" => t().cosh(),
        "cosh_" => t().cosh_(),
        "asinh" => t().asinh(),
        "asinh_" => t().asinh_(),
        "acosh" => t().acosh(),
        "acosh_" => t().acosh_(),
        "atanh" => t().atanh(),
        "atanh_" => t().atanh_(),
        "exp2" => t().exp2(),
        "exp2_" => t().exp2_(),
        "expm1" => t().expm1(),
        "expm1_" => t().expm1_(),
        "log1p" => t().log1p(),
        "log1p_" => t().log1p_(),
        "log2" => t().log2(),
        "log2_" => t().log2_(),
        "log10" => t().log10(),
        "log10_" => t().log10_(),
        "erfc" => t().erfc(),
        "erfc_" => t().erfc_(),
        "erfinv" => t().erfinv(),
        "erfinv_" => t().erfinv_(),
        "lgamma" => t().lgamma(),
        "lgamma_" => t().lgamma_(),
        "digamma" => t().digamma(),
        "digamma_" => t().digamma_(),
        "sinc" => t().sinc(),
        "sinc_" => t().sinc_(),
        "deg2rad" => t().deg2rad(),
        "deg2rad_" => t().deg2rad_(),
        "rad2deg" => t().rad2deg(),
        "rad2deg_" => t().rad2deg_(),
        "frac" => t().frac(),
        "frac_" => t().frac_(),
        "logit" => t().logit_with(kw_num(kw, "eps")),
        "logit_" => t().logit_with_(kw_num(kw, "eps")),
        "nan_to_num" | "nan_to_num_" => {
            let opts = NanToNumOpts {
                nan: Some(kw_num(kw, "nan").unwrap_or(0.0)),
                posinf: kw_num(kw, "posinf"),
                neginf: kw_num(kw, "neginf"),
            };
            if op == "nan_to_num" {
                t().nan_to_num_with(opts)
            } else {
                t().nan_to_num_with_(opts)
            }
        }
        "signbit" => t().signbit(),
        "isinf" => t().isinf(),
        "isposinf" => t().isposinf(),
        "isneginf" => t().isneginf(),
        "isfinite" => t().isfinite(),
        "isreal" => t().isreal(),
        "softplus" => {
            let d = F::SoftplusOpts::default();
            F::softplus_with(
                t(),
                F::SoftplusOpts {
                    beta: kw_num(kw, "beta").unwrap_or(d.beta),
                    threshold: kw_num(kw, "threshold").unwrap_or(d.threshold),
                },
            )
        }
        "leaky_relu" => {
            let s = args
                .get(1)
                .map(num)
                .or(kw_num(kw, "negative_slope"))
                .unwrap_or(0.01);
            act!(F::leaky_relu_with(t(), s), F::leaky_relu_with_(t(), s))
        }
        "elu" => {
            let a = kw_num(kw, "alpha").unwrap_or(1.0);
            act!(F::elu_with(t(), a), F::elu_with_(t(), a))
        }
        "celu" => {
            let a = kw_num(kw, "alpha").unwrap_or(1.0);
            act!(F::celu_with(t(), a), F::celu_with_(t(), a))
        }
        "selu" => act!(F::selu(t()), F::selu_(t())),
        "hardswish" => act!(F::hardswish(t()), F::hardswish_(t())),
        "hardsigmoid" => act!(F::hardsigmoid(t()), F::hardsigmoid_(t())),
        "hardtanh" => {
            let o = F::HardtanhOpts {
                min_val: kw_num(kw, "min_val").unwrap_or(-1.0),
                max_val: kw_num(kw, "max_val").unwrap_or(1.0),
            };
            act!(F::hardtanh_with(t(), o), F::hardtanh_with_(t(), o))
        }
        "relu6" => act!(F::relu6(t()), F::relu6_(t())),
        "relu" => act!(F::relu(t()), F::relu_(t())),
        "mish" => act!(F::mish(t()), F::mish_(t())),
        "threshold" => {
            let (th, v) = match (&args[1], &args[2]) {
                (Arg::Scalar(a), Arg::Scalar(b)) => (*a, *b),
                _ => panic!("corpus: threshold numbers"),
            };
            act!(F::threshold(t(), th, v), F::threshold_(t(), th, v))
        }
        "logsigmoid" => F::logsigmoid(t()),
        "softsign" => F::softsign(t()),
        "tanhshrink" => F::tanhshrink(t()),
        "gelu" => F::gelu_with(t(), kw_str(kw, "approximate").unwrap_or("none")),
        "glu" => F::glu_with(t(), kw_int(kw, "dim").unwrap_or(-1)),
        "prelu" => F::prelu(t(), args[1].tensor()),
        _ => return None,
    };
    Some(r.map(Out::Tensor))
}
