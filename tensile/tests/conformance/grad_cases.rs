//! The `grad` family: one differentiable op, then `backward(grad_output)`; the output, its
//! `grad_fn` name and every input's `.grad` are compared (README "Autograd", `grad` cases).

use serde_json::Value;
use tensile::Tensor;

use super::{
    Arg, Out, build_arg, build_tensor, check_error, check_tensor, close, dispatch, ints, values_of,
};

/// A leaf from a SPEC: the strided tensor itself, detached, flagged when `requires_grad`.
pub fn leaf(spec: &Value) -> Tensor {
    let (v, _) = build_tensor(spec);
    let t = v.detach();
    if spec.get("requires_grad").and_then(|b| b.as_bool()) == Some(true) {
        t.requires_grad_(true)
            .expect("corpus: requires_grad on a float");
    }
    t
}

/// An ARG, with leaves that require grad where the SPEC says so.
pub fn grad_arg(a: &Value) -> Arg {
    if let Some(t) = a.get("tensor") {
        return Arg::Tensor(leaf(t));
    }
    if let Some(ts) = a.get("tensors") {
        return Arg::Tensors(
            ts.as_array()
                .unwrap()
                .iter()
                .map(|t| leaf(&t["tensor"]))
                .collect(),
        );
    }
    if a.get("none").is_some() {
        // Python `None` (an optional argument given positionally, e.g. conv2d's bias): no
        // tensor, no gradient; read by the call forms
        return Arg::Str("None".into());
    }
    build_arg(a).0
}

/// Compares a gradient (dtype, size, values, contiguity, strides of dims of size > 1).
pub fn check_grad(exp: &Value, t: Option<&Tensor>) -> Result<(), String> {
    let t = match (exp.is_null(), t) {
        (true, None) => return Ok(()),
        (true, Some(_)) => return Err("grad should be None".into()),
        (false, None) => return Err("grad is None".into()),
        (false, Some(t)) => t,
    };
    let dt = exp["dtype"].as_str().unwrap();
    let size = ints(&exp["size"]);
    let got: Vec<i64> = t.size().iter().map(|&x| x as i64).collect();
    if t.dtype().name() != dt || got != size {
        return Err(format!(
            "grad layout {} {:?} != {} {:?}",
            t.dtype().name(),
            got,
            dt,
            size
        ));
    }
    let stride = ints(&exp["stride"]);
    if t.numel() > 0 {
        for (d, &n) in t.size().iter().enumerate() {
            if n > 1 && t.stride()[d] as i64 != stride[d] {
                return Err(format!("grad stride {:?} != {:?}", t.stride(), stride));
            }
        }
    }
    if t.is_contiguous() != exp["is_contiguous"].as_bool().unwrap() {
        return Err("grad is_contiguous".into());
    }
    let want = exp["values"].as_array().unwrap();
    let vals = values_of(t);
    if want.len() != vals.len() {
        return Err("grad value count".into());
    }
    for (i, (w, g)) in want.iter().zip(&vals).enumerate() {
        if !close(w, *g, dt) {
            return Err(format!("grad value [{i}] {g} != {w}"));
        }
    }
    Ok(())
}

/// Compares an output; `loose`: dtype, size and values only.
fn check_out(
    exp: &Value,
    t: &Tensor,
    inputs: &[Option<&Tensor>],
    loose: bool,
) -> Result<(), String> {
    if loose {
        let mut e = exp.clone();
        e["stride"] = serde_json::json!(t.stride());
        e["offset"] = serde_json::json!(t.storage_offset());
        e["is_contiguous"] = serde_json::json!(t.is_contiguous());
        return check_tensor(&e, t, &[]).or_else(|m| {
            if m.starts_with("shares") {
                Ok(())
            } else {
                Err(m)
            }
        });
    }
    check_tensor(exp, t, inputs)
}

fn name_of(t: &Tensor) -> Value {
    match t.grad_fn() {
        Some(f) => Value::String(f.name().to_string()),
        None => Value::Null,
    }
}

/// Plain-number kwargs that the call tables read as ARGs (`min`, `max`, `value`, `alpha`)
/// wrapped as `{"scalar": v, "kind": …}`.
pub fn norm_kwargs(kw: &Value) -> Value {
    let mut kw = kw.clone();
    if let Some(o) = kw.as_object_mut() {
        for k in ["min", "max", "value", "alpha"] {
            if let Some(v) = o.get(k).cloned()
                && v.is_number()
            {
                let kind = if v.is_f64() { "float" } else { "int" };
                o.insert(k.into(), serde_json::json!({"scalar": v, "kind": kind}));
            }
        }
    }
    kw
}

pub fn run(case: &Value) -> Result<(), String> {
    let kw = &norm_kwargs(&case["kwargs"]);
    let exp = &case["expect"];
    let op = kw["fn"].as_str().unwrap();
    let args: Vec<Arg> = case["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(grad_arg)
        .collect();
    let kwt = super::kw_tensors(kw);
    let inputs: Vec<Option<&Tensor>> = args.iter().map(Arg::as_tensor).collect();
    let (name, call_args): (&str, Vec<Arg>) = if op == "getitem" {
        ("index", args.iter().map(super::clone_arg).collect())
    } else if op.ends_with('_') {
        let mut a: Vec<Arg> = args.iter().map(super::clone_arg).collect();
        a[0] = Arg::Tensor(args[0].tensor().clone());
        (op, a)
    } else {
        (op, args.iter().map(super::clone_arg).collect())
    };
    let res = dispatch(name, &call_args, kw, &kwt)
        .ok_or_else(|| format!("op {op} not supported (counted as failed)"))?;
    let during = |e: &tensile::Error, when: &str| -> Result<(), String> {
        if let Some(w) = exp.get("error")
            && w["during"].as_str() != Some(when)
        {
            return Err(format!(
                "error during {when}, expected during {}: {}",
                w["during"],
                e.message()
            ));
        }
        check_error(exp, e)
    };
    let out = match res {
        Err(e) => return during(&e, "call"),
        Ok(o) => o,
    };
    // the output of an in-place op is the clone it modified
    let outs: Vec<Tensor> = match out {
        _ if op.ends_with('_') => vec![call_args[0].tensor().alias()],
        Out::Tensor(t) => vec![t],
        Out::Tensors(ts) => ts,
        _ => return Err("not a tensor result".into()),
    };
    let multi = exp.get("outputs").is_some() || (exp.get("error").is_some() && outs.len() > 1);
    let loose = exp.get("loose").and_then(|v| v.as_bool()) == Some(true);
    if exp.get("error").is_none() {
        if multi {
            let w = exp["outputs"].as_array().unwrap();
            if w.len() != outs.len() {
                return Err(format!("{} outputs != {}", outs.len(), w.len()));
            }
            for (i, (w, t)) in w.iter().zip(&outs).enumerate() {
                check_out(w, t, &inputs, loose).map_err(|m| format!("output {i} {m}"))?;
            }
            let names: Vec<Value> = outs.iter().map(name_of).collect();
            if !loose && Value::Array(names.clone()) != exp["grad_fns"] {
                return Err(format!("grad_fns {names:?} != {}", exp["grad_fns"]));
            }
        } else {
            check_out(&exp["output"], &outs[0], &inputs, loose)
                .map_err(|m| format!("output {m}"))?;
            let n = name_of(&outs[0]);
            if !loose && n != exp["grad_fn"] {
                return Err(format!("grad_fn {n} != {}", exp["grad_fn"]));
            }
        }
    }
    // backward
    let go = &kw["grad_output"];
    let r = if outs.len() > 1 || go.is_array() {
        let gos = go.as_array().cloned().unwrap_or_default();
        let mut ts = Vec::new();
        let mut gs = Vec::new();
        for (o, g) in outs.iter().zip(&gos) {
            if let Some(spec) = g.get("tensor") {
                ts.push(o);
                gs.push(build_tensor(spec).0);
            }
        }
        let gr: Vec<Option<&Tensor>> = gs.iter().map(Some).collect();
        tensile::autograd::backward(&ts, &gr, false)
    } else {
        let g = go.get("tensor").map(|s| build_tensor(s).0);
        outs[0].backward_with(g.as_ref(), false)
    };
    if let Err(e) = r {
        return during(&e, "backward");
    }
    if exp.get("error").is_some() {
        return Err(format!("expected error {}", exp["error"]["message"]));
    }
    let wg = exp["grads"].as_array().unwrap();
    for (i, (w, a)) in wg.iter().zip(&args).enumerate() {
        match a {
            Arg::Tensor(t) => {
                check_grad(w, t.grad().as_ref()).map_err(|m| format!("grad {i}: {m}"))?
            }
            Arg::Tensors(ts) => {
                if w.is_null() {
                    continue;
                }
                let wl = w.as_array().ok_or("grad list")?;
                for (j, (w, t)) in wl.iter().zip(ts).enumerate() {
                    check_grad(w, t.grad().as_ref()).map_err(|m| format!("grad {i}.{j}: {m}"))?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}
