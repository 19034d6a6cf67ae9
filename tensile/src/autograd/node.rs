//! The graph: [`Node`]s (PyTorch's `grad_fn` objects), their next [`Edge`]s, the
//! [`Formula`] each runs, and [`SavedTensor`]s with their version check. Dropping a node
//! frees the graph behind it iteratively (`impl Drop for Node`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::meta::AutogradMeta;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Dims, Tensor};

/// A backward formula: the part of a node that differs from op to op. One struct per op
/// (PyTorch's `derivatives.yaml` entry), in `autograd/formulas/`.
pub trait Formula: Send + Sync + 'static {
    /// PyTorch's node name (`MulBackward0`, `torch::autograd::CopySlices`, …).
    fn name(&self) -> &str;
    /// Gradients for the node's inputs (one per input, in the order given to `record`),
    /// from the gradients of its outputs (`None`: that output got no gradient, i.e. zeros)
    /// and the saved tensors (unpacked and version-checked, in the order they were saved).
    /// Returned gradients may have the broadcast shape or another float dtype: the engine
    /// reduces them with `sum_to` and casts them to each input's shape and dtype.
    fn apply(&self, grads: &[Option<Tensor>], saved: &[Tensor]) -> Result<Vec<Option<Tensor>>>;
    /// Frees what the formula holds beyond its saved tensors (`CopySlices` frees its op's).
    fn release(&self) {}
}

/// An input of a node: the node that receives its gradient and at which input of that node.
#[derive(Clone)]
pub struct Edge {
    pub(crate) node: Arc<Node>,
    pub(crate) input_nr: usize,
}

/// Shape and dtype of a node input, to validate the gradient computed for it.
#[derive(Clone)]
pub(crate) struct InputMeta {
    pub sizes: Dims,
    pub dtype: DType,
}

/// A tensor a node keeps for its backward, with the version it had when saved (spec §3.4).
pub struct SavedTensor {
    /// Inputs keep their autograd meta (for the error's "output N of" clause); saved outputs
    /// keep only the data (a node must not own its own output's meta: that would be a cycle).
    pub(crate) data: Tensor,
    pub(crate) version: u64,
    pub(crate) is_output: bool,
    pub(crate) output_nr: usize,
    /// For the output of an in-place op on a view (PyTorch's `is_inplace_on_view`): the
    /// view's node when saved (its regenerated `AsStridedBackward0`), weakly held; the
    /// version error names it while it is alive, else the running node.
    pub(crate) view_fn: Option<Weak<Node>>,
}

/// What a formula asks `record` to save: an input tensor, or output `k` of the op.
pub enum Save {
    Input(Tensor),
    Output(usize),
    /// A slot the formula does not need for this call (PyTorch saves `self` of `mul` only
    /// when `other` requires grad): never checked.
    Skip,
}

static SEQ: AtomicU64 = AtomicU64::new(0);

/// A backward node (`t.grad_fn`).
pub struct Node {
    pub(crate) seq: u64,
    /// One per differentiable input: `None` for an input that does not require grad.
    pub(crate) next: Vec<Option<Edge>>,
    pub(crate) input_meta: Vec<InputMeta>,
    /// How many outputs the forward op had (= gradients this node receives).
    pub(crate) num_outputs: usize,
    /// `None` once released (after a backward without `retain_graph`).
    pub(crate) saved: Mutex<Option<Vec<SavedTensor>>>,
    pub(crate) had_saved: bool,
    pub(crate) formula: Box<dyn Formula>,
    /// `retain_grad()` of the outputs: (output number, the tensor's meta).
    pub(crate) retained: Mutex<Vec<(usize, Weak<AutogradMeta>)>>,
}

impl Node {
    pub(crate) fn new(
        formula: Box<dyn Formula>,
        next: Vec<Option<Edge>>,
        input_meta: Vec<InputMeta>,
        num_outputs: usize,
        saved: Vec<SavedTensor>,
    ) -> Arc<Node> {
        Arc::new(Node {
            seq: SEQ.fetch_add(1, Ordering::Relaxed),
            next,
            input_meta,
            num_outputs,
            had_saved: !saved.is_empty(),
            saved: Mutex::new(Some(saved)),
            formula,
            retained: Mutex::new(Vec::new()),
        })
    }

    /// PyTorch's `grad_fn.name()`.
    pub fn name(&self) -> &str {
        self.formula.name()
    }

    /// `grad_fn.next_functions`: per input, the node and input number, or `None`.
    pub fn next_functions(&self) -> Vec<Option<(GradFn, usize)>> {
        self.next
            .iter()
            .map(|e| e.as_ref().map(|e| (GradFn(e.node.clone()), e.input_nr)))
            .collect()
    }

    /// The saved tensors, each checked against its version (spec §3.4), or the freed-graph
    /// error.
    pub(crate) fn unpack_saved(&self, running: &str) -> Result<Vec<Tensor>> {
        let g = self.saved.lock().unwrap_or_else(|e| e.into_inner());
        match &*g {
            None if self.had_saved => Err(Error::runtime(ERR_BACKWARD_TWICE)),
            None => Ok(Vec::new()),
            Some(v) => v.iter().map(|s| s.unpack(running)).collect(),
        }
    }

    /// Frees the saved tensors.
    pub(crate) fn release(&self) {
        *self.saved.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.formula.release();
    }

    /// Marks the saved outputs as saved from a view modified in place whose node is `f`.
    pub(crate) fn set_view_fn(&self, f: &Arc<Node>) {
        if let Some(v) = &mut *self.saved.lock().unwrap_or_else(|e| e.into_inner()) {
            for s in v.iter_mut().filter(|s| s.is_output) {
                s.view_fn = Some(Arc::downgrade(f));
            }
        }
    }

    /// Re-points saved outputs at `t` (an in-place op's `self`, which now holds the output).
    pub(crate) fn resave_outputs(&self, t: &Tensor) {
        if let Some(v) = &mut *self.saved.lock().unwrap_or_else(|e| e.into_inner()) {
            for s in v.iter_mut().filter(|s| s.is_output) {
                s.data = t.detached();
                s.version = t.version();
            }
        }
    }
}

/// A released formula's stand-in in a node being dropped (the formula itself is dropped by
/// [`drop_iteratively`]).
struct Dropped;

impl Formula for Dropped {
    fn name(&self) -> &str {
        "Dropped"
    }
    fn apply(&self, _: &[Option<Tensor>], _: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
        Ok(Vec::new())
    }
}

/// What a dropped node held that can own further nodes: its next edges, its saved tensors
/// (an input's autograd meta holds that input's `grad_fn`) and its formula (`CopySlices`
/// holds its op's node; closures may hold tensors).
struct Held {
    _next: Vec<Option<Edge>>,
    _saved: Option<Vec<SavedTensor>>,
    _formula: Box<dyn Formula>,
}

/// The nodes' contents waiting to be dropped on this thread, and whether a drop is running.
struct Graveyard {
    draining: std::cell::Cell<bool>,
    stack: std::cell::RefCell<Vec<Held>>,
}

thread_local! {
    static GRAVEYARD: Graveyard = const {
        Graveyard {
            draining: std::cell::Cell::new(false),
            stack: std::cell::RefCell::new(Vec::new()),
        }
    };
}

/// Clears `draining` when the outermost drop ends, even by a panic.
struct EndDrain<'a>(&'a std::cell::Cell<bool>);

impl Drop for EndDrain<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// Drops `h` without recursing through the graph (PyTorch's `deleteNode`): inside a drop
/// already running on this thread, `h` joins the stack; otherwise this call drops `h` and
/// then everything pushed meanwhile, one at a time. Each node dropped that way only pushes
/// its own contents, so the native stack depth stays constant whatever the graph's depth.
fn drop_iteratively(h: Held) {
    // `try_with` fails while the thread's locals are being destroyed: `h` is then dropped
    // by the closure's drop, recursively, as any other value.
    let _ = GRAVEYARD.try_with(move |g| {
        if g.draining.get() {
            g.stack.borrow_mut().push(h);
            return;
        }
        g.draining.set(true);
        let _end = EndDrain(&g.draining);
        drop(h);
        loop {
            // the borrow ends before the item is dropped (which may push)
            let next = g.stack.borrow_mut().pop();
            match next {
                Some(h) => drop(h),
                None => break,
            }
        }
        // a wide graph may have grown the stack: give the memory back
        g.stack.borrow_mut().shrink_to(64);
    });
}

impl Drop for Node {
    /// Frees the graph behind this node iteratively: a chain of 10^7 nodes is dropped on a
    /// 2 MiB stack (the fields are moved out and dropped by [`drop_iteratively`]).
    fn drop(&mut self) {
        let next = std::mem::take(&mut self.next);
        let saved = self
            .saved
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let formula = std::mem::replace(&mut self.formula, Box::new(Dropped));
        drop_iteratively(Held {
            _next: next,
            _saved: saved,
            _formula: formula,
        });
    }
}

/// A handle on a node, as `t.grad_fn` returns it.
#[derive(Clone)]
pub struct GradFn(pub(crate) Arc<Node>);

impl GradFn {
    /// `type(t.grad_fn).__name__`: the node's class name (`MulBackward0`, `CopySlices`,
    /// `AccumulateGrad`: the `torch::autograd::` prefix of `name()` dropped).
    pub fn name(&self) -> &str {
        let n = self.0.name();
        n.strip_prefix("torch::autograd::").unwrap_or(n)
    }
    /// `t.grad_fn.name()`: with the `torch::autograd::` prefix of the hand-written nodes.
    pub fn full_name(&self) -> &str {
        self.0.name()
    }
    /// `grad_fn.next_functions`.
    pub fn next_functions(&self) -> Vec<Option<(GradFn, usize)>> {
        self.0.next_functions()
    }
    /// Whether two handles are the same node.
    pub fn ptr_eq(&self, other: &GradFn) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for GradFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}>", self.name())
    }
}

pub(crate) const ERR_BACKWARD_TWICE: &str = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.";

/// The node's name as PyTorch prints it inside messages (spec §0.3): `ExpBackward0` → `Exp`,
/// `SumBackward1` → `Sum1`, other names unchanged.
pub fn display_name(n: &str) -> String {
    if let Some(pos) = n.rfind("Backward") {
        let digits = &n[pos + 8..];
        if digits.chars().all(|c| c.is_ascii_digit()) {
            let stem = &n[..pos];
            return if digits == "0" {
                stem.to_string()
            } else {
                format!("{stem}{digits}")
            };
        }
    }
    n.to_string()
}

impl SavedTensor {
    pub(crate) fn input(t: &Tensor) -> SavedTensor {
        SavedTensor {
            data: t.alias(),
            version: t.version(),
            is_output: false,
            output_nr: 0,
            view_fn: None,
        }
    }

    pub(crate) fn output(t: &Tensor, nr: usize) -> SavedTensor {
        SavedTensor {
            data: t.detached(),
            version: t.version(),
            is_output: true,
            output_nr: nr,
            view_fn: None,
        }
    }

    fn unpack(&self, running: &str) -> Result<Tensor> {
        let cur = self.data.version();
        if cur != self.version {
            let t = &self.data;
            let node = if self.is_output {
                match self.view_fn.as_ref().and_then(|w| w.upgrade()) {
                    Some(n) => Some(n.name().to_string()),
                    None => Some(running.to_string()),
                }
            } else {
                super::api::current_grad_fn(t)?.map(|n| n.name().to_string())
            };
            let mut msg = format!(
                "one of the variables needed for gradient computation has been modified by an inplace operation: [{} {}]",
                t.dtype().legacy_type_name(),
                crate::error::fmt_list(t.size())
            );
            if let Some(n) = node {
                let nr = if self.is_output { self.output_nr } else { 0 };
                msg += &format!(", which is output {nr} of {},", display_name(&n));
            }
            msg += &format!(
                " is at version {cur}; expected version {} instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
                self.version
            );
            return Err(Error::runtime(msg));
        }
        Ok(self.data.detached())
    }
}
