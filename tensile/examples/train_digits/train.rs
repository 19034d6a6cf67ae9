//! The training loop of the `train_digits` example: command line, data, models, loop.
//!
//! Kept apart from `main.rs` (which adds the progress bar and the plot) so that
//! `tests/train_digits.rs` runs exactly this code, through the same command line, against
//! PyTorch's losses. It uses only `tensile` and `std`.
//!
//! What it mirrors, in PyTorch (`bench/train_compare.py` has it written out):
//!
//! ```python
//! torch.manual_seed(seed)                      # or model.load_state_dict(load_file(init))
//! model = nn.Sequential(...)                   # the --model's layers
//! opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
//! g = torch.Generator().manual_seed(seed)
//! loader = DataLoader(TensorDataset(x[:1500], y[:1500]), batch_size=batch_size,
//!                     shuffle=True, generator=g)   # shuffle=False with --no-shuffle
//! for epoch in range(epochs):
//!     for xb, yb in loader:
//!         opt.zero_grad()
//!         loss = F.cross_entropy(model(xb), yb)
//!         loss.backward()
//!         opt.step()
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use tensile::data::{DataLoader, DataLoaderOpts, TensorDataset};
use tensile::nn::functional as F;
use tensile::nn::{Conv2d, Flatten, Linear, MaxPool2d, Module, ReLU, Sequential, StateDict};
use tensile::optim::{AdamW, AdamWOpts, Optimizer, SGD, SgdOpts};
use tensile::{Generator, Tensor};

/// The command-line help.
pub const USAGE: &str = "\
Trains a small network on the UCI handwritten digits (8x8 images, 10 classes) with tensile.

usage: train_digits [OPTIONS]

options:
  --model mlp|cnn          mlp: Linear(64,128), ReLU, Linear(128,10);
                           cnn (default): Conv2d(1,16,3,padding=1), ReLU, MaxPool2d(2),
                           Conv2d(16,32,3,padding=1), ReLU, Flatten, Linear(512,10)
  --optimizer adamw|sgd    adamw (default: lr 1e-3, weight_decay 0.01) or sgd (lr 0.05,
                           momentum 0.9)
  --lr LR                  learning rate instead of the optimizer's default
  --epochs N               passes over the 1,500 training rows (default 10)
  --batch-size N           rows per step (default 32; the last batch of an epoch is smaller)
  --no-shuffle             take the batches in row order (default: a seeded shuffle each epoch,
                           DataLoader(..., shuffle=True, generator=g) with g seeded by --seed)
  --seed N                 seeds the initial weights (torch.manual_seed) and the shuffle
                           (default 0)
  --init FILE.safetensors  initial weights, e.g. saved from PyTorch with
                           safetensors.torch.save_file(model.state_dict(), FILE)
  --save FILE.safetensors  write the trained weights (PyTorch's state-dict keys)
  --steps N                stop after N steps in all (default: every step of every epoch)
  --threads N              threads tensile may use (default: one per core)
  --data FILE.csv          the digits CSV (default: .cache/datasets/digits.csv in the
                           repository, fetched by scripts/fetch_digits.py when missing)
  --json                   print one JSON object instead of the progress display:
                           {\"losses\": [...], \"train_accuracy\": a, \"test_accuracy\": b,
                            \"steps\": n, \"steps_per_second\": s}
  --plot FILE.png          draw the loss curve
  -h, --help               this text
";

/// The rows used for training; the rest (1500..1797) are the test set.
pub const TRAIN_ROWS: usize = 1500;

/// Which network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    Mlp,
    Cnn,
}

/// Which optimizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimizerKind {
    AdamW,
    Sgd,
}

/// The parsed command line.
#[derive(Clone, Debug)]
pub struct Opts {
    pub model: ModelKind,
    pub optimizer: OptimizerKind,
    pub lr: Option<f64>,
    pub epochs: usize,
    pub batch_size: usize,
    pub shuffle: bool,
    pub seed: u64,
    pub init: Option<PathBuf>,
    pub save: Option<PathBuf>,
    pub steps: Option<usize>,
    pub threads: Option<usize>,
    pub data: Option<PathBuf>,
    pub json: bool,
    pub plot: Option<PathBuf>,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            model: ModelKind::Cnn,
            optimizer: OptimizerKind::AdamW,
            lr: None,
            epochs: 10,
            batch_size: 32,
            shuffle: true,
            seed: 0,
            init: None,
            save: None,
            steps: None,
            threads: None,
            data: None,
            json: false,
            plot: None,
        }
    }
}

/// Parses the arguments after the program name; `Ok(None)` for `--help`.
pub fn parse_args<I, S>(args: I) -> Result<Option<Opts>, String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut o = Opts::default();
    let mut it = args.into_iter().map(Into::into);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--model" => {
                o.model = match value("--model")?.as_str() {
                    "mlp" => ModelKind::Mlp,
                    "cnn" => ModelKind::Cnn,
                    v => return Err(format!("--model: expected mlp or cnn, got '{v}'")),
                }
            }
            "--optimizer" => {
                o.optimizer = match value("--optimizer")?.as_str() {
                    "adamw" => OptimizerKind::AdamW,
                    "sgd" => OptimizerKind::Sgd,
                    v => return Err(format!("--optimizer: expected adamw or sgd, got '{v}'")),
                }
            }
            "--lr" => o.lr = Some(number(&a, &value("--lr")?)?),
            "--epochs" => o.epochs = number(&a, &value("--epochs")?)?,
            "--batch-size" => {
                o.batch_size = number(&a, &value("--batch-size")?)?;
                if o.batch_size == 0 {
                    return Err("--batch-size must be at least 1".into());
                }
            }
            "--no-shuffle" => o.shuffle = false,
            "--seed" => o.seed = number(&a, &value("--seed")?)?,
            "--init" => o.init = Some(value("--init")?.into()),
            "--save" => o.save = Some(value("--save")?.into()),
            "--steps" => o.steps = Some(number(&a, &value("--steps")?)?),
            "--threads" => o.threads = Some(number(&a, &value("--threads")?)?),
            "--data" => o.data = Some(value("--data")?.into()),
            "--json" => o.json = true,
            "--plot" => o.plot = Some(value("--plot")?.into()),
            _ => return Err(format!("unknown argument '{a}' (see --help)")),
        }
    }
    Ok(Some(o))
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{flag}: '{v}' is not a valid number"))
}

/// The repository's root (the example lives in `tensile/examples/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The data set: 1,797 rows of 64 features divided by 16, and the labels.
pub struct Digits {
    /// Row-major `(1797, 64)`, values in [0, 1].
    pub x: Vec<f32>,
    /// The labels 0–9.
    pub y: Vec<i64>,
}

impl Digits {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// The rows `idx` as a float32 `(len, 64)` input and an int64 `(len,)` target.
    pub fn batch(&self, idx: &[usize]) -> tensile::Result<(Tensor, Tensor)> {
        let mut x = Vec::with_capacity(idx.len() * 64);
        for &i in idx {
            x.extend_from_slice(&self.x[i * 64..(i + 1) * 64]);
        }
        let y = idx.iter().map(|&i| self.y[i]).collect();
        Ok((
            Tensor::from_vec(x, [idx.len(), 64])?,
            Tensor::from_vec(y, [idx.len()])?,
        ))
    }
}

/// Reads the digits CSV (`path`, or the repository's cache, fetched with
/// `scripts/fetch_digits.py` on first use).
pub fn load_digits(path: Option<&Path>) -> Result<Digits, String> {
    let csv = match path {
        Some(p) => p.to_path_buf(),
        None => {
            let csv = repo_root().join(".cache/datasets/digits.csv");
            if !csv.is_file() {
                fetch_digits()?;
            }
            csv
        }
    };
    let text = std::fs::read_to_string(&csv).map_err(|e| format!("{}: {e}", csv.display()))?;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let vals: Vec<&str> = line.trim().split(',').collect();
        let bad = || format!("{}: row {i} is not 64 features and a label", csv.display());
        if vals.len() != 65 {
            return Err(bad());
        }
        for v in &vals[..64] {
            let f: f32 = v.trim().parse().map_err(|_| bad())?;
            x.push(f / 16.0);
        }
        let label: f64 = vals[64].trim().parse().map_err(|_| bad())?;
        if !(0.0..=9.0).contains(&label) || label.fract() != 0.0 {
            return Err(bad());
        }
        y.push(label as i64);
    }
    if y.len() <= TRAIN_ROWS {
        return Err(format!(
            "{}: {} rows, expected more than {TRAIN_ROWS}",
            csv.display(),
            y.len()
        ));
    }
    Ok(Digits { x, y })
}

fn fetch_digits() -> Result<(), String> {
    let py = std::env::var("TENSILE_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = repo_root().join("scripts/fetch_digits.py");
    let out = std::process::Command::new(&py)
        .arg(&script)
        .output()
        .map_err(|e| format!("could not run {py} {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// The network, with PyTorch's default initialisation drawn from the default generator
/// (reseed it with `tensile::manual_seed` first for PyTorch's weights).
pub fn build_model(kind: ModelKind) -> tensile::Result<Sequential> {
    Ok(match kind {
        ModelKind::Mlp => Sequential::new()
            .append(Linear::new(64, 128)?)
            .append(ReLU::new())
            .append(Linear::new(128, 10)?),
        ModelKind::Cnn => Sequential::new()
            .append(Conv2d::with(1, 16, 3, 1)?)
            .append(ReLU::new())
            .append(MaxPool2d::new(2))
            .append(Conv2d::with(16, 32, 3, 1)?)
            .append(ReLU::new())
            .append(Flatten::new())
            .append(Linear::new(512, 10)?),
    })
}

/// The model's logits for a `(N, 64)` batch (the CNN sees it as `(N, 1, 8, 8)`).
pub fn forward(kind: ModelKind, model: &Sequential, x: &Tensor) -> tensile::Result<Tensor> {
    match kind {
        ModelKind::Mlp => model.forward(x),
        ModelKind::Cnn => model.forward(&x.reshape([-1i64, 1, 8, 8])?),
    }
}

/// `DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, generator=g)` with `g`
/// seeded by `seed`: PyTorch's batches, in PyTorch's order for the same seed (each pass
/// draws its base seed from `g`, then its `torch.randperm` when shuffling).
pub fn loader(
    dataset: TensorDataset,
    batch_size: usize,
    shuffle: bool,
    seed: u64,
) -> tensile::Result<DataLoader<Vec<Tensor>, Vec<Tensor>>> {
    DataLoader::new_with(
        dataset,
        DataLoaderOpts {
            batch_size: Some(batch_size),
            shuffle,
            generator: Some(Generator::new().manual_seed(seed)),
            ..Default::default()
        },
    )
}

/// What the loop reports as it goes.
pub enum Event {
    /// An epoch starts (`epoch` from 0) with `steps` steps.
    EpochStart { epoch: usize, steps: usize },
    /// A step ended: its loss, and how many of its `rows` the model got right.
    Step {
        loss: f64,
        correct: usize,
        rows: usize,
    },
    /// An epoch ended, with the accuracies after it.
    EpochEnd {
        epoch: usize,
        train_accuracy: f64,
        test_accuracy: f64,
    },
}

/// The outcome of a run.
pub struct Report {
    /// The trained network.
    pub model: Sequential,
    /// The loss of each step's forward, in order.
    pub losses: Vec<f64>,
    /// Accuracy on the training rows after the last step (evaluation mode).
    pub train_accuracy: f64,
    /// Accuracy on the test rows after the last step.
    pub test_accuracy: f64,
    /// Wall time of the steps alone (no evaluation), in seconds.
    pub train_seconds: f64,
}

/// Accuracy of `model` on the rows `range`, in evaluation mode without recording.
pub fn accuracy(
    kind: ModelKind,
    model: &Sequential,
    data: &Digits,
    range: std::ops::Range<usize>,
) -> tensile::Result<f64> {
    let _g = tensile::no_grad();
    model.eval();
    let idx: Vec<usize> = range.collect();
    let (x, y) = data.batch(&idx)?;
    let logits = forward(kind, model, &x)?;
    model.train();
    Ok(correct(&logits, &y)? as f64 / idx.len().max(1) as f64)
}

fn correct(logits: &Tensor, y: &Tensor) -> tensile::Result<usize> {
    let pred = logits.argmax_dim(1, false)?.to_vec::<i64>();
    Ok(pred
        .iter()
        .zip(y.to_vec::<i64>())
        .filter(|(p, t)| **p == *t)
        .count())
}

/// Trains as `opts` says, calling `on_event` as it goes.
pub fn train(
    opts: &Opts,
    data: &Digits,
    on_event: &mut dyn FnMut(Event),
) -> Result<Report, String> {
    let e = |e: tensile::Error| e.to_string();
    tensile::manual_seed(opts.seed);
    let model = build_model(opts.model).map_err(e)?;
    if let Some(init) = &opts.init {
        let tensors = tensile::io::safetensors::load(init).map_err(e)?;
        model
            .load_state_dict(&StateDict::from(tensors), true)
            .map_err(|err| format!("{}: {err}", init.display()))?;
    }
    let params = model.parameters();
    let mut opt: Box<dyn Optimizer> = match opts.optimizer {
        OptimizerKind::AdamW => Box::new(
            AdamW::new_with(
                params,
                AdamWOpts {
                    lr: opts.lr.unwrap_or(1e-3),
                    weight_decay: 0.01,
                    ..Default::default()
                },
            )
            .map_err(e)?,
        ),
        OptimizerKind::Sgd => Box::new(
            SGD::new_with(
                params,
                SgdOpts {
                    lr: opts.lr.unwrap_or(0.05),
                    momentum: 0.9,
                    ..Default::default()
                },
            )
            .map_err(e)?,
        ),
    };
    let (x, y) = data
        .batch(&(0..TRAIN_ROWS).collect::<Vec<_>>())
        .map_err(e)?;
    let batches = loader(
        TensorDataset::new(&[x, y]).map_err(e)?,
        opts.batch_size,
        opts.shuffle,
        opts.seed,
    )
    .map_err(e)?;
    let max_steps = opts.steps.unwrap_or(usize::MAX);
    let steps_per_epoch = TRAIN_ROWS.div_ceil(opts.batch_size);
    let mut losses = Vec::new();
    let mut train_seconds = 0.0;
    model.train();
    'epochs: for epoch in 0..opts.epochs {
        if losses.len() == max_steps {
            break;
        }
        let steps = steps_per_epoch.min(max_steps - losses.len());
        on_event(Event::EpochStart { epoch, steps });
        let mut pass = batches.iter().map_err(e)?;
        loop {
            if losses.len() == max_steps {
                break 'epochs;
            }
            // the batch's assembly counts as training time, as before the loader
            let t0 = Instant::now();
            let Some(batch) = pass.next() else { break };
            let batch = batch.map_err(e)?;
            let (x, y) = (&batch[0], &batch[1]);
            opt.zero_grad().map_err(e)?;
            let logits = forward(opts.model, &model, x).map_err(e)?;
            let loss = F::cross_entropy(&logits, y).map_err(e)?;
            loss.backward().map_err(e)?;
            opt.step().map_err(e)?;
            let loss = loss.item::<f32>().map_err(e)? as f64;
            train_seconds += t0.elapsed().as_secs_f64();
            let right = {
                let _g = tensile::no_grad();
                correct(&logits.detach(), y).map_err(e)?
            };
            losses.push(loss);
            on_event(Event::Step {
                loss,
                correct: right,
                rows: y.numel(),
            });
        }
        on_event(Event::EpochEnd {
            epoch,
            train_accuracy: accuracy(opts.model, &model, data, 0..TRAIN_ROWS).map_err(e)?,
            test_accuracy: accuracy(opts.model, &model, data, TRAIN_ROWS..data.len()).map_err(e)?,
        });
    }
    let train_accuracy = accuracy(opts.model, &model, data, 0..TRAIN_ROWS).map_err(e)?;
    let test_accuracy = accuracy(opts.model, &model, data, TRAIN_ROWS..data.len()).map_err(e)?;
    if let Some(path) = &opts.save {
        let sd = model.state_dict().into_vec();
        tensile::io::safetensors::save(&sd, path).map_err(e)?;
    }
    Ok(Report {
        model,
        losses,
        train_accuracy,
        test_accuracy,
        train_seconds,
    })
}

/// The `--json` object (non-finite numbers as `null`).
pub fn json(report: &Report) -> String {
    let num = |v: f64| {
        if v.is_finite() {
            format!("{v}")
        } else {
            "null".into()
        }
    };
    let losses: Vec<String> = report.losses.iter().map(|&v| num(v)).collect();
    let sps = report.losses.len() as f64 / report.train_seconds.max(1e-12);
    format!(
        "{{\"losses\": [{}], \"train_accuracy\": {}, \"test_accuracy\": {}, \"steps\": {}, \"steps_per_second\": {}}}",
        losses.join(", "),
        num(report.train_accuracy),
        num(report.test_accuracy),
        report.losses.len(),
        num(sps)
    )
}
