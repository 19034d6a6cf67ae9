//! The [`Tensor`] type: shared storage + sizes + strides (elements) + storage offset + dtype,
//! its accessors, and its constructors.

use std::sync::Arc;

use smallvec::SmallVec;

use crate::args::IntoShape;
use crate::dtype::{Category, DType};
use crate::element::Element;
use crate::error::{Error, Result, fmt_list};
use crate::layout;
use crate::storage::Storage;

/// Sizes or strides: inline up to 4 dims, so most tensors do not allocate for their shape,
/// and a [`Tensor`] stays small enough (128 bytes) that moving one is a few register stores
/// rather than a `memcpy` call (small ops move their tensors several times).
pub(crate) type Dims = SmallVec<[usize; 4]>;

/// A strided, typed view of shared storage, with PyTorch's semantics.
///
/// * `size()` and `stride()` are per dim; strides count **elements**, not bytes.
/// * Views (`view`, `transpose`, `narrow`, indexing, …) share storage with their base: an
///   in-place op through a view writes into the base ([`Tensor::shares_storage`] tells).
/// * `Clone::clone` is PyTorch's `clone()`: a **copy** with preserve-format strides. To make
///   another handle on the same data (Python's `b = a`), use [`Tensor::alias`].
/// * `Tensor` is `Send + Sync`; see [`crate::storage`] for the locking model that keeps
///   mutation through shared views sound.
pub struct Tensor {
    pub(crate) storage: Arc<Storage>,
    pub(crate) sizes: Dims,
    pub(crate) strides: Dims,
    pub(crate) offset: usize,
    pub(crate) dtype: DType,
    /// A Python number turned into a 0-d tensor: it promotes with the lowest priority.
    pub(crate) wrapped: bool,
    /// Autograd metadata (requires_grad, grad, grad_fn, view info): empty, and allocation
    /// free, for a tensor autograd never touched; shared by [`Tensor::alias`].
    pub(crate) autograd: AutogradSlot,
}

/// The slot of a tensor's autograd variable, as PyTorch's `TensorImpl` holds its
/// `AutogradMetaInterface`: the core keeps it and shares it between aliases, and only
/// `crate::autograd` knows the type it holds (its `meta` module reads it back).
#[derive(Default)]
pub(crate) struct AutogradSlot(std::sync::OnceLock<Arc<dyn std::any::Any + Send + Sync>>);

impl AutogradSlot {
    /// The variable, if one was made.
    pub(crate) fn any(&self) -> Option<&Arc<dyn std::any::Any + Send + Sync>> {
        self.0.get()
    }
    /// The variable, made by `init` on first need.
    pub(crate) fn any_or_init(
        &self,
        init: impl FnOnce() -> Arc<dyn std::any::Any + Send + Sync>,
    ) -> &Arc<dyn std::any::Any + Send + Sync> {
        self.0.get_or_init(init)
    }
}

// Every op moves its tensors by value several times (results through `Result`, `Option`,
// tuples): within 128 bytes a move is a few register stores, above it a `memcpy` call, which
// was a fifth of a 64-element op's time.
const _: () = assert!(std::mem::size_of::<Tensor>() <= 128);

/// A plain number operand (PyTorch's "Python scalar"): bool, int or float.
///
/// In type promotion a scalar has the lowest priority: it only changes the result dtype when it
/// is of a higher category (bool < int < float) than every tensor operand. A float scalar
/// then counts as the default dtype, float32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A Python `bool`.
    Bool(bool),
    /// A Python `int` (int64).
    Int(i64),
    /// A Python `float` (float64).
    Float(f64),
}

impl Scalar {
    /// The dtype the scalar is stored in (bool, int64 or float64).
    pub fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DType::Float64,
        }
    }
    /// The value as f64.
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident as $c:ty),*) => {$(
        impl From<$t> for Scalar { fn from(x: $t) -> Scalar { Scalar::$v(x as $c) } }
    )*};
}
// Every Rust integer is a Python `int` (int64; `u64`/`usize` above `i64::MAX` wrap, as a C++
// caller's `int64_t` would), every float a Python `float`.
scalar_from!(f64 => Float as f64, f32 => Float as f64, i64 => Int as i64, i32 => Int as i64,
    i16 => Int as i64, i8 => Int as i64, isize => Int as i64, u8 => Int as i64,
    u16 => Int as i64, u32 => Int as i64, u64 => Int as i64, usize => Int as i64);
impl From<bool> for Scalar {
    fn from(b: bool) -> Scalar {
        Scalar::Bool(b)
    }
}
impl From<half::f16> for Scalar {
    fn from(x: half::f16) -> Scalar {
        Scalar::Float(x.to_f64())
    }
}
impl From<half::bf16> for Scalar {
    fn from(x: half::bf16) -> Scalar {
        Scalar::Float(x.to_f64())
    }
}

impl AsRef<Tensor> for Tensor {
    fn as_ref(&self) -> &Tensor {
        self
    }
}

impl Clone for Tensor {
    /// PyTorch's `clone()`: a copy with the same values and preserve-format strides
    /// (identical strides for a dense layout, dense strides in the same dim order otherwise).
    ///
    /// Aborts like `Vec` when the copy's memory can't be had; [`Tensor::try_clone`] returns
    /// PyTorch's allocator error instead.
    fn clone(&self) -> Tensor {
        self.try_clone()
            .unwrap_or_else(|e| crate::error::abort_with(e))
    }
}

impl Tensor {
    // ------------------------------------------------------------------ inspection

    /// The sizes of every dim (`t.size()` / `t.shape`). Empty for a 0-d tensor.
    pub fn size(&self) -> &[usize] {
        &self.sizes
    }
    /// Alias of [`Tensor::size`].
    pub fn shape(&self) -> &[usize] {
        &self.sizes
    }
    /// The strides of every dim, in elements (`t.stride()`).
    pub fn stride(&self) -> &[usize] {
        &self.strides
    }
    /// `t.size(dim)`; a 0-d tensor has no dims.
    ///
    /// Error (IndexError): `Dimension out of range (expected to be in range of [-2, 1], but got 2)`,
    /// `Dimension specified as 0 but tensor has no dimensions`.
    pub fn size_of(&self, dim: i64) -> Result<usize> {
        Ok(self.sizes[crate::dim::wrap_dim_no_scalar(dim, self.dim())?])
    }
    /// `t.stride(dim)`, in elements; errors as [`Tensor::size_of`].
    pub fn stride_of(&self, dim: i64) -> Result<usize> {
        Ok(self.strides[crate::dim::wrap_dim_no_scalar(dim, self.dim())?])
    }
    /// Offset of the first element in the storage, in elements (`t.storage_offset()`).
    pub fn storage_offset(&self) -> usize {
        self.offset
    }
    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Number of dims (`t.dim()` / `t.ndim`).
    pub fn dim(&self) -> usize {
        self.sizes.len()
    }
    /// Number of elements (`t.numel()`): 1 for 0-d, 0 when a size is 0.
    pub fn numel(&self) -> usize {
        layout::numel(&self.sizes)
    }
    /// Bytes per element (`t.element_size()`).
    pub fn element_size(&self) -> usize {
        self.dtype.itemsize()
    }
    /// `t.is_contiguous()`: row-major, size-1 dims ignored, empty tensors always contiguous.
    pub fn is_contiguous(&self) -> bool {
        layout::is_contiguous(&self.sizes, &self.strides)
    }
    /// `t.is_contiguous(memory_format=torch.channels_last)`: false unless 4-d.
    pub fn is_contiguous_channels_last(&self) -> bool {
        layout::is_channels_last_contiguous(&self.sizes, &self.strides)
    }
    /// Non-overlapping and dense: the elements tile one block of memory without gaps.
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        layout::is_non_overlapping_and_dense(&self.sizes, &self.strides)
    }
    /// The address of the first element (`t.data_ptr()`): equal for views starting at the same
    /// element of the same storage.
    pub fn data_ptr(&self) -> usize {
        self.storage.ptr() as usize + self.offset * self.dtype.itemsize()
    }
    /// The first element's address as a pointer, for kernels (dereferenced only under the
    /// storage's lock).
    pub(crate) fn elem_ptr(&self) -> *mut u8 {
        self.storage
            .ptr()
            .wrapping_add(self.offset * self.dtype.itemsize())
    }
    /// Whether `self` and `other` view the same storage (Python's
    /// `a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`).
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }
    /// Whether `self` and `other` are one tensor in Python's sense (`a is b`): handles made by
    /// [`Tensor::alias`] (or clones of one handle), which share the storage, the geometry and
    /// the autograd variable. A view, or a `detach()`, of the same memory is another tensor.
    pub(crate) fn is_same_tensor(&self, other: &Tensor) -> bool {
        let same_var = match (self.autograd.any(), other.autograd.any()) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_var
            && self.shares_storage(other)
            && self.offset == other.offset
            && self.sizes == other.sizes
            && self.strides == other.strides
    }
    /// Size of the underlying storage, in bytes.
    pub fn storage_nbytes(&self) -> usize {
        self.storage.nbytes()
    }
    /// Another handle on the same data and geometry (Python `b = a`, `torch.alias`).
    ///
    /// The alias is the same autograd variable: it shares `requires_grad`, `.grad` and
    /// `grad_fn` with `self`.
    pub fn alias(&self) -> Tensor {
        let t = self.view_with(self.sizes.clone(), self.strides.clone(), self.offset);
        if let Some(m) = self.autograd.any() {
            t.autograd.any_or_init(|| m.clone());
        }
        t
    }
    /// How this tensor takes part in type promotion: [`Category::Wrapped`] for a wrapped
    /// Python number (from a [`Scalar`] operand), [`Category::ZeroDim`] for another 0-d
    /// tensor, [`Category::Dim`] otherwise. With the dtype, it is what
    /// [`crate::dtype::result_type`] takes: `result_type(&[(a.dtype(), a.category()), (b.dtype(),
    /// b.category())])` is `torch.result_type(a, b)`.
    pub fn category(&self) -> Category {
        if self.wrapped {
            Category::Wrapped
        } else if self.sizes.is_empty() {
            Category::ZeroDim
        } else {
            Category::Dim
        }
    }

    // ------------------------------------------------------------------ internal constructors

    /// A view of this tensor's storage with new geometry (no checks).
    pub(crate) fn view_with(
        &self,
        sizes: impl Into<Dims>,
        strides: impl Into<Dims>,
        offset: usize,
    ) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            sizes: sizes.into(),
            strides: strides.into(),
            offset,
            dtype: self.dtype,
            wrapped: false,
            autograd: AutogradSlot::default(),
        }
    }

    /// A fresh, uninitialised tensor with the given dense strides (the caller fills every
    /// element), or PyTorch's errors: the storage-size
    /// check of `empty` (`Storage size calculation overflowed with sizes=[…]`, from
    /// [`layout::storage_nbytes_contiguous`]) and the allocator's
    /// `[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes. Error code 12 (Cannot allocate memory)`.
    /// `strides` must be dense (a permutation of row-major strides), so the extent is at most
    /// the numel checked here; the extent is checked again all the same. A stride above
    /// int64 (possible beside a size-0 dim): `Stride calculation overflowed`.
    #[inline]
    pub(crate) fn try_alloc(sizes: &[usize], strides: &[usize], dtype: DType) -> Result<Tensor> {
        layout::storage_nbytes_contiguous(sizes, dtype.itemsize())?;
        // An empty tensor's extent is 0 whatever its strides, so strides computed with
        // saturation (sizes near 2^62 beside a 0) are refused here, as `empty`'s are.
        if strides.iter().any(|&s| s > i64::MAX as usize) {
            return Err(Error::runtime("Stride calculation overflowed"));
        }
        let n = layout::checked_extent(sizes, strides).ok_or_else(|| {
            Error::runtime(format!(
                "Storage size calculation overflowed with sizes={} and strides={}",
                fmt_list(sizes),
                fmt_list(strides)
            ))
        })?;
        Tensor::try_alloc_parts(sizes, Dims::from_slice(strides), n, dtype)
    }

    /// As [`Tensor::try_alloc`] with row-major strides.
    pub(crate) fn try_alloc_contiguous(sizes: &[usize], dtype: DType) -> Result<Tensor> {
        let numel = layout::storage_nbytes_contiguous(sizes, dtype.itemsize())? / dtype.itemsize();
        // Proven above: the product of the sizes fits... unless a 0 hides a larger product;
        // so the strides are computed with checks.
        // PyTorch's stride computation: each stride is the product of the later sizes (a 0
        // counting as 1) and must fit in int64; the product over every dim is not needed.
        let mut strides = Dims::from_elem(1, sizes.len());
        for d in (0..sizes.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1]
                .checked_mul(sizes[d + 1].max(1))
                .filter(|&v| v <= i64::MAX as usize)
                .ok_or_else(|| Error::runtime("Stride calculation overflowed"))?;
        }
        Tensor::try_alloc_parts(sizes, strides, numel, dtype)
    }

    /// A new tensor over a fresh storage of `elems` elements.
    fn try_alloc_parts(
        sizes: &[usize],
        strides: Dims,
        elems: usize,
        dtype: DType,
    ) -> Result<Tensor> {
        let bytes = elems.checked_mul(dtype.itemsize()).ok_or_else(|| {
            Error::runtime(format!(
                "Storage size calculation overflowed with sizes={}",
                fmt_list(sizes)
            ))
        })?;
        Ok(Tensor {
            storage: Storage::try_new(bytes, false)?,
            sizes: Dims::from_slice(sizes),
            strides,
            offset: 0,
            dtype,
            wrapped: false,
            autograd: AutogradSlot::default(),
        })
    }

    /// A 0-d wrapped-number tensor holding `s` (bool, int64 or float64).
    pub(crate) fn wrapped_scalar(s: Scalar) -> Tensor {
        let mut t = match s {
            Scalar::Bool(b) => Tensor::from_vec(vec![b], ()),
            Scalar::Int(i) => Tensor::from_vec(vec![i], ()),
            Scalar::Float(f) => Tensor::from_vec(vec![f], ()),
        }
        .expect("one element fits a 0-d shape");
        t.wrapped = true;
        t
    }

    // ------------------------------------------------------------------ from data

    /// A contiguous tensor of shape `size` holding `data` in row-major order
    /// (`torch.tensor(data).reshape(size)`); the dtype is `T`'s.
    ///
    /// Errors (RuntimeError): `Trying to create tensor with negative dimension -1: [-1, 3]`
    /// (also for a `usize` size above `i64::MAX`, read as PyTorch's int64);
    /// `numel: integer multiplication overflow` when the sizes' product does not fit in `i64`
    /// (`[2^62 + 1, 4]`); `Stride calculation overflowed` when a stride (the product of the
    /// later sizes, a 0 counting as 1) does not fit in `i64` (an empty `[0, 2^62, 4]`);
    /// `shape '[2, 2]' is invalid for input of size 3` when the lengths differ.
    pub fn from_vec<T: Element>(data: Vec<T>, size: impl IntoShape) -> Result<Tensor> {
        Tensor::from_slice(&data, size)
    }

    /// As [`Tensor::from_vec`], copying from a slice.
    pub fn from_slice<T: Element>(data: &[T], size: impl IntoShape) -> Result<Tensor> {
        let size = &crate::args::new_sizes(size)?[..];
        // Checked here, so the numel of every tensor made from data fits in i64.
        if layout::checked_numel(size)? != data.len() {
            let s: Vec<i64> = size.iter().map(|&x| x as i64).collect();
            return Err(Error::runtime(format!(
                "shape '{}' is invalid for input of size {}",
                fmt_list(&s),
                data.len()
            )));
        }
        // PyTorch's `empty` check: each stride (the product of the later sizes, a 0 counting
        // as 1) must fit in int64; an empty `(0, 2^62, 4)` (e.g. `one_hot` of an empty
        // `(0, 2^62)`) would otherwise carry a saturated stride
        let strides = layout::contiguous_strides(size);
        if strides.iter().any(|&st| st > i64::MAX as usize) {
            return Err(Error::runtime("Stride calculation overflowed"));
        }
        Ok(Tensor {
            storage: Storage::try_from_slice(data)?,
            sizes: Dims::from_slice(size),
            strides: strides.into(),
            offset: 0,
            dtype: T::DTYPE,
            wrapped: false,
            autograd: AutogradSlot::default(),
        })
    }

    // ------------------------------------------------------------------ data out

    /// The values in row-major (logical) order, cast to `T` as PyTorch's `.to()` casts
    /// (`t.flatten().tolist()`).
    ///
    /// Aborts like `Vec` when memory for `numel` values can't be had (an expanded tensor can
    /// name far more elements than its storage holds); [`Tensor::try_to_vec`] returns the error.
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        match self.try_to_vec() {
            Ok(v) => v,
            Err(e) => {
                eprintln!("tensile: {e}");
                std::process::abort()
            }
        }
    }

    /// The single value of a one-element tensor, cast to `T` (`t.item()`).
    ///
    /// Error: `a Tensor with 2 elements cannot be converted to Scalar`.
    pub fn item<T: Element>(&self) -> Result<T> {
        if self.numel() != 1 {
            return Err(Error::runtime(format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                self.numel()
            )));
        }
        Ok(self.try_to_vec::<T>()?[0])
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
