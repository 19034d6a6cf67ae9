//! Random: the factories `rand`, `randn`, `randint`, `randperm`, `normal` and the `*_like`
//! forms, the samplers `multinomial`, `bernoulli`, `poisson`, the in-place fills `uniform_`,
//! `normal_`, `random_`, `exponential_`, `geometric_`, `cauchy_`, `log_normal_`,
//! `bernoulli_`, and the `nn.init` fills that draw. Every adapter takes PyTorch's
//! `generator=` keyword (the conformance runner's `random` programs pass their own
//! [`Generator`] there; without it the default generator draws) and the factories `dtype=`;
//! positional and keyword forms as PyTorch's (`randint(high, size)`, `randint(low, high,
//! size)`, `normal(mean, std)` of tensors or numbers, `normal(mean, std, size)`,
//! `x.uniform_(from, to)`; the bench passes `size=`, `low=`, `high=`, `n=`, `p=`).
//!
//! The fills are entries of their own named as PyTorch's methods (`uniform_`: no `uniform`
//! exists). The `nn.init` fills are named after tensile's `init::NAME_with_` (the form taking
//! the generator; `init.uniform_`'s PyTorch name `uniform_` is the tensor method's) with the
//! corpus's `init.NAME_` as alias. No gradient: PyTorch's derivatives of the random ops are
//! zero, and `nn.init` fills under `no_grad`. The dropouts (which draw from the default
//! generator) are the norm family's.

use super::{Arg, Args, OpInfo, Sig};
use tensile::nn::init;
use tensile::{
    BernoulliOpts, CauchyOpts, ExponentialOpts, Generator, GeneratorOpts, LogNormalOpts,
    MultinomialOpts, NormalOpts, RandOpts, RandomOpts, Result, Scalar, Tensor, UniformOpts,
};

/// `generator=`.
fn generator(a: &Args) -> Option<&Generator> {
    a.kw_generator("generator")
}

/// `generator=` as the fills' and samplers' option.
fn gen_opts(a: &Args) -> GeneratorOpts<'_> {
    GeneratorOpts {
        generator: generator(a),
    }
}

/// `generator=` and `dtype=`.
fn rand_opts(a: &Args) -> RandOpts<'_> {
    RandOpts {
        generator: generator(a),
        dtype: a.kw_dtype("dtype"),
    }
}

/// A number at position `i` or in keyword `k`.
fn num(a: &Args, i: usize, k: &str) -> Option<Scalar> {
    match a.arg(i, k)? {
        Arg::Scalar(s) => Some(*s),
        _ => panic!("opinfo: argument {i} ({k}) is a number"),
    }
}

/// A float at position `i` or in keyword `k`, else `default`.
fn float(a: &Args, i: usize, k: &str, default: f64) -> f64 {
    num(a, i, k).map_or(default, |s| s.to_f64())
}

/// An int at position `i` or in keyword `k` (a float or bool converts, as Python's `int`).
fn int(a: &Args, i: usize, k: &str) -> Option<i64> {
    num(a, i, k).map(|s| match s {
        Scalar::Int(v) => v,
        Scalar::Float(v) => v as i64,
        Scalar::Bool(b) => b as i64,
    })
}

/// A string at position `i` or in keyword `k`, else `default`.
fn string<'a>(a: &'a Args, i: usize, k: &str, default: &'a str) -> &'a str {
    match a.arg(i, k) {
        Some(Arg::Str(s)) => s,
        None => default,
        _ => panic!("opinfo: argument {i} ({k}) is a string"),
    }
}

/// The size from position `i` on (a list, or `*size` ints) or in `size=`.
fn size(a: &Args, i: usize) -> Vec<i64> {
    match a.pos.get(i) {
        Some(Arg::Ints(v)) => v.clone(),
        Some(_) => (i..a.pos.len()).map(|j| a.int(j)).collect(),
        None => match a.kw_arg("size") {
            Some(Arg::Ints(v)) => v.clone(),
            Some(Arg::Scalar(Scalar::Int(n))) => vec![*n],
            _ => panic!("opinfo: a size"),
        },
    }
}

/// `(low, high)` of `randint(high, …)` / `randint(low, high, …)` (and of `randint_like`
/// after its tensor): the numbers from position `i` on, else `low=` (0) and `high=`; with
/// the position after them.
fn low_high(a: &Args, i: usize) -> (i64, i64, usize) {
    let n = a
        .pos
        .iter()
        .skip(i)
        .take_while(|x| matches!(x, Arg::Scalar(_)))
        .count();
    let low = || a.kw_int("low").unwrap_or(0);
    let (lo, hi) = match n {
        0 => (low(), a.kw_int("high").expect("opinfo: randint takes high")),
        1 => (low(), a.int(i)),
        _ => (a.int(i), a.int(i + 1)),
    };
    (lo, hi, i + n)
}

fn randint(a: &Args) -> Result<Tensor> {
    let (lo, hi, end) = low_high(a, 0);
    Tensor::randint_with(lo, hi, size(a, end).as_slice(), rand_opts(a))
}

/// `torch.normal(mean, std)` (tensors, or a tensor and a number) or `torch.normal(mean,
/// std, size)` (numbers).
fn normal(a: &Args) -> Result<Tensor> {
    if a.arg(2, "size").is_some() {
        let (m, s) = (float(a, 0, "mean", 0.0), float(a, 1, "std", 1.0));
        return Tensor::normal_with(m, s, size(a, 2).as_slice(), rand_opts(a));
    }
    let mean = a.arg(0, "mean").expect("opinfo: normal takes mean");
    let std = a.arg(1, "std").expect("opinfo: normal takes std");
    tensile::normal_with(mean.operand(), std.operand(), gen_opts(a))
}

/// `x.random_()`, `x.random_(to)`, `x.random_(from, to)` (or `from=`, `to=`).
fn random_(a: &Args) -> Result<Tensor> {
    let o = match a.pos.len() {
        1 => RandomOpts {
            from: a.kw_int("from"),
            to: a.kw_int("to"),
            ..RandomOpts::default()
        },
        2 => RandomOpts::from(a.int(1)),
        _ => RandomOpts::from((a.int(1), a.int(2))),
    };
    a.t(0).random_with_(RandomOpts {
        generator: generator(a),
        ..o
    })
}

/// `nn.init.kaiming_*_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu')`.
fn kaiming(a: &Args) -> init::KaimingOpts<'_> {
    init::KaimingOpts {
        a: float(a, 1, "a", 0.0),
        mode: string(a, 2, "mode", "fan_in"),
        nonlinearity: string(a, 3, "nonlinearity", "leaky_relu"),
    }
}

/// A random op: no gradient.
const fn random(name: &'static str, call: super::Call) -> OpInfo {
    OpInfo::new(name, Sig::Other, call).nograd("random")
}

/// An `nn.init` fill named after tensile's `init::NAME_with_`, its corpus name `init.NAME_`.
const fn nn_init(name: &'static str, alias: &'static [&'static str], call: super::Call) -> OpInfo {
    random(name, call).aliases(alias)
}

pub static OPS: &[OpInfo] = &[
    // factories
    random("rand", |a| {
        Tensor::rand_with(size(a, 0).as_slice(), rand_opts(a))
    })
    .bench("rand"),
    random("randn", |a| {
        Tensor::randn_with(size(a, 0).as_slice(), rand_opts(a))
    })
    .bench("randn"),
    random("randint", randint).bench("randint"),
    random("randperm", |a| {
        let n = int(a, 0, "n").expect("opinfo: randperm takes n");
        Tensor::randperm_with(n, rand_opts(a))
    })
    .bench("randperm"),
    random("normal", normal),
    random("rand_like", |a| {
        Tensor::rand_like_with(a.t(0), rand_opts(a))
    }),
    random("randn_like", |a| {
        Tensor::randn_like_with(a.t(0), rand_opts(a))
    }),
    random("randint_like", |a| {
        let (lo, hi, _) = low_high(a, 1);
        Tensor::randint_like_with(a.t(0), lo, hi, rand_opts(a))
    }),
    // samplers
    random("multinomial", |a| {
        let n = int(a, 1, "num_samples").expect("opinfo: multinomial takes num_samples");
        a.t(0).multinomial_with(
            n,
            MultinomialOpts {
                replacement: a.bool_at(2, "replacement").unwrap_or(false),
                generator: generator(a),
            },
        )
    })
    .bench("T.multinomial"),
    random("bernoulli", |a| {
        a.t(0).bernoulli_with(BernoulliOpts {
            p: a.arg(1, "p").map(Arg::operand),
            generator: generator(a),
        })
    }),
    random("poisson", |a| tensile::poisson_with(a.t(0), gen_opts(a))),
    // in-place fills
    random("uniform_", |a| {
        a.t(0).uniform_with_(UniformOpts {
            from: float(a, 1, "from", 0.0),
            to: float(a, 2, "to", 1.0),
            generator: generator(a),
        })
    }),
    random("normal_", |a| {
        a.t(0).normal_with_(NormalOpts {
            mean: float(a, 1, "mean", 0.0),
            std: float(a, 2, "std", 1.0),
            generator: generator(a),
        })
    })
    .bench("T.normal_"),
    random("random_", random_),
    random("exponential_", |a| {
        a.t(0).exponential_with_(ExponentialOpts {
            lambd: float(a, 1, "lambd", 1.0),
            generator: generator(a),
        })
    }),
    random("geometric_", |a| {
        let p = num(a, 1, "p").expect("opinfo: geometric_ takes p");
        a.t(0).geometric_with_(p.to_f64(), gen_opts(a))
    }),
    random("cauchy_", |a| {
        a.t(0).cauchy_with_(CauchyOpts {
            median: float(a, 1, "median", 0.0),
            sigma: float(a, 2, "sigma", 1.0),
            generator: generator(a),
        })
    }),
    random("log_normal_", |a| {
        a.t(0).log_normal_with_(LogNormalOpts {
            mean: float(a, 1, "mean", 1.0),
            std: float(a, 2, "std", 2.0),
            generator: generator(a),
        })
    }),
    random("bernoulli_", |a| {
        a.t(0).bernoulli_with_(BernoulliOpts {
            p: a.arg(1, "p").map(Arg::operand),
            generator: generator(a),
        })
    })
    .bench("T.bernoulli_"),
    // nn.init
    nn_init("uniform_with_", &["init.uniform_"], |a| {
        let (lo, hi) = (float(a, 1, "a", 0.0), float(a, 2, "b", 1.0));
        init::uniform_with_(a.t(0), lo, hi, generator(a))
    }),
    nn_init("normal_with_", &["init.normal_"], |a| {
        let (m, s) = (float(a, 1, "mean", 0.0), float(a, 2, "std", 1.0));
        init::normal_with_(a.t(0), m, s, generator(a))
    }),
    nn_init("kaiming_uniform_with_", &["init.kaiming_uniform_"], |a| {
        init::kaiming_uniform_with_(a.t(0), kaiming(a), generator(a))
    }),
    nn_init("kaiming_normal_with_", &["init.kaiming_normal_"], |a| {
        init::kaiming_normal_with_(a.t(0), kaiming(a), generator(a))
    }),
    nn_init("xavier_uniform_with_", &["init.xavier_uniform_"], |a| {
        init::xavier_uniform_with_(a.t(0), float(a, 1, "gain", 1.0), generator(a))
    }),
    nn_init("xavier_normal_with_", &["init.xavier_normal_"], |a| {
        init::xavier_normal_with_(a.t(0), float(a, 1, "gain", 1.0), generator(a))
    }),
    nn_init("trunc_normal_with_", &["init.trunc_normal_"], |a| {
        init::trunc_normal_with_(
            a.t(0),
            float(a, 1, "mean", 0.0),
            float(a, 2, "std", 1.0),
            float(a, 3, "a", -2.0),
            float(a, 4, "b", 2.0),
            generator(a),
        )
    }),
    nn_init("orthogonal_with_", &["init.orthogonal_"], |a| {
        init::orthogonal_with_(a.t(0), float(a, 1, "gain", 1.0), generator(a))
    }),
];
