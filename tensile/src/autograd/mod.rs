//! Reverse-mode autograd with PyTorch 2.15's semantics (`shared/spec/autograd-semantics.md`).
//!
//! # Design
//! * **Grad mode** ([`mode`]): a thread-local flag, `no_grad()` / `enable_grad()` guards.
//! * **Metadata** ([`meta`]): `Tensor::autograd` is a slot of the core holding an
//!   `Arc<AutogradMeta>` (as an `Arc<dyn Any>`: the core does not name autograd), empty
//!   (no allocation) until autograd touches the tensor; [`Tensor::alias`] shares it (Python's
//!   `b = a`). It holds `requires_grad` of leaves, `.grad`, `grad_fn` + `output_nr`,
//!   `retains_grad`, the lazily made `AccumulateGrad`, and for views their root base and
//!   creation kind. The **version counter** lives in `Storage` (one per storage, so shared by
//!   every view, alias and `detach()`), bumped once per in-place op call by [`record::inplace`].
//! * **Graph** ([`node`]): a `Node` = a boxed [`Formula`] (name + `apply`), one next `Edge`
//!   per differentiable input, the inputs' shapes/dtypes, and its [`SavedTensor`]s (each with
//!   its version at save time; unpacking checks it and gives spec §3.4's error; released
//!   after backward unless `retain_graph`). A dropped node frees the graph behind it
//!   iteratively (its next edges, saved tensors and formula go on a thread-local stack, as
//!   PyTorch's `deleteNode`), so a chain of 10^7 nodes is dropped on a 2 MiB stack.
//! * **Engine** ([`engine`]): dependency counting from the roots (an explicit stack, no
//!   recursion, whatever the graph's depth), a ready queue (latest node first, as PyTorch), input buffers summing gradients, `sum_to`/cast validation of every
//!   gradient, `AccumulateGrad` with the layout contract, `retain_grad` hooks, and the
//!   capture mode of [`grad`].
//!
//! # How an op records itself (formula authors)
//! The forward code makes ONE call, after computing its result, into a function of
//! `formulas/` that calls [`record::record`]:
//! ```ignore
//! pub fn exp(&self) -> Result<Tensor> {
//!     let r = unary(UnaryOp::Exp, self)?;
//!     formulas::pointwise::unary(UnaryOp::Exp, r, self)   // → record(out, &[inputs], || Built)
//! }
//! ```
//! `record(out, inputs, make)` returns `out` untouched (one thread-local read, then a look at
//! each input's empty `OnceLock`) when grad mode is off or no input requires grad; otherwise
//! it calls `make()` for the node: `node(F)` or `node_saving(F, vec![Save::Input(x), Save::Output(0)])`
//! where `F: Formula` (often [`formulas::pointwise::Lambda`]: a name and a closure of
//! `(g, saved)`). `apply` returns one gradient per input, in `inputs` order; the engine
//! reduces broadcast shapes and casts dtypes, so formulas may ignore both.
//! View ops call [`record::record_view`] (or `_multi` for `split`/`unbind`); their backward
//! is the generic strided scatter of `formulas::views`, only the node name differs.
//! Every formula lives in `formulas/` (one file per family: pointwise, reduce, views, linalg).
//!
//! # In-place ops
//! Every in-place op is `record::inplace(self, &[other operands], || run, |old| out_of_place(old, …))`:
//! the leaf / view-of-leaf / no-grad-view / multi-output-view refusals come first (spec §4),
//! then the op runs, the version is bumped once (nested in-place calls inside `run` are
//! neither bumped nor recorded again), and when recording, the out-of-place form computed on
//! `old` (a copy of `self`'s previous value carrying its previous history) gives the node
//! that becomes `self`'s `grad_fn` (rebase; `mul_` → `MulBackward0`), or, for a view, the
//! `fn` of a `CopySlices` that becomes the root base's `grad_fn`; the view's own node is then
//! regenerated lazily as `AsStridedBackward0` when read (spec §2.3, §5).
//!
//! # Deviations (documented)
//! * Views of a tensor with no autograd meta (never required grad) are not tracked as views
//!   (that would cost an allocation per view in inference): an in-place op with a requiring
//!   operand through such a view rebases the view itself, not its base.
//! * Derivatives are mostly computed elementwise in float64 (`pointwise::map_n`) and cast.
//! * `create_graph` (higher-order gradients) is not supported.

pub mod api;
pub(crate) mod engine;
pub mod formulas;
pub mod meta;
pub mod mode;
pub mod node;
pub(crate) mod record;
pub(crate) use record::{inplace, write_back};

pub use mode::{
    EnableGradGuard, GradModeGuard, NoGradGuard, enable_grad, is_grad_enabled, no_grad,
    set_grad_enabled,
};
pub use node::{Formula, GradFn, display_name};

use crate::error::{Error, Result};
use crate::tensor::Tensor;
use api::gradient_edge;
use node::Edge;

/// PyTorch's `repr` of a size: `torch.Size([2, 3])`.
pub(crate) fn size_repr(s: &[usize]) -> String {
    format!(
        "torch.Size([{}])",
        s.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `_make_grads` (spec §6.1): the root gradients, checked and defaulted.
fn make_grads(outputs: &[&Tensor], grads: &[Option<&Tensor>]) -> Result<Vec<Option<Tensor>>> {
    let mut r = Vec::with_capacity(outputs.len());
    for (i, out) in outputs.iter().enumerate() {
        match grads.get(i).copied().flatten() {
            Some(g) => {
                if g.size() != out.size() {
                    return Err(Error::runtime(format!(
                        "Mismatch in shape: grad_output[{i}] has a shape of {} and output[{i}] has a shape of {}.",
                        size_repr(g.size()),
                        size_repr(out.size())
                    )));
                }
                r.push(Some(g.detached().to(out.dtype())?));
            }
            None => {
                if out.requires_grad() {
                    if out.numel() != 1 {
                        return Err(Error::runtime(
                            "grad can be implicitly created only for scalar outputs",
                        ));
                    }
                    r.push(Some(Tensor::ones_like(out)?));
                } else {
                    r.push(None);
                }
            }
        }
    }
    Ok(r)
}

fn roots(outputs: &[&Tensor], grads: Vec<Option<Tensor>>) -> Result<Vec<(Edge, Tensor)>> {
    let mut roots = Vec::new();
    for (i, (out, g)) in outputs.iter().zip(grads).enumerate() {
        let Some(edge) = gradient_edge(out)? else {
            return Err(Error::runtime(format!(
                "element {i} of tensors does not require grad and does not have a grad_fn"
            )));
        };
        if let Some(g) = g {
            roots.push((edge, g));
        }
    }
    Ok(roots)
}

/// `torch.autograd.backward(tensors, grad_tensors, retain_graph)`: accumulates the gradients
/// of `tensors` (weighted by `grad_tensors`, `None` = implicit 1 for one-element outputs) into
/// the leaves' `.grad`.
///
/// Errors (RuntimeError), in PyTorch's order: `Mismatch in shape: grad_output[0] has a shape
/// of torch.Size([2]) and output[0] has a shape of torch.Size([3]).`; `grad can be implicitly
/// created only for scalar outputs`; `element 0 of tensors does not require grad and does not
/// have a grad_fn`; the saved-tensor errors (`one of the variables needed for gradient
/// computation has been modified by an inplace operation: …`, `Trying to backward through the
/// graph a second time …`); `Function XBackward0 returned an invalid gradient at index 0 - …`.
pub fn backward(
    tensors: &[&Tensor],
    grad_tensors: &[Option<&Tensor>],
    retain_graph: bool,
) -> Result<()> {
    let grads = make_grads(tensors, grad_tensors)?;
    let roots = roots(tensors, grads)?;
    engine::run_backward(roots, retain_graph, None)?;
    Ok(())
}

/// `torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, allow_unused)`: the
/// gradients of `outputs` with respect to `inputs` (leaves or not), without touching `.grad`.
///
/// Errors: those of [`backward`]; `` `inputs` argument to `grad()` cannot be empty. ``;
/// `One of the differentiated Tensors does not require grad`; `The differentiated Tensor at
/// index 1 appears to not have been used in the graph. Set allow_unused=True if this is the
/// desired behavior.`
pub fn grad(
    outputs: &[&Tensor],
    inputs: &[&Tensor],
    grad_outputs: &[Option<&Tensor>],
    retain_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    if inputs.is_empty() {
        return Err(Error::runtime(
            "`inputs` argument to `grad()` cannot be empty.",
        ));
    }
    let grads = make_grads(outputs, grad_outputs)?;
    let roots = roots(outputs, grads)?;
    let mut capture = Vec::with_capacity(inputs.len());
    for t in inputs {
        if !t.requires_grad() {
            return Err(Error::runtime(
                "One of the differentiated Tensors does not require grad",
            ));
        }
        capture.push(gradient_edge(t)?);
    }
    let r = engine::run_backward(roots, retain_graph, Some(&capture))?;
    if !allow_unused && let Some(i) = r.iter().position(|g| g.is_none()) {
        return Err(Error::runtime(format!(
            "The differentiated Tensor at index {i} appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
        )));
    }
    Ok(r)
}
#[cfg(test)]
mod sem_tests;
