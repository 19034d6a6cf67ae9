//! `torch.optim`: the optimizers [`SGD`], [`Adam`] and [`AdamW`] behind the [`Optimizer`]
//! trait, and the learning-rate schedulers of [`lr_scheduler`].
//!
//! ```
//! use tensile::Tensor;
//! use tensile::optim::{Optimizer, SGD, SgdOpts};
//! let w = Tensor::ones([3])?.requires_grad_(true)?;
//! let mut opt = SGD::new_with([w.alias()], SgdOpts { lr: 0.1, momentum: 0.9, ..Default::default() })?;
//! w.mul(&w)?.sum()?.backward()?;          // w.grad = 2w
//! opt.step()?;                             // w -= 0.1 * 2w, in place
//! opt.zero_grad()?;                        // w.grad = None
//! assert_eq!(w.to_vec::<f32>(), vec![0.8, 0.8, 0.8]);
//! # Ok::<(), tensile::Error>(())
//! ```
//!
//! # How it follows PyTorch
//! * The update is PyTorch's CPU default, the single-tensor for-loop implementation
//!   (`foreach` and `fused` resolve to off on CPU), with its order of operations and its
//!   roundings, in `kernels/optim.rs`: SGD equals PyTorch's bit for bit; Adam/AdamW equal
//!   PyTorch's order of operations run with a correctly rounded `sqrt` bit for bit, and
//!   PyTorch's real results except where its vectorised `sqrt` (Adam's denominator) is not
//!   correctly rounded: 27 of 4,788 float32 elements after 5 steps in `tests/optim.rs`, each
//!   off by an ulp of the update (at most 1.2e-7 with lr 0.5).
//! * Parameters are the caller's tensors ([`Tensor::alias`] shares storage): the optimizer
//!   writes the new values into them in place, under `no_grad`, bumping their version counter
//!   as PyTorch's in-place ops do (SGD and Adam +1 per step, AdamW with `weight_decay != 0`
//!   +2).
//! * Parameters whose `.grad` is `None` are skipped (no state is created for them).
//! * Float32 and float64 parameters are supported (PyTorch also takes float16/bfloat16 and
//!   complex; those give an error here).
//!
//! # State dicts
//! [`Optimizer::state_dict`] returns an [`OptimizerStateDict`] with PyTorch's structure:
//! `state` keyed by the parameter's index (its position over all groups in order), holding
//! `step` (a 0-d float32 tensor), `exp_avg`, `exp_avg_sq`, `max_exp_avg_sq` (Adam) or
//! `momentum_buffer` (SGD with momentum); `param_groups` with each group's hyperparameters
//! under PyTorch's keys, in PyTorch's order, and `params` (index lists). Unlike PyTorch's,
//! whose tensors are the live state, the tensors returned are copies (a snapshot).
//! [`Optimizer::load_state_dict`] takes one back (see there for the errors).

pub(crate) mod adam;
pub mod lr_scheduler;
pub(crate) mod sgd;

pub use crate::optable::optim::{AdamOpts, SgdOpts, adam_step_, sgd_step_};
pub use adam::{Adam, AdamW, AdamWOpts};
pub use lr_scheduler::{
    CosineAnnealingLR, LRScheduler, LambdaLR, LinearLR, SchedulerStateDict, StepLR,
};
pub use sgd::SGD;

use crate::Tensor;
use crate::autograd::meta::AutogradMeta;
use crate::dtype::DType;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// `torch.optim.Optimizer`: what every optimizer offers (object safe, so a training loop may
/// hold a `Box<dyn Optimizer>`).
pub trait Optimizer {
    /// `optimizer.step()`: one update of every parameter that has a `.grad`, in place, under
    /// `no_grad`. Errors: a parameter whose dtype is not float32 or float64 (`SGD: parameters
    /// of dtype float16 are not supported (float32 and float64 are)`); a gradient whose number
    /// of elements differs from its parameter's.
    fn step(&mut self) -> Result<()>;

    /// `optimizer.zero_grad()` (`set_to_none=True`): every parameter's `.grad` becomes `None`.
    fn zero_grad(&mut self) -> Result<()> {
        self.zero_grad_with(true)
    }

    /// `optimizer.zero_grad(set_to_none)`: with `false`, each existing `.grad` is detached
    /// (`detach_()` if it has a `grad_fn`, else `requires_grad_(False)`) and zeroed in place
    /// (the same tensor survives).
    fn zero_grad_with(&mut self, set_to_none: bool) -> Result<()> {
        for group in 0..self.num_param_groups() {
            for p in self.params(group)? {
                zero_grad_one(p, set_to_none)?;
            }
        }
        Ok(())
    }

    /// `len(optimizer.param_groups)`.
    fn num_param_groups(&self) -> usize;

    /// `optimizer.param_groups[group]["params"]` (the caller's tensors, shared).
    /// Error when `group >= num_param_groups()`: Python's IndexError `list index out of
    /// range`.
    fn params(&self, group: usize) -> Result<&[Tensor]>;

    /// `optimizer.param_groups[group]["params"]`, to edit: push a parameter, replace one,
    /// reorder them (not validated, as in PyTorch). The state follows the parameters, as
    /// PyTorch keys it by the tensor object: a parameter moved within or between groups
    /// keeps its state, a tensor added or put in another's place starts without (made on its
    /// first step), and the state of a parameter taken out stays (then `state_dict` fails,
    /// as PyTorch's does: see [`Optimizer::state_dict`]). Error: as [`Optimizer::params`].
    fn params_mut(&mut self, group: usize) -> Result<&mut Vec<Tensor>>;

    /// `optimizer.param_groups[group]["lr"]`. Error: as [`Optimizer::params`].
    fn lr(&self, group: usize) -> Result<f64>;

    /// `optimizer.param_groups[group]["lr"] = lr` (what schedulers do; not validated, as in
    /// PyTorch). Error: as [`Optimizer::params`].
    fn set_lr(&mut self, group: usize, lr: f64) -> Result<()>;

    /// `optimizer.param_groups[group].get("initial_lr")`: set by the first scheduler made on
    /// this optimizer. Error: as [`Optimizer::params`].
    fn initial_lr(&self, group: usize) -> Result<Option<f64>>;

    /// `optimizer.param_groups[group]["initial_lr"] = lr`. Error: as [`Optimizer::params`].
    fn set_initial_lr(&mut self, group: usize, lr: Option<f64>) -> Result<()>;

    /// `optimizer.state_dict()`: a snapshot of the state and the groups' hyperparameters
    /// (see the [module docs](self)).
    ///
    /// Error: the state holds a parameter that is in no group any more (it was replaced in
    /// its group through [`Optimizer::params_mut`]): PyTorch's `KeyError` with the missing
    /// parameter's `id`, here its identity (the address of its autograd variable, as CPython's
    /// `id` is an address): `140231666668064`.
    fn state_dict(&self) -> Result<OptimizerStateDict>;

    /// `optimizer.load_state_dict(sd)`: the groups take `sd`'s hyperparameters (keeping
    /// their own parameters), and the state is replaced by `sd`'s: each parameter takes the
    /// state saved at its index (copied, cast to the parameter's dtype except `step`, in the
    /// saved tensor's shape). As in PyTorch, a state tensor whose shape is not its
    /// parameter's is accepted here and makes `step` fail with the error of PyTorch's op
    /// (`The size of tensor a (3) must match the size of tensor b (2) at non-singleton
    /// dimension 0`, `output with shape [1] doesn't match the broadcast shape [2]`), after
    /// PyTorch's in-place changes before that op (`step` incremented, …).
    ///
    /// Errors (ValueError, PyTorch's): `loaded state dict has a different number of parameter
    /// groups`; `loaded state dict contains a parameter group that doesn't match the size of
    /// optimizer's group`. Errors of tensile's own (PyTorch would fail later, in `step`): a
    /// hyperparameter of the wrong kind (`loaded state dict: param_groups[0]["lr"] must be a
    /// float`), an Adam state without one of its tensors (`loaded state dict: the state of
    /// parameter 0 has no exp_avg`).
    fn load_state_dict(&mut self, state_dict: &OptimizerStateDict) -> Result<()>;
}

/// One `zero_grad` of one parameter (spec §10.1).
fn zero_grad_one(p: &Tensor, set_to_none: bool) -> Result<()> {
    let Some(g) = p.grad() else {
        return Ok(());
    };
    if set_to_none {
        return p.set_grad(None);
    }
    if g.grad_fn().is_some() {
        g.detach_()?;
    } else {
        g.requires_grad_(false)?;
    }
    let _guard = crate::autograd::no_grad();
    g.zero_()?;
    Ok(())
}

/// A value of a param group's dict in a state dict: what PyTorch's hyperparameters are.
#[derive(Clone, Debug, PartialEq)]
pub enum HyperValue {
    /// A Python float (`lr`, `eps`, `momentum`, …).
    Float(f64),
    /// A Python bool (`nesterov`, `amsgrad`, `maximize`, …).
    Bool(bool),
    /// A pair of floats (`betas`).
    Pair(f64, f64),
    /// `None` (`foreach`, `fused`).
    None,
}

/// One entry of `state_dict["param_groups"]`: the hyperparameters in PyTorch's key order,
/// and `params`, the indices of the group's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamGroupState {
    /// `(key, value)` in PyTorch's order (`lr`, `momentum`, …; `initial_lr` last when a
    /// scheduler set it).
    pub options: Vec<(String, HyperValue)>,
    /// `group["params"]`: indices over all groups, in order.
    pub params: Vec<usize>,
}

impl ParamGroupState {
    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&HyperValue> {
        self.options.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    fn float(&self, i: usize, key: &str, current: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(current),
            Some(HyperValue::Float(x)) => Ok(*x),
            Some(_) => Err(bad_kind(i, key, "a float")),
        }
    }
    fn opt_float(&self, i: usize, key: &str, current: Option<f64>) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(current),
            Some(HyperValue::Float(x)) => Ok(Some(*x)),
            Some(HyperValue::None) => Ok(None),
            Some(_) => Err(bad_kind(i, key, "a float")),
        }
    }
    fn bool(&self, i: usize, key: &str, current: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(current),
            Some(HyperValue::Bool(x)) => Ok(*x),
            Some(_) => Err(bad_kind(i, key, "a bool")),
        }
    }
    fn pair(&self, i: usize, key: &str, current: (f64, f64)) -> Result<(f64, f64)> {
        match self.get(key) {
            None => Ok(current),
            Some(HyperValue::Pair(a, b)) => Ok((*a, *b)),
            Some(_) => Err(bad_kind(i, key, "a pair of floats")),
        }
    }
}

fn bad_kind(i: usize, key: &str, what: &str) -> Error {
    Error::value(format!(
        "loaded state dict: param_groups[{i}][\"{key}\"] must be {what}"
    ))
}

/// `optimizer.state_dict()`: PyTorch's `{"state": {index: {name: tensor}}, "param_groups":
/// [...]}`.
#[derive(Clone, Debug)]
pub struct OptimizerStateDict {
    /// Per parameter index, its state tensors in PyTorch's order (`step`, `exp_avg`,
    /// `exp_avg_sq`, `max_exp_avg_sq`; or `momentum_buffer`). Parameters without state are
    /// absent.
    pub state: BTreeMap<usize, Vec<(String, Tensor)>>,
    /// One entry per param group.
    pub param_groups: Vec<ParamGroupState>,
}

impl OptimizerStateDict {
    /// `state_dict["state"][index][name]`.
    pub fn state_tensor(&self, index: usize, name: &str) -> Option<&Tensor> {
        self.state
            .get(&index)?
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, t)| t)
    }
}

/// A parameter's group layout check shared by `load_state_dict` (PyTorch's two ValueErrors).
fn check_groups(groups: &[usize], sd: &OptimizerStateDict) -> Result<()> {
    if groups.len() != sd.param_groups.len() {
        return Err(Error::value(
            "loaded state dict has a different number of parameter groups",
        ));
    }
    if groups
        .iter()
        .zip(&sd.param_groups)
        .any(|(&n, g)| n != g.params.len())
    {
        return Err(Error::value(
            "loaded state dict contains a parameter group that doesn't match the size of optimizer's group",
        ));
    }
    Ok(())
}

/// For each parameter (in order over the groups), the saved index whose state it takes.
fn saved_indices(sd: &OptimizerStateDict) -> Vec<usize> {
    sd.param_groups
        .iter()
        .flat_map(|g| g.params.iter().copied())
        .collect()
}

/// A state buffer (`exp_avg`, `momentum_buffer`, …): a tensor in a storage of its own, as
/// PyTorch's `state` holds tensors. Made in its parameter's dtype and shape; one loaded from a
/// state dict keeps the loaded tensor's shape (PyTorch casts the loaded tensor to the
/// parameter's dtype and keeps its shape), and `step` then fails as PyTorch's ops do when that
/// shape is not the parameter's. The update ops ([`sgd_step_`], [`adam_step_`]) change it in
/// place.
#[derive(Debug)]
pub(crate) struct Buf {
    t: Tensor,
}

impl Buf {
    /// Zeros shaped as `p`, in `p`'s dtype (float64, else float32).
    pub(crate) fn zeros_like(p: &Tensor) -> Result<Buf> {
        let dtype = match p.dtype() {
            DType::Float64 => DType::Float64,
            _ => DType::Float32,
        };
        Ok(Buf {
            t: Tensor::zeros_with(p.size(), dtype)?,
        })
    }
    /// A tensor an update op made (a storage nobody else holds).
    pub(crate) fn made(t: Tensor) -> Buf {
        Buf { t }
    }
    /// A copy of `t` (its values and shape, contiguous) cast to `dtype` (float32 or float64).
    pub(crate) fn from_tensor(t: &Tensor, dtype: DType) -> Result<Buf> {
        let t = match dtype {
            DType::Float64 => Tensor::from_vec(t.try_to_vec::<f64>()?, t.size())?,
            _ => Tensor::from_vec(t.try_to_vec::<f32>()?, t.size())?,
        };
        Ok(Buf { t })
    }
    /// A new tensor holding these values, in this buffer's shape (`state_dict`'s copy).
    pub(crate) fn to_tensor(&self) -> Result<Tensor> {
        self.t.try_clone()
    }
    /// The buffer itself, for the update ops to change in place.
    pub(crate) fn tensor(&self) -> &Tensor {
        &self.t
    }
}

/// `optimizer.state`: each parameter's state keyed by the parameter's identity, as PyTorch
/// keys it by the tensor object (Python's `id(p)`). A tensor's identity is the address of its
/// autograd variable (shared by its [`Tensor::alias`]es, as Python names share an object;
/// made on first need): a parameter moved within or between groups keeps its state, a new
/// tensor put in a group starts without state (made on its first step). Entries keep their
/// insertion order (a Python dict's) and hold the variable, as PyTorch's dict holds the
/// tensor, so an identity is not reused while its state lives.
pub(crate) struct StateMap<S> {
    map: HashMap<usize, StateEntry<S>>,
    inserted: u64,
}

/// What [`StateMap::pack`] gives: each group's `params` as indices, and the states by index.
pub(crate) type Packed<'a, S> = (Vec<Vec<usize>>, BTreeMap<usize, &'a S>);

struct StateEntry<S> {
    _variable: Arc<AutogradMeta>,
    order: u64,
    state: Option<S>,
}

impl<S> StateMap<S> {
    pub(crate) fn new() -> StateMap<S> {
        StateMap {
            map: HashMap::new(),
            inserted: 0,
        }
    }

    /// Runs `f` on `p`'s state (`None` when it has none yet); a state `f` leaves behind is
    /// kept, even when `f` fails (PyTorch creates the state before the update runs).
    pub(crate) fn with_state<R>(
        &mut self,
        p: &Tensor,
        f: impl FnOnce(&mut Option<S>) -> Result<R>,
    ) -> Result<R> {
        let meta = p.meta_arc();
        let key = Arc::as_ptr(&meta) as usize;
        let order = self.inserted;
        let e = self.map.entry(key).or_insert_with(|| StateEntry {
            _variable: meta,
            order,
            state: None,
        });
        if e.order == order {
            self.inserted += 1;
        }
        let r = f(&mut e.state);
        if e.state.is_none() {
            self.map.remove(&key);
        }
        r
    }

    /// Sets `p`'s state.
    pub(crate) fn insert(&mut self, p: &Tensor, s: S) {
        let _ = self.with_state(p, |slot| {
            *slot = Some(s);
            Ok(())
        });
    }

    /// The states in insertion order, with the parameter identities they belong to.
    fn entries(&self) -> Vec<(usize, &S)> {
        let mut v: Vec<(u64, usize, &S)> = self
            .map
            .iter()
            .filter_map(|(&k, e)| e.state.as_ref().map(|s| (e.order, k, s)))
            .collect();
        v.sort_unstable_by_key(|e| e.0);
        v.into_iter().map(|(_, k, s)| (k, s)).collect()
    }

    /// `state_dict()`'s packing: each group's `params` as indices (a parameter's index is its
    /// first position over all groups in order), and the states by index.
    ///
    /// Error: a state whose parameter is in no group (it was replaced in its group):
    /// PyTorch's `KeyError` with that parameter's `id`, here its identity (an address, as
    /// CPython's `id`): `140231666668064`.
    pub(crate) fn pack<'a, O>(&'a self, groups: &[ParamGroup<O>]) -> Result<Packed<'a, S>> {
        let mut mapping: HashMap<usize, usize> = HashMap::new();
        let mut start = 0;
        let mut params = Vec::with_capacity(groups.len());
        for g in groups {
            let mut idx = Vec::with_capacity(g.params.len());
            for (i, p) in g.params.iter().enumerate() {
                // a tensor without a variable is a distinct object with no state
                match p.variable() {
                    Some(m) => idx.push(
                        *mapping
                            .entry(std::ptr::from_ref(m) as usize)
                            .or_insert(start + i),
                    ),
                    None => idx.push(start + i),
                }
            }
            start += idx.len();
            params.push(idx);
        }
        let mut state = BTreeMap::new();
        for (k, s) in self.entries() {
            match mapping.get(&k) {
                Some(&i) => {
                    state.insert(i, s);
                }
                None => return Err(Error::key(k.to_string())),
            }
        }
        Ok((params, state))
    }

    /// `load_state_dict`'s state: the saved index of each position over the groups maps to
    /// the parameter at that position (a later position wins for a repeated index, as
    /// PyTorch's `dict(zip(…))`), and each saved state goes to its index's parameter.
    /// Saved states at indices no group lists are dropped. `make` builds a state (or none)
    /// from the saved index, its parameter and the saved entries.
    pub(crate) fn unpack<O>(
        groups: &[ParamGroup<O>],
        sd: &OptimizerStateDict,
        mut make: impl FnMut(usize, &Tensor, &[(String, Tensor)]) -> Result<Option<S>>,
    ) -> Result<StateMap<S>> {
        let mut id_map: HashMap<usize, &Tensor> = HashMap::new();
        let params = groups.iter().flat_map(|g| g.params.iter());
        for (&si, p) in saved_indices(sd).iter().zip(params) {
            id_map.insert(si, p);
        }
        let mut new = StateMap::new();
        for (si, entries) in &sd.state {
            if let Some(p) = id_map.get(si)
                && let Some(s) = make(*si, p, entries)?
            {
                new.insert(p, s);
            }
        }
        Ok(new)
    }
}

impl<S: std::fmt::Debug> std::fmt::Debug for StateMap<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.entries()).finish()
    }
}

/// The dtype check of `step()`: float32 and float64 parameters only.
pub(crate) fn check_dtype(name: &str, p: &Tensor) -> Result<()> {
    match p.dtype() {
        DType::Float32 | DType::Float64 => Ok(()),
        dt => Err(Error::type_error(format!(
            "{name}: parameters of dtype {} are not supported (float32 and float64 are)",
            dt.name()
        ))),
    }
}

/// PyTorch's check that a parameter's gradient has its number of elements.
///
/// Errors: RuntimeError `the gradient of a parameter of shape [3] has shape [2]`.
pub(crate) fn check_grad(p: &Tensor, g: &Tensor) -> Result<()> {
    if g.numel() != p.numel() {
        return Err(Error::runtime(format!(
            "the gradient of a parameter of shape {:?} has shape {:?}",
            p.size(),
            g.size()
        )));
    }
    Ok(())
}

/// One of `optimizer.param_groups`: its parameters (the caller's tensors, shared through
/// [`Tensor::alias`]) and its hyperparameters `O` ([`SgdOpts`], [`AdamOpts`], …).
#[derive(Debug)]
pub struct ParamGroup<O> {
    /// `group["params"]`.
    pub params: Vec<Tensor>,
    /// The group's hyperparameters (`group["lr"]`, …).
    pub options: O,
    /// `group["initial_lr"]`, set by the first LR scheduler made on the optimizer.
    pub initial_lr: Option<f64>,
}

impl<O> ParamGroup<O> {
    /// `{"params": params, **options}`.
    pub fn new(params: impl IntoIterator<Item = Tensor>, options: O) -> ParamGroup<O> {
        ParamGroup {
            params: params.into_iter().collect(),
            options,
            initial_lr: None,
        }
    }
}

/// [`Optimizer`]'s param-group accessors (`params`, `params_mut`, `lr`, `set_lr`,
/// `initial_lr`, `set_initial_lr`) for an optimizer whose `groups` field is a
/// `Vec<ParamGroup<O>>` with an `options.lr`: written once for SGD and Adam.
macro_rules! group_accessors {
    () => {
        fn params(&self, group: usize) -> Result<&[Tensor]> {
            Ok(&$crate::optim::group_at(&self.groups, group)?.params)
        }
        fn params_mut(&mut self, group: usize) -> Result<&mut Vec<Tensor>> {
            Ok(&mut $crate::optim::group_at_mut(&mut self.groups, group)?.params)
        }
        fn lr(&self, group: usize) -> Result<f64> {
            Ok($crate::optim::group_at(&self.groups, group)?.options.lr)
        }
        fn set_lr(&mut self, group: usize, lr: f64) -> Result<()> {
            $crate::optim::group_at_mut(&mut self.groups, group)?
                .options
                .lr = lr;
            Ok(())
        }
        fn initial_lr(&self, group: usize) -> Result<Option<f64>> {
            Ok($crate::optim::group_at(&self.groups, group)?.initial_lr)
        }
        fn set_initial_lr(&mut self, group: usize, lr: Option<f64>) -> Result<()> {
            $crate::optim::group_at_mut(&mut self.groups, group)?.initial_lr = lr;
            Ok(())
        }
    };
}
pub(crate) use group_accessors;

/// `param_groups[i]`, or Python's IndexError `list index out of range`.
pub(crate) fn group_at<O>(groups: &[ParamGroup<O>], i: usize) -> Result<&ParamGroup<O>> {
    groups
        .get(i)
        .ok_or_else(|| Error::index("list index out of range"))
}

/// As [`group_at`], mutable.
pub(crate) fn group_at_mut<O>(
    groups: &mut [ParamGroup<O>],
    i: usize,
) -> Result<&mut ParamGroup<O>> {
    groups
        .get_mut(i)
        .ok_or_else(|| Error::index("list index out of range"))
}

/// Whether `a` and `b` are the same autograd variable (Python's `a is b` for parameters).
fn same_variable(a: &Tensor, b: &Tensor) -> bool {
    match (a.variable(), b.variable()) {
        (Some(x), Some(y)) => std::ptr::eq(x, y),
        _ => false,
    }
}

/// `Optimizer.__init__`'s and `add_param_group`'s checks, in PyTorch's order (after the
/// optimizer's own hyperparameter checks): `optimizer got an empty parameter list`; `can't
/// optimize a non-leaf Tensor`; `some parameters appear in more than one parameter group`
/// (all ValueError).
pub(crate) fn check_param_groups<O>(groups: &[ParamGroup<O>]) -> Result<()> {
    if groups.is_empty() {
        return Err(Error::value("optimizer got an empty parameter list"));
    }
    for (gi, g) in groups.iter().enumerate() {
        if g.params.iter().any(|p| !(p.is_leaf() || p.retains_grad())) {
            return Err(Error::value("can't optimize a non-leaf Tensor"));
        }
        for earlier in &groups[..gi] {
            if g.params
                .iter()
                .any(|p| earlier.params.iter().any(|q| same_variable(p, q)))
            {
                return Err(Error::value(
                    "some parameters appear in more than one parameter group",
                ));
            }
        }
    }
    Ok(())
}

/// A saved state tensor as a buffer in `p`'s dtype and the saved tensor's own shape (a copy;
/// PyTorch's `load_state_dict` casts it to the parameter's dtype and checks nothing else: a
/// shape that is not the parameter's fails in `step`, as PyTorch's ops fail there).
pub(crate) fn load_buf(t: &Tensor, p: &Tensor) -> Result<Buf> {
    Buf::from_tensor(t, p.dtype())
}
