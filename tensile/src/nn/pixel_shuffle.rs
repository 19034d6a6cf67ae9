//! `F.pixel_shuffle` / `F.pixel_unshuffle` (also `torch.pixel_shuffle`,
//! `torch.pixel_unshuffle`): channel blocks to spatial blocks and back, by one strided copy
//! into an output laid out as `input.suggest_memory_format()` says.

use crate::Tensor;
use crate::args::Int;
use crate::error::{Error, Result};
use crate::layout::{channels_last_strides, contiguous_strides};

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
    let out = pixel_shuffle_impl(input, r)?;
    crate::autograd::formulas::resample::pixel_shuffle(out, input, r, true)
}

fn pixel_shuffle_impl(input: &Tensor, r: i64) -> Result<Tensor> {
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
    // both as (*, oc, i, j, h, w)
    let lead = nd - 3;
    let ist = input.stride();
    let mut isz = input.size()[..lead].to_vec();
    let mut is = ist[..lead].to_vec();
    isz.extend([oc, r, r, h, w]);
    is.extend([
        ist[lead] * r * r,
        ist[lead] * r,
        ist[lead],
        ist[lead + 1],
        ist[lead + 2],
    ]);
    let mut os = strides[..lead].to_vec();
    os.extend([
        strides[lead],
        strides[lead + 1],
        strides[lead + 2],
        strides[lead + 1] * r,
        strides[lead + 2] * r,
    ]);
    let src = input.view_with(isz.clone(), is, input.storage_offset());
    let dst = out.view_with(isz, os, 0);
    crate::ops::copy::copy_unchecked(&dst, &src);
    Ok(out)
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
    let out = pixel_unshuffle_impl(input, r)?;
    crate::autograd::formulas::resample::pixel_shuffle(out, input, r, false)
}

fn pixel_unshuffle_impl(input: &Tensor, r: i64) -> Result<Tensor> {
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
    // both as (*, c, i, j, oh, ow)
    let lead = nd - 3;
    let ist = input.stride();
    let mut isz = input.size()[..lead].to_vec();
    let mut is = ist[..lead].to_vec();
    isz.extend([c, r, r, oh, ow]);
    is.extend([
        ist[lead],
        ist[lead + 1],
        ist[lead + 2],
        ist[lead + 1] * r,
        ist[lead + 2] * r,
    ]);
    let mut os = strides[..lead].to_vec();
    os.extend([
        strides[lead] * r * r,
        strides[lead] * r,
        strides[lead],
        strides[lead + 1],
        strides[lead + 2],
    ]);
    let src = input.view_with(isz.clone(), is, input.storage_offset());
    let dst = out.view_with(isz, os, 0);
    crate::ops::copy::copy_unchecked(&dst, &src);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
