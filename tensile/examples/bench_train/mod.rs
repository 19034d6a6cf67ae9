//! The autograd cases of the benchmark suite (mirrors `bench/train.py`, which documents them):
//! a training step's forward + backward (`mlp_fwd_bwd`, `bert_layer_fwd_bwd`, in µs per step)
//! and the cost of recording one op (`autograd_add_chain`, in ns per addition); the digits
//! CNN through `nn` modules (`cnn_module_fwd_bwd`), one optimizer step (`adamw_step`,
//! `sgd_momentum_step`) and a safetensors round trip in memory (`safetensors_roundtrip`), in µs.

use tensile::nn::Module;
use tensile::nn::functional::{self as f, ScaledDotProductAttentionOpts};
use tensile::optim::{AdamW, AdamWOpts, Optimizer, SGD, SgdOpts};
use tensile::{DType, Generator, Result, Tensor};

/// One case: a step to time, the number of ops a call makes, the unit of the reported value.
pub struct Case {
    pub name: &'static str,
    pub step: Box<dyn FnMut() -> Result<Tensor>>,
    pub ops_per_call: usize,
    pub unit: &'static str,
}

/// The case names, in report order.
pub const NAMES: [&str; 7] = [
    "mlp_fwd_bwd",
    "bert_layer_fwd_bwd",
    "autograd_add_chain",
    "cnn_module_fwd_bwd",
    "adamw_step",
    "sgd_momentum_step",
    "safetensors_roundtrip",
];

/// Uniform in `[-scale/2, scale/2)`, float32, optionally a leaf requiring grad.
fn rnd(shape: &[usize], seed: u64, scale: f64, grad: bool) -> Result<Tensor> {
    let t = Tensor::rand_with(shape, (&Generator::new().manual_seed(seed), DType::Float32))?
        .sub(0.5)?
        .mul(scale)?;
    if grad {
        t.requires_grad_(true)?;
    }
    Ok(t)
}

fn mlp() -> Result<Case> {
    let x = rnd(&[64, 512], 1, 1.0, false)?;
    let mut params = Vec::new();
    for i in 0..3u64 {
        params.push((
            rnd(&[512, 512], 10 + i, 0.1, true)?,
            rnd(&[512], 20 + i, 0.1, true)?,
        ));
    }
    let step = move || -> Result<Tensor> {
        for (w, b) in &params {
            w.set_grad(None)?;
            b.set_grad(None)?;
        }
        let mut h = x.alias();
        for (i, (w, b)) in params.iter().enumerate() {
            h = h.linear_with(w, Some(b))?;
            if i < 2 {
                h = h.relu()?;
            }
        }
        let loss = h.square()?.mean()?;
        loss.backward()?;
        Ok(loss)
    };
    Ok(Case {
        name: "mlp_fwd_bwd",
        step: Box::new(step),
        ops_per_call: 1,
        unit: "us",
    })
}

fn bert_layer() -> Result<Case> {
    let (b, s, h, nh, inter) = (8usize, 128usize, 384usize, 12usize, 1536usize);
    let hd = h / nh;
    let xb = rnd(&[b, s, h], 2, 1.0, false)?;
    let ln_w = |seed| -> Result<Tensor> {
        let w = rnd(&[h], seed, 0.1, false)?.add(1.0)?;
        w.requires_grad_(true)?;
        Ok(w)
    };
    let qkv_w = rnd(&[3 * h, h], 30, 0.1, true)?;
    let qkv_b = rnd(&[3 * h], 31, 0.1, true)?;
    let o_w = rnd(&[h, h], 32, 0.1, true)?;
    let o_b = rnd(&[h], 33, 0.1, true)?;
    let ln1_w = ln_w(34)?;
    let ln1_b = rnd(&[h], 35, 0.1, true)?;
    let i_w = rnd(&[inter, h], 36, 0.1, true)?;
    let i_b = rnd(&[inter], 37, 0.1, true)?;
    let f_w = rnd(&[h, inter], 38, 0.1, true)?;
    let f_b = rnd(&[h], 39, 0.1, true)?;
    let ln2_w = ln_w(40)?;
    let ln2_b = rnd(&[h], 41, 0.1, true)?;
    let step = move || -> Result<Tensor> {
        for p in [
            &qkv_w, &qkv_b, &o_w, &o_b, &ln1_w, &ln1_b, &i_w, &i_b, &f_w, &f_b, &ln2_w, &ln2_b,
        ] {
            p.set_grad(None)?;
        }
        let qkv = xb
            .linear_with(&qkv_w, Some(&qkv_b))?
            .view([b, s, 3, nh, hd])?
            .permute([2, 0, 3, 1, 4])?;
        let (q, k, v) = (qkv.select(0, 0)?, qkv.select(0, 1)?, qkv.select(0, 2)?);
        let ctx = f::scaled_dot_product_attention_with(
            &q,
            &k,
            &v,
            ScaledDotProductAttentionOpts::default(),
        )?;
        let ctx = ctx.permute([0, 2, 1, 3])?.reshape([b, s, h])?;
        let a = ctx.linear_with(&o_w, Some(&o_b))?.add(&xb)?;
        let a = a.layer_norm_with([h], (Some(&ln1_w), Some(&ln1_b), 1e-12))?;
        let ff = a.linear_with(&i_w, Some(&i_b))?.gelu()?;
        let o = ff.linear_with(&f_w, Some(&f_b))?.add(&a)?;
        let o = o.layer_norm_with([h], (Some(&ln2_w), Some(&ln2_b), 1e-12))?;
        let loss = o.square()?.mean()?;
        loss.backward()?;
        Ok(loss)
    };
    Ok(Case {
        name: "bert_layer_fwd_bwd",
        step: Box::new(step),
        ops_per_call: 1,
        unit: "us",
    })
}

fn add_chain() -> Result<Case> {
    let leaf = rnd(&[3], 3, 1.0, true)?;
    let c = rnd(&[3], 4, 1.0, false)?;
    let step = move || -> Result<Tensor> {
        let mut y = leaf.alias();
        for _ in 0..100 {
            y = y.add(&c)?;
        }
        Ok(y)
    };
    Ok(Case {
        name: "autograd_add_chain",
        step: Box::new(step),
        ops_per_call: 100,
        unit: "ns",
    })
}

fn cnn_module() -> Result<Case> {
    tensile::manual_seed(0);
    let cnn = crate::train_digits::build_model(crate::train_digits::ModelKind::Cnn)?;
    let x = rnd(&[32, 1, 8, 8], 5, 1.0, false)?.add(0.5)?;
    let y = Tensor::arange(32i64)?.mul(7)?.remainder(10)?;
    let step = move || -> Result<Tensor> {
        cnn.zero_grad()?;
        let loss = f::cross_entropy(&cnn.forward(&x)?, &y)?;
        loss.backward()?;
        Ok(loss)
    };
    Ok(Case {
        name: "cnn_module_fwd_bwd",
        step: Box::new(step),
        ops_per_call: 1,
        unit: "us",
    })
}

/// The MLP's parameter shapes, as leaves with a gradient set.
fn mlp_params_with_grads() -> Result<Vec<Tensor>> {
    let mut out = Vec::new();
    for i in 0..3u64 {
        for shape in [&[512usize, 512][..], &[512][..]] {
            let p = rnd(shape, 30 + i, 0.1, true)?;
            p.set_grad(Some(rnd(shape, 40 + i, 0.01, false)?))?;
            out.push(p);
        }
    }
    Ok(out)
}

fn optimizer_step(name: &'static str) -> Result<Case> {
    let params = mlp_params_with_grads()?;
    let first = params[0].alias();
    let ps = params.iter().map(|p| p.alias());
    let mut opt: Box<dyn Optimizer> = if name == "adamw_step" {
        Box::new(AdamW::new_with(
            ps,
            AdamWOpts {
                lr: 1e-3,
                weight_decay: 0.01,
                ..Default::default()
            },
        )?)
    } else {
        Box::new(SGD::new_with(
            ps,
            SgdOpts {
                lr: 0.05,
                momentum: 0.9,
                ..Default::default()
            },
        )?)
    };
    let step = move || -> Result<Tensor> {
        opt.step()?;
        Ok(first.alias())
    };
    Ok(Case {
        name,
        step: Box::new(step),
        ops_per_call: 1,
        unit: "us",
    })
}

fn safetensors_roundtrip() -> Result<Case> {
    let named: Vec<(String, Tensor)> = mlp_params_with_grads()?
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("p{i}"), p.detach()))
        .collect();
    let step = move || -> Result<Tensor> {
        let bytes = tensile::io::safetensors::save_bytes(&named)?;
        let mut back = tensile::io::safetensors::load_bytes(&bytes)?;
        Ok(back.swap_remove(0).1)
    };
    Ok(Case {
        name: "safetensors_roundtrip",
        step: Box::new(step),
        ops_per_call: 1,
        unit: "us",
    })
}

/// Builds the case `name` (one of [`NAMES`]).
pub fn build(name: &str) -> Result<Case> {
    match name {
        "mlp_fwd_bwd" => mlp(),
        "bert_layer_fwd_bwd" => bert_layer(),
        "cnn_module_fwd_bwd" => cnn_module(),
        "adamw_step" | "sgd_momentum_step" => optimizer_step(if name == "adamw_step" {
            "adamw_step"
        } else {
            "sgd_momentum_step"
        }),
        "safetensors_roundtrip" => safetensors_roundtrip(),
        _ => add_chain(),
    }
}
