#!/usr/bin/env python3
"""Writes tensile/tests/data/linalg_tri.json: what torch.linalg.cholesky, cholesky_ex and
solve_triangular (PyTorch 2.15) return, or raise, for fixed inputs, and the gradients of
(out * ramp).sum() with respect to the inputs, for tests/linalg_tri.rs.

Run with the PyTorch venv: .cache/venv/bin/python scripts/make_linalg_fixtures.py
"""
import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tensile", "tests", "data", "linalg_tri.json")
t = torch.tensor
f64 = torch.float64


def enc(x):
    x = x.detach()
    return {"dtype": str(x.dtype).replace("torch.", ""), "shape": list(x.shape),
            "data": [v if not (isinstance(v, float) and not math.isfinite(v))
                     else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
                     for v in x.reshape(-1).tolist()]}


def run(op, args, kw):
    ins = [a.clone().requires_grad_(a.dtype.is_floating_point) for a in args]
    out = {"op": op, "args": [enc(a) for a in args], "kw": kw}
    f = getattr(torch.linalg, op)
    try:
        r = f(*ins, **kw)
    except Exception as e:  # noqa: BLE001 - recorded: class and text
        out["err"] = type(e).__name__
        out["msg"] = str(e)
        return out
    if op == "cholesky_ex":
        out["info"] = enc(r.info)
        r = r.L
    out["out"] = enc(r)
    if torch.isfinite(r).all():
        w = torch.linspace(0.5, 1.5, r.numel(), dtype=r.dtype).reshape(r.shape)
        gs = torch.autograd.grad((r * w).sum(), ins)
        out["grads"] = [enc(g) for g in gs]
    return out


def cases():
    a = t([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    b = t([[[2.0, 0.3], [0.3, 1.0]], [[1.0, 0.9], [0.9, 1.0]]], dtype=f64)
    notpd = t([[1.0, 2.0], [2.0, 1.0]])
    lo = t([[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [-0.5, 0.2, 1.5]])
    rhs = t([[1.0, 2.0], [0.0, -1.0], [3.0, 0.5]])
    return [
        ("cholesky", [a], {}),
        ("cholesky", [a], {"upper": True}),
        ("cholesky", [b], {}),
        ("cholesky", [t([[9.0, 100.0], [3.0, 5.0]])], {}),  # lower triangle only
        ("cholesky", [notpd], {}),
        ("cholesky", [torch.stack([torch.eye(2), notpd])], {}),
        ("cholesky", [t([[float("nan"), 0.0], [0.0, 1.0]])], {}),
        ("cholesky", [torch.ones(3)], {}),
        ("cholesky", [torch.ones(2, 3)], {}),
        ("cholesky", [torch.ones(2, 2, dtype=torch.long)], {}),
        ("cholesky", [torch.ones(2, 2, dtype=torch.float16)], {}),
        ("cholesky_ex", [a], {}),
        ("cholesky_ex", [torch.stack([torch.eye(2), notpd])], {}),
        ("cholesky_ex", [notpd], {"check_errors": True}),
        ("solve_triangular", [lo, rhs], {"upper": False}),
        ("solve_triangular", [lo.mT, rhs], {"upper": True}),
        ("solve_triangular", [lo, rhs.mT], {"upper": False, "left": False}),
        ("solve_triangular", [lo, rhs], {"upper": False, "unitriangular": True}),
        ("solve_triangular", [torch.stack([lo, lo * 2]).to(f64), rhs.to(f64)], {"upper": False}),
        ("solve_triangular", [lo, torch.ones(3)], {"upper": False}),
        ("solve_triangular", [torch.ones(3), rhs], {"upper": False}),
        ("solve_triangular", [torch.ones(2, 3), rhs], {"upper": False}),
        ("solve_triangular", [lo, torch.ones(2, 1)], {"upper": False}),
        ("solve_triangular", [lo, torch.ones(1, 2)], {"upper": False, "left": False}),
        ("solve_triangular", [lo.long(), rhs.long()], {"upper": False}),
    ]


def main():
    out = [run(op, args, kw) for op, args, kw in cases()]
    with open(OUT, "w") as f:
        json.dump({"torch": torch.__version__, "cases": out}, f, indent=0)
    print(f"{OUT}: {len(out)} cases")


if __name__ == "__main__":
    main()
