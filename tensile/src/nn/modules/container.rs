//! `nn.Sequential` and `nn.ModuleList`.

use super::module::{Module, Training};
use crate::Tensor;
use crate::error::{Error, Result};

/// `nn.Sequential(*modules)`: applies its children in order. Children are named `"0"`, `"1"`,
/// … (so the state-dict keys are `0.weight`, `2.bias`, …), or given names
/// ([`Sequential::from_named`], PyTorch's `Sequential(OrderedDict(...))`).
///
/// ```
/// use tensile::nn::{Linear, Module, ReLU, Sequential};
/// let m = Sequential::new()
///     .append(Linear::new(64, 128)?)
///     .append(ReLU::new())
///     .append(Linear::new(128, 10)?);
/// assert_eq!(m.state_dict().keys(), ["0.weight", "0.bias", "2.weight", "2.bias"]);
/// # Ok::<(), tensile::Error>(())
/// ```
#[derive(Default)]
pub struct Sequential {
    modules: Vec<(String, Box<dyn Module>)>,
    training: Training,
}

impl std::fmt::Debug for Sequential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.modules.iter().map(|(n, m)| (n, m.type_name())))
            .finish()
    }
}

impl Sequential {
    /// `nn.Sequential()`: empty (its forward returns the input).
    pub fn new() -> Sequential {
        Sequential::default()
    }

    /// `nn.Sequential(*modules)` from boxed modules, named `"0"`, `"1"`, ….
    pub fn from_modules(modules: Vec<Box<dyn Module>>) -> Sequential {
        let mut s = Sequential::new();
        for m in modules {
            s.push_boxed(m);
        }
        s
    }

    /// `nn.Sequential(OrderedDict([(name, module), …]))`.
    pub fn from_named(modules: Vec<(String, Box<dyn Module>)>) -> Sequential {
        Sequential {
            modules,
            training: Training::default(),
        }
    }

    /// `seq.append(module)`, which returns the sequential as PyTorch's does:
    /// `Sequential::new().append(a).append(b)`.
    pub fn append<M: Module + 'static>(mut self, module: M) -> Sequential {
        self.push(module);
        self
    }

    /// `seq.append(module)` on a `&mut` (the next index as its name).
    pub fn push<M: Module + 'static>(&mut self, module: M) {
        self.push_boxed(Box::new(module));
    }

    /// `seq.append(module)` for a boxed module.
    pub fn push_boxed(&mut self, module: Box<dyn Module>) {
        let name = self.modules.len().to_string();
        self.modules.push((name, module));
    }

    /// `seq[i]`.
    pub fn get(&self, i: usize) -> Option<&dyn Module> {
        self.modules.get(i).map(|(_, m)| m.as_ref())
    }

    /// `len(seq)`.
    pub fn len(&self) -> usize {
        self.modules.len()
    }

    /// Whether there are no children.
    pub fn is_empty(&self) -> bool {
        self.modules.is_empty()
    }
}

impl Module for Sequential {
    module_common!("Sequential");
    /// Each child's forward on the previous one's output.
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        let mut x = input.alias();
        for (_, m) in &self.modules {
            x = m.forward(&x)?;
        }
        Ok(x)
    }
    fn children(&self) -> Vec<(String, &dyn Module)> {
        self.modules
            .iter()
            .map(|(n, m)| (n.clone(), m.as_ref()))
            .collect()
    }
}

/// `nn.ModuleList(modules)`: holds submodules named `"0"`, `"1"`, … (registered for
/// parameters, state dicts and train/eval); it has no forward of its own.
#[derive(Default)]
pub struct ModuleList {
    modules: Vec<Box<dyn Module>>,
    training: Training,
}

impl std::fmt::Debug for ModuleList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.modules.iter().map(|m| m.type_name()))
            .finish()
    }
}

impl ModuleList {
    /// `nn.ModuleList()`.
    pub fn new() -> ModuleList {
        ModuleList::default()
    }
    /// `nn.ModuleList(modules)`.
    pub fn from_modules(modules: Vec<Box<dyn Module>>) -> ModuleList {
        ModuleList {
            modules,
            training: Training::default(),
        }
    }
    /// `ml.append(module)` on a `&mut`.
    pub fn push<M: Module + 'static>(&mut self, module: M) {
        self.modules.push(Box::new(module));
    }
    /// `ml.append(module)`, returning the list as PyTorch's does.
    pub fn append<M: Module + 'static>(mut self, module: M) -> ModuleList {
        self.push(module);
        self
    }
    /// `ml[i]`.
    pub fn get(&self, i: usize) -> Option<&dyn Module> {
        self.modules.get(i).map(|m| m.as_ref())
    }
    /// `len(ml)`.
    pub fn len(&self) -> usize {
        self.modules.len()
    }
    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.modules.is_empty()
    }
    /// The modules in order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Module> {
        self.modules.iter().map(|m| m.as_ref())
    }
}

impl Module for ModuleList {
    module_common!("ModuleList");
    /// Error: NotImplementedError `Module [ModuleList] is missing the required "forward"
    /// function` (PyTorch's).
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(Error::not_implemented(
            "Module [ModuleList] is missing the required \"forward\" function",
        ))
    }
    fn children(&self) -> Vec<(String, &dyn Module)> {
        self.modules
            .iter()
            .enumerate()
            .map(|(i, m)| (i.to_string(), m.as_ref()))
            .collect()
    }
}
