//! Conversion between tensors and `ndarray` arrays (cargo feature `ndarray`, off by default):
//! the Rust counterpart of PyTorch's `t.numpy()` / `torch.from_numpy(a)`. Both directions copy
//! (tensile storages are shared and lockable, an `ndarray` array owns or borrows plain memory).

use ndarray::{ArrayBase, ArrayD, Data, Dimension, IxDyn};

use crate::Tensor;
use crate::element::Element;
use crate::error::{Error, Result};

impl Tensor {
    /// `t.numpy()` as an owned `ndarray::ArrayD<T>`: the tensor's shape (0-d → a 0-d array),
    /// its values in logical order (any strides, views, expanded tensors), cast to `T` as
    /// [`Tensor::to_vec`] casts (PyTorch's `.to()` rules) when `T` is not the tensor's dtype.
    /// `T` is any tensile element type (`bool`, `u8`, `i8`, `i16`, `i32`, `i64`, `half::f16`,
    /// `half::bf16`, `f32`, `f64`).
    ///
    /// Error: the allocator's, when the copy's memory can't be had:
    /// `[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes. Error code 12 (Cannot allocate memory)`.
    pub fn to_ndarray<T: Element>(&self) -> Result<ArrayD<T>> {
        let v = self.try_to_vec::<T>()?;
        ArrayD::from_shape_vec(IxDyn(self.size()), v)
            .map_err(|e| Error::runtime(format!("to_ndarray: {e}")))
    }

    /// `torch.from_numpy(a)` (a copy): a contiguous tensor of `a`'s shape and `T`'s dtype
    /// holding `a`'s elements in logical (row-major) order, whatever `a`'s strides (negative
    /// and Fortran-order strides included). Accepts owned arrays and views of any dimension.
    ///
    /// Errors: as [`Tensor::from_vec`] (`numel: integer multiplication overflow`), and the
    /// allocator's.
    pub fn from_ndarray<T: Element, S: Data<Elem = T>, D: Dimension>(
        a: &ArrayBase<S, D>,
    ) -> Result<Tensor> {
        match a.as_slice() {
            Some(s) => Tensor::from_slice(s, a.shape()),
            None => Tensor::from_vec(a.iter().copied().collect(), a.shape()),
        }
    }
}
