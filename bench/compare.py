#!/usr/bin/env python3
"""Run tensile's bench example and PyTorch's bench/peers.py back to back, alternating, on this
machine, and print the ratio tensile/PyTorch per case (>1 means tensile is faster).

Usage: python3 bench/compare.py [--threads 1,2] [--rounds 3] [--only a,b] [--baseline EXE]

`--baseline EXE` also runs another build of the bench example (say, main before a change: copy
`target/release/examples/bench` aside first) in the same alternating rotation, and adds a column
`vs base`: the new build's speed over the baseline's (>1 means the change made the case faster).

PyTorch is installed from PyPI into a virtualenv at .cache/venv the first time
(`python3 -m venv .cache/venv && .cache/venv/bin/pip install torch numpy safetensors`); set
TORCH_PYTHON to use another interpreter that has torch. Each case's value is the median over
rounds of each program's own median. For the latency cases (ns per op) the ratio is
torch_ns / tensile_ns; for the others tensile / torch.
"""
import argparse
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("--threads", default="1,2")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--only", default="")
ap.add_argument("--baseline", default="")
args = ap.parse_args()


def torch_python():
    py = os.environ.get("TORCH_PYTHON")
    if py:
        return py
    venv = os.path.join(ROOT, ".cache", "venv")
    py = os.path.join(venv, "bin", "python")
    ok = os.path.exists(py) and subprocess.run([py, "-c", "import torch, numpy, safetensors"], capture_output=True).returncode == 0
    if not ok:
        print("# installing torch, numpy and safetensors into .cache/venv (first run only)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "torch", "numpy", "safetensors"], check=True)
    return py


def table_units():
    """{case: unit} of the op suite bench/ops.txt."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from ops import read_table
    units = {name: unit for name, unit, _op, _a, _k in read_table()}
    # the autograd cases (bench/train.py) report a time per op, in µs or ns: lower is better
    units.update({"mlp_fwd_bwd": "us", "bert_layer_fwd_bwd": "us", "autograd_add_chain": "ns",
                  "cnn_module_fwd_bwd": "us", "adamw_step": "us", "sgd_momentum_step": "us",
                  "safetensors_roundtrip": "us"})
    return units


def parse(out):
    res = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and not line.startswith("#"):
            # (median seconds per rep, value): throughput ratios come from the seconds (the
            # same work on both sides; the value column has 3 decimals, too few for a slow
            # case such as dataloader_epoch), latency ratios from the ns value
            res[parts[0]] = (float(parts[2]), float(parts[3]))
    return res


def main():
    py = torch_python()
    subprocess.run(["cargo", "build", "--release", "--example", "bench"], cwd=ROOT, check=True)
    target = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR") or "target")
    exe = os.path.join(target, "release", "examples", "bench")
    only = ["--only", args.only] if args.only else []
    units = table_units()
    rows = []
    for th in [int(t) for t in args.threads.split(",")]:
        tv, pv, bv = {}, {}, {}
        order = ["torch", "tensile"] + (["base"] if args.baseline else [])
        for r in range(args.rounds):
            for who in order if r % 2 == 0 else order[::-1]:
                if who == "torch":
                    cmd = [py, os.path.join(ROOT, "bench", "peers.py"), "--lib", "torch", "--threads", str(th)] + only
                    dst = pv
                elif who == "base":
                    cmd = [args.baseline, "--threads", str(th)] + only
                    dst = bv
                else:
                    cmd = [exe, "--threads", str(th)] + only
                    dst = tv
                out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                for k, v in parse(out).items():
                    dst.setdefault(k, []).append(v)
        for case in pv:
            if case not in tv:
                continue
            latency = case in ("add_small", "add_seed") or units.get(case) in ("ns", "us")
            t = statistics.median(v for _, v in tv[case])
            p = statistics.median(v for _, v in pv[case])
            ts = statistics.median(s for s, _ in tv[case])
            ps = statistics.median(s for s, _ in pv[case])
            ratio = p / t if latency else ps / ts
            gflops = units.get(case) == "gflops" or (
                case not in units and case.startswith(("matmul", "bmm", "einsum")))
            vs = None
            if case in bv:
                b = statistics.median(v for _, v in bv[case])
                bs = statistics.median(s for s, _ in bv[case])
                vs = b / t if latency else bs / ts
            rows.append((case, th, t, p, ratio, units.get(case, "ns") if latency else ("GFLOP/s" if gflops else "Gelem/s"), vs))
    base_col = f"{'vs base':>9}" if args.baseline else ""
    print(f"{'case':<20}{'thr':>4}{'tensile':>12}{'torch':>12}  {'unit':<8}{'ratio':>7}{base_col}")
    for case, th, t, p, ratio, unit, vs in rows:
        extra = f"{vs:>9.2f}" if vs is not None else ""
        print(f"{case:<20}{th:>4}{t:>12.3f}{p:>12.3f}  {unit:<8}{ratio:>7.2f}{extra}")
    for th in sorted({r[1] for r in rows}):
        rs = [r for r in rows if r[1] == th]
        geo = math.exp(sum(math.log(r[4]) for r in rs) / len(rs))
        worst = min(rs, key=lambda r: r[4])
        print(f"summary threads={th}: {len(rs)} cases, geometric mean {geo:.2f}, worst {worst[0]} {worst[4]:.2f}")
        vb = [r for r in rs if r[6] is not None]
        if vb:
            gb = math.exp(sum(math.log(r[6]) for r in vb) / len(vb))
            wb = min(vb, key=lambda r: r[6])
            print(f"summary threads={th} vs baseline: {len(vb)} cases, geometric mean {gb:.2f}, worst {wb[0]} {wb[6]:.2f}")


if __name__ == "__main__":
    main()
