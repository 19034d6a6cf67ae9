//! Geometry: PyTorch's shape rules as pure functions over sizes, strides (in **elements**)
//! and arguments — no `Tensor`, no storage, no autograd. Forward ops, kernels and autograd
//! formulas all read them here (`../shared/design.md`, "Geometry is pure"), so none of them
//! reaches into another layer for a size.
//!
//! * [`view`]: view geometry (`view`, `expand`, `squeeze`, `narrow`, `select`, `slice`,
//!   `diagonal`, `unfold`, `as_strided`, `split`, `chunk`, …) and the checked constructor
//!   that keeps every byte offset within `i64`;
//! * [`pool`]: pooling output sizes, windows and argument checks (max, average, adaptive,
//!   unpooling);
//! * [`conv`]: convolution and transposed-convolution output sizes and shape checks,
//!   `padding="same"`, and the `unfold`/`fold` (im2col/col2im) block counts;
//! * [`resample`]: `F.interpolate`'s output sizes, scales, source indices and taps, and
//!   `F.pad`'s extents and source indices;
//! * [`index`]: advanced-indexing placement (where the indexed dims go, the result shape) and
//!   the row-major offsets the index kernels walk;
//! * [`einsum`]: `einsum` subscript parsing and validation;
//! * [`rnn`]: a recurrent cell's kind and gate count.
//!
//! Sizes and strides are a tensor's (so at most `i64::MAX`, which the view constructor
//! enforces); arithmetic that PyTorch does in int64 and that could overflow runs in `i128`.
//!
//! Errors are PyTorch's exact texts (the conformance corpus checks them), raised in
//! PyTorch's order. Everything here is core: it names only `error`, `dim`, `dtype` and
//! `layout` (`tests/layering.rs`). The module is public only so that the fuzz crate
//! (`fuzz/`, target `layout`) can drive it; it is not a stable API.

pub mod conv;
pub mod einsum;
pub mod index;
pub mod pool;
pub mod resample;
pub mod rnn;
pub mod view;
