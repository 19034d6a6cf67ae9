//! Raw memory for `crate::io`: private file mappings that storages may view without a copy,
//! and byte copies out of a storage.

use std::ptr::NonNull;
use std::sync::Arc;

use crate::storage::Storage;

/// A file mapped privately (copy-on-write, `MAP_PRIVATE` with `PROT_READ | PROT_WRITE`):
/// tensors made over it may be written in place without touching the file. Shared (through an
/// `Arc`) by every storage made from it, and unmapped when the last one is dropped.
pub(crate) struct Mapped {
    /// Kept for its `Drop` (munmap); never dereferenced after `base` is taken.
    _map: memmap2::MmapMut,
    /// The mapping's start, taken through `as_mut_ptr` so that storages may write through it.
    base: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain bytes owned by this value; reads go through `bytes()` only while
// a loader builds its tensors (before any tensor over the mapping exists), and afterwards every
// access goes through a `Storage`'s lock (see `crate::storage`).
unsafe impl Send for Mapped {}
// SAFETY: as above.
unsafe impl Sync for Mapped {}

impl Mapped {
    /// Maps `file` privately. Fails like `mmap(2)` (an empty file is mapped by memmap2 as an
    /// empty slice).
    pub(crate) fn open(file: &std::fs::File) -> std::io::Result<Arc<Mapped>> {
        // SAFETY: `map_copy` is unsafe because another process may truncate or rewrite the file
        // while it is mapped; the public loaders document this (as PyTorch's `mmap=True` and
        // safetensors' `safe_open` do). The mapping is private: our writes never reach the file.
        let mut map = unsafe { memmap2::MmapOptions::new().map_copy(file)? };
        let base = map.as_mut_ptr();
        let len = map.len();
        Ok(Arc::new(Mapped {
            _map: map,
            base,
            len,
        }))
    }

    /// The mapped bytes. Only called while no tensor views the mapping yet (during a load).
    pub(crate) fn bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `base..base + len` is the live mapping; during a load nothing writes to it.
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }

    /// A storage viewing `start..start + len` of the mapping without a copy, or `None` when the
    /// range is empty, outside the mapping, or its start is not a multiple of `align` bytes.
    /// The caller has checked that the bytes are valid values of the dtype it will use (bools
    /// 0 or 1) and that their byte order is native.
    pub(crate) fn storage(
        self: &Arc<Mapped>,
        start: usize,
        len: usize,
        align: usize,
    ) -> Option<Arc<Storage>> {
        let end = start.checked_add(len)?;
        if len == 0 || end > self.len {
            return None;
        }
        let ptr = self.base.wrapping_add(start);
        if !(ptr as usize).is_multiple_of(align.max(1)) {
            return None;
        }
        let owner: Arc<dyn std::any::Any + Send + Sync> = self.clone();
        // SAFETY: the range lies inside the mapping (checked), which `owner` keeps alive; the
        // mapping is private and writable and, once loading is over, reached only through the
        // storages made here; the start is aligned (checked); the bytes' validity for the dtype
        // is the caller's documented duty.
        Some(unsafe { Storage::from_external(NonNull::new(ptr)?, len, owner) })
    }
}

/// A copy of `n` bytes of `storage` starting `byte_offset` bytes in, or `None` when the range is
/// outside the storage. Takes the storage's read lock.
pub(crate) fn copy_out(storage: &Storage, byte_offset: usize, n: usize) -> Option<Vec<u8>> {
    if byte_offset.checked_add(n)? > storage.nbytes() {
        return None;
    }
    let mut out = vec![0u8; n];
    if n > 0 {
        let _g = storage.read();
        // SAFETY: the range is inside the storage (checked) and we hold its read lock.
        unsafe {
            std::ptr::copy_nonoverlapping(storage.ptr().add(byte_offset), out.as_mut_ptr(), n)
        };
    }
    Some(out)
}
