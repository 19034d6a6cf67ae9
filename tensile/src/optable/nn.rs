//! The `torch.nn.functional` ops of the table ([`NnId`]): `layer_norm`, `one_hot`, `cdist`,
//! `pdist`. The forward functions are [`crate::ops::nn`]'s `layer_norm_fwd` and `one_hot_fwd`
//! and [`crate::ops::distance`]'s `cdist_fwd` and `pdist_fwd`; the derivatives are
//! `autograd/formulas/norm.rs`'s (`NativeLayerNormBackward0`) and
//! `autograd/formulas/distance.rs`'s (`CdistBackward0`, `PdistBackward0`); `one_hot` (int64)
//! has none. The other functional ops are still in `nn/`, which
//! records them itself; they move here as their forward code moves to `ops/`.

use crate::args::{Int, IntoShape};
use crate::autograd::formulas::distance::{cdist as cdist_node, pdist as pdist_node};
use crate::autograd::formulas::norm::layer_norm as layer_norm_node;
use crate::error::Result;
pub use crate::ops::distance::CdistOpts;
use crate::ops::distance::{cdist_fwd, pdist_fwd};
use crate::ops::nn::{LayerNormOpts, layer_norm_fwd, one_hot_fwd};
use crate::tensor::Tensor;

op_ids! {
    /// A `torch.nn.functional` op of the table (see [`crate::OpId`]).
    pub enum NnId {
        /// [`Tensor::layer_norm_with`]
        LayerNorm = "layer_norm" ["layer_norm", "layer_norm_with"],
        /// [`one_hot_with`]
        OneHot = "one_hot" ["one_hot", "one_hot_with"],
        /// [`cdist_with`]
        Cdist = "cdist" ["cdist", "cdist_with"],
        /// [`pdist_with`]
        Pdist = "pdist" ["pdist", "pdist_with"],
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

/// `torch.cdist(x1, x2)` (`p=2`); see [`cdist_with`].
pub fn cdist(x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    cdist_with(x1, x2, CdistOpts::default())
}

/// `torch.cdist(x1, x2, p, compute_mode)`: the p-norm distance between every row of `x1` and
/// every row of `x2`, batched over the broadcast leading dims.
///
/// Shapes: `x1` `(*a, P, M)`, `x2` `(*b, R, M)` → `(broadcast(a, b), P, R)`, contiguous.
/// dtype: the inputs' float dtype (computed in double, rounded once).
///
/// Errors (RuntimeError): `cdist only supports at least 2D tensors, X1 got: 1D` (X2 alike);
/// `X1 and X2 must have the same number of columns. X1: 3 X2: 4`; `cdist only supports
/// non-negative p values`; `cdist only supports floating-point dtypes, X1 got: Long`; `The
/// size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 0`;
/// `Storage size calculation overflowed with sizes=[1, 4611686018427387904, 4611686018427387904]`
/// (an output too large, e.g. two `(1, 2^62, 0)` inputs); the allocator's error.
pub fn cdist_with<'a>(x1: &Tensor, x2: &Tensor, opts: impl Into<CdistOpts<'a>>) -> Result<Tensor> {
    let p = opts.into().p;
    cdist_node(cdist_fwd(x1, x2, p)?, x1, x2, p)
}

/// `F.pdist(input)` (`p=2`); see [`pdist_with`].
pub fn pdist(input: &Tensor) -> Result<Tensor> {
    pdist_with(input, 2.0)
}

/// `F.pdist(input, p)`: the p-norm distance between rows `i < j` of an `(N, M)` input, in
/// row-major order of the upper triangle: shape `(N*(N-1)/2,)`, contiguous, `input`'s dtype.
///
/// Errors (RuntimeError): `pdist only supports 2D tensors, got: 3D`; `pdist only supports
/// floating-point dtypes`; `pdist only supports non-negative p values`; `pdist: the number
/// of pairs 10633823966279326980924613473029062656 of 4611686018427387904 rows overflows
/// int64` (an `(2^62, 0)` input); the allocator's error.
pub fn pdist_with(input: &Tensor, p: f64) -> Result<Tensor> {
    pdist_node(pdist_fwd(input, p)?, input, p)
}
