//! The `torch.nn.functional` ops of the table ([`NnId`]): `layer_norm`, `one_hot`, `cdist`,
//! `pdist`, `scaled_dot_product_attention`. The forward functions are [`crate::ops::nn`]'s
//! `layer_norm_fwd` and `one_hot_fwd`, [`crate::ops::distance`]'s `cdist_fwd` and `pdist_fwd`,
//! [`crate::ops::attention`]'s `sdpa_check` and `sdpa_fused` (the fused kernel; with a
//! gradient to record, attention is PyTorch's math path, a composite); the derivatives are
//! `autograd/formulas/norm.rs`'s (`NativeLayerNormBackward0`) and
//! `autograd/formulas/distance.rs`'s (`CdistBackward0`, `PdistBackward0`); `one_hot` (int64)
//! has none. The other functional ops are still in `nn/`, which
//! records them itself; they move here as their forward code moves to `ops/`.

use crate::args::{Int, IntoShape};
use crate::autograd::api::any_requires_grad;
use crate::autograd::formulas::attention::sdpa_math;
use crate::autograd::formulas::distance::{cdist as cdist_node, pdist as pdist_node};
use crate::autograd::formulas::norm::layer_norm as layer_norm_node;
use crate::error::Result;
pub use crate::ops::attention::ScaledDotProductAttentionOpts;
use crate::ops::attention::{sdpa_check, sdpa_fused};
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
        /// [`scaled_dot_product_attention_with`]
        ScaledDotProductAttention = "scaled_dot_product_attention" [
            "scaled_dot_product_attention",
            "scaled_dot_product_attention_with",
        ],
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
/// dtype: the inputs' float dtype. Computed as PyTorch chooses (`compute_mode`, see
/// [`CdistOpts`]): for `p = 2` with more than 25 rows on either side, by the matrix product
/// `‖a‖² - 2a·b + ‖b‖²` (clamped at 0, square-rooted; recorded as `EuclideanDistBackward0`
/// under a `ViewBackward0`), so a row's distance to itself is a small rounding residue, not
/// 0; otherwise directly (in double, rounded once; `CdistBackward0`), float32 and float64
/// only (`"cdist" not implemented for 'Half'`, NotImplementedError, unless the output is
/// empty or the rows have no columns).
///
/// Errors (RuntimeError): `cdist only supports at least 2D tensors, X1 got: 1D` (X2 alike);
/// `X1 and X2 must have the same number of columns. X1: 3 X2: 4`; `cdist only supports
/// non-negative p values`; `cdist only supports floating-point dtypes, X1 got: Long`; `The
/// size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 0`;
/// `Storage size calculation overflowed with sizes=[1, 4611686018427387904, 4611686018427387904]`
/// (ValueError `foo is not a valid value for compute_mode`)
/// (an output too large, e.g. two `(1, 2^62, 0)` inputs); the allocator's error.
pub fn cdist_with<'a>(x1: &Tensor, x2: &Tensor, opts: impl Into<CdistOpts<'a>>) -> Result<Tensor> {
    let o = opts.into();
    let p = o.p;
    let mode = match o.compute_mode {
        None | Some("use_mm_for_euclid_dist_if_necessary") => 0,
        Some("use_mm_for_euclid_dist") => 1,
        Some("donot_use_mm_for_euclid_dist") => 2,
        Some(m) => {
            return Err(crate::error::Error::value(format!(
                "{m} is not a valid value for compute_mode"
            )));
        }
    };
    if p == 2.0 && x1.dim() >= 2 && x2.dim() >= 2 && x1.numel() != 0 && x2.numel() != 0 {
        let (r1, r2) = (x1.size()[x1.dim() - 2], x2.size()[x2.dim() - 2]);
        if mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)) {
            return euclidean_cdist(x1, x2);
        }
    }
    cdist_node(cdist_fwd(x1, x2, p)?, x1, x2, p)
}

/// `cdist_impl`'s matrix-product path: the batch dims broadcast and flattened to one
/// (`expand(…).reshape(B, R, M)`, recorded), `_euclidean_dist` (`EuclideanDistBackward0`),
/// then viewed as the output shape (`ViewBackward0`), as PyTorch records it.
fn euclidean_cdist(x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    crate::ops::distance::cdist_check(x1, x2, 2.0)?;
    let (d1, d2) = (x1.dim(), x2.dim());
    let (r1, r2, m) = (x1.size()[d1 - 2], x2.size()[d2 - 2], x1.size()[d1 - 1]);
    let batch = crate::broadcast::infer_size(&x1.size()[..d1 - 2], &x2.size()[..d2 - 2])?;
    let nb: usize = batch.iter().product();
    let mut out: Vec<i64> = batch.iter().map(|&b| b as i64).collect();
    out.extend([r1 as i64, r2 as i64]);
    let flat = |t: &Tensor, r: usize| -> Result<Tensor> {
        let mut s: Vec<i64> = batch.iter().map(|&b| b as i64).collect();
        s.extend([r as i64, m as i64]);
        t.expand(&s)?.reshape([nb as i64, r as i64, m as i64])
    };
    let (a, b) = if nb == 1 {
        (x1.alias(), x2.alias())
    } else {
        (flat(x1, r1)?, flat(x2, r2)?)
    };
    let d = {
        let _ng = crate::autograd::no_grad();
        crate::ops::distance::euclidean_dist_fwd(&a, &b)?
    };
    crate::autograd::formulas::distance::euclidean_dist(d, &a, &b)?.view(out)
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

/// `F.scaled_dot_product_attention(query, key, value)`: no mask, not causal, scale
/// `1/sqrt(E)`. See [`scaled_dot_product_attention_with`].
pub fn scaled_dot_product_attention(
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
) -> Result<Tensor> {
    scaled_dot_product_attention_with(query, key, value, ScaledDotProductAttentionOpts::default())
}

/// `F.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale,
/// enable_gqa)`: `softmax(query·keyᵀ·scale + mask, -1)·value`.
///
/// Shapes: `query (…, L, E)`, `key (…, S, E)`, `value (…, S, Ev)`, each at least 2-d; the
/// batch dims `…` broadcast as `matmul`'s do (query with key, then with value); the result is
/// `(…, L, Ev)`. `attn_mask` broadcasts to the scores' shape `(…, L, S)` without growing it:
/// bool (`false` excludes the key) or float (added). `is_causal` lets query `i` see keys
/// `j <= i` (top-left aligned, also for `L != S`). With `enable_gqa`, key and value may have
/// fewer heads (dim -3) than the query, `Hq` a multiple of each: head `h` of the query uses
/// head `h / (Hq/Hk)`. A query row whose keys are all masked gives zeros (not NaN).
///
/// dtype: the inputs' (all equal): float32, float64, bfloat16, float16 (the half types are
/// computed in float32). Layout: contiguous, except where PyTorch's CPU dispatcher picks its
/// flash kernel (3-d or 4-d inputs of one rank, equal batch, key/value heads equal to the
/// query's, 1, or with `enable_gqa` dividing them, `E == Ev`, non-empty `L` and `S`, last-dim
/// stride 1, a 2-d or 4-d mask of matching/1 sizes, no dropout): then laid out like `query`
/// (`empty_like`). Strides are in elements.
///
/// Errors (RuntimeError unless noted), in PyTorch's order: `Expected query, key, and value to
/// have the same dtype, but got query.dtype: float key.dtype: double and value.dtype: float
/// instead.`; `Expected query, key, and value to all be  at least 2 dimensional, but got
/// query.dim: 1 key.dim: 4 and value.dim: 4 instead.`; `Expected attn_mask dtype to be bool or
/// float or to match query dtype, but got attn_mask.dtype: double and  query.dtype: float
/// instead.`; IndexError from the dispatcher's mask check on 4-d inputs (`Dimension out of
/// range (expected to be in range of [-1, 0], but got -2)` for a 1-d mask);
/// `_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True`;
/// IndexError `Dimension out of range (expected to be in range of [-2, 1], but got -3)`
/// (`enable_gqa` on 2-d inputs); `Number of heads in key and value must divide the number of
/// heads in query`; batch dims that do not broadcast (`The size of tensor a (2) must match
/// the size of tensor b (3) at non-singleton dimension 0`); `Expected size for first two
/// dimensions of batch2 tensor to be: [4, 6] but got: [4, 7].` / `mm: mat1 and mat2 shapes
/// cannot be multiplied (3x2 and 3x4)` (E or S mismatch); a mask that would grow the scores:
/// `output with shape [2, 3, 4, 6] doesn't match the broadcast shape [3, 2, 3, 4, 6]`;
/// `dropout probability has to be between 0 and 1, but got 1.5`; NotImplementedError for
/// `0 < dropout_p <= 1`; integer or bool inputs: `expected scalar type Float but found Long`
/// (2-d: `expected m1 and m2 to have the same dtype, but got: float != long int`).
pub fn scaled_dot_product_attention_with<'a>(
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    opts: impl Into<ScaledDotProductAttentionOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let (q, k, v) = (query, key, value);
    let (shapes, flash) = sdpa_check(q, k, v, &o)?;
    let mut grad_inputs = vec![q, k, v];
    grad_inputs.extend(o.attn_mask.filter(|m| m.dtype().is_floating_point()));
    if any_requires_grad(&grad_inputs) {
        // recording: PyTorch takes the math path, a composite of recorded ops
        let e = q.size()[q.dim() - 1];
        let scale = o.scale.unwrap_or(1.0 / (e as f64).sqrt());
        return sdpa_math(
            q,
            k,
            v,
            o.attn_mask,
            o.is_causal,
            scale,
            shapes.rep_k,
            shapes.rep_v,
        );
    }
    sdpa_fused(q, k, v, o, &shapes, flash)
}
