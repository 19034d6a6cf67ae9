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
//! * locks are taken in address order ([`lock_all`]), so two ops never wait for each other's
//!   locks in a cycle;
//! * kernels only dereference pointers while the calling op holds those locks. A parallel
//!   kernel runs its chunks on tensile's intra-op pool (`crate::kernels::par`) and the op
//!   waits for all of them before it releases its locks.
//!
//! So two threads may read one storage together, a writer excludes everyone else, and an
//! in-place op through a view of a base tensor serialises with every other use of that base.
//! Overlap *within* one op (the same memory read and written, as in `x.add_(x)`) is handled
//! element by element with raw pointers and is refused by PyTorch's overlap checks where the
//! result would depend on iteration order. `Tensor` is therefore `Send + Sync`.
//!
//! ## Locks and threads: why no op waits forever
//! Inside an op a thread waits for storage locks and, holding them, for its kernel chunks on
//! the intra-op pool. Both waits end:
//! * the intra-op pool's threads run nothing but kernel chunks (closures given to
//!   `kernels::par::run`). A chunk takes no storage lock, runs no op and no user code, and
//!   waits only for chunks it splits off itself, so every chunk finishes whatever locks other
//!   threads hold: an op holding locks always gets its chunks done, then releases its locks;
//! * a thread waiting for its chunks runs nothing else meanwhile: never a user's task (the
//!   wait is a blocking one, not rayon's work-stealing wait, also when the caller is a worker
//!   of the user's own rayon pool; see `kernels::par`). So it never re-enters a lock it holds
//!   (a stolen task reading the tensor it writes, queued behind itself), and the threads it
//!   waits for are never user threads that could be blocked on its locks;
//! * lock waits form no cycle among ops (address order), and every holder of a lock is an op
//!   that finishes, as above.
//!
//! The same confinement keeps thread-local autograd state (grad mode, the in-place depth;
//! `crate::autograd`) with the task that set it: a thread inside an op (`backward()` with
//! grad mode off, an in-place op) never runs someone else's task. This is PyTorch's model:
//! ATen's intra-op pool runs only `at::parallel_for` chunks.

pub(crate) mod mmap;
mod typed;

pub use typed::{MappedFile, TypedStorage};

use std::alloc::{Layout, alloc, alloc_zeroed, dealloc};
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;

use smallvec::SmallVec;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Buffers of at most this many bytes live inside the `Storage` itself: a small tensor then
/// costs one allocation (the `Arc`) instead of two, which matters for per-op latency.
const INLINE: usize = 256;

/// Alignment of every small storage allocation (a cache line; enough for any SIMD load).
const ALIGN: usize = 64;
/// Buffers of at least this many bytes are "large": 2 MiB aligned and rounded, advised for
/// transparent huge pages, and recycled through [`POOL`] when freed.
const LARGE: usize = 1 << 20;
const HUGE: usize = 2 << 20;
/// Buffers of at least this many bytes (and below [`LARGE`]) are "medium": rounded up to a
/// power of two and recycled through [`POOL`] too. glibc serves them from the heap top or
/// from `mmap`, and gives the pages back on free, so a training step that allocates and frees
/// the same activations every iteration would fault every page in again each time.
const MEDIUM: usize = 64 << 10;
/// At most this many bytes of freed large and medium buffers are kept for reuse.
const POOL_LIMIT: usize = 1 << 30;

/// Freed large buffers, kept for reuse: writing into fresh memory costs a page fault per 4 KiB
/// page (the benchmarks' "page-fault tax"); a recycled buffer is already mapped.
static POOL: Mutex<Pool> = Mutex::new(Pool {
    bufs: Vec::new(),
    bytes: 0,
});

struct Pool {
    bufs: Vec<(usize, SendPtr)>,
    bytes: usize,
}

struct SendPtr(NonNull<u8>);
// SAFETY: a pooled buffer is owned by the pool alone until it is handed to one new Storage.
unsafe impl Send for SendPtr {}

/// The in-struct buffer of a small storage. `UnsafeCell`: kernels write it through raw
/// pointers obtained from a shared `&Storage` (under the write lock).
#[repr(C, align(16))]
struct Inline(UnsafeCell<[MaybeUninit<u8>; INLINE]>);

/// A byte buffer shared by tensors, with the lock that guards its contents.
pub(crate) struct Storage {
    /// The heap buffer; dangling when the bytes are inline (`cap == 0`).
    ptr: NonNull<u8>,
    /// Bytes the tensor may use.
    bytes: usize,
    /// Bytes allocated on the heap (≥ bytes), or 0 when the buffer is `inline`.
    cap: usize,
    lock: RwLock<()>,
    /// PyTorch's version counter (`t._version`), shared by every tensor viewing this storage
    /// (views, aliases, `detach()`): +1 per in-place op call (see `crate::autograd`).
    version: std::sync::atomic::AtomicU64,
    /// For a storage over memory it does not own (a memory-mapped file, see
    /// [`Storage::from_external`]): what keeps that memory alive. `None` for every buffer
    /// allocated here. An external storage is never freed nor pooled by `Drop`; dropping the
    /// owner (after the last tensor viewing it) releases the memory.
    owner: Option<Arc<dyn std::any::Any + Send + Sync>>,
    inline: Inline,
}

// SAFETY: the buffer is plain bytes owned by this struct; every access to its contents goes
// through raw pointers while the RwLock is held as described in the module docs.
unsafe impl Send for Storage {}
// SAFETY: as above; shared access only reads under a read lock, writes need the write lock.
unsafe impl Sync for Storage {}

fn capacity_for(bytes: usize) -> usize {
    if bytes >= LARGE {
        bytes.div_ceil(HUGE) * HUGE
    } else if bytes >= MEDIUM {
        bytes.next_power_of_two()
    } else {
        bytes.max(16)
    }
}

fn layout_for(cap: usize) -> Layout {
    let align = if cap >= LARGE {
        HUGE
    } else if cap >= 4096 {
        ALIGN
    } else {
        16
    };
    Layout::from_size_align(cap, align).expect("storage size overflows isize")
}

/// The most recently freed pooled buffer of exactly `cap` bytes, if any. Most recent first
/// (as glibc's bins hand back the chunk freed last): its lines are the likeliest to be still
/// in the caches, so an op writing its output there does not pull it in from memory first. A
/// loop that frees and allocates one activation per step reuses one buffer, hot, rather than
/// cycling through every buffer of that size the pool holds.
fn take_pooled(cap: usize) -> Option<NonNull<u8>> {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    let i = pool.bufs.iter().rposition(|(c, _)| *c == cap)?;
    // `remove`, not `swap_remove`: the others keep their order, oldest first
    let (c, p) = pool.bufs.remove(i);
    pool.bytes -= c;
    Some(p.0)
}

impl Storage {
    /// A new buffer of `bytes` bytes (zero-filled when `zeroed`), or PyTorch's error when the
    /// memory can't be had (there is no aborting form):
    /// `[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 26000000000000 bytes. Error code 12 (Cannot allocate memory)`.
    pub(crate) fn try_new(bytes: usize, zeroed: bool) -> crate::error::Result<Arc<Storage>> {
        let oom = || crate::error::Error::alloc(bytes as u128);
        if bytes > isize::MAX as usize / 2 {
            return Err(oom());
        }
        if bytes <= INLINE {
            let s = Storage::in_arc(NonNull::dangling(), bytes, 0);
            if zeroed {
                // SAFETY: the inline buffer has INLINE ≥ bytes bytes and is not shared yet.
                unsafe { std::ptr::write_bytes(s.ptr(), 0, INLINE) };
            }
            return Ok(s);
        }
        let cap = capacity_for(bytes);
        let pooled = if cap >= MEDIUM {
            take_pooled(cap)
        } else {
            None
        };
        let ptr = match pooled {
            Some(p) => {
                if zeroed {
                    // SAFETY: the pooled buffer has `cap` bytes and is owned by us alone.
                    unsafe { std::ptr::write_bytes(p.as_ptr(), 0, cap) };
                }
                p
            }
            None => {
                let layout = layout_for(cap);
                // SAFETY: layout has non-zero size.
                let raw = unsafe {
                    if zeroed {
                        alloc_zeroed(layout)
                    } else {
                        alloc(layout)
                    }
                };
                let p = NonNull::new(raw).ok_or_else(oom)?;
                // transparent huge pages are a Linux advice; elsewhere the pages stay as given
                #[cfg(target_os = "linux")]
                if cap >= LARGE {
                    // SAFETY: advisory only, on memory we own; the range is 2 MiB aligned.
                    unsafe {
                        libc::madvise(p.as_ptr() as *mut libc::c_void, cap, libc::MADV_HUGEPAGE)
                    };
                }
                p
            }
        };
        Ok(Storage::in_arc(ptr, bytes, cap))
    }

    /// A storage built in place in its `Arc`, so the inline buffer is never moved.
    fn in_arc(ptr: NonNull<u8>, bytes: usize, cap: usize) -> Arc<Storage> {
        let mut a = Arc::<Storage>::new_uninit();
        let m = Arc::get_mut(&mut a)
            .expect("a new Arc is unique")
            .as_mut_ptr();
        // SAFETY: `m` points to the Arc's uninitialised Storage, which we alone hold. Every
        // field is written before `assume_init` except the inline buffer, whose type
        // (`MaybeUninit` bytes) is valid uninitialised.
        unsafe {
            std::ptr::addr_of_mut!((*m).ptr).write(ptr);
            std::ptr::addr_of_mut!((*m).bytes).write(bytes);
            std::ptr::addr_of_mut!((*m).cap).write(cap);
            std::ptr::addr_of_mut!((*m).lock).write(RwLock::new(()));
            std::ptr::addr_of_mut!((*m).version).write(std::sync::atomic::AtomicU64::new(0));
            std::ptr::addr_of_mut!((*m).owner).write(None);
            a.assume_init()
        }
    }

    /// A buffer holding a copy of `data`; the allocator's error (see [`Storage::try_new`])
    /// when the memory can't be had.
    pub(crate) fn try_from_slice<T: crate::element::Element>(
        data: &[T],
    ) -> crate::error::Result<Arc<Storage>> {
        // SAFETY: Element types are integers, bools (always 0 or 1), IEEE floats and half
        // types: no padding, every byte initialised; the length is the slice's size in bytes.
        let bytes = unsafe {
            std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data))
        };
        Storage::try_from_bytes(bytes)
    }

    /// A fresh storage holding a copy of `data`, or the allocator's error.
    pub(crate) fn try_from_bytes(data: &[u8]) -> crate::error::Result<Arc<Storage>> {
        let s = Storage::try_new(data.len(), false)?;
        // SAFETY: `s` is a fresh allocation of at least data.len() bytes, not shared yet.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), s.ptr(), data.len()) };
        Ok(s)
    }

    /// A storage over `bytes` bytes at `ptr` that it does not own (zero-copy loading from a
    /// memory-mapped file, `crate::io`): `owner` keeps the memory alive for as long as a tensor
    /// views it and is dropped with the storage; nothing is freed or pooled here.
    ///
    /// # Safety
    /// `ptr..ptr + bytes` must stay valid for reads and writes (kernels write in place through
    /// any storage) for as long as `owner` lives, must not be reached by anything but tensors
    /// of this storage (a private, copy-on-write mapping satisfies this), and `ptr` must be
    /// aligned for the element type of every tensor made over it.
    pub(crate) unsafe fn from_external(
        ptr: NonNull<u8>,
        bytes: usize,
        owner: Arc<dyn std::any::Any + Send + Sync>,
    ) -> Arc<Storage> {
        // `cap` non-zero marks the buffer as not inline; `owner` marks it as not ours.
        let mut s = Storage::in_arc(ptr, bytes, bytes.max(1));
        Arc::get_mut(&mut s).expect("a new Arc is unique").owner = Some(owner);
        s
    }

    /// A copy of bytes `byte_offset..byte_offset + n` of the storage, under its read lock.
    /// Errors: the allocator's; a range outside the storage (internal: no tensor reaches
    /// outside its storage).
    pub(crate) fn copy_bytes(&self, byte_offset: usize, n: usize) -> crate::error::Result<Vec<u8>> {
        if byte_offset.checked_add(n).is_none_or(|e| e > self.nbytes()) {
            return Err(crate::error::Error::runtime(
                "internal error: a byte range outside its storage",
            ));
        }
        let mut out = crate::error::try_filled(0u8, n)?;
        if n > 0 {
            let _g = self.read();
            // SAFETY: the range is inside the storage (checked) and we hold its read lock.
            unsafe {
                std::ptr::copy_nonoverlapping(self.ptr().add(byte_offset), out.as_mut_ptr(), n)
            };
        }
        Ok(out)
    }

    /// Size in bytes.
    pub(crate) fn nbytes(&self) -> usize {
        self.bytes
    }

    /// The start of the buffer. Dereferencing it requires holding the lock (module docs).
    pub(crate) fn ptr(&self) -> *mut u8 {
        if self.cap == 0 {
            self.inline.0.get() as *mut u8
        } else {
            self.ptr.as_ptr()
        }
    }

    /// The version counter's current value.
    pub(crate) fn version(&self) -> u64 {
        self.version.load(std::sync::atomic::Ordering::Acquire)
    }

    /// +1 on the version counter (one in-place op call).
    pub(crate) fn bump_version(&self) {
        self.version
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    pub(crate) fn read(&self) -> ReadGuard<'_> {
        self.lock.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, ()> {
        self.lock.write().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        if self.cap == 0 || self.owner.is_some() {
            return;
        }
        if self.cap >= MEDIUM {
            let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
            if pool.bytes + self.cap <= POOL_LIMIT {
                pool.bytes += self.cap;
                pool.bufs.push((self.cap, SendPtr(self.ptr)));
                return;
            }
        }
        // SAFETY: allocated in `new` with the same layout; no tensor refers to it any more.
        unsafe { dealloc(self.ptr.as_ptr(), layout_for(self.cap)) }
    }
}

/// A read lock on one storage.
pub(crate) type ReadGuard<'a> = RwLockReadGuard<'a, ()>;

/// A lock held on one storage for the duration of an op.
pub(crate) enum Guard<'a> {
    Read(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Write(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

/// Locks each distinct storage once, in address order: write for the entries marked `true`,
/// read for the rest (a storage listed both ways is write-locked). Sorts `entries`.
pub(crate) fn lock_all<'a>(entries: &mut [(&'a Storage, bool)]) -> SmallVec<[Guard<'a>; 4]> {
    let key = |e: &(&Storage, bool)| (e.0.ptr() as usize, !e.1);
    // Insertion sort by (address, write first): op operand lists are tiny.
    for i in 1..entries.len() {
        let mut j = i;
        while j > 0 && key(&entries[j - 1]) > key(&entries[j]) {
            entries.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut guards = SmallVec::new();
    let mut last: Option<usize> = None;
    for &(s, w) in entries.iter() {
        let addr = s.ptr() as usize;
        if last == Some(addr) {
            continue; // a write entry sorts first, so it covers later reads of the same storage
        }
        last = Some(addr);
        guards.push(if w {
            Guard::Write(s.write())
        } else {
            Guard::Read(s.read())
        });
    }
    guards
}
