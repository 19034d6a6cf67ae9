//! Ops of the `conv` family (F.conv1d/2d/3d, F.conv_transpose1d/2d, F.unfold, F.fold), for
//! the conformance runner.
use super::{Arg, Out, kw_arg, kw_int};
use serde_json::Value;
use tensile::nn::functional as F;

/// An int-or-list keyword (`stride: 2` or `stride: [1, 2]`), or `default` when absent.
fn ints(kw: &Value, name: &str, default: i64) -> Vec<i64> {
    match kw.get(name) {
        Some(Value::Array(a)) => a.iter().map(|v| v.as_i64().unwrap()).collect(),
        Some(v) if v.is_i64() => vec![v.as_i64().unwrap()],
        _ => vec![default],
    }
}

pub fn call(op: &str, args: &[Arg], kw: &Value) -> Option<tensile::Result<Out>> {
    let one = |r: tensile::Result<tensile::Tensor>| Some(r.map(Out::Tensor));
    let is_conv = matches!(
        op,
        "conv1d" | "conv2d" | "conv3d" | "conv_transpose1d" | "conv_transpose2d"
    );
    if op == "unfold" && kw.get("kernel_size").is_none() {
        return None;
    }
    if !is_conv && op != "unfold" && op != "fold" {
        return None;
    }
    let x = args[0].tensor();
    let bias_arg = kw_arg(kw, "bias");
    let bias = bias_arg.as_ref().map(|a| a.tensor());
    let groups = kw_int(kw, "groups").unwrap_or(1);
    match op {
        "conv1d" | "conv2d" | "conv3d" => {
            let padding = match kw.get("padding") {
                Some(Value::String(s)) => F::ConvPadding::Str(s.as_str()),
                _ => F::ConvPadding::from(ints(kw, "padding", 0)),
            };
            let o = F::ConvOpts {
                bias,
                stride: ints(kw, "stride", 1).into_iter().collect(),
                padding,
                dilation: ints(kw, "dilation", 1).into_iter().collect(),
                groups,
            };
            let w = args[1].tensor();
            one(match op {
                "conv1d" => F::conv1d_with(x, w, o),
                "conv2d" => F::conv2d_with(x, w, o),
                _ => F::conv3d_with(x, w, o),
            })
        }
        "conv_transpose1d" | "conv_transpose2d" => {
            let o = F::ConvTransposeOpts {
                bias,
                stride: ints(kw, "stride", 1).into_iter().collect(),
                padding: ints(kw, "padding", 0).into_iter().collect(),
                output_padding: ints(kw, "output_padding", 0).into_iter().collect(),
                groups,
                dilation: ints(kw, "dilation", 1).into_iter().collect(),
            };
            let w = args[1].tensor();
            one(if op == "conv_transpose1d" {
                F::conv_transpose1d_with(x, w, o)
            } else {
                F::conv_transpose2d_with(x, w, o)
            })
        }
        "unfold" => one(F::unfold_with(
            x,
            ints(kw, "kernel_size", 1),
            (
                ints(kw, "dilation", 1),
                ints(kw, "padding", 0),
                ints(kw, "stride", 1),
            ),
        )),
        "fold" => one(F::fold_with(
            x,
            ints(kw, "output_size", 1),
            ints(kw, "kernel_size", 1),
            (
                ints(kw, "dilation", 1),
                ints(kw, "padding", 0),
                ints(kw, "stride", 1),
            ),
        )),
        _ => None,
    }
}
