//! The loop executor of the pointwise engine.
//!
//! A [`Loop`] is the iteration space TensorIterator leaves after reordering and coalescing:
//! dims listed fastest first, per-operand byte strides, base pointers. [`Loop::run`] walks it
//! in inner runs along dim 0 and calls the kernel once per run with element strides. Operands
//! whose storage dtype differs from the kernel's dtype are converted through per-task buffers
//! of [`BLOCK`] elements, so one generic kernel serves every dtype combination. Above
//! [`GRAIN`] elements the linear index space is split across rayon's threads (PyTorch uses the
//! same grain, 32768).

use smallvec::SmallVec;

use crate::dtype::DType;
use crate::kernels::cast::cast_run;

/// Elements per conversion block.
pub(crate) const BLOCK: usize = 256;
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

struct SendLoop<'a, const N: usize>(&'a Loop<N>);
// SAFETY: the raw pointers are only dereferenced by kernels while the op that built the loop
// holds the storage locks (see `crate::storage`); workers write disjoint index ranges.
unsafe impl<const N: usize> Sync for SendLoop<'_, N> {}
// SAFETY: as above.
unsafe impl<const N: usize> Send for SendLoop<'_, N> {}

impl<const N: usize> Loop<N> {
    /// Total number of iterations.
    pub(crate) fn numel(&self) -> usize {
        self.shape.iter().product()
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
        let threads = rayon::current_num_threads();
        if numel < 2 * GRAIN || threads <= 1 {
            // SAFETY: forwarded from the caller.
            unsafe { self.run_range(0, numel, &kdtypes, n_out, kernel) };
            return;
        }
        let tasks = (numel / GRAIN).min(threads * 4).max(1);
        let per = numel.div_ceil(tasks);
        let me = SendLoop(self);
        rayon::scope(|s| {
            for t in 0..tasks {
                let me = &me;
                let kd = &kdtypes;
                s.spawn(move |_| {
                    let start = t * per;
                    let end = ((t + 1) * per).min(numel);
                    if start < end {
                        // SAFETY: forwarded from the caller; ranges are disjoint.
                        unsafe { me.0.run_range(start, end, kd, n_out, kernel) };
                    }
                });
            }
        });
    }

    /// # Safety
    /// As [`Loop::run`].
    unsafe fn run_range(&self, start: usize, end: usize, kd: &[DType; N], n_out: usize, kernel: &Kernel<'_, N>) {
        let nd = self.shape.len();
        let mut idx: SmallVec<[usize; 6]> = smallvec::smallvec![0usize; nd];
        let mut rem = start;
        for d in 0..nd {
            idx[d] = rem % self.shape[d];
            rem /= self.shape[d];
        }
        let casts: [bool; N] = std::array::from_fn(|k| self.dtypes[k] != kd[k]);
        let any_cast = casts.iter().any(|&c| c);
        let mut bufs: SmallVec<[Vec<u64>; 4]> =
            (0..N).map(|k| if casts[k] { vec![0u64; BLOCK] } else { Vec::new() }).collect();
        let mut elem_strides = [0isize; N];
        for k in 0..N {
            elem_strides[k] = self.strides[0][k] / self.dtypes[k].itemsize() as isize;
        }
        let mut pos = start;
        while pos < end {
            let inner = (self.shape[0] - idx[0]).min(end - pos);
            let mut ptrs = self.base;
            for d in 0..nd {
                for k in 0..N {
                    ptrs[k] = ptrs[k].wrapping_offset(idx[d] as isize * self.strides[d][k]);
                }
            }
            if !any_cast {
                let st: [isize; N] = std::array::from_fn(|k| elem_strides[k]);
                kernel(&ptrs, &st, inner);
            } else {
                let mut done = 0;
                while done < inner {
                    let len = (inner - done).min(BLOCK);
                    let mut kp = [std::ptr::null_mut(); N];
                    let mut ks = [0isize; N];
                    for k in 0..N {
                        let p = ptrs[k].wrapping_offset(done as isize * self.strides[0][k]);
                        if casts[k] {
                            kp[k] = bufs[k].as_mut_ptr() as *mut u8;
                            ks[k] = 1;
                            if k >= n_out {
                                // SAFETY: p walks `len` valid elements of operand k (caller's
                                // contract); the buffer holds BLOCK*8 bytes ≥ len elements.
                                unsafe { cast_run(self.dtypes[k], p, elem_strides[k], kd[k], kp[k], 1, len) };
                            }
                        } else {
                            kp[k] = p;
                            ks[k] = elem_strides[k];
                        }
                    }
                    kernel(&kp, &ks, len);
                    for k in 0..n_out {
                        if casts[k] {
                            let p = ptrs[k].wrapping_offset(done as isize * self.strides[0][k]);
                            // SAFETY: as above, in the other direction.
                            unsafe { cast_run(kd[k], kp[k], 1, self.dtypes[k], p, elem_strides[k], len) };
                        }
                    }
                    done += len;
                }
            }
            pos += inner;
            idx[0] += inner;
            let mut d = 0;
            while d + 1 < nd && idx[d] == self.shape[d] {
                idx[d] = 0;
                idx[d + 1] += 1;
                d += 1;
            }
        }
    }
}
