//! Matrix products: `matmul`, `mm`, `bmm`, `mv`, `dot`, `linalg.vecdot`, `addmm`, `baddbmm`,
//! `F.linear`.

use super::{Arg, Args, Dom, OpInfo, P, Sample, Sig};
use tensile::{Result, Tensor};

const fn t(shape: &'static [usize]) -> P {
    P::T(Dom::Any, shape)
}

/// `beta=` and `alpha=` (default 1), for `addmm` and `baddbmm`.
fn scales(a: &Args) -> Option<(f64, f64)> {
    match (a.kw_f64("beta"), a.kw_f64("alpha")) {
        (None, None) => None,
        (b, al) => Some((b.unwrap_or(1.0), al.unwrap_or(1.0))),
    }
}

/// `torch.addmm(input, mat1, mat2, beta=1, alpha=1)`.
fn addmm(a: &Args) -> Result<Tensor> {
    match scales(a) {
        None => tensile::addmm(a.t(0), a.t(1), a.t(2)),
        Some(s) => tensile::addmm_with(a.t(0), a.t(1), a.t(2), s),
    }
}

/// `torch.baddbmm(input, batch1, batch2, beta=1, alpha=1)`.
fn baddbmm(a: &Args) -> Result<Tensor> {
    match scales(a) {
        None => tensile::baddbmm(a.t(0), a.t(1), a.t(2)),
        Some(s) => tensile::baddbmm_with(a.t(0), a.t(1), a.t(2), s),
    }
}

/// `torch.linalg.vecdot(x, y, dim=-1)`.
fn vecdot(a: &Args) -> Result<Tensor> {
    tensile::linalg::vecdot(a.t(0), a.t(1), a.kw_int("dim").unwrap_or(-1))
}

/// `F.linear(input, weight, bias=None)`.
fn linear(a: &Args) -> Result<Tensor> {
    let bias = match a.arg(2, "bias") {
        Some(Arg::Tensor(b)) => Some(b),
        _ => None,
    };
    tensile::nn::functional::linear_with(a.t(0), a.t(1), bias)
}

const SCALED: &[(&str, P)] = &[("beta", P::Num(0.5)), ("alpha", P::Num(-2.0))];
const SCALED_B: &[(&str, P)] = &[("beta", P::Num(2.0)), ("alpha", P::Num(0.5))];

pub static OPS: &[OpInfo] = &[
    OpInfo::new("matmul", Sig::Args(2), |a| a.t(0).matmul(a.t(1)))
        .grad(&[
            Sample::new(&[t(&[2, 3]), t(&[3, 2])]).bcast(&[&[2, 1, 2, 3], &[3, 3, 2]]),
            Sample::new(&[t(&[3]), t(&[2, 3, 2])])
                .named("matmul (vector)")
                .no_bcast(),
        ])
        .bench("matmul"),
    OpInfo::new("mm", Sig::Args(2), |a| a.t(0).mm(a.t(1)))
        .grad(&[Sample::new(&[t(&[2, 3]), t(&[3, 2])]).no_bcast()])
        .bench("mm"),
    OpInfo::new("bmm", Sig::Args(2), |a| a.t(0).bmm(a.t(1)))
        .grad(&[Sample::new(&[t(&[2, 2, 3]), t(&[2, 3, 2])]).no_bcast()])
        .bench("bmm"),
    OpInfo::new("mv", Sig::Args(2), |a| a.t(0).mv(a.t(1)))
        .grad(&[Sample::new(&[t(&[2, 3]), t(&[3])]).no_bcast()])
        .bench("mv"),
    OpInfo::new("dot", Sig::Args(2), |a| a.t(0).dot(a.t(1)))
        .grad(&[Sample::new(&[t(&[3]), t(&[3])]).no_bcast()])
        .bench("dot"),
    OpInfo::new("vecdot", Sig::Args(2), vecdot)
        .grad(&[Sample::new(&[t(&[2, 3]), t(&[2, 3])]).bcast(&[&[2, 1, 3], &[3]])])
        .bench("linalg.vecdot"),
    OpInfo::new("addmm", Sig::Ternary, addmm).grad(&[
        Sample::new(&[t(&[2, 2]), t(&[2, 3]), t(&[3, 2])]).bcast(&[&[2], &[2, 3], &[3, 2]]),
        Sample::new(&[t(&[2, 2]), t(&[2, 3]), t(&[3, 2])])
            .kw(SCALED)
            .named("addmm_with")
            .bcast(&[&[1, 2], &[2, 3], &[3, 2]]),
    ]),
    OpInfo::new("baddbmm", Sig::Ternary, baddbmm).grad(&[
        Sample::new(&[t(&[2, 2, 2]), t(&[2, 2, 3]), t(&[2, 3, 2])]).bcast(&[
            &[2, 2],
            &[2, 2, 3],
            &[2, 3, 2],
        ]),
        Sample::new(&[t(&[2, 2, 2]), t(&[2, 2, 3]), t(&[2, 3, 2])])
            .kw(SCALED_B)
            .named("baddbmm_with")
            .bcast(&[&[1, 1, 2], &[2, 2, 3], &[2, 3, 2]]),
    ]),
    OpInfo::new("linear", Sig::Other, linear)
        .grad(&[Sample::new(&[t(&[2, 3]), t(&[4, 3]), t(&[4])]).no_bcast()])
        .bench("F.linear"),
];
