//! `torch.nn.functional` convolutions: `conv1d`, `conv2d`, `conv3d`, `conv_transpose1d`,
//! `conv_transpose2d`, `conv_transpose3d`, and `unfold` (im2col) / `fold` (col2im), with
//! PyTorch 2.15's checks, messages, dtypes and output memory formats.
//!
//! The forward code (`at::_convolution`, im2col/col2im, the output layout rules) is
//! [`crate::ops::conv`]'s; the derivatives are `autograd/formulas/conv.rs`'s
//! (`ConvolutionBackward0`, `Im2ColBackward0`, `Col2ImBackward0`).

use crate::Tensor;
use crate::args::{Int, IntList, IntoShape};
use crate::dtype::type_meta_name;
use crate::error::{Error, Result, fmt_list};
use crate::geometry::conv as gc;
use crate::ops::conv::{Params, convolution_impl, fold_impl, unfold_impl, window};

op_ids! {
    /// A convolution, `unfold` or `fold` of `torch.nn.functional` (see [`crate::OpId`]).
    pub enum ConvId {
        /// [`conv1d_with`]
        Conv1d = "conv1d" ["conv1d", "conv1d_with"],
        /// [`conv2d_with`]
        Conv2d = "conv2d" ["conv2d", "conv2d_with"],
        /// [`conv3d_with`]
        Conv3d = "conv3d" ["conv3d", "conv3d_with"],
        /// [`conv_transpose1d_with`]
        ConvTranspose1d = "conv_transpose1d" ["conv_transpose1d", "conv_transpose1d_with"],
        /// [`conv_transpose2d_with`]
        ConvTranspose2d = "conv_transpose2d" ["conv_transpose2d", "conv_transpose2d_with"],
        /// [`conv_transpose3d_with`]
        ConvTranspose3d = "conv_transpose3d" ["conv_transpose3d", "conv_transpose3d_with"],
        /// [`unfold_with`]
        Unfold = "unfold" ["unfold", "unfold_with"],
        /// [`fold_with`]
        Fold = "fold" ["fold", "fold_with"],
    }
}

// ------------------------------------------------------------------ options

/// The `padding` argument of `F.conv1d/2d/3d`: ints (one for every spatial dim, or a single
/// one for all), or the string `"same"` / `"valid"`. From a string, an int or any int list.
#[derive(Clone, Debug, PartialEq)]
pub enum ConvPadding<'a> {
    /// Zero padding on both sides of each spatial dim.
    Ints(IntList),
    /// `"same"` (output size = input size; stride 1 only) or `"valid"` (no padding); any
    /// other string is PyTorch's `Invalid padding string: 'foo'`.
    Str(&'a str),
}
impl<'a> From<&'a str> for ConvPadding<'a> {
    fn from(s: &'a str) -> Self {
        ConvPadding::Str(s)
    }
}
impl<T: IntoShape> From<T> for ConvPadding<'_> {
    fn from(v: T) -> Self {
        ConvPadding::Ints(v.into_shape())
    }
}

/// The optional arguments of `F.conv1d`, `F.conv2d`, `F.conv3d` (`bias=None, stride=1,
/// padding=0, dilation=1, groups=1`), for [`conv2d_with`] and its siblings. From a bias
/// (`&Tensor` or `Option<&Tensor>`) or a tuple of the leading arguments in PyTorch's order:
/// `(bias, stride)`, `(bias, stride, padding)`, `(bias, stride, padding, dilation)`,
/// `(bias, stride, padding, dilation, groups)`. Int lists of one entry apply to every
/// spatial dim.
#[derive(Clone, Debug)]
pub struct ConvOpts<'a> {
    /// `(C_out,)`, added to every output position of its channel.
    pub bias: Option<&'a Tensor>,
    pub stride: IntList,
    pub padding: ConvPadding<'a>,
    pub dilation: IntList,
    pub groups: i64,
}
/// [`ConvOpts`] under `F.conv1d`'s name.
pub type Conv1dOpts<'a> = ConvOpts<'a>;
/// [`ConvOpts`] under `F.conv2d`'s name.
pub type Conv2dOpts<'a> = ConvOpts<'a>;
/// [`ConvOpts`] under `F.conv3d`'s name.
pub type Conv3dOpts<'a> = ConvOpts<'a>;

impl Default for ConvOpts<'_> {
    fn default() -> Self {
        ConvOpts {
            bias: None,
            stride: 1.into_shape(),
            padding: ConvPadding::Ints(0.into_shape()),
            dilation: 1.into_shape(),
            groups: 1,
        }
    }
}
impl<'a> From<&'a Tensor> for ConvOpts<'a> {
    fn from(bias: &'a Tensor) -> Self {
        ConvOpts {
            bias: Some(bias),
            ..Default::default()
        }
    }
}
impl<'a> From<Option<&'a Tensor>> for ConvOpts<'a> {
    fn from(bias: Option<&'a Tensor>) -> Self {
        ConvOpts {
            bias,
            ..Default::default()
        }
    }
}
impl<'a, B: Into<Option<&'a Tensor>>, S: IntoShape> From<(B, S)> for ConvOpts<'a> {
    fn from((b, s): (B, S)) -> Self {
        ConvOpts {
            bias: b.into(),
            stride: s.into_shape(),
            ..Default::default()
        }
    }
}
impl<'a, B: Into<Option<&'a Tensor>>, S: IntoShape, P: Into<ConvPadding<'a>>> From<(B, S, P)>
    for ConvOpts<'a>
{
    fn from((b, s, p): (B, S, P)) -> Self {
        ConvOpts {
            bias: b.into(),
            stride: s.into_shape(),
            padding: p.into(),
            ..Default::default()
        }
    }
}
impl<'a, B: Into<Option<&'a Tensor>>, S: IntoShape, P: Into<ConvPadding<'a>>, D: IntoShape>
    From<(B, S, P, D)> for ConvOpts<'a>
{
    fn from((b, s, p, d): (B, S, P, D)) -> Self {
        ConvOpts {
            bias: b.into(),
            stride: s.into_shape(),
            padding: p.into(),
            dilation: d.into_shape(),
            ..Default::default()
        }
    }
}
impl<'a, B: Into<Option<&'a Tensor>>, S: IntoShape, P: Into<ConvPadding<'a>>, D: IntoShape, G: Int>
    From<(B, S, P, D, G)> for ConvOpts<'a>
{
    fn from((b, s, p, d, g): (B, S, P, D, G)) -> Self {
        ConvOpts {
            bias: b.into(),
            stride: s.into_shape(),
            padding: p.into(),
            dilation: d.into_shape(),
            groups: g.to_i64(),
        }
    }
}

/// The optional arguments of `F.conv_transpose1d/2d/3d` (`bias=None, stride=1, padding=0,
/// output_padding=0, groups=1, dilation=1`), for [`conv_transpose2d_with`] and its siblings.
/// From a bias or a tuple of the leading arguments in PyTorch's order (`(bias, stride)` up to
/// `(bias, stride, padding, output_padding, groups, dilation)`).
#[derive(Clone, Debug)]
pub struct ConvTransposeOpts<'a> {
    /// `(C_out,)` = `(weight.size(1)·groups,)`.
    pub bias: Option<&'a Tensor>,
    pub stride: IntList,
    /// Removed from both ends of each output dim.
    pub padding: IntList,
    /// Added to the end of each output dim (below the stride or the dilation).
    pub output_padding: IntList,
    pub groups: i64,
    pub dilation: IntList,
}
/// [`ConvTransposeOpts`] under `F.conv_transpose1d`'s name.
pub type ConvTranspose1dOpts<'a> = ConvTransposeOpts<'a>;
/// [`ConvTransposeOpts`] under `F.conv_transpose2d`'s name.
pub type ConvTranspose2dOpts<'a> = ConvTransposeOpts<'a>;
/// [`ConvTransposeOpts`] under `F.conv_transpose3d`'s name.
pub type ConvTranspose3dOpts<'a> = ConvTransposeOpts<'a>;

impl Default for ConvTransposeOpts<'_> {
    fn default() -> Self {
        ConvTransposeOpts {
            bias: None,
            stride: 1.into_shape(),
            padding: 0.into_shape(),
            output_padding: 0.into_shape(),
            groups: 1,
            dilation: 1.into_shape(),
        }
    }
}
impl<'a> From<&'a Tensor> for ConvTransposeOpts<'a> {
    fn from(bias: &'a Tensor) -> Self {
        ConvTransposeOpts {
            bias: Some(bias),
            ..Default::default()
        }
    }
}
impl<'a> From<Option<&'a Tensor>> for ConvTransposeOpts<'a> {
    fn from(bias: Option<&'a Tensor>) -> Self {
        ConvTransposeOpts {
            bias,
            ..Default::default()
        }
    }
}
impl<'a, B: Into<Option<&'a Tensor>>, S: IntoShape> From<(B, S)> for ConvTransposeOpts<'a> {
    fn from((b, s): (B, S)) -> Self {
        ConvTransposeOpts {
            bias: b.into(),
            stride: s.into_shape(),
            ..Default::default()
        }
    }
}
impl<'a, B: Into<Option<&'a Tensor>>, S: IntoShape, P: IntoShape> From<(B, S, P)>
    for ConvTransposeOpts<'a>
{
    fn from((b, s, p): (B, S, P)) -> Self {
        ConvTransposeOpts {
            bias: b.into(),
            stride: s.into_shape(),
            padding: p.into_shape(),
            ..Default::default()
        }
    }
}
impl<'a, B: Into<Option<&'a Tensor>>, S: IntoShape, P: IntoShape, O: IntoShape> From<(B, S, P, O)>
    for ConvTransposeOpts<'a>
{
    fn from((b, s, p, o): (B, S, P, O)) -> Self {
        ConvTransposeOpts {
            bias: b.into(),
            stride: s.into_shape(),
            padding: p.into_shape(),
            output_padding: o.into_shape(),
            ..Default::default()
        }
    }
}
impl<'a, B: Into<Option<&'a Tensor>>, S: IntoShape, P: IntoShape, O: IntoShape, G: Int>
    From<(B, S, P, O, G)> for ConvTransposeOpts<'a>
{
    fn from((b, s, p, o, g): (B, S, P, O, G)) -> Self {
        ConvTransposeOpts {
            bias: b.into(),
            stride: s.into_shape(),
            padding: p.into_shape(),
            output_padding: o.into_shape(),
            groups: g.to_i64(),
            ..Default::default()
        }
    }
}
impl<
    'a,
    B: Into<Option<&'a Tensor>>,
    S: IntoShape,
    P: IntoShape,
    O: IntoShape,
    G: Int,
    D: IntoShape,
> From<(B, S, P, O, G, D)> for ConvTransposeOpts<'a>
{
    fn from((b, s, p, o, g, d): (B, S, P, O, G, D)) -> Self {
        ConvTransposeOpts {
            bias: b.into(),
            stride: s.into_shape(),
            padding: p.into_shape(),
            output_padding: o.into_shape(),
            groups: g.to_i64(),
            dilation: d.into_shape(),
        }
    }
}

// ------------------------------------------------------------------ public ops

macro_rules! conv_fns {
    ($name:ident, $name_with:ident, $nsp:expr, $opts:ident, $transposed:expr, $doc:expr) => {
        #[doc = concat!("`F.", stringify!($name), "(input, weight)` with PyTorch's defaults; see [`", stringify!($name_with), "`].")]
        pub fn $name(input: &Tensor, weight: &Tensor) -> Result<Tensor> {
            $name_with(input, weight, $opts::default())
        }
        #[doc = $doc]
        #[doc = "\n\nAlso (RuntimeError): `convolution: the calculated output size (…) overflows int64` when sizes near 2^62 (an expanded or empty operand) and paddings, strides or dilations near `i64::MAX` give an output length past int64, and `padding='same': the total padding dilation * (kernel_size - 1) overflows int64 …`."]
        pub fn $name_with<'a>(
            input: &Tensor,
            weight: &Tensor,
            opts: impl Into<$opts<'a>>,
        ) -> Result<Tensor> {
            conv_entry(input, weight, &opts.into(), $nsp, stringify!($name))
        }
    };
}

conv_fns!(
    conv1d,
    conv1d_with,
    1,
    ConvOpts,
    false,
    concat!(
        "`F.conv1d(input, weight, bias, stride, padding, dilation, groups)`: input `(N, C_in, L)` or unbatched `(C_in, L)`, weight `(C_out, C_in/groups, kL)`, output `(N, C_out, L_out)` with `L_out = (L + 2·padding − dilation·(kL−1) − 1) / stride + 1` (`padding=\"same\"`: `L_out = L`). Float dtypes (input, weight and bias alike); the output has the input's dtype. Output layout as PyTorch's: contiguous, or channels-last-like strides `(L·C_out, 1, C_out)` when the weight's `unsqueeze(2)` suggests channels-last.",
        "\n\nErrors (RuntimeError, in PyTorch's order): `Input type (float) and bias type (double) should be the same`; `Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [1, 2, 1, 2]`; `Invalid padding string: 'foo'`; `padding='same' is not supported for strided convolutions`; then the checks listed on [`conv2d_with`] (`Calculated padded input size per channel: (3). Kernel size: (4). Kernel size can't be greater than actual input size`, …)."
    )
);
conv_fns!(
    conv2d,
    conv2d_with,
    2,
    ConvOpts,
    false,
    concat!(
        "`F.conv2d(input, weight, bias, stride, padding, dilation, groups)`: input `(N, C_in, H, W)` or unbatched `(C_in, H, W)`, weight `(C_out, C_in/groups, kH, kW)`, output `(N, C_out, H_out, W_out)` with `H_out = (H + 2·padding − dilation·(kH−1) − 1) / stride + 1` per dim (`padding=\"same\"`: the input's size, padding the input asymmetrically where the total is odd; `\"valid\"`: no padding). `groups` splits the channels (depthwise: `groups = C_in`). Float dtypes; the output has the input's dtype (bfloat16/float16 computed in float32, rounded once). Output channels-last (strides `(H·W·C, 1, W·C, C)`) when the input or the weight suggests channels-last, else contiguous (PyTorch's per-group float64 kernels decide per group).",
        "\n\nErrors (RuntimeError, in PyTorch's order): `Input type (float) and bias type (double) should be the same`; `Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3]`; `Invalid padding string: 'foo'`; `padding='same' is not supported for strided convolutions`; `weight should have at least three dimensions`; `non-positive groups is not supported`; `expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, but got stride=[1, 1, 1]`; `negative padding is not supported`; `non-positive stride is not supported`; `dilation should be greater than zero`; `Expected 4-dimensional input for 4-dimensional weight [2, 3, 3, 3], but got 3-dimensional input of size [2, 3, 3] instead`; `Given groups=2, expected weight to be at least 2 at dimension 0, but got weight of size [1, 2, 3, 3] instead`; `Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of size [[4, 1, 2, 2]] instead`; `Given groups=1, weight of size [3, 2, 2, 3], expected input[2, 3, 1, 5] to have 2 channels, but got 3 channels instead`; `Given weight of size [2, 1, 1, 2], expected bias to be 1-dimensional with 2 elements, but got bias of size [3] instead`; `Calculated padded input size per channel: (1 x 3). Kernel size: (2 x 3). Kernel size can't be greater than actual input size`; `Only zero batch or zero channel inputs are supported, but got input shape: [1, 2, 0, 3]`; `Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same or input should be a MKLDNN tensor and weight is a dense tensor`. NotImplementedError `\"slow_conv2d_cpu\" not implemented for 'Long'` for integer and bool inputs. A zero batch gives an empty output (PyTorch's shortcut, which skips the dtype check)."
    )
);
conv_fns!(
    conv3d,
    conv3d_with,
    3,
    ConvOpts,
    false,
    concat!(
        "`F.conv3d(input, weight, bias, stride, padding, dilation, groups)`: input `(N, C_in, D, H, W)` or unbatched `(C_in, D, H, W)`, weight `(C_out, C_in/groups, kD, kH, kW)`, output `(N, C_out, D_out, H_out, W_out)` as [`conv2d_with`] per dim. Output channels-last-3d for float32/bfloat16 when PyTorch's oneDNN path takes it and the input or weight suggests channels-last-3d; float64 (and small single-image float32 problems) give contiguous outputs.",
        "\n\nErrors: as [`conv2d_with`], for 4-D (unbatched) or 5-D inputs."
    )
);
conv_fns!(
    conv_transpose1d,
    conv_transpose1d_with,
    1,
    ConvTransposeOpts,
    true,
    concat!(
        "`F.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)`: input `(N, C_in, L)` or `(C_in, L)`, weight `(C_in, C_out/groups, kL)`, output `(N, C_out, L_out)` with `L_out = (L−1)·stride − 2·padding + dilation·(kL−1) + output_padding + 1`. The gradient of `conv1d` with respect to its input. Dtypes and layout as [`conv1d_with`].",
        "\n\nErrors (RuntimeError): `Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of size: [3]`, then those of [`conv_transpose2d_with`]."
    )
);
conv_fns!(
    conv_transpose2d,
    conv_transpose2d_with,
    2,
    ConvTransposeOpts,
    true,
    concat!(
        "`F.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)`: input `(N, C_in, H, W)` or `(C_in, H, W)`, weight `(C_in, C_out/groups, kH, kW)`, output `(N, C_out, H_out, W_out)` with `H_out = (H−1)·stride − 2·padding + dilation·(kH−1) + output_padding + 1` per dim. Dtypes and output layout as [`conv2d_with`].",
        "\n\nErrors (RuntimeError): `Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: [1, 3, 1, 1, 2]`; the checks of [`conv2d_with`] from `weight should have at least three dimensions` on, with `Given transposed=1, weight of size [2, 3, 2, 3], expected input[1, 3, 2, 2] to have 2 channels, but got 3 channels instead` and `Given transposed=1, weight of size [2, 3, 2, 3], expected bias to be 1-dimensional with 3 elements, but got bias of size [4] instead` for the channel and bias checks, and `negative output_padding is not supported`; `output padding must be smaller than either stride or dilation, but got output_padding_height: 2 output_padding_width: 1 stride_height: 2 stride_width: 1 dilation_height: 1 dilation_width: 1`; `Given input size per channel: (1 x 2). Calculated output size per channel: (1 x 0). Output size is too small` (PyTorch's float32 kernels report an output of 0 or below with backend texts instead; a 1-d convolution reports a height of 1)."
    )
);
conv_fns!(
    conv_transpose3d,
    conv_transpose3d_with,
    3,
    ConvTransposeOpts,
    true,
    concat!(
        "`F.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)`: input `(N, C_in, D, H, W)` or `(C_in, D, H, W)`, weight `(C_in, C_out/groups, kD, kH, kW)`, output sizes as [`conv_transpose2d_with`] per dim. Dtypes and layout as [`conv3d_with`].",
        "\n\nErrors: as [`conv_transpose2d_with`] (the output-padding message names depth, height and width; `Given input size per channel: (1 x 1 x 2). Calculated output size per channel: (1 x 1 x 0). Output size is too small`)."
    )
);

trait AnyConvOpts<'a> {
    fn bias(&self) -> Option<&'a Tensor>;
    fn padding_str(&self) -> Option<&'a str>;
    fn params(&self) -> Params;
}
impl<'a> AnyConvOpts<'a> for ConvOpts<'a> {
    fn bias(&self) -> Option<&'a Tensor> {
        self.bias
    }
    fn padding_str(&self) -> Option<&'a str> {
        match self.padding {
            ConvPadding::Str(s) => Some(s),
            ConvPadding::Ints(_) => None,
        }
    }
    fn params(&self) -> Params {
        Params {
            bias_present: self.bias.is_some(),
            stride: self.stride.clone(),
            padding: match &self.padding {
                ConvPadding::Ints(p) => p.clone(),
                ConvPadding::Str(_) => 0.into_shape(),
            },
            dilation: self.dilation.clone(),
            output_padding: 0.into_shape(),
            groups: self.groups,
            transposed: false,
        }
    }
}
impl<'a> AnyConvOpts<'a> for ConvTransposeOpts<'a> {
    fn bias(&self) -> Option<&'a Tensor> {
        self.bias
    }
    fn padding_str(&self) -> Option<&'a str> {
        None
    }
    fn params(&self) -> Params {
        Params {
            bias_present: self.bias.is_some(),
            stride: self.stride.clone(),
            padding: self.padding.clone(),
            dilation: self.dilation.clone(),
            output_padding: self.output_padding.clone(),
            groups: self.groups,
            transposed: true,
        }
    }
}

/// `at::conv{1,2,3}d` / `at::conv_transpose{1,2,3}d`: the bias dtype check (forward only),
/// `batchify`, string padding, `at::convolution`, and the unbatched squeeze.
fn conv_entry<'a>(
    input: &Tensor,
    weight: &Tensor,
    opts: &impl AnyConvOpts<'a>,
    nsp: usize,
    name: &str,
) -> Result<Tensor> {
    let bias = opts.bias();
    let p = opts.params();
    if !p.transposed
        && let Some(b) = bias
        && b.dtype() != input.dtype()
    {
        return Err(Error::runtime(format!(
            "Input type ({}) and bias type ({}) should be the same",
            type_meta_name(input.dtype()),
            type_meta_name(b.dtype())
        )));
    }
    let (nb, bat) = (nsp + 1, nsp + 2);
    let batched = input.dim() == bat;
    if input.dim() != nb && !batched {
        return Err(Error::runtime(format!(
            "Expected {nb}D (unbatched) or {bat}D (batched) input to {name}, but got input of size: {}",
            fmt_list(input.size())
        )));
    }
    let x = if batched {
        input.alias()
    } else {
        input.unsqueeze(0)?
    };
    let out = match opts.padding_str() {
        None => convolution(&x, weight, bias, &p)?,
        Some("valid") => convolution(&x, weight, bias, &p)?,
        Some("same") => conv_same(&x, weight, bias, &p)?,
        Some(s) => {
            return Err(Error::runtime(format!("Invalid padding string: '{s}'")));
        }
    };
    if batched { Ok(out) } else { out.squeeze_dim(0) }
}

/// `at::_convolution_same`: stride 1 only; `dilation·(k−1)` of padding split evenly, the odd
/// element after (by padding the input once with zeros).
fn conv_same(x: &Tensor, weight: &Tensor, bias: Option<&Tensor>, p: &Params) -> Result<Tensor> {
    let same = gc::same_padding(x.size(), weight.size(), &p.stride, &p.dilation, p.groups)?;
    let left: IntList = same.left.iter().copied().collect();
    let q = Params {
        padding: left,
        stride: p.stride.clone(),
        dilation: p.dilation.clone(),
        output_padding: 0.into_shape(),
        ..*p
    };
    match same.extra {
        None => convolution(x, weight, bias, &q),
        Some(pad_nd) => {
            let padded = crate::optable::resample::pad(x, &pad_nd[..])?;
            convolution(&padded, weight, bias, &q)
        }
    }
}

/// `at::convolution` on a batched input, recorded as one `ConvolutionBackward0` node.
fn convolution(x: &Tensor, weight: &Tensor, bias: Option<&Tensor>, p: &Params) -> Result<Tensor> {
    let mut ins = vec![x, weight];
    ins.extend(bias);
    let rec = crate::autograd::api::any_requires_grad(&ins);
    let out = {
        let _ng = rec.then(crate::autograd::no_grad);
        convolution_impl(x, weight, bias, p)?
    };
    if !rec {
        return Ok(out);
    }
    crate::autograd::formulas::conv::convolution(out, x, weight, bias, || {
        let dim = weight.dim() - 2;
        let ex = |v: &IntList| -> Vec<i64> {
            if v.len() == 1 {
                vec![v[0]; dim]
            } else {
                v.to_vec()
            }
        };
        crate::autograd::formulas::conv::ConvArgs {
            stride: ex(&p.stride),
            padding: ex(&p.padding),
            dilation: ex(&p.dilation),
            groups: p.groups,
            transposed: p.transposed,
        }
    })
}

// ------------------------------------------------------------------ unfold / fold

pub use crate::ops::conv::{FoldOpts, UnfoldOpts};

/// `F.unfold(input, kernel_size)` with `dilation=1, padding=0, stride=1`; see [`unfold_with`].
pub fn unfold(input: &Tensor, kernel_size: impl IntoShape) -> Result<Tensor> {
    unfold_with(input, kernel_size, UnfoldOpts::default())
}

/// `F.unfold(input, kernel_size, dilation, padding, stride)` (im2col): input `(N, C, H, W)` or
/// `(C, H, W)`, output `(N, C·kH·kW, L)` (or `(C·kH·kW, L)`), contiguous, where row
/// `c·kH·kW + i·kW + j` holds tap `(i, j)` of channel `c` for each of the `L = bH·bW` blocks
/// (`bH = (H + 2·padH − dilH·(kH−1) − 1) / strideH + 1`); taps in the padding are 0. Ints apply to
/// both dims. Float dtypes, kept.
///
/// Errors (RuntimeError): `It is expected kernel_size equals to 2, but got size 3`;
/// `kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 1`; `dilation
/// should be greater than zero, …`; `padding should be non-negative, …`; `stride should be
/// greater than zero, …`; `Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and
/// other non-zero dimensions for input, but got: [1, 2, 1, 4, 3]`; `Given input with spatial
/// size (3, 2), kernel_size=(3, 2), dilation=(2, 2), padding=(0, 0), calculated shape of the
/// array of sliding blocks as (0, 0), but its components must be at least one.`;
/// NotImplementedError `"im2col_out_cpu" not implemented for 'Long'`; with an empty batch,
/// `unfold: the calculated number of sliding blocks bH·bW overflows int64` (likewise
/// `number of output rows C·kH·kW`).
pub fn unfold_with(
    input: &Tensor,
    kernel_size: impl IntoShape,
    opts: impl Into<UnfoldOpts>,
) -> Result<Tensor> {
    let o = opts.into();
    let kernel_size = kernel_size.into_shape();
    let rec = crate::autograd::api::any_requires_grad(&[input]);
    let out = {
        let _ng = rec.then(crate::autograd::no_grad);
        unfold_impl(input, &kernel_size, &o)?
    };
    if !rec {
        return Ok(out);
    }
    let k = window(&kernel_size, &o)?.k;
    crate::autograd::formulas::conv::im2col(out, input, k, &o)
}

/// `F.fold(input, output_size, kernel_size)` with `dilation=1, padding=0, stride=1`; see
/// [`fold_with`].
pub fn fold(
    input: &Tensor,
    output_size: impl IntoShape,
    kernel_size: impl IntoShape,
) -> Result<Tensor> {
    fold_with(input, output_size, kernel_size, FoldOpts::default())
}

/// `F.fold(input, output_size, kernel_size, dilation, padding, stride)` (col2im, the adjoint of
/// [`unfold_with`]): input `(N, C·kH·kW, L)` or `(C·kH·kW, L)`, output `(N, C, H, W)` (or
/// `(C, H, W)`) with `(H, W) = output_size`, contiguous: each block's taps are summed into the
/// image positions they cover (taps in the padding dropped). Float dtypes, kept.
///
/// Errors (RuntimeError): `It is expected output_size equals to 2, but got size 3` (and for the
/// other lists); `kernel size should be greater than zero, …`; `stride should be greater than
/// zero, …`; `dilation should be greater than zero, …`; `padding should be non-negative, …`;
/// `Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero
/// dimensions for input, but got: [2, 0]`; `Expected size of input's dimension 1 to be
/// divisible by the product of kernel_size, but got input.size(1)=10 and kernel_size=(3, 1).`;
/// `Given output_size=(1, 4), kernel_size=(2, 2), dilation=(1, 1), padding=(1, 1), stride=(2,
/// 1), expected size of input's dimension 2 to match the calculated number of sliding blocks 1 *
/// 5 = 5, but got input.size(2)=6.`; `Given output_size=…, calculated shape of the array of
/// sliding blocks as (0, 1), which is invalid.`; NotImplementedError `"col2im_out_cpu" not
/// implemented for 'Long'`.
pub fn fold_with(
    input: &Tensor,
    output_size: impl IntoShape,
    kernel_size: impl IntoShape,
    opts: impl Into<FoldOpts>,
) -> Result<Tensor> {
    let o = opts.into();
    let (output_size, kernel_size) = (output_size.into_shape(), kernel_size.into_shape());
    let rec = crate::autograd::api::any_requires_grad(&[input]);
    let out = {
        let _ng = rec.then(crate::autograd::no_grad);
        fold_impl(input, &output_size, &kernel_size, &o)?
    };
    if !rec {
        return Ok(out);
    }
    let k = window(&kernel_size, &o)?.k;
    crate::autograd::formulas::conv::col2im(out, input, k, &o)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P62: i64 = 1 << 62;

    /// Paddings, strides and dilations near i64::MAX and sizes near 2^62: the shape checks
    /// and output sizes overflowed int64 (overflow-check builds).
    #[test]
    fn geometry_past_int64_is_an_error() {
        let x = Tensor::zeros([1, 1, 4, 4]).unwrap();
        let w = Tensor::zeros([1, 1, 1, 1]).unwrap();
        let o = ConvOpts {
            padding: [P62, P62].into(),
            ..Default::default()
        };
        let e = conv2d_with(&x, &w, o).unwrap_err();
        assert!(e.message().contains("overflows int64"), "{}", e.message());
        let w3 = Tensor::zeros([1, 1, 3, 3]).unwrap();
        let o = ConvOpts {
            dilation: IntList::from_slice(&[i64::MAX]),
            ..Default::default()
        };
        let e = conv2d_with(&x, &w3, o).unwrap_err();
        assert!(
            e.message().contains("Kernel size can't be greater"),
            "{}",
            e.message()
        );
        let o = ConvOpts {
            padding: "same".into(),
            dilation: IntList::from_slice(&[i64::MAX]),
            ..Default::default()
        };
        assert!(conv2d_with(&x, &w3, o).is_err());
        let o = ConvTransposeOpts {
            stride: IntList::from_slice(&[P62]),
            ..Default::default()
        };
        assert!(conv_transpose2d_with(&x, &w, o).is_err());
    }

    /// An empty batch leaves `bH·bW` and `C·kH·kW` unbounded.
    #[test]
    fn unfold_sizes_past_int64_are_errors() {
        let x = Tensor::zeros([0usize, 1, 1 << 62, 1]).unwrap();
        let o = UnfoldOpts {
            padding: IntList::from_slice(&[0, 1 << 40]),
            ..Default::default()
        };
        let e = unfold_with(&x, 1, o).unwrap_err();
        assert!(e.message().contains("bH·bW"), "{}", e.message());
        let x = Tensor::zeros([0usize, 1 << 40, 1, 1]).unwrap();
        let o = UnfoldOpts {
            padding: IntList::from_slice(&[1 << 40]),
            ..Default::default()
        };
        assert!(unfold_with(&x, 1i64 << 41, o).is_err());
        let o = UnfoldOpts {
            padding: IntList::from_slice(&[i64::MAX]),
            ..Default::default()
        };
        assert!(unfold_with(&x, 1, o).is_err());
        // fold: kH·kW passes int64 → not a divisor of C·kH·kW
        let x = Tensor::zeros([1, 4, 1]).unwrap();
        let e = fold(&x, [1, 1], [P62, P62]).unwrap_err();
        assert!(e.message().contains("divisible"), "{}", e.message());
    }
}
