//! `torch.nn.functional`'s losses, with PyTorch 2.15's formulas (as its ATen kernels and
//! `functional.py` compose them), dtypes, output layouts, warnings and error texts.
//!
//! The pointwise losses are composed of the crate's pointwise ops exactly as PyTorch composes
//! them, so their `reduction='none'` results have PyTorch's layouts; the class losses
//! (cross_entropy, nll_loss), the margin losses and ctc_loss run their own loops (in double,
//! rounded once to the input's dtype), with a fused float32 kernel for cross_entropy over
//! `(N, C)` logits.

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::nn::loss_opts::*;
use crate::warnings::warn;

/// `torch.Size([2, 3])`, as Python prints a size.
fn torch_size(s: &[usize]) -> String {
    format!("torch.Size({})", fmt_list(s))
}

/// `loss.mean()` / `loss.sum()` / `loss` (`apply_loss_reduction`).
fn apply_reduction(loss: Tensor, r: &Reduction) -> Result<Tensor> {
    match r.check()? {
        Reduction::Mean => loss.mean(),
        Reduction::Sum => loss.sum(),
        _ => Ok(loss),
    }
}

fn float_only(t: &Tensor, kernel: &str) -> Result<()> {
    if t.dtype().is_floating_point() {
        Ok(())
    } else {
        Err(Error::not_implemented_for(kernel, t.dtype()))
    }
}

/// A contiguous tensor of `shape` holding `v` (row-major), cast to `dtype`.
fn from_f64(v: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    let t = Tensor::from_vec(v, shape)?;
    if dtype == DType::Float64 {
        Ok(t)
    } else {
        t.to(dtype)
    }
}

/// The size-mismatch warning of mse/l1/smooth_l1/huber, then `broadcast_tensors`.
fn broadcast_pair(input: &Tensor, target: &Tensor) -> Result<(Tensor, Tensor)> {
    if input.size() != target.size() {
        warn(&format!(
            "Using a target size ({}) that is different to the input size ({}). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            torch_size(target.size()),
            torch_size(input.size())
        ));
    }
    let mut v = Tensor::broadcast_tensors(&[input, target])?;
    let t = v.pop().expect("two tensors");
    let i = v.pop().expect("two tensors");
    Ok((i, t))
}

/// The weighted form of mse/l1 (`functional.py`): `loss * weight`, mean = sum / sum(weight).
fn weighted(loss: Tensor, input: &Tensor, weight: &Tensor, r: &Reduction) -> Result<Tensor> {
    if weight.size() != input.size() {
        return Err(Error::value("Weights and input must have the same size."));
    }
    let w = loss.mul(weight)?;
    match r {
        Reduction::None => Ok(w),
        Reduction::Sum => w.sum(),
        Reduction::Mean => w.sum()?.div(&weight.sum()?),
        r => Err(Error::value(format!(
            "Invalid reduction mode: {}. Expected one of 'none', 'mean', 'sum'.",
            r.name()
        ))),
    }
}

// ------------------------------------------------------------------ pointwise losses

/// `F.mse_loss(input, target)` (mean of squared differences); see [`mse_loss_with`].
pub fn mse_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    mse_loss_with(input, target, MseLossOpts::default())
}

/// `F.mse_loss(input, target, reduction, weight)`: `(input - target)²`, reduced.
///
/// Shapes: `input` and `target` broadcast (with PyTorch's UserWarning `Using a target size
/// (torch.Size([1])) that is different to the input size (torch.Size([3])). This will likely
/// lead to incorrect results …` when they differ); `none` gives the broadcast shape (laid out
/// as the pointwise ops lay it out), `mean`/`sum` a 0-d tensor. dtype: the promoted float
/// dtype. With `weight` (the input's size): `loss * weight`, mean = sum / `weight.sum()`.
///
/// Errors: the broadcast error `The size of tensor a (3) must match the size of tensor b (2)
/// at non-singleton dimension 1`; ValueError `Weights and input must have the same size.`,
/// `foo is not a valid value for reduction`.
pub fn mse_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<MseLossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let (i, t) = broadcast_pair(input, target)?;
    if let Some(w) = o.weight {
        let d = i.sub(&t)?;
        return weighted(d.pow(2)?, input, w, &o.reduction);
    }
    let r = o.reduction.check()?;
    let out = {
        let _ng = crate::autograd::no_grad();
        apply_reduction(i.sub(&t)?.square()?, &r)?
    };
    match red_of(&r) {
        Some(red) => crate::autograd::formulas::loss::mse(out, input, target, red),
        None => Ok(out),
    }
}

/// The reduction as the loss formulas take it.
fn red_of(r: &Reduction) -> Option<crate::autograd::formulas::loss::Red> {
    use crate::autograd::formulas::loss::Red;
    match r {
        Reduction::None => Some(Red::None),
        Reduction::Mean => Some(Red::Mean),
        Reduction::Sum => Some(Red::Sum),
        _ => None,
    }
}

/// `F.l1_loss(input, target)`: mean absolute difference; see [`l1_loss_with`].
pub fn l1_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    l1_loss_with(input, target, L1LossOpts::default())
}

/// `F.l1_loss(input, target, reduction, weight)`: `|input - target|`, reduced. Shapes,
/// dtypes, warning and errors as [`mse_loss_with`].
pub fn l1_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<L1LossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let (i, t) = broadcast_pair(input, target)?;
    if let Some(w) = o.weight {
        return weighted(i.sub(&t)?.abs()?, input, w, &o.reduction);
    }
    let r = o.reduction.check()?;
    apply_reduction(i.sub(&t)?.abs()?, &r)
}

/// `z = |input - target|` after the size warning and broadcast (smooth_l1 / huber), and a
/// fresh tensor laid out as PyTorch's single binary kernel over `(input, target)` lays out
/// its output (the result is written into it, whatever layout the composition gave).
fn abs_diff(input: &Tensor, target: &Tensor) -> Result<(Tensor, Tensor)> {
    let (i, t) = broadcast_pair(input, target)?;
    let d = i.sub(&t)?;
    Ok((d.abs()?, d))
}

/// `out` (already laid out as the loss must be) filled with `loss`'s values.
fn into_layout(out: Tensor, loss: &Tensor) -> Result<Tensor> {
    out.copy_(loss)?;
    Ok(out)
}

/// `F.smooth_l1_loss(input, target)` (`beta=1`); see [`smooth_l1_loss_with`].
pub fn smooth_l1_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    smooth_l1_loss_with(input, target, SmoothL1LossOpts::default())
}

/// `F.smooth_l1_loss(input, target, reduction, beta)`: with `z = |input - target|`,
/// `0.5·z²/beta` where `z < beta`, else `z - 0.5·beta`; `beta = 0` is l1_loss.
/// Shapes, dtypes, warning and errors as [`mse_loss_with`], and RuntimeError
/// `smooth_l1_loss does not support negative values for beta.`; for a `beta` above 0 the
/// promoted dtype must be a float one (NotImplementedError `"smooth_l1_cpu" not implemented
/// for 'Long'`).
pub fn smooth_l1_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<SmoothL1LossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let (z, out) = abs_diff(input, target)?;
    let r = o.reduction.check()?;
    if o.beta == 0.0 {
        return apply_reduction(z, &r);
    }
    if o.beta < 0.0 {
        return Err(Error::runtime(
            "smooth_l1_loss does not support negative values for beta.",
        ));
    }
    // `smooth_l1_cpu`: the float dtypes only (beta 0 is `l1_loss`, which takes any)
    if !z.dtype().is_floating_point() {
        return Err(Error::not_implemented_for("smooth_l1_cpu", z.dtype()));
    }
    let res = {
        let _ng = crate::autograd::no_grad();
        let quad = z.square()?.mul(0.5)?.div(o.beta)?;
        let lin = z.sub(0.5 * o.beta)?;
        let loss = crate::where_cond(&z.lt(o.beta)?, &quad, &lin)?;
        apply_reduction(into_layout(out, &loss)?, &r)?
    };
    match red_of(&r) {
        Some(red) => crate::autograd::formulas::loss::smooth_l1(res, input, target, red, o.beta),
        None => Ok(res),
    }
}

/// `F.huber_loss(input, target)` (`delta=1`); see [`huber_loss_with`].
pub fn huber_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    huber_loss_with(input, target, HuberLossOpts::default())
}

/// `F.huber_loss(input, target, reduction, delta, weight)`: with `z = |input - target|`,
/// `0.5·z²` where `z < delta`, else `delta·(z - 0.5·delta)`; `weight` (the input's size)
/// multiplies the unreduced loss (mean is then the plain mean). Shapes, dtypes, warning and
/// errors as [`mse_loss_with`], and ValueError `Weights and input must have the same size.`,
/// RuntimeError `huber_loss does not support non-positive values for delta.`
pub fn huber_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<HuberLossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let d = o.delta;
    let loss = {
        let _ng = crate::autograd::no_grad();
        let (z, out) = abs_diff(input, target)?;
        if let Some(w) = o.weight
            && w.size() != input.size()
        {
            return Err(Error::value("Weights and input must have the same size."));
        }
        if d <= 0.0 || d.is_nan() {
            return Err(Error::runtime(
                "huber_loss does not support non-positive values for delta.",
            ));
        }
        let quad = z.square()?.mul(0.5)?;
        let lin = z.sub(0.5 * d)?.mul(d)?;
        // F.huber_loss broadcasts the pair first (torch.broadcast_tensors), then writes into
        // `empty_like(expanded input)`: preserve-format strides of the expanded input.
        let (ei, _) = broadcast_pair(input, target)?;
        let out = Tensor::empty_like_with(&ei, out.dtype())?;
        into_layout(out, &crate::where_cond(&z.lt(d)?, &quad, &lin)?)?
    };
    if let Some(w) = o.weight {
        if w.size() != input.size() {
            return Err(Error::value("Weights and input must have the same size."));
        }
        let loss = crate::autograd::formulas::loss::huber(
            loss,
            input,
            target,
            crate::autograd::formulas::loss::Red::None,
            d,
        )?;
        let wl = loss.mul(w)?;
        return match o.reduction {
            Reduction::None => Ok(wl),
            Reduction::Sum => wl.sum(),
            Reduction::Mean => wl.mean(),
            r => Err(Error::value(format!(
                "Invalid reduction mode: {}. Expected one of 'none', 'mean', 'sum'.",
                r.name()
            ))),
        };
    }
    let out = {
        let _ng = crate::autograd::no_grad();
        apply_reduction(loss, &o.reduction)?
    };
    match red_of(&o.reduction) {
        Some(red) => crate::autograd::formulas::loss::huber(out, input, target, red, d),
        None => Ok(out),
    }
}

/// `F.soft_margin_loss(input, target)`; see [`soft_margin_loss_with`].
pub fn soft_margin_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    soft_margin_loss_with(input, target, ReductionOpts::default())
}

/// `F.soft_margin_loss(input, target, reduction)`: `log(1 + exp(-target·input))`, computed
/// as PyTorch does into an output shaped like `input` (`neg(input).mul_(target).exp_()
/// .log1p_()`), so `target` must broadcast to `input`'s shape. dtype: `input`'s.
///
/// Errors: `The size of tensor a (4) must match the size of tensor b (2) at non-singleton
/// dimension 1`; `output with shape [1, 1] doesn't match the broadcast shape [2, 2]`.
pub fn soft_margin_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<ReductionOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let r = o.reduction.check()?;
    crate::autograd::formulas::loss::check_no_requires_grad(
        Some(target),
        "target",
        "soft_margin_loss",
    )?;
    let res = {
        let _ng = crate::autograd::no_grad();
        let out = input.neg()?;
        out.mul_(target)?;
        out.exp_()?;
        out.log1p_()?;
        apply_reduction(out, &r)?
    };
    match red_of(&r) {
        Some(red) => crate::autograd::formulas::loss::soft_margin(res, input, target, red),
        None => Ok(res),
    }
}

/// `F.hinge_embedding_loss(input, target)` (`margin=1`); see [`hinge_embedding_loss_with`].
pub fn hinge_embedding_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    hinge_embedding_loss_with(
        input,
        target,
        MarginOpts {
            margin: 1.0,
            ..Default::default()
        },
    )
}

/// `F.hinge_embedding_loss(input, target, margin, reduction)`: `where(target != 1,
/// max(margin - input, 0), 0) + where(target != -1, input, 0)` (note: pass `margin: 1.0`
/// for PyTorch's default; `MarginOpts::default()` has 0). Shapes broadcast (input, target);
/// `margin - input` is taken in `input`'s dtype (PyTorch's C++ `Scalar - Tensor`), so an
/// integer input gives an integer loss (and `reduction="mean"` then fails as `mean` does).
///
/// Errors: the broadcast error `The size of tensor a (2) must match the size of tensor b (3)
/// at non-singleton dimension 1`.
pub fn hinge_embedding_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<MarginOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let zeros = Tensor::zeros_like(input)?;
    // C++'s `margin - self` is `empty_like(self).fill_(margin).sub_(self)`: in self's dtype
    // (an integer input truncates the margin and stays integral)
    let margin_clamp = Tensor::empty_like(input)?
        .fill_(o.margin)?
        .sub(input)?
        .clamp_min(0)?;
    let out_margin = crate::where_cond(&target.ne(1)?, &margin_clamp, &zeros)?;
    let out_self = crate::where_cond(&target.ne(-1)?, input, &zeros)?;
    apply_reduction(out_margin.add(&out_self)?, &o.reduction)
}

/// `F.poisson_nll_loss(input, target)`; see [`poisson_nll_loss_with`].
pub fn poisson_nll_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    poisson_nll_loss_with(input, target, PoissonNllLossOpts::default())
}

/// `F.poisson_nll_loss(input, target, log_input, full, eps, reduction)`:
/// `exp(input) - target·input` (log_input) or `input - target·log(input + eps)`; `full` adds
/// the Stirling term `target·log(target) - target + 0.5·log(2π·target)` where `target > 1`.
/// Shapes broadcast; dtype promoted.
///
/// Errors: the broadcast error; ValueError `foo is not a valid value for reduction`.
pub fn poisson_nll_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<PoissonNllLossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    if !matches!(
        o.reduction,
        Reduction::None | Reduction::Mean | Reduction::Sum
    ) {
        return Err(Error::value(format!(
            "{} is not a valid value for reduction",
            o.reduction.name()
        )));
    }
    let mut loss = if o.log_input {
        input.exp()?.sub(&target.mul(input)?)?
    } else {
        input.sub(&target.mul(&input.add(o.eps)?.log()?)?)?
    };
    if o.full {
        let stirling = target
            .mul(&target.log()?)?
            .sub(target)?
            .add(&target.mul(2.0 * std::f64::consts::PI)?.log()?.mul(0.5)?)?;
        let stirling = stirling.masked_fill(&target.le(1)?, 0)?;
        loss = loss.add_(&stirling)?;
    }
    apply_reduction(loss, &o.reduction)
}

/// `F.kl_div(input, target)` (`reduction='mean'`, with PyTorch's UserWarning about
/// 'mean'); see [`kl_div_with`].
pub fn kl_div(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    kl_div_with(input, target, KlDivOpts::default())
}

/// `F.kl_div(input, target, reduction, log_target)`: `exp(target)·(target - input)`
/// (log_target) or `xlogy(target, target) - target·input`; `batchmean` is the sum divided by
/// `input.size(0)` (the sum itself for a 0-d input); `mean` warns (`reduction: 'mean' divides
/// the total loss by both the batch size and the support size.…`). Shapes broadcast; dtype
/// promoted.
///
/// Errors: the broadcast error; ValueError `foo is not a valid value for reduction`;
/// RuntimeError `kl_div: Integral inputs not supported.` (an integer or bool input or target).
pub fn kl_div_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<KlDivOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    if o.reduction == Reduction::Mean {
        warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to behave the same as 'batchmean' in the next major release.",
        );
    }
    let r = if o.reduction == Reduction::BatchMean {
        Reduction::Sum
    } else {
        o.reduction.check()?
    };
    if !input.dtype().is_floating_point() || !target.dtype().is_floating_point() {
        return Err(Error::runtime("kl_div: Integral inputs not supported."));
    }
    let out = if o.log_target {
        target.exp()?.mul(&target.sub(input)?)?
    } else {
        crate::xlogy(target, target)?.sub(&target.mul(input)?)?
    };
    let red = apply_reduction(out, &r)?;
    if o.reduction == Reduction::BatchMean && input.dim() != 0 {
        return red.div(input.size()[0] as i64);
    }
    Ok(red)
}

/// `F.binary_cross_entropy(input, target)`; see [`binary_cross_entropy_with`].
pub fn binary_cross_entropy(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    binary_cross_entropy_with(input, target, BinaryCrossEntropyOpts::default())
}

/// `F.binary_cross_entropy(input, target, weight, reduction)`: `-w·(t·log(x) +
/// (1-t)·log(1-x))`, each log clamped at -100. `input` and `target` of the same size (float);
/// `weight` broadcast to it. `none` gives a tensor laid out like `input`; dtype `input`'s.
///
/// Errors: ValueError `Using a target size (torch.Size([4, 4])) that is different to the
/// input size (torch.Size([3, 3])) is deprecated. Please ensure they have the same size.`;
/// RuntimeError `all elements of input should be between 0 and 1`, `all elements of target
/// should be between 0 and 1`; the broadcast error of `weight`.
pub fn binary_cross_entropy_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<BinaryCrossEntropyOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let r = o.reduction.check()?;
    if target.size() != input.size() {
        return Err(Error::value(format!(
            "Using a target size ({}) that is different to the input size ({}) is deprecated. Please ensure they have the same size.",
            torch_size(target.size()),
            torch_size(input.size())
        )));
    }
    let weight = match o.weight {
        Some(w) => {
            let s = crate::broadcast::infer_size(target.size(), w.size())?;
            Some(w.expand(&s[..])?)
        }
        None => None,
    };
    crate::autograd::formulas::loss::check_no_requires_grad(
        weight.as_ref(),
        "weight",
        "binary_cross_entropy",
    )?;
    float_only(input, "binary_cross_entropy")?;
    let x = input.try_to_vec::<f64>()?;
    let t = target.try_to_vec::<f64>()?;
    let mut v = Vec::with_capacity(x.len());
    for (&x, &t) in x.iter().zip(&t) {
        if !(0.0..=1.0).contains(&x) {
            return Err(Error::runtime(
                "all elements of input should be between 0 and 1",
            ));
        }
        if !(0.0..=1.0).contains(&t) {
            return Err(Error::runtime(
                "all elements of target should be between 0 and 1",
            ));
        }
        v.push((t - 1.0) * (-x).ln_1p().max(-100.0) - t * x.ln().max(-100.0));
    }
    let vals = from_f64(v, input.size(), input.dtype())?;
    let loss = Tensor::empty_like(input)?;
    loss.copy_(&vals)?;
    if let Some(w) = &weight {
        loss.mul_(w)?;
    }
    let out = apply_reduction(loss, &r)?;
    match red_of(&r) {
        Some(red) => crate::autograd::formulas::loss::bce(out, input, target, weight.as_ref(), red),
        None => Ok(out),
    }
}

/// `F.binary_cross_entropy_with_logits(input, target)`; see
/// [`binary_cross_entropy_with_logits_with`].
pub fn binary_cross_entropy_with_logits(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    binary_cross_entropy_with_logits_with(input, target, BceWithLogitsOpts::default())
}

/// `F.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)`:
/// `(1 - t)·x - (1 + (pos_weight - 1)·t)·logsigmoid(x)`, times `weight`. `input` and
/// `target` of the same size; `weight` and `pos_weight` broadcast. dtype promoted. With
/// `reduction='none'` the result is laid out as `empty_like(target)`.
///
/// Errors: ValueError `Target size (torch.Size([2])) must be the same as input size
/// (torch.Size([]))`; the broadcast errors of `weight`/`pos_weight`.
pub fn binary_cross_entropy_with_logits_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<BceWithLogitsOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    if target.size() != input.size() {
        return Err(Error::value(format!(
            "Target size ({}) must be the same as input size ({})",
            torch_size(target.size()),
            torch_size(input.size())
        )));
    }
    let r = o.reduction.check()?;
    let f = "binary_cross_entropy_with_logits";
    crate::autograd::formulas::loss::check_no_requires_grad(o.weight, "weight", f)?;
    crate::autograd::formulas::loss::check_no_requires_grad(o.pos_weight, "pos_weight", f)?;
    let out = {
        let _ng = crate::autograd::no_grad();
        let mut ls = crate::nn::functional::logsigmoid(input)?;
        if let Some(pw) = o.pos_weight {
            let log_weight = pw.sub(1)?.mul(target)?.add(1)?;
            ls = ls.mul_(&log_weight)?;
        }
        let mut loss = target.neg()?.add(1)?.mul_(input)?.sub_(&ls)?;
        if let Some(w) = o.weight {
            loss.mul_(w)?;
        }
        // PyTorch 2.15's result is laid out as `empty_like(target)` (preserve format)
        let like = Tensor::empty_like(target)?;
        if like.stride() != loss.stride() && loss.size() == target.size() {
            like.copy_(&loss)?;
            loss = like;
        }
        apply_reduction(loss, &r)?
    };
    match red_of(&r) {
        Some(red) => crate::autograd::formulas::loss::bce_with_logits(
            out,
            input,
            target,
            o.weight,
            o.pos_weight,
            red,
        ),
        None => Ok(out),
    }
}

/// `F.gaussian_nll_loss(input, target, var)`; see [`gaussian_nll_loss_with`].
pub fn gaussian_nll_loss(input: &Tensor, target: &Tensor, var: &Tensor) -> Result<Tensor> {
    gaussian_nll_loss_with(input, target, var, GaussianNllLossOpts::default())
}

/// Whether `var`'s size is accepted by gaussian_nll_loss, and whether it needs a trailing
/// unsqueeze (`input.size()[:-1] == var.size()`).
fn gaussian_var_shape(input: &[usize], var: &[usize]) -> Result<bool> {
    if input == var {
        return Ok(false);
    }
    if !input.is_empty() && &input[..input.len() - 1] == var {
        return Ok(true);
    }
    if input.len() == var.len()
        && input
            .iter()
            .zip(var)
            .filter(|(x, y)| x != y)
            .map(|(_, &y)| y)
            .sum::<usize>()
            == 1
    {
        return Ok(false);
    }
    Err(Error::value("var is of incorrect size"))
}

/// `F.gaussian_nll_loss(input, target, var, full, eps, reduction)`:
/// `0.5·(log(max(var, eps)) + (input - target)²/max(var, eps))` (+ `0.5·log(2π)` when
/// `full`). `var` has `input`'s size, or one dim fewer (then unsqueezed at the end), or the
/// same rank with one mismatched dim of size 1.
///
/// Errors: ValueError `var has negative entry/entries`, `var is of incorrect size`,
/// `foo is not valid`; the broadcast error of input/target.
pub fn gaussian_nll_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    var: &Tensor,
    opts: impl Into<GaussianNllLossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    if var.lt(0)?.any()?.item::<bool>()? {
        return Err(Error::value("var has negative entry/entries"));
    }
    let var = if gaussian_var_shape(input.size(), var.size())? {
        var.unsqueeze(-1)?
    } else {
        var.alias()
    };
    if !matches!(
        o.reduction,
        Reduction::None | Reduction::Mean | Reduction::Sum
    ) {
        return Err(Error::value(format!("{} is not valid", o.reduction.name())));
    }
    let var = var.try_clone()?;
    {
        // PyTorch clamps under `torch.no_grad()`: the gradient passes the clamp unchanged
        let _ng = crate::autograd::no_grad();
        var.clamp_min_(o.eps)?;
    }
    let mut loss = var
        .log()?
        .add(&input.sub(target)?.pow(2)?.div(&var)?)?
        .mul(0.5)?;
    if o.full {
        loss = loss.add_(0.5 * (2.0 * std::f64::consts::PI).ln())?;
    }
    apply_reduction(loss, &o.reduction)
}

/// `F.margin_ranking_loss(input1, input2, target)` (`margin=0`); see
/// [`margin_ranking_loss_with`].
pub fn margin_ranking_loss(input1: &Tensor, input2: &Tensor, target: &Tensor) -> Result<Tensor> {
    margin_ranking_loss_with(input1, input2, target, MarginOpts::default())
}

/// `F.margin_ranking_loss(input1, input2, target, margin, reduction)`:
/// `max(0, -target·(input1 - input2) + margin)`. All three of the same rank; shapes broadcast.
///
/// Errors: RuntimeError `margin_ranking_loss : All input tensors should have same dimension
/// but got sizes: input1: torch.Size([0, 2]), input2: torch.Size([2]), target:
/// torch.Size([2]) `; the broadcast error.
pub fn margin_ranking_loss_with<'a>(
    input1: &Tensor,
    input2: &Tensor,
    target: &Tensor,
    opts: impl Into<MarginOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    if input1.dim() != input2.dim() || input1.dim() != target.dim() {
        return Err(Error::runtime(format!(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: {}, input2: {}, target: {} ",
            torch_size(input1.size()),
            torch_size(input2.size()),
            torch_size(target.size())
        )));
    }
    let r = o.reduction.check()?;
    // C++ evaluates `input1 - input2` before `-target` (so two bool inputs fail on the
    // subtraction first)
    let diff = input1.sub(input2)?;
    let out = target.neg()?.mul(&diff)?.add(o.margin)?.clamp_min_(0)?;
    apply_reduction(out, &r)
}

/// `F.cosine_embedding_loss(input1, input2, target)` (`margin=0`); see
/// [`cosine_embedding_loss_with`].
pub fn cosine_embedding_loss(input1: &Tensor, input2: &Tensor, target: &Tensor) -> Result<Tensor> {
    cosine_embedding_loss_with(input1, input2, target, MarginOpts::default())
}

/// `F.cosine_embedding_loss(input1, input2, target, margin, reduction)`: with `cos` the
/// cosine similarity along the last dim (`(x1·x2).sum / sqrt((|x1|²+1e-12)(|x2|²+1e-12))`),
/// `1 - cos` where target is 1, `max(0, cos - margin)` where it is -1, else 0. Inputs `(N, D)`
/// with target `(N)`, or `(D)` with a 0-d target.
///
/// Errors: `0D or 1D target tensor expected, multi-target not supported`, `1D target tensor
/// expects 2D input tensors, but found inputs with sizes [3] and [3].`, `0D target tensor
/// expects 1D input tensors, but found inputs with sizes [2, 3] and [2, 3].`, the broadcast
/// error.
pub fn cosine_embedding_loss_with<'a>(
    input1: &Tensor,
    input2: &Tensor,
    target: &Tensor,
    opts: impl Into<MarginOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let td = target.dim();
    if td > 1 {
        return Err(Error::runtime(
            "0D or 1D target tensor expected, multi-target not supported",
        ));
    }
    let want = td + 1;
    if input1.dim() != want || input2.dim() != want {
        return Err(Error::runtime(format!(
            "{td}D target tensor expects {want}D input tensors, but found inputs with sizes {} and {}.",
            fmt_list(input1.size()),
            fmt_list(input2.size())
        )));
    }
    let r = o.reduction.check()?;
    const EPSILON: f64 = 1e-12;
    let prod_sum = input1.mul(input2)?.sum_dim(td, false)?;
    let mag1 = input1.mul(input1)?.sum_dim(td, false)?.add(EPSILON)?;
    let mag2 = input2.mul(input2)?.sum_dim(td, false)?.add(EPSILON)?;
    let denom = mag1.mul(&mag2)?.sqrt_()?;
    let cos = prod_sum.div(&denom)?;
    let zeros = Tensor::zeros_like(&cos)?;
    let pos = cos.neg()?.add(1)?;
    let neg = cos.sub(o.margin)?.clamp_min_(0)?;
    let out_pos = crate::where_cond(&target.eq(1)?, &pos, &zeros)?;
    let out_neg = crate::where_cond(&target.eq(-1)?, &neg, &zeros)?;
    apply_reduction(out_pos.add(&out_neg)?, &r)
}

/// `torch.pairwise_distance(x1, x2, p, eps)`: the p-norm of `x1 - x2 + eps` over the last
/// dim.
fn pairwise_distance(x1: &Tensor, x2: &Tensor, p: f64, eps: f64) -> Result<Tensor> {
    let d = x1.sub(x2)?.add(eps)?;
    let nd = d.dim().max(1) as i64 - 1;
    if d.dim() == 0 {
        return d.abs();
    }
    if p == 1.0 {
        d.abs()?.sum_dim(nd, false)
    } else if p == 2.0 {
        d.square()?.sum_dim(nd, false)?.sqrt()
    } else if p == f64::INFINITY {
        d.abs()?.amax_dim(nd, false)
    } else {
        d.abs()?.pow(p)?.sum_dim(nd, false)?.pow(1.0 / p)
    }
}

/// `F.triplet_margin_loss(anchor, positive, negative)`; see [`triplet_margin_loss_with`].
pub fn triplet_margin_loss(
    anchor: &Tensor,
    positive: &Tensor,
    negative: &Tensor,
) -> Result<Tensor> {
    triplet_margin_loss_with(anchor, positive, negative, TripletMarginLossOpts::default())
}

/// `F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)`:
/// `max(0, margin + d(a, p) - d(a, n))` with `d` the pairwise p-norm distance over the last
/// dim (of the difference plus `eps`); `swap` uses `min(d(a, n), d(p, n))`. Inputs `(N, D)`
/// or `(D)`, all of one rank; `none` gives `(N)` (0-d for 1-D inputs).
///
/// Errors: the reduction's; ValueError `margin must be greater than 0, got 0.0`; RuntimeError `The anchor, positive, and negative tensors are expected to have the
/// same number of dimensions, but got: anchor 2D, positive 2D, and negative 1D inputs`; the
/// broadcast error.
pub fn triplet_margin_loss_with<'a>(
    anchor: &Tensor,
    positive: &Tensor,
    negative: &Tensor,
    opts: impl Into<TripletMarginLossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let r = o.reduction.check()?;
    if o.margin <= 0.0 {
        return Err(Error::value(format!(
            "margin must be greater than 0, got {}",
            py_float(o.margin)
        )));
    }
    let (a, p, n) = (anchor.dim(), positive.dim(), negative.dim());
    if a != p || p != n {
        return Err(Error::runtime(format!(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )));
    }
    let dist_pos = pairwise_distance(anchor, positive, o.p, o.eps)?;
    let mut dist_neg = pairwise_distance(anchor, negative, o.p, o.eps)?;
    if o.swap {
        let dist_swap = pairwise_distance(positive, negative, o.p, o.eps)?;
        dist_neg = dist_neg.minimum(&dist_swap)?;
    }
    let out = dist_pos.add(o.margin)?.sub(&dist_neg)?.clamp_min(0)?;
    apply_reduction(out, &r)
}

/// `F.multilabel_soft_margin_loss(input, target)`; see
/// [`multilabel_soft_margin_loss_with`].
pub fn multilabel_soft_margin_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    multilabel_soft_margin_loss_with(input, target, MultilabelSoftMarginLossOpts::default())
}

/// `F.multilabel_soft_margin_loss(input, target, weight, reduction)`:
/// `-(t·logsigmoid(x) + (1-t)·logsigmoid(-x))`, times `weight`, summed over the last (class)
/// dim and divided by C; `none` gives one loss per sample. Shapes broadcast.
///
/// Errors: the broadcast error; ValueError `foo is not valid`.
pub fn multilabel_soft_margin_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<MultilabelSoftMarginLossOpts<'a>>,
) -> Result<Tensor> {
    use crate::nn::functional::logsigmoid;
    let o = opts.into();
    let a = target.mul(&logsigmoid(input)?)?;
    let b = target.neg()?.add(1)?.mul(&logsigmoid(&input.neg()?)?)?;
    let mut loss = a.add(&b)?.neg()?;
    if let Some(w) = o.weight {
        loss = loss.mul(w)?;
    }
    let class_dim = input.dim() as i64 - 1;
    let c = if input.dim() == 0 {
        1
    } else {
        input.size()[input.dim() - 1]
    };
    let loss = loss.sum_dim(class_dim, false)?.div(c as i64)?;
    match o.reduction {
        Reduction::None => Ok(loss),
        Reduction::Mean => loss.mean(),
        Reduction::Sum => loss.sum(),
        ref r => Err(Error::value(format!("{} is not valid", r.name()))),
    }
}

// ------------------------------------------------------------------ margin losses (loops)

/// `(nframe, dim)` of multi_margin_loss / multilabel_margin_loss's input, with PyTorch's
/// check: `Expected non-empty vector or matrix with optional 0-dim batch size, but got: [2, 0]`.
fn margin_frames(input: &Tensor) -> Result<(usize, usize)> {
    let s = input.size();
    let ok = (s.len() == 2 && s[1] != 0) || (s.len() == 1 && s[0] != 0) || s.is_empty();
    if !ok {
        return Err(Error::runtime(format!(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: {}",
            fmt_list(s)
        )));
    }
    Ok(match s.len() {
        0 => (1, 1),
        1 => (1, s[0]),
        _ => (s[0], s[1]),
    })
}

/// `F.multi_margin_loss(input, target)` (`p=1, margin=1`); see [`multi_margin_loss_with`].
pub fn multi_margin_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    multi_margin_loss_with(input, target, MultiMarginLossOpts::default())
}

/// `F.multi_margin_loss(input, target, p, margin, weight, reduction)`: per sample,
/// `Σ_{d≠y} w[y]·max(0, margin - x[y] + x[d])^p / C`. `input` `(N, C)` or `(C)`, `target`
/// int64 `(N)` or 0-d; `none` gives `(N)` (0-d for a 0-d target). dtype `input`'s.
///
/// Errors, in order: the reduction's; ValueError `only p == 1 and p == 2 supported`,
/// `weight must be one-dimensional`; RuntimeError `Expected non-empty vector or matrix with
/// optional 0-dim batch size, but got: [2, 0]`, `multi_margin_loss: target tensor should be
/// 1-D with size equal to the number of input samples (batch size). Expected target size [2],
/// but got [3]. Input has shape [2, 4].`, `inconsistent weight size, expected 3 but got [4]`,
/// `target out of range`.
pub fn multi_margin_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<MultiMarginLossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let r = o.reduction.check()?;
    // F.multi_margin_loss's own checks (ValueError), then the kernel's shape checks
    if o.p != 1 && o.p != 2 {
        return Err(Error::value("only p == 1 and p == 2 supported"));
    }
    if o.weight.is_some_and(|w| w.dim() != 1) {
        return Err(Error::value("weight must be one-dimensional"));
    }
    let (nframe, dim) = margin_frames(input)?;
    if target.dim() > 1 || target.numel() != nframe {
        return Err(Error::runtime(format!(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples (batch size). Expected target size [{nframe}], but got {}. Input has shape {}.",
            fmt_list(target.size()),
            fmt_list(input.size())
        )));
    }
    if let Some(w) = o.weight
        && (w.dim() > 1 || w.numel() != dim)
    {
        return Err(Error::runtime(format!(
            "inconsistent weight size, expected {dim} but got {}",
            fmt_list(w.size())
        )));
    }
    crate::autograd::formulas::loss::check_no_requires_grad(
        o.weight,
        "weight",
        "multi_margin_loss",
    )?;
    // float32 and float64 only (AT_DISPATCH_FLOATING_TYPES)
    if !matches!(input.dtype(), DType::Float32 | DType::Float64) {
        return Err(Error::not_implemented_for(
            "multi_margin_loss_cpu_kernel",
            input.dtype(),
        ));
    }
    let x = input.try_to_vec::<f64>()?;
    let t = target.try_to_vec::<i64>()?;
    let w = o.weight.map(|w| w.try_to_vec::<f64>()).transpose()?;
    let mut per = Vec::with_capacity(nframe);
    for i in 0..nframe {
        let y = t[i];
        if y < 0 || y >= dim as i64 {
            return Err(Error::runtime("target out of range"));
        }
        let y = y as usize;
        let row = &x[i * dim..(i + 1) * dim];
        let mut sum = 0.0;
        for (d, &xd) in row.iter().enumerate() {
            if d == y {
                continue;
            }
            let z = o.margin - row[y] + xd;
            if z > 0.0 {
                let mut h = if o.p == 1 { z } else { z * z };
                if let Some(w) = &w {
                    h *= w[y];
                }
                sum += h;
            }
        }
        per.push(sum / dim as f64);
    }
    let out = if r == Reduction::None && target.dim() > 0 {
        from_f64(per, &[nframe], input.dtype())?
    } else {
        let mut s: f64 = per.iter().sum();
        if r == Reduction::Mean {
            s /= nframe as f64;
        }
        from_f64(vec![s], &[], input.dtype())?
    };
    match red_of(&r) {
        Some(red) => crate::autograd::formulas::loss::multi_margin(
            out,
            input,
            target,
            o.weight,
            (o.p, o.margin),
            red,
            (nframe, dim),
        ),
        None => Ok(out),
    }
}

/// `F.multilabel_margin_loss(input, target)`; see [`multilabel_margin_loss_with`].
pub fn multilabel_margin_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    multilabel_margin_loss_with(input, target, ReductionOpts::default())
}

/// `F.multilabel_margin_loss(input, target, reduction)`: per sample, with the targets the
/// leading entries of the target row before the first -1, `Σ_{j target} Σ_{i not target}
/// max(0, 1 - (x[j] - x[i])) / C`. `input` `(N, C)` or `(C)`, `target` int64 of the same
/// shape; `none` gives `(N)` (0-d for 1-D input). dtype `input`'s.
///
/// Errors: `Expected non-empty vector or matrix with optional 0-dim batch size, but got:
/// [2, 0]`; `inconsistent target size: [3] for input of size: [2, 3]`.
pub fn multilabel_margin_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<ReductionOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let r = o.reduction.check()?;
    let (nframe, dim) = margin_frames(input)?;
    let ok = if input.dim() <= 1 {
        target.dim() <= 1 && target.numel() == dim
    } else {
        target.dim() == 2 && target.size()[0] == nframe && target.size()[1] == dim
    };
    if !ok {
        return Err(Error::runtime(format!(
            "inconsistent target size: {} for input of size: {}",
            fmt_list(target.size()),
            fmt_list(input.size())
        )));
    }
    // float32 and float64 only (AT_DISPATCH_FLOATING_TYPES)
    if !matches!(input.dtype(), DType::Float32 | DType::Float64) {
        return Err(Error::not_implemented_for(
            "multilabel_margin_loss_forward_out_frame",
            input.dtype(),
        ));
    }
    let x = input.try_to_vec::<f64>()?;
    let t = target.try_to_vec::<i64>()?;
    let mut per = Vec::with_capacity(nframe);
    for i in 0..nframe {
        let row = &x[i * dim..(i + 1) * dim];
        let trow = &t[i * dim..(i + 1) * dim];
        let mut is_target = vec![false; dim];
        for &ti in trow {
            if ti < 0 {
                break;
            }
            if ti >= dim as i64 {
                return Err(Error::runtime("target out of range"));
            }
            is_target[ti as usize] = true;
        }
        let mut sum = 0.0;
        for &ti in trow {
            if ti < 0 {
                break;
            }
            let xt = row[ti as usize];
            for (d, &xd) in row.iter().enumerate() {
                if !is_target[d] {
                    let z = 1.0 - xt + xd;
                    if z > 0.0 {
                        sum += z;
                    }
                }
            }
        }
        per.push(sum / dim as f64);
    }
    let out = if r == Reduction::None && target.dim() > 1 {
        from_f64(per, &[nframe], input.dtype())?
    } else {
        let mut s: f64 = per.iter().sum();
        if r == Reduction::Mean {
            s /= nframe as f64;
        }
        from_f64(vec![s], &[], input.dtype())?
    };
    match red_of(&r) {
        Some(red) => crate::autograd::formulas::loss::multilabel_margin(
            out,
            input,
            target,
            red,
            (nframe, dim),
        ),
        None => Ok(out),
    }
}

/// A float as Python's `str(float)` prints it (`1.0`, `0.5`, `-2.0`, `1e-06`).
fn py_float(v: f64) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}
