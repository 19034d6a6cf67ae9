//! `tensile::optim` against PyTorch 2.15: parameters and state after 5 steps of SGD, Adam and
//! AdamW on the same parameters and gradients (bit for bit, apart from PyTorch's sqrt, see
//! `adam_and_adamw_match_pytorch`), the validation errors, the LR schedulers' sequences
//! (exact float64), and state-dict round trips. Fixtures: `scripts/make_optim_fixtures.py`.

use serde_json::Value;
use tensile::optim::{
    Adam, AdamOpts, AdamW, AdamWOpts, CosineAnnealingLR, HyperValue, LRScheduler, LambdaLR,
    LinearLR, Optimizer, ParamGroup, SGD, SgdOpts, StepLR,
};
use tensile::{DType, Tensor};

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/optim/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn shapes(d: &Value) -> Vec<Vec<usize>> {
    d["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as usize)
                .collect()
        })
        .collect()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// A tensor from bit patterns of `dtype`.
fn from_bits(bits: &[u64], shape: &[usize], dtype: DType) -> Tensor {
    match dtype {
        DType::Float32 => Tensor::from_vec(
            bits.iter()
                .map(|&b| f32::from_bits(b as u32))
                .collect::<Vec<_>>(),
            shape,
        ),
        _ => Tensor::from_vec(
            bits.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>(),
            shape,
        ),
    }
    .unwrap()
}

/// The bit patterns of a tensor's elements (row-major).
fn bits_of(t: &Tensor) -> Vec<u64> {
    match t.dtype() {
        DType::Float32 => t
            .to_vec::<f32>()
            .iter()
            .map(|x| x.to_bits() as u64)
            .collect(),
        _ => t.to_vec::<f64>().iter().map(|x| x.to_bits()).collect(),
    }
}

fn f(kw: &Value, key: &str, default: f64) -> f64 {
    kw.get(key).and_then(|v| v.as_f64()).unwrap_or(default)
}
fn b(kw: &Value, key: &str) -> bool {
    kw.get(key).and_then(|v| v.as_bool()).unwrap_or(false)
}

fn sgd_opts(kw: &Value) -> SgdOpts {
    SgdOpts {
        lr: f(kw, "lr", 1e-3),
        momentum: f(kw, "momentum", 0.0),
        dampening: f(kw, "dampening", 0.0),
        weight_decay: f(kw, "weight_decay", 0.0),
        nesterov: b(kw, "nesterov"),
        maximize: b(kw, "maximize"),
    }
}

fn betas(kw: &Value) -> (f64, f64) {
    match kw.get("betas") {
        Some(v) => (v[0].as_f64().unwrap(), v[1].as_f64().unwrap()),
        None => (0.9, 0.999),
    }
}

fn adam_opts(kw: &Value) -> AdamOpts {
    AdamOpts {
        lr: f(kw, "lr", 1e-3),
        betas: betas(kw),
        eps: f(kw, "eps", 1e-8),
        weight_decay: f(kw, "weight_decay", 0.0),
        amsgrad: b(kw, "amsgrad"),
        maximize: b(kw, "maximize"),
        decoupled_weight_decay: false,
    }
}

fn adamw_opts(kw: &Value) -> AdamWOpts {
    AdamWOpts {
        lr: f(kw, "lr", 1e-3),
        betas: betas(kw),
        eps: f(kw, "eps", 1e-8),
        weight_decay: f(kw, "weight_decay", 1e-2),
        amsgrad: b(kw, "amsgrad"),
        maximize: b(kw, "maximize"),
    }
}

/// The optimizer of a fixture case on `params`: one group, or (`groups`) param 0 alone with
/// half the lr and the others with the case's options.
fn make_optimizer(case: &Value, params: &[Tensor]) -> Box<dyn Optimizer> {
    let kw = &case["kwargs"];
    let groups = case["groups"].as_bool().unwrap();
    let ps = || params.iter().map(|p| p.alias());
    let split = |lr: f64| {
        (
            vec![params[0].alias()],
            params[1..].iter().map(|p| p.alias()).collect::<Vec<_>>(),
            lr / 2.0,
        )
    };
    match case["optimizer"].as_str().unwrap() {
        "sgd" => {
            let o = sgd_opts(kw);
            if groups {
                let (a, rest, half) = split(o.lr);
                Box::new(
                    SGD::from_groups(vec![
                        ParamGroup::new(a, SgdOpts { lr: half, ..o }),
                        ParamGroup::new(rest, o),
                    ])
                    .unwrap(),
                )
            } else {
                Box::new(SGD::new_with(ps(), o).unwrap())
            }
        }
        "adam" => {
            let o = adam_opts(kw);
            if groups {
                let (a, rest, half) = split(o.lr);
                Box::new(
                    Adam::from_groups(vec![
                        ParamGroup::new(a, AdamOpts { lr: half, ..o }),
                        ParamGroup::new(rest, o),
                    ])
                    .unwrap(),
                )
            } else {
                Box::new(Adam::new_with(ps(), o).unwrap())
            }
        }
        "adamw" => {
            let o = adamw_opts(kw);
            if groups {
                let (a, rest, half) = split(o.lr);
                Box::new(
                    AdamW::from_groups(vec![
                        ParamGroup::new(a, AdamWOpts { lr: half, ..o }),
                        ParamGroup::new(rest, o),
                    ])
                    .unwrap(),
                )
            } else {
                Box::new(AdamW::new_with(ps(), o).unwrap())
            }
        }
        other => panic!("unknown optimizer {other}"),
    }
}

struct Fixture {
    d: Value,
    dtype: DType,
    shapes: Vec<Vec<usize>>,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let d = load(name);
        let dtype = DType::from_name(d["dtype"].as_str().unwrap()).unwrap();
        let shapes = shapes(&d);
        Fixture { d, dtype, shapes }
    }

    fn params(&self) -> Vec<Tensor> {
        self.d["init"]
            .as_array()
            .unwrap()
            .iter()
            .zip(&self.shapes)
            .map(|(v, s)| {
                from_bits(&u64s(v), s, self.dtype)
                    .requires_grad_(true)
                    .unwrap()
            })
            .collect()
    }

    /// Sets the gradients of step `s` (the last parameter has none at step 2).
    fn set_grads(&self, params: &[Tensor], s: usize) {
        for (i, p) in params.iter().enumerate() {
            if s == 2 && i == params.len() - 1 {
                p.set_grad(None).unwrap();
            } else {
                let g = &self.d["grads"][s][i];
                p.set_grad(Some(from_bits(&u64s(g), &self.shapes[i], self.dtype)))
                    .unwrap();
            }
        }
    }

    fn run(&self, steps: std::ops::Range<usize>, params: &[Tensor], opt: &mut dyn Optimizer) {
        for s in steps {
            self.set_grads(params, s);
            opt.step().unwrap();
        }
    }
}

/// Elements that differ from PyTorch's: (count, largest difference in ulps).
fn diff(got: &[u64], want: &[u64]) -> (usize, u64) {
    assert_eq!(got.len(), want.len());
    let mut n = 0;
    let mut worst = 0;
    for (&g, &w) in got.iter().zip(want) {
        if g != w {
            n += 1;
            worst = worst.max((g as i64 - w as i64).unsigned_abs());
        }
    }
    (n, worst)
}

/// `want` with the case's IEEE-sqrt patches applied (`[[index, bits], ...]`; none for SGD).
fn patched(want: Vec<u64>, patch: Option<&Value>) -> Vec<u64> {
    let mut w = want;
    if let Some(p) = patch {
        for e in p.as_array().unwrap() {
            w[e[0].as_u64().unwrap() as usize] = e[1].as_u64().unwrap();
        }
    }
    w
}

/// Totals of a comparison: elements compared, elements differing from PyTorch's, elements
/// differing from PyTorch's order of operations with an IEEE sqrt, worst ulps from PyTorch's.
#[derive(Default, Debug)]
struct Tally {
    n: usize,
    vs_torch: usize,
    vs_ieee: usize,
    worst: u64,
    cases: usize,
}

/// Compares the parameters and the state after the case's 5 steps.
fn check_case(case: &Value, params: &[Tensor], opt: &dyn Optimizer, t: &mut Tally) {
    let name = format!("{} {}", case["optimizer"], case["kwargs"]);
    let ieee = case.get("ieee_sqrt");
    let mut add = |label: String, got: Vec<u64>, want: Vec<u64>, patch: Option<&Value>| {
        let (n, w) = diff(&got, &want);
        let (ni, _) = diff(&got, &patched(want, patch));
        if ni > 0 {
            eprintln!(
                "{label}: {ni} of {} elements differ from PyTorch's with an IEEE sqrt",
                got.len()
            );
        }
        t.n += got.len();
        t.vs_torch += n;
        t.vs_ieee += ni;
        t.worst = t.worst.max(w);
    };
    for (i, p) in params.iter().enumerate() {
        let patch = ieee.map(|v| &v["params"][i]);
        add(
            format!("{name} param {i}"),
            bits_of(p),
            u64s(&case["params"][i]),
            patch,
        );
    }
    let sd = opt.state_dict().unwrap();
    let want_state = case["state"].as_object().unwrap();
    assert_eq!(
        sd.state.len(),
        want_state.len(),
        "{name}: parameters with state"
    );
    for (idx, entries) in want_state {
        let i: usize = idx.parse().unwrap();
        let got = &sd.state[&i];
        let mut keys: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
        keys.sort();
        let want_keys: Vec<&str> = entries
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(keys, want_keys, "{name}: state keys of {idx}");
        for (k, st) in got {
            if k == "step" {
                assert_eq!(st.dtype(), DType::Float32);
                assert_eq!(st.dim(), 0);
                assert_eq!(bits_of(st), u64s(&entries[k]), "{name}: step of {idx}");
            } else {
                assert_eq!(st.size(), params[i].size());
                let patch = ieee.map(|v| &v["state"][idx][k]);
                add(
                    format!("{name} {k} of {idx}"),
                    bits_of(st),
                    u64s(&entries[k]),
                    patch,
                );
            }
        }
    }
    let versions: Vec<u64> = params.iter().map(|p| p.version()).collect();
    assert_eq!(
        versions,
        u64s(&case["versions"]),
        "{name}: version counters"
    );
    t.cases += 1;
}

fn run_all(file: &str, which: &[&str]) -> Tally {
    let fx = Fixture::new(file);
    let mut t = Tally::default();
    for case in fx.d["cases"].as_array().unwrap() {
        if !which.contains(&case["optimizer"].as_str().unwrap()) {
            continue;
        }
        let params = fx.params();
        let mut opt = make_optimizer(case, &params);
        fx.run(0..5, &params, opt.as_mut());
        check_case(case, &params, opt.as_ref(), &mut t);
    }
    t
}

#[test]
fn sgd_matches_pytorch_bit_for_bit() {
    let t = run_all("steps_float32.json", &["sgd"]);
    assert_eq!(t.cases, 17);
    assert!(t.n > 1000);
    assert_eq!(
        t.vs_torch, 0,
        "SGD elements differing from PyTorch's: {t:?}"
    );
}

/// Adam's denominator takes `sqrt`, which PyTorch computes with its vectorised sqrt; that
/// one is not correctly rounded in this PyTorch build (about 1 result in 5 is an ulp off on
/// random inputs) while tensile's is IEEE's. So: (1) bit equality with PyTorch's optimizer
/// run with a correctly rounded `Tensor.sqrt` (the fixture script patches it; every other
/// operation is PyTorch's own), and (2) the elements that differ from PyTorch's real
/// results are counted (27 of 4,788 here: a 1-ulp change in the denominator moves the update
/// by an ulp of the update, which shows in the parameter only now and then).
#[test]
fn adam_and_adamw_match_pytorch() {
    let t = run_all("steps_float32.json", &["adam", "adamw"]);
    assert_eq!(t.cases, 22);
    eprintln!(
        "Adam/AdamW float32: {} of {} elements differ from PyTorch's (at most {} ulp), {} from PyTorch's with an IEEE sqrt",
        t.vs_torch, t.n, t.worst, t.vs_ieee
    );
    assert_eq!(t.vs_ieee, 0, "{t:?}");
    assert!(t.vs_torch * 100 <= t.n, "{t:?}");
}

#[test]
fn float64_parameters() {
    let t = run_all("steps_float64.json", &["sgd"]);
    assert_eq!((t.cases, t.vs_torch), (2, 0), "{t:?}");
    let t = run_all("steps_float64.json", &["adam", "adamw"]);
    assert_eq!(t.cases, 3);
    eprintln!(
        "Adam/AdamW float64: {} of {} elements differ from PyTorch's",
        t.vs_torch, t.n
    );
    assert_eq!(t.vs_ieee, 0, "{t:?}");
}

/// A state dict taken after 3 steps, loaded into a new optimizer on copies of the
/// parameters, continues exactly as the original does for the last 2 steps.
#[test]
fn state_dict_round_trip_continues_identically() {
    let fx = Fixture::new("steps_float32.json");
    for case in fx.d["cases"].as_array().unwrap() {
        let params = fx.params();
        let mut opt = make_optimizer(case, &params);
        fx.run(0..3, &params, opt.as_mut());
        let sd = opt.state_dict().unwrap();
        // a fresh optimizer on fresh parameters holding the same values
        let copies: Vec<Tensor> = params
            .iter()
            .map(|p| p.detach().clone().requires_grad_(true).unwrap())
            .collect();
        let mut opt2 = make_optimizer(case, &copies);
        opt2.load_state_dict(&sd).unwrap();
        fx.run(3..5, &params, opt.as_mut());
        fx.run(3..5, &copies, opt2.as_mut());
        for (p, q) in params.iter().zip(&copies) {
            assert_eq!(bits_of(p), bits_of(q), "{}", case["kwargs"]);
        }
        let (a, b2) = (opt.state_dict().unwrap(), opt2.state_dict().unwrap());
        assert_eq!(a.param_groups, b2.param_groups);
        for (k, entries) in &a.state {
            for ((n1, t1), (n2, t2)) in entries.iter().zip(&b2.state[k]) {
                assert_eq!(n1, n2);
                assert_eq!(bits_of(t1), bits_of(t2));
            }
        }
    }
}

#[test]
fn state_dict_has_pytorchs_structure() {
    let p = Tensor::ones([3]).unwrap().requires_grad_(true).unwrap();
    let q = Tensor::ones([2]).unwrap().requires_grad_(true).unwrap();
    let mut opt = AdamW::from_groups(vec![
        ParamGroup::new(
            [p.alias()],
            AdamWOpts {
                amsgrad: true,
                ..Default::default()
            },
        ),
        ParamGroup::new(
            [q.alias()],
            AdamWOpts {
                lr: 0.5,
                amsgrad: true,
                ..Default::default()
            },
        ),
    ])
    .unwrap();
    p.set_grad(Some(Tensor::ones([3]).unwrap())).unwrap();
    opt.step().unwrap();
    let sd = opt.state_dict().unwrap();
    // only p had a gradient: q has no state
    assert_eq!(sd.state.keys().copied().collect::<Vec<_>>(), vec![0]);
    let names: Vec<&str> = sd.state[&0].iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]);
    assert_eq!(
        sd.state_tensor(0, "step").unwrap().item::<f32>().unwrap(),
        1.0
    );
    let keys: Vec<&str> = sd.param_groups[0]
        .options
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "lr",
            "betas",
            "eps",
            "weight_decay",
            "amsgrad",
            "maximize",
            "foreach",
            "capturable",
            "differentiable",
            "fused",
            "decoupled_weight_decay"
        ]
    );
    assert_eq!(sd.param_groups[0].params, vec![0]);
    assert_eq!(sd.param_groups[1].params, vec![1]);
    assert_eq!(sd.param_groups[1].get("lr"), Some(&HyperValue::Float(0.5)));
    assert_eq!(
        sd.param_groups[0].get("betas"),
        Some(&HyperValue::Pair(0.9, 0.999))
    );
    assert_eq!(
        sd.param_groups[0].get("decoupled_weight_decay"),
        Some(&HyperValue::Bool(true))
    );
    // the state dict is a snapshot
    let before = bits_of(sd.state_tensor(0, "exp_avg").unwrap());
    opt.step().unwrap();
    assert_eq!(bits_of(sd.state_tensor(0, "exp_avg").unwrap()), before);

    // SGD without momentum has no state
    let mut sgd = SGD::new_with([p.alias()], 0.1).unwrap();
    sgd.step().unwrap();
    let sd = sgd.state_dict().unwrap();
    assert!(sd.state.is_empty());
    let keys: Vec<&str> = sd.param_groups[0]
        .options
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "lr",
            "momentum",
            "dampening",
            "weight_decay",
            "nesterov",
            "maximize",
            "foreach",
            "differentiable",
            "fused"
        ]
    );
}

#[test]
fn load_state_dict_errors() {
    let p = Tensor::ones([3]).unwrap().requires_grad_(true).unwrap();
    let q = Tensor::ones([2]).unwrap().requires_grad_(true).unwrap();
    let one = SGD::new_with([p.alias(), q.alias()], 0.1).unwrap();
    let sd = one.state_dict().unwrap();
    let mut two = SGD::from_groups(vec![
        ParamGroup::new([p.alias()], SgdOpts::from(0.1)),
        ParamGroup::new([q.alias()], SgdOpts::from(0.1)),
    ])
    .unwrap();
    let e = two.load_state_dict(&sd).unwrap_err();
    assert_eq!(
        e.to_string(),
        "loaded state dict has a different number of parameter groups"
    );
    assert_eq!(e.kind(), tensile::ErrorKind::ValueError);
    let mut small = SGD::new_with([p.alias()], 0.1).unwrap();
    assert_eq!(
        small.load_state_dict(&sd).unwrap_err().to_string(),
        "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
    );
    // hyperparameters are taken from the state dict
    let mut other = SGD::new_with([p.alias(), q.alias()], 0.7).unwrap();
    other.load_state_dict(&sd).unwrap();
    assert_eq!(other.lr(0).unwrap(), 0.1);
}

fn err<T: std::fmt::Debug>(r: tensile::Result<T>) -> String {
    let e = r.unwrap_err();
    assert_eq!(e.kind(), tensile::ErrorKind::ValueError, "{e}");
    e.to_string()
}

#[test]
fn validation_errors_are_pytorchs() {
    let p = || vec![Tensor::zeros([1]).unwrap().requires_grad_(true).unwrap()];
    let sgd = |o: SgdOpts| err(SGD::new_with(p(), o));
    let d = SgdOpts::from(0.1);
    assert_eq!(
        sgd(SgdOpts { lr: -0.1, ..d }),
        "Invalid learning rate: -0.1"
    );
    assert_eq!(
        sgd(SgdOpts {
            momentum: -0.5,
            ..d
        }),
        "Invalid momentum value: -0.5"
    );
    assert_eq!(
        sgd(SgdOpts {
            weight_decay: -1e-5,
            ..d
        }),
        "Invalid weight_decay value: -1e-05"
    );
    assert_eq!(
        sgd(SgdOpts {
            nesterov: true,
            ..d
        }),
        "Nesterov momentum requires a momentum and zero dampening"
    );
    assert_eq!(
        sgd(SgdOpts {
            nesterov: true,
            momentum: 0.9,
            dampening: 0.1,
            ..d
        }),
        "Nesterov momentum requires a momentum and zero dampening"
    );
    // NaN passes SGD's `lr < 0` (as in PyTorch) but not Adam's `0 <= lr`
    assert!(SGD::new_with(p(), f64::NAN).is_ok());
    let adam = |o: AdamOpts| err(Adam::new_with(p(), o));
    let d = AdamOpts::default();
    assert_eq!(
        adam(AdamOpts { lr: -1.0, ..d }),
        "Invalid learning rate: -1.0"
    );
    assert_eq!(
        adam(AdamOpts { lr: f64::NAN, ..d }),
        "Invalid learning rate: nan"
    );
    assert_eq!(
        adam(AdamOpts { eps: -1e-8, ..d }),
        "Invalid epsilon value: -1e-08"
    );
    assert_eq!(
        adam(AdamOpts {
            betas: (1.0, 0.999),
            ..d
        }),
        "Invalid beta parameter at index 0: 1.0"
    );
    assert_eq!(
        adam(AdamOpts {
            betas: (0.9, -0.5),
            ..d
        }),
        "Invalid beta parameter at index 1: -0.5"
    );
    assert_eq!(
        err(AdamW::new_with(
            p(),
            AdamWOpts {
                weight_decay: -0.01,
                ..Default::default()
            }
        )),
        "Invalid weight_decay value: -0.01"
    );
    // the hyperparameters are checked before the parameter list
    assert_eq!(
        err(Adam::new_with(
            Vec::<Tensor>::new(),
            AdamOpts { lr: -1.0, ..d }
        )),
        "Invalid learning rate: -1.0"
    );
    assert_eq!(
        err(SGD::new(Vec::<Tensor>::new())),
        "optimizer got an empty parameter list"
    );
    let leaf = Tensor::ones([2]).unwrap().requires_grad_(true).unwrap();
    let nonleaf = leaf.mul(&leaf).unwrap();
    assert_eq!(
        err(Adam::new([nonleaf])),
        "can't optimize a non-leaf Tensor"
    );
    assert_eq!(
        err(SGD::from_groups(vec![
            ParamGroup::new([leaf.alias()], SgdOpts::default()),
            ParamGroup::new([leaf.alias()], SgdOpts::default()),
        ])),
        "some parameters appear in more than one parameter group"
    );
    let mut opt = SGD::new(p()).unwrap();
    assert_eq!(
        err(LinearLR::new(&mut opt, 0.0, 1.0, 5)),
        "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."
    );
    assert_eq!(
        err(LinearLR::new(&mut opt, 0.5, 1.5, 5)),
        "Ending multiplicative factor expected to be between 0 and 1."
    );
    let e = SGD::new([Tensor::zeros_with([2], DType::Float16).unwrap()])
        .and_then(|mut o| {
            o.params(0).unwrap()[0]
                .set_grad(Some(Tensor::zeros_with([2], DType::Float16).unwrap()))?;
            o.step()
        })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "SGD: parameters of dtype float16 are not supported (float32 and float64 are)"
    );
}

#[test]
fn zero_grad_sets_none_or_zeroes_in_place() {
    let p = Tensor::ones([3]).unwrap().requires_grad_(true).unwrap();
    let mut opt = SGD::new_with([p.alias()], 0.1).unwrap();
    p.mul(&p).unwrap().sum().unwrap().backward().unwrap();
    let g = p.grad().unwrap();
    opt.zero_grad_with(false).unwrap();
    // the same tensor, zeroed
    assert!(p.grad().unwrap().shares_storage(&g));
    assert_eq!(g.to_vec::<f32>(), vec![0.0; 3]);
    opt.zero_grad().unwrap();
    assert!(p.grad().is_none());
    // a parameter without a gradient is skipped
    let v = p.version();
    opt.step().unwrap();
    assert_eq!(p.version(), v);
}

/// `p.grad = g` is checked as PyTorch's `THPVariable_set_grad` checks it (texts of torch
/// 2.15): an optimizer never steps a gradient of another shape or dtype into a parameter.
#[test]
fn set_grad_checks_dtype_and_size_as_pytorch() {
    let p = Tensor::zeros([2, 3]).unwrap().requires_grad_(true).unwrap();
    let err = |g: Tensor| p.set_grad(Some(g)).unwrap_err().to_string();
    let size_msg = |g: &str| {
        format!(
            "attempting to assign a gradient of size '{g}' to a tensor of size '[2, 3]'. Please ensure that the gradient and the tensor are the same size"
        )
    };
    let dtype_msg = |g: &str, t: &str| {
        format!(
            "attempting to assign a gradient with dtype '{g}' to a tensor with grad_dtype '{t}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that assume they match."
        )
    };
    assert_eq!(err(Tensor::zeros([3, 2]).unwrap()), size_msg("[3, 2]"));
    assert_eq!(err(Tensor::zeros([6]).unwrap()), size_msg("[6]"));
    assert_eq!(
        err(Tensor::scalar_tensor(1.0)
            .unwrap()
            .to(DType::Float32)
            .unwrap()),
        size_msg("[]")
    );
    assert_eq!(
        err(Tensor::zeros_with([2, 3], DType::Float64).unwrap()),
        dtype_msg("double", "Float")
    );
    // The dtype is checked before the size.
    assert_eq!(
        err(Tensor::zeros_with([3], DType::Float16).unwrap()),
        dtype_msg("c10::Half", "Float")
    );
    assert_eq!(
        err(Tensor::zeros_with([2, 3], DType::BFloat16).unwrap()),
        dtype_msg("c10::BFloat16", "Float")
    );
    assert_eq!(
        p.set_grad(Some(p.alias())).unwrap_err().to_string(),
        "can't assign Variable as its own grad"
    );
    assert!(p.grad().is_none(), "a refused gradient is not stored");
    // Accepted: the same size and dtype, any layout; a detached alias (another variable).
    p.set_grad(Some(Tensor::ones([3, 2]).unwrap().t().unwrap()))
        .unwrap();
    let g = p.grad().unwrap();
    assert_eq!(err(Tensor::zeros([3, 2]).unwrap()), size_msg("[3, 2]"));
    assert!(
        p.grad().unwrap().shares_storage(&g),
        "the old gradient stays"
    );
    p.set_grad(Some(p.detach())).unwrap();
    p.set_grad(None).unwrap();
    assert!(p.grad().is_none());
    // Integer tensors: a gradient of their own dtype is taken (PyTorch too); another is not.
    let i = Tensor::zeros_with([2], DType::Int64).unwrap();
    i.set_grad(Some(Tensor::zeros_with([2], DType::Int64).unwrap()))
        .unwrap();
    assert_eq!(
        i.set_grad(Some(Tensor::zeros([2]).unwrap()))
            .unwrap_err()
            .to_string(),
        dtype_msg("float", "Long")
    );
    let b = Tensor::zeros_with([2], DType::Bool).unwrap();
    for (d, name) in [
        (DType::UInt8, "unsigned char"),
        (DType::Int8, "signed char"),
        (DType::Int16, "short int"),
        (DType::Int32, "int"),
        (DType::Int64, "long int"),
        (DType::Float32, "float"),
    ] {
        assert_eq!(
            b.set_grad(Some(Tensor::zeros_with([2], d).unwrap()))
                .unwrap_err()
                .to_string(),
            dtype_msg(name, "Bool")
        );
    }
    // The case: a [3, 2] gradient never reaches SGD's step of a [2, 3] parameter.
    let mut opt = SGD::new_with([p.alias()], 0.1).unwrap();
    assert!(p.set_grad(Some(Tensor::ones([3, 2]).unwrap())).is_err());
    opt.step().unwrap();
    assert_eq!(p.to_vec::<f32>(), [0.0; 6]);
}

/// The optimizer writes into the caller's tensors (shared storage), in place.
#[test]
fn parameters_are_updated_in_place() {
    let w = Tensor::ones([2, 2]).unwrap().requires_grad_(true).unwrap();
    let view = w.detach();
    let mut opt = Adam::new_with([w.alias()], 0.1).unwrap();
    w.set_grad(Some(Tensor::ones([2, 2]).unwrap())).unwrap();
    opt.step().unwrap();
    // PyTorch: 1 - 0.1 * 0.1 / (sqrt(0.001) / sqrt(0.001) + 1e-8) / 0.1 = 0.90000004 (bits 1063675495)
    assert_eq!(view.to_vec::<f32>(), vec![f32::from_bits(1063675495); 4]);
    assert!(w.requires_grad() && w.is_leaf() && w.grad_fn().is_none());
    assert_eq!(w.version(), 1);
}

fn seq_of(v: &Value) -> Vec<Vec<u64>> {
    v.as_array().unwrap().iter().map(u64s).collect()
}

fn lrs_of(make: &dyn Fn(&mut SGD) -> Box<dyn LRScheduler>, n: usize) -> Vec<Vec<u64>> {
    let p = Tensor::zeros([1]).unwrap().requires_grad_(true).unwrap();
    let q = Tensor::zeros([1]).unwrap().requires_grad_(true).unwrap();
    let mut opt = SGD::from_groups(vec![
        ParamGroup::new([p], SgdOpts::from(0.1)),
        ParamGroup::new([q], SgdOpts::from(0.03)),
    ])
    .unwrap();
    let mut s = make(&mut opt);
    let bits = |l: &[f64]| l.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mut out = vec![bits(s.get_last_lr())];
    for _ in 0..n {
        opt.step().unwrap();
        s.step(&mut opt).unwrap();
        assert_eq!(s.get_last_lr(), &[opt.lr(0).unwrap(), opt.lr(1).unwrap()]);
        out.push(bits(s.get_last_lr()));
    }
    assert_eq!(s.last_epoch(), n as i64);
    out
}

#[test]
fn schedulers_match_pytorch_exactly() {
    let d = load("schedulers.json");
    let seqs = &d["sequences"];
    type Make = Box<dyn Fn(&mut SGD) -> Box<dyn LRScheduler>>;
    let cases: Vec<(&str, Make)> = vec![
        (
            "StepLR(7, 0.5)",
            Box::new(|o| Box::new(StepLR::new(o, 7, 0.5).unwrap())),
        ),
        (
            "StepLR(3)",
            Box::new(|o| Box::new(StepLR::new(o, 3, 0.1).unwrap())),
        ),
        (
            "CosineAnnealingLR(10, 0.001)",
            Box::new(|o| Box::new(CosineAnnealingLR::new(o, 10, 0.001).unwrap())),
        ),
        (
            "CosineAnnealingLR(7)",
            Box::new(|o| Box::new(CosineAnnealingLR::new(o, 7, 0.0).unwrap())),
        ),
        (
            "LinearLR(0.25, 1.0, 8)",
            Box::new(|o| Box::new(LinearLR::new(o, 0.25, 1.0, 8).unwrap())),
        ),
        (
            "LinearLR()",
            Box::new(|o| Box::new(LinearLR::new_default(o).unwrap())),
        ),
        (
            "LinearLR(1.0, 0.1, 5)",
            Box::new(|o| Box::new(LinearLR::new(o, 1.0, 0.1, 5).unwrap())),
        ),
        (
            "LambdaLR(0.95 ** e)",
            Box::new(|o| Box::new(LambdaLR::new(o, |e| 0.95f64.powf(e as f64)).unwrap())),
        ),
        (
            "LambdaLR(1 / (e + 1))",
            Box::new(|o| Box::new(LambdaLR::new(o, |e| 1.0 / (e + 1) as f64).unwrap())),
        ),
    ];
    assert_eq!(cases.len(), seqs.as_object().unwrap().len());
    for (name, make) in &cases {
        let want = seq_of(&seqs[*name]);
        let got = lrs_of(make.as_ref(), want.len() - 1);
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn scheduler_sets_initial_lr_and_resumes_from_its_state_dict() {
    let p = Tensor::zeros([1]).unwrap().requires_grad_(true).unwrap();
    let mut opt = SGD::new_with([p.alias()], 0.1).unwrap();
    let mut s = CosineAnnealingLR::new(&mut opt, 10, 0.0).unwrap();
    assert_eq!(opt.initial_lr(0).unwrap(), Some(0.1));
    assert_eq!(
        opt.state_dict().unwrap().param_groups[0].get("initial_lr"),
        Some(&HyperValue::Float(0.1))
    );
    for _ in 0..4 {
        s.step(&mut opt).unwrap();
    }
    let sd = s.state_dict();
    let osd = opt.state_dict().unwrap();
    let mut opt2 = SGD::new_with([p.alias()], 0.1).unwrap();
    let mut s2 = CosineAnnealingLR::new(&mut opt2, 10, 0.0).unwrap();
    opt2.load_state_dict(&osd).unwrap();
    s2.load_state_dict(&sd);
    for _ in 0..8 {
        s.step(&mut opt).unwrap();
        s2.step(&mut opt2).unwrap();
        assert_eq!(s.get_last_lr(), s2.get_last_lr());
    }
    // a second scheduler keeps the first's initial_lr
    let _ = StepLR::new(&mut opt, 2, 0.5).unwrap();
    assert_eq!(opt.initial_lr(0).unwrap(), Some(0.1));
    // LambdaLR with one function per group
    let e = LambdaLR::new_per_group(&mut opt, vec![]).unwrap_err();
    assert_eq!(e.to_string(), "Expected 1 lr_lambdas, but got 0");
}

/// `param_groups[i]` past the end is Python's IndexError, not a panic, for every accessor.
#[test]
fn group_index_out_of_range_is_an_error() {
    let w = Tensor::ones([2]).unwrap().requires_grad_(true).unwrap();
    let mut opt = tensile::optim::SGD::new_with([w.alias()], 0.1).unwrap();
    let text = |e: tensile::Error| e.to_string();
    assert_eq!(opt.params(0).unwrap().len(), 1);
    assert_eq!(text(opt.params(1).unwrap_err()), "list index out of range");
    assert_eq!(
        text(opt.params_mut(1).unwrap_err()),
        "list index out of range"
    );
    assert_eq!(text(opt.lr(1).unwrap_err()), "list index out of range");
    assert_eq!(
        text(opt.set_lr(1, 0.5).unwrap_err()),
        "list index out of range"
    );
    assert_eq!(
        text(opt.initial_lr(usize::MAX).unwrap_err()),
        "list index out of range"
    );
    assert_eq!(
        text(opt.set_initial_lr(1, Some(0.5)).unwrap_err()),
        "list index out of range"
    );
    assert_eq!(opt.lr(0).unwrap(), 0.1);
}

// ---------------------------------------------------------------- state keyed by parameter
//
// PyTorch keys `optimizer.state` by the parameter tensor: editing `param_groups` moves no
// state. Expected values from PyTorch 2.15 (issue 27, item 4):
//
//     def mk(n, v=0.0): return torch.full((n,), v, requires_grad=True)
//     def make(kind, params):
//         if kind == 'sgd': return torch.optim.SGD(params, lr=1.0, momentum=1.0)
//         if kind == 'adam': return torch.optim.Adam(params, lr=0.1)
//         return torch.optim.AdamW(params, lr=0.1, weight_decay=0.5)
//     # swap
//     p, q = mk(2), mk(2); o = make(kind, [p, q])
//     p.grad = torch.full((2,), 5.0); o.step()
//     g = o.param_groups[0]['params']; g[0], g[1] = g[1], g[0]
//     p.grad = torch.full((2,), 5.0); q.grad = torch.zeros(2); o.step()
//     # push
//     p, q = mk(2, 1.0), mk(3, 2.0); o = make(kind, [p])
//     p.grad = torch.full((2,), 5.0); o.step()
//     o.param_groups[0]['params'].append(q)
//     p.grad = torch.full((2,), 3.0); q.grad = torch.tensor([1.0, -2.0, 4.0]); o.step()
//     # replace by a larger parameter
//     p, q = mk(2, 1.0), mk(3, 2.0); o = make(kind, [p])
//     p.grad = torch.full((2,), 5.0); o.step()
//     o.param_groups[0]['params'][0] = q
//     q.grad = torch.tensor([1.0, -2.0, 4.0]); o.step()
//     o.state_dict()   # KeyError(id(p))

#[derive(Clone, Copy, Debug)]
enum Kind {
    Sgd,
    Adam,
    AdamW,
}

fn kind_opt(kind: Kind, params: &[&Tensor]) -> Box<dyn Optimizer> {
    let ps = params.iter().map(|p| p.alias());
    match kind {
        Kind::Sgd => Box::new(
            SGD::new_with(
                ps,
                SgdOpts {
                    lr: 1.0,
                    momentum: 1.0,
                    ..Default::default()
                },
            )
            .unwrap(),
        ),
        Kind::Adam => Box::new(Adam::new_with(ps, 0.1).unwrap()),
        Kind::AdamW => Box::new(
            AdamW::new_with(
                ps,
                AdamWOpts {
                    lr: 0.1,
                    weight_decay: 0.5,
                    ..Default::default()
                },
            )
            .unwrap(),
        ),
    }
}

fn full(n: usize, v: f64) -> Tensor {
    Tensor::full([n], v).unwrap()
}

fn vec1(v: &[f32]) -> Tensor {
    Tensor::from_vec(v.to_vec(), [v.len()]).unwrap()
}

fn leaf_full(n: usize, v: f64) -> Tensor {
    full(n, v).requires_grad_(true).unwrap()
}

/// The values as doubles (Python's `tolist()` of a float32 tensor), compared exactly.
fn values(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f32>().into_iter().map(f64::from).collect()
}

#[test]
fn swapped_parameters_keep_their_own_state() {
    for (kind, want_p) in [
        (Kind::Sgd, -15.0),
        (Kind::Adam, -0.19999998807907104),
        (Kind::AdamW, -0.19499999284744263),
    ] {
        let (p, q) = (leaf_full(2, 0.0), leaf_full(2, 0.0));
        let mut o = kind_opt(kind, &[&p, &q]);
        p.set_grad(Some(full(2, 5.0))).unwrap();
        o.step().unwrap();
        o.params_mut(0).unwrap().swap(0, 1);
        p.set_grad(Some(full(2, 5.0))).unwrap();
        q.set_grad(Some(full(2, 0.0))).unwrap();
        o.step().unwrap();
        // before: q took p's state and p started afresh (SGD: p = [-10, -10], q = [-5, -5])
        assert_eq!(values(&p), [want_p; 2], "{kind:?}");
        assert_eq!(values(&q), [0.0; 2], "{kind:?}");
        // state_dict indexes by position: q is 0 now
        let sd = o.state_dict().unwrap();
        assert_eq!(sd.param_groups[0].params, [0, 1]);
        match kind {
            Kind::Sgd => {
                assert_eq!(
                    values(sd.state_tensor(0, "momentum_buffer").unwrap()),
                    [0.0; 2]
                );
                assert_eq!(
                    values(sd.state_tensor(1, "momentum_buffer").unwrap()),
                    [10.0; 2]
                );
            }
            _ => {
                let step = |i| sd.state_tensor(i, "step").unwrap().item::<f32>().unwrap();
                assert_eq!((step(0), step(1)), (1.0, 2.0), "{kind:?}");
                assert_eq!(
                    values(sd.state_tensor(1, "exp_avg").unwrap()),
                    [0.949999988079071; 2]
                );
                assert_eq!(
                    values(sd.state_tensor(1, "exp_avg_sq").unwrap()),
                    [0.04997500404715538; 2]
                );
                assert_eq!(values(sd.state_tensor(0, "exp_avg").unwrap()), [0.0; 2]);
            }
        }
    }
}

#[test]
fn a_pushed_parameter_gets_fresh_state_on_its_first_step() {
    for (kind, want_p, want_q) in [
        (Kind::Sgd, -12.0, [1.0, 4.0, -2.0]),
        (
            Kind::Adam,
            0.804250955581665,
            [1.899999976158142, 2.0999999046325684, 1.899999976158142],
        ),
        (
            Kind::AdamW,
            0.7117509841918945,
            [1.7999999523162842, 2.0, 1.7999999523162842],
        ),
    ] {
        let (p, q) = (leaf_full(2, 1.0), leaf_full(3, 2.0));
        let mut o = kind_opt(kind, &[&p]);
        p.set_grad(Some(full(2, 5.0))).unwrap();
        o.step().unwrap();
        o.params_mut(0).unwrap().push(q.alias());
        p.set_grad(Some(full(2, 3.0))).unwrap();
        q.set_grad(Some(vec1(&[1.0, -2.0, 4.0]))).unwrap();
        // before: an index out of bounds (sgd.rs:202)
        o.step().unwrap();
        assert_eq!(values(&p), [want_p; 2], "{kind:?}");
        assert_eq!(values(&q), want_q, "{kind:?}");
        let sd = o.state_dict().unwrap();
        assert_eq!(sd.param_groups[0].params, [0, 1]);
        match kind {
            Kind::Sgd => {
                assert_eq!(
                    values(sd.state_tensor(0, "momentum_buffer").unwrap()),
                    [8.0; 2]
                );
                assert_eq!(
                    values(sd.state_tensor(1, "momentum_buffer").unwrap()),
                    [1.0, -2.0, 4.0]
                );
            }
            _ => {
                assert_eq!(
                    sd.state_tensor(1, "step").unwrap().item::<f32>().unwrap(),
                    1.0
                );
                assert_eq!(
                    values(sd.state_tensor(1, "exp_avg_sq").unwrap()),
                    [
                        0.0010000000474974513,
                        0.004000000189989805,
                        0.01600000075995922
                    ]
                );
            }
        }
    }
}

#[test]
fn a_parameter_replaced_by_a_larger_one_starts_fresh() {
    for (kind, want_p, want_q) in [
        (Kind::Sgd, -4.0, [1.0, 4.0, -2.0]),
        (
            Kind::Adam,
            0.8999999761581421,
            [1.899999976158142, 2.0999999046325684, 1.899999976158142],
        ),
        (
            Kind::AdamW,
            0.8500000238418579,
            [1.7999999523162842, 2.0, 1.7999999523162842],
        ),
    ] {
        let (p, q) = (leaf_full(2, 1.0), leaf_full(3, 2.0));
        let mut o = kind_opt(kind, &[&p]);
        p.set_grad(Some(full(2, 5.0))).unwrap();
        o.step().unwrap();
        o.params_mut(0).unwrap()[0] = q.alias();
        q.set_grad(Some(vec1(&[1.0, -2.0, 4.0]))).unwrap();
        // before: SGD and Adam indexed p's 2-element state with q's 3 elements (a panic)
        o.step().unwrap();
        assert_eq!(values(&p), [want_p; 2], "{kind:?}");
        assert_eq!(values(&q), want_q, "{kind:?}");
        // p's state stays, but p is in no group: PyTorch's KeyError(id(p))
        let e = o.state_dict().unwrap_err();
        assert_eq!(e.kind(), tensile::ErrorKind::KeyError);
        assert!(
            !e.to_string().is_empty() && e.to_string().bytes().all(|c| c.is_ascii_digit()),
            "{e}"
        );
        // putting p back makes the state dict whole again
        o.params_mut(0).unwrap().push(p.alias());
        let sd = o.state_dict().unwrap();
        assert_eq!(sd.state.keys().copied().collect::<Vec<_>>(), [0, 1]);
    }
}

/// An alias of a parameter is the same parameter (Python's `b = a`): it keeps the state.
#[test]
fn an_alias_of_a_parameter_keeps_its_state() {
    let p = leaf_full(2, 0.0);
    let mut o = kind_opt(Kind::Sgd, &[&p]);
    p.set_grad(Some(full(2, 5.0))).unwrap();
    o.step().unwrap();
    o.params_mut(0).unwrap()[0] = p.alias();
    p.set_grad(Some(full(2, 5.0))).unwrap();
    o.step().unwrap();
    // buf = 5 + 5: p = -5 - 10
    assert_eq!(values(&p), [-15.0; 2]);
    // a detached copy is another tensor: fresh state (buf = 5), p's own stays
    let d = p.detach().requires_grad_(true).unwrap();
    o.params_mut(0).unwrap()[0] = d.alias();
    d.set_grad(Some(full(2, 5.0))).unwrap();
    o.step().unwrap();
    assert_eq!(values(&d), [-20.0; 2]);
}

// A loaded state whose shape is not its parameter's: PyTorch's `load_state_dict` takes it and
// `step` fails in the op that meets it, after the in-place changes before that op:
//
//     p = torch.ones(pshape, requires_grad=True)
//     o = torch.optim.SGD([p], lr=1.0, momentum=0.5, nesterov=nesterov)
//       # or Adam([p], lr=0.1, amsgrad=amsgrad) / AdamW([p], lr=0.1, amsgrad=amsgrad, weight_decay=0.5)
//     p.grad = torch.full(pshape, 2.0); o.step()
//     sd = o.state_dict(); sd['state'][0][key] = torch.full(sshape, 3.0); o.load_state_dict(sd)
//     p.grad = torch.full(pshape, 2.0); o.step()   # RuntimeError
//     p.tolist(), {k: v.tolist() for k, v in o.state[p].items()}

fn reload_with(o: &mut dyn Optimizer, key: &str, state: Tensor) {
    let mut sd = o.state_dict().unwrap();
    let entry = sd.state.get_mut(&0).unwrap();
    match entry.iter_mut().find(|(k, _)| k == key) {
        Some((_, t)) => *t = state,
        None => entry.push((key.to_string(), state)),
    }
    o.load_state_dict(&sd).unwrap();
}

/// (parameter shape, buffer shape, nesterov, error, p after, buffer after)
type SgdMismatch = (
    &'static [usize],
    &'static [usize],
    bool,
    &'static str,
    f64,
    &'static [f64],
);

#[test]
fn a_mismatched_momentum_buffer_fails_as_pytorchs_ops() {
    let cases: [SgdMismatch; 5] = [
        (
            &[2],
            &[3],
            false,
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
            -1.0,
            &[1.5, 1.5, 1.5],
        ),
        (
            &[2],
            &[1],
            false,
            "output with shape [1] doesn't match the broadcast shape [2]",
            -1.0,
            &[1.5],
        ),
        (
            &[2],
            &[1, 2],
            false,
            "output with shape [2] doesn't match the broadcast shape [1, 2]",
            -1.0,
            &[3.5, 3.5],
        ),
        (
            &[2],
            &[1, 2],
            true,
            "output with shape [2] doesn't match the broadcast shape [1, 2]",
            -2.0,
            &[3.5, 3.5],
        ),
        (
            &[2, 3],
            &[3, 2],
            false,
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1",
            -1.0,
            &[1.5; 6],
        ),
    ];
    for (pshape, sshape, nesterov, msg, want_p, want_buf) in cases {
        let p = Tensor::ones(pshape).unwrap().requires_grad_(true).unwrap();
        let opts = SgdOpts {
            lr: 1.0,
            momentum: 0.5,
            nesterov,
            ..Default::default()
        };
        let mut o = SGD::new_with([p.alias()], opts).unwrap();
        p.set_grad(Some(Tensor::full(pshape, 2.0).unwrap()))
            .unwrap();
        o.step().unwrap();
        reload_with(
            &mut o,
            "momentum_buffer",
            Tensor::full(sshape, 3.0).unwrap(),
        );
        p.set_grad(Some(Tensor::full(pshape, 2.0).unwrap()))
            .unwrap();
        // before: a 3-element buffer for 2 elements panicked in the kernel; a (1, 2) one was
        // taken as (2,) and the step went through
        let e = o.step().unwrap_err();
        assert_eq!(e.to_string(), msg);
        assert_eq!(e.kind(), tensile::ErrorKind::RuntimeError);
        let n = pshape.iter().product();
        assert_eq!(values(&p.flatten().unwrap()), vec![want_p; n], "{msg}");
        let sd = o.state_dict().unwrap();
        let b = sd.state_tensor(0, "momentum_buffer").unwrap();
        assert_eq!(b.size(), sshape);
        assert_eq!(values(&b.flatten().unwrap()), want_buf, "{msg}");
    }
}

/// (AdamW, key, state shape, error, p after, exp_avg after, exp_avg_sq after)
type AdamMismatch = (
    bool,
    &'static str,
    &'static [usize],
    &'static str,
    f64,
    &'static [f64],
    &'static [f64],
);

#[test]
fn mismatched_adam_state_fails_as_pytorchs_ops() {
    // (AdamW, key, state shape, error, p after, exp_avg after, exp_avg_sq after)
    let a =
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0";
    let cases: [AdamMismatch; 7] = [
        (
            false,
            "exp_avg",
            &[3],
            a,
            0.9000000357627869,
            &[3.0; 3],
            &[0.004000000189989805; 2],
        ),
        (
            false,
            "exp_avg",
            &[1, 2],
            "output with shape [2] doesn't match the broadcast shape [1, 2]",
            0.9000000357627869,
            &[2.9000000953674316; 2],
            &[0.007996000349521637; 2],
        ),
        (
            false,
            "exp_avg_sq",
            &[1],
            "output with shape [1] doesn't match the broadcast shape [2]",
            0.9000000357627869,
            &[0.3799999952316284; 2],
            &[2.996999979019165],
        ),
        (
            false,
            "max_exp_avg_sq",
            &[3],
            a,
            0.9000000357627869,
            &[0.3799999952316284; 2],
            &[0.007996000349521637; 2],
        ),
        (
            false,
            "max_exp_avg_sq",
            &[],
            "output with shape [] doesn't match the broadcast shape [2]",
            0.9000000357627869,
            &[0.3799999952316284; 2],
            &[0.007996000349521637; 2],
        ),
        (
            true,
            "exp_avg",
            &[3],
            a,
            0.8075000047683716,
            &[3.0; 3],
            &[0.004000000189989805; 2],
        ),
        (
            true,
            "max_exp_avg_sq",
            &[1, 2],
            "output with shape [2] doesn't match the broadcast shape [1, 2]",
            0.8075000047683716,
            &[0.3799999952316284; 2],
            &[0.007996000349521637; 2],
        ),
    ];
    for (adamw, key, sshape, msg, want_p, want_m, want_v) in cases {
        let p = Tensor::ones([2]).unwrap().requires_grad_(true).unwrap();
        let amsgrad = key == "max_exp_avg_sq";
        let mut o: Box<dyn Optimizer> = if adamw {
            let opts = AdamWOpts {
                lr: 0.1,
                amsgrad,
                weight_decay: 0.5,
                ..Default::default()
            };
            Box::new(AdamW::new_with([p.alias()], opts).unwrap())
        } else {
            let opts = AdamOpts {
                lr: 0.1,
                amsgrad,
                ..Default::default()
            };
            Box::new(Adam::new_with([p.alias()], opts).unwrap())
        };
        p.set_grad(Some(full(2, 2.0))).unwrap();
        o.step().unwrap();
        reload_with(o.as_mut(), key, Tensor::full(sshape, 3.0).unwrap());
        p.set_grad(Some(full(2, 2.0))).unwrap();
        let e = o.step().unwrap_err();
        assert_eq!(e.to_string(), msg, "{key} {sshape:?}");
        assert_eq!(values(&p), [want_p; 2], "{key} {sshape:?}");
        let sd = o.state_dict().unwrap();
        let st = |k| values(&sd.state_tensor(0, k).unwrap().flatten().unwrap());
        assert_eq!(st("step"), [2.0], "{key} {sshape:?}");
        assert_eq!(st("exp_avg"), want_m, "{key} {sshape:?}");
        assert_eq!(st("exp_avg_sq"), want_v, "{key} {sshape:?}");
        assert_eq!(sd.state_tensor(0, key).unwrap().size(), sshape);
    }
}

/// The update ops the optimizers call (`sgd_step_`, `adam_step_`): a non-contiguous
/// parameter or gradient gets the values of the contiguous case (the kernel runs on copies),
/// versions move as PyTorch's in-place ops move them, and a state of another shape gives
/// PyTorch's error from the same steps written with tensile's ops.
#[test]
fn update_ops_take_any_layout() {
    use tensile::optim::{adam_step_, sgd_step_};
    let vals = |n: usize, k: f32| -> Vec<f32> {
        (0..n).map(|i| (i as f32 * 0.37 + k).sin() * 0.8).collect()
    };
    let n = 24;
    let (p0, g0) = (vals(n, 0.1), vals(n, 1.3));
    // the values of `v` as a [4, 6] tensor, contiguous or a transposed view
    let make = |v: &[f32], contiguous: bool| -> Tensor {
        let t = Tensor::from_vec(v.to_vec(), [4, 6]).unwrap();
        if contiguous {
            return t;
        }
        let t = t.t().unwrap().try_contiguous().unwrap().t().unwrap();
        assert!(!t.is_contiguous());
        t
    };
    let sgd = SgdOpts {
        lr: 0.1,
        momentum: 0.9,
        dampening: 0.1,
        weight_decay: 0.01,
        nesterov: false,
        maximize: false,
    };
    let adam = AdamOpts {
        weight_decay: 0.02,
        amsgrad: true,
        decoupled_weight_decay: true,
        ..AdamOpts::default()
    };
    let mut out = Vec::new();
    for (pc, gc) in [(true, true), (true, false), (false, true)] {
        let g = make(&g0, gc);
        let p = make(&p0, pc);
        let v0 = p.version();
        let buf = sgd_step_(&p, &g, None, &sgd).unwrap().unwrap();
        let b0 = buf.version();
        assert!(sgd_step_(&p, &g, Some(&buf), &sgd).unwrap().is_none());
        // param.add_ twice; buf.mul_(momentum).add_(grad) once
        assert_eq!((p.version() - v0, buf.version() - b0), (2, 2));
        let q = make(&p0, pc);
        let (m, v, vmax) = (
            Tensor::zeros([4, 6]).unwrap(),
            Tensor::zeros([4, 6]).unwrap(),
            Tensor::zeros([4, 6]).unwrap(),
        );
        let w0 = q.version();
        for step in 1..=3 {
            adam_step_(&q, &g, &m, &v, Some(&vmax), step as f64, &adam).unwrap();
        }
        // AdamW: param.mul_ and param.addcdiv_ per step
        assert_eq!(q.version() - w0, 6);
        out.push([p, buf, q, m, v, vmax].map(|t| t.to_vec::<f32>()));
    }
    let names = [
        "sgd param",
        "momentum_buffer",
        "adam param",
        "exp_avg",
        "exp_avg_sq",
        "max",
    ];
    for case in &out[1..] {
        for (i, name) in names.iter().enumerate() {
            assert_eq!(
                out[0][i], case[i],
                "{name}: a non-contiguous operand changes it"
            );
        }
    }
    // a state of another shape: PyTorch's error, from the composed steps
    let p = Tensor::ones([3]).unwrap();
    let g = Tensor::ones([3]).unwrap();
    let bad = Tensor::zeros([2]).unwrap();
    let e = adam_step_(&p, &g, &bad, &bad, None, 1.0, &adam).unwrap_err();
    assert_eq!(
        e.message(),
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"
    );
    let e = sgd_step_(&p, &g, Some(&bad), &sgd).unwrap_err();
    assert!(e.message().contains("must match the size"), "{e}");
}
