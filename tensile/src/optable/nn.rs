//! The `torch.nn.functional` ops of the table ([`NnId`]): `layer_norm` and `one_hot`. The
//! forward functions are [`crate::ops::nn`]'s `layer_norm_fwd` and `one_hot_fwd`; the
//! derivative of `layer_norm` (`NativeLayerNormBackward0`) is `autograd/formulas/norm.rs`'s,
//! `one_hot` (int64) has none. The other functional ops are still in `nn/`, which
//! records them itself; they move here as their forward code moves to `ops/`.

use crate::args::{Int, IntoShape};
use crate::autograd::formulas::norm::layer_norm as layer_norm_node;
use crate::error::Result;
use crate::ops::nn::{LayerNormOpts, layer_norm_fwd, one_hot_fwd};
use crate::tensor::Tensor;

op_ids! {
    /// A `torch.nn.functional` op of the table (see [`crate::OpId`]).
    pub enum NnId {
        /// [`Tensor::layer_norm_with`]
        LayerNorm = "layer_norm" ["layer_norm", "layer_norm_with"],
        /// [`one_hot_with`]
        OneHot = "one_hot" ["one_hot", "one_hot_with"],
    }
}

impl Tensor {
    /// `torch.nn.functional.layer_norm(self, normalized_shape)` (no weight or bias,
    /// `eps = 1e-5`; [`Tensor::layer_norm_with`] takes them): normalises
    /// over the last `normalized_shape.len()` dims, `(x - mean) / sqrt(var + eps) * weight + bias`
    /// with the biased variance (statistics in float64).
    ///
    /// Shapes: `self` `(*, *normalized_shape)`; `weight` and `bias` exactly `normalized_shape`;
    /// output as `self`, fresh and contiguous, `self`'s dtype. Float dtypes only; float16 and
    /// bfloat16 inputs may take float32 parameters.
    ///
    /// Errors: `Expected normalized_shape to be at least 1-dimensional, i.e., containing at least
    /// one element, but got normalized_shape = []`; `Expected weight to be of same shape as
    /// normalized_shape, but got weight of shape [3] and normalized_shape = [4]` (same for
    /// bias); `Given normalized_shape=[4], expected input with shape [*, 4], but got input of
    /// size[2, 3]`; `mixed dtype (CPU): expect parameter to have scalar type of Float`;
    /// `"LayerNormKernelImpl" not implemented for 'Long'`.
    pub fn layer_norm(&self, normalized_shape: impl IntoShape) -> Result<Tensor> {
        self.layer_norm_with(normalized_shape, LayerNormOpts::default())
    }

    /// `torch.nn.functional.layer_norm(self, normalized_shape, weight, bias, eps)`: as
    /// [`Tensor::layer_norm`] with PyTorch's optional arguments: `(&w, &b)`, `(&w, &b, eps)`,
    /// or [`LayerNormOpts`]. Shapes and errors as [`Tensor::layer_norm`].
    pub fn layer_norm_with<'a>(
        &self,
        normalized_shape: impl IntoShape,
        opts: impl Into<LayerNormOpts<'a>>,
    ) -> Result<Tensor> {
        let LayerNormOpts { weight, bias, eps } = opts.into();
        let shape = normalized_shape.into_shape();
        let (y, k) = layer_norm_fwd(self, &shape, weight, bias, eps)?;
        layer_norm_node(y, self, k, weight, bias, eps)
    }
}

/// `torch.nn.functional.one_hot(tensor)`: `num_classes` inferred as `max + 1`; see
/// [`one_hot_with`].
pub fn one_hot(tensor: &Tensor) -> Result<Tensor> {
    one_hot_with(tensor, -1)
}

/// `torch.nn.functional.one_hot(tensor, num_classes)`: int64 of shape `tensor.shape +
/// (num_classes,)`, contiguous, 1 at each value's class and 0 elsewhere. `num_classes = -1`
/// infers `max + 1`.
///
/// Errors (RuntimeError), in PyTorch's order: `one_hot is only applicable to index tensor of
/// type LongTensor.`; `Can not infer total number of classes from empty tensor.`;
/// `Class values must be non-negative.`; `Class values must be smaller than num_classes.`;
/// `Stride calculation overflowed` (an empty `(0, 2^62)` with 4 classes, as PyTorch's `empty`).
pub fn one_hot_with(tensor: &Tensor, num_classes: impl Int) -> Result<Tensor> {
    // int64 out: nothing to record (PyTorch's `one_hot` is not differentiable)
    one_hot_fwd(tensor, num_classes.to_i64())
}
