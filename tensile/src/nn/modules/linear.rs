//! `nn.Linear` and `nn.Identity`.

use super::common::{empty, into_param, named};
use super::module::{Module, Training};
use crate::Tensor;
use crate::dtype::DType;
use crate::error::Result;
use crate::nn::init;

/// `nn.Linear`'s optional constructor arguments (`bias=True, dtype=torch.float32`). From a
/// `bool` (`bias`) or the struct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearConfig {
    /// Learn an additive bias.
    pub bias: bool,
    /// The parameters' dtype (a float dtype).
    pub dtype: DType,
}
impl Default for LinearConfig {
    fn default() -> Self {
        LinearConfig {
            bias: true,
            dtype: DType::Float32,
        }
    }
}
impl From<bool> for LinearConfig {
    fn from(bias: bool) -> Self {
        LinearConfig {
            bias,
            ..Default::default()
        }
    }
}

/// `nn.Linear(in_features, out_features, bias=True)`: `y = x Aᵀ + b`.
///
/// Parameters: `weight` `(out_features, in_features)` from `kaiming_uniform_(a=√5)` (i.e.
/// U(-1/√in, 1/√in)), `bias` `(out_features,)` from U(-1/√in, 1/√in) (all `0.` when
/// `in_features` is 0, as PyTorch's `uniform_(0, 0)`), both drawn from the default generator
/// in that order.
/// Forward: `(*, in_features)` → `(*, out_features)`; errors those of `F.linear`
/// (`mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)`).
#[derive(Debug)]
pub struct Linear {
    /// `(out_features, in_features)`.
    pub weight: Tensor,
    /// `(out_features,)`, or `None` with `bias=False`.
    pub bias: Option<Tensor>,
    /// Size of each input sample.
    pub in_features: usize,
    /// Size of each output sample.
    pub out_features: usize,
    training: Training,
}

impl Linear {
    /// `nn.Linear(in_features, out_features)`.
    pub fn new(in_features: usize, out_features: usize) -> Result<Linear> {
        Linear::with(in_features, out_features, LinearConfig::default())
    }

    /// `nn.Linear(in_features, out_features, bias, dtype=…)`.
    pub fn with(
        in_features: usize,
        out_features: usize,
        config: impl Into<LinearConfig>,
    ) -> Result<Linear> {
        let c = config.into();
        let weight = empty(&[out_features, in_features], c.dtype)?;
        let bias = if c.bias {
            Some(empty(&[out_features], c.dtype)?)
        } else {
            None
        };
        let l = Linear {
            weight,
            bias,
            in_features,
            out_features,
            training: Training::default(),
        };
        l.reset_parameters()?;
        Ok(Linear {
            weight: into_param(l.weight)?,
            bias: l.bias.map(into_param).transpose()?,
            ..l
        })
    }

    /// `linear.reset_parameters()`: PyTorch's initialisation, from the default generator.
    pub fn reset_parameters(&self) -> Result<()> {
        init::kaiming_uniform_with_(&self.weight, 5f64.sqrt(), None)?;
        if let Some(b) = &self.bias {
            let (fan_in, _) = init::calculate_fan_in_and_fan_out(&self.weight)?;
            // PyTorch: `bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0` is the int 0 when
            // fan_in is 0, so `uniform_(-bound, bound)` is `uniform_(0, 0)`: +0.0 (a float
            // -0.0 as `from` would fill -0.0, as `uniform_(-0.0, 0.0)` does).
            let (from, to) = if fan_in > 0 {
                let bound = 1.0 / (fan_in as f64).sqrt();
                (-bound, bound)
            } else {
                (0.0, 0.0)
            };
            init::uniform_(b, from, to)?;
        }
        Ok(())
    }
}

impl Module for Linear {
    module_common!("Linear");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.linear_with(&self.weight, self.bias.as_ref())
    }
    fn local_parameters(&self) -> Vec<(String, Tensor)> {
        let mut v = vec![named("weight", &self.weight)];
        if let Some(b) = &self.bias {
            v.push(named("bias", b));
        }
        v
    }
}

/// `nn.Identity()`: returns its input (an alias).
#[derive(Debug, Default)]
pub struct Identity {
    training: Training,
}

impl Identity {
    /// `nn.Identity()`.
    pub fn new() -> Identity {
        Identity::default()
    }
}

impl Module for Identity {
    module_common!("Identity");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        Ok(input.alias())
    }
}
