//! Padding, pixel shuffling and interpolation, the forward functions (the public functions
//! and their recording are in `crate::optable::resample`): `F.pad` (constant, where negative
//! widths crop; reflect; replicate; circular), `F.pixel_shuffle` / `F.pixel_unshuffle`, with
//! PyTorch's checks, messages and output layouts (channel blocks to spatial blocks and back
//! by one strided copy into an output laid out as `input.suggest_memory_format()` says), and
//! `F.interpolate`'s resampling (separable taps from `crate::geometry::resample`, run by
//! `crate::kernels::pool::resample`; float32 index arithmetic for the nearest modes, the
//! input's opmath type for the others).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::geometry::resample as gr;
use crate::geometry::resample::{Taps, dim_taps, widths};
use crate::kernels::pool::{self as kp, PoolFloat};
use crate::layout::{channels_last_strides, contiguous_strides};
use crate::ops::copy::{copy_unchecked, copy_with_strides};
use crate::ops::shape::{axis_map, gather_axes, identity_maps, reserve_output};
use crate::{Scalar, Tensor};

/// `F.pad`'s optional arguments (`mode='constant', value=None`), for [`pad_with`]: a string
/// is `mode`, a pair `(mode, value)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PadOpts<'a> {
    /// `"constant"`, `"reflect"`, `"replicate"` or `"circular"`.
    pub mode: &'a str,
    /// The fill value of `"constant"` (default 0); other modes refuse a nonzero one.
    pub value: Option<f64>,
}
impl Default for PadOpts<'_> {
    fn default() -> Self {
        PadOpts {
            mode: "constant",
            value: None,
        }
    }
}
impl<'a> From<&'a str> for PadOpts<'a> {
    fn from(mode: &'a str) -> Self {
        PadOpts { mode, value: None }
    }
}
impl<'a> From<(&'a str, f64)> for PadOpts<'a> {
    fn from((mode, value): (&'a str, f64)) -> Self {
        PadOpts {
            mode,
            value: Some(value),
        }
    }
}

/// The forward function of `F.pad(input, pad, mode, value)`: the checks, then the padded
/// copy (errors as `crate::nn::functional::pad_with`).
pub(crate) fn pad_fwd(input: &Tensor, pad: &[i64], o: PadOpts<'_>) -> Result<Tensor> {
    let (mode, nd) = (o.mode, input.dim());
    gr::check_pad(mode, pad, nd)?;
    if mode == "constant" {
        return constant_pad(input, pad, o.value.unwrap_or(0.0));
    }
    gr::check_edge_pad(mode, o.value, pad.len(), nd)?;
    if mode == "circular" {
        circular_pad(input, pad)
    } else {
        edge_pad(input, pad, mode == "reflect")
    }
}

/// The layout `input.suggest_memory_format()` gives a new tensor of `sizes`.
fn suggested_strides(input: &Tensor, sizes: &[usize]) -> Vec<usize> {
    if crate::ops::cat::suggests_channels_last(input) {
        channels_last_strides(sizes)
    } else {
        contiguous_strides(sizes)
    }
}

/// `constant_pad_nd`: crop by negative widths (`narrow`), then copy into a `value`-filled
/// tensor of the padded shape.
fn constant_pad(input: &Tensor, pad: &[i64], value: f64) -> Result<Tensor> {
    let nd = input.dim();
    let lp = pad.len() / 2;
    let ldiff = nd - lp;
    let mut c_input = input.alias();
    let mut all_non_positive = true;
    for i in ldiff..nd {
        let (l, r) = widths(pad, nd - i - 1);
        if l < 0 {
            let sz = c_input.size()[i] as i64;
            c_input = c_input.narrow(i as i64, -l, sz + l)?;
        } else if l != 0 {
            all_non_positive = false;
        }
        if r < 0 {
            let sz = c_input.size()[i] as i64;
            c_input = c_input.narrow(i as i64, 0, sz + r)?;
        } else if r != 0 {
            all_non_positive = false;
        }
    }
    if all_non_positive {
        return c_input.try_clone();
    }
    let shape = gr::constant_pad_sizes(input.size(), pad)?;
    let strides = suggested_strides(input, &shape);
    let out = Tensor::try_alloc(&shape, &strides, input.dtype())?;
    let v = if input.dtype() == crate::DType::Bool {
        Scalar::Bool(value != 0.0)
    } else {
        Scalar::Float(value)
    };
    crate::ops::copy::fill_unchecked(&out, v);
    let mut c_out = out.alias();
    for i in ldiff..nd {
        let (l, r) = widths(pad, nd - i - 1);
        if l > 0 {
            let sz = c_out.size()[i] as i64;
            c_out = c_out.narrow(i as i64, l, sz - l)?;
        }
        if r > 0 {
            let sz = c_out.size()[i] as i64;
            c_out = c_out.narrow(i as i64, 0, sz - r)?;
        }
    }
    if c_input.numel() > 0 {
        copy_unchecked(&c_out, &c_input);
    }
    Ok(out)
}

/// Reflection (`reflect`) or replication padding of the last `pad.len() / 2` dims, with
/// PyTorch's index rule (which also handles negative widths).
fn edge_pad(input: &Tensor, pad: &[i64], reflect: bool) -> Result<Tensor> {
    let k = pad.len() / 2;
    let nd = input.dim();
    let out_sizes = gr::edge_pad_sizes(input.size(), pad, reflect)?;
    // the reflection/replication kernels take every dtype but bool, even for an empty input
    if input.dtype() == DType::Bool {
        let kind = if reflect { "reflection" } else { "replication" };
        return Err(Error::not_implemented_for(
            &format!("{kind}_pad{k}d"),
            DType::Bool,
        ));
    }
    reserve_output(&out_sizes, input.dtype())?;
    let mut maps = identity_maps(input)?;
    for j in 0..k {
        let (l, _) = widths(pad, j);
        let d = nd - 1 - j;
        let size = input.size()[d];
        maps[d] = axis_map(out_sizes[d], |o| gr::edge_source(o, l, size, reflect))?;
    }
    let out = gather_axes(input, &maps)?;
    let strides = suggested_strides(input, out.size());
    if strides == contiguous_strides(out.size()) {
        Ok(out)
    } else {
        copy_with_strides(&out, &strides, out.dtype())
    }
}

/// `_pad_circular`: element `o` of a padded dim is `input[(o - left) mod size]`.
fn circular_pad(input: &Tensor, pad: &[i64]) -> Result<Tensor> {
    let k = pad.len() / 2;
    let nd = input.dim();
    let out_sizes = gr::circular_pad_sizes(input.size(), pad)?;
    reserve_output(&out_sizes, input.dtype())?;
    let mut maps = identity_maps(input)?;
    for i in 0..k {
        let d = nd - k + i;
        let (l, _) = widths(pad, k - i - 1);
        let size = input.size()[d];
        maps[d] = axis_map(out_sizes[d], |o| gr::circular_source(o, l, size))?;
    }
    gather_axes(input, &maps)
}

/// The output strides of `sizes` for `input`'s suggested memory format, or PyTorch's kernel
/// refusal for a channels-last-3d (5-d) one.
fn out_strides(input: &Tensor, sizes: &[usize]) -> Result<Vec<usize>> {
    if crate::ops::cat::suggests_channels_last(input) {
        if input.dim() == 5 {
            return Err(Error::runtime(
                "Unsupported memory format. Supports only ChannelsLast, Contiguous",
            ));
        }
        Ok(channels_last_strides(sizes))
    } else {
        Ok(contiguous_strides(sizes))
    }
}

pub(crate) fn pixel_shuffle_fwd(input: &Tensor, r: i64) -> Result<Tensor> {
    let nd = input.dim();
    if nd < 3 {
        return Err(Error::runtime(format!(
            "pixel_shuffle expects input to have at least 3 dimensions, but got input with {nd} dimension(s)"
        )));
    }
    if r <= 0 {
        return Err(Error::runtime(format!(
            "pixel_shuffle expects a positive upscale_factor, but got {r}"
        )));
    }
    let rr = r.checked_mul(r).ok_or_else(|| {
        Error::value(format!(
            "upscale factor is too large, (upscale_factor)^2 overflowed: upscale_factor={r}"
        ))
    })?;
    let c = input.size()[nd - 3] as i64;
    if c % rr != 0 {
        return Err(Error::runtime(format!(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {rr}"
        )));
    }
    let r = r as usize;
    let (h, w) = (input.size()[nd - 2], input.size()[nd - 1]);
    let oc = c as usize / (r * r);
    // H·r and W·r are bounded by no allocation (beside zero channels, H·C is no bound on H)
    let up = |n: usize, what: &str| {
        n.checked_mul(r)
            .filter(|&v| v <= i64::MAX as usize)
            .ok_or_else(|| {
                Error::runtime(format!(
                    "pixel_shuffle: the output {what} {n} * {r} overflows int64"
                ))
            })
    };
    let mut sizes = input.size()[..nd - 3].to_vec();
    sizes.extend([oc, up(h, "height")?, up(w, "width")?]);
    let strides = out_strides(input, &sizes)?;
    let out = Tensor::try_alloc(&sizes, &strides, input.dtype())?;
    if out.numel() == 0 {
        return Ok(out);
    }
    // both as (*, oc, i, j, h, w): the input's channel splits into (oc, i, j), the output's
    // rows and columns into (h, i) and (w, j)
    let (ist, ost) = (input.stride(), out.stride());
    let l = nd - 3;
    let (ic, oh, ow) = (ist[l], ost[l + 1], ost[l + 2]);
    copy_blocks(
        input,
        &out,
        [oc, r, r, h, w],
        [ic * r * r, ic * r, ic, ist[l + 1], ist[l + 2]],
        [ost[l], oh, ow, oh * r, ow * r],
    );
    Ok(out)
}

pub(crate) fn pixel_unshuffle_fwd(input: &Tensor, r: i64) -> Result<Tensor> {
    let nd = input.dim();
    if nd < 3 {
        return Err(Error::runtime(format!(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input with {nd} dimension(s)"
        )));
    }
    if r <= 0 {
        return Err(Error::runtime(format!(
            "pixel_unshuffle expects a positive downscale_factor, but got {r}"
        )));
    }
    let (h, w) = (input.size()[nd - 2] as i64, input.size()[nd - 1] as i64);
    if h % r != 0 {
        return Err(Error::runtime(format!(
            "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} is not divisible by {r}"
        )));
    }
    if w % r != 0 {
        return Err(Error::runtime(format!(
            "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} is not divisible by {r}"
        )));
    }
    let r = r as usize;
    let (oh, ow) = (h as usize / r, w as usize / r);
    let c = input.size()[nd - 3];
    let mut sizes = input.size()[..nd - 3].to_vec();
    // c * r * r ≤ numel unless another dim is 0; then it wraps as PyTorch's int64 does
    sizes.extend([c.wrapping_mul(r).wrapping_mul(r), oh, ow]);
    if let Some(&bad) = sizes.iter().find(|&&n| n > i64::MAX as usize) {
        let shown: Vec<i64> = sizes.iter().map(|&n| n as i64).collect();
        return Err(Error::runtime(format!(
            "Trying to create tensor with negative dimension {}: {}",
            bad as i64,
            crate::error::fmt_list(&shown)
        )));
    }
    let strides = out_strides(input, &sizes)?;
    let out = Tensor::try_alloc(&sizes, &strides, input.dtype())?;
    if out.numel() == 0 {
        return Ok(out);
    }
    // both as (*, c, i, j, oh, ow): the input's rows and columns split into (oh, i) and
    // (ow, j), the output's channel into (c, i, j)
    let (ist, ost) = (input.stride(), out.stride());
    let l = nd - 3;
    let (ih, iw, oc) = (ist[l + 1], ist[l + 2], ost[l]);
    copy_blocks(
        input,
        &out,
        [c, r, r, oh, ow],
        [ist[l], ih, iw, ih * r, iw * r],
        [oc * r * r, oc * r, oc, ost[l + 1], ost[l + 2]],
    );
    Ok(out)
}

/// The one strided copy of pixel (un)shuffling: `input` and `out` (of rank `nd >= 3`) seen as
/// `(*, c, i, j, h, w)`, the leading dims as they are and the last three split by `block`
/// sizes with strides `in5` and `out5` (elements).
fn copy_blocks(input: &Tensor, out: &Tensor, block: [usize; 5], in5: [usize; 5], out5: [usize; 5]) {
    let l = input.dim() - 3;
    let mut sizes = input.size()[..l].to_vec();
    sizes.extend(block);
    let mut is = input.stride()[..l].to_vec();
    is.extend(in5);
    let mut os = out.stride()[..l].to_vec();
    os.extend(out5);
    let src = input.view_with(sizes.clone(), is, input.storage_offset());
    let dst = out.view_with(sizes, os, 0);
    copy_unchecked(&dst, &src);
}

/// `F.interpolate`'s resampling (its `upsample_*` ops) of `input`'s spatial dims to `outs`
/// (the plan `crate::geometry::resample::interpolate_sizes` gave: `scales` for the source
/// indices, `align` the corners): a fresh tensor of `input`'s dtype, channels-last when
/// `input` suggests it. Records nothing. Errors: NotImplementedError `"upsample_bilinear"
/// not implemented for 'Long'` (any non-float dtype but uint8 in the nearest modes); `numel: integer multiplication
/// overflow`; `Stride calculation overflowed`; the allocator's error.
pub(crate) fn interpolate_fwd(
    input: &Tensor,
    mode: &str,
    outs: &[usize],
    scales: &Option<Vec<f64>>,
    align: bool,
) -> Result<Tensor> {
    let nd = input.dim();
    let spatial: Vec<usize> = input.size().get(2..).unwrap_or(&[]).to_vec();
    let k = spatial.len();
    let dt = input.dtype();
    // the float dtypes; uint8 too for the nearest modes (selection only, exact through
    // float32). PyTorch's uint8 bilinear/bicubic kernels (integer-weight, 2-d only) are not
    // here: they are refused like the other integer dtypes.
    if !(dt.is_floating_point() || (dt == DType::UInt8 && mode.starts_with("nearest"))) {
        return Err(Error::not_implemented_for(&format!("upsample_{mode}"), dt));
    }
    let mut sizes = input.size()[..2].to_vec();
    sizes.extend_from_slice(outs);
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
        dt: DType,
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
            if matches!(dt, DType::Float16 | DType::BFloat16) {
                let r = |w: T| T::of(crate::element::round_to(dt, w.f64()));
                gr::round_weights(&mut taps[3 - k + j], mode, r);
            }
        }
        if src.dtype() == T::DTYPE && src.is_contiguous() {
            // read in place, into a fresh (pooled) output: no copy of the input
            let (out, ()) = crate::iter::dense_new(&[numel], T::DTYPE, &[src], |mut s| {
                let xs = s.input::<T>(0)?;
                let o = s.out::<T>(0)?;
                kp::resample(xs, o, sizes[0], sizes[1], ins3, outs3, &taps, cl);
                Ok(())
            })?;
            return Ok(out);
        }
        let xs = src.try_to_vec::<T>()?;
        let mut out = crate::error::try_filled(T::ZERO, numel)?;
        kp::resample(&xs, &mut out, sizes[0], sizes[1], ins3, outs3, &taps, cl);
        Tensor::from_vec(out, [numel])
    }
    let flat = match dt {
        DType::Float64 => go::<f64>(
            dt, &src, numel, &sizes, ins3, outs3, mode, align, scales, cl,
        )?,
        _ => go::<f32>(
            dt, &src, numel, &sizes, ins3, outs3, mode, align, scales, cl,
        )?,
    };
    let out = flat.view_with(sizes.clone(), strides.clone(), 0);
    if dt != out.dtype() {
        copy_with_strides(&out, &strides, dt)
    } else {
        Ok(out)
    }
}
