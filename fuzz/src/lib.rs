//! The fuzz programs (see `program.rs`), shared by the cargo-fuzz targets.
pub mod program;
