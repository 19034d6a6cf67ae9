//! The pointwise engine's layout half, modelled on PyTorch's `TensorIterator::build`.
//!
//! Every pointwise op (unary, binary, `where`, copies, casts, in-place variants) goes through
//! [`TensorIter`]: it checks memory overlap, folds the broadcast shape, checks an existing
//! output's shape, recovers the inputs' dim order to choose the output strides exactly as
//! PyTorch does, then turns the operands into a coalesced [`Loop`] for the kernels. The type
//! rules are the caller's (each op family has its own), applied between [`TensorIter::new`]
//! and [`TensorIter::plan`] so errors come in PyTorch's order: overlap, broadcast, output
//! shape, dtype.

use crate::dtype::{DType, ResultTypeState};
use crate::error::{Error, Result, fmt_list};
use crate::kernels::loops::{Loop, TypedKernel};
use crate::layout;
use crate::storage::{Guard, ReadGuard, Storage, lock_all};
use crate::tensor::{Dims, Tensor};
use smallvec::SmallVec;

mod dense;
pub(crate) use dense::{Slices, dense, dense_new};

/// An op's operands after shape checks, before the output exists.
pub(crate) struct TensorIter<'a> {
    out: Option<&'a Tensor>,
    inputs: SmallVec<[&'a Tensor; 3]>,
    shape: Dims,
    /// Output dims from fastest to slowest.
    perm: Dims,
    /// Strides for a new output, when the op allocates one.
    out_strides: Dims,
    /// How many leading inputs are TensorIterator operands (the others only feed the kernel).
    layout_k: usize,
}

/// Broadcast strides of `t` against `shape` (right-aligned; missing or stretched dims → 0).
fn broadcast_strides(t: &Tensor, shape: &[usize]) -> Dims {
    broadcast_strides_of(&t.sizes, &t.strides, shape)
}

/// [`broadcast_strides`] of a geometry given as sizes and strides.
fn broadcast_strides_of(sizes: &[usize], strides: &[usize], shape: &[usize]) -> Dims {
    let n = shape.len();
    let k = sizes.len();
    let mut st: Dims = smallvec::smallvec![0; n];
    for i in 0..k {
        let d = n - k + i;
        st[d] = if sizes[i] == 1 && shape[d] != 1 {
            0
        } else {
            strides[i]
        };
    }
    st
}

impl Tensor {
    /// The tensor's memory and geometry for a kernel ([`crate::kernels::Strided`]). The caller holds
    /// the storage lock (`crate::iter::lock_operands`) while the kernel runs.
    pub(crate) fn mem(&self) -> crate::kernels::Strided<'_> {
        crate::kernels::Strided {
            base: self.storage.ptr(),
            nbytes: self.storage.nbytes(),
            offset: self.offset,
            dtype: self.dtype,
            sizes: &self.sizes,
            strides: &self.strides,
        }
    }
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
        return contiguous_dims(shape);
    }
    let mut st: Dims = smallvec::smallvec![0; n];
    let mut acc = 1usize;
    for &d in perm {
        st[d] = acc;
        // saturating: only a shape with a 0 elsewhere (no elements) gets this far with a
        // product past usize::MAX, and its strides address nothing
        acc = acc.saturating_mul(shape[d]);
    }
    st
}

/// An input's geometry as the layout rules see it: sizes and strides (elements).
type Geom<'g> = (&'g [usize], &'g [usize]);

/// The layout half of `build()`: the dim order (fastest first) and, for a new output (`out`
/// is `None`), its strides (empty otherwise). The fast setup when it applies, else
/// `compute_strides`, `reorder_dimensions` and `allocate_or_resize_outputs`.
fn plan_layout(shape: &[usize], out: Option<&Tensor>, inputs: &[Geom<'_>]) -> (Dims, Dims) {
    // Fast setup: a new output over same-shape contiguous inputs is contiguous, and the
    // dim order needs no search. The same holds when the inputs broadcast but each has
    // exactly row-major strides (size-1 dims included) and no zero-size dim: their
    // non-zero broadcast strides never decrease from a later dim to an earlier one, and a
    // tie would need the later dim's output size to exceed the earlier's, which a tie
    // (size-1 dims between) can't have — so `reorder_dims` would swap nothing.
    if out.is_none()
        && (inputs
            .iter()
            .all(|&(sz, st)| sz == shape && layout::is_contiguous(sz, st))
            || inputs
                .iter()
                .all(|&(sz, st)| strictly_row_major_geom(sz, st)))
    {
        return ((0..shape.len()).rev().collect(), contiguous_dims(shape));
    }
    let mut op_strides: SmallVec<[Dims; 4]> = SmallVec::new();
    if let Some(o) = out {
        op_strides.push(o.strides.clone());
    }
    op_strides.extend(
        inputs
            .iter()
            .map(|&(sz, st)| broadcast_strides_of(sz, st, shape)),
    );
    let perm = reorder_dims(shape, &op_strides);
    let out_strides = if out.is_some() {
        Dims::new()
    } else {
        fast_strides(shape, inputs).unwrap_or_else(|| strides_from_perm(shape, &perm))
    };
    (perm, out_strides)
}

/// The strides TensorIterator gives a new output of `shape` over `inputs` (each broadcastable
/// to `shape`), without dtype promotion: the fast setup when it applies, else the dim order
/// recovered from the inputs' strides (advanced indexing's result layout).
pub(crate) fn new_output_strides(shape: &[usize], inputs: &[&Tensor]) -> Dims {
    let geoms: SmallVec<[Geom<'_>; 4]> = inputs
        .iter()
        .map(|t| (&t.sizes[..], &t.strides[..]))
        .collect();
    plan_layout(shape, None, &geoms).1
}

/// [`new_output_strides`] from operand geometries `(sizes, strides)` alone (no tensors): the
/// strides TensorIterator gives a new output of `shape` over such inputs.
pub(crate) fn output_strides_of(shape: &[usize], inputs: &[Geom<'_>]) -> Dims {
    plan_layout(shape, None, inputs).1
}

/// `compute_fast_setup_type`: same-shape operands that are all contiguous, all
/// channels-last, or all dense with identical strides give their layout to the output.
fn fast_strides(shape: &[usize], inputs: &[Geom<'_>]) -> Option<Dims> {
    if inputs.iter().any(|&(sz, _)| sz != shape) {
        return None;
    }
    if inputs.iter().all(|&(sz, st)| layout::is_contiguous(sz, st)) {
        return Some(contiguous_dims(shape));
    }
    if inputs
        .iter()
        .all(|&(sz, st)| layout::is_channels_last_contiguous(sz, st))
    {
        return Some(layout::channels_last_strides(shape).into());
    }
    let first = inputs.first()?.1;
    if inputs
        .iter()
        .all(|&(sz, st)| layout::is_non_overlapping_and_dense(sz, st) && st == first)
    {
        return Some(first.into());
    }
    None
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
        let geoms: SmallVec<[Geom<'_>; 3]> = inputs
            .iter()
            .map(|t| (&t.sizes[..], &t.strides[..]))
            .collect();
        let (perm, out_strides) = plan_layout(&shape, out, &geoms);
        Ok(TensorIter {
            out,
            inputs: inputs.iter().copied().collect(),
            shape,
            perm,
            out_strides,
            layout_k: inputs.len(),
        })
    }

    /// Lays a new output out from the first `k` inputs alone: PyTorch builds some ops with
    /// fewer operands than the kernel reads — `pow(Tensor, Scalar)` is a unary TensorIterator
    /// op whose number exponent is no operand, so a contiguous base gives a contiguous output
    /// (the fast setup) where `pow(Tensor, 0-d Tensor)` keeps the base's strides.
    pub(crate) fn layout_from_first(&mut self, k: usize) {
        self.layout_k = k.min(self.inputs.len());
        if self.out.is_some() {
            return;
        }
        let geoms: SmallVec<[Geom<'_>; 3]> = self.inputs[..self.layout_k]
            .iter()
            .map(|t| (&t.sizes[..], &t.strides[..]))
            .collect();
        let (perm, out_strides) = plan_layout(&self.shape, None, &geoms);
        self.perm = perm;
        self.out_strides = out_strides;
    }

    /// `compute_types`' input promotion on CPU, for ops that compute in one `common` dtype
    /// (`promote_inputs_to_common_dtype`): PyTorch replaces every input of another dtype by
    /// `input.to(common)` before choosing the layout, and that copy has preserve-format
    /// strides (the input's own when non-overlapping and dense, otherwise dense strides in
    /// the input's dim order). So a new output is laid out as if those inputs had those
    /// strides: a non-dense input converted to a dense one can turn on the fast setup
    /// (`(5,1)` strides `(1,5)` float64 with a `(5,1)` strides `(3,1)` bool gives `(1,1)`).
    /// The kernels still read the original inputs, converting on the fly. An existing output
    /// keeps its strides, so only a new one is re-planned.
    pub(crate) fn promote_inputs(&mut self, common: DType) {
        if self.out.is_some() || self.inputs.iter().all(|t| t.dtype == common) {
            return;
        }
        let converted: SmallVec<[Vec<usize>; 3]> = self.inputs[..self.layout_k]
            .iter()
            .map(|t| {
                if t.dtype == common {
                    t.strides.to_vec()
                } else {
                    layout::preserve_format_strides(&t.sizes, &t.strides)
                }
            })
            .collect();
        let geoms: SmallVec<[Geom<'_>; 3]> = self.inputs[..self.layout_k]
            .iter()
            .zip(&converted)
            .map(|(t, st)| (&t.sizes[..], &st[..]))
            .collect();
        let (perm, out_strides) = plan_layout(&self.shape, None, &geoms);
        self.perm = perm;
        self.out_strides = out_strides;
    }

    /// Whether a given `out=` tensor is written (its shape was right), rather than replaced.
    pub(crate) fn keeps_out(&self) -> bool {
        self.out.is_some()
    }

    /// Allocates the output (of `out_dtype`, unless it was given) and builds the coalesced
    /// loop over `[output, inputs...]`, ready for a kernel ([`Plan::run`]). `N` must be
    /// `1 + inputs.len()`. Errors: the allocator's; an internal error for a wrong `N`.
    pub(crate) fn plan<const N: usize>(self, out_dtype: DType) -> Result<Plan<'a, N>> {
        let given = self.out.is_some();
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
        Ok(Plan {
            out,
            given,
            inputs: self.inputs,
            lp,
        })
    }
}

/// A pointwise op ready to run ([`TensorIter::plan`]): its output (new, or the given one)
/// and the coalesced loop over `[output, inputs...]`. It keeps the operands the loop was built
/// from, so [`Plan::run`] locks exactly the storages the loop's pointers address: the
/// engine's safe entry point for a pointwise kernel, into a new output or in place / `out=`.
pub(crate) struct Plan<'a, const N: usize> {
    out: Tensor,
    /// The output was given (in place, `out=`): others may hold it, so it is write-locked. A
    /// new output is seen by nobody yet and needs no lock.
    given: bool,
    inputs: SmallVec<[&'a Tensor; 3]>,
    lp: Loop<N>,
}

impl<const N: usize> Plan<'_, N> {
    /// The output, once the kernel has run.
    pub(crate) fn into_out(self) -> Tensor {
        self.out
    }

    /// Locks the operands' storages: the inputs for reading, a given output for writing.
    fn lock(&self) -> SmallVec<[Guard<'_>; 4]> {
        if self.given {
            let mut ops: SmallVec<[&Tensor; 4]> = SmallVec::new();
            ops.push(&self.out);
            ops.extend(self.inputs.iter().copied());
            lock_operands(&ops, 1)
        } else {
            lock_operands(&self.inputs, 0)
        }
    }

    /// Runs `kernel` over the loop (in parallel above the grain), with the locks held, each
    /// operand converted to the kernel's dtype where they differ.
    pub(crate) fn run<F>(&self, kernel: &TypedKernel<F, N>)
    where
        F: Fn(&[*mut u8; N], &[isize; N], usize) + Sync,
    {
        let guard = self.lock();
        // SAFETY: the iterator checked the shapes (and, for a given output, the overlap
        // between it and the inputs) and built `lp` from `out` and `inputs`, whose geometries
        // lie inside their storages and which this value keeps alive; the locks are held; the
        // loop presents operand k as `kdtypes[k]`, the dtype the kernel was built for
        // (`TypedKernel::new`'s contract).
        unsafe { self.lp.run(kernel.kdtypes(), 1, kernel.kernel()) };
        drop(guard);
    }
}

impl Plan<'_, 2> {
    /// Copies the input into the output, cast to the output's dtype (`copy_`), with the locks
    /// held: as cache-blocked transposes when the two operands' fastest dims are swapped,
    /// otherwise over the loop.
    pub(crate) fn copy(&self) {
        let guard = self.lock();
        // SAFETY: as in `run`; the copy loop presents every operand as its own dtype.
        unsafe { crate::kernels::cast::copy_loop(&self.lp) };
        drop(guard);
    }
}

/// Copies `src` into `dst`, cast to `dst`'s dtype, without the checks of `copy_`: `src` must
/// broadcast to `dst`'s shape (an internal error otherwise, which panics: no caller's operands
/// produce it) and `dst` must not overlap `src` nor itself (a fresh tensor, or a view of one
/// without repeated elements). The loop follows `dst`'s dim order.
pub(crate) fn copy_unchecked(dst: &Tensor, src: &Tensor) {
    let ok = src.sizes.len() <= dst.sizes.len()
        && src
            .sizes
            .iter()
            .rev()
            .zip(dst.sizes.iter().rev())
            .all(|(&s, &d)| s == d || s == 1);
    assert!(
        ok,
        "internal error: copy of shape {:?} into shape {:?}",
        src.sizes, dst.sizes
    );
    let shape = &dst.sizes;
    let perm = reorder_dims(shape, std::slice::from_ref(&dst.strides));
    let lp = make_loop::<2>(shape, &perm, &[dst, src]);
    let guard = lock_operands(&[dst, src], 1);
    // SAFETY: `src` broadcasts to `dst`'s shape (checked above), so the loop built from their
    // geometries, which lie inside their storages, stays inside them; the locks are held; the
    // copy loop presents every operand as its own dtype.
    unsafe { crate::kernels::cast::copy_loop(&lp) };
    drop(guard);
}

/// The engine's safe entry point for a pointwise kernel into a new output: `inputs`
/// broadcast together (TensorIterator's shape and output layout), a fresh output of
/// `out_dtype`, the inputs' read locks held while `kernel` runs over the coalesced loop (in
/// parallel above the grain), each operand converted to the kernel's dtype where they differ.
/// `N` is `1 + inputs.len()`. Errors: the broadcast error of the inputs' shapes, the
/// allocator's error.
pub(crate) fn run_new<F, const N: usize>(
    inputs: &[&Tensor],
    out_dtype: DType,
    kernel: &TypedKernel<F, N>,
) -> Result<Tensor>
where
    F: Fn(&[*mut u8; N], &[isize; N], usize) + Sync,
{
    let p = TensorIter::new(None, inputs)?.plan::<N>(out_dtype)?;
    p.run(kernel);
    Ok(p.into_out())
}

/// Locks the storages of a loop's operands (module docs of [`crate::storage`]): the first
/// `n_out` operands for writing, the rest for reading.
pub(crate) fn lock_operands<'t>(ops: &[&'t Tensor], n_out: usize) -> SmallVec<[Guard<'t>; 4]> {
    let mut entries: SmallVec<[(&Storage, bool); 4]> = ops
        .iter()
        .enumerate()
        .map(|(k, t)| (&*t.storage, k < n_out))
        .collect();
    lock_all(&mut entries)
}

/// [`lock_operands`] for an op reading two inputs into a fresh output: read locks, in
/// address order, one when the inputs share a storage. Small ops' hot path.
pub(crate) fn lock_reads2<'t>(a: &'t Tensor, b: &'t Tensor) -> [Option<ReadGuard<'t>>; 2] {
    let (sa, sb) = (&*a.storage, &*b.storage);
    let (pa, pb) = (sa.ptr() as usize, sb.ptr() as usize);
    if pa == pb {
        [Some(sa.read()), None]
    } else if pa < pb {
        let g = sa.read();
        [Some(g), Some(sb.read())]
    } else {
        let g = sb.read();
        [Some(g), Some(sa.read())]
    }
}

/// Most dims a [`SmallPlan`] handles.
const SMALL_RANK: usize = 6;
/// Largest output a [`SmallPlan`] handles, in elements: below this the general setup costs
/// more than the arithmetic.
const SMALL_NUMEL: usize = 1 << 14;

/// The setup of a small op writing a new tensor, reduced to a few array operations.
///
/// Ops on tiny tensors (`(3,) + (3,)`) are dominated by setup: overlap checks, the dim-order
/// search, building a general [`Loop`], dynamic kernel calls. When every input has exactly
/// row-major strides and no zero-size dim, the new output is row-major (see the fast setup in
/// [`TensorIter::build`]), so the plan only needs the broadcast shape and a coalesced loop
/// with element strides; kernels run it monomorphically ([`crate::kernels::loops::run_small`]).
/// The plan keeps the inputs it was built from, so [`SmallPlan::run_new`] reads exactly the
/// memory it planned for.
pub(crate) struct SmallPlan<'a, const N: usize> {
    /// Whether [`SmallPlan::build`] succeeded (the rest is meaningless otherwise).
    built: bool,
    /// The inputs, as operands 1.. (operand 0, the output, is made by `run_new`).
    inputs: [Option<&'a Tensor>; N],
    /// The output's rank and sizes (broadcast shape).
    nd: usize,
    shape: [usize; SMALL_RANK],
    /// The coalesced loop, fastest dim first: sizes and element strides (output first).
    lnd: usize,
    lsizes: [usize; SMALL_RANK],
    lstrides: [[isize; N]; SMALL_RANK],
}

impl<'a, const N: usize> SmallPlan<'a, N> {
    /// An empty plan, filled by [`SmallPlan::build`] (in place: a plan is a few hundred
    /// bytes, and small ops are sensitive to copying it around).
    pub(crate) fn empty() -> SmallPlan<'a, N> {
        SmallPlan {
            built: false,
            inputs: [None; N],
            nd: 0,
            shape: [1; SMALL_RANK],
            lnd: 0,
            lsizes: [1; SMALL_RANK],
            lstrides: [[0; N]; SMALL_RANK],
        }
    }

    /// Runs `kernel` over the plan into a new row-major output of the kernel's output dtype,
    /// with the inputs' read locks held: sequential, monomorphic, no conversions. Errors: the
    /// allocator's; an internal error when the plan was not built or an input's dtype is not
    /// the kernel's (the small path takes operands already in the compute dtype).
    #[inline]
    pub(crate) fn run_new<F>(&self, kernel: &TypedKernel<F, N>) -> Result<Tensor>
    where
        F: Fn(&[*mut u8; N], &[isize; N], usize) + Sync,
    {
        let kd = kernel.kdtypes();
        let planned =
            self.built && (1..N).all(|k| matches!(self.inputs[k], Some(t) if t.dtype == kd[k]));
        if !planned {
            return Err(Error::runtime(
                "internal error: a small plan run with other operands than planned",
            ));
        }
        let out = Tensor::try_alloc_contiguous(&self.shape[..self.nd], kd[0])?;
        let (_reads2, _reads);
        if let (3, Some(a), Some(b)) = (N, self.inputs[1], self.inputs.get(2).copied().flatten()) {
            _reads2 = lock_reads2(a, b);
        } else {
            let ins: SmallVec<[&Tensor; 3]> = self.inputs[1..].iter().flatten().copied().collect();
            _reads = lock_operands(&ins, 0);
        }
        let base: [*mut u8; N] = std::array::from_fn(|k| match self.inputs[k] {
            Some(t) if k > 0 => t.elem_ptr(),
            _ => out.elem_ptr(),
        });
        let itemsize: [usize; N] = std::array::from_fn(|k| kd[k].itemsize());
        let f = kernel.kernel();
        // SAFETY: `build` derived the plan's sizes and element strides from these inputs'
        // own (strictly row-major, inside their storages) and from the fresh row-major
        // output's; the input locks are held and the output is new; the operands' dtypes are
        // the kernel's (checked above), so its pointer types are right (`TypedKernel::new`).
        unsafe {
            crate::kernels::loops::run_small(
                &self.lsizes[..self.lnd],
                &self.lstrides[..self.lnd],
                base,
                itemsize,
                |p, s, n| f(p, s, n),
            )
        };
        Ok(out)
    }

    /// Plans a new output over `inputs` (`N - 1` of them). False when the op is not small, an
    /// input is not strictly row-major, or the shapes don't broadcast (the general path then
    /// reports the error); the plan's contents are then meaningless.
    #[inline]
    pub(crate) fn build(&mut self, inputs: &[&'a Tensor]) -> bool {
        self.built = false;
        if inputs.len() + 1 != N {
            return false;
        }
        for (slot, &t) in self.inputs[1..].iter_mut().zip(inputs) {
            *slot = Some(t);
        }
        if !inputs.iter().all(|t| strictly_row_major(t)) {
            return false;
        }
        // Same shapes (the common case): one flat run.
        let Some(first) = inputs.first().map(|t| &t.sizes) else {
            return false;
        };
        if first.len() <= SMALL_RANK && inputs.iter().all(|t| t.sizes == *first) {
            let numel: usize = first.iter().product();
            if numel == 0 || numel > SMALL_NUMEL {
                return false;
            }
            self.nd = first.len();
            self.shape[..self.nd].copy_from_slice(first);
            self.lnd = 1;
            self.lsizes[0] = numel;
            self.lstrides[0] = [1; N];
            self.built = true;
            return true;
        }
        let nd = inputs.iter().map(|t| t.sizes.len()).max().unwrap_or(0);
        if nd > SMALL_RANK {
            return false;
        }
        let shape = &mut self.shape;
        for t in inputs {
            let off = nd - t.sizes.len();
            for (i, &s) in t.sizes.iter().enumerate() {
                let o = &mut shape[off + i];
                if *o == 1 {
                    *o = s;
                } else if s != 1 && s != *o {
                    return false;
                }
            }
        }
        let numel: usize = shape[..nd].iter().product();
        if numel == 0 || numel > SMALL_NUMEL {
            return false;
        }
        self.nd = nd;
        let mut out_stride = 1isize;
        for d in (0..nd).rev() {
            let size = self.shape[d];
            if size == 1 {
                continue;
            }
            let mut st = [0isize; N];
            st[0] = out_stride;
            for (k, t) in inputs.iter().enumerate() {
                let off = nd - t.sizes.len();
                if d >= off && t.sizes[d - off] == size {
                    st[k + 1] = t.strides[d - off] as isize;
                }
            }
            out_stride *= size as isize;
            if self.lnd > 0 {
                let p = self.lnd - 1;
                let (ps, pst) = (self.lsizes[p], self.lstrides[p]);
                if (0..N).all(|k| ps as isize * pst[k] == st[k]) {
                    self.lsizes[p] *= size;
                    continue;
                }
            }
            self.lsizes[self.lnd] = size;
            self.lstrides[self.lnd] = st;
            self.lnd += 1;
        }
        if self.lnd == 0 {
            self.lnd = 1; // one element: a run of 1 with any strides
        }
        self.built = true;
        true
    }
}

/// Whether `t` has exactly row-major strides, size-1 dims included, and no zero-size dim.
fn strictly_row_major(t: &Tensor) -> bool {
    strictly_row_major_geom(&t.sizes, &t.strides)
}

/// [`strictly_row_major`] of a geometry given as sizes and strides.
fn strictly_row_major_geom(sizes: &[usize], strides: &[usize]) -> bool {
    let mut acc = 1usize;
    for d in (0..sizes.len()).rev() {
        if sizes[d] == 0 || strides[d] != acc {
            return false;
        }
        acc = acc.saturating_mul(sizes[d]);
    }
    true
}

/// Row-major strides as inline dims. Saturating: for a broadcast shape whose size overflows,
/// the output allocation (`Tensor::try_alloc`, which checks the sizes first) refuses it with
/// PyTorch's `Storage size calculation overflowed with sizes=[…]`.
fn contiguous_dims(sizes: &[usize]) -> Dims {
    let mut st: Dims = smallvec::smallvec![0; sizes.len()];
    let mut acc = 1usize;
    for d in (0..sizes.len()).rev() {
        st[d] = acc;
        acc = acc.saturating_mul(sizes[d].max(1));
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
        // wrapping: an empty tensor's offset is never dereferenced and may be anything
        base[k] = t
            .storage
            .ptr()
            .wrapping_add(t.offset.wrapping_mul(t.element_size()));
        dtypes[k] = t.dtype;
    }
    // Nothing to visit: one empty run. (The strides of an empty tensor are unchecked and may
    // overflow as byte counts: PyTorch's zeros(2^62, 0, 8) has strides (8, 8, 1).)
    if shape.contains(&0) {
        return Loop {
            shape: smallvec::smallvec![0],
            strides: smallvec::smallvec![[0isize; N]],
            base,
            dtypes,
        };
    }
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
            // A size-1 dim's stride is never stepped (and may be anything, e.g. from
            // `as_strided`); every other stride times (size - 1) lies inside the storage, so
            // the byte count fits.
            if shape[d] > 1 {
                for (k, t) in ops.iter().enumerate() {
                    s[k] = (bstrides[k][d] * t.element_size()) as isize;
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape of rank ≤ 3 with sizes 1..=3.
    fn shapes() -> Vec<Vec<usize>> {
        let mut all = vec![vec![]];
        for r in 1..=3 {
            for code in 0..3usize.pow(r) {
                all.push((0..r).map(|i| code / 3usize.pow(i) % 3 + 1).collect());
            }
        }
        all
    }

    /// The claim the fast setups rest on: over inputs with exactly row-major strides (size-1
    /// dims included, no zero sizes), PyTorch's dim-order search swaps nothing, so a new
    /// output is row-major. Checked exhaustively against `reorder_dims` for pairs and
    /// triples of small shapes.
    #[test]
    fn row_major_inputs_give_row_major_outputs() {
        let all = shapes();
        let t = |s: &[usize]| Tensor::zeros_with(s, DType::Float32).unwrap();
        let mut checked = 0;
        for a in &all {
            for b in &all {
                for c in [&vec![], &vec![3], &vec![2, 1], a] {
                    let ts = [t(a), t(b), t(c)];
                    assert!(ts.iter().all(strictly_row_major));
                    let Ok(shape) = broadcast_shape(ts.iter().map(|x| &x.sizes[..])) else {
                        continue;
                    };
                    let st: Vec<Dims> = ts.iter().map(|x| broadcast_strides(x, &shape)).collect();
                    let perm = reorder_dims(&shape, &st);
                    assert_eq!(
                        strides_from_perm(&shape, &perm),
                        contiguous_dims(&shape),
                        "{a:?} {b:?} {c:?}"
                    );
                    let mut plan = SmallPlan::<4>::empty();
                    assert!(plan.build(&[&ts[0], &ts[1], &ts[2]]));
                    assert_eq!(&plan.shape[..plan.nd], &shape[..]);
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    /// Inputs of another dtype than the op's common dtype are laid out as their `.to(common)`
    /// copies (PyTorch 2.15: `torch.minimum(a, b)` below gives strides `(1, 1)`; `exp` of a
    /// non-dense transposed int32 tensor, and `x + y`, keep its dim order densely: `(1, 6)`).
    #[test]
    fn promoted_inputs_lay_out_as_their_converted_copies() {
        let a = Tensor::from_vec(vec![-3.0f64, -1.5, -1.0, -1.5, 1.0], [5])
            .unwrap()
            .as_strided_with([5, 1], [1, 5], 0)
            .unwrap();
        let b = Tensor::zeros_with([13], DType::Bool)
            .unwrap()
            .as_strided_with([5, 1], [3, 1], 0)
            .unwrap();
        assert_eq!(a.minimum(&b).unwrap().stride(), &[1, 1]);
        assert_eq!(b.minimum(&a).unwrap().stride(), &[1, 1]);
        assert_eq!(a.eq(&b).unwrap().stride(), &[1, 1]);
        // same dtypes: no conversion, the first input's dim order
        let b64 = b.to(DType::Float64).unwrap();
        let bs = Tensor::zeros_with([13], DType::Float64)
            .unwrap()
            .as_strided_with([5, 1], [3, 1], 0)
            .unwrap();
        assert_eq!(b64.stride(), &[1, 1]);
        assert_eq!(a.minimum(&bs).unwrap().stride(), &[1, 5]);
        // (6, 4) with strides (2, 12): not dense, converted to dense (1, 6)
        let x = Tensor::arange_with((0.0, 48.0, 1.0), DType::Int32)
            .unwrap()
            .as_strided_with([6, 4], [2, 12], 0)
            .unwrap();
        let y = Tensor::ones_with([6, 4], DType::Float32).unwrap();
        assert_eq!(x.exp().unwrap().stride(), &[1, 6]);
        assert_eq!(x.add(&y).unwrap().stride(), &[1, 6]);
        assert_eq!(y.add(&x).unwrap().stride(), &[4, 1]);
        assert_eq!(x.div(&x).unwrap().stride(), &[1, 6]);
    }
}
