//! Ops of this family, for the conformance runner (being written).
use super::{Arg, Out};

pub fn call(_op: &str, _args: &[Arg], _kwargs: &serde_json::Value) -> Option<tensile::Result<Out>> {
    None
}
