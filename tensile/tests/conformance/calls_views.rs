//! View, indexing and contiguity ops for the conformance runner: the `views`, `index` and
//! `contiguity` families, and the view/index/contiguity cases of `seeds`.
//!
//! Each op name and argument list means the PyTorch call that `replay.py`'s `call` makes.
use super::{Arg, IndexItem, Out};
use tensile::{Error, Result, Tensor};

fn bad(op: &str, what: &str) -> Error {
    Error::runtime(format!(
        "conformance: bad arguments for {op}: expected {what}"
    ))
}

fn tensor(args: &[Arg], i: usize) -> Option<&Tensor> {
    match args.get(i) {
        Some(Arg::Tensor(t)) => Some(t),
        _ => None,
    }
}

/// An integer argument, or `default` when absent.
fn int(args: &[Arg], i: usize, default: Option<i64>) -> Option<i64> {
    match args.get(i) {
        Some(Arg::Int(n)) => Some(*n),
        None => default,
        _ => None,
    }
}

/// A list argument (`shape`, `dims` or `ints`); a lone `int` counts as a 1-list.
fn list(args: &[Arg], i: usize) -> Option<Vec<i64>> {
    match args.get(i) {
        Some(Arg::Shape(v) | Arg::Dims(v) | Arg::Ints(v)) => Some(v.clone()),
        Some(Arg::Int(n)) => Some(vec![*n]),
        _ => None,
    }
}

/// Runs `t[items]`. (`TensorIndex` is built through the `s!` macro's helpers so this file does
/// not depend on where the crate re-exports the type.)
fn index(t: &Tensor, items: &[IndexItem]) -> Result<Tensor> {
    let v: Vec<_> = items
        .iter()
        .map(|it| match it {
            IndexItem::Int(i) => Tensor::__s_item(*i),
            IndexItem::Slice(a, b, c) => Tensor::__s_slice(*a, *b, *c),
            IndexItem::None => Tensor::__S_NEW_AXIS,
            IndexItem::Ellipsis => Tensor::__S_ELLIPSIS,
            IndexItem::Tensor(t) => Tensor::__s_item(t),
        })
        .collect();
    t.index(&v)
}

/// Runs `op`; `None` when the op does not belong to these families.
pub fn call(op: &str, args: &[Arg], kwargs: &serde_json::Value) -> Option<Result<Out>> {
    run(op, args, kwargs).map(first_line)
}

fn run(op: &str, args: &[Arg], _kwargs: &serde_json::Value) -> Option<Result<Out>> {
    let one = |r: Result<Tensor>| Some(r.map(Out::Tensor));
    let many = |r: Result<Vec<Tensor>>| Some(r.map(Out::Tensors));
    let known = matches!(
        op,
        "view"
            | "view_as"
            | "reshape"
            | "reshape_as"
            | "flatten"
            | "ravel"
            | "unflatten"
            | "squeeze"
            | "unsqueeze"
            | "transpose"
            | "swapaxes"
            | "swapdims"
            | "t"
            | "T"
            | "mT"
            | "permute"
            | "movedim"
            | "moveaxis"
            | "narrow"
            | "select"
            | "slice"
            | "index"
            | "expand"
            | "expand_as"
            | "broadcast_to"
            | "broadcast_tensors"
            | "diagonal"
            | "unfold"
            | "as_strided"
            | "split"
            | "chunk"
            | "unbind"
            | "contiguous"
            | "clone"
            | "is_contiguous"
            | "is_contiguous_channels_last"
    );
    if !known {
        return None;
    }
    if op == "broadcast_tensors" {
        let ts: Vec<&Tensor> = match args {
            [Arg::Tensors(v)] => v.iter().collect(),
            _ => args
                .iter()
                .filter_map(|a| {
                    if let Arg::Tensor(t) = a {
                        Some(t)
                    } else {
                        None
                    }
                })
                .collect(),
        };
        return many(tensile::Tensor::broadcast_tensors(&ts));
    }
    let Some(t) = tensor(args, 0) else {
        return Some(Err(bad(op, "a tensor first")));
    };
    let r = match op {
        "view" | "reshape" | "expand" | "broadcast_to" | "permute" => {
            let Some(s) = list(args, 1) else {
                return Some(Err(bad(op, "a shape")));
            };
            match op {
                "view" => t.view(&s),
                "reshape" => t.reshape(&s),
                "permute" => t.permute(&s),
                "broadcast_to" => t.broadcast_to(&s),
                _ => t.expand(&s),
            }
        }
        "view_as" | "reshape_as" | "expand_as" => {
            let Some(o) = tensor(args, 1) else {
                return Some(Err(bad(op, "two tensors")));
            };
            match op {
                "view_as" => t.view_as(o),
                "reshape_as" => t.reshape_as(o),
                _ => t.expand_as(o),
            }
        }
        "flatten" => match (int(args, 1, Some(0)), int(args, 2, Some(-1))) {
            (Some(a), Some(b)) => t.flatten_with((a, b)),
            _ => return Some(Err(bad(op, "two ints"))),
        },
        "ravel" => t.ravel(),
        "unflatten" => match (int(args, 1, None), list(args, 2)) {
            (Some(d), Some(s)) => t.unflatten(d, &s),
            _ => return Some(Err(bad(op, "an int and a shape"))),
        },
        "squeeze" => match args.get(1) {
            None => t.squeeze(),
            Some(Arg::Int(d)) => t.squeeze_dim(*d),
            Some(Arg::Dims(d) | Arg::Shape(d) | Arg::Ints(d)) => t.squeeze_dim(d),
            _ => return Some(Err(bad(op, "an int or dims"))),
        },
        "unsqueeze" => match int(args, 1, None) {
            Some(d) => t.unsqueeze(d),
            None => return Some(Err(bad(op, "an int"))),
        },
        "transpose" | "swapaxes" | "swapdims" => match (int(args, 1, None), int(args, 2, None)) {
            (Some(a), Some(b)) => t.transpose(a, b),
            _ => return Some(Err(bad(op, "two ints"))),
        },
        "t" => t.t(),
        "T" => t.T(),
        "mT" => t.mT(),
        "movedim" | "moveaxis" => match (list(args, 1), list(args, 2)) {
            (Some(a), Some(b)) => t.movedim(&a, &b),
            _ => return Some(Err(bad(op, "two ints or dim lists"))),
        },
        "narrow" => match (int(args, 1, None), int(args, 2, None), int(args, 3, None)) {
            (Some(d), Some(s), Some(l)) => t.narrow(d, s, l),
            _ => return Some(Err(bad(op, "three ints"))),
        },
        "select" => match (int(args, 1, None), int(args, 2, None)) {
            (Some(d), Some(i)) => t.select(d, i),
            _ => return Some(Err(bad(op, "two ints"))),
        },
        "slice" => match (int(args, 1, Some(0)), int(args, 4, Some(1))) {
            (Some(d), Some(step)) => {
                let opt = |i: usize| match args.get(i) {
                    Some(Arg::Int(n)) => Some(*n),
                    _ => None,
                };
                t.slice(d, opt(2), opt(3), step)
            }
            _ => return Some(Err(bad(op, "dim, start, end, step"))),
        },
        "index" => match args.get(1) {
            Some(Arg::Index(items)) => index(t, items),
            _ => return Some(Err(bad(op, "an index"))),
        },
        "diagonal" => match (
            int(args, 1, Some(0)),
            int(args, 2, Some(0)),
            int(args, 3, Some(1)),
        ) {
            (Some(o), Some(a), Some(b)) => t.diagonal_with((o, a, b)),
            _ => return Some(Err(bad(op, "three ints"))),
        },
        "unfold" => match (int(args, 1, None), int(args, 2, None), int(args, 3, None)) {
            (Some(d), Some(s), Some(st)) => t.unfold(d, s, st),
            _ => return Some(Err(bad(op, "three ints"))),
        },
        "as_strided" => match (list(args, 1), list(args, 2)) {
            (Some(size), Some(stride)) => match args.get(3) {
                Some(Arg::Int(o)) => t.as_strided_with(&size, &stride, *o),
                _ => t.as_strided(&size, &stride),
            },
            _ => return Some(Err(bad(op, "a shape and strides"))),
        },
        "split" | "chunk" | "unbind" => {
            let r = match op {
                "split" | "chunk" => match (int(args, 1, None), int(args, 2, Some(0))) {
                    (Some(k), Some(d)) if op == "split" => t.split_with(k, d),
                    (Some(k), Some(d)) => t.chunk_with(k, d),
                    _ => return Some(Err(bad(op, "two ints"))),
                },
                _ => match int(args, 1, Some(0)) {
                    Some(d) => t.unbind_with(d),
                    None => return Some(Err(bad(op, "an int"))),
                },
            };
            return many(r);
        }
        "contiguous" => Ok(t.contiguous()),
        "clone" => Ok(t.clone()),
        "is_contiguous" => return Some(Ok(Out::Bool(t.is_contiguous()))),
        "is_contiguous_channels_last" => {
            return Some(Ok(Out::Bool(t.is_contiguous_channels_last())));
        }
        _ => return None,
    };
    one(r)
}

/// The corpus records only the first line of an error's text (as `str(e).split('\n')[0]`);
/// multi-line messages (`unflatten got an unexpected error:\n…`) are compared on that line.
fn first_line(r: Result<Out>) -> Result<Out> {
    r.map_err(|e| match e.message().split_once('\n') {
        Some((first, _)) => Error::new(e.kind(), first),
        None => e,
    })
}
