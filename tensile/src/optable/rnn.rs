//! Recurrent cells and layers ([`RnnId`]): `torch.lstm_cell`, `gru_cell`, `rnn_tanh_cell`,
//! `rnn_relu_cell` and the whole-sequence `torch.lstm`, `gru`, `rnn_tanh`, `rnn_relu` with
//! explicit weight lists (what `nn.LSTM`/`nn.GRU`/`nn.RNN` call), re-exported at the crate
//! root and in [`crate::nn::functional`].
//!
//! Gate order is PyTorch's: LSTM `i, f, g, o`, GRU `r, z, n` (row blocks of `H` in every
//! weight and bias). Inputs may have any strides; float32 and float64 run natively, float16
//! and bfloat16 compute in float32 and round the results. Without a gradient to record, the
//! forward code of [`crate::ops::rnn`] runs (one GEMM for all time steps' input projection,
//! then per step one GEMM and one fused gate pass); with one, PyTorch's composite of recorded
//! ops (`autograd/formulas/rnn.rs`), as PyTorch's CPU RNNs record.

use crate::Tensor;
use crate::autograd::api::any_requires_grad;
use crate::autograd::formulas::rnn::{cell_composite, sequence_composite};
use crate::error::{Error, Result};
use crate::geometry::rnn::CellKind;
pub use crate::ops::rnn::{RnnCellOpts, RnnOpts};
use crate::ops::rnn::{cell_check, cell_fused, sequence_check, sequence_fused};

op_ids! {
    /// A recurrent cell or layer (see [`crate::OpId`]).
    pub enum RnnId {
        /// [`lstm_cell_with`]
        LstmCell = "lstm_cell" ["lstm_cell", "lstm_cell_with"],
        /// [`gru_cell_with`]
        GruCell = "gru_cell" ["gru_cell", "gru_cell_with"],
        /// [`rnn_tanh_cell_with`]
        RnnTanhCell = "rnn_tanh_cell" ["rnn_tanh_cell", "rnn_tanh_cell_with"],
        /// [`rnn_relu_cell_with`]
        RnnReluCell = "rnn_relu_cell" ["rnn_relu_cell", "rnn_relu_cell_with"],
        /// [`lstm_with`]
        Lstm = "lstm" ["lstm", "lstm_with"],
        /// [`gru_with`]
        Gru = "gru" ["gru", "gru_with"],
        /// [`rnn_tanh_with`]
        RnnTanh = "rnn_tanh" ["rnn_tanh", "rnn_tanh_with"],
        /// [`rnn_relu_with`]
        RnnRelu = "rnn_relu" ["rnn_relu", "rnn_relu_with"],
    }
}

/// The four cells: PyTorch's checks, then PyTorch's recorded composite when a float operand
/// requires grad, else the fused step.
fn cell(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    w_ih: &Tensor,
    w_hh: &Tensor,
    opts: RnnCellOpts<'_>,
) -> Result<(Tensor, Option<Tensor>)> {
    let hidden = cell_check(kind, input, hx, w_ih, w_hh, &opts)?;
    let mut operands = vec![input, w_ih, w_hh];
    operands.extend(hx.iter().copied());
    operands.extend(opts.b_ih);
    operands.extend(opts.b_hh);
    if any_requires_grad(&operands) && input.dtype().is_floating_point() {
        // recording: PyTorch's composite cell, with recorded ops
        return cell_composite(kind, input, hx, w_ih, w_hh, opts.b_ih, opts.b_hh);
    }
    cell_fused(kind, input, hx, w_ih, w_hh, opts, hidden)
}

/// The four whole-sequence layers: PyTorch's checks, then PyTorch's composite (one recorded
/// cell per step) when a float operand requires grad, else the fused layers.
fn sequence(
    kind: CellKind,
    input: &Tensor,
    hx: &[&Tensor],
    params: &[&Tensor],
    o: RnnOpts,
) -> Result<(Tensor, Tensor, Option<Tensor>)> {
    let plan = sequence_check(kind, input, hx, params, &o)?;
    let operands: Vec<&Tensor> = std::iter::once(input)
        .chain(hx.iter().copied())
        .chain(params.iter().copied())
        .collect();
    if any_requires_grad(&operands) && input.dtype().is_floating_point() {
        // recording: PyTorch's composite, one recorded cell per step
        let cw: Vec<_> = plan
            .cells
            .iter()
            .map(|c| (c.w_ih, c.w_hh, c.b_ih, c.b_hh))
            .collect();
        let (out, h_n, c_n) = sequence_composite(kind, &plan.x, hx, &cw, plan.dirs)?;
        let out = if o.batch_first {
            out.transpose(0, 1)?
        } else {
            out
        };
        return Ok((out, h_n, c_n));
    }
    sequence_fused(kind, input, hx, &plan, o)
}

// ------------------------------------------------------------------ cells

/// `torch.lstm_cell(input, hx, w_ih, w_hh)`: one LSTM step without biases; see
/// [`lstm_cell_with`].
pub fn lstm_cell<T: AsRef<Tensor>>(
    input: &Tensor,
    hx: &[T],
    w_ih: &Tensor,
    w_hh: &Tensor,
) -> Result<(Tensor, Tensor)> {
    lstm_cell_with(input, hx, w_ih, w_hh, RnnCellOpts::default())
}

/// `torch.lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh)`: one LSTM step, returning `(h', c')`.
///
/// Shapes: `input` `(N, in)`, `hx = [h, c]` each `(N, H)`, `w_ih` `(4H, in)`, `w_hh`
/// `(4H, H)`, biases `(4H)` → `h'`, `c'` `(N, H)`, fresh and contiguous. Gates `i, f, g, o`:
/// `c' = σ(f)·c + σ(i)·tanh(g)`, `h' = σ(o)·tanh(c')` with `gates = input·w_ihᵀ + b_ih +
/// h·w_hhᵀ + b_hh`. Dtypes: one float dtype throughout.
///
/// Errors (RuntimeError unless noted), in PyTorch's order:
/// `lstm_cell expects two hidden states`;
/// `Expected 2D input (batch x feature), but got 1D input`;
/// `input has inconsistent input_size: got 3 expected 4` (`w_ih.size(1)`);
/// `Expected 2D hidden0 (batch x hidden_size), but got 1D tensor` (`hidden1` for `c`);
/// `weight_ih first dim must be 4 * hidden_size = 12, but got 8` (`hidden_size` is
/// `w_hh.size(1)`), likewise `weight_hh`;
/// `Input batch size 2 doesn't match hidden0 batch size 3`;
/// `hidden1 has inconsistent hidden_size: got 3, expected 2`;
/// a 1-D weight: IndexError `Dimension out of range (expected to be in range of [-1, 0], but got 1)`;
/// a weight of 3 or more dims: `t() expects a tensor with <= 2 dimensions, but self is 3D`;
/// a bias that does not broadcast to `(N, 4H)`: `expand`'s error
/// (`The expanded size of the tensor (8) must match the existing size (7) at non-singleton dimension 1.  Target sizes: [2, 8].  Tensor sizes: [7]`);
/// mixed dtypes: `expected m1 and m2 to have the same dtype, but got: double != float`;
/// an integer or bool dtype: NotImplementedError `"lstm_cell" not implemented for 'Long'`.
pub fn lstm_cell_with<'a, T: AsRef<Tensor>>(
    input: &Tensor,
    hx: &[T],
    w_ih: &Tensor,
    w_hh: &Tensor,
    opts: impl Into<RnnCellOpts<'a>>,
) -> Result<(Tensor, Tensor)> {
    if hx.len() != 2 {
        return Err(Error::runtime("lstm_cell expects two hidden states"));
    }
    let hx: Vec<&Tensor> = hx.iter().map(|t| t.as_ref()).collect();
    let (h, c) = cell(CellKind::Lstm, input, &hx, w_ih, w_hh, opts.into())?;
    Ok((h, c.expect("an LSTM cell returns a cell state")))
}

macro_rules! one_state_cell {
    ($name:ident, $name_with:ident, $kind:expr, $g:literal, $torch:literal, $math:literal) => {
        #[doc = concat!("`torch.", $torch, "(input, hx, w_ih, w_hh)`: one step without biases; see [`", stringify!($name_with), "`].")]
        pub fn $name(input: &Tensor, hx: &Tensor, w_ih: &Tensor, w_hh: &Tensor) -> Result<Tensor> {
            $name_with(input, hx, w_ih, w_hh, RnnCellOpts::default())
        }

        #[doc = concat!("`torch.", $torch, "(input, hx, w_ih, w_hh, b_ih, b_hh)`: one step, returning `h'`.")]
        ///
        #[doc = concat!("Shapes: `input` `(N, in)`, `hx` `(N, H)`, `w_ih` `(", $g, "H, in)`, `w_hh` `(", $g, "H, H)`, biases `(", $g, "H)` → `h'` `(N, H)`, fresh and contiguous: ", $math, ". Dtypes: one float dtype throughout.")]
        ///
        /// Errors (RuntimeError unless noted), in PyTorch's order:
        /// `Expected 2D input (batch x feature), but got 1D input`;
        /// `input has inconsistent input_size: got 3 expected 4` (`w_ih.size(1)`);
        /// `Expected 2D hidden0 (batch x hidden_size), but got 1D tensor`;
        #[doc = concat!("`weight_ih first dim must be ", $g, " * hidden_size = 6, but got 5` (`hidden_size` is `w_hh.size(1)`), likewise `weight_hh`;")]
        /// `Input batch size 2 doesn't match hidden0 batch size 3`;
        /// `hidden0 has inconsistent hidden_size: got 2, expected 3`;
        /// a 1-D weight: IndexError `Dimension out of range (expected to be in range of [-1, 0], but got 1)`;
        /// a weight of 3 or more dims: `t() expects a tensor with <= 2 dimensions, but self is 3D`;
        /// a bias that does not broadcast to `(N, G·H)`: `expand`'s error;
        /// mixed dtypes: `expected m1 and m2 to have the same dtype, but got: double != float`;
        #[doc = concat!("an integer or bool dtype: NotImplementedError `\"", $torch, "\" not implemented for 'Long'`.")]
        pub fn $name_with<'a>(
            input: &Tensor,
            hx: &Tensor,
            w_ih: &Tensor,
            w_hh: &Tensor,
            opts: impl Into<RnnCellOpts<'a>>,
        ) -> Result<Tensor> {
            Ok(cell($kind, input, &[hx], w_ih, w_hh, opts.into())?.0)
        }
    };
}

one_state_cell!(
    gru_cell,
    gru_cell_with,
    CellKind::Gru,
    "3",
    "gru_cell",
    "gates `r, z, n`, `n = tanh(xn + σ(r)·hn)`, `h' = (1 − σ(z))·n + σ(z)·h`"
);
one_state_cell!(
    rnn_tanh_cell,
    rnn_tanh_cell_with,
    CellKind::RnnTanh,
    "1",
    "rnn_tanh_cell",
    "`h' = tanh(input·w_ihᵀ + b_ih + hx·w_hhᵀ + b_hh)`"
);
one_state_cell!(
    rnn_relu_cell,
    rnn_relu_cell_with,
    CellKind::RnnRelu,
    "1",
    "rnn_relu_cell",
    "`h' = relu(input·w_ihᵀ + b_ih + hx·w_hhᵀ + b_hh)`"
);

// ------------------------------------------------------------------ sequences

/// `torch.lstm(input, hx, params, True, 1, 0.0, False, False, False)`; see [`lstm_with`].
pub fn lstm<T: AsRef<Tensor>, P: AsRef<Tensor>>(
    input: &Tensor,
    hx: &[T],
    params: &[P],
) -> Result<(Tensor, Tensor, Tensor)> {
    lstm_with(input, hx, params, RnnOpts::default())
}

/// `torch.lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
/// batch_first)`: a whole multi-layer LSTM over a sequence, returning `(output, h_n, c_n)`.
///
/// Shapes: `input` `(T, N, in)` (`(N, T, in)` when `batch_first`), `hx = [h0, c0]` each
/// `(L·D, N, H)` (`L = num_layers`, `D` = 2 when `bidirectional`, else 1), `params` in
/// `nn.LSTM`'s `_flat_weights` order: per layer, per direction (forward, then reverse),
/// `w_ih (4H, in_l)`, `w_hh (4H, H)`, then `b_ih (4H)`, `b_hh (4H)` when `has_biases`
/// (`in_l` = `in` for layer 0, `D·H` above). Results: `output` `(T, N, D·H)` contiguous (with
/// `batch_first`, its `transpose(0, 1)`: `(N, T, D·H)` with strides `(D·H, N·D·H, 1)`, as
/// PyTorch returns it), `h_n`, `c_n` `(L·D, N, H)` contiguous. Each step is
/// [`lstm_cell_with`]'s math. `dropout` applies between layers only when `train` (not
/// supported: see the errors).
///
/// Errors (RuntimeError unless noted): `lstm expects two hidden states`;
/// `Expected sequence length to be larger than 0 in RNN`;
/// `got an incorrect number of RNN parameters` (not a multiple of 4, or 2 without biases);
/// `Odd number of params or hiddens given to a bidirectional RNN`;
/// `Expected more hidden states in stacked_rnn` (`h0.size(0) != L·D`);
/// `Expected more weights in stacked_rnn`;
/// `Input and parameter tensors are not the same dtype, found input tensor with Float and parameter tensor with Double` (`hidden` likewise);
/// shape mismatches inside the products:
/// `addmm: mat1 and mat2 shapes cannot be multiplied (6x3 and 4x8)` (`mm:` without biases),
/// `weight_hh first dim must be 4 * hidden_size = 8, but got 6`,
/// `The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0`
/// (batch of `h0`/`c0`), `expand`'s error for a bias; an input that is not 3-D: IndexError
/// `Dimension out of range (expected to be in range of [-2, 1], but got 2)` or RuntimeError
/// `input must have 3 dimensions, got 4`; NotImplementedError for dropout > 0 with `train`
/// and several layers (random masks), for LSTM projections (`h0`, `c0` of different sizes),
/// and for integer dtypes.
pub fn lstm_with<T: AsRef<Tensor>, P: AsRef<Tensor>>(
    input: &Tensor,
    hx: &[T],
    params: &[P],
    opts: impl Into<RnnOpts>,
) -> Result<(Tensor, Tensor, Tensor)> {
    if hx.len() != 2 {
        return Err(Error::runtime("lstm expects two hidden states"));
    }
    let hx: Vec<&Tensor> = hx.iter().map(|t| t.as_ref()).collect();
    let params: Vec<&Tensor> = params.iter().map(|t| t.as_ref()).collect();
    let (o, h, c) = sequence(CellKind::Lstm, input, &hx, &params, opts.into())?;
    Ok((o, h, c.expect("an LSTM returns a cell state")))
}

macro_rules! one_state_rnn {
    ($name:ident, $name_with:ident, $kind:expr, $g:literal, $torch:literal, $cell:literal) => {
        #[doc = concat!("`torch.", $torch, "(input, hx, params, True, 1, 0.0, False, False, False)`; see [`", stringify!($name_with), "`].")]
        pub fn $name<P: AsRef<Tensor>>(
            input: &Tensor,
            hx: &Tensor,
            params: &[P],
        ) -> Result<(Tensor, Tensor)> {
            $name_with(input, hx, params, RnnOpts::default())
        }

        #[doc = concat!("`torch.", $torch, "(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)`: a whole multi-layer recurrent layer over a sequence, returning `(output, h_n)`.")]
        ///
        /// Shapes: `input` `(T, N, in)` (`(N, T, in)` when `batch_first`), `hx` `(L·D, N, H)`,
        #[doc = concat!("`params` per layer, per direction: `w_ih (", $g, "H, in_l)`, `w_hh (", $g, "H, H)`, then `b_ih`, `b_hh` `(", $g, "H)` when `has_biases`. Each step is [`", $cell, "`]'s math.")]
        /// Results: `output` `(T, N, D·H)` contiguous (with `batch_first` its
        /// `transpose(0, 1)`), `h_n` `(L·D, N, H)` contiguous. Errors as [`lstm_with`]'s
        /// (without the two-hidden-states one).
        pub fn $name_with<P: AsRef<Tensor>>(
            input: &Tensor,
            hx: &Tensor,
            params: &[P],
            opts: impl Into<RnnOpts>,
        ) -> Result<(Tensor, Tensor)> {
            let params: Vec<&Tensor> = params.iter().map(|t| t.as_ref()).collect();
            let (o, h, _) = sequence($kind, input, &[hx], &params, opts.into())?;
            Ok((o, h))
        }
    };
}

one_state_rnn!(gru, gru_with, CellKind::Gru, "3", "gru", "gru_cell_with");
one_state_rnn!(
    rnn_tanh,
    rnn_tanh_with,
    CellKind::RnnTanh,
    "1",
    "rnn_tanh",
    "rnn_tanh_cell_with"
);
one_state_rnn!(
    rnn_relu,
    rnn_relu_with,
    CellKind::RnnRelu,
    "1",
    "rnn_relu",
    "rnn_relu_cell_with"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::rnn::gather;

    fn t(v: &[f64], shape: &[usize]) -> Tensor {
        Tensor::from_vec(v.to_vec(), shape).unwrap()
    }

    #[test]
    fn lstm_cell_matches_the_gate_formulas() {
        // N=1, in=1, H=1: gates = x*w_ih + h*w_hh (no biases)
        let x = t(&[0.5], &[1, 1]);
        let h = t(&[0.25], &[1, 1]);
        let c = t(&[-0.5], &[1, 1]);
        let w_ih = t(&[1.0, -1.0, 0.5, 2.0], &[4, 1]);
        let w_hh = t(&[0.5, 0.25, -1.0, 1.0], &[4, 1]);
        let (h1, c1) = lstm_cell(&x, &[&h, &c], &w_ih, &w_hh).unwrap();
        let sg = |v: f64| 1.0 / (1.0 + (-v).exp());
        let gi = sg(0.5 + 0.125);
        let gf = sg(-0.5 + 0.0625);
        let gg = (0.25f64 - 0.25).tanh();
        let go = sg(1.0 + 0.25);
        let cy = gf * -0.5 + gi * gg;
        assert!((c1.item::<f64>().unwrap() - cy).abs() < 1e-15);
        assert!((h1.item::<f64>().unwrap() - go * cy.tanh()).abs() < 1e-15);
    }

    #[test]
    fn parameter_counting_follows_pytorch() {
        let w = t(&[0.0; 3], &[3, 1]);
        let p = [&w, &w, &w];
        let o = RnnOpts::default();
        let e = gather(&p, 1, &o).err().unwrap();
        assert_eq!(e.to_string(), "got an incorrect number of RNN parameters");
        let p4 = [&w, &w, &w, &w];
        let o2 = RnnOpts::from((false, 1));
        assert_eq!(
            gather(&p4, 2, &o2).err().unwrap().to_string(),
            "Expected more hidden states in stacked_rnn"
        );
        assert_eq!(
            gather(&p4, 1, &o2).err().unwrap().to_string(),
            "Expected more weights in stacked_rnn"
        );
        let o3 = RnnOpts {
            bidirectional: true,
            ..o2
        };
        assert_eq!(
            gather(&p4, 1, &o3).err().unwrap().to_string(),
            "Odd number of params or hiddens given to a bidirectional RNN"
        );
        assert_eq!(gather(&p4, 2, &o3).unwrap().len(), 2);
    }

    #[test]
    fn batch_first_output_is_the_transposed_time_major_result() {
        let x = Tensor::from_vec((0..12).map(|i| i as f32 / 16.0).collect(), [2, 3, 2]).unwrap();
        let h0 = Tensor::zeros([1, 2, 2]).unwrap();
        let w_ih = Tensor::from_vec(vec![0.5f32, -0.25, 0.125, 1.0], [2, 2]).unwrap();
        let w_hh = Tensor::from_vec(vec![0.25f32, 0.5, -0.5, 0.75], [2, 2]).unwrap();
        let p = [&w_ih, &w_hh];
        let (o, h) = rnn_tanh_with(&x, &h0, &p, (false, 1, 0.0, false, false, true)).unwrap();
        assert_eq!(o.size(), &[2, 3, 2]);
        assert_eq!(o.stride(), &[2, 4, 1]);
        assert_eq!(h.stride(), &[4, 2, 1]);
        // the last step of each batch row is h_n
        let last = o.select(1, 2).unwrap().contiguous();
        assert_eq!(
            last.to_vec::<f32>(),
            h.select(0, 0).unwrap().to_vec::<f32>()
        );
    }
}
