//! Replays every saved fuzz input (`tests/fuzz_regressions/<target>/<name>`) through the
//! same interpreter the fuzzer ran (`fuzz/src/program.rs`), catching nothing: a panic fails
//! the test, an abort or a memory error kills it.
//!
//! Each file is a minimised input that once crashed the process (`scripts/fuzz.sh` finds
//! them; `cargo fuzz tmin` minimises them). Inputs that still crash because their fix is
//! pending are listed in [`KNOWN`] with the reason, and skipped; empty it as the fixes land.

#[path = "../../fuzz/src/program.rs"]
#[allow(dead_code)]
mod program;

use std::path::Path;

/// `(target, file name, why it still crashes)`: skipped until fixed. Each reason names the
/// crash site as found (debug builds have overflow checks on, as the test profile does).
const KNOWN: &[(&str, &str, &str)] = &[];

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let mut files: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .map(|e| e.expect("readable directory entry").path())
            .collect(),
        Err(_) => return 0,
    };
    files.sort();
    let mut ran = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if KNOWN.iter().any(|(t, n, _)| *t == target && *n == name) {
            continue;
        }
        let data = std::fs::read(&path).expect("readable regression input");
        eprintln!("replaying {target}/{name}");
        run(&data);
        ran += 1;
    }
    ran
}

#[test]
fn api_regressions() {
    let ran = replay("api", program::run_api);
    eprintln!("{ran} api inputs replayed");
}

#[test]
fn layout_regressions() {
    let ran = replay("layout", program::run_layout);
    eprintln!("{ran} layout inputs replayed");
}

#[test]
fn geometry_regressions() {
    let ran = replay("geometry", program::run_geometry);
    eprintln!("{ran} geometry inputs replayed");
}

#[test]
fn io_regressions() {
    let ran = replay("io", program::run_io);
    eprintln!("{ran} io inputs replayed");
}

/// Every `KNOWN` entry names a file that exists (so a renamed input is not silently skipped).
#[test]
fn known_entries_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    for (t, n, _) in KNOWN {
        assert!(
            root.join(t).join(n).is_file(),
            "KNOWN entry {t}/{n} has no file"
        );
    }
}

/// A few fixed programs that must run clean (they exercise the interpreter itself: views,
/// pointwise ops, reductions, printing).
#[test]
fn smoke_programs() {
    for seed in 0u64..64 {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let data: Vec<u8> = (0..96)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 224) as u8 // small sizes and ints only
            })
            .collect();
        program::run_api(&data);
        program::run_layout(&data);
        program::run_geometry(&data);
        program::run_io(&data);
    }
}

/// The geometry interpreter on random programs over the whole byte range (big and boundary
/// sizes and ints included): the shape rules never panic and keep their invariants.
#[test]
fn geometry_programs_hold_their_invariants() {
    for seed in 0u64..1024 {
        let mut x = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
        let data: Vec<u8> = (0..160)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        program::run_geometry(&data);
    }
}

/// The `api` arms 78 and 79 (ops from the tasks of a user rayon pool while another thread
/// writes the same tensor in place) on hand-decoded programs: one constructor
/// (`[0, dtype, 1, 1, 5, 200]`: a 1-d `ones` of 5 elements of `DTYPES[dtype]`, no
/// `as_strided`), then the arm (`78`: on that tensor, `79`: on a fresh 2^17-element one, above
/// the parallel grain) with its three operand picks, 16 tasks (every task kind twice) and 8
/// writes (every write kind twice).
#[test]
fn thread_arms_run_clean() {
    for dtype in [8u8, 5, 0] {
        for op in [78u8, 79] {
            let mut data = vec![0, dtype, 1, 1, 5, 200, op, 0, 0, 0, 14];
            for i in 0..16u8 {
                data.extend([i % 8, i.wrapping_mul(37)]);
            }
            data.push(7);
            for i in 0..8u8 {
                data.extend([i % 4, i.wrapping_mul(53)]);
            }
            program::run_api(&data);
        }
    }
}
