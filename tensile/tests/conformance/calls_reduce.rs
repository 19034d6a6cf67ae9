//! Ops of the `matmul` and `cat` families, for the conformance runner (the `reduce` family's
//! are the OpInfo table's, `tests/opinfo/reduce.rs`).
use super::{Arg, Out};
use tensile::Tensor;

pub fn call(op: &str, args: &[Arg], _kwargs: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let r = match op {
        "matmul" => args[0].tensor().matmul(args[1].tensor()).map(Out::Tensor),
        "cat" | "stack" => {
            let ts: Vec<&Tensor> = match &args[0] {
                Arg::Tensors(ts) => ts.iter().collect(),
                _ => panic!("corpus: {op} takes a list of tensors"),
            };
            let d = args[1].int();
            if op == "cat" {
                tensile::cat_with(&ts, d)
            } else {
                tensile::stack_with(&ts, d)
            }
            .map(Out::Tensor)
        }
        _ => return None,
    };
    Some(r)
}
