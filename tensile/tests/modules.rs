//! `tensile::nn` modules against PyTorch: initial weights from the same seed, forward outputs on
//! the same weights, state-dict keys, `load_state_dict` errors, BatchNorm running statistics,
//! init functions, `clip_grad_norm_`. Fixtures: `scripts/make_module_fixtures.py`.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

use safetensors::{Dtype, SafeTensors};
use serde_json::Value;
use tensile::nn::functional as F;
use tensile::nn::init;
use tensile::nn::utils::{clip_grad_norm_, clip_grad_norm_with_, clip_grad_value_};
use tensile::nn::*;
use tensile::{DType, Tensor};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/modules");

fn tensors() -> &'static HashMap<String, Tensor> {
    static T: OnceLock<HashMap<String, Tensor>> = OnceLock::new();
    T.get_or_init(|| {
        let bytes = std::fs::read(format!("{DATA}/tensors.safetensors")).expect("fixture");
        let st = SafeTensors::deserialize(&bytes).expect("safetensors");
        let mut out = HashMap::new();
        for (name, view) in st.tensors() {
            let shape: Vec<usize> = view.shape().to_vec();
            let d = view.data();
            let t = match view.dtype() {
                Dtype::F32 => Tensor::from_vec(
                    d.chunks(4)
                        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                        .collect::<Vec<_>>(),
                    &shape[..],
                ),
                Dtype::F64 => Tensor::from_vec(
                    d.chunks(8)
                        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                        .collect::<Vec<_>>(),
                    &shape[..],
                ),
                Dtype::I64 => Tensor::from_vec(
                    d.chunks(8)
                        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                        .collect::<Vec<_>>(),
                    &shape[..],
                ),
                Dtype::BOOL => {
                    Tensor::from_vec(d.iter().map(|&b| b != 0).collect::<Vec<_>>(), &shape[..])
                }
                other => panic!("unexpected dtype {other:?}"),
            }
            .unwrap();
            out.insert(name, t);
        }
        out
    })
}

fn t(name: &str) -> Tensor {
    tensors()
        .get(name)
        .unwrap_or_else(|| panic!("no fixture tensor {name}"))
        .clone()
}

fn cases() -> &'static Value {
    static C: OnceLock<Value> = OnceLock::new();
    C.get_or_init(|| {
        serde_json::from_str(&std::fs::read_to_string(format!("{DATA}/cases.json")).unwrap())
            .unwrap()
    })
}

/// The default generator is process-wide: tests that seed it or draw from it (every module
/// constructor does) run one at a time, so no test's draws land between another's
/// `manual_seed` and its constructors.
fn seed_lock() -> MutexGuard<'static, ()> {
    static L: Mutex<()> = Mutex::new(());
    L.lock().unwrap_or_else(|p| p.into_inner())
}

fn str_list(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn assert_close(what: &str, got: &Tensor, want: &Tensor, tol: f64) {
    assert_eq!(got.size(), want.size(), "{what}: shape");
    let g = got.to(DType::Float64).unwrap().contiguous().to_vec::<f64>();
    let w = want
        .to(DType::Float64)
        .unwrap()
        .contiguous()
        .to_vec::<f64>();
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a - b).abs() <= tol * (1.0 + b.abs()) || (a.is_nan() && b.is_nan());
        assert!(ok, "{what}[{i}]: got {a}, want {b}");
    }
}

fn assert_exact(what: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.size(), want.size(), "{what}: shape");
    let g = got.to(DType::Float64).unwrap().contiguous().to_vec::<f64>();
    let w = want
        .to(DType::Float64)
        .unwrap()
        .contiguous()
        .to_vec::<f64>();
    assert_eq!(g, w, "{what}: values");
}

/// The layer of each fixture case, built as the script builds it.
fn build_mha(case: &str) -> MultiheadAttention {
    match case {
        "mha" => MultiheadAttention::new(8, 2).unwrap(),
        _ => MultiheadAttention::with(8, 4, true).unwrap(),
    }
}

fn build_lstm(case: &str) -> LSTM {
    let c = match case {
        "lstm" => RnnConfig {
            num_layers: 2,
            bidirectional: true,
            ..Default::default()
        },
        _ => RnnConfig {
            batch_first: true,
            ..Default::default()
        },
    };
    LSTM::with(5, if case == "lstm" { 4 } else { 3 }, c).unwrap()
}

fn build_gru(case: &str) -> GRU {
    match case {
        "gru" => GRU::with(5, 4, 2).unwrap(),
        _ => GRU::with(
            3,
            4,
            RnnConfig {
                bidirectional: true,
                bias: false,
                ..Default::default()
            },
        )
        .unwrap(),
    }
}

fn build(case: &str) -> Box<dyn Module> {
    match case {
        "linear" => Box::new(Linear::new(5, 3).unwrap()),
        "linear_nobias" => Box::new(Linear::with(4, 2, false).unwrap()),
        "conv1d" => Box::new(Conv1d::with(3, 4, 3, (2, 1)).unwrap()),
        "conv2d" => Box::new(Conv2d::with(2, 4, 3, 1).unwrap()),
        "conv2d_groups" => Box::new(
            Conv2d::with(
                4,
                6,
                [3, 2],
                ConvConfig {
                    stride: [2i64, 1].into_iter().collect(),
                    groups: 2,
                    padding: "valid".into(),
                    ..Default::default()
                },
            )
            .unwrap(),
        ),
        "conv2d_reflect" => Box::new(
            Conv2d::with(
                2,
                3,
                3,
                ConvConfig {
                    padding: 1.into(),
                    padding_mode: "reflect",
                    bias: false,
                    ..Default::default()
                },
            )
            .unwrap(),
        ),
        "layernorm" => Box::new(LayerNorm::new(6).unwrap()),
        "layernorm2" => Box::new(LayerNorm::with([3, 6], 1e-3).unwrap()),
        "rmsnorm" => Box::new(RMSNorm::new(6).unwrap()),
        "groupnorm" => Box::new(GroupNorm::new(2, 4).unwrap()),
        "embedding" => Box::new(Embedding::with(10, 4, 2).unwrap()),
        "embedding_big" => Box::new(Embedding::new(7, 5).unwrap()),
        "relu" => Box::new(ReLU::new()),
        "gelu" => Box::new(GELU::new()),
        "gelu_tanh" => Box::new(GELU::with("tanh")),
        "silu" => Box::new(SiLU::new()),
        "tanh" => Box::new(Tanh::new()),
        "flatten" => Box::new(Flatten::new()),
        "maxpool" => Box::new(MaxPool2d::new(2)),
        "maxpool_s" => Box::new(MaxPool2d::with(3, (2, 1))),
        "avgpool" => Box::new(AvgPool2d::new(2)),
        "avgpool_s" => Box::new(AvgPool2d::with(
            3,
            tensile::nn::functional::AvgPoolOpts {
                stride: Some([2i64].into_iter().collect()),
                padding: [1i64].into_iter().collect(),
                count_include_pad: false,
                ..Default::default()
            },
        )),
        "adaptive" => Box::new(AdaptiveAvgPool2d::new([3, 2])),
        "batchnorm1d" => Box::new(BatchNorm1d::new(3).unwrap()),
        "batchnorm1d_3d" => Box::new(
            BatchNorm1d::with(
                3,
                BatchNormConfig {
                    momentum: None,
                    ..Default::default()
                },
            )
            .unwrap(),
        ),
        "batchnorm2d" => Box::new(BatchNorm2d::new(3).unwrap()),
        other => panic!("unknown case {other}"),
    }
}

/// The layers whose forwards take other arguments, seen through their own types.
#[derive(Clone, Copy, Default)]
struct Typed<'a> {
    mha: Option<&'a MultiheadAttention>,
    lstm: Option<&'a LSTM>,
    gru: Option<&'a GRU>,
}

/// The outputs of a case's forward(s), in the script's order.
fn run(case: &str, m: &dyn Module, typed: Typed, ins: &[Tensor]) -> Vec<Tensor> {
    match case {
        c if c.starts_with("batchnorm") => {
            m.train();
            let o1 = m.forward(&ins[0]).unwrap();
            let o2 = m.forward(&ins[1]).unwrap();
            let b = m.named_buffers();
            let get = |n: &str| b.iter().find(|(k, _)| k == n).unwrap().1.clone();
            let (rm, rv, nbt) = (
                get("running_mean"),
                get("running_var"),
                get("num_batches_tracked"),
            );
            m.eval();
            let o3 = m.forward(&ins[2]).unwrap();
            vec![o1, o2, rm, rv, nbt.to(DType::Float32).unwrap(), o3]
        }
        c if c.starts_with("mha") => {
            let mha = typed.mha.unwrap();
            let (q, k, v) = (&ins[0], &ins[1], &ins[2]);
            let (o, w) = mha.forward_qkv(q, k, v).unwrap();
            let (o2, w2) = mha
                .forward_with(
                    q,
                    k,
                    v,
                    MhaForwardOpts {
                        average_attn_weights: false,
                        ..Default::default()
                    },
                )
                .unwrap();
            let (o3, w3) = mha
                .forward_with(
                    q,
                    k,
                    v,
                    MhaForwardOpts {
                        need_weights: false,
                        ..Default::default()
                    },
                )
                .unwrap();
            assert!(w3.is_none());
            let (n, s) = if mha.config.batch_first {
                (q.size()[0], k.size()[1])
            } else {
                (q.size()[1], k.size()[0])
            };
            let kpm = Tensor::zeros_with([n, s], DType::Bool).unwrap();
            kpm.select(0, 0)
                .unwrap()
                .narrow(0, s - 2, 2)
                .unwrap()
                .fill_(true)
                .unwrap();
            let (o4, w4) = mha
                .forward_with(
                    q,
                    k,
                    v,
                    MhaForwardOpts {
                        key_padding_mask: Some(&kpm),
                        ..Default::default()
                    },
                )
                .unwrap();
            vec![o, w.unwrap(), o2, w2.unwrap(), o3, o4, w4.unwrap()]
        }
        c if c.starts_with("lstm") => {
            m.eval();
            let l = typed.lstm.unwrap();
            let (o, (h, c)) = l.forward_with(&ins[0], None).unwrap();
            let (o2, (h2, c2)) = l.forward_with(&ins[0], Some((&ins[1], &ins[2]))).unwrap();
            vec![o, h, c, o2, h2, c2]
        }
        c if c.starts_with("gru") => {
            m.eval();
            let g = typed.gru.unwrap();
            let (o, h) = g.forward_with(&ins[0], None).unwrap();
            let (o2, h2) = g.forward_with(&ins[0], Some(&ins[1])).unwrap();
            vec![o, h, o2, h2]
        }
        _ => {
            m.eval();
            vec![m.forward(&ins[0]).unwrap()]
        }
    }
}

#[test]
fn every_layer_matches_pytorch() {
    let _l = seed_lock();
    let obj = cases().as_object().unwrap();
    let mut checked = 0;
    for (case, c) in obj {
        let Some(seed) = c.get("seed").and_then(|s| s.as_u64()) else {
            continue;
        };
        tensile::manual_seed(seed);
        let (mha, lstm, gru);
        let mut typed = Typed::default();
        let boxed;
        let m: &dyn Module = if case.starts_with("mha") {
            mha = build_mha(case);
            typed.mha = Some(&mha);
            &mha
        } else if case.starts_with("lstm") {
            lstm = build_lstm(case);
            typed.lstm = Some(&lstm);
            &lstm
        } else if case.starts_with("gru") {
            gru = build_gru(case);
            typed.gru = Some(&gru);
            &gru
        } else {
            boxed = build(case);
            boxed.as_ref()
        };
        // state-dict keys in PyTorch's order
        let keys = str_list(&c["keys"]);
        assert_eq!(m.state_dict().keys(), keys, "{case}: state_dict keys");
        // initial values from the same seed
        for (k, v) in m.state_dict().iter() {
            let want = t(&format!("{case}/init/{k}"));
            if case.starts_with("embedding") {
                assert_close(&format!("{case}: init {k}"), v, &want, 1e-5);
            } else {
                assert_exact(&format!("{case}: init {k}"), v, &want);
            }
        }
        // PyTorch's (perturbed) weights, then the forward
        let sd: StateDict = keys
            .iter()
            .map(|k| (k.clone(), t(&format!("{case}/state/{k}"))))
            .collect();
        let r = m.load_state_dict(&sd, true).unwrap();
        assert_eq!(r, IncompatibleKeys::default());
        let n_in = c["n_in"].as_u64().unwrap() as usize;
        let ins: Vec<Tensor> = (0..n_in).map(|i| t(&format!("{case}/in{i}"))).collect();
        let outs = run(case, m, typed, &ins);
        assert_eq!(outs.len() as u64, c["n_out"].as_u64().unwrap(), "{case}");
        for (i, o) in outs.iter().enumerate() {
            assert_close(
                &format!("{case}: out{i}"),
                o,
                &t(&format!("{case}/out{i}")),
                1e-5,
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 32, "all layer cases ran");
}

fn mlp() -> Sequential {
    Sequential::new()
        .append(Linear::new(64, 128).unwrap())
        .append(ReLU::new())
        .append(Linear::new(128, 10).unwrap())
}

fn cnn() -> Sequential {
    Sequential::new()
        .append(Conv2d::with(1, 16, 3, 1).unwrap())
        .append(ReLU::new())
        .append(MaxPool2d::new(2))
        .append(Conv2d::with(16, 32, 3, 1).unwrap())
        .append(ReLU::new())
        .append(Flatten::new())
        .append(Linear::new(512, 10).unwrap())
}

#[test]
fn training_models_keys_init_forward_and_grads() {
    let _l = seed_lock();
    for (name, make) in [("mlp", mlp as fn() -> Sequential), ("cnn", cnn)] {
        let c = &cases()[name];
        tensile::manual_seed(0);
        let m = make();
        assert_eq!(m.state_dict().keys(), str_list(&c["keys"]), "{name}");
        let np: Vec<String> = m.named_parameters().into_iter().map(|(k, _)| k).collect();
        assert_eq!(np, str_list(&c["named_parameters"]), "{name}");
        // initial weights: PyTorch's exactly (manual_seed(0), same draw order)
        for (k, v) in m.state_dict().iter() {
            let s = &c["init"][k];
            let vals = v.to(DType::Float64).unwrap().to_vec::<f64>();
            let first: Vec<f64> = s["first"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            // serde_json's float parsing may be off by one double ulp: compare as float32
            let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
            assert_eq!(
                f32s(&vals[..first.len()]),
                f32s(&first),
                "{name}: {k} first values"
            );
            let sum: f64 = vals.iter().sum();
            assert!(
                (sum - s["sum"].as_f64().unwrap()).abs() < 1e-9,
                "{name}: {k} sum"
            );
        }
        // forward, loss and a backward giving a grad on every parameter
        let out = m.forward(&t(&format!("{name}/in0"))).unwrap();
        assert_close(
            &format!("{name}: logits"),
            &out,
            &t(&format!("{name}/out0")),
            1e-5,
        );
        let target = Tensor::from_vec(
            c["target"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect::<Vec<_>>(),
            [4],
        )
        .unwrap();
        let loss = F::cross_entropy(&out, &target).unwrap();
        let want = c["loss"].as_f64().unwrap();
        assert!(
            (loss.item::<f32>().unwrap() as f64 - want).abs() < 1e-5 * (1.0 + want.abs()),
            "{name}: loss"
        );
        loss.backward().unwrap();
        for (k, p) in m.named_parameters() {
            let g = p.grad().unwrap_or_else(|| panic!("{name}: no grad on {k}"));
            let gv = g.to(DType::Float64).unwrap().to_vec::<f64>();
            let (s, sq): (f64, f64) = (gv.iter().sum(), gv.iter().map(|x| x * x).sum());
            let ws = c["grads"][&k]["sum"].as_f64().unwrap();
            let wsq = c["grads"][&k]["sumsq"].as_f64().unwrap();
            assert!(
                (s - ws).abs() <= 1e-5 * (1.0 + ws.abs()),
                "{name}: {k} grad sum {s} vs {ws}"
            );
            assert!(
                (sq - wsq).abs() <= 1e-5 * (1.0 + wsq),
                "{name}: {k} grad sumsq"
            );
        }
        // zero_grad: set_to_none by default; set_to_none=false zeroes in place
        m.zero_grad_with(false).unwrap();
        assert!(m.parameters().iter().all(|p| {
            p.grad()
                .is_some_and(|g| g.abs().unwrap().sum().unwrap().item::<f32>().unwrap() == 0.0)
        }));
        m.zero_grad().unwrap();
        assert!(m.parameters().iter().all(|p| p.grad().is_none()));
    }
}

fn load_error_model(name: &str) -> Box<dyn Module> {
    match name {
        "bn_no_count" | "bn_missing_mean" => Box::new(
            Sequential::new()
                .append(Conv2d::new(1, 2, 3).unwrap())
                .append(BatchNorm2d::new(2).unwrap())
                .append(ReLU::new())
                .append(Linear::new(3, 2).unwrap()),
        ),
        "linear_alone" => Box::new(Linear::new(3, 2).unwrap()),
        "lstm_missing" => Box::new(LSTM::with(3, 2, 2).unwrap()),
        "mha_missing" => Box::new(MultiheadAttention::new(4, 2).unwrap()),
        _ => Box::new(mlp()),
    }
}

/// The same edits as the script's `err_case`s.
fn edit_state(name: &str, sd: &mut StateDict) {
    let z = |s: &[usize]| Tensor::zeros(s).unwrap();
    match name {
        "missing_one" => {
            sd.remove("0.weight");
        }
        "missing_two" => {
            sd.remove("0.weight");
            sd.remove("2.bias");
        }
        "unexpected" => {
            for k in ["5.weight", "1.foo", "0.weight.x", "extra"] {
                sd.insert(k, z(&[1]));
            }
        }
        "size_mismatch" => sd.insert("2.weight", z(&[10, 127])),
        "everything" => {
            sd.remove("0.bias");
            sd.insert("2.extra", z(&[1]));
            sd.insert("0.weight", z(&[3, 64]));
            sd.insert("2.bias", z(&[9]));
        }
        "non_strict" => {
            sd.remove("0.bias");
            sd.insert("2.extra", z(&[1]));
        }
        "non_strict_size" => {
            sd.remove("0.bias");
            sd.insert("2.bias", z(&[9]));
        }
        "bn_no_count" => {
            sd.remove("1.num_batches_tracked");
        }
        "bn_missing_mean" => {
            sd.remove("1.running_mean");
        }
        "linear_alone" => {
            sd.remove("bias");
        }
        "lstm_missing" => {
            sd.remove("weight_hh_l1");
            sd.remove("bias_ih_l0");
        }
        "mha_missing" => {
            sd.remove("out_proj.weight");
        }
        other => panic!("unknown error case {other}"),
    }
}

#[test]
fn load_state_dict_errors_match_pytorch() {
    let _l = seed_lock(); // builds modules: draws from the default generator
    let cases = cases()["load_errors"].as_array().unwrap();
    assert_eq!(cases.len(), 12);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let strict = c["strict"].as_bool().unwrap();
        let m = load_error_model(name);
        let mut sd = m.state_dict();
        edit_state(name, &mut sd);
        let r = m.load_state_dict(&sd, strict);
        match c.get("error") {
            Some(e) => {
                let err = r.expect_err(name);
                assert_eq!(err.to_string(), e.as_str().unwrap(), "{name}");
                assert_eq!(err.kind(), tensile::ErrorKind::RuntimeError);
            }
            None => {
                let k = r.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(k.missing_keys, str_list(&c["missing"]), "{name}");
                assert_eq!(k.unexpected_keys, str_list(&c["unexpected"]), "{name}");
            }
        }
    }
}

#[test]
fn load_state_dict_copies_in_place_and_keeps_aliases() {
    let _l = seed_lock(); // builds modules: draws from the default generator
    let a = mlp();
    let b = mlp();
    let held = b.parameters(); // as an optimizer holds them
    let before = held[0].data_ptr();
    b.load_state_dict(&a.state_dict(), true).unwrap();
    assert_eq!(held[0].data_ptr(), before, "same storage");
    assert_exact("loaded", &held[0], &a.parameters()[0]);
    assert!(held[0].requires_grad() && held[0].is_leaf());
    // values are copied, not shared
    assert!(!held[0].shares_storage(&a.parameters()[0]));
    // a state dict's tensors are detached but share the module's storage
    let sd = a.state_dict();
    let w = sd.get("0.weight").unwrap();
    assert!(!w.requires_grad() && w.shares_storage(&a.parameters()[0]));
    // 1-element 1-D entries load into 0-d buffers (num_batches_tracked)
    let bn = BatchNorm1d::new(2).unwrap();
    let mut sd = bn.state_dict();
    sd.insert(
        "num_batches_tracked",
        Tensor::from_vec(vec![7i64], [1]).unwrap(),
    );
    bn.load_state_dict(&sd, true).unwrap();
    assert_eq!(bn.named_buffers()[2].1.item::<i64>().unwrap(), 7);
    // a state dict from a HashMap works as well
    let hm: HashMap<String, Tensor> = a.state_dict().into_iter().collect();
    b.load_state_dict(&hm.into(), true).unwrap();
}

#[test]
fn train_eval_change_dropout_and_batchnorm() {
    // Linear's initialisation and the dropout mask draw from the default generator
    let _l = seed_lock();
    let m = Sequential::new()
        .append(Linear::new(4, 6).unwrap())
        .append(BatchNorm1d::new(6).unwrap())
        .append(Dropout::with(0.5, false).unwrap());
    assert!(m.is_training() && m.get(1).unwrap().is_training());
    let x = Tensor::randn_with([8, 4], &tensile::Generator::new().manual_seed(3)).unwrap();
    let y1 = m.forward(&x).unwrap();
    let zeros = y1.eq(0.0).unwrap().sum().unwrap().item::<i64>().unwrap();
    assert!(zeros > 5, "dropout zeroes about half in training ({zeros})");
    let nbt = m.named_buffers()[2].1.item::<i64>().unwrap();
    assert_eq!(nbt, 1);
    m.eval();
    assert!(!m.is_training() && !m.get(2).unwrap().is_training());
    let e1 = m.forward(&x).unwrap();
    let e2 = m.forward(&x).unwrap();
    assert_exact("eval is deterministic", &e1, &e2);
    assert_eq!(e1.eq(0.0).unwrap().sum().unwrap().item::<i64>().unwrap(), 0);
    assert_eq!(
        m.named_buffers()[2].1.item::<i64>().unwrap(),
        1,
        "eval leaves stats"
    );
    m.train();
    assert!(m.get(2).unwrap().is_training());
}

#[test]
fn module_list_and_named_modules() {
    let _l = seed_lock(); // builds modules: draws from the default generator
    let ml = ModuleList::new().append(Linear::new(2, 3).unwrap()).append(
        Sequential::new()
            .append(ReLU::new())
            .append(Linear::with(3, 1, false).unwrap()),
    );
    assert_eq!(ml.state_dict().keys(), ["0.weight", "0.bias", "1.1.weight"]);
    let names: Vec<String> = ml.named_modules().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["", "0", "1", "1.0", "1.1"]);
    let e = ml.forward(&Tensor::zeros([1, 2]).unwrap()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Module [ModuleList] is missing the required \"forward\" function"
    );
    assert_eq!(ml.num_parameters(), 2 * 3 + 3 + 3);
}

/// `nn.Linear(0, 4)`: with fan_in 0 PyTorch's bound is the int 0, so the bias is
/// `uniform_(0, 0)`: `0.` (it was `uniform_(-0.0, 0.0)` here, which fills `-0.`, as PyTorch's
/// own `uniform_(-0.0, 0.0)` does).
#[test]
fn linear_without_inputs_has_a_positive_zero_bias() {
    let _l = seed_lock();
    let l = Linear::new(0, 4).unwrap();
    let b = l.bias.as_ref().unwrap().detach();
    assert_eq!(b.to_string(), "tensor([0., 0., 0., 0.])");
    assert!(b.to_vec::<f32>().iter().all(|x| x.to_bits() == 0));
    assert_eq!(l.weight.size(), [4, 0]);
    let l = Linear::with(
        0,
        2,
        LinearConfig {
            dtype: DType::Float64,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        l.bias.as_ref().unwrap().detach().to_string(),
        "tensor([0., 0.], dtype=torch.float64)"
    );
    // uniform_ keeps the sign PyTorch gives: torch.empty(2).uniform_(-0.0, 0.0) is -0.
    let t = Tensor::ones([2]).unwrap();
    init::uniform_(&t, -0.0, 0.0).unwrap();
    assert_eq!(t.to_string(), "tensor([-0., -0.])");
}

#[test]
fn init_functions_match_pytorch() {
    let _l = seed_lock();
    let ic = &cases()["init"];
    for (name, c) in ic["cases"].as_object().unwrap() {
        let seed = c["seed"].as_u64().unwrap();
        let shape: Vec<usize> = c["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        let dtype = if c["dtype"] == "torch.float64" {
            DType::Float64
        } else {
            DType::Float32
        };
        tensile::manual_seed(seed);
        let x = Tensor::zeros_with(&shape[..], dtype).unwrap();
        match name.as_str() {
            "uniform" => init::uniform_(&x, -0.3, 0.7),
            "uniform_f64" => init::uniform_(&x, -2.0, 3.0),
            "normal_small" | "normal_big" => init::normal_(&x, 0.5, 2.0),
            "normal_f64" | "normal_f64_small" => init::normal_(&x, -1.0, 0.5),
            "kaiming_uniform" => init::kaiming_uniform_with_(&x, 5f64.sqrt(), None),
            "kaiming_uniform_relu" => {
                init::kaiming_uniform_with_(&x, (0.0, "fan_out", "relu"), None)
            }
            "kaiming_normal" => init::kaiming_normal_with_(&x, (0.0, "fan_out", "relu"), None),
            "xavier_uniform" => {
                init::xavier_uniform_with_(&x, init::calculate_gain("tanh", None).unwrap(), None)
            }
            "xavier_normal" => init::xavier_normal_(&x),
            other => panic!("unknown init case {other}"),
        }
        .unwrap();
        let want = t(&format!("init/{name}"));
        if name.contains("normal") && dtype == DType::Float32 {
            // PyTorch vectorises log/sin/cos for float32 blocks: a few ulp apart
            assert_close(name, &x, &want, 1e-5);
        } else if name.contains("normal") {
            assert_close(name, &x, &want, 1e-14);
        } else {
            assert_exact(name, &x, &want);
        }
    }
    for (n, g) in ic["gains"].as_object().unwrap() {
        let (name, p) = match n.split_once('_') {
            Some(("leaky", rest)) if rest.contains('_') => ("leaky_relu", Some(0.2)),
            _ => (n.as_str(), None),
        };
        let got = init::calculate_gain(name, p).unwrap();
        assert!((got - g.as_f64().unwrap()).abs() < 1e-15, "gain {n}");
    }
    let e = &ic["errors"];
    let z = Tensor::zeros([3, 3]).unwrap();
    assert_eq!(
        init::kaiming_uniform_with_(&z, (0.0, "fan_avg", "leaky_relu"), None)
            .unwrap_err()
            .to_string(),
        e["mode"].as_str().unwrap()
    );
    assert_eq!(
        init::kaiming_uniform_(&Tensor::zeros([3]).unwrap())
            .unwrap_err()
            .to_string(),
        e["fan"].as_str().unwrap()
    );
    assert_eq!(
        init::calculate_gain("softmax", None)
            .unwrap_err()
            .to_string(),
        e["gain"].as_str().unwrap()
    );
}

#[test]
fn init_distributions_over_a_big_draw() {
    let _l = seed_lock(); // Linear::new below draws from the default generator
    let g = tensile::Generator::new().manual_seed(123);
    let n = 200_000usize;
    let stats = |t: &Tensor| {
        let v = t.to(DType::Float64).unwrap().to_vec::<f64>();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        (mean, var.sqrt(), lo, hi)
    };
    // kaiming_uniform_(a=√5) on (n/100, 100): U(-1/√100·…) → bound = √3·√(2/6)/10 = 0.1
    let w = Tensor::zeros([n / 100, 100]).unwrap();
    init::kaiming_uniform_with_(&w, 5f64.sqrt(), Some(&g)).unwrap();
    let (m, s, lo, hi) = stats(&w);
    assert!(m.abs() < 1e-3 && lo >= -0.1 && hi < 0.1 && hi > 0.0999);
    assert!((s - 0.1 / 3f64.sqrt()).abs() < 1e-3);
    // kaiming_normal_(relu, fan_in 100): std √2/10
    init::kaiming_normal_with_(&w, (0.0, "fan_in", "relu"), Some(&g)).unwrap();
    let (m, s, _, _) = stats(&w);
    assert!(
        m.abs() < 2e-3 && (s - 2f64.sqrt() / 10.0).abs() < 2e-3,
        "{m} {s}"
    );
    // xavier_uniform_: a = √3·√(2/(100 + 2000))
    let x = Tensor::zeros([2000, 100]).unwrap();
    init::xavier_uniform_with_(&x, 1.0, Some(&g)).unwrap();
    let a = 3f64.sqrt() * (2.0 / 2100.0f64).sqrt();
    let (m, _, lo, hi) = stats(&x);
    assert!(m.abs() < 1e-3 && lo >= -a && hi < a && hi > 0.999 * a);
    // normal_ (float64 path, cached Box–Muller for a strided tensor)
    let y = Tensor::zeros_with([n, 2], DType::Float64)
        .unwrap()
        .t()
        .unwrap();
    init::normal_with_(&y, 3.0, 0.5, Some(&g)).unwrap();
    let (m, s, _, _) = stats(&y);
    assert!((m - 3.0).abs() < 5e-3 && (s - 0.5).abs() < 5e-3);
    // the same seed gives the same values
    let (p, q) = (Tensor::zeros([5]).unwrap(), Tensor::zeros([5]).unwrap());
    init::uniform_with_(
        &p,
        0.0,
        1.0,
        Some(&tensile::Generator::new().manual_seed(9)),
    )
    .unwrap();
    init::uniform_with_(
        &q,
        0.0,
        1.0,
        Some(&tensile::Generator::new().manual_seed(9)),
    )
    .unwrap();
    assert_exact("seeded", &p, &q);
    // ones_/zeros_/constant_ on a parameter (no_grad inside)
    let l = Linear::new(3, 2).unwrap();
    init::constant_(&l.weight, 0.25).unwrap();
    init::zeros_(l.bias.as_ref().unwrap()).unwrap();
    assert_eq!(l.weight.to_vec::<f32>(), vec![0.25; 6]);
    assert!(l.weight.requires_grad() && l.weight.is_leaf());
}

#[test]
fn clip_grad_norm_matches_pytorch() {
    for (i, c) in cases()["clip"].as_array().unwrap().iter().enumerate() {
        let ps: Vec<Tensor> = (0..3)
            .map(|j| {
                let g = t(&format!("clip{i}/gin{j}"));
                let p = Tensor::zeros(g.size())
                    .unwrap()
                    .requires_grad_(true)
                    .unwrap();
                p.set_grad(Some(g.clone())).unwrap();
                p
            })
            .collect();
        let max_norm = c["max_norm"].as_f64().unwrap();
        let norm_type = match &c["norm_type"] {
            Value::String(_) => f64::INFINITY,
            v => v.as_f64().unwrap(),
        };
        let total = clip_grad_norm_with_(&ps, max_norm, norm_type, false).unwrap();
        let want = c["total"].as_f64().unwrap();
        assert!(
            (total.item::<f32>().unwrap() as f64 - want).abs() <= 1e-6 * want,
            "clip{i}: total"
        );
        for (j, p) in ps.iter().enumerate() {
            assert_close(
                &format!("clip{i}: grad{j}"),
                &p.grad().unwrap(),
                &t(&format!("clip{i}/grad{j}")),
                1e-6,
            );
        }
    }
    // direct check: a known configuration
    let p1 = Tensor::zeros([2]).unwrap().requires_grad_(true).unwrap();
    let p2 = Tensor::zeros([1]).unwrap().requires_grad_(true).unwrap();
    p1.set_grad(Some(Tensor::from_vec(vec![3.0f32, 4.0], [2]).unwrap()))
        .unwrap();
    p2.set_grad(Some(Tensor::from_vec(vec![12.0f32], [1]).unwrap()))
        .unwrap();
    let no_grad = Tensor::zeros([3]).unwrap().requires_grad_(true).unwrap();
    let total = clip_grad_norm_(&[&p1, &p2, &no_grad], 1.0).unwrap();
    assert_eq!(total.item::<f32>().unwrap(), 13.0);
    let g = p1.grad().unwrap().to_vec::<f32>();
    let coef = (1.0f32 / (13.0f32 + 1e-6)) * 1.0;
    assert_eq!(g, vec![3.0 * coef, 4.0 * coef]);
    assert!(no_grad.grad().is_none());
    clip_grad_value_(&[&p1], 0.1).unwrap();
    assert!(p1.grad().unwrap().to_vec::<f32>().iter().all(|&x| x <= 0.1));
    let inf = Tensor::zeros([1]).unwrap().requires_grad_(true).unwrap();
    inf.set_grad(Some(Tensor::from_vec(vec![f32::INFINITY], [1]).unwrap()))
        .unwrap();
    assert_eq!(
        clip_grad_norm_with_(&[&inf], 1.0, 2.0, true)
            .unwrap_err()
            .to_string(),
        "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
    );
}

#[test]
fn constructor_and_forward_errors_match_pytorch() {
    let _l = seed_lock(); // builds modules: draws from the default generator
    let errs = cases()["layer_errors"].as_object().unwrap();
    let z = |s: &[usize]| Tensor::zeros(s).unwrap();
    let e = |r: tensile::Result<()>| r.unwrap_err();
    let conv = |i, o, c: ConvConfig| Conv2d::with(i, o, 3, c).map(|_| ());
    let got: Vec<(&str, tensile::Error)> = vec![
        (
            "conv_groups_in",
            e(conv(
                3,
                4,
                ConvConfig {
                    groups: 2,
                    ..Default::default()
                },
            )),
        ),
        (
            "conv_groups_out",
            e(conv(
                4,
                3,
                ConvConfig {
                    groups: 2,
                    ..Default::default()
                },
            )),
        ),
        (
            "conv_groups_zero",
            e(conv(
                4,
                4,
                ConvConfig {
                    groups: 0,
                    ..Default::default()
                },
            )),
        ),
        ("conv_same_strided", e(conv(4, 4, (2, "same").into()))),
        (
            "conv_padding_mode",
            e(conv(
                4,
                4,
                ConvConfig {
                    padding_mode: "mirror",
                    ..Default::default()
                },
            )),
        ),
        ("groupnorm_div", e(GroupNorm::new(3, 4).map(|_| ()))),
        ("dropout_p", e(Dropout::with(1.5, false).map(|_| ()))),
        ("mha_div", e(MultiheadAttention::new(6, 4).map(|_| ()))),
        ("mha_zero", e(MultiheadAttention::new(0, 2).map(|_| ()))),
        ("embedding_pad", e(Embedding::with(5, 2, 5).map(|_| ()))),
        ("lstm_hidden", e(LSTM::new(3, 0).map(|_| ()))),
        ("lstm_layers", e(LSTM::with(3, 2, 0).map(|_| ()))),
        (
            "lstm_dropout",
            e(LSTM::with(
                3,
                2,
                RnnConfig {
                    dropout: 2.0,
                    ..Default::default()
                },
            )
            .map(|_| ())),
        ),
        (
            "bn1d_dim",
            e(BatchNorm1d::new(3)
                .unwrap()
                .forward(&z(&[2, 3, 4, 5]))
                .map(|_| ())),
        ),
        (
            "bn2d_dim",
            e(BatchNorm2d::new(3)
                .unwrap()
                .forward(&z(&[2, 3, 4]))
                .map(|_| ())),
        ),
        (
            "bn_one_value",
            e(BatchNorm1d::new(3)
                .unwrap()
                .forward(&z(&[1, 3]))
                .map(|_| ())),
        ),
        (
            "lstm_input_dim",
            e(LSTM::new(3, 2)
                .unwrap()
                .forward(&z(&[2, 3, 4, 5]))
                .map(|_| ())),
        ),
        (
            "lstm_input_size",
            e(LSTM::new(3, 2).unwrap().forward(&z(&[4, 2, 5])).map(|_| ())),
        ),
        (
            "lstm_hidden_size",
            e(LSTM::with(3, 2, 2)
                .unwrap()
                .forward_with(&z(&[4, 2, 3]), Some((&z(&[1, 2, 2]), &z(&[2, 2, 2]))))
                .map(|_| ())),
        ),
        (
            "gru_hidden_size",
            e(GRU::new(3, 2)
                .unwrap()
                .forward_with(&z(&[4, 2, 3]), Some(&z(&[1, 3, 2])))
                .map(|_| ())),
        ),
        (
            "gru_input_dim",
            e(GRU::new(3, 2).unwrap().forward(&z(&[3])).map(|_| ())),
        ),
        (
            "mha_embed",
            e(MultiheadAttention::new(8, 2)
                .unwrap()
                .forward_qkv(&z(&[3, 2, 6]), &z(&[3, 2, 6]), &z(&[3, 2, 6]))
                .map(|_| ())),
        ),
        (
            "linear_shape",
            e(Linear::new(3, 2).unwrap().forward(&z(&[4, 5])).map(|_| ())),
        ),
    ];
    assert_eq!(got.len(), errs.len());
    for (name, err) in got {
        let want = &errs[name];
        assert_eq!(
            err.kind().name(),
            want[0].as_str().unwrap(),
            "{name}: class"
        );
        let text = want[1].as_str().unwrap();
        if name == "conv_padding_mode" {
            // PyTorch prints a Python set: its order changes from run to run
            let s = err.to_string();
            assert!(
                s.starts_with("padding_mode must be one of {")
                    && s.ends_with("but got padding_mode='mirror'"),
                "{s}"
            );
        } else {
            assert_eq!(err.to_string(), text, "{name}");
        }
    }
}

/// Tied weights (nanoGPT's `lm_head.weight = wte.weight`): PyTorch's `parameters()` and
/// `named_parameters()` list the shared parameter once, under its first name
/// (`remove_duplicate=True`), while `state_dict()` keeps both keys. In PyTorch 2.15:
/// `e = nn.Embedding(10, 4); l = nn.Linear(4, 10, bias=False); l.weight = e.weight;
/// m = nn.Sequential(e, l)` gives `[n for n, _ in m.named_parameters()] == ['0.weight']` and
/// `list(m.state_dict()) == ['0.weight', '1.weight']`.
#[test]
fn tied_parameters_are_listed_once() {
    let _g = seed_lock();
    tensile::manual_seed(0);
    let e = Embedding::new(10, 4).unwrap();
    let mut l = Linear::with(4, 10, false).unwrap();
    l.weight = e.weight.alias();
    let m = Sequential::new().append(e).append(l);
    let names: Vec<String> = m.named_parameters().into_iter().map(|(k, _)| k).collect();
    assert_eq!(names, ["0.weight"]);
    assert_eq!(m.parameters().len(), 1);
    assert_eq!(m.state_dict().keys(), ["0.weight", "1.weight"]);

    // the gradient of both uses lands on the one parameter, and clip_grad_norm_ counts it once
    let idx = Tensor::from_slice(&[1i64, 3, 3, 7], [4]).unwrap();
    let y = m.forward(&idx).unwrap();
    y.pow(2.0).unwrap().sum().unwrap().backward().unwrap();
    let params = m.parameters();
    let g = params[0].grad().unwrap();
    let want = g
        .pow(2.0)
        .unwrap()
        .sum()
        .unwrap()
        .sqrt()
        .unwrap()
        .item::<f32>()
        .unwrap();
    let total = clip_grad_norm_(&params, 1e9)
        .unwrap()
        .item::<f32>()
        .unwrap();
    assert!((total - want).abs() <= 1e-6 * want, "{total} vs {want}");

    // an untied copy of the same memory (a view) is another parameter
    let e2 = Embedding::new(10, 4).unwrap();
    let mut l2 = Linear::with(4, 10, false).unwrap();
    l2.weight = e2.weight.detach().requires_grad_(true).unwrap();
    let m2 = Sequential::new().append(e2).append(l2);
    assert_eq!(m2.parameters().len(), 2);
}
