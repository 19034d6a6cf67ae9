//! `torch.nn`: for now its functional half, [`functional`] (`use tensile::nn::functional as F;`).
pub(crate) mod distance;
pub(crate) mod dropout;
pub(crate) mod embedding;
pub mod functional;
pub mod init;
pub(crate) mod loss;
pub use crate::optable::loss_opts;
pub mod modules;
pub mod utils;
pub use modules::{
    AdaptiveAvgPool2d, AvgPool2d, BatchNorm1d, BatchNorm2d, BatchNormConfig, Conv1d, Conv2d,
    ConvConfig, Dropout, Embedding, EmbeddingConfig, Flatten, GELU, GRU, GroupNorm,
    GroupNormConfig, Identity, IncompatibleKeys, LSTM, LayerNorm, LayerNormConfig, Linear,
    LinearConfig, MaxPool2d, MhaForwardOpts, Module, ModuleList, MultiheadAttention,
    MultiheadAttentionConfig, RMSNorm, RMSNormConfig, ReLU, RnnConfig, Sequential, SiLU, Sigmoid,
    StateDict, Tanh, Training, parameter,
};
