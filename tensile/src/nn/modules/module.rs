//! `torch.nn.Module`: the [`Module`] trait, parameters, buffers, state dicts and the
//! train/eval flag.
//!
//! **Parameters are plain [`Tensor`]s** that are leaves requiring grad ([`parameter`] makes
//! one, like `nn.Parameter(data)`). A newtype would add nothing PyTorch's `Parameter` has that a
//! `Tensor` lacks here, and plain tensors let optimizers, `clip_grad_norm_` and user code hold
//! [`Tensor::alias`]es of them (an alias shares the storage, the autograd metadata and so the
//! `.grad`): `module.parameters()` returns such aliases. `load_state_dict` copies values INTO the
//! existing tensors in place under `no_grad`, as PyTorch does, so those aliases see the loaded
//! values.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::Tensor;
use crate::autograd::no_grad;
use crate::error::{Error, Result};

/// `nn.Parameter(data)`: a leaf sharing `data`'s storage that requires grad.
pub fn parameter(data: &Tensor) -> Result<Tensor> {
    data.detach().requires_grad_(true)
}

/// A module's `self.training` flag (an atomic so that `train()`/`eval()` take `&self`).
#[derive(Debug)]
pub struct Training(AtomicBool);

impl Default for Training {
    /// Modules start in training mode, as in PyTorch.
    fn default() -> Self {
        Training(AtomicBool::new(true))
    }
}

impl Training {
    /// The flag's value.
    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// Sets the flag.
    pub fn set(&self, mode: bool) {
        self.0.store(mode, Ordering::Relaxed)
    }
}

impl Clone for Training {
    fn clone(&self) -> Self {
        Training(AtomicBool::new(self.get()))
    }
}

/// `module.state_dict()`: an ORDERED map from dotted names to tensors (PyTorch's
/// `OrderedDict`). Built from a `Vec<(String, Tensor)>`, a `HashMap<String, Tensor>`, or any
/// iterator of `(name, tensor)` pairs; a later entry with an existing name replaces the value
/// in place. It carries no `_metadata`: for loading it behaves as a plain `dict` (so BatchNorm's
/// `num_batches_tracked` may be absent, as from a safetensors file).
#[derive(Clone, Debug, Default)]
pub struct StateDict {
    entries: Vec<(String, Tensor)>,
}

impl StateDict {
    /// An empty state dict.
    pub fn new() -> StateDict {
        StateDict::default()
    }
    /// Inserts `key` (at the end, or replacing the value of an existing key in its place).
    pub fn insert(&mut self, key: impl Into<String>, value: Tensor) {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = value,
            None => self.entries.push((key, value)),
        }
    }
    /// The tensor under `key`.
    pub fn get(&self, key: &str) -> Option<&Tensor> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
    /// Removes `key`, returning its tensor.
    pub fn remove(&mut self, key: &str) -> Option<Tensor> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(i).1)
    }
    /// The keys in order (`list(sd.keys())`).
    pub fn keys(&self) -> Vec<&str> {
        self.entries.iter().map(|(k, _)| k.as_str()).collect()
    }
    /// `(key, tensor)` pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Tensor)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// The entries as a vector of pairs.
    pub fn into_vec(self) -> Vec<(String, Tensor)> {
        self.entries
    }
}

impl IntoIterator for StateDict {
    type Item = (String, Tensor);
    type IntoIter = std::vec::IntoIter<(String, Tensor)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<K: Into<String>> FromIterator<(K, Tensor)> for StateDict {
    fn from_iter<I: IntoIterator<Item = (K, Tensor)>>(iter: I) -> Self {
        let mut sd = StateDict::new();
        for (k, v) in iter {
            sd.insert(k, v);
        }
        sd
    }
}

impl From<Vec<(String, Tensor)>> for StateDict {
    fn from(v: Vec<(String, Tensor)>) -> Self {
        v.into_iter().collect()
    }
}

impl<S: std::hash::BuildHasher> From<std::collections::HashMap<String, Tensor, S>> for StateDict {
    fn from(m: std::collections::HashMap<String, Tensor, S>) -> Self {
        m.into_iter().collect()
    }
}

/// What `load_state_dict(strict=False)` returns (PyTorch's `_IncompatibleKeys`): the keys of
/// the module missing from the state dict and the keys of the state dict the module does not
/// have, in PyTorch's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IncompatibleKeys {
    /// Model keys absent from the state dict (modules in pre-order, parameters then buffers).
    pub missing_keys: Vec<String>,
    /// State-dict keys that match nothing in the model.
    pub unexpected_keys: Vec<String>,
}

/// Python's `repr` of a one-string tuple, `('message',)`.
fn py_args_repr(msg: &str) -> String {
    let q = if msg.contains('\'') && !msg.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut s = String::new();
    for c in msg.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            c if c == q => {
                s.push('\\');
                s.push(c)
            }
            c => s.push(c),
        }
    }
    format!("({q}{s}{q},)")
}

/// `torch.nn.Module`. A layer implements [`Module::forward`], [`Module::type_name`],
/// [`Module::training_flag`] and, as it has them, [`Module::local_parameters`],
/// [`Module::local_buffers`] and [`Module::children`]; everything else (named parameters,
/// state dicts, train/eval, zero_grad) is provided from those, recursively, in PyTorch's order.
///
/// `forward` takes one tensor; layers with other signatures (LSTM, GRU, MultiheadAttention)
/// have inherent `forward` methods with PyTorch's arguments and implement this one with their
/// defaults (returning their first output).
pub trait Module: Send + Sync {
    /// `module(input)` / `module.forward(input)`.
    fn forward(&self, input: &Tensor) -> Result<Tensor>;

    /// The class name (`"Linear"`), as in `load_state_dict`'s error text.
    fn type_name(&self) -> &'static str;

    /// This module's own `training` flag.
    fn training_flag(&self) -> &Training;

    /// This module's own parameters (`self._parameters`, in registration order; `None`
    /// parameters such as a missing bias left out), as aliases.
    fn local_parameters(&self) -> Vec<(String, Tensor)> {
        Vec::new()
    }

    /// This module's own persistent buffers (`self._buffers`), as aliases.
    fn local_buffers(&self) -> Vec<(String, Tensor)> {
        Vec::new()
    }

    /// Names of local buffers that `load_state_dict` fills with their current value when the
    /// state dict lacks them (BatchNorm's `num_batches_tracked`, for a state dict without
    /// version metadata, as PyTorch's `_load_from_state_dict` hook does).
    fn optional_state_keys(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// `module.named_children()`: the direct submodules in registration order.
    fn children(&self) -> Vec<(String, &dyn Module)> {
        Vec::new()
    }

    /// `module.training`.
    fn is_training(&self) -> bool {
        self.training_flag().get()
    }

    /// `module.train(mode)`: sets the flag on this module and every descendant.
    fn train_mode(&self, mode: bool) {
        self.training_flag().set(mode);
        for (_, c) in self.children() {
            c.train_mode(mode);
        }
    }

    /// `module.train()`.
    fn train(&self) {
        self.train_mode(true)
    }

    /// `module.eval()` = `module.train(False)`.
    fn eval(&self) {
        self.train_mode(false)
    }

    /// `module.named_modules()`: `("", self)` then every descendant in pre-order with its
    /// dotted prefix.
    fn named_modules(&self) -> Vec<(String, &dyn Module)>
    where
        Self: Sized,
    {
        let mut out: Vec<(String, &dyn Module)> = vec![(String::new(), self as &dyn Module)];
        collect_modules(self, "", &mut out);
        out
    }

    /// `module.named_parameters()`: every parameter with its dotted name (`0.weight`,
    /// `layers.1.bias`), this module's first, then each child's in order. A parameter
    /// registered under several names (tied weights: `head.weight = emb.weight.alias()`) is
    /// listed once, under its first name, as PyTorch's `remove_duplicate=True`; so an
    /// optimizer or `clip_grad_norm_` given [`Module::parameters`] sees it once.
    /// [`Module::state_dict`] keeps every name.
    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        walk(self, "", &mut |prefix, params, _| {
            push_once(&mut out, prefix, params)
        });
        out
    }

    /// `module.parameters()`: aliases of the parameters in [`Module::named_parameters`]'s
    /// order (give them to an optimizer).
    fn parameters(&self) -> Vec<Tensor> {
        self.named_parameters()
            .into_iter()
            .map(|(_, p)| p)
            .collect()
    }

    /// `module.named_buffers()`: every buffer with its dotted name (`running_mean`, …); a
    /// buffer registered under several names is listed once, under its first, as
    /// [`Module::named_parameters`].
    fn named_buffers(&self) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        walk(self, "", &mut |prefix, _, buffers| {
            push_once(&mut out, prefix, buffers)
        });
        out
    }

    /// `module.buffers()`.
    fn buffers(&self) -> Vec<Tensor> {
        self.named_buffers().into_iter().map(|(_, b)| b).collect()
    }

    /// `module.state_dict()`: per module in pre-order, its parameters then its buffers, each
    /// `detach()`ed (sharing storage with the module's tensors, as PyTorch's).
    fn state_dict(&self) -> StateDict {
        let mut out = StateDict::new();
        walk(self, "", &mut |prefix, params, buffers| {
            for (n, t) in params.into_iter().chain(buffers) {
                out.insert(format!("{prefix}{n}"), t.detach());
            }
        });
        out
    }

    /// `module.load_state_dict(state_dict, strict)`: copies each entry into the module's
    /// tensor of the same name, in place under `no_grad` (casting to the tensor's dtype).
    ///
    /// Returns the missing and unexpected keys ([`IncompatibleKeys`]; both empty when
    /// `strict` succeeded). A 1-element 1-D entry loads into a 0-d tensor.
    ///
    /// Errors (RuntimeError), PyTorch's text exactly: `Error(s) in loading state_dict for
    /// Sequential:\n\t` followed by, joined with `\n\t`: (strict only) `Missing key(s) in
    /// state_dict: "0.weight", "0.bias". `, (strict only) `Unexpected key(s) in state_dict:
    /// "3.weight". `, then (also when not strict) `size mismatch for 0.weight: copying a param
    /// with shape torch.Size([3, 4]) from checkpoint, the shape in current model is
    /// torch.Size([4, 4]).` and `While copying the parameter named "…", whose dimensions in the
    /// model are … and whose dimensions in the checkpoint are …, an exception occurred : (…).`
    /// Entries that load are loaded even when an error is returned, as in PyTorch.
    fn load_state_dict(&self, state_dict: &StateDict, strict: bool) -> Result<IncompatibleKeys> {
        let mut keys = IncompatibleKeys::default();
        let mut errors = Vec::new();
        let all: Vec<(&str, &Tensor)> = state_dict.iter().collect();
        load_rec(self, &all, "", &mut keys, &mut errors);
        if strict {
            if !keys.unexpected_keys.is_empty() {
                errors.insert(
                    0,
                    format!(
                        "Unexpected key(s) in state_dict: {}. ",
                        quoted(&keys.unexpected_keys)
                    ),
                );
            }
            if !keys.missing_keys.is_empty() {
                errors.insert(
                    0,
                    format!(
                        "Missing key(s) in state_dict: {}. ",
                        quoted(&keys.missing_keys)
                    ),
                );
            }
        }
        if !errors.is_empty() {
            return Err(Error::runtime(format!(
                "Error(s) in loading state_dict for {}:\n\t{}",
                self.type_name(),
                errors.join("\n\t")
            )));
        }
        Ok(keys)
    }

    /// `module.zero_grad()`: PyTorch 2.x's default `set_to_none=True`, every parameter's
    /// `.grad` becomes `None`.
    fn zero_grad(&self) -> Result<()> {
        self.zero_grad_with(true)
    }

    /// `module.zero_grad(set_to_none)`: `None` grads, or (`false`) existing grads zeroed in
    /// place (detached first when they have a `grad_fn`).
    fn zero_grad_with(&self, set_to_none: bool) -> Result<()> {
        for p in self.parameters() {
            if set_to_none {
                p.set_grad(None)?;
            } else if let Some(g) = p.grad() {
                let g = if g.grad_fn().is_some() { g.detach() } else { g };
                let _ng = no_grad();
                g.zero_()?;
                p.set_grad(Some(g))?;
            }
        }
        Ok(())
    }

    /// The total number of parameter elements (`sum(p.numel() for p in m.parameters())`).
    fn num_parameters(&self) -> usize {
        self.parameters().iter().map(|p| p.numel()).sum()
    }
}

fn quoted(keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn collect_modules<'a>(m: &'a dyn Module, prefix: &str, out: &mut Vec<(String, &'a dyn Module)>) {
    for (n, c) in m.children() {
        let name = format!("{prefix}{n}");
        out.push((name.clone(), c));
        collect_modules(c, &format!("{name}."), out);
    }
}

/// A module's own parameters or buffers, by local name.
type Named = Vec<(String, Tensor)>;

/// Visits `m` and its descendants in pre-order with their key prefixes (`""`, `"0."`, …),
/// handing `f` each module's own parameters and buffers.
fn walk<M: Module + ?Sized>(m: &M, prefix: &str, f: &mut dyn FnMut(&str, Named, Named)) {
    f(prefix, m.local_parameters(), m.local_buffers());
    for (n, c) in m.children() {
        walk::<dyn Module>(c, &format!("{prefix}{n}."), f);
    }
}

/// Appends `prefix` + each name of `named` to `out`, skipping a tensor already there (the
/// same tensor under another name: PyTorch's `remove_duplicate=True`).
fn push_once(out: &mut Named, prefix: &str, named: Named) {
    for (n, t) in named {
        if !out.iter().any(|(_, q)| q.is_same_tensor(&t)) {
            out.push((format!("{prefix}{n}"), t));
        }
    }
}

/// PyTorch's recursive `load` + `_load_from_state_dict` (always collecting missing and
/// unexpected keys: `load` passes `strict=True` to every module).
fn load_rec<M: Module + ?Sized>(
    m: &M,
    state: &[(&str, &Tensor)],
    prefix: &str,
    keys: &mut IncompatibleKeys,
    errors: &mut Vec<String>,
) {
    let local: Vec<(String, Tensor)> = m
        .local_parameters()
        .into_iter()
        .chain(m.local_buffers())
        .collect();
    let optional = m.optional_state_keys();
    for (name, param) in &local {
        let key = format!("{prefix}{name}");
        let Some(&(_, input)) = state.iter().find(|(k, _)| *k == key) else {
            if !optional.contains(&name.as_str()) {
                keys.missing_keys.push(key);
            }
            continue;
        };
        let mut input = input.alias();
        if param.dim() == 0
            && input.dim() == 1
            && input.size()[0] == 1
            && let Ok(i) = input.select(0, 0)
        {
            input = i;
        }
        if input.size() != param.size() {
            errors.push(format!(
                "size mismatch for {key}: copying a param with shape {} from checkpoint, the shape in current model is {}.",
                crate::autograd::size_repr(input.size()),
                crate::autograd::size_repr(param.size())
            ));
            continue;
        }
        let r = {
            let _ng = no_grad();
            param.copy_(&input)
        };
        if let Err(e) = r {
            errors.push(format!(
                "While copying the parameter named \"{key}\", whose dimensions in the model are {} and whose dimensions in the checkpoint are {}, an exception occurred : {}.",
                crate::autograd::size_repr(param.size()),
                crate::autograd::size_repr(input.size()),
                py_args_repr(&e.to_string())
            ));
        }
    }
    let children = m.children();
    for (key, _) in state {
        let Some(rest) = key.strip_prefix(prefix) else {
            continue;
        };
        let unexpected = match rest.split_once('.') {
            Some((head, _)) => !children.iter().any(|(n, _)| n == head),
            None => !local.iter().any(|(n, _)| n == rest),
        };
        if unexpected {
            keys.unexpected_keys.push(key.to_string());
        }
    }
    for (n, c) in children {
        let child_prefix = format!("{prefix}{n}.");
        let sub: Vec<(&str, &Tensor)> = state
            .iter()
            .filter(|(k, _)| k.starts_with(&child_prefix))
            .copied()
            .collect();
        load_rec::<dyn Module>(c, &sub, &child_prefix, keys, errors);
    }
}
