//! The public storage API: [`TypedStorage`] (`torch.TypedStorage`: a tensor's memory with its
//! dtype), tensors over a storage ([`Tensor::from_storage`], `Tensor.set_`), and
//! [`MappedFile`] (a file mapped privately, whose byte ranges become storages without a copy:
//! `torch.UntypedStorage.from_file(path, shared=False)` as `torch.load(mmap=True)` uses it).
//! The file loaders of `crate::io` are written with these.
//!
//! Both keep the storage module's rules at their construction, so no use of them can break
//! them: a storage's bytes are valid values of its dtype (bools 0 or 1: checked when bytes
//! come in), every tensor over a storage has the storage's dtype and lies inside it
//! (checked), and no two storages share a byte (a mapped range is handed out once; the
//! file's bytes can be read only while no storage views them).

use std::path::Path;
use std::sync::Arc;

use super::Storage;
use super::mmap::Mapped;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Dims, Tensor};

/// `torch.TypedStorage`: the memory of one or more tensors (a storage) with its dtype. Made
/// from bytes ([`TypedStorage::from_buffer`]), from a range of a mapped file
/// ([`MappedFile::storage`]) or from a tensor ([`Tensor::storage`]); tensors over it are made
/// by [`Tensor::from_storage`] and share its memory (and its version counter). Cloning it
/// shares the storage.
#[derive(Clone)]
pub struct TypedStorage {
    storage: Arc<Storage>,
    dtype: DType,
}

impl std::fmt::Debug for TypedStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TypedStorage(dtype={}, size={})",
            self.dtype.name(),
            self.size()
        )
    }
}

/// Checks that `data` holds valid values of `dtype`: bools must be 0 or 1 (tensile reads them
/// as Rust `bool`). Errors: `invalid bool value 2 in the data (expected 0 or 1)`.
fn check_values(data: &[u8], dtype: DType) -> Result<()> {
    if dtype == DType::Bool
        && let Some(b) = data.iter().find(|&&b| b > 1)
    {
        return Err(Error::runtime(format!(
            "invalid bool value {b} in the data (expected 0 or 1)"
        )));
    }
    Ok(())
}

/// A new storage holding `data` (values of `dtype`, in big-endian byte order when
/// `big_endian`) in the host's byte order.
fn copy_in(data: &[u8], dtype: DType, big_endian: bool) -> Result<Arc<Storage>> {
    let isz = dtype.itemsize();
    if isz > 1 && big_endian != cfg!(target_endian = "big") {
        let mut v = crate::error::try_vec::<u8>(data.len())?;
        v.extend_from_slice(data);
        for c in v.chunks_exact_mut(isz) {
            c.reverse();
        }
        return Storage::try_from_bytes(&v);
    }
    Storage::try_from_bytes(data)
}

impl TypedStorage {
    /// `torch.TypedStorage.from_buffer(data, byte_order, dtype=dtype)`: a new storage holding
    /// a copy of `data`, values of `dtype` in little-endian (`big_endian` false) or big-endian
    /// byte order, stored in the host's.
    ///
    /// Errors (RuntimeError): `buffer size (7) must be a multiple of element size (4)`
    /// (PyTorch's); `invalid bool value 2 in the data (expected 0 or 1)` for a bool byte other
    /// than 0 or 1; the allocator's error.
    pub fn from_buffer(data: &[u8], dtype: DType, big_endian: bool) -> Result<TypedStorage> {
        let isz = dtype.itemsize();
        if !data.len().is_multiple_of(isz) {
            return Err(Error::runtime(format!(
                "buffer size ({}) must be a multiple of element size ({isz})",
                data.len()
            )));
        }
        check_values(data, dtype)?;
        Ok(TypedStorage {
            storage: copy_in(data, dtype, big_endian)?,
            dtype,
        })
    }

    /// `storage.dtype`.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// `storage.size()`: the number of elements.
    pub fn size(&self) -> usize {
        self.storage.nbytes() / self.dtype.itemsize()
    }

    /// `storage.nbytes()`: the size in bytes.
    pub fn nbytes(&self) -> usize {
        self.storage.nbytes()
    }

    /// `storage.data_ptr()`: the address of the first byte (an identity: tensors over one
    /// storage give the same address).
    pub fn data_ptr(&self) -> usize {
        self.storage.ptr() as usize
    }
}

impl Tensor {
    /// `tensor.storage()`: the tensor's storage with its dtype, shared (not copied).
    pub fn storage(&self) -> TypedStorage {
        TypedStorage {
            storage: self.storage.clone(),
            dtype: self.dtype,
        }
    }

    /// The elements as little-endian bytes in row-major order (NumPy's `t.numpy().tobytes()`
    /// on a little-endian machine): `numel · itemsize` bytes, one copy for a contiguous
    /// tensor (a non-contiguous one is made contiguous first). The bytes the file writers
    /// (`crate::io`) write.
    ///
    /// Errors: the allocator's.
    pub fn to_le_bytes(&self) -> Result<Vec<u8>> {
        let c = self.try_contiguous()?;
        let isz = c.dtype.itemsize();
        let mut out = c.storage.copy_bytes(c.offset * isz, c.numel() * isz)?;
        if cfg!(target_endian = "big") && isz > 1 {
            for ch in out.chunks_exact_mut(isz) {
                ch.reverse();
            }
        }
        Ok(out)
    }

    /// `torch.empty(0, dtype=storage.dtype).set_(storage, storage_offset, size, stride)`
    /// (`torch._utils._rebuild_tensor`): a tensor of `size`, `stride` (elements) and
    /// `storage_offset` (elements) over `storage`, sharing its memory; it does not require
    /// grad.
    ///
    /// Errors (RuntimeError): `size` and `stride` of different lengths (`mismatch in length of
    /// strides and shape`); a geometry reaching outside the storage: `setStorage: sizes [3,
    /// 2], strides [1, 3], storage offset 1, and itemsize 4 requiring a storage size of 28
    /// are out of bounds for storage of size 24` (PyTorch's).
    pub fn from_storage(
        storage: &TypedStorage,
        storage_offset: usize,
        size: &[usize],
        stride: &[usize],
    ) -> Result<Tensor> {
        if size.len() != stride.len() {
            return Err(Error::runtime("mismatch in length of strides and shape"));
        }
        let isz = storage.dtype.itemsize();
        let needed = if size.contains(&0) {
            Some(0)
        } else {
            size.iter()
                .zip(stride)
                .try_fold(storage_offset, |last, (&n, &s)| {
                    last.checked_add((n - 1).checked_mul(s)?)
                })
                .and_then(|last| last.checked_add(1)?.checked_mul(isz))
        };
        if needed.is_none_or(|n| n > storage.nbytes()) {
            return Err(Error::runtime(format!(
                "setStorage: sizes {size:?}, strides {stride:?}, storage offset {storage_offset}, and itemsize {isz} requiring a storage size of {} are out of bounds for storage of size {}",
                needed.map_or("more than 2^64".to_string(), |n| n.to_string()),
                storage.nbytes()
            )));
        }
        Ok(Tensor {
            storage: storage.storage.clone(),
            sizes: Dims::from_slice(size),
            strides: Dims::from_slice(stride),
            offset: storage_offset,
            dtype: storage.dtype,
            wrapped: false,
            autograd: Default::default(),
        })
    }
}

/// A file mapped privately (copy-on-write): a loader reads its bytes to parse the file's
/// headers ([`MappedFile::bytes`]), then turns the byte ranges of its tensors into storages
/// without a copy ([`MappedFile::storage`]); in-place ops on those tensors never write to the
/// file. What `torch.load(path, mmap=True)` does with `torch.UntypedStorage.from_file(path,
/// shared=False)` and safetensors' `safe_open` with its mapping. As with any memory map, the
/// file must not be truncated or rewritten by another process while tensors view it. The
/// mapping lives as long as a storage made from it.
///
/// Two rules keep this sound (see the module docs): a byte range is handed to one storage
/// only, and the file's bytes can be read only until the first storage exists (from then on
/// tensors may write to them).
pub struct MappedFile {
    map: Arc<Mapped>,
    /// A storage was made over the mapping: its bytes may be written from now on.
    handed_out: bool,
}

impl MappedFile {
    /// Maps `path` privately. Errors: the file's (`std::io::Error`: not found, permission
    /// denied, `mmap(2)`'s), which the loaders turn into Python's messages.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<MappedFile> {
        let f = std::fs::File::open(path)?;
        Ok(MappedFile {
            map: Mapped::open(&f)?,
            handed_out: false,
        })
    }

    /// The file's bytes, while no storage views them (`None` once [`MappedFile::storage`]
    /// has made one).
    pub fn bytes(&self) -> Option<&[u8]> {
        (!self.handed_out).then(|| self.map.bytes())
    }

    /// The file's length in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.map.len() == 0
    }

    /// A storage of `dtype` holding bytes `start..start + len` of the file, values in
    /// little-endian byte order (or big-endian when `big_endian`): viewing the mapping without
    /// a copy when that is the host's byte order and the range starts at an address aligned
    /// for `dtype`, else a copy (byte-swapped when the orders differ). An empty range gives an
    /// empty storage.
    ///
    /// Errors (RuntimeError): `bytes 8..32 are outside the file of 24 bytes`; `bytes 8..18
    /// hold no whole number of elements of size 4`; `bytes 8..32 of the file already back
    /// another storage` (a range overlapping one handed out before: no two storages share a
    /// byte); `invalid bool value 2 in the data (expected 0 or 1)`; the allocator's error for a
    /// copy.
    pub fn storage(
        &mut self,
        start: usize,
        len: usize,
        dtype: DType,
        big_endian: bool,
    ) -> Result<TypedStorage> {
        let end = start
            .checked_add(len)
            .filter(|&e| e <= self.map.len())
            .ok_or_else(|| {
                Error::runtime(format!(
                    "bytes {start}..{} are outside the file of {} bytes",
                    start as u128 + len as u128,
                    self.map.len()
                ))
            })?;
        let isz = dtype.itemsize();
        if !len.is_multiple_of(isz) {
            return Err(Error::runtime(format!(
                "bytes {start}..{end} hold no whole number of elements of size {isz}"
            )));
        }
        if len == 0 {
            return Ok(TypedStorage {
                storage: Storage::try_new(0, true)?,
                dtype,
            });
        }
        let Some(data) = self.map.free_bytes(start, end) else {
            return Err(Error::runtime(format!(
                "bytes {start}..{end} of the file already back another storage"
            )));
        };
        check_values(data, dtype)?;
        let native = big_endian == cfg!(target_endian = "big") || isz == 1;
        let mapped = if native {
            self.map.storage(start, len, isz)
        } else {
            None
        };
        let storage = match mapped {
            Some(s) => {
                self.handed_out = true;
                s
            }
            None => copy_in(data, dtype, big_endian)?,
        };
        Ok(TypedStorage { storage, dtype })
    }
}
