//! The `autograd_semantics` family: small programs over named tensors (README "Autograd",
//! programs), then either the error of the statement that raised (with its path) or the
//! final state of every named tensor.

use std::collections::HashMap;

use serde_json::Value;
use tensile::{Error, ErrorKind, Tensor};

use super::grad_cases::{check_grad, leaf};
use super::{Arg, Out, build_arg, build_tensor, check_tensor, dispatch};

struct Env {
    vars: HashMap<String, Tensor>,
    order: Vec<String>,
}

impl Env {
    fn bind(&mut self, n: &str, t: Tensor) {
        if !self.vars.contains_key(n) {
            self.order.push(n.to_string());
        }
        self.vars.insert(n.to_string(), t);
    }
    fn get(&self, n: &str) -> Result<&Tensor, Error> {
        self.vars
            .get(n)
            .ok_or_else(|| Error::runtime(format!("program: unbound {n}")))
    }
}

fn arg(env: &Env, a: &Value) -> Result<Arg, Error> {
    if let Some(r) = a.get("ref") {
        return Ok(Arg::Tensor(env.get(r.as_str().unwrap())?.shallow_alias()));
    }
    if let Some(t) = a.get("tensor") {
        return Ok(Arg::Tensor(leaf(t)));
    }
    Ok(build_arg(a).0)
}

fn stmt(env: &mut Env, s: &Value) -> Result<(), Error> {
    if let Some(spec) = s.get("tensor") {
        let t = build_tensor(spec).0.detach();
        if s.get("requires_grad").and_then(|b| b.as_bool()) == Some(true) {
            t.requires_grad_(true)?;
        }
        env.bind(s["let"].as_str().unwrap(), t);
    } else if let Some(call) = s.get("call") {
        let op = call.as_str().unwrap();
        let args = s
            .get("args")
            .and_then(|a| a.as_array())
            .map(|v| v.iter().map(|a| arg(env, a)).collect::<Result<Vec<_>, _>>())
            .transpose()?
            .unwrap_or_default();
        let kw = super::grad_cases::norm_kwargs(
            &s.get("kwargs")
                .cloned()
                .unwrap_or(Value::Object(Default::default())),
        );
        if op == "retain_grad" {
            return args[0].tensor().retain_grad();
        }
        let name = if op == "getitem" { "index" } else { op };
        let kwt = super::kw_tensors(&kw);
        let r = dispatch(name, &args, &kw, &kwt)
            .ok_or_else(|| Error::runtime(format!("op {op} not supported")))??;
        if let Some(n) = s.get("let") {
            let t = match (r, s.get("item").and_then(|i| i.as_u64())) {
                (Out::Tensor(t), None) => t,
                (Out::Tensors(ts), Some(i)) => ts.into_iter().nth(i as usize).unwrap(),
                (Out::Tensors(ts), None) => ts.into_iter().next().unwrap(),
                _ => return Err(Error::runtime("program: not a tensor")),
            };
            env.bind(n.as_str().unwrap(), t);
        }
    } else if let Some(m) = s.get("detach") {
        let t = env.get(m.as_str().unwrap())?.detach();
        env.bind(s["let"].as_str().unwrap(), t);
    } else if let Some(n) = s.get("backward") {
        let t = env.get(n.as_str().unwrap())?.alias();
        let g = s
            .get("grad")
            .filter(|g| !g.is_null())
            .map(|g| build_tensor(g.get("tensor").unwrap_or(g)).0);
        let rg = s
            .get("retain_graph")
            .and_then(|b| b.as_bool())
            .unwrap_or(false);
        t.backward_with(g.as_ref(), rg)?;
    } else if let Some(n) = s.get("retain_grad") {
        env.get(n.as_str().unwrap())?.retain_grad()?;
    } else if let Some(n) = s.get("set_grad_none") {
        env.get(n.as_str().unwrap())?.set_grad(None)?;
    } else if let Some(n) = s.get("requires_grad_") {
        let b = s["value"].as_bool().unwrap();
        env.get(n.as_str().unwrap())?.requires_grad_(b)?;
    } else {
        return Err(Error::runtime(format!("program: unknown statement {s}")));
    }
    Ok(())
}

fn block(env: &mut Env, stmts: &[Value], path: &mut Vec<usize>) -> Result<(), (Error, Vec<usize>)> {
    for (i, s) in stmts.iter().enumerate() {
        path.push(i);
        if let Some(b) = s.get("no_grad") {
            let _g = tensile::no_grad();
            block(env, b.as_array().unwrap(), path)?;
        } else {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stmt(env, s)))
                .unwrap_or_else(|_| Err(Error::runtime("PANIC")));
            if let Err(e) = r {
                return Err((e, path.clone()));
            }
        }
        path.pop();
    }
    Ok(())
}

fn err_matches(w: &Value, e: &Error) -> Result<(), String> {
    let kind = match w["type"].as_str().unwrap() {
        "RuntimeError" => ErrorKind::RuntimeError,
        "IndexError" => ErrorKind::IndexError,
        "ValueError" => ErrorKind::ValueError,
        "NotImplementedError" => ErrorKind::NotImplementedError,
        _ => ErrorKind::RuntimeError,
    };
    if e.kind() != kind {
        return Err(format!(
            "error type {} != {} ({})",
            e.kind().name(),
            kind.name(),
            e.message()
        ));
    }
    let first = e.message().lines().next().unwrap_or("");
    if w["exact"].as_bool() == Some(true) && first != w["message"].as_str().unwrap() {
        return Err(format!(
            "message {:?} != {:?}",
            first,
            w["message"].as_str().unwrap()
        ));
    }
    Ok(())
}

pub fn run(case: &Value) -> Result<(), String> {
    let prog = case["kwargs"]["program"].as_array().unwrap();
    let exp = &case["expect"];
    let mut env = Env {
        vars: HashMap::new(),
        order: Vec::new(),
    };
    let r = block(&mut env, prog, &mut Vec::new());
    tensile::set_grad_enabled(true);
    match (r, exp.get("error")) {
        (Err((e, at)), Some(w)) => {
            let want: Vec<usize> = w["at"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as usize)
                .collect();
            if at != want {
                return Err(format!("error at {at:?} != {want:?}: {}", e.message()));
            }
            return err_matches(w, &e);
        }
        (Err((e, at)), None) => return Err(format!("raised at {at:?}: {}", e.message())),
        (Ok(()), Some(w)) => return Err(format!("expected error {}", w["message"])),
        (Ok(()), None) => {}
    }
    let state = exp["state"].as_object().unwrap();
    // (serde_json's map is sorted: the first-binding order is compared as a set)
    let names: Vec<&String> = state.keys().collect();
    let mut mine: Vec<&String> = env.order.iter().collect();
    mine.sort();
    if names != mine {
        return Err(format!("names {:?} != {:?}", env.order, names));
    }
    for n in &env.order {
        let w = &state[n];
        let t = &env.vars[n];
        // grad_fn / is_leaf
        match t.grad_fn_checked() {
            Err(e) => {
                if !w["grad_fn"].is_object() {
                    return Err(format!("{n}.grad_fn raised {}", e.message()));
                }
                err_matches(&w["grad_fn"]["error"], &e).map_err(|m| format!("{n}.grad_fn {m}"))?;
            }
            Ok(f) => {
                let got = f.map(|f| f.name().to_string());
                if w["grad_fn"].as_str().map(|s| s.to_string()) != got || w["grad_fn"].is_object() {
                    return Err(format!("{n}.grad_fn {got:?} != {}", w["grad_fn"]));
                }
                if w["is_leaf"].as_bool() != Some(got.is_none()) {
                    return Err(format!("{n}.is_leaf {} != {}", got.is_none(), w["is_leaf"]));
                }
            }
        }
        if w["requires_grad"].as_bool() != Some(t.requires_grad()) {
            return Err(format!(
                "{n}.requires_grad {} != {}",
                t.requires_grad(),
                w["requires_grad"]
            ));
        }
        if w["version"].as_u64() != Some(t.version()) {
            return Err(format!("{n}.version {} != {}", t.version(), w["version"]));
        }
        let mut e = w["tensor"].clone();
        let want_share = e["shares_storage_with"].as_str().map(|s| s.to_string());
        e["shares_storage_with"] = Value::Null;
        check_tensor(&e, t, &[]).map_err(|m| format!("{n} {m}"))?;
        let share = env
            .order
            .iter()
            .find(|m| *m != n && env.vars[*m].shares_storage(t) && t.storage_nbytes() > 0)
            .cloned();
        if share != want_share {
            return Err(format!("{n} shares {share:?} != {want_share:?}"));
        }
        check_grad(&w["grad"], t.grad().as_ref()).map_err(|m| format!("{n}.grad {m}"))?;
    }
    Ok(())
}
