//! One parameter's update of `torch.optim`'s single-tensor (for-loop) SGD and Adam/AdamW as
//! an op, forward code only: the loop bodies of PyTorch's `_single_tensor_sgd` and
//! `_single_tensor_adam` for one parameter, its gradient and its state tensors, all changed in
//! place (the public ops are `optable/optim.rs`'s; the optimizers of `crate::optim` call them).
//!
//! When every operand has the parameter's size and float dtype (float32 or float64) and the
//! state tensors are contiguous in storages of their own (the optimizers' state always is),
//! one pass of the update kernels of `crate::kernels::optim` computes it, element by element
//! in PyTorch's order of operations and with its roundings (a non-contiguous parameter or
//! gradient, or a gradient of another dtype, is copied for it, and the parameter written
//! back), and each tensor's version counter moves as PyTorch's in-place ops move it. Any
//! other operands (a loaded state of another shape or dtype) go through the same steps
//! written with tensile's ops, which give PyTorch's errors after the same in-place changes.

use crate::Tensor;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
/// The forward functions' hyperparameters: the kernel's scalars, Python doubles.
pub(crate) use crate::kernels::optim::{AdamScalars, SgdScalars};
use crate::kernels::optim::{OptFloat, adam, sgd};

/// Whether the fused kernel can run: every operand contiguous, of `p`'s float dtype
/// (float32 or float64) and size, and no two sharing a storage.
fn fused_fits(ts: &[&Tensor]) -> bool {
    let p = ts[0];
    matches!(p.dtype(), DType::Float32 | DType::Float64)
        && ts
            .iter()
            .all(|t| t.dtype() == p.dtype() && t.size() == p.size() && t.is_contiguous())
        && ts
            .iter()
            .enumerate()
            .all(|(i, a)| ts[i + 1..].iter().all(|b| !a.shares_storage(b)))
}

/// The parameter and gradient the fused kernel runs on: `p` itself, or a contiguous copy when
/// it is not contiguous (`true`: written back after the kernel); `g` itself, or a contiguous
/// copy in `p`'s dtype when it is not contiguous, of another dtype, or shares `p`'s storage.
/// `None` when the kernel cannot take them (a dtype other than float32 and float64, sizes
/// that differ): the composed steps run then.
fn dense_operands(p: &Tensor, g: &Tensor) -> Result<Option<(Tensor, bool, Tensor)>> {
    if !matches!(p.dtype(), DType::Float32 | DType::Float64) || g.size() != p.size() {
        return Ok(None);
    }
    let copy = |t: &Tensor| -> Result<Tensor> {
        let c = Tensor::empty_with(p.size(), p.dtype())?;
        c.copy_(t)?;
        Ok(c)
    };
    let (pw, copied) = if p.is_contiguous() {
        (p.alias(), false)
    } else {
        (copy(p)?, true)
    };
    let gw = if g.dtype() == p.dtype() && g.is_contiguous() && !g.shares_storage(p) {
        g.alias()
    } else {
        copy(g)?
    };
    Ok(Some((pw, copied, gw)))
}

/// After the kernel ran on `pw`: `p` gets its values back (`copy_`) when `pw` is a copy, and
/// its version counter moves by `n` in all (PyTorch's in-place ops on the parameter).
fn write_back(p: &Tensor, pw: &Tensor, copied: bool, n: u32) -> Result<()> {
    if copied {
        p.copy_(pw)?;
        bump(&[(p, n.saturating_sub(1))]);
    } else {
        bump(&[(p, n)]);
    }
    Ok(())
}

/// Bumps each output's version counter by its number of PyTorch in-place ops.
fn bump(ts: &[(&Tensor, u32)]) {
    for (t, n) in ts {
        for _ in 0..*n {
            t.storage.bump_version();
        }
    }
}

/// `_single_tensor_sgd`'s loop body for one parameter `p` with gradient `g` (`s`'s
/// hyperparameters). `buf`: the momentum buffer (with `momentum != 0`; `None` on its first
/// step). Returns the buffer a first step with momentum makes (`clone(grad)` after
/// `maximize` and weight decay), as PyTorch stores it in `momentum_buffer_list`.
pub(crate) fn sgd_step(
    p: &Tensor,
    g: &Tensor,
    buf: Option<&Tensor>,
    s: &SgdScalars,
) -> Result<Option<Tensor>> {
    let momentum = s.momentum != 0.0;
    let Some((pw, copied, gw)) = dense_operands(p, g)? else {
        return sgd_with_ops(p, g, buf, s);
    };
    let made = match (momentum, buf) {
        (true, None) => Some(Tensor::zeros_with(p.size(), p.dtype())?),
        _ => None,
    };
    let b = buf.or(made.as_ref()).filter(|_| momentum);
    let mut ops: Vec<&Tensor> = vec![&pw, &gw];
    ops.extend(b);
    if !fused_fits(&ops) {
        return sgd_with_ops(p, g, buf, s);
    }
    let first = made.is_some();
    match p.dtype() {
        DType::Float64 => sgd_fused::<f64>(&pw, &gw, b, first, s)?,
        _ => sgd_fused::<f32>(&pw, &gw, b, first, s)?,
    }
    // `param.add_(grad)`; `buf.mul_(momentum).add_(grad)` (a buffer made here is new)
    write_back(p, &pw, copied, 1)?;
    if let Some(b) = b.filter(|_| !first) {
        bump(&[(b, 2)]);
    }
    Ok(made)
}

fn sgd_fused<T: OptFloat + Element>(
    p: &Tensor,
    g: &Tensor,
    b: Option<&Tensor>,
    first: bool,
    s: &SgdScalars,
) -> Result<()> {
    let mut outs = vec![p];
    outs.extend(b);
    crate::iter::dense(&outs, &[g], |mut sl| {
        let pv = sl.out::<T>(0)?;
        let bv = b.map(|_| sl.out::<T>(1)).transpose()?;
        sgd(pv, sl.input::<T>(0)?, bv, first, s);
        Ok(())
    })
}

/// [`sgd_step`] as `_single_tensor_sgd` writes it, in tensile's ops (for operands the fused
/// kernel does not take): PyTorch's errors (`The size of tensor a (3) must match the size of
/// tensor b (2) at non-singleton dimension 0`, …) after the same in-place changes.
fn sgd_with_ops(
    p: &Tensor,
    g: &Tensor,
    buf: Option<&Tensor>,
    s: &SgdScalars,
) -> Result<Option<Tensor>> {
    let mut grad = if s.maximize { g.neg()? } else { g.alias() };
    if s.weight_decay != 0.0 {
        grad = grad.add_with(p, s.weight_decay)?;
    }
    let mut made = None;
    if s.momentum != 0.0 {
        let b = match buf {
            Some(b) => {
                b.mul_(s.momentum)?.add_with_(&grad, 1.0 - s.dampening)?;
                b.alias()
            }
            None => {
                let b = grad.try_clone()?.detach();
                made = Some(b.alias());
                b
            }
        };
        grad = if s.nesterov {
            grad.add_with(&b, s.momentum)?
        } else {
            b
        };
    }
    p.add_with_(&grad, -s.lr)?;
    Ok(made)
}

/// `_single_tensor_adam`'s loop body after `step += 1`, for one parameter `p` with gradient
/// `g`, its running averages `m` (`exp_avg`) and `v` (`exp_avg_sq`), and with amsgrad `vmax`
/// (`max_exp_avg_sq`); `s` holds the hyperparameters and this step's bias corrections.
pub(crate) fn adam_step(
    p: &Tensor,
    g: &Tensor,
    m: &Tensor,
    v: &Tensor,
    vmax: Option<&Tensor>,
    s: &AdamScalars,
) -> Result<()> {
    let Some((pw, copied, gw)) = dense_operands(p, g)? else {
        return adam_with_ops(p, g, m, v, vmax, s);
    };
    let mut ops = vec![&pw, &gw, m, v];
    ops.extend(vmax);
    if !fused_fits(&ops) {
        return adam_with_ops(p, g, m, v, vmax, s);
    }
    match p.dtype() {
        DType::Float64 => adam_fused::<f64>(&pw, &gw, m, v, vmax, s)?,
        _ => adam_fused::<f32>(&pw, &gw, m, v, vmax, s)?,
    }
    // `param.mul_` (AdamW's decay) and `param.addcdiv_`; `exp_avg.lerp_`;
    // `exp_avg_sq.mul_(beta2).addcmul_`; `torch.maximum(…, out=max_exp_avg_sq)`
    let decay = s.decoupled && s.weight_decay != 0.0;
    write_back(p, &pw, copied, 1 + decay as u32)?;
    bump(&[(m, 1), (v, 2)]);
    if let Some(x) = vmax {
        bump(&[(x, 1)]);
    }
    Ok(())
}

fn adam_fused<T: OptFloat + Element>(
    p: &Tensor,
    g: &Tensor,
    m: &Tensor,
    v: &Tensor,
    vmax: Option<&Tensor>,
    s: &AdamScalars,
) -> Result<()> {
    let mut outs = vec![p, m, v];
    outs.extend(vmax);
    crate::iter::dense(&outs, &[g], |mut sl| {
        let (pv, mv, vv) = (sl.out::<T>(0)?, sl.out::<T>(1)?, sl.out::<T>(2)?);
        let xv = vmax.map(|_| sl.out::<T>(3)).transpose()?;
        adam(pv, sl.input::<T>(0)?, mv, vv, xv, s);
        Ok(())
    })
}

/// [`adam_step`] as `_single_tensor_adam` writes it, in tensile's ops (for operands the fused
/// kernel does not take): PyTorch's ops fail on a state of another shape
/// (`exp_avg.lerp_(grad)`, `exp_avg_sq.mul_(beta2).addcmul_(grad, grad)`,
/// `torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)` or
/// `param.addcdiv_(exp_avg, denom)`: `The size of tensor a (3) must match the size of tensor b
/// (2) at non-singleton dimension 0`, `output with shape [1] doesn't match the broadcast shape
/// [2]`), after the same in-place changes.
fn adam_with_ops(
    p: &Tensor,
    g: &Tensor,
    m: &Tensor,
    v: &Tensor,
    vmax: Option<&Tensor>,
    s: &AdamScalars,
) -> Result<()> {
    let mut grad = if s.maximize { g.neg()? } else { g.alias() };
    if s.weight_decay != 0.0 {
        if s.decoupled {
            p.mul_(1.0 - s.lr * s.weight_decay)?;
        } else {
            grad = grad.add_with(p, s.weight_decay)?;
        }
    }
    m.lerp_(&grad, 1.0 - s.beta1)?;
    v.mul_(s.beta2)?
        .addcmul_with_(&grad, &grad, 1.0 - s.beta2)?;
    let v = match vmax {
        Some(x) => x.maximum_(v)?,
        None => v.alias(),
    };
    let denom = v.sqrt()?.div(s.bc2_sqrt)?.add_(s.eps)?;
    p.addcdiv_with_(m, &denom, -s.step_size)?;
    Ok(())
}
