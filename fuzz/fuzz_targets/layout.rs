#![no_main]
//! The pure layout and shape functions on arbitrary sizes and strides (see
//! `fuzz/src/program.rs`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tensile_fuzz::program::run_layout(data);
});
