#!/usr/bin/env python3
"""all-MiniLM-L6-v2 sentence embeddings: tensile against PyTorch's eager CPU forward and
candle's (candle-transformers' BERT), measured in the same run on the same machine.

Usage: python3 bench/minilm_compare.py [--threads 1,2] [--batches 1,32] [--rounds 3] [--reps 10]
                                       [--no-candle]

Both sides embed the same sentences (bench/minilm_sentences.txt: 32 sentences of about 16
tokens) from the same model directory (.cache/models/all-MiniLM-L6-v2, fetched by the embed
example when missing). For a batch size B the sentences are tokenized once, in batches of B
padded to their longest sentence, then each timed repetition runs the forward pass over all
of them: token ids -> BERT encoder -> mean pooling -> L2 normalisation. Tokenization is
outside the timing on both sides.

* tensile: `cargo run --release --example embed -- --bench` (one process per round).
* PyTorch: sentence-transformers' `SentenceTransformer(dir)(features)` under
  `torch.inference_mode()` (transformers' default attention, SDPA), this script's `--worker`
  mode, one process per round.
* candle: bench/candle_minilm, a small Cargo project of its own (candle-core, candle-nn,
  candle-transformers and tokenizers from crates.io; not a dependency of tensile), built by
  this script on first use into .cache/candle_minilm_target. Its thread count is set with
  RAYON_NUM_THREADS. Before timing, the script checks once that candle's embeddings agree
  with tensile's and prints the largest absolute difference.

Rounds rotate which side runs first. Each side reports the median over its repetitions;
the table shows, per case, the median over rounds of those, in sentences per second, and the
ratios tensile / PyTorch and tensile / candle (> 1 means tensile is faster). PyTorch and sentence-transformers come
from the virtualenv .cache/venv (installed there on first use, torch pinned to what is there);
set TORCH_PYTHON to use another interpreter.
"""
import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_DIR = os.path.join(ROOT, ".cache", "models", "all-MiniLM-L6-v2")
SENTENCES = os.path.join(ROOT, "bench", "minilm_sentences.txt")


def read_sentences(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def worker(args):
    """PyTorch side: prints `minilm_b<B> <threads> <median s> <sentences/s>` per batch size."""
    import time

    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(args.threads)
    model = SentenceTransformer(args.model, device="cpu")
    model.eval()
    sentences = read_sentences(args.file)
    prep = getattr(model, "preprocess", None) or model.tokenize
    for b in [int(x) for x in args.batches.split(",")]:
        feats = [prep(sentences[i:i + b]) for i in range(0, len(sentences), b)]
        real = sum(int(f["attention_mask"].sum()) for f in feats)
        padded = sum(f["attention_mask"].numel() for f in feats)
        print(f"#tokens minilm_b{b} {real} {padded}", file=sys.stderr)
        times = []
        with torch.inference_mode():
            for r in range(args.warmup + args.reps):
                t0 = time.perf_counter()
                for f in feats:
                    out = model(dict(f))["sentence_embedding"]
                dt = time.perf_counter() - t0
                if r >= args.warmup:
                    times.append(dt)
        assert out.shape[-1] == 384
        med = statistics.median(times)
        print(f"minilm_b{b} {args.threads} {med:.6f} {len(sentences) / med:.3f}", flush=True)


def torch_python():
    py = os.environ.get("TORCH_PYTHON")
    if py:
        return py
    venv = os.path.join(ROOT, ".cache", "venv")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        print("# creating .cache/venv with torch (first run only)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "torch", "numpy"], check=True)
    check = subprocess.run([py, "-c", "import sentence_transformers"], capture_output=True)
    if check.returncode != 0:
        ver = subprocess.run([py, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True,
                             check=True).stdout.strip()
        cons = os.path.join(venv, "torch-constraint.txt")
        with open(cons, "w") as f:
            f.write(f"torch=={ver}\n")
        print(f"# installing sentence-transformers into .cache/venv (torch stays {ver})", file=sys.stderr)
        subprocess.run([py, "-m", "pip", "install", "-q", "-c", cons, "sentence-transformers"], check=True)
    return py


def parse(out):
    res = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0].startswith("minilm_b"):
            res[parts[0]] = float(parts[3])
    return res


def tokens(err):
    """`case -> (real tokens, positions with padding)` from a side's `#tokens` stderr lines."""
    res = {}
    for line in err.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "#tokens":
            res[parts[1]] = (int(parts[2]), int(parts[3]))
    return res


CANDLE_DIR = os.path.join(ROOT, "bench", "candle_minilm")
CANDLE_TARGET = os.path.join(ROOT, ".cache", "candle_minilm_target")


def candle_exe():
    """Builds bench/candle_minilm (first use: a few minutes) and returns its binary."""
    env = dict(os.environ, CARGO_TARGET_DIR=CANDLE_TARGET)
    exe = os.path.join(CANDLE_TARGET, "release", "candle_minilm")
    if not os.path.exists(exe):
        print("# building bench/candle_minilm (first run only, takes a few minutes)", file=sys.stderr)
    subprocess.run(["cargo", "build", "--release", "-q", "--manifest-path", os.path.join(CANDLE_DIR, "Cargo.toml")],
                   env=env, check=True)
    return exe


def check_candle(exe, candle, args):
    """Prints the largest absolute difference between candle's and tensile's embeddings."""
    import json

    t = subprocess.run([exe, "--format", "json", "--batch-size", "32", "--file", args.file, "--model", args.model],
                       capture_output=True, text=True, check=True)
    c = subprocess.run([candle, "--json", "--file", args.file, "--model", args.model], capture_output=True,
                       text=True, check=True)
    te, ce = json.loads(t.stdout)["embeddings"], json.loads(c.stdout)
    if len(te) != len(ce) or any(len(a) != len(b) for a, b in zip(te, ce)):
        sys.exit("candle and tensile return embeddings of different shapes")
    diff = max(abs(x - y) for a, b in zip(te, ce) for x, y in zip(a, b))
    print(f"# candle vs tensile embeddings ({len(te)} sentences): max abs diff {diff:.3g}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--model", default=MODEL_DIR)
    ap.add_argument("--file", default=SENTENCES)
    ap.add_argument("--no-candle", action="store_true", help="leave candle out")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.threads = int(args.threads)
        worker(args)
        return

    subprocess.run(["cargo", "build", "--release", "--example", "embed"], cwd=ROOT, check=True)
    exe = os.path.join(ROOT, "target", "release", "examples", "embed")
    if not os.path.isdir(args.model) or args.model == MODEL_DIR:
        subprocess.run([exe, "--fetch-only"] + ([] if args.model == MODEL_DIR else ["--model", args.model]),
                       check=True)
    py = torch_python()
    candle = None
    if not args.no_candle:
        candle = candle_exe()
        check_candle(exe, candle, args)
    sides = ["torch", "tensile"] + (["candle"] if candle else [])
    common = ["--file", args.file, "--reps", str(args.reps), "--warmup", str(args.warmup)]
    rows = []
    for th in [int(t) for t in args.threads.split(",")]:
        tv, pv, cv = {}, {}, {}
        for r in range(args.rounds):
            for who in sides[r % len(sides):] + sides[:r % len(sides)]:
                env = None
                if who == "torch":
                    cmd = [py, os.path.abspath(__file__), "--worker", "--threads", str(th), "--batches", args.batches,
                           "--model", args.model] + common
                    dst = pv
                elif who == "tensile":
                    cmd = [exe, "--bench", "--threads", str(th), "--bench-batch", args.batches, "--model",
                           args.model] + common
                    dst = tv
                else:
                    cmd = [candle, "--threads", str(th), "--bench-batch", args.batches, "--model", args.model] + common
                    env = dict(os.environ, RAYON_NUM_THREADS=str(th))
                    dst = cv
                p = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if p.returncode != 0:
                    sys.exit(f"{who} failed ({' '.join(cmd)}):\n{p.stderr}")
                if r == 0:
                    dst.setdefault("#tok", tokens(p.stderr))
                for k, v in parse(p.stdout).items():
                    dst.setdefault(k, []).append(v)
        for name, other in (("torch", pv), ("candle", cv)):
            if other and tv["#tok"] != other["#tok"]:
                print(f"# warning: token counts differ: tensile {tv['#tok']} {name} {other['#tok']}", file=sys.stderr)
        for case in pv:
            if case == "#tok" or case not in tv:
                continue
            t, p = statistics.median(tv[case]), statistics.median(pv[case])
            c = statistics.median(cv[case]) if case in cv else float("nan")
            real, padded = pv["#tok"].get(case, (0, 0))
            rows.append((case, th, t, p, c, real, padded))
    print(f"{'case':<12}{'thr':>4}{'tokens':>8}{'padded':>8}{'tensile':>10}{'torch':>10}{'candle':>10}  {'unit':<8}"
          f"{'/torch':>8}{'/candle':>8}")
    for case, th, t, p, c, real, padded in rows:
        print(f"{case:<12}{th:>4}{real:>8}{padded:>8}{t:>10.1f}{p:>10.1f}{c:>10.1f}  {'sent/s':<8}{t / p:>8.2f}"
              f"{t / c:>8.2f}")


if __name__ == "__main__":
    main()
