//! What a model needs next to the reductions and `matmul`: `index_select`, `embedding`,
//! `layer_norm`, `clamp`, `masked_fill`, `normalize` (`linear` lives with `matmul`).
//! Each op's output is fresh; one too large to allocate gives `DefaultCPUAllocator: can't
//! allocate memory: …`.

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
fn select_rows(t: &Tensor, dim: usize, idx: &[usize]) -> Result<Tensor> {
    let src = t.contiguous();
    let mut shape = t.sizes.to_vec();
    if t.dim() > 0 {
        shape[dim] = idx.len();
    }
    let out = Tensor::try_alloc(&shape, &contiguous_strides(&shape), t.dtype)?;
    if t.dim() == 0 {
        copy_unchecked(&out, &src);
        return Ok(out);
    }
    let outer: usize = t.sizes[..dim].iter().product();
    let inner: usize = t.sizes[dim + 1..].iter().product();
    gather::index_select_rows(&src, &out, idx, outer, t.sizes[dim], inner);
    Ok(out)
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
    let rows = select_rows(weight, 0, &idx)?;
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
    /// index`; `index out of range in self` (IndexError; negative indices are out of range) —
    /// for dim 1 of a tensor with more dims, PyTorch's fast path says
    /// `INDICES element is out of DATA bounds, id=3 axis_dim=3` (RuntimeError), and for an
    /// empty multi-dim `self`, `index_select(): self indexing axis dim should be positive` or
    /// `index_select(): index 3 out of range for tensor of size [0, 3] at dimension 1`
    /// (IndexError; negative indices wrap there).
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
        let values = index.to_vec::<i64>();
        let bad = values
            .iter()
            .copied()
            .find(|&i| i < 0 || i as u64 >= size as u64);
        if self.dim() > 1 && !values.is_empty() {
            // PyTorch's multi-dim paths check differently: an empty self wraps negative
            // indices, and dim 1 takes a fast path with its own message
            if self.numel() == 0 {
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
                            fmt_list(&self.sizes)
                        )));
                    }
                }
                return select_rows(self, d, &vec![0; values.len()]);
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
        select_rows(self, d, &idx)
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
        let y = Tensor::try_alloc(&self.sizes, &contiguous_strides(&self.sizes), self.dtype)?;
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
    /// `"clamp_scalar_cpu" not implemented for 'Bool'` (NotImplementedError; `clamp_min_scalar_cpu`
    /// or `clamp_max_scalar_cpu` when only one bound is given).
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
            let kernel = match (min, max) {
                (Some(_), None) => "clamp_min_scalar_cpu",
                (None, Some(_)) => "clamp_max_scalar_cpu",
                _ => "clamp_scalar_cpu",
            };
            return Err(Error::not_implemented(format!(
                "\"{kernel}\" not implemented for 'Bool'"
            )));
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
        let out = Tensor::try_alloc(&shape, &contiguous_strides(&shape), self.dtype)?;
        copy_unchecked(&out, self);
        let r = crate::where_(mask, &fill, &out)?;
        Ok(r.contiguous())
    }

    /// `torch.nn.functional.normalize(self, p, dim, eps)`: `self / max(‖self‖_p, eps)` with
    /// the p-norm taken along `dim` (kept as size 1, then broadcast).
    ///
    /// Shape and dtype: `self`'s (floats only). `p` may be any positive number, `0`, or ±∞.
    ///
    /// Errors: `linalg.vector_norm: Expected a floating point or complex tensor as input. Got
    /// Long` (NotImplementedError); `Dimension out of range (…)` (IndexError).
    pub fn normalize(&self, p: f64, dim: i64, eps: f64) -> Result<Tensor> {
        let norm = crate::ops::reduce::vector_norm(self, p, &[dim], true)?;
        let denom = norm.maximum(eps)?;
        self.div(&denom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// float32 tolerance of the corpus (`torch.testing.assert_close`).
    fn assert_close(got: &Tensor, want: &[f64]) {
        let g = got.to_vec::<f64>();
        assert_eq!(g.len(), want.len(), "{g:?} vs {want:?}");
        for (a, b) in g.iter().zip(want) {
            assert!(
                (a - b).abs() <= 1e-5 + 1.3e-6 * b.abs(),
                "{g:?} vs {want:?}"
            );
        }
    }

    fn x34() -> Tensor {
        Tensor::from_vec(
            vec![
                1.0f32, 2.0, 4.0, -3.0, 0.5, 0.5, 0.5, 0.5, 10.0, -2.0, 3.0, 7.0,
            ],
            &[3, 4],
        )
        .unwrap()
    }

    // Expected values below were computed by PyTorch 2.15 (CPU) on the same inputs.

    #[test]
    fn layer_norm_matches_pytorch() {
        let x = x34();
        let w = Tensor::from_vec(vec![1.0f32, 0.5, -2.0, 3.0], &[4]).unwrap();
        let b = Tensor::from_vec(vec![0.0f32, 1.0, 0.25, -1.0], &[4]).unwrap();
        let y = x.layer_norm(&[4], Some(&w), Some(&b), 1e-5).unwrap();
        assert_eq!(
            (y.size(), y.stride(), y.dtype()),
            (&[3usize, 4][..], &[4usize, 1][..], DType::Float32)
        );
        assert_close(
            &y,
            &[
                0.0,
                1.1961159706115723,
                -2.1033918857574463,
                -5.706783771514893,
                0.0,
                1.0,
                0.25,
                -1.0,
                1.2222219705581665,
                0.27777791023254395,
                0.9166665077209473,
                0.6666663885116577,
            ],
        );
        let y = x.layer_norm(&[3, 4], None, None, 1e-5).unwrap();
        assert_close(
            &y,
            &[
                -0.2876778542995453,
                3.4293876183255634e-08,
                0.5753557682037354,
                -1.4383894205093384,
                -0.4315167963504791,
                -0.4315167963504791,
                -0.4315167963504791,
                -0.4315167963504791,
                2.3014230728149414,
                -1.1507115364074707,
                0.28767791390419006,
                1.4383894205093384,
            ],
        );
        // a transposed input gives the same values in a fresh contiguous output
        let xt = x.view_with(vec![4, 3], vec![1, 4], 0).contiguous();
        let xtt = xt.view_with(vec![3, 4], vec![1, 3], 0);
        let y = xtt.layer_norm(&[4], None, None, 1e-5).unwrap();
        assert_eq!(y.stride(), &[4, 1]);
        assert_close(
            &y,
            &[
                0.0,
                0.3922319710254669,
                1.1766959428787231,
                -1.5689278841018677,
                0.0,
                0.0,
                0.0,
                0.0,
                1.2222219705581665,
                -1.444444179534912,
                -0.33333325386047363,
                0.5555554628372192,
            ],
        );
    }

    #[test]
    fn layer_norm_errors() {
        let x = Tensor::ones(&[2, 3], DType::Float32);
        let e = |r: Result<Tensor>| r.unwrap_err().to_string();
        assert_eq!(
            e(x.layer_norm(&[], None, None, 1e-5)),
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []"
        );
        assert_eq!(
            e(x.layer_norm(&[3], Some(&Tensor::ones(&[4], DType::Float32)), None, 1e-5)),
            "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and normalized_shape = [3]"
        );
        assert_eq!(
            e(x.layer_norm(&[2, 4], None, None, 1e-5)),
            "Given normalized_shape=[2, 4], expected input with shape [*, 2, 4], but got input of size[2, 3]"
        );
        assert_eq!(
            e(x.layer_norm(&[3], Some(&Tensor::ones(&[3], DType::Float64)), None, 1e-5)),
            "mixed dtype (CPU): expect parameter to have scalar type of Float"
        );
        let xi = Tensor::ones(&[2, 3], DType::Int64);
        let err = xi.layer_norm(&[3], None, None, 1e-5).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::NotImplementedError);
        assert_eq!(
            err.to_string(),
            "\"LayerNormKernelImpl\" not implemented for 'Long'"
        );
        // float16 input with float32 parameters is PyTorch's supported mixed case
        let xh = x.to(DType::Float16).unwrap();
        let y = xh
            .layer_norm(&[3], Some(&Tensor::ones(&[3], DType::Float32)), None, 1e-5)
            .unwrap();
        assert_eq!(y.dtype(), DType::Float16);
        assert_eq!(y.to_vec::<f64>(), vec![0.0; 6]);
    }

    #[test]
    fn normalize_matches_pytorch() {
        let x = x34();
        assert_close(
            &x.normalize(2.0, 1, 1e-12).unwrap(),
            &[
                0.18257418274879456,
                0.3651483654975891,
                0.7302967309951782,
                -0.5477225184440613,
                0.5,
                0.5,
                0.5,
                0.5,
                0.7856741547584534,
                -0.15713483095169067,
                0.235702246427536,
                0.5499719381332397,
            ],
        );
        assert_close(
            &x.normalize(2.0, 0, 1e-12).unwrap(),
            &[
                0.09938080608844757,
                0.6963106393814087,
                0.796029806137085,
                -0.39307308197021484,
                0.049690403044223785,
                0.17407765984535217,
                0.09950372576713562,
                0.06551218032836914,
                0.9938080310821533,
                -0.6963106393814087,
                0.5970223546028137,
                0.9171704649925232,
            ],
        );
        let r = Tensor::from_vec(vec![3.0f32, -4.0], &[1, 2]).unwrap();
        assert_close(
            &r.normalize(1.0, 1, 1e-12).unwrap(),
            &[0.4285714328289032, -0.5714285969734192],
        );
        assert_close(
            &r.normalize(f64::INFINITY, 1, 1e-12).unwrap(),
            &[0.75, -1.0],
        );
        assert_close(
            &r.normalize(3.0, 1, 1e-12).unwrap(),
            &[0.666971743106842, -0.8892956972122192],
        );
        // a zero row divides by eps: zeros
        assert_close(
            &Tensor::zeros(&[1, 2], DType::Float32)
                .normalize(2.0, 1, 1e-12)
                .unwrap(),
            &[0.0, 0.0],
        );
        let err = Tensor::ones(&[2, 3], DType::Int64)
            .normalize(2.0, 1, 1e-12)
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::NotImplementedError);
        assert_eq!(
            err.to_string(),
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"
        );
        assert_eq!(
            Tensor::ones(&[3], DType::Float32)
                .normalize(2.0, 1, 1e-12)
                .unwrap_err()
                .to_string(),
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
        );
    }

    #[test]
    fn clamp_semantics() {
        let x = Tensor::from_vec(vec![1i64, 5, 9], &[3]).unwrap();
        let y = x
            .clamp(Some(Scalar::Float(2.5)), Some(Scalar::Int(6)))
            .unwrap();
        assert_eq!(y.dtype(), DType::Float32);
        assert_eq!(y.to_vec::<f64>(), vec![2.5, 5.0, 6.0]);
        let y = x.clamp(Some(Scalar::Int(6)), Some(Scalar::Int(2))).unwrap();
        assert_eq!(
            (y.dtype(), y.to_vec::<i64>()),
            (DType::Int64, vec![2, 2, 2])
        );
        let f = Tensor::from_vec(vec![f32::NAN, 5.0], &[2]).unwrap();
        let y = f
            .clamp(Some(Scalar::Int(6)), Some(Scalar::Int(7)))
            .unwrap()
            .to_vec::<f64>();
        assert!(y[0].is_nan() && y[1] == 6.0);
        assert_eq!(
            f.clamp(None, None).unwrap_err().to_string(),
            "torch.clamp: At least one of 'min' or 'max' must not be None"
        );
        let b = Tensor::ones(&[2], DType::Bool);
        assert_eq!(
            b.clamp(Some(Scalar::Bool(false)), None)
                .unwrap_err()
                .to_string(),
            "\"clamp_min_scalar_cpu\" not implemented for 'Bool'"
        );
        let y = b.clamp(Some(Scalar::Int(0)), None).unwrap();
        assert_eq!((y.dtype(), y.to_vec::<i64>()), (DType::Int64, vec![1, 1]));
    }

    #[test]
    fn masked_fill_semantics() {
        let x = Tensor::ones(&[3], DType::Float32);
        let m = Tensor::from_vec(vec![true, false], &[2, 1]).unwrap();
        let y = x.masked_fill(&m, 2.0).unwrap();
        assert_eq!((y.size(), y.stride()), (&[2usize, 3][..], &[3usize, 1][..]));
        assert_eq!(y.to_vec::<f64>(), vec![2.0, 2.0, 2.0, 1.0, 1.0, 1.0]);
        let xi = Tensor::ones(&[3], DType::Int64);
        let y = xi
            .masked_fill(&Tensor::ones(&[3], DType::Bool), 2.7)
            .unwrap();
        assert_eq!(
            (y.dtype(), y.to_vec::<i64>()),
            (DType::Int64, vec![2, 2, 2])
        );
        assert_eq!(
            x.masked_fill(&Tensor::ones(&[3], DType::UInt8), 0)
                .unwrap_err()
                .to_string(),
            "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
        );
        assert_eq!(
            x.masked_fill(&Tensor::ones(&[4], DType::Bool), 0)
                .unwrap_err()
                .to_string(),
            "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 0"
        );
        assert_eq!(
            Tensor::ones(&[3], DType::UInt8)
                .masked_fill(&Tensor::ones(&[3], DType::Bool), 300)
                .unwrap_err()
                .to_string(),
            "value cannot be converted to type uint8_t without overflow"
        );
    }

    #[test]
    fn index_select_and_embedding() {
        let x = Tensor::arange(0.0, 6.0, 1.0, DType::Float32)
            .unwrap()
            .view_with(vec![2, 3], vec![3, 1], 0);
        let i = Tensor::from_vec(vec![2i64, 0, 2], &[3]).unwrap();
        let y = x.index_select(1, &i).unwrap();
        assert_eq!(
            (y.size(), y.to_vec::<f64>()),
            (&[2usize, 3][..], vec![2.0, 0.0, 2.0, 5.0, 3.0, 5.0])
        );
        let y = x
            .index_select(-2, &Tensor::from_vec(vec![1i32], &[1]).unwrap())
            .unwrap();
        assert_eq!(y.to_vec::<f64>(), vec![3.0, 4.0, 5.0]);
        // transposed input
        let xt = x.view_with(vec![3, 2], vec![1, 3], 0);
        assert_eq!(
            xt.index_select(0, &i).unwrap().to_vec::<f64>(),
            vec![2.0, 5.0, 0.0, 3.0, 2.0, 5.0]
        );
        // a 0-d index keeps the dim (size 1)
        let y = x
            .index_select(1, &Tensor::scalar_tensor(2, DType::Int64))
            .unwrap();
        assert_eq!(
            (y.size(), y.to_vec::<f64>()),
            (&[2usize, 1][..], vec![2.0, 5.0])
        );
        let e = |r: Result<Tensor>| {
            let e = r.unwrap_err();
            (e.kind(), e.to_string())
        };
        use crate::ErrorKind::*;
        assert_eq!(
            e(x.index_select(0, &Tensor::ones(&[2, 2], DType::Int64))),
            (
                IndexError,
                "index_select(): Index is supposed to be a vector".into()
            )
        );
        assert_eq!(
            e(x.index_select(0, &Tensor::ones(&[2], DType::Float32))),
            (
                RuntimeError,
                "index_select(): Expected dtype int32 or int64 for index".into()
            )
        );
        let oob = Tensor::from_vec(vec![3i64], &[1]).unwrap();
        assert_eq!(
            e(x.index_select(0, &oob)),
            (IndexError, "index out of range in self".into())
        );
        assert_eq!(
            e(x.index_select(1, &oob)),
            (
                RuntimeError,
                "INDICES element is out of DATA bounds, id=3 axis_dim=3".into()
            )
        );

        let w = Tensor::arange(0.0, 6.0, 1.0, DType::Float32)
            .unwrap()
            .view_with(vec![3, 2], vec![2, 1], 0);
        let ids = Tensor::from_vec(vec![2i64, 0, 1, 1], &[2, 2]).unwrap();
        let y = embedding(&w, &ids).unwrap();
        assert_eq!(
            (y.size(), y.stride()),
            (&[2usize, 2, 2][..], &[4usize, 2, 1][..])
        );
        assert_eq!(
            y.to_vec::<f64>(),
            vec![4.0, 5.0, 0.0, 1.0, 2.0, 3.0, 2.0, 3.0]
        );
        let y = embedding(&w, &Tensor::scalar_tensor(1, DType::Int64)).unwrap();
        assert_eq!(
            (y.size(), y.to_vec::<f64>()),
            (&[2usize][..], vec![2.0, 3.0])
        );
        assert_eq!(
            e(embedding(&w, &Tensor::ones(&[2], DType::Float32))),
            (
                RuntimeError,
                "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)".into()
            )
        );
        assert_eq!(
            e(embedding(&w, &Tensor::from_vec(vec![-1i64], &[1]).unwrap())),
            (IndexError, "index out of range in self".into())
        );
        assert_eq!(
            e(embedding(&Tensor::ones(&[3], DType::Float32), &ids)),
            (RuntimeError, "'weight' must be 2-D".into())
        );
    }
}
