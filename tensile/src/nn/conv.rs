//! `torch.nn.functional` convolutions: `conv1d`, `conv2d`, `conv3d`, `conv_transpose1d`,
//! `conv_transpose2d`, `conv_transpose3d`, and `unfold` (im2col) / `fold` (col2im), with
//! PyTorch 2.15's checks, messages, dtypes and output memory formats.
//!
//! The numbers are computed by `crate::kernels::conv` (im2col + GEMM, a direct depthwise loop,
//! channels-last computed in place) in float32 (float32, bfloat16, float16 inputs) or float64.
//! The layout rules follow PyTorch's CPU `_convolution`: a 1-d convolution runs as a 2-d one on
//! `input.contiguous().unsqueeze(2)` and `weight.unsqueeze(2)`; the output is channels-last when
//! the input or the weight suggests channels-last (see [`output_channels_last`]), except where
//! PyTorch's slow 3-d kernels and per-group concatenation give contiguous outputs.

use crate::Tensor;
use crate::args::{Int, IntList, IntoShape};
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::geometry::conv::{self as gc, ConvGeometry as Geo, Window2};
use crate::kernels::conv::{self as kconv, ConvElem, ConvGeom, ConvKind, Window};
use crate::layout::{
    channels_last_strides, contiguous_strides, is_channels_last_3d_contiguous,
    is_channels_last_contiguous, is_contiguous,
};
use crate::ops::copy::copy_with_strides;
use crate::ops::matmul::type_meta_name;

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

/// The options of either kind, normalised.
struct Params {
    bias_present: bool,
    stride: IntList,
    padding: IntList,
    dilation: IntList,
    output_padding: IntList,
    groups: i64,
    transposed: bool,
}

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
            let padded = crate::nn::functional::pad(x, &pad_nd[..])?;
            convolution(&padded, weight, bias, &q)
        }
    }
}

/// `is_channels_last_strides_2d_s4` / `_3d_s5` (the walk of `suggest_memory_format`): C, the
/// spatial dims from the innermost, then N, with PyTorch's tie-breaks for size-0/1 dims.
fn suggests_cl(sizes: &[usize], strides: &[usize]) -> bool {
    let order: &[usize] = match sizes.len() {
        4 => &[1, 3, 2, 0],
        5 => &[1, 4, 3, 2, 0],
        _ => return false,
    };
    if strides[1] == 0 {
        return false;
    }
    let mut min = 0usize;
    for &d in order {
        if sizes[d] == 0 || strides[d] < min {
            return false;
        }
        if d == 0 && min == strides[1] {
            return false;
        }
        min = strides[d];
        if sizes[d] > 1 {
            min *= sizes[d];
        }
    }
    true
}

/// The strides of `t.contiguous(memory_format)` (kept when already so).
fn contiguous_as(sizes: &[usize], strides: &[usize], cl: bool) -> Vec<usize> {
    if cl {
        let already = if sizes.len() == 4 {
            is_channels_last_contiguous(sizes, strides)
        } else {
            is_channels_last_3d_contiguous(sizes, strides)
        };
        if already {
            strides.to_vec()
        } else {
            channels_last_strides(sizes)
        }
    } else if is_contiguous(sizes, strides) {
        strides.to_vec()
    } else {
        contiguous_strides(sizes)
    }
}

/// Whether PyTorch's CPU `_convolution` gives a channels-last output, for a 4-d or 5-d
/// `input` (a 1-d convolution's made contiguous and unsqueezed) and `weight`:
///
/// * oneDNN (float32 unless a tiny single-image ungrouped problem, bfloat16, float16; not
///   a transposed convolution whose output padding reaches the stride): channels-last when
///   either suggests channels-last;
/// * 3-d otherwise (PyTorch's slow 3-d kernels): contiguous;
/// * 2-d slow kernels (float64): the operands are made contiguous in the suggested format,
///   then each group's slices decide its output's format, and the groups' outputs are
///   concatenated (channels-last only when every group's output suggests it).
fn output_channels_last(
    x: &Tensor,
    w: &Tensor,
    groups: usize,
    outpad_big: bool,
    out_sizes: &[usize],
) -> bool {
    let (xs, ws) = (x.size(), w.size());
    let nd = xs.len();
    let either = suggests_cl(xs, x.stride()) || suggests_cl(ws, w.stride());
    if uses_onednn(x, w, groups, outpad_big) {
        return either;
    }
    if nd == 5 {
        return false;
    }
    let xst = contiguous_as(xs, x.stride(), either);
    let wst = contiguous_as(ws, w.stride(), either);
    let (mut xg, mut wg, mut og) = (xs.to_vec(), ws.to_vec(), out_sizes.to_vec());
    xg[1] /= groups;
    wg[0] /= groups;
    og[1] /= groups;
    let xgs = contiguous_as(&xg, &xst, suggests_cl(&xg, &xst));
    let wgs = contiguous_as(&wg, &wst, suggests_cl(&wg, &wst));
    let cl = suggests_cl(&xg, &xgs) || suggests_cl(&wg, &wgs);
    if groups == 1 {
        return cl;
    }
    // every group has the same geometry; `cat` keeps channels-last when its pieces suggest it
    let ogs = if cl {
        channels_last_strides(&og)
    } else {
        contiguous_strides(&og)
    };
    suggests_cl(&og, &ogs)
}

/// Whether PyTorch's CPU `_select_conv_backend` picks oneDNN: float32 unless a single small
/// ungrouped image with a small kernel, bfloat16 and float16; never a transposed convolution
/// whose output padding reaches its stride.
fn uses_onednn(x: &Tensor, w: &Tensor, groups: usize, outpad_big: bool) -> bool {
    let (xs, ws) = (x.size(), w.size());
    let nd = xs.len();
    match x.dtype() {
        DType::Float32 => {
            !outpad_big
                && (groups > 1
                    || (ws[nd - 1] > 3 && ws[nd - 2] > 3)
                    || xs[0] > 1
                    || xs[0] * xs[1] * xs[2] * xs[3] > 20480)
        }
        DType::BFloat16 | DType::Float16 => !outpad_big,
        _ => false,
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

/// `at::_convolution` on a batched input.
fn convolution_impl(
    x: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    p: &Params,
) -> Result<Tensor> {
    let g = Geo::new(
        weight.dim(),
        &p.stride,
        &p.padding,
        &p.dilation,
        &p.output_padding,
        p.groups,
        p.transposed,
    )?;
    let dim = weight.dim() - 2;
    debug_assert_eq!(p.bias_present, bias.is_some());
    gc::check_shape_forward(x.size(), weight.size(), bias.map(|b| b.size()), &g)?;
    let xs = x.size();
    let out = gc::output_sizes(xs, weight.size(), &g)?;
    // 1-d runs as 2-d on input.contiguous().unsqueeze(2), weight.unsqueeze(2)
    let one_d = dim == 1;
    let (x4, w4, g4) = if one_d {
        let geo = g.as_2d();
        (x.try_contiguous()?.unsqueeze(2)?, weight.unsqueeze(2)?, geo)
    } else {
        (x.alias(), weight.alias(), g)
    };
    let g = g4;
    let mut out4 = out.clone();
    if one_d {
        out4.insert(2, 1);
    }
    if xs[0] == 0 || xs[1] == 0 {
        let r = empty_backend(&x4, &w4, bias, &out4)?;
        return if one_d { r.squeeze_dim(2) } else { Ok(r) };
    }
    if x.numel() == 0 {
        return Err(Error::runtime(format!(
            "Only zero batch or zero channel inputs are supported, but got input shape: {}",
            fmt_list(xs)
        )));
    }
    if x.dtype() != weight.dtype() {
        return Err(Error::runtime(format!(
            "Input type ({}) and weight type ({}) should be the same or input should be a MKLDNN tensor and weight is a dense tensor",
            x.dtype().legacy_type_name(),
            weight.dtype().legacy_type_name()
        )));
    }
    if let Some(b) = bias
        && b.dtype() != x.dtype()
    {
        return Err(Error::runtime(format!(
            "Input type ({}) and bias type ({}) should be the same or input should be a MKLDNN tensor and bias is a dense tensor",
            x.dtype().legacy_type_name(),
            b.dtype().legacy_type_name()
        )));
    }
    if !x.dtype().is_floating_point() {
        let kernel = match (g.transposed, x4.dim()) {
            (false, 4) => "slow_conv2d_cpu",
            (false, _) => "slow_conv3d_cpu",
            (true, 4) => "slow_conv_transpose2d_out_cpu",
            (true, _) => "slow_conv_transpose3d_out_cpu",
        };
        return Err(Error::not_implemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        )));
    }
    let nsp = x4.dim() - 2;
    let outpad_big = g.transposed
        && g.output_padding
            .iter()
            .zip(&g.stride)
            .any(|(&o, &s)| o >= s);
    if g.transposed {
        gc::check_output_padding(&g, nsp)?;
        // oneDNN gives an empty output for a size of 0 (and fails below it); the slow
        // kernels refuse both
        let least = if uses_onednn(&x4, &w4, g.groups as usize, outpad_big) {
            0
        } else {
            1
        };
        gc::check_transposed_output(&x4.size()[2..], &out4[2..], least)?;
    }
    let groups = g.groups as usize;
    let out_sizes: Vec<usize> = out4.iter().map(|&v| v as usize).collect();
    let cl = output_channels_last(&x4, &w4, groups, outpad_big, &out_sizes);
    let slow = !uses_onednn(&x4, &w4, groups, outpad_big);
    let r = compute(&x4, &w4, bias, &g, &out_sizes, cl, slow)?;
    if one_d { r.squeeze_dim(2) } else { Ok(r) }
}

/// PyTorch's `ConvBackend::Empty` (zero batch or zero channels), done as PyTorch does it:
/// `input * weight.flatten()[0]` (zero channels: `input.view(-1) * weight.flatten()`),
/// `+= bias[0]`, viewed as the output shape. So the dtype is the product's and the strides
/// are the pointwise result's (kept by `view` when the shapes agree; else contiguous).
fn empty_backend(x: &Tensor, w: &Tensor, bias: Option<&Tensor>, out: &[i64]) -> Result<Tensor> {
    let wv = w.reshape(-1)?;
    let y = if x.size()[1] == 0 {
        x.reshape(-1)?.mul(&wv)?
    } else {
        x.mul(&wv.select(0, 0)?)?
    };
    if let Some(b) = bias {
        y.add_(&b.select(0, 0)?)?;
    }
    y.view(out)
}

/// A dense copy of `t` with `strides` and dtype `dt` (`t` itself when it already is).
fn dense_as(t: &Tensor, strides: &[usize], dt: DType) -> Result<Tensor> {
    if t.dtype() == dt && t.stride() == strides {
        Ok(t.alias())
    } else {
        copy_with_strides(t, strides, dt)
    }
}

/// Pads a per-spatial-dim list to 3 entries with leading `fill`s.
fn pad3<T: Copy>(v: &[T], fill: T) -> [T; 3] {
    let mut r = [fill; 3];
    let off = 3 - v.len();
    r[off..].copy_from_slice(v);
    r
}

/// Runs the convolution on 4-d/5-d operands into an output of `out_sizes`, channels-last
/// when `cl`; `slow` when PyTorch runs its own (non-oneDNN) kernel, whose transposed path
/// stores every step of a float16/bfloat16 computation in that dtype.
fn compute(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: &Geo,
    out_sizes: &[usize],
    cl: bool,
    slow: bool,
) -> Result<Tensor> {
    let dt = x.dtype();
    let cd = if dt == DType::Float64 {
        DType::Float64
    } else {
        DType::Float32
    };
    let (xs, ws) = (x.size(), w.size());
    let u = |v: &[i64]| -> Vec<usize> { v.iter().map(|&a| a as usize).collect() };
    let (in_sp, out_sp) = (&xs[2..], &out_sizes[2..]);
    let (img, blk) = if g.transposed {
        (out_sp, in_sp)
    } else {
        (in_sp, out_sp)
    };
    let win = Window {
        img: pad3(img, 1),
        blk: pad3(blk, 1),
        k: pad3(&ws[2..], 1),
        stride: pad3(&u(&g.stride), 1),
        pad: pad3(&u(&g.padding), 0),
        dil: pad3(&u(&g.dilation), 1),
    };
    let geom = ConvGeom {
        n: xs[0],
        c: xs[1],
        o: out_sizes[1],
        groups: g.groups as usize,
        win,
        // only the slow transposed path stores its steps in the reduced dtype; oneDNN's
        // accumulates in float32
        round: match dt {
            DType::BFloat16 if g.transposed && slow => Some(|v| half::bf16::from_f32(v).to_f32()),
            DType::Float16 if g.transposed && slow => Some(|v| half::f16::from_f32(v).to_f32()),
            _ => None,
        },
    };
    let nhwc = cl && !g.transposed;
    let kind = if g.transposed {
        ConvKind::Transposed
    } else if nhwc {
        ConvKind::Nhwc
    } else {
        ConvKind::Nchw
    };
    let layout = |s: &[usize]| {
        if nhwc {
            channels_last_strides(s)
        } else {
            contiguous_strides(s)
        }
    };
    let xc = dense_as(x, &layout(xs), cd)?;
    let wc = dense_as(w, &layout(ws), cd)?;
    let bc = bias.map(|b| dense_as(b, &[1], cd)).transpose()?;
    let y = Tensor::try_alloc(out_sizes, &layout(out_sizes), cd)?;
    if y.numel() != 0 {
        let mut ins = vec![&xc, &wc];
        ins.extend(&bc);
        // dense in the layout `kind` names (made so above): slices in that order
        crate::iter::dense(&[&y], &ins, |mut s| match cd {
            DType::Float64 => conv_dense::<f64>(&mut s, kind, bc.is_some(), &geom),
            _ => conv_dense::<f32>(&mut s, kind, bc.is_some(), &geom),
        })?;
    }
    let strides = if cl {
        channels_last_strides(out_sizes)
    } else {
        contiguous_strides(out_sizes)
    };
    if dt == cd && y.stride() == &strides[..] {
        Ok(y)
    } else {
        copy_with_strides(&y, &strides, dt)
    }
}

/// The convolution kernel over [`crate::iter::dense`]'s slices: input, weight and (when
/// `bias`) bias in `T`, output first.
fn conv_dense<T: ConvElem + crate::Element>(
    s: &mut crate::iter::Slices<'_>,
    kind: ConvKind,
    bias: bool,
    geom: &ConvGeom,
) -> Result<()> {
    let b = bias.then(|| s.input::<T>(2)).transpose()?;
    kconv::conv::<T>(kind, s.input(0)?, s.input(1)?, b, s.out(0)?, geom);
    Ok(())
}

/// The weight gradient of a (non-transposed) convolution `y = conv{1,2,3}d(x, w)` with
/// these `stride`/`padding`/`dilation`/`groups`, for the output gradient `g`: `x` `(N, C, …)`,
/// `g` `(N, O, …)` (the output's sizes), result `(O, C/groups, k…)` = `w_sizes`, contiguous,
/// in `x`'s dtype. Computed directly (im2col + one product per chunk of images, in
/// `kernels::conv::weight_grad`) for float32 and float64; `None` for other dtypes, whose
/// gradient goes through a convolution of tensile's own (`formulas::conv::weight_grad`),
/// rounding as PyTorch's reduced-precision kernels do. Errors: only the allocator's.
pub(crate) fn conv_weight_grad(
    x: &Tensor,
    g: &Tensor,
    w_sizes: &[usize],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    groups: i64,
) -> Result<Option<Tensor>> {
    let dt = x.dtype();
    let nsp = x.dim().saturating_sub(2);
    if !matches!(dt, DType::Float32 | DType::Float64)
        || g.dtype() != dt
        || !(1..=3).contains(&nsp)
        || g.dim() != x.dim()
        || w_sizes.len() != x.dim()
        || groups < 1
    {
        return Ok(None);
    }
    let u = |v: &[i64]| -> Vec<usize> { v.iter().map(|&a| a.max(0) as usize).collect() };
    let win = Window {
        img: pad3(&x.size()[2..], 1),
        blk: pad3(&g.size()[2..], 1),
        k: pad3(&w_sizes[2..], 1),
        stride: pad3(&u(stride), 1),
        pad: pad3(&u(padding), 0),
        dil: pad3(&u(dilation), 1),
    };
    let geom = ConvGeom {
        n: x.size()[0],
        c: x.size()[1],
        o: g.size()[1],
        groups: groups as usize,
        win,
        round: None,
    };
    let xc = dense_as(x, &contiguous_strides(x.size()), dt)?;
    let gc = dense_as(g, &contiguous_strides(g.size()), dt)?;
    let gw = Tensor::try_alloc(w_sizes, &contiguous_strides(w_sizes), dt)?;
    if gw.numel() != 0 {
        // dense NCHW (made so above): slices in that order
        crate::iter::dense(&[&gw], &[&xc, &gc], |mut s| {
            match dt {
                DType::Float64 => {
                    kconv::weight_grad::<f64>(s.input(0)?, s.input(1)?, s.out(0)?, &geom)
                }
                _ => kconv::weight_grad::<f32>(s.input(0)?, s.input(1)?, s.out(0)?, &geom),
            }
            Ok(())
        })?;
    }
    Ok(Some(gw))
}

// ------------------------------------------------------------------ unfold / fold

/// `F.unfold`'s optional arguments (`dilation=1, padding=0, stride=1`), for [`unfold_with`];
/// from a single value (dilation) or a tuple in PyTorch's order. One int applies to both dims.
#[derive(Clone, Debug, PartialEq)]
pub struct UnfoldOpts {
    pub dilation: IntList,
    pub padding: IntList,
    pub stride: IntList,
}
/// `F.fold`'s optional arguments: the same as [`UnfoldOpts`].
pub type FoldOpts = UnfoldOpts;
impl Default for UnfoldOpts {
    fn default() -> Self {
        UnfoldOpts {
            dilation: 1.into_shape(),
            padding: 0.into_shape(),
            stride: 1.into_shape(),
        }
    }
}
impl<D: IntoShape> From<D> for UnfoldOpts {
    fn from(d: D) -> Self {
        UnfoldOpts {
            dilation: d.into_shape(),
            ..Default::default()
        }
    }
}
impl<D: IntoShape, P: IntoShape> From<(D, P)> for UnfoldOpts {
    fn from((d, p): (D, P)) -> Self {
        UnfoldOpts {
            dilation: d.into_shape(),
            padding: p.into_shape(),
            ..Default::default()
        }
    }
}
impl<D: IntoShape, P: IntoShape, S: IntoShape> From<(D, P, S)> for UnfoldOpts {
    fn from((d, p, s): (D, P, S)) -> Self {
        UnfoldOpts {
            dilation: d.into_shape(),
            padding: p.into_shape(),
            stride: s.into_shape(),
        }
    }
}

/// The window of `F.unfold` / `F.fold` (its lists paired, not yet checked).
fn window(kernel_size: &IntList, o: &UnfoldOpts) -> Result<Window2> {
    Window2::new(kernel_size, &o.dilation, &o.padding, &o.stride)
}

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

fn unfold_impl(input: &Tensor, kernel_size: &IntList, o: &UnfoldOpts) -> Result<Tensor> {
    let win = window(kernel_size, o)?;
    let (bh, bw) = gc::unfold_blocks(input.size(), &win)?;
    let nd = input.dim();
    let x = if nd == 3 {
        input.unsqueeze(0)?
    } else {
        input.alias()
    };
    let (h, w) = (x.size()[2] as i64, x.size()[3] as i64);
    let Window2 { k, d, p, s } = win;
    let dt = input.dtype();
    if !dt.is_floating_point() {
        return Err(Error::not_implemented(format!(
            "\"im2col_out_cpu\" not implemented for '{}'",
            dt.scalar_type_name()
        )));
    }
    let (n, c) = (x.size()[0], x.size()[1]);
    let (ckk, l) = gc::unfold_output(c, &win, bh, bw)?;
    let win = Window {
        img: [1, h as usize, w as usize],
        blk: [1, bh as usize, bw as usize],
        k: [1, k[0] as usize, k[1] as usize],
        stride: [1, s[0] as usize, s[1] as usize],
        pad: [0, p[0] as usize, p[1] as usize],
        dil: [1, d[0] as usize, d[1] as usize],
    };
    let out_sizes = [n, ckk, l];
    let cd = if dt == DType::Float64 {
        DType::Float64
    } else {
        DType::Float32
    };
    let xc = dense_as(&x, &contiguous_strides(x.size()), cd)?;
    let y = Tensor::try_alloc_contiguous(&out_sizes, cd)?;
    if y.numel() != 0 {
        // contiguous (made so above): slices in row-major order
        crate::iter::dense(&[&y], &[&xc], |mut s| {
            match cd {
                DType::Float64 => kconv::unfold::<f64>(s.input(0)?, s.out(0)?, n, c, &win),
                _ => kconv::unfold::<f32>(s.input(0)?, s.out(0)?, n, c, &win),
            }
            Ok(())
        })?;
    }
    let y = if cd == dt { y } else { y.to(dt)? };
    if nd == 3 { y.squeeze_dim(0) } else { Ok(y) }
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

fn fold_impl(
    input: &Tensor,
    output_size: &IntList,
    kernel_size: &IntList,
    o: &FoldOpts,
) -> Result<Tensor> {
    let os = gc::pair(output_size, "output_size")?;
    let win = window(kernel_size, o)?;
    let (c, bh, bw) = gc::fold_blocks(input.size(), os, &win)?;
    let nd = input.dim();
    let x = if nd == 2 {
        input.unsqueeze(0)?
    } else {
        input.alias()
    };
    let Window2 { k, d, p, s } = win;
    let dt = input.dtype();
    if !dt.is_floating_point() {
        return Err(Error::not_implemented(format!(
            "\"col2im_out_cpu\" not implemented for '{}'",
            dt.scalar_type_name()
        )));
    }
    let n = x.size()[0];
    let win = Window {
        img: [1, os[0] as usize, os[1] as usize],
        blk: [1, bh as usize, bw as usize],
        k: [1, k[0] as usize, k[1] as usize],
        stride: [1, s[0] as usize, s[1] as usize],
        pad: [0, p[0] as usize, p[1] as usize],
        dil: [1, d[0] as usize, d[1] as usize],
    };
    let cd = if dt == DType::Float64 {
        DType::Float64
    } else {
        DType::Float32
    };
    let xc = dense_as(&x, &contiguous_strides(x.size()), cd)?;
    let out_sizes = [n, c, os[0] as usize, os[1] as usize];
    let y = Tensor::try_alloc_contiguous(&out_sizes, cd)?;
    if y.numel() != 0 {
        // contiguous (made so above): slices in row-major order
        crate::iter::dense(&[&y], &[&xc], |mut s| {
            match cd {
                DType::Float64 => kconv::fold::<f64>(s.input(0)?, s.out(0)?, n, c, &win),
                _ => kconv::fold::<f32>(s.input(0)?, s.out(0)?, n, c, &win),
            }
            Ok(())
        })?;
    }
    let y = if cd == dt { y } else { y.to(dt)? };
    if nd == 2 { y.squeeze_dim(0) } else { Ok(y) }
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
