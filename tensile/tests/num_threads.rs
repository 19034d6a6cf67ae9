//! `tensile::set_num_threads` / `get_num_threads` against `torch.set_num_threads` /
//! `torch.get_num_threads` (a test binary of its own: it changes the process-wide default
//! thread count, which would change the other thread tests' splits).

use std::sync::mpsc;
use std::time::Duration;
use tensile::Tensor;

const BIG: usize = 1 << 20;

/// The tests of this binary change the process-wide default: they run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on its own thread and returns its result, or panics after `secs` seconds.
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
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no progress after {secs} s"),
    }
}

#[test]
fn set_num_threads_is_per_thread_as_pytorch() {
    let _serial = serial();
    use tensile::{ErrorKind, get_num_threads, set_num_threads};
    // torch.set_num_threads's refusals (checked against torch 2.15)
    for (n, kind, text) in [
        (
            0i64,
            ErrorKind::RuntimeError,
            "set_num_threads expects a positive integer",
        ),
        (
            -1,
            ErrorKind::RuntimeError,
            "set_num_threads expects a positive integer",
        ),
        (
            -(1 << 31),
            ErrorKind::RuntimeError,
            "set_num_threads expects a positive integer",
        ),
        (
            1 << 31,
            ErrorKind::ValueError,
            "Overflow when unpacking long",
        ),
        (
            -(1 << 31) - 1,
            ErrorKind::ValueError,
            "Overflow when unpacking long",
        ),
    ] {
        let e = set_num_threads(n).unwrap_err();
        assert_eq!((e.kind(), e.to_string().as_str()), (kind, text), "n = {n}");
    }
    // a u64 above i64::MAX is a negative int
    let e = set_num_threads(u64::MAX).unwrap_err();
    assert_eq!(e.to_string(), "set_num_threads expects a positive integer");

    // As torch with OpenMP (measured: a thread that had run an op kept 2 after the main
    // thread set 3, its own set_num_threads(1) left the main thread at 3, a new thread took
    // 3): the count is the calling thread's, and the default of threads that have not asked.
    // Fresh threads here, so the test's own thread keeps its count.
    within(60, "set_num_threads", || {
        let (asked_tx, asked_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let early = std::thread::spawn(move || {
            let first = get_num_threads();
            asked_tx.send(first).unwrap();
            go_rx.recv().unwrap();
            let after = get_num_threads();
            set_num_threads(1).unwrap();
            // its ops still run (serially) and give the same result
            let s = Tensor::ones([BIG])
                .unwrap()
                .sum()
                .unwrap()
                .item::<f32>()
                .unwrap();
            (first, after, get_num_threads(), s)
        });
        let first = asked_rx.recv().unwrap();
        let setter = std::thread::spawn(move || {
            let prev = get_num_threads();
            set_num_threads(first + 1).unwrap();
            let mine = get_num_threads();
            go_tx.send(()).unwrap();
            let (e_first, e_after, e_own, s) = early.join().unwrap();
            let fresh = std::thread::spawn(get_num_threads).join().unwrap();
            let mine_after = get_num_threads();
            // a split over first + 1 threads gives the same sum
            let s2 = Tensor::ones([BIG])
                .unwrap()
                .sum()
                .unwrap()
                .item::<f32>()
                .unwrap();
            set_num_threads(prev).unwrap();
            (mine, e_first, e_after, e_own, fresh, mine_after, s, s2)
        });
        let (mine, e_first, e_after, e_own, fresh, mine_after, s, s2) = setter.join().unwrap();
        assert_eq!(mine, first + 1);
        assert_eq!((e_first, e_after, e_own), (first, first, 1));
        // the early thread's set_num_threads(1) is the default now, the setter keeps its own
        assert_eq!((fresh, mine_after), (1, first + 1));
        assert_eq!((s, s2), (BIG as f32, BIG as f32));
    });
}

/// `set_thread_num_threads` changes the calling thread's count alone: a thread started
/// afterwards still gets the default, and the refusals are `set_num_threads`'s.
#[test]
fn set_thread_num_threads_is_the_calling_threads_alone() {
    let _serial = serial();
    use tensile::{ErrorKind, get_num_threads, set_thread_num_threads};
    within(60, "set_thread_num_threads", || {
        // a default of 2, so that 1 differs from it
        tensile::set_num_threads(2).unwrap();
        let before = std::thread::spawn(get_num_threads).join().unwrap();
        assert_eq!(before, 2);
        set_thread_num_threads(1).unwrap();
        assert_eq!(get_num_threads(), 1);
        let other = std::thread::spawn(get_num_threads).join().unwrap();
        assert_eq!(other, before, "another thread keeps the default");
        let e = set_thread_num_threads(0).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::RuntimeError);
        assert_eq!(e.message(), "set_num_threads expects a positive integer");
        let e = set_thread_num_threads(1i64 << 40).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueError);
        assert_eq!(e.message(), "Overflow when unpacking long");
    });
}
