//! Kernels: the only place with `unsafe`. Each block says why it is sound.
//!
//! * [`loops`] runs a coalesced iteration space over raw operand pointers, in parallel above a
//!   grain size, converting operands whose dtype differs from the kernel's in small blocks.
//! * [`cast`] converts between dtypes and copies data in and out of storage.
//! * [`math`] holds the per-dtype scalar arithmetic the pointwise ops are made of.
//! * [`pointwise`] turns scalar functions into inner loops specialised for contiguous and
//!   stride-0 operands.
//! * [`reduce`] and [`simd`] run reductions (inner and vertical walks, runtime AVX-512/AVX2
//!   dispatch); [`gemm`] wraps the `gemm` crate for float matrix products of strided operands ([`Strided`]) and
//!   [`mm`] for the raw operands the convolution, attention and recurrent kernels build;
//!   [`gather`] copies
//!   rows for `index_select`/`embedding`; [`axes`] is the copy engine of the shape ops that
//!   rearrange elements along axes (`repeat`, pads, `repeat_interleave`, …).
//! * [`stream`] writes large outputs with non-temporal stores (no read-for-ownership).
//! * [`vmath`] holds branch-free float32 `exp`/`log`/`tanh`/`erf`, the trigonometric and
//!   hyperbolic functions and their inverses, and the activations on them,
//!   run over contiguous runs with AVX-512F/AVX2 chosen at run time ([`vspecial`] holds its
//!   special and binary functions: `erfinv`, `lgamma`, `digamma`, `pow`, `fmod`, …); [`softmax`] runs
//!   `softmax`/`log_softmax` rows on them.
//! * [`box_muller`] is PyTorch's float32 `normal_` transform (the AVX2 kernel's Box–Muller
//!   with `avx_mathfun.h`'s `log`/`sincos`), FMA-compiled at run time when the CPU has it.
//! * [`norm`] runs `layer_norm` and `rms_norm` over rows, in float32.
//! * [`transpose`] runs same-dtype copies whose two fastest dims are swapped (`t().contiguous()`,
//!   NCHW → NHWC) as cache-blocked register-tile transposes.
//! * [`par`] is the intra-op thread pool: every parallel region of the crate runs through
//!   [`par::run`] and sizes its split by [`par::threads`].

pub(crate) mod advindex;
pub(crate) mod attention;
pub(crate) mod axes;
pub(crate) mod box_muller;
pub(crate) mod cast;
pub(crate) mod compact;
pub(crate) mod conv;
pub(crate) mod gather;
pub(crate) mod gemm;
pub(crate) mod log1p;
pub(crate) mod loops;
pub(crate) mod loss;
pub(crate) mod map;
pub(crate) mod math;
pub(crate) mod mm;
pub(crate) mod norm;
pub(crate) mod normalize;
pub(crate) mod optim;
pub(crate) mod par;
pub(crate) mod pointwise;
pub(crate) mod pointwise3;
pub(crate) mod pool;
pub(crate) mod ranges;
pub(crate) mod reduce;
pub(crate) mod rnn;
pub(crate) mod rows;
pub(crate) mod scatter;
pub(crate) mod simd;
pub(crate) mod softmax;
pub(crate) mod special;
pub(crate) mod stream;
pub(crate) mod team;
pub(crate) mod transpose;
pub(crate) mod uniform;
pub(crate) mod vmath;
pub(crate) mod vspecial;

/// One tensor's memory as a kernel sees it. Kernels take operands, never `Tensor` (they know
/// memory, not ownership, autograd or views): the op layer makes one with `Tensor::mem`
/// while it holds the storage locks (`crate::iter::lock_operands`) for as long as the kernel
/// runs, as it does for the base pointers of a [`loops::Loop`]. The geometry was checked
/// against the storage when the tensor was made, so every element the sizes and strides name
/// lies inside `[base, base + nbytes)`.
#[derive(Clone, Copy)]
pub(crate) struct Strided<'a> {
    /// The storage's first byte (aligned for every dtype).
    pub(crate) base: *mut u8,
    /// The storage's length in bytes.
    pub(crate) nbytes: usize,
    /// Element offset of index 0 within the storage.
    pub(crate) offset: usize,
    /// The storage dtype.
    pub(crate) dtype: crate::dtype::DType,
    /// Sizes, outermost first.
    pub(crate) sizes: &'a [usize],
    /// Strides, in elements.
    pub(crate) strides: &'a [usize],
}

impl Strided<'_> {
    /// The address of the element at index 0.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.base.wrapping_add(self.offset * self.dtype.itemsize())
    }
    /// [`Strided::ptr`] as a thread-crossing pointer to `T`.
    pub(crate) fn typed<T>(&self) -> Ptr<T> {
        Ptr(self.ptr() as *mut T)
    }
    /// The number of elements the sizes name.
    pub(crate) fn numel(&self) -> usize {
        self.sizes.iter().product()
    }
    /// Row-major contiguous.
    pub(crate) fn is_contiguous(&self) -> bool {
        crate::layout::is_contiguous(self.sizes, self.strides)
    }
}

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
