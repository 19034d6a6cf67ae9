//! tensile under the user's own thread pools (issue 27, items 1 and 3).
//!
//! Ops run their parallel kernels on tensile's private intra-op pool, as PyTorch's intra-op
//! pool, which never runs user tasks. So:
//! * an op that holds a storage lock while it waits for its kernel chunks never waits on a
//!   thread that is blocked on that lock (a user task reading the tensor): no deadlock;
//! * a thread never runs someone else's task while it is inside an op, so its thread-local
//!   autograd state (grad mode, the in-place depth) never leaks into another task.
//!
//! Each test runs its scenario on a spawned thread and fails by timeout instead of hanging.
//! The big tensors (2^20 elements, far above `2 * GRAIN` = 65536) make every op on them go
//! parallel, with chunks long enough that other threads take some of them while the op's
//! thread waits: that wait is where the op's thread used to run other tasks.

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};
use tensile::Tensor;

/// Runs `f` on its own thread and returns its result, or panics after `secs` seconds
/// (`what` says what hung). A panic in `f` is propagated.
fn within<R: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    let h = std::thread::spawn(move || {
        let r = f();
        let _ = tx.send(());
        r
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => match h.join() {
            Ok(r) => r,
            Err(p) => std::panic::resume_unwind(p),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: no progress after {secs} s (deadlocked)")
        }
    }
}

/// A user rayon pool of `n` threads (more than this machine's cores, so tasks queue up,
/// threads get preempted and their work stolen).
fn user_pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

/// Runs `n` tasks `task(i)` on `pool` with `spawn` (rayon's injector: any worker of the pool
/// that waits in rayon with nothing of its own to do picks them up) and returns their results
/// in completion order.
fn spawn_all<R: Send + 'static>(
    pool: &rayon::ThreadPool,
    n: usize,
    task: impl Fn(usize) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let task = Arc::new(task);
    let (tx, rx) = mpsc::channel();
    for i in 0..n {
        let (tx, task) = (tx.clone(), task.clone());
        pool.spawn(move || {
            let _ = tx.send(task(i));
        });
    }
    drop(tx);
    rx.iter().take(n).collect()
}

const BIG: usize = 1 << 20;

/// The scenario of issue 27 item 1: an in-place op on a big tensor in a loop on one thread
/// while rayon tasks sum that tensor: 64 tasks of a `par_iter`, on `pool` or (`None`) on
/// rayon's global pool (the code). On `pool`, first 512 spawned tasks computing
/// `w.exp()` (longer kernel chunks than a sum: more time for a waiting reader to take another
/// task). Returns the sums' total and the `exp` tasks' results.
fn writer_against_readers(pool: Option<&rayon::ThreadPool>) -> (f32, Vec<f32>) {
    let w = Tensor::ones([BIG]).unwrap();
    let w2 = w.alias();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let writer = std::thread::spawn(move || {
        // bounded: until the readers are done, at most 30 s
        let end = Instant::now() + Duration::from_secs(30);
        let mut n = 0u64;
        while !stop2.load(Ordering::Relaxed) && Instant::now() < end {
            w2.mul_(1.0).unwrap();
            n += 1;
        }
        n
    });
    let read = || {
        (0..64)
            .into_par_iter()
            .map(|_| w.sum().unwrap().item::<f32>().unwrap())
            .sum::<f32>()
    };
    let (s, exps) = match pool {
        Some(p) => {
            let w3 = w.alias();
            let exps = spawn_all(p, 512, move |_| {
                let e = w3.exp().unwrap();
                e.sum().unwrap().item::<f32>().unwrap()
            });
            (p.install(read), exps)
        }
        None => (read(), Vec::new()),
    };
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    (s, exps)
}

#[test]
fn in_place_writer_against_readers_in_a_user_pool() {
    // A reader holding the read lock waited in rayon for its sum's chunks and ran another
    // reader task, which asked for the read lock again behind the waiting writer.
    // four rounds: one hung about two times in three before the fix
    let rounds = within(90, "in-place writer vs readers in a user pool", || {
        let pool = user_pool(8);
        (0..4)
            .map(|_| writer_against_readers(Some(&pool)))
            .collect::<Vec<_>>()
    });
    let want = std::f32::consts::E * BIG as f32;
    for (s, exps) in rounds {
        assert_eq!(s, 64.0 * BIG as f32);
        assert!(
            exps.iter().all(|e| ((e - want) / want).abs() < 1e-5),
            "exp(ones).sum() != {want}: {exps:?}"
        );
    }
}

#[test]
fn in_place_writer_against_readers_on_the_global_pool() {
    // The writer waited for its chunks on rayon's global pool while every worker of that
    // pool was blocked reading the tensor it had locked.
    let (s, _) = within(
        60,
        "in-place writer vs readers on rayon's global pool",
        || writer_against_readers(None),
    );
    assert_eq!(s, 64.0 * BIG as f32);
}

/// Task `i` of the grad-mode scenario: every 16th a forward and backward whose kernels go
/// parallel (its error, if any), the others `small.mul(2.0)` (whether the result lost
/// `requires_grad`).
fn grad_task(small: &Tensor, i: usize) -> (bool, Option<String>) {
    if i.is_multiple_of(16) {
        let x = Tensor::ones([BIG]).unwrap().requires_grad_(true).unwrap();
        let y = x.mul(2.0).unwrap().exp().unwrap().sum().unwrap();
        match y.backward() {
            Ok(()) if x.grad().is_some() => (false, None),
            Ok(()) => (false, Some("no grad".to_string())),
            Err(e) => (false, Some(e.to_string())),
        }
    } else {
        (!small.mul(2.0).unwrap().requires_grad(), None)
    }
}

#[test]
fn grad_mode_stays_with_its_task() {
    // backward() turns grad mode off on its thread; a user task run by that thread while it
    // waits inside a parallel kernel recorded nothing (a stolen backward then failed with
    // "element 0 of tensors does not require grad and does not have a grad_fn").
    let results = within(120, "grad mode under work stealing", || {
        let small = Tensor::ones([4]).unwrap().requires_grad_(true).unwrap();
        let pool = user_pool(4);
        let s2 = small.alias();
        let mut r = spawn_all(&pool, 4800, move |i| grad_task(&s2, i));
        r.extend(pool.install(|| {
            (0..1600)
                .into_par_iter()
                .map(|i| grad_task(&small, i))
                .collect::<Vec<_>>()
        }));
        r
    });
    let lost = results.iter().filter(|r| r.0).count();
    let failed: Vec<&String> = results.iter().filter_map(|r| r.1.as_ref()).collect();
    assert_eq!(lost, 0, "small.mul(2.0) results that lost requires_grad");
    assert!(failed.is_empty(), "failed backward() calls: {failed:?}");
}

#[test]
fn in_place_ops_record_inside_other_in_place_ops() {
    // An in-place op marks its thread while its kernel runs (an in-place op implemented with
    // another one records once); a user task's in-place op run by that thread meanwhile was
    // neither counted in the version nor recorded.
    let bad = within(120, "in-place depth under work stealing", || {
        let small = Tensor::ones([4]).unwrap().requires_grad_(true).unwrap();
        let pool = user_pool(4);
        let round = |small: Tensor| {
            spawn_all(&pool, 4800, move |i| {
                if i.is_multiple_of(8) {
                    let big = Tensor::ones([BIG]).unwrap();
                    for _ in 0..2 {
                        big.mul_(2.0).unwrap();
                        big.add_(1.0).unwrap();
                    }
                    None
                } else {
                    let a = small.mul(1.0).unwrap();
                    a.add_(1.0).unwrap();
                    let name = a.grad_fn().map(|f| f.name().to_string());
                    if a.version() != 1 || name.as_deref() != Some("AddBackward0") {
                        Some((a.version(), name))
                    } else {
                        None
                    }
                }
            })
        };
        // two rounds: 4 to 17 bad adds per round before the fix
        let mut bad = round(small.alias());
        bad.extend(round(small));
        bad.into_iter().flatten().collect::<Vec<_>>()
    });
    assert!(
        bad.is_empty(),
        "in-place adds not counted or recorded (version, grad_fn): {} of them, e.g. {:?}",
        bad.len(),
        bad.first()
    );
}
