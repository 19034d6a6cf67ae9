//! Losses (spec §9.6), reduction `none` / `mean` / `sum`: `g` scaled by `1/N` for `mean`.

use super::super::node::Save;
use super::super::record::{node, node_saving, record};
use super::pointwise::{lam, map_n};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The reduction of a loss, as its backward needs it.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Red {
    None,
    Mean,
    Sum,
}

/// A pointwise loss `l(x, y)` with derivative `d(x, y)` w.r.t. `x` (the target gets `-d`).
fn pointwise_loss(
    name: &'static str,
    out: Tensor,
    x: &Tensor,
    y: &Tensor,
    red: Red,
    d: impl Fn(f64, f64) -> f64 + Send + Sync + 'static,
) -> Result<Tensor> {
    record(out, &[x, y], || {
        node_saving(
            lam(name, move |g, s| {
                let n = crate::broadcast::infer_size(s[0].size(), s[1].size())?
                    .iter()
                    .product::<usize>() as f64;
                let k = if red == Red::Mean { 1.0 / n } else { 1.0 };
                let gx = map_n(&[g, &s[0], &s[1]], g.dtype(), |v| v[0] * k * d(v[1], v[2]))?;
                let gy = map_n(&[g, &s[0], &s[1]], g.dtype(), |v| -v[0] * k * d(v[1], v[2]))?;
                Ok(vec![Some(gx), Some(gy)])
            }),
            vec![Save::Input(x.alias()), Save::Input(y.alias())],
        )
    })
}

/// `mse_loss` (`MseLossBackward0`): `2(x - y)`.
pub(crate) fn mse(out: Tensor, x: &Tensor, y: &Tensor, red: Red) -> Result<Tensor> {
    pointwise_loss("MseLossBackward0", out, x, y, red, |a, b| 2.0 * (a - b))
}

/// `smooth_l1_loss(beta)` (`SmoothL1LossBackward0`): `(x - y)/beta` where `|x - y| < beta`,
/// else `sgn(x - y)`.
pub(crate) fn smooth_l1(
    out: Tensor,
    x: &Tensor,
    y: &Tensor,
    red: Red,
    beta: f64,
) -> Result<Tensor> {
    pointwise_loss("SmoothL1LossBackward0", out, x, y, red, move |a, b| {
        let z = a - b;
        if z.abs() < beta {
            z / beta
        } else if z > 0.0 {
            1.0
        } else if z < 0.0 {
            -1.0
        } else {
            0.0
        }
    })
}

/// PyTorch's `check_no_requires_grad` of the autograd kernels: in grad mode, an argument
/// with no derivative formula may not require grad. Error (RuntimeError): `The function
/// 'binary_cross_entropy_with_logits' is not differentiable with respect to argument
/// 'weight'. This input cannot have requires_grad True.`
pub(crate) fn check_no_requires_grad(t: Option<&Tensor>, arg: &str, func: &str) -> Result<()> {
    match t {
        Some(t) if crate::autograd::api::any_requires_grad(&[t]) => Err(Error::runtime(format!(
            "The function '{func}' is not differentiable with respect to argument '{arg}'. This input cannot have requires_grad True."
        ))),
        _ => Ok(()),
    }
}

/// `1/n` for `mean`, else 1.
fn norm(red: Red, n: usize) -> f64 {
    if red == Red::Mean {
        1.0 / n as f64
    } else {
        1.0
    }
}

/// The number of elements of the shapes of `ts` broadcast together.
fn bcount(ts: &[&Tensor]) -> Result<usize> {
    Ok(
        crate::broadcast::infer_size_all(ts.iter().map(|t| t.size()))?
            .iter()
            .product(),
    )
}

/// A node of a C++ composite's `op(Tensor, Scalar)` overload, whose derivative is the
/// constant `k` (`MulBackward1`, `DivBackward1`, `AddBackward1`: PyTorch's internal
/// `t * 0.9`, `t / 3`, `t + 0.1`, which Python's wrapped numbers would name `…Backward0`):
/// `out` was computed from `x` without recording.
pub(crate) fn scalar_op(name: &'static str, out: Tensor, x: &Tensor, k: f64) -> Result<Tensor> {
    record(out, &[x], || {
        node(lam(name, move |g, _| Ok(vec![Some(g.mul(k)?)])))
    })
}

/// `huber_loss(delta)` (`HuberLossBackward0`): `z = x - y` clamped to `[-delta, delta]`.
pub(crate) fn huber(out: Tensor, x: &Tensor, y: &Tensor, red: Red, delta: f64) -> Result<Tensor> {
    pointwise_loss("HuberLossBackward0", out, x, y, red, move |a, b| {
        (a - b).clamp(-delta, delta)
    })
}

/// `soft_margin_loss` (`SoftMarginLossBackward0`; the target is not differentiable):
/// `-y·e^(-yx) / (1 + e^(-yx))`, over `x`'s elements.
pub(crate) fn soft_margin(out: Tensor, x: &Tensor, y: &Tensor, red: Red) -> Result<Tensor> {
    record(out, &[x], || {
        node_saving(
            lam("SoftMarginLossBackward0", move |g, s| {
                let k = norm(red, s[0].numel());
                let gx = map_n(&[g, &s[0], &s[1]], g.dtype(), |v| {
                    let z = (-v[2] * v[1]).exp();
                    -v[0] * k * v[2] * z / (1.0 + z)
                })?;
                Ok(vec![Some(gx)])
            }),
            vec![Save::Input(x.alias()), Save::Input(y.alias())],
        )
    })
}

/// A float 0-d one standing for an absent optional weight.
fn one() -> Result<Tensor> {
    Tensor::scalar_tensor(1.0)
}

/// `binary_cross_entropy(weight)` (`BinaryCrossEntropyBackward0`; `weight`, already
/// expanded to the input's shape, is not differentiable): `w·(x - t) / max(x(1-x), 1e-12)`
/// for the input, `-w·logit(x)` for the target.
pub(crate) fn bce(
    out: Tensor,
    x: &Tensor,
    t: &Tensor,
    w: Option<&Tensor>,
    red: Red,
) -> Result<Tensor> {
    let w = match w {
        Some(w) => w.alias(),
        None => one()?,
    };
    record(out, &[x, t], || {
        node_saving(
            lam("BinaryCrossEntropyBackward0", move |g, s| {
                let k = norm(red, s[0].numel());
                let ts = [g, &s[0], &s[1], &s[2]];
                let gx = map_n(&ts, g.dtype(), |v| {
                    v[0] * k * v[3] * (v[1] - v[2]) / ((1.0 - v[1]) * v[1]).max(1e-12)
                })?;
                let gt = map_n(&ts, g.dtype(), |v| {
                    -v[0] * k * v[3] * (v[1] / (1.0 - v[1])).ln()
                })?;
                Ok(vec![Some(gx), Some(gt)])
            }),
            vec![
                Save::Input(x.alias()),
                Save::Input(t.alias()),
                Save::Input(w),
            ],
        )
    })
}

/// `binary_cross_entropy_with_logits(weight, pos_weight)`
/// (`BinaryCrossEntropyWithLogitsBackward0`; `weight` and `pos_weight` are not
/// differentiable). With `lw = 1 + (pw - 1)·t`: `w·(lw·σ(x) - lw + 1 - t)` for the input
/// (`w·(σ(x) - t)` without `pos_weight`), `-w·(x + (pw - 1)·logsigmoid(x))` for the target.
pub(crate) fn bce_with_logits(
    out: Tensor,
    x: &Tensor,
    t: &Tensor,
    w: Option<&Tensor>,
    pw: Option<&Tensor>,
    red: Red,
) -> Result<Tensor> {
    let w = match w {
        Some(w) => w.alias(),
        None => one()?,
    };
    let pw = match pw {
        Some(p) => p.alias(),
        None => one()?,
    };
    record(out, &[x, t], || {
        node_saving(
            lam("BinaryCrossEntropyWithLogitsBackward0", move |g, s| {
                let k = norm(red, bcount(&[&s[0], &s[1], &s[2], &s[3]])?);
                let ts = [g, &s[0], &s[1], &s[2], &s[3]];
                let gx = map_n(&ts, g.dtype(), |v| {
                    let (x, t, w, pw) = (v[1], v[2], v[3], v[4]);
                    let lw = 1.0 + (pw - 1.0) * t;
                    let sig = 1.0 / (1.0 + (-x).exp());
                    v[0] * k * w * (lw * sig - lw + 1.0 - t)
                })?;
                let gt = map_n(&ts, g.dtype(), |v| {
                    let (x, w, pw) = (v[1], v[3], v[4]);
                    let ls = x.min(0.0) - (-x.abs()).exp().ln_1p();
                    -v[0] * k * w * (x + (pw - 1.0) * ls)
                })?;
                Ok(vec![Some(gx), Some(gt)])
            }),
            vec![
                Save::Input(x.alias()),
                Save::Input(t.alias()),
                Save::Input(w),
                Save::Input(pw),
            ],
        )
    })
}

/// `nll_loss` (`NllLossBackward0` for `(C)` / `(N, C)` input, `NllLoss2DBackward0` for
/// `(N, C, H, W)`; `weight` is not differentiable): `-w[t]·g` at `[n, t, …]` of a zero
/// gradient, nothing at ignored positions; `mean` divides by the kept positions' total
/// weight. Saves the input (as PyTorch), the target and the weight.
pub(crate) fn nll(
    name: &'static str,
    out: Tensor,
    x: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    red: Red,
    ignore: i64,
) -> Result<Tensor> {
    let cd = if x.dim() == 1 { 0 } else { 1 };
    let mut saves = vec![Save::Input(x.alias()), Save::Input(target.alias())];
    if let Some(w) = weight {
        saves.push(Save::Input(w.alias()));
    }
    record(out, &[x], || {
        node_saving(
            lam(name, move |g, s| {
                let t = &s[1];
                let ign = t.eq(ignore)?;
                let idx = t.masked_fill(&ign, 0)?;
                let w = match s.get(2) {
                    Some(w) => w
                        .index_select(0, &idx.reshape([-1])?)?
                        .reshape(idx.size())?,
                    None => Tensor::ones_like(&idx)?,
                }
                .to(g.dtype())?;
                let gs = if red == Red::Mean {
                    g.div(&w.masked_fill(&ign, 0)?.sum()?)?
                } else {
                    g.alias()
                };
                let src = w.mul(&gs)?.neg()?.masked_fill(&ign, 0)?;
                let (idx, src) = if cd == 0 {
                    (
                        idx.reshape([-1])?.narrow(0, 0, 1)?,
                        src.reshape([-1])?.narrow(0, 0, 1)?,
                    )
                } else {
                    (idx.unsqueeze(1)?, src.unsqueeze(1)?)
                };
                let z = Tensor::zeros_with(s[0].size(), g.dtype())?;
                Ok(vec![Some(z.scatter(cd as i64, &idx, &src)?)])
            }),
            saves,
        )
    })
}

/// `multi_margin_loss(p, margin, weight)` (`MultiMarginLossBackward0`; `weight` not
/// differentiable): per sample `i` with target `y`, every class `d ≠ y` with `z = margin -
/// x[y] + x[d] > 0` gets `h = w[y]·(p == 1 ? 1 : 2z)·g/C` and `x[y]` gets `-h`.
pub(crate) fn multi_margin(
    out: Tensor,
    x: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    (p, margin): (i64, f64),
    red: Red,
    (nframe, dim): (usize, usize),
) -> Result<Tensor> {
    let mut saves = vec![Save::Input(x.alias()), Save::Input(target.alias())];
    if let Some(w) = weight {
        saves.push(Save::Input(w.alias()));
    }
    let per_sample = red == Red::None && target.dim() > 0;
    record(out, &[x], || {
        node_saving(
            lam("MultiMarginLossBackward0", move |g, s| {
                let dt = g.dtype();
                let x2 = s[0].reshape([nframe, dim])?;
                let y = s[1].reshape([nframe, 1])?;
                let onehot = Tensor::zeros_with([nframe, dim], dt)?.scatter(1, &y, 1.0)?;
                let z = x2.sub(&x2.gather(1, &y)?)?.add(margin)?;
                let on = z.gt(0)?.to(dt)?.mul(&onehot.neg()?.add(1)?)?;
                let mut h = if p == 1 { on } else { on.mul(&z)?.mul(2)? };
                if let Some(w) = s.get(2) {
                    h = h.mul(&w.index_select(0, &y.reshape([-1])?)?.reshape([nframe, 1])?)?;
                }
                let gs = if per_sample {
                    g.reshape([nframe, 1])?
                } else {
                    g.mul(norm(red, nframe))?
                };
                let h = h.mul(&gs)?.div(dim as f64)?;
                let gx = h.sub(&onehot.mul(&h.sum_dim(1, true)?)?)?;
                Ok(vec![Some(gx.reshape(s[0].size())?)])
            }),
            saves,
        )
    })
}

/// `multilabel_margin_loss` (`MultilabelMarginLossBackward0`): per sample, with the target
/// classes those listed before the first -1 (a class listed twice counts twice), every pair
/// (target `j`, non-target `i`) with `1 - x[j] + x[i] > 0` adds `g/C` to `x[i]` and takes it
/// from `x[j]`.
pub(crate) fn multilabel_margin(
    out: Tensor,
    x: &Tensor,
    target: &Tensor,
    red: Red,
    (nframe, dim): (usize, usize),
) -> Result<Tensor> {
    let per_sample = red == Red::None && target.dim() > 1;
    record(out, &[x], || {
        node_saving(
            lam("MultilabelMarginLossBackward0", move |g, s| {
                let dt = g.dtype();
                let x2 = s[0].reshape([nframe, dim])?;
                let t2 = s[1].reshape([nframe, dim])?;
                // entries before the first -1 of each row
                let valid = t2.ge(0)?.to(dt)?.cumprod(1)?;
                let idx = t2.clamp(0, dim as i64 - 1)?;
                let cnt = Tensor::zeros_with([nframe, dim], dt)?.scatter_add(1, &idx, &valid)?;
                let non_target = cnt.le(0)?.to(dt)?;
                // m[n, j, i] = cnt[n, j]·[i not a target]·[1 - x[j] + x[i] > 0]
                let z = x2.unsqueeze(1)?.sub(&x2.unsqueeze(2)?)?.add(1)?;
                let m = z
                    .gt(0)?
                    .to(dt)?
                    .mul(&cnt.unsqueeze(2)?)?
                    .mul(&non_target.unsqueeze(1)?)?;
                let gs = if per_sample {
                    g.reshape([nframe, 1])?
                } else {
                    g.mul(norm(red, nframe))?
                };
                let gx = m.sum_dim(1, false)?.sub(&m.sum_dim(2, false)?)?;
                let gx = gx.mul(&gs)?.div(dim as f64)?;
                Ok(vec![Some(gx.reshape(s[0].size())?)])
            }),
            vec![Save::Input(x.alias()), Save::Input(target.alias())],
        )
    })
}

/// What `ctc_loss`'s backward needs beyond its saved tensors: each sample's labels (read in
/// logical order), lengths, the blank, `zero_infinity`, and `log_probs`' `(T, N, C)`.
pub(crate) struct CtcData {
    pub targets: Vec<i64>,
    pub offsets: Vec<usize>,
    pub input_lengths: Vec<i64>,
    pub target_lengths: Vec<i64>,
    pub blank: usize,
    pub zero_infinity: bool,
    pub tnc: (usize, usize, usize),
}

/// `log(exp(a) + exp(b))` with `-inf` as the empty sum.
fn log_add(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if m == f64::NEG_INFINITY {
        return m;
    }
    ((a - m).exp() + (b - m).exp()).ln() + m
}

/// `log(Σ exp(v))` over three terms as PyTorch's CTC recursions compute it (a max of
/// `-inf` taken as 0).
fn log_sum3(a: f64, b: f64, c: f64) -> f64 {
    let mut m = a.max(b).max(c);
    if m == f64::NEG_INFINITY {
        m = 0.0;
    }
    ((a - m).exp() + (b - m).exp() + (c - m).exp()).ln() + m
}

impl CtcData {
    /// The gradient of one sample's loss (PyTorch's `ctc_loss_backward_cpu_template`):
    /// with `α`, `β` the log forward/backward variables and `lcab[t, k]` the log-sum of
    /// `α_t(s) + β_t(s)` over the extended-label positions `s` of class `k`,
    /// `(exp(lp) - exp(lcab + nll - lp))·g` for `t < input_length`, 0 after. Like PyTorch,
    /// this is the gradient with respect to the logits under `log_softmax` (the
    /// `exp(lp)` term), which is what `LogSoftmaxBackward0` then passes through unchanged.
    fn sample(&self, lp: &[f64], nll: f64, gr: f64, b: usize, grad: &mut [f64]) {
        let (_, n, c) = self.tnc;
        let ilen = self.input_lengths[b].max(0) as usize;
        let tlen = self.target_lengths[b].max(0) as usize;
        if ilen == 0 || (self.zero_infinity && nll == f64::INFINITY) {
            return;
        }
        let at = |t: usize, k: usize| lp[(t * n + b) * c + k];
        let prime = |s: usize| -> usize {
            if s.is_multiple_of(2) {
                self.blank
            } else {
                self.targets[self.offsets[b] + s / 2].clamp(0, c as i64 - 1) as usize
            }
        };
        let w = 2 * tlen + 1;
        let ninf = f64::NEG_INFINITY;
        let mut la = vec![ninf; ilen * w];
        la[0] = at(0, self.blank);
        if tlen > 0 {
            la[1] = at(0, prime(1));
        }
        for t in 1..ilen {
            for s in 0..w {
                let cp = prime(s);
                let p = &la[(t - 1) * w..t * w];
                let l2 = if s > 0 { p[s - 1] } else { ninf };
                let l3 = if s > 1 && prime(s - 2) != cp {
                    p[s - 2]
                } else {
                    ninf
                };
                let v = log_sum3(p[s], l2, l3) + at(t, cp);
                la[t * w + s] = v;
            }
        }
        let mut lb = vec![ninf; ilen * w];
        let last = ilen - 1;
        lb[last * w + 2 * tlen] = at(last, self.blank);
        if tlen > 0 {
            lb[last * w + 2 * tlen - 1] = at(last, prime(2 * tlen - 1));
        }
        for t in (0..last).rev() {
            for s in 0..w {
                let cp = prime(s);
                let nx = &lb[(t + 1) * w..(t + 2) * w];
                let l2 = if s + 1 < w { nx[s + 1] } else { ninf };
                let l3 = if s + 2 < w && prime(s + 2) != cp {
                    nx[s + 2]
                } else {
                    ninf
                };
                let v = log_sum3(nx[s], l2, l3) + at(t, cp);
                lb[t * w + s] = v;
            }
        }
        for t in 0..ilen {
            let mut lcab = vec![ninf; c];
            for s in 0..w {
                let k = prime(s);
                lcab[k] = log_add(lcab[k], la[t * w + s] + lb[t * w + s]);
            }
            for (k, l) in lcab.iter().enumerate() {
                let p = at(t, k);
                grad[(t * n + b) * c + k] = (p.exp() - (l + nll - p).exp()) * gr;
            }
        }
    }
}

/// `_ctc_loss` (`CtcLossBackward0`): `out` the per-sample negative log-likelihoods `(N)` of
/// `log_probs` `(T, N, C)`; see [`CtcData::sample`] for the gradient. Saves `log_probs` and
/// the output.
pub(crate) fn ctc(out: Tensor, log_probs: &Tensor, d: CtcData) -> Result<Tensor> {
    record(out, &[log_probs], || {
        node_saving(
            lam("CtcLossBackward0", move |g, s| {
                let lp = s[0].try_to_vec::<f64>()?;
                let nll = s[1].try_to_vec::<f64>()?;
                let gr = g.try_to_vec::<f64>()?;
                let mut grad = vec![0.0; lp.len()];
                for (b, (&l, &gb)) in nll.iter().zip(&gr).enumerate() {
                    d.sample(&lp, l, gb, b, &mut grad);
                }
                Ok(vec![Some(
                    Tensor::from_vec(grad, s[0].size())?.to(g.dtype())?,
                )])
            }),
            vec![Save::Input(log_probs.alias()), Save::Output(0)],
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::Tensor;
    use crate::nn::functional as F;

    fn leaf(v: &[f64], shape: &[usize]) -> Tensor {
        let t = Tensor::from_vec(v.to_vec(), shape).unwrap();
        t.requires_grad_(true).unwrap();
        t
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-12, "{a:?} != {b:?}");
        }
    }

    const X: [f64; 6] = [0.5, -1.0, 2.0, 1.5, 0.25, -0.5];

    #[test]
    fn nll_mean_divides_by_the_kept_weight_and_skips_ignored() {
        let x = leaf(&X, &[2, 3]);
        let t = Tensor::from_vec(vec![2i64, 0], [2]).unwrap();
        let w = Tensor::from_vec(vec![1.0, 2.0, 0.5], [3]).unwrap();
        let o = F::NllLossOpts {
            weight: Some(&w),
            ignore_index: 0,
            ..Default::default()
        };
        let r = F::nll_loss_with(&x, &t, o).unwrap();
        assert_eq!(r.grad_fn().unwrap().name(), "NllLossBackward0");
        r.backward().unwrap();
        // torch: -2.0, grad [0, 0, -1, 0, 0, 0]
        assert_eq!(r.item::<f64>().unwrap(), -2.0);
        close(
            &x.grad().unwrap().to_vec::<f64>(),
            &[0.0, 0.0, -1.0, 0.0, 0.0, 0.0],
        );
        // a weight that requires grad is refused, as PyTorch's nll_loss_forward
        let w = leaf(&[1.0, 2.0, 0.5], &[3]);
        let o = F::NllLossOpts {
            weight: Some(&w),
            ..Default::default()
        };
        assert_eq!(
            F::nll_loss_with(&x, &t, o).unwrap_err().message(),
            "The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'. This input cannot have requires_grad True."
        );
    }

    #[test]
    fn cross_entropy_is_pytorchs_composition() {
        let x = leaf(&X, &[2, 3]);
        let t = Tensor::from_vec(vec![2i64, 0], [2]).unwrap();
        let w = Tensor::from_vec(vec![1.0, 2.0, 0.5], [3]).unwrap();
        let o = F::CrossEntropyOpts {
            weight: Some(&w),
            label_smoothing: 0.25,
            ..Default::default()
        };
        let r = F::cross_entropy_with(&x, &t, o).unwrap();
        let f = r.grad_fn().unwrap();
        assert_eq!(f.name(), "AddBackward0");
        assert_eq!(
            f.next_functions()[0].as_ref().unwrap().0.name(),
            "MulBackward1"
        );
        r.backward().unwrap();
        assert!((r.item::<f64>().unwrap() - 0.962_771_592_821_793_3).abs() < 1e-12);
        close(
            &x.grad().unwrap().to_vec::<f64>(),
            &[
                0.022351285395571862,
                -0.09372774521302779,
                0.07137645981745591,
                -0.0671430722071014,
                0.02882140821461873,
                0.038321663992482644,
            ],
        );
        // probability targets (which may require grad), smoothed
        let x = leaf(&X, &[2, 3]);
        let tt = leaf(&[0.25, 0.5, 0.25, 1.0, 0.0, 0.0], &[2, 3]);
        let r = F::cross_entropy_with(
            &x,
            &tt,
            F::CrossEntropyOpts {
                label_smoothing: 0.1,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.grad_fn().unwrap().name(), "DivBackward1");
        r.backward().unwrap();
        assert!((r.item::<f64>().unwrap() - 1.269_548_246_896_646_1).abs() < 1e-12);
        close(
            &x.grad().unwrap().to_vec::<f64>(),
            &[
                -0.04152147059664833,
                -0.22211038003132294,
                0.26363185062797123,
                -0.11500967865577971,
                0.0840847472478588,
                0.03092493140792083,
            ],
        );
        close(
            &tt.grad().unwrap().to_vec::<f64>(),
            &[
                0.7835900834957207,
                1.4585900834957208,
                0.10859008349572066,
                0.1583783387112608,
                0.7208783387112608,
                1.0583783387112609,
            ],
        );
    }

    #[test]
    fn nll_of_a_3d_input_goes_through_views() {
        let x = leaf(&[0.5, -1.0, 2.0, 1.5, 0.25, -0.5], &[1, 3, 2]);
        let t = Tensor::from_vec(vec![2i64, 0], [1, 2]).unwrap();
        let o = F::NllLossOpts {
            reduction: "none".into(),
            ..Default::default()
        };
        let r = F::nll_loss_with(&x, &t, o).unwrap();
        let f = r.grad_fn().unwrap();
        assert_eq!(f.name(), "ViewBackward0");
        assert_eq!(
            f.next_functions()[0].as_ref().unwrap().0.name(),
            "NllLoss2DBackward0"
        );
        r.sum().unwrap().backward().unwrap();
        close(
            &x.grad().unwrap().to_vec::<f64>(),
            &[0.0, -1.0, 0.0, 0.0, -1.0, 0.0],
        );
    }

    #[test]
    fn margin_losses_match_pytorch() {
        let x = leaf(&X, &[2, 3]);
        let t = Tensor::from_vec(vec![2i64, 0], [2]).unwrap();
        let w = Tensor::from_vec(vec![1.0, 2.0, 0.5], [3]).unwrap();
        let o = F::MultiMarginLossOpts {
            p: 2,
            margin: 1.5,
            weight: Some(&w),
            ..Default::default()
        };
        let r = F::multi_margin_loss_with(&x, &t, o).unwrap();
        assert_eq!(r.grad_fn().unwrap().name(), "MultiMarginLossBackward0");
        r.backward().unwrap();
        close(
            &x.grad().unwrap().to_vec::<f64>(),
            &[0.0, 0.0, 0.0, -1.0 / 12.0, 1.0 / 12.0, 0.0],
        );
        let x = leaf(&X, &[2, 3]);
        let t = Tensor::from_vec(vec![2i64, 2, -1, 1, -1, 0], [2, 3]).unwrap();
        let r = F::multilabel_margin_loss(&x, &t).unwrap();
        assert_eq!(r.grad_fn().unwrap().name(), "MultilabelMarginLossBackward0");
        r.backward().unwrap();
        close(
            &x.grad().unwrap().to_vec::<f64>(),
            &[0.0, 0.0, 0.0, 1.0 / 6.0, -1.0 / 3.0, 1.0 / 6.0],
        );
    }

    #[test]
    fn bce_with_logits_refuses_a_weight_that_requires_grad() {
        let x = leaf(&[0.5, -1.0], &[2]);
        let t = Tensor::from_vec(vec![1.0, 0.25], [2]).unwrap();
        let pw = leaf(&[2.0, 2.0], &[2]);
        let o = || F::BceWithLogitsOpts {
            pos_weight: Some(&pw),
            ..Default::default()
        };
        assert_eq!(
            F::binary_cross_entropy_with_logits_with(&x, &t, o())
                .unwrap_err()
                .message(),
            "The function 'binary_cross_entropy_with_logits' is not differentiable with respect to argument 'pos_weight'. This input cannot have requires_grad True."
        );
        // under no_grad the check is off
        let _g = crate::no_grad();
        assert!(F::binary_cross_entropy_with_logits_with(&x, &t, o()).is_ok());
    }

    #[test]
    fn ctc_gradient_is_pytorchs_logit_gradient() {
        // torch.manual_seed(0); randn(4, 1, 3) as raw log_probs (not normalized): PyTorch's
        // CtcLossBackward0 gives exp(lp) - exp(lcab + nll - lp), not ∂loss/∂lp
        let lp = leaf(
            &[
                1.5409961082440433,
                -0.2934289057609464,
                -2.1787893820745574,
                0.5684312772806678,
                -1.084522342424021,
                -1.3985953953708767,
                0.4033468476292993,
                0.8380263329976598,
                -0.7192575784693592,
                -0.40334352493217457,
                -0.5966353626151273,
                0.18203648506130554,
            ],
            &[4, 1, 3],
        );
        let tg = Tensor::from_vec(vec![1i64, 2], [1, 2]).unwrap();
        let il = Tensor::from_vec(vec![3i64], [1]).unwrap();
        let tl = Tensor::from_vec(vec![1i64], [1]).unwrap();
        let o = F::CtcLossOpts {
            reduction: "sum".into(),
            ..Default::default()
        };
        let r = F::ctc_loss_with(&lp, &tg, &il, &tl, o).unwrap();
        let f = r.grad_fn().unwrap();
        assert_eq!(f.name(), "SumBackward0");
        assert_eq!(
            f.next_functions()[0].as_ref().unwrap().0.name(),
            "CtcLossBackward0"
        );
        r.backward().unwrap();
        assert!((r.item::<f64>().unwrap() + 3.332_205_587_772_436_6).abs() < 1e-12);
        close(
            &lp.grad().unwrap().to_vec::<f64>(),
            &[
                3.7739087524801906,
                0.6410325063901922,
                0.11317846361379469,
                1.014496526862915,
                0.08906200428843511,
                0.24694357854994156,
                1.328586853709995,
                1.4800388667577584,
                0.48711376549451024,
                0.0,
                0.0,
                0.0,
            ],
        );
    }
}
