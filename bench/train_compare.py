#!/usr/bin/env python3
"""Training speed of the `train_digits` example against the same loop in PyTorch (issue 14).

    TORCH_PYTHON=/path/to/venv/bin/python python3 bench/train_compare.py [--rounds 3]
        [--threads 1,2] [--models cnn,mlp] [--epochs 2] [--optimizer adamw]

For each model and thread count, both sides train from the same initial weights
(`tensile/tests/data/train_digits/<model>_init.safetensors`, saved from PyTorch) without
shuffling, batch 32, for `--epochs` epochs (47 steps each), and report steps per second: the
wall time of the steps alone (batch, `zero_grad`, forward, `cross_entropy`, `backward`,
`step`, `loss.item()`), not the evaluation. The two run alternately, `--rounds` times each
(separate processes, so thread counts never mix); the table gives the median of each side
and tensile's speed over PyTorch's (above 1: tensile is faster). The machine is shared and
noisy: only a ratio measured in one run means anything.

It also checks, once per model, that PyTorch's `model.load_state_dict(load_file(FILE))`
accepts the weights tensile's `--save` wrote, and that PyTorch's test accuracy with them equals
the one tensile reported.

The tensile side is `target/release/examples/train_digits` (built here with
`cargo build --release --example train_digits` unless `--no-build`); the PyTorch side is this
script run with `--torch-worker` by `$TORCH_PYTHON`, or by the repository's `.cache/venv`
(torch, numpy and safetensors installed from PyPI on first use).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tensile", "tests", "data", "train_digits")
CSV = os.path.join(ROOT, ".cache", "datasets", "digits.csv")
EXE = os.path.join(ROOT, "target", "release", "examples", "train_digits")
TRAIN_ROWS = 1500
BATCH = 32


# ---------------------------------------------------------------- PyTorch side (--torch-worker)


def torch_model(torch, name):
    nn = torch.nn
    if name == "mlp":
        return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(512, 10),
    )


def torch_data(torch, name):
    rows = [[float(v) for v in line.split(",")] for line in open(CSV).read().strip().splitlines()]
    data = torch.tensor(rows, dtype=torch.float64)
    x = (data[:, :64] / 16).to(torch.float32)
    y = data[:, 64].to(torch.int64)
    if name == "cnn":
        x = x.reshape(-1, 1, 8, 8)
    return x, y


def torch_worker(args):
    import torch
    import torch.nn.functional as F
    from safetensors.torch import load_file

    torch.set_num_threads(args.threads)
    x, y = torch_data(torch, args.model)
    model = torch_model(torch, args.model)
    if args.check_weights:
        # PyTorch loads tensile's --save output (strict) and evaluates it.
        model.load_state_dict(load_file(args.check_weights))
        model.eval()
        with torch.no_grad():
            pred = model(x[TRAIN_ROWS:]).argmax(1)
        acc = (pred == y[TRAIN_ROWS:]).double().mean().item()
        print(json.dumps({"test_accuracy": acc}))
        return
    model.load_state_dict(load_file(os.path.join(DATA, f"{args.model}_init.safetensors")))
    if args.optimizer == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    steps, seconds, losses = 0, 0.0, []
    for _ in range(args.epochs):
        for s in range(0, TRAIN_ROWS, BATCH):
            t0 = time.perf_counter()
            e = min(s + BATCH, TRAIN_ROWS)
            xb, yb = x[s:e], y[s:e]
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            seconds += time.perf_counter() - t0
            steps += 1
    print(json.dumps({"steps": steps, "steps_per_second": steps / seconds, "last_loss": losses[-1]}))


# ---------------------------------------------------------------- driver


def run_json(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def torch_python():
    """$TORCH_PYTHON, else the repository's .cache/venv (torch, numpy and safetensors from PyPI,
    installed on first use, as bench/compare.py does)."""
    py = os.environ.get("TORCH_PYTHON")
    if py:
        return py
    venv = os.path.join(ROOT, ".cache", "venv")
    py = os.path.join(venv, "bin", "python")
    check = [py, "-c", "import torch, numpy, safetensors"]
    if not (os.path.exists(py) and subprocess.run(check, capture_output=True).returncode == 0):
        print("# installing torch, numpy and safetensors into .cache/venv (first run only)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "torch", "numpy", "safetensors"], check=True)
    return py


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--models", default="cnn,mlp")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--optimizer", default="adamw", choices=["adamw", "sgd"])
    ap.add_argument("--no-build", action="store_true")
    # worker mode
    ap.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--check-weights", help=argparse.SUPPRESS)
    ap.add_argument("--threads-worker", type=int, dest="threads_n", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_worker:
        args.threads = args.threads_n
        torch_worker(args)
        return

    py = torch_python()
    if not os.path.isfile(CSV):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "fetch_digits.py")], check=True)
    if not args.no_build:
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "--example", "train_digits"], cwd=ROOT, check=True
        )
    threads = [int(t) for t in args.threads.split(",")]
    models = args.models.split(",")
    me = os.path.abspath(__file__)
    print(
        f"train_digits, no shuffle, batch {BATCH}, {args.epochs} epochs, {args.optimizer}; "
        f"median of {args.rounds} rounds; steps per second (higher is better)"
    )
    print(f"{'model':<6}{'threads':>8}{'PyTorch':>12}{'tensile':>12}{'tensile/PyTorch':>18}")
    for model in models:
        init = os.path.join(DATA, f"{model}_init.safetensors")
        for t in threads:
            ts, tt = [], []
            for _ in range(args.rounds):
                tt.append(
                    run_json(
                        [EXE, "--model", model, "--optimizer", args.optimizer, "--no-shuffle", "--init", init,
                         "--epochs", str(args.epochs), "--threads", str(t), "--json"]
                    )["steps_per_second"]
                )
                ts.append(
                    run_json(
                        [py, me, "--torch-worker", "--model", model, "--optimizer", args.optimizer,
                         "--epochs", str(args.epochs), "--threads-worker", str(t)]
                    )["steps_per_second"]
                )
            a, b = statistics.median(ts), statistics.median(tt)
            print(f"{model:<6}{t:>8}{a:>12.1f}{b:>12.1f}{b / a:>17.2f}x", flush=True)
        # PyTorch accepts tensile's saved weights and finds the same test accuracy.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "w.safetensors")
            mine = run_json(
                [EXE, "--model", model, "--optimizer", args.optimizer, "--no-shuffle", "--init", init,
                 "--epochs", str(args.epochs), "--save", path, "--json"]
            )
            theirs = run_json([py, me, "--torch-worker", "--model", model, "--check-weights", path,
                               "--threads-worker", "1"])
            same = "same" if abs(mine["test_accuracy"] - theirs["test_accuracy"]) < 1e-12 else "DIFFERENT"
            print(
                f"{model:<6} --save output loaded by PyTorch: test accuracy {theirs['test_accuracy']:.4f} "
                f"(tensile reported {mine['test_accuracy']:.4f}: {same})"
            )


if __name__ == "__main__":
    main()
