"""Reference data for the `train_digits` example's test (issue 14, item 4), computed by PyTorch.

Run with /tmp/tv/bin/python (torch 2.15, safetensors):

    /tmp/tv/bin/python scripts/make_train_reference.py

Needs `.cache/datasets/digits.csv` (fetched by `scripts/fetch_digits.py`, which this script
runs when the file is missing). Writes into tensile/tests/data/train_digits/:

* `mlp_init.safetensors`, `cnn_init.safetensors`: the initial weights of the two models,
  `safetensors.torch.save_file(model.state_dict(), FILE)` right after construction under
  `torch.manual_seed(SEED)`; keys `0.weight`, `0.bias`, `2.weight`, `2.bias` (mlp) and
  `0.*`, `3.*`, `6.*` (cnn);
* `reference_losses.json`: for each model and optimizer, the loss of each of the first 40
  steps (the value of the step's forward, before its update) of training from those weights
  with `--no-shuffle` semantics: rows 0-1499 in order in batches of 32 (the last batch of an
  epoch is smaller), features divided by 16, `F.cross_entropy` (mean), `zero_grad`,
  `backward`, `step`; AdamW(lr=1e-3, weight_decay=0.01) and SGD(lr=0.05, momentum=0.9);
  and under `loader_order`, the example's shuffled order of the first two epochs: the rows
  `DataLoader(TensorDataset(arange(1500)), batch_size=32, shuffle=True, generator=g)` yields,
  `g = torch.Generator().manual_seed(SEED)` (each pass draws its base seed, then a randperm).
"""

import hashlib
import json
import os
import subprocess
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from safetensors.torch import load_file, save_file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, ".cache", "datasets", "digits.csv")
OUT = os.path.join(ROOT, "tensile", "tests", "data", "train_digits")
SEED = 0
STEPS = 40
BATCH = 32
TRAIN_ROWS = 1500
OPTIMIZERS = {
    "adamw": lambda params: torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01),
    "sgd": lambda params: torch.optim.SGD(params, lr=0.05, momentum=0.9),
}


def mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def cnn():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(512, 10),
    )


MODELS = {"mlp": mlp, "cnn": cnn}


def load_digits():
    if not os.path.isfile(CSV):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "fetch_digits.py")], check=True)
    with open(CSV, "rb") as f:
        raw = f.read()
    rows = [[float(v) for v in line.split(",")] for line in raw.decode().strip().splitlines()]
    data = torch.tensor(rows, dtype=torch.float64)
    x = (data[:, :64] / 16).to(torch.float32)  # features 0-16 divided by 16
    y = data[:, 64].to(torch.int64)
    return x, y, hashlib.sha256(raw).hexdigest()


def batches(x, y, model_name):
    """Rows 0-1499 in order (--no-shuffle), batches of 32, cycling over epochs."""
    while True:
        for s in range(0, TRAIN_ROWS, BATCH):
            xb, yb = x[s : min(s + BATCH, TRAIN_ROWS)], y[s : min(s + BATCH, TRAIN_ROWS)]
            if model_name == "cnn":
                xb = xb.reshape(-1, 1, 8, 8)
            yield xb, yb


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    x, y, sha = load_digits()
    losses = {}
    for name, make in MODELS.items():
        torch.manual_seed(SEED)
        model = make()
        path = os.path.join(OUT, f"{name}_init.safetensors")
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, path)
        for opt_name, make_opt in OPTIMIZERS.items():
            model = make()
            model.load_state_dict(load_file(path))
            opt = make_opt(model.parameters())
            seq = []
            it = batches(x, y, name)
            for _ in range(STEPS):
                xb, yb = next(it)
                opt.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                opt.step()
                seq.append(loss.item())
            losses[f"{name}/{opt_name}"] = seq
            print(f"{name}/{opt_name}: {seq[0]:.6f} -> {seq[-1]:.6f}")
    loader = DataLoader(TensorDataset(torch.arange(TRAIN_ROWS)), batch_size=BATCH, shuffle=True,
                        generator=torch.Generator().manual_seed(SEED))
    orders = [torch.cat([b[0] for b in loader]).tolist() for _ in range(2)]
    ref = {
        "torch": torch.__version__,
        "threads": 1,
        "seed": SEED,
        "data_sha256": sha,
        "steps": STEPS,
        "batch_size": BATCH,
        "train_rows": TRAIN_ROWS,
        "optimizers": {"adamw": {"lr": 1e-3, "weight_decay": 0.01}, "sgd": {"lr": 0.05, "momentum": 0.9}},
        "losses": losses,
        "loader_order": {"seed": SEED, "n": TRAIN_ROWS, "batch_size": BATCH, "epochs": orders},
    }
    with open(os.path.join(OUT, "reference_losses.json"), "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
