//! What a model needs next to the reductions and `matmul`: `index_select`, `embedding`,
//! `layer_norm`, `clamp`, `masked_fill`, `normalize` (`linear` lives with `matmul`).

use crate::broadcast::infer_size;
use crate::dim::wrap_dim;
use crate::dtype::{DType, ResultTypeState};
use crate::error::{Error, Result, fmt_list};
use crate::kernels::gather;
use crate::layout::contiguous_strides;
use crate::ops::copy::copy_unchecked;
use crate::tensor::{Scalar, Tensor};

/// Reads the values of an index tensor (int32 or int64, checked by the caller) and checks each
/// against `size`: `index out of range in self` (IndexError). Negative indices are out of range.
fn checked_indices(index: &Tensor, size: usize) -> Result<Vec<usize>> {
    index
        .to_vec::<i64>()
        .into_iter()
        .map(|i| {
            if i < 0 || i as u64 >= size as u64 {
                Err(Error::index("index out of range in self"))
            } else {
                Ok(i as usize)
            }
        })
        .collect()
}

/// `index_select` once the checks have passed: gathers `idx` along `dim` into a fresh
/// contiguous tensor.
fn select_rows(t: &Tensor, dim: usize, idx: &[usize]) -> Tensor {
    let src = t.contiguous();
    let mut shape = t.sizes.to_vec();
    if t.dim() > 0 {
        shape[dim] = idx.len();
    }
    let out = Tensor::alloc(&shape, &contiguous_strides(&shape), t.dtype, false);
    if t.dim() == 0 {
        copy_unchecked(&out, &src);
        return out;
    }
    let outer: usize = t.sizes[..dim].iter().product();
    let inner: usize = t.sizes[dim + 1..].iter().product();
    gather::index_select_rows(&src, &out, idx, outer, t.sizes[dim], inner);
    out
}

fn check_index_dtype(index: &Tensor) -> Result<()> {
    if !matches!(index.dtype, DType::Int64 | DType::Int32) {
        return Err(Error::runtime(
            "index_select(): Expected dtype int32 or int64 for index",
        ));
    }
    Ok(())
}

/// `torch.nn.functional.embedding(indices, weight)`: row `indices[...]` of `weight`.
///
/// Shapes: `weight` `(num, dim)`, `indices` of any shape `S` (int64 or int32) → `S + (dim,)`,
/// fresh and contiguous.
///
/// Errors: `'weight' must be 2-D`; `Expected tensor for argument #1 'indices' to have one of
/// the following scalar types: Long, Int; but got torch.FloatTensor instead (while checking
/// arguments for embedding)`; `index out of range in self` (IndexError).
pub fn embedding(weight: &Tensor, indices: &Tensor) -> Result<Tensor> {
    if weight.dim() != 2 {
        return Err(Error::runtime("'weight' must be 2-D"));
    }
    if !matches!(indices.dtype, DType::Int64 | DType::Int32) {
        return Err(Error::runtime(format!(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {} instead (while checking arguments for embedding)",
            indices.dtype.legacy_type_name()
        )));
    }
    let idx = checked_indices(indices, weight.sizes[0])?;
    let rows = select_rows(weight, 0, &idx);
    let mut shape = indices.sizes.to_vec();
    shape.push(weight.sizes[1]);
    Ok(rows.view_with(shape.clone(), contiguous_strides(&shape), rows.offset))
}

/// `mixed dtype (CPU)` checks of `layer_norm`: parameters of another dtype than the input
/// must be float32, and then the input must be float16 or bfloat16.
fn check_layer_norm_dtypes(x: &Tensor, params: &[Option<&Tensor>]) -> Result<bool> {
    let mixed = params.iter().flatten().any(|p| p.dtype != x.dtype);
    if !mixed {
        return Ok(false);
    }
    if params.iter().flatten().any(|p| p.dtype != DType::Float32) {
        return Err(Error::runtime(
            "mixed dtype (CPU): expect parameter to have scalar type of Float",
        ));
    }
    if !matches!(x.dtype, DType::Float16 | DType::BFloat16) {
        return Err(Error::runtime(
            "mixed dtype (CPU): all inputs must share same datatype.",
        ));
    }
    Ok(true)
}

impl Tensor {
    /// `torch.index_select(self, dim, index)`: the slices `index[j]` of `self` along `dim`.
    ///
    /// Shapes: `self`'s with `dim` resized to `index.numel()`; `index` is 0-d or 1-d, int64 or
    /// int32. Output fresh and contiguous.
    ///
    /// Errors, in order: `Dimension out of range (…)` (IndexError); `index_select(): Index is
    /// supposed to be a vector` (IndexError); `index_select(): Index to scalar can have only 1
    /// value, got 2 value(s)` (IndexError); `index_select(): Expected dtype int32 or int64 for
    /// index`; `index out of range in self` (IndexError; negative indices are out of range).
    pub fn index_select(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim())?;
        if index.dim() > 1 {
            return Err(Error::index(
                "index_select(): Index is supposed to be a vector",
            ));
        }
        if self.dim() == 0 && index.numel() != 1 {
            return Err(Error::index(format!(
                "index_select(): Index to scalar can have only 1 value, got {} value(s)",
                index.numel()
            )));
        }
        check_index_dtype(index)?;
        let size = if self.dim() == 0 { 1 } else { self.sizes[d] };
        let idx = checked_indices(index, size)?;
        Ok(select_rows(self, d, &idx))
    }

    /// [`embedding`] as a method: `weight.embedding(indices)`.
    pub fn embedding(weight: &Tensor, indices: &Tensor) -> Result<Tensor> {
        embedding(weight, indices)
    }

    /// `torch.nn.functional.layer_norm(self, normalized_shape, weight, bias, eps)`: normalises
    /// over the last `normalized_shape.len()` dims, `(x - mean) / sqrt(var + eps) * weight + bias`
    /// with the biased variance (statistics in float64).
    ///
    /// Shapes: `self` `(*, *normalized_shape)`; `weight` and `bias` exactly `normalized_shape`;
    /// output as `self`, fresh and contiguous, `self`'s dtype. Float dtypes only; float16 and
    /// bfloat16 inputs may take float32 parameters.
    ///
    /// Errors: `Expected normalized_shape to be at least 1-dimensional, i.e., containing at least
    /// one element, but got normalized_shape = []`; `Expected weight to be of same shape as
    /// normalized_shape, but got weight of shape [3] and normalized_shape = [4]` (same for
    /// bias); `Given normalized_shape=[4], expected input with shape [*, 4], but got input of
    /// size[2, 3]`; `mixed dtype (CPU): expect parameter to have scalar type of Float`;
    /// `"LayerNormKernelImpl" not implemented for 'Long'`.
    pub fn layer_norm(
        &self,
        normalized_shape: &[usize],
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> Result<Tensor> {
        let k = normalized_shape.len();
        if k == 0 {
            return Err(Error::runtime(
                "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []",
            ));
        }
        for (name, p) in [("weight", weight), ("bias", bias)] {
            if let Some(p) = p
                && p.sizes[..] != *normalized_shape
            {
                return Err(Error::runtime(format!(
                    "Expected {name} to be of same shape as normalized_shape, but got {name} of shape {} and normalized_shape = {}",
                    fmt_list(&p.sizes),
                    fmt_list(normalized_shape)
                )));
            }
        }
        let nd = self.dim();
        if nd < k || self.sizes[nd - k..] != *normalized_shape {
            let tail: String = normalized_shape.iter().map(|s| format!(", {s}")).collect();
            return Err(Error::runtime(format!(
                "Given normalized_shape={}, expected input with shape [*{tail}], but got input of size{}",
                fmt_list(normalized_shape),
                fmt_list(&self.sizes)
            )));
        }
        let mixed = check_layer_norm_dtypes(self, &[weight, bias])?;
        if !self.dtype.is_floating_point() {
            return Err(Error::not_implemented(format!(
                "\"LayerNormKernelImpl\" not implemented for '{}'",
                self.dtype.scalar_type_name()
            )));
        }
        let n: usize = normalized_shape.iter().product();
        let rows = self.numel().checked_div(n).unwrap_or(0);
        let x = self.contiguous();
        let (w, b) = (weight.map(|t| t.contiguous()), bias.map(|t| t.contiguous()));
        let y = Tensor::alloc(
            &self.sizes,
            &contiguous_strides(&self.sizes),
            self.dtype,
            false,
        );
        macro_rules! run {
            ($T:ty, $P:ty) => {
                gather::layer_norm::<$T, $P>(&x, &y, w.as_ref(), b.as_ref(), rows, n, eps)
            };
        }
        match (self.dtype, mixed) {
            (DType::Float16, false) => run!(half::f16, half::f16),
            (DType::Float16, true) => run!(half::f16, f32),
            (DType::BFloat16, false) => run!(half::bf16, half::bf16),
            (DType::BFloat16, true) => run!(half::bf16, f32),
            (DType::Float64, _) => run!(f64, f64),
            _ => run!(f32, f32),
        }
        Ok(y)
    }

    /// `torch.clamp(self, min, max)`: `min(max(self, min), max)` elementwise; NaN stays NaN;
    /// where `min > max` every element becomes `max`.
    ///
    /// dtype: a float `self` keeps its dtype; otherwise the promotion of `self` with the
    /// numbers (an int tensor clamped by `0.5` gives float32). Shape and dim order: `self`'s.
    ///
    /// Errors: `torch.clamp: At least one of 'min' or 'max' must not be None`; a bool result:
    /// `"clamp_scalar_cpu" not implemented for 'Bool'` (NotImplementedError).
    pub fn clamp(&self, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
        if min.is_none() && max.is_none() {
            return Err(Error::runtime(
                "torch.clamp: At least one of 'min' or 'max' must not be None",
            ));
        }
        let dt = if self.dtype.is_floating_point() {
            self.dtype
        } else {
            let mut st = ResultTypeState::default();
            st.update(self.dtype, self.category());
            for s in min.iter().chain(max.iter()) {
                st.update(s.dtype(), crate::dtype::Category::Wrapped);
            }
            st.result()
        };
        if dt == DType::Bool {
            return Err(Error::not_implemented(
                "\"clamp_scalar_cpu\" not implemented for 'Bool'",
            ));
        }
        let x = self.to(dt)?;
        let lo = match min {
            Some(m) => x.maximum(m)?,
            None => x,
        };
        match max {
            Some(m) => lo.minimum(m),
            None => Ok(lo),
        }
    }

    /// `torch.masked_fill(self, mask, value)`: `value` (cast to `self`'s dtype) where `mask`
    /// is true, `self` elsewhere.
    ///
    /// Shapes: `mask` and `self` broadcast together; the output has the broadcast shape,
    /// `self`'s dtype, contiguous strides.
    ///
    /// Errors: `masked_fill_ only supports boolean masks, but got mask with dtype unsigned char`;
    /// `The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension
    /// 1` (a is the mask); `value cannot be converted to type uint8_t without overflow`.
    pub fn masked_fill(&self, mask: &Tensor, value: impl Into<Scalar>) -> Result<Tensor> {
        let value = value.into();
        if mask.dtype != DType::Bool {
            return Err(Error::runtime(format!(
                "masked_fill_ only supports boolean masks, but got mask with dtype {}",
                crate::ops::matmul::type_meta_name(mask.dtype)
            )));
        }
        let shape = infer_size(&mask.sizes, &self.sizes)?;
        let fill = Tensor::empty(&[], self.dtype);
        fill.fill_(value)?;
        let out = Tensor::alloc(&shape, &contiguous_strides(&shape), self.dtype, false);
        copy_unchecked(&out, self);
        let r = crate::where_(mask, &fill, &out)?;
        Ok(r.contiguous())
    }

    /// `torch.nn.functional.normalize(self, p, dim, eps)`: `self / max(‖self‖_p, eps)` with
    /// the p-norm taken along `dim` (kept as size 1, then broadcast).
    ///
    /// Shape and dtype: `self`'s (floats only). `p` may be any positive number, `0`, or ±∞.
    ///
    /// Errors: `Dimension out of range (…)` (IndexError); `linalg.vector_norm: Expected a
    /// floating point or complex tensor as input. Got Long`.
    pub fn normalize(&self, p: f64, dim: i64, eps: f64) -> Result<Tensor> {
        let norm = crate::ops::reduce::vector_norm(self, p, &[dim], true)?;
        let denom = norm.maximum(eps)?;
        self.div(&denom)
    }
}
