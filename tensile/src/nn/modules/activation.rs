//! Parameter-free layers: `nn.ReLU`, `nn.GELU`, `nn.SiLU`, `nn.Tanh`, `nn.Sigmoid`,
//! `nn.Dropout`, `nn.Flatten`.

use super::module::{Module, Training};
use crate::Tensor;
use crate::error::{Error, Result};
use crate::nn::dropout::{DropoutOpts, dropout_with};
use crate::optable::activation::{GeluOpts, gelu_with};

macro_rules! simple_activation {
    ($name:ident, $torch:literal, $doc:literal, |$x:ident| $body:expr) => {
        #[doc = concat!("`nn.", $torch, "()`: ", $doc, " Any shape in, the same shape out; dtypes and errors those of the functional op.")]
        #[derive(Debug, Default)]
        pub struct $name {
            training: Training,
        }
        impl $name {
            #[doc = concat!("`nn.", $torch, "()`.")]
            pub fn new() -> $name {
                $name::default()
            }
        }
        impl Module for $name {
            module_common!($torch);
            fn forward(&self, $x: &Tensor) -> Result<Tensor> {
                $body
            }
        }
    };
}

simple_activation!(ReLU, "ReLU", "`max(x, 0)` (`F.relu`).", |x| x.relu());
simple_activation!(SiLU, "SiLU", "`x · sigmoid(x)` (`F.silu`).", |x| x.silu());
simple_activation!(Tanh, "Tanh", "`tanh(x)`.", |x| x.tanh());
simple_activation!(Sigmoid, "Sigmoid", "`1 / (1 + exp(-x))`.", |x| x.sigmoid());

/// `nn.GELU(approximate='none')`: `x · Φ(x)`, or its tanh approximation with
/// `approximate="tanh"`. Any shape in, the same shape out; float dtypes. Forward error:
/// RuntimeError `approximate argument must be either none or tanh.`
#[derive(Debug)]
pub struct GELU {
    /// `"none"` or `"tanh"`.
    pub approximate: &'static str,
    training: Training,
}
impl Default for GELU {
    fn default() -> Self {
        GELU {
            approximate: "none",
            training: Training::default(),
        }
    }
}
impl GELU {
    /// `nn.GELU()`.
    pub fn new() -> GELU {
        GELU::default()
    }
    /// `nn.GELU(approximate)`.
    pub fn with(approximate: &'static str) -> GELU {
        GELU {
            approximate,
            training: Training::default(),
        }
    }
}
impl Module for GELU {
    module_common!("GELU");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        gelu_with(
            input,
            GeluOpts {
                approximate: self.approximate,
            },
        )
    }
}

/// `nn.Dropout(p=0.5, inplace=False)`: in training mode zeroes each element with probability
/// `p` and scales the rest by `1/(1-p)` (masks drawn from the default generator as PyTorch
/// draws them, see [`dropout_with`]); in eval mode returns the input. Any shape in, the same shape out.
///
/// Constructor error: ValueError `dropout probability has to be between 0 and 1, but got 1.5`.
#[derive(Debug)]
pub struct Dropout {
    /// The probability of zeroing an element.
    pub p: f64,
    /// Write the result into the input.
    pub inplace: bool,
    training: Training,
}
impl Dropout {
    /// `nn.Dropout()` (`p=0.5`).
    pub fn new() -> Result<Dropout> {
        Dropout::with(0.5, false)
    }
    /// `nn.Dropout(p, inplace)`.
    pub fn with(p: f64, inplace: bool) -> Result<Dropout> {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::value(format!(
                "dropout probability has to be between 0 and 1, but got {p:?}"
            )));
        }
        Ok(Dropout {
            p,
            inplace,
            training: Training::default(),
        })
    }
}
impl Module for Dropout {
    module_common!("Dropout");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        dropout_with(
            input,
            DropoutOpts {
                p: self.p,
                training: self.is_training(),
                inplace: self.inplace,
            },
        )
    }
}

/// `nn.Flatten(start_dim=1, end_dim=-1)`: `input.flatten(start_dim, end_dim)` (a view when
/// possible). `(N, *)` → `(N, prod(*))` with the defaults; errors those of `flatten`.
#[derive(Debug)]
pub struct Flatten {
    /// The first dim flattened.
    pub start_dim: i64,
    /// The last dim flattened.
    pub end_dim: i64,
    training: Training,
}
impl Default for Flatten {
    fn default() -> Self {
        Flatten {
            start_dim: 1,
            end_dim: -1,
            training: Training::default(),
        }
    }
}
impl Flatten {
    /// `nn.Flatten()`.
    pub fn new() -> Flatten {
        Flatten::default()
    }
    /// `nn.Flatten(start_dim, end_dim)`.
    pub fn with(start_dim: i64, end_dim: i64) -> Flatten {
        Flatten {
            start_dim,
            end_dim,
            training: Training::default(),
        }
    }
}
impl Module for Flatten {
    module_common!("Flatten");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.flatten_with((self.start_dim, self.end_dim))
    }
}
