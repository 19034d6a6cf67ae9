//! The reduction engine: one strided walker for every reduction (sum, prod, mean, amax/amin,
//! argmax/argmin, max/min with a dim, all/any, std/var, vector norms).
//!
//! A reduction is a [`Reducer`]: an accumulator with an identity, a `step` that folds in one
//! element (with its index within the reduced sub-space, for the arg-reductions), a `combine`
//! that merges two partial accumulators (order-free but for the indices they carry, which
//! break ties), and a `finish` that turns an accumulator into an output element.
//!
//! [`reduce`] splits the input's dims into output dims and reduced dims, drops size-1 dims,
//! sorts each group fastest-first and coalesces it (PyTorch's `reorder_dimensions` and
//! `coalesce_dimensions` for reductions), then picks one of two walks, as PyTorch does:
//!
//! * **inner**: the fastest input dim is reduced, so each output element folds contiguous runs
//!   (`Reducer::fold_slice`: independent lanes; float32/float64 sums use the explicit
//!   AVX-512/AVX2 kernels of `kernels/simd.rs`, blocks combined pairwise);
//! * **vertical**: the fastest input dim is an output dim, so a tile of neighbouring outputs
//!   is accumulated together, one input row at a time (`Reducer::fold_rows`, vectorised
//!   across outputs), through a cascade of levels of [`LEVEL_ROWS`] rows each, so long float
//!   reductions stay accurate (error growing with log(rows), like PyTorch's cascade sum).
//!
//! The generic folds are compiled once per instruction set (AVX-512, AVX2, baseline) and
//! picked at run time. Above a size that depends on the reducer's cost the work is split
//! across the intra-op pool's threads ([`crate::kernels::par`]): by outputs when there are
//! enough of them, otherwise by slices of the reduced range whose partial accumulators are
//! combined in order.

use crate::kernels::Strided;
use std::any::TypeId;
use std::marker::PhantomData;

use half::{bf16, f16};

use crate::element::Element;
use crate::kernels::loops::GRAIN;
use crate::kernels::par;
use crate::kernels::simd;

/// A reduction, written once for every dtype it supports.
pub(crate) trait Reducer: Sync {
    /// The input element type (the tensor's storage dtype).
    type In: Element;
    /// The accumulator.
    type Acc: Copy + Send + Sync;
    /// The element type of the value output.
    type Out: Element;
    /// The accumulator of an empty reduction.
    fn identity(&self) -> Self::Acc;
    /// Folds in `x`, whose row-major index within the reduced dims is `i`.
    fn step(&self, acc: Self::Acc, x: Self::In, i: i64) -> Self::Acc;
    /// Merges two partial accumulators. `a` usually covers elements before `b`'s, but the
    /// lanes of [`Reducer::fold_slice`] interleave, so the result must not depend on the
    /// order except through the indices the accumulators carry.
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// The value output for an accumulator.
    fn finish(&self, acc: Self::Acc) -> Self::Out;
    /// The index output for an accumulator (arg-reductions only).
    fn index(&self, _acc: Self::Acc) -> i64 {
        0
    }
    /// Rough cost of one `step` relative to a vectorised float add: the engine only splits
    /// a reduction over threads above `PAR_ELEMS / COST` elements (and never below two
    /// grains).
    const COST: usize = 4;
    /// Whether the vertical walk may regroup a column into a cascade of short runs (sums:
    /// better accuracy). Without it each output folds its rows strictly in order, as
    /// PyTorch's outer reductions do.
    const CASCADE: bool = true;
    /// Folds a contiguous run whose first element has index `i0`, the next `i0 + di`, ….
    /// The default keeps [`SLICE_LANES`] independent accumulators (element `k` goes to lane
    /// `k % SLICE_LANES`) so consecutive steps do not wait on each other, then combines them.
    #[inline(always)]
    fn fold_slice(&self, mut acc: Self::Acc, xs: &[Self::In], i0: i64, di: i64) -> Self::Acc {
        const L: usize = SLICE_LANES;
        let mut i = i0;
        if xs.len() >= 2 * L {
            let mut lanes = [self.identity(); L];
            let chunks = xs.chunks_exact(L);
            let rem = chunks.remainder();
            for c in chunks {
                for l in 0..L {
                    lanes[l] = self.step(lanes[l], c[l], i + l as i64 * di);
                }
                i += L as i64 * di;
            }
            for lane in lanes {
                acc = self.combine(acc, lane);
            }
            for &x in rem {
                acc = self.step(acc, x, i);
                i += di;
            }
            return acc;
        }
        for &x in xs {
            acc = self.step(acc, x, i);
            i += di;
        }
        acc
    }
    /// `accs[j] = step(accs[j], xs[j], i)`: one input row into a tile of outputs.
    #[inline(always)]
    fn fold_rows(&self, accs: &mut [Self::Acc], xs: &[Self::In], i: i64) {
        for (a, &x) in accs.iter_mut().zip(xs) {
            *a = self.step(*a, x, i);
        }
    }
    /// Four consecutive rows (indices `i[0..4]`) into a tile of outputs; the default folds
    /// them one by one, in order.
    #[inline(always)]
    fn fold_rows4(&self, accs: &mut [Self::Acc], xs: [&[Self::In]; 4], i: [i64; 4]) {
        for k in 0..4 {
            self.fold_rows(accs, xs[k], i[k]);
        }
    }
}

// ---------------------------------------------------------------------------------- engine

/// An output dim: size, input stride and output stride (elements).
#[derive(Clone, Copy, Debug)]
struct ODim {
    size: usize,
    st: isize,
    ost: usize,
}

/// A reduced dim: size, input stride, and index stride within the reduced sub-space.
#[derive(Clone, Copy, Debug)]
struct RDim {
    size: usize,
    st: isize,
    ist: i64,
}

/// Strides of 0 (broadcast dims) sort last: they are the worst dims to vectorise along.
fn key(st: isize) -> isize {
    if st == 0 { isize::MAX } else { st }
}

/// The walk of one reduction.
struct Plan {
    o: Vec<ODim>,
    r: Vec<RDim>,
    numel_out: usize,
    /// The inner walk (true) or the vertical walk (false).
    inner: bool,
    /// Vertical walk: outputs per tile along `o[0]`, and the number of tiles.
    tile: usize,
    ntiles: usize,
}

/// Bytes of accumulators per vertical tile.
const TILE_BYTES: usize = 8192;
/// Independent accumulators of the default [`Reducer::fold_slice`].
const SLICE_LANES: usize = 8;
/// Elements below which a reduction with `COST = 1` stays on the calling thread: four
/// grains. (It was 2^20 while a region woke sleeping rayon workers, about 27 µs; a team
/// region whose helpers spin costs a few µs, `kernels/team.rs`, and PyTorch splits a
/// reduction from one grain.)
const PAR_ELEMS: usize = 4 * GRAIN;
/// Rows (or partial sums) folded into one level of the vertical cascade before it is carried
/// into the next.
const LEVEL_ROWS: usize = 8;

impl Plan {
    fn new<A>(input: Strided, reduced: &[bool]) -> Plan {
        let nd = input.sizes.len();
        // output strides: contiguous over the kept dims; index strides: row-major over the
        // reduced dims.
        let mut ost = vec![0usize; nd];
        let mut ist = vec![0i64; nd];
        let (mut oacc, mut iacc) = (1usize, 1i64);
        for d in (0..nd).rev() {
            if reduced[d] {
                ist[d] = iacc;
                iacc *= input.sizes[d] as i64;
            } else {
                ost[d] = oacc;
                oacc *= input.sizes[d];
            }
        }
        let mut o = Vec::new();
        let mut r = Vec::new();
        for d in 0..nd {
            let size = input.sizes[d];
            if size == 1 {
                continue;
            }
            let st = input.strides[d] as isize;
            if reduced[d] {
                r.push(RDim {
                    size,
                    st,
                    ist: ist[d],
                });
            } else {
                o.push(ODim {
                    size,
                    st,
                    ost: ost[d],
                });
            }
        }
        o.sort_by_key(|d| (key(d.st), d.ost));
        r.sort_by_key(|d| (key(d.st), d.ist));
        // coalesce
        let mut oc: Vec<ODim> = Vec::with_capacity(o.len());
        for d in o {
            match oc.last_mut() {
                Some(p) if p.size as isize * p.st == d.st && p.size * p.ost == d.ost => {
                    p.size *= d.size
                }
                _ => oc.push(d),
            }
        }
        let mut rc: Vec<RDim> = Vec::with_capacity(r.len());
        for d in r {
            match rc.last_mut() {
                Some(p) if p.size as isize * p.st == d.st && p.size as i64 * p.ist == d.ist => {
                    p.size *= d.size
                }
                _ => rc.push(d),
            }
        }
        if rc.is_empty() {
            rc.push(RDim {
                size: 1,
                st: 0,
                ist: 0,
            });
        }
        let numel_out = oc.iter().map(|d| d.size).product();
        let inner = oc.is_empty() || (rc[0].size > 1 && key(rc[0].st) <= key(oc[0].st));
        let (mut tile, mut ntiles) = (1, 1);
        if !inner {
            let max_tile = (TILE_BYTES / std::mem::size_of::<A>().max(1)).max(16);
            let n0 = oc[0].size;
            ntiles = n0.div_ceil(max_tile);
            tile = n0.div_ceil(ntiles);
        }
        Plan {
            o: oc,
            r: rc,
            numel_out,
            inner,
            tile,
            ntiles,
        }
    }

    /// Work units: outputs (inner walk) or tiles of outputs (vertical walk).
    fn units(&self) -> usize {
        if self.inner {
            self.numel_out
        } else {
            self.ntiles * self.o[1..].iter().map(|d| d.size).product::<usize>()
        }
    }

    /// Input offset and output index of the output multi-index `u` over `dims`.
    fn locate(dims: &[ODim], mut u: usize) -> (isize, usize) {
        let (mut off, mut out) = (0isize, 0usize);
        for d in dims {
            let i = u % d.size;
            u /= d.size;
            off += i as isize * d.st;
            out += i * d.ost;
        }
        (off, out)
    }

    /// Runs the units `units` serially over the reduced dims `rd` (the plan's, or a slice of
    /// them), whose first element sits `roff` elements from `base` and has index `ioff`.
    ///
    /// # Safety
    /// `base` and every offset the plan reaches lie inside the input's storage, whose lock
    /// the caller holds.
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_units<R: Reducer>(
        &self,
        r: &R,
        base: *const R::In,
        units: std::ops::Range<usize>,
        rd: &[RDim],
        roff: isize,
        ioff: i64,
        emit: &mut dyn FnMut(usize, R::Acc),
    ) {
        let isa = isa();
        if self.inner {
            for u in units {
                let (off, out) = Self::locate(&self.o, u);
                // SAFETY: forwarded from the caller.
                let acc = unsafe {
                    fold_reduced_isa(isa, r, r.identity(), base.offset(off + roff), rd, ioff)
                };
                emit(out, acc);
            }
            return;
        }
        // SAFETY: forwarded from the caller; `isa` was detected on this CPU.
        unsafe { vertical_isa(isa, self, r, base, units, rd, roff, ioff, emit) }
    }
}

/// The vertical walk of [`Plan::run_units`], compiled for the instruction set `isa`.
///
/// # Safety
/// As [`Plan::run_units`]; `isa` is supported by the CPU.
#[allow(clippy::too_many_arguments)]
unsafe fn vertical_isa<R: Reducer>(
    isa: Isa,
    plan: &Plan,
    r: &R,
    base: *const R::In,
    units: std::ops::Range<usize>,
    rd: &[RDim],
    roff: isize,
    ioff: i64,
    emit: &mut dyn FnMut(usize, R::Acc),
) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn wide<R: Reducer>(
            plan: &Plan,
            r: &R,
            base: *const R::In,
            units: std::ops::Range<usize>,
            rd: &[RDim],
            roff: isize,
            ioff: i64,
            emit: &mut dyn FnMut(usize, R::Acc),
        ) {
            // SAFETY: forwarded from the caller.
            unsafe { vertical(plan, r, base, units, rd, roff, ioff, emit) }
        }
        #[target_feature(enable = "avx2")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn avx2<R: Reducer>(
            plan: &Plan,
            r: &R,
            base: *const R::In,
            units: std::ops::Range<usize>,
            rd: &[RDim],
            roff: isize,
            ioff: i64,
            emit: &mut dyn FnMut(usize, R::Acc),
        ) {
            // SAFETY: forwarded from the caller.
            unsafe { vertical(plan, r, base, units, rd, roff, ioff, emit) }
        }
        match isa {
            // SAFETY: the CPU has these features (`isa` was detected); the rest is forwarded.
            Isa::Avx512 => return unsafe { wide(plan, r, base, units, rd, roff, ioff, emit) },
            // SAFETY: as above.
            Isa::Avx2 => return unsafe { avx2(plan, r, base, units, rd, roff, ioff, emit) },
            Isa::Base => {}
        }
    }
    let _ = isa;
    // SAFETY: forwarded from the caller.
    unsafe { vertical(plan, r, base, units, rd, roff, ioff, emit) }
}

/// The vertical walk: tiles of neighbouring outputs, input rows folded through a [`Cascade`].
///
/// # Safety
/// As [`Plan::run_units`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn vertical<R: Reducer>(
    plan: &Plan,
    r: &R,
    base: *const R::In,
    units: std::ops::Range<usize>,
    rd: &[RDim],
    roff: isize,
    ioff: i64,
    emit: &mut dyn FnMut(usize, R::Acc),
) {
    let d0 = plan.o[0];
    let mut cascade = Cascade::<R::Acc>::default();
    for u in units {
        let t = u % plan.ntiles;
        let (off, out) = Plan::locate(&plan.o[1..], u / plan.ntiles);
        let c0 = t * plan.tile;
        let len = plan.tile.min(d0.size - c0);
        let p = base.wrapping_offset(off + roff + c0 as isize * d0.st);
        cascade.reset(len, r.identity());
        // contiguous rows are folded four at a time (LEVEL_ROWS is a multiple of 4, so a
        // group never straddles a carry of the cascade)
        let mut pending: [(*const R::In, i64); 4] = [(std::ptr::null(), 0); 4];
        let mut np = 0usize;
        for (roff2, i) in Offsets::new(rd) {
            let row = p.wrapping_offset(roff2);
            if d0.st == 1 {
                pending[np] = (row, i + ioff);
                np += 1;
                if np == 4 {
                    // SAFETY: each pending row is `len` contiguous elements of the input
                    // (caller's contract), read under the read lock, never written during
                    // the op.
                    let xs = pending.map(|(q, _)| unsafe { std::slice::from_raw_parts(q, len) });
                    r.fold_rows4(cascade.rows(), xs, pending.map(|(_, k)| k));
                    cascade.rows_done(r, 4);
                    np = 0;
                }
            } else {
                for (j, a) in cascade.rows().iter_mut().enumerate() {
                    // SAFETY: `len` elements of the input at stride d0.st from `row`
                    // (caller's contract), read-locked.
                    let x = unsafe { *row.offset(j as isize * d0.st) };
                    *a = r.step(*a, x, i + ioff);
                }
                cascade.row_done(r);
            }
        }
        for &(q, k) in &pending[..np] {
            // SAFETY: as above.
            let xs = unsafe { std::slice::from_raw_parts(q, len) };
            r.fold_rows(cascade.rows(), xs, k);
            cascade.row_done(r);
        }
        for (j, a) in cascade.finish(r).iter().enumerate() {
            emit(out + (c0 + j) * d0.ost, *a);
        }
    }
}

/// Levels of accumulator tiles for the vertical walk: rows fold into level 0; every
/// [`LEVEL_ROWS`] folds a level is combined into the next one up and cleared, so a long
/// column is summed as a tree of short runs (rounding error grows with log(rows), as with
/// PyTorch's cascade sum). Higher levels always hold earlier rows.
struct Cascade<A> {
    levels: Vec<Vec<A>>,
    counts: Vec<usize>,
}

impl<A> Default for Cascade<A> {
    fn default() -> Self {
        Cascade {
            levels: Vec::new(),
            counts: Vec::new(),
        }
    }
}

impl<A: Copy> Cascade<A> {
    /// Starts a tile of `len` outputs.
    fn reset(&mut self, len: usize, identity: A) {
        self.levels.truncate(1);
        if self.levels.is_empty() {
            self.levels.push(Vec::new());
        }
        self.levels[0].clear();
        self.levels[0].resize(len, identity);
        self.counts.clear();
        self.counts.push(0);
    }

    /// The level-0 tile the next row folds into.
    #[inline(always)]
    fn rows(&mut self) -> &mut [A] {
        &mut self.levels[0]
    }

    /// Counts a folded row and carries full levels upwards.
    #[inline(always)]
    fn row_done<R: Reducer<Acc = A>>(&mut self, r: &R) {
        self.rows_done(r, 1)
    }

    /// Counts `n` folded rows (`n` divides [`LEVEL_ROWS`], and level 0 holds a multiple of
    /// `n` rows) and carries full levels upwards.
    #[inline(always)]
    fn rows_done<R: Reducer<Acc = A>>(&mut self, r: &R, n: usize) {
        if !R::CASCADE {
            return; // one level: every row folds into it, in order
        }
        self.counts[0] += n;
        let mut k = 0;
        while self.counts[k] == LEVEL_ROWS {
            if k + 1 == self.levels.len() {
                let len = self.levels[0].len();
                self.levels.push(vec![r.identity(); len]);
                self.counts.push(0);
            }
            let (lo, hi) = self.levels.split_at_mut(k + 1);
            for (h, l) in hi[0].iter_mut().zip(lo[k].iter_mut()) {
                *h = r.combine(*h, *l);
                *l = r.identity();
            }
            self.counts[k] = 0;
            self.counts[k + 1] += 1;
            k += 1;
        }
    }

    /// The tile's accumulators: every level combined, earliest rows first.
    #[inline(always)]
    fn finish<R: Reducer<Acc = A>>(&mut self, r: &R) -> &[A] {
        let top = self.levels.len() - 1;
        for k in (0..top).rev() {
            let (lo, hi) = self.levels.split_at_mut(k + 1);
            // hi[..] holds the earlier rows: fold them down into level k
            for (l, h) in lo[k].iter_mut().zip(hi[0].iter()) {
                *l = r.combine(*h, *l);
            }
        }
        &self.levels[0]
    }
}

/// The offsets and indices of every element of the index space `dims` (fastest first), in
/// order: an iterator rather than a function taking a closure, so the walks that loop over it
/// stay one function and inline whole into their instruction-set wrappers (a closure is a
/// function of its own, which LLVM may leave uninlined and compiled for the baseline target).
struct Offsets<'a> {
    dims: &'a [RDim],
    idx: smallvec::SmallVec<[usize; 6]>,
    off: isize,
    ioff: i64,
    done: bool,
}

impl<'a> Offsets<'a> {
    #[inline(always)]
    fn new(dims: &'a [RDim]) -> Self {
        Offsets {
            dims,
            idx: smallvec::smallvec![0; dims.len()],
            off: 0,
            ioff: 0,
            done: false,
        }
    }
}

impl Iterator for Offsets<'_> {
    type Item = (isize, i64);
    #[inline(always)]
    fn next(&mut self) -> Option<(isize, i64)> {
        if self.done {
            return None;
        }
        let cur = (self.off, self.ioff);
        let mut d = 0;
        loop {
            let Some(dim) = self.dims.get(d) else {
                self.done = true;
                break;
            };
            self.idx[d] += 1;
            self.off += dim.st;
            self.ioff += dim.ist;
            if self.idx[d] < dim.size {
                break;
            }
            self.off -= dim.st * dim.size as isize;
            self.ioff -= dim.ist * dim.size as i64;
            self.idx[d] = 0;
            d += 1;
        }
        Some(cur)
    }
}

/// The widest vector instruction set the CPU offers, checked once per call of the engine.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Isa {
    Avx512,
    Avx2,
    Base,
}

fn isa() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        if simd::has_avx512() {
            return Isa::Avx512;
        }
        if simd::has_avx2() {
            return Isa::Avx2;
        }
    }
    Isa::Base
}

/// [`fold_reduced`] compiled for the instruction set `isa` (the generic body is inlined into
/// a function with that target feature, so the compiler may use its wider vectors).
///
/// # Safety
/// As [`fold_reduced`], and `isa` must be supported by the CPU (it comes from [`isa`]).
unsafe fn fold_reduced_isa<R: Reducer>(
    isa: Isa,
    r: &R,
    acc: R::Acc,
    p: *const R::In,
    rd: &[RDim],
    ioff: i64,
) -> R::Acc {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        unsafe fn wide<R: Reducer>(
            r: &R,
            acc: R::Acc,
            p: *const R::In,
            rd: &[RDim],
            ioff: i64,
        ) -> R::Acc {
            // SAFETY: forwarded from the caller.
            unsafe { fold_reduced(r, acc, p, rd, ioff) }
        }
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<R: Reducer>(
            r: &R,
            acc: R::Acc,
            p: *const R::In,
            rd: &[RDim],
            ioff: i64,
        ) -> R::Acc {
            // SAFETY: forwarded from the caller.
            unsafe { fold_reduced(r, acc, p, rd, ioff) }
        }
        match isa {
            // SAFETY: the CPU has these features (`isa` was detected); the rest is forwarded.
            Isa::Avx512 => return unsafe { wide(r, acc, p, rd, ioff) },
            // SAFETY: as above.
            Isa::Avx2 => return unsafe { avx2(r, acc, p, rd, ioff) },
            Isa::Base => {}
        }
    }
    let _ = isa;
    // SAFETY: forwarded from the caller.
    unsafe { fold_reduced(r, acc, p, rd, ioff) }
}

/// Folds every element of the reduced dims `rd` starting at `p` into `acc`.
///
/// # Safety
/// Every element reached lies inside the input's storage, whose lock the caller holds.
#[inline(always)]
unsafe fn fold_reduced<R: Reducer>(
    r: &R,
    mut acc: R::Acc,
    p: *const R::In,
    rd: &[RDim],
    ioff: i64,
) -> R::Acc {
    let run = rd[0];
    for (off, i) in Offsets::new(&rd[1..]) {
        let q = p.wrapping_offset(off);
        if run.st == 1 {
            // SAFETY: `run.size` contiguous input elements (caller's contract), read-locked.
            let xs = unsafe { std::slice::from_raw_parts(q, run.size) };
            acc = r.fold_slice(acc, xs, i + ioff, run.ist);
        } else {
            for k in 0..run.size {
                // SAFETY: as above, at stride run.st.
                let x = unsafe { *q.offset(k as isize * run.st) };
                acc = r.step(acc, x, i + ioff + k as i64 * run.ist);
            }
        }
    }
    acc
}

/// Reduces `input` over the dims flagged in `reduced`, writing `finish(acc)` into `values` and
/// `index(acc)` into `indices` (int64). Both outputs, when given, are fresh contiguous tensors
/// whose elements are the kept dims in order (with or without size-1 reduced dims). The op
/// holds the storage locks (write for the outputs, read for `input`).
pub(crate) fn reduce<R: Reducer>(
    r: &R,
    input: Strided,
    reduced: &[bool],
    values: Option<Strided>,
    indices: Option<Strided>,
) {
    debug_assert_eq!(input.dtype, R::In::DTYPE);
    let numel_out: usize = (0..input.sizes.len())
        .filter(|&d| !reduced[d])
        .map(|d| input.sizes[d])
        .product();
    if numel_out == 0 {
        return;
    }
    let numel_red: usize = (0..input.sizes.len())
        .filter(|&d| reduced[d])
        .map(|d| input.sizes[d])
        .product();
    let vptr = values.map(|t| {
        debug_assert!(t.is_contiguous() && t.dtype == R::Out::DTYPE && t.numel() == numel_out);
        t.typed::<R::Out>()
    });
    let iptr = indices.map(|t| {
        debug_assert!(
            t.is_contiguous() && t.dtype == crate::DType::Int64 && t.numel() == numel_out
        );
        t.typed::<i64>()
    });
    let emit = move |k: usize, acc: R::Acc| {
        // SAFETY: k < numel_out, both outputs hold numel_out contiguous elements of their
        // dtype, are write-locked, and each k is emitted by exactly one task.
        unsafe {
            if let Some(p) = vptr {
                *p.get().add(k) = r.finish(acc);
            }
            if let Some(p) = iptr {
                *p.get().add(k) = r.index(acc);
            }
        }
    };
    if numel_red == 0 {
        for k in 0..numel_out {
            emit(k, r.identity());
        }
        return;
    }
    let plan = Plan::new::<R::Acc>(input, reduced);
    let base = input.typed::<R::In>();
    let total = numel_out * numel_red;
    let units = plan.units();
    let threads = if total < (PAR_ELEMS / R::COST).max(2 * GRAIN) {
        1
    } else {
        par::threads()
    };
    if threads <= 1 {
        // SAFETY: the plan only reaches elements of `input` (its geometry lies inside its
        // storage); the read lock is held.
        unsafe {
            plan.run_units(r, base.get(), 0..units, &plan.r, 0, 0, &mut |k, a| {
                emit(k, a)
            })
        };
        return;
    }
    let max_tasks = (total / GRAIN).clamp(1, threads * 4);
    // the reduced dim to slice when there are too few outputs to share out
    let (split_k, split_size) = plan
        .r
        .iter()
        .enumerate()
        .map(|(k, d)| (k, d.size))
        .max_by_key(|&(_, s)| s)
        .unwrap_or((0, 1));
    if units >= 4 * threads || split_size < 2 {
        let tasks = max_tasks.min(units).max(1);
        let per = units.div_ceil(tasks);
        par::for_each_task(tasks, &|t| {
            let (a, b) = (t * per, ((t + 1) * per).min(units));
            if a < b {
                // SAFETY: as above; tasks emit disjoint outputs.
                unsafe {
                    plan.run_units(r, base.get(), a..b, &plan.r, 0, 0, &mut |k, acc| {
                        emit(k, acc)
                    })
                };
            }
        });
        return;
    }
    let tasks = max_tasks.min(split_size).max(2);
    let per = split_size.div_ceil(tasks);
    let partials: Vec<Vec<R::Acc>> = par::map_tasks(tasks, |t| {
        let (a, b) = (t * per, ((t + 1) * per).min(split_size));
        let mut part = vec![r.identity(); numel_out];
        if a < b {
            let mut rd = plan.r.clone();
            rd[split_k].size = b - a;
            let roff = a as isize * plan.r[split_k].st;
            let ioff = a as i64 * plan.r[split_k].ist;
            // SAFETY: as above, over a sub-range of the reduced dims.
            unsafe {
                plan.run_units(r, base.get(), 0..units, &rd, roff, ioff, &mut |k, acc| {
                    part[k] = acc
                })
            };
        }
        part
    });
    let mut it = partials.into_iter();
    let mut acc = it.next().unwrap_or_default();
    for part in it {
        for (a, b) in acc.iter_mut().zip(part) {
            *a = r.combine(*a, b);
        }
    }
    for (k, a) in acc.into_iter().enumerate() {
        emit(k, a);
    }
}

// ---------------------------------------------------------------------------- arithmetic

/// Accumulator arithmetic for sums and products.
pub(crate) trait AccNum: Copy + Send + Sync + 'static {
    const ZERO: Self;
    const ONE: Self;
    fn add(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn div_count(self, n: usize) -> Self;
    fn from_in<T: Element>(x: T) -> Self;
    fn to_out<O: Element>(self) -> O;
}

impl AccNum for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    #[inline(always)]
    fn add(self, b: f32) -> f32 {
        self + b
    }
    #[inline(always)]
    fn mul(self, b: f32) -> f32 {
        self * b
    }
    #[inline(always)]
    fn div_count(self, n: usize) -> f32 {
        self / n as f32
    }
    #[inline(always)]
    fn from_in<T: Element>(x: T) -> f32 {
        x.to_f64() as f32
    }
    #[inline(always)]
    fn to_out<O: Element>(self) -> O {
        O::from_f64(self as f64)
    }
}

impl AccNum for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    #[inline(always)]
    fn add(self, b: f64) -> f64 {
        self + b
    }
    #[inline(always)]
    fn mul(self, b: f64) -> f64 {
        self * b
    }
    #[inline(always)]
    fn div_count(self, n: usize) -> f64 {
        self / n as f64
    }
    #[inline(always)]
    fn from_in<T: Element>(x: T) -> f64 {
        x.to_f64()
    }
    #[inline(always)]
    fn to_out<O: Element>(self) -> O {
        O::from_f64(self)
    }
}

impl AccNum for i64 {
    const ZERO: i64 = 0;
    const ONE: i64 = 1;
    #[inline(always)]
    fn add(self, b: i64) -> i64 {
        self.wrapping_add(b)
    }
    #[inline(always)]
    fn mul(self, b: i64) -> i64 {
        self.wrapping_mul(b)
    }
    #[inline(always)]
    fn div_count(self, n: usize) -> i64 {
        if n == 0 {
            0
        } else {
            self.wrapping_div(n as i64)
        }
    }
    #[inline(always)]
    fn from_in<T: Element>(x: T) -> i64 {
        x.to_i64()
    }
    #[inline(always)]
    fn to_out<O: Element>(self) -> O {
        O::from_i64(self)
    }
}

macro_rules! half_acc {
    ($($t:ty),*) => {$(
        /// Products of half-precision values round to the type after every step, as
        /// PyTorch's `a * b` on `c10::Half` does.
        impl AccNum for $t {
            const ZERO: $t = <$t>::ZERO;
            const ONE: $t = <$t>::ONE;
            #[inline(always)]
            fn add(self, b: $t) -> $t { <$t as Element>::from_f64(self.to_f64() + b.to_f64()) }
            #[inline(always)]
            fn mul(self, b: $t) -> $t { <$t as Element>::from_f64(self.to_f64() * b.to_f64()) }
            #[inline(always)]
            fn div_count(self, n: usize) -> $t { <$t as Element>::from_f64(self.to_f64() / n as f64) }
            #[inline(always)]
            fn from_in<T: Element>(x: T) -> $t { <$t as Element>::from_f64(x.to_f64()) }
            #[inline(always)]
            fn to_out<O: Element>(self) -> O { O::from_f64(self.to_f64()) }
        }
    )*};
}
half_acc!(f16, bf16);

/// The accumulator and output types PyTorch uses for sums and products of each dtype:
/// integers and bool sum and multiply in int64 and return int64; float16 and bfloat16 sum in
/// float32 and multiply in their own type; float32 and float64 use themselves.
pub(crate) trait HasAcc: Element {
    type SumAcc: AccNum;
    type SumOut: Element;
    type ProdAcc: AccNum;
}

macro_rules! has_acc {
    ($($t:ty => $s:ty, $o:ty, $p:ty);*) => {$(
        impl HasAcc for $t { type SumAcc = $s; type SumOut = $o; type ProdAcc = $p; }
    )*};
}
has_acc!(bool => i64, i64, i64; u8 => i64, i64, i64; i8 => i64, i64, i64; i16 => i64, i64, i64;
    i32 => i64, i64, i64; i64 => i64, i64, i64; f16 => f32, f16, f16; bf16 => f32, bf16, bf16;
    f32 => f32, f32, f32; f64 => f64, f64, f64);

/// `xs` as a slice of `U` when `T` is `U`.
fn same<T: 'static, U: 'static>(xs: &[T]) -> Option<&[U]> {
    if TypeId::of::<T>() == TypeId::of::<U>() {
        // SAFETY: T and U are the same type, so the slice is reinterpreted as itself.
        Some(unsafe { std::slice::from_raw_parts(xs.as_ptr() as *const U, xs.len()) })
    } else {
        None
    }
}

/// `xs` as a mutable slice of `U` when `T` is `U`.
fn same_mut<T: 'static, U: 'static>(xs: &mut [T]) -> Option<&mut [U]> {
    if TypeId::of::<T>() == TypeId::of::<U>() {
        // SAFETY: T and U are the same type, so the slice is reinterpreted as itself.
        Some(unsafe { std::slice::from_raw_parts_mut(xs.as_mut_ptr() as *mut U, xs.len()) })
    } else {
        None
    }
}

/// Sum of a contiguous run: float32 and float64 take the explicitly vectorised kernels of
/// `kernels/simd.rs` (blocks combined pairwise, so the error grows with log(n), not n);
/// float16 and bfloat16 into float32 are converted a block at a time ([`half_sum`]) and summed
/// by the same float32 kernel, in the same order; integers (exact, so in any order) in one
/// loop, inlined into the caller so it takes the caller's instruction set.
#[inline(always)]
fn sum_slice<T: Element, A: AccNum>(xs: &[T]) -> A {
    if let (Some(v), true) = (same::<T, f32>(xs), TypeId::of::<A>() == TypeId::of::<f32>()) {
        return A::from_in(simd::sum_f32(v));
    }
    if let (Some(v), true) = (same::<T, f64>(xs), TypeId::of::<A>() == TypeId::of::<f64>()) {
        return A::from_in(simd::sum_f64(v));
    }
    if TypeId::of::<A>() == TypeId::of::<f32>()
        && let Some(s) = half_sum(xs)
    {
        return A::from_in(s);
    }
    // a plain fold: integer addition is associative, so the compiler splits it into as many
    // vector lanes as it likes (an explicit array of lanes made it gather across them)
    xs.iter().fold(A::ZERO, |s, &x| s.add(A::from_in(x)))
}

/// The float32 sum of a float16 or bfloat16 run (`None` for other types): `simd::sum_half`,
/// exactly `simd::sum_f32` of the run converted to float32.
fn half_sum<T: Element>(xs: &[T]) -> Option<f32> {
    if let Some(v) = same::<T, f16>(xs) {
        return Some(simd::sum_half(v));
    }
    same::<T, bf16>(xs).map(simd::sum_half)
}

// ---------------------------------------------------------------------------- reducers

/// `sum` (and `mean`, with a divisor): accumulates in `A`, writes `O`.
pub(crate) struct SumR<T, A, O> {
    /// Divide the sum by `div` (`mean`); a flag and a plain count rather than an
    /// `Option<usize>`, whose `None` leaves the payload uninitialised: valgrind reported the
    /// inlined `finish` branching on it (`logsumexp` of an empty tensor, issue 15).
    has_div: bool,
    div: usize,
    _t: PhantomData<(T, A, O)>,
}

impl<T, A, O> SumR<T, A, O> {
    pub(crate) fn new(div: Option<usize>) -> Self {
        SumR {
            has_div: div.is_some(),
            div: div.unwrap_or(0),
            _t: PhantomData,
        }
    }
}

impl<T: Element, A: AccNum, O: Element> Reducer for SumR<T, A, O> {
    type In = T;
    type Acc = A;
    type Out = O;
    const COST: usize = 1;
    #[inline(always)]
    fn identity(&self) -> A {
        A::ZERO
    }
    #[inline(always)]
    fn step(&self, acc: A, x: T, _i: i64) -> A {
        acc.add(A::from_in(x))
    }
    #[inline(always)]
    fn combine(&self, a: A, b: A) -> A {
        a.add(b)
    }
    #[inline(always)]
    fn finish(&self, acc: A) -> O {
        if self.has_div {
            acc.div_count(self.div).to_out()
        } else {
            acc.to_out()
        }
    }
    #[inline(always)]
    fn fold_slice(&self, acc: A, xs: &[T], _i0: i64, _di: i64) -> A {
        acc.add(sum_slice::<T, A>(xs))
    }
    #[inline(always)]
    fn fold_rows(&self, accs: &mut [A], xs: &[T], _i: i64) {
        if let (Some(x), Some(a)) = (same::<T, f32>(xs), same_mut::<A, f32>(accs)) {
            return simd::add_rows_f32(a, x);
        }
        if let (Some(x), Some(a)) = (same::<T, f64>(xs), same_mut::<A, f64>(accs)) {
            return simd::add_rows_f64(a, x);
        }
        for (a, &x) in accs.iter_mut().zip(xs) {
            *a = a.add(A::from_in(x));
        }
    }
    #[inline(always)]
    fn fold_rows4(&self, accs: &mut [A], xs: [&[T]; 4], i: [i64; 4]) {
        if TypeId::of::<A>() == TypeId::of::<T>() {
            let rows = xs.map(|x| same::<T, f32>(x));
            if let ([Some(x0), Some(x1), Some(x2), Some(x3)], Some(a)) =
                (rows, same_mut::<A, f32>(accs))
            {
                return simd::add_rows4_f32(a, [x0, x1, x2, x3]);
            }
            let rows = xs.map(|x| same::<T, f64>(x));
            if let ([Some(x0), Some(x1), Some(x2), Some(x3)], Some(a)) =
                (rows, same_mut::<A, f64>(accs))
            {
                return simd::add_rows4_f64(a, [x0, x1, x2, x3]);
            }
        }
        for k in 0..4 {
            self.fold_rows(accs, xs[k], i[k]);
        }
    }
}

/// `prod`: multiplies in `A`, writes `O`.
pub(crate) struct ProdR<T, A, O>(PhantomData<(T, A, O)>);

impl<T, A, O> ProdR<T, A, O> {
    pub(crate) fn new() -> Self {
        ProdR(PhantomData)
    }
}

impl<T: Element, A: AccNum, O: Element> Reducer for ProdR<T, A, O> {
    type In = T;
    type Acc = A;
    type Out = O;
    fn identity(&self) -> A {
        A::ONE
    }
    #[inline(always)]
    fn step(&self, acc: A, x: T, _i: i64) -> A {
        acc.mul(A::from_in(x))
    }
    fn combine(&self, a: A, b: A) -> A {
        a.mul(b)
    }
    fn finish(&self, acc: A) -> O {
        acc.to_out()
    }
    // Float products depend on their order (rounding, and `inf * 0 = NaN` once a half-precision
    // partial product overflows), so they follow PyTorch's CPU kernel exactly.
    const CASCADE: bool = false;
    /// PyTorch's `vectorized_inner_reduction` (`binary_kernel_reduce_vec`), with its 256-bit
    /// vectors of `V = 32 / size_of(A)` lanes: while at least `4V` elements remain, element
    /// `j` of each block of `4V` goes to lane accumulator `j`; the lanes are then merged as
    /// `(l[k] * l[V+k]) * (l[2V+k] * l[3V+k])`, those `V` products left to right, and the
    /// result into `acc`; the tail is multiplied in one element at a time. Runs shorter than
    /// `4V` are therefore plain left-to-right products.
    #[inline(always)]
    fn fold_slice(&self, acc: A, xs: &[T], _i0: i64, _di: i64) -> A {
        match std::mem::size_of::<A>() {
            8 => prod_lanes::<T, A, 4, 16>(acc, xs),
            4 => prod_lanes::<T, A, 8, 32>(acc, xs),
            _ => prod_lanes::<T, A, 16, 64>(acc, xs),
        }
    }
}

/// [`ProdR::fold_slice`] with `V` lanes per 256-bit vector and blocks of `W = 4V` elements
/// (fixed sizes, so the lane array is a few vector registers).
#[inline(always)]
fn prod_lanes<T: Element, A: AccNum, const V: usize, const W: usize>(mut acc: A, xs: &[T]) -> A {
    let blocks = xs.len() / W;
    if blocks > 0 {
        let mut lanes = [A::ONE; W];
        for block in xs[..blocks * W].chunks_exact(W) {
            let block: &[T; W] = block.try_into().expect("chunks of W");
            for l in 0..W {
                lanes[l] = lanes[l].mul(A::from_in(block[l]));
            }
        }
        let mut merged = A::ONE;
        for k in 0..V {
            let lane = lanes[k]
                .mul(lanes[V + k])
                .mul(lanes[2 * V + k].mul(lanes[3 * V + k]));
            merged = if k == 0 { lane } else { merged.mul(lane) };
        }
        acc = acc.mul(merged);
    }
    for &x in &xs[blocks * W..] {
        acc = acc.mul(A::from_in(x));
    }
    acc
}

/// The lowest and highest values of an element type (−∞ and +∞ for floats), the identities
/// of max and min.
pub(crate) trait Bounds: Element {
    const LOWEST: Self;
    const HIGHEST: Self;
}

macro_rules! bounds {
    ($($t:ty => $lo:expr, $hi:expr);*) => {$( impl Bounds for $t { const LOWEST: $t = $lo; const HIGHEST: $t = $hi; } )*};
}
bounds!(bool => false, true; u8 => u8::MIN, u8::MAX; i8 => i8::MIN, i8::MAX; i16 => i16::MIN, i16::MAX;
    i32 => i32::MIN, i32::MAX; i64 => i64::MIN, i64::MAX; f16 => f16::NEG_INFINITY, f16::INFINITY;
    bf16 => bf16::NEG_INFINITY, bf16::INFINITY; f32 => f32::NEG_INFINITY, f32::INFINITY;
    f64 => f64::NEG_INFINITY, f64::INFINITY);

/// NaN test that works for every element type (only floats can be unequal to themselves).
#[inline(always)]
#[allow(clippy::eq_op)]
fn is_nan<T: Element>(x: T) -> bool {
    x != x
}

/// `amax` (`MAX = true`) and `amin`: NaN propagates.
pub(crate) struct ExtremumR<T, const MAX: bool>(PhantomData<T>);

impl<T, const MAX: bool> ExtremumR<T, MAX> {
    pub(crate) fn new() -> Self {
        ExtremumR(PhantomData)
    }
}

impl<T: Bounds, const MAX: bool> Reducer for ExtremumR<T, MAX> {
    type In = T;
    type Acc = T;
    type Out = T;
    fn identity(&self) -> T {
        if MAX { T::LOWEST } else { T::HIGHEST }
    }
    #[inline(always)]
    fn step(&self, acc: T, x: T, _i: i64) -> T {
        let better = if MAX { x > acc } else { x < acc };
        if better || is_nan(x) { x } else { acc }
    }
    #[inline(always)]
    fn combine(&self, a: T, b: T) -> T {
        if is_nan(a) { a } else { self.step(a, b, 0) }
    }
    fn finish(&self, acc: T) -> T {
        acc
    }
    /// Independent lanes of plain max (min) with NaNs tracked apart, a form the compiler
    /// turns into vector max/compare instructions; any NaN makes the result NaN.
    #[inline(always)]
    fn fold_slice(&self, acc: T, xs: &[T], _i0: i64, _di: i64) -> T {
        const L: usize = 16;
        let mut lanes = [self.identity(); L];
        let mut nan = [false; L];
        let chunks = xs.chunks_exact(L);
        let rem = chunks.remainder();
        for c in chunks {
            for l in 0..L {
                let x = c[l];
                let better = if MAX { x > lanes[l] } else { x < lanes[l] };
                lanes[l] = if better { x } else { lanes[l] };
                nan[l] |= is_nan(x);
            }
        }
        if let Some(l) = nan.iter().position(|&b| b) {
            // any NaN of the run (every NaN is equally "the" result)
            let k = xs.iter().position(|&x| is_nan(x)).unwrap_or(l);
            return xs[k];
        }
        let mut acc = acc;
        for lane in lanes {
            acc = self.combine(acc, lane);
        }
        for &x in rem {
            acc = self.step(acc, x, 0);
        }
        acc
    }
}

/// `argmax`/`argmin` and `max`/`min` with a dim: the value and the index of the first
/// maximum (minimum), a NaN counting as larger (smaller) than everything (PyTorch's
/// `GreaterOrNan`/`LessOrNan`): ties go to the lower index.
pub(crate) struct ArgR<T, const MAX: bool>(PhantomData<T>);

impl<T, const MAX: bool> ArgR<T, MAX> {
    pub(crate) fn new() -> Self {
        ArgR(PhantomData)
    }
}

impl<T: Bounds, const MAX: bool> ArgR<T, MAX> {
    /// Whether `(a, ia)` wins over `(b, ib)`.
    #[inline(always)]
    fn better(a: T, ia: i64, b: T, ib: i64) -> bool {
        if ib < 0 {
            return true;
        }
        match (is_nan(a), is_nan(b)) {
            (true, true) => ia < ib,
            (true, false) => true,
            (false, true) => false,
            _ if a == b => ia < ib,
            _ => {
                if MAX {
                    a > b
                } else {
                    a < b
                }
            }
        }
    }
}

impl<T: Bounds, const MAX: bool> Reducer for ArgR<T, MAX> {
    type In = T;
    type Acc = (T, i64);
    type Out = T;
    fn identity(&self) -> (T, i64) {
        (if MAX { T::LOWEST } else { T::HIGHEST }, -1)
    }
    #[inline(always)]
    fn step(&self, acc: (T, i64), x: T, i: i64) -> (T, i64) {
        if Self::better(x, i, acc.0, acc.1) {
            (x, i)
        } else {
            acc
        }
    }
    #[inline(always)]
    fn combine(&self, a: (T, i64), b: (T, i64)) -> (T, i64) {
        if b.1 >= 0 && Self::better(b.0, b.1, a.0, a.1) {
            b
        } else {
            a
        }
    }
    fn finish(&self, acc: (T, i64)) -> T {
        acc.0
    }
    fn index(&self, acc: (T, i64)) -> i64 {
        acc.1.max(0)
    }
    /// Two passes over the run: the extremum (NaN-propagating, on independent lanes the
    /// compiler vectorises), then the first element equal to it (or the first NaN).
    #[inline(always)]
    fn fold_slice(&self, acc: (T, i64), xs: &[T], i0: i64, di: i64) -> (T, i64) {
        if xs.len() < 2 * SLICE_LANES {
            let mut acc = acc;
            for (k, &x) in xs.iter().enumerate() {
                acc = self.step(acc, x, i0 + k as i64 * di);
            }
            return acc;
        }
        let ext = ExtremumR::<T, MAX>::new();
        let m = ext.fold_slice(ext.identity(), xs, 0, 0);
        let k = if is_nan(m) {
            xs.iter().position(|&x| is_nan(x))
        } else {
            xs.iter().position(|&x| x == m)
        };
        match k {
            Some(k) => self.combine(acc, (xs[k], i0 + k as i64 * di)),
            None => acc,
        }
    }
}

/// `all` (`ALL = true`) and `any`: truthiness of every element, written as `O` (bool, or
/// uint8 for uint8 inputs).
pub(crate) struct LogicR<T, O, const ALL: bool>(PhantomData<(T, O)>);

impl<T, O, const ALL: bool> LogicR<T, O, ALL> {
    pub(crate) fn new() -> Self {
        LogicR(PhantomData)
    }
}

impl<T: Element, O: Element, const ALL: bool> Reducer for LogicR<T, O, ALL> {
    type In = T;
    type Acc = bool;
    type Out = O;
    fn identity(&self) -> bool {
        ALL
    }
    #[inline(always)]
    fn step(&self, acc: bool, x: T, _i: i64) -> bool {
        if ALL {
            acc & x.is_nonzero()
        } else {
            acc | x.is_nonzero()
        }
    }
    fn combine(&self, a: bool, b: bool) -> bool {
        if ALL { a & b } else { a | b }
    }
    fn finish(&self, acc: bool) -> O {
        O::from_bool(acc)
    }
}

/// `var`/`std`: Welford's running mean and sum of squared deviations in float64 (PyTorch's
/// CPU `WelfordOps` accumulate in double), divided by `max(0, n - correction)`.
pub(crate) struct VarR<T> {
    pub correction: f64,
    pub sqrt: bool,
    _t: PhantomData<T>,
}

impl<T> VarR<T> {
    pub(crate) fn new(correction: f64, sqrt: bool) -> Self {
        VarR {
            correction,
            sqrt,
            _t: PhantomData,
        }
    }
}

impl<T: Element> Reducer for VarR<T> {
    type In = T;
    /// (count, mean, m2)
    type Acc = (f64, f64, f64);
    type Out = T;
    fn identity(&self) -> (f64, f64, f64) {
        (0.0, 0.0, 0.0)
    }
    #[inline(always)]
    fn step(&self, (n, mean, m2): (f64, f64, f64), x: T, _i: i64) -> (f64, f64, f64) {
        let x = x.to_f64();
        let n = n + 1.0;
        let delta = x - mean;
        let mean = mean + delta / n;
        (n, mean, m2 + delta * (x - mean))
    }
    fn combine(&self, a: (f64, f64, f64), b: (f64, f64, f64)) -> (f64, f64, f64) {
        if a.0 == 0.0 {
            return b;
        }
        if b.0 == 0.0 {
            return a;
        }
        let n = a.0 + b.0;
        let delta = b.1 - a.1;
        let nb_over_n = b.0 / n;
        (
            n,
            a.1 + delta * nb_over_n,
            a.2 + b.2 + delta * delta * a.0 * nb_over_n,
        )
    }
    fn finish(&self, (n, _mean, m2): (f64, f64, f64)) -> T {
        let var = m2 / (n - self.correction).max(0.0);
        T::from_f64(if self.sqrt { var.sqrt() } else { var })
    }
    /// Two passes over the run (its mean, then its sum of squared deviations, each on
    /// independent lanes), merged into the running accumulator with Chan's formula.
    #[inline(always)]
    fn fold_slice(&self, acc: (f64, f64, f64), xs: &[T], _i0: i64, _di: i64) -> (f64, f64, f64) {
        if xs.len() < 16 {
            return xs.iter().fold(acc, |a, &x| self.step(a, x, 0));
        }
        let n = xs.len() as f64;
        let mean = lanes_sum(xs, |x| x) / n;
        let m2 = lanes_sum(xs, |x| (x - mean) * (x - mean));
        self.combine(acc, (n, mean, m2))
    }
}

/// `Σ f(x)` over a run in float64, on independent lanes (vectorised by the compiler).
#[inline(always)]
fn lanes_sum<T: Element>(xs: &[T], f: impl Fn(f64) -> f64) -> f64 {
    const L: usize = 8;
    let mut lanes = [0.0f64; L];
    let chunks = xs.chunks_exact(L);
    let rem = chunks.remainder();
    for c in chunks {
        for l in 0..L {
            lanes[l] += f(c[l].to_f64());
        }
    }
    lanes.iter().sum::<f64>() + rem.iter().map(|x| f(x.to_f64())).sum::<f64>()
}

/// Vector p-norms (`torch.linalg.vector_norm` as used by `F.normalize`), accumulated in
/// float64 as PyTorch's CPU norm kernels do: `p = 2` → `sqrt(Σx²)`, `1` → `Σ|x|`,
/// `∞` → `max|x|`, `−∞` → `min|x|`, `0` → count of non-zeros, else `(Σ|x|^p)^(1/p)`.
pub(crate) struct NormR<T> {
    pub p: f64,
    _t: PhantomData<T>,
}

impl<T> NormR<T> {
    pub(crate) fn new(p: f64) -> Self {
        NormR { p, _t: PhantomData }
    }
}

impl<T: Element> Reducer for NormR<T> {
    type In = T;
    type Acc = f64;
    type Out = T;
    fn identity(&self) -> f64 {
        if self.p == f64::NEG_INFINITY {
            f64::INFINITY
        } else {
            0.0
        }
    }
    #[inline(always)]
    fn step(&self, acc: f64, x: T, _i: i64) -> f64 {
        let a = x.to_f64().abs();
        if self.p == 2.0 {
            acc + a * a
        } else if self.p == 1.0 {
            acc + a
        } else if self.p == f64::INFINITY {
            if a > acc || a.is_nan() { a } else { acc }
        } else if self.p == f64::NEG_INFINITY {
            if a < acc || a.is_nan() { a } else { acc }
        } else if self.p == 0.0 {
            acc + (a != 0.0) as u8 as f64
        } else {
            acc + a.powf(self.p)
        }
    }
    fn combine(&self, a: f64, b: f64) -> f64 {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else if self.p == f64::INFINITY {
            a.max(b)
        } else if self.p == f64::NEG_INFINITY {
            a.min(b)
        } else {
            a + b
        }
    }
    /// `p = 2` and `p = 1` on independent double lanes the compiler vectorises (the branch
    /// on `p` taken once per run, not per element); other `p` element by element.
    #[inline(always)]
    fn fold_slice(&self, acc: f64, xs: &[T], _i0: i64, _di: i64) -> f64 {
        if self.p == 2.0 {
            self.combine(acc, lanes_sum(xs, |x| x * x))
        } else if self.p == 1.0 {
            self.combine(acc, lanes_sum(xs, |x| x.abs()))
        } else {
            xs.iter().fold(acc, |a, &x| self.step(a, x, 0))
        }
    }
    fn finish(&self, acc: f64) -> T {
        let v = if self.p == 2.0 {
            acc.sqrt()
        } else if self.p == 1.0 || self.p == 0.0 || self.p.is_infinite() {
            acc
        } else {
            acc.powf(1.0 / self.p)
        };
        T::from_f64(v)
    }
}
