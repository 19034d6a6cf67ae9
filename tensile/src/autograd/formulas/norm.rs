//! Normalization layers and norms (PyTorch's `native_layer_norm_backward`,
//! `native_batch_norm_backward`, `native_group_norm_backward`, `linalg_vector_norm_backward`).
//!
//! The statistics are recomputed from the saved input in float64 (PyTorch saves them as extra
//! outputs `mean` / `rstd`; recomputing gives the same numbers and keeps the forward kernels
//! untouched); the gradients are computed in float64 with tensile's ops and cast back by the
//! engine.

use super::super::node::Save;
use super::super::record::{node_saving, record};
use super::pointwise::{lam, map_n};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

fn f64_of(t: &Tensor) -> Result<Tensor> {
    t.to(DType::Float64)
}

/// `x̂ = (x - mean) · rstd` over `dims` (kept), with `rstd = 1/sqrt(var_biased + eps)`.
/// Returns `(x̂, rstd)`, float64.
pub(crate) fn standardize(x: &Tensor, dims: &[i64], eps: f64) -> Result<(Tensor, Tensor)> {
    let x = f64_of(x)?;
    let mean = x.mean_dim(dims.to_vec(), true)?;
    let xc = x.sub(&mean)?;
    let var = xc.mul(&xc)?.mean_dim(dims.to_vec(), true)?;
    let rstd = var.add(eps)?.rsqrt()?;
    Ok((xc.mul(&rstd)?, rstd))
}

/// The input gradient of a normalization over `dims` whose statistics depend on the input:
/// `rstd · (gx̂ - mean(gx̂) - x̂ · mean(gx̂ · x̂))`, where `gx̂` is the gradient w.r.t. `x̂`.
pub(crate) fn standardize_backward(
    gxhat: &Tensor,
    xhat: &Tensor,
    rstd: &Tensor,
    dims: &[i64],
) -> Result<Tensor> {
    let m1 = gxhat.mean_dim(dims.to_vec(), true)?;
    let m2 = gxhat.mul(xhat)?.mean_dim(dims.to_vec(), true)?;
    gxhat.sub(&m1)?.sub(&xhat.mul(&m2)?)?.mul(rstd)
}

/// `layer_norm(x, normalized_shape, weight, bias, eps)` (`NativeLayerNormBackward0`), over
/// the last `k` dims. Inputs in order `x, weight, bias` (absent ones omitted); saves `x` and
/// `weight`. `gw = Σ_batch g·x̂`, `gb = Σ_batch g`, `gx` by [`standardize_backward`] of
/// `g·w`.
pub(crate) fn layer_norm(
    out: Tensor,
    x: &Tensor,
    k: usize,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let mut inputs = vec![x];
    inputs.extend(weight);
    inputs.extend(bias);
    let (has_w, has_b) = (weight.is_some(), bias.is_some());
    let rg: Vec<bool> = inputs.iter().map(|t| t.requires_grad()).collect();
    let nd = x.dim();
    let dims: Vec<i64> = (nd - k..nd).map(|d| d as i64).collect();
    let lead: Vec<i64> = (0..nd - k).map(|d| d as i64).collect();
    record(out, &inputs, || {
        let mut saved = vec![Save::Input(x.alias())];
        if let Some(w) = weight {
            saved.push(Save::Input(w.alias()));
        }
        node_saving(
            lam("NativeLayerNormBackward0", move |g, s| {
                if let Some(r) = layer_norm_f32(g, s, &rg, has_w, has_b, &lead, eps)? {
                    return Ok(r);
                }
                let g64 = f64_of(g)?;
                let (xhat, rstd) = standardize(&s[0], &dims, eps)?;
                let mut r = Vec::new();
                r.push(if rg[0] {
                    let gxhat = if has_w { g64.mul(&s[1])? } else { g64.alias() };
                    Some(standardize_backward(&gxhat, &xhat, &rstd, &dims)?)
                } else {
                    None
                });
                push_affine_grads(&mut r, &g64, &xhat, &rg, has_w, has_b, &lead)?;
                Ok(r)
            }),
            saved,
        )
    })
}

/// Appends `layer_norm`'s weight and bias gradients (those present; `None` where not
/// required) after the input's: `Σ_lead g·x̂` and `Σ_lead g`.
fn push_affine_grads(
    r: &mut Vec<Option<Tensor>>,
    g: &Tensor,
    xhat: &Tensor,
    rg: &[bool],
    has_w: bool,
    has_b: bool,
    lead: &[i64],
) -> Result<()> {
    let sum_lead = |t: Tensor| {
        if lead.is_empty() {
            Ok(t)
        } else {
            t.sum_dim(lead.to_vec(), false)
        }
    };
    if has_w {
        r.push(if rg[1] {
            Some(sum_lead(g.mul(xhat)?)?)
        } else {
            None
        });
    }
    if has_b {
        r.push(if rg[r.len()] {
            Some(sum_lead(g.alias())?)
        } else {
            None
        });
    }
    Ok(())
}

/// The float32 form of `NativeLayerNormBackward0` on the row kernel (PyTorch's
/// `LayerNormBackwardKernel`; statistics recomputed as the forward computes them): `None` when
/// an operand is not float32 (the float64 composite then runs).
fn layer_norm_f32(
    g: &Tensor,
    s: &[Tensor],
    rg: &[bool],
    has_w: bool,
    has_b: bool,
    lead: &[i64],
    eps: f64,
) -> Result<Option<Vec<Option<Tensor>>>> {
    let f32 = |t: &Tensor| t.dtype() == DType::Float32;
    if !f32(g) || !f32(&s[0]) || (has_w && !f32(&s[1])) {
        return Ok(None);
    }
    let x = s[0].try_contiguous()?;
    let gc = g.try_contiguous()?;
    let w = if has_w {
        Some(s[1].try_contiguous()?)
    } else {
        None
    };
    let n = x.size()[lead.len()..].iter().product::<usize>();
    let (dx, xhat) = crate::ops::nn::layer_norm_backward_f32(&x, &gc, w.as_ref(), n, eps)?;
    let mut r = vec![rg[0].then_some(dx)];
    push_affine_grads(&mut r, &gc, &xhat, rg, has_w, has_b, lead)?;
    Ok(Some(r))
}

/// `linalg.vector_norm(x, p, dims, keepdim)` (`LinalgVectorNormBackward0`): `g · sgn(x)` for
/// `p = 1`, `g · x / ‖x‖` for `p = 2` (0 where the norm is 0), `g · sgn(x)·|x|^(p-1) /
/// ‖x‖^(p-1)` otherwise; `p = ±∞`: `g · sgn(x)` split evenly among the elements reaching the
/// extremum; `p = 0`: no gradient (PyTorch's `norm_backward` returns an undefined tensor,
/// so `x.grad` stays `None`). Saves `x` and the output. `name`: `LinalgVectorNormBackward0`,
/// or `NormBackward1` for `at::norm(x, p, dim, keepdim)` (the same `norm_backward`).
pub(crate) fn vector_norm(
    name: &'static str,
    out: Tensor,
    x: &Tensor,
    p: f64,
    dims: &[i64],
    keepdim: bool,
) -> Result<Tensor> {
    if !crate::autograd::api::any_requires_grad(&[x]) {
        return Ok(out);
    }
    let sizes = x.size().to_vec();
    let ds = super::reduce::wrap_dims(x, dims);
    record(out, &[x], || {
        node_saving(
            lam(name, move |g, s| {
                if p == 0.0 {
                    return Ok(vec![None]);
                }
                let ge = super::reduce::expand_back(g, &sizes, &ds, keepdim)?;
                let ne = super::reduce::expand_back(&s[1], &sizes, &ds, keepdim)?;
                let x = &s[0];
                let sgn = |v: f64| {
                    if v > 0.0 {
                        1.0
                    } else if v < 0.0 {
                        -1.0
                    } else {
                        0.0
                    }
                };
                let r = if p.is_infinite() {
                    // evenly among the elements equal (in absolute value) to the norm
                    let hit = map_n(&[x, &ne], DType::Float64, |v| {
                        if v[0].abs() == v[1] { 1.0 } else { 0.0 }
                    })?;
                    let cnt = if ds.is_empty() || sizes.is_empty() {
                        hit.alias()
                    } else {
                        let d: Vec<i64> = ds.iter().map(|&d| d as i64).collect();
                        hit.sum_dim(d, true)?
                    };
                    map_n(&[&ge, x, &hit, &cnt], g.dtype(), |v| {
                        v[0] * sgn(v[1]) * v[2] / v[3]
                    })?
                } else if p == 1.0 {
                    map_n(&[&ge, x], g.dtype(), |v| v[0] * sgn(v[1]))?
                } else if p == 2.0 {
                    map_n(&[&ge, x, &ne], g.dtype(), |v| {
                        if v[2] == 0.0 { 0.0 } else { v[0] * v[1] / v[2] }
                    })?
                } else {
                    map_n(&[&ge, x, &ne], g.dtype(), move |v| {
                        if v[2] == 0.0 {
                            0.0
                        } else {
                            v[0] * sgn(v[1]) * v[1].abs().powf(p - 1.0) / v[2].powf(p - 1.0)
                        }
                    })?
                };
                Ok(vec![Some(r)])
            }),
            vec![Save::Input(x.alias()), Save::Output(0)],
        )
    })
}

/// How a channel normalization (`(N, C, *)` input, per-channel `weight` / `bias`) takes its
/// statistics.
#[derive(Clone)]
pub(crate) enum Stats {
    /// `batch_norm(training=True)`: over every dim but 1.
    Batch,
    /// `batch_norm(training=False)`: the running mean and variance (constants, one per
    /// channel, read at forward time).
    Running { mean: Vec<f64>, var: Vec<f64> },
    /// `group_norm(G)`: over each of the `G` channel groups of each sample.
    Group(usize),
}

/// `batch_norm` (`NativeBatchNormBackward0`), `group_norm` (`NativeGroupNormBackward0`) and
/// `instance_norm` (`Group(C)` or running statistics; PyTorch's composite runs `batch_norm` on
/// a `(1, N·C, *)` view, its `grad_fn` is the final view's `ViewBackward0`):
/// `y = x̂ · w + b` per channel. Inputs in order `x, weight, bias` (absent ones omitted);
/// saves `x` and `weight`. `gw = Σ g·x̂`, `gb = Σ g` over every dim but 1; `gx` by
/// [`standardize_backward`] of `g·w` (with running statistics, `g·w·rstd`: they are not
/// differentiable).
pub(crate) fn channel_norm(
    out: Tensor,
    x: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
    stats: impl FnOnce() -> Result<Stats>,
    name: &'static str,
) -> Result<Tensor> {
    let mut inputs = vec![x];
    inputs.extend(weight);
    inputs.extend(bias);
    if !crate::autograd::api::any_requires_grad(&inputs) {
        return Ok(out);
    }
    let stats = stats()?;
    let (has_w, has_b) = (weight.is_some(), bias.is_some());
    let rg: Vec<bool> = inputs.iter().map(|t| t.requires_grad()).collect();
    let sizes = x.size().to_vec();
    let nd = sizes.len();
    let (n, c) = (sizes[0], sizes[1]);
    // a per-channel vector as a tensor broadcasting against x: (C, 1, …, 1)
    let mut cshape = vec![c];
    cshape.resize(nd - 1, 1);
    let red: Vec<i64> = std::iter::once(0).chain(2..nd as i64).collect();
    record(out, &inputs, || {
        let mut saved = vec![Save::Input(x.alias())];
        if let Some(w) = weight {
            saved.push(Save::Input(w.alias()));
        }
        node_saving(
            lam(name, move |g, s| {
                let g64 = f64_of(g)?;
                let x = f64_of(&s[0])?;
                let chan = |v: Vec<f64>| Tensor::from_vec(v, &cshape[..]);
                let gxhat = if has_w {
                    g64.mul(&f64_of(&s[1])?.reshape(cshape.clone())?)?
                } else {
                    g64.alias()
                };
                let (xhat, gx) = match &stats {
                    Stats::Batch => {
                        let (xhat, rstd) = standardize(&x, &red, eps)?;
                        let gx = standardize_backward(&gxhat, &xhat, &rstd, &red)?;
                        (xhat, gx)
                    }
                    Stats::Running { mean, var } => {
                        let rstd = chan(var.iter().map(|v| 1.0 / (v + eps).sqrt()).collect())?;
                        let xhat = x.sub(&chan(mean.clone())?)?.mul(&rstd)?;
                        (xhat, gxhat.mul(&rstd)?)
                    }
                    Stats::Group(groups) => {
                        // the group size spelled out: `-1` is ambiguous for an empty batch
                        let per = (sizes.iter().product::<usize>() / (n * *groups).max(1)) as i64;
                        let gs = [n as i64, *groups as i64, per];
                        let (xhat, rstd) = standardize(&x.reshape(gs)?, &[2], eps)?;
                        let gx = standardize_backward(&gxhat.reshape(gs)?, &xhat, &rstd, &[2])?;
                        (xhat.reshape(sizes.clone())?, gx.reshape(sizes.clone())?)
                    }
                };
                let mut r = vec![rg[0].then_some(gx)];
                if has_w {
                    r.push(if rg[1] {
                        Some(g64.mul(&xhat)?.sum_dim(red.clone(), false)?)
                    } else {
                        None
                    });
                }
                if has_b {
                    r.push(if rg[r.len()] {
                        Some(g64.sum_dim(red.clone(), false)?)
                    } else {
                        None
                    });
                }
                Ok(r)
            }),
            saved,
        )
    })
}

/// `rms_norm` when it records: PyTorch's composite `x · rsqrt(mean(x², dims, keepdim) + eps)`
/// (then `· weight`), with recorded ops (`grad_fn` `MulBackward0`). `eps` already resolved
/// and rounded to the input's dtype; the last `k` dims are normalized.
pub(crate) fn rms_norm_composite(
    x: &Tensor,
    k: usize,
    weight: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let nd = x.dim();
    let dims: Vec<i64> = (nd - k..nd).map(|d| d as i64).collect();
    let ms = x.mul(x)?.mean_dim(dims, true)?;
    let y = x.mul(&ms.add(eps)?.rsqrt()?)?;
    match weight {
        Some(w) => y.mul(w),
        None => Ok(y),
    }
}

#[cfg(test)]
mod tests {
    use crate::tensor::Tensor;

    fn t(v: &[f64], s: &[usize]) -> Tensor {
        Tensor::from_vec(v.to_vec(), s).unwrap()
    }

    /// Central differences of `Σ f(x)·w` (fixed weights `w`) against the analytic gradient.
    fn check(x: &Tensor, f: impl Fn(&Tensor) -> Tensor) {
        let leaf = x.detach().requires_grad_(true).unwrap();
        let y = f(&leaf);
        let n = y.numel();
        let w: Vec<f64> = (0..n).map(|i| 0.3 + 0.7 * ((i * 7 % 5) as f64)).collect();
        let wt = t(&w, y.size());
        y.backward_with(Some(&wt), false).unwrap();
        let got = leaf.grad().unwrap().to_vec::<f64>();
        let xv = x.to_vec::<f64>();
        let obj = |v: &[f64]| -> f64 {
            let r = f(&t(v, x.size())).to_vec::<f64>();
            r.iter().zip(&w).map(|(a, b)| a * b).sum()
        };
        for i in 0..xv.len() {
            let (mut p, mut m) = (xv.clone(), xv.clone());
            p[i] += 1e-6;
            m[i] -= 1e-6;
            let fd = (obj(&p) - obj(&m)) / 2e-6;
            assert!(
                (fd - got[i]).abs() < 1e-5 * (1.0 + fd.abs()),
                "{i}: {fd} vs {}",
                got[i]
            );
        }
    }

    #[test]
    fn layer_norm_input_gradient_includes_the_statistics() {
        // the mean and the variance depend on x: the gradient is not just g·w·rstd
        let x = t(&[0.5, -1.0, 2.0, 0.25, 1.5, -0.75], &[2, 3]);
        let w = t(&[1.5, -0.5, 2.0], &[3]);
        let b = t(&[0.1, 0.2, 0.3], &[3]);
        check(&x, |x| x.layer_norm_with([3], (&w, &b, 1e-5)).unwrap());
    }

    #[test]
    fn batch_and_group_norm_gradients_match_finite_differences() {
        let x = t(
            &[
                0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 0.3, 0.9, -2.0, 1.0, 0.0, 0.6,
            ],
            &[2, 2, 3],
        );
        let w = t(&[1.5, -0.5], &[2]);
        check(&x, |x| {
            crate::optable::norm::batch_norm_with(
                x,
                None::<&Tensor>,
                None::<&Tensor>,
                crate::optable::norm::BatchNormOpts {
                    weight: Some(&w),
                    training: true,
                    ..Default::default()
                },
            )
            .unwrap()
        });
        // eval: the running statistics are constants
        let (rm, rv) = (t(&[0.5, -0.5], &[2]), t(&[2.0, 0.5], &[2]));
        check(&x, |x| {
            crate::optable::norm::batch_norm_with(x, &rm, &rv, (&w, &w)).unwrap()
        });
        check(&x, |x| crate::optable::norm::group_norm(x, 2).unwrap());
        check(&x, |x| crate::optable::norm::instance_norm(x).unwrap());
    }

    #[test]
    fn normalize_gradient_flows_through_the_norm() {
        let x = t(&[0.5, -1.0, 2.0, 0.25, 1.5, -0.75], &[2, 3]);
        check(&x, |x| x.normalize().unwrap());
        check(&x, |x| x.normalize_with((1.0, 0)).unwrap());
    }

    #[test]
    fn a_saved_input_modified_in_place_fails_backward() {
        let x = t(&[0.5, -1.0, 2.0, 0.25], &[1, 4])
            .requires_grad_(true)
            .unwrap();
        let h = x.mul(1.0).unwrap();
        let y = h.layer_norm([4]).unwrap();
        h.add_(1.0).unwrap();
        let e = y.sum().unwrap().backward().unwrap_err();
        assert!(
            e.message().contains("modified by an inplace operation"),
            "{}",
            e.message()
        );
    }
}
