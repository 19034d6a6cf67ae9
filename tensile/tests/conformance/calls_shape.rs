//! Ops of the `shape_ops` family, for the conformance runner (`unbind` is dispatched with the
//! views).
use super::{Arg, Out, kw_bool, kw_f64, kw_int, kw_str};
use tensile::nn::functional as F;
use tensile::{RepeatInterleaveOpts, Tensor, TensorSplitArg};

fn list(a: &Arg) -> Vec<i64> {
    match a {
        Arg::Int(n) => vec![*n],
        a => a.list().to_vec(),
    }
}

fn split_arg(a: &Arg) -> TensorSplitArg<'_> {
    match a {
        Arg::Int(n) => (*n).into(),
        Arg::Tensor(t) => t.into(),
        a => a.list().into(),
    }
}

/// The tensors of a call taking `*tensors` or a list.
fn tensors(args: &[Arg]) -> Vec<&Tensor> {
    match args.first() {
        Some(Arg::Tensors(ts)) => ts.iter().collect(),
        _ => args.iter().map(|a| a.tensor()).collect(),
    }
}

pub fn call(op: &str, args: &[Arg], kw: &serde_json::Value) -> Option<tensile::Result<Out>> {
    let t = || args[0].tensor();
    let int = |i: usize| args[i].int();
    let one = |r: tensile::Result<Tensor>| Some(r.map(Out::Tensor));
    let many = |r: tensile::Result<Vec<Tensor>>| Some(r.map(Out::Tensors));
    match op {
        "flip" => one(t().flip(list(&args[1]))),
        "fliplr" => one(t().fliplr()),
        "flipud" => one(t().flipud()),
        "roll" => one(match args.get(2) {
            Some(d) => t().roll_with(list(&args[1]), list(d)),
            None => t().roll(list(&args[1])),
        }),
        "rot90" => one(match args.len() {
            1 => t().rot90(),
            2 => t().rot90_with(int(1), [0, 1]),
            _ => t().rot90_with(int(1), list(&args[2])),
        }),
        "repeat" => one(t().repeat(list(&args[1]))),
        "tile" => one(t().tile(list(&args[1]))),
        "repeat_interleave" => {
            if args.len() == 1 {
                return one(tensile::repeat_interleave(t()));
            }
            let opts = RepeatInterleaveOpts {
                dim: args.get(2).map(|a| a.int()),
                output_size: kw_int(kw, "output_size"),
            };
            one(match &args[1] {
                Arg::Int(n) => t().repeat_interleave_with(*n, opts),
                a => t().repeat_interleave_with(a.tensor(), opts),
            })
        }
        "tril" => one(match args.get(1) {
            Some(k) => t().tril_with(k.int()),
            None => t().tril(),
        }),
        "triu" => one(match args.get(1) {
            Some(k) => t().triu_with(k.int()),
            None => t().triu(),
        }),
        "pad" => {
            let opts = F::PadOpts {
                mode: kw_str(kw, "mode").unwrap_or("constant"),
                value: kw
                    .get("value")
                    .and_then(|v| v.get("scalar"))
                    .and_then(|_| match super::kw_arg(kw, "value") {
                        Some(Arg::Scalar(s)) => Some(s.to_f64()),
                        _ => None,
                    })
                    .or_else(|| kw_f64(kw, "value")),
            };
            one(F::pad_with(t(), list(&args[1]), opts))
        }
        "split_with_sizes" => many(t().split_with_sizes(list(&args[1]), int(2))),
        "narrow_copy" => one(t().narrow_copy(int(1), int(2), int(3))),
        "tensor_split" => many(match args.get(2) {
            Some(d) => t().tensor_split_with(split_arg(&args[1]), d.int()),
            None => t().tensor_split(split_arg(&args[1])),
        }),
        "hsplit" => many(t().hsplit(split_arg(&args[1]))),
        "vsplit" => many(t().vsplit(split_arg(&args[1]))),
        "dsplit" => many(t().dsplit(split_arg(&args[1]))),
        "hstack" => one(tensile::hstack(&tensors(args))),
        "vstack" => one(tensile::vstack(&tensors(args))),
        "dstack" => one(tensile::dstack(&tensors(args))),
        "column_stack" => one(tensile::column_stack(&tensors(args))),
        "swapaxes" => one(t().swapaxes(int(1), int(2))),
        "swapdims" => one(t().swapdims(int(1), int(2))),
        "atleast_1d" | "atleast_2d" | "atleast_3d" => match &args[0] {
            Arg::Tensors(ts) => many(match op {
                "atleast_1d" => tensile::atleast_1d(ts),
                "atleast_2d" => tensile::atleast_2d(ts),
                _ => tensile::atleast_3d(ts),
            }),
            a => one(match op {
                "atleast_1d" => a.tensor().atleast_1d(),
                "atleast_2d" => a.tensor().atleast_2d(),
                _ => a.tensor().atleast_3d(),
            }),
        },
        "einsum" => {
            let Arg::Str(eq) = &args[0] else {
                panic!("corpus: einsum equation")
            };
            let ops: Vec<&Tensor> = args[1..].iter().map(|a| a.tensor()).collect();
            one(tensile::einsum(eq, &ops))
        }
        "tensordot" => one(match &args[2] {
            Arg::DimLists(a, b) => tensile::tensordot(t(), args[1].tensor(), (a, b)),
            a => tensile::tensordot(t(), args[1].tensor(), a.int()),
        }),
        "outer" => one(t().outer(args[1].tensor())),
        "kron" => one(t().kron(args[1].tensor())),
        "block_diag" => one(tensile::block_diag(&tensors(args))),
        "cartesian_prod" => one(tensile::cartesian_prod(&tensors(args))),
        "combinations" => {
            let r = args.get(1).map(|a| a.int()).unwrap_or(2);
            let w = kw_bool(kw, "with_replacement").unwrap_or(false);
            one(tensile::combinations_with(t(), (r, w)))
        }
        "linalg.cross" => one(tensile::linalg::cross_with(
            t(),
            args[1].tensor(),
            kw_int(kw, "dim").unwrap_or(-1),
        )),
        "trace" => one(t().trace()),
        "diag" => one(match args.get(1) {
            Some(k) => t().diag_with(k.int()),
            None => t().diag(),
        }),
        "diagflat" => one(match args.get(1) {
            Some(k) => t().diagflat_with(k.int()),
            None => t().diagflat(),
        }),
        "diag_embed" => one(match args.len() {
            1 => t().diag_embed(),
            2 => t().diag_embed_with(int(1)),
            3 => t().diag_embed_with((int(1), int(2), -1)),
            _ => t().diag_embed_with((int(1), int(2), int(3))),
        }),
        _ => None,
    }
}
