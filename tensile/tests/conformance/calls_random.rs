//! The `random` family: programs of seeded random calls (the corpus README's section
//! "`random` cases (programs)"; `replay_extra.py`'s `run_random` / `cmp_random` are the
//! reference reading). A program seeds the default generator (`tensile::manual_seed`) or its
//! own `Generator`, may save and restore the state, and makes random calls; each call's
//! result (or the error that ends the program) is compared with PyTorch's: layouts exactly,
//! values by the call's tolerance class (`exact`, `ulp`, `lapack`), a tensor of more than 512
//! elements through its summary (strided values, the last 16, and for integers `Σ (i+1)·v[i]`).
//! `TENSILE_RANDOM_BITS=1` holds the `ulp` class to bit equality as well (see [`tol_for`]).

use super::{Arg, build_arg, check_error, ints, kw_f64, kw_str, num};
use serde_json::Value;
use tensile::nn::functional as F;
use tensile::nn::init;
use tensile::{
    BernoulliOpts, CauchyOpts, ExponentialOpts, Generator, GeneratorOpts, LogNormalOpts,
    MultinomialOpts, NormalOpts, Operand, RandOpts, RandomOpts, Scalar, Tensor, UniformOpts,
};

/// A result of a random call.
enum Res {
    /// An out-of-place result.
    Fresh(Tensor),
    /// An in-place call on argument 0.
    InPlace,
}

fn scalar(a: &Arg) -> Scalar {
    match a {
        Arg::Scalar(s) => *s,
        Arg::Int(i) => Scalar::Int(*i),
        _ => panic!("corpus: expected a number"),
    }
}

fn int(a: &Arg) -> i64 {
    match scalar(a) {
        Scalar::Int(i) => i,
        Scalar::Float(f) => f as i64,
        Scalar::Bool(b) => b as i64,
    }
}

fn f(a: &Arg) -> f64 {
    scalar(a).to_f64()
}

fn operand(a: &Arg) -> Operand<'_> {
    match a {
        Arg::Tensor(t) => Operand::Tensor(t),
        other => Operand::Scalar(scalar(other)),
    }
}

/// One call statement of a program (`random_call` in `replay_extra.py`).
fn call(name: &str, a: &[Arg], kw: &Value, g: Option<&Generator>) -> tensile::Result<Res> {
    use Res::{Fresh, InPlace};
    let dtype = match kw.get("dtype").map(build_arg) {
        Some((Arg::DType(d), _)) => Some(d),
        _ => None,
    };
    let ro = RandOpts {
        generator: g,
        dtype,
    };
    let go = GeneratorOpts { generator: g };
    let kf = |k: &str, d: f64| kw_f64(kw, k).unwrap_or(d);
    let t0 = || a[0].tensor();
    Ok(match name {
        "rand" => Fresh(Tensor::rand_with(a[0].list(), ro)?),
        "randn" => Fresh(Tensor::randn_with(a[0].list(), ro)?),
        "randint" => Fresh(match a {
            [hi, size] => Tensor::randint_with(0, int(hi), size.list(), ro)?,
            [lo, hi, size] => Tensor::randint_with(int(lo), int(hi), size.list(), ro)?,
            _ => panic!("corpus: randint arity"),
        }),
        "randperm" => Fresh(Tensor::randperm_with(int(&a[0]), ro)?),
        "multinomial" => Fresh(t0().multinomial_with(
            int(&a[1]),
            MultinomialOpts {
                replacement: kw.get("replacement").and_then(|v| v.as_bool()) == Some(true),
                generator: g,
            },
        )?),
        "normal" => Fresh(match a {
            [m, s] => tensile::normal_with(operand(m), operand(s), go)?,
            [m, s, size] => Tensor::normal_with(f(m), f(s), size.list(), ro)?,
            _ => panic!("corpus: normal arity"),
        }),
        "bernoulli" => Fresh(match a {
            [p] => p.tensor().bernoulli_with(BernoulliOpts {
                p: None,
                generator: g,
            })?,
            [x, p] => x.tensor().bernoulli_with(BernoulliOpts {
                p: Some(Operand::Scalar(scalar(p))),
                generator: g,
            })?,
            _ => panic!("corpus: bernoulli arity"),
        }),
        "poisson" => Fresh(tensile::poisson_with(t0(), go)?),
        "rand_like" => Fresh(Tensor::rand_like_with(t0(), ro)?),
        "randn_like" => Fresh(Tensor::randn_like_with(t0(), ro)?),
        "randint_like" => Fresh(match a {
            [x, hi] => Tensor::randint_like_with(x.tensor(), 0, int(hi), ro)?,
            [x, lo, hi] => Tensor::randint_like_with(x.tensor(), int(lo), int(hi), ro)?,
            _ => panic!("corpus: randint_like arity"),
        }),
        "uniform_" => {
            t0().uniform_with_(UniformOpts {
                from: f(&a[1]),
                to: f(&a[2]),
                generator: g,
            })?;
            InPlace
        }
        "normal_" => {
            t0().normal_with_(NormalOpts {
                mean: f(&a[1]),
                std: f(&a[2]),
                generator: g,
            })?;
            InPlace
        }
        "random_" => {
            let o = match a {
                [_] => RandomOpts::default(),
                [_, to] => RandomOpts::from(int(to)),
                [_, from, to] => RandomOpts::from((int(from), int(to))),
                _ => panic!("corpus: random_ arity"),
            };
            t0().random_with_(RandomOpts { generator: g, ..o })?;
            InPlace
        }
        "exponential_" => {
            t0().exponential_with_(ExponentialOpts {
                lambd: kf("lambd", 1.0),
                generator: g,
            })?;
            InPlace
        }
        "geometric_" => {
            t0().geometric_with_(f(&a[1]), go)?;
            InPlace
        }
        "cauchy_" => {
            t0().cauchy_with_(CauchyOpts {
                median: kf("median", 0.0),
                sigma: kf("sigma", 1.0),
                generator: g,
            })?;
            InPlace
        }
        "log_normal_" => {
            t0().log_normal_with_(LogNormalOpts {
                mean: kf("mean", 1.0),
                std: kf("std", 2.0),
                generator: g,
            })?;
            InPlace
        }
        "bernoulli_" => {
            let p = match a {
                [_, p] => Some(operand(p)),
                _ => kw_f64(kw, "p").map(|p| Operand::Scalar(Scalar::Float(p))),
            };
            t0().bernoulli_with_(BernoulliOpts { p, generator: g })?;
            InPlace
        }
        "dropout" | "dropout2d" => {
            let o = F::DropoutOpts {
                p: kf("p", 0.5),
                training: kw.get("training").and_then(|v| v.as_bool()) != Some(false),
                inplace: false,
            };
            Fresh(if name == "dropout" {
                F::dropout_with(t0(), o)?
            } else {
                F::dropout2d_with(t0(), o)?
            })
        }
        _ => {
            let Some(init_name) = name.strip_prefix("init.") else {
                panic!("corpus: unknown random call {name}");
            };
            let x = t0();
            let kaiming = || init::KaimingOpts {
                a: kf("a", 0.0),
                mode: kw_str(kw, "mode").unwrap_or("fan_in"),
                nonlinearity: kw_str(kw, "nonlinearity").unwrap_or("leaky_relu"),
            };
            match init_name {
                "uniform_" => init::uniform_with_(x, kf("a", 0.0), kf("b", 1.0), g)?,
                "normal_" => init::normal_with_(x, kf("mean", 0.0), kf("std", 1.0), g)?,
                "kaiming_uniform_" => init::kaiming_uniform_with_(x, kaiming(), g)?,
                "kaiming_normal_" => init::kaiming_normal_with_(x, kaiming(), g)?,
                "xavier_uniform_" => init::xavier_uniform_with_(x, kf("gain", 1.0), g)?,
                "xavier_normal_" => init::xavier_normal_with_(x, kf("gain", 1.0), g)?,
                "trunc_normal_" => init::trunc_normal_with_(
                    x,
                    kf("mean", 0.0),
                    kf("std", 1.0),
                    kf("a", -2.0),
                    kf("b", 2.0),
                    g,
                )?,
                "orthogonal_" => init::orthogonal_with_(x, kf("gain", 1.0), g)?,
                other => panic!("corpus: unknown init {other}"),
            };
            InPlace
        }
    })
}

/// The tolerance class of a call (`tol_class` in `replay_extra.py`).
fn tol_class(name: &str) -> &'static str {
    const EXACT: &[&str] = &[
        "rand",
        "rand_like",
        "randint",
        "randint_like",
        "randperm",
        "random_",
        "bernoulli",
        "bernoulli_",
        "multinomial",
        "dropout",
        "dropout2d",
    ];
    if EXACT.contains(&name) {
        "exact"
    } else if name == "init.orthogonal_" {
        "lapack"
    } else {
        "ulp"
    }
}

/// `(rtol, atol)` of a class for a dtype (`tol_for`). `TENSILE_RANDOM_BITS=1` compares the
/// `ulp` class bit for bit too (a diagnostic: which results differ from PyTorch's at all).
fn tol_for(cls: &str, dtype: &str) -> (f64, f64) {
    let bits = std::env::var("TENSILE_RANDOM_BITS").is_ok_and(|v| v == "1");
    match (cls, dtype) {
        ("exact", _) => (0.0, 0.0),
        ("ulp", _) if bits => (0.0, 0.0),
        (_, "float16") => (1e-3, 1e-5),
        (_, "bfloat16") => (8e-3, 1e-5),
        ("ulp", "float32") => (1e-5, 1e-6),
        ("ulp", "float64") => (1e-12, 1e-12),
        ("lapack", "float32") => (1e-4, 1e-5),
        ("lapack", "float64") => (1e-10, 1e-10),
        _ => (0.0, 0.0),
    }
}

/// A value of ours against PyTorch's (`close_tol`): NaN equals NaN, infinities exactly,
/// integers and bools exactly (as i64), floats within `atol + rtol·|want|`.
fn close(want: &Value, got: Got, tol: (f64, f64)) -> bool {
    match got {
        Got::I(g) => match want {
            Value::Bool(b) => *b as i64 == g,
            w => w.as_i64() == Some(g),
        },
        Got::F(g) => {
            let w = num(want);
            if w.is_nan() || g.is_nan() {
                return w.is_nan() && g.is_nan();
            }
            if w.is_infinite() || g.is_infinite() {
                return w == g;
            }
            (w - g).abs() <= tol.1 + tol.0 * w.abs()
        }
    }
}

#[derive(Clone, Copy)]
enum Got {
    I(i64),
    F(f64),
}

/// Row-major values: exact int64 for integer and bool dtypes, f64 (exact) for floats.
fn values(t: &Tensor) -> Vec<Got> {
    if t.dtype().is_floating_point() {
        t.to_vec::<f64>().into_iter().map(Got::F).collect()
    } else {
        t.to_vec::<i64>().into_iter().map(Got::I).collect()
    }
}

fn cmp_values(want: &Value, got: &[Got], tol: (f64, f64), what: &str) -> Result<(), String> {
    let w = want.as_array().ok_or("corpus: values")?;
    if w.len() != got.len() {
        return Err(format!("{what}: {} values != {}", got.len(), w.len()));
    }
    for (i, (a, b)) in w.iter().zip(got).enumerate() {
        if !close(a, *b, tol) {
            let g = match b {
                Got::I(v) => v.to_string(),
                Got::F(v) => format!("{v:?}"),
            };
            return Err(format!("{what} [{i}] {g} != {a}"));
        }
    }
    Ok(())
}

/// A result TENSOR or SUMMARY (`cmp_rtensor`).
fn cmp_tensor(exp: &Value, t: &Tensor, share: Option<u64>, cls: &str) -> Result<(), String> {
    let summary = exp.get("summary");
    let e = summary.unwrap_or(exp);
    let dt = e["dtype"].as_str().ok_or("corpus: dtype")?;
    let layout = (
        t.dtype().name(),
        t.size().iter().map(|&x| x as i64).collect::<Vec<_>>(),
        t.stride().iter().map(|&x| x as i64).collect::<Vec<_>>(),
        t.storage_offset() as i64,
        t.is_contiguous(),
    );
    let want = (
        dt,
        ints(&e["size"]),
        ints(&e["stride"]),
        e["offset"].as_i64().unwrap_or(-1),
        e["is_contiguous"].as_bool().unwrap_or(false),
    );
    if layout != want {
        return Err(format!("layout {layout:?} != {want:?}"));
    }
    if e["shares_storage_with"].as_u64() != share {
        return Err(format!(
            "shares_storage_with {share:?} != {}",
            e["shares_storage_with"]
        ));
    }
    let tol = tol_for(cls, dt);
    let v = values(t);
    if summary.is_none() {
        return cmp_values(&e["values"], &v, tol, "value");
    }
    let n = v.len();
    let step = n.div_ceil(256);
    if e["numel"].as_u64() != Some(n as u64) || e["step"].as_u64() != Some(step as u64) {
        return Err(format!("summary numel {n} / step {step}"));
    }
    if let Some(isum) = e.get("isum") {
        let got: i128 = v
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                Got::I(x) => (i as i128 + 1) * *x as i128,
                Got::F(_) => 0,
            })
            .sum();
        if isum.as_i64().map(|x| x as i128) != Some(got) {
            return Err(format!("summary isum {got} != {isum}"));
        }
    }
    let strided: Vec<Got> = v.iter().copied().step_by(step).collect();
    cmp_values(&e["values"], &strided, tol, "summary value")?;
    cmp_values(&e["tail"], &v[n.saturating_sub(16)..], tol, "summary tail")
}

/// Runs a `random` case: `{"op": "random", "kwargs": {"program": [...]}}`.
pub fn run(case: &Value) -> Result<(), String> {
    let prog = case["kwargs"]["program"]
        .as_array()
        .ok_or("corpus: program")?;
    let want = case["expect"]["results"]
        .as_array()
        .ok_or("corpus: results")?;
    let mut generator: Option<Generator> = None;
    let mut state: Option<Tensor> = None;
    let mut k = 0usize;
    for (i, st) in prog.iter().enumerate() {
        if let Some(s) = st.get("seed") {
            let s = s.as_u64().ok_or("corpus: seed")?;
            if st.get("generator").and_then(|b| b.as_bool()) == Some(true) {
                generator = Some(Generator::new().manual_seed(s));
            } else if let Some(g) = &generator {
                g.manual_seed(s);
            } else {
                tensile::manual_seed(s);
            }
        } else if st.get("get_state").is_some() {
            state = Some(match &generator {
                Some(g) => g.get_state(),
                None => tensile::get_rng_state(),
            });
        } else if st.get("set_state").is_some() {
            let s = state.as_ref().ok_or("corpus: set_state before get_state")?;
            match &generator {
                Some(g) => g.set_state(s).map(drop),
                None => tensile::set_rng_state(s),
            }
            .map_err(|e| format!("set_state: {}", e.message()))?;
        } else {
            let name = st["call"].as_str().ok_or("corpus: call")?;
            let built: Vec<(Arg, Option<Tensor>)> = st["args"]
                .as_array()
                .ok_or("corpus: args")?
                .iter()
                .map(build_arg)
                .collect();
            let args: Vec<Arg> = built.iter().map(|(a, _)| super::clone_arg(a)).collect();
            let w = want
                .get(k)
                .ok_or_else(|| format!("statement {i}: more results than PyTorch's"))?;
            k += 1;
            let cls = w["tol"].as_str().unwrap_or("exact");
            if cls != tol_class(name) {
                return Err(format!("statement {i}: tolerance class {cls} for {name}"));
            }
            let r = call(name, &args, &st["kwargs"], generator.as_ref());
            let res = match r {
                Err(e) => {
                    if w.get("error").is_none() {
                        return Err(format!(
                            "statement {i} ({name}) raised {}: {}",
                            e.kind().name(),
                            e.message()
                        ));
                    }
                    if w["error"]["at"].as_u64() != Some(i as u64) {
                        return Err(format!(
                            "statement {i} ({name}): error at {}",
                            w["error"]["at"]
                        ));
                    }
                    check_error(w, &e).map_err(|m| format!("statement {i} ({name}): {m}"))?;
                    return if k == want.len() {
                        Ok(())
                    } else {
                        Err(format!("statement {i}: stopped early"))
                    };
                }
                Ok(r) => r,
            };
            if w.get("error").is_some() {
                return Err(format!(
                    "statement {i} ({name}): expected error {}",
                    w["error"]["message"]
                ));
            }
            match res {
                Res::Fresh(t) => {
                    let share = args.iter().position(|a| match a {
                        Arg::Tensor(x) => {
                            x.shares_storage(&t) && x.storage_nbytes() > 0 && t.storage_nbytes() > 0
                        }
                        _ => false,
                    });
                    cmp_tensor(&w["tensor"], &t, share.map(|s| s as u64), cls)
                        .map_err(|m| format!("statement {i} ({name}): {m}"))?;
                }
                Res::InPlace => {
                    let x = args[0].tensor();
                    cmp_tensor(&w["self"], x, Some(0), cls)
                        .map_err(|m| format!("statement {i} ({name}) self: {m}"))?;
                    let base = built[0].1.as_ref().ok_or("corpus: in-place base")?;
                    let dt = base.dtype().name();
                    cmp_values(
                        &w["storage_after"],
                        &values(base),
                        tol_for(cls, dt),
                        "storage_after",
                    )
                    .map_err(|m| format!("statement {i} ({name}): {m}"))?;
                }
            }
        }
    }
    if k != want.len() {
        return Err(format!("result count {k} != {}", want.len()));
    }
    Ok(())
}
