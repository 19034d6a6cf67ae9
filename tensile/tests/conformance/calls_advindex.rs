//! Ops of the `advindex` family, for the conformance runner (`index` itself is shared with
//! the basic-indexing family in `calls_views.rs`).
use super::{Arg, IndexItem, Out, kw_bool};
use tensile::{Tensor, TensorIndex};

fn items(args: &[Arg]) -> Vec<TensorIndex> {
    match &args[1] {
        Arg::Index(items) => items
            .iter()
            .map(|it| match it {
                IndexItem::Int(i) => TensorIndex::Int(*i),
                IndexItem::Slice(a, b, c) => TensorIndex::Slice(*a, *b, *c),
                IndexItem::None => TensorIndex::NewAxis,
                IndexItem::Ellipsis => TensorIndex::Ellipsis,
                IndexItem::Tensor(t) => TensorIndex::Tensor(t.alias()),
            })
            .collect(),
        _ => panic!("corpus: setitem expects an index"),
    }
}

fn tensors(a: &Arg) -> &[Tensor] {
    match a {
        Arg::Tensors(ts) => ts,
        _ => panic!("corpus: index_put expects a list of tensors"),
    }
}

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let t = || args[0].tensor();
    let acc = kw_bool(kw, "accumulate").unwrap_or(false);
    let r = match op {
        "setitem" => t().index_set_(&items(args), args[2].operand()),
        "index_put_" => t().index_put_with_(tensors(&args[1]), args[2].tensor(), acc),
        "index_put" => t().index_put_with(tensors(&args[1]), args[2].tensor(), acc),
        _ => return None,
    };
    Some(r.map(Out::Tensor))
}
