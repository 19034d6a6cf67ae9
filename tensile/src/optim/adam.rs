//! `torch.optim.Adam` and `torch.optim.AdamW` (Adam with decoupled weight decay): one
//! implementation, as in PyTorch 2.x where `AdamW` is `Adam(decoupled_weight_decay=True)`.

use super::{
    AdamOpts, Buf, HyperValue, Optimizer, OptimizerStateDict, ParamGroup, ParamGroupState,
    StateMap, adam_step_, check_dtype, check_grad, check_groups, check_param_groups, load_buf,
};
use crate::Tensor;
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// `torch.optim.AdamW`'s hyperparameters (`AdamW(params, lr=1e-3, betas=(0.9, 0.999),
/// eps=1e-8, weight_decay=1e-2, amsgrad=False, *, maximize=False)`); `Default` gives
/// PyTorch's defaults (note `weight_decay = 0.01`), and a number converts to the options
/// with that `lr`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamWOpts {
    /// Learning rate (default `1e-3`).
    pub lr: f64,
    /// The running averages' coefficients (default `(0.9, 0.999)`).
    pub betas: (f64, f64),
    /// Added to the denominator (default `1e-8`).
    pub eps: f64,
    /// Decoupled weight decay (default `0.01`): `p *= 1 - lr * weight_decay` each step.
    pub weight_decay: f64,
    /// The AMSGrad variant (default false).
    pub amsgrad: bool,
    /// Maximise the objective (default false).
    pub maximize: bool,
}

impl Default for AdamWOpts {
    fn default() -> AdamWOpts {
        AdamWOpts {
            lr: 1e-3,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 1e-2,
            amsgrad: false,
            maximize: false,
        }
    }
}

impl From<f64> for AdamWOpts {
    fn from(lr: f64) -> AdamWOpts {
        AdamWOpts {
            lr,
            ..AdamWOpts::default()
        }
    }
}

impl From<AdamWOpts> for AdamOpts {
    fn from(o: AdamWOpts) -> AdamOpts {
        AdamOpts {
            lr: o.lr,
            betas: o.betas,
            eps: o.eps,
            weight_decay: o.weight_decay,
            amsgrad: o.amsgrad,
            maximize: o.maximize,
            decoupled_weight_decay: true,
        }
    }
}

/// One parameter's state.
#[derive(Debug)]
struct AdamState {
    /// `state["step"]`: a float32 counter, as PyTorch's 0-d float32 tensor (it stops
    /// increasing above 2^24).
    step: f32,
    exp_avg: Buf,
    exp_avg_sq: Buf,
    max_exp_avg_sq: Option<Buf>,
}

impl AdamState {
    /// PyTorch's `_init_group` for a parameter without state: `step` 0 and zeros shaped as
    /// `p` (`max_exp_avg_sq` too with amsgrad).
    fn new(p: &Tensor, amsgrad: bool) -> Result<AdamState> {
        Ok(AdamState {
            step: 0.0,
            exp_avg: Buf::zeros_like(p)?,
            exp_avg_sq: Buf::zeros_like(p)?,
            max_exp_avg_sq: if amsgrad {
                Some(Buf::zeros_like(p)?)
            } else {
                None
            },
        })
    }
}

/// `torch.optim.Adam` (PyTorch's single-tensor update, spec §10.3, in this order):
/// ```text
/// g = -p.grad if maximize else p.grad
/// step += 1                                   (float32; t = step as a double)
/// if weight_decay != 0:
///     decoupled: p *= 1 - lr * weight_decay   (AdamW)
///     else:      g = g + weight_decay * p
/// exp_avg = lerp(exp_avg, g, 1 - beta1)
/// exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * g * g
/// step_size = lr / (1 - beta1**t);  bc2_sqrt = (1 - beta2**t) ** 0.5      (doubles)
/// v = max_exp_avg_sq = maximum(max_exp_avg_sq, exp_avg_sq) if amsgrad else exp_avg_sq
/// p += -step_size * exp_avg / (sqrt(v) / bc2_sqrt + eps)                   (in place)
/// ```
/// State per parameter: `step`, `exp_avg`, `exp_avg_sq`, and `max_exp_avg_sq` with
/// amsgrad. See [`Optimizer`] for `step`, `zero_grad` and the state dict.
#[derive(Debug)]
pub struct Adam {
    groups: Vec<ParamGroup<AdamOpts>>,
    /// Per parameter (by identity), its state.
    state: StateMap<AdamState>,
    name: &'static str,
}

impl Adam {
    /// `Adam(params)` with PyTorch's defaults. Errors as [`Adam::from_groups`].
    pub fn new(params: impl IntoIterator<Item = Tensor>) -> Result<Adam> {
        Adam::new_with(params, AdamOpts::default())
    }

    /// `Adam(params, lr=…, betas=…, …)`: one param group; `opts` is an [`AdamOpts`] or a
    /// learning rate. Errors as [`Adam::from_groups`].
    pub fn new_with(
        params: impl IntoIterator<Item = Tensor>,
        opts: impl Into<AdamOpts>,
    ) -> Result<Adam> {
        let opts = opts.into();
        opts.validate()?;
        let params: Vec<Tensor> = params.into_iter().collect();
        let groups = if params.is_empty() {
            vec![]
        } else {
            vec![ParamGroup::new(params, opts)]
        };
        Adam::from_groups(groups)
    }

    /// `Adam([{"params": …, "lr": …}, …])`: several param groups with their own options.
    ///
    /// Errors (ValueError), in order: each group's [`AdamOpts::validate`] (PyTorch checks
    /// only the defaults; every group is checked here), `optimizer got an empty parameter
    /// list`, `can't optimize a non-leaf Tensor`, `some parameters appear in more than one
    /// parameter group`.
    pub fn from_groups(groups: Vec<ParamGroup<AdamOpts>>) -> Result<Adam> {
        for g in &groups {
            g.options.validate()?;
        }
        check_param_groups(&groups)?;
        Ok(Adam {
            groups,
            state: StateMap::new(),
            name: "Adam",
        })
    }

    /// `optimizer.param_groups`.
    pub fn param_groups(&self) -> &[ParamGroup<AdamOpts>] {
        &self.groups
    }

    /// `optimizer.param_groups`, to change a group's options or parameters (not validated, as
    /// in PyTorch). The state follows the parameters: a parameter moved within or between
    /// groups keeps its state, one added or put in another's place starts without.
    pub fn param_groups_mut(&mut self) -> &mut [ParamGroup<AdamOpts>] {
        &mut self.groups
    }

    /// One parameter's update ([`adam_step_`]): `step += 1`, then the update.
    fn step_param(p: &Tensor, g: &Tensor, st: &mut AdamState, o: &AdamOpts) -> Result<()> {
        check_grad(p, g)?;
        if o.amsgrad && st.max_exp_avg_sq.is_none() {
            st.max_exp_avg_sq = Some(Buf::zeros_like(p)?);
        }
        st.step += 1.0;
        let vmax = if o.amsgrad {
            st.max_exp_avg_sq.as_ref().map(Buf::tensor)
        } else {
            None
        };
        let (m, v) = (st.exp_avg.tensor(), st.exp_avg_sq.tensor());
        adam_step_(p, g, m, v, vmax, st.step as f64, o)
    }
}

impl Optimizer for Adam {
    /// As PyTorch's, group by group: every parameter of the group that has a gradient gets
    /// its state (made on its first step: `step` 0 and zeros) before any is updated.
    fn step(&mut self) -> Result<()> {
        for group in &self.groups {
            let o = &group.options;
            let mut todo = Vec::new();
            for p in &group.params {
                let Some(g) = p.grad() else { continue };
                check_dtype(self.name, p)?;
                self.state.with_state(p, |s| {
                    if s.is_none() {
                        *s = Some(AdamState::new(p, o.amsgrad)?);
                    }
                    Ok(())
                })?;
                todo.push((p, g));
            }
            for (p, g) in todo {
                self.state.with_state(p, |s| match s {
                    Some(st) => Adam::step_param(p, &g, st, o),
                    None => Ok(()),
                })?;
            }
        }
        Ok(())
    }

    fn num_param_groups(&self) -> usize {
        self.groups.len()
    }
    super::group_accessors!();

    fn state_dict(&self) -> Result<OptimizerStateDict> {
        let (indices, states) = self.state.pack(&self.groups)?;
        let mut state = BTreeMap::new();
        for (i, st) in states {
            let mut entries = vec![
                ("step".to_string(), Tensor::from_vec(vec![st.step], ())?),
                ("exp_avg".to_string(), st.exp_avg.to_tensor()?),
                ("exp_avg_sq".to_string(), st.exp_avg_sq.to_tensor()?),
            ];
            if let Some(m) = &st.max_exp_avg_sq {
                entries.push(("max_exp_avg_sq".to_string(), m.to_tensor()?));
            }
            state.insert(i, entries);
        }
        let mut param_groups = Vec::new();
        for (g, params) in self.groups.iter().zip(indices) {
            let o = &g.options;
            let mut options = vec![
                ("lr".to_string(), HyperValue::Float(o.lr)),
                ("betas".to_string(), HyperValue::Pair(o.betas.0, o.betas.1)),
                ("eps".to_string(), HyperValue::Float(o.eps)),
                (
                    "weight_decay".to_string(),
                    HyperValue::Float(o.weight_decay),
                ),
                ("amsgrad".to_string(), HyperValue::Bool(o.amsgrad)),
                ("maximize".to_string(), HyperValue::Bool(o.maximize)),
                ("foreach".to_string(), HyperValue::None),
                ("capturable".to_string(), HyperValue::Bool(false)),
                ("differentiable".to_string(), HyperValue::Bool(false)),
                ("fused".to_string(), HyperValue::None),
                (
                    "decoupled_weight_decay".to_string(),
                    HyperValue::Bool(o.decoupled_weight_decay),
                ),
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
        let new_state = StateMap::unpack(&self.groups, sd, |si, p, entries| {
            if entries.is_empty() {
                return Ok(None); // PyTorch's empty state: made on the next step
            }
            let get = |name: &str| -> Result<Option<Buf>> {
                sd.state_tensor(si, name)
                    .map(|t| load_buf(t, p))
                    .transpose()
            };
            let missing = |name: &str| {
                Error::value(format!(
                    "loaded state dict: the state of parameter {si} has no {name}"
                ))
            };
            let step = match sd.state_tensor(si, "step") {
                Some(t) => t.item::<f32>()?,
                None => return Err(missing("step")),
            };
            Ok(Some(AdamState {
                step,
                exp_avg: get("exp_avg")?.ok_or_else(|| missing("exp_avg"))?,
                exp_avg_sq: get("exp_avg_sq")?.ok_or_else(|| missing("exp_avg_sq"))?,
                max_exp_avg_sq: get("max_exp_avg_sq")?,
            }))
        })?;
        let mut opts = Vec::with_capacity(self.groups.len());
        for (i, (g, s)) in self.groups.iter().zip(&sd.param_groups).enumerate() {
            let o = &g.options;
            opts.push((
                AdamOpts {
                    lr: s.float(i, "lr", o.lr)?,
                    betas: s.pair(i, "betas", o.betas)?,
                    eps: s.float(i, "eps", o.eps)?,
                    weight_decay: s.float(i, "weight_decay", o.weight_decay)?,
                    amsgrad: s.bool(i, "amsgrad", o.amsgrad)?,
                    maximize: s.bool(i, "maximize", o.maximize)?,
                    decoupled_weight_decay: s.bool(
                        i,
                        "decoupled_weight_decay",
                        o.decoupled_weight_decay,
                    )?,
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

/// `torch.optim.AdamW`: [`Adam`] with decoupled weight decay (`p *= 1 - lr * weight_decay`
/// before the moments) and a default `weight_decay` of 0.01. It dereferences to the
/// [`Adam`] it is (for `param_groups`).
#[derive(Debug)]
pub struct AdamW(Adam);

impl AdamW {
    /// `AdamW(params)` with PyTorch's defaults (`lr=1e-3, weight_decay=1e-2`). Errors as
    /// [`Adam::from_groups`].
    pub fn new(params: impl IntoIterator<Item = Tensor>) -> Result<AdamW> {
        AdamW::new_with(params, AdamWOpts::default())
    }

    /// `AdamW(params, lr=…, …)`: one param group; `opts` is an [`AdamWOpts`] or a learning
    /// rate. Errors as [`Adam::from_groups`].
    pub fn new_with(
        params: impl IntoIterator<Item = Tensor>,
        opts: impl Into<AdamWOpts>,
    ) -> Result<AdamW> {
        let mut a = Adam::new_with(params, AdamOpts::from(opts.into()))?;
        a.name = "AdamW";
        Ok(AdamW(a))
    }

    /// `AdamW([{"params": …, "lr": …}, …])`: several param groups with their own options.
    /// Errors as [`Adam::from_groups`].
    pub fn from_groups(groups: Vec<ParamGroup<AdamWOpts>>) -> Result<AdamW> {
        let groups = groups
            .into_iter()
            .map(|g| ParamGroup {
                params: g.params,
                options: AdamOpts::from(g.options),
                initial_lr: g.initial_lr,
            })
            .collect();
        let mut a = Adam::from_groups(groups)?;
        a.name = "AdamW";
        Ok(AdamW(a))
    }
}

impl std::ops::Deref for AdamW {
    type Target = Adam;
    fn deref(&self) -> &Adam {
        &self.0
    }
}

impl std::ops::DerefMut for AdamW {
    fn deref_mut(&mut self) -> &mut Adam {
        &mut self.0
    }
}

impl Optimizer for AdamW {
    fn step(&mut self) -> Result<()> {
        self.0.step()
    }
    fn num_param_groups(&self) -> usize {
        self.0.num_param_groups()
    }
    fn params(&self, group: usize) -> Result<&[Tensor]> {
        self.0.params(group)
    }
    fn params_mut(&mut self, group: usize) -> Result<&mut Vec<Tensor>> {
        self.0.params_mut(group)
    }
    fn lr(&self, group: usize) -> Result<f64> {
        self.0.lr(group)
    }
    fn set_lr(&mut self, group: usize, lr: f64) -> Result<()> {
        self.0.set_lr(group, lr)
    }
    fn initial_lr(&self, group: usize) -> Result<Option<f64>> {
        self.0.initial_lr(group)
    }
    fn set_initial_lr(&mut self, group: usize, lr: Option<f64>) -> Result<()> {
        self.0.set_initial_lr(group, lr)
    }
    fn state_dict(&self) -> Result<OptimizerStateDict> {
        self.0.state_dict()
    }
    fn load_state_dict(&mut self, sd: &OptimizerStateDict) -> Result<()> {
        self.0.load_state_dict(sd)
    }
}
