//! Copies and casts: `copy_`, `fill_`, `to`, `contiguous`, `clone`: their forward functions
//! and the unchecked copies other ops use (the methods and their recording are in
//! [`crate::optable::copy`]).

use crate::dtype::DType;
use crate::dtype::check_fill_range;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::iter::TensorIter;
use crate::layout;
use crate::tensor::{Scalar, Tensor};

/// Copies `src` into `dst` (already shaped alike or broadcastable to it), casting as needed.
/// No checks: for freshly made outputs only (see [`crate::iter::copy_unchecked`]).
pub(crate) fn copy_unchecked(dst: &Tensor, src: &Tensor) {
    crate::iter::copy_unchecked(dst, src)
}

/// A copy of `t` with the given (dense) strides and dtype, or the allocator's error
/// ([`Tensor::try_alloc`]).
pub(crate) fn copy_with_strides(t: &Tensor, strides: &[usize], dtype: DType) -> Result<Tensor> {
    let out = Tensor::try_alloc(&t.sizes, strides, dtype)?;
    copy_unchecked(&out, t);
    Ok(out)
}

/// `clone()` with `preserve_format`, or the allocator's error.
pub(crate) fn clone_preserve(t: &Tensor) -> Result<Tensor> {
    copy_with_strides(
        t,
        &layout::preserve_format_strides(&t.sizes, &t.strides),
        t.dtype,
    )
}

/// Writes `value` (cast to the tensor's dtype) into every element; no checks.
pub(crate) fn fill_unchecked(t: &Tensor, value: Scalar) {
    let src = Tensor::wrapped_scalar(value);
    copy_unchecked(t, &src);
}

/// The forward function of `self.to(dtype)`: `None` when the dtype is unchanged (the op
/// returns `self`), else a copy with preserve-format strides, cast.
pub(crate) fn to_fwd(x: &Tensor, dtype: DType) -> Result<Option<Tensor>> {
    if dtype == x.dtype {
        return Ok(None);
    }
    copy_with_strides(
        x,
        &layout::preserve_format_strides(&x.sizes, &x.strides),
        dtype,
    )
    .map(Some)
}

/// The forward function of `contiguous()`: `None` when `x` is contiguous (the op returns
/// `x`), else a row-major copy.
pub(crate) fn contiguous_fwd(x: &Tensor) -> Result<Option<Tensor>> {
    if x.is_contiguous() {
        return Ok(None);
    }
    copy_with_strides(x, &layout::contiguous_strides(&x.sizes), x.dtype).map(Some)
}

/// The forward function of `contiguous(memory_format=torch.channels_last)`: `None` when `x`
/// is channels-last already (the op returns `x`), else a copy with channels-last strides.
/// Error: `required rank 4 tensor to use channels_last format`.
pub(crate) fn channels_last_fwd(x: &Tensor) -> Result<Option<Tensor>> {
    if x.dim() != 4 {
        return Err(Error::runtime(
            "required rank 4 tensor to use channels_last format",
        ));
    }
    if x.is_contiguous_channels_last() {
        return Ok(None);
    }
    copy_with_strides(x, &layout::channels_last_strides(&x.sizes), x.dtype).map(Some)
}

impl Tensor {
    /// As [`Tensor::to_vec`], with PyTorch's allocator error instead of an abort:
    /// `[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes. Error code 12 (Cannot allocate memory)`.
    pub fn try_to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let _lock = self.storage.read();
        crate::kernels::cast::try_gather::<T>(self.mem())
    }

    /// `self.copy_(src)` unrecorded (no checks of the in-place rule, no version bump).
    pub(crate) fn copy_raw_(&self, src: &Tensor) -> Result<Tensor> {
        let p = TensorIter::new(Some(self), &[src])?.plan::<2>(self.dtype)?;
        p.copy();
        Ok(p.into_out())
    }

    /// `self.fill_(value)` unrecorded (no checks of the in-place rule, no version bump).
    pub(crate) fn fill_raw_(&self, value: impl Into<Scalar>) -> Result<Tensor> {
        let value = value.into();
        check_fill_range(self.dtype, value)?;
        let once: crate::tensor::Dims = self
            .sizes
            .iter()
            .zip(&self.strides)
            .map(|(&n, &st)| if st == 0 && n > 1 { 1 } else { n })
            .collect();
        fill_unchecked(
            &self.view_with(once, self.strides.clone(), self.offset),
            value,
        );
        Ok(self.alias())
    }

    /// `self.contiguous()`: `self` (an alias) when already contiguous, else a row-major copy.
    ///
    /// Aborts the process like `Vec` when the copy's memory can't be had (an expanded input
    /// can name far more elements than its storage holds); [`Tensor::try_contiguous`] returns
    /// the error instead.
    pub fn contiguous(&self) -> Tensor {
        self.try_contiguous()
            .unwrap_or_else(|e| crate::error::abort_with(e))
    }
}

/// Copies whose two fastest dims are swapped, through the public API: they run the
/// register-tile transposes of [`crate::kernels::transpose`].
#[cfg(test)]
mod tests {
    use crate::dtype::DType;
    use crate::tensor::Tensor;

    /// Values 0, 1, 2, … of `dtype` (wrapping for narrow types) in the given shape.
    fn ramp(shape: &[usize], dtype: DType) -> Tensor {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n)
            .map(|i| (i % 97) as f64 + (i / 97 % 3) as f64)
            .collect();
        Tensor::from_vec(v, shape).unwrap().to(dtype).unwrap()
    }

    fn same(a: &Tensor, b: &Tensor) {
        assert_eq!(a.size(), b.size());
        assert_eq!(a.to_vec::<f64>(), b.to_vec::<f64>(), "{:?}", a.size());
    }

    #[test]
    fn tensor_copies_through_the_kernel() {
        let dtypes = [
            DType::Float32,
            DType::Float64,
            DType::Float16,
            DType::BFloat16,
            DType::Int64,
            DType::Int32,
            DType::Bool,
            DType::UInt8,
        ];
        for dt in dtypes {
            for (r, c) in [(8, 8), (17, 33), (64, 100), (1, 40), (40, 1), (200, 190)] {
                let a = ramp(&[r, c], dt);
                let t = a.t().unwrap();
                let out = t.contiguous();
                assert!(out.is_contiguous());
                same(&out, &t);
                // copy_ into a transposed destination.
                let dst = Tensor::zeros_with([c, r], dt).unwrap().t().unwrap();
                dst.copy_(&a).unwrap();
                same(&dst, &a);
            }
            // NCHW → NHWC, with a non-zero storage offset (narrow along N and C).
            let x = ramp(&[5, 40, 9, 11], dt);
            let v = x.narrow(0, 1, 3).unwrap().narrow(1, 2, 35).unwrap();
            assert!(v.storage_offset() > 0);
            let p = v.permute([0, 2, 3, 1]).unwrap();
            same(&p.contiguous(), &p);
            same(&v.contiguous_channels_last().unwrap(), &v);
            // Three channels: a thin source.
            let x = ramp(&[2, 3, 20, 21], dt).permute([0, 2, 3, 1]).unwrap();
            same(&x.contiguous(), &x);
            // Transposed views of non-contiguous tensors (40 of 80 columns, then every other one).
            for step in [1, 2] {
                let w = ramp(&[50, 80], dt)
                    .as_strided_with([50, 40], [80, step], 1)
                    .unwrap()
                    .t()
                    .unwrap();
                same(&w.contiguous(), &w);
            }
            // A batched transpose through transpose(1, 2).
            let b = ramp(&[3, 20, 30], dt).transpose(1, 2).unwrap();
            same(&b.contiguous(), &b);
        }
    }
}
