//! Ops of the `matmul` family, for the conformance runner (the `reduce` family's are the
//! OpInfo table's, `tests/opinfo/reduce.rs`; `cat` and `stack` are in `tests/opinfo/views.rs`).
use super::{Arg, Out};

pub fn call(op: &str, args: &[Arg], _kwargs: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let r = match op {
        "matmul" => args[0].tensor().matmul(args[1].tensor()).map(Out::Tensor),
        _ => return None,
    };
    Some(r)
}
