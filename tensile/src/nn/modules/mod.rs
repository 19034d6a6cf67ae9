//! `torch.nn` modules: the [`Module`] trait and the layers, one file per family.
//!
//! Each layer has PyTorch's class name, constructor arguments, defaults, parameter and buffer
//! names, and initialisation (drawn from the default generator, [`crate::default_generator`],
//! as [`crate::nn::init`] draws, so that `tensile::manual_seed(s)` then a constructor gives
//! PyTorch's initial weights). Constructors: `Layer::new(required…)` takes PyTorch's defaults,
//! `Layer::with(required…, config)` the rest through a `<Layer>Config` struct (named `Config`
//! so as not to clash with the functional ops' `…Opts`), or the functional op's own options
//! where the layer only forwards them (pooling). Forwards reuse `nn::functional`.

#[macro_use]
mod common;
pub mod activation;
pub mod attention;
pub mod container;
pub mod conv;
pub mod linear;
pub mod module;
pub mod norm;
pub mod pool;
pub mod rnn;

pub use activation::{Dropout, Flatten, GELU, ReLU, SiLU, Sigmoid, Tanh};
pub use attention::{MhaForwardOpts, MultiheadAttention, MultiheadAttentionConfig};

pub use container::{ModuleList, Sequential};
pub use conv::{Conv1d, Conv2d, ConvConfig};
pub use linear::{Identity, Linear, LinearConfig};
pub use module::{IncompatibleKeys, Module, StateDict, Training, parameter};
pub use norm::{
    BatchNorm1d, BatchNorm2d, BatchNormConfig, Embedding, EmbeddingConfig, GroupNorm,
    GroupNormConfig, LayerNorm, LayerNormConfig, RMSNorm, RMSNormConfig,
};
pub use pool::{AdaptiveAvgPool2d, AvgPool2d, MaxPool2d};
pub use rnn::{GRU, LSTM, RnnConfig};
