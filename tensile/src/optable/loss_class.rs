//! `F.nll_loss` and `F.cross_entropy` (class-index targets with weights, ignore_index and
//! label smoothing; class-probability targets; `(C)`, `(N, C)` and `(N, C, d1, …)` inputs),
//! and `F.ctc_loss`, with PyTorch 2.15's checks, messages and results.
//!
//! Values are computed in double from the input's values in logical order and rounded once
//! to the input's dtype; cross_entropy over contiguous float32 `(N, C)` logits with int64
//! targets runs the fused row kernel (`crate::ops::loss`, on `kernels::loss`) (log-sum-exp and pick, parallel
//! over rows).

use crate::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::optable::loss_opts::{CrossEntropyOpts, CtcLossOpts, NllLossOpts, Reduction};

op_ids! {
    /// A class-index loss of `torch.nn.functional` (see [`crate::OpId`]).
    pub enum LossId {
        /// [`nll_loss_with`]
        NllLoss = "nll_loss" ["nll_loss", "nll_loss_with"],
        /// [`cross_entropy_with`]
        CrossEntropy = "cross_entropy" ["cross_entropy", "cross_entropy_with"],
        /// [`ctc_loss_with`]
        CtcLoss = "ctc_loss" ["ctc_loss", "ctc_loss_with"],
    }
}

/// The class-loss geometry: input viewed as `(n, c, s)` (s the product of the spatial dims),
/// and the shape of a `reduction='none'` result.
#[derive(Debug, PartialEq)]
pub(crate) struct ClassGeom {
    pub n: usize,
    pub c: usize,
    pub s: usize,
    pub none_shape: Vec<usize>,
    /// 1-D input: one sample, `target[0]` its class, and the result is 0-d even for `none`.
    pub one_d: bool,
}

/// `nll_loss_nd`'s shape rules and checks for `input` of sizes `is`, `target` of sizes
/// `ts` and an optional weight of sizes `ws` (pure; see [`nll_loss_with`] for the errors).
pub(crate) fn class_geometry(
    is: &[usize],
    ts: &[usize],
    ws: Option<&[usize]>,
) -> Result<ClassGeom> {
    let nd = is.len();
    if nd < 1 {
        return Err(Error::value(format!(
            "Expected 1 or more dimensions (got {nd})"
        )));
    }
    if nd != 1 {
        let Some(&t0) = ts.first() else {
            return Err(Error::index(
                "Dimension specified as 0 but tensor has no dimensions",
            ));
        };
        if is[0] != t0 {
            return Err(Error::value(format!(
                "Expected input batch_size ({}) to match target batch_size ({t0}).",
                is[0]
            )));
        }
    }
    if nd <= 2 {
        if ts.len() > 1 {
            return Err(Error::runtime(
                "0D or 1D target tensor expected, multi-target not supported",
            ));
        }
        let no_batch = nd == 1 && ts.is_empty();
        if !no_batch && (ts.is_empty() || is[0] != ts[0]) {
            return Err(Error::runtime(format!(
                "size mismatch (got input: {}, target: {})",
                fmt_list(is),
                fmt_list(ts)
            )));
        }
        let c = is[nd - 1];
        if let Some(ws) = ws
            && !(ws.len() == 1 && ws[0] == c)
        {
            return Err(Error::runtime(format!(
                "weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {}",
                fmt_list(ws)
            )));
        }
        return Ok(if nd == 1 {
            ClassGeom {
                n: 1,
                c,
                s: 1,
                none_shape: vec![],
                one_d: true,
            }
        } else {
            ClassGeom {
                n: is[0],
                c,
                s: 1,
                none_shape: vec![is[0]],
                one_d: false,
            }
        });
    }
    let weight_check = |c: usize| -> Result<()> {
        if let Some(ws) = ws
            && ws.iter().product::<usize>() != c
        {
            return Err(Error::runtime(
                "weight tensor should be defined either for all or no classes",
            ));
        }
        Ok(())
    };
    if nd == 4 {
        if ts.len() != 3 {
            return Err(Error::runtime(format!(
                "only batches of spatial targets supported (3D tensors) but got targets of dimension: {}",
                ts.len()
            )));
        }
        weight_check(is[1])?;
        if is[0] != ts[0] || is[2] != ts[1] || is[3] != ts[2] {
            return Err(Error::runtime(format!(
                "size mismatch (got input: {} , target: {}",
                fmt_list(is),
                fmt_list(ts)
            )));
        }
        return Ok(ClassGeom {
            n: is[0],
            c: is[1],
            s: is[2] * is[3],
            none_shape: vec![is[0], is[2], is[3]],
            one_d: false,
        });
    }
    let mut out = vec![is[0]];
    out.extend_from_slice(&is[2..]);
    if ts.is_empty() || ts[1..] != is[2..] {
        return Err(Error::runtime(format!(
            "Expected target size {}, got {}",
            fmt_list(&out),
            fmt_list(ts)
        )));
    }
    weight_check(is[1])?;
    Ok(ClassGeom {
        n: is[0],
        c: is[1],
        s: is[2..].iter().product(),
        none_shape: out,
        one_d: false,
    })
}

/// Class-index targets as int64 (uint8 accepted, as PyTorch's kernels do).
fn index_target(target: &Tensor) -> Result<Vec<i64>> {
    match target.dtype() {
        DType::Int64 | DType::UInt8 => Ok(target.try_to_vec::<i64>()?),
        d => Err(Error::runtime(format!(
            "expected scalar type Long but found {}",
            d.scalar_type_name()
        ))),
    }
}

/// Per-position losses `-logp[n, t, s]·w[t]` (0 where ignored), the total weight of the
/// positions kept, and their sum; `Target 5 is out of bounds.` (IndexError) for the first bad
/// target in row-major order.
fn nll_rows(
    logp: &[f64],
    g: &ClassGeom,
    target: &[i64],
    weight: Option<&[f64]>,
    ignore: i64,
) -> Result<(Vec<f64>, f64, f64)> {
    let (c, s) = (g.c, g.s);
    let m = g.n * s;
    let mut per = vec![0.0; m];
    let (mut total_w, mut sum) = (0.0, 0.0);
    for (k, p) in per.iter_mut().enumerate() {
        let t = target[k];
        if t == ignore {
            continue;
        }
        if t < 0 || t >= c as i64 {
            return Err(Error::index(format!("Target {t} is out of bounds.")));
        }
        let (b, e) = (k / s, k % s);
        let w = weight.map_or(1.0, |w| w[t as usize]);
        *p = -logp[(b * c + t as usize) * s + e] * w;
        total_w += w;
        sum += *p;
    }
    Ok((per, total_w, sum))
}

/// The result of nll_loss from [`nll_rows`]'s parts.
fn nll_result(
    g: &ClassGeom,
    parts: (Vec<f64>, f64, f64),
    r: &Reduction,
    dtype: DType,
) -> Result<Tensor> {
    let (per, total_w, sum) = parts;
    let v = match r {
        Reduction::None if !g.one_d => return from_f64(per, &g.none_shape, dtype),
        Reduction::Mean => sum / total_w,
        _ => sum,
    };
    from_f64(vec![v], &[], dtype)
}

fn from_f64(v: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    let t = Tensor::from_vec(v, shape)?;
    if dtype == DType::Float64 {
        Ok(t)
    } else {
        t.to(dtype)
    }
}

/// `log_softmax` over the class axis of values laid out `(n, c, s)`, in place.
fn log_softmax_ncs(x: &mut [f64], n: usize, c: usize, s: usize) {
    for b in 0..n {
        for e in 0..s {
            let at = |k: usize| (b * c + k) * s + e;
            let mut m = f64::NEG_INFINITY;
            for k in 0..c {
                m = m.max(x[at(k)]);
            }
            if m.is_infinite() {
                m = 0.0;
            }
            let mut sum = 0.0;
            for k in 0..c {
                sum += (x[at(k)] - m).exp();
            }
            let l = sum.ln() + m;
            for k in 0..c {
                x[at(k)] -= l;
            }
        }
    }
}

fn float_input(input: &Tensor, kernel: &str) -> Result<()> {
    if input.dtype().is_floating_point() {
        Ok(())
    } else {
        Err(Error::not_implemented_for(kernel, input.dtype()))
    }
}

/// `F.nll_loss(input, target)`; see [`nll_loss_with`].
pub fn nll_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    nll_loss_with(input, target, NllLossOpts::default())
}

/// `F.nll_loss(input, target, weight, ignore_index, reduction)`: `-input[n, target[n, …],
/// …]·weight[target]`, positions whose target is `ignore_index` skipped; mean divides by the
/// summed weights of the kept positions (NaN when none is kept).
///
/// Shapes: input `(C)` with target 0-d (a 1-D input reads `target[0]`), `(N, C)` with
/// `(N)`, or `(N, C, d1, …)` with `(N, d1, …)`; `none` gives the target's shape (0-d for a 1-D
/// input), contiguous; `mean`/`sum` 0-d. Target int64; dtype `input`'s.
///
/// Errors: ValueError `Expected 1 or more dimensions (got 0)`, `Expected input batch_size (3)
/// to match target batch_size (2).`; RuntimeError `0D or 1D target tensor expected,
/// multi-target not supported`, `size mismatch (got input: [3], target: [2])`, `weight tensor
/// should be defined either for all 3 classes or no classes but got weight tensor of shape:
/// [4]` (1-2-d input), `weight tensor should be defined either for all or no classes`
/// (spatial input), `only batches of spatial targets supported (3D tensors) but got targets of
/// dimension: 4`, `Expected target size [1, 2], got [1, 2, 2]`; IndexError `Target 3 is out
/// of bounds.`
pub fn nll_loss_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<NllLossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let r = o.reduction.check()?;
    let g = class_geometry(input.size(), target.size(), o.weight.map(|w| w.size()))?;
    crate::autograd::formulas::loss::check_no_requires_grad(
        o.weight,
        "weight",
        "nll_loss_forward",
    )?;
    float_input(input, "nll_loss_out_frame")?;
    let t = index_target(target)?;
    let w = o.weight.map(|w| w.try_to_vec::<f64>()).transpose()?;
    let x = input.try_to_vec::<f64>()?;
    let parts = nll_rows(&x, &g, &t, w.as_deref(), o.ignore_index)?;
    let out = nll_result(&g, parts, &r, input.dtype())?;
    record_nll(out, input, target, o.weight, &r, o.ignore_index, &g)
}

/// Records nll_loss's node as PyTorch's `nll_loss_nd` does: `NllLossBackward0` for a 1-2-d
/// input, `NllLoss2DBackward0` for a 4-d one; a 3-d or 5+-d input is made contiguous
/// (`CloneBackward0` when it was not) and viewed `(N, C, 1, -1)` (`ViewBackward0`) for
/// `NllLoss2DBackward0`, whose `none` result is viewed back (`ViewBackward0`).
fn record_nll(
    out: Tensor,
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    r: &Reduction,
    ignore: i64,
    g: &ClassGeom,
) -> Result<Tensor> {
    use crate::autograd::formulas::loss::{Red, nll};
    if !crate::autograd::api::any_requires_grad(&[input]) {
        return Ok(out);
    }
    let red = match r {
        Reduction::None => Red::None,
        Reduction::Sum => Red::Sum,
        _ => Red::Mean,
    };
    match input.dim() {
        1 | 2 => nll("NllLossBackward0", out, input, target, weight, red, ignore),
        4 => nll(
            "NllLoss2DBackward0",
            out,
            input,
            target,
            weight,
            red,
            ignore,
        ),
        _ => {
            let (n, c) = (g.n as i64, g.c as i64);
            let x4 = if input.numel() > 0 {
                input.try_contiguous()?.view([n, c, 1, -1])?
            } else {
                input.try_contiguous()?.view([n, c, 0, 0])?
            };
            let t4 = if target.numel() > 0 {
                target.try_contiguous()?.view([n, 1, -1])?
            } else {
                target.try_contiguous()?.view([n, 0, 0])?
            };
            if red != Red::None {
                return nll("NllLoss2DBackward0", out, &x4, &t4, weight, red, ignore);
            }
            let o4 = out.view(t4.size())?;
            let o4 = nll("NllLoss2DBackward0", o4, &x4, &t4, weight, red, ignore)?;
            o4.view(&g.none_shape[..])
        }
    }
}

/// `F.cross_entropy(input, target)`; see [`cross_entropy_with`].
pub fn cross_entropy(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    cross_entropy_with(input, target, CrossEntropyOpts::default())
}

/// `F.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)`:
/// `nll_loss(log_softmax(input, class_dim), target, …)` for class-index targets (dim 1, or 0
/// for a 1-D input); with `label_smoothing = ε`, `(1-ε)·nll + ε/C · Σ_c -w[c]·logp[c]`
/// (ignored positions 0; mean divides the smoothing term by the kept positions' weight);
/// for a float `target` of the input's shape (class probabilities, smoothed by `ε`),
/// `-Σ_c w[c]·t[c]·logp[c]`, mean dividing by `numel / C` (NaN when empty).
///
/// Shapes and dtypes as [`nll_loss_with`] (probability targets: `none` gives the input's
/// shape without the class dim). Contiguous float32 `(N, C)` logits with int64 targets and no
/// smoothing run one fused parallel pass per row.
///
/// Errors: those of [`nll_loss_with`]; `Expected floating point type for target with class
/// probabilities, got Long`; `ignore_index is not supported for floating point target`;
/// `label_smoothing must be between 0.0 and 1.0. Got: 1.5`; `cross_entropy: weight tensor
/// should be defined either for all 3 classes or no classes but got weight tensor of shape:
/// [4]`.
pub fn cross_entropy_with<'a>(
    input: &Tensor,
    target: &Tensor,
    opts: impl Into<CrossEntropyOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let r = o.reduction.check()?;
    let ls = o.label_smoothing;
    if input.size() == target.size() {
        if !target.dtype().is_floating_point() {
            return Err(Error::runtime(format!(
                "Expected floating point type for target with class probabilities, got {}",
                target.dtype().scalar_type_name()
            )));
        }
        if o.ignore_index >= 0 {
            return Err(Error::runtime(
                "ignore_index is not supported for floating point target",
            ));
        }
        let w = o.weight;
        let mut ins = vec![input, target];
        ins.extend(w);
        if crate::autograd::api::any_requires_grad(&ins) {
            return prob_target_graph(input, target, w, &r, ls);
        }
        return prob_target(input, target, o.weight, &r, ls);
    }
    if ls > 1.0 {
        return Err(Error::runtime(format!(
            "label_smoothing must be between 0.0 and 1.0. Got: {ls}"
        )));
    }
    if input.dim() == 0 {
        return Err(Error::index(
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        ));
    }
    let g = class_geometry(input.size(), target.size(), o.weight.map(|w| w.size()))?;
    float_input(input, "log_softmax_lastdim_kernel_impl")?;
    if crate::autograd::api::any_requires_grad(&[input]) {
        return index_target_graph(input, target, &o, &r, g.c);
    }
    let t = index_target(target)?;
    let mean = match r {
        Reduction::None => Some(None),
        Reduction::Mean => Some(Some(true)),
        Reduction::Sum => Some(Some(false)),
        _ => None,
    };
    if ls <= 0.0
        && let Some(mean) = mean
        && let Some(out) = crate::ops::loss::cross_entropy_rows_f32(
            input,
            &t,
            o.weight,
            o.ignore_index,
            g.n,
            g.c,
            mean,
        )?
    {
        return Ok(out);
    }
    let w = o.weight.map(|w| w.try_to_vec::<f64>()).transpose()?;
    let mut x = input.try_to_vec::<f64>()?;
    log_softmax_ncs(&mut x, g.n, g.c, g.s);
    let parts = nll_rows(&x, &g, &t, w.as_deref(), o.ignore_index)?;
    if ls <= 0.0 {
        return nll_result(&g, parts, &r, input.dtype());
    }
    // smooth term: -Σ_c w[c]·logp[c] per position, 0 where ignored.
    let (c, s) = (g.c, g.s);
    let m = g.n * s;
    let mut smooth = vec![0.0; m];
    let mut kept = 0usize;
    for (k, sm) in smooth.iter_mut().enumerate() {
        if t[k] == o.ignore_index {
            continue;
        }
        kept += 1;
        let (b, e) = (k / s, k % s);
        let mut acc = 0.0;
        for cc in 0..c {
            acc -= x[(b * c + cc) * s + e] * w.as_ref().map_or(1.0, |w| w[cc]);
        }
        *sm = acc;
    }
    let (per, total_w, sum) = parts;
    let f = ls / c as f64;
    let v = match r {
        Reduction::None if !g.one_d => {
            let v = per
                .iter()
                .zip(&smooth)
                .map(|(n, s)| (1.0 - ls) * n + s * f)
                .collect();
            return from_f64(v, &g.none_shape, input.dtype());
        }
        Reduction::Mean => {
            let ssum: f64 = smooth.iter().sum();
            let denom = if w.is_some() { total_w } else { kept as f64 };
            (1.0 - ls) * (sum / total_w) + ssum / denom * f
        }
        _ => (1.0 - ls) * sum + smooth.iter().sum::<f64>() * f,
    };
    from_f64(vec![v], &[], input.dtype())
}

/// `weight` viewed to broadcast along `input`'s class dim (`(1, C, 1, …)`; `(C)` for a 1-D
/// input).
fn class_weight(w: &Tensor, input: &Tensor, cd: usize) -> Result<Tensor> {
    if input.dim() <= 1 {
        return Ok(w.alias());
    }
    let mut shape = vec![1i64; input.dim()];
    shape[cd] = w.numel() as i64;
    w.view(shape)
}

/// cross_entropy with class-index targets when the input requires grad: PyTorch's
/// composition, recorded op by op (`nll_loss(log_softmax(x))`: `NllLossBackward0` over
/// `LogSoftmaxBackward0`; with label smoothing `(1-ε)·nll + ε/C·smooth` →
/// `AddBackward0` over `MulBackward1`s, `smooth` the masked `-Σ_c w[c]·logp[c]` reduced as
/// `cross_entropy_loss_label_smoothing` reduces it).
fn index_target_graph(
    input: &Tensor,
    target: &Tensor,
    o: &CrossEntropyOpts<'_>,
    r: &Reduction,
    c: usize,
) -> Result<Tensor> {
    let cd = if input.dim() == 1 { 0 } else { 1 };
    let lp = input.log_softmax(cd)?;
    let nll = nll_loss_with(
        &lp,
        target,
        NllLossOpts {
            weight: o.weight,
            ignore_index: o.ignore_index,
            reduction: r.clone(),
            ..Default::default()
        },
    )?;
    let ls = o.label_smoothing;
    if ls <= 0.0 {
        return Ok(nll);
    }
    let ign = target.eq(o.ignore_index)?;
    let smooth = match o.weight {
        Some(w) => lp.mul(&class_weight(w, &lp, cd)?)?.sum_dim(cd, false)?,
        None => lp.sum_dim(cd, false)?,
    }
    .neg()?
    .masked_fill(&ign, 0.0)?;
    let ret = match r {
        Reduction::Mean => {
            let kept = ign.logical_not()?;
            match o.weight {
                Some(w) => {
                    let tw = w.gather(0, &target.masked_select(&kept)?.flatten()?)?;
                    smooth.sum()?.div(&tw.sum()?)?
                }
                None => smooth.sum()?.div(&kept.sum()?)?,
            }
        }
        Reduction::Sum => smooth.sum()?,
        _ => smooth,
    };
    let (a, b) = {
        let _ng = crate::autograd::no_grad();
        (nll.mul(1.0 - ls)?, ret.mul(ls / c as f64)?)
    };
    let a = crate::autograd::formulas::loss::scalar_op("MulBackward1", a, &nll, 1.0 - ls)?;
    let b = crate::autograd::formulas::loss::scalar_op("MulBackward1", b, &ret, ls / c as f64)?;
    a.add(&b)
}

/// cross_entropy with class-probability targets when an operand requires grad: PyTorch's
/// `cross_entropy_loss_prob_target`, recorded op by op: `-(logp·t·w).sum() / (numel/C)`
/// (`DivBackward1` over `NegBackward0`, `SumBackward0`, `MulBackward0`,
/// `LogSoftmaxBackward0`), `sum` without the division, `none` summing the class dim
/// (`NegBackward0` over `SumBackward1`); label smoothing first makes `t·(1-ε) + ε/C`.
fn prob_target_graph(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    r: &Reduction,
    ls: f64,
) -> Result<Tensor> {
    let is = input.size();
    if is.is_empty() {
        return Err(Error::index(
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        ));
    }
    let cd = if is.len() == 1 { 0 } else { 1 };
    let c = is[cd];
    if let Some(w) = weight
        && !(w.dim() == 1 && w.numel() == c)
    {
        return Err(Error::runtime(format!(
            "cross_entropy: weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {}",
            fmt_list(w.size())
        )));
    }
    if ls > 1.0 {
        return Err(Error::runtime(format!(
            "label_smoothing must be between 0.0 and 1.0. Got: {ls}"
        )));
    }
    float_input(input, "log_softmax_lastdim_kernel_impl")?;
    let lp = input.log_softmax(cd)?;
    let t = if ls > 0.0 {
        let (a, k) = (1.0 - ls, ls / c as f64);
        let m = {
            let _ng = crate::autograd::no_grad();
            target.mul(a)?
        };
        let m = crate::autograd::formulas::loss::scalar_op("MulBackward1", m, target, a)?;
        let s = {
            let _ng = crate::autograd::no_grad();
            m.add(k)?
        };
        crate::autograd::formulas::loss::scalar_op("AddBackward1", s, &m, 1.0)?
    } else {
        target.alias()
    };
    let mut prod = lp.mul(&t)?;
    if let Some(w) = weight {
        prod = prod.mul(&class_weight(w, &lp, cd)?)?;
    }
    match r {
        Reduction::None => prod.sum_dim(cd, false)?.neg(),
        Reduction::Sum => prod.sum()?.neg(),
        _ => {
            let s = prod.sum()?.neg()?;
            let numel = input.numel();
            if numel == 0 {
                return s.fill_(f64::NAN);
            }
            let d = (numel / c) as f64;
            let q = {
                let _ng = crate::autograd::no_grad();
                s.div(d)?
            };
            crate::autograd::formulas::loss::scalar_op("DivBackward1", q, &s, 1.0 / d)
        }
    }
}

/// cross_entropy with class-probability targets (`cross_entropy_loss_prob_target`).
fn prob_target(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    r: &Reduction,
    ls: f64,
) -> Result<Tensor> {
    let is = input.size();
    let class_dim = if is.len() == 1 { 0 } else { 1 };
    if is.is_empty() {
        return Err(Error::index(
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        ));
    }
    let c = is[class_dim];
    if let Some(w) = weight
        && !(w.dim() == 1 && w.numel() == c)
    {
        return Err(Error::runtime(format!(
            "cross_entropy: weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {}",
            fmt_list(w.size())
        )));
    }
    if ls > 1.0 {
        return Err(Error::runtime(format!(
            "label_smoothing must be between 0.0 and 1.0. Got: {ls}"
        )));
    }
    float_input(input, "log_softmax_lastdim_kernel_impl")?;
    let n = if class_dim == 0 { 1 } else { is[0] };
    let s: usize = is[class_dim + 1..].iter().product();
    let mut x = input.try_to_vec::<f64>()?;
    log_softmax_ncs(&mut x, n, c, s);
    let mut t = target.try_to_vec::<f64>()?;
    if ls > 0.0 {
        for v in t.iter_mut() {
            *v = *v * (1.0 - ls) + ls / c as f64;
        }
    }
    let w = weight.map(|w| w.try_to_vec::<f64>()).transpose()?;
    let mut per = crate::error::try_filled(0.0, n * s)?;
    for b in 0..n {
        for e in 0..s {
            let mut acc = 0.0;
            for k in 0..c {
                let i = (b * c + k) * s + e;
                acc += x[i] * t[i] * w.as_ref().map_or(1.0, |w| w[k]);
            }
            per[b * s + e] = -acc;
        }
    }
    let dtype = crate::dtype::promote_types(input.dtype(), target.dtype());
    match r {
        Reduction::None => {
            let mut shape = is.to_vec();
            shape.remove(class_dim);
            from_f64(per, &shape, dtype)
        }
        Reduction::Sum => from_f64(vec![per.iter().sum()], &[], dtype),
        _ => {
            let numel = input.numel();
            let v = if numel == 0 {
                f64::NAN
            } else {
                per.iter().sum::<f64>() / (numel / c) as f64
            };
            from_f64(vec![v], &[], dtype)
        }
    }
}

// ------------------------------------------------------------------ ctc_loss

/// `F.ctc_loss(log_probs, targets, input_lengths, target_lengths)`; see [`ctc_loss_with`].
pub fn ctc_loss(
    log_probs: &Tensor,
    targets: &Tensor,
    input_lengths: &Tensor,
    target_lengths: &Tensor,
) -> Result<Tensor> {
    ctc_loss_with(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        CtcLossOpts::default(),
    )
}

/// `F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
/// zero_infinity)`: the connectionist temporal classification loss, `-log` of the summed
/// probability of every alignment of each target (the alpha recursion in log space); an
/// impossible alignment gives `inf` (0 with `zero_infinity`). `mean` divides each loss by its
/// target length (at least 1) and averages over the batch.
///
/// Shapes: `log_probs` `(T, N, C)` (or `(T, C)` unbatched), `targets` `(N, S)` padded or 1-D
/// concatenated (int64), `input_lengths`/`target_lengths` integer tensors of `N` entries
/// (0-d unbatched); `none` gives `(N)` (0-d unbatched). dtype `log_probs`'s. A strided 1-D
/// `targets` is read as PyTorch's CPU kernel reads it: label `s` of sample `b` at element
/// `offset_b + stride·s` from its first element, `offset_b` the sum of the earlier lengths
/// (not scaled by the stride).
///
/// Errors: `input_lengths must be integral`, `target_lengths must be integral`, `blank must
/// be in label range`, `input_lengths must be of size batch_size`, `target_lengths must be of
/// size batch_size`, `Expected tensor to have size at least 3 at dimension 1, but got size 2
/// for argument #2 'targets' (while checking arguments for ctc_loss_cpu)`, `Expected
/// input_lengths to have value at most 5, but got value 6 (while checking arguments for
/// ctc_loss_cpu)`; `Expected tensor to have size 18446744073709551614 at dimension 0, but got
/// size 0 for argument #2 'targets' (while checking arguments for ctc_loss_cpu)` (1-D
/// targets: the lengths' sum, taken exactly; two lengths of `i64::MAX`).
pub fn ctc_loss_with<'a>(
    log_probs: &Tensor,
    targets: &Tensor,
    input_lengths: &Tensor,
    target_lengths: &Tensor,
    opts: impl Into<CtcLossOpts<'a>>,
) -> Result<Tensor> {
    let o = opts.into();
    let r = o.reduction.check()?;
    let integral = |t: &Tensor| t.dtype().is_integral(false);
    if !integral(input_lengths) {
        return Err(Error::runtime("input_lengths must be integral"));
    }
    if !integral(target_lengths) {
        return Err(Error::runtime("target_lengths must be integral"));
    }
    let il = input_lengths.try_to_vec::<i64>()?;
    let tl = target_lengths.try_to_vec::<i64>()?;
    let batched = log_probs.dim() == 3;
    if !batched && log_probs.dim() != 2 {
        return Err(Error::runtime(format!(
            "Expected tensor for argument #1 'log_probs' to have 3 dimension(s), but got {} instead (while checking arguments for ctc_loss_cpu)",
            log_probs.dim()
        )));
    }
    crate::ops::loss::f32_f64_only(log_probs, "ctc_loss_cpu")?;
    let ls = log_probs.size();
    let (tmax, n, c) = if batched {
        (ls[0], ls[1], ls[2])
    } else {
        (ls[0], 1, ls[1])
    };
    if o.blank < 0 || o.blank >= c as i64 {
        return Err(Error::runtime("blank must be in label range"));
    }
    if il.len() != n {
        return Err(Error::runtime("input_lengths must be of size batch_size"));
    }
    if tl.len() != n {
        return Err(Error::runtime("target_lengths must be of size batch_size"));
    }
    let mut tg = targets.try_to_vec::<i64>()?;
    let ts = targets.size();
    // offsets of each sample's labels in `tg` (logical order) and the label stride
    let mut offsets = Vec::with_capacity(n);
    let mut max_tl = 0i64;
    let stride;
    if targets.dim() == 1 {
        // summed in i128: lengths near i64::MAX overflowed the running offset; a sum past
        // int64 cannot match the targets' size and is refused below
        let mut pos = 0i128;
        for &l in &tl {
            if l < 0 {
                return Err(Error::runtime(format!(
                    "Expected target_lengths to have value at least 0, but got value {l} (while checking arguments for ctc_loss_cpu)"
                )));
            }
            offsets.push(pos as usize);
            pos += l as i128;
            max_tl = max_tl.max(l);
        }
        stride = 1;
        if ts[0] as i128 != pos {
            return Err(Error::runtime(format!(
                "Expected tensor to have size {pos} at dimension 0, but got size {} for argument #2 'targets' (while checking arguments for ctc_loss_cpu)",
                ts[0]
            )));
        }
        // PyTorch's CPU kernel reads label `s` of sample `b` of a 1-d target at `data +
        // offset_b + stride·s`, its batch offsets the running sums of the lengths, which are
        // not multiplied by the stride: mirrored (both ways) wherever those reads stay inside
        // the storage
        let st = targets.stride()[0];
        if st != 1 {
            let need = offsets
                .iter()
                .zip(&tl)
                .filter(|&(_, &l)| l > 0)
                .map(|(&o, &l)| o + st * (l as usize - 1) + 1)
                .max()
                .unwrap_or(0);
            let avail = (targets.storage.nbytes() / targets.element_size())
                .saturating_sub(targets.storage_offset());
            if need > 0 && need <= avail {
                let raw = targets
                    .as_strided_with([need], [1], targets.storage_offset())?
                    .try_to_vec::<i64>()?;
                for (&o, &l) in offsets.iter().zip(&tl) {
                    for k in 0..l as usize {
                        tg[o + k] = raw[o + st * k];
                    }
                }
            }
        }
    } else {
        let s = ts.get(1).copied().unwrap_or(0);
        for (i, &l) in tl.iter().enumerate() {
            offsets.push(i * s);
            max_tl = max_tl.max(l);
        }
        stride = 1;
        if ts[0] != n {
            return Err(Error::runtime(format!(
                "Expected tensor to have size {n} at dimension 0, but got size {} for argument #2 'targets' (while checking arguments for ctc_loss_cpu)",
                ts[0]
            )));
        }
        if (s as i64) < max_tl {
            return Err(Error::runtime(format!(
                "Expected tensor to have size at least {max_tl} at dimension 1, but got size {s} for argument #2 'targets' (while checking arguments for ctc_loss_cpu)"
            )));
        }
    }
    for &l in &il {
        if l > tmax as i64 {
            return Err(Error::runtime(format!(
                "Expected input_lengths to have value at most {tmax}, but got value {l} (while checking arguments for ctc_loss_cpu)"
            )));
        }
    }
    let lp = log_probs.try_to_vec::<f64>()?;
    let at = |t: usize, b: usize, k: usize| lp[(t * n + b) * c + k];
    let blank = o.blank as usize;
    let mut res = Vec::with_capacity(n);
    for b in 0..n {
        let (ilen, tlen) = (il[b].max(0) as usize, tl[b].max(0) as usize);
        let prime = |s: usize| -> usize {
            if s.is_multiple_of(2) {
                blank
            } else {
                tg[offsets[b] + stride * (s / 2)].clamp(0, c as i64 - 1) as usize
            }
        };
        let width = 2 * tlen + 1;
        let ninf = f64::NEG_INFINITY;
        if ilen == 0 {
            res.push(if tlen == 0 { 0.0 } else { f64::INFINITY });
            continue;
        }
        let mut prev = vec![ninf; width];
        prev[0] = at(0, b, blank);
        if tlen > 0 {
            prev[1] = at(0, b, prime(1));
        }
        let mut cur = vec![ninf; width];
        for t in 1..ilen {
            for s in 0..width {
                let cp = prime(s);
                let la1 = prev[s];
                let mut lamax = la1;
                let la2 = if s > 0 { prev[s - 1] } else { ninf };
                lamax = lamax.max(la2);
                let la3 = if s > 1 && prime(s - 2) != cp {
                    prev[s - 2]
                } else {
                    ninf
                };
                lamax = lamax.max(la3);
                if lamax == ninf {
                    lamax = 0.0;
                }
                cur[s] = ((la1 - lamax).exp() + (la2 - lamax).exp() + (la3 - lamax).exp()).ln()
                    + lamax
                    + at(t, b, cp);
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        let nll = if tlen == 0 {
            -prev[0]
        } else {
            let (l1, l2) = (prev[2 * tlen], prev[2 * tlen - 1]);
            let mut m = l1.max(l2);
            if m == ninf {
                m = 0.0;
            }
            -(((l1 - m).exp() + (l2 - m).exp()).ln() + m)
        };
        res.push(nll);
    }
    if crate::autograd::api::any_requires_grad(&[log_probs]) {
        let d = crate::autograd::formulas::loss::CtcData {
            targets: tg,
            offsets,
            input_lengths: il,
            target_lengths: tl,
            blank,
            zero_infinity: o.zero_infinity,
            tnc: (tmax, n, c),
        };
        return ctc_graph(log_probs, res, d, &r, batched);
    }
    if o.zero_infinity {
        for v in res.iter_mut() {
            if *v == f64::INFINITY {
                *v = 0.0;
            }
        }
    }
    let dtype = log_probs.dtype();
    // round the per-sample losses to the dtype first, as PyTorch stores them
    let round = |v: f64| -> f64 {
        if dtype == DType::Float32 {
            v as f32 as f64
        } else {
            v
        }
    };
    match r {
        Reduction::Mean => {
            let s: f64 = res
                .iter()
                .zip(&tl)
                .map(|(&v, &l)| round(round(v) / (l.max(1) as f64)))
                .sum();
            from_f64(vec![s / n as f64], &[], dtype)
        }
        Reduction::Sum => from_f64(vec![res.iter().map(|&v| round(v)).sum()], &[], dtype),
        _ => {
            if batched {
                from_f64(res, &[n], dtype)
            } else {
                from_f64(res, &[], dtype)
            }
        }
    }
}

/// ctc_loss when `log_probs` requires grad: PyTorch's `ctc_loss_impl`, recorded op by op —
/// an unbatched `(T, C)` input unsqueezed to `(T, 1, C)` (`UnsqueezeBackward0`), the
/// per-sample losses (`CtcLossBackward0`), `zero_infinity`'s `where(loss == inf, 0, loss)`
/// (`WhereBackward0`), then `mean` = `(loss / target_lengths.clamp_min(1)).mean()`
/// (`MeanBackward0` over `DivBackward0`), `sum` (`SumBackward0`), or `none` (unbatched:
/// `squeeze(0)`, `SqueezeBackward1`).
fn ctc_graph(
    log_probs: &Tensor,
    res: Vec<f64>,
    d: crate::autograd::formulas::loss::CtcData,
    r: &Reduction,
    batched: bool,
) -> Result<Tensor> {
    let dtype = log_probs.dtype();
    let n = res.len();
    let lp3 = if batched {
        log_probs.alias()
    } else {
        log_probs.unsqueeze(1)?
    };
    let zero_infinity = d.zero_infinity;
    let tl: Vec<f64> = d.target_lengths.iter().map(|&l| l as f64).collect();
    let raw = from_f64(res, &[n], dtype)?;
    let mut loss = crate::autograd::formulas::loss::ctc(raw, &lp3, d)?;
    if zero_infinity {
        let zero = Tensor::zeros_with((), dtype)?;
        loss = crate::where_cond(&loss.eq(f64::INFINITY)?, &zero, &loss)?;
    }
    match r {
        Reduction::Mean => loss.div(&from_f64(tl, &[n], dtype)?.clamp_min(1)?)?.mean(),
        Reduction::Sum => loss.sum(),
        _ if batched => Ok(loss),
        _ => loss.squeeze_dim(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_spatial_and_errors() {
        let g = class_geometry(&[2, 3, 4, 5], &[2, 4, 5], None).unwrap();
        assert_eq!((g.n, g.c, g.s), (2, 3, 20));
        assert_eq!(g.none_shape, vec![2, 4, 5]);
        let g = class_geometry(&[2, 3, 4], &[2, 4], Some(&[3])).unwrap();
        assert_eq!((g.n, g.c, g.s, g.none_shape), (2, 3, 4, vec![2, 4]));
        let g = class_geometry(&[3], &[], None).unwrap();
        assert!(g.one_d && g.none_shape.is_empty());
        let e = class_geometry(&[1, 3, 2], &[1, 2, 2], None).unwrap_err();
        assert_eq!(e.message(), "Expected target size [1, 2], got [1, 2, 2]");
        let e = class_geometry(&[2, 3], &[2], Some(&[4])).unwrap_err();
        assert_eq!(
            e.message(),
            "weight tensor should be defined either for all 3 classes or no classes but got weight tensor of shape: [4]"
        );
        let e = class_geometry(&[2, 3, 1, 1], &[2, 1, 1], Some(&[4])).unwrap_err();
        assert_eq!(
            e.message(),
            "weight tensor should be defined either for all or no classes"
        );
    }
}
