//! Fixture decoding and the generic per-case checks.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use serde_json::Value;
use tensile::distributions::Distribution;
use tensile::{DType, Operand, Result, Tensor};

static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A decoded parameter: a tensor or a Python number.
#[derive(Clone, Debug)]
pub enum Param {
    Tensor(Tensor),
    Float(f64),
    Int(i64),
}

/// The decoded parameters of one case, by name. (Some accessors serve only some groups.)
#[derive(Clone, Debug, Default)]
pub struct Params(pub BTreeMap<String, Param>);

#[allow(dead_code)]
impl Params {
    /// Parameter `k` as an operand (tensor or number). Panics when absent.
    pub fn op(&self, k: &str) -> Operand<'_> {
        match self.0.get(k).unwrap_or_else(|| panic!("parameter {k}")) {
            Param::Tensor(t) => Operand::Tensor(t),
            Param::Float(x) => (*x).into(),
            Param::Int(i) => (*i).into(),
        }
    }
    /// Parameter `k` as a tensor, if present and a tensor.
    pub fn t(&self, k: &str) -> Option<&Tensor> {
        match self.0.get(k) {
            Some(Param::Tensor(t)) => Some(t),
            _ => None,
        }
    }
    /// Parameter `k` as a number (a 0-d tensor's item too), if present.
    pub fn num(&self, k: &str) -> Option<f64> {
        match self.0.get(k)? {
            Param::Float(x) => Some(*x),
            Param::Int(i) => Some(*i as f64),
            Param::Tensor(t) => t.item::<f64>().ok(),
        }
    }
    /// Whether parameter `k` is present.
    pub fn has(&self, k: &str) -> bool {
        self.0.contains_key(k)
    }
}

fn scalar(v: &Value) -> f64 {
    match v {
        Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => panic!("bad scalar {s}"),
        },
        Value::Bool(b) => *b as u8 as f64,
        _ => v.as_f64().expect("number"),
    }
}

pub fn dtype_of(s: &str) -> DType {
    match s {
        "float32" => DType::Float32,
        "float64" => DType::Float64,
        "float16" => DType::Float16,
        "bfloat16" => DType::BFloat16,
        "int64" => DType::Int64,
        "int32" => DType::Int32,
        "int16" => DType::Int16,
        "int8" => DType::Int8,
        "uint8" => DType::UInt8,
        "bool" => DType::Bool,
        _ => panic!("dtype {s}"),
    }
}

/// A fixture tensor `{"dtype", "shape", "data"}`.
pub fn tensor(v: &Value) -> Tensor {
    let dtype = dtype_of(v["dtype"].as_str().unwrap());
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    let data = v["data"].as_array().unwrap();
    if dtype == DType::Int64 {
        let xs: Vec<i64> = data.iter().map(|x| x.as_i64().unwrap()).collect();
        return Tensor::from_vec(xs, &shape[..]).unwrap();
    }
    let xs: Vec<f64> = data.iter().map(scalar).collect();
    Tensor::from_vec(xs, &shape[..]).unwrap().to(dtype).unwrap()
}

pub fn param(v: &Value) -> Param {
    if let Some(n) = v.get("number") {
        if n.is_i64() {
            Param::Int(n.as_i64().unwrap())
        } else {
            Param::Float(scalar(n))
        }
    } else {
        Param::Tensor(tensor(v))
    }
}

pub fn params(v: &Value) -> Params {
    Params(
        v.as_object()
            .unwrap()
            .iter()
            .map(|(k, x)| (k.clone(), param(x)))
            .collect(),
    )
}

/// Relative tolerance by dtype: samples and values match PyTorch's to the last few ulps.
fn tol(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::Float64 => (1e-10, 1e-12),
        DType::Float32 => (2e-5, 1e-6),
        _ => (1e-2, 1e-3),
    }
}

/// `got` equals the fixture tensor `want`: dtype, shape, values (NaN where NaN, infinities
/// exact, finite values within the dtype's tolerance).
pub fn check_tensor(got: &Tensor, want: &Value, what: &str) {
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
    let (rtol, atol) = tol(w.dtype());
    for (i, (a, b)) in g.iter().zip(&e).enumerate() {
        let ok = if b.is_nan() {
            a.is_nan()
        } else if b.is_infinite() {
            a == b
        } else {
            (a - b).abs() <= atol + rtol * b.abs()
        };
        assert!(
            ok,
            "{what}: element {i}: got {a}, PyTorch {b}\n got {g:?}\nwant {e:?}"
        );
    }
}

/// `got` matches the fixture outcome `{"ok": tensor}` or `{"err": class, "msg": text}`.
pub fn check_outcome(got: Result<Tensor>, want: &Value, what: &str) {
    if let Some(err) = want.get("err") {
        match got {
            Ok(t) => panic!(
                "{what}: PyTorch raised {err}: {}, tensile returned {t}",
                want["msg"]
            ),
            Err(e) => {
                assert_eq!(
                    e.kind().name(),
                    err.as_str().unwrap(),
                    "{what}: class ({e})"
                );
                assert_eq!(e.to_string(), want["msg"].as_str().unwrap(), "{what}: text");
            }
        }
    } else {
        match got {
            Ok(t) => check_tensor(&t, &want["ok"], what),
            Err(e) => panic!(
                "{what}: tensile raised {e:?}, PyTorch returned {}",
                want["ok"]
            ),
        }
    }
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

pub type Builder = fn(&str, &Params, bool) -> Result<Box<dyn Distribution>>;

/// Runs every case of `tests/data/distributions/<group>.json`.
pub fn run_group(group: &str, build: Builder) {
    let _s = serial();
    let path = format!(
        "{}/tests/data/distributions/{group}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let fx: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture"))
        .expect("fixture json");
    let cases = fx["cases"].as_array().unwrap();
    assert!(!cases.is_empty(), "{path}: no cases");
    for c in cases {
        run_case(c, build);
    }
}

fn build_case(c: &Value, build: Builder) -> Result<Box<dyn Distribution>> {
    let p = params(&c["params"]);
    let d = build(
        c["dist"].as_str().unwrap(),
        &p,
        c["validate"].as_bool().unwrap_or(true),
    )?;
    match c.get("expand") {
        Some(e) => d.expand(&usizes(e)),
        None => Ok(d),
    }
}

pub fn run_case(c: &Value, build: Builder) {
    let id = c["id"].as_str().unwrap();
    if let Some(kl) = c.get("kl") {
        let mk = |s: &Value| {
            build(s["dist"].as_str().unwrap(), &params(&s["params"]), true)
                .unwrap_or_else(|e| panic!("{id}: construct: {e}"))
        };
        let (p, q) = (mk(&kl[0]), mk(&kl[1]));
        check_outcome(
            tensile::distributions::kl_divergence(&*p, &*q),
            &c["out"],
            &format!("{id}: kl_divergence"),
        );
        return;
    }
    let made = build_case(c, build);
    if let Some(want) = c.get("construct") {
        match made {
            Ok(d) => panic!("{id}: PyTorch raised {}, tensile built {d:?}", want["msg"]),
            Err(e) => {
                assert_eq!(
                    e.kind().name(),
                    want["err"].as_str().unwrap(),
                    "{id}: class ({e})"
                );
                assert_eq!(
                    e.to_string(),
                    want["msg"].as_str().unwrap(),
                    "{id}: construct text"
                );
            }
        }
        return;
    }
    let d = made.unwrap_or_else(|e| panic!("{id}: construct: {e}"));
    assert_eq!(d.to_string(), c["repr"].as_str().unwrap(), "{id}: repr");
    assert_eq!(
        d.batch_shape(),
        usizes(&c["batch_shape"]),
        "{id}: batch_shape"
    );
    assert_eq!(
        d.event_shape(),
        usizes(&c["event_shape"]),
        "{id}: event_shape"
    );
    if let Some(s) = c["support"].as_str() {
        assert_eq!(d.support().unwrap().to_string(), s, "{id}: support");
    }
    assert_eq!(
        d.has_rsample(),
        c["has_rsample"].as_bool().unwrap(),
        "{id}: has_rsample"
    );
    check_outcome(d.mean(), &c["mean"], &format!("{id}: mean"));
    check_outcome(d.mode(), &c["mode"], &format!("{id}: mode"));
    check_outcome(d.variance(), &c["variance"], &format!("{id}: variance"));
    check_outcome(d.stddev(), &c["stddev"], &format!("{id}: stddev"));
    check_outcome(d.entropy(), &c["entropy"], &format!("{id}: entropy"));
    if let Some(seed) = c.get("seed") {
        let shape = usizes(&c["sample_shape"]);
        tensile::manual_seed(seed.as_u64().unwrap());
        check_outcome(d.sample(&shape), &c["sample"], &format!("{id}: sample"));
        let after = Tensor::rand([3]).unwrap().to_vec::<f32>();
        let want: Vec<f32> = c["after"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        assert_eq!(
            after, want,
            "{id}: the default generator's position after sample"
        );
        if let Some(r) = c.get("rsample") {
            tensile::manual_seed(seed.as_u64().unwrap());
            check_outcome(d.rsample(&shape), r, &format!("{id}: rsample"));
        }
    }
    if let Some(v) = c.get("value") {
        let v = tensor(v);
        check_outcome(d.log_prob(&v), &c["log_prob"], &format!("{id}: log_prob"));
        check_outcome(d.cdf(&v), &c["cdf"], &format!("{id}: cdf"));
    }
    if let Some(q) = c.get("q") {
        check_outcome(d.icdf(&tensor(q)), &c["icdf"], &format!("{id}: icdf"));
    }
    if let Some(e) = c.get("enumerate_support") {
        check_outcome(
            d.enumerate_support(true),
            e,
            &format!("{id}: enumerate_support"),
        );
        check_outcome(
            d.enumerate_support(false),
            &c["enumerate_support_noexpand"],
            &format!("{id}: enumerate_support(expand=False)"),
        );
    }
    if let Some(g) = c.get("grad") {
        check_grads(c, g, build, id);
    }
}

/// The gradients of `(rsample(shape) * ramp).sum()` and `log_prob(value).sum()` with respect
/// to every floating tensor parameter.
fn check_grads(c: &Value, g: &Value, build: Builder, id: &str) {
    let fresh = || {
        let mut p = params(&c["params"]);
        let mut leaves = Vec::new();
        for (k, v) in p.0.iter_mut() {
            if let Param::Tensor(t) = v
                && t.dtype().is_floating_point()
            {
                let leaf = t.detach().contiguous().requires_grad_(true).unwrap();
                *t = leaf.clone();
                leaves.push((k.clone(), leaf));
            }
        }
        let d = build(
            c["dist"].as_str().unwrap(),
            &p,
            c["validate"].as_bool().unwrap_or(true),
        )
        .unwrap();
        let d = match c.get("expand") {
            Some(e) => d.expand(&usizes(e)).unwrap(),
            None => d,
        };
        (d, leaves)
    };
    let compare = |leaves: &[(String, Tensor)], want: &Value, what: &str| {
        for (k, leaf) in leaves {
            match (&want[k.as_str()], leaf.grad()) {
                (Value::Null, None) => {}
                (Value::Null, Some(gr)) => {
                    // PyTorch's None: no path; a zero gradient is what an eager backward leaves.
                    let z = gr.abs().unwrap().sum().unwrap().item::<f64>().unwrap();
                    assert_eq!(z, 0.0, "{id}: {what} grad of {k}: PyTorch has none");
                }
                (w, Some(gr)) => check_tensor(&gr, w, &format!("{id}: {what} grad of {k}")),
                (w, None) => panic!("{id}: {what} grad of {k}: none, PyTorch {w}"),
            }
        }
    };
    if let Some(want) = g.get("rsample") {
        let (d, leaves) = fresh();
        tensile::manual_seed(c["seed"].as_u64().unwrap());
        let x = d.rsample(&usizes(&c["sample_shape"])).unwrap();
        let w = Tensor::linspace_with(0.5, 1.5, x.numel(), x.dtype())
            .unwrap()
            .reshape(x.size())
            .unwrap();
        x.mul(&w).unwrap().sum().unwrap().backward().unwrap();
        compare(&leaves, want, "rsample");
    }
    if let Some(want) = g.get("log_prob") {
        let (d, leaves) = fresh();
        let lp = d.log_prob(&tensor(&c["value"])).unwrap();
        lp.sum().unwrap().backward().unwrap();
        compare(&leaves, want, "log_prob");
    }
}
