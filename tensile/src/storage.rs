//! Shared, lockable element storage.
//!
//! # Ownership and locking model
//! A [`Storage`] is one heap allocation of raw bytes, shared by every tensor that views it
//! (through an `Arc`). Element data is never reached through Rust references: kernels receive
//! raw pointers. Soundness rests on one rule, enforced in [`crate::iter`]:
//!
//! * every op locks, for its whole duration, each distinct storage it touches: a **write**
//!   lock on the storages of its outputs and a **read** lock on the storages of its inputs
//!   (an input that shares its output's storage is covered by the write lock);
//! * locks are taken in address order, so two ops never deadlock;
//! * kernels (including those run on rayon workers) only dereference pointers while the
//!   calling op holds those locks.
//!
//! So two threads may read one storage together, a writer excludes everyone else, and an
//! in-place op through a view of a base tensor serialises with every other use of that base.
//! Overlap *within* one op (the same memory read and written, as in `x.add_(x)`) is handled
//! element by element with raw pointers and is refused by PyTorch's overlap checks where the
//! result would depend on iteration order. `Tensor` is therefore `Send + Sync`.

use std::alloc::{Layout, alloc, alloc_zeroed, dealloc};
use std::ptr::NonNull;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Alignment of every storage allocation (a cache line; enough for any SIMD load).
const ALIGN: usize = 64;

/// A byte buffer shared by tensors, with the lock that guards its contents.
pub(crate) struct Storage {
    ptr: NonNull<u8>,
    bytes: usize,
    lock: RwLock<()>,
}

// SAFETY: the buffer is plain bytes owned by this struct; every access to its contents goes
// through raw pointers while the RwLock is held as described in the module docs.
unsafe impl Send for Storage {}
// SAFETY: as above; shared access only reads under a read lock, writes need the write lock.
unsafe impl Sync for Storage {}

impl Storage {
    fn layout(bytes: usize) -> Layout {
        // A size of 0 is not allowed by the allocator; keep one line for empty tensors.
        Layout::from_size_align(bytes.max(ALIGN), ALIGN).expect("storage size overflows isize")
    }

    /// A new buffer of `bytes` bytes; zero-filled when `zeroed`.
    pub(crate) fn new(bytes: usize, zeroed: bool) -> Storage {
        let layout = Self::layout(bytes);
        // SAFETY: layout has non-zero size.
        let raw = unsafe { if zeroed { alloc_zeroed(layout) } else { alloc(layout) } };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Storage { ptr, bytes, lock: RwLock::new(()) }
    }

    /// A buffer holding a copy of `data`.
    pub(crate) fn from_bytes(data: &[u8]) -> Storage {
        let s = Storage::new(data.len(), false);
        // SAFETY: `s` is a fresh allocation of at least data.len() bytes, not shared yet.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), s.ptr.as_ptr(), data.len()) };
        s
    }

    /// Size in bytes.
    pub(crate) fn nbytes(&self) -> usize {
        self.bytes
    }

    /// The start of the buffer. Dereferencing it requires holding the lock (module docs).
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, ()> {
        self.lock.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, ()> {
        self.lock.write().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with the same layout; no tensor refers to it any more.
        unsafe { dealloc(self.ptr.as_ptr(), Self::layout(self.bytes)) }
    }
}

/// A lock held on one storage for the duration of an op.
pub(crate) enum Guard<'a> {
    Read(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Write(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

/// Locks each distinct storage once, in address order: write for `writes`, read for the rest.
pub(crate) fn lock_all<'a>(writes: &[&'a Storage], reads: &[&'a Storage]) -> Vec<Guard<'a>> {
    let mut all: Vec<(&'a Storage, bool)> = writes.iter().map(|s| (*s, true)).collect();
    all.extend(reads.iter().map(|s| (*s, false)));
    all.sort_by_key(|(s, w)| (s.ptr() as usize, !*w));
    let mut guards = Vec::with_capacity(all.len());
    let mut last: Option<usize> = None;
    for (s, w) in all {
        let addr = s.ptr() as usize;
        if last == Some(addr) {
            continue; // a write entry sorts first, so it covers later reads of the same storage
        }
        last = Some(addr);
        guards.push(if w { Guard::Write(s.write()) } else { Guard::Read(s.read()) });
    }
    guards
}
