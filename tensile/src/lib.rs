//! # tensile
//!
//! PyTorch's tensor semantics in native Rust: broadcasting, strided views that share storage,
//! in-place ops with PyTorch's refusals, type promotion, and printing identical to PyTorch's
//! `repr`. Every rule is checked against a corpus of cases computed by PyTorch 2.15
//! (`tests/conformance.rs`).
//!
//! ```
//! use tensile::{Tensor, DType};
//! let x = Tensor::ones_with(&[5, 3, 4, 1], DType::Float32).unwrap();
//! let y = Tensor::ones_with(&[3, 1, 1], DType::Float32).unwrap();
//! let z = x.add(&y).unwrap();
//! assert_eq!(z.size(), &[5, 3, 4, 1]);
//! ```
//!
//! Layout of the crate: pure shape and stride algebra ([`layout`], [`broadcast`], [`dim`]),
//! the tensor type ([`Tensor`]), PyTorch's random streams ([`random`]), the pointwise engine (`iter`, modelled on PyTorch's
//! TensorIterator) and its kernels (with storage, where `unsafe` code belongs), and the ops, one
//! file per family.

// `unsafe` belongs to storage, the engine and kernels (issue 29): every other module reaches
// tensor memory through the engine's safe entry points (`iter::Plan`, `iter::dense`).
#![deny(unsafe_code)]

pub mod args;
pub mod autograd;
pub mod backcompat;
pub mod broadcast;
pub mod data;
pub mod dim;
pub mod distributions;
pub mod dtype;
pub mod element;
pub mod error;
pub mod explain;
#[doc(hidden)]
pub mod geometry;
pub mod io;
pub mod layout;
pub mod linalg;
pub mod random;
pub mod warnings;

pub mod nn;
pub mod optim;

mod generator;
mod index;
#[allow(unsafe_code)]
mod iter;
#[allow(unsafe_code)]
mod kernels;
mod macros;
mod ops;
mod optable;
mod print;
#[allow(unsafe_code)]
mod storage;
mod tensor;
mod views;

pub use args::{Int, IntoDims, IntoShape, Number};
pub use autograd::{GradFn, enable_grad, is_grad_enabled, no_grad, set_grad_enabled};
pub use dtype::{DType, FInfo, IInfo, promote_types};
pub use element::Element;
pub use error::{Error, ErrorKind, Result};
pub use index::{SliceRange, TensorIndex};
pub use ops::Operand;
pub use ops::advindex::{IndexEntry, IndexList, IndexPutOpts};
pub use ops::creation::{
    ArangeArgs, EyeOpts, LogspaceOpts, TensorOptions, meshgrid, meshgrid_with, tril_indices,
    tril_indices_with, triu_indices, triu_indices_with,
};
pub use ops::einsum::{TensordotDims, einsum, tensordot};
pub use ops::gather_scatter::{ScatterOpts, ScatterReduceOpts, TakeAlongDimOpts};
pub use ops::index_ops::{IndexAddOpts, IndexReduceOpts};
pub use ops::masked::where_cond_only;
pub use ops::math_binary::{AddOpts, DivOpts};
pub use ops::matmul::AddmmOpts;
pub use ops::nn::{ClampOpts, LayerNormOpts, NormalizeOpts};
pub use ops::reduce::{ArgmaxOpts, VarOpts};
pub use ops::reduce::{NansumOpts, NormOpts, NormP};
pub use ops::scan::DiffOpts;
pub use ops::shape::{
    CombinationsOpts, DiagEmbedOpts, RepeatInterleaveOpts, Repeats, TensorSplitArg, atleast_1d,
    atleast_2d, atleast_3d, cartesian_prod, column_stack, combinations, combinations_with, dstack,
    hstack, repeat_interleave, vstack,
};
pub use ops::sort::{
    BucketizeOpts, IsinOpts, KthvalueOpts, SearchsortedOpts, SortOpts, TopkOpts,
    UniqueConsecutiveOpts, UniqueOpts, UniqueOutput, bucketize, bucketize_with, isin, isin_with,
    searchsorted, searchsorted_with,
};
pub use ops::unary_math::{LogitOpts, NanToNumOpts};
pub use optable::binary::{
    bitwise_left_shift, bitwise_right_shift, float_power, pow, rsub, rsub_with, special, xlogy,
};
pub use optable::conv::{
    conv_transpose1d, conv_transpose1d_with, conv_transpose2d, conv_transpose2d_with,
    conv_transpose3d, conv_transpose3d_with, conv1d, conv1d_with, conv2d, conv2d_with, conv3d,
    conv3d_with,
};
pub use optable::linalg::{addmm, addmm_with, baddbmm, baddbmm_with};
pub use optable::nn::{CdistOpts, cdist, cdist_with};
pub use optable::reduce::{std_mean, std_mean_with, var_mean, var_mean_with};
pub use optable::resample::{pixel_shuffle, pixel_unshuffle};
pub use optable::rnn::{
    RnnCellOpts, RnnOpts, gru, gru_cell, gru_cell_with, gru_with, lstm, lstm_cell, lstm_cell_with,
    lstm_with, rnn_relu, rnn_relu_cell, rnn_relu_cell_with, rnn_relu_with, rnn_tanh, rnn_tanh_cell,
    rnn_tanh_cell_with, rnn_tanh_with,
};
pub use optable::shape::{block_diag, cat, cat_with, stack, stack_with};
pub use optable::ternary::where_cond;
pub use optable::{
    ActivationId, BinaryId, ConvId, CopyId, IndexId, LinalgId, LossId, MaskedId, MathId, MomentsId,
    NnId, NormId, OpId, OptimId, PoolId, RandomId, ReduceId, ScanId, SelectId, ShapeId, SoftmaxId,
    TernaryId, UnaryId, ViewId,
};
pub use random::{
    BernoulliOpts, CauchyOpts, ExponentialOpts, Generator, GeneratorOpts, LogNormalOpts,
    MultinomialOpts, NormalOpts, RandOpts, RandomOpts, UniformOpts, default_generator,
    get_rng_state, initial_seed, manual_seed, normal, normal_with, poisson, poisson_with, seed,
    set_rng_state,
};
pub use storage::{MappedFile, TypedStorage};
pub use tensor::{Scalar, Tensor};
pub use views::{DiagonalOpts, FlattenOpts, SplitSizes, SplitSpec, broadcast_tensors};

impl std::fmt::Display for Tensor {
    /// PyTorch's `repr(t)`, character for character (precision 4, threshold 1000, edgeitems 3,
    /// linewidth 80).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = print::repr(self);
        f.write_str(&s)
    }
}

/// `torch.set_num_threads(n)`: the number of threads an op splits its work over (intra-op
/// parallelism), for ops called from this thread from now on and for every thread that has
/// not yet run an op (or called [`get_num_threads`]); threads that have keep their count.
/// This is how PyTorch behaves with its OpenMP backend (`omp_set_num_threads` sets the
/// calling thread's count). It may be called at any time.
///
/// Before any call, a thread's count is `RAYON_NUM_THREADS` when that is a positive integer,
/// else the number of CPUs. The threads are tensile's own (one pool per count in use, started
/// on first use, see `kernels/par.rs`), never rayon's global pool nor a pool the caller runs
/// in: an op called from a rayon task blocks that task's thread while its kernels run, and
/// that thread runs no other task meanwhile. With `n == 1` ops run on the calling thread.
///
/// Errors: `set_num_threads expects a positive integer` (RuntimeError, `n <= 0`; a `u64` or
/// `usize` above `i64::MAX` is a negative int, as everywhere); `Overflow when unpacking long`
/// (ValueError, `n` outside int32, as PyTorch's binding).
pub fn set_num_threads(n: impl Int) -> Result<()> {
    kernels::par::set_threads(checked_threads(n)?);
    Ok(())
}

/// The calling thread's intra-op thread count alone (no PyTorch counterpart): unlike
/// [`set_num_threads`], it leaves the default of threads yet to run an op unchanged. What
/// tensile's data-loader worker threads call with `n = 1`, as each of PyTorch's worker
/// processes calls `torch.set_num_threads(1)` (process-wide there, which for a process of its
/// own is the same); for a user's own worker threads likewise.
///
/// Errors: as [`set_num_threads`]: `set_num_threads expects a positive integer`
/// (RuntimeError, `n <= 0`); `Overflow when unpacking long` (ValueError, `n` outside int32).
pub fn set_thread_num_threads(n: impl Int) -> Result<()> {
    let n = checked_threads(n)?;
    kernels::par::set_own_threads(n);
    Ok(())
}

/// `n` as a thread count: PyTorch's checks of `torch.set_num_threads`.
fn checked_threads(n: impl Int) -> Result<usize> {
    let n = n.to_i64();
    if n > i32::MAX as i64 || n < i32::MIN as i64 {
        return Err(Error::value("Overflow when unpacking long"));
    }
    if n <= 0 {
        return Err(Error::runtime("set_num_threads expects a positive integer"));
    }
    Ok(n as usize)
}

/// `torch.get_num_threads()`: the number of threads ops called from this thread split their
/// work over (see [`set_num_threads`]).
pub fn get_num_threads() -> usize {
    kernels::par::threads()
}

/// The README's Rust examples, compiled and run as doctests so that the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
