"""Fixtures for tensile/tests/optim.rs: torch.optim's parameters after 5 steps, and the LR
schedulers' learning rates, computed by PyTorch (run with /tmp/tv/bin/python).

Writes tensile/tests/data/optim/{steps_float32.json, steps_float64.json, schedulers.json}.
Tensors are stored as the bit patterns of their elements (u32 for float32, u64 for float64,
flattened in row-major order), learning rates as the u64 bit patterns of Python floats, so that
the tests can compare bit for bit. Adam/AdamW cases also hold `ieee_sqrt`: the elements (as
`[index, bits]`) where the same run with a correctly rounded `Tensor.sqrt` differs (see
`IeeeSqrt`), which tensile must match exactly.
"""

import itertools
import json
import math
import os
import struct

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tensile", "tests", "data", "optim")
SHAPES = [[3], [4, 5], [40]]
STEPS = 5


def bits(t):
    a = t.detach().contiguous().numpy().ravel()
    if a.dtype == np.float32:
        return [int(x) for x in a.view(np.uint32)]
    return [int(x) for x in a.view(np.uint64)]


def f64bits(x):
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def make_data(dtype, seed):
    g = torch.Generator().manual_seed(seed)
    params = [torch.randn(s, generator=g, dtype=dtype) for s in SHAPES]
    # grads[step][param]; the last parameter has no gradient at step 2 (it is skipped there)
    grads = [[torch.randn(s, generator=g, dtype=dtype) for s in SHAPES] for _ in range(STEPS)]
    return params, grads


def sgd_cases():
    cases = []
    for momentum, dampening, nesterov, wd, maximize in itertools.product(
        [0.0, 0.9], [0.0, 0.3], [False, True], [0.0, 0.1], [False, True]
    ):
        if momentum == 0 and (dampening != 0 or nesterov):
            continue
        if nesterov and dampening != 0:
            continue
        kw = dict(lr=0.1, momentum=momentum, dampening=dampening, weight_decay=wd,
                  nesterov=nesterov, maximize=maximize)
        cases.append(("sgd", kw))
    return cases


def adam_cases():
    cases = []
    for opt, amsgrad, maximize, wd in itertools.product(["adam", "adamw"], [False, True], [False, True], [0.0, 0.1]):
        cases.append((opt, dict(lr=0.01, weight_decay=wd, amsgrad=amsgrad, maximize=maximize)))
    # lerp's second branch (1 - beta1 >= 0.5), a large lr and eps
    cases.append(("adam", dict(lr=0.5, betas=(0.3, 0.99), eps=1e-3, weight_decay=0.01)))
    cases.append(("adamw", dict(lr=0.2, betas=(0.4, 0.95), eps=1e-6, amsgrad=True)))
    cases.append(("adamw", dict()))  # AdamW's defaults
    cases.append(("adam", dict()))  # Adam's defaults
    return cases


GROUP_CASES = [
    ("sgd", dict(lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.1, nesterov=True, maximize=False)),
    ("adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("adamw", dict(lr=0.01)),
]

CLS = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}


class IeeeSqrt:
    """Within: `Tensor.sqrt` is the correctly rounded (IEEE) square root, computed by NumPy.

    PyTorch's own vectorised sqrt is not correctly rounded in this build (about 1 result in
    5 is an ulp off on uniform float32 inputs); running torch.optim with this patch gives
    what PyTorch's exact order of operations yields with an IEEE sqrt, which tensile must
    match bit for bit. `Tensor.sqrt` is the only sqrt `_single_tensor_adam` calls.
    """

    def __enter__(self):
        self.orig = torch.Tensor.sqrt
        torch.Tensor.sqrt = lambda t: torch.from_numpy(np.sqrt(t.detach().numpy()))

    def __exit__(self, *exc):
        torch.Tensor.sqrt = self.orig


def run_case(opt, kw, params0, grads, groups):
    case = run_case_once(opt, kw, params0, grads, groups)
    if opt != "sgd":
        with IeeeSqrt():
            ieee = run_case_once(opt, kw, params0, grads, groups)
        # only the elements where the IEEE-sqrt run differs: [[index, bits], ...]
        sparse = lambda a, b: [[i, y] for i, (x, y) in enumerate(zip(a, b)) if x != y]
        case["ieee_sqrt"] = {
            "params": [sparse(a, b) for a, b in zip(case["params"], ieee["params"])],
            "state": {
                idx: {k: sparse(v, ieee["state"][idx][k]) for k, v in st.items() if k != "step"}
                for idx, st in case["state"].items()
            },
        }
    return case


def run_case_once(opt, kw, params0, grads, groups):
    params = [p.clone().requires_grad_(True) for p in params0]
    if groups:
        # two groups: param 0 alone with half the lr, params 1 and 2 with the defaults
        lr = kw.get("lr", 1e-3)
        o = CLS[opt]([{"params": [params[0]], "lr": lr / 2}, {"params": params[1:]}], **kw)
    else:
        o = CLS[opt](params, **kw)
    for s in range(STEPS):
        for i, p in enumerate(params):
            p.grad = None if (s == 2 and i == len(params) - 1) else grads[s][i].clone()
        o.step()
    sd = o.state_dict()
    state = {}
    for idx, st in sd["state"].items():
        state[str(idx)] = {k: bits(v) for k, v in st.items()}
    return {
        "optimizer": opt,
        "kwargs": {k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()},
        "groups": groups,
        "params": [bits(p) for p in params],
        "state": state,
        "versions": [p._version for p in params],
    }


def steps_file(dtype, name, seed, cases):
    params, grads = make_data(dtype, seed)
    out = {
        "torch": torch.__version__,
        "dtype": str(dtype).replace("torch.", ""),
        "shapes": SHAPES,
        "steps": STEPS,
        "skipped": "param 2 has no grad at step 2 (0-based)",
        "init": [bits(p) for p in params],
        "grads": [[bits(g) for g in gs] for gs in grads],
        "cases": [],
    }
    for opt, kw in cases:
        out["cases"].append(run_case(opt, kw, params, grads, False))
    # two parameter groups (param 0 alone, with half the lr)
    for opt, kw in GROUP_CASES:
        out["cases"].append(run_case(opt, kw, params, grads, True))
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(name, len(out["cases"]), "cases")


def schedulers():
    def lrs(make, n=30):
        p = torch.zeros(1, requires_grad=True)
        o = torch.optim.SGD([{"params": [p], "lr": 0.1}, {"params": [torch.zeros(1, requires_grad=True)], "lr": 0.03}])
        s = make(o)
        seq = [[f64bits(x) for x in s.get_last_lr()]]
        for _ in range(n):
            o.step()
            s.step()
            seq.append([f64bits(x) for x in s.get_last_lr()])
        return seq

    S = torch.optim.lr_scheduler
    cases = {
        "StepLR(7, 0.5)": lrs(lambda o: S.StepLR(o, 7, 0.5)),
        "StepLR(3)": lrs(lambda o: S.StepLR(o, 3)),
        "CosineAnnealingLR(10, 0.001)": lrs(lambda o: S.CosineAnnealingLR(o, 10, 0.001)),
        "CosineAnnealingLR(7)": lrs(lambda o: S.CosineAnnealingLR(o, 7)),
        "LinearLR(0.25, 1.0, 8)": lrs(lambda o: S.LinearLR(o, 0.25, 1.0, 8)),
        "LinearLR()": lrs(lambda o: S.LinearLR(o)),
        "LinearLR(1.0, 0.1, 5)": lrs(lambda o: S.LinearLR(o, 1.0, 0.1, 5)),
        "LambdaLR(0.95 ** e)": lrs(lambda o: S.LambdaLR(o, lambda e: 0.95 ** e)),
        "LambdaLR(1 / (e + 1))": lrs(lambda o: S.LambdaLR(o, lambda e: 1 / (e + 1))),
    }
    with open(os.path.join(OUT, "schedulers.json"), "w") as f:
        json.dump({"torch": torch.__version__, "base_lrs": [0.1, 0.03], "sequences": cases}, f, indent=0)
        f.write("\n")


def errors():
    """The validation texts, printed for the test's literals (not written to a file)."""
    p = [torch.zeros(1, requires_grad=True)]
    for make in [
        lambda: torch.optim.SGD(p, lr=-0.1),
        lambda: torch.optim.SGD(p, lr=0.1, momentum=-0.5),
        lambda: torch.optim.SGD(p, lr=0.1, weight_decay=-1e-5),
        lambda: torch.optim.SGD(p, lr=0.1, nesterov=True),
        lambda: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
        lambda: torch.optim.Adam(p, lr=-1.0),
        lambda: torch.optim.Adam(p, lr=float("nan")),
        lambda: torch.optim.Adam(p, eps=-1e-8),
        lambda: torch.optim.Adam(p, betas=(1.0, 0.999)),
        lambda: torch.optim.Adam(p, betas=(0.9, -0.5)),
        lambda: torch.optim.AdamW(p, weight_decay=-0.01),
        lambda: torch.optim.lr_scheduler.LinearLR(torch.optim.SGD(p), start_factor=0),
        lambda: torch.optim.lr_scheduler.LinearLR(torch.optim.SGD(p), end_factor=1.5),
    ]:
        try:
            make()
            print("no error")
        except Exception as e:
            print(type(e).__name__, repr(str(e)))


if __name__ == "__main__":
    torch.set_default_dtype(torch.float32)
    os.makedirs(OUT, exist_ok=True)
    steps_file(torch.float32, "steps_float32.json", 14, sgd_cases() + adam_cases())
    steps_file(torch.float64, "steps_float64.json", 15,
               [("sgd", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.1, nesterov=False, maximize=True)),
                ("adamw", dict(lr=0.01, amsgrad=True))])
    schedulers()
    errors()
