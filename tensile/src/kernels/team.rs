//! The team of threads that runs [`super::par::for_each_task`]'s regions: the calling thread
//! and `n - 1` helpers, as an OpenMP parallel region (PyTorch's `at::parallel_for`).
//!
//! *Why not the rayon pool*: a region on rayon's pool wakes a sleeping worker (a futex
//! wake, an inter-processor interrupt, on a virtual machine an exit to the host), that worker
//! wakes the next, and the caller sleeps until the last task has run and is woken in turn.
//! Measured on the 2-core benchmark machine: a 2-thread `fill_` of 65,536 float32 took 32 µs
//! against 6 µs on one thread, so every region paid about 27 µs before any work, and the
//! 2-thread cases of the suite ran at 0.2–0.6× PyTorch, whose OpenMP threads spin between
//! regions. Here the caller runs tasks itself, and helpers spin for [`SPIN`] after each region
//! (a back-to-back op starts at once) before they sleep on a condition variable.
//!
//! *Which thread runs which task*: the tasks are cut into one block per thread, in order
//! (thread `k` of `n` owns tasks `k·tasks/n ..`), and each thread runs its own block first, so
//! an op repeated over the same data gives each thread the same part of it every time, still
//! in its caches (OpenMP's static schedule). A thread that has finished its block takes the
//! tasks left in the others' (a helper that is asleep or late costs no waiting).
//!
//! *The protocol*: a control word holds the region's generation, whether it is closed, and the
//! number of helpers that have enlisted. The caller publishes the function, the task count
//! and the block counters, then the new generation (release). A helper takes part only by
//! enlisting (a compare-and-swap on the control word while the region is open); the caller,
//! once no task is left, closes the region and waits until every enlisted helper has reported
//! `finished`. So nothing reads the function after the caller returns, and a helper that wakes
//! late finds the region closed and goes back to waiting. One region runs at a time: a caller
//! that finds the team busy (another thread's op) gets `false` and takes the rayon path.
//!
//! Tasks run with [`super::par::threads`] reporting 1 (no nested splits, as OpenMP's default),
//! take no storage lock and touch no autograd state, like every kernel task.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a helper spins for the next region before it sleeps (libgomp's default spin is
/// of the same order).
const SPIN: Duration = Duration::from_micros(200);

/// The control word: generation in the high 32 bits, bit 31 "closed", enlisted helpers below.
const CLOSED: u64 = 1 << 31;
const ENLISTED: u64 = CLOSED - 1;

thread_local! {
    /// Whether this thread is running a team task now (a helper, or a caller inside its
    /// region): [`super::par::threads`] reports 1 there.
    static IN_TASK: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is inside a team task.
pub(crate) fn in_task() -> bool {
    IN_TASK.with(Cell::get)
}

/// A task function with its lifetime erased (see [`Team::run`]).
type Job = *const (dyn Fn(usize) + Sync);

/// A counter on a cache line of its own (the threads claim from different blocks at once).
#[repr(align(128))]
struct Padded(AtomicUsize);

/// The threads of one count.
pub(crate) struct Team {
    /// Threads including the caller: the number of blocks.
    n: usize,
    /// A region is running (one at a time).
    busy: AtomicBool,
    /// Generation, closed flag and enlisted helpers of the current region.
    ctl: AtomicU64,
    /// The current region's function and task count: written by the caller before it
    /// publishes the generation, read by helpers only after enlisting in that region.
    job: UnsafeCell<(Job, usize)>,
    /// The next unclaimed task of each block (block `k`: tasks `k·tasks/n .. (k+1)·tasks/n`).
    next: Box<[Padded]>,
    /// Enlisted helpers that have finished the current region.
    finished: AtomicUsize,
    /// The first panic of the region's tasks.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Helpers asleep on `bell`, woken by the next region.
    sleepers: AtomicUsize,
    bell: (Mutex<()>, Condvar),
    /// Set when the team is dropped from the list: its helpers end.
    quit: AtomicBool,
}

// SAFETY: `job` is the only field not `Sync`. The caller writes it while it holds `busy` and
// before publishing the region's generation; a helper reads it only after enlisting in that
// region (acquire on `ctl`), and the caller does not return, nor write `job` again, before
// every enlisted helper has reported `finished` (release/acquire).
unsafe impl Sync for Team {}
// SAFETY: as above; the raw pointer is only an erased borrow that the caller keeps alive.
unsafe impl Send for Team {}

impl Team {
    /// A team of `n ≥ 2` threads (`n - 1` helpers started), or `None` when no thread can be
    /// started.
    pub(crate) fn start(n: usize) -> Option<Arc<Team>> {
        let noop: &'static (dyn Fn(usize) + Sync) = &|_| {};
        let team = Arc::new(Team {
            n,
            busy: AtomicBool::new(false),
            ctl: AtomicU64::new(CLOSED),
            job: UnsafeCell::new((noop as Job, 0)),
            next: (0..n).map(|_| Padded(AtomicUsize::new(0))).collect(),
            finished: AtomicUsize::new(0),
            panic: Mutex::new(None),
            sleepers: AtomicUsize::new(0),
            bell: (Mutex::new(()), Condvar::new()),
            quit: AtomicBool::new(false),
        });
        for k in 1..n {
            let t = team.clone();
            let started = std::thread::Builder::new()
                .name(format!("tensile-team-{k}"))
                .spawn(move || t.helper(k));
            if started.is_err() {
                team.stop();
                return None;
            }
        }
        Some(team)
    }

    /// Ends the helpers (once the region running, if any, is done).
    pub(crate) fn stop(&self) {
        self.quit.store(true, Ordering::SeqCst);
        let _g = self.bell.0.lock().unwrap_or_else(PoisonError::into_inner);
        self.bell.1.notify_all();
    }

    /// Runs `f(t)` for `t` in `0..tasks` on the team, the calling thread included; returns
    /// `false` (nothing run) when the team is busy with another thread's region. A panic in a
    /// task is resumed here once every task has ended.
    pub(crate) fn run(&self, tasks: usize, f: &(dyn Fn(usize) + Sync)) -> bool {
        if self.busy.swap(true, Ordering::Acquire) {
            return false;
        }
        let short: *const (dyn Fn(usize) + Sync + '_) = f;
        // SAFETY: only the pointer's lifetime bound changes; it is dereferenced only while
        // this call runs (the protocol in the module docs).
        let erased: Job =
            unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), Job>(short) };
        // SAFETY: we hold `busy`; the previous region is closed and all its enlisted helpers
        // have finished, and no helper can enlist before the generation below is published,
        // so nothing reads `job` now.
        unsafe { *self.job.get() = (erased, tasks) };
        for (k, c) in self.next.iter().enumerate() {
            c.0.store(k * tasks / self.n, Ordering::Relaxed);
        }
        self.finished.store(0, Ordering::Relaxed);
        let g = (self.ctl.load(Ordering::Relaxed) >> 32).wrapping_add(1);
        self.ctl.store(g << 32, Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _g = self.bell.0.lock().unwrap_or_else(PoisonError::into_inner);
            self.bell.1.notify_all();
        }
        self.work(0, f, tasks);
        // close the region: no helper enlists after this
        let enlisted = self.ctl.fetch_or(CLOSED, Ordering::AcqRel) & ENLISTED;
        let start = Instant::now();
        let mut spins = 0u32;
        while (self.finished.load(Ordering::Acquire) as u64) < enlisted {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && start.elapsed() > SPIN {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        let panic = self
            .panic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        self.busy.store(false, Ordering::Release);
        if let Some(p) = panic {
            resume_unwind(p);
        }
        true
    }

    /// Thread `me`'s share of a region: its own block, then what is left of the others'.
    fn work(&self, me: usize, f: &(dyn Fn(usize) + Sync), tasks: usize) {
        let was = IN_TASK.with(|c| c.replace(true));
        for b in (me..self.n).chain(0..me) {
            let end = (b + 1) * tasks / self.n;
            loop {
                let t = self.next[b].0.fetch_add(1, Ordering::Relaxed);
                if t >= end {
                    break;
                }
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(t))) {
                    let mut slot = self.panic.lock().unwrap_or_else(PoisonError::into_inner);
                    slot.get_or_insert(p);
                }
            }
        }
        IN_TASK.with(|c| c.set(was));
    }

    /// Helper `me`'s life: wait for a region (spinning for [`SPIN`], then asleep), enlist
    /// while it is open, take part, report.
    fn helper(self: Arc<Self>, me: usize) {
        let mut seen = self.ctl.load(Ordering::Acquire) >> 32;
        loop {
            let start = Instant::now();
            let mut spins = 0u32;
            let mut c = loop {
                if self.quit.load(Ordering::Relaxed) {
                    return;
                }
                let c = self.ctl.load(Ordering::Acquire);
                if c >> 32 != seen {
                    break c;
                }
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(64) && start.elapsed() > SPIN {
                    let mut guard = self.bell.0.lock().unwrap_or_else(PoisonError::into_inner);
                    self.sleepers.fetch_add(1, Ordering::SeqCst);
                    while self.ctl.load(Ordering::SeqCst) >> 32 == seen
                        && !self.quit.load(Ordering::SeqCst)
                    {
                        guard = self
                            .bell
                            .1
                            .wait(guard)
                            .unwrap_or_else(PoisonError::into_inner);
                    }
                    self.sleepers.fetch_sub(1, Ordering::SeqCst);
                    continue;
                }
                std::hint::spin_loop();
            };
            seen = c >> 32;
            // enlist while the region is open
            let enlisted = loop {
                if c >> 32 != seen || c & CLOSED != 0 {
                    break false;
                }
                match self
                    .ctl
                    .compare_exchange_weak(c, c + 1, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => break true,
                    Err(now) => c = now,
                }
            };
            if !enlisted {
                continue;
            }
            // SAFETY: enlisted in the open region `seen`, whose `job` the caller wrote before
            // publishing it (acquire above); the caller keeps it alive until we report.
            let (job, tasks) = unsafe { *self.job.get() };
            // SAFETY: as above: the borrow behind `job` outlives this region.
            self.work(me, unsafe { &*job }, tasks);
            self.finished.fetch_add(1, Ordering::Release);
        }
    }
}
