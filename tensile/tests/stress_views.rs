//! Soundness of shared views under threads: 8 writer threads doing in-place `add_`, `fill_`
//! and `copy_` through overlapping views of one base (and of a second base, so that `copy_`
//! takes two storages' locks in both orders), plus reader threads, for a bounded time.
//!
//! What must hold whatever the interleaving:
//! * region A of `base` (`[0, 512)`) only ever receives `add_` of positive integers through
//!   overlapping views (narrow, strided slices, as_strided with overlapping rows read-only
//!   elsewhere): its final sum equals the sum of `amount * view.numel()` over every `add_`
//!   that returned `Ok`, exactly (float64 holds these integers exactly), and each reader sees
//!   region A's sum only grow;
//! * region B of `base` (`[512, 1024)`) and all of `other` only ever hold values from
//!   `0..=8` (each writer fills or copies its own id in, or copies B into `other` and back):
//!   every read sees only those values;
//! * no panic, no deadlock (the test ends).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tensile::{DType, Tensor};

const WRITERS: u64 = 8;
const READERS: u64 = 2;
const RUN_FOR: Duration = Duration::from_secs(5);

/// A small deterministic generator (xorshift64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A view of `t[lo..hi]` chosen at random: a narrow, a strided slice, or a 2-d reshape of a
/// narrow (all overlapping each other across threads).
fn region_view(t: &Tensor, lo: i64, hi: i64, rng: &mut Rng) -> Tensor {
    let len = hi - lo;
    match rng.below(4) {
        0 => {
            let s = rng.below(len as u64) as i64;
            let l = 1 + rng.below((len - s) as u64) as i64;
            t.narrow(0, lo + s, l).unwrap()
        }
        1 => {
            let step = 1 + rng.below(5) as i64;
            let s = rng.below(16) as i64;
            t.slice(0, Some(lo + s), Some(hi), step).unwrap()
        }
        2 => {
            // rows of 16, transposed: a non-contiguous 2-d view
            let rows = 1 + rng.below((len / 16) as u64) as i64;
            t.narrow(0, lo, rows * 16)
                .unwrap()
                .view([rows, 16])
                .unwrap()
                .t()
                .unwrap()
        }
        _ => t.narrow(0, lo, len).unwrap(),
    }
}

fn sum_exact(t: &Tensor) -> f64 {
    t.to_vec::<f64>().iter().sum()
}

#[test]
fn overlapping_views_under_threads() {
    let base = Tensor::zeros_with([1024], DType::Float64).unwrap();
    let other = Tensor::zeros_with([512], DType::Float64).unwrap();
    let added = Arc::new(AtomicU64::new(0));
    let ops = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + RUN_FOR;

    let mut handles = Vec::new();
    for id in 1..=WRITERS {
        let (base, other) = (base.alias(), other.alias());
        let (added, ops) = (added.clone(), ops.clone());
        handles.push(std::thread::spawn(move || {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ id);
            let mut n = 0u64;
            while Instant::now() < deadline {
                match rng.below(6) {
                    0..=2 => {
                        let v = region_view(&base, 0, 512, &mut rng);
                        let amount = 1 + rng.below(100);
                        if v.add_(amount as f64).is_ok() {
                            added.fetch_add(amount * v.numel() as u64, Ordering::Relaxed);
                        }
                    }
                    3 => {
                        let v = region_view(&base, 512, 1024, &mut rng);
                        v.fill_(id as f64).unwrap();
                    }
                    4 => {
                        // other -> region B, same shape: takes both storages' locks
                        let l = 1 + rng.below(256) as i64;
                        let (s, d) = (rng.below(256) as i64, 512 + rng.below(256) as i64);
                        base.narrow(0, d, l)
                            .unwrap()
                            .copy_(&other.narrow(0, s, l).unwrap())
                            .unwrap();
                    }
                    _ => {
                        // region B -> other, or a constant into other
                        let l = 1 + rng.below(256) as i64;
                        let (s, d) = (512 + rng.below(256) as i64, rng.below(256) as i64);
                        let dst = other.narrow(0, d, l).unwrap();
                        if rng.below(2) == 0 {
                            dst.copy_(&base.narrow(0, s, l).unwrap()).unwrap();
                        } else {
                            let src =
                                Tensor::full_with([l as usize], id as f64, DType::Float32).unwrap();
                            dst.copy_(&src).unwrap();
                        }
                    }
                }
                n += 1;
            }
            ops.fetch_add(n, Ordering::Relaxed);
        }));
    }

    let mut readers = Vec::new();
    for r in 0..READERS {
        let (base, other, stop) = (base.alias(), other.alias(), stop.clone());
        readers.push(std::thread::spawn(move || {
            let mut rng = Rng(0xD1B5_4A32_D192_ED03 ^ r);
            let mut last = 0.0f64;
            let mut reads = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let a = sum_exact(&base.narrow(0, 0, 512).unwrap());
                assert!(a >= last, "region A's sum went down: {last} -> {a}");
                assert_eq!(a, a.trunc(), "region A's sum is not an integer: {a}");
                last = a;
                let b = if rng.below(2) == 0 {
                    region_view(&base, 512, 1024, &mut rng).to_vec::<f64>()
                } else {
                    other.to_vec::<f64>()
                };
                for x in b {
                    assert!(
                        x == x.trunc() && (0.0..=WRITERS as f64).contains(&x),
                        "stray value {x}"
                    );
                }
                reads += 1;
            }
            reads
        }));
    }

    for h in handles {
        h.join().expect("a writer panicked");
    }
    stop.store(true, Ordering::Relaxed);
    let reads: u64 = readers
        .into_iter()
        .map(|h| h.join().expect("a reader panicked"))
        .sum();

    let total = sum_exact(&base.narrow(0, 0, 512).unwrap());
    let expected = added.load(Ordering::Relaxed) as f64;
    eprintln!(
        "{} writer ops, {reads} reads; region A sum {total} (expected {expected})",
        ops.load(Ordering::Relaxed)
    );
    assert_eq!(total, expected, "lost or duplicated add_ updates");
    for x in base
        .narrow(0, 512, 512)
        .unwrap()
        .to_vec::<f64>()
        .into_iter()
        .chain(other.to_vec::<f64>())
    {
        assert!(
            (0.0..=WRITERS as f64).contains(&x) && x == x.trunc(),
            "stray value {x}"
        );
    }
    assert!(ops.load(Ordering::Relaxed) > 0 && reads > 0);
}
