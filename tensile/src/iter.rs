//! The pointwise engine's layout half, modelled on PyTorch's `TensorIterator::build`.
//!
//! Every pointwise op (unary, binary, `where`, copies, casts, in-place variants) goes through
//! [`TensorIter`]: it checks memory overlap, folds the broadcast shape, checks an existing
//! output's shape, recovers the inputs' dim order to choose the output strides exactly as
//! PyTorch does, then turns the operands into a coalesced [`Loop`] for the kernels. The type
//! rules are the caller's (each op family has its own), applied between [`TensorIter::new`]
//! and [`TensorIter::finish`] so errors come in PyTorch's order: overlap, broadcast, output
//! shape, dtype.

use crate::dtype::{DType, ResultTypeState};
use crate::error::{Error, Result, fmt_list};
use crate::kernels::loops::Loop;
use crate::layout;
use crate::storage::{Guard, lock_all};
use crate::tensor::{Dims, Tensor};
use smallvec::SmallVec;

/// An op's operands after shape checks, before the output exists.
pub(crate) struct TensorIter<'a> {
    out: Option<&'a Tensor>,
    inputs: SmallVec<[&'a Tensor; 3]>,
    shape: Dims,
    /// Output dims from fastest to slowest.
    perm: Dims,
    /// Strides for a new output, when the op allocates one.
    out_strides: Dims,
}

/// Broadcast strides of `t` against `shape` (right-aligned; missing or stretched dims → 0).
fn broadcast_strides(t: &Tensor, shape: &[usize]) -> Dims {
    let n = shape.len();
    let k = t.dim();
    let mut st: Dims = smallvec::smallvec![0; n];
    for i in 0..k {
        let d = n - k + i;
        st[d] = if t.sizes[i] == 1 && shape[d] != 1 {
            0
        } else {
            t.strides[i]
        };
    }
    st
}

/// Memory-overlap checks for a written-to tensor (`MemoryOverlap.cpp`).
pub(crate) fn check_overlap(out: &Tensor, inputs: &[&Tensor]) -> Result<()> {
    let nod = out.is_non_overlapping_and_dense();
    if !nod
        && out
            .sizes
            .iter()
            .zip(out.strides.iter())
            .any(|(&s, &st)| s > 1 && st == 0)
    {
        return Err(Error::runtime(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.",
        ));
    }
    for inp in inputs {
        if !out.shares_storage(inp) || out.numel() == 0 || inp.numel() == 0 {
            continue;
        }
        if !nod || !inp.is_non_overlapping_and_dense() {
            continue;
        }
        let (a0, a1) = (
            out.data_ptr(),
            out.data_ptr() + out.numel() * out.element_size(),
        );
        let (b0, b1) = (
            inp.data_ptr(),
            inp.data_ptr() + inp.numel() * inp.element_size(),
        );
        let full = a0 == b0 && a1 == b1 && out.strides == inp.strides;
        if !full && a0 < b1 && b0 < a1 {
            return Err(Error::runtime(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
            ));
        }
    }
    Ok(())
}

/// `reorder_dimensions`: the output dims from fastest to slowest, as recovered from the
/// operands' broadcast strides (the first operand able to decide a comparison decides it).
pub(crate) fn reorder_dims(shape: &[usize], op_strides: &[Dims]) -> Dims {
    let n = shape.len();
    let mut perm: Dims = (0..n).rev().collect();
    let should_swap = |d0: usize, d1: usize| -> i32 {
        for st in op_strides {
            let (s0, s1) = (st[d0], st[d1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 < s1 {
                return -1;
            }
            if s0 > s1 {
                return 1;
            }
            if shape[d0] > shape[d1] {
                return 1;
            }
        }
        0
    };
    for i in 1..n {
        let mut cur = i;
        for prev in (0..i).rev() {
            let c = should_swap(perm[prev], perm[cur]);
            if c > 0 {
                perm.swap(prev, cur);
                cur = prev;
            } else if c < 0 {
                break;
            }
        }
    }
    perm
}

/// Output strides from a permutation (`allocate_or_resize_outputs`).
fn strides_from_perm(shape: &[usize], perm: &[usize]) -> Dims {
    let n = shape.len();
    if perm.iter().copied().eq((0..n).rev()) {
        return layout::contiguous_strides(shape).into();
    }
    let mut st: Dims = smallvec::smallvec![0; n];
    let mut acc = 1usize;
    for &d in perm {
        st[d] = acc;
        acc *= shape[d];
    }
    st
}

impl<'a> TensorIter<'a> {
    /// Steps 1–3 of `build()`: overlap (when `out` is written in place), broadcast shape
    /// (an existing `out` takes part first, as it can't be resized), output-shape check,
    /// then the layout of a new output.
    pub(crate) fn new(out: Option<&'a Tensor>, inputs: &[&'a Tensor]) -> Result<TensorIter<'a>> {
        Self::build(out, false, inputs)
    }

    /// As [`TensorIter::new`] for an `out=` tensor: `out` does not take part in the broadcast
    /// shape; when its shape differs it is not used (the caller replaces it with the new
    /// output, PyTorch's resize) and a warning is emitted if it had elements.
    pub(crate) fn new_out(out: &'a Tensor, inputs: &[&'a Tensor]) -> Result<TensorIter<'a>> {
        Self::build(Some(out), true, inputs)
    }

    fn build(
        mut out: Option<&'a Tensor>,
        resizable: bool,
        inputs: &[&'a Tensor],
    ) -> Result<TensorIter<'a>> {
        if let Some(o) = out {
            check_overlap(o, inputs)?;
        }
        let fold_out = if resizable { None } else { out };
        let shape = broadcast_shape(
            fold_out
                .iter()
                .map(|o| &o.sizes[..])
                .chain(inputs.iter().map(|t| &t.sizes[..])),
        )?;
        if resizable
            && let Some(o) = out
            && o.sizes[..] != shape[..]
        {
            if o.numel() > 0 {
                crate::warnings::warn(&format!(
                    "An output with one or more elements was resized since it had shape {}, which does not match the required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                    fmt_list(&o.sizes),
                    fmt_list(&shape)
                ));
            }
            out = None;
        }
        if let Some(o) = out
            && o.sizes[..] != shape[..]
        {
            return Err(Error::runtime(format!(
                "output with shape {} doesn't match the broadcast shape {}",
                fmt_list(&o.sizes),
                fmt_list(&shape)
            )));
        }
        // Fast setup: a new output over same-shape contiguous inputs is contiguous, and the
        // dim order needs no search.
        if out.is_none()
            && inputs
                .iter()
                .all(|t| t.sizes[..] == shape[..] && t.is_contiguous())
        {
            let perm: Dims = (0..shape.len()).rev().collect();
            let out_strides = contiguous_dims(&shape);
            return Ok(TensorIter {
                out,
                inputs: inputs.iter().copied().collect(),
                shape,
                perm,
                out_strides,
            });
        }
        let mut op_strides: SmallVec<[Dims; 4]> = SmallVec::new();
        if let Some(o) = out {
            op_strides.push(o.strides.clone());
        }
        op_strides.extend(inputs.iter().map(|t| broadcast_strides(t, &shape)));
        let perm = reorder_dims(&shape, &op_strides);
        let out_strides = if out.is_some() {
            Dims::new()
        } else {
            Self::fast_strides(&shape, inputs).unwrap_or_else(|| strides_from_perm(&shape, &perm))
        };
        Ok(TensorIter {
            out,
            inputs: inputs.iter().copied().collect(),
            shape,
            perm,
            out_strides,
        })
    }

    /// `compute_fast_setup_type`: same-shape operands that are all contiguous, all
    /// channels-last, or all dense with identical strides give their layout to the output.
    fn fast_strides(shape: &[usize], inputs: &[&Tensor]) -> Option<Dims> {
        if inputs.iter().any(|t| t.sizes[..] != *shape) {
            return None;
        }
        if inputs.iter().all(|t| t.is_contiguous()) {
            return Some(contiguous_dims(shape));
        }
        if inputs.iter().all(|t| t.is_contiguous_channels_last()) {
            return Some(layout::channels_last_strides(shape).into());
        }
        let first = &inputs.first()?.strides;
        if inputs
            .iter()
            .all(|t| t.is_non_overlapping_and_dense() && t.strides == *first)
        {
            return Some(first.clone());
        }
        None
    }

    /// Whether a given `out=` tensor is written (its shape was right), rather than replaced.
    pub(crate) fn keeps_out(&self) -> bool {
        self.out.is_some()
    }

    /// The common dtype of the inputs by PyTorch's category rules (§6.2).
    pub(crate) fn common_dtype(&self) -> DType {
        let mut st = ResultTypeState::default();
        for t in &self.inputs {
            st.update(t.dtype, t.category());
        }
        st.result()
    }

    /// Allocates the output (of `out_dtype`, unless it was given) and returns it with the
    /// coalesced loop over `[output, inputs...]`. `N` must be `1 + inputs.len()`.
    pub(crate) fn finish<const N: usize>(self, out_dtype: DType) -> Result<(Tensor, Loop<N>)> {
        let out = match self.out {
            Some(o) => o.alias(),
            None => Tensor::try_alloc(&self.shape, &self.out_strides, out_dtype)?,
        };
        if self.inputs.len() + 1 != N {
            return Err(Error::runtime(format!(
                "internal error: {} inputs for a {N}-operand loop",
                self.inputs.len()
            )));
        }
        let lp = {
            let mut ops: SmallVec<[&Tensor; 4]> = SmallVec::new();
            ops.push(&out);
            ops.extend(self.inputs.iter().copied());
            make_loop::<N>(&self.shape, &self.perm, &ops)
        };
        Ok((out, lp))
    }
}

/// Locks the storages of a loop's operands (module docs of [`crate::storage`]): the first
/// `n_out` operands for writing, the rest for reading.
pub(crate) fn lock_operands<'t>(ops: &[&'t Tensor], n_out: usize) -> SmallVec<[Guard<'t>; 4]> {
    let w: SmallVec<[_; 4]> = ops[..n_out].iter().map(|t| &*t.storage).collect();
    let r: SmallVec<[_; 4]> = ops[n_out..].iter().map(|t| &*t.storage).collect();
    lock_all(&w, &r)
}

/// Row-major strides as inline dims.
fn contiguous_dims(sizes: &[usize]) -> Dims {
    let mut st: Dims = smallvec::smallvec![0; sizes.len()];
    let mut acc = 1usize;
    for d in (0..sizes.len()).rev() {
        st[d] = acc;
        acc *= sizes[d].max(1);
    }
    st
}

/// The broadcast shape of several shapes, folded left to right (`infer_size`), without
/// allocating for small ranks.
fn broadcast_shape<'s>(shapes: impl Iterator<Item = &'s [usize]>) -> Result<Dims> {
    let mut acc = Dims::new();
    for s in shapes {
        if s == &acc[..] {
            continue;
        }
        acc = crate::broadcast::infer_size_dims(&acc, s)?;
    }
    Ok(acc)
}

/// Builds the coalesced loop (`coalesce_dimensions`) for operands broadcast to `shape`,
/// iterating dims in `perm` order (fastest first).
pub(crate) fn make_loop<const N: usize>(
    shape: &[usize],
    perm: &[usize],
    ops: &[&Tensor],
) -> Loop<N> {
    let mut base = [std::ptr::null_mut(); N];
    let mut dtypes = [DType::Bool; N];
    for (k, t) in ops.iter().enumerate() {
        base[k] = t.storage.ptr().wrapping_add(t.offset * t.element_size());
        dtypes[k] = t.dtype;
    }
    // Fast path: every operand contiguous with the full shape is one flat run.
    if ops
        .iter()
        .all(|t| t.sizes[..] == *shape && t.is_contiguous())
    {
        let strides: [isize; N] = std::array::from_fn(|k| ops[k].element_size() as isize);
        return Loop {
            shape: smallvec::smallvec![layout::numel(shape)],
            strides: smallvec::smallvec![strides],
            base,
            dtypes,
        };
    }
    let bstrides: SmallVec<[Dims; 4]> = ops.iter().map(|t| broadcast_strides(t, shape)).collect();
    let mut dims: SmallVec<[(usize, [isize; N]); 6]> = perm
        .iter()
        .map(|&d| {
            let mut s = [0isize; N];
            for (k, t) in ops.iter().enumerate() {
                s[k] = (bstrides[k][d] * t.element_size()) as isize;
            }
            (shape[d], s)
        })
        .collect();
    // coalesce
    if dims.len() > 1 {
        let mut prev = 0usize;
        for d in 1..dims.len() {
            let (sp, stp) = dims[prev];
            let (sd, std) = dims[d];
            let can_merge = sp == 1 || sd == 1 || (0..N).all(|k| sp as isize * stp[k] == std[k]);
            if can_merge {
                if sp == 1 {
                    dims[prev].1 = std;
                }
                dims[prev].0 = sp * sd;
            } else {
                prev += 1;
                dims[prev] = dims[d];
            }
        }
        dims.truncate(prev + 1);
    }
    if dims.is_empty() {
        dims.push((1, [0; N]));
    }
    Loop {
        shape: dims.iter().map(|d| d.0).collect(),
        strides: dims.iter().map(|d| d.1).collect(),
        base,
        dtypes,
    }
}

/// Result type of operands given as tensors (wrapped scalars included).
pub(crate) fn result_type_of(ts: &[&Tensor]) -> DType {
    let mut st = ResultTypeState::default();
    for t in ts {
        st.update(t.dtype, t.category());
    }
    st.result()
}
