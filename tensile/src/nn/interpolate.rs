//! `F.interpolate`: nearest, nearest-exact, linear, bilinear, bicubic and trilinear
//! resampling of the spatial dims of `(N, C, *spatial)` tensors, with PyTorch's argument
//! checks, output sizes, source-index rules (float32 index arithmetic for the nearest modes,
//! the input's opmath type for the others) and output memory format.

use crate::Tensor;
use crate::error::{Error, Result};
use crate::geometry::resample::{Interpolation, Taps, dim_taps, interpolate_sizes};
use crate::kernels::pool::{self as kp, PoolFloat};
use crate::layout::{channels_last_strides, contiguous_strides};
use crate::{DType, args::IntList};

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
                3 => crate::nn::pool::adaptive_avg_pool1d(input, &os[..]),
                4 => crate::nn::pool::adaptive_avg_pool2d(input, &os[..]),
                _ => Err(Error::not_implemented("adaptive_avg_pool3d")),
            };
        }
        Interpolation::Resample {
            outs,
            scales,
            align,
        } => (outs, scales, align),
    };
    let k = spatial.len();
    let dt = input.dtype();
    if !dt.is_floating_point() {
        return Err(Error::not_implemented(format!(
            "\"upsample_{mode}\" not implemented for '{}'",
            dt.scalar_type_name()
        )));
    }
    let mut sizes = input.size()[..2].to_vec();
    sizes.extend_from_slice(&outs);
    let numel = sizes
        .iter()
        .try_fold(1usize, |a, &s| a.checked_mul(s))
        .ok_or_else(|| Error::runtime("numel: integer multiplication overflow"))?;
    if numel == 0 {
        // PyTorch's `empty` of the output: its strides must fit (`Stride calculation
        // overflowed` for an empty batch beside sizes whose product passes int64)
        Tensor::try_alloc_contiguous(&sizes, dt)?;
    }
    let cl = crate::ops::cat::suggests_channels_last(input);
    let strides = if cl {
        channels_last_strides(&sizes)
    } else {
        contiguous_strides(&sizes)
    };
    let src = if cl {
        let mut perm: Vec<i64> = vec![0];
        perm.extend(2..nd as i64);
        perm.push(1);
        input.permute(perm)?
    } else {
        input.alias()
    };
    let mut ins3 = [1usize; 3];
    let mut outs3 = [1usize; 3];
    for j in 0..k {
        ins3[3 - k + j] = spatial[j];
        outs3[3 - k + j] = outs[j];
    }
    #[allow(clippy::too_many_arguments)]
    fn go<T: PoolFloat + crate::element::Element>(
        src: &Tensor,
        numel: usize,
        sizes: &[usize],
        ins3: [usize; 3],
        outs3: [usize; 3],
        mode: &str,
        align: bool,
        scales: &Option<Vec<f64>>,
        cl: bool,
    ) -> Result<Tensor> {
        if numel == 0 {
            // an empty batch or channel dim: no taps (an output size near 2^62 would not
            // hold them), as PyTorch's empty result
            return Tensor::from_vec(Vec::<T>::new(), [0usize]);
        }
        let k = sizes.len() - 2;
        let mut taps: [Vec<Taps<T>>; 3] = [
            vec![vec![(0, T::of(1.0))]],
            vec![vec![(0, T::of(1.0))]],
            vec![vec![(0, T::of(1.0))]],
        ];
        for j in 0..k {
            let s = scales.as_ref().map(|f| f[j]);
            taps[3 - k + j] =
                dim_taps::<T>(mode, ins3[3 - k + j], outs3[3 - k + j], align, s, k == 2)?;
        }
        let xs = src.try_to_vec::<T>()?;
        let mut out = crate::error::try_filled(T::ZERO, numel)?;
        kp::resample(&xs, &mut out, sizes[0], sizes[1], ins3, outs3, &taps, cl);
        Tensor::from_vec(out, [numel])
    }
    let rec = crate::autograd::api::any_requires_grad(&[input]);
    let out = {
        let _ng = rec.then(crate::autograd::no_grad);
        let flat = match dt {
            DType::Float64 => {
                go::<f64>(&src, numel, &sizes, ins3, outs3, mode, align, &scales, cl)?
            }
            _ => go::<f32>(&src, numel, &sizes, ins3, outs3, mode, align, &scales, cl)?,
        };
        let out = flat.view_with(sizes.clone(), strides.clone(), 0);
        if dt != out.dtype() {
            crate::ops::copy::copy_with_strides(&out, &strides, dt)?
        } else {
            out
        }
    };
    if !rec {
        return Ok(out);
    }
    let r = crate::autograd::formulas::resample::Resample {
        mode: mode.to_string(),
        ins: spatial.clone(),
        outs: outs.clone(),
        align,
        scales: scales.clone(),
        float64: dt == DType::Float64,
    };
    crate::autograd::formulas::resample::interpolate(out, input, r)
}

#[cfg(test)]
mod tests {
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
