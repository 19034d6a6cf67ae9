//! Creation: `arange`, `zeros`, `ones`, `full` and their `_like` forms, `empty_like`,
//! `linspace`, `logspace`, `eye`, `tril_indices`/`triu_indices`, `F.one_hot`, `meshgrid`.
//! Arguments are positional (the corpus) or keywords (the bench: `size=`, `end=`, …).
//! README's creation table is hand-written: most of its rows are constructors and random
//! ops that are no entry here (the random ops are `random.rs`'s).

use super::{Adapter, Arg, Args, Dom, OpInfo, P, Ret, Sample, Sig};
use tensile::{Result, Scalar, Tensor, TensorOptions};

/// A number at position `i` or in keyword `k`.
fn num(a: &Args, i: usize, k: &str) -> Scalar {
    match a.arg(i, k) {
        Some(Arg::Scalar(s)) => *s,
        _ => panic!("opinfo: {k} is a number"),
    }
}

/// The size at position 0 or in `size=` (borrowed: the bench times the adapter too).
fn size(a: &Args) -> &[i64] {
    match a.arg(0, "size") {
        Some(Arg::Ints(v)) => v,
        Some(Arg::Scalar(Scalar::Int(n))) => std::slice::from_ref(n),
        _ => panic!("opinfo: a size"),
    }
}

/// `dtype=`.
fn opts(a: &Args) -> TensorOptions {
    TensorOptions {
        dtype: a.kw_dtype("dtype"),
    }
}

fn arange(a: &Args) -> Result<Tensor> {
    let o = opts(a);
    match a.pos.len() {
        0 => Tensor::arange_with(a.kw_scalar("end").expect("opinfo: arange takes end"), o),
        1 => Tensor::arange_with(num(a, 0, ""), o),
        2 => Tensor::arange_with((num(a, 0, ""), num(a, 1, "")), o),
        _ => Tensor::arange_with((num(a, 0, ""), num(a, 1, ""), num(a, 2, "")), o),
    }
}

fn logspace(a: &Args) -> Result<Tensor> {
    let lo = tensile::LogspaceOpts {
        base: a.kw_f64("base").unwrap_or(10.0),
        dtype: a.kw_dtype("dtype"),
    };
    let steps = a.int_at(2, "steps").expect("opinfo: logspace takes steps");
    Tensor::logspace_with(num(a, 0, "start"), num(a, 1, "end"), steps, lo)
}

fn tri_indices(a: &Args, lower: bool) -> Result<Tensor> {
    let (r, c) = (a.int_at(0, "row").unwrap(), a.int_at(1, "col").unwrap());
    let off = a.int_at(2, "offset").unwrap_or(0);
    if lower {
        tensile::tril_indices_with(r, c, off)
    } else {
        tensile::triu_indices_with(r, c, off)
    }
}

/// A creation op: no gradient (PyTorch's creation ops make leaves).
const fn create(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call).nograd("creation")
}

pub static OPS: &[OpInfo] = &[
    create("arange", arange).bench("arange"),
    create("zeros", |a| Tensor::zeros_with(size(a), opts(a))).bench("zeros"),
    create("ones", |a| Tensor::ones_with(size(a), opts(a))),
    create("full", |a| {
        Tensor::full_with(size(a), num(a, 1, "fill_value"), opts(a))
    })
    .bench("full"),
    create("zeros_like", |a| Tensor::zeros_like_with(a.t(0), opts(a))),
    create("ones_like", |a| Tensor::ones_like_with(a.t(0), opts(a))),
    create("empty_like", |a| Tensor::empty_like_with(a.t(0), opts(a))),
    create("full_like", |a| {
        Tensor::full_like_with(a.t(0), num(a, 1, "fill_value"), opts(a))
    }),
    create("linspace", |a| {
        let steps = a.int_at(2, "steps").expect("opinfo: linspace takes steps");
        Tensor::linspace_with(num(a, 0, "start"), num(a, 1, "end"), steps, opts(a))
    })
    .bench("linspace"),
    create("logspace", logspace),
    create("eye", |a| {
        Tensor::eye_with(
            a.int_at(0, "n").expect("opinfo: eye takes n"),
            tensile::EyeOpts {
                m: a.int_at(1, "m"),
                dtype: a.kw_dtype("dtype"),
            },
        )
    })
    .bench("eye"),
    create("tril_indices", |a| tri_indices(a, true)),
    create("triu_indices", |a| tri_indices(a, false)),
    OpInfo::new("one_hot", Sig::Other, |a| {
        match a.int_at(1, "num_classes") {
            Some(k) => tensile::nn::functional::one_hot_with(a.t(0), k),
            None => tensile::nn::functional::one_hot(a.t(0)),
        }
    })
    .nograd("integer")
    .bench("F.one_hot"),
    OpInfo::new_ret(
        "meshgrid",
        Sig::Other,
        Adapter::Ret(|a| {
            let ts: Vec<&Tensor> = match a.pos.first() {
                Some(Arg::Tensors(ts)) => ts.iter().collect(),
                _ => a.pos.iter().map(|x| x.tensor()).collect(),
            };
            tensile::meshgrid_with(&ts, a.kw_str("indexing").unwrap_or("ij")).map(Ret::Many)
        }),
    )
    .grad(&[Sample::new(&[P::Ts(&[(Dom::Any, &[3]), (Dom::Any, &[2])])])]),
];
