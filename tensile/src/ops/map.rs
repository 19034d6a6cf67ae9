//! `map_f64`: a float64 function applied elementwise to N broadcast operands, on the pointwise
//! engine. The backward formulas' elementwise derivatives are written this way
//! (the formulas' `pointwise::map_n`); it is not a public op.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::map;
use crate::tensor::Tensor;

/// `f` applied to the elements of `ts` broadcast together (TensorIterator's shape and output
/// layout), each operand read as float64, the result rounded once to `dtype`. 1 to 5
/// operands; errors: the broadcast error of the operands' shapes.
pub(crate) fn map_f64(
    ts: &[&Tensor],
    dtype: DType,
    f: &(dyn Fn(&[f64]) -> f64 + Sync),
) -> Result<Tensor> {
    match ts.len() {
        1 => run::<2>(ts, dtype, f),
        2 => run::<3>(ts, dtype, f),
        3 => run::<4>(ts, dtype, f),
        4 => run::<5>(ts, dtype, f),
        5 => run::<6>(ts, dtype, f),
        n => Err(Error::runtime(format!(
            "internal error: map_f64 of {n} operands"
        ))),
    }
}

fn run<const N: usize>(
    ts: &[&Tensor],
    dtype: DType,
    f: &(dyn Fn(&[f64]) -> f64 + Sync),
) -> Result<Tensor> {
    crate::iter::run_new(ts, dtype, &map::map_f64_kernel::<N>(f))
}

/// `f(a, b)` elementwise in float32 over `a` and `b` broadcast (both float32; the caller
/// checks): the formulas' fast path for float32 gradients, computed as PyTorch's float kernels
/// compute them (in float32, vectorised).
pub(crate) fn map2_f32(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(f32, f32) -> f32 + Sync,
) -> Result<Tensor> {
    crate::iter::run_new(
        &[a, b],
        DType::Float32,
        &crate::kernels::pointwise::binary_kernel::<f32, f32>(f),
    )
}

/// `gelu`'s input gradient for float32 `g` and `x` (broadcast), on the vectorised kernel of
/// `kernels::vmath` (PyTorch's `GeluBackwardKernelImpl`).
pub(crate) fn gelu_backward_f32(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    crate::iter::run_new(
        &[g, x],
        DType::Float32,
        &crate::kernels::vmath::gelu_backward_kernel(),
    )
}
