//! Per-tensor autograd metadata ([`AutogradMeta`]), behind a `Mutex` because `Tensor` is
//! `Send + Sync` and in-place ops take `&self`.

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use super::node::Node;
use crate::tensor::{Dims, Tensor};

/// How a view was made; decides whether it may be modified in place (spec §4.3).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Creation {
    /// An ordinary differentiable view.
    Default,
    /// Made under `no_grad` from a tensor that requires grad.
    NoGrad,
    /// Output `nr` of a multi-output view op (`unbind`, `split`, `chunk`), whose node's
    /// display name is `op`.
    MultiOutput { nr: usize, op: String },
}

/// What a view remembers of its root base.
pub(crate) struct ViewInfo {
    /// The root base (an alias sharing its autograd meta): never an intermediate view.
    pub base: Tensor,
    pub creation: Creation,
    /// The storage version when `grad_fn` was last set; a different version means an in-place
    /// op touched the base or a view of it, and `grad_fn` is regenerated (`AsStridedBackward0`).
    pub attr_version: u64,
}

/// The mutable part of [`AutogradMeta`].
#[derive(Default)]
pub(crate) struct MetaInner {
    /// `requires_grad` of a leaf (a non-leaf requires grad through its `grad_fn`).
    pub requires_grad: bool,
    /// `.grad`.
    pub grad: Option<Tensor>,
    /// The node that computes this tensor's gradient (None for leaves).
    pub grad_fn: Option<Arc<Node>>,
    /// Which output of `grad_fn` this tensor is.
    pub output_nr: usize,
    /// The lazily made `AccumulateGrad` node of a leaf that requires grad (weak, as PyTorch's).
    pub accumulator: Weak<Node>,
    /// `retain_grad()` was called.
    pub retains_grad: bool,
    /// Set for differentiable views.
    pub view: Option<ViewInfo>,
}

/// The autograd state of one variable: shared by a tensor and its [`Tensor::alias`]es.
#[derive(Default)]
pub struct AutogradMeta {
    inner: Mutex<MetaInner>,
}

impl AutogradMeta {
    pub(crate) fn lock(&self) -> MutexGuard<'_, MetaInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A tensor's geometry, as saved by view and `CopySlices` nodes.
#[derive(Clone, Debug)]
pub(crate) struct Geometry {
    pub sizes: Dims,
    pub strides: Dims,
    pub offset: usize,
}

impl Geometry {
    pub(crate) fn of(t: &Tensor) -> Geometry {
        Geometry {
            sizes: t.sizes.clone(),
            strides: t.strides.clone(),
            offset: t.offset,
        }
    }
}

/// The core's slot holds an `Arc<dyn Any>` (the core does not name autograd); only this
/// module puts an [`AutogradMeta`] in it, so reading one back cannot fail.
fn typed(m: &Arc<dyn std::any::Any + Send + Sync>) -> &AutogradMeta {
    m.downcast_ref::<AutogradMeta>()
        .expect("a tensor's autograd slot holds an AutogradMeta")
}

impl Tensor {
    /// This tensor's meta, if autograd has touched it.
    pub(crate) fn variable(&self) -> Option<&AutogradMeta> {
        self.autograd.any().map(typed)
    }
    /// This tensor's meta as a shared handle (to keep it, or a weak reference to it).
    pub(crate) fn variable_arc(&self) -> Option<Arc<AutogradMeta>> {
        let m = self.autograd.any()?.clone();
        Some(
            m.downcast::<AutogradMeta>()
                .unwrap_or_else(|_| unreachable!("a tensor's autograd slot holds an AutogradMeta")),
        )
    }
    /// This tensor's meta as a shared handle, created on first need.
    pub(crate) fn meta_arc(&self) -> Arc<AutogradMeta> {
        self.meta();
        self.variable_arc()
            .unwrap_or_else(|| unreachable!("`meta` made the variable"))
    }
    /// This tensor's meta, created on first need.
    pub(crate) fn meta(&self) -> &AutogradMeta {
        typed(
            self.autograd
                .any_or_init(|| Arc::new(AutogradMeta::default())),
        )
    }
}
