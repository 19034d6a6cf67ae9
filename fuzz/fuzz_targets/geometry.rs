#![no_main]
//! The shape rules of `tensile::geometry` on arbitrary arguments, with their invariants (see
//! `fuzz/src/program.rs`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tensile_fuzz::program::run_geometry(data);
});
