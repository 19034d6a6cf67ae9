//! The backward engine: runs the nodes reachable from the roots in dependency order (a node
//! runs once every consumer of its outputs has run), summing the gradients that reach the same
//! node input, validating each gradient against its input (shape via `sum_to`, dtype via a
//! cast), releasing saved tensors unless `retain_graph`, and accumulating into leaves
//! (`AccumulateGrad`, with PyTorch's gradient layout contract, spec §6.3).

use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use super::formulas::sum_to;
use super::mode::no_grad;
use super::node::{Edge, Formula, Node};
use crate::error::{Error, Result, fmt_list};
use crate::tensor::Tensor;

/// The node of a leaf that requires grad: adds the incoming gradient into `leaf.grad`.
pub(crate) struct AccumulateGrad {
    pub leaf: Tensor,
}

impl Formula for AccumulateGrad {
    fn name(&self) -> &str {
        "torch::autograd::AccumulateGrad"
    }
    fn apply(&self, grads: &[Option<Tensor>], _: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
        if let Some(g) = &grads[0] {
            accumulate(&self.leaf, g)?;
        }
        Ok(Vec::new())
    }
}

/// `AccumulateGrad`'s rule (spec §6.3): a first gradient is copied with the leaf's strides
/// when the leaf is non-overlapping and dense, contiguous otherwise; later ones are added in
/// place.
pub(crate) fn accumulate(leaf: &Tensor, g: &Tensor) -> Result<()> {
    let meta = leaf.meta();
    let old = meta.lock().grad.as_ref().map(|t| t.alias());
    match old {
        Some(old) => {
            old.add_(g)?;
        }
        None => {
            // PyTorch steals a gradient nobody else holds when it already obeys the layout
            // contract (no copy; `AccumulateGrad::accumulateGrad`'s `use_count` test).
            if !super::mode::is_grad_enabled()
                && Arc::strong_count(&g.storage) == 1
                && obeys_layout_contract(leaf, g)
            {
                meta.lock().grad = Some(g.view_with(g.sizes.clone(), g.strides.clone(), g.offset));
                return Ok(());
            }
            let new = if leaf.is_non_overlapping_and_dense() {
                let t = Tensor::try_alloc(&leaf.sizes, &leaf.strides, g.dtype)?;
                t.copy_raw_(g)?;
                t
            } else {
                let t = Tensor::try_alloc_contiguous(&leaf.sizes, g.dtype)?;
                t.copy_raw_(g)?;
                t
            };
            meta.lock().grad = Some(new);
        }
    }
    Ok(())
}

/// PyTorch's `obeys_layout_contract`: a gradient for a non-overlapping and dense leaf has
/// the leaf's strides (on dims of size > 1); for any other leaf it is contiguous.
fn obeys_layout_contract(leaf: &Tensor, g: &Tensor) -> bool {
    if g.sizes != leaf.sizes || !g.is_non_overlapping_and_dense() {
        return false;
    }
    if leaf.is_non_overlapping_and_dense() {
        leaf.sizes
            .iter()
            .zip(leaf.strides.iter().zip(&g.strides))
            .all(|(&n, (a, b))| n == 1 || a == b)
    } else {
        g.is_contiguous()
    }
}

struct Ready(Arc<Node>);
impl PartialEq for Ready {
    fn eq(&self, o: &Self) -> bool {
        self.0.seq == o.0.seq
    }
}
impl Eq for Ready {}
impl PartialOrd for Ready {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ready {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.seq.cmp(&o.0.seq)
    }
}

fn key(n: &Arc<Node>) -> usize {
    Arc::as_ptr(n) as usize
}

fn add_grad(slot: &mut Option<Tensor>, g: Tensor) -> Result<()> {
    *slot = Some(match slot.take() {
        None => g,
        Some(s) => s.add(&g)?,
    });
    Ok(())
}

/// Makes `g` fit the input it is for (spec §6.2): `sum_to` its shape, cast to its dtype.
fn validate(node: &Node, k: usize, g: Tensor) -> Result<Tensor> {
    let Some(m) = node.input_meta.get(k) else {
        return Ok(g);
    };
    let mut g = g;
    if g.size() != &m.sizes[..] {
        let ok = crate::broadcast::infer_size(&m.sizes, g.size()).is_ok_and(|s| s[..] == *g.size());
        if !ok {
            return Err(Error::runtime(format!(
                "Function {} returned an invalid gradient at index {k} - got {} but expected shape compatible with {}",
                node.name(),
                fmt_list(g.size()),
                fmt_list(&m.sizes)
            )));
        }
        g = sum_to(&g, &m.sizes)?;
    }
    if g.dtype != m.dtype {
        g = g.to(m.dtype)?;
    }
    Ok(g)
}

/// Runs backward from `roots` (edge, gradient). With `capture`, gradients reaching those
/// edges are returned instead of accumulated (`torch.autograd.grad`): `AccumulateGrad`
/// nodes are not run then.
pub(crate) fn run_backward(
    roots: Vec<(Edge, Tensor)>,
    retain_graph: bool,
    capture: Option<&[Option<Edge>]>,
) -> Result<Vec<Option<Tensor>>> {
    let _g = no_grad();
    // dependencies
    let mut deps: HashMap<usize, usize> = HashMap::new();
    let mut seen: HashMap<usize, ()> = HashMap::new();
    let mut stack: Vec<Arc<Node>> = Vec::new();
    for (e, _) in &roots {
        if seen.insert(key(&e.node), ()).is_none() {
            stack.push(e.node.clone());
        }
    }
    while let Some(n) = stack.pop() {
        for e in n.next.iter().flatten() {
            *deps.entry(key(&e.node)).or_insert(0) += 1;
            if seen.insert(key(&e.node), ()).is_none() {
                stack.push(e.node.clone());
            }
        }
    }
    let mut buffers: HashMap<usize, Vec<Option<Tensor>>> = HashMap::new();
    let mut heap = BinaryHeap::new();
    for (e, g) in roots {
        let buf = buffers
            .entry(key(&e.node))
            .or_insert_with(|| vec![None; e.node.num_outputs]);
        let first = buf.iter().all(|x| x.is_none());
        add_grad(&mut buf[e.input_nr], g)?;
        if first && deps.get(&key(&e.node)).copied().unwrap_or(0) == 0 {
            heap.push(Ready(e.node.clone()));
        }
    }
    let mut captured: Vec<Option<Tensor>> =
        capture.map(|c| vec![None; c.len()]).unwrap_or_default();
    let mut pushed: HashMap<usize, ()> = HashMap::new();
    while let Some(Ready(node)) = heap.pop() {
        if pushed.insert(key(&node), ()).is_some() {
            continue;
        }
        let grads = buffers
            .remove(&key(&node))
            .unwrap_or_else(|| vec![None; node.num_outputs]);
        if let Some(c) = capture {
            for (i, e) in c.iter().enumerate() {
                if let Some(e) = e
                    && Arc::ptr_eq(&e.node, &node)
                    && let Some(g) = &grads[e.input_nr]
                {
                    captured[i] = Some(g.alias());
                }
            }
        }
        // retain_grad() hooks
        let hooks: Vec<_> = node
            .retained
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if capture.is_none() {
            for (nr, m) in hooks {
                if let (Some(m), Some(Some(g))) = (m.upgrade(), grads.get(nr)) {
                    let old = m.lock().grad.as_ref().map(|t| t.alias());
                    let new = match old {
                        // PyTorch's hook: `grad.clone(at::MemoryFormat::Contiguous)`
                        None => {
                            let c = Tensor::try_alloc_contiguous(&g.sizes, g.dtype)?;
                            c.copy_raw_(g)?;
                            c
                        }
                        Some(o) => o.add(g)?,
                    };
                    m.lock().grad = Some(new);
                }
            }
        }
        let is_acc = node.next.is_empty() && node.name() == "torch::autograd::AccumulateGrad";
        let outs = if is_acc && capture.is_some() {
            Vec::new()
        } else if grads.iter().all(|g| g.is_none()) {
            vec![None; node.next.len()]
        } else {
            let saved = node.unpack_saved(node.name())?;
            let r = node.formula.apply(&grads, &saved)?;
            if !retain_graph {
                node.release();
            }
            r
        };
        for (k, e) in node.next.iter().enumerate() {
            let Some(e) = e else { continue };
            if let Some(Some(g)) = outs.get(k) {
                let g = validate(&node, k, g.alias())?;
                let buf = buffers
                    .entry(key(&e.node))
                    .or_insert_with(|| vec![None; e.node.num_outputs]);
                add_grad(&mut buf[e.input_nr], g)?;
            }
            let d = deps.get_mut(&key(&e.node)).expect("counted");
            *d -= 1;
            if *d == 0 {
                heap.push(Ready(e.node.clone()));
            }
        }
    }
    Ok(captured)
}
