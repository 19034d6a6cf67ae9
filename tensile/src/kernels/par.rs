//! The intra-op thread pool, as PyTorch's: every parallel region of the crate runs through
//! [`run`], and every split of work into tasks is sized by [`threads`].
//!
//! # Why a private pool
//! Ops hold storage locks while their kernels run (see [`crate::storage`]). A thread waiting
//! for its kernel chunks on a rayon pool that also runs user tasks (rayon's global pool, or
//! the user's own pool when the op is called from one of its tasks) runs other tasks of that
//! pool while it waits (rayon's work stealing). That broke two things:
//! * **deadlock**: the waiting thread holds a storage lock; the task it steals (or every
//!   other worker of the pool, busy with user tasks) blocks on that same lock, and the
//!   chunks the thread waits for never run;
//! * **thread-local leaks**: grad mode and the in-place depth counter (`crate::autograd`) are
//!   thread-local; a user task run by a thread inside `backward()` (grad mode off) or inside
//!   an in-place op records nothing.
//!
//! So kernels run on pools of their own, built here, that run nothing but the closures given
//! to [`run`]: kernel chunks, which take no storage lock (the op took them before) and touch
//! no autograd state. A caller waiting for them runs nothing else meanwhile:
//! * from a thread of no rayon pool, `ThreadPool::install` blocks it until the closure has
//!   run on the pool (rayon's `in_worker_cold`);
//! * from a worker of another rayon pool, `install` would let it steal that pool's jobs while
//!   it waits (`in_worker_cross`), so the closure is spawned on the pool instead and the caller
//!   blocks on a condition variable until the closure has finished ([`run_blocking`]);
//! * from a worker of a private pool (nested parallelism: a kernel chunk splitting further,
//!   a `gemm` product), the closure runs right there, and its parallel iterators use that
//!   pool (rayon's current pool; the `gemm` crate's `Parallelism::Rayon` too).
//!
//! # Two kinds of region
//! [`for_each_task`] (the loop and copy engines, the reductions, the row kernels) runs on a
//! [`Team`] (`kernels/team.rs`): the calling thread takes part and the helpers spin between
//! regions, so a region costs no wake-up (on the benchmark machine rayon's wake-ups cost
//! about 27 µs per region) and each thread gets the same block of the data every time.
//! [`run`] regions (parallel iterators, sorts, `gemm`) use the rayon pools below.
//!
//! Parallel iterators, `rayon::scope`/`join` and `Parallelism::Rayon` (the `gemm` kernels') are only ever
//! used inside [`run`]; callers check the work against their grain and `threads() > 1` first,
//! so small ops never reach a pool.
//!
//! # Thread counts
//! PyTorch's `set_num_threads`, as it behaves with its OpenMP backend: `set_num_threads(n)`
//! sets the calling thread's count and the default of every thread that has not asked for
//! one yet; a thread takes the default the first time it asks (its first parallel op or
//! `get_num_threads()`). The first default is `RAYON_NUM_THREADS` when it is a positive
//! integer, else the number of CPUs (as rayon's global pool). There is one pool per count in
//! use, started on first use (at most [`MAX_POOLS`] are kept: an older one ends once its last
//! parallel region has). A count of 1 uses no pool: callers stay on their thread.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use rayon::ThreadPool;

use super::team::Team;

thread_local! {
    /// This thread's intra-op thread count; 0 until it first asks (then [`DEFAULT`]).
    static COUNT: Cell<usize> = const { Cell::new(0) };
    /// Whether this thread is a worker of one of the private pools.
    static WORKER: Cell<bool> = const { Cell::new(false) };
}

/// The count a thread takes when it first asks: the last `set_num_threads`, or 0 before the
/// first thread asked (then [`first_default`]).
static DEFAULT: AtomicUsize = AtomicUsize::new(0);

/// At most this many pools (of distinct sizes) are kept running.
const MAX_POOLS: usize = 4;

/// The pools, by thread count, oldest first.
static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());

/// rayon's default: `RAYON_NUM_THREADS` when a positive integer, else the CPU count.
fn first_default() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The number of threads a parallel region started on this thread uses (PyTorch's
/// `get_num_threads()`): inside a private pool its size, else this thread's count.
pub(crate) fn threads() -> usize {
    if WORKER.with(Cell::get) {
        return rayon::current_num_threads();
    }
    if super::team::in_task() {
        return 1;
    }
    let n = COUNT.with(Cell::get);
    if n != 0 {
        return n;
    }
    let mut d = DEFAULT.load(Ordering::Relaxed);
    if d == 0 {
        // a racing `set_threads` wins
        d = match DEFAULT.compare_exchange(0, first_default(), Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => DEFAULT.load(Ordering::Relaxed),
            Err(cur) => cur,
        };
    }
    COUNT.with(|c| c.set(d));
    d
}

/// `set_num_threads(n)` (`n > 0`): this thread's count and the default of threads that have
/// not asked yet.
pub(crate) fn set_threads(n: usize) {
    debug_assert!(n > 0);
    DEFAULT.store(n, Ordering::Relaxed);
    COUNT.with(|c| c.set(n));
}

/// Sets the calling thread's count only (not the default of other threads): a data
/// loader's worker threads run their ops on one thread, as PyTorch's worker processes.
pub(crate) fn set_own_threads(n: usize) {
    debug_assert!(n > 0);
    COUNT.with(|c| c.set(n));
}

/// Sets this thread's count for the life of the returned guard (tests: a split over several
/// threads whatever the machine).
#[cfg(test)]
pub(crate) fn with_threads<R>(n: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            COUNT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(COUNT.with(|c| c.replace(n)));
    f()
}

/// The pool of `n` threads, started if need be; when no thread can be started, any pool
/// already running, else `None`.
fn pool(n: usize) -> Option<Arc<ThreadPool>> {
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, p)) = pools.iter().find(|(k, _)| *k == n) {
        return Some(p.clone());
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("tensile-{i}"))
        .start_handler(|_| WORKER.with(|w| w.set(true)))
        .build();
    match built {
        Ok(p) => {
            if pools.len() >= MAX_POOLS {
                // dropped (its threads end) once the regions running on it are done
                pools.remove(0);
            }
            let p = Arc::new(p);
            pools.push((n, p.clone()));
            Some(p)
        }
        Err(_) => pools.last().map(|(_, p)| p.clone()),
    }
}

/// Runs `f` on the private pool of [`threads`] threads and returns its result (a panic in `f`
/// is resumed here): the parallel iterators, scopes and `gemm` products inside `f` split over
/// that pool. The calling thread blocks meanwhile and runs nothing else (see the module
/// docs); called on a worker of a private pool, `f` runs right there. Should no thread at all
/// be startable, `f` runs on the calling thread.
///
/// Only this wrapper is generic: the pool's entry ([`run_dyn`]) takes `f` as a trait object,
/// so rayon's install and job machinery is compiled once, not once per parallel region.
#[inline]
pub(crate) fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if WORKER.with(Cell::get) {
        return f();
    }
    let mut f = Some(f);
    let mut out = None;
    run_dyn(&mut || {
        if let Some(f) = f.take() {
            out = Some(f());
        }
    });
    match out {
        Some(r) => r,
        // `run_dyn` calls its closure exactly once, or resumes its panic
        None => unreachable!("par::run: the region did not run"),
    }
}

/// Runs `f(t)` for every task `t` in `0..tasks` on [`threads`] threads and returns when all
/// have run; a panic in a task is resumed here. The tasks' order is unspecified. From a thread
/// outside any pool they run on the [`Team`] of that count, the calling thread taking part
/// (no wake-up when its helpers are spinning); when that team is busy with another thread's
/// region, and from a private pool's worker, each task is a rayon job spawned in a scope on
/// that pool (the spawning worker runs them from the last, the others steal from the
/// first). Inside a team task (a nested region) they run one after another on the calling
/// thread. Compiled once: the kernels' task bodies are trait objects.
pub(crate) fn for_each_task(tasks: usize, f: &(dyn Fn(usize) + Sync)) {
    match tasks {
        0 => {}
        1 => f(0),
        _ if super::team::in_task() => (0..tasks).for_each(f),
        _ if !WORKER.with(Cell::get) && team(threads()).is_some_and(|team| team.run(tasks, f)) => {}
        _ => run(|| {
            rayon::scope(|s| {
                for t in 0..tasks {
                    s.spawn(move |_| f(t));
                }
            })
        }),
    }
}

/// The teams, by thread count, oldest first (at most [`MAX_POOLS`]).
static TEAMS: Mutex<Vec<(usize, Arc<Team>)>> = Mutex::new(Vec::new());

/// The team of `n` threads (`n > 1`), started if need be; `None` for `n == 1` or when no
/// thread can be started.
fn team(n: usize) -> Option<Arc<Team>> {
    if n < 2 {
        return None;
    }
    let mut teams = TEAMS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, t)) = teams.iter().find(|(k, _)| *k == n) {
        return Some(t.clone());
    }
    let t = Team::start(n)?;
    if teams.len() >= MAX_POOLS {
        // its helpers end once the region running on it, if any, is done
        teams.remove(0).1.stop();
    }
    teams.push((n, t.clone()));
    Some(t)
}

/// Rows per block when `rows` rows of `row_elems` elements each are split over [`threads`]
/// threads: as the loop engine splits, at most four blocks per thread and at least
/// [`GRAIN`](super::loops::GRAIN) elements per block (whole rows).
pub(crate) fn rows_per_block(rows: usize, row_elems: usize) -> usize {
    let tasks = (rows * row_elems / super::loops::GRAIN)
        .min(threads() * 4)
        .min(rows)
        .max(1);
    rows.div_ceil(tasks).max(1)
}

/// Calls `f(b, block)` for each block `b` of `out` cut into blocks of `block_len` elements
/// (the last one shorter when `block_len` does not divide `out.len()`), the blocks in
/// parallel as [`for_each_task`]'s tasks. `block_len == 0`: one call with all of `out`.
pub(crate) fn for_each_block<T: Send>(
    out: &mut [T],
    block_len: usize,
    f: &(dyn Fn(usize, &mut [T]) + Sync),
) {
    if block_len == 0 || out.len() <= block_len {
        return f(0, out);
    }
    let blocks: Vec<Mutex<&mut [T]>> = out.chunks_mut(block_len).map(Mutex::new).collect();
    for_each_task(blocks.len(), &|b| {
        let mut block = blocks[b].lock().unwrap_or_else(PoisonError::into_inner);
        f(b, &mut block)
    });
}

/// [`for_each_task`] collecting each task's result, in task order.
pub(crate) fn map_tasks<T: Send>(tasks: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let slots: Vec<Mutex<Option<T>>> = (0..tasks).map(|_| Mutex::new(None)).collect();
    for_each_task(tasks, &|t| {
        *slots[t].lock().unwrap_or_else(PoisonError::into_inner) = Some(f(t));
    });
    slots
        .into_iter()
        .map(
            |s| match s.into_inner().unwrap_or_else(PoisonError::into_inner) {
                Some(v) => v,
                None => unreachable!("par::map_tasks: a task did not run"),
            },
        )
        .collect()
}

/// [`run`]'s pool entry, not generic: `f` runs once, on the pool or (on a private pool's
/// worker, or when no thread can be started) right here.
fn run_dyn(f: &mut (dyn FnMut() + Send)) {
    if WORKER.with(Cell::get) {
        return f();
    }
    let Some(pool) = pool(threads()) else {
        return f();
    };
    if rayon::current_thread_index().is_none() {
        // not a rayon worker: `install` blocks this thread until `f` has run on the pool
        return pool.install(f);
    }
    run_blocking(&pool, f)
}

/// Whether [`run_blocking`]'s job has run: `None` until then, then `f`'s panic if any.
struct Done {
    result: Mutex<Option<std::thread::Result<()>>>,
    cv: Condvar,
}

/// [`run`] from a worker of a foreign rayon pool: `f` is spawned on `pool` and this thread
/// waits on a condition variable (not in rayon, which would run that pool's other jobs).
fn run_blocking(pool: &ThreadPool, f: &mut (dyn FnMut() + Send)) {
    let done = Arc::new(Done {
        result: Mutex::new(None),
        cv: Condvar::new(),
    });
    let theirs = done.clone();
    let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
        // `f` (a borrow of the caller's closure) is consumed by the call: nothing of the
        // caller's frame is used after the result is stored, also when it panics
        let r = catch_unwind(AssertUnwindSafe(f));
        *theirs.result.lock().unwrap_or_else(PoisonError::into_inner) = Some(r);
        theirs.cv.notify_one();
    });
    // SAFETY: only the lifetime is changed (`'_`, the borrow of the caller's closure, to
    // `'static`, which `spawn` requires). This function returns only once the job has stored
    // the closure's outcome (the loop below), and the job stores it only after the closure
    // has run (or panicked, the panic caught), so the borrow is not used after this frame
    // ends. A job that never ran would leave this thread waiting, never returning. What the
    // job holds afterwards is its `Arc<Done>`, whose slot this thread empties before it
    // returns. The pool outlives the job: `run_dyn` holds an `Arc` of it until this function
    // returns.
    let job: Box<dyn FnOnce() + Send + 'static> = unsafe {
        std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Box<dyn FnOnce() + Send + 'static>>(
            job,
        )
    };
    pool.spawn(job);
    let mut slot = done.result.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(r) = slot.take() {
            drop(slot);
            if let Err(payload) = r {
                resume_unwind(payload)
            }
            return;
        }
        slot = done.cv.wait(slot).unwrap_or_else(PoisonError::into_inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_run_once_each_on_the_team_and_map_in_task_order() {
        with_threads(2, || {
            let hits: Vec<AtomicUsize> = (0..37).map(|_| AtomicUsize::new(0)).collect();
            for_each_task(hits.len(), &|t| {
                assert!(super::super::team::in_task(), "task {t} ran off the team");
                assert_eq!(threads(), 1, "a nested region would split again");
                hits[t].fetch_add(1, Ordering::Relaxed);
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            let squares = map_tasks(37, |t| t * t);
            assert_eq!(squares, (0..37).map(|t| t * t).collect::<Vec<_>>());
            assert_eq!(map_tasks(0, |t| t), Vec::<usize>::new());
            // inside a pool region the tasks are the pool's jobs
            run(|| {
                for_each_task(hits.len(), &|t| {
                    assert!(WORKER.with(Cell::get), "task {t} ran off the pool");
                    hits[t].fetch_add(1, Ordering::Relaxed);
                })
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 2));
        });
    }

    #[test]
    fn the_helper_takes_its_block_and_a_panic_leaves_the_team_usable() {
        with_threads(2, || {
            // tasks that leave the CPU, so the helper gets its turn even on a busy machine
            let on_helper = AtomicUsize::new(0);
            for _ in 0..200 {
                for_each_task(2, &|_| {
                    if std::thread::current()
                        .name()
                        .is_some_and(|n| n.starts_with("tensile-team-"))
                    {
                        on_helper.fetch_add(1, Ordering::Relaxed);
                    }
                    std::thread::sleep(std::time::Duration::from_micros(100));
                });
            }
            assert!(on_helper.load(Ordering::Relaxed) > 0);
            let r = catch_unwind(AssertUnwindSafe(|| {
                for_each_task(8, &|t| {
                    if t == 5 {
                        panic!("task {t}");
                    }
                })
            }));
            assert_eq!(*r.unwrap_err().downcast::<String>().unwrap(), "task 5");
            assert_eq!(map_tasks(8, |t| t + 1), (1..9).collect::<Vec<_>>());
        });
    }

    #[test]
    fn concurrent_callers_each_run_all_their_tasks() {
        // one caller holds the team at a time; the others take the rayon path
        let total = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    with_threads(2, || {
                        for _ in 0..100 {
                            let v = map_tasks(16, |t| t);
                            assert_eq!(v, (0..16).collect::<Vec<_>>());
                            total.fetch_add(1, Ordering::Relaxed);
                        }
                    })
                });
            }
        });
        assert_eq!(total.load(Ordering::Relaxed), 400);
    }

    use rayon::prelude::*;

    fn in_private_pool() -> bool {
        WORKER.with(Cell::get)
    }

    #[test]
    fn runs_on_a_private_worker_from_every_kind_of_thread() {
        with_threads(3, || {
            // a plain thread
            assert!(run(in_private_pool));
            assert_eq!(run(rayon::current_num_threads), 3);
            // nested: right there
            assert!(run(|| run(in_private_pool)));
            assert_eq!(
                run(|| (0..100).into_par_iter().map(|_| threads()).max()),
                Some(3)
            );
        });
        // a worker of a user pool (its own count: 2)
        let user = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let seen: Vec<(bool, usize)> = user.install(|| {
            (0..8)
                .into_par_iter()
                .map(|_| with_threads(2, || run(|| (in_private_pool(), threads()))))
                .collect()
        });
        assert!(seen.iter().all(|&s| s == (true, 2)), "{seen:?}");
    }

    #[test]
    fn a_waiting_user_worker_runs_no_other_task() {
        // Each task of a 2-thread user pool marks its thread busy, then waits in `run`: if
        // the thread ran another task meanwhile (as `install` from a foreign worker does),
        // that task would find its thread busy.
        thread_local!(static BUSY: Cell<bool> = const { Cell::new(false) });
        let user = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let nested = user.install(|| {
            (0..64)
                .into_par_iter()
                .map(|_| {
                    let was = BUSY.with(|b| b.replace(true));
                    with_threads(2, || {
                        run(|| {
                            (0..4).into_par_iter().for_each(|_| {
                                std::thread::sleep(std::time::Duration::from_micros(200))
                            })
                        })
                    });
                    BUSY.with(|b| b.set(false));
                    was as usize
                })
                .sum::<usize>()
        });
        assert_eq!(nested, 0);
    }

    #[test]
    fn a_panic_in_the_pool_reaches_the_caller_after_the_borrows_end() {
        let user = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for foreign in [false, true] {
            let data = vec![1u32, 2, 3];
            let call = || {
                catch_unwind(AssertUnwindSafe(|| {
                    with_threads(2, || {
                        run(|| {
                            let s: u32 = data.iter().sum();
                            if s == 6 {
                                panic!("kernel panic {s}");
                            }
                            s
                        })
                    })
                }))
            };
            let r = if foreign { user.install(call) } else { call() };
            let msg = r.unwrap_err().downcast::<String>().unwrap();
            assert_eq!(*msg, "kernel panic 6");
            assert_eq!(data, [1, 2, 3]);
        }
    }

    #[test]
    fn counts_are_per_thread_with_a_shared_default() {
        with_threads(5, || {
            assert_eq!(threads(), 5);
            // another thread that has not asked yet takes the default, not this thread's count
            let d = DEFAULT.load(Ordering::Relaxed);
            let other = std::thread::spawn(threads).join().unwrap();
            let want = if d == 0 { first_default() } else { d };
            assert_eq!(other, want);
        });
    }
}
