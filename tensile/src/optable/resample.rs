//! Padding, pixel shuffling and interpolation ([`ResampleId`]): `F.pad`, `F.pixel_shuffle`,
//! `F.pixel_unshuffle`, `F.interpolate`. The forward functions are [`crate::ops::resample`]'s;
//! the derivatives are `autograd/formulas/resample.rs`'s (`ConstantPadNdBackward0`, the edge
//! pads' backward nodes, `PixelShuffleBackward0`/`PixelUnshuffleBackward0`, the
//! `Upsample*Backward0` nodes); `F.interpolate`'s `area` mode is adaptive average pooling.

use crate::args::{Int, IntoShape};
use crate::autograd::api::any_requires_grad;
use crate::autograd::formulas::resample::{
    Resample, constant_pad as constant_pad_node, edge_pad as edge_pad_node,
    interpolate as interpolate_node, pixel_shuffle as pixel_shuffle_node,
};
use crate::autograd::no_grad;
use crate::error::Result;
use crate::geometry::resample::{Interpolation, interpolate_sizes};
pub use crate::ops::resample::PadOpts;
use crate::ops::resample::{interpolate_fwd, pad_fwd, pixel_shuffle_fwd, pixel_unshuffle_fwd};
use crate::tensor::Tensor;
use crate::{DType, args::IntList};

op_ids! {
    /// A padding or pixel-shuffle op (see [`crate::OpId`]).
    pub enum ResampleId {
        /// [`pad_with`]
        Pad = "pad" ["pad", "pad_with"],
        /// [`pixel_shuffle`]
        PixelShuffle = "pixel_shuffle" ["pixel_shuffle"],
        /// [`pixel_unshuffle`]
        PixelUnshuffle = "pixel_unshuffle" ["pixel_unshuffle"],
        /// [`interpolate_with`]
        Interpolate = "interpolate" ["interpolate", "interpolate_with"],
    }
}

/// `F.pad(input, pad)`: constant padding with zeros; see [`pad_with`].
pub fn pad(input: &Tensor, pad: impl IntoShape) -> Result<Tensor> {
    pad_with(input, pad, PadOpts::default())
}

/// `F.pad(input, pad, mode, value)`: pads the last `pad.len() / 2` dims, `pad` listing
/// `(left, right)` widths from the last dim backwards (`[1, 2]` adds 1 before and 2 after
/// along the last dim).
///
/// * `constant`: new elements are `value` (cast to the dtype); negative widths crop.
///   Output laid out as `input` suggests (channels-last stays channels-last).
/// * `reflect`: mirrored without repeating the edge (`[a, b, c]` by 2 → `c b a b c b a`);
///   widths below the dim's size. `replicate`: the edge repeated. Both pad the last 1, 2 or
///   3 dims of a 2-3, 3-4 or 4-5-d input (`pad` of 2, 4, 6 entries); output as `input`
///   suggests. `circular`: wraps around (widths at most the size); contiguous output.
///
/// dtype: `input`'s.
///
/// Errors: NotImplementedError `Unrecognised padding mode foo`; RuntimeError `Padding
/// length must be divisible by 2`; `Padding length should be less than or equal to two times
/// the input dimension but got padding length 2 and input of dimension 0`; `Padding mode
/// "reflect" doesn't take in value argument`; NotImplementedError `Padding size 2 is not
/// supported for 4D input tensor.` (followed by PyTorch's list of supported combinations);
/// constant: `narrow(): length must be non-negative.`, `The input size 3, plus negative
/// padding -2 and -2 resulted in a negative output size, which is invalid. Check dimension 1
/// of your input.`; reflect/replicate: `Argument #4: Padding size should be less than the
/// corresponding input dimension, but got: padding (3, 1) at dimension 1 of input [2, 3]`,
/// `input (W: 3) is too small. Calculated output W: -1`, `Calculated output H: 2 W: -1 must
/// be >= 1 in every dimension (input H: 2, W: 3)`, `Expected 2D or 3D (batch mode) tensor
/// with possibly 0 batch size and other non-zero dimensions for input, but got: [2, 0]`,
/// NotImplementedError `"replication_pad2d" not implemented for 'Bool'` (likewise
/// `reflection_pad1d`…; bool pads only as constant or circular); circular: `Padding value causes wrapping around more than once.`, `Negative padding value
/// is resulting in an empty dimension`.
pub fn pad_with<'a>(
    input: &Tensor,
    pad: impl IntoShape,
    opts: impl Into<PadOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let pad = pad.into_shape();
    let rec = any_requires_grad(&[input]);
    let out = {
        // the forward function's narrow/clone are not recorded
        let _ng = rec.then(no_grad);
        pad_fwd(input, &pad, o)?
    };
    if !rec {
        return Ok(out);
    }
    if o.mode == "constant" {
        constant_pad_node(out, input, &pad)
    } else {
        edge_pad_node(out, input, &pad, o.mode)
    }
}

/// `F.pixel_shuffle(input, upscale_factor)`: `(*, C·r², H, W)` → `(*, C, H·r, W·r)` with
/// `out[..., c, h·r + i, w·r + j] = input[..., c·r² + i·r + j, h, w]`. Any dtype, kept; a
/// channels-last 4-d input gives a channels-last output.
///
/// Errors (RuntimeError): `pixel_shuffle expects input to have at least 3 dimensions, but
/// got input with 2 dimension(s)`; `pixel_shuffle expects a positive upscale_factor, but got
/// 0`; `pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of
/// upscale_factor, but input.size(-3)=5 is not divisible by 4`; a 5-d input with
/// channels-last-3d strides: `Unsupported memory format. Supports only ChannelsLast,
/// Contiguous`; `pixel_shuffle: the output height 4611686018427387904 * 2 overflows int64`
/// (and width) for an input size near 2^62 (possible beside zero channels).
pub fn pixel_shuffle(input: &Tensor, upscale_factor: impl Int) -> Result<Tensor> {
    let r = upscale_factor.to_i64();
    let out = pixel_shuffle_fwd(input, r)?;
    pixel_shuffle_node(out, input, r, true)
}

/// `F.pixel_unshuffle(input, downscale_factor)`: the inverse of [`pixel_shuffle`], `(*, C,
/// H·r, W·r)` → `(*, C·r², H, W)`. Any dtype, kept; channels-last in, channels-last out.
///
/// Errors (RuntimeError): `pixel_unshuffle expects input to have at least 3 dimensions, but
/// got input with 2 dimension(s)`; `pixel_unshuffle expects a positive downscale_factor, but
/// got 0`; `pixel_unshuffle expects height to be divisible by downscale_factor, but
/// input.size(-2)=3 is not divisible by 2` (and width, `input.size(-1)`); `Unsupported memory
/// format. Supports only ChannelsLast, Contiguous` for a channels-last-3d 5-d input.
pub fn pixel_unshuffle(input: &Tensor, downscale_factor: impl Int) -> Result<Tensor> {
    let r = downscale_factor.to_i64();
    let out = pixel_unshuffle_fwd(input, r)?;
    pixel_shuffle_node(out, input, r, false)
}

/// `F.interpolate`'s optional arguments (`size=None, scale_factor=None, mode='nearest',
/// align_corners=None, recompute_scale_factor=None, antialias=False`), for
/// [`interpolate_with`]. One-element `size`/`scale_factor` lists apply to every spatial dim
/// (PyTorch's single int / float). From a list of ints: `size`; from `(size, mode)`.
#[derive(Clone, Debug, PartialEq)]
pub struct InterpolateOpts<'a> {
    pub size: Option<IntList>,
    pub scale_factor: Option<Vec<f64>>,
    pub mode: &'a str,
    pub align_corners: Option<bool>,
    pub recompute_scale_factor: Option<bool>,
    pub antialias: bool,
}
impl Default for InterpolateOpts<'_> {
    fn default() -> Self {
        InterpolateOpts {
            size: None,
            scale_factor: None,
            mode: "nearest",
            align_corners: None,
            recompute_scale_factor: None,
            antialias: false,
        }
    }
}
impl<S: crate::args::IntoShape> From<S> for InterpolateOpts<'_> {
    fn from(size: S) -> Self {
        InterpolateOpts {
            size: Some(size.into_shape()),
            ..Default::default()
        }
    }
}
impl<'a, S: crate::args::IntoShape> From<(S, &'a str)> for InterpolateOpts<'a> {
    fn from((size, mode): (S, &'a str)) -> Self {
        InterpolateOpts {
            size: Some(size.into_shape()),
            mode,
            ..Default::default()
        }
    }
}

/// `F.interpolate(input, size=...)` with the other arguments at their defaults (nearest);
/// see [`interpolate_with`].
pub fn interpolate(input: &Tensor, size: impl crate::args::IntoShape) -> Result<Tensor> {
    interpolate_with(input, size)
}

/// `F.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor,
/// antialias)`: resamples the spatial dims of a `(N, C, L)`, `(N, C, H, W)` or `(N, C, D, H,
/// W)` tensor to `size`, or to `⌊in·scale_factor⌋` (then the source indices use
/// `1/scale_factor`, unless `recompute_scale_factor`). Modes: `nearest` (source `⌊o·in/out⌋`),
/// `nearest-exact` (`⌊(o + ½)·in/out⌋`), `linear` (3-d), `bilinear` and `bicubic` (4-d,
/// cubic coefficient -0.75, edge-clamped taps), `trilinear` (5-d); `align_corners` maps the
/// corner pixels' centres onto each other. dtype of `input` (float dtypes; float16/bfloat16
/// for the nearest modes); a channels-last 4-d/5-d input gives a channels-last output.
///
/// Errors: ValueError `align_corners option can only be set with the interpolating modes:
/// linear | bilinear | bicubic | trilinear`, `only one of size or scale_factor should be
/// defined`, `either size or scale_factor should be defined`, `Input and output must have the
/// same number of spatial dimensions, but got input with spatial dimensions of [5] and output
/// size of [3, 4]. ...`, `recompute_scale_factor is not meaningful with an explicit size.`;
/// NotImplementedError `Got 5D input, but bilinear mode needs 4D input`, `Input Error: Only
/// 3D, 4D and 5D input Tensors supported (got 3D) for the modes: ... (got bicubic)`;
/// RuntimeError `Input and output sizes should be greater than 0, but got input (H: 1, W: 1)
/// output (H: 3, W: 0)`.
///
/// With an empty batch or channel dim the output is empty (no taps are made); its sizes'
/// strides must fit int64 (`Stride calculation overflowed`).
pub fn interpolate_with<'a>(
    input: &Tensor,
    opts: impl Into<InterpolateOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let mode = o.mode;
    let nd = input.dim();
    let spatial: Vec<usize> = input.size().get(2..).unwrap_or(&[]).to_vec();
    let plan = interpolate_sizes(
        input.size(),
        o.size.as_deref(),
        o.scale_factor.as_deref(),
        mode,
        o.align_corners,
        o.recompute_scale_factor,
        o.antialias,
    )?;
    let (outs, scales, align) = match plan {
        Interpolation::Area(os) => {
            return match nd {
                3 => crate::optable::pool::adaptive_avg_pool1d(input, &os[..]),
                4 => crate::optable::pool::adaptive_avg_pool2d(input, &os[..]),
                _ => crate::optable::pool::adaptive_avg_pool3d(input, &os[..]),
            };
        }
        Interpolation::Resample {
            outs,
            scales,
            align,
        } => (outs, scales, align),
    };
    let rec = any_requires_grad(&[input]);
    let out = {
        // the forward function's permute and copy are not recorded
        let _ng = rec.then(no_grad);
        interpolate_fwd(input, mode, &outs, &scales, align)?
    };
    if !rec {
        return Ok(out);
    }
    let r = Resample {
        mode: mode.to_string(),
        ins: spatial,
        outs,
        align,
        scales,
        float64: input.dtype() == DType::Float64,
    };
    interpolate_node(out, input, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflect_replicate_circular_rules() {
        let x = Tensor::from_vec(vec![1i64, 2, 3], [1, 3]).unwrap();
        let r = pad_with(&x, [2, 2], "reflect").unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![3, 2, 1, 2, 3, 2, 1]);
        let r = pad_with(&x, [2, 1], "replicate").unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![1, 1, 1, 2, 3, 3]);
        let r = pad_with(&x, [1, 2], "circular").unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![3, 1, 2, 3, 1, 2]);
        let r = pad_with(&x, [-1, 1], "reflect").unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![2, 3, 2]);
        let r = pad_with(&x, [-1, 2], ("constant", 7.0)).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![2, 3, 7, 7]);
    }

    #[test]
    fn shuffle_then_unshuffle_is_identity() {
        let x = Tensor::arange(72).unwrap().view([2, 4, 3, 3]).unwrap();
        let y = pixel_shuffle(&x, 2).unwrap();
        assert_eq!(y.size(), &[2, 1, 6, 6]);
        // out[0, 0, 0, 1] = in[0, 1, 0, 0]
        assert_eq!(y.to_vec::<i64>()[1], 9);
        let z = pixel_unshuffle(&y, 2).unwrap();
        assert_eq!(z.to_vec::<i64>(), x.to_vec::<i64>());
    }

    /// Found by the fuzzer: `H·r` of an input size near 2^62 overflowed.
    #[test]
    fn output_sizes_past_int64_are_errors() {
        // zero channels: 0 is divisible by r², and H·C is no bound on H
        let x = Tensor::zeros([0usize, 1 << 62, 1]).unwrap();
        let e = pixel_shuffle(&x, 2).unwrap_err();
        assert_eq!(
            e.message(),
            "pixel_shuffle: the output height 4611686018427387904 * 2 overflows int64"
        );
    }
}

#[cfg(test)]
mod interpolate_tests {
    use super::*;

    /// Found by audit: an output size near 2^62 beside an empty batch collected 2^62 lists
    /// of taps (capacity overflow).
    #[test]
    fn empty_batch_with_huge_output_size() {
        let x = Tensor::zeros([0, 1, 1, 1]).unwrap();
        for mode in ["nearest", "bilinear", "bicubic"] {
            let o = InterpolateOpts {
                size: Some(IntList::from_slice(&[1 << 62, 1])),
                mode,
                ..Default::default()
            };
            let y = interpolate_with(&x, o).unwrap();
            assert_eq!(y.size(), &[0, 1, 1 << 62, 1]);
            let o = InterpolateOpts {
                size: Some(IntList::from_slice(&[1 << 62, 1 << 62])),
                mode,
                ..Default::default()
            };
            assert!(interpolate_with(&x, o).is_err());
        }
    }
}
