//! `nn.LSTM` and `nn.GRU` on top of `torch.lstm` / `torch.gru`.

use super::common::{empty, into_param, named};
use super::module::{Module, Training};
use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::nn::init;
use crate::optable::rnn::{RnnOpts, gru_with, lstm_with};

/// The optional constructor arguments of `nn.LSTM`/`nn.GRU` (`num_layers=1, bias=True,
/// batch_first=False, dropout=0.0, bidirectional=False, dtype=torch.float32`). From
/// `num_layers` or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RnnConfig {
    /// Stacked layers.
    pub num_layers: usize,
    /// Learn `bias_ih_l*` and `bias_hh_l*`.
    pub bias: bool,
    /// Input and output `(N, T, *)` instead of `(T, N, *)`.
    pub batch_first: bool,
    /// Dropout between layers in training mode (only 0 is supported by the forward with
    /// several layers in training mode).
    pub dropout: f64,
    /// A reverse direction too (parameters suffixed `_reverse`).
    pub bidirectional: bool,
    /// The parameters' dtype.
    pub dtype: DType,
}
impl Default for RnnConfig {
    fn default() -> Self {
        RnnConfig {
            num_layers: 1,
            bias: true,
            batch_first: false,
            dropout: 0.0,
            bidirectional: false,
            dtype: DType::Float32,
        }
    }
}
impl From<usize> for RnnConfig {
    fn from(num_layers: usize) -> Self {
        RnnConfig {
            num_layers,
            ..Default::default()
        }
    }
}

/// PyTorch's `RNNBase`: the flat weights and their names.
#[derive(Debug)]
struct RnnCore {
    mode: &'static str,
    gates: usize,
    input_size: usize,
    hidden_size: usize,
    config: RnnConfig,
    names: Vec<String>,
    weights: Vec<Tensor>,
}

impl RnnCore {
    fn new(
        mode: &'static str,
        gates: usize,
        input_size: usize,
        hidden_size: usize,
        c: RnnConfig,
    ) -> Result<RnnCore> {
        if !(0.0..=1.0).contains(&c.dropout) {
            return Err(Error::value(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed",
            ));
        }
        if c.dropout > 0.0 && c.num_layers == 1 {
            crate::warnings::warn(&format!(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers greater than 1, but got dropout={:?} and num_layers=1",
                c.dropout
            ));
        }
        if hidden_size == 0 {
            return Err(Error::value("hidden_size must be greater than zero"));
        }
        if c.num_layers == 0 {
            return Err(Error::value("num_layers must be greater than zero"));
        }
        let dirs = if c.bidirectional { 2 } else { 1 };
        let g = gates * hidden_size;
        let (mut names, mut weights) = (Vec::new(), Vec::new());
        for layer in 0..c.num_layers {
            for dir in 0..dirs {
                let in_l = if layer == 0 {
                    input_size
                } else {
                    hidden_size * dirs
                };
                let sfx = if dir == 1 { "_reverse" } else { "" };
                names.push(format!("weight_ih_l{layer}{sfx}"));
                weights.push(empty(&[g, in_l], c.dtype)?);
                names.push(format!("weight_hh_l{layer}{sfx}"));
                weights.push(empty(&[g, hidden_size], c.dtype)?);
                if c.bias {
                    names.push(format!("bias_ih_l{layer}{sfx}"));
                    weights.push(empty(&[g], c.dtype)?);
                    names.push(format!("bias_hh_l{layer}{sfx}"));
                    weights.push(empty(&[g], c.dtype)?);
                }
            }
        }
        let stdv = 1.0 / (hidden_size as f64).sqrt();
        for w in &weights {
            init::uniform_(w, -stdv, stdv)?;
        }
        Ok(RnnCore {
            mode,
            gates,
            input_size,
            hidden_size,
            config: c,
            names,
            weights: weights.into_iter().map(into_param).collect::<Result<_>>()?,
        })
    }

    fn dirs(&self) -> usize {
        if self.config.bidirectional { 2 } else { 1 }
    }

    /// Unbatched handling and the checks of `check_forward_args`; returns the batched input,
    /// whether it was unbatched and the batch size.
    fn prepare(&self, input: &Tensor) -> Result<(Tensor, bool, usize)> {
        let d = input.dim();
        if d != 2 && d != 3 {
            return Err(Error::value(format!(
                "{}: Expected input to be 2D or 3D, got {d}D instead",
                self.mode
            )));
        }
        let last = input.size()[d - 1];
        if last != self.input_size {
            return Err(Error::runtime(format!(
                "input.size(-1) must be equal to input_size. Expected {}, got {last}",
                self.input_size
            )));
        }
        let batch_dim = if self.config.batch_first { 0 } else { 1 };
        if d == 2 {
            Ok((input.unsqueeze(batch_dim)?, true, 1))
        } else {
            Ok((input.alias(), false, input.size()[batch_dim]))
        }
    }

    fn check_hidden(&self, h: &Tensor, n: usize, which: &str) -> Result<()> {
        let expected = [self.config.num_layers * self.dirs(), n, self.hidden_size];
        if h.size() != expected {
            return Err(Error::runtime(format!(
                "Expected {which} size ({}, {}, {}), got [{}]",
                expected[0],
                expected[1],
                expected[2],
                h.size()
                    .iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(())
    }

    /// A given hidden state batched like the input (unbatched: must be 2-D).
    fn batch_hidden(&self, h: &Tensor, unbatched: bool) -> Result<Tensor> {
        if unbatched {
            if h.dim() != 2 {
                return Err(Error::runtime(format!(
                    "For unbatched 2-D input, hx should also be 2-D but got {}-D tensor",
                    h.dim()
                )));
            }
            h.unsqueeze(1)
        } else {
            if h.dim() != 3 {
                return Err(Error::runtime(format!(
                    "For batched 3-D input, hx should also be 3-D but got {}-D tensor",
                    h.dim()
                )));
            }
            Ok(h.alias())
        }
    }

    fn zeros(&self, n: usize, dtype: DType) -> Result<Tensor> {
        Tensor::zeros_with(
            [self.config.num_layers * self.dirs(), n, self.hidden_size],
            dtype,
        )
    }

    fn opts(&self, training: bool) -> RnnOpts {
        RnnOpts {
            has_biases: self.config.bias,
            num_layers: self.config.num_layers as i64,
            dropout: self.config.dropout,
            train: training,
            bidirectional: self.config.bidirectional,
            batch_first: self.config.batch_first,
        }
    }

    fn unbatch_output(&self, o: Tensor, unbatched: bool) -> Result<Tensor> {
        if unbatched {
            o.squeeze_dim(if self.config.batch_first { 0 } else { 1 })
        } else {
            Ok(o)
        }
    }

    fn params(&self) -> Vec<(String, Tensor)> {
        self.names
            .iter()
            .zip(&self.weights)
            .map(|(n, w)| named(n, w))
            .collect()
    }

    fn weight(&self, name: &str) -> Option<&Tensor> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| &self.weights[i])
    }
}

macro_rules! rnn_accessors {
    () => {
        /// The parameter called `name` (`"weight_ih_l0"`, `"bias_hh_l1_reverse"`, …).
        pub fn weight(&self, name: &str) -> Option<&Tensor> {
            self.core.weight(name)
        }
        /// `_flat_weights`: every parameter in PyTorch's order.
        pub fn flat_weights(&self) -> &[Tensor] {
            &self.core.weights
        }
        /// The constructor's optional arguments.
        pub fn config(&self) -> &RnnConfig {
            &self.core.config
        }
        /// The features of each hidden state.
        pub fn hidden_size(&self) -> usize {
            self.core.hidden_size
        }
        /// The features of each input step.
        pub fn input_size(&self) -> usize {
            self.core.input_size
        }
    };
}

/// `nn.LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
/// bidirectional=False)` (no `proj_size`).
///
/// Parameters per layer `k` and direction (suffix `_reverse` for the reverse one):
/// `weight_ih_lk` `(4H, in)`, `weight_hh_lk` `(4H, H)`, `bias_ih_lk`, `bias_hh_lk` `(4H,)`
/// (gates i, f, g, o), all from U(-1/√H, 1/√H) in that order.
///
/// [`LSTM::forward_with`]: `input` `(T, N, in)` (`(N, T, in)` with `batch_first`, or
/// unbatched `(T, in)`), optional `(h_0, c_0)` each `(L·D, N, H)` (zeros when absent) →
/// `(output (T, N, D·H), (h_n, c_n))`. The [`Module::forward`] form returns `output` only.
///
/// Errors: ValueError `LSTM: Expected input to be 2D or 3D, got 4D instead`; RuntimeError
/// `input.size(-1) must be equal to input_size. Expected 10, got 3`, `Expected hidden[0] size
/// (2, 3, 20), got [1, 3, 20]` (and `hidden[1]`), then those of `torch.lstm`. Constructor:
/// ValueError `hidden_size must be greater than zero`, `num_layers must be greater than
/// zero`, `dropout should be a number in range [0, 1] representing the probability of an
/// element being zeroed`.
#[derive(Debug)]
pub struct LSTM {
    core: RnnCore,
    training: Training,
}

impl LSTM {
    /// `nn.LSTM(input_size, hidden_size)`.
    pub fn new(input_size: usize, hidden_size: usize) -> Result<LSTM> {
        LSTM::with(input_size, hidden_size, RnnConfig::default())
    }
    /// `nn.LSTM(input_size, hidden_size, …)` with the options of [`RnnConfig`].
    pub fn with(
        input_size: usize,
        hidden_size: usize,
        config: impl Into<RnnConfig>,
    ) -> Result<LSTM> {
        Ok(LSTM {
            core: RnnCore::new("LSTM", 4, input_size, hidden_size, config.into())?,
            training: Training::default(),
        })
    }

    rnn_accessors!();

    /// `lstm(input, (h_0, c_0))` → `(output, (h_n, c_n))`; see [`LSTM`].
    pub fn forward_with(
        &self,
        input: &Tensor,
        hx: Option<(&Tensor, &Tensor)>,
    ) -> Result<(Tensor, (Tensor, Tensor))> {
        let core = &self.core;
        let _ = core.gates;
        let (x, unbatched, n) = core.prepare(input)?;
        let (h0, c0) = match hx {
            Some((h, c)) => (
                core.batch_hidden(h, unbatched)?,
                core.batch_hidden(c, unbatched)?,
            ),
            None => (core.zeros(n, x.dtype())?, core.zeros(n, x.dtype())?),
        };
        core.check_hidden(&h0, n, "hidden[0]")?;
        core.check_hidden(&c0, n, "hidden[1]")?;
        let (o, h, c) = lstm_with(
            &x,
            &[&h0, &c0],
            &core.weights,
            core.opts(self.is_training()),
        )?;
        let o = core.unbatch_output(o, unbatched)?;
        if unbatched {
            Ok((o, (h.squeeze_dim(1)?, c.squeeze_dim(1)?)))
        } else {
            Ok((o, (h, c)))
        }
    }
}

impl Module for LSTM {
    module_common!("LSTM");
    /// The `output` of [`LSTM::forward_with`] with zero initial states.
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        Ok(self.forward_with(input, None)?.0)
    }
    fn local_parameters(&self) -> Vec<(String, Tensor)> {
        self.core.params()
    }
}

/// `nn.GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
/// bidirectional=False)`.
///
/// Parameters as [`LSTM`]'s with `3H` rows (gates r, z, n), from U(-1/√H, 1/√H).
/// [`GRU::forward_with`]: `input` as LSTM's, optional `h_0` `(L·D, N, H)` → `(output, h_n)`.
/// Errors as LSTM's (`GRU: Expected input to be 2D or 3D, got 4D instead`, `Expected hidden
/// size (1, 3, 20), got [2, 3, 20]`), then those of `torch.gru`.
#[derive(Debug)]
pub struct GRU {
    core: RnnCore,
    training: Training,
}

impl GRU {
    /// `nn.GRU(input_size, hidden_size)`.
    pub fn new(input_size: usize, hidden_size: usize) -> Result<GRU> {
        GRU::with(input_size, hidden_size, RnnConfig::default())
    }
    /// `nn.GRU(input_size, hidden_size, …)` with the options of [`RnnConfig`].
    pub fn with(
        input_size: usize,
        hidden_size: usize,
        config: impl Into<RnnConfig>,
    ) -> Result<GRU> {
        Ok(GRU {
            core: RnnCore::new("GRU", 3, input_size, hidden_size, config.into())?,
            training: Training::default(),
        })
    }

    rnn_accessors!();

    /// `gru(input, h_0)` → `(output, h_n)`; see [`GRU`].
    pub fn forward_with(&self, input: &Tensor, hx: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
        let core = &self.core;
        let (x, unbatched, n) = core.prepare(input)?;
        let h0 = match hx {
            Some(h) => core.batch_hidden(h, unbatched)?,
            None => core.zeros(n, x.dtype())?,
        };
        core.check_hidden(&h0, n, "hidden")?;
        let (o, h) = gru_with(&x, &h0, &core.weights, core.opts(self.is_training()))?;
        let o = core.unbatch_output(o, unbatched)?;
        if unbatched {
            Ok((o, h.squeeze_dim(1)?))
        } else {
            Ok((o, h))
        }
    }
}

impl Module for GRU {
    module_common!("GRU");
    /// The `output` of [`GRU::forward_with`] with a zero initial state.
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        Ok(self.forward_with(input, None)?.0)
    }
    fn local_parameters(&self) -> Vec<(String, Tensor)> {
        self.core.params()
    }
}
