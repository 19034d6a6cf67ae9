//! `torch.nn.functional`, under PyTorch's names and argument orders:
//! `use tensile::nn::functional as F;` then `F::embedding(&ids, &weight)`,
//! `F::linear_with(&x, &w, &b)`, `F::softmax(&x, -1)`.
//!
//! Each function is the op of the same name on [`Tensor`]; the docs of that method give the
//! shapes, dtypes and errors. Optional arguments follow the crate's convention (README): the
//! short name takes PyTorch's defaults, the `_with` form takes the rest.

use crate::args::{Int, IntoShape};
use crate::error::Result;
use crate::ops::nn::{LayerNormOpts, NormalizeOpts};
use crate::tensor::Tensor;

pub use crate::nn::conv::{
    Conv1dOpts, Conv2dOpts, Conv3dOpts, ConvOpts, ConvPadding, ConvTranspose1dOpts,
    ConvTranspose2dOpts, ConvTranspose3dOpts, ConvTransposeOpts, FoldOpts, UnfoldOpts,
    conv_transpose1d, conv_transpose1d_with, conv_transpose2d, conv_transpose2d_with,
    conv_transpose3d, conv_transpose3d_with, conv1d, conv1d_with, conv2d, conv2d_with, conv3d,
    conv3d_with, fold, fold_with, unfold, unfold_with,
};
pub use crate::nn::pad::{PadOpts, pad, pad_with};
pub use crate::ops::nn::{embedding, one_hot, one_hot_with};

pub use crate::nn::activation::{
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
