#!/usr/bin/env python3
"""Writes tensile/tests/data/distributions/<group>.json: what torch.distributions (PyTorch 2.15)
computes for fixed parameters and seeds, for tests/distributions.rs to compare with
tensile::distributions.

Each group module in scripts/dist_fixtures/ (core, continuous, gamma, discrete, structural, kl)
has `cases()`, a list of dicts:
  {"id": str, "dist": name, "params": {name: tensor or number}, and optionally
   "seed": int, "sample_shape": [..], "value": tensor (for log_prob/cdf), "q": tensor (icdf),
   "grad": bool (rsample and log_prob gradients), "validate": bool (default True),
   "expand": [..] (batch shape for expand)}
or {"id", "kl": [p_case, q_case]} for kl_divergence, or {"id", "error": ...} built by `err()`.
This driver evaluates every method PyTorch has on each case and records the result, or the
exception class and message where PyTorch raises one, so the Rust side checks both.

Run with the PyTorch venv: .cache/venv/bin/python scripts/make_dist_fixtures.py [group ...]
"""
import importlib
import json
import math
import os
import sys

import torch
import torch.distributions as D

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tensile", "tests", "data", "distributions")
GROUPS = ["core", "continuous", "gamma", "discrete", "structural", "kl"]
sys.path.insert(0, HERE)


def enc(x):
    """A tensor (or number) as {"dtype", "shape", "data"}; NaN and infinities as strings."""
    if isinstance(x, bool):
        x = torch.tensor(x)
    elif isinstance(x, (int, float)):
        x = torch.tensor(x, dtype=torch.float64 if isinstance(x, float) else torch.int64)
        return {"number": enc_scalar(x.item())}
    x = x.detach()
    flat = x.reshape(-1).tolist()
    return {"dtype": str(x.dtype).replace("torch.", ""), "shape": list(x.shape),
            "data": [enc_scalar(v) for v in flat]}


def enc_scalar(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def build(name, params, validate=True):
    """The distribution `name` (a torch.distributions class, or a builder in a group module's
    BUILDERS) from `params`."""
    for g in GROUPS:
        mod = sys.modules.get("dist_fixtures." + g)
        if mod is not None and name in getattr(mod, "BUILDERS", {}):
            return mod.BUILDERS[name](params, validate)
    cls = getattr(D, name)
    return cls(**params, validate_args=validate)


def attempt(f):
    try:
        return {"ok": enc(f())}
    except Exception as e:  # noqa: BLE001 - recorded, the Rust side checks class and text
        return {"err": type(e).__name__, "msg": str(e)}


def run_case(c):
    out = {"id": c["id"]}
    if "kl" in c:
        p, q = c["kl"]
        out["kl"] = [{"dist": s["dist"], "params": {k: enc(v) for k, v in s["params"].items()}}
                     for s in (p, q)]
        out["out"] = attempt(lambda: D.kl_divergence(build(p["dist"], p["params"]),
                                                     build(q["dist"], q["params"])))
        return out
    validate = c.get("validate", True)
    params = c["params"]
    out["dist"] = c["dist"]
    out["params"] = {k: enc(v) for k, v in params.items()}
    out["validate"] = validate
    try:
        d = build(c["dist"], params, validate)
    except Exception as e:  # noqa: BLE001
        out["construct"] = {"err": type(e).__name__, "msg": str(e)}
        return out
    if "expand" in c:
        out["expand"] = c["expand"]
        d = d.expand(torch.Size(c["expand"]))
    out["repr"] = repr(d)
    out["batch_shape"] = list(d.batch_shape)
    out["event_shape"] = list(d.event_shape)
    out["support"] = repr(d.support) if not isinstance(d.support, type(None)) else None
    out["has_rsample"] = d.has_rsample
    for m in ["mean", "mode", "variance", "stddev"]:
        out[m] = attempt(lambda m=m: getattr(d, m))
    out["entropy"] = attempt(d.entropy)
    if "seed" in c:
        shape = torch.Size(c.get("sample_shape", []))
        out["seed"] = c["seed"]
        out["sample_shape"] = list(shape)
        torch.manual_seed(c["seed"])
        out["sample"] = attempt(lambda: d.sample(shape))
        out["after"] = torch.rand(3).tolist()
        if d.has_rsample:
            torch.manual_seed(c["seed"])
            out["rsample"] = attempt(lambda: d.rsample(shape))
    if "value" in c:
        v = c["value"]
        out["value"] = enc(v)
        out["log_prob"] = attempt(lambda: d.log_prob(v))
        out["cdf"] = attempt(lambda: d.cdf(v))
    if "q" in c:
        out["q"] = enc(c["q"])
        out["icdf"] = attempt(lambda: d.icdf(c["q"]))
    if c.get("enumerate"):
        out["enumerate_support"] = attempt(lambda: d.enumerate_support(True))
        out["enumerate_support_noexpand"] = attempt(lambda: d.enumerate_support(False))
    if c.get("grad"):
        out["grad"] = grads(c, validate)
    return out


def grads(c, validate):
    """Gradients w.r.t. every floating tensor parameter: of rsample(shape) weighted by a fixed
    ramp, and of log_prob(value).sum(), for the same seed."""
    res = {}
    names = [k for k, v in c["params"].items()
             if isinstance(v, torch.Tensor) and v.dtype.is_floating_point]

    def fresh():
        ps = dict(c["params"])
        leaves = {}
        for k in names:
            leaves[k] = ps[k].detach().clone().requires_grad_(True)
            ps[k] = leaves[k]
        d = build(c["dist"], ps, validate)
        if "expand" in c:
            d = d.expand(torch.Size(c["expand"]))
        return d, leaves

    d, leaves = fresh()
    if d.has_rsample and "seed" in c:
        torch.manual_seed(c["seed"])
        x = d.rsample(torch.Size(c.get("sample_shape", [])))
        w = torch.linspace(0.5, 1.5, x.numel(), dtype=x.dtype).reshape(x.shape)
        gs = torch.autograd.grad((x * w).sum(), [leaves[k] for k in names], allow_unused=True)
        res["rsample"] = {k: (enc(g) if g is not None else None) for k, g in zip(names, gs)}
    if "value" in c:
        d, leaves = fresh()
        try:
            lp = d.log_prob(c["value"]).sum()
            gs = torch.autograd.grad(lp, [leaves[k] for k in names], allow_unused=True)
            res["log_prob"] = {k: (enc(g) if g is not None else None) for k, g in zip(names, gs)}
        except Exception:  # noqa: BLE001 - no gradient where log_prob itself raises
            pass
    return res


def main():
    groups = sys.argv[1:] or GROUPS
    os.makedirs(OUT, exist_ok=True)
    mods = {}
    for g in GROUPS:
        try:
            mods[g] = importlib.import_module("dist_fixtures." + g)
        except ModuleNotFoundError:
            pass
    for g in groups:
        if g not in mods:
            continue
        cases = [run_case(c) for c in mods[g].cases()]
        path = os.path.join(OUT, g + ".json")
        with open(path, "w") as f:
            json.dump({"torch": torch.__version__, "cases": cases}, f, indent=0)
        print(f"{path}: {len(cases)} cases")
        if hasattr(mods[g], "extra"):  # a group's own extra fixture files
            mods[g].extra(OUT, enc, attempt)


if __name__ == "__main__":
    main()
