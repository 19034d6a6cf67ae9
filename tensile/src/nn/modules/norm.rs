//! `nn.BatchNorm1d`, `nn.BatchNorm2d`, `nn.LayerNorm`, `nn.RMSNorm`, `nn.GroupNorm` and
//! `nn.Embedding`.

use super::common::{empty, into_param, named};
use super::module::{Module, Training};
use crate::LayerNormOpts;
use crate::Tensor;
use crate::args::{IntList, IntoShape};
use crate::autograd::no_grad;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::nn::embedding::embedding_with;
use crate::nn::init;
use crate::optable::norm::{
    BatchNormOpts, GroupNormOpts, RmsNormOpts, batch_norm_with, group_norm_with,
};

// ------------------------------------------------------------------ BatchNorm

/// The optional constructor arguments of `nn.BatchNorm1d/2d` (`eps=1e-5, momentum=0.1,
/// affine=True, track_running_stats=True, dtype=torch.float32`). From `(eps, momentum)` or the
/// struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchNormConfig {
    /// Added to the variance.
    pub eps: f64,
    /// Weight of the batch statistics in the running update; `None` is a cumulative moving
    /// average (`1 / num_batches_tracked`).
    pub momentum: Option<f64>,
    /// Learn `weight` and `bias`.
    pub affine: bool,
    /// Keep `running_mean`, `running_var`, `num_batches_tracked` (and use them in eval).
    pub track_running_stats: bool,
    /// The parameters' and running statistics' dtype.
    pub dtype: DType,
}
impl Default for BatchNormConfig {
    fn default() -> Self {
        BatchNormConfig {
            eps: 1e-5,
            momentum: Some(0.1),
            affine: true,
            track_running_stats: true,
            dtype: DType::Float32,
        }
    }
}
impl From<(f64, f64)> for BatchNormConfig {
    fn from((eps, momentum): (f64, f64)) -> Self {
        BatchNormConfig {
            eps,
            momentum: Some(momentum),
            ..Default::default()
        }
    }
}

/// The state shared by the batch norms (PyTorch's `_BatchNorm`).
#[derive(Debug)]
pub struct BatchNormCore {
    /// `(C,)` ones, or `None` without `affine`.
    pub weight: Option<Tensor>,
    /// `(C,)` zeros, or `None` without `affine`.
    pub bias: Option<Tensor>,
    /// `(C,)` buffer, zeros at first.
    pub running_mean: Option<Tensor>,
    /// `(C,)` buffer, ones at first.
    pub running_var: Option<Tensor>,
    /// int64 scalar buffer counting the training forwards.
    pub num_batches_tracked: Option<Tensor>,
    /// The number of channels `C`.
    pub num_features: usize,
    /// The constructor's optional arguments.
    pub config: BatchNormConfig,
    training: Training,
}

impl BatchNormCore {
    fn new(num_features: usize, c: BatchNormConfig) -> Result<BatchNormCore> {
        let (weight, bias) = if c.affine {
            (
                Some(into_param(Tensor::ones_with([num_features], c.dtype)?)?),
                Some(into_param(Tensor::zeros_with([num_features], c.dtype)?)?),
            )
        } else {
            (None, None)
        };
        let (rm, rv, nbt) = if c.track_running_stats {
            (
                Some(Tensor::zeros_with([num_features], c.dtype)?),
                Some(Tensor::ones_with([num_features], c.dtype)?),
                Some(Tensor::scalar_tensor_with(0, DType::Int64)?),
            )
        } else {
            (None, None, None)
        };
        Ok(BatchNormCore {
            weight,
            bias,
            running_mean: rm,
            running_var: rv,
            num_batches_tracked: nbt,
            num_features,
            config: c,
            training: Training::default(),
        })
    }

    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        let c = &self.config;
        let training = self.training.get();
        let mut eaf = c.momentum.unwrap_or(0.0);
        if training
            && c.track_running_stats
            && let Some(n) = &self.num_batches_tracked
        {
            let _g = no_grad();
            n.add_(&Tensor::scalar_tensor_with(1, DType::Int64)?)?;
            eaf = match c.momentum {
                None => 1.0 / n.item::<i64>()? as f64,
                Some(m) => m,
            };
        }
        let bn_training = training || (self.running_mean.is_none() && self.running_var.is_none());
        let use_stats = !training || c.track_running_stats;
        let (rm, rv) = if use_stats {
            (self.running_mean.as_ref(), self.running_var.as_ref())
        } else {
            (None, None)
        };
        batch_norm_with(
            input,
            rm,
            rv,
            BatchNormOpts {
                weight: self.weight.as_ref(),
                bias: self.bias.as_ref(),
                training: bn_training,
                momentum: eaf,
                eps: c.eps,
            },
        )
    }

    fn params(&self) -> Vec<(String, Tensor)> {
        let mut v = Vec::new();
        if let Some(w) = &self.weight {
            v.push(named("weight", w));
        }
        if let Some(b) = &self.bias {
            v.push(named("bias", b));
        }
        v
    }

    fn buffers(&self) -> Vec<(String, Tensor)> {
        let mut v = Vec::new();
        for (n, t) in [
            ("running_mean", &self.running_mean),
            ("running_var", &self.running_var),
            ("num_batches_tracked", &self.num_batches_tracked),
        ] {
            if let Some(t) = t {
                v.push(named(n, t));
            }
        }
        v
    }

    /// `bn.reset_running_stats()`: running mean 0, running variance 1, count 0.
    pub fn reset_running_stats(&self) -> Result<()> {
        let _g = no_grad();
        if let Some(t) = &self.running_mean {
            t.zero_()?;
        }
        if let Some(t) = &self.running_var {
            t.fill_(1)?;
        }
        if let Some(t) = &self.num_batches_tracked {
            t.zero_()?;
        }
        Ok(())
    }
}

macro_rules! batch_norm_module {
    ($name:ident, $torch:literal, $dims:expr, $msg:literal, $shape:literal) => {
        #[doc = concat!("`nn.", $torch, "(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True)`.")]
        ///
        /// Parameters `weight` (ones) and `bias` (zeros) `(C,)`; buffers `running_mean`
        /// (zeros), `running_var` (ones), `num_batches_tracked` (int64 0). In training mode
        /// each forward adds 1 to `num_batches_tracked` and normalises by the batch statistics,
        /// updating the running ones in place: `running = (1 - momentum)·running + momentum·batch`
        /// with the UNBIASED batch variance; in eval mode it normalises by the running
        /// statistics. `load_state_dict` accepts a state dict without `num_batches_tracked`.
        #[doc = concat!("Forward: ", $shape, ".")]
        ///
        #[doc = concat!("Errors: ValueError `", $msg, "`; those of `F.batch_norm` (`Expected more than 1 value per channel when training, got input size torch.Size([1, 3])`, `running_mean should contain 3 elements not 4`).")]
        #[derive(Debug)]
        pub struct $name {
            /// The parameters, buffers and flags.
            pub core: BatchNormCore,
        }

        impl $name {
            #[doc = concat!("`nn.", $torch, "(num_features)`.")]
            pub fn new(num_features: usize) -> Result<$name> {
                $name::with(num_features, BatchNormConfig::default())
            }
            #[doc = concat!("`nn.", $torch, "(num_features, …)` with the optional arguments of [`BatchNormConfig`].")]
            pub fn with(num_features: usize, config: impl Into<BatchNormConfig>) -> Result<$name> {
                Ok($name {
                    core: BatchNormCore::new(num_features, config.into())?,
                })
            }
        }

        impl Module for $name {
            fn type_name(&self) -> &'static str {
                $torch
            }
            fn training_flag(&self) -> &Training {
                &self.core.training
            }
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                let d = input.dim();
                if !$dims.contains(&d) {
                    return Err(Error::value(format!($msg, d)));
                }
                self.core.forward(input)
            }
            fn local_parameters(&self) -> Vec<(String, Tensor)> {
                self.core.params()
            }
            fn local_buffers(&self) -> Vec<(String, Tensor)> {
                self.core.buffers()
            }
            fn optional_state_keys(&self) -> Vec<&'static str> {
                vec!["num_batches_tracked"]
            }
        }
    };
}

batch_norm_module!(
    BatchNorm1d,
    "BatchNorm1d",
    [2usize, 3],
    "expected 2D or 3D input (got {}D input)",
    "`(N, C)` or `(N, C, L)`, same shape out"
);
batch_norm_module!(
    BatchNorm2d,
    "BatchNorm2d",
    [4usize],
    "expected 4D input (got {}D input)",
    "`(N, C, H, W)`, same shape out"
);

// ------------------------------------------------------------------ LayerNorm

/// The optional constructor arguments of `nn.LayerNorm` (`eps=1e-5, elementwise_affine=True,
/// bias=True, dtype=torch.float32`). From `eps` or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerNormConfig {
    /// Added to the variance.
    pub eps: f64,
    /// Learn `weight` (and `bias`).
    pub elementwise_affine: bool,
    /// Learn `bias` (with `elementwise_affine`).
    pub bias: bool,
    /// The parameters' dtype.
    pub dtype: DType,
}
impl Default for LayerNormConfig {
    fn default() -> Self {
        LayerNormConfig {
            eps: 1e-5,
            elementwise_affine: true,
            bias: true,
            dtype: DType::Float32,
        }
    }
}
impl From<f64> for LayerNormConfig {
    fn from(eps: f64) -> Self {
        LayerNormConfig {
            eps,
            ..Default::default()
        }
    }
}

/// `nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True)`.
///
/// Parameters `weight` (ones) and `bias` (zeros) of shape `normalized_shape`. Forward:
/// `(*, *normalized_shape)` → same shape; errors those of `F.layer_norm` (`Given
/// normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]`).
#[derive(Debug)]
pub struct LayerNorm {
    /// Ones of `normalized_shape`, or `None` without `elementwise_affine`.
    pub weight: Option<Tensor>,
    /// Zeros of `normalized_shape`, or `None`.
    pub bias: Option<Tensor>,
    /// The trailing dims normalised over.
    pub normalized_shape: Vec<usize>,
    /// The constructor's optional arguments.
    pub config: LayerNormConfig,
    training: Training,
}

fn usize_shape(s: IntList) -> Result<Vec<usize>> {
    s.iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| {
                Error::runtime(format!(
                    "Trying to create tensor with negative dimension {d}: {:?}",
                    s.as_slice()
                ))
            })
        })
        .collect()
}

impl LayerNorm {
    /// `nn.LayerNorm(normalized_shape)` (an int or a list).
    pub fn new(normalized_shape: impl IntoShape) -> Result<LayerNorm> {
        LayerNorm::with(normalized_shape, LayerNormConfig::default())
    }
    /// `nn.LayerNorm(normalized_shape, …)` with the options of [`LayerNormConfig`].
    pub fn with(
        normalized_shape: impl IntoShape,
        config: impl Into<LayerNormConfig>,
    ) -> Result<LayerNorm> {
        let c = config.into();
        let shape = usize_shape(normalized_shape.into_shape())?;
        let (weight, bias) = if c.elementwise_affine {
            let w = into_param(Tensor::ones_with(&shape[..], c.dtype)?)?;
            let b = if c.bias {
                Some(into_param(Tensor::zeros_with(&shape[..], c.dtype)?)?)
            } else {
                None
            };
            (Some(w), b)
        } else {
            (None, None)
        };
        Ok(LayerNorm {
            weight,
            bias,
            normalized_shape: shape,
            config: c,
            training: Training::default(),
        })
    }
}

impl Module for LayerNorm {
    module_common!("LayerNorm");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.layer_norm_with(
            &self.normalized_shape[..],
            LayerNormOpts {
                weight: self.weight.as_ref(),
                bias: self.bias.as_ref(),
                eps: self.config.eps,
            },
        )
    }
    fn local_parameters(&self) -> Vec<(String, Tensor)> {
        let mut v = Vec::new();
        if let Some(w) = &self.weight {
            v.push(named("weight", w));
        }
        if let Some(b) = &self.bias {
            v.push(named("bias", b));
        }
        v
    }
}

// ------------------------------------------------------------------ RMSNorm

/// The optional constructor arguments of `nn.RMSNorm` (`eps=None, elementwise_affine=True,
/// dtype=torch.float32`). From `eps` or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RMSNormConfig {
    /// Added to the mean square; `None` is the dtype's machine epsilon.
    pub eps: Option<f64>,
    /// Learn `weight`.
    pub elementwise_affine: bool,
    /// The parameter's dtype.
    pub dtype: DType,
}
impl Default for RMSNormConfig {
    fn default() -> Self {
        RMSNormConfig {
            eps: None,
            elementwise_affine: true,
            dtype: DType::Float32,
        }
    }
}
impl From<f64> for RMSNormConfig {
    fn from(eps: f64) -> Self {
        RMSNormConfig {
            eps: Some(eps),
            ..Default::default()
        }
    }
}

/// `nn.RMSNorm(normalized_shape, eps=None, elementwise_affine=True)`.
///
/// Parameter `weight` (ones) of shape `normalized_shape`. Forward: `(*, *normalized_shape)` →
/// same shape; errors those of `F.rms_norm`.
#[derive(Debug)]
pub struct RMSNorm {
    /// Ones of `normalized_shape`, or `None` without `elementwise_affine`.
    pub weight: Option<Tensor>,
    /// The trailing dims normalised over.
    pub normalized_shape: Vec<usize>,
    /// The constructor's optional arguments.
    pub config: RMSNormConfig,
    training: Training,
}

impl RMSNorm {
    /// `nn.RMSNorm(normalized_shape)`.
    pub fn new(normalized_shape: impl IntoShape) -> Result<RMSNorm> {
        RMSNorm::with(normalized_shape, RMSNormConfig::default())
    }
    /// `nn.RMSNorm(normalized_shape, …)` with the options of [`RMSNormConfig`].
    pub fn with(
        normalized_shape: impl IntoShape,
        config: impl Into<RMSNormConfig>,
    ) -> Result<RMSNorm> {
        let c = config.into();
        let shape = usize_shape(normalized_shape.into_shape())?;
        let weight = if c.elementwise_affine {
            Some(into_param(Tensor::ones_with(&shape[..], c.dtype)?)?)
        } else {
            None
        };
        Ok(RMSNorm {
            weight,
            normalized_shape: shape,
            config: c,
            training: Training::default(),
        })
    }
}

impl Module for RMSNorm {
    module_common!("RMSNorm");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        crate::optable::norm::rms_norm_with(
            input,
            &self.normalized_shape[..],
            RmsNormOpts {
                weight: self.weight.as_ref(),
                eps: self.config.eps,
            },
        )
    }
    fn local_parameters(&self) -> Vec<(String, Tensor)> {
        self.weight.iter().map(|w| named("weight", w)).collect()
    }
}

// ------------------------------------------------------------------ GroupNorm

/// The optional constructor arguments of `nn.GroupNorm` (`eps=1e-5, affine=True,
/// dtype=torch.float32`). From `eps` or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupNormConfig {
    /// Added to the variance.
    pub eps: f64,
    /// Learn per-channel `weight` and `bias`.
    pub affine: bool,
    /// The parameters' dtype.
    pub dtype: DType,
}
impl Default for GroupNormConfig {
    fn default() -> Self {
        GroupNormConfig {
            eps: 1e-5,
            affine: true,
            dtype: DType::Float32,
        }
    }
}
impl From<f64> for GroupNormConfig {
    fn from(eps: f64) -> Self {
        GroupNormConfig {
            eps,
            ..Default::default()
        }
    }
}

/// `nn.GroupNorm(num_groups, num_channels, eps=1e-5, affine=True)`.
///
/// Parameters `weight` (ones) and `bias` (zeros) `(num_channels,)`. Forward: `(N, C, *)` →
/// same shape; errors those of `F.group_norm`. Constructor error: ValueError
/// `num_channels (4) must be divisible by num_groups (3)`.
#[derive(Debug)]
pub struct GroupNorm {
    /// `(C,)` ones, or `None` without `affine`.
    pub weight: Option<Tensor>,
    /// `(C,)` zeros, or `None`.
    pub bias: Option<Tensor>,
    /// The number of groups.
    pub num_groups: usize,
    /// The number of channels.
    pub num_channels: usize,
    /// The constructor's optional arguments.
    pub config: GroupNormConfig,
    training: Training,
}

impl GroupNorm {
    /// `nn.GroupNorm(num_groups, num_channels)`.
    pub fn new(num_groups: usize, num_channels: usize) -> Result<GroupNorm> {
        GroupNorm::with(num_groups, num_channels, GroupNormConfig::default())
    }
    /// `nn.GroupNorm(num_groups, num_channels, …)` with the options of [`GroupNormConfig`].
    pub fn with(
        num_groups: usize,
        num_channels: usize,
        config: impl Into<GroupNormConfig>,
    ) -> Result<GroupNorm> {
        let c = config.into();
        if num_groups == 0 || !num_channels.is_multiple_of(num_groups) {
            return Err(Error::value(format!(
                "num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )));
        }
        let (weight, bias) = if c.affine {
            (
                Some(into_param(Tensor::ones_with([num_channels], c.dtype)?)?),
                Some(into_param(Tensor::zeros_with([num_channels], c.dtype)?)?),
            )
        } else {
            (None, None)
        };
        Ok(GroupNorm {
            weight,
            bias,
            num_groups,
            num_channels,
            config: c,
            training: Training::default(),
        })
    }
}

impl Module for GroupNorm {
    module_common!("GroupNorm");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        group_norm_with(
            input,
            self.num_groups as i64,
            GroupNormOpts {
                weight: self.weight.as_ref(),
                bias: self.bias.as_ref(),
                eps: self.config.eps,
            },
        )
    }
    fn local_parameters(&self) -> Vec<(String, Tensor)> {
        let mut v = Vec::new();
        if let Some(w) = &self.weight {
            v.push(named("weight", w));
        }
        if let Some(b) = &self.bias {
            v.push(named("bias", b));
        }
        v
    }
}

// ------------------------------------------------------------------ Embedding

/// The optional constructor arguments of `nn.Embedding` (`padding_idx=None,
/// dtype=torch.float32`). From a `padding_idx` or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmbeddingConfig {
    /// The row that is zeroed at construction and gets no gradient; negative counts from the
    /// end.
    pub padding_idx: Option<i64>,
    /// The weight's dtype.
    pub dtype: DType,
}
impl Default for EmbeddingConfig {
    fn default() -> Self {
        EmbeddingConfig {
            padding_idx: None,
            dtype: DType::Float32,
        }
    }
}
impl From<i64> for EmbeddingConfig {
    fn from(padding_idx: i64) -> Self {
        EmbeddingConfig {
            padding_idx: Some(padding_idx),
            ..Default::default()
        }
    }
}

/// `nn.Embedding(num_embeddings, embedding_dim, padding_idx=None)`.
///
/// Parameter `weight` `(num_embeddings, embedding_dim)` from N(0, 1) (the default generator),
/// the `padding_idx` row then zeroed. Forward: int64/int32 indices `(*)` → `(*, embedding_dim)`;
/// errors those of `F.embedding` (`index out of range in self`). Constructor error:
/// AssertionError `Padding_idx must be within num_embeddings`.
#[derive(Debug)]
pub struct Embedding {
    /// `(num_embeddings, embedding_dim)`.
    pub weight: Tensor,
    /// The padding row, made non-negative.
    pub padding_idx: Option<i64>,
    training: Training,
}

impl Embedding {
    /// `nn.Embedding(num_embeddings, embedding_dim)`.
    pub fn new(num_embeddings: usize, embedding_dim: usize) -> Result<Embedding> {
        Embedding::with(num_embeddings, embedding_dim, EmbeddingConfig::default())
    }
    /// `nn.Embedding(num_embeddings, embedding_dim, padding_idx, dtype=…)`.
    pub fn with(
        num_embeddings: usize,
        embedding_dim: usize,
        config: impl Into<EmbeddingConfig>,
    ) -> Result<Embedding> {
        let c = config.into();
        let n = num_embeddings as i64;
        let padding_idx = match c.padding_idx {
            Some(p) if p > 0 && p >= n => {
                return Err(Error::assertion(
                    "Padding_idx must be within num_embeddings",
                ));
            }
            Some(p) if p < 0 && p < -n => {
                return Err(Error::assertion(
                    "Padding_idx must be within num_embeddings",
                ));
            }
            Some(p) if p < 0 => Some(n + p),
            p => p,
        };
        let weight = empty(&[num_embeddings, embedding_dim], c.dtype)?;
        init::normal_(&weight, 0.0, 1.0)?;
        if let Some(p) = padding_idx {
            weight.select(0, p)?.fill_(0)?;
        }
        Ok(Embedding {
            weight: into_param(weight)?,
            padding_idx,
            training: Training::default(),
        })
    }
}

impl Module for Embedding {
    module_common!("Embedding");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        match self.padding_idx {
            Some(p) => embedding_with(input, &self.weight, p),
            None => crate::nn::functional::embedding(input, &self.weight),
        }
    }
    fn local_parameters(&self) -> Vec<(String, Tensor)> {
        vec![named("weight", &self.weight)]
    }
}
