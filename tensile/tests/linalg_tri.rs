//! `tensile::linalg::{cholesky, cholesky_ex, solve_triangular}` against PyTorch 2.15: the
//! fixture `tests/data/linalg_tri.json` (written by `scripts/make_linalg_fixtures.py`) holds,
//! for fixed inputs, the result (and `info`) or the exception class and text, and the
//! gradients of `(out * ramp).sum()` with respect to every floating input.

use serde_json::Value;
use tensile::{DType, Result, Tensor};

fn dtype_of(s: &str) -> DType {
    match s {
        "float32" => DType::Float32,
        "float64" => DType::Float64,
        "float16" => DType::Float16,
        "int64" => DType::Int64,
        "int32" => DType::Int32,
        "bool" => DType::Bool,
        _ => panic!("dtype {s}"),
    }
}

fn scalar(v: &Value) -> f64 {
    match v.as_str() {
        Some("nan") => f64::NAN,
        Some("inf") => f64::INFINITY,
        Some("-inf") => f64::NEG_INFINITY,
        _ => v.as_f64().unwrap(),
    }
}

fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    let xs: Vec<f64> = v["data"].as_array().unwrap().iter().map(scalar).collect();
    Tensor::from_vec(xs, &shape[..])
        .unwrap()
        .to(dtype_of(v["dtype"].as_str().unwrap()))
        .unwrap()
}

fn check(got: &Tensor, want: &Value, what: &str) {
    let w = tensor(want);
    assert_eq!(got.dtype(), w.dtype(), "{what}: dtype");
    assert_eq!(got.size(), w.size(), "{what}: shape");
    let g = got
        .detach()
        .to(DType::Float64)
        .unwrap()
        .contiguous()
        .to_vec::<f64>();
    let e = w.to(DType::Float64).unwrap().to_vec::<f64>();
    let (rtol, atol) = if w.dtype() == DType::Float64 {
        (1e-10, 1e-12)
    } else {
        (2e-5, 1e-6)
    };
    for (i, (a, b)) in g.iter().zip(&e).enumerate() {
        let ok = if b.is_nan() {
            a.is_nan()
        } else {
            (a - b).abs() <= atol + rtol * b.abs()
        };
        assert!(
            ok,
            "{what}: element {i}: got {a}, PyTorch {b}\n got {g:?}\nwant {e:?}"
        );
    }
}

#[test]
fn linalg_triangular_against_pytorch() {
    let path = format!("{}/tests/data/linalg_tri.json", env!("CARGO_MANIFEST_DIR"));
    let fx: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for (n, c) in fx["cases"].as_array().unwrap().iter().enumerate() {
        let op = c["op"].as_str().unwrap();
        let what = format!("case {n}: {op} {}", c["kw"]);
        let args: Vec<Tensor> = c["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                let t = tensor(a);
                if t.dtype().is_floating_point() {
                    t.requires_grad_(true).unwrap()
                } else {
                    t
                }
            })
            .collect();
        let kw = |k: &str, d: bool| c["kw"].get(k).and_then(Value::as_bool).unwrap_or(d);
        let r: Result<(Tensor, Option<Tensor>)> = match op {
            "cholesky" => {
                tensile::linalg::cholesky_with(&args[0], kw("upper", false)).map(|l| (l, None))
            }
            "cholesky_ex" => tensile::linalg::cholesky_ex_with(
                &args[0],
                kw("upper", false),
                kw("check_errors", false),
            )
            .map(|(l, i)| (l, Some(i))),
            "solve_triangular" => tensile::linalg::solve_triangular_with(
                &args[0],
                &args[1],
                kw("upper", false),
                kw("left", true),
                kw("unitriangular", false),
            )
            .map(|x| (x, None)),
            _ => panic!("op {op}"),
        };
        if let Some(err) = c.get("err") {
            let e = r
                .err()
                .unwrap_or_else(|| panic!("{what}: PyTorch raised {err}"));
            assert_eq!(
                e.kind().name(),
                err.as_str().unwrap(),
                "{what}: class ({e})"
            );
            assert_eq!(e.to_string(), c["msg"].as_str().unwrap(), "{what}: text");
            continue;
        }
        let (out, info) = r.unwrap_or_else(|e| panic!("{what}: {e}"));
        check(&out, &c["out"], &what);
        if let Some(i) = c.get("info") {
            check(&info.unwrap(), i, &format!("{what}: info"));
        }
        if let Some(gs) = c.get("grads") {
            let w = Tensor::linspace_with(0.5, 1.5, out.numel(), out.dtype())
                .unwrap()
                .reshape(out.size())
                .unwrap();
            out.mul(&w).unwrap().sum().unwrap().backward().unwrap();
            for (k, (a, g)) in args.iter().zip(gs.as_array().unwrap()).enumerate() {
                check(&a.grad().unwrap(), g, &format!("{what}: grad of input {k}"));
            }
        }
    }
}
