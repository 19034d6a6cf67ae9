//! `torch.nn.functional`, under PyTorch's names and argument orders:
//! `use tensile::nn::functional as F;` then `F::embedding(&ids, &weight)`,
//! `F::linear_with(&x, &w, &b)`, `F::softmax(&x, -1)`.
//!
//! Each function is the op of the same name on [`Tensor`]; the docs of that method give the
//! shapes, dtypes and errors. Optional arguments follow the crate's convention (README): the
//! short name takes PyTorch's defaults, the `_with` form takes the rest.

use crate::Tensor;
use crate::args::{Int, IntoShape};
use crate::error::Result;
use crate::{LayerNormOpts, NormalizeOpts};

pub use crate::optable::conv::{
    Conv1dOpts, Conv2dOpts, Conv3dOpts, ConvOpts, ConvPadding, ConvTranspose1dOpts,
    ConvTranspose2dOpts, ConvTranspose3dOpts, ConvTransposeOpts, FoldOpts, UnfoldOpts,
    conv_transpose1d, conv_transpose1d_with, conv_transpose2d, conv_transpose2d_with,
    conv_transpose3d, conv_transpose3d_with, conv1d, conv1d_with, conv2d, conv2d_with, conv3d,
    conv3d_with, fold, fold_with, unfold, unfold_with,
};
pub use crate::optable::nn::{CdistOpts, cdist, cdist_with, pdist, pdist_with};
pub use crate::optable::nn::{
    ScaledDotProductAttentionOpts, scaled_dot_product_attention, scaled_dot_product_attention_with,
};
pub use crate::optable::resample::{PadOpts, pad, pad_with};

pub use crate::nn::distance::{
    CosineSimilarityOpts, PairwiseDistanceOpts, cosine_similarity, cosine_similarity_with,
    pairwise_distance, pairwise_distance_with,
};
pub use crate::nn::dropout::{
    DropoutOpts, alpha_dropout, alpha_dropout_with, dropout, dropout_with, dropout1d,
    dropout1d_with, dropout2d, dropout2d_with, dropout3d, dropout3d_with, feature_alpha_dropout,
    feature_alpha_dropout_with,
};
pub use crate::nn::embedding::{
    EmbeddingBagOpts, EmbeddingOpts, embedding_bag, embedding_bag_with, embedding_with,
};
pub use crate::nn::loss::{
    binary_cross_entropy, binary_cross_entropy_with, binary_cross_entropy_with_logits,
    binary_cross_entropy_with_logits_with, cosine_embedding_loss, cosine_embedding_loss_with,
    gaussian_nll_loss, gaussian_nll_loss_with, hinge_embedding_loss, hinge_embedding_loss_with,
    huber_loss, huber_loss_with, kl_div, kl_div_with, l1_loss, l1_loss_with, margin_ranking_loss,
    margin_ranking_loss_with, mse_loss, mse_loss_with, multi_margin_loss, multi_margin_loss_with,
    multilabel_margin_loss, multilabel_margin_loss_with, multilabel_soft_margin_loss,
    multilabel_soft_margin_loss_with, poisson_nll_loss, poisson_nll_loss_with, smooth_l1_loss,
    smooth_l1_loss_with, soft_margin_loss, soft_margin_loss_with, triplet_margin_loss,
    triplet_margin_loss_with,
};
pub use crate::nn::loss_opts::{
    BceWithLogitsOpts, BinaryCrossEntropyOpts, CrossEntropyOpts, CtcLossOpts, GaussianNllLossOpts,
    HuberLossOpts, KlDivOpts, L1LossOpts, MarginOpts, MseLossOpts, MultiMarginLossOpts,
    MultilabelSoftMarginLossOpts, NllLossOpts, PoissonNllLossOpts, Reduction, ReductionOpts,
    SmoothL1LossOpts, TripletMarginLossOpts,
};
pub use crate::optable::index::embedding;
pub use crate::optable::loss_class::{
    cross_entropy, cross_entropy_with, ctc_loss, ctc_loss_with, nll_loss, nll_loss_with,
};
pub use crate::optable::nn::{one_hot, one_hot_with};
pub use crate::optable::norm::{
    BatchNormOpts, GroupNormOpts, InstanceNormOpts, LocalResponseNormOpts, RmsNormOpts, batch_norm,
    batch_norm_with, group_norm, group_norm_with, instance_norm, instance_norm_with,
    local_response_norm, local_response_norm_with, rms_norm, rms_norm_with,
};
pub use crate::optable::rnn::{
    RnnCellOpts, RnnOpts, gru, gru_cell, gru_cell_with, gru_with, lstm, lstm_cell, lstm_cell_with,
    lstm_with, rnn_relu, rnn_relu_cell, rnn_relu_cell_with, rnn_relu_with, rnn_tanh, rnn_tanh_cell,
    rnn_tanh_cell_with, rnn_tanh_with,
};

pub use crate::optable::activation::{
    CeluOpts, EluOpts, GeluOpts, GluOpts, HardtanhOpts, LeakyReluOpts, SoftplusOpts, celu, celu_,
    celu_with, celu_with_, elu, elu_, elu_with, elu_with_, gelu_with, glu, glu_with, hardsigmoid,
    hardsigmoid_, hardswish, hardswish_, hardtanh, hardtanh_, hardtanh_with, hardtanh_with_,
    leaky_relu, leaky_relu_, leaky_relu_with, leaky_relu_with_, logsigmoid, mish, mish_, prelu,
    relu6, relu6_, selu, selu_, softplus, softplus_with, softsign, tanhshrink, threshold,
    threshold_,
};

/// `F.linear(input, weight)`: `input @ weight.T`; see [`Tensor::linear_with`].
pub fn linear(input: &Tensor, weight: &Tensor) -> Result<Tensor> {
    input.linear(weight)
}
/// `F.linear(input, weight, bias)`: `input @ weight.T + bias` (`bias` a `&Tensor` or an
/// `Option<&Tensor>`); see [`Tensor::linear_with`].
pub fn linear_with<'b>(
    input: &Tensor,
    weight: &Tensor,
    bias: impl Into<Option<&'b Tensor>>,
) -> Result<Tensor> {
    input.linear_with(weight, bias)
}
/// `F.relu(input)`; see [`Tensor::relu`].
pub fn relu(input: &Tensor) -> Result<Tensor> {
    input.relu()
}
/// `F.relu_(input)` / `F.relu(input, inplace=True)`; see [`Tensor::relu_`].
pub fn relu_(input: &Tensor) -> Result<Tensor> {
    input.relu_()
}
/// `F.gelu(input)` (exact, erf-based); see [`Tensor::gelu`].
pub fn gelu(input: &Tensor) -> Result<Tensor> {
    input.gelu()
}
/// `F.silu(input)`; see [`Tensor::silu`].
pub fn silu(input: &Tensor) -> Result<Tensor> {
    input.silu()
}
/// `F.silu(input, inplace=True)`; see [`Tensor::silu_`].
pub fn silu_(input: &Tensor) -> Result<Tensor> {
    input.silu_()
}
/// `F.sigmoid(input)`; see [`Tensor::sigmoid`].
pub fn sigmoid(input: &Tensor) -> Result<Tensor> {
    input.sigmoid()
}
/// `F.tanh(input)`; see [`Tensor::tanh`].
pub fn tanh(input: &Tensor) -> Result<Tensor> {
    input.tanh()
}
/// `F.softmax(input, dim)`; see [`Tensor::softmax`].
pub fn softmax(input: &Tensor, dim: impl Int) -> Result<Tensor> {
    input.softmax(dim)
}
/// `F.log_softmax(input, dim)`; see [`Tensor::log_softmax`].
pub fn log_softmax(input: &Tensor, dim: impl Int) -> Result<Tensor> {
    input.log_softmax(dim)
}
/// `F.layer_norm(input, normalized_shape)`; see [`Tensor::layer_norm`].
pub fn layer_norm(input: &Tensor, normalized_shape: impl IntoShape) -> Result<Tensor> {
    input.layer_norm(normalized_shape)
}
/// `F.layer_norm(input, normalized_shape, weight, bias, eps)`; see [`Tensor::layer_norm_with`].
pub fn layer_norm_with<'a>(
    input: &Tensor,
    normalized_shape: impl IntoShape,
    opts: impl Into<LayerNormOpts<'a>>,
) -> Result<Tensor> {
    input.layer_norm_with(normalized_shape, opts)
}
/// `F.normalize(input)` (`p=2, dim=1, eps=1e-12`); see [`Tensor::normalize`].
pub fn normalize(input: &Tensor) -> Result<Tensor> {
    input.normalize()
}
/// `F.normalize(input, p, dim, eps)`; see [`Tensor::normalize_with`].
pub fn normalize_with(input: &Tensor, opts: impl Into<NormalizeOpts>) -> Result<Tensor> {
    input.normalize_with(opts)
}

pub use crate::optable::pool::{
    AvgPoolOpts, IntoOutputSize, LpPoolOpts, MaxPoolOpts, MaxUnpoolOpts, adaptive_avg_pool1d,
    adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices, adaptive_max_pool2d, adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool1d, avg_pool1d_with, avg_pool2d,
    avg_pool2d_with, avg_pool3d, avg_pool3d_with, lp_pool1d, lp_pool1d_with, lp_pool2d,
    lp_pool2d_with, max_pool1d, max_pool1d_with, max_pool1d_with_indices, max_pool2d,
    max_pool2d_with, max_pool2d_with_indices, max_pool3d, max_pool3d_with, max_pool3d_with_indices,
    max_unpool1d, max_unpool1d_with, max_unpool2d, max_unpool2d_with,
};
pub use crate::optable::resample::{InterpolateOpts, interpolate, interpolate_with};
pub use crate::optable::resample::{pixel_shuffle, pixel_unshuffle};
