#!/usr/bin/env python3
"""Writes tensile/tests/data/data_fixtures.json: what torch.utils.data (PyTorch 2.15) yields
for fixed seeds (random_split, every sampler, DataLoader passes with and without worker
processes, default_collate), for tests/data.rs to compare with tensile::data.

Run with the PyTorch venv: .cache/venv/bin/python scripts/make_data_fixtures.py
"""
import json
import os

import torch
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    get_worker_info,
    random_split,
)
from torch.utils.data.distributed import DistributedSampler

OUT = os.path.join(os.path.dirname(__file__), "..", "tensile", "tests", "data", "data_fixtures.json")


def gen(seed):
    return torch.Generator().manual_seed(seed)


def after():
    """Where the default generator stands: its next float32 draws."""
    return torch.rand(3).tolist()


fx = {"torch": torch.__version__}

# ---- random_split
torch.manual_seed(0)
fx["random_split"] = [
    {"n": 10, "lengths": [3, 7], "seed": 42,
     "out": [s.indices for s in random_split(range(10), [3, 7], generator=gen(42))]},
    {"n": 30, "fractions": [0.3, 0.3, 0.4], "seed": 42,
     "out": [s.indices for s in random_split(range(30), [0.3, 0.3, 0.4], generator=gen(42))]},
    {"n": 11, "fractions": [0.5, 0.5], "seed": 3,
     "out": [s.indices for s in random_split(range(11), [0.5, 0.5], generator=gen(3))]},
]
torch.manual_seed(5)
fx["random_split_default"] = {
    "n": 8, "lengths": [5, 3], "manual_seed": 5,
    "out": [s.indices for s in random_split(range(8), [5, 3])], "after": after()}

# ---- samplers
samplers = []
torch.manual_seed(0)
s = RandomSampler(range(10))
samplers.append({"kind": "random", "n": 10, "manual_seed": 0,
                 "passes": [list(s), list(s)], "after": after()})
g = gen(1)
s = RandomSampler(range(10), generator=g)
samplers.append({"kind": "random", "n": 10, "seed": 1, "passes": [list(s), list(s)],
                 "gen_after": torch.rand(3, generator=g).tolist()})
g = gen(2)
s = RandomSampler(range(10), replacement=True, num_samples=70, generator=g)
samplers.append({"kind": "random", "n": 10, "seed": 2, "replacement": True, "num_samples": 70,
                 "passes": [list(s)], "gen_after": torch.rand(3, generator=g).tolist()})
g = gen(3)
s = RandomSampler(range(7), num_samples=17, generator=g)
samplers.append({"kind": "random", "n": 7, "seed": 3, "num_samples": 17,
                 "passes": [list(s)], "gen_after": torch.rand(3, generator=g).tolist()})
g = gen(4)
s = SubsetRandomSampler([5, 6, 7, 8, 9, 20], generator=g)
samplers.append({"kind": "subset", "indices": [5, 6, 7, 8, 9, 20], "seed": 4,
                 "passes": [list(s), list(s)]})
w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
for repl in (True, False):
    g = gen(5)
    s = WeightedRandomSampler(w, 5, replacement=repl, generator=g)
    samplers.append({"kind": "weighted", "weights": w, "num_samples": 5, "replacement": repl,
                     "seed": 5, "passes": [list(s), list(s)]})
for drop in (False, True):
    s = BatchSampler(SequentialSampler(range(10)), 3, drop)
    samplers.append({"kind": "batch", "n": 10, "batch_size": 3, "drop_last": drop,
                     "passes": [list(s)], "len": len(s)})
for n, reps, drop, shuffle in ((11, 3, False, True), (11, 3, True, True), (10, 4, False, False), (5, 3, True, False)):
    for rank in range(reps):
        s = DistributedSampler(range(n), num_replicas=reps, rank=rank, shuffle=shuffle, seed=6,
                               drop_last=drop)
        p0 = list(s)
        s.set_epoch(1)
        p1 = list(s)
        samplers.append({"kind": "distributed", "n": n, "num_replicas": reps, "rank": rank,
                         "shuffle": shuffle, "seed": 6, "drop_last": drop, "passes": [p0, p1],
                         "len": len(s)})
fx["samplers"] = samplers

# ---- DataLoader
x = torch.arange(20, dtype=torch.float32).reshape(10, 2)
y = torch.arange(10)
ds = TensorDataset(x, y)


def batches(loader, passes=2):
    out = []
    for _ in range(passes):
        out.append([[b[1].tolist()] for b in loader])
    return out


loaders = []
torch.manual_seed(0)
loaders.append({"case": "shuffle_default_gen", "batch_size": 3, "shuffle": True, "manual_seed": 0,
                "passes": batches(DataLoader(ds, batch_size=3, shuffle=True)), "after": after()})
g = gen(7)
torch.manual_seed(1)
loaders.append({"case": "shuffle_own_gen", "batch_size": 4, "shuffle": True, "seed": 7, "manual_seed": 1,
                "drop_last": True,
                "passes": batches(DataLoader(ds, batch_size=4, shuffle=True, drop_last=True, generator=g)),
                "gen_after": torch.rand(3, generator=g).tolist(), "after": after()})
torch.manual_seed(2)
loaders.append({"case": "sequential", "batch_size": 4, "shuffle": False, "manual_seed": 2,
                "passes": batches(DataLoader(ds, batch_size=4)), "after": after()})


class Noisy(Dataset):
    """Each sample draws from the default generator: the worker's own in a worker."""

    def __len__(self):
        return 9

    def __getitem__(self, i):
        info = get_worker_info()
        wid = -1 if info is None else info.id
        return torch.rand(2) + i * 10, wid


for workers in (0, 2, 3):
    torch.manual_seed(3)
    kw = {} if workers == 0 else {"prefetch_factor": 2}
    dl = DataLoader(Noisy(), batch_size=2, shuffle=True, num_workers=workers, **kw)
    passes = []
    for _ in range(2):
        passes.append([[b[0].tolist(), b[1].tolist()] for b in dl])
    loaders.append({"case": f"noisy_workers_{workers}", "batch_size": 2, "shuffle": True,
                    "manual_seed": 3, "num_workers": workers, "noisy": passes, "after": after()})


class Shards(IterableDataset):
    """0..n, each worker taking the numbers equal to its id mod num_workers."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


for workers, n, bs, drop in ((0, 7, 2, False), (2, 7, 2, False), (2, 9, 2, True), (3, 10, 3, False)):
    torch.manual_seed(4)
    dl = DataLoader(Shards(n), batch_size=bs, num_workers=workers, drop_last=drop)
    loaders.append({"case": f"iterable_{workers}_{n}_{bs}_{drop}", "n": n, "batch_size": bs,
                    "drop_last": drop, "num_workers": workers, "manual_seed": 4,
                    "passes": [[b.tolist() for b in dl]], "after": after()})
fx["loaders"] = loaders

with open(OUT, "w") as f:
    json.dump(fx, f, indent=1)
print("wrote", OUT)
