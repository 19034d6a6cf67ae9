//! View ops: every view's backward is the same "strided scatter" (the gradient of each view
//! element lands on the storage element it aliases, summed where windows overlap, then read
//! back in the input's geometry); only the node name differs. `CopySlices` (spec §5.2).

use std::sync::Arc;

use super::super::meta::Geometry;
use super::super::node::{Formula, Node};
use super::sum_to;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

#[allow(clippy::needless_range_loop)]
fn for_each(g: &Geometry, mut f: impl FnMut(usize)) {
    let n: usize = g.sizes.iter().product();
    if n == 0 {
        return;
    }
    let nd = g.sizes.len();
    let mut idx = vec![0usize; nd];
    for _ in 0..n {
        let mut off = g.offset;
        for d in 0..nd {
            off += idx[d] * g.strides[d];
        }
        f(off);
        for d in (0..nd).rev() {
            idx[d] += 1;
            if idx[d] < g.sizes[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

fn extent(gs: &[&Geometry]) -> usize {
    gs.iter()
        .map(|g| {
            if g.sizes.contains(&0) {
                0
            } else {
                g.offset
                    + g.sizes
                        .iter()
                        .zip(&g.strides)
                        .map(|(&n, &s)| (n - 1) * s)
                        .sum::<usize>()
                    + 1
            }
        })
        .max()
        .unwrap_or(0)
}

fn read(buf: &[f64], g: &Geometry, dtype: DType) -> Result<Tensor> {
    let mut v = Vec::with_capacity(g.sizes.iter().product());
    for_each(g, |i| v.push(buf[i]));
    Tensor::from_vec(v, &g.sizes[..])?.to(dtype)
}

/// The dtype of a multi-output view node's gradients: that of the first one present.
fn grads_dtype(grads: &[Option<Tensor>]) -> DType {
    grads
        .iter()
        .flatten()
        .next()
        .map(|g| g.dtype())
        .unwrap_or(DType::Float32)
}

/// The backward of every view op (`ViewBackward0`, `SelectBackward0`, `ExpandBackward0`,
/// `AsStridedBackward0`, `SplitBackward0`, …): `input` is the viewed tensor's geometry,
/// `outputs` the views' (one per output). Saves nothing.
pub(crate) struct StridedViewBackward {
    pub name: &'static str,
    pub input: Geometry,
    pub outputs: Vec<Geometry>,
}

impl Formula for StridedViewBackward {
    fn name(&self) -> &str {
        self.name
    }
    fn apply(&self, grads: &[Option<Tensor>], _: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
        if let Some(r) = fast_view_backward(&self.input, &self.outputs, grads)? {
            return Ok(vec![Some(r)]);
        }
        let dtype = grads_dtype(grads);
        let mut all: Vec<&Geometry> = self.outputs.iter().collect();
        all.push(&self.input);
        let mut buf = vec![0f64; extent(&all)];
        for (geo, g) in self.outputs.iter().zip(grads) {
            if let Some(g) = g {
                let vals = g.try_to_vec::<f64>()?;
                let mut k = 0;
                for_each(geo, |i| {
                    buf[i] += vals[k];
                    k += 1;
                });
            }
        }
        Ok(vec![Some(read(&buf, &self.input, dtype)?)])
    }
}

/// The fast, exact forms of a view's backward, tried before the element-by-element scatter
/// (`None` when none applies). They compute in the gradient's dtype with tensile's own
/// kernels, as PyTorch's per-op view backwards do:
/// 1. the view only permutes the input's dims, adds or drops size-1 dims (`t`, `transpose`,
///    `permute`, `squeeze`, `unsqueeze`, an identity `view`): the gradient is the same
///    permutation of `g`'s dims, a view of `g` (PyTorch's `TBackward0` is `grad.t()`);
/// 2. input and view both row-major contiguous at the same offset (`view`/`reshape` that
///    split or merge dims): `g` reshaped;
/// 3. the input does not overlap itself and each view's overlap comes only from stride-0 dims
///    (`expand`): `g` summed over those dims, then copied (added, for several views) into a
///    zero buffer laid out as the storage, which is read back in the input's geometry.
fn fast_view_backward(
    input: &Geometry,
    outputs: &[Geometry],
    grads: &[Option<Tensor>],
) -> Result<Option<Tensor>> {
    if overlapping(input) {
        return Ok(None);
    }
    let present: Vec<(&Geometry, &Tensor)> = outputs
        .iter()
        .zip(grads)
        .filter_map(|(o, g)| g.as_ref().map(|g| (o, g)))
        .collect();
    let numel = |g: &Geometry| g.sizes.iter().product::<usize>();
    if let [(out, g)] = present[..]
        && outputs.len() == 1
        && out.offset == input.offset
        && numel(out) == numel(input)
    {
        if let Some(r) = permuted(input, out, g) {
            return Ok(Some(r));
        }
        if row_major(input) && row_major(out) {
            return Ok(Some(g.reshape(&input.sizes[..])?));
        }
    }
    let mut pieces = Vec::with_capacity(present.len());
    for (out, g) in present {
        // Sum the broadcast (stride-0) dims away: the rest must not overlap.
        let zero: Vec<i64> = (0..out.sizes.len())
            .filter(|&d| out.strides[d] == 0 && out.sizes[d] > 1)
            .map(|d| d as i64)
            .collect();
        let (g, out) = if zero.is_empty() {
            (g.alias(), out.clone())
        } else {
            let mut o = out.clone();
            for &d in &zero {
                o.sizes[d as usize] = 1;
            }
            (g.sum_dim(zero, true)?, o)
        };
        if overlapping(&out) {
            return Ok(None);
        }
        pieces.push((out, g));
    }
    let Some(dtype) = grads.iter().flatten().next().map(|g| g.dtype()) else {
        return Ok(None);
    };
    let mut all: Vec<&Geometry> = pieces.iter().map(|(o, _)| o).collect();
    all.push(input);
    let base = all
        .iter()
        .filter(|g| !g.sizes.contains(&0))
        .map(|g| g.offset)
        .min()
        .unwrap_or(0);
    let len = extent(&all).saturating_sub(base);
    let buf = Tensor::zeros_with([len], dtype)?;
    let at = |g: &Geometry| {
        buf.view_with(
            g.sizes.clone(),
            g.strides.clone(),
            g.offset.saturating_sub(base),
        )
    };
    let several = pieces.len() > 1;
    for (out, g) in &pieces {
        if numel(out) == 0 {
            continue;
        }
        let dst = at(out);
        if several {
            dst.add_(g)?;
        } else {
            dst.copy_raw_(g)?;
        }
    }
    // A dense window of the buffer is returned as it is (laid out as the input's storage;
    // e.g. the heads of a permuted QKV projection come back contiguous after the permute's
    // own backward); a window with gaps is compacted.
    let r = at(input);
    Ok(Some(if r.is_non_overlapping_and_dense() {
        r
    } else {
        r.try_contiguous()?
    }))
}

/// Case 1 of [`fast_view_backward`]: every dim of size > 1 of `out` is one of `input`'s
/// (same size and stride); then `g` (laid out as `out`) is returned as a view with
/// `input`'s dims.
fn permuted(input: &Geometry, out: &Geometry, g: &Tensor) -> Option<Tensor> {
    let big = |geo: &Geometry| geo.sizes.iter().filter(|&&n| n > 1).count();
    if big(input) != big(out) {
        return None;
    }
    let mut strides = Vec::with_capacity(input.sizes.len());
    for (&n, &s) in input.sizes.iter().zip(&input.strides) {
        if n <= 1 {
            strides.push(1);
            continue;
        }
        let j = (0..out.sizes.len()).find(|&j| out.sizes[j] == n && out.strides[j] == s)?;
        strides.push(g.strides[j]);
    }
    Some(g.view_with(input.sizes.clone(), strides, g.offset))
}

/// Row-major contiguous, ignoring dims of size 1.
fn row_major(g: &Geometry) -> bool {
    let mut expect = 1;
    for (&n, &s) in g.sizes.iter().zip(&g.strides).rev() {
        if n == 1 {
            continue;
        }
        if s != expect {
            return false;
        }
        expect *= n;
    }
    true
}

/// `reshape` that copied (`UnsafeViewBackward0`), `view` of a non-viewable layout handled as
/// a reshape: the gradient reshaped back.
pub(crate) struct ReshapeBackward {
    pub name: &'static str,
    pub sizes: Vec<usize>,
}

impl Formula for ReshapeBackward {
    fn name(&self) -> &str {
        self.name
    }
    fn apply(&self, grads: &[Option<Tensor>], _: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(super::g0(grads).reshape(&self.sizes[..])?)])
    }
}

/// `torch::autograd::CopySlices` (spec §5.2): the base's node after an in-place op `f` on a
/// view of it. Next edges: the base's previous history, then `f`'s other inputs.
pub(crate) struct CopySlices {
    pub base: Geometry,
    pub view: Geometry,
    pub f: Arc<Node>,
}

impl Formula for CopySlices {
    fn name(&self) -> &str {
        "torch::autograd::CopySlices"
    }
    fn apply(&self, grads: &[Option<Tensor>], _: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
        let g = super::g0(grads);
        let dtype = g.dtype();
        let mut buf = vec![0f64; extent(&[&self.base, &self.view])];
        let vals = g.try_to_vec::<f64>()?;
        let mut k = 0;
        for_each(&self.base, |i| {
            buf[i] = vals[k];
            k += 1;
        });
        let slice = read(&buf, &self.view, dtype)?;
        let saved = self.f.unpack_saved(self.f.name())?;
        let mut fg = vec![None; self.f.num_outputs];
        fg[0] = Some(slice);
        let res = self.f.formula.apply(&fg, &saved)?;
        let r0 = match res.first().cloned().flatten() {
            // PyTorch copies the view's gradient into the view's window of the base's
            // gradient: `copy_` refuses a window with internal overlap that is certain (a
            // stride 0 on a dim of size > 1: `has_internal_overlap` is `Yes`; an `unfold`
            // window is "too hard" and passes)
            Some(_)
                if self
                    .view
                    .sizes
                    .iter()
                    .zip(&self.view.strides)
                    .any(|(&n, &s)| s == 0 && n > 1) =>
            {
                return Err(crate::error::Error::runtime(
                    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.",
                ));
            }
            Some(r) => {
                let r = if r.size() != &self.view.sizes[..] {
                    sum_to(&r, &self.view.sizes)?
                } else {
                    r
                };
                r.try_to_vec::<f64>()?
            }
            None => vec![0.0; self.view.sizes.iter().product()],
        };
        let mut k = 0;
        for_each(&self.view, |i| {
            buf[i] = r0[k];
            k += 1;
        });
        let mut out = vec![Some(read(&buf, &self.base, dtype)?)];
        out.extend(res.into_iter().skip(1));
        Ok(out)
    }
    fn release(&self) {
        self.f.release();
    }
}

/// Records a single-output view op by its node name.
pub(crate) fn view(name: &'static str, out: Tensor, x: &Tensor) -> Result<Tensor> {
    if x.variable().is_none() {
        return Ok(out);
    }
    let input = Geometry::of(x);
    super::super::record::record_view(out, x, |o| {
        super::super::record::node(StridedViewBackward {
            name,
            input,
            outputs: vec![Geometry::of(o)],
        })
    })
}

/// Records a multi-output view op (`split`, `chunk`, `unbind`).
pub(crate) fn views(name: &'static str, outs: Vec<Tensor>, x: &Tensor) -> Result<Vec<Tensor>> {
    let input = Geometry::of(x);
    super::super::record::record_view_multi(outs, x, |os| {
        super::super::record::node(StridedViewBackward {
            name,
            input,
            outputs: os.iter().map(Geometry::of).collect(),
        })
    })
}

/// The backward of a multi-output view op whose input overlaps (an expanded leaf): output
/// `o`'s element `k` is the input's logical element `maps[o][k]`; the gradients of all
/// outputs are summed there (storage aliasing plays no part, as in PyTorch, whose view
/// backwards work on the logical layout).
pub(crate) struct PiecesBackward {
    pub name: &'static str,
    pub sizes: Vec<usize>,
    pub maps: Vec<Vec<usize>>,
}

impl Formula for PiecesBackward {
    fn name(&self) -> &str {
        self.name
    }
    fn apply(&self, grads: &[Option<Tensor>], _: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
        let dtype = grads_dtype(grads);
        let mut buf = vec![0f64; self.sizes.iter().product()];
        for (map, g) in self.maps.iter().zip(grads) {
            if let Some(g) = g {
                for (k, v) in g.try_to_vec::<f64>()?.into_iter().enumerate() {
                    buf[map[k]] += v;
                }
            }
        }
        Ok(vec![Some(
            Tensor::from_vec(buf, &self.sizes[..])?.to(dtype)?,
        )])
    }
}

/// Records `split` / `split_with_sizes` / `chunk` (consecutive `narrow`s of `lengths` along
/// dim `d`, given as `geo`; `None` when the op returned another op's recorded result): as
/// [`views`], exact also when `x` overlaps (an expanded leaf).
pub(crate) fn pieces(
    name: &'static str,
    outs: Vec<Tensor>,
    x: &Tensor,
    geo: Option<(usize, Vec<usize>)>,
) -> Result<Vec<Tensor>> {
    let Some((d, lengths)) = geo else {
        return Ok(outs);
    };
    if x.variable().is_none() || !overlapping(&Geometry::of(x)) {
        return views(name, outs, x);
    }
    let sizes = x.size().to_vec();
    let ids = super::index::ids_like(x, 0)?;
    let mut maps = Vec::with_capacity(lengths.len());
    let mut start = 0usize;
    for &len in &lengths {
        let piece = ids.narrow(d as i64, start as i64, len as i64)?;
        maps.push(
            piece
                .try_to_vec::<i64>()?
                .into_iter()
                .map(|v| v as usize)
                .collect(),
        );
        start += len;
    }
    super::super::record::record_view_multi(outs, x, |_| {
        super::super::record::node(PiecesBackward { name, sizes, maps })
    })
}

/// `reshape`: `ViewBackward0` when it returned a view of `x`, else `UnsafeViewBackward0`.
pub(crate) fn reshape(out: Tensor, x: &Tensor) -> Result<Tensor> {
    if out.shares_storage(x) {
        let name = if x.is_contiguous() {
            "ViewBackward0"
        } else {
            "ReshapeAliasBackward0"
        };
        return view(name, out, x);
    }
    let sizes = x.size().to_vec();
    super::super::record::record(out, &[x], || {
        super::super::record::node(ReshapeBackward {
            name: "UnsafeViewBackward0",
            sizes,
        })
    })
}

/// `_unsafe_view(x, shape)` (`UnsafeViewBackward0`): `out` is `x` reshaped (sharing its
/// storage, but not a view for autograd, as PyTorch's `_unsafe_view` after `addmm` in
/// `linear`); the gradient is reshaped back.
pub(crate) fn unsafe_view(out: Tensor, x: &Tensor) -> Result<Tensor> {
    let sizes = x.size().to_vec();
    super::super::record::record(out, &[x], || {
        super::super::record::node(ReshapeBackward {
            name: "UnsafeViewBackward0",
            sizes,
        })
    })
}

/// `clone()` / a copying `contiguous()` (`CloneBackward0`), `to(dtype)` (`ToCopyBackward0`):
/// the gradient passes through (cast back by the engine).
pub(crate) fn copy_like(name: &'static str, out: Tensor, x: &Tensor) -> Result<Tensor> {
    super::super::record::record(out, &[x], || {
        super::super::record::node(super::pointwise::lam(name, |g, _| {
            Ok(vec![Some(g.alias())])
        }))
    })
}

/// `x[...]` (nothing applied): a new tensor object (`AliasBackward0`) rather than `x` itself.
pub(crate) fn alias_if_same(out: Tensor, x: &Tensor) -> Result<Tensor> {
    match (out.variable(), x.variable()) {
        (Some(a), Some(b)) if std::ptr::eq(a, b) => {
            view_replay("AliasBackward0", out.detached(), x, |ids| Ok(ids.alias()))
        }
        _ => Ok(out),
    }
}

/// Whether two elements of `g` share a storage element (an expanded or overlapping layout).
fn overlapping(g: &Geometry) -> bool {
    let mut dims: Vec<(usize, usize)> = g
        .sizes
        .iter()
        .zip(&g.strides)
        .filter(|(n, _)| **n > 1)
        .map(|(&n, &s)| (s, n))
        .collect();
    dims.sort_unstable();
    let mut extent = 1usize;
    for (s, n) in dims {
        if s < extent {
            return true;
        }
        extent = s * (n - 1) + 1 + (extent - 1);
        extent = extent.max(s * n);
    }
    false
}

/// As [`view`], exact also when `x` itself overlaps (an expanded leaf): the gradient then
/// follows the op's logical mapping, found by running `replay` (the op) on element ids.
pub(crate) fn view_replay(
    name: &'static str,
    out: Tensor,
    x: &Tensor,
    replay: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    if x.variable().is_none() {
        return Ok(out);
    }
    if !overlapping(&Geometry::of(x)) {
        return view(name, out, x);
    }
    super::super::record::record_view(out, x, |_| {
        super::index::build(name, &[x], |ids| replay(&ids[0]))
    })
}

/// `reshape` as [`reshape`], exact for an overlapping `x` (see [`view_replay`]).
pub(crate) fn reshape_replay(
    out: Tensor,
    x: &Tensor,
    replay: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    if x.variable().is_none() {
        return Ok(out);
    }
    if out.shares_storage(x) && overlapping(&Geometry::of(x)) {
        let name = if x.is_contiguous() {
            "ViewBackward0"
        } else {
            "ReshapeAliasBackward0"
        };
        return view_replay(name, out, x, replay);
    }
    reshape(out, x)
}
