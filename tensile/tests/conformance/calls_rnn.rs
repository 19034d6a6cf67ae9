//! Ops of the `rnn` family (torch.lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell, lstm,
//! gru, rnn_tanh, rnn_relu), for the conformance runner.
use super::{Arg, Out, kw_arg, kw_bool, kw_f64, kw_int};
use tensile::{RnnCellOpts, RnnOpts, Tensor};

fn list(a: &Arg) -> &[Tensor] {
    match a {
        Arg::Tensors(v) => v,
        _ => panic!("corpus: expected a list of tensors"),
    }
}

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let one = |r: tensile::Result<Tensor>| Some(r.map(Out::Tensor));
    let b_ih = kw_arg(kw, "b_ih");
    let b_hh = kw_arg(kw, "b_hh");
    let cell_opts = || RnnCellOpts {
        b_ih: b_ih.as_ref().map(|a| a.tensor()),
        b_hh: b_hh.as_ref().map(|a| a.tensor()),
    };
    let seq_opts = || RnnOpts {
        has_biases: kw_bool(kw, "has_biases").unwrap_or(true),
        num_layers: kw_int(kw, "num_layers").unwrap_or(1),
        dropout: kw_f64(kw, "dropout").unwrap_or(0.0),
        train: kw_bool(kw, "train").unwrap_or(false),
        bidirectional: kw_bool(kw, "bidirectional").unwrap_or(false),
        batch_first: kw_bool(kw, "batch_first").unwrap_or(false),
    };
    let t = |i: usize| args[i].tensor();
    match op {
        "lstm_cell" => Some(
            tensile::lstm_cell_with(t(0), list(&args[1]), t(2), t(3), cell_opts())
                .map(|(h, c)| Out::Tensors(vec![h, c])),
        ),
        "gru_cell" => one(tensile::gru_cell_with(t(0), t(1), t(2), t(3), cell_opts())),
        "rnn_tanh_cell" => one(tensile::rnn_tanh_cell_with(
            t(0),
            t(1),
            t(2),
            t(3),
            cell_opts(),
        )),
        "rnn_relu_cell" => one(tensile::rnn_relu_cell_with(
            t(0),
            t(1),
            t(2),
            t(3),
            cell_opts(),
        )),
        "lstm" => Some(
            tensile::lstm_with(t(0), list(&args[1]), list(&args[2]), seq_opts())
                .map(|(o, h, c)| Out::Tensors(vec![o, h, c])),
        ),
        "gru" | "rnn_tanh" | "rnn_relu" => {
            let f = match op {
                "gru" => tensile::gru_with::<Tensor>,
                "rnn_tanh" => tensile::rnn_tanh_with::<Tensor>,
                _ => tensile::rnn_relu_with::<Tensor>,
            };
            Some(f(t(0), t(1), list(&args[2]), seq_opts()).map(|(o, h)| Out::Tensors(vec![o, h])))
        }
        _ => None,
    }
}
