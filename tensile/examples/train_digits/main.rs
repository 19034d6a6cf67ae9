//! Trains a small network on the UCI handwritten digits with tensile, as a PyTorch script
//! would: `nn.Sequential` models with PyTorch's state-dict keys, `F::cross_entropy`,
//! `optim::AdamW` or `optim::SGD`, safetensors checkpoints PyTorch loads.
//!
//! ```text
//! cargo run --release --example train_digits                       # CNN, AdamW, 10 epochs
//! cargo run --release --example train_digits -- --model mlp --optimizer sgd --plot loss.png
//! cargo run --release --example train_digits -- --no-shuffle --init w.safetensors --json
//! ```
//!
//! The data set is scikit-learn's copy of the UCI digits (1,797 8×8 images, features 0–16),
//! fetched on first use by `scripts/fetch_digits.py` into `.cache/datasets/`; rows 0–1499
//! train, 1500–1796 test, features divided by 16. Without `--json` a progress bar per epoch
//! shows the running loss, accuracy and steps per second, then the train and test accuracy are
//! printed; `--plot FILE.png` draws the loss of every step. `--help` lists every option. The
//! loop itself is in `train.rs`, which `tests/train_digits.rs` checks against PyTorch's losses.

#[allow(dead_code)] // `Report::model` and a few helpers are used by the test only
mod train;

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use train::{Event, Opts, Report};

fn main() -> ExitCode {
    let opts = match train::parse_args(std::env::args().skip(1)) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{}", train::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("train_digits: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("train_digits: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(opts: &Opts) -> Result<(), String> {
    if let Some(n) = opts.threads {
        tensile::set_num_threads(n).map_err(|e| e.to_string())?;
    }
    let data = train::load_digits(opts.data.as_deref())?;
    let report = if opts.json {
        train::train(opts, &data, &mut |_| {})?
    } else {
        train_with_progress(opts, &data)?
    };
    if let Some(path) = &opts.plot {
        plot(&report.losses, path)?;
    }
    if opts.json {
        println!("{}", train::json(&report));
    } else {
        println!(
            "{} steps, {:.0} steps/s; train accuracy {:.2}%, test accuracy {:.2}%",
            report.losses.len(),
            report.losses.len() as f64 / report.train_seconds.max(1e-12),
            100.0 * report.train_accuracy,
            100.0 * report.test_accuracy
        );
        if let Some(path) = &opts.save {
            println!("weights saved to {}", path.display());
        }
        if let Some(path) = &opts.plot {
            println!("loss curve drawn in {}", path.display());
        }
    }
    Ok(())
}

/// The loop with a progress bar per epoch (on standard error; hidden when that is not a
/// terminal) and a line per epoch.
fn train_with_progress(opts: &Opts, data: &train::Digits) -> Result<Report, String> {
    let style =
        ProgressStyle::with_template("epoch {prefix:>2} [{bar:30.cyan/blue}] {pos:>2}/{len} {msg}")
            .map_err(|e| e.to_string())?
            .progress_chars("=> ");
    let mut bar: Option<ProgressBar> = None;
    let (mut loss_sum, mut right, mut rows, mut steps) = (0.0, 0usize, 0usize, 0usize);
    let mut start = Instant::now();
    let epochs = opts.epochs;
    let report = train::train(opts, data, &mut |ev| match ev {
        Event::EpochStart { epoch, steps: n } => {
            let b = ProgressBar::new(n as u64).with_style(style.clone());
            b.set_prefix(format!("{}/{epochs}", epoch + 1));
            bar = Some(b);
            (loss_sum, right, rows, steps) = (0.0, 0, 0, 0);
            start = Instant::now();
        }
        Event::Step {
            loss,
            correct,
            rows: n,
        } => {
            loss_sum += loss;
            right += correct;
            rows += n;
            steps += 1;
            if let Some(b) = &bar {
                b.set_message(format!(
                    "loss {:.4}  accuracy {:5.1}%  {:.0} steps/s",
                    loss_sum / steps as f64,
                    100.0 * right as f64 / rows as f64,
                    steps as f64 / start.elapsed().as_secs_f64().max(1e-9)
                ));
                b.inc(1);
            }
        }
        Event::EpochEnd {
            epoch,
            train_accuracy,
            test_accuracy,
        } => {
            if let Some(b) = bar.take() {
                b.finish_and_clear();
            }
            println!(
                "epoch {:>2}/{epochs}: loss {:.4}, train accuracy {:.2}%, test accuracy {:.2}%",
                epoch + 1,
                loss_sum / steps.max(1) as f64,
                100.0 * train_accuracy,
                100.0 * test_accuracy
            );
        }
    })?;
    if let Some(b) = bar.take() {
        b.finish_and_clear();
    }
    Ok(report)
}

/// Registers a system sans-serif font for the plot's text; `false` when none is found (the
/// plot is then drawn without captions and labels).
fn register_font() -> bool {
    const CANDIDATES: [&str; 4] = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    ];
    for path in CANDIDATES {
        if let Ok(bytes) = std::fs::read(path) {
            // plotters keeps fonts for the life of the process.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font(
                "sans-serif",
                plotters::style::FontStyle::Normal,
                bytes,
            )
            .is_ok()
            {
                return true;
            }
        }
    }
    false
}

/// Draws the loss of every step into a PNG.
fn plot(losses: &[f64], path: &Path) -> Result<(), String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let text = register_font();
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let finite: Vec<f64> = losses.iter().copied().filter(|v| v.is_finite()).collect();
    let top = finite.iter().copied().fold(0.0f64, f64::max).max(1e-3) * 1.05;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(15);
    if text {
        builder
            .caption("train_digits: loss per step", ("sans-serif", 22))
            .x_label_area_size(40)
            .y_label_area_size(55);
    }
    let mut chart = builder
        .build_cartesian_2d(0usize..losses.len().max(2), 0f64..top)
        .map_err(|e| err(&e))?;
    let mut mesh = chart.configure_mesh();
    if text {
        mesh.x_desc("step").y_desc("cross-entropy loss");
    } else {
        mesh.disable_x_axis().disable_y_axis();
    }
    mesh.draw().map_err(|e| err(&e))?;
    chart
        .draw_series(LineSeries::new(
            losses
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_finite())
                .map(|(i, &v)| (i, v)),
            &BLUE,
        ))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
