//! The public autograd surface of [`Tensor`]: `requires_grad`, `is_leaf`, `grad`, `grad_fn`,
//! `backward`, `retain_grad`, `detach`, `version`; and the helpers the engine and `record`
//! share (`gradient_edge`, the lazily regenerated `grad_fn` of views).

use std::sync::Arc;

use super::formulas::views::StridedViewBackward;
use super::meta::{Creation, Geometry};
use super::mode::is_grad_enabled;
use super::node::{Edge, GradFn, InputMeta, Node};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The error texts of spec §4.3 (multi-output views).
pub(crate) fn multi_output_msg(nr: usize, op: &str, modified_itself: bool) -> String {
    let what = if modified_itself {
        "is being modified inplace"
    } else {
        "its base or another view of its base has been modified inplace"
    };
    format!(
        "Output {nr} of {op} is a view and {what}. This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one."
    )
}

/// `t.grad_fn`, regenerating a view's node (as `AsStridedBackward0` to its base's current
/// node) when an in-place op changed the shared storage since it was last set.
pub(crate) fn current_grad_fn(t: &Tensor) -> Result<Option<Arc<Node>>> {
    let Some(meta) = t.variable() else {
        return Ok(None);
    };
    let base = {
        let g = meta.lock();
        match &g.view {
            Some(v) if v.attr_version != t.version() => match &v.creation {
                Creation::NoGrad => return Ok(g.grad_fn.clone()),
                Creation::MultiOutput { nr, op } => {
                    return Err(Error::runtime(multi_output_msg(*nr, op, false)));
                }
                Creation::Default => v.base.alias(),
            },
            _ => return Ok(g.grad_fn.clone()),
        }
    };
    let node = match gradient_edge(&base)? {
        Some(edge) => Some(Node::new(
            Box::new(StridedViewBackward {
                name: "AsStridedBackward0",
                input: Geometry::of(&base),
                outputs: vec![Geometry::of(t)],
            }),
            vec![Some(edge)],
            vec![InputMeta {
                sizes: base.sizes.clone(),
                dtype: base.dtype,
            }],
            1,
            Vec::new(),
        )),
        None => None,
    };
    let mut g = meta.lock();
    if let Some(v) = &mut g.view {
        v.attr_version = t.version();
    }
    g.grad_fn = node.clone();
    g.output_nr = 0;
    move_retained(&g, node.as_ref(), t);
    Ok(node)
}

/// Registers a retained tensor's hook on its (new) node.
pub(crate) fn move_retained(g: &super::meta::MetaInner, node: Option<&Arc<Node>>, t: &Tensor) {
    if g.retains_grad
        && let Some(n) = node
        && let Some(meta) = t.variable_arc()
    {
        n.retained
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((g.output_nr, Arc::downgrade(&meta)));
    }
}

/// Where `t`'s gradient goes: its node and output number, or its `AccumulateGrad` (a leaf
/// that requires grad), or nowhere.
pub(crate) fn gradient_edge(t: &Tensor) -> Result<Option<Edge>> {
    if let Some(f) = current_grad_fn(t)? {
        let nr = t.variable().map(|m| m.lock().output_nr).unwrap_or(0);
        return Ok(Some(Edge {
            node: f,
            input_nr: nr,
        }));
    }
    if t.requires_grad() {
        return Ok(Some(Edge {
            node: accumulator(t),
            input_nr: 0,
        }));
    }
    Ok(None)
}

/// The leaf's `AccumulateGrad` node, made on first need and weakly held by the leaf.
pub(crate) fn accumulator(t: &Tensor) -> Arc<Node> {
    let meta = t.meta();
    let mut g = meta.lock();
    if let Some(n) = g.accumulator.upgrade() {
        return n;
    }
    let n = Node::new(
        Box::new(super::engine::AccumulateGrad { leaf: t.alias() }),
        Vec::new(),
        Vec::new(),
        1,
        Vec::new(),
    );
    g.accumulator = Arc::downgrade(&n);
    n
}

impl Tensor {
    /// `t.requires_grad`: a leaf flagged with `requires_grad_`, or an op output with a
    /// `grad_fn`.
    #[inline]
    pub fn requires_grad(&self) -> bool {
        match self.variable() {
            None => false,
            Some(m) => {
                let g = m.lock();
                g.requires_grad || g.grad_fn.is_some()
            }
        }
    }

    /// `t.requires_grad_(b)`: flags a leaf; returns `self` (an alias).
    ///
    /// Errors (RuntimeError): `only Tensors of floating point dtype can require gradients`
    /// (integer or bool dtype with `b`); `you can only change requires_grad flags of leaf
    /// variables. If you want to use a computed variable in a subgraph that doesn't require
    /// differentiation use var_no_grad = var.detach().` (`b == false` on a non-leaf).
    pub fn requires_grad_(&self, b: bool) -> Result<Tensor> {
        if !self.is_leaf() {
            if b {
                return Ok(self.alias());
            }
            return Err(Error::runtime(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().",
            ));
        }
        if b && !self.dtype.is_floating_point() {
            return Err(Error::runtime(
                "only Tensors of floating point dtype can require gradients",
            ));
        }
        if b || self.variable().is_some() {
            self.meta().lock().requires_grad = b;
        }
        Ok(self.alias())
    }

    /// `t.is_leaf`: no `grad_fn` (factories, `detach()`, outputs of ops that recorded
    /// nothing). Reads the regenerated node of a view modified in place; false if reading it
    /// fails (see [`Tensor::grad_fn_checked`]).
    pub fn is_leaf(&self) -> bool {
        matches!(current_grad_fn(self), Ok(None))
    }

    /// `t.grad`: the accumulated gradient of a leaf (or of a non-leaf that `retain_grad()`s).
    pub fn grad(&self) -> Option<Tensor> {
        self.variable()
            .and_then(|m| m.lock().grad.as_ref().map(|g| g.alias()))
    }

    /// `t.grad = g` (`None`: `t.grad = None`). `g` must have `t`'s dtype and size (PyTorch
    /// checks both at the assignment, in `THPVariable_set_grad`; there is one device and one
    /// layout here, so its device and layout checks always pass). The gradient is stored as
    /// given (not copied): later in-place changes to `g` show in `t.grad()`.
    ///
    /// Errors (RuntimeError), in PyTorch's order: `can't assign Variable as its own grad` (`g`
    /// an alias of `t`, sharing its autograd state: `t.set_grad(Some(t.alias()))` once `t`
    /// requires grad); `attempting to assign a gradient with dtype 'double' to a tensor with
    /// grad_dtype 'Float'. The gradient must match the tensor's grad_dtype (defaults to the
    /// tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or
    /// None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor
    /// and its gradient may break downstream systems that assume they match.` (tensile has no
    /// `grad_dtype`: it is always the tensor's dtype); `attempting to assign a gradient of size
    /// '[3, 2]' to a tensor of size '[2, 3]'. Please ensure that the gradient and the tensor are
    /// the same size`. On error `t.grad()` is unchanged.
    pub fn set_grad(&self, g: Option<Tensor>) -> Result<()> {
        let Some(g) = g else {
            if self.variable().is_some() {
                self.meta().lock().grad = None;
            }
            return Ok(());
        };
        if let (Some(a), Some(b)) = (self.variable(), g.variable())
            && std::ptr::eq(a, b)
        {
            return Err(Error::runtime("can't assign Variable as its own grad"));
        }
        if g.dtype != self.dtype {
            return Err(Error::runtime(format!(
                "attempting to assign a gradient with dtype '{}' to a tensor with grad_dtype '{}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that assume they match.",
                crate::dtype::type_meta_name(g.dtype),
                self.dtype.scalar_type_name()
            )));
        }
        if g.sizes != self.sizes {
            return Err(Error::runtime(format!(
                "attempting to assign a gradient of size '{}' to a tensor of size '{}'. Please ensure that the gradient and the tensor are the same size",
                crate::error::fmt_list(&g.sizes),
                crate::error::fmt_list(&self.sizes)
            )));
        }
        self.meta().lock().grad = Some(g);
        Ok(())
    }

    /// `t.grad_fn`: the node that computes this tensor's gradient (`None` for a leaf).
    /// A view modified in place (or whose base was) gets its node regenerated as
    /// `AsStridedBackward0`. A multi-output view (`unbind`, `split`) whose base was modified
    /// in place has no valid node: `None` here, the error from [`Tensor::grad_fn_checked`].
    pub fn grad_fn(&self) -> Option<GradFn> {
        current_grad_fn(self).ok().flatten().map(GradFn)
    }

    /// As [`Tensor::grad_fn`], with PyTorch's error for a multi-output view whose base or
    /// sibling was modified in place: `Output N of Op is a view and its base or another view
    /// of its base has been modified inplace. This view is the output of a function that
    /// returns multiple views. …`.
    pub fn grad_fn_checked(&self) -> Result<Option<GradFn>> {
        Ok(current_grad_fn(self)?.map(GradFn))
    }

    /// `t.backward()`: the gradient of a one-element `t` (implicit 1) accumulated into the
    /// leaves; the graph is freed. Errors as [`crate::autograd::backward`].
    pub fn backward(&self) -> Result<()> {
        self.backward_with(None, false)
    }

    /// `t.backward(gradient, retain_graph=…)`; errors as [`crate::autograd::backward`].
    pub fn backward_with(&self, gradient: Option<&Tensor>, retain_graph: bool) -> Result<()> {
        super::backward(&[self], &[gradient], retain_graph)
    }

    /// `t.retain_grad()`: a non-leaf keeps its gradient in `.grad` after backward (a no-op on
    /// a leaf).
    ///
    /// Error: `can't retain_grad on Tensor that has requires_grad=False`.
    pub fn retain_grad(&self) -> Result<()> {
        if !self.requires_grad() {
            return Err(Error::runtime(
                "can't retain_grad on Tensor that has requires_grad=False",
            ));
        }
        let Some(node) = current_grad_fn(self)? else {
            return Ok(());
        };
        let meta = self.meta();
        let mut g = meta.lock();
        if g.retains_grad {
            return Ok(());
        }
        g.retains_grad = true;
        move_retained(&g, Some(&node), self);
        Ok(())
    }

    /// Python's `b = a` for a tensor that autograd may touch later: another handle on the
    /// same autograd variable (its metadata is made now if needed, so that both handles see
    /// every later change, such as an in-place op with an operand that requires grad).
    pub fn shallow_alias(&self) -> Tensor {
        self.meta();
        self.alias()
    }

    /// `t.retains_grad`.
    pub fn retains_grad(&self) -> bool {
        self.variable().is_some_and(|m| m.lock().retains_grad)
    }

    /// `t.detach()`: a new leaf that does not require grad, sharing storage and the version
    /// counter with `self`.
    pub fn detach(&self) -> Tensor {
        self.detached()
    }

    /// The data of `self` without autograd meta (same storage and geometry).
    pub(crate) fn detached(&self) -> Tensor {
        let mut t = self.view_with(self.sizes.clone(), self.strides.clone(), self.offset);
        t.wrapped = self.wrapped;
        t
    }

    /// `t.detach_()`: `self` becomes a leaf that does not require grad; returns `self`.
    ///
    /// Error on a view: `Can't detach views in-place. Use detach() instead. If you are using
    /// DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True,
    /// gradients are views of DDP buckets, and hence detach_() cannot be called on these
    /// gradients. To fix this error, please refer to the Optimizer.zero_grad() function in
    /// torch/optim/optimizer.py as the solution.`
    pub fn detach_(&self) -> Result<Tensor> {
        if let Some(m) = self.variable() {
            let mut g = m.lock();
            if g.view
                .as_ref()
                .is_some_and(|v| v.creation != Creation::NoGrad)
            {
                return Err(Error::runtime(
                    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.",
                ));
            }
            g.grad_fn = None;
            g.requires_grad = false;
            g.output_nr = 0;
            g.view = None;
        }
        Ok(self.alias())
    }

    /// PyTorch's `t._version`: the version counter shared by every view of this storage
    /// (and `detach()`es): +1 per in-place op call, in grad mode and under `no_grad`.
    pub fn version(&self) -> u64 {
        self.storage.version()
    }
}

/// Whether recording is needed for these inputs (one thread-local read, then the metas).
#[inline]
pub(crate) fn any_requires_grad(inputs: &[&Tensor]) -> bool {
    is_grad_enabled() && inputs.iter().any(|t| t.requires_grad())
}
