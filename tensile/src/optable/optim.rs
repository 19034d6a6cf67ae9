//! One parameter's update of `torch.optim`'s single-tensor SGD and Adam/AdamW as ops of the
//! table: [`sgd_step_`] and [`adam_step_`] (the loop bodies of PyTorch's `_single_tensor_sgd`
//! and `_single_tensor_adam`), with their hyperparameters ([`SgdOpts`], [`AdamOpts`], which
//! are also `torch.optim.SGD`'s and `Adam`'s). `crate::optim`'s optimizers call them for each
//! parameter; the forward code is [`crate::ops::optim`]'s. They run under `no_grad`, as
//! `Optimizer.step` does: the update is not differentiable (PyTorch's `differentiable=False`).

use crate::Tensor;
use crate::error::{Error, Result, py_float};
use crate::ops::optim::{AdamScalars, SgdScalars, adam_step, sgd_step};

op_ids! {
    /// An optimizer update of the table (see [`crate::OpId`]).
    pub enum OptimId {
        /// [`sgd_step_`]
        SgdStep = "sgd_step_" ["sgd_step_"],
        /// [`adam_step_`]
        AdamStep = "adam_step_" ["adam_step_"],
    }
}

/// `torch.optim.SGD`'s hyperparameters (`SGD(params, lr=1e-3, momentum=0, dampening=0,
/// weight_decay=0, nesterov=False, *, maximize=False)`); `Default` gives PyTorch's defaults,
/// and a number converts to the options with that `lr`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SgdOpts {
    /// Learning rate (default `1e-3`).
    pub lr: f64,
    /// Momentum factor (default 0: no momentum buffer).
    pub momentum: f64,
    /// Dampening of the momentum (default 0).
    pub dampening: f64,
    /// L2 penalty added to the gradient (default 0).
    pub weight_decay: f64,
    /// Nesterov momentum (default false).
    pub nesterov: bool,
    /// Maximise the objective (the gradient is negated first; default false).
    pub maximize: bool,
}

impl Default for SgdOpts {
    fn default() -> SgdOpts {
        SgdOpts {
            lr: 1e-3,
            momentum: 0.0,
            dampening: 0.0,
            weight_decay: 0.0,
            nesterov: false,
            maximize: false,
        }
    }
}

impl From<f64> for SgdOpts {
    fn from(lr: f64) -> SgdOpts {
        SgdOpts {
            lr,
            ..SgdOpts::default()
        }
    }
}

impl SgdOpts {
    /// `SGD.__init__`'s checks, in its order (ValueError): `Invalid learning rate: -0.1`
    /// (`lr < 0`; NaN passes, as in PyTorch), `Invalid momentum value: -0.5`, `Invalid
    /// weight_decay value: -1e-05`, `Nesterov momentum requires a momentum and zero
    /// dampening`.
    pub fn validate(&self) -> Result<()> {
        if self.lr < 0.0 {
            return Err(Error::value(format!(
                "Invalid learning rate: {}",
                py_float(self.lr)
            )));
        }
        if self.momentum < 0.0 {
            return Err(Error::value(format!(
                "Invalid momentum value: {}",
                py_float(self.momentum)
            )));
        }
        if self.weight_decay < 0.0 {
            return Err(Error::value(format!(
                "Invalid weight_decay value: {}",
                py_float(self.weight_decay)
            )));
        }
        if self.nesterov && (self.momentum <= 0.0 || self.dampening != 0.0) {
            return Err(Error::value(
                "Nesterov momentum requires a momentum and zero dampening",
            ));
        }
        Ok(())
    }

    /// The kernel's scalars.
    pub(crate) fn scalars(&self) -> SgdScalars {
        SgdScalars {
            lr: self.lr,
            momentum: self.momentum,
            dampening: self.dampening,
            weight_decay: self.weight_decay,
            nesterov: self.nesterov,
            maximize: self.maximize,
        }
    }
}

/// `torch.optim.Adam`'s hyperparameters (`Adam(params, lr=1e-3, betas=(0.9, 0.999),
/// eps=1e-8, weight_decay=0, amsgrad=False, *, maximize=False, …,
/// decoupled_weight_decay=False)`); `Default` gives PyTorch's defaults, and a number converts
/// to the options with that `lr`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamOpts {
    /// Learning rate (default `1e-3`).
    pub lr: f64,
    /// The running averages' coefficients (default `(0.9, 0.999)`).
    pub betas: (f64, f64),
    /// Added to the denominator (default `1e-8`).
    pub eps: f64,
    /// Weight decay (default 0): an L2 penalty added to the gradient, or with
    /// `decoupled_weight_decay` the parameter scaled by `1 - lr * weight_decay` (AdamW).
    pub weight_decay: f64,
    /// The AMSGrad variant (default false).
    pub amsgrad: bool,
    /// Maximise the objective (default false).
    pub maximize: bool,
    /// AdamW's decoupled weight decay (default false).
    pub decoupled_weight_decay: bool,
}

impl Default for AdamOpts {
    fn default() -> AdamOpts {
        AdamOpts {
            lr: 1e-3,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 0.0,
            amsgrad: false,
            maximize: false,
            decoupled_weight_decay: false,
        }
    }
}

impl From<f64> for AdamOpts {
    fn from(lr: f64) -> AdamOpts {
        AdamOpts {
            lr,
            ..AdamOpts::default()
        }
    }
}

impl AdamOpts {
    /// `Adam.__init__`'s checks, in its order (ValueError): `Invalid learning rate: -1.0`
    /// (unless `0 <= lr`: NaN fails), `Invalid epsilon value: -1e-08`, `Invalid beta
    /// parameter at index 0: 1.0` (unless `0 <= beta < 1`), `Invalid beta parameter at index
    /// 1: -0.5`, `Invalid weight_decay value: -0.01`.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str, x: f64| Err(Error::value(format!("{what}: {}", py_float(x))));
        if !(0.0..).contains(&self.lr) {
            return bad("Invalid learning rate", self.lr);
        }
        if !(0.0..).contains(&self.eps) {
            return bad("Invalid epsilon value", self.eps);
        }
        if !(0.0 <= self.betas.0 && self.betas.0 < 1.0) {
            return bad("Invalid beta parameter at index 0", self.betas.0);
        }
        if !(0.0 <= self.betas.1 && self.betas.1 < 1.0) {
            return bad("Invalid beta parameter at index 1", self.betas.1);
        }
        if !(0.0..).contains(&self.weight_decay) {
            return bad("Invalid weight_decay value", self.weight_decay);
        }
        Ok(())
    }
}

/// One SGD update of `param` (PyTorch's `_single_tensor_sgd` loop body, spec §10.2):
/// ```text
/// g = -grad if maximize else grad
/// if weight_decay != 0: g = g + weight_decay * param
/// if momentum != 0:
///     buf = g.clone() on the first step (momentum_buffer None), else buf * momentum + (1 - dampening) * g
///     g = g + momentum * buf if nesterov else buf
/// param -= lr * g                                   (in place)
/// ```
/// `param`, `grad` and `momentum_buffer` (float32 or float64) have one shape; the buffer is
/// changed in place. Returns the buffer a first step with momentum makes (`None` otherwise),
/// as PyTorch stores it in `momentum_buffer_list`. In one pass over contiguous operands of
/// one dtype, with PyTorch's roundings (`crate::ops::optim`); versions move as PyTorch's
/// in-place ops move them (`param` +1, the buffer +2).
///
/// Errors: PyTorch's for other shapes (`The size of tensor a (3) must match the size of
/// tensor b (2) at non-singleton dimension 0`, `output with shape [1] doesn't match the
/// broadcast shape [2]`), after the same in-place changes.
pub fn sgd_step_(
    param: &Tensor,
    grad: &Tensor,
    momentum_buffer: Option<&Tensor>,
    opts: &SgdOpts,
) -> Result<Option<Tensor>> {
    let _g = crate::autograd::no_grad();
    sgd_step(param, grad, momentum_buffer, &opts.scalars())
}

/// One Adam/AdamW update of `param` at step `step` (the step count after `step += 1`; PyTorch's
/// `_single_tensor_adam` loop body, spec §10.3, in this order):
/// ```text
/// g = -grad if maximize else grad
/// if weight_decay != 0:
///     decoupled: param *= 1 - lr * weight_decay   (AdamW)
///     else:      g = g + weight_decay * param
/// exp_avg = lerp(exp_avg, g, 1 - beta1)
/// exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * g * g
/// step_size = lr / (1 - beta1**step);  bc2_sqrt = (1 - beta2**step) ** 0.5      (doubles)
/// v = max_exp_avg_sq = maximum(max_exp_avg_sq, exp_avg_sq) if amsgrad else exp_avg_sq
/// param += -step_size * exp_avg / (sqrt(v) / bc2_sqrt + eps)                   (in place)
/// ```
/// All tensors (float32 or float64) have one shape and change in place (`max_exp_avg_sq`
/// is used when given, whatever `opts.amsgrad` says). In one pass over contiguous operands
/// of one dtype, with PyTorch's roundings (`crate::ops::optim`); versions move as PyTorch's
/// in-place ops move them.
///
/// Errors: PyTorch's for state of other shapes (`exp_avg.lerp_(grad)`: `The size of tensor a
/// (3) must match the size of tensor b (2) at non-singleton dimension 0`; `output with shape
/// [1] doesn't match the broadcast shape [2]`), after the same in-place changes.
pub fn adam_step_(
    param: &Tensor,
    grad: &Tensor,
    exp_avg: &Tensor,
    exp_avg_sq: &Tensor,
    max_exp_avg_sq: Option<&Tensor>,
    step: f64,
    opts: &AdamOpts,
) -> Result<()> {
    let _g = crate::autograd::no_grad();
    let (b1, b2) = opts.betas;
    let s = AdamScalars {
        lr: opts.lr,
        beta1: b1,
        beta2: b2,
        eps: opts.eps,
        weight_decay: opts.weight_decay,
        maximize: opts.maximize,
        decoupled: opts.decoupled_weight_decay,
        step_size: opts.lr / (1.0 - b1.powf(step)),
        bc2_sqrt: (1.0 - b2.powf(step)).powf(0.5),
    };
    adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, &s)
}
