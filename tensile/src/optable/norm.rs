//! The normalization layers of `torch.nn.functional`: `rms_norm`, `group_norm`,
//! `instance_norm`, `batch_norm` (evaluation and training, updating the running statistics in
//! place) and `local_response_norm`, with PyTorch's checks, messages and output layouts.
//!
//! Statistics are taken in double (PyTorch takes them in float for float32 inputs; both agree
//! to float32 tolerance); float32 inputs in contiguous or channels-last layout go through the
//! row/plane kernels of `crate::kernels::normalize`, other inputs through a generic path over
//! their values in double. That forward code is [`crate::ops::norm`]'s; the derivatives are
//! `autograd/formulas/norm.rs`'s (`NativeGroupNormBackward0`, `NativeBatchNormBackward0`, and
//! PyTorch's composites for `rms_norm` and `instance_norm`).

use crate::Tensor;
use crate::args::{Int, IntoShape};
use crate::autograd::api::any_requires_grad;
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::layout::contiguous_strides;
use crate::ops::norm::{
    affine, batch_norm_strides, combine, f32_layout, f32_layout_cl, float_only,
    half_channel_moments, half_elementwise_norm, half_linear_terms, half_var, linear_terms,
    moments, ncs, param, plane_moments, rms_norm_fused, round_half, suggested_strides,
};

op_ids! {
    /// A normalisation of `torch.nn.functional` (see [`crate::OpId`]; `layer_norm` is
    /// [`crate::NnId::LayerNorm`]).
    pub enum NormId {
        /// [`rms_norm_with`]
        RmsNorm = "rms_norm" ["rms_norm", "rms_norm_with"],
        /// [`group_norm_with`]
        GroupNorm = "group_norm" ["group_norm", "group_norm_with"],
        /// [`batch_norm_with`]
        BatchNorm = "batch_norm" ["batch_norm", "batch_norm_with"],
        /// [`instance_norm_with`]
        InstanceNorm = "instance_norm" ["instance_norm", "instance_norm_with"],
        /// [`local_response_norm_with`]
        LocalResponseNorm = "local_response_norm" ["local_response_norm", "local_response_norm_with"],
    }
}

// ---------------------------------------------------------------- rms_norm

/// `F.rms_norm`'s optional arguments (`weight=None, eps=None`), for [`rms_norm_with`]: a
/// weight tensor, a pair `(&weight, eps)`, or the struct.
#[derive(Clone, Copy, Debug, Default)]
pub struct RmsNormOpts<'a> {
    /// Elementwise scale of shape `normalized_shape`.
    pub weight: Option<&'a Tensor>,
    /// Added to the mean square; `None` is the machine epsilon of the computation dtype
    /// (float32's for float16/bfloat16/float32 inputs, float64's for float64).
    pub eps: Option<f64>,
}
impl<'a> From<&'a Tensor> for RmsNormOpts<'a> {
    fn from(w: &'a Tensor) -> Self {
        RmsNormOpts {
            weight: Some(w),
            eps: None,
        }
    }
}
impl<'a> From<(&'a Tensor, f64)> for RmsNormOpts<'a> {
    fn from((w, eps): (&'a Tensor, f64)) -> Self {
        RmsNormOpts {
            weight: Some(w),
            eps: Some(eps),
        }
    }
}

/// `F.rms_norm(input, normalized_shape)`: no weight, `eps=None`; see [`rms_norm_with`].
pub fn rms_norm(input: &Tensor, normalized_shape: impl IntoShape) -> Result<Tensor> {
    rms_norm_with(input, normalized_shape, RmsNormOpts::default())
}

/// `F.rms_norm(input, normalized_shape, weight, eps)`: `x / sqrt(mean(x²) + eps) * weight`,
/// the mean taken over the last `normalized_shape.len()` dims (in float32 for float16 and
/// bfloat16 inputs, rounded back to the input's dtype before the weight multiplies).
///
/// Shapes: `input` `(*, *normalized_shape)`, `weight` exactly `normalized_shape`; output as
/// `input`, with `input`'s strides when it is contiguous, else row-major. dtype: `input`'s (times
/// `weight`'s, then cast back). Float dtypes only.
///
/// Errors (RuntimeError): `Expected normalized_shape to be at least 1-dimensional, i.e.,
/// containing at least one element, but got normalized_shape = []`; `Expected weight to be of
/// same shape as normalized_shape, but got weight of shape [3] and normalized_shape = [4]`;
/// `Given normalized_shape=[4], expected input with shape [*4], but got input of size[2, 3]`;
/// NotImplementedError `"rms_norm" not implemented for 'Long'`.
pub fn rms_norm_with<'a>(
    input: &Tensor,
    normalized_shape: impl IntoShape,
    opts: impl Into<RmsNormOpts<'a>>,
) -> Result<Tensor> {
    let RmsNormOpts { weight, eps } = opts.into();
    let shape = normalized_shape.into_shape();
    if shape.is_empty() {
        return Err(Error::runtime(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []",
        ));
    }
    if let Some(w) = weight
        && (w.dim() != shape.len() || w.sizes.iter().zip(&shape).any(|(&a, &b)| a as i64 != b))
    {
        return Err(Error::runtime(format!(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape {} and normalized_shape = {}",
            fmt_list(&w.sizes),
            fmt_list(&shape)
        )));
    }
    let (nd, kd) = (input.dim(), shape.len());
    if nd < kd
        || input.sizes[nd - kd..]
            .iter()
            .zip(&shape)
            .any(|(&a, &b)| a as i64 != b)
    {
        let joined: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
        return Err(Error::runtime(format!(
            "Given normalized_shape={}, expected input with shape [*{}], but got input of size{}",
            fmt_list(&shape),
            joined.join(", "),
            fmt_list(&input.sizes)
        )));
    }
    float_only(input, "rms_norm")?;
    let opmath = match input.dtype {
        DType::Float16 | DType::BFloat16 => DType::Float32,
        d => d,
    };
    let eps = match eps {
        None if opmath == DType::Float64 => f64::EPSILON,
        None => f32::EPSILON as f64,
        Some(e) => e,
    };
    // `eps` is held in the input's dtype.
    let eps = crate::element::round_to(input.dtype, eps);
    let mut operands = vec![input];
    operands.extend(weight);
    if any_requires_grad(&operands) {
        return crate::autograd::formulas::norm::rms_norm_composite(input, kd, weight, eps);
    }
    rms_norm_fused(input, kd, weight, eps, opmath)
}

// ---------------------------------------------------------------- group_norm

/// `F.group_norm`'s optional arguments (`weight=None, bias=None, eps=1e-5`), for
/// [`group_norm_with`]: a pair `(&weight, &bias)`, a triple `(&weight, &bias, eps)`, or the
/// struct.
#[derive(Clone, Copy, Debug)]
pub struct GroupNormOpts<'a> {
    /// Per-channel scale `(C,)`.
    pub weight: Option<&'a Tensor>,
    /// Per-channel shift `(C,)`.
    pub bias: Option<&'a Tensor>,
    /// Added to the variance (default 1e-5).
    pub eps: f64,
}
impl Default for GroupNormOpts<'_> {
    fn default() -> Self {
        GroupNormOpts {
            weight: None,
            bias: None,
            eps: 1e-5,
        }
    }
}
impl<'a> From<(&'a Tensor, &'a Tensor)> for GroupNormOpts<'a> {
    fn from((w, b): (&'a Tensor, &'a Tensor)) -> Self {
        GroupNormOpts {
            weight: Some(w),
            bias: Some(b),
            eps: 1e-5,
        }
    }
}
impl<'a> From<(&'a Tensor, &'a Tensor, f64)> for GroupNormOpts<'a> {
    fn from((w, b, eps): (&'a Tensor, &'a Tensor, f64)) -> Self {
        GroupNormOpts {
            weight: Some(w),
            bias: Some(b),
            eps,
        }
    }
}

/// `F.group_norm(input, num_groups)`: no weight or bias, `eps=1e-5`; see [`group_norm_with`].
pub fn group_norm(input: &Tensor, num_groups: impl Int) -> Result<Tensor> {
    group_norm_with(input, num_groups, GroupNormOpts::default())
}

/// `F.group_norm(input, num_groups, weight, bias, eps)`: the `C` channels split into
/// `num_groups` groups; each `(sample, group)` block normalised by its mean and biased
/// variance, then `* weight[c] + bias[c]`.
///
/// Shapes: `input` `(N, C, *)`, `weight`/`bias` `(C,)`; output as `input`, contiguous or
/// channels-last as `input` suggests (PyTorch's `suggest_memory_format`). dtype: `input`'s
/// (float dtypes; statistics in double).
///
/// Errors: RuntimeError `Expected at least 2 dimensions for input tensor but received 1`;
/// ValueError `Expected more than 1 value per channel when training, got input size [1, 3]`
/// (the list is `[N*C/G, G, *]`); RuntimeError `Expected number of channels to be greater
/// than 0, got 0`; `Expected HxW to be greater than 0, got 0` (an empty spatial size);
/// `Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 7] and num_groups=2`; `Expected weight
/// to be a vector of size equal to the number of channels in input, but got weight of shape
/// [3] and input of shape [2, 4]` (same for bias).
pub fn group_norm_with<'a>(
    input: &Tensor,
    num_groups: impl Int,
    opts: impl Into<GroupNormOpts<'a>>,
) -> Result<Tensor> {
    let GroupNormOpts { weight, bias, eps } = opts.into();
    let g = num_groups.to_i64();
    if input.dim() < 2 {
        return Err(Error::runtime(format!(
            "Expected at least 2 dimensions for input tensor but received {}",
            input.dim()
        )));
    }
    if g <= 0 {
        return Err(Error::runtime(format!(
            "Expected num groups to be greater than 0, got {g}"
        )));
    }
    let (n, c, s) = ncs(input);
    let gu = g as usize;
    let mut vsize = vec![(n * c / gu) as i64, g];
    vsize.extend(input.sizes[2..].iter().map(|&x| x as i64));
    if (n * c / gu) * s == 1 {
        return Err(Error::value(format!(
            "Expected more than 1 value per channel when training, got input size {}",
            fmt_list(&vsize)
        )));
    }
    if c == 0 {
        return Err(Error::runtime(
            "Expected number of channels to be greater than 0, got 0",
        ));
    }
    if s == 0 {
        return Err(Error::runtime("Expected HxW to be greater than 0, got 0"));
    }
    if !c.is_multiple_of(gu) {
        return Err(Error::runtime(format!(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape {} and num_groups={g}",
            fmt_list(&input.sizes)
        )));
    }
    for (name, p) in [("weight", weight), ("bias", bias)] {
        if let Some(p) = p
            && (p.dim() != 1 || p.numel() != c)
        {
            return Err(Error::runtime(format!(
                "Expected {name} to be a vector of size equal to the number of channels in input, but got {name} of shape {} and input of shape {}",
                fmt_list(&p.sizes),
                fmt_list(&input.sizes)
            )));
        }
    }
    float_only(input, "group_norm")?;
    let strides = suggested_strides(input);
    let cg = c / gu;
    let stats: Vec<(f64, f64)> = if f32_layout(input) == Some(false) {
        plane_moments(input, n, gu, cg * s)?
    } else {
        let v = input.try_to_vec::<f64>()?;
        let blk = cg * s;
        (0..n * gu)
            .map(|p| moments(&v[p * blk..(p + 1) * blk]))
            .collect()
    };
    let (w, b) = (param(weight, c, 1.0)?, param(bias, c, 0.0)?);
    let mut alpha = crate::error::try_filled(0.0, n * c)?;
    let mut beta = crate::error::try_filled(0.0, n * c)?;
    for i in 0..n {
        for ch in 0..c {
            let (mean, var) = stats[i * gu + ch / cg];
            let rstd = 1.0 / (var.max(0.0) + eps).sqrt();
            alpha[i * c + ch] = rstd * w[ch];
            beta[i * c + ch] = b[ch] - mean * rstd * w[ch];
        }
    }
    let out = affine(input, &strides, &alpha, &beta, true)?;
    crate::autograd::formulas::norm::channel_norm(
        out,
        input,
        weight,
        bias,
        eps,
        || Ok(crate::autograd::formulas::norm::Stats::Group(gu)),
        "NativeGroupNormBackward0",
    )
}

// ---------------------------------------------------------------- batch_norm

/// `F.batch_norm`'s optional arguments (`weight=None, bias=None, training=False,
/// momentum=0.1, eps=1e-5`), for [`batch_norm_with`]: a pair `(&weight, &bias)`, a triple
/// `(&weight, &bias, training)`, or the struct.
#[derive(Clone, Copy, Debug)]
pub struct BatchNormOpts<'a> {
    /// Per-channel scale `(C,)`.
    pub weight: Option<&'a Tensor>,
    /// Per-channel shift `(C,)`.
    pub bias: Option<&'a Tensor>,
    /// Normalise by the batch statistics (and update the running ones) instead of the
    /// running statistics.
    pub training: bool,
    /// Weight of the batch statistics in the running update (default 0.1).
    pub momentum: f64,
    /// Added to the variance (default 1e-5).
    pub eps: f64,
}
impl Default for BatchNormOpts<'_> {
    fn default() -> Self {
        BatchNormOpts {
            weight: None,
            bias: None,
            training: false,
            momentum: 0.1,
            eps: 1e-5,
        }
    }
}
impl<'a> From<(&'a Tensor, &'a Tensor)> for BatchNormOpts<'a> {
    fn from((w, b): (&'a Tensor, &'a Tensor)) -> Self {
        BatchNormOpts {
            weight: Some(w),
            bias: Some(b),
            ..Default::default()
        }
    }
}
impl<'a> From<(&'a Tensor, &'a Tensor, bool)> for BatchNormOpts<'a> {
    fn from((w, b, training): (&'a Tensor, &'a Tensor, bool)) -> Self {
        BatchNormOpts {
            weight: Some(w),
            bias: Some(b),
            training,
            ..Default::default()
        }
    }
}

/// `F.batch_norm(input, running_mean, running_var)`: evaluation mode; see [`batch_norm_with`].
pub fn batch_norm<'r>(
    input: &Tensor,
    running_mean: impl Into<Option<&'r Tensor>>,
    running_var: impl Into<Option<&'r Tensor>>,
) -> Result<Tensor> {
    batch_norm_with(input, running_mean, running_var, BatchNormOpts::default())
}

/// `torch.Size([…])`, as Python prints a tensor's size.
fn torch_size(s: &[usize]) -> String {
    format!("torch.Size({})", fmt_list(s))
}

/// `F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)`:
/// per channel `c` (dim 1), `(x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c]`.
///
/// Evaluation (`training=false`): `mean`/`var` are `running_mean`/`running_var`, which must
/// be given. Training: the batch's mean and biased variance over every dim but 1; when the
/// running statistics are given they are UPDATED IN PLACE (through views, in their own
/// dtype): `running = (1 - momentum) * running + momentum * batch`, with the unbiased batch
/// variance (`momentum = 0` leaves them unchanged).
///
/// Shapes: `input` `(N, C, *)`; `running_mean`, `running_var`, `weight`, `bias` of `C`
/// elements. Output: `input`'s shape and dtype (float dtypes; a bfloat16/float16 input may
/// take float32 statistics and parameters), contiguous or channels-last as `input` suggests.
/// An input with no elements (a 1-d `(0,)` one included) gives an empty result without any
/// check of the statistics.
///
/// Errors: ValueError `Expected more than 1 value per channel when training, got input size
/// torch.Size([1, 3])` (training, one value per channel); RuntimeError `running_mean should
/// contain 3 elements not 4` (likewise `running_var`, `weight`, `bias`); `running_mean must be
/// defined in evaluation mode` (and `running_var`).
pub fn batch_norm_with<'r, 'a>(
    input: &Tensor,
    running_mean: impl Into<Option<&'r Tensor>>,
    running_var: impl Into<Option<&'r Tensor>>,
    opts: impl Into<BatchNormOpts<'a>>,
) -> Result<Tensor> {
    let (rm, rv) = (running_mean.into(), running_var.into());
    let BatchNormOpts {
        weight,
        bias,
        training,
        momentum,
        eps,
    } = opts.into();
    // PyTorch's `_batch_norm_impl_index` of an empty input: `input.clone() * weight[0] +
    // bias[0]`, so the empty result has the layout those pointwise ops give it (a 1-d empty
    // input included, which passes Python's batch-size check with 0 values)
    let empty = || -> Result<Tensor> {
        let mut out = input.try_clone()?;
        if let Some(w) = weight.filter(|w| w.numel() > 0) {
            out = out.mul(&w.reshape([-1])?.select(0, 0)?)?;
        }
        if let Some(b) = bias.filter(|b| b.numel() > 0) {
            out = out.add(&b.reshape([-1])?.select(0, 0)?)?;
        }
        Ok(out)
    };
    if input.dim() == 1 && input.numel() == 0 {
        return empty();
    }
    if input.dim() < 2 {
        return Err(Error::runtime(format!(
            "batch_norm: expected input with at least 2 dims, but got {}",
            input.dim()
        )));
    }
    let (n, c, s) = ncs(input);
    if training && n * s == 1 {
        return Err(Error::value(format!(
            "Expected more than 1 value per channel when training, got input size {}",
            torch_size(&input.sizes)
        )));
    }
    if input.numel() == 0 {
        return empty();
    }
    for (name, p) in [
        ("running_mean", rm),
        ("running_var", rv),
        ("weight", weight),
        ("bias", bias),
    ] {
        match p {
            Some(p) if p.numel() != c => {
                return Err(Error::runtime(format!(
                    "{name} should contain {c} elements not {}",
                    p.numel()
                )));
            }
            None if !training && name.starts_with("running") => {
                return Err(Error::runtime(format!(
                    "{name} must be defined in evaluation mode"
                )));
            }
            _ => {}
        }
    }
    float_only(input, "batch_norm")?;
    let all_contiguous = (input.is_contiguous() || f32_layout_cl(input))
        && [weight, bias, rm, rv]
            .iter()
            .all(|p| p.is_none_or(|p| p.is_contiguous()));
    let strides = batch_norm_strides(input, all_contiguous);
    // a contiguous float16/bfloat16 input takes its statistics and linear terms in float;
    // with parameters of its own type (PyTorch's `param_t = scalar_t`) the statistics are
    // stored in that type
    let reduced = matches!(input.dtype, DType::Float16 | DType::BFloat16);
    let same_type = [weight, bias, rm, rv]
        .iter()
        .all(|p| p.is_none_or(|p| p.dtype == input.dtype));
    let half = reduced && input.is_contiguous();
    let (mean, var): (Vec<f64>, Vec<f64>) = if training {
        let cnt = n * s;
        // (mean, biased variance, unbiased variance) per channel
        let stats: Vec<(f64, f64, f64)> = if half {
            let store = same_type.then_some(input.dtype);
            half_channel_moments(input, (n, c, s), store)?
                .into_iter()
                .map(|(m, vs)| {
                    let var = half_var(store, vs, cnt) as f64;
                    (m as f64, var, half_var(store, vs, cnt - 1) as f64)
                })
                .collect()
        } else {
            let planes = plane_moments(input, n, c, s)?;
            let cnt = cnt as f64;
            (0..c)
                .map(|ch| {
                    let (m, v) = combine((0..n).map(|i| planes[i * c + ch]));
                    (m, v, v * cnt / (cnt - 1.0))
                })
                .collect()
        };
        for (name, r) in [("mean", rm), ("var", rv)] {
            if let Some(r) = r {
                let old = r.try_to_vec::<f64>()?;
                let new: Vec<f64> = old
                    .iter()
                    .zip(&stats)
                    .map(|(&o, &(m, _, unbiased))| {
                        let b = if name == "mean" { m } else { unbiased };
                        momentum * b + (1.0 - momentum) * o
                    })
                    .collect();
                r.copy_(&Tensor::from_vec(new, &r.sizes[..])?)?;
            }
        }
        stats.into_iter().map(|(m, v, _)| (m, v)).unzip()
    } else {
        (
            rm.map(|t| t.try_to_vec::<f64>())
                .transpose()?
                .unwrap_or_default(),
            rv.map(|t| t.try_to_vec::<f64>())
                .transpose()?
                .unwrap_or_default(),
        )
    };
    let (w, b) = (param(weight, c, 1.0)?, param(bias, c, 0.0)?);
    let out = if reduced && same_type {
        let dt = input.dtype;
        let h = |v: f32| round_half(dt, v);
        let mean_h: Vec<f32> = mean.iter().map(|&m| h(m as f32)).collect();
        let invstd_h: Vec<f32> = var
            .iter()
            .map(|&v| {
                let v = v as f32;
                let e = eps as f32;
                if training || all_contiguous {
                    // `VarTransform<float>`, or the fast path's `1 / sqrt(var + eps)` in float
                    h(1.0 / (v + e).sqrt())
                } else {
                    // `1 / sqrt(running_var + eps)` as three `Half` tensor ops
                    h(1.0 / h(h(v + e).sqrt()))
                }
            })
            .collect();
        if all_contiguous {
            let (mut alpha, mut beta) = (vec![0.0; c], vec![0.0; c]);
            for ch in 0..c {
                (alpha[ch], beta[ch]) = half_linear_terms(mean_h[ch], invstd_h[ch], w[ch], b[ch]);
            }
            affine(input, &strides, &alpha, &beta, false)?
        } else {
            half_elementwise_norm(input, &strides, (&mean_h, &invstd_h), (&w, &b))?
        }
    } else {
        let mut alpha = vec![0.0; c];
        let mut beta = vec![0.0; c];
        let f32 = input.dtype == DType::Float32 || half;
        for ch in 0..c {
            let stat = if training && half {
                // `VarTransform<float>`: `1 / sqrt(var + eps)` in float
                ((1.0 / (var[ch] as f32 + eps as f32).sqrt()) as f64, None)
            } else if training {
                (1.0 / (var[ch] + eps).sqrt(), None)
            } else {
                (0.0, Some(var[ch]))
            };
            (alpha[ch], beta[ch]) = linear_terms(mean[ch], stat, w[ch], b[ch], eps, f32);
        }
        affine(input, &strides, &alpha, &beta, false)?
    };
    let stats = move || {
        Ok(if training {
            crate::autograd::formulas::norm::Stats::Batch
        } else {
            crate::autograd::formulas::norm::Stats::Running { mean, var }
        })
    };
    crate::autograd::formulas::norm::channel_norm(
        out,
        input,
        weight,
        bias,
        eps,
        stats,
        "NativeBatchNormBackward0",
    )
}

// ---------------------------------------------------------------- instance_norm

/// `F.instance_norm`'s optional arguments (`running_mean=None, running_var=None, weight=None,
/// bias=None, use_input_stats=True, momentum=0.1, eps=1e-5`), for [`instance_norm_with`]: a
/// pair `(&weight, &bias)`, or the struct.
#[derive(Clone, Copy, Debug)]
pub struct InstanceNormOpts<'a> {
    /// Running mean `(C,)`, updated in place when `use_input_stats`.
    pub running_mean: Option<&'a Tensor>,
    /// Running variance `(C,)`, updated in place when `use_input_stats`.
    pub running_var: Option<&'a Tensor>,
    /// Per-channel scale `(C,)`.
    pub weight: Option<&'a Tensor>,
    /// Per-channel shift `(C,)`.
    pub bias: Option<&'a Tensor>,
    /// Normalise by each instance's statistics (default true) instead of the running ones.
    pub use_input_stats: bool,
    /// Weight of the instance statistics in the running update (default 0.1).
    pub momentum: f64,
    /// Added to the variance (default 1e-5).
    pub eps: f64,
}
impl Default for InstanceNormOpts<'_> {
    fn default() -> Self {
        InstanceNormOpts {
            running_mean: None,
            running_var: None,
            weight: None,
            bias: None,
            use_input_stats: true,
            momentum: 0.1,
            eps: 1e-5,
        }
    }
}
impl<'a> From<(&'a Tensor, &'a Tensor)> for InstanceNormOpts<'a> {
    fn from((w, b): (&'a Tensor, &'a Tensor)) -> Self {
        InstanceNormOpts {
            weight: Some(w),
            bias: Some(b),
            ..Default::default()
        }
    }
}

/// `F.instance_norm(input)`: each `(sample, channel)` plane normalised by its own statistics;
/// see [`instance_norm_with`].
pub fn instance_norm(input: &Tensor) -> Result<Tensor> {
    instance_norm_with(input, InstanceNormOpts::default())
}

/// `F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
/// momentum, eps)`: each `(n, c)` plane normalised by its mean and biased variance (or, with
/// `use_input_stats=false`, by the running statistics), then `* weight[c] + bias[c]`. With
/// `use_input_stats` and running statistics given, these are UPDATED IN PLACE with the
/// average over the batch of `(1 - momentum) * running + momentum * plane` (unbiased plane
/// variance).
///
/// Shapes: `input` `(N, C, *)`, the others `(C,)`; output as `input`, contiguous. dtype:
/// `input`'s (float dtypes).
///
/// Errors: ValueError `Expected more than 1 spatial element when training, got input size
/// torch.Size([2, 3, 1])`; RuntimeError `Expected running_mean and running_var to be defined
/// when use_input_stats is false`; `running_mean should contain 6 elements not 4` (counted
/// over the batch: `N*C`), likewise `running_var`, `weight`, `bias`.
pub fn instance_norm_with<'a>(
    input: &Tensor,
    opts: impl Into<InstanceNormOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    if input.dim() < 2 {
        return Err(Error::runtime(format!(
            "instance_norm: expected input with at least 2 dims, but got {}",
            input.dim()
        )));
    }
    let (n, c, s) = ncs(input);
    if o.use_input_stats && s == 1 {
        return Err(Error::value(format!(
            "Expected more than 1 spatial element when training, got input size {}",
            torch_size(&input.sizes)
        )));
    }
    if !o.use_input_stats && (o.running_mean.is_none() || o.running_var.is_none()) {
        return Err(Error::runtime(
            "Expected running_mean and running_var to be defined when use_input_stats is false",
        ));
    }
    for (name, p) in [
        ("running_mean", o.running_mean),
        ("running_var", o.running_var),
        ("weight", o.weight),
        ("bias", o.bias),
    ] {
        if let Some(p) = p
            && p.numel() != c
            && input.numel() > 0
        {
            return Err(Error::runtime(format!(
                "{name} should contain {} elements not {}",
                n * c,
                n * p.numel()
            )));
        }
    }
    float_only(input, "batch_norm")?;
    let strides = contiguous_strides(&input.sizes);
    if input.numel() == 0 {
        return Tensor::try_alloc(&input.sizes, &strides, input.dtype);
    }
    let (w, b) = (param(o.weight, c, 1.0)?, param(o.bias, c, 0.0)?);
    let mut alpha = crate::error::try_filled(0.0, n * c)?;
    let mut beta = crate::error::try_filled(0.0, n * c)?;
    let f32 = input.dtype == DType::Float32;
    // float16/bfloat16 with parameters of its type: PyTorch's batch norm of the contiguous
    // `(1, N·C, *)` view keeps its statistics in that type (see `batch_norm_with`)
    let dt = input.dtype;
    let half = matches!(dt, DType::Float16 | DType::BFloat16)
        && [o.weight, o.bias, o.running_mean, o.running_var]
            .iter()
            .all(|p| p.is_none_or(|p| p.dtype == dt));
    if o.use_input_stats {
        let planes = plane_moments(input, n, c, s)?;
        let planes_h = if half {
            half_channel_moments(&input.try_contiguous()?, (1, n * c, s), Some(dt))?
        } else {
            Vec::new()
        };
        for (p, &(mean, var)) in planes.iter().enumerate() {
            if half {
                let (m, vs) = planes_h[p];
                let v = half_var(Some(dt), vs, s);
                let ish = round_half(dt, 1.0 / (v + o.eps as f32).sqrt());
                (alpha[p], beta[p]) = half_linear_terms(round_half(dt, m), ish, w[p % c], b[p % c]);
                continue;
            }
            let stat = (1.0 / (var + o.eps).sqrt(), None);
            (alpha[p], beta[p]) = linear_terms(mean, stat, w[p % c], b[p % c], o.eps, f32);
        }
        let sf = s as f64;
        for (name, r) in [("mean", o.running_mean), ("var", o.running_var)] {
            if let Some(r) = r {
                let old = r.try_to_vec::<f64>()?;
                let new: Vec<f64> = (0..c)
                    .map(|ch| {
                        (0..n)
                            .map(|i| {
                                let (m, v) = planes[i * c + ch];
                                let bs = if name == "mean" {
                                    m
                                } else {
                                    v * sf / (sf - 1.0)
                                };
                                o.momentum * bs + (1.0 - o.momentum) * old[ch]
                            })
                            .sum::<f64>()
                            / n as f64
                    })
                    .collect();
                r.copy_(&Tensor::from_vec(new, &r.sizes[..])?)?;
            }
        }
    } else {
        let (rm, rv) = (
            param(o.running_mean, c, 0.0)?,
            param(o.running_var, c, 1.0)?,
        );
        for p in 0..n * c {
            let ch = p % c;
            if half {
                let ish = round_half(dt, 1.0 / (rv[ch] as f32 + o.eps as f32).sqrt());
                let m = round_half(dt, rm[ch] as f32);
                (alpha[p], beta[p]) = half_linear_terms(m, ish, w[ch], b[ch]);
                continue;
            }
            let stat = (0.0, Some(rv[ch]));
            (alpha[p], beta[p]) = linear_terms(rm[ch], stat, w[ch], b[ch], o.eps, f32);
        }
    }
    let x = input.try_contiguous()?;
    let out = affine(&x, &strides, &alpha, &beta, true)?;
    use crate::autograd::formulas::norm::{Stats, channel_norm};
    let stats = || {
        Ok(if o.use_input_stats {
            Stats::Group(c)
        } else {
            Stats::Running {
                mean: param(o.running_mean, c, 0.0)?,
                var: param(o.running_var, c, 1.0)?,
            }
        })
    };
    channel_norm(out, input, o.weight, o.bias, o.eps, stats, "ViewBackward0")
}

// ---------------------------------------------------------------- local_response_norm

/// `F.local_response_norm`'s optional arguments (`alpha=1e-4, beta=0.75, k=1.0`), for
/// [`local_response_norm_with`]: `alpha`, `(alpha, beta)`, `(alpha, beta, k)`, or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalResponseNormOpts {
    /// Multiplicative factor (default 1e-4).
    pub alpha: f64,
    /// Exponent (default 0.75).
    pub beta: f64,
    /// Additive factor (default 1).
    pub k: f64,
}
impl Default for LocalResponseNormOpts {
    fn default() -> Self {
        LocalResponseNormOpts {
            alpha: 1e-4,
            beta: 0.75,
            k: 1.0,
        }
    }
}
impl From<f64> for LocalResponseNormOpts {
    fn from(alpha: f64) -> Self {
        LocalResponseNormOpts {
            alpha,
            ..Default::default()
        }
    }
}
impl From<(f64, f64)> for LocalResponseNormOpts {
    fn from((alpha, beta): (f64, f64)) -> Self {
        LocalResponseNormOpts {
            alpha,
            beta,
            ..Default::default()
        }
    }
}
impl From<(f64, f64, f64)> for LocalResponseNormOpts {
    fn from((alpha, beta, k): (f64, f64, f64)) -> Self {
        LocalResponseNormOpts { alpha, beta, k }
    }
}

/// `F.local_response_norm(input, size)`: default `alpha`, `beta`, `k`; see
/// [`local_response_norm_with`].
pub fn local_response_norm(input: &Tensor, size: impl Int) -> Result<Tensor> {
    local_response_norm_with(input, size, LocalResponseNormOpts::default())
}

/// `F.local_response_norm(input, size, alpha, beta, k)`: `x / (k + alpha · mean x²)^beta`,
/// the mean over the channel window `c - size/2 ..= c + (size-1)/2` (dim 1, zero-padded,
/// divided by `size`), composed as PyTorch composes it: `avg_pool2d` (3-d input) or
/// `avg_pool3d` (4-d and larger, on the squares viewed as `(N, 1, C, H, -1)`), then
/// `.mul(alpha).add(k).pow(beta)` and `input / div`, recorded as those ops (`DivBackward0`).
///
/// Shapes: `input` `(N, C, *)` with at least 3 dims; output as `input`, laid out as PyTorch's
/// `input / div` lays it out. An input with no elements is returned itself. dtypes: the
/// pooling's (float dtypes and int64; float16/bfloat16 only for 3-d inputs); float32 for
/// int64.
///
/// Errors: ValueError `Expected 3D or higher dimensionality                          input (got
/// 2 dimensions)` (PyTorch's spacing); for 4-d and larger inputs whose square cannot be
/// viewed as `(N, 1, C, H, -1)`, PyTorch's `view` error (`view size is not compatible with
/// input tensor's size and stride …`); the pooling's: `kernel size should be greater than
/// zero, but got kH: 0 kW: 1` (`size` ≤ 0), `"avg_pool3d_out_frame" not implemented for
/// 'Half'` (NotImplementedError).
pub fn local_response_norm_with(
    input: &Tensor,
    size: impl Int,
    opts: impl Into<LocalResponseNormOpts>,
) -> Result<Tensor> {
    let LocalResponseNormOpts { alpha, beta, k } = opts.into();
    let size = size.to_i64();
    let dim = input.dim();
    if dim < 3 {
        return Err(Error::value(format!(
            "Expected 3D or higher dimensionality                          input (got {dim} dimensions)"
        )));
    }
    if input.numel() == 0 {
        return Ok(input.alias());
    }
    // PyTorch's composite, op for op (so dtypes, rounding points, errors and the recorded
    // graph are its own): the squares' channel windows are average-pooled, zero-padded
    use crate::optable::pool::{AvgPoolOpts, avg_pool2d_with, avg_pool3d_with};
    use crate::optable::resample::pad;
    let (lo, hi) = (size.div_euclid(2), (size - 1).div_euclid(2));
    let sq = input.mul(input)?;
    let one = || AvgPoolOpts {
        stride: Some(crate::args::IntList::from_slice(&[1])),
        ..Default::default()
    };
    let div = if dim == 3 {
        let p = pad(&sq.unsqueeze(1)?, [0, 0, lo, hi])?;
        avg_pool2d_with(&p, [size, 1], one())?.squeeze_dim(1)?
    } else {
        let sz = input.size();
        let v = sq.view([sz[0] as i64, 1, sz[1] as i64, sz[2] as i64, -1])?;
        let p = pad(&v, [0, 0, 0, 0, lo, hi])?;
        let sizes: Vec<i64> = sz.iter().map(|&d| d as i64).collect();
        avg_pool3d_with(&p, [size, 1, 1], one())?
            .squeeze_dim(1)?
            .view(sizes)?
    };
    input.div(&div.mul(alpha)?.add(k)?.pow(beta)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn training_batch_norm_updates_running_stats_with_the_unbiased_variance() {
        // one channel, values 0, 2 over the batch: mean 1, biased var 1, unbiased var 2.
        let x = Tensor::from_vec(vec![0.0f32, 2.0], [2, 1]).unwrap();
        let rm = Tensor::from_vec(vec![0.0f32], [1]).unwrap();
        let rv = Tensor::from_vec(vec![1.0f32], [1]).unwrap();
        let o = BatchNormOpts {
            training: true,
            momentum: 0.5,
            ..Default::default()
        };
        let y = batch_norm_with(&x, &rm, &rv, o).unwrap();
        assert_eq!(rm.to_vec::<f32>(), [0.5]);
        assert_eq!(rv.to_vec::<f32>(), [1.5]);
        let v = y.to_vec::<f32>();
        assert!((v[0] + 1.0).abs() < 1e-4 && (v[1] - 1.0).abs() < 1e-4);
        // momentum 0 leaves them unchanged.
        let o0 = BatchNormOpts { momentum: 0.0, ..o };
        batch_norm_with(&x, &rm, &rv, o0).unwrap();
        assert_eq!(rm.to_vec::<f32>(), [0.5]);
    }

    #[test]
    fn group_norm_checks_the_batch_size_before_divisibility() {
        let x = Tensor::zeros([1, 3]).unwrap();
        let e = group_norm(&x, 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Expected more than 1 value per channel when training, got input size [1, 3]"
        );
    }

    #[test]
    fn channels_last_group_norm_stays_channels_last() {
        let x = Tensor::rand_with([2, 4, 3, 3], &crate::Generator::new().manual_seed(1))
            .unwrap()
            .contiguous_channels_last()
            .unwrap();
        let y = group_norm(&x, 2).unwrap();
        assert_eq!(y.stride(), x.stride());
    }
}
