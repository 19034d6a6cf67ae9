//! Raw memory for the public storage API (`super::typed`, which `crate::io` uses): private
//! file mappings that storages may view without a copy.
//!
//! # No two storages over the same bytes
//! Soundness of `Tensor: Sync` rests on each storage's lock guarding its bytes (see
//! `crate::storage`): two storages over one memory range would have two locks (and two
//! version counters) for the same bytes, so a write through one could race a read through
//! the other, and autograd's saved-tensor version check would miss the write. A hostile
//! file can describe exactly that (two zip members over the same bytes, a tensor table whose
//! entries overlap), so [`Mapped::storage`] does not trust its callers on this: every range
//! it hands out is recorded, and a range that overlaps one handed out before gets `None`
//! (the caller then copies the bytes into a storage of their own). The loaders refuse such
//! files with an error before they get here (`crate::io::open_zip`, the safetensors crate's
//! contiguous offsets); this is the invariant's last line, not its only one.

use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use super::Storage;

/// A file mapped privately (copy-on-write, `MAP_PRIVATE` with `PROT_READ | PROT_WRITE`):
/// tensors made over it may be written in place without touching the file. Shared (through an
/// `Arc`) by every storage made from it, and unmapped when the last one is dropped.
pub(crate) struct Mapped {
    /// Kept for its `Drop` (munmap); never dereferenced after `base` is taken.
    _map: memmap2::MmapMut,
    /// The mapping's start, taken through `as_mut_ptr` so that storages may write through it.
    base: *mut u8,
    len: usize,
    /// The byte ranges handed to storages so far, `start → end`: pairwise disjoint (see the
    /// module docs). Never shrinks: a range stays taken after its storage is dropped.
    taken: Mutex<BTreeMap<usize, usize>>,
}

// SAFETY: the mapping is plain bytes owned by this value; reads go through `bytes()` only while
// no storage views the mapping (`MappedFile::bytes` refuses once one does) or through
// `free_bytes`, for bytes no storage views, so nothing writes them meanwhile; every other
// access goes through the lock of the one `Storage` that covers the bytes (`storage` hands
// out disjoint ranges only; see `crate::storage`).
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
            taken: Mutex::new(BTreeMap::new()),
        }))
    }

    /// The mapped bytes. Only called while no storage views the mapping
    /// (`super::typed::MappedFile` makes sure of it), and by [`Mapped::free_bytes`] for a
    /// range no storage views.
    pub(crate) fn bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `base..base + len` is the live mapping; during a load nothing writes to it.
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }

    /// The mapping's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes `start..end` of the mapping when no storage views any of them (so nothing writes
    /// them), else `None` (also for a range outside the mapping).
    pub(crate) fn free_bytes(&self, start: usize, end: usize) -> Option<&[u8]> {
        if start > end || end > self.len {
            return None;
        }
        let taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
        if taken
            .range(..end)
            .next_back()
            .is_some_and(|(_, &e)| e > start)
        {
            return None;
        }
        Some(&self.bytes()[start..end])
    }

    /// A storage viewing `start..start + len` of the mapping without a copy, or `None` when the
    /// range is empty, outside the mapping, its start is not a multiple of `align` bytes, or it
    /// overlaps a range given to a storage before (so that no two storages ever view the same
    /// bytes: the caller copies instead). The caller has checked that the bytes are valid
    /// values of the dtype it will use (bools 0 or 1) and that their byte order is native.
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
        {
            let mut taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
            // The ranges taken are disjoint, so only the last one starting before `end` can
            // reach into `start..end`.
            if taken
                .range(..end)
                .next_back()
                .is_some_and(|(_, &e)| e > start)
            {
                return None;
            }
            taken.insert(start, end);
        }
        let owner: Arc<dyn std::any::Any + Send + Sync> = self.clone();
        // SAFETY: the range lies inside the mapping (checked), which `owner` keeps alive; the
        // mapping is private and writable and, once loading is over, reached only through the
        // storages made here, no two of which share a byte (the range was free, now taken);
        // the start is aligned (checked); the bytes' validity for the dtype is the caller's
        // documented duty.
        Some(unsafe { Storage::from_external(NonNull::new(ptr)?, len, owner) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hostile file can name the same bytes twice; the mapping hands them to one storage
    /// only (the second request is refused and its caller copies).
    #[test]
    fn overlapping_ranges_get_no_second_storage() {
        let p = std::env::temp_dir().join(format!("tensile_mmap_test_{}", std::process::id()));
        std::fs::write(&p, [7u8; 64]).unwrap();
        let m = Mapped::open(&std::fs::File::open(&p).unwrap()).unwrap();
        std::fs::remove_file(&p).unwrap();
        let a = m.storage(8, 16, 1).expect("a free range");
        assert_eq!(a.nbytes(), 16);
        assert!(m.storage(8, 16, 1).is_none(), "the same range twice");
        assert!(m.storage(0, 9, 1).is_none(), "reaching into it from below");
        assert!(m.storage(23, 4, 1).is_none(), "starting inside it");
        assert!(m.storage(0, 64, 1).is_none(), "covering it");
        assert!(m.storage(0, 8, 1).is_some(), "just below");
        assert!(m.storage(24, 8, 1).is_some(), "just above");
        assert!(m.storage(32, 0, 1).is_none(), "empty");
        assert!(m.storage(32, 33, 1).is_none(), "past the end");
        assert!(m.storage(32, 32, 1).is_some(), "the rest");
    }
}
