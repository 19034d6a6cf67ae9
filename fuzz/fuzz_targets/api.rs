#![no_main]
//! Random programs over tensile's public API (see `fuzz/src/program.rs`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tensile_fuzz::program::run_api(data);
});
