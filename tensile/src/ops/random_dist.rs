//! How PyTorch's CPU kernels consume a generator: the element order of a serial kernel
//! (`cpu_serial_kernel` over a TensorIterator), the vectorised `normal_fill`, the transforms
//! of `TransformationHelper.h`, and the samplers of `Distributions.h` (Poisson).

use crate::Tensor;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::error::{try_filled, try_vec};
use crate::generator::GenState;

/// The row-major (logical) flat index of every element of `t`, in the order a serial
/// TensorIterator kernel writing `t` visits them: dims sorted by stride (`reorder_dimensions`),
/// the smallest innermost, so a non-overlapping target is filled in memory order. `None` when
/// that order is the row-major one (every contiguous tensor).
pub(crate) fn visit_order(t: &Tensor) -> Result<Option<Vec<usize>>> {
    let sizes = t.size();
    let perm = crate::iter::reorder_dims(sizes, &[t.stride().into()]);
    // fastest to slowest, dims of size 1 play no part
    let dims: Vec<usize> = perm.iter().copied().filter(|&d| sizes[d] > 1).collect();
    if dims.windows(2).all(|w| w[0] > w[1]) {
        return Ok(None);
    }
    let n = t.numel();
    let mut rm = vec![0usize; sizes.len()];
    let mut acc = 1usize;
    for d in (0..sizes.len()).rev() {
        rm[d] = acc;
        acc *= sizes[d];
    }
    let mut order = try_vec::<usize>(n)?;
    let mut idx = vec![0usize; dims.len()];
    let mut flat = 0usize;
    for _ in 0..n {
        order.push(flat);
        for (k, &d) in dims.iter().enumerate() {
            idx[k] += 1;
            flat += rm[d];
            if idx[k] < sizes[d] {
                break;
            }
            flat -= rm[d] * sizes[d];
            idx[k] = 0;
        }
    }
    Ok(Some(order))
}

/// A serial kernel's values for `t`: `f(i)` is called once per element in `t`'s visiting
/// order ([`visit_order`]) with the element's row-major index `i`, and its value is stored at
/// `i`. The result is row-major.
pub(crate) fn serial<T: Element>(
    t: &Tensor,
    mut f: impl FnMut(usize) -> Result<T>,
) -> Result<Vec<T>> {
    let n = t.numel();
    let mut vals = try_filled(T::zero(), n)?;
    match visit_order(t)? {
        None => {
            for (i, v) in vals.iter_mut().enumerate() {
                *v = f(i)?;
            }
        }
        Some(order) => {
            for i in order {
                vals[i] = f(i)?;
            }
        }
    }
    Ok(vals)
}

/// `static_cast<scalar_t>(double)` for a float `dtype`: the half types go through float
/// (their constructor takes a float), so a double value is rounded twice.
#[inline]
pub(crate) fn f64_as(dtype: DType, v: f64) -> f64 {
    match dtype {
        DType::Float32 => v as f32 as f64,
        DType::Float16 => half::f16::from_f32(v as f32).to_f64(),
        DType::BFloat16 => half::bf16::from_f32(v as f32).to_f64(),
        _ => v,
    }
}

/// A float32 value rounded to `dtype` (float16/bfloat16 from their opmath float).
#[inline]
pub(crate) fn f32_as(dtype: DType, v: f32) -> f32 {
    match dtype {
        DType::Float16 => half::f16::from_f32(v).to_f32(),
        DType::BFloat16 => half::bf16::from_f32(v).to_f32(),
        _ => v,
    }
}

/// `static_cast<scalar_t>(int64_t)` then back to int64, PyTorch's `update_from`/`update_to`
/// probe: the nearest value of a float `dtype` (through float for the half types).
pub(crate) fn i64_round_trip(dtype: DType, v: i64) -> i64 {
    match dtype {
        DType::Float64 => v as f64 as i64,
        DType::Float32 => v as f32 as i64,
        DType::Float16 => half::f16::from_f32(v as f32).to_f32() as i64,
        DType::BFloat16 => half::bf16::from_f32(v as f32).to_f32() as i64,
        _ => v,
    }
}

/// `std::numeric_limits<scalar_t>::digits` of a float dtype.
pub(crate) fn digits(dtype: DType) -> u32 {
    match dtype {
        DType::Float64 => 53,
        DType::Float32 => 24,
        DType::Float16 => 11,
        _ => 8,
    }
}

// ------------------------------------------------------------------ normal_fill

/// `NormalFill16<double>` on every complete block of 16: Box–Muller on 8 pairs
/// (`u1 = 1 - d[j]`, `u2 = d[j + 8]`) with libm's `log`, `cos` and `sin`, each result
/// `fma(r·cos θ, std, mean)`.
fn normal_fill_16_f64(d: &mut [f64], mean: f64, std: f64) {
    for d in d.chunks_exact_mut(16) {
        for j in 0..8 {
            let u1 = 1.0 - d[j];
            let u2 = d[j + 8];
            let radius = (-2.0 * u1.ln()).sqrt();
            let theta = 2.0 * std::f64::consts::PI * u2;
            d[j] = (radius * theta.cos()).mul_add(std, mean);
            d[j + 8] = (radius * theta.sin()).mul_add(std, mean);
        }
    }
}

/// `NormalFill16<float>` of the AVX2 kernel (`log256_ps`, `sincos256_ps`, `_mm256_sqrt_ps`,
/// `_mm256_fmadd_ps`) on every complete block of 16 (`crate::kernels::box_muller`).
fn normal_fill_16_f32(d: &mut [f32], mean: f32, std: f32) {
    crate::kernels::box_muller::normal_blocks_f32(d, mean, std)
}

/// `normal_fill`: a uniform [0, 1) for every element in order, Box–Muller per block of 16,
/// and when `n` is not a multiple of 16 the last 16 elements redrawn from 16 fresh uniforms
/// and transformed again. `n >= 16`. `uniforms` fills its slice with the next uniforms in
/// order; `block` transforms every complete block of 16 of its slice.
fn normal_fill<F: Copy + Default>(
    n: usize,
    uniforms: impl FnMut(&mut [F]),
    block: impl Fn(&mut [F]),
) -> Result<Vec<F>> {
    let mut d = try_vec::<F>(n)?;
    d.resize(n, F::default());
    normal_fill_into(&mut d, uniforms, block);
    Ok(d)
}

/// Elements [`normal_fill_into`] draws and transforms at a time (a multiple of 16 that
/// stays in the first-level cache between the two passes).
const NORMAL_CHUNK: usize = 2048;

/// [`normal_fill`] into `d` (`d.len() >= 16`). Each block of 16 depends only on its own 16
/// uniforms, so drawing and transforming a chunk at a time gives the values of drawing
/// everything first.
fn normal_fill_into<F: Copy>(
    d: &mut [F],
    mut uniforms: impl FnMut(&mut [F]),
    block: impl Fn(&mut [F]),
) {
    let n = d.len();
    let whole = n / 16 * 16;
    for c in d[..whole].chunks_mut(NORMAL_CHUNK) {
        uniforms(c);
        block(c);
    }
    if whole < n {
        uniforms(&mut d[whole..]);
        let tail = &mut d[n - 16..];
        uniforms(tail);
        block(tail);
    }
}

/// PyTorch's vectorised float32 `normal_` of `d.len() >= 16` contiguous elements, written
/// into `d` (the output's memory) in one pass.
pub(crate) fn normal_fill_f32_into(g: &mut GenState, d: &mut [f32], mean: f64, std: f64) {
    let (m, s) = (mean as f32, std as f32);
    normal_fill_into(
        d,
        |c| g.fill_uniform_f32(c),
        |b| normal_fill_16_f32(b, m, s),
    )
}

/// PyTorch's vectorised float64 `normal_` of `d.len() >= 16` contiguous elements, into `d`.
pub(crate) fn normal_fill_f64_into(g: &mut GenState, d: &mut [f64], mean: f64, std: f64) {
    normal_fill_into(
        d,
        |c| g.fill_uniform_f64(c),
        |b| normal_fill_16_f64(b, mean, std),
    )
}

/// The values of a vectorised `normal_`, in double (float64) or float (the others).
pub(crate) enum Filled {
    F64(Vec<f64>),
    F32(Vec<f32>),
}

/// PyTorch's vectorised `normal_` of `n >= 16` contiguous elements of a float `dtype`:
/// float64 in double with libm; float32, float16 and bfloat16 in float with the AVX2 kernel's
/// math (values returned in float, to be rounded to the half types). float32 draws every
/// uniform first and transforms in place; the half types draw and transform block by block
/// (so their last, partial block consumes different words).
pub(crate) fn normal_fill_dtype(
    g: &mut GenState,
    dtype: DType,
    n: usize,
    mean: f64,
    std: f64,
) -> Result<Filled> {
    Ok(if dtype == DType::Float64 {
        Filled::F64(normal_fill(
            n,
            |c| g.fill_uniform_f64(c),
            |d| normal_fill_16_f64(d, mean, std),
        )?)
    } else if dtype != DType::Float32 {
        // float16/bfloat16: each block of 16 drawn into a float buffer and transformed before
        // the next is drawn, then the last 16 from 16 fresh uniforms
        let (m, s) = (mean as f32, std as f32);
        let mut d = try_vec::<f32>(n)?;
        let mut buf = [0f32; 16];
        for _ in 0..n / 16 {
            g.fill_uniform_f32(&mut buf);
            normal_fill_16_f32(&mut buf, m, s);
            d.extend_from_slice(&buf);
        }
        if !n.is_multiple_of(16) {
            g.fill_uniform_f32(&mut buf);
            normal_fill_16_f32(&mut buf, m, s);
            d.resize(n - 16, 0.0);
            d.extend_from_slice(&buf);
        }
        Filled::F32(d)
    } else {
        let (m, s) = (mean as f32, std as f32);
        Filled::F32(normal_fill(
            n,
            |c| g.fill_uniform_f32(c),
            |d| normal_fill_16_f32(d, m, s),
        )?)
    })
}

// ------------------------------------------------------------------ samplers

/// `sample_poisson` (`ATen/native/Distributions.h`) with uniform doubles from `g`: Hörmann's
/// transformed rejection for `lambda >= 10`, 0 for 0, else multiplying uniforms until the
/// product falls to `exp(-lambda)` or below.
pub(crate) fn sample_poisson(g: &mut GenState, lambda: f64) -> f64 {
    if lambda >= 10.0 {
        let slam = lambda.sqrt();
        let loglam = lambda.ln();
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = g.uniform_f64(0.0, 1.0) - 0.5;
            let v = g.uniform_f64(0.0, 1.0);
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lambda + 0.43).floor() as i64;
            if us >= 0.07 && v <= vr {
                return k as f64;
            }
            if k < 0 || (us < 0.013 && v > us) {
                continue;
            }
            if v.ln() + invalpha.ln() - (a / (us * us) + b).ln()
                <= -lambda + k as f64 * loglam - crate::kernels::special::lgamma(k as f64 + 1.0)
            {
                return k as f64;
            }
        }
    } else if lambda == 0.0 {
        0.0
    } else {
        let enlam = (-lambda).exp();
        let mut x = 0i64;
        let mut prod = 1.0;
        loop {
            prod *= g.uniform_f64(0.0, 1.0);
            if prod > enlam {
                x += 1;
            } else {
                return x as f64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visiting_order_follows_strides() {
        let base = Tensor::zeros([6]).unwrap();
        // contiguous: row-major
        assert!(visit_order(&base.view([2, 3]).unwrap()).unwrap().is_none());
        // transposed (3, 2) view of a (2, 3): memory order visits (0,0) (1,0) (2,0) (0,1) …
        let t = base.view([2, 3]).unwrap().t().unwrap();
        assert_eq!(visit_order(&t).unwrap().unwrap(), vec![0, 2, 4, 1, 3, 5]);
    }
}
