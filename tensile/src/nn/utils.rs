//! `torch.nn.utils`: gradient clipping.

use crate::Tensor;
use crate::autograd::no_grad;
use crate::error::{Error, Result};
use crate::stack;

/// `torch.nn.utils.get_total_norm(tensors, norm_type)`: the `norm_type`-norm of the
/// per-tensor norms (as if all tensors were one vector); float32 0-d `0.` for no tensors.
fn total_norm(tensors: &[Tensor], norm_type: f64) -> Result<Tensor> {
    if tensors.is_empty() {
        return Tensor::scalar_tensor(0.0f32);
    }
    let norms: Vec<Tensor> = tensors
        .iter()
        .map(|g| g.norm_with(norm_type))
        .collect::<Result<_>>()?;
    stack(&norms)?.norm_with(norm_type)
}

/// `torch.nn.utils.clip_grad_norm_(parameters, max_norm, norm_type=2.0)`; see
/// [`clip_grad_norm_with_`].
pub fn clip_grad_norm_<T: AsRef<Tensor>>(parameters: &[T], max_norm: f64) -> Result<Tensor> {
    clip_grad_norm_with_(parameters, max_norm, 2.0, false)
}

/// `torch.nn.utils.clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)`:
/// scales every `.grad` in place (under no_grad) so that their total norm is at most
/// `max_norm`, and returns the total norm BEFORE clipping (0-d, the grads' dtype).
///
/// PyTorch's formula and order: `total = ‖[‖g₁‖, ‖g₂‖, …]‖` (`norm_type` may be
/// `f64::INFINITY`), `clip_coef = (total + 1e-6).reciprocal() * max_norm` (Python's
/// `max_norm / tensor`), clamped to at most 1.0, then each grad `mul_(clip_coef)` (also when
/// the coefficient is 1). Parameters without a grad are skipped; with none, the result is
/// `tensor(0.)`.
///
/// Error (RuntimeError, with `error_if_nonfinite`): `The total norm of order 2.0 for gradients
/// from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale
/// the gradients by the non-finite norm anyway, set `error_if_nonfinite=False``.
pub fn clip_grad_norm_with_<T: AsRef<Tensor>>(
    parameters: &[T],
    max_norm: f64,
    norm_type: f64,
    error_if_nonfinite: bool,
) -> Result<Tensor> {
    let _g = no_grad();
    let grads: Vec<Tensor> = parameters
        .iter()
        .filter_map(|p| p.as_ref().grad())
        .collect();
    let total = total_norm(&grads, norm_type)?;
    if error_if_nonfinite
        && !total
            .to(crate::dtype::DType::Float64)?
            .item::<f64>()?
            .is_finite()
    {
        return Err(Error::runtime(format!(
            "The total norm of order {norm_type:?} for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )));
    }
    if grads.is_empty() {
        return Ok(total);
    }
    let coef = total
        .add(1e-6)?
        .reciprocal()?
        .mul(max_norm)?
        .clamp_max(1.0)?;
    for g in &grads {
        g.mul_(&coef)?;
    }
    Ok(total)
}

/// `torch.nn.utils.clip_grad_value_(parameters, clip_value)`: clamps every `.grad` in place
/// to `[-clip_value, clip_value]` (under no_grad); parameters without a grad are skipped.
pub fn clip_grad_value_<T: AsRef<Tensor>>(parameters: &[T], clip_value: f64) -> Result<()> {
    let _g = no_grad();
    for p in parameters {
        if let Some(g) = p.as_ref().grad() {
            g.clamp_(-clip_value, clip_value)?;
        }
    }
    Ok(())
}
