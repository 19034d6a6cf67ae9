//! `torch.optim.SGD`.

use super::{
    Buf, HyperValue, Optimizer, OptimizerStateDict, ParamGroup, ParamGroupState, SgdOpts, StateMap,
    check_dtype, check_grad, check_groups, check_param_groups, sgd_step_,
};
use crate::Tensor;
use crate::error::Result;
use std::collections::BTreeMap;

/// `torch.optim.SGD`: stochastic gradient descent with optional momentum (PyTorch's
/// single-tensor update, spec §10.2):
/// ```text
/// g = -p.grad if maximize else p.grad
/// if weight_decay != 0: g = g + weight_decay * p
/// if momentum != 0:
///     buf = g.clone() on the first step, else buf * momentum + (1 - dampening) * g
///     g = g + momentum * buf if nesterov else buf
/// p -= lr * g                                   (in place)
/// ```
/// State per parameter: `momentum_buffer` once `momentum != 0`. See [`Optimizer`] for
/// `step`, `zero_grad` and the state dict.
#[allow(clippy::upper_case_acronyms)]
#[derive(Debug)]
pub struct SGD {
    groups: Vec<ParamGroup<SgdOpts>>,
    /// Per parameter (by identity), its state: its `momentum_buffer`, or `None` for an empty
    /// state (before its first step with momentum completes, or loaded empty).
    state: StateMap<Option<Buf>>,
}

impl SGD {
    /// `SGD(params)` with PyTorch's defaults (`lr=1e-3`). Errors as [`SGD::from_groups`].
    pub fn new(params: impl IntoIterator<Item = Tensor>) -> Result<SGD> {
        SGD::new_with(params, SgdOpts::default())
    }

    /// `SGD(params, lr=…, momentum=…, …)`: one param group; `opts` is an [`SgdOpts`] or a
    /// learning rate. Errors as [`SGD::from_groups`].
    pub fn new_with(
        params: impl IntoIterator<Item = Tensor>,
        opts: impl Into<SgdOpts>,
    ) -> Result<SGD> {
        let opts = opts.into();
        opts.validate()?;
        let params: Vec<Tensor> = params.into_iter().collect();
        let groups = if params.is_empty() {
            vec![]
        } else {
            vec![ParamGroup::new(params, opts)]
        };
        SGD::from_groups(groups)
    }

    /// `SGD([{"params": …, "lr": …}, …])`: several param groups, each with its own
    /// options.
    ///
    /// Errors (ValueError), in order: each group's [`SgdOpts::validate`] (PyTorch checks only
    /// the defaults; every group is checked here), `optimizer got an empty parameter list`,
    /// `can't optimize a non-leaf Tensor`, `some parameters appear in more than one parameter
    /// group`.
    pub fn from_groups(groups: Vec<ParamGroup<SgdOpts>>) -> Result<SGD> {
        for g in &groups {
            g.options.validate()?;
        }
        check_param_groups(&groups)?;
        Ok(SGD {
            groups,
            state: StateMap::new(),
        })
    }

    /// `optimizer.param_groups`.
    pub fn param_groups(&self) -> &[ParamGroup<SgdOpts>] {
        &self.groups
    }

    /// `optimizer.param_groups`, to change a group's options or parameters (not validated, as
    /// in PyTorch). The state follows the parameters: a parameter moved within or between
    /// groups keeps its momentum buffer, one added or put in another's place starts without.
    pub fn param_groups_mut(&mut self) -> &mut [ParamGroup<SgdOpts>] {
        &mut self.groups
    }

    /// One parameter's update ([`sgd_step_`]). `buf`: its momentum buffer (`None`: no
    /// momentum, or its first step with momentum). Returns the buffer a first step with
    /// momentum makes (the gradient, after `maximize` and weight decay).
    fn step_param(p: &Tensor, g: &Tensor, buf: Option<&Buf>, o: &SgdOpts) -> Result<Option<Buf>> {
        check_grad(p, g)?;
        Ok(sgd_step_(p, g, buf.map(Buf::tensor), o)?.map(Buf::made))
    }
}

impl Optimizer for SGD {
    /// As PyTorch's, group by group: with momentum, every parameter of the group that has a
    /// gradient gets a state (empty until its first step) before any is updated, and the
    /// buffers made by first steps are stored once the whole group has stepped (after an
    /// error in the group, those parameters have an empty state, as in PyTorch).
    fn step(&mut self) -> Result<()> {
        for group in &self.groups {
            let o = &group.options;
            let mut todo = Vec::new();
            for p in &group.params {
                let Some(g) = p.grad() else { continue };
                check_dtype("SGD", p)?;
                if o.momentum != 0.0 {
                    self.state.with_state(p, |s| {
                        s.get_or_insert(None);
                        Ok(())
                    })?;
                }
                todo.push((p, g));
            }
            let mut fresh = Vec::new();
            for (p, g) in todo {
                let made = if o.momentum == 0.0 {
                    SGD::step_param(p, &g, None, o)?
                } else {
                    self.state.with_state(p, |s| {
                        SGD::step_param(p, &g, s.as_ref().and_then(|b| b.as_ref()), o)
                    })?
                };
                if let Some(b) = made {
                    fresh.push((p, b));
                }
            }
            for (p, b) in fresh {
                self.state.insert(p, Some(b));
            }
        }
        Ok(())
    }

    fn num_param_groups(&self) -> usize {
        self.groups.len()
    }
    super::group_accessors!();

    fn state_dict(&self) -> Result<OptimizerStateDict> {
        let (indices, bufs) = self.state.pack(&self.groups)?;
        let mut state = BTreeMap::new();
        for (i, b) in bufs {
            let entries = match b {
                Some(b) => vec![("momentum_buffer".to_string(), b.to_tensor()?)],
                None => Vec::new(),
            };
            state.insert(i, entries);
        }
        let mut param_groups = Vec::new();
        for (g, params) in self.groups.iter().zip(indices) {
            let o = &g.options;
            let mut options = vec![
                ("lr".to_string(), HyperValue::Float(o.lr)),
                ("momentum".to_string(), HyperValue::Float(o.momentum)),
                ("dampening".to_string(), HyperValue::Float(o.dampening)),
                (
                    "weight_decay".to_string(),
                    HyperValue::Float(o.weight_decay),
                ),
                ("nesterov".to_string(), HyperValue::Bool(o.nesterov)),
                ("maximize".to_string(), HyperValue::Bool(o.maximize)),
                ("foreach".to_string(), HyperValue::None),
                ("differentiable".to_string(), HyperValue::Bool(false)),
                ("fused".to_string(), HyperValue::None),
            ];
            if let Some(l) = g.initial_lr {
                options.push(("initial_lr".to_string(), HyperValue::Float(l)));
            }
            param_groups.push(ParamGroupState { options, params });
        }
        Ok(OptimizerStateDict {
            state,
            param_groups,
        })
    }

    fn load_state_dict(&mut self, sd: &OptimizerStateDict) -> Result<()> {
        let sizes: Vec<usize> = self.groups.iter().map(|g| g.params.len()).collect();
        check_groups(&sizes, sd)?;
        let new_state = StateMap::unpack(&self.groups, sd, |si, p, _| {
            match sd.state_tensor(si, "momentum_buffer") {
                Some(t) => Ok(Some(Some(super::load_buf(t, p)?))),
                None => Ok(Some(None)),
            }
        })?;
        let mut opts = Vec::with_capacity(self.groups.len());
        for (i, (g, s)) in self.groups.iter().zip(&sd.param_groups).enumerate() {
            let o = &g.options;
            opts.push((
                SgdOpts {
                    lr: s.float(i, "lr", o.lr)?,
                    momentum: s.float(i, "momentum", o.momentum)?,
                    dampening: s.float(i, "dampening", o.dampening)?,
                    weight_decay: s.float(i, "weight_decay", o.weight_decay)?,
                    nesterov: s.bool(i, "nesterov", o.nesterov)?,
                    maximize: s.bool(i, "maximize", o.maximize)?,
                },
                s.opt_float(i, "initial_lr", g.initial_lr)?,
            ));
        }
        for (g, (o, l)) in self.groups.iter_mut().zip(opts) {
            g.options = o;
            g.initial_lr = l;
        }
        self.state = new_state;
        Ok(())
    }
}
