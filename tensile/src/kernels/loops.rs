//! The loop executor of the pointwise engine.
//!
//! A [`Loop`] is the iteration space TensorIterator leaves after reordering and coalescing:
//! dims listed fastest first, per-operand byte strides, base pointers. [`Loop::run`] walks it
//! in inner runs along dim 0 and calls the kernel once per run with element strides. Operands
//! whose storage dtype differs from the kernel's dtype are converted through per-task buffers
//! of [`BLOCK`] elements, so one generic kernel serves every dtype combination. Above
//! [`GRAIN`] elements the linear index space is split across the intra-op pool's threads
//! ([`crate::kernels::par`]; PyTorch uses the same grain, 32768).

use smallvec::SmallVec;

use crate::dtype::DType;
use crate::kernels::cast::cast_run;
use crate::kernels::par;
use crate::kernels::stream;

/// Elements per conversion block.
pub(crate) const BLOCK: usize = 256;
/// Elements per block when the output is streamed: longer blocks amortise the per-block
/// work over the memory traffic (measured: 512 and 2048 alike, 1.3x over 256; 8192 slower,
/// its buffers no longer fit L1).
const STREAM_BLOCK: usize = 2048;
/// Minimum elements per parallel task.
pub(crate) const GRAIN: usize = 32768;

/// A coalesced iteration space over `N` operands (outputs first).
pub(crate) struct Loop<const N: usize> {
    /// Sizes, fastest dim first; never empty.
    pub shape: SmallVec<[usize; 6]>,
    /// Byte strides per dim and operand.
    pub strides: SmallVec<[[isize; N]; 6]>,
    /// Address of each operand's first element.
    pub base: [*mut u8; N],
    /// Each operand's storage dtype.
    pub dtypes: [DType; N],
}

/// The kernel signature: operand pointers (already converted to the kernel's dtypes), element
/// strides in units of those dtypes, and the run length.
pub(crate) type Kernel<'k, const N: usize> = dyn Fn(&[*mut u8; N], &[isize; N], usize) + Sync + 'k;

/// A kernel with the dtypes it reads and writes its operands as (outputs first): what the
/// engine's safe entry points (`crate::iter::Planned::run`) need to run it, so the `unsafe` of
/// calling a raw-pointer kernel is argued once, here in `kernels`, where each one is built,
/// and not at every call site.
pub(crate) struct TypedKernel<F, const N: usize> {
    kdtypes: [DType; N],
    f: F,
}

impl<F: Fn(&[*mut u8; N], &[isize; N], usize) + Sync, const N: usize> TypedKernel<F, N> {
    /// # Safety
    /// `f`, called with operand `k` pointing at `n` elements of `kdtypes[k]` at the element
    /// strides given, all inside live storage whose locks are held, the output's elements
    /// written by this call alone, reads and writes nothing else. The output may be an input
    /// itself (in place) or overlap one (the iterator refuses partial overlap only where it
    /// can tell): `f` forms no reference to an output run that overlaps an input's.
    pub(crate) unsafe fn new(kdtypes: [DType; N], f: F) -> TypedKernel<F, N> {
        TypedKernel { kdtypes, f }
    }

    /// The dtypes the kernel presents its operands as.
    pub(crate) fn kdtypes(&self) -> [DType; N] {
        self.kdtypes
    }

    /// The raw kernel, for [`Loop::run`].
    pub(crate) fn kernel(&self) -> &F {
        &self.f
    }
}

struct SendLoop<'a, const N: usize>(&'a Loop<N>);
// SAFETY: the raw pointers are only dereferenced by kernels while the op that built the loop
// holds the storage locks (see `crate::storage`); workers write disjoint index ranges.
unsafe impl<const N: usize> Sync for SendLoop<'_, N> {}
// SAFETY: as above.
unsafe impl<const N: usize> Send for SendLoop<'_, N> {}

impl<'a, const N: usize> SendLoop<'a, N> {
    /// The loop (a method, so closures capture the whole `Sync` wrapper).
    fn get(&self) -> &'a Loop<N> {
        self.0
    }
}

impl<const N: usize> Loop<N> {
    /// Total number of iterations.
    pub(crate) fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether some operand walks memory faster along dim 1 than along dim 0: iterating
    /// rows would then stride through memory for it, so the loop is cache-blocked instead.
    fn layouts_disagree(&self) -> bool {
        self.shape.len() >= 2
            && self.shape[0] >= 16
            && self.shape[1] >= 16
            && (0..N).any(|k| {
                let (s0, s1) = (
                    self.strides[0][k].unsigned_abs(),
                    self.strides[1][k].unsigned_abs(),
                );
                s1 != 0 && s0 > s1 && s0 >= 64
            })
    }

    /// Runs `kernel` over the whole space. The first `n_out` operands are written; operand `k`
    /// is presented to the kernel as `kdtypes[k]`.
    ///
    /// # Safety
    /// The caller holds the locks of every operand's storage (write for outputs), every
    /// pointer reachable through `base` and `strides` lies inside its storage, and the outputs
    /// have no internal overlap (checked by the iterator) so parallel tasks write disjoint
    /// memory.
    pub(crate) unsafe fn run(&self, kdtypes: [DType; N], n_out: usize, kernel: &Kernel<'_, N>) {
        let numel = self.numel();
        if numel == 0 {
            return;
        }
        let tiled = self.layouts_disagree();
        // Work units: elements, or TILE x TILE tiles.
        let units = if tiled {
            let outer: usize = self.shape[2..].iter().product();
            outer * self.shape[0].div_ceil(TILE) * self.shape[1].div_ceil(TILE)
        } else {
            numel
        };
        // A large output written along its contiguous dim, not read by the op itself (not in
        // place), is written with streaming stores (see `kernels::stream`) when the bytes the
        // loop moves (each operand's distinct elements: a broadcast input counts once) would
        // not stay in the caches anyway.
        let moved: usize = (0..N)
            .map(|k| {
                let distinct: usize = (0..self.shape.len())
                    .filter(|&d| self.strides[d][k] != 0)
                    .map(|d| self.shape[d])
                    .product();
                distinct * self.dtypes[k].itemsize()
            })
            .sum();
        let stream = n_out == 1
            && !tiled
            && moved >= stream::stream_bytes()
            && self.strides[0][0] == self.dtypes[0].itemsize() as isize
            && (1..N).all(|k| self.base[k] != self.base[0]);
        let me = SendLoop(self);
        let go = |start: usize, end: usize| {
            let mut r = Runner::new(me.get(), &kdtypes, n_out, kernel, stream);
            if tiled {
                // SAFETY: forwarded from the caller.
                unsafe { r.tiles(start, end) }
            } else {
                // SAFETY: forwarded from the caller.
                unsafe { r.range(start, end) }
            }
            if stream {
                stream::fence();
            }
        };
        if numel < 2 * GRAIN {
            go(0, units);
            return;
        }
        let threads = par::threads();
        if threads <= 1 {
            go(0, units);
            return;
        }
        let tasks = (numel / GRAIN).min(threads * 4).min(units).max(1);
        let per = units.div_ceil(tasks);
        par::for_each_task(tasks, &|t| {
            let (start, end) = (t * per, ((t + 1) * per).min(units));
            if start < end {
                go(start, end);
            }
        });
    }
}

/// Side length of the blocks used when operands disagree on layout (elements).
const TILE: usize = 128;

/// One task's state: conversion buffers and the kernel.
struct Runner<'l, 'k, const N: usize> {
    lp: &'l Loop<N>,
    kd: &'l [DType; N],
    n_out: usize,
    kernel: &'l Kernel<'k, N>,
    casts: [bool; N],
    /// Whether the kernel sees some operand through a buffer (a cast, or a streamed output).
    any_buf: bool,
    /// Whether the only buffered operands are inputs repeated along dim 0 (a broadcast
    /// number of another dtype): then each run converts them once and the kernel takes the
    /// whole run in one call, not a call per block.
    repeats_only: bool,
    /// Whether the output (operand 0) is written with streaming stores.
    stream: bool,
    bufs: SmallVec<[Vec<u64>; 4]>,
    /// The streamed output's bytes when it is also cast.
    sbuf: Vec<u64>,
    /// Elements per buffered block.
    block: usize,
    /// Dim-0 strides in elements of each operand's own dtype.
    elem: [isize; N],
}

impl<'l, 'k, const N: usize> Runner<'l, 'k, N> {
    fn new(
        lp: &'l Loop<N>,
        kd: &'l [DType; N],
        n_out: usize,
        kernel: &'l Kernel<'k, N>,
        stream: bool,
    ) -> Self {
        let casts: [bool; N] = std::array::from_fn(|k| lp.dtypes[k] != kd[k]);
        let buffered = |k: usize| casts[k] || (stream && k == 0);
        let block = if stream { STREAM_BLOCK } else { BLOCK };
        let any_buf = (0..N).any(buffered);
        let bufs = if any_buf {
            (0..N)
                .map(|k| {
                    if buffered(k) {
                        vec![0u64; block]
                    } else {
                        Vec::new()
                    }
                })
                .collect()
        } else {
            SmallVec::new()
        };
        let sbuf = if stream && casts[0] {
            vec![0u64; block]
        } else {
            Vec::new()
        };
        let elem: [isize; N] =
            std::array::from_fn(|k| lp.strides[0][k] / lp.dtypes[k].itemsize() as isize);
        let repeats_only = !stream && (0..N).all(|k| !casts[k] || (k >= n_out && elem[k] == 0));
        Runner {
            lp,
            kd,
            n_out,
            kernel,
            casts,
            any_buf,
            repeats_only,
            stream,
            bufs,
            sbuf,
            block,
            elem,
        }
    }

    /// Pointers of the element at multi-index `idx` (dim 0 first).
    fn ptrs_at(&self, idx: &[usize]) -> [*mut u8; N] {
        let mut ptrs = self.lp.base;
        for (d, &i) in idx.iter().enumerate() {
            for (k, p) in ptrs.iter_mut().enumerate() {
                *p = p.wrapping_offset(i as isize * self.lp.strides[d][k]);
            }
        }
        ptrs
    }

    /// Calls the kernel on `len` elements along dim 0 from `ptrs`, converting operands whose
    /// dtype differs from the kernel's, and streaming the output when asked to.
    ///
    /// # Safety
    /// As [`Loop::run`]; the run lies inside the iteration space.
    unsafe fn call(&mut self, ptrs: [*mut u8; N], len: usize) {
        if len == 0 {
            return;
        }
        if !self.any_buf {
            (self.kernel)(&ptrs, &self.elem, len);
            return;
        }
        let dt = &self.lp.dtypes;
        if self.repeats_only {
            let mut kp = ptrs;
            let mut ks = self.elem;
            for k in self.n_out..N {
                if self.casts[k] {
                    kp[k] = self.bufs[k].as_mut_ptr() as *mut u8;
                    ks[k] = 0;
                    // SAFETY: ptrs[k] is one valid element of operand k (the caller's
                    // contract, len > 0 in every call); the buffer holds at least one element
                    // of any dtype.
                    unsafe { cast_run(dt[k], ptrs[k], 0, self.kd[k], kp[k], 1, 1) };
                }
            }
            (self.kernel)(&kp, &ks, len);
            return;
        }
        let mut done = 0;
        while done < len {
            let n = (len - done).min(self.block);
            let mut kp = [std::ptr::null_mut(); N];
            let mut ks = [0isize; N];
            for k in 0..N {
                let p = ptrs[k].wrapping_offset(done as isize * self.lp.strides[0][k]);
                if k >= self.n_out && self.casts[k] && self.elem[k] == 0 {
                    // an input repeated along the run (a broadcast number): converted once
                    kp[k] = self.bufs[k].as_mut_ptr() as *mut u8;
                    ks[k] = 0;
                    // SAFETY: p is one valid element of operand k (caller's contract); the
                    // buffer holds at least one element of any dtype.
                    unsafe { cast_run(dt[k], p, 0, self.kd[k], kp[k], 1, 1) };
                } else if self.casts[k] || (self.stream && k == 0) {
                    kp[k] = self.bufs[k].as_mut_ptr() as *mut u8;
                    ks[k] = 1;
                    if k >= self.n_out {
                        // SAFETY: p walks n valid elements of operand k (caller's contract);
                        // the buffer holds block*8 bytes, enough for n elements of any dtype.
                        unsafe { cast_run(dt[k], p, self.elem[k], self.kd[k], kp[k], 1, n) };
                    }
                } else {
                    kp[k] = p;
                    ks[k] = self.elem[k];
                }
            }
            (self.kernel)(&kp, &ks, n);
            for k in 0..self.n_out {
                let p = ptrs[k].wrapping_offset(done as isize * self.lp.strides[0][k]);
                let bytes = n * dt[k].itemsize();
                match (self.casts[k], self.stream && k == 0) {
                    // SAFETY: as above, in the other direction.
                    (true, false) => unsafe {
                        cast_run(self.kd[k], kp[k], 1, dt[k], p, self.elem[k], n)
                    },
                    // SAFETY: a streamed output is contiguous along dim 0 (checked in
                    // `Loop::run`), so p walks `bytes` bytes; the buffers hold block*8.
                    (true, true) => unsafe {
                        let s = self.sbuf.as_mut_ptr() as *mut u8;
                        cast_run(self.kd[k], kp[k], 1, dt[k], s, 1, n);
                        stream::copy(p, s, bytes);
                    },
                    // SAFETY: as above.
                    (false, true) => unsafe { stream::copy(p, kp[k], bytes) },
                    (false, false) => {}
                }
            }
            done += n;
        }
    }

    /// Linear elements `start..end`, in runs along dim 0.
    ///
    /// # Safety
    /// As [`Loop::run`].
    unsafe fn range(&mut self, start: usize, end: usize) {
        let lp = self.lp;
        let (shape, strides): (&[usize], &[[isize; N]]) = (&lp.shape, &lp.strides);
        if shape.len() == 1 {
            let ptrs =
                std::array::from_fn(|k| lp.base[k].wrapping_offset(start as isize * strides[0][k]));
            // SAFETY: forwarded.
            unsafe { self.call(ptrs, end - start) };
            return;
        }
        let mut idx_buf: SmallVec<[usize; 6]> = smallvec::smallvec![0usize; shape.len()];
        let idx: &mut [usize] = &mut idx_buf;
        let mut rem = start;
        for (i, &n) in idx.iter_mut().zip(shape) {
            *i = rem % n;
            rem /= n;
        }
        // An odometer over the outer dims, moving the pointers along with the index.
        let mut ptrs = self.ptrs_at(idx);
        let mut pos = start;
        while pos < end {
            let inner = (shape[0] - idx[0]).min(end - pos);
            // SAFETY: forwarded.
            unsafe { self.call(ptrs, inner) };
            pos += inner;
            idx[0] += inner;
            if idx[0] < shape[0] {
                continue; // only the last run of a range stops mid-row
            }
            // Back to the start of the row (the pointers are at the run's start), then carry.
            let back = (idx[0] - inner) as isize;
            for (p, s) in ptrs.iter_mut().zip(&strides[0]) {
                *p = p.wrapping_offset(-back * s);
            }
            idx[0] = 0;
            for d in 1..shape.len() {
                idx[d] += 1;
                for (p, s) in ptrs.iter_mut().zip(&strides[d]) {
                    *p = p.wrapping_offset(*s);
                }
                if idx[d] < shape[d] {
                    break;
                }
                for (p, s) in ptrs.iter_mut().zip(&strides[d]) {
                    *p = p.wrapping_offset(-(shape[d] as isize) * s);
                }
                idx[d] = 0;
            }
        }
    }

    /// Tiles `start..end` (numbered with dim-0 blocks fastest, then dim-1 blocks, then the
    /// outer dims), each TILE x TILE, walked row by row along dim 0.
    ///
    /// # Safety
    /// As [`Loop::run`].
    unsafe fn tiles(&mut self, start: usize, end: usize) {
        let shape = &self.lp.shape;
        let nd = shape.len();
        let (nb0, nb1) = (shape[0].div_ceil(TILE), shape[1].div_ceil(TILE));
        let mut idx: SmallVec<[usize; 6]> = smallvec::smallvec![0usize; nd];
        for u in start..end {
            let (b0, rest) = (u % nb0, u / nb0);
            let (b1, mut outer) = (rest % nb1, rest / nb1);
            for d in 2..nd {
                idx[d] = outer % shape[d];
                outer /= shape[d];
            }
            let i0 = b0 * TILE;
            let len = TILE.min(shape[0] - i0);
            for j in b1 * TILE..(b1 * TILE + TILE).min(shape[1]) {
                idx[0] = i0;
                idx[1] = j;
                let ptrs = self.ptrs_at(&idx);
                // SAFETY: forwarded.
                unsafe { self.call(ptrs, len) };
            }
        }
    }
}

/// Runs `kernel` over a small op's coalesced loop (`crate::iter::SmallPlan`): `sizes` and
/// element `strides` per dim, fastest first (one to six dims). The inner dim in runs, the
/// outer dims by an odometer. Monomorphic in the kernel (no dynamic call per run),
/// sequential, no conversions: the operands' storage dtypes are the kernel's.
///
/// # Safety
/// `base[k]` is operand `k`'s first element, of `itemsize[k]` bytes each; every element the
/// sizes and element strides reach lies inside its storage; the caller holds the storage
/// locks; the output (operand 0) is fresh, so no operand overlaps it.
pub(crate) unsafe fn run_small<const N: usize>(
    sizes: &[usize],
    strides: &[[isize; N]],
    base: [*mut u8; N],
    itemsize: [usize; N],
    mut kernel: impl FnMut(&[*mut u8; N], &[isize; N], usize),
) {
    let nd = sizes.len().min(strides.len());
    let bytes = |d: usize, k: usize| strides[d][k] * itemsize[k] as isize;
    let mut ptrs = base;
    let mut idx = [0usize; 6];
    loop {
        kernel(&ptrs, &strides[0], sizes[0]);
        let mut d = 1;
        loop {
            if d >= nd {
                return;
            }
            idx[d] += 1;
            for (k, p) in ptrs.iter_mut().enumerate() {
                *p = p.wrapping_offset(bytes(d, k));
            }
            if idx[d] < sizes[d] {
                break;
            }
            for (k, p) in ptrs.iter_mut().enumerate() {
                *p = p.wrapping_offset(-(sizes[d] as isize) * bytes(d, k));
            }
            idx[d] = 0;
            d += 1;
        }
    }
}
