//! all-MiniLM-L6-v2 sentence embeddings with candle-transformers' BERT, for
//! `bench/minilm_compare.py`.
//!
//! ```text
//! candle_minilm --model DIR --file SENTENCES [--threads N] [--bench-batch 1,32] [--reps 10]
//!               [--warmup 2] [--json]
//! ```
//!
//! The same pipeline as sentence-transformers (and tensile's `embed` example): tokenize with
//! the model's `tokenizer.json` (`[CLS] … [SEP]`, truncated to `max_seq_length`, each batch
//! padded to its longest sentence), BERT forward, mean pooling over the attention mask, L2
//! normalisation. Tokenization happens once per batch size, outside the timing.
//!
//! Prints, per batch size B, `minilm_b<B> <threads> <median seconds> <sentences per second>`
//! on stdout and `#tokens minilm_b<B> <real tokens> <positions with padding>` on stderr, as
//! `embed --bench` does. With `--json` it prints instead the embeddings of all sentences
//! (batches of 32) as one JSON list of lists.

use std::path::PathBuf;
use std::time::Instant;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

struct Args {
    model: PathBuf,
    file: PathBuf,
    threads: Option<usize>,
    batches: Vec<usize>,
    reps: usize,
    warmup: usize,
    json: bool,
}

fn parse_args() -> Result<Args> {
    let mut a = Args {
        model: PathBuf::new(),
        file: PathBuf::new(),
        threads: None,
        batches: vec![1, 32],
        reps: 10,
        warmup: 2,
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} expects a value"));
        match arg.as_str() {
            "--model" => a.model = PathBuf::from(value()?),
            "--file" => a.file = PathBuf::from(value()?),
            "--threads" => a.threads = Some(value()?.parse()?),
            "--bench-batch" => {
                a.batches = value()?
                    .split(',')
                    .map(|x| x.trim().parse())
                    .collect::<std::result::Result<_, _>>()?
            }
            "--reps" => a.reps = value()?.parse()?,
            "--warmup" => a.warmup = value()?.parse()?,
            "--json" => a.json = true,
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    if a.model.as_os_str().is_empty() || a.file.as_os_str().is_empty() {
        return Err("--model DIR and --file SENTENCES are required".into());
    }
    Ok(a)
}

/// One tokenized batch: ids, token types and attention mask, each `(B, S)` u32.
struct Batch {
    ids: Tensor,
    types: Tensor,
    mask: Tensor,
    real: usize,
    padded: usize,
}

fn read_json(path: &std::path::Path) -> Result<serde_json::Value> {
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

struct Embedder {
    model: BertModel,
    tokenizer: Tokenizer,
    lower: bool,
}

impl Embedder {
    fn load(dir: &std::path::Path) -> Result<Embedder> {
        let config: Config = serde_json::from_value(read_json(&dir.join("config.json"))?)?;
        let st = read_json(&dir.join("sentence_bert_config.json"))?;
        let max_len = st["max_seq_length"].as_u64().unwrap_or(256) as usize;
        let lower = st["do_lower_case"].as_bool().unwrap_or(false);
        let mut tokenizer =
            Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| e.to_string())?;
        let pad_id = tokenizer.token_to_id("[PAD]").unwrap_or(0);
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            pad_id,
            pad_token: "[PAD]".to_string(),
            ..Default::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_len,
                ..Default::default()
            }))
            .map_err(|e| e.to_string())?;
        let weights = dir.join("model.safetensors");
        // SAFETY: the file is not modified while the program runs.
        let vb =
            unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DType::F32, &Device::Cpu)? };
        let model = BertModel::load(vb, &config)?;
        Ok(Embedder {
            model,
            tokenizer,
            lower,
        })
    }

    fn tokenize(&self, sentences: &[String]) -> Result<Batch> {
        let owned: Vec<String> = if self.lower {
            sentences.iter().map(|s| s.to_lowercase()).collect()
        } else {
            sentences.to_vec()
        };
        let enc = self
            .tokenizer
            .encode_batch(owned, true)
            .map_err(|e| e.to_string())?;
        let (b, s) = (enc.len(), enc[0].get_ids().len());
        let mut ids = Vec::with_capacity(b * s);
        let mut types = Vec::with_capacity(b * s);
        let mut mask = Vec::with_capacity(b * s);
        for e in &enc {
            ids.extend_from_slice(e.get_ids());
            types.extend_from_slice(e.get_type_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let real = mask.iter().filter(|&&m| m != 0).count();
        Ok(Batch {
            ids: Tensor::from_vec(ids, (b, s), &Device::Cpu)?,
            types: Tensor::from_vec(types, (b, s), &Device::Cpu)?,
            mask: Tensor::from_vec(mask, (b, s), &Device::Cpu)?,
            real,
            padded: b * s,
        })
    }

    /// BERT forward, mean pooling over the mask, L2 normalisation: `(B, hidden)`.
    fn forward(&self, batch: &Batch) -> Result<Tensor> {
        let x = self
            .model
            .forward(&batch.ids, &batch.types, Some(&batch.mask))?; // (B, S, H)
        let m = batch.mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (B, S, 1)
        let summed = x.broadcast_mul(&m)?.sum(1)?; // (B, H)
        let count = m.sum(1)?.clamp(1e-9f32, f32::MAX)?; // (B, 1)
        let pooled = summed.broadcast_div(&count)?;
        let norm = pooled
            .sqr()?
            .sum_keepdim(1)?
            .sqrt()?
            .clamp(1e-12f32, f32::MAX)?;
        Ok(pooled.broadcast_div(&norm)?)
    }
}

fn main() -> Result<()> {
    let args = parse_args()?;
    if let Some(n) = args.threads {
        // candle's CPU matmul reads RAYON_NUM_THREADS for its thread count; set before any
        // thread starts.
        std::env::set_var("RAYON_NUM_THREADS", n.to_string());
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .ok();
    }
    let threads = candle_core::utils::get_num_threads();
    let sentences: Vec<String> = std::fs::read_to_string(&args.file)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let t0 = Instant::now();
    let emb = Embedder::load(&args.model)?;
    eprintln!(
        "# candle model loaded in {:.3} s",
        t0.elapsed().as_secs_f64()
    );
    if args.json {
        let mut rows = Vec::new();
        for chunk in sentences.chunks(32) {
            let e = emb.forward(&emb.tokenize(chunk)?)?;
            rows.extend(e.to_vec2::<f32>()?);
        }
        println!("{}", serde_json::to_string(&rows)?);
        return Ok(());
    }
    for &b in &args.batches {
        let batches = sentences
            .chunks(b.max(1))
            .map(|c| emb.tokenize(c))
            .collect::<Result<Vec<_>>>()?;
        let real: usize = batches.iter().map(|x| x.real).sum();
        let padded: usize = batches.iter().map(|x| x.padded).sum();
        eprintln!("#tokens minilm_b{b} {real} {padded}");
        let mut times = Vec::with_capacity(args.reps);
        for r in 0..args.warmup + args.reps {
            let t = Instant::now();
            for x in &batches {
                std::hint::black_box(emb.forward(x)?);
            }
            if r >= args.warmup {
                times.push(t.elapsed().as_secs_f64());
            }
        }
        times.sort_by(f64::total_cmp);
        let med = times[times.len() / 2];
        println!(
            "minilm_b{b} {threads} {med:.6} {:.3}",
            sentences.len() as f64 / med
        );
    }
    Ok(())
}
