//! Pooling and resampling: `F.max_pool1d/2d/3d` (`return_indices=`), `F.avg_pool1d/2d/3d`,
//! the adaptive pools, `F.lp_pool1d/2d`, `F.max_unpool1d/2d`, `F.pixel_shuffle`,
//! `F.pixel_unshuffle` and `F.interpolate`. Arguments positional (the bench) or keywords
//! (the corpus).

use super::{Arg, Args, Dom, OpInfo, P, Ret, Sample, Sig};
use tensile::args::IntList;
use tensile::nn::functional as F;
use tensile::{Result, Scalar, Tensor};

/// An int-or-list argument as an options field.
fn list(v: &[i64]) -> IntList {
    v.iter().copied().collect()
}

/// `kernel_size` (position 1, or 2 after unpooling's indices or lp-pooling's norm).
fn kernel(a: &Args, i: usize) -> &[i64] {
    a.ints_at(i, "kernel_size")
        .expect("opinfo: a pool takes kernel_size")
}

/// `stride=` (position `i` or keyword; `None`: the kernel size).
fn stride(a: &Args, i: usize) -> Option<IntList> {
    a.ints_at(i, "stride").map(list)
}

/// An int-list keyword or position with a default.
fn ints_or(a: &Args, i: usize, k: &str, default: i64) -> IntList {
    a.ints_at(i, k)
        .map(list)
        .unwrap_or_else(|| list(&[default]))
}

fn max_opts(a: &Args) -> F::MaxPoolOpts {
    F::MaxPoolOpts {
        stride: stride(a, 2),
        padding: ints_or(a, 3, "padding", 0),
        dilation: ints_or(a, 4, "dilation", 1),
        ceil_mode: a.kw_bool("ceil_mode").unwrap_or(false),
    }
}

fn avg_opts(a: &Args) -> F::AvgPoolOpts {
    F::AvgPoolOpts {
        stride: stride(a, 2),
        padding: ints_or(a, 3, "padding", 0),
        ceil_mode: a.kw_bool("ceil_mode").unwrap_or(false),
        count_include_pad: a.kw_bool("count_include_pad").unwrap_or(true),
        divisor_override: a.kw_int("divisor_override"),
    }
}

/// An adaptive pool's `output_size` (position 1 or keyword): ints, some of them `None`.
fn out_size(a: &Args) -> Vec<Option<i64>> {
    match a.arg(1, "output_size") {
        Some(Arg::Scalar(Scalar::Int(n))) => vec![Some(*n)],
        Some(Arg::Ints(v)) => v.iter().map(|&n| Some(n)).collect(),
        Some(Arg::OptInts(v)) => v.clone(),
        _ => panic!("opinfo: an adaptive pool takes output_size"),
    }
}

type MaxPool = fn(&Tensor, &[i64], F::MaxPoolOpts) -> Result<Tensor>;
type MaxPoolIdx = fn(&Tensor, &[i64], F::MaxPoolOpts) -> Result<(Tensor, Tensor)>;

/// `max_poolNd`, with `(values, indices)` when `return_indices=True`.
fn max_pool(a: &Args, f: MaxPool, fi: MaxPoolIdx) -> Result<Ret> {
    if a.kw_bool("return_indices") == Some(true) {
        fi(a.t(0), kernel(a, 1), max_opts(a)).map(|(v, i)| Ret::Many(vec![v, i]))
    } else {
        f(a.t(0), kernel(a, 1), max_opts(a)).map(Ret::One)
    }
}

type Adaptive = fn(&Tensor, Vec<Option<i64>>) -> Result<Tensor>;
type AdaptiveIdx = fn(&Tensor, Vec<Option<i64>>) -> Result<(Tensor, Tensor)>;

fn adaptive_max(a: &Args, f: Adaptive, fi: AdaptiveIdx) -> Result<Ret> {
    if a.kw_bool("return_indices") == Some(true) {
        fi(a.t(0), out_size(a)).map(|(v, i)| Ret::Many(vec![v, i]))
    } else {
        f(a.t(0), out_size(a)).map(Ret::One)
    }
}

/// `lp_poolNd(x, norm_type, kernel_size, stride=None, ceil_mode=False)`.
fn lp_pool(a: &Args, two: bool) -> Result<Tensor> {
    let norm = match a.arg(1, "norm_type") {
        Some(Arg::Scalar(s)) => *s,
        _ => Scalar::Float(2.0),
    };
    let o = F::LpPoolOpts {
        stride: stride(a, 3),
        ceil_mode: a.kw_bool("ceil_mode").unwrap_or(false),
    };
    if two {
        F::lp_pool2d_with(a.t(0), norm, kernel(a, 2), o)
    } else {
        F::lp_pool1d_with(a.t(0), norm, kernel(a, 2), o)
    }
}

/// `max_unpoolNd(x, indices, kernel_size, stride=None, padding=0, output_size=None)`.
fn max_unpool(a: &Args, two: bool) -> Result<Tensor> {
    let o = F::MaxUnpoolOpts {
        stride: stride(a, 3),
        padding: ints_or(a, 4, "padding", 0),
        output_size: a.ints_at(5, "output_size").map(list),
    };
    if two {
        F::max_unpool2d_with(a.t(0), a.t(1), kernel(a, 2), o)
    } else {
        F::max_unpool1d_with(a.t(0), a.t(1), kernel(a, 2), o)
    }
}

/// `F.interpolate(x, size=None, scale_factor=None, mode='nearest', align_corners=None,
/// recompute_scale_factor=None, antialias=False)`.
fn interpolate(a: &Args) -> Result<Tensor> {
    let scale = match a.arg(2, "scale_factor") {
        None => None,
        Some(Arg::Scalar(s)) => Some(vec![s.to_f64()]),
        Some(Arg::Ints(v)) => Some(v.iter().map(|&n| n as f64).collect()),
        Some(Arg::Floats(v)) => Some(v.clone()),
        _ => panic!("opinfo: scale_factor is a number or a list"),
    };
    F::interpolate_with(
        a.t(0),
        F::InterpolateOpts {
            size: a.ints_at(1, "size").map(list),
            scale_factor: scale,
            mode: match a.arg(3, "mode") {
                Some(Arg::Str(m)) => m,
                _ => "nearest",
            },
            align_corners: a.kw_bool("align_corners"),
            recompute_scale_factor: a.kw_bool("recompute_scale_factor"),
            antialias: a.kw_bool("antialias").unwrap_or(false),
        },
    )
}

const fn t(shape: &'static [usize]) -> P {
    P::T(Dom::Any, shape)
}

const fn other(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call)
}

const fn ret(name: &'static str, call: super::CallRet) -> OpInfo {
    OpInfo::new_ret(name, Sig::Other, super::Adapter::Ret(call))
}

const INDICES: &[(&str, P)] = &[("return_indices", P::Bool(true))];

pub static OPS: &[OpInfo] = &[
    ret("max_pool1d", |a| {
        max_pool(
            a,
            |x, k, o| F::max_pool1d_with(x, k, o),
            |x, k, o| F::max_pool1d_with_indices(x, k, o),
        )
    })
    .grad(&[
        Sample::new(&[t(&[1, 2, 6]), P::Int(2)]),
        Sample::new(&[t(&[1, 2, 6]), P::Int(3)])
            .kw(INDICES)
            .named("max_pool1d_with_indices"),
    ]),
    ret("max_pool2d", |a| {
        max_pool(
            a,
            |x, k, o| F::max_pool2d_with(x, k, o),
            |x, k, o| F::max_pool2d_with_indices(x, k, o),
        )
    })
    .grad(&[
        Sample::new(&[t(&[1, 1, 4, 4]), P::Int(2)]),
        Sample::new(&[t(&[1, 1, 4, 4]), P::Int(2)])
            .kw(INDICES)
            .named("max_pool2d_with_indices"),
    ])
    .bench("F.max_pool2d"),
    ret("max_pool3d", |a| {
        max_pool(
            a,
            |x, k, o| F::max_pool3d_with(x, k, o),
            |x, k, o| F::max_pool3d_with_indices(x, k, o),
        )
    })
    .grad(&[
        Sample::new(&[t(&[1, 1, 2, 2, 4]), P::Int(2)]),
        Sample::new(&[t(&[1, 1, 2, 2, 4]), P::Int(2)])
            .kw(INDICES)
            .named("max_pool3d_with_indices"),
    ]),
    other("avg_pool1d", |a| {
        F::avg_pool1d_with(a.t(0), kernel(a, 1), avg_opts(a))
    })
    .grad(&[Sample::new(&[t(&[1, 2, 6]), P::Int(3)])]),
    other("avg_pool2d", |a| {
        F::avg_pool2d_with(a.t(0), kernel(a, 1), avg_opts(a))
    })
    .grad(&[Sample::new(&[t(&[1, 1, 4, 4]), P::Int(2)])
        .kw(&[("stride", P::Ints(&[1])), ("padding", P::Ints(&[1]))])]),
    other("avg_pool3d", |a| {
        F::avg_pool3d_with(a.t(0), kernel(a, 1), avg_opts(a))
    })
    .grad(&[Sample::new(&[t(&[1, 1, 2, 2, 4]), P::Int(2)])]),
    other("adaptive_avg_pool1d", |a| {
        F::adaptive_avg_pool1d(a.t(0), out_size(a))
    })
    .grad(&[Sample::new(&[t(&[1, 2, 5]), P::Int(3)])]),
    other("adaptive_avg_pool2d", |a| {
        F::adaptive_avg_pool2d(a.t(0), out_size(a))
    })
    .grad(&[Sample::new(&[t(&[1, 1, 3, 5]), P::Ints(&[2, 3])])])
    .bench("F.adaptive_avg_pool2d"),
    ret("adaptive_max_pool1d", |a| {
        adaptive_max(
            a,
            F::adaptive_max_pool1d,
            F::adaptive_max_pool1d_with_indices,
        )
    })
    .grad(&[
        Sample::new(&[t(&[1, 2, 5]), P::Int(3)]),
        Sample::new(&[t(&[1, 2, 5]), P::Int(3)])
            .kw(INDICES)
            .named("adaptive_max_pool1d_with_indices"),
    ]),
    ret("adaptive_max_pool2d", |a| {
        adaptive_max(
            a,
            F::adaptive_max_pool2d,
            F::adaptive_max_pool2d_with_indices,
        )
    })
    .grad(&[
        Sample::new(&[t(&[1, 1, 3, 5]), P::Ints(&[2, 3])]),
        Sample::new(&[t(&[1, 1, 3, 5]), P::Ints(&[2, 3])])
            .kw(INDICES)
            .named("adaptive_max_pool2d_with_indices"),
    ]),
    other("adaptive_avg_pool3d", |a| {
        F::adaptive_avg_pool3d(a.t(0), out_size(a))
    })
    .grad(&[Sample::new(&[t(&[1, 1, 3, 4, 5]), P::Ints(&[2, 3, 2])])]),
    ret("adaptive_max_pool3d", |a| {
        adaptive_max(
            a,
            F::adaptive_max_pool3d,
            F::adaptive_max_pool3d_with_indices,
        )
    })
    .grad(&[
        Sample::new(&[t(&[1, 1, 3, 4, 5]), P::Ints(&[2, 3, 2])]),
        Sample::new(&[t(&[1, 1, 3, 4, 5]), P::Ints(&[2, 3, 2])])
            .kw(INDICES)
            .named("adaptive_max_pool3d_with_indices"),
    ]),
    other("lp_pool1d", |a| lp_pool(a, false)).grad(&[Sample::new(&[
        P::T(Dom::Pos, &[1, 2, 6]),
        P::Num(2.0),
        P::Int(3),
    ])]),
    other("lp_pool2d", |a| lp_pool(a, true)).grad(&[Sample::new(&[
        P::T(Dom::Pos, &[1, 1, 4, 4]),
        P::Num(3.0),
        P::Int(2),
    ])]),
    other("max_unpool1d", |a| max_unpool(a, false)).grad(&[Sample::new(&[
        t(&[1, 1, 3]),
        P::Idx(&[1, 2, 5], &[1, 1, 3]),
        P::Int(2),
    ])]),
    other("max_unpool2d", |a| max_unpool(a, true)).grad(&[Sample::new(&[
        t(&[1, 1, 2, 2]),
        P::Idx(&[0, 3, 9, 14], &[1, 1, 2, 2]),
        P::Int(2),
    ])]),
    other("pixel_shuffle", |a| {
        let r = a
            .int_at(1, "upscale_factor")
            .expect("opinfo: upscale_factor");
        F::pixel_shuffle(a.t(0), r)
    })
    .grad(&[Sample::new(&[t(&[1, 4, 2, 1]), P::Int(2)])])
    .bench("F.pixel_shuffle"),
    other("pixel_unshuffle", |a| {
        let r = a
            .int_at(1, "downscale_factor")
            .expect("opinfo: downscale_factor");
        F::pixel_unshuffle(a.t(0), r)
    })
    .grad(&[Sample::new(&[t(&[1, 1, 2, 4]), P::Int(2)])]),
    other("interpolate", interpolate)
        .grad(&[
            Sample::new(&[t(&[1, 1, 3]), P::Ints(&[5])]).named("interpolate (nearest)"),
            Sample::new(&[t(&[1, 1, 3]), P::Ints(&[5])])
                .kw(&[
                    ("mode", P::Str("linear")),
                    ("align_corners", P::Bool(false)),
                ])
                .named("interpolate (linear)"),
            Sample::new(&[t(&[1, 1, 2, 3]), P::Ints(&[3, 4])])
                .kw(&[
                    ("mode", P::Str("bilinear")),
                    ("align_corners", P::Bool(true)),
                ])
                .named("interpolate (bilinear)"),
            Sample::new(&[t(&[1, 1, 3, 3]), P::Ints(&[4, 4])])
                .kw(&[
                    ("mode", P::Str("bicubic")),
                    ("align_corners", P::Bool(false)),
                ])
                .named("interpolate (bicubic)"),
        ])
        .bench("F.interpolate"),
];
