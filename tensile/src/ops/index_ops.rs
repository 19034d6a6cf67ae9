//! The index ops along one dim: `index_select`, `index_add`, `index_copy`, `index_fill`,
//! `index_reduce` (and their in-place forms), with PyTorch's check order and error texts
//! (indexing-semantics §5.5–5.6). `index` is 0-d or 1-d; the slices `self.select(dim,
//! index[i])` receive `source.select(dim, i)` in the order of `i`. The methods and their
//! recording are in [`crate::optable::index`]; here are their forward functions.

use crate::dim::wrap_dim;
use crate::dtype::DType;
use crate::error::{Error, Result, fmt_list};
use crate::kernels::scatter::Reduce;
use crate::ops::Operand;
use crate::ops::copy::{clone_preserve, copy_unchecked};
use crate::ops::gather_scatter::{item_scalar, nonempty, scalar_as, scatter_copy};
use crate::ops::nn::select_rows;
use crate::tensor::{Scalar, Tensor};

fn check_index_dtype(index: &Tensor) -> Result<()> {
    if !matches!(index.dtype, DType::Int64 | DType::Int32) {
        return Err(Error::runtime(
            "index_select(): Expected dtype int32 or int64 for index",
        ));
    }
    Ok(())
}

/// `this`'s values (fresh, contiguous) with the slices `source.select(dim, i)` reduced by
/// `r` into the slices `idx[i]` along `dim` (values in range, checked by the caller), in the
/// order of `i`: a scatter along `dim` whose index is `idx` repeated over the other dims
/// (strides 0), so each index value moves whole rows. `source` has `this`'s rank or is 0-d.
fn index_scatter(
    this: &Tensor,
    dim: usize,
    idx: &[usize],
    source: &Tensor,
    r: Reduce,
    include_self: bool,
    alpha: Option<&Tensor>,
) -> Result<Tensor> {
    let mut shape = nonempty(&this.sizes);
    shape[dim] = idx.len();
    let mut istr = vec![0; shape.len()];
    istr[dim] = 1;
    let index = Tensor::from_vec(
        idx.iter().map(|&v| v as i64).collect::<Vec<_>>(),
        [idx.len()],
    )?;
    scatter_copy(
        this,
        dim,
        &index,
        (&shape, &istr),
        source,
        r,
        include_self,
        alpha,
    )
}

/// A list printed as C++'s `operator<<` of a `std::vector` does: `3 4`.
fn space_list(xs: &[usize]) -> String {
    xs.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The checks PyTorch's `index_add`/`index_reduce` share (`index_func_meta_impl`), with
/// `func` naming the op; `d` is the wrapped dim.
fn index_func_checks(
    this: &Tensor,
    d: usize,
    index: &Tensor,
    source: &Tensor,
    func: &str,
) -> Result<()> {
    if index.dim() > 1 {
        return Err(Error::index(format!(
            "{func}_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: {}",
            index.dim(),
            index.dtype.scalar_type_name(),
            fmt_list(&index.sizes)
        )));
    }
    if !matches!(index.dtype, DType::Int64 | DType::Int32) {
        return Err(Error::runtime(format!(
            "{func}_(): Expected dtype int32/int64 for index but got: {}",
            index.dtype.scalar_type_name()
        )));
    }
    if this.dtype != source.dtype {
        return Err(Error::runtime(format!(
            "{func}_(): self ({}) and source ({}) must have the same scalar type",
            this.dtype.scalar_type_name(),
            source.dtype.scalar_type_name()
        )));
    }
    if !(d == 0 || d < source.dim()) {
        return Err(Error::index(format!(
            "{func}_(): Indexing dim {d} is out of bounds of the source tensor with dim {}",
            source.dim()
        )));
    }
    let src_n = if source.dim() == 0 {
        1
    } else {
        source.sizes[d]
    };
    if index.numel() != src_n {
        if source.dim() == 0 {
            // PyTorch's message reads `source.size(dim)`, which fails on a 0-d source
            return Err(Error::index(
                "Dimension specified as 0 but tensor has no dimensions",
            ));
        }
        return Err(Error::runtime(format!(
            "{func}_(): Number of indices ({}) should be equal to source.size(dim): ({src_n}), for dim: {d}",
            index.numel()
        )));
    }
    let (mut a, mut b) = (this.sizes.to_vec(), source.sizes.to_vec());
    if source.dim() != 0 && this.dim() != 0 {
        a.remove(d);
        b.remove(d);
    }
    if a != b {
        return Err(Error::runtime(format!(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {} source.shape = {}",
            fmt_list(&this.sizes),
            fmt_list(&source.sizes)
        )));
    }
    Ok(())
}

/// Options of [`Tensor::index_add_with`]: `alpha` (default 1), cast to `self`'s dtype.
#[derive(Clone, Copy, Debug)]
pub struct IndexAddOpts {
    /// The factor applied to `source` (cast to `self`'s dtype: 1.5 becomes 1 for int64).
    pub alpha: Scalar,
}

impl Default for IndexAddOpts {
    fn default() -> Self {
        IndexAddOpts {
            alpha: Scalar::Int(1),
        }
    }
}

impl<N: crate::args::Number> From<N> for IndexAddOpts {
    fn from(alpha: N) -> Self {
        IndexAddOpts {
            alpha: alpha.to_scalar(),
        }
    }
}

/// Options of [`Tensor::index_reduce_with`]: `include_self` (default `true`).
#[derive(Clone, Copy, Debug)]
pub struct IndexReduceOpts {
    /// Whether `self`'s values take part in the reduction (default `true`).
    pub include_self: bool,
}

impl Default for IndexReduceOpts {
    fn default() -> Self {
        IndexReduceOpts { include_self: true }
    }
}

impl From<bool> for IndexReduceOpts {
    fn from(include_self: bool) -> Self {
        IndexReduceOpts { include_self }
    }
}

/// `index_fill`'s values: `self` (fresh, contiguous) with the slices at `index` (negative
/// values wrap) set to `value`.
fn index_fill_values(this: &Tensor, dim: i64, index: &Tensor, value: Scalar) -> Result<Tensor> {
    if index.dtype != DType::Int64 {
        return Err(Error::index(
            "index_fill_(): Expected dtype int64 for index.",
        ));
    }
    let shape = nonempty(&this.sizes);
    let d = wrap_dim(dim, shape.len())?;
    if index.dim() > 1 {
        return Err(Error::runtime("Index has to be a vector/scalar"));
    }
    let v = scalar_as(value, this.dtype)?;
    let size = shape[d];
    let idx: Vec<usize> = index
        .try_to_vec::<i64>()?
        .into_iter()
        .map(|i| {
            let w = if i < 0 { i + size as i64 } else { i };
            if w < 0 || w >= size as i64 {
                Err(Error::index(format!(
                    "index {i} is out of bounds for dimension {d} with size {size}"
                )))
            } else {
                Ok(w as usize)
            }
        })
        .collect::<Result<_>>()?;
    index_scatter(this, d, &idx, &v, Reduce::Assign, true, None)
}

/// The value of `index_fill`: a number, or a 0-d tensor (`index_fill_ only supports a
/// 0-dimensional value tensor, but got tensor with 1 dimension(s).`).
fn fill_value(value: Operand<'_>) -> Result<Scalar> {
    match value {
        Operand::Scalar(s) => Ok(s),
        Operand::Tensor(t) => {
            if t.dim() != 0 {
                return Err(Error::runtime(format!(
                    "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                    t.dim()
                )));
            }
            item_scalar(t)
        }
    }
}

/// The forward function of `torch.index_select(self, dim, index)`: the checks (errors as
/// [`Tensor::index_select`]), then the slices `index[j]` gathered into a fresh contiguous
/// tensor.
pub(crate) fn index_select_fwd(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let d = wrap_dim(dim, x.dim())?;
    if index.dim() > 1 {
        return Err(Error::index(
            "index_select(): Index is supposed to be a vector",
        ));
    }
    if x.dim() == 0 && index.numel() != 1 {
        return Err(Error::runtime(format!(
            "index_select(): Index to scalar can have only 1 value, got {} value(s)",
            index.numel()
        )));
    }
    check_index_dtype(index)?;
    let size = if x.dim() == 0 { 1 } else { x.sizes[d] };
    let values = index.try_to_vec::<i64>()?;
    let bad = values
        .iter()
        .copied()
        .find(|&i| i < 0 || i as u64 >= size as u64);
    if x.dim() > 1 && !values.is_empty() {
        // PyTorch's multi-dim paths check differently: an empty self wraps negative
        // indices, and dim 1 takes a fast path with its own message
        if x.numel() == 0 {
            if size == 0 {
                return Err(Error::runtime(
                    "index_select(): self indexing axis dim should be positive",
                ));
            }
            for &i in &values {
                let w = if i < 0 { i + size as i64 } else { i };
                if w < 0 || w >= size as i64 {
                    return Err(Error::index(format!(
                        "index_select(): index {w} out of range for tensor of size {} at dimension {d}",
                        fmt_list(&x.sizes)
                    )));
                }
            }
            return select_rows(x, d, &vec![0; values.len()]);
        }
        if let Some(i) = bad
            && d == 1
        {
            return Err(Error::runtime(format!(
                "INDICES element is out of DATA bounds, id={i} axis_dim={size}"
            )));
        }
    }
    if bad.is_some() {
        return Err(Error::index("index out of range in self"));
    }
    let idx: Vec<usize> = values.into_iter().map(|i| i as usize).collect();
    select_rows(x, d, &idx)
}

/// The forward function of `torch.index_add(self, dim, index, source, alpha)`: the checks
/// (errors as [`Tensor::index_add`]), then a contiguous copy of `self` with `alpha * source`'s
/// slices added at `index`.
pub(crate) fn index_add_fwd(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
    alpha: Scalar,
) -> Result<Tensor> {
    let d = wrap_dim(dim, x.dim())?;
    index_func_checks(x, d, index, source, "index_add")?;
    let shape = nonempty(&x.sizes);
    let size = shape[d];
    // PyTorch takes its scatter_add path (with its own bound message) for alpha == 1
    let unit = match alpha {
        Scalar::Bool(b) => b,
        Scalar::Int(i) => i == 1,
        Scalar::Float(f) => f == 1.0,
    };
    let scatter_path =
        unit && x.dim() >= 2 && index.dtype == DType::Int64 && (d == 0 || d == x.dim() - 1);
    let idx: Vec<usize> = index
        .try_to_vec::<i64>()?
        .into_iter()
        .map(|v| {
            if v >= 0 && (v as u64) < size as u64 {
                Ok(v as usize)
            } else if scatter_path {
                Err(Error::runtime(format!(
                    "index {v} is out of bounds for dimension {d} with size {size}"
                )))
            } else {
                Err(Error::index("index out of range in self"))
            }
        })
        .collect::<Result<_>>()?;
    // alpha is converted to self's dtype (with its range check) only when there is a slice
    // to add
    let a = scalar_as(
        if idx.is_empty() {
            Scalar::Int(1)
        } else {
            alpha
        },
        x.dtype,
    )?;
    index_scatter(x, d, &idx, source, Reduce::Sum, true, Some(&a))
}

/// The forward function of `torch.index_copy(self, dim, index, source)`: the checks (errors
/// as [`Tensor::index_copy`]), then a contiguous copy of `self` with `source`'s slices
/// written at `index`.
pub(crate) fn index_copy_fwd(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
) -> Result<Tensor> {
    let d = wrap_dim(dim, x.dim())?;
    if index.dim() >= 2 {
        return Err(Error::index(format!(
            "index_copy_(): Index should have dimension 1 or 0 (got {})",
            index.dim()
        )));
    }
    let n = index.numel();
    if source.dim() == 0 && n != 1 {
        return Err(Error::index(format!(
            "index_copy_(): When source is scalar, index should have one element (got {n})"
        )));
    } else if source.dim() != x.dim() && source.dim() != 0 && x.dim() != 0 {
        return Err(Error::index(format!(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source dimensionality ({}), destination dimensionality ({})",
            source.dim(),
            x.dim()
        )));
    }
    if index.dtype != DType::Int64 {
        return Err(Error::runtime(format!(
            "index_copy_(): Expected a long tensor for index, but got {}",
            index.dtype.scalar_type_name()
        )));
    }
    if x.dtype != source.dtype {
        return Err(Error::runtime(format!(
            "index_copy_(): self and source expected to have the same dtype, but got (self) {} and (source) {}",
            x.dtype.scalar_type_name(),
            source.dtype.scalar_type_name()
        )));
    }
    let (mut a, mut b) = (x.sizes.to_vec(), source.sizes.to_vec());
    if !a.is_empty() {
        a.remove(d);
    }
    if !b.is_empty() {
        b.remove(d);
    }
    if a != b {
        return Err(Error::runtime(format!(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: {} at dimension {d} and source slice shape: {} at dimension 0.",
            space_list(&a),
            space_list(&b)
        )));
    }
    if source.dim() != 0 && n != source.sizes[d] {
        return Err(Error::index(format!(
            "index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({})",
            source.sizes[d]
        )));
    }
    let shape = nonempty(&x.sizes);
    let size = shape[d];
    let idx: Vec<usize> = index
        .try_to_vec::<i64>()?
        .into_iter()
        .map(|v| {
            if v >= 0 && (v as u64) < size as u64 {
                Ok(v as usize)
            } else {
                Err(Error::index(format!(
                    "index_copy_(): index {v} is out of bounds for dimension {d} with size {size}"
                )))
            }
        })
        .collect::<Result<_>>()?;
    index_scatter(x, d, &idx, source, Reduce::Assign, true, None)
}

/// The forward function of `torch.index_fill(self, dim, index, value)`: a copy of `self`
/// keeping its memory layout, with the slices at `index` set to `value` (errors as
/// [`Tensor::index_fill`]).
pub(crate) fn index_fill_fwd(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    value: Operand<'_>,
) -> Result<Tensor> {
    let v = fill_value(value)?;
    let r = index_fill_values(x, dim, index, v)?;
    let out = clone_preserve(x)?;
    copy_unchecked(&out, &r);
    Ok(out)
}

/// `self.index_fill_(dim, index, value)` unrecorded (no in-place checks, no version bump):
/// the new values written into `x`.
pub(crate) fn index_fill_raw_(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    value: Operand<'_>,
) -> Result<()> {
    let v = fill_value(value)?;
    let r = index_fill_values(x, dim, index, v)?;
    x.copy_raw_(&r)?;
    Ok(())
}

/// The forward function of `torch.index_reduce(self, dim, index, source, reduce,
/// include_self)`: the checks (errors as [`Tensor::index_reduce`] and
/// [`Tensor::index_reduce_with`]), then a contiguous copy of `self` with the reduction at
/// `index`.
pub(crate) fn index_reduce_fwd(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
    reduce: &str,
    include_self: bool,
) -> Result<Tensor> {
    let r = match reduce {
        "prod" => Reduce::Prod,
        "mean" => Reduce::Mean,
        "amax" => Reduce::Max,
        "amin" => Reduce::Min,
        _ => {
            return Err(Error::runtime(format!(
                "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
            )));
        }
    };
    let d = wrap_dim(dim, x.dim())?;
    index_func_checks(x, d, index, source, "index_reduce")?;
    let bool_err = |k: &str| {
        Err(Error::not_implemented(format!(
            "\"{k}\" not implemented for 'Bool'"
        )))
    };
    if x.dtype == DType::Bool {
        if !include_self {
            return bool_err("index_reduce_func_exclude_input_init");
        }
        if x.dim() <= 1 {
            return bool_err("index_func_");
        }
    }
    if !include_self {
        // PyTorch first fills the indexed slices with the identity through
        // `index_fill_`, whose checks (negative indices wrap) come first
        index_fill_values(x, d as i64, &index.to(DType::Int64)?, Scalar::Int(0))?;
    }
    let shape = nonempty(&x.sizes);
    let size = shape[d];
    let idx: Vec<usize> = index
        .try_to_vec::<i64>()?
        .into_iter()
        .map(|v| {
            if v >= 0 && (v as u64) < size as u64 {
                Ok(v as usize)
            } else {
                Err(Error::index("index out of range in self"))
            }
        })
        .collect::<Result<_>>()?;
    // PyTorch 2.15 fails inside its first slice product for float16/bfloat16 when the
    // slices of a multi-dim self have one element
    if !idx.is_empty()
        && r == Reduce::Prod
        && matches!(x.dtype, DType::Float16 | DType::BFloat16)
        && x.dim() > 1
        && x.numel() == size
    {
        return Err(Error::runtime(
            "iter.ninputs() == traits::arity INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/cpu/Loops.h\":351, please report a bug to PyTorch. ",
        ));
    }
    if x.dtype == DType::Bool && r == Reduce::Mean {
        return bool_err("div_floor_cpu");
    }
    index_scatter(x, d, &idx, source, r, include_self, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_add_bound_message_follows_pytorchs_path() {
        let x = Tensor::zeros([4, 3]).unwrap();
        let i = Tensor::from_vec(vec![5i64], [1]).unwrap();
        let s = Tensor::ones([1, 3]).unwrap();
        let e = x.index_add(0, &i, &s).unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string()),
            (
                crate::ErrorKind::RuntimeError,
                "index 5 is out of bounds for dimension 0 with size 4".into()
            )
        );
        // alpha != 1 takes the slice-by-slice path
        let e = x.index_add_with(0, &i, &s, 2).unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string()),
            (
                crate::ErrorKind::IndexError,
                "index out of range in self".into()
            )
        );
        let ok = x
            .index_add_with(
                0,
                &Tensor::from_vec(vec![1i64, 1], [2]).unwrap(),
                &Tensor::ones([2, 3]).unwrap(),
                1.5,
            )
            .unwrap();
        assert_eq!(ok.to_vec::<f64>()[3..6], [3.0, 3.0, 3.0]);
    }
}
