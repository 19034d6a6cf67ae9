//! Convolutions: `F.conv1d/2d/3d`, `F.conv_transpose1d/2d/3d`, `F.unfold` (im2col) and
//! `F.fold` (col2im). Options are keywords as the corpus writes them (`stride=2` or
//! `stride=[1, 2]`, `padding='same'`).

use super::{Arg, Args, Dom, OpInfo, P, Sample, Sig};
use tensile::nn::functional as F;
use tensile::{Result, Tensor};

/// An int-or-list keyword, or `[default]` when absent.
fn ints(a: &Args, k: &str, default: i64) -> Vec<i64> {
    match a.ints_at(usize::MAX, k) {
        Some(v) => v.to_vec(),
        None => vec![default],
    }
}

/// [`ints`] as an options field.
fn list(a: &Args, k: &str, default: i64) -> tensile::args::IntList {
    ints(a, k, default).into_iter().collect()
}

fn conv_opts(a: &Args) -> F::ConvOpts<'_> {
    F::ConvOpts {
        bias: a.kw_tensor("bias"),
        stride: list(a, "stride", 1),
        padding: match a.kw_arg("padding") {
            Some(Arg::Str(s)) => F::ConvPadding::Str(s.as_str()),
            _ => F::ConvPadding::from(ints(a, "padding", 0)),
        },
        dilation: list(a, "dilation", 1),
        groups: a.kw_int("groups").unwrap_or(1),
    }
}

fn transpose_opts(a: &Args) -> F::ConvTransposeOpts<'_> {
    F::ConvTransposeOpts {
        bias: a.kw_tensor("bias"),
        stride: list(a, "stride", 1),
        padding: list(a, "padding", 0),
        output_padding: list(a, "output_padding", 0),
        groups: a.kw_int("groups").unwrap_or(1),
        dilation: list(a, "dilation", 1),
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
            ints(a, "kernel_size", 1),
            (
                ints(a, "dilation", 1),
                ints(a, "padding", 0),
                ints(a, "stride", 1),
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
            ints(a, "output_size", 1),
            ints(a, "kernel_size", 1),
            (
                ints(a, "dilation", 1),
                ints(a, "padding", 0),
                ints(a, "stride", 1),
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
