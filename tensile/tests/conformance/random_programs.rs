//! The `random` family: programs of seeded random calls (the corpus README's section
//! "`random` cases (programs)"; `replay_extra.py`'s `run_random` / `cmp_random` are the
//! reference reading). A program seeds the default generator (`tensile::manual_seed`) or its
//! own `Generator`, may save and restore the state, and makes random calls; each call's
//! result (or the error that ends the program) is compared with PyTorch's: layouts exactly,
//! values by the call's tolerance class (`exact`, `ulp`, `lapack`), a tensor of more than 512
//! elements through its summary (strided values, the last 16, and for integers `Σ (i+1)·v[i]`).
//! `TENSILE_RANDOM_BITS=1` holds the `ulp` class to bit equality as well (see [`tol_for`]).
//! The calls are the OpInfo table's (`tests/opinfo/random.rs`, see [`call`]); this runner
//! walks the program, keeps the generator and its saved state, and compares.

use super::{Arg, build_arg, check_error, ints, json_to_opinfo, num, opinfo, to_opinfo};
use serde_json::Value;
use tensile::{Generator, Tensor};

/// One call statement of a program (`random_call` in `replay_extra.py`): the OpInfo entry
/// named `name` (`tests/opinfo/random.rs`; an in-place fill or `init.NAME_` is an entry of
/// its own; the dropouts are the norm family's) called with the statement's arguments, and
/// the program's own generator, when it has one, as `generator=`.
fn call(name: &str, args: &[Arg], kw: &Value, g: Option<&Generator>) -> tensile::Result<Tensor> {
    let (info, inplace) = opinfo::lookup(name, args.len())
        .unwrap_or_else(|| panic!("corpus: unknown random call {name}"));
    let pos = args
        .iter()
        .map(|a| to_opinfo(a).expect("corpus: argument"))
        .collect();
    let mut kw: Vec<(String, opinfo::Arg)> = kw
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), json_to_opinfo(v)?)))
        .collect();
    kw.extend(g.map(|g| ("generator".to_string(), opinfo::Arg::Generator(g.clone()))));
    info.run(&opinfo::Args { pos, kw, inplace })
        .map(opinfo::Ret::first)
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
            if name.ends_with('_') {
                // in place (`x.uniform_`, `init.uniform_`): argument 0 and its storage
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
            } else {
                let share = args.iter().position(|a| match a {
                    Arg::Tensor(x) => {
                        x.shares_storage(&res) && x.storage_nbytes() > 0 && res.storage_nbytes() > 0
                    }
                    _ => false,
                });
                cmp_tensor(&w["tensor"], &res, share.map(|s| s as u64), cls)
                    .map_err(|m| format!("statement {i} ({name}): {m}"))?;
            }
        }
    }
    if k != want.len() {
        return Err(format!("result count {k} != {}", want.len()));
    }
    Ok(())
}
