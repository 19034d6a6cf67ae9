//! The optimizers in a real training loop: the two models of the `train_digits` example
//! (the MLP `Linear(64,128), ReLU, Linear(128,10)` and the CNN, written with `F::linear`,
//! `F::conv2d`, `F::max_pool2d`, `F::relu`), each trained for 40 steps without shuffling
//! from PyTorch's initial weights, with AdamW and SGD; every loss within 1e-5 relative of
//! PyTorch's (`tests/data/train_digits/`, made by
//! `scripts/make_train_reference.py`).
//!
//! The data set is fetched on first use by `scripts/fetch_digits.py` (pip download of the
//! scikit-learn wheel into `.cache/datasets/`). When it cannot be fetched the test is skipped
//! with a loud message, unless `TENSILE_REQUIRE_DIGITS=1`, which makes that a failure.

use serde_json::Value;
use std::path::{Path, PathBuf};
use tensile::Tensor;
use tensile::nn::functional as F;
use tensile::optim::{AdamW, AdamWOpts, Optimizer, SGD, SgdOpts};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The digits CSV, fetched if needed; `None` (after a loud message) when it cannot be.
fn digits() -> Option<String> {
    let csv = root().join(".cache/datasets/digits.csv");
    if !csv.is_file() {
        let py = std::env::var("TENSILE_PYTHON").unwrap_or_else(|_| "python3".into());
        let out = std::process::Command::new(&py)
            .arg(root().join("scripts/fetch_digits.py"))
            .output();
        let ok = out.as_ref().is_ok_and(|o| o.status.success());
        if !ok {
            let why = match &out {
                Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                Err(e) => e.to_string(),
            };
            if std::env::var("TENSILE_REQUIRE_DIGITS").is_ok_and(|v| v == "1") {
                panic!("the digits data set could not be fetched: {why}");
            }
            eprintln!("\n{}", "!".repeat(100));
            eprintln!("!!! SKIPPED: the training comparison with PyTorch did not run.");
            eprintln!("!!! scripts/fetch_digits.py failed: {}", why.trim());
            eprintln!("{}\n", "!".repeat(100));
            return None;
        }
    }
    Some(std::fs::read_to_string(csv).unwrap())
}

fn load_init(name: &str) -> Vec<(String, Tensor)> {
    let path = root().join(format!(
        "tensile/tests/data/train_digits/{name}_init.safetensors"
    ));
    let bytes = std::fs::read(path).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut out = Vec::new();
    for (k, v) in st.tensors() {
        assert_eq!(v.dtype(), safetensors::Dtype::F32);
        let data: Vec<f32> = v
            .data()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        out.push((k, Tensor::from_vec(data, v.shape()).unwrap()));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The model's forward on a batch `x` of shape `(N, 64)`; `p` are the parameters in the
/// order of their sorted state-dict keys.
fn forward(model: &str, x: &Tensor, p: &[Tensor]) -> Tensor {
    match model {
        // 0.bias, 0.weight, 2.bias, 2.weight
        "mlp" => {
            let h = F::relu(&F::linear_with(x, &p[1], &p[0]).unwrap()).unwrap();
            F::linear_with(&h, &p[3], &p[2]).unwrap()
        }
        // 0.*, 3.* (Conv2d), 6.* (Linear)
        _ => {
            let x = x.reshape([-1i64, 1, 8, 8]).unwrap();
            let h = F::relu(&F::conv2d_with(&x, &p[1], (&p[0], 1, 1)).unwrap()).unwrap();
            let h = F::max_pool2d(&h, 2).unwrap();
            let h = F::relu(&F::conv2d_with(&h, &p[3], (&p[2], 1, 1)).unwrap()).unwrap();
            F::linear_with(&h.flatten_with(1).unwrap(), &p[5], &p[4]).unwrap()
        }
    }
}

#[test]
fn models_train_as_pytorch_for_40_steps() {
    let Some(csv) = digits() else { return };
    let rows: Vec<Vec<f64>> = csv
        .trim()
        .lines()
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 1797);
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(
            root().join("tensile/tests/data/train_digits/reference_losses.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let (batch, train) = (32usize, 1500usize);
    for model in ["mlp", "cnn"] {
        let mut worst = 0f64;
        for opt_name in ["adamw", "sgd"] {
            let params: Vec<Tensor> = load_init(model)
                .into_iter()
                .map(|(_, t)| t.requires_grad_(true).unwrap())
                .collect();
            let ps = || params.iter().map(|p| p.alias());
            let mut opt: Box<dyn Optimizer> = match opt_name {
                "adamw" => Box::new(
                    AdamW::new_with(
                        ps(),
                        AdamWOpts {
                            lr: 1e-3,
                            weight_decay: 0.01,
                            ..Default::default()
                        },
                    )
                    .unwrap(),
                ),
                _ => Box::new(
                    SGD::new_with(
                        ps(),
                        SgdOpts {
                            lr: 0.05,
                            momentum: 0.9,
                            ..Default::default()
                        },
                    )
                    .unwrap(),
                ),
            };
            let want: Vec<f64> = reference["losses"][format!("{model}/{opt_name}")]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            assert_eq!(want.len(), 40);
            for (step, &w) in want.iter().enumerate() {
                let start = (step * batch) % train;
                let end = (start + batch).min(train);
                let xs: Vec<f32> = rows[start..end]
                    .iter()
                    .flat_map(|r| r[..64].iter().map(|&v| (v / 16.0) as f32))
                    .collect();
                let ys: Vec<i64> = rows[start..end].iter().map(|r| r[64] as i64).collect();
                let x = Tensor::from_vec(xs, [end - start, 64]).unwrap();
                let y = Tensor::from_vec(ys, [end - start]).unwrap();
                opt.zero_grad().unwrap();
                let loss = F::cross_entropy(&forward(model, &x, &params), &y).unwrap();
                loss.backward().unwrap();
                opt.step().unwrap();
                let got = loss.item::<f32>().unwrap() as f64;
                let rel = ((got - w) / w).abs();
                worst = worst.max(rel);
                assert!(
                    rel <= 1e-5,
                    "{model}/{opt_name} step {step}: {got} vs PyTorch's {w} ({rel:e})"
                );
            }
        }
        eprintln!(
            "{model}, 40 steps, AdamW and SGD: largest relative loss difference to PyTorch {worst:e}"
        );
    }
}
