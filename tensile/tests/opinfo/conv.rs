//! Convolutions: `F.conv1d/2d/3d`, `F.conv_transpose1d/2d/3d`, `F.unfold` (im2col) and
//! `F.fold` (col2im). Options are keywords as the corpus writes them (`stride=2` or
//! `stride=[1, 2]`, `padding='same'`).

use super::{Arg, Args, Dom, OpInfo, P, Sample, Sig};
use tensile::nn::functional as F;
use tensile::{Result, Tensor};

/// An int-or-list argument at position `i` or keyword `k`, or `[default]` when absent.
fn ints(a: &Args, i: usize, k: &str, default: i64) -> Vec<i64> {
    match a.ints_at(i, k) {
        Some(v) => v.to_vec(),
        None => vec![default],
    }
}

/// [`ints`] as an options field.
fn list(a: &Args, i: usize, k: &str, default: i64) -> tensile::args::IntList {
    ints(a, i, k, default).into_iter().collect()
}

/// `bias` at position 2 or by keyword (a Python `None` is none).
fn bias(a: &Args) -> Option<&Tensor> {
    match a.arg(2, "bias") {
        Some(Arg::Tensor(b)) => Some(b),
        _ => None,
    }
}

/// `F.convNd(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`.
fn conv_opts(a: &Args) -> F::ConvOpts<'_> {
    F::ConvOpts {
        bias: bias(a),
        stride: list(a, 3, "stride", 1),
        padding: match a.arg(4, "padding") {
            Some(Arg::Str(s)) => F::ConvPadding::Str(s.as_str()),
            _ => F::ConvPadding::from(ints(a, 4, "padding", 0)),
        },
        dilation: list(a, 5, "dilation", 1),
        groups: a.int_at(6, "groups").unwrap_or(1),
    }
}

/// `F.conv_transposeNd(input, weight, bias=None, stride=1, padding=0, output_padding=0,
/// groups=1, dilation=1)`.
fn transpose_opts(a: &Args) -> F::ConvTransposeOpts<'_> {
    F::ConvTransposeOpts {
        bias: bias(a),
        stride: list(a, 3, "stride", 1),
        padding: list(a, 4, "padding", 0),
        output_padding: list(a, 5, "output_padding", 0),
        groups: a.int_at(6, "groups").unwrap_or(1),
        dilation: list(a, 7, "dilation", 1),
    }
}

type Conv = for<'a> fn(&Tensor, &Tensor, F::ConvOpts<'a>) -> Result<Tensor>;
type ConvT = for<'a> fn(&Tensor, &Tensor, F::ConvTransposeOpts<'a>) -> Result<Tensor>;

fn conv(a: &Args, f: Conv) -> Result<Tensor> {
    f(a.t(0), a.t(1), conv_opts(a))
}

fn conv_t(a: &Args, f: ConvT) -> Result<Tensor> {
    f(a.t(0), a.t(1), transpose_opts(a))
}

const fn t(shape: &'static [usize]) -> P {
    P::T(Dom::Any, shape)
}

const fn other(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call)
}

pub static OPS: &[OpInfo] = &[
    other("conv1d", |a| conv(a, |x, w, o| F::conv1d_with(x, w, o)))
        .grad(&[Sample::new(&[t(&[1, 2, 5]), t(&[3, 2, 2])])
            .kw(&[("bias", t(&[3]))])
            .no_bcast()])
        .bench("F.conv1d"),
    other("conv2d", |a| conv(a, |x, w, o| F::conv2d_with(x, w, o)))
        .grad(&[Sample::new(&[t(&[1, 2, 3, 3]), t(&[2, 1, 2, 2])])
            .kw(&[
                ("bias", t(&[2])),
                ("stride", P::Ints(&[1, 2])),
                ("padding", P::Ints(&[1, 0])),
                ("groups", P::Int(2)),
            ])
            .no_bcast()])
        .bench("F.conv2d"),
    other("conv3d", |a| conv(a, |x, w, o| F::conv3d_with(x, w, o))).grad(&[Sample::new(&[
        t(&[1, 1, 2, 3, 3]),
        t(&[2, 1, 1, 2, 2]),
    ])
    .no_bcast()]),
    other("conv_transpose1d", |a| {
        conv_t(a, |x, w, o| F::conv_transpose1d_with(x, w, o))
    })
    .grad(&[Sample::new(&[t(&[1, 2, 3]), t(&[2, 2, 2])])
        .kw(&[("bias", t(&[2])), ("stride", P::Ints(&[2]))])
        .no_bcast()]),
    other("conv_transpose2d", |a| {
        conv_t(a, |x, w, o| F::conv_transpose2d_with(x, w, o))
    })
    .grad(&[Sample::new(&[t(&[1, 2, 2, 2]), t(&[2, 1, 2, 2])]).no_bcast()]),
    other("conv_transpose3d", |a| {
        conv_t(a, |x, w, o| F::conv_transpose3d_with(x, w, o))
    })
    .grad(&[Sample::new(&[t(&[1, 1, 1, 2, 2]), t(&[1, 2, 1, 2, 2])]).no_bcast()]),
    // `F.unfold(x, kernel_size=…)`: one positional argument, where `x.unfold(d, size, step)`
    // (the views family's) takes four
    OpInfo::new("F.unfold", Sig::Args(1), |a| {
        F::unfold_with(
            a.t(0),
            ints(a, usize::MAX, "kernel_size", 1),
            (
                ints(a, usize::MAX, "dilation", 1),
                ints(a, usize::MAX, "padding", 0),
                ints(a, usize::MAX, "stride", 1),
            ),
        )
    })
    .aliases(&["unfold"])
    .grad(&[Sample::new(&[t(&[1, 2, 3, 3])])
        .kw(&[("kernel_size", P::Ints(&[2, 2]))])
        .named("unfold (im2col)")]),
    other("fold", |a| {
        F::fold_with(
            a.t(0),
            ints(a, usize::MAX, "output_size", 1),
            ints(a, usize::MAX, "kernel_size", 1),
            (
                ints(a, usize::MAX, "dilation", 1),
                ints(a, usize::MAX, "padding", 0),
                ints(a, usize::MAX, "stride", 1),
            ),
        )
    })
    .grad(&[Sample::new(&[t(&[1, 8, 4])])
        .kw(&[
            ("output_size", P::Ints(&[3, 3])),
            ("kernel_size", P::Ints(&[2, 2])),
        ])
        .named("fold (col2im)")]),
];
