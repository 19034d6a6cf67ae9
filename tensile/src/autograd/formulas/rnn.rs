//! Recurrent cells when they record: PyTorch's CPU cells are composites (`linear`s, `chunk`,
//! `sigmoid` / `tanh`, products), so their gradients are the pieces' formulas; tensile runs
//! the same composite with its own recorded ops instead of the fused kernel (the top node,
//! as PyTorch's: `MulBackward0` for LSTM `h'`, `AddBackward0` for LSTM `c'` and GRU,
//! `TanhBackward0` / `ReluBackward0` for the plain cells).

use crate::error::Result;
use crate::geometry::rnn::CellKind;
use crate::tensor::Tensor;

/// `x·wᵀ + b`.
fn lin(x: &Tensor, w: &Tensor, b: Option<&Tensor>) -> Result<Tensor> {
    let r = x.matmul(&w.transpose(0, 1)?)?;
    match b {
        Some(b) => r.add(b),
        None => Ok(r),
    }
}

/// Gate block `k` (of `H` columns) of `t`.
fn gate(t: &Tensor, k: usize, h: usize) -> Result<Tensor> {
    t.narrow(1, (k * h) as i64, h as i64)
}

/// One cell step on checked inputs, with recorded ops: `(h', c')` (`c'` for LSTM only).
/// LSTM gates `i, f, g, o`: `c' = σ(f)·c + σ(i)·tanh(g)`, `h' = σ(o)·tanh(c')`; GRU gates
/// `r, z, n`: `n = tanh(xn + σ(r)·hn)`, `h' = (h − n)·σ(z) + n`; RNN: `act(x·Wᵀ + h·Uᵀ + b)`.
pub(crate) fn cell_composite(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    w_ih: &Tensor,
    w_hh: &Tensor,
    b_ih: Option<&Tensor>,
    b_hh: Option<&Tensor>,
) -> Result<(Tensor, Option<Tensor>)> {
    let hidden = w_hh.size()[1];
    let gi = lin(input, w_ih, b_ih)?;
    let gh = lin(hx[0], w_hh, b_hh)?;
    match kind {
        CellKind::Lstm => {
            let gates = gi.add(&gh)?;
            let i = gate(&gates, 0, hidden)?.sigmoid()?;
            let f = gate(&gates, 1, hidden)?.sigmoid()?;
            let g = gate(&gates, 2, hidden)?.tanh()?;
            let o = gate(&gates, 3, hidden)?.sigmoid()?;
            let c = f.mul(hx[1])?.add(&i.mul(&g)?)?;
            let h = o.mul(&c.tanh()?)?;
            Ok((h, Some(c)))
        }
        CellKind::Gru => {
            let r = gate(&gi, 0, hidden)?
                .add(&gate(&gh, 0, hidden)?)?
                .sigmoid()?;
            let z = gate(&gi, 1, hidden)?
                .add(&gate(&gh, 1, hidden)?)?
                .sigmoid()?;
            let n = gate(&gi, 2, hidden)?
                .add(&r.mul(&gate(&gh, 2, hidden)?)?)?
                .tanh()?;
            let h = hx[0].sub(&n)?.mul(&z)?.add(&n)?;
            Ok((h, None))
        }
        CellKind::RnnTanh => Ok((gi.add(&gh)?.tanh()?, None)),
        CellKind::RnnRelu => Ok((gi.add(&gh)?.relu()?, None)),
    }
}

/// One cell's weights (`w_ih, w_hh, b_ih, b_hh`).
pub(crate) type CellWeights<'a> = (
    &'a Tensor,
    &'a Tensor,
    Option<&'a Tensor>,
    Option<&'a Tensor>,
);

/// The whole-sequence ops (`lstm`, `gru`, `rnn_tanh`, `rnn_relu`) when they record, on
/// checked inputs: time-major `x` `(T, N, in)`, `hx` (`(L·D, N, H)`, `c0` too for LSTM),
/// the cells' weights in PyTorch's order (layer by layer, forward then reverse), as
/// PyTorch's CPU composite: one [`cell_composite`] per step, the steps `stack`ed, the two
/// directions `cat`ed along the features. Returns `(output, h_n, c_n)`, time-major.
pub(crate) fn sequence_composite(
    kind: CellKind,
    x: &Tensor,
    hx: &[&Tensor],
    cells: &[CellWeights<'_>],
    dirs: usize,
) -> Result<(Tensor, Tensor, Option<Tensor>)> {
    let lstm = kind == CellKind::Lstm;
    let steps = x.size()[0];
    let layers = cells.len() / dirs;
    let mut layer_in = x.alias();
    let (mut hn, mut cn) = (Vec::new(), Vec::new());
    for l in 0..layers {
        let mut outs = Vec::with_capacity(dirs);
        for d in 0..dirs {
            let i = l * dirs + d;
            let (w_ih, w_hh, b_ih, b_hh) = cells[i];
            let mut h = hx[0].select(0, i as i64)?;
            let mut c = if lstm {
                Some(hx[1].select(0, i as i64)?)
            } else {
                None
            };
            let mut ys: Vec<Option<Tensor>> = (0..steps).map(|_| None).collect();
            let order: Vec<usize> = if d == 0 {
                (0..steps).collect()
            } else {
                (0..steps).rev().collect()
            };
            for t in order {
                let xt = layer_in.select(0, t as i64)?;
                let state: Vec<&Tensor> = std::iter::once(&h).chain(c.as_ref()).collect();
                let (h2, c2) = cell_composite(kind, &xt, &state, w_ih, w_hh, b_ih, b_hh)?;
                ys[t] = Some(h2.alias());
                h = h2;
                c = c2;
            }
            let ys: Vec<Tensor> = ys.into_iter().flatten().collect();
            outs.push(crate::stack_with(&ys, 0)?);
            hn.push(h);
            cn.extend(c);
        }
        layer_in = if dirs == 1 {
            outs.pop().expect("one direction")
        } else {
            crate::cat_with(&outs, 2)?
        };
    }
    let h_n = crate::stack_with(&hn, 0)?;
    let c_n = if lstm {
        Some(crate::stack_with(&cn, 0)?)
    } else {
        None
    };
    Ok((layer_in, h_n, c_n))
}

#[cfg(test)]
mod tests {
    use crate::tensor::Tensor;

    #[test]
    fn a_recording_cell_gives_the_kernels_values_and_gradients_reach_every_weight() {
        let v = |n: usize, s: f64| -> Vec<f64> { (0..n).map(|i| ((i as f64) * s).sin()).collect() };
        let x = Tensor::from_vec(v(6, 0.7), [2, 3]).unwrap();
        let h = Tensor::from_vec(v(4, 1.3), [2, 2]).unwrap();
        let c = Tensor::from_vec(v(4, 0.4), [2, 2]).unwrap();
        let wi = Tensor::from_vec(v(24, 0.9), [8, 3]).unwrap();
        let wh = Tensor::from_vec(v(16, 1.1), [8, 2]).unwrap();
        let (h0, c0) = crate::optable::rnn::lstm_cell(&x, &[&h, &c], &wi, &wh).unwrap();
        let wr = wi.detach().requires_grad_(true).unwrap();
        let (h1, c1) = crate::optable::rnn::lstm_cell(&x, &[&h, &c], &wr, &wh).unwrap();
        for (a, b) in [(h0, &h1), (c0, &c1)] {
            for (p, q) in a.to_vec::<f64>().iter().zip(b.to_vec::<f64>()) {
                assert!((p - q).abs() < 1e-12);
            }
        }
        assert_eq!(h1.grad_fn().unwrap().name(), "MulBackward0");
        h1.sum().unwrap().backward().unwrap();
        assert_eq!(wr.grad().unwrap().size(), &[8, 3]);
    }
}
