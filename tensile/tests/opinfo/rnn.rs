//! Recurrent layers: the cells (`torch.lstm_cell`, `gru_cell`, `rnn_tanh_cell`,
//! `rnn_relu_cell`) and the sequences (`torch.lstm`, `gru`, `rnn_tanh`, `rnn_relu`).

use super::{Adapter, Arg, Args, Dom, OpInfo, P, Ret, Sample, Sig};
use tensile::{Result, RnnCellOpts, RnnOpts, Tensor};

/// The list of tensors at position `i` (`(h, c)`, the weights).
fn list(a: &Args, i: usize) -> &[Tensor] {
    match a.pos.get(i) {
        Some(Arg::Tensors(v)) => v,
        _ => panic!("opinfo: argument {i} is a list of tensors"),
    }
}

/// A cell's `b_ih=` and `b_hh=`.
fn cell_opts(a: &Args) -> RnnCellOpts<'_> {
    RnnCellOpts {
        b_ih: a.kw_tensor("b_ih"),
        b_hh: a.kw_tensor("b_hh"),
    }
}

/// A sequence's `has_biases`, `num_layers`, `dropout`, `train`, `bidirectional`,
/// `batch_first` (keywords).
fn seq_opts(a: &Args) -> RnnOpts {
    RnnOpts {
        has_biases: a.kw_bool("has_biases").unwrap_or(true),
        num_layers: a.kw_int("num_layers").unwrap_or(1),
        dropout: a.kw_f64("dropout").unwrap_or(0.0),
        train: a.kw_bool("train").unwrap_or(false),
        bidirectional: a.kw_bool("bidirectional").unwrap_or(false),
        batch_first: a.kw_bool("batch_first").unwrap_or(false),
    }
}

type Seq = fn(&Tensor, &Tensor, &[Tensor], RnnOpts) -> Result<(Tensor, Tensor)>;

/// `gru`, `rnn_tanh`, `rnn_relu`: `(output, h_n)`.
fn seq(a: &Args, f: Seq) -> Result<Ret> {
    f(a.t(0), a.t(1), list(a, 2), seq_opts(a)).map(|(o, h)| Ret::Many(vec![o, h]))
}

const fn t(shape: &'static [usize]) -> P {
    P::T(Dom::Any, shape)
}

const fn ret(name: &'static str, call: super::CallRet) -> OpInfo {
    OpInfo::new_ret(name, Sig::Other, Adapter::Ret(call))
}

/// No biases: `has_biases=False`.
const NO_BIAS: &[(&str, P)] = &[("has_biases", P::Bool(false))];

pub static OPS: &[OpInfo] = &[
    ret("lstm_cell", |a| {
        tensile::lstm_cell_with(a.t(0), list(a, 1), a.t(2), a.t(3), cell_opts(a))
            .map(|(h, c)| Ret::Many(vec![h, c]))
    })
    .grad(&[Sample::new(&[
        t(&[2, 3]),
        P::Ts(&[(Dom::Any, &[2, 2]), (Dom::Any, &[2, 2])]),
        t(&[8, 3]),
        t(&[8, 2]),
    ])
    .no_bcast()]),
    OpInfo::new("gru_cell", Sig::Other, |a| {
        tensile::gru_cell_with(a.t(0), a.t(1), a.t(2), a.t(3), cell_opts(a))
    })
    .grad(&[Sample::new(&[t(&[2, 3]), t(&[2, 2]), t(&[6, 3]), t(&[6, 2])]).no_bcast()]),
    OpInfo::new("rnn_tanh_cell", Sig::Other, |a| {
        tensile::rnn_tanh_cell_with(a.t(0), a.t(1), a.t(2), a.t(3), cell_opts(a))
    })
    .grad(&[Sample::new(&[t(&[2, 3]), t(&[2, 2]), t(&[2, 3]), t(&[2, 2])]).no_bcast()]),
    OpInfo::new("rnn_relu_cell", Sig::Other, |a| {
        tensile::rnn_relu_cell_with(a.t(0), a.t(1), a.t(2), a.t(3), cell_opts(a))
    })
    .grad(&[
        Sample::new(&[t(&[2, 3]), t(&[2, 2]), t(&[2, 3]), t(&[2, 2])])
            .kw(&[("b_ih", P::T(Dom::Any, &[2]))])
            .no_bcast(),
    ]),
    ret("lstm", |a| {
        tensile::lstm_with(a.t(0), list(a, 1), list(a, 2), seq_opts(a))
            .map(|(o, h, c)| Ret::Many(vec![o, h, c]))
    })
    .grad(&[Sample::new(&[
        t(&[3, 1, 2]),
        P::Ts(&[(Dom::Any, &[1, 1, 2]), (Dom::Any, &[1, 1, 2])]),
        P::Ts(&[(Dom::Any, &[8, 2]), (Dom::Any, &[8, 2])]),
    ])
    .kw(NO_BIAS)
    .no_bcast()]),
    ret("gru", |a| seq(a, tensile::gru_with::<Tensor>)).grad(&[Sample::new(&[
        t(&[3, 1, 2]),
        t(&[1, 1, 2]),
        P::Ts(&[(Dom::Any, &[6, 2]), (Dom::Any, &[6, 2])]),
    ])
    .kw(NO_BIAS)
    .no_bcast()]),
    ret("rnn_tanh", |a| seq(a, tensile::rnn_tanh_with::<Tensor>)).grad(&[Sample::new(&[
        t(&[3, 1, 2]),
        t(&[1, 1, 2]),
        P::Ts(&[(Dom::Any, &[2, 2]), (Dom::Any, &[2, 2])]),
    ])
    .kw(NO_BIAS)
    .no_bcast()]),
    ret("rnn_relu", |a| seq(a, tensile::rnn_relu_with::<Tensor>)).grad(&[Sample::new(&[
        t(&[3, 1, 2]),
        t(&[1, 1, 2]),
        P::Ts(&[(Dom::Any, &[2, 2]), (Dom::Any, &[2, 2])]),
    ])
    .kw(NO_BIAS)
    .no_bcast()]),
];
