//! The forward code of the normalisations (their functions and recording are
//! `crate::optable::norm`'s): per-channel and per-group moments, the affine pass, the fused
//! float32 kernels of `crate::kernels::normalize`, and the output layouts PyTorch's CPU
//! kernels give. Records nothing.

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::normalize as k;
use crate::layout::{channels_last_strides, contiguous_strides};
use crate::ops::copy::copy_unchecked;

/// `t.suggest_memory_format()` as strides for a new tensor of `t`'s sizes.
pub(crate) fn suggested_strides(t: &Tensor) -> Vec<usize> {
    if crate::ops::cat::suggests_channels_last(t) {
        channels_last_strides(&t.sizes)
    } else {
        contiguous_strides(&t.sizes)
    }
}

/// Values of an optional per-channel parameter in double (`default` where absent).
pub(crate) fn param(p: Option<&Tensor>, c: usize, default: f64) -> Result<Vec<f64>> {
    match p {
        Some(p) => p.try_to_vec::<f64>(),
        None => Ok(vec![default; c]),
    }
}

/// `(N, C, S)` of an input with at least 2 dims: batch, channels, and the product of the rest.
pub(crate) fn ncs(t: &Tensor) -> (usize, usize, usize) {
    (t.sizes[0], t.sizes[1], t.sizes[2..].iter().product())
}

/// Whether `t` is float32 and laid out contiguously (`Some(false)`) or channels-last
/// contiguously (`Some(true)`) — the layouts the float32 kernels read.
pub(crate) fn f32_layout(t: &Tensor) -> Option<bool> {
    if t.dtype != DType::Float32 || t.numel() == 0 {
        return None;
    }
    if t.is_contiguous() {
        Some(false)
    } else if crate::layout::is_channels_last_contiguous(&t.sizes, &t.strides)
        || crate::layout::is_channels_last_3d_contiguous(&t.sizes, &t.strides)
    {
        Some(true)
    } else {
        None
    }
}

/// Mean and biased variance of each `(n, c)` plane of `(N, C, S)` (`planes` in row-major
/// order), in double.
pub(crate) fn plane_moments(x: &Tensor, n: usize, c: usize, s: usize) -> Result<Vec<(f64, f64)>> {
    if f32_layout(x) == Some(false) {
        // contiguous: its slice is its values
        return crate::iter::dense(&[], &[x], |sl| {
            Ok(k::plane_moments_f32(sl.input(0)?, n * c, s))
        });
    }
    let v = x.try_to_vec::<f64>()?;
    Ok((0..n * c)
        .map(|p| moments(&v[p * s..(p + 1) * s]))
        .collect())
}

/// Mean and sum of squared deviations of each channel of a contiguous float16/bfloat16
/// `(N, C, S)` input as PyTorch's `batch_norm_cpu_collect_stats_contiguous_internal` takes them
/// for a reduced float type: the sum in float, sample by sample, element by element, divided
/// by `N·S`; then the sum of `(x - mean)²` in float likewise (with the float mean). With
/// `store` (parameters of the input's type, `param_t = scalar_t`) the mean is returned as
/// stored in that type (rounded). [`half_var`] stores and divides the sum as PyTorch does.
pub(crate) fn half_channel_moments(
    x: &Tensor,
    (n, c, s): (usize, usize, usize),
    store: Option<DType>,
) -> Result<Vec<(f32, f32)>> {
    let v = x.try_to_vec::<f32>()?;
    let cnt = (n * s) as f32;
    Ok((0..c)
        .map(|ch| {
            let plane = |i: usize| &v[(i * c + ch) * s..(i * c + ch + 1) * s];
            let mut sum = 0.0f32;
            for i in 0..n {
                for &e in plane(i) {
                    sum += e;
                }
            }
            let mean = sum / cnt;
            let mut var_sum = 0.0f32;
            for i in 0..n {
                for &e in plane(i) {
                    var_sum += (e - mean) * (e - mean);
                }
            }
            match store {
                Some(dt) => (round_half(dt, mean), var_sum),
                None => (mean, var_sum),
            }
        })
        .collect())
}

/// `var_sum / k` as PyTorch's `batch_norm_cpu_update_stats_template` divides the stored sum
/// of squares (`k` = `N·S` for the variance, `N·S - 1` for the running variance): in float,
/// or, for bfloat16 with parameters of its type (`store`), the sum stored in bfloat16 and
/// divided as `operator/(BFloat16, int64_t)`: `k` converted to bfloat16 and the quotient
/// rounded to it. (Float16 keeps the sum and the
/// quotient in float: measured on PyTorch 2.15, where 40 random instance norms match each
/// rule bit for bit and none matches the other's.)
pub(crate) fn half_var(store: Option<DType>, var_sum: f32, k: usize) -> f32 {
    match store {
        Some(dt @ DType::BFloat16) => {
            round_half(dt, round_half(dt, var_sum) / round_half(dt, k as f32))
        }
        _ => var_sum / k as f32,
    }
}

pub(crate) use crate::element::round_half;

/// PyTorch's batch-norm linear terms for a float16/bfloat16 input whose parameters share its
/// type (`param_t = scalar_t`, `batch_norm_cpu_collect_linear_and_constant_terms`): the
/// statistics were stored in that type (`mean`, `invstd` rounded by the caller); `alpha =
/// invstd * weight` and `beta = bias - mean * alpha` in float (checked against PyTorch 2.15's
/// float16 results bit for bit).
pub(crate) fn half_linear_terms(mean: f32, invstd: f32, w: f64, b: f64) -> (f64, f64) {
    let alpha = invstd * w as f32;
    let beta = (-mean).mul_add(alpha, b as f32);
    (alpha as f64, beta as f64)
}

/// Batch norm's element formula off the contiguous fast path for a float16/bfloat16 input
/// whose parameters share its type (PyTorch's `((input - mean) * invstd) * weight + bias`
/// over `Half` operands, each operation rounded to the type), into a fresh tensor with
/// `strides`; `mean`, `invstd`, `w`, `b` per channel, already in the type.
pub(crate) fn half_elementwise_norm(
    x: &Tensor,
    strides: &[usize],
    (mean, invstd): (&[f32], &[f32]),
    (w, b): (&[f64], &[f64]),
) -> Result<Tensor> {
    let (n, c, s) = ncs(x);
    let dt = x.dtype;
    let h = |v: f32| round_half(dt, v);
    let mut v = x.try_to_vec::<f32>()?;
    for (p, chunk) in v.chunks_mut(s.max(1)).enumerate().take(n * c) {
        let ch = p % c;
        let (m, is, wc, bc) = (mean[ch], invstd[ch], w[ch] as f32, b[ch] as f32);
        for e in chunk {
            *e = h(h(h(h(*e - m) * is) * wc) + bc);
        }
    }
    let out = Tensor::try_alloc(&x.sizes, strides, dt)?;
    copy_unchecked(&out, &Tensor::from_vec(v, &x.sizes[..])?);
    Ok(out)
}

/// Mean and biased variance of `v` (zeros when empty).
pub(crate) fn moments(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / v.len() as f64;
    (mean, var)
}

/// Combines the moments of equal-sized parts into the moments of their union.
pub(crate) fn combine(parts: impl Iterator<Item = (f64, f64)> + Clone) -> (f64, f64) {
    let k = parts.clone().count();
    if k == 0 {
        return (0.0, 0.0);
    }
    let mean = parts.clone().map(|p| p.0).sum::<f64>() / k as f64;
    let var = parts.map(|(m, v)| v + (m - mean) * (m - mean)).sum::<f64>() / k as f64;
    (mean, var)
}

/// PyTorch's batch-norm linear terms `alpha = invstd * w`, `beta = b - mean * alpha`
/// (`batch_norm_cpu_collect_linear_and_constant_terms`), in float32 arithmetic for a float32
/// input (the statistics stored as float32 first, `beta` fused as its compiler fuses it), in
/// double otherwise. `invstd` is the training statistic `1 / sqrt(var + eps)` (computed in
/// double, as PyTorch does) or, when `eval_var` is given, computed from that running variance
/// in the input's precision.
pub(crate) fn linear_terms(
    mean: f64,
    invstd_or_var: (f64, Option<f64>),
    w: f64,
    b: f64,
    eps: f64,
    f32: bool,
) -> (f64, f64) {
    let (invstd, eval_var) = invstd_or_var;
    if f32 {
        let invstd = match eval_var {
            Some(v) => 1.0 / (v as f32 + eps as f32).sqrt(),
            None => invstd as f32,
        };
        let alpha = invstd * w as f32;
        let beta = (-(mean as f32)).mul_add(alpha, b as f32);
        (alpha as f64, beta as f64)
    } else {
        let invstd = match eval_var {
            Some(v) => 1.0 / (v + eps).sqrt(),
            None => invstd,
        };
        let alpha = invstd * w;
        (alpha, (-mean).mul_add(alpha, b))
    }
}

/// `y[n, c, s] = x[n, c, s] * alpha[c'] + beta[c']` with `c' = n * C + c` when `per_sample`
/// (`alpha` of `N * C` entries) else `c`: a fresh tensor with `strides`, `x`'s dtype.
pub(crate) fn affine(
    x: &Tensor,
    strides: &[usize],
    alpha: &[f64],
    beta: &[f64],
    per_sample: bool,
) -> Result<Tensor> {
    let (n, c, s) = ncs(x);
    let out = Tensor::try_alloc(&x.sizes, strides, x.dtype)?;
    let layout = f32_layout(x);
    let same = layout.is_some() && x.strides[..] == *strides;
    if same {
        let a32: Vec<f32> = alpha.iter().map(|&v| v as f32).collect();
        let b32: Vec<f32> = beta.iter().map(|&v| v as f32).collect();
        // `x` and `out` share one dense layout (contiguous or channels-last): their slices
        // are their values in memory order
        crate::iter::dense(&[&out], &[x], |mut sl| {
            let (xs, ys) = (sl.input::<f32>(0)?, sl.out::<f32>(0)?);
            match (layout, per_sample) {
                (Some(false), false) => k::affine_f32(xs, ys, n, &a32, &b32, s),
                (Some(false), true) => k::affine_f32(xs, ys, 1, &a32, &b32, s),
                (_, false) => k::affine_f32(xs, ys, n * s, &a32, &b32, 1),
                (_, true) => {
                    let per = s * c;
                    for (i, (yi, xi)) in ys.chunks_mut(per).zip(xs.chunks(per)).enumerate() {
                        let ch = i * c..(i + 1) * c;
                        k::affine_f32(xi, yi, s, &a32[ch.clone()], &b32[ch], 1)
                    }
                }
            }
            Ok(())
        })?;
        return Ok(out);
    }
    if matches!(x.dtype, DType::Float16 | DType::BFloat16) {
        // PyTorch's reduced-float kernels: `x * alpha + beta` in float, then rounded once
        let mut v = x.try_to_vec::<f32>()?;
        for (p, chunk) in v.chunks_mut(s.max(1)).enumerate().take(n * c) {
            let ch = if per_sample { p } else { p % c };
            let (a, b) = (alpha[ch] as f32, beta[ch] as f32);
            for e in chunk {
                *e = *e * a + b;
            }
        }
        let src = Tensor::from_vec(v, &x.sizes[..])?;
        copy_unchecked(&out, &src);
        return Ok(out);
    }
    let mut v = x.try_to_vec::<f64>()?;
    for (p, chunk) in v.chunks_mut(s.max(1)).enumerate().take(n * c) {
        let ch = if per_sample { p } else { p % c };
        for e in chunk {
            *e = e.mul_add(alpha[ch], beta[ch]);
        }
    }
    let src = Tensor::from_vec(v, &x.sizes[..])?;
    copy_unchecked(&out, &src);
    Ok(out)
}

/// `"<name>" not implemented for '<dtype>'` unless `t` is floating point.
pub(crate) fn float_only(t: &Tensor, name: &str) -> Result<()> {
    if t.dtype.is_floating_point() {
        Ok(())
    } else {
        Err(Error::not_implemented_for(name, t.dtype))
    }
}

/// `batch_norm_cpu`'s output layout: with every operand contiguous (the input in either
/// memory format), `suggest_memory_format_contig` (contiguous, else the channels-last format
/// the input is contiguous in, size-1 dims ignored); otherwise `suggest_memory_format`.
pub(crate) fn batch_norm_strides(input: &Tensor, all_contiguous: bool) -> Vec<usize> {
    if all_contiguous {
        if input.is_contiguous() {
            contiguous_strides(&input.sizes)
        } else {
            channels_last_strides(&input.sizes)
        }
    } else {
        suggested_strides(input)
    }
}

/// Whether `t` is channels-last (or channels-last-3d) contiguous.
pub(crate) fn f32_layout_cl(t: &Tensor) -> bool {
    crate::layout::is_channels_last_contiguous(&t.sizes, &t.strides)
        || crate::layout::is_channels_last_3d_contiguous(&t.sizes, &t.strides)
}

/// `F.rms_norm`'s value without a gradient to record, after the checks
/// (`crate::optable::norm::rms_norm_with`): `input * rsqrt(mean(input², last kd dims) +
/// eps) (* weight)`, computed in `opmath`, laid out as PyTorch's products lay it out.
pub(crate) fn rms_norm_fused(
    input: &Tensor,
    kd: usize,
    weight: Option<&Tensor>,
    eps: f64,
    opmath: DType,
) -> Result<Tensor> {
    let nd = input.dim();
    // PyTorch computes `input * rsqrt(mean(input², dims, keepdim) + eps)` (then `* weight`):
    // the result has the layout TensorIterator gives those two products.
    let rshape: Vec<usize> = (0..nd)
        .map(|d| if d < nd - kd { input.sizes[d] } else { 1 })
        .collect();
    let rstrides = contiguous_strides(&rshape);
    // The products read `input.contiguous(input.suggest_memory_format())`.
    let cstrides: Vec<usize> = if crate::ops::cat::suggests_channels_last(input) {
        if crate::layout::is_channels_last_contiguous(&input.sizes, &input.strides)
            || crate::layout::is_channels_last_3d_contiguous(&input.sizes, &input.strides)
        {
            input.strides.to_vec()
        } else {
            channels_last_strides(&input.sizes)
        }
    } else if input.is_contiguous() {
        input.strides.to_vec()
    } else {
        contiguous_strides(&input.sizes)
    };
    let s1 = crate::iter::output_strides_of(
        &input.sizes,
        &[(&input.sizes, &cstrides), (&rshape, &rstrides)],
    );
    let out_strides: Vec<usize> = match weight {
        Some(w) => crate::iter::output_strides_of(
            &input.sizes,
            &[(&input.sizes, &s1), (&w.sizes, &w.strides)],
        )
        .to_vec(),
        None => s1.to_vec(),
    };
    let n: usize = input.sizes[nd - kd..].iter().product();
    let w_ok = weight.is_none_or(|w| w.dtype == DType::Float32 && w.is_contiguous());
    if f32_layout(input) == Some(false)
        && w_ok
        && n > 0
        && out_strides == contiguous_strides(&input.sizes)
    {
        let mut ins = vec![input];
        ins.extend(weight);
        // contiguous: their slices are their values
        let (out, ()) = crate::iter::dense_new(&input.sizes, DType::Float32, &ins, |mut sl| {
            let w = weight.map(|_| sl.input::<f32>(1)).transpose()?;
            k::rms_rows_f32(
                sl.input(0)?,
                w,
                sl.out(0)?,
                input.numel() / n,
                n,
                eps as f32,
            );
            Ok(())
        })?;
        return Ok(out);
    }
    let dims: Vec<i64> = (0..kd).map(|i| (nd - i - 1) as i64).collect();
    let up = input.to(opmath)?;
    let r = up.pow(2)?.mean_dim(dims, true)?.add(eps)?.rsqrt()?;
    let res = up.mul(&r)?.to(input.dtype)?;
    let res = match weight {
        Some(w) => res.mul(w)?.to(res.dtype)?,
        None => res,
    };
    if res.strides[..] == out_strides[..] {
        return Ok(res);
    }
    let out = Tensor::try_alloc(&input.sizes, &out_strides, res.dtype)?;
    copy_unchecked(&out, &res);
    Ok(out)
}
