//! `torch.nn.functional.pad`: constant (negative widths crop), reflect, replicate and
//! circular padding of the last dims, with PyTorch's checks, messages and output layouts.

use crate::args::IntoShape;
use crate::error::Result;
use crate::geometry::resample as gr;
use crate::geometry::resample::widths;
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
/// with possibly 0 batch size and other non-zero dimensions for input, but got: [2, 0]`;
/// circular: `Padding value causes wrapping around more than once.`, `Negative padding value
/// is resulting in an empty dimension`.
pub fn pad_with<'a>(
    input: &Tensor,
    pad: impl IntoShape,
    opts: impl Into<PadOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let pad = pad.into_shape();
    let mode = o.mode;
    let nd = input.dim();
    gr::check_pad(mode, &pad, nd)?;
    if mode == "constant" {
        let rec = crate::autograd::api::any_requires_grad(&[input]);
        let out = {
            let _ng = rec.then(crate::autograd::no_grad);
            constant_pad(input, &pad, o.value.unwrap_or(0.0))?
        };
        if !rec {
            return Ok(out);
        }
        return crate::autograd::formulas::resample::constant_pad(out, input, &pad);
    }
    gr::check_edge_pad(mode, o.value, pad.len(), nd)?;
    let rec = crate::autograd::api::any_requires_grad(&[input]);
    let out = {
        let _ng = rec.then(crate::autograd::no_grad);
        if mode == "circular" {
            circular_pad(input, &pad)?
        } else {
            edge_pad(input, &pad, mode == "reflect")?
        }
    };
    if !rec {
        return Ok(out);
    }
    crate::autograd::formulas::resample::edge_pad(out, input, &pad, mode)
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
}
