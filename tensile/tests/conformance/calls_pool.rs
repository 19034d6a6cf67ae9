//! Ops of the `pool` family (`torch.nn.functional` pooling, unpooling, pixel shuffle and
//! interpolate), for the conformance runner.
use super::{Arg, Out, kw_bool, kw_int, kw_str};
use serde_json::Value;
use tensile::nn::functional as F;
use tensile::nn::functional::{
    AvgPoolOpts, InterpolateOpts, LpPoolOpts, MaxPoolOpts, MaxUnpoolOpts,
};

/// An int-list kwarg (a single int is a one-element list); `None` when absent or null.
fn kw_list(kw: &Value, name: &str) -> Option<Vec<i64>> {
    match kw.get(name)? {
        Value::Null => None,
        Value::Array(a) => Some(a.iter().map(|v| v.as_i64().expect("int")).collect()),
        v => Some(vec![v.as_i64().expect("int")]),
    }
}

/// A list kwarg whose entries may be null.
fn kw_opt_list(kw: &Value, name: &str) -> Vec<Option<i64>> {
    match &kw[name] {
        Value::Array(a) => a.iter().map(|v| v.as_i64()).collect(),
        v => vec![v.as_i64()],
    }
}

/// A float-list kwarg (a single number is a one-element list).
fn kw_floats(kw: &Value, name: &str) -> Option<Vec<f64>> {
    match kw.get(name)? {
        Value::Null => None,
        Value::Array(a) => Some(a.iter().map(|v| v.as_f64().expect("number")).collect()),
        v => Some(vec![v.as_f64().expect("number")]),
    }
}

pub fn call(op: &str, args: &[Arg], kw: &Value) -> Option<tensile::Result<Out>> {
    let t = || args[0].tensor();
    let one = |r: tensile::Result<tensile::Tensor>| Some(r.map(Out::Tensor));
    let two = |r: tensile::Result<(tensile::Tensor, tensile::Tensor)>| {
        Some(r.map(|(a, b)| Out::Tensors(vec![a, b])))
    };
    let ks = || kw_list(kw, "kernel_size").unwrap_or_default();
    let ri = kw_bool(kw, "return_indices").unwrap_or(false);
    let stride = || kw_list(kw, "stride").map(|v| v.into_iter().collect());
    let mp = || MaxPoolOpts {
        stride: stride(),
        padding: kw_list(kw, "padding")
            .unwrap_or(vec![0])
            .into_iter()
            .collect(),
        dilation: kw_list(kw, "dilation")
            .unwrap_or(vec![1])
            .into_iter()
            .collect(),
        ceil_mode: kw_bool(kw, "ceil_mode").unwrap_or(false),
    };
    let ap = || AvgPoolOpts {
        stride: stride(),
        padding: kw_list(kw, "padding")
            .unwrap_or(vec![0])
            .into_iter()
            .collect(),
        ceil_mode: kw_bool(kw, "ceil_mode").unwrap_or(false),
        count_include_pad: kw_bool(kw, "count_include_pad").unwrap_or(true),
        divisor_override: kw_int(kw, "divisor_override"),
    };
    let lp = || LpPoolOpts {
        stride: stride(),
        ceil_mode: kw_bool(kw, "ceil_mode").unwrap_or(false),
    };
    let up = || MaxUnpoolOpts {
        stride: stride(),
        padding: kw_list(kw, "padding")
            .unwrap_or(vec![0])
            .into_iter()
            .collect(),
        output_size: kw_list(kw, "output_size").map(|v| v.into_iter().collect()),
    };
    let norm = || kw.get("norm_type").and_then(|v| v.as_f64()).unwrap_or(2.0);
    match op {
        "max_pool1d" if ri => two(F::max_pool1d_with_indices(t(), ks(), mp())),
        "max_pool1d" => one(F::max_pool1d_with(t(), ks(), mp())),
        "max_pool2d" if ri => two(F::max_pool2d_with_indices(t(), ks(), mp())),
        "max_pool2d" => one(F::max_pool2d_with(t(), ks(), mp())),
        "max_pool3d" if ri => two(F::max_pool3d_with_indices(t(), ks(), mp())),
        "max_pool3d" => one(F::max_pool3d_with(t(), ks(), mp())),
        "avg_pool1d" => one(F::avg_pool1d_with(t(), ks(), ap())),
        "avg_pool2d" => one(F::avg_pool2d_with(t(), ks(), ap())),
        "avg_pool3d" => one(F::avg_pool3d_with(t(), ks(), ap())),
        "adaptive_avg_pool1d" => one(F::adaptive_avg_pool1d(t(), kw_opt_list(kw, "output_size"))),
        "adaptive_avg_pool2d" => one(F::adaptive_avg_pool2d(t(), kw_opt_list(kw, "output_size"))),
        "adaptive_max_pool1d" if ri => two(F::adaptive_max_pool1d_with_indices(
            t(),
            kw_opt_list(kw, "output_size"),
        )),
        "adaptive_max_pool1d" => one(F::adaptive_max_pool1d(t(), kw_opt_list(kw, "output_size"))),
        "adaptive_max_pool2d" if ri => two(F::adaptive_max_pool2d_with_indices(
            t(),
            kw_opt_list(kw, "output_size"),
        )),
        "adaptive_max_pool2d" => one(F::adaptive_max_pool2d(t(), kw_opt_list(kw, "output_size"))),
        "lp_pool1d" => one(F::lp_pool1d_with(t(), norm(), ks(), lp())),
        "lp_pool2d" => one(F::lp_pool2d_with(t(), norm(), ks(), lp())),
        "max_unpool1d" => one(F::max_unpool1d_with(t(), args[1].tensor(), ks(), up())),
        "max_unpool2d" => one(F::max_unpool2d_with(t(), args[1].tensor(), ks(), up())),
        "pixel_shuffle" => one(F::pixel_shuffle(t(), kw_int(kw, "upscale_factor")?)),
        "pixel_unshuffle" => one(F::pixel_unshuffle(t(), kw_int(kw, "downscale_factor")?)),
        "interpolate" => one(F::interpolate_with(
            t(),
            InterpolateOpts {
                size: kw_list(kw, "size").map(|v| v.into_iter().collect()),
                scale_factor: kw_floats(kw, "scale_factor"),
                mode: kw_str(kw, "mode").unwrap_or("nearest"),
                align_corners: kw_bool(kw, "align_corners"),
                recompute_scale_factor: kw_bool(kw, "recompute_scale_factor"),
                antialias: kw_bool(kw, "antialias").unwrap_or(false),
            },
        )),
        _ => None,
    }
}
