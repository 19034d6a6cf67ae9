//! `nn.MaxPool2d`, `nn.AvgPool2d`, `nn.AdaptiveAvgPool2d`: the functional pools with their
//! arguments stored.

use super::module::{Module, Training};
use crate::Tensor;
use crate::args::{IntList, IntoShape};
use crate::error::Result;
use crate::optable::pool::{
    AvgPoolOpts, IntoOutputSize, MaxPoolOpts, adaptive_avg_pool2d, avg_pool2d_with, max_pool2d_with,
};

/// `nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False)`
/// (`return_indices` is `F::max_pool2d_with_indices`). `(N, C, H, W)` or `(C, H, W)` → the
/// pooled shape; errors those of `F.max_pool2d`.
#[derive(Debug)]
pub struct MaxPool2d {
    /// The window size.
    pub kernel_size: IntList,
    /// stride (`None`: `kernel_size`), padding, dilation, ceil_mode.
    pub opts: MaxPoolOpts,
    training: Training,
}
impl MaxPool2d {
    /// `nn.MaxPool2d(kernel_size)`.
    pub fn new(kernel_size: impl IntoShape) -> MaxPool2d {
        MaxPool2d::with(kernel_size, MaxPoolOpts::default())
    }
    /// `nn.MaxPool2d(kernel_size, stride, padding, dilation, ceil_mode)`: the options of
    /// `F::max_pool2d_with` (a stride, or a tuple in PyTorch's order).
    pub fn with(kernel_size: impl IntoShape, opts: impl Into<MaxPoolOpts>) -> MaxPool2d {
        MaxPool2d {
            kernel_size: kernel_size.into_shape(),
            opts: opts.into(),
            training: Training::default(),
        }
    }
}
impl Module for MaxPool2d {
    module_common!("MaxPool2d");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        max_pool2d_with(input, self.kernel_size.clone(), self.opts.clone())
    }
}

/// `nn.AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None)`. `(N, C, H, W)` or `(C, H, W)` → the pooled
/// shape; errors those of `F.avg_pool2d`.
#[derive(Debug)]
pub struct AvgPool2d {
    /// The window size.
    pub kernel_size: IntList,
    /// The other arguments.
    pub opts: AvgPoolOpts,
    training: Training,
}
impl AvgPool2d {
    /// `nn.AvgPool2d(kernel_size)`.
    pub fn new(kernel_size: impl IntoShape) -> AvgPool2d {
        AvgPool2d::with(kernel_size, AvgPoolOpts::default())
    }
    /// `nn.AvgPool2d(kernel_size, …)`: the options of `F::avg_pool2d_with`.
    pub fn with(kernel_size: impl IntoShape, opts: impl Into<AvgPoolOpts>) -> AvgPool2d {
        AvgPool2d {
            kernel_size: kernel_size.into_shape(),
            opts: opts.into(),
            training: Training::default(),
        }
    }
}
impl Module for AvgPool2d {
    module_common!("AvgPool2d");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        avg_pool2d_with(input, self.kernel_size.clone(), self.opts.clone())
    }
}

/// `nn.AdaptiveAvgPool2d(output_size)`: an int, a pair, or `[Option<i64>; 2]` (`None` keeps
/// the input's size). `(N, C, H, W)` or `(C, H, W)` → `(…, H_out, W_out)`; errors those of
/// `F.adaptive_avg_pool2d`.
#[derive(Debug)]
pub struct AdaptiveAvgPool2d {
    /// The target size.
    pub output_size: Vec<Option<i64>>,
    training: Training,
}
impl AdaptiveAvgPool2d {
    /// `nn.AdaptiveAvgPool2d(output_size)`.
    pub fn new(output_size: impl IntoOutputSize) -> AdaptiveAvgPool2d {
        AdaptiveAvgPool2d {
            output_size: output_size.into_output_size(),
            training: Training::default(),
        }
    }
}
impl Module for AdaptiveAvgPool2d {
    module_common!("AdaptiveAvgPool2d");
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        adaptive_avg_pool2d(input, self.output_size.clone())
    }
}
