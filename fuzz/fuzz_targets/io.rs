#![no_main]
//! Checkpoint and array loaders on arbitrary bytes, and save → load round trips (see
//! `run_io` in `fuzz/src/program.rs`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tensile_fuzz::program::run_io(data);
});
