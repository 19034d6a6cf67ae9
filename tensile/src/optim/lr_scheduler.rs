//! `torch.optim.lr_scheduler`: [`StepLR`], [`CosineAnnealingLR`], [`LinearLR`] and
//! [`LambdaLR`], computing PyTorch 2.15's `get_lr` (its recursive forms, in its float64
//! arithmetic, operation for operation) so that the learning rates are PyTorch's to the bit.
//!
//! A scheduler does not own its optimizer: it is made on one (`StepLR::new(&mut opt, …)`:
//! sets each group's `initial_lr` if unset and applies the schedule's first value, as
//! PyTorch's constructor does) and then stepped with it, after the optimizer's step:
//! ```
//! use tensile::Tensor;
//! use tensile::optim::{LRScheduler, Optimizer, SGD, StepLR};
//! let w = Tensor::ones([2])?.requires_grad_(true)?;
//! let mut opt = SGD::new_with([w.alias()], 0.1)?;
//! let mut sched = StepLR::new(&mut opt, 2, 0.5)?;
//! for _ in 0..4 {
//!     // … forward, backward …
//!     opt.step()?;
//!     sched.step(&mut opt)?;
//! }
//! assert_eq!(sched.get_last_lr(), &[0.025]);
//! assert_eq!(opt.lr(0)?, 0.025);
//! # Ok::<(), tensile::Error>(())
//! ```
//! Only `last_epoch=-1` (a fresh schedule) is offered at construction; to resume, load a
//! [`SchedulerStateDict`]. The deprecated `step(epoch)` form is not offered.

use super::Optimizer;
use crate::error::{Error, Result};

/// `torch.optim.lr_scheduler.LRScheduler`: what every scheduler offers.
pub trait LRScheduler {
    /// `scheduler.step()`: advances `last_epoch` by one and sets each param group's `lr` of
    /// `optimizer` (the one the scheduler was made on) to the schedule's next value.
    ///
    /// Errors: the optimizer has another number of param groups than when the scheduler was
    /// made (ValueError, Python's strict `zip`: `zip() argument 2 is shorter than argument
    /// 1`); `StepLR` with `step_size = 0` and `CosineAnnealingLR` with `T_max = 0`
    /// (`integer modulo by zero`, Python's ZeroDivisionError, here a RuntimeError); a loaded
    /// state dict whose `last_epoch` or `step_count` is `i64::MAX` (RuntimeError of tensile's
    /// own, `scheduler step: last_epoch … or _step_count … is the largest 64-bit int`: Python's
    /// ints do not overflow).
    fn step(&mut self, optimizer: &mut dyn Optimizer) -> Result<()>;
    /// `scheduler.get_last_lr()`: the learning rates the last step set, one per group.
    fn get_last_lr(&self) -> &[f64];
    /// `scheduler.last_epoch`: 0 after construction, +1 per step.
    fn last_epoch(&self) -> i64;
    /// `scheduler.state_dict()`: the counters and learning rates.
    fn state_dict(&self) -> SchedulerStateDict;
    /// `scheduler.load_state_dict(sd)`: continues from `sd`'s counters (the schedule's own
    /// parameters, such as `T_max`, stay those given at construction).
    fn load_state_dict(&mut self, state_dict: &SchedulerStateDict);
}

/// `scheduler.state_dict()`: the entries of PyTorch's that describe progress (its schedule
/// parameters, e.g. `step_size`, are the scheduler's own and not included).
#[derive(Clone, Debug, PartialEq)]
pub struct SchedulerStateDict {
    /// `base_lrs`: each group's `initial_lr`.
    pub base_lrs: Vec<f64>,
    /// `last_epoch`.
    pub last_epoch: i64,
    /// `_step_count`: steps taken, counting the one made at construction.
    pub step_count: i64,
    /// `_last_lr`.
    pub last_lr: Vec<f64>,
}

/// The state every scheduler shares (`LRScheduler.__init__`'s attributes).
#[derive(Clone, Debug)]
struct Base {
    base_lrs: Vec<f64>,
    last_epoch: i64,
    step_count: i64,
    last_lr: Vec<f64>,
    is_initial: bool,
}

impl Base {
    /// `LRScheduler.__init__` up to `_initial_step`: `initial_lr` set where unset, and
    /// `base_lrs` read from it.
    fn new(opt: &mut dyn Optimizer) -> Result<Base> {
        let mut base_lrs = Vec::with_capacity(opt.num_param_groups());
        for g in 0..opt.num_param_groups() {
            if opt.initial_lr(g)?.is_none() {
                let lr = opt.lr(g)?;
                opt.set_initial_lr(g, Some(lr))?;
            }
            base_lrs.push(opt.initial_lr(g)?.unwrap_or(f64::NAN));
        }
        Ok(Base {
            base_lrs,
            last_epoch: -1,
            step_count: 0,
            last_lr: Vec::new(),
            is_initial: false,
        })
    }

    fn lrs(opt: &dyn Optimizer) -> Result<Vec<f64>> {
        (0..opt.num_param_groups()).map(|g| opt.lr(g)).collect()
    }

    /// `LRScheduler.step()` with `get_lr` = `rule`.
    fn step(
        &mut self,
        opt: &mut dyn Optimizer,
        rule: impl FnOnce(&Base, &dyn Optimizer) -> Result<Vec<f64>>,
    ) -> Result<()> {
        // Python's ints do not overflow; ours stop at i64::MAX (reachable only through a
        // loaded state dict) with an error instead of wrapping.
        let (Some(count), Some(epoch)) = (
            self.step_count.checked_add(1),
            self.last_epoch.checked_add(1),
        ) else {
            return Err(Error::runtime(format!(
                "scheduler step: last_epoch {} or _step_count {} is the largest 64-bit int",
                self.last_epoch, self.step_count
            )));
        };
        self.step_count = count;
        self.last_epoch = epoch;
        let values = rule(self, opt)?;
        let n = opt.num_param_groups();
        if values.len() != n {
            return Err(Error::value(if values.len() < n {
                "zip() argument 2 is longer than argument 1"
            } else {
                "zip() argument 2 is shorter than argument 1"
            }));
        }
        for (g, lr) in values.into_iter().enumerate() {
            opt.set_lr(g, lr)?;
        }
        self.last_lr = Base::lrs(opt)?;
        Ok(())
    }

    /// `_initial_step`: one step in "initial" mode.
    fn initial_step(
        &mut self,
        opt: &mut dyn Optimizer,
        rule: impl FnOnce(&Base, &dyn Optimizer) -> Result<Vec<f64>>,
    ) -> Result<()> {
        self.step_count = 0;
        self.is_initial = true;
        let r = self.step(opt, rule);
        self.is_initial = false;
        r
    }

    fn check_groups(&self, opt: &dyn Optimizer) -> Result<()> {
        let n = opt.num_param_groups();
        if self.base_lrs.len() != n {
            return Err(Error::value(if self.base_lrs.len() < n {
                "zip() argument 2 is longer than argument 1"
            } else {
                "zip() argument 2 is shorter than argument 1"
            }));
        }
        Ok(())
    }

    fn state_dict(&self) -> SchedulerStateDict {
        SchedulerStateDict {
            base_lrs: self.base_lrs.clone(),
            last_epoch: self.last_epoch,
            step_count: self.step_count,
            last_lr: self.last_lr.clone(),
        }
    }

    fn load(&mut self, sd: &SchedulerStateDict) {
        self.base_lrs = sd.base_lrs.clone();
        self.last_epoch = sd.last_epoch;
        self.step_count = sd.step_count;
        self.last_lr = sd.last_lr.clone();
    }
}

/// Python's `a % b` for ints (the sign of `b`), with its ZeroDivisionError text. In `i128`,
/// so that sums of two `i64`s (`last_epoch - 1 - T_max`, `2 * T_max`) are exact, as Python's.
fn py_mod(a: i128, b: i128) -> Result<i128> {
    if b == 0 {
        return Err(Error::runtime("integer modulo by zero"));
    }
    let r = a.wrapping_rem(b);
    Ok(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

macro_rules! scheduler_common {
    () => {
        fn get_last_lr(&self) -> &[f64] {
            &self.base.last_lr
        }
        fn last_epoch(&self) -> i64 {
            self.base.last_epoch
        }
        fn state_dict(&self) -> SchedulerStateDict {
            self.base.state_dict()
        }
        fn load_state_dict(&mut self, state_dict: &SchedulerStateDict) {
            self.base.load(state_dict)
        }
    };
}

/// `torch.optim.lr_scheduler.StepLR(optimizer, step_size, gamma=0.1)`: each group's `lr` is
/// multiplied by `gamma` at every epoch that is a non-zero multiple of `step_size`
/// (PyTorch's recursive `get_lr`: `lr * gamma`).
#[derive(Clone, Debug)]
pub struct StepLR {
    base: Base,
    /// `step_size`.
    pub step_size: i64,
    /// `gamma`.
    pub gamma: f64,
}

impl StepLR {
    /// `StepLR(optimizer, step_size, gamma)`; sets `initial_lr` and leaves the lrs as they
    /// are (epoch 0). Never fails for a valid optimizer (a `step_size` of 0 fails at the
    /// next [`LRScheduler::step`], as in PyTorch).
    pub fn new(optimizer: &mut dyn Optimizer, step_size: i64, gamma: f64) -> Result<StepLR> {
        let mut s = StepLR {
            base: Base::new(optimizer)?,
            step_size,
            gamma,
        };
        let (st, g) = (s.step_size, s.gamma);
        s.base
            .initial_step(optimizer, |b, o| StepLR::rule(b, o, st, g))?;
        Ok(s)
    }

    fn rule(b: &Base, o: &dyn Optimizer, step_size: i64, gamma: f64) -> Result<Vec<f64>> {
        let lrs = Base::lrs(o)?;
        if b.last_epoch == 0 || py_mod(b.last_epoch.into(), step_size.into())? != 0 {
            return Ok(lrs);
        }
        Ok(lrs.into_iter().map(|lr| lr * gamma).collect())
    }
}

impl LRScheduler for StepLR {
    fn step(&mut self, optimizer: &mut dyn Optimizer) -> Result<()> {
        self.base.check_groups(optimizer)?;
        let (st, g) = (self.step_size, self.gamma);
        self.base.step(optimizer, |b, o| StepLR::rule(b, o, st, g))
    }
    scheduler_common!();
}

/// `torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max, eta_min=0.0)`: cosine
/// annealing from each group's `lr` to `eta_min` over `T_max` steps, by PyTorch's recursive
/// formula (`(1 + cos(π·t/T)) / (1 + cos(π·(t−1)/T)) · (lr − eta_min) + eta_min`, and
/// `lr + (base_lr − eta_min)·(1 − cos(π/T))/2` where the cosine restarts upwards), so the
/// values after `T_max` go back up as PyTorch's do.
#[derive(Clone, Debug)]
pub struct CosineAnnealingLR {
    base: Base,
    /// `T_max`.
    pub t_max: i64,
    /// `eta_min`.
    pub eta_min: f64,
}

impl CosineAnnealingLR {
    /// `CosineAnnealingLR(optimizer, T_max, eta_min)`; sets `initial_lr` and leaves the lrs
    /// as they are (epoch 0). A `T_max` of 0 fails at the next [`LRScheduler::step`].
    pub fn new(
        optimizer: &mut dyn Optimizer,
        t_max: i64,
        eta_min: f64,
    ) -> Result<CosineAnnealingLR> {
        let mut s = CosineAnnealingLR {
            base: Base::new(optimizer)?,
            t_max,
            eta_min,
        };
        let (t, e) = (s.t_max, s.eta_min);
        s.base
            .initial_step(optimizer, |b, o| CosineAnnealingLR::rule(b, o, t, e))?;
        Ok(s)
    }

    fn rule(b: &Base, o: &dyn Optimizer, t_max: i64, eta_min: f64) -> Result<Vec<f64>> {
        use std::f64::consts::PI;
        let lrs = Base::lrs(o)?;
        let le = b.last_epoch;
        let tm = t_max as f64;
        if b.is_initial {
            return Ok(lrs);
        }
        if b.step_count == 1 && le > 0 {
            return Ok(b
                .base_lrs
                .iter()
                .map(|&base| {
                    eta_min + (base - eta_min) * (1.0 + ((le as f64) * PI / tm).cos()) / 2.0
                })
                .collect());
        }
        if py_mod(
            i128::from(le) - 1 - i128::from(t_max),
            2 * i128::from(t_max),
        )? == 0
        {
            return Ok(lrs
                .iter()
                .zip(&b.base_lrs)
                .map(|(&lr, &base)| lr + (base - eta_min) * (1.0 - (PI / tm).cos()) / 2.0)
                .collect());
        }
        Ok(lrs
            .iter()
            .map(|&lr| {
                (1.0 + (PI * le as f64 / tm).cos())
                    / (1.0 + (PI * ((i128::from(le) - 1) as f64) / tm).cos())
                    * (lr - eta_min)
                    + eta_min
            })
            .collect())
    }
}

impl LRScheduler for CosineAnnealingLR {
    fn step(&mut self, optimizer: &mut dyn Optimizer) -> Result<()> {
        self.base.check_groups(optimizer)?;
        let (t, e) = (self.t_max, self.eta_min);
        self.base
            .step(optimizer, |b, o| CosineAnnealingLR::rule(b, o, t, e))
    }
    scheduler_common!();
}

/// `torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1/3, end_factor=1.0,
/// total_iters=5)`: each group's `lr` is multiplied by `start_factor` at construction, then
/// changed linearly to `end_factor` times it over `total_iters` steps (PyTorch's recursive
/// `get_lr`: `lr * (1 + (end − start) / (total_iters·start + (t−1)·(end − start)))`).
#[derive(Clone, Debug)]
pub struct LinearLR {
    base: Base,
    /// `start_factor`.
    pub start_factor: f64,
    /// `end_factor`.
    pub end_factor: f64,
    /// `total_iters`.
    pub total_iters: i64,
}

impl LinearLR {
    /// `LinearLR(optimizer)` with PyTorch's defaults (`1/3`, `1.0`, `5`).
    pub fn new_default(optimizer: &mut dyn Optimizer) -> Result<LinearLR> {
        LinearLR::new(optimizer, 1.0 / 3.0, 1.0, 5)
    }

    /// `LinearLR(optimizer, start_factor, end_factor, total_iters)`; sets `initial_lr` and
    /// multiplies the lrs by `start_factor`.
    ///
    /// Errors (ValueError): `Starting multiplicative factor expected to be greater than 0 and
    /// less or equal to 1.`; `Ending multiplicative factor expected to be between 0 and 1.`
    pub fn new(
        optimizer: &mut dyn Optimizer,
        start_factor: f64,
        end_factor: f64,
        total_iters: i64,
    ) -> Result<LinearLR> {
        if start_factor > 1.0 || start_factor <= 0.0 {
            return Err(Error::value(
                "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.",
            ));
        }
        // Python's comparisons, so that NaN passes as it does in PyTorch
        #[allow(clippy::manual_range_contains)]
        if end_factor > 1.0 || end_factor < 0.0 {
            return Err(Error::value(
                "Ending multiplicative factor expected to be between 0 and 1.",
            ));
        }
        let mut s = LinearLR {
            base: Base::new(optimizer)?,
            start_factor,
            end_factor,
            total_iters,
        };
        let (a, e, n) = (start_factor, end_factor, total_iters);
        s.base
            .initial_step(optimizer, |b, o| LinearLR::rule(b, o, a, e, n))?;
        Ok(s)
    }

    fn rule(b: &Base, o: &dyn Optimizer, start: f64, end: f64, total: i64) -> Result<Vec<f64>> {
        let lrs = Base::lrs(o)?;
        let le = b.last_epoch;
        if le == 0 {
            return Ok(lrs.into_iter().map(|lr| lr * start).collect());
        }
        if b.is_initial || le > total {
            return Ok(lrs);
        }
        Ok(lrs
            .into_iter()
            .map(|lr| {
                lr * (1.0
                    + (end - start)
                        / (total as f64 * start + ((i128::from(le) - 1) as f64) * (end - start)))
            })
            .collect())
    }
}

impl LRScheduler for LinearLR {
    fn step(&mut self, optimizer: &mut dyn Optimizer) -> Result<()> {
        self.base.check_groups(optimizer)?;
        let (a, e, n) = (self.start_factor, self.end_factor, self.total_iters);
        self.base
            .step(optimizer, |b, o| LinearLR::rule(b, o, a, e, n))
    }
    scheduler_common!();
}

/// A learning-rate factor as a function of the epoch (`lr_lambda`).
pub type LrLambda = Box<dyn Fn(i64) -> f64 + Send + Sync>;

/// `torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)`: each group's `lr` is its
/// `initial_lr` times `lr_lambda(epoch)`.
pub struct LambdaLR {
    base: Base,
    lambdas: Vec<LrLambda>,
}

impl std::fmt::Debug for LambdaLR {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LambdaLR")
            .field("base", &self.base)
            .field("lr_lambdas", &self.lambdas.len())
            .finish()
    }
}

impl LambdaLR {
    /// `LambdaLR(optimizer, lr_lambda)`: one function for every group; sets `initial_lr`
    /// and the lrs to `initial_lr * lr_lambda(0)`.
    pub fn new(
        optimizer: &mut dyn Optimizer,
        lr_lambda: impl Fn(i64) -> f64 + Send + Sync + 'static,
    ) -> Result<LambdaLR> {
        let f: std::sync::Arc<dyn Fn(i64) -> f64 + Send + Sync> = std::sync::Arc::new(lr_lambda);
        let lambdas = (0..optimizer.num_param_groups())
            .map(|_| {
                let f = f.clone();
                Box::new(move |e| f(e)) as LrLambda
            })
            .collect();
        LambdaLR::new_per_group(optimizer, lambdas)
    }

    /// `LambdaLR(optimizer, [f0, f1, …])`: one function per param group.
    ///
    /// Error (ValueError): `Expected 2 lr_lambdas, but got 1`.
    pub fn new_per_group(
        optimizer: &mut dyn Optimizer,
        lr_lambdas: Vec<LrLambda>,
    ) -> Result<LambdaLR> {
        let n = optimizer.num_param_groups();
        if lr_lambdas.len() != n {
            return Err(Error::value(format!(
                "Expected {n} lr_lambdas, but got {}",
                lr_lambdas.len()
            )));
        }
        let mut s = LambdaLR {
            base: Base::new(optimizer)?,
            lambdas: lr_lambdas,
        };
        let lambdas = &s.lambdas;
        s.base
            .initial_step(optimizer, |b, _| Ok(LambdaLR::rule(b, lambdas)))?;
        Ok(s)
    }

    fn rule(b: &Base, lambdas: &[LrLambda]) -> Vec<f64> {
        b.base_lrs
            .iter()
            .zip(lambdas)
            .map(|(&base, f)| base * f(b.last_epoch))
            .collect()
    }
}

impl LRScheduler for LambdaLR {
    fn step(&mut self, optimizer: &mut dyn Optimizer) -> Result<()> {
        self.base.check_groups(optimizer)?;
        let lambdas = &self.lambdas;
        self.base
            .step(optimizer, |b, _| Ok(LambdaLR::rule(b, lambdas)))
    }
    scheduler_common!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tensor;
    use crate::optim::SGD;

    /// Epoch counters at the ends of i64 (from a loaded state dict), and `T_max` at them: an
    /// error or Python's value, never an overflow.
    #[test]
    fn extreme_epochs_and_periods_do_not_overflow() {
        let w = Tensor::ones([2]).unwrap().requires_grad_(true).unwrap();
        let mut opt = SGD::new_with([w.alias()], 0.1).unwrap();
        let mut s = StepLR::new(&mut opt, 1, 0.5).unwrap();
        let mut sd = s.state_dict();
        sd.last_epoch = i64::MAX;
        s.load_state_dict(&sd);
        let e = s.step(&mut opt).unwrap_err();
        assert!(e.to_string().contains("largest 64-bit int"), "{e}");
        for t_max in [i64::MAX, i64::MIN, -1] {
            for epoch in [i64::MIN, i64::MAX - 1, -2] {
                let mut c = CosineAnnealingLR::new(&mut opt, t_max, 0.0).unwrap();
                let mut sd = c.state_dict();
                sd.last_epoch = epoch;
                c.load_state_dict(&sd);
                c.step(&mut opt).unwrap();
            }
        }
        let mut l = LinearLR::new(&mut opt, 0.5, 1.0, i64::MIN).unwrap();
        let mut sd = l.state_dict();
        sd.last_epoch = i64::MIN;
        l.load_state_dict(&sd);
        l.step(&mut opt).unwrap();
    }

    #[test]
    fn modulo_takes_the_divisors_sign() {
        assert_eq!(py_mod(-3, 4).unwrap(), 1);
        assert_eq!(py_mod(3, 4).unwrap(), 3);
        assert_eq!(py_mod(-8, 4).unwrap(), 0);
        assert_eq!(py_mod(3, -4).unwrap(), -1);
        assert_eq!(py_mod(-3, -4).unwrap(), -3);
        assert!(py_mod(1, 0).is_err());
    }
}
