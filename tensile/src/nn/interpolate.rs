//! `F.interpolate`: nearest, nearest-exact, linear, bilinear, bicubic and trilinear
//! resampling of the spatial dims of `(N, C, *spatial)` tensors, with PyTorch's argument
//! checks, output sizes, source-index rules (float32 index arithmetic for the nearest modes,
//! the input's opmath type for the others) and output memory format.

use crate::Tensor;
use crate::error::{Error, Result, fmt_list};
use crate::kernels::pool::{self as kp, PoolFloat, Taps};
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

/// A Python float's `repr` (`2.0`, `0.75`).
fn py_float(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// `compute_scales_value`: `1 / scale` when a positive scale was given, else `in / out`.
fn scales_value<T: PoolFloat>(scale: Option<f64>, input: usize, output: usize) -> T {
    match scale {
        Some(s) if s > 0.0 => T::of(1.0 / s),
        _ => T::of_usize(input) / T::of_usize(output),
    }
}

/// `nearest_idx` (`exact`: `nearest_exact_idx`): the source index of output `o`, computed in
/// float32 as PyTorch does (whatever the data's dtype). `shortcut`: the 2-d kernels' rule
/// that equal sizes map `o` to `o` and doubled sizes to `o / 2` even when a scale factor
/// says otherwise (PyTorch's 1-d and 3-d nearest kernels always use the scale).
pub(crate) fn nearest_source(
    o: usize,
    input: usize,
    output: usize,
    scale: Option<f64>,
    exact: bool,
    shortcut: bool,
) -> usize {
    if !exact && shortcut {
        if output == input {
            return o;
        }
        if output == 2 * input {
            return o >> 1;
        }
    }
    let s: f32 = scales_value::<f32>(scale, input, output);
    let v = if exact {
        (((o as f64) + 0.5) * s as f64) as f32
    } else {
        o as f32 * s
    };
    (v.floor() as i64).min(input as i64 - 1).max(0) as usize
}

/// `area_pixel_compute_scale`.
fn area_scale<T: PoolFloat>(input: usize, output: usize, align: bool, scale: Option<f64>) -> T {
    if align {
        if output > 1 {
            T::of_usize(input - 1) / T::of_usize(output - 1)
        } else {
            T::ZERO
        }
    } else {
        scales_value(scale, input, output)
    }
}

/// `area_pixel_compute_source_index`.
fn area_source<T: PoolFloat>(scale: T, o: usize, align: bool, cubic: bool) -> T {
    if align {
        scale * T::of_usize(o)
    } else {
        let s = scale * (T::of_usize(o) + T::of(0.5)) - T::of(0.5);
        if !cubic && s < T::ZERO { T::ZERO } else { s }
    }
}

/// `guard_index_and_lambda`: `(min(⌊real⌋, in - 1), clamp(real - index, 0, 1))`.
fn guard<T: PoolFloat>(real: T, input: usize) -> (i64, T) {
    let i = (real.floor().f64() as i64).min(input as i64 - 1);
    let mut l = real - T::of(i as f64);
    if l < T::ZERO {
        l = T::ZERO;
    }
    if l > T::of(1.0) {
        l = T::of(1.0);
    }
    (i, l)
}

/// The taps of every output index of one dim for `mode`.
///
/// Error: PyTorch's allocator error when `output` lists of taps cannot be held (an
/// `output` near 2^62, possible beside an empty batch).
pub(crate) fn dim_taps<T: PoolFloat>(
    mode: &str,
    input: usize,
    output: usize,
    align: bool,
    scale: Option<f64>,
    shortcut: bool,
) -> Result<Vec<Taps<T>>> {
    let mut v = crate::kernels::cast::try_vec(output)?;
    let one = T::of(1.0);
    match mode {
        "nearest" | "nearest-exact" => v.extend((0..output).map(|o| {
            vec![(
                nearest_source(o, input, output, scale, mode == "nearest-exact", shortcut),
                one,
            )]
        })),
        "bicubic" => {
            let ratio: T = area_scale(input, output, align, scale);
            let a = T::of(-0.75);
            let c1 = |x: T| ((a + T::of(2.0)) * x - (a + T::of(3.0))) * x * x + one;
            let c2 = |x: T| ((a * x - T::of(5.0) * a) * x + T::of(8.0) * a) * x - T::of(4.0) * a;
            v.extend((0..output).map(|o| {
                let real = area_source(ratio, o, align, true);
                let (i, t) = guard(real, input);
                let x2 = one - t;
                let w = [c2(t + one), c1(t), c1(x2), c2(x2 + one)];
                (0..4)
                    .map(|j| {
                        let at = (i - 1 + j as i64).min(input as i64 - 1).max(0) as usize;
                        (at, w[j])
                    })
                    .collect()
            }))
        }
        _ => {
            let ratio: T = area_scale(input, output, align, scale);
            v.extend((0..output).map(|o| {
                if input == output {
                    return vec![(o, one)];
                }
                let real = area_source(ratio, o, align, false);
                let (i0, l1) = guard(real, input);
                let i1 = if i0 < input as i64 - 1 { i0 + 1 } else { i0 };
                vec![(i0 as usize, one - l1), (i1 as usize, l1)]
            }))
        }
    }
    Ok(v)
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
    let nearest = matches!(mode, "nearest" | "area" | "nearest-exact");
    if nearest && o.align_corners.is_some() {
        return Err(Error::value(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear",
        ));
    }
    let align = o.align_corners.unwrap_or(false);
    let nd = input.dim();
    let dim = nd as i64 - 2;
    let spatial: Vec<usize> = input.size().get(2..).unwrap_or(&[]).to_vec();
    let (mut out_size, mut scales): (Option<Vec<i64>>, Option<Vec<f64>>) = match (
        &o.size,
        &o.scale_factor,
    ) {
        (Some(_), Some(_)) => {
            return Err(Error::value(
                "only one of size or scale_factor should be defined",
            ));
        }
        (Some(s), None) => {
            let s = if s.len() == 1 && dim != 1 {
                vec![s[0]; dim.max(0) as usize]
            } else {
                s.to_vec()
            };
            if s.len() as i64 != dim {
                return Err(Error::value(format!(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of {} and output size of {}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.",
                    fmt_list(&spatial),
                    fmt_list(&s)
                )));
            }
            (Some(s), None)
        }
        (None, Some(f)) => {
            let f = if f.len() == 1 && dim != 1 {
                vec![f[0]; dim.max(0) as usize]
            } else {
                f.clone()
            };
            if f.len() as i64 != dim {
                let fs: Vec<String> = f.iter().map(|&v| py_float(v)).collect();
                return Err(Error::value(format!(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of {} and scale_factor of shape [{}]. Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.",
                    fmt_list(&spatial),
                    fs.join(", ")
                )));
            }
            (None, Some(f))
        }
        (None, None) => {
            return Err(Error::value(
                "either size or scale_factor should be defined",
            ));
        }
    };
    if o.recompute_scale_factor == Some(true) && o.size.is_some() {
        return Err(Error::value(
            "recompute_scale_factor is not meaningful with an explicit size.",
        ));
    }
    if o.recompute_scale_factor == Some(true) || (mode == "area" && out_size.is_none()) {
        let f = scales.take().expect("scale_factor");
        out_size = Some(
            spatial
                .iter()
                .zip(&f)
                .map(|(&i, &s)| (i as f64 * s) as i64)
                .collect(),
        );
    }
    if o.antialias {
        return Err(Error::value(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input",
        ));
    }
    let ok = match mode {
        "nearest" | "nearest-exact" | "area" => (3..=5).contains(&nd),
        "linear" => nd == 3,
        "bilinear" | "bicubic" => nd == 4,
        "trilinear" => nd == 5,
        _ => false,
    };
    if !ok {
        let want = match mode {
            "linear" => Some(3),
            "bilinear" => Some(4),
            "trilinear" => Some(5),
            _ => None,
        };
        if let Some(w) = want
            && (3..=5).contains(&nd)
            && mode != "bicubic"
        {
            return Err(Error::not_implemented(format!(
                "Got {nd}D input, but {mode} mode needs {w}D input"
            )));
        }
        return Err(Error::not_implemented(format!(
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
        )));
    }
    if mode == "area" {
        let os = out_size.expect("area size");
        return match nd {
            3 => crate::nn::pool::adaptive_avg_pool1d(input, &os[..]),
            4 => crate::nn::pool::adaptive_avg_pool2d(input, &os[..]),
            _ => Err(Error::not_implemented("adaptive_avg_pool3d")),
        };
    }
    // compute_output_size
    let outs: Vec<i64> = match (&out_size, &scales) {
        (Some(s), _) => s.clone(),
        (None, Some(f)) => spatial
            .iter()
            .zip(f)
            .map(|(&i, &s)| (i as f64 * s) as i64)
            .collect(),
        _ => unreachable!(),
    };
    let k = spatial.len();
    if spatial.contains(&0) || outs.iter().any(|&v| v <= 0) {
        let names = ["D", "H", "W"];
        let nm = &names[3 - k..];
        let ins: Vec<String> = (0..k)
            .map(|j| format!("{}: {}", nm[j], spatial[j]))
            .collect();
        let ous: Vec<String> = (0..k).map(|j| format!("{}: {}", nm[j], outs[j])).collect();
        return Err(Error::runtime(if k == 1 {
            format!(
                "Input and output sizes should be greater than 0, but got input ({}) and output ({})",
                ins[0], ous[0]
            )
        } else {
            format!(
                "Input and output sizes should be greater than 0, but got input ({}) output ({})",
                ins.join(", "),
                ous.join(", ")
            )
        }));
    }
    let dt = input.dtype();
    if !dt.is_floating_point() {
        return Err(Error::not_implemented(format!(
            "\"upsample_{mode}\" not implemented for '{}'",
            dt.scalar_type_name()
        )));
    }
    let outs: Vec<usize> = outs.iter().map(|&v| v as usize).collect();
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
        let mut out = crate::kernels::cast::try_filled(T::ZERO, numel)?;
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

    #[test]
    fn nearest_index_rules() {
        // 3 -> 5: floor(o * 0.6) in float32
        let v: Vec<usize> = (0..5)
            .map(|o| nearest_source(o, 3, 5, None, false, true))
            .collect();
        assert_eq!(v, vec![0, 0, 1, 1, 2]);
        // nearest-exact: floor((o + 0.5) * 0.6)
        let v: Vec<usize> = (0..5)
            .map(|o| nearest_source(o, 3, 5, None, true, true))
            .collect();
        assert_eq!(v, vec![0, 0, 1, 2, 2]);
        // a given scale factor: 1 / 1.7
        let v: Vec<usize> = (0..5)
            .map(|o| nearest_source(o, 3, 5, Some(1.7), false, true))
            .collect();
        assert_eq!(v, vec![0, 0, 1, 1, 2]);
    }

    #[test]
    fn linear_weights_sum_to_one() {
        let t = dim_taps::<f32>("linear", 4, 7, false, None, true).unwrap();
        for w in &t {
            let s: f32 = w.iter().map(|x| x.1).sum();
            assert!((s - 1.0).abs() < 1e-6);
        }
        let t = dim_taps::<f64>("bicubic", 4, 7, true, None, true).unwrap();
        for w in &t {
            let s: f64 = w.iter().map(|x| x.1).sum();
            assert!((s - 1.0).abs() < 1e-12);
        }
    }

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
