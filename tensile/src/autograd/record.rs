//! THE entry points an op uses to record itself (spec §1.3, §4, §5):
//!
//! * [`record`] / [`record_multi`]: an ordinary op's outputs get a new node;
//! * [`record_view`] / [`record_view_multi`]: a view op's outputs also remember their base;
//! * [`inplace`]: every in-place op runs through it (leaf refusals, the version bump, the
//!   rebase of `self`'s history or the base's `CopySlices`).
//!
//! Each returns at once (one thread-local read, then a look at the inputs' metas, which
//! allocation-free tensors do not have) when grad mode is off or no input requires grad.

use std::sync::Arc;

use super::api::{any_requires_grad, current_grad_fn, gradient_edge, move_retained};
use super::meta::{Creation, Geometry, ViewInfo};
use super::mode::{INPLACE_DEPTH, is_grad_enabled, no_grad};
use super::node::{Edge, Formula, GradFn, InputMeta, Node, Save, SavedTensor};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A node to record: the formula and the tensors it saves (in the order `apply` reads them).
pub(crate) struct Built {
    pub formula: Box<dyn Formula>,
    pub saved: Vec<Save>,
}

/// A node with no saved tensors.
pub(crate) fn node(f: impl Formula) -> Built {
    Built {
        formula: Box::new(f),
        saved: Vec::new(),
    }
}

/// A node with saved tensors.
pub(crate) fn node_saving(f: impl Formula, saved: Vec<Save>) -> Built {
    Built {
        formula: Box::new(f),
        saved,
    }
}

fn differentiable(t: &Tensor) -> bool {
    t.dtype.is_floating_point()
}

fn build(outs: &[&Tensor], inputs: &[&Tensor], b: Built) -> Result<Arc<Node>> {
    let mut next = Vec::with_capacity(inputs.len());
    let mut meta = Vec::with_capacity(inputs.len());
    for t in inputs {
        next.push(gradient_edge(t)?);
        meta.push(InputMeta {
            sizes: t.sizes.clone(),
            dtype: t.dtype,
        });
    }
    let saved = b
        .saved
        .into_iter()
        .map(|s| match s {
            Save::Input(t) => SavedTensor::input(&t),
            Save::Output(k) => SavedTensor::output(outs[k], k),
            Save::Skip => {
                SavedTensor::input(&Tensor::wrapped_scalar(crate::tensor::Scalar::Int(0)))
            }
        })
        .collect();
    Ok(Node::new(b.formula, next, meta, outs.len(), saved))
}

fn attach(out: &mut Tensor, node: &Arc<Node>, nr: usize) {
    out.autograd = Default::default();
    if differentiable(out) {
        let m = out.meta();
        let mut g = m.lock();
        g.grad_fn = Some(node.clone());
        g.output_nr = nr;
    }
}

/// Records `out = op(inputs…)`: when grad mode is on and an input requires grad, `out` gets
/// the node `make()` builds (its next edges: the inputs' gradient edges, in order).
/// `inputs` are the op's differentiable tensor operands (never Python scalars).
#[inline]
pub(crate) fn record(
    mut out: Tensor,
    inputs: &[&Tensor],
    make: impl FnOnce() -> Built,
) -> Result<Tensor> {
    if !any_requires_grad(inputs) || !differentiable(&out) {
        return Ok(out);
    }
    let n = build(&[&out], inputs, make())?;
    attach(&mut out, &n, 0);
    Ok(out)
}

/// As [`record`] for an op with several differentiable outputs (one node, output numbers
/// in order).
pub(crate) fn record_multi(
    mut outs: Vec<Tensor>,
    inputs: &[&Tensor],
    make: impl FnOnce() -> Built,
) -> Result<Vec<Tensor>> {
    if !any_requires_grad(inputs) {
        return Ok(outs);
    }
    let refs: Vec<&Tensor> = outs.iter().collect();
    let n = build(&refs, inputs, make())?;
    for (i, o) in outs.iter_mut().enumerate() {
        attach(o, &n, i);
    }
    Ok(outs)
}

/// `out` is `input` itself (an op that returned its input, as PyTorch's `x.flatten()` of a
/// 1-d `x`): nothing to record.
fn same_meta(out: &Tensor, input: &Tensor) -> bool {
    match (out.variable(), input.variable()) {
        (Some(a), Some(b)) => std::ptr::eq(a, b),
        _ => false,
    }
}

fn root_base(input: &Tensor) -> Tensor {
    input
        .variable()
        .and_then(|m| m.lock().view.as_ref().map(|v| v.base.alias()))
        .unwrap_or_else(|| input.alias())
}

fn set_view(out: &Tensor, input: &Tensor, creation: Creation) {
    let base = root_base(input);
    let m = out.meta();
    let mut g = m.lock();
    if creation == Creation::NoGrad {
        g.requires_grad = true;
    }
    g.view = Some(ViewInfo {
        base,
        creation,
        attr_version: out.version(),
    });
}

/// Records a view op (`out` shares `input`'s storage): as [`record`], and `out` remembers
/// its root base for in-place ops (spec §2.3, §5). A view made under `no_grad` of a tensor
/// that requires grad is a leaf that reports `requires_grad` and refuses in-place ops in
/// grad mode (spec §4.3).
#[inline]
pub(crate) fn record_view(
    mut out: Tensor,
    input: &Tensor,
    make: impl FnOnce(&Tensor) -> Built,
) -> Result<Tensor> {
    if input.variable().is_none() || same_meta(&out, input) {
        return Ok(out);
    }
    if !is_grad_enabled() {
        out.autograd = Default::default();
        if input.requires_grad() {
            set_view(&out, input, Creation::NoGrad);
        }
        return Ok(out);
    }
    if !input.requires_grad() {
        return Ok(out);
    }
    let b = make(&out);
    let n = build(&[&out], &[input], b)?;
    attach(&mut out, &n, 0);
    set_view(&out, input, Creation::Default);
    Ok(out)
}

/// As [`record_view`] for a multi-output view op (`unbind`, `split`, `chunk`), whose
/// outputs may not be modified in place (spec §4.3).
pub(crate) fn record_view_multi(
    mut outs: Vec<Tensor>,
    input: &Tensor,
    make: impl FnOnce(&[Tensor]) -> Built,
) -> Result<Vec<Tensor>> {
    if input.variable().is_none() {
        return Ok(outs);
    }
    if !is_grad_enabled() {
        for o in outs.iter_mut() {
            o.autograd = Default::default();
            if input.requires_grad() {
                set_view(o, input, Creation::NoGrad);
            }
        }
        return Ok(outs);
    }
    if !input.requires_grad() {
        return Ok(outs);
    }
    let b = make(&outs);
    let refs: Vec<&Tensor> = outs.iter().collect();
    let n = build(&refs, &[input], b)?;
    let op = super::node::display_name(n.name());
    for (i, o) in outs.iter_mut().enumerate() {
        attach(o, &n, i);
        set_view(
            o,
            input,
            Creation::MultiOutput {
                nr: i,
                op: op.clone(),
            },
        );
    }
    Ok(outs)
}

/// The forward checks of an in-place op on `t` in grad mode (spec §4.1, §4.3), made before
/// any shape or dtype check.
pub(crate) fn check_inplace(t: &Tensor, others_require: bool) -> Result<()> {
    let Some(m) = t.variable() else {
        return Ok(());
    };
    let (view_creation, base, leaf_flag, has_fn) = {
        let g = m.lock();
        (
            g.view.as_ref().map(|v| v.creation.clone()),
            g.view.as_ref().map(|v| v.base.alias()),
            g.requires_grad,
            g.grad_fn.is_some(),
        )
    };
    match view_creation {
        Some(Creation::NoGrad) if t.requires_grad() || others_require => {
            return Err(Error::runtime(
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).",
            ));
        }
        Some(Creation::MultiOutput { nr, op }) => {
            return Err(Error::runtime(super::api::multi_output_msg(nr, &op, true)));
        }
        Some(Creation::Default) => {
            if let Some(b) = base
                && b.requires_grad()
                && b.is_leaf()
            {
                return Err(Error::runtime(
                    "a view of a leaf Variable that requires grad is being used in an in-place operation.",
                ));
            }
        }
        _ => {
            if leaf_flag && !has_fn {
                return Err(Error::runtime(
                    "a leaf Variable that requires grad is being used in an in-place operation.",
                ));
            }
        }
    }
    Ok(())
}

/// Leaves the depth counter on drop.
struct Depth;
impl Drop for Depth {
    fn drop(&mut self) {
        INPLACE_DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// THE path of every in-place op `self_.op_(others…)`:
///
/// 1. in grad mode, the leaf / view-of-leaf / view-creation refusals (before any other check);
/// 2. `run()`: the op itself (its own errors; nothing else happens if it fails);
/// 3. the version counter of `self_`'s storage: +1 (once, however the op is implemented:
///    in-place ops called by `run` are not counted or recorded again);
/// 4. when grad mode is on and `self_` or an operand requires grad: `formula(old)` is the
///    op's out-of-place form computed (recorded) on `old`, a copy of `self_`'s previous value
///    carrying its previous history; its node becomes `self_`'s `grad_fn` (rebase), or, when
///    `self_` is a view, the `fn` of a `CopySlices` that becomes its base's `grad_fn`.
pub(crate) fn inplace(
    self_: &Tensor,
    others: &[&Tensor],
    run: impl FnOnce() -> Result<Tensor>,
    formula: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    if INPLACE_DEPTH.with(|d| d.get()) > 0 {
        return run();
    }
    INPLACE_DEPTH.with(|d| d.set(d.get() + 1));
    let depth = Depth;
    let grad_on = is_grad_enabled();
    let others_require = grad_on && others.iter().any(|t| t.requires_grad());
    if grad_on {
        check_inplace(self_, others_require)?;
    }
    let self_requires = grad_on && self_.requires_grad();
    let record = self_requires || others_require;
    let is_view = self_.variable().is_some_and(|m| {
        m.lock()
            .view
            .as_ref()
            .is_some_and(|v| v.creation == Creation::Default)
    });
    // the previous value, with the previous history
    let old = if record {
        let _ng = no_grad();
        let c = self_.detached().clone();
        if is_view {
            c.meta().lock().requires_grad = true;
        } else if self_requires {
            let f = current_grad_fn(self_)?;
            let nr = self_.variable().map(|m| m.lock().output_nr).unwrap_or(0);
            let m = c.meta();
            let mut g = m.lock();
            g.grad_fn = f;
            g.output_nr = nr;
        }
        Some(c)
    } else {
        None
    };
    let r = run()?;
    self_.storage.bump_version();
    drop(depth);
    let Some(old) = old else {
        return Ok(r);
    };
    let out = formula(&old)?;
    let Some(f) = out.variable().and_then(|m| m.lock().grad_fn.clone()) else {
        return Ok(r);
    };
    if is_view {
        let base = root_base(self_);
        let prev = gradient_edge(&base)?;
        let mut next = vec![prev];
        next.extend(f.next.iter().skip(1).cloned());
        let mut im = vec![InputMeta {
            sizes: base.sizes.clone(),
            dtype: base.dtype,
        }];
        im.extend(f.input_meta.iter().skip(1).cloned());
        f.resave_outputs(self_);
        let cs = Node::new(
            Box::new(super::formulas::views::CopySlices {
                base: Geometry::of(&base),
                view: Geometry::of(self_),
                f: f.clone(),
            }),
            next,
            im,
            1,
            Vec::new(),
        );
        {
            let m = base.meta();
            let mut g = m.lock();
            g.grad_fn = Some(cs.clone());
            g.output_nr = 0;
            move_retained(&g, Some(&cs), &base);
        }
        // the saved result is the view: its error names the view's (regenerated) node
        if let Some(vf) = current_grad_fn(self_)? {
            f.set_view_fn(&vf);
        }
    } else {
        f.resave_outputs(self_);
        let m = self_.meta();
        let mut g = m.lock();
        g.grad_fn = Some(f.clone());
        g.output_nr = 0;
        move_retained(&g, Some(&f), self_);
    }
    Ok(r)
}

/// A token output carrying `node`'s history (for in-place formulas without an out-of-place
/// op: `fill_`, `zero_`, `copy_`).
pub(crate) fn token(
    like: &Tensor,
    inputs: &[&Tensor],
    make: impl FnOnce() -> Built,
) -> Result<Tensor> {
    record(like.detached(), inputs, make)
}

/// Unused-edge helper kept for formula authors: the node of `t`, if any.
#[allow(dead_code)]
pub(crate) fn grad_fn_of(t: &Tensor) -> Option<GradFn> {
    t.grad_fn()
}

#[allow(dead_code)]
fn _edge_is_send(e: Edge) -> impl Send {
    e
}

/// Writes the result of an out-of-place op back into `dst`, as PyTorch's in-place form of
/// that op: `dst`'s internal overlap is refused first, then the result dtype must cast to
/// `dst`'s (`result type Float can't be cast to the desired output type Long`), then the
/// values are copied (broadcast to `dst`'s shape). Returns `dst` (an alias).
///
/// `f` is the out-of-place op applied to its argument (`|t| t.exp()`); it goes through
/// [`inplace`] (leaf checks, version bump, the rebased history). The op table derives every
/// in-place variant this way unless its row names an in-place kernel.
pub(crate) fn write_back(dst: &Tensor, f: impl Fn(&Tensor) -> Result<Tensor>) -> Result<Tensor> {
    inplace(
        dst,
        &[],
        || {
            crate::iter::check_overlap(dst, &[])?;
            let r = f(dst)?;
            crate::dtype::check_can_cast(r.dtype, dst.dtype)?;
            dst.copy_raw_(&r)
        },
        &f,
    )
}
