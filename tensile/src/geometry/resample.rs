//! Resampling and padding geometry: `F.interpolate`'s argument checks and output sizes, the
//! scales and source indices of every mode (PyTorch's `area_pixel_compute_source_index`,
//! `nearest_idx`, the cubic coefficients), as per-dim lists of taps `(input index, weight)`
//! that the resampling kernel (`crate::kernels::pool::resample`) sums and the upsample
//! formulas transpose; and `F.pad`'s checks, output sizes and source indices (reflect,
//! replicate, circular), with PyTorch 2.15's error texts.

use std::ops::{Add, Div, Mul, Sub};

use crate::error::{Error, Result, fmt_list, try_vec};

/// The float types taps are computed in: `f32` (also for float16/bfloat16 data, PyTorch's
/// CPU `opmath_t`) and `f64`. PyTorch computes the source indices in the data's opmath type,
/// so the taps of a float32 tensor are float32 arithmetic.
pub trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + 'static
{
    const ZERO: Self;
    fn of(v: f64) -> Self;
    fn of_usize(v: usize) -> Self;
    fn floor(self) -> Self;
    fn f64(self) -> f64;
    /// `self * a + b`, rounded once where the type has a fused multiply-add (the floats).
    fn mul_add(self, a: Self, b: Self) -> Self {
        self * a + b
    }
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn of_usize(v: usize) -> Self {
        v as f32
    }
    fn floor(self) -> Self {
        f32::floor(self)
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        f32::mul_add(self, a, b)
    }
    fn f64(self) -> f64 {
        self as f64
    }
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    fn of(v: f64) -> Self {
        v
    }
    fn of_usize(v: usize) -> Self {
        v as f64
    }
    fn floor(self) -> Self {
        f64::floor(self)
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        f64::mul_add(self, a, b)
    }
    fn f64(self) -> f64 {
        self
    }
}

/// The taps of one output index along one dim: input indices and weights.
pub type Taps<T> = Vec<(usize, T)>;

/// A Python float's `repr` (`2.0`, `0.75`).
fn py_float(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// `compute_scales_value`: `1 / scale` when a positive scale was given, else `in / out`.
fn scales_value<T: Real>(scale: Option<f64>, input: usize, output: usize) -> T {
    match scale {
        Some(s) if s > 0.0 => T::of(1.0 / s),
        _ => T::of_usize(input) / T::of_usize(output),
    }
}

/// `nearest_idx` (`exact`: `nearest_exact_idx`): the source index of output `o` of a dim
/// resampled from `input` to `output` positions, computed in float32 as PyTorch does
/// (whatever the data's dtype). `shortcut`: the 2-d kernels' rule that equal sizes map `o` to
/// `o` and doubled sizes to `o / 2` even when a scale factor says otherwise (PyTorch's 1-d and
/// 3-d nearest kernels always use the scale). Always below `input` (for `input >= 1`).
pub fn nearest_source(
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
fn area_scale<T: Real>(input: usize, output: usize, align: bool, scale: Option<f64>) -> T {
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
fn area_source<T: Real>(scale: T, o: usize, align: bool, cubic: bool) -> T {
    if align {
        scale * T::of_usize(o)
    } else {
        let s = scale * (T::of_usize(o) + T::of(0.5)) - T::of(0.5);
        if !cubic && s < T::ZERO { T::ZERO } else { s }
    }
}

/// `guard_index_and_lambda`: `(min(⌊real⌋, in - 1), clamp(real - index, 0, 1))`.
fn guard<T: Real>(real: T, input: usize) -> (i64, T) {
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

/// The taps of every output index of one dim resampled from `input` to `output` positions
/// for `mode` (`nearest`, `nearest-exact`: one tap of weight 1 ([`nearest_source`]);
/// `bicubic`: four edge-clamped taps with coefficient −0.75; any other mode: two linear taps),
/// with `align_corners` = `align`, the user's scale factor `scale` and the 2-d nearest
/// `shortcut`. Every tap's index is below `input` (`input >= 1`).
///
/// Error: PyTorch's allocator error when `output` lists of taps cannot be held (an
/// `output` near 2^62, possible beside an empty batch).
pub fn dim_taps<T: Real>(
    mode: &str,
    input: usize,
    output: usize,
    align: bool,
    scale: Option<f64>,
    shortcut: bool,
) -> Result<Vec<Taps<T>>> {
    let mut v = try_vec(output)?;
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
            // PyTorch's `cubic_convolution1/2` as its AVX2 build compiles them, each
            // `p * x + q` one fused multiply-add (a half-precision weight, rounded from these,
            // can tell the difference)
            let a = T::of(-0.75);
            let c1 = |x: T| {
                let p = (a + T::of(2.0)).mul_add(x, T::ZERO - (a + T::of(3.0)));
                (p * x).mul_add(x, one)
            };
            let c2 = |x: T| {
                let p = a.mul_add(x, T::ZERO - T::of(5.0) * a);
                let p = p.mul_add(x, T::of(8.0) * a);
                p.mul_add(x, T::ZERO - T::of(4.0) * a)
            };
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

/// The taps of a float16/bfloat16 input in the `linear`, `trilinear` and `bicubic` modes, as
/// PyTorch's generic CPU kernel holds them: each weight computed in float32 and stored in the
/// input's dtype (`round`), the linear pair as `lambda1` rounded and `lambda0 = 1 - lambda1` in
/// that dtype, every cubic coefficient rounded; the taps are then summed in float32. (The
/// `bilinear` kernel keeps float32 weights; the nearest modes' weight is 1.) Checked bit for
/// bit against PyTorch 2.15 on random sizes in both memory formats.
pub fn round_weights<T: Real>(taps: &mut [Taps<T>], mode: &str, round: impl Fn(T) -> T) {
    for t in taps {
        match (mode, t.as_mut_slice()) {
            ("bicubic", t) => t.iter_mut().for_each(|(_, w)| *w = round(*w)),
            ("linear" | "trilinear", [(_, w0), (_, w1)]) => {
                *w1 = round(*w1);
                *w0 = round(T::of(1.0) - *w1);
            }
            _ => {}
        }
    }
}

/// What `F.interpolate` computes, once its arguments are checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Interpolation {
    /// `mode="area"`: `adaptive_avg_pool` to these spatial sizes.
    Area(Vec<i64>),
    /// Every other mode: the spatial output sizes (each at least 1), the scale factors the
    /// source indices use (`None`: `in / out`), and `align_corners`.
    Resample {
        outs: Vec<usize>,
        scales: Option<Vec<f64>>,
        align: bool,
    },
}

/// `F.interpolate`'s checks and output sizes for an input of `sizes` (`(N, C, *spatial)`) and
/// its arguments as given (`size` and `scale_factor` of one entry apply to every spatial dim).
/// The output size of a dim is `size`, or `⌊in·scale_factor⌋` (then the source indices use
/// `1/scale_factor`, unless `recompute_scale_factor`).
///
/// Errors, in PyTorch's order: ValueError `align_corners option can only be set with the
/// interpolating modes: linear | bilinear | bicubic | trilinear`; `only one of size or
/// scale_factor should be defined`; `Input and output must have the same number of spatial
/// dimensions, but got input with spatial dimensions of [5] and output size of [3, 4]. …`;
/// `Input and scale_factor must have the same number of spatial dimensions, … scale_factor of
/// shape [2.0, 3.0]. …`; `either size or scale_factor should be defined`;
/// `recompute_scale_factor is not meaningful with an explicit size.`; `Anti-alias option is
/// restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input`;
/// NotImplementedError `Got 5D input, but bilinear mode needs 4D input`, `Input Error: Only
/// 3D, 4D and 5D input Tensors supported (got 3D) for the modes: … (got bicubic)`;
/// RuntimeError `Input and output sizes should be greater than 0, but got input (H: 1, W: 1)
/// output (H: 3, W: 0)` (one dim: `… input (W: 1) and output (W: 0)`).
#[allow(clippy::too_many_arguments)]
pub fn interpolate_sizes(
    sizes: &[usize],
    size: Option<&[i64]>,
    scale_factor: Option<&[f64]>,
    mode: &str,
    align_corners: Option<bool>,
    recompute_scale_factor: Option<bool>,
    antialias: bool,
) -> Result<Interpolation> {
    let nearest = matches!(mode, "nearest" | "area" | "nearest-exact");
    if nearest && align_corners.is_some() {
        return Err(Error::value(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear",
        ));
    }
    let align = align_corners.unwrap_or(false);
    let nd = sizes.len();
    let dim = nd as i64 - 2;
    let spatial: Vec<usize> = sizes.get(2..).unwrap_or(&[]).to_vec();
    let (mut out_size, mut scales): (Option<Vec<i64>>, Option<Vec<f64>>) = match (
        size,
        scale_factor,
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
                f.to_vec()
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
    if recompute_scale_factor == Some(true) && size.is_some() {
        return Err(Error::value(
            "recompute_scale_factor is not meaningful with an explicit size.",
        ));
    }
    if recompute_scale_factor == Some(true) || (mode == "area" && out_size.is_none()) {
        let f = scales.take().unwrap_or_default();
        out_size = Some(
            spatial
                .iter()
                .zip(&f)
                .map(|(&i, &s)| (i as f64 * s) as i64)
                .collect(),
        );
    }
    if antialias {
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
        return Ok(Interpolation::Area(out_size.unwrap_or_default()));
    }
    // compute_output_size
    let outs: Vec<i64> = match (&out_size, &scales) {
        (Some(s), _) => s.clone(),
        (None, Some(f)) => spatial
            .iter()
            .zip(f)
            .map(|(&i, &s)| (i as f64 * s) as i64)
            .collect(),
        (None, None) => Vec::new(),
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
    Ok(Interpolation::Resample {
        outs: outs.iter().map(|&v| v as usize).collect(),
        scales,
        align,
    })
}

// ------------------------------------------------------------------ padding

/// `(left, right)` widths of the `j`-th padded dim counted from the last one (`pad` lists
/// `(left, right)` pairs from the last dim backwards, as `F.pad` takes them).
pub fn widths(pad: &[i64], j: usize) -> (i64, i64) {
    (pad[2 * j], pad[2 * j + 1])
}

/// `F.pad`'s first checks, for every mode, on an input of `ndim` dims.
///
/// Errors: NotImplementedError `Unrecognised padding mode foo`; RuntimeError `Padding length
/// must be divisible by 2`; `Padding length should be less than or equal to two times the
/// input dimension but got padding length 2 and input of dimension 0`.
pub fn check_pad(mode: &str, pad: &[i64], ndim: usize) -> Result<()> {
    if !matches!(mode, "constant" | "reflect" | "replicate" | "circular") {
        return Err(Error::not_implemented(format!(
            "Unrecognised padding mode {mode}"
        )));
    }
    if !pad.len().is_multiple_of(2) {
        return Err(Error::runtime("Padding length must be divisible by 2"));
    }
    if pad.len() > ndim * 2 {
        return Err(Error::runtime(format!(
            "Padding length should be less than or equal to two times the input dimension but got padding length {} and input of dimension {ndim}",
            pad.len()
        )));
    }
    Ok(())
}

/// `F.pad`'s checks for the non-constant modes (`pad.len()` entries on an input of `ndim`
/// dims; `value` the fill value as given).
///
/// Errors: RuntimeError `Padding mode "reflect" doesn't take in value argument`;
/// NotImplementedError `Padding size 2 is not supported for 4D input tensor.` followed by
/// PyTorch's list of supported combinations.
pub fn check_edge_pad(mode: &str, value: Option<f64>, np: usize, ndim: usize) -> Result<()> {
    if value.is_some_and(|v| v != 0.0) {
        return Err(Error::runtime(format!(
            "Padding mode \"{mode}\" doesn't take in value argument"
        )));
    }
    let nd = ndim;
    let supported = (np == 2 && (nd == 2 || nd == 3))
        || (np == 4 && (nd == 3 || nd == 4))
        || (np == 6 && (nd == 4 || nd == 5));
    if !supported {
        return Err(Error::not_implemented(format!(
            "Padding size {np} is not supported for {nd}D input tensor.\nSupported combinations for non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )));
    }
    Ok(())
}

/// `constant_pad_nd`'s output sizes: each padded dim `size + left + right` (negative widths
/// crop; `F.pad`'s length checks passed).
///
/// Error: `The input size 3, plus negative padding -2 and -2 resulted in a negative output size, which is invalid. Check dimension 1 of your input.`
pub fn constant_pad_sizes(sizes: &[usize], pad: &[i64]) -> Result<Vec<usize>> {
    let nd = sizes.len();
    let lp = pad.len() / 2;
    let ldiff = nd - lp;
    let mut shape: Vec<usize> = sizes[..ldiff].to_vec();
    for i in 0..lp {
        let (l, r) = widths(pad, lp - i - 1);
        let size = sizes[ldiff + i] as i64;
        // wrapping, as PyTorch's int64 arithmetic; a wrapped sum is refused or absurd
        let new = size.wrapping_add(l).wrapping_add(r);
        if new < 0 {
            return Err(Error::runtime(format!(
                "The input size {size}, plus negative padding {l} and {r} resulted in a negative output size, which is invalid. Check dimension {} of your input.",
                ldiff + i
            )));
        }
        shape.push(new as usize);
    }
    Ok(shape)
}

/// Reflection (`reflect`) or replication padding's checks and output sizes for an input of
/// `sizes` padded in its last `pad.len() / 2` dims ([`check_edge_pad`] passed).
///
/// Errors: `Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [2, 0]`;
/// reflect: `Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 1) at dimension 1 of input [2, 3]`;
/// `input (W: 3) is too small. Calculated output W: -1`;
/// `Calculated output H: 2 W: -1 must be >= 1 in every dimension (input H: 2, W: 3)`.
pub fn edge_pad_sizes(sizes: &[usize], pad: &[i64], reflect: bool) -> Result<Vec<usize>> {
    let k = pad.len() / 2;
    let nd = sizes.len();
    // check_valid_input: batch mode allows a 0-size batch only
    let batch = nd == k + 2;
    let first = if batch { 1 } else { 0 };
    if sizes[first..].contains(&0) {
        return Err(Error::runtime(format!(
            "Expected {}D or {}D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: {}",
            k + 1,
            k + 2,
            fmt_list(sizes)
        )));
    }
    let names = ["W", "H", "D"];
    if reflect {
        for j in 0..k {
            let (l, r) = widths(pad, j);
            let size = sizes[nd - 1 - j] as i64;
            if !(l < size && r < size) {
                return Err(Error::runtime(format!(
                    "Argument #{}: Padding size should be less than the corresponding input dimension, but got: padding ({l}, {r}) at dimension {} of input {}",
                    4 + 2 * j,
                    nd - 1 - j,
                    fmt_list(sizes)
                )));
            }
        }
    }
    let outs: Vec<i64> = (0..k)
        .map(|j| {
            let (l, r) = widths(pad, j);
            // wrapping, as PyTorch's int64 arithmetic: the checks below then reject it
            (sizes[nd - 1 - j] as i64).wrapping_add(l).wrapping_add(r)
        })
        .collect();
    if k == 1 {
        if outs[0] < 1 {
            return Err(Error::runtime(format!(
                "input (W: {}) is too small. Calculated output W: {}",
                sizes[nd - 1],
                outs[0]
            )));
        }
    } else if outs.iter().any(|&o| o < 1) {
        let calc: Vec<String> = (0..k)
            .rev()
            .map(|j| format!("{}: {}", names[j], outs[j]))
            .collect();
        let inp: Vec<String> = (0..k)
            .rev()
            .map(|j| format!("{}: {}", names[j], sizes[nd - 1 - j]))
            .collect();
        return Err(Error::runtime(format!(
            "Calculated output {} must be >= 1 in every dimension (input {})",
            calc.join(" "),
            inp.join(", ")
        )));
    }
    let mut out_sizes = sizes.to_vec();
    for (j, &out_len) in outs.iter().enumerate() {
        out_sizes[nd - 1 - j] = out_len as usize;
    }
    Ok(out_sizes)
}

/// The input index output `o` of a reflected (`reflect`) or replicated dim of `size`
/// positions reads, with left width `l` (PyTorch's index rule, which also handles negative
/// widths; in `i128`, where `2·l`, `size + l` or `-l` of any int64 `l` fit).
pub fn edge_source(o: usize, l: i64, size: usize, reflect: bool) -> usize {
    let (o, l, size) = (o as i128, l as i128, size as i128);
    let i_start = (-l).max(0);
    let o_start = l.max(0);
    let ip = if reflect {
        if o < l {
            l * 2 - o
        } else if o < size + l {
            o
        } else {
            (size + l - 1) * 2 - o
        }
    } else if o < l {
        l
    } else if o < size + l {
        o
    } else {
        size + l - 1
    };
    (ip - o_start + i_start) as usize
}

/// `_pad_circular`'s checks and output sizes for an input of `sizes` padded in its last
/// `pad.len() / 2` dims.
///
/// Errors: `Padding value causes wrapping around more than once.`; `Negative padding value is
/// resulting in an empty dimension`.
pub fn circular_pad_sizes(sizes: &[usize], pad: &[i64]) -> Result<Vec<usize>> {
    let k = pad.len() / 2;
    let nd = sizes.len();
    let mut out_sizes = sizes.to_vec();
    for i in 0..k {
        let d = nd - k + i;
        let (l, r) = widths(pad, k - i - 1);
        let size = sizes[d] as i64;
        if !(l <= size && r <= size) {
            return Err(Error::runtime(
                "Padding value causes wrapping around more than once.",
            ));
        }
        // wrapping, as PyTorch's int64 arithmetic
        let out = size.wrapping_add(l).wrapping_add(r);
        if out < 0 {
            return Err(Error::runtime(
                "Negative padding value is resulting in an empty dimension",
            ));
        }
        out_sizes[d] = out as usize;
    }
    Ok(out_sizes)
}

/// The input index output `o` of a circularly padded dim of `size` positions reads, with
/// left width `l`: `(o − l) mod size`.
pub fn circular_source(o: usize, l: i64, size: usize) -> usize {
    // in i128: `o - l` of any int64 `l` fits
    (o as i128 - l as i128).rem_euclid((size as i128).max(1)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    /// `F.interpolate(torch.arange(4.).view(1, 1, 4), size=7, mode="linear")` is
    /// `[0, 0.3571, 0.9286, 1.5, 2.0714, 2.6429, 3]`: the taps' weighted sums.
    #[test]
    fn linear_taps_match_pytorch() {
        let t = dim_taps::<f64>("linear", 4, 7, false, None, true).unwrap();
        let y: Vec<f64> = t
            .iter()
            .map(|w| w.iter().map(|&(i, a)| a * i as f64).sum())
            .collect();
        let want = [0.0, 0.3571, 0.9286, 1.5, 2.0714, 2.6429, 3.0];
        for (a, b) in y.iter().zip(want) {
            assert!((a - b).abs() < 1e-4, "{y:?}");
        }
    }

    /// Output sizes and errors checked against PyTorch.
    #[test]
    fn interpolate_sizes_match_pytorch() {
        // F.interpolate(zeros(1, 1, 5, 3), scale_factor=(1.5, 2.5)).shape == (1, 1, 7, 7)
        let r = interpolate_sizes(
            &[1, 1, 5, 3],
            None,
            Some(&[1.5, 2.5]),
            "nearest",
            None,
            None,
            false,
        );
        assert_eq!(
            r.unwrap(),
            Interpolation::Resample {
                outs: vec![7, 7],
                scales: Some(vec![1.5, 2.5]),
                align: false
            }
        );
        // recompute_scale_factor drops the scales
        let r = interpolate_sizes(
            &[1, 1, 5],
            None,
            Some(&[1.5]),
            "linear",
            Some(true),
            Some(true),
            false,
        );
        assert_eq!(
            r.unwrap(),
            Interpolation::Resample {
                outs: vec![7],
                scales: None,
                align: true
            }
        );
        let r = interpolate_sizes(&[1, 1, 6, 4], None, Some(&[0.5]), "area", None, None, false);
        assert_eq!(r.unwrap(), Interpolation::Area(vec![3, 2]));
        let e = interpolate_sizes(
            &[1, 1, 1, 1],
            Some(&[3, 0]),
            None,
            "nearest",
            None,
            None,
            false,
        );
        assert_eq!(
            e.unwrap_err().message(),
            "Input and output sizes should be greater than 0, but got input (H: 1, W: 1) output (H: 3, W: 0)"
        );
        let e = interpolate_sizes(
            &[1, 1, 5],
            Some(&[3, 4]),
            None,
            "nearest",
            None,
            None,
            false,
        );
        assert!(e.unwrap_err().message().starts_with(
            "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of [5] and output size of [3, 4]."
        ));
        let e = interpolate_sizes(
            &[1, 1, 5, 5, 5],
            Some(&[3]),
            None,
            "bilinear",
            None,
            None,
            false,
        );
        assert_eq!(
            e.unwrap_err().message(),
            "Got 5D input, but bilinear mode needs 4D input"
        );
        let e = interpolate_sizes(
            &[1, 1, 5],
            Some(&[3]),
            None,
            "nearest",
            Some(false),
            None,
            false,
        );
        assert!(
            e.unwrap_err()
                .message()
                .starts_with("align_corners option can only be set")
        );
    }

    /// `F.pad` with reflect/replicate/circular index rules and output sizes, as PyTorch.
    #[test]
    fn pad_rules() {
        let src = |f: &dyn Fn(usize) -> usize, n: usize| (0..n).map(f).collect::<Vec<_>>();
        // reflect [a, b, c] by (2, 2): c b a b c b a
        assert_eq!(
            src(&|o| edge_source(o, 2, 3, true), 7),
            vec![2, 1, 0, 1, 2, 1, 0]
        );
        // replicate by (2, 1): a a a b c c
        assert_eq!(
            src(&|o| edge_source(o, 2, 3, false), 6),
            vec![0, 0, 0, 1, 2, 2]
        );
        // reflect by (-1, 1): b c b
        assert_eq!(src(&|o| edge_source(o, -1, 3, true), 3), vec![1, 2, 1]);
        // circular by (1, 2): c a b c a b
        assert_eq!(
            src(&|o| circular_source(o, 1, 3), 6),
            vec![2, 0, 1, 2, 0, 1]
        );
        assert_eq!(edge_pad_sizes(&[1, 3], &[2, 2], true).unwrap(), vec![1, 7]);
        assert_eq!(
            edge_pad_sizes(&[2, 3], &[3, 1], true)
                .unwrap_err()
                .message(),
            "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 1) at dimension 1 of input [2, 3]"
        );
        assert_eq!(
            edge_pad_sizes(&[2, 3], &[-2, -2], false)
                .unwrap_err()
                .message(),
            "input (W: 3) is too small. Calculated output W: -1"
        );
        assert_eq!(
            constant_pad_sizes(&[2, 3], &[-2, -2])
                .unwrap_err()
                .message(),
            "The input size 3, plus negative padding -2 and -2 resulted in a negative output size, which is invalid. Check dimension 1 of your input."
        );
        assert_eq!(
            constant_pad_sizes(&[2, 3], &[1, 2, 0, 1]).unwrap(),
            vec![3, 6]
        );
        assert_eq!(
            circular_pad_sizes(&[1, 3], &[4, 0]).unwrap_err().message(),
            "Padding value causes wrapping around more than once."
        );
        assert_eq!(
            check_pad("wrap", &[1, 1], 2).unwrap_err().message(),
            "Unrecognised padding mode wrap"
        );
        assert!(check_edge_pad("reflect", None, 2, 4).is_err());
    }

    proptest! {
        /// Every tap of every mode reads an input index inside the input, and the weights of
        /// an output sum to 1 (linear and cubic interpolation reproduce constants).
        #[test]
        fn taps_inside_the_input(
            input in 1usize..20, output in 1usize..40, align in any::<bool>(),
            scale in proptest::option::of(0.1f64..8.0), mode in 0usize..4,
        ) {
            let mode = ["nearest", "nearest-exact", "linear", "bicubic"][mode];
            let t = dim_taps::<f64>(mode, input, output, align, scale, true).unwrap();
            prop_assert_eq!(t.len(), output);
            for w in &t {
                prop_assert!(w.iter().all(|&(i, _)| i < input));
                let s: f64 = w.iter().map(|x| x.1).sum();
                prop_assert!((s - 1.0).abs() < 1e-9);
            }
        }

        /// The padded sizes of every mode, and every source index inside the input.
        #[test]
        fn pad_sources_inside_the_input(size in 1usize..9, l in -8i64..9, r in -8i64..9) {
            for reflect in [true, false] {
                if let Ok(out) = edge_pad_sizes(&[1, size], &[l, r], reflect) {
                    prop_assert_eq!(out[1] as i64, size as i64 + l + r);
                    for o in 0..out[1] {
                        prop_assert!(edge_source(o, l, size, reflect) < size);
                    }
                }
            }
            if let Ok(out) = circular_pad_sizes(&[1, size], &[l, r]) {
                prop_assert_eq!(out[1] as i64, size as i64 + l + r);
                for o in 0..out[1] {
                    let i = circular_source(o, l, size);
                    prop_assert!(i < size);
                    prop_assert_eq!((i as i64 - (o as i64 - l)).rem_euclid(size as i64), 0);
                }
            }
            if let Ok(out) = constant_pad_sizes(&[1, size], &[l, r]) {
                prop_assert_eq!(out[1] as i64, size as i64 + l + r);
            }
        }
    }
}
