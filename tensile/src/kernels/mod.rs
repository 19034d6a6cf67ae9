//! Kernels: the only place with `unsafe`. Each block says why it is sound.
//!
//! * [`loops`] runs a coalesced iteration space over raw operand pointers, in parallel above a
//!   grain size, converting operands whose dtype differs from the kernel's in small blocks.
//! * [`cast`] converts between dtypes and copies data in and out of storage.
//! * [`math`] holds the per-dtype scalar arithmetic the pointwise ops are made of.
//! * [`pointwise`] turns scalar functions into inner loops specialised for contiguous and
//!   stride-0 operands.
//! * [`reduce`] and [`simd`] run reductions (inner and vertical walks, runtime AVX-512/AVX2
//!   dispatch); [`gemm`] wraps the `gemm` crate for float matrix products of tensors and
//!   [`mm`] for the raw operands the convolution, attention and recurrent kernels build;
//!   [`gather`] copies
//!   rows for `index_select`/`embedding`.
//! * [`stream`] writes large outputs with non-temporal stores (no read-for-ownership).
//! * [`vmath`] holds branch-free float32 `exp`/`tanh`/`erf` and the activations on them,
//!   run over contiguous runs with AVX-512F/AVX2 chosen at run time; [`softmax`] runs
//!   `softmax`/`log_softmax` rows on them.
//! * [`norm`] runs `layer_norm` and `rms_norm` over rows, in float32.
//! * [`transpose`] runs same-dtype copies whose two fastest dims are swapped (`t().contiguous()`,
//!   NCHW → NHWC) as cache-blocked register-tile transposes.

pub(crate) mod advindex;
pub(crate) mod attention;
pub(crate) mod cast;
pub(crate) mod conv;
pub(crate) mod gather;
pub(crate) mod gemm;
pub(crate) mod loops;
pub(crate) mod loss;
pub(crate) mod map;
pub(crate) mod math;
pub(crate) mod mm;
pub(crate) mod mmap;
pub(crate) mod norm;
pub(crate) mod normalize;
pub(crate) mod optim;
pub(crate) mod pointwise;
pub(crate) mod pointwise3;
pub(crate) mod pool;
pub(crate) mod reduce;
pub(crate) mod rnn;
pub(crate) mod rows;
pub(crate) mod scatter;
pub(crate) mod simd;
pub(crate) mod softmax;
pub(crate) mod special;
pub(crate) mod stream;
pub(crate) mod transpose;
pub(crate) mod vmath;

/// A raw pointer that may cross threads, for parallel kernels. Only dereferenced while the op
/// holds the storage locks (see `crate::storage`); each output element is written by exactly
/// one task.
#[derive(Clone, Copy)]
pub(crate) struct Ptr<T>(pub(crate) *mut T);
// SAFETY: see the type's doc: the op holds the locks for the whole parallel section and tasks
// write disjoint outputs and only read inputs.
unsafe impl<T> Send for Ptr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Ptr<T> {}

impl<T> Ptr<T> {
    /// The pointer (a method, so closures capture the whole `Send` wrapper).
    pub(crate) fn get(self) -> *mut T {
        self.0
    }
}
