//! Every backward formula, one file per op family (PyTorch's `derivatives.yaml` as a table
//! of structs): each struct is one node type, its fields the non-tensor values it needs,
//! and its doc lists the saved tensors in the order `apply` reads them.
//!
//! Formulas compute with tensile's own public ops (the engine runs them with grad mode off)
//! and may return gradients in the broadcast shape or another float dtype: the engine reduces
//! them with [`sum_to`] and casts them.

pub(crate) mod activation;
pub(crate) mod attention;
pub(crate) mod binary_math;
pub(crate) mod cholesky;
pub(crate) mod conv;
pub(crate) mod distance;
pub(crate) mod distributions;
pub(crate) mod embedding;
pub(crate) mod index;
pub(crate) mod index_write;
pub(crate) mod linalg;
pub(crate) mod linalg_batch;
pub(crate) mod loss;
pub(crate) mod moments;
pub(crate) mod norm;
pub(crate) mod pointwise;
pub(crate) mod pool;
pub(crate) mod reduce;
pub(crate) mod resample;
pub(crate) mod rnn;
pub(crate) mod rsub;
pub(crate) mod scan;
pub(crate) mod shape;
pub(crate) mod views;

use crate::error::Result;
use crate::tensor::Tensor;

/// Spec §8: `g` summed down to `shape` (leading dims dropped, size-1 dims summed with
/// keepdim); `shape` must be expandable to `g`'s shape.
pub fn sum_to(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let lead = g.dim().saturating_sub(shape.len());
    let mut r = if lead > 0 {
        let dims: Vec<i64> = (0..lead as i64).collect();
        g.sum_dim(dims, false)?
    } else {
        g.alias()
    };
    let dims: Vec<i64> = (0..shape.len())
        .filter(|&d| shape[d] == 1 && r.size()[d] != 1)
        .map(|d| d as i64)
        .collect();
    if !dims.is_empty() {
        r = r.sum_dim(dims, true)?;
    }
    Ok(r)
}

/// The one gradient of a single-output node.
pub(crate) fn g0(grads: &[Option<Tensor>]) -> &Tensor {
    grads[0]
        .as_ref()
        .expect("the engine runs a node only with a gradient")
}
