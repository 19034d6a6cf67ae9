//! `nn.Conv1d` and `nn.Conv2d`.

use super::common::{empty, into_param, named};
use super::module::{Module, Training};
use crate::Tensor;
use crate::args::{IntList, IntoShape};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::nn::functional::{PadOpts, pad_with};
use crate::nn::init;
use crate::optable::conv::{ConvOpts, ConvPadding, conv1d_with, conv2d_with};

/// The optional constructor arguments of `nn.Conv1d`/`nn.Conv2d` (`stride=1, padding=0,
/// dilation=1, groups=1, bias=True, padding_mode='zeros', dtype=torch.float32`). Single-entry
/// lists apply to every spatial dim. From a padding (an int, a list, `"same"`, `"valid"`), a
/// tuple `(stride, padding)`, or the struct.
#[derive(Clone, Debug)]
pub struct ConvConfig {
    /// The step of the kernel.
    pub stride: IntList,
    /// Zero (or `padding_mode`) padding on both sides, or `"same"` / `"valid"`.
    pub padding: ConvPadding<'static>,
    /// The spacing between kernel elements.
    pub dilation: IntList,
    /// The number of blocked connections from input to output channels.
    pub groups: i64,
    /// Learn an additive bias.
    pub bias: bool,
    /// `"zeros"`, `"reflect"`, `"replicate"` or `"circular"`.
    pub padding_mode: &'static str,
    /// The parameters' dtype.
    pub dtype: DType,
}
impl Default for ConvConfig {
    fn default() -> Self {
        ConvConfig {
            stride: 1.into_shape(),
            padding: ConvPadding::Ints(0.into_shape()),
            dilation: 1.into_shape(),
            groups: 1,
            bias: true,
            padding_mode: "zeros",
            dtype: DType::Float32,
        }
    }
}
impl<P: Into<ConvPadding<'static>>> From<P> for ConvConfig {
    fn from(p: P) -> Self {
        ConvConfig {
            padding: p.into(),
            ..Default::default()
        }
    }
}
impl<S: IntoShape, P: Into<ConvPadding<'static>>> From<(S, P)> for ConvConfig {
    fn from((s, p): (S, P)) -> Self {
        ConvConfig {
            stride: s.into_shape(),
            padding: p.into(),
            ..Default::default()
        }
    }
}

/// The state shared by the convolutions (PyTorch's `_ConvNd`).
#[derive(Debug)]
struct ConvCore {
    weight: Tensor,
    bias: Option<Tensor>,
    nd: usize,
    kernel_size: Vec<usize>,
    config: ConvConfig,
}

fn expand(l: &IntList, nd: usize) -> IntList {
    if l.len() == 1 {
        IntList::from_elem(l[0], nd)
    } else {
        l.clone()
    }
}

impl ConvCore {
    fn new(
        nd: usize,
        in_channels: usize,
        out_channels: usize,
        kernel_size: IntList,
        mut c: ConvConfig,
    ) -> Result<ConvCore> {
        if c.groups <= 0 {
            return Err(Error::value("groups must be a positive integer"));
        }
        let g = c.groups as usize;
        if !in_channels.is_multiple_of(g) {
            return Err(Error::value("in_channels must be divisible by groups"));
        }
        if !out_channels.is_multiple_of(g) {
            return Err(Error::value("out_channels must be divisible by groups"));
        }
        c.stride = expand(&c.stride, nd);
        c.dilation = expand(&c.dilation, nd);
        match &c.padding {
            ConvPadding::Str(s) => {
                if *s != "same" && *s != "valid" {
                    return Err(Error::value(format!(
                        "Invalid padding string '{s}', should be one of {{'valid', 'same'}}"
                    )));
                }
                if *s == "same" && c.stride.iter().any(|&s| s != 1) {
                    return Err(Error::value(
                        "padding='same' is not supported for strided convolutions",
                    ));
                }
            }
            ConvPadding::Ints(p) => c.padding = ConvPadding::Ints(expand(p, nd)),
        }
        if !["zeros", "reflect", "replicate", "circular"].contains(&c.padding_mode) {
            return Err(Error::value(format!(
                "padding_mode must be one of {{'zeros', 'circular', 'replicate', 'reflect'}}, but got padding_mode='{}'",
                c.padding_mode
            )));
        }
        let ks = expand(&kernel_size, nd);
        if ks.len() != nd || ks.iter().any(|&k| k < 0) {
            return Err(Error::value(format!(
                "kernel_size must be an int or a tuple of {nd} ints"
            )));
        }
        let kernel_size: Vec<usize> = ks.iter().map(|&k| k as usize).collect();
        let mut wshape = vec![out_channels, in_channels / g];
        wshape.extend(&kernel_size);
        let weight = empty(&wshape, c.dtype)?;
        let bias = if c.bias {
            Some(empty(&[out_channels], c.dtype)?)
        } else {
            None
        };
        // PyTorch's `_ConvNd.reset_parameters`
        init::kaiming_uniform_with_(&weight, 5f64.sqrt(), None)?;
        if let Some(b) = &bias {
            let (fan_in, _) = init::calculate_fan_in_and_fan_out(&weight)?;
            if fan_in != 0 {
                let bound = 1.0 / (fan_in as f64).sqrt();
                init::uniform_(b, -bound, bound)?;
            }
        }
        Ok(ConvCore {
            weight: into_param(weight)?,
            bias: bias.map(into_param).transpose()?,
            nd,
            kernel_size,
            config: c,
        })
    }

    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        let c = &self.config;
        let (input, padding) = match (&c.padding, c.padding_mode) {
            (ConvPadding::Ints(p), m) if m != "zeros" => {
                // `_reversed_padding_repeated_twice`, then an unpadded convolution
                let pads: Vec<i64> = p.iter().rev().flat_map(|&x| [x, x]).collect();
                (
                    pad_with(
                        input,
                        &pads[..],
                        PadOpts {
                            mode: m,
                            value: None,
                        },
                    )?,
                    ConvPadding::Ints(IntList::from_elem(0, self.nd)),
                )
            }
            _ => (input.alias(), c.padding.clone()),
        };
        let opts = ConvOpts {
            bias: self.bias.as_ref(),
            stride: c.stride.clone(),
            padding,
            dilation: c.dilation.clone(),
            groups: c.groups,
        };
        if self.nd == 1 {
            conv1d_with(&input, &self.weight, opts)
        } else {
            conv2d_with(&input, &self.weight, opts)
        }
    }

    fn params(&self) -> Vec<(String, Tensor)> {
        let mut v = vec![named("weight", &self.weight)];
        if let Some(b) = &self.bias {
            v.push(named("bias", b));
        }
        v
    }
}

macro_rules! conv_module {
    ($name:ident, $nd:literal, $torch:literal, $shape:literal) => {
        #[doc = concat!("`nn.", $torch, "(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros')`.")]
        ///
        /// Parameters: `weight` `(out_channels, in_channels / groups, *kernel_size)` from
        /// `kaiming_uniform_(a=√5)`, `bias` `(out_channels,)` from U(-1/√fan_in, 1/√fan_in)
        /// (`fan_in = in_channels / groups · prod(kernel_size)`), drawn in that order from the
        /// default generator.
        #[doc = concat!("Forward: ", $shape, "; errors those of the functional convolution.")]
        ///
        /// Constructor errors (ValueError): `groups must be a positive integer`,
        /// `in_channels must be divisible by groups`, `out_channels must be divisible by
        /// groups`, `padding='same' is not supported for strided convolutions`,
        /// `Invalid padding string 'foo', should be one of {'valid', 'same'}`, `padding_mode
        /// must be one of {'zeros', 'circular', 'replicate', 'reflect'}, but got
        /// padding_mode='foo'` (PyTorch prints a Python set there: its order varies between
        /// runs).
        #[derive(Debug)]
        pub struct $name {
            core: ConvCore,
            training: Training,
        }

        impl $name {
            #[doc = concat!("`nn.", $torch, "(in_channels, out_channels, kernel_size)`.")]
            pub fn new(
                in_channels: usize,
                out_channels: usize,
                kernel_size: impl IntoShape,
            ) -> Result<$name> {
                $name::with(in_channels, out_channels, kernel_size, ConvConfig::default())
            }

            #[doc = concat!("`nn.", $torch, "(in_channels, out_channels, kernel_size, …)` with the optional arguments of [`ConvConfig`].")]
            pub fn with(
                in_channels: usize,
                out_channels: usize,
                kernel_size: impl IntoShape,
                config: impl Into<ConvConfig>,
            ) -> Result<$name> {
                Ok($name {
                    core: ConvCore::new(
                        $nd,
                        in_channels,
                        out_channels,
                        kernel_size.into_shape(),
                        config.into(),
                    )?,
                    training: Training::default(),
                })
            }

            /// The `weight` parameter.
            pub fn weight(&self) -> &Tensor {
                &self.core.weight
            }
            /// The `bias` parameter (`None` with `bias=False`).
            pub fn bias(&self) -> Option<&Tensor> {
                self.core.bias.as_ref()
            }
            /// The kernel size, one entry per spatial dim.
            pub fn kernel_size(&self) -> &[usize] {
                &self.core.kernel_size
            }
            /// The constructor's optional arguments (lists expanded to every spatial dim).
            pub fn config(&self) -> &ConvConfig {
                &self.core.config
            }
        }

        impl Module for $name {
            module_common!($torch);
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                self.core.forward(input)
            }
            fn local_parameters(&self) -> Vec<(String, Tensor)> {
                self.core.params()
            }
        }
    };
}

conv_module!(
    Conv1d,
    1,
    "Conv1d",
    "`(N, C_in, L)` or `(C_in, L)` → `(N, C_out, L_out)`"
);
conv_module!(
    Conv2d,
    2,
    "Conv2d",
    "`(N, C_in, H, W)` or `(C_in, H, W)` → `(N, C_out, H_out, W_out)`"
);
