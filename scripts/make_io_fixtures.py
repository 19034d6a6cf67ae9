"""Writes the fixtures of tensile/tests/io.rs into tensile/tests/data/io/, with PyTorch's own
torch.save, safetensors.torch.save_file and numpy.save / savez / savez_compressed, plus
expected.json (every fixture tensor's dtype, shape, strides, storage offset and values).

Run: /tmp/tv/bin/python scripts/make_io_fixtures.py   (torch 2.15, numpy, safetensors)
"""
import json
import os
import pickle
import zipfile

import numpy as np
import torch
from safetensors.torch import save_file

# TENSILE_IO_FIXTURES: write elsewhere (torch.save files differ from run to run in their
# random serialization_id, so refresh only the fixtures you add).
OUT = os.environ.get("TENSILE_IO_FIXTURES") or os.path.join(
    os.path.dirname(__file__), "..", "tensile", "tests", "data", "io")
os.makedirs(OUT, exist_ok=True)
expected = {}


def p(name):
    return os.path.join(OUT, name)


def describe(t):
    t = torch.as_tensor(t)
    vals = t.detach().flatten().tolist() if t.dtype != torch.bfloat16 else t.detach().float().flatten().tolist()
    return {
        "dtype": str(t.dtype).replace("torch.", ""),
        "shape": list(t.shape),
        "stride": list(t.stride()),
        "offset": t.storage_offset(),
        "values": [num(v) for v in vals],
    }


def num(v):
    """An int as a JSON int; a float as its repr string (exact: JSON readers may round)."""
    return repr(float(v)) if isinstance(v, float) else int(v)


def all_dtypes():
    g = torch.Generator().manual_seed(1)
    r = torch.randn(2, 3, generator=g)
    return {
        "bool": torch.tensor([[True, False, True], [False, False, True]]),
        "uint8": torch.tensor([[0, 1, 255], [7, 128, 3]], dtype=torch.uint8),
        "int8": torch.tensor([[-128, 1, 127], [0, -1, 5]], dtype=torch.int8),
        "int16": torch.tensor([[-32768, 1, 32767], [0, -1, 300]], dtype=torch.int16),
        "int32": torch.tensor([[-(2**31), 1, 2**31 - 1], [0, -1, 70000]], dtype=torch.int32),
        "int64": torch.tensor([[-(2**63), 1, 2**63 - 1], [0, -1, 2**40]], dtype=torch.int64),
        "float16": (r * 10).half(),
        "bfloat16": (r * 10).bfloat16(),
        "float32": r,
        "float64": r.double() / 3,
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
    }


# ---------------------------------------------------------------- torch.save
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
model.train()
model(torch.randn(8, 4))  # running stats move, num_batches_tracked = 1 (a 0-d int64)
sd = model.state_dict()
w = sd["0.weight"]
sd["extra.weight_t"] = w.t()  # non-contiguous, shares 0.weight's storage
sd["extra.weight_row1"] = w[1]  # storage offset 4, shares it too
sd["extra.ids"] = torch.arange(5, dtype=torch.int64) * 3 - 4
sd["extra.half"] = w.detach().to(torch.bfloat16)
torch.save(sd, p("state_dict.pt"))
expected["state_dict.pt"] = {k: describe(v) for k, v in sd.items()}
expected["state_dict.pt.order"] = list(sd.keys())

ad = all_dtypes()
torch.save(ad, p("all_dtypes.pt"))
expected["all_dtypes.pt"] = {k: describe(v) for k, v in ad.items()}

# An optimizer state dict: int keys, floats, tuples, None, bools, nested dicts and lists.
opt = torch.optim.AdamW(model[0].parameters(), lr=1e-3)
model(torch.randn(8, 4)).sum().backward()
opt.step()
osd = opt.state_dict()
ckpt = {"optimizer": osd, "epoch": 3, "loss": 0.125, "big": 2**40, "neg": -7, "name": "run-1",
        "size": torch.Size([2, 3]), "blob": b"ab\x00", "flags": [True, False, None]}
torch.save(ckpt, p("checkpoint.pt"))
expected["checkpoint.pt"] = {
    "exp_avg": describe(osd["state"][0]["exp_avg"]),
    "step": describe(osd["state"][0]["step"]),
    "lr": repr(osd["param_groups"][0]["lr"]),
    "betas": list(osd["param_groups"][0]["betas"]),
    "params": osd["param_groups"][0]["params"],
}

# Parameters (torch._utils._rebuild_parameter): requires_grad survives.
torch.save([model[0].weight, torch.nn.Parameter(torch.ones(2), requires_grad=False)], p("params.pt"))


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


# Pickling never runs the payload; loading it with weights_only=False would. tensile refuses.
torch.save({"x": torch.ones(1), "evil": Evil()}, p("evil.pt"))
torch.save({"x": torch.ones(2)}, p("legacy.pt"), _use_new_zipfile_serialization=False)
torch.save({"c": torch.ones(2, dtype=torch.complex64)}, p("complex.pt"))
# Two uint8 storages (any address is aligned for them: both are mapped from the file). The
# hostile-zip tests of io.rs rewrite its zip structure so that its members share bytes.
torch.save({"a": torch.arange(8, dtype=torch.uint8), "b": torch.arange(100, 160, dtype=torch.uint8)},
           p("two_u8.pt"))

# ---------------------------------------------------------------- safetensors
st = {k: v.contiguous() for k, v in ad.items()}
save_file(st, p("all_dtypes.safetensors"))
expected["all_dtypes.safetensors"] = {k: describe(v) for k, v in st.items()}
save_file({k: v.contiguous() for k, v in model.state_dict().items()}, p("model.safetensors"))
expected["model.safetensors"] = {k: describe(v) for k, v in model.state_dict().items()}

# ---------------------------------------------------------------- numpy
npys = {}
for k, v in ad.items():
    if v.dtype == torch.bfloat16:
        continue
    a = v.numpy()
    np.save(p(f"np_{k}.npy"), a)
    npys[f"np_{k}.npy"] = describe(v)
f = np.asfortranarray(np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7)
np.save(p("fortran.npy"), f)
npys["fortran.npy"] = {"dtype": "float64", "shape": [2, 3, 4], "stride": [1, 2, 6], "offset": 0,
                       "values": [num(v) for v in f.flatten().tolist()]}
be = np.arange(6, dtype=">i4").reshape(2, 3) - 2
np.save(p("big_endian.npy"), be)
npys["big_endian.npy"] = {"dtype": "int32", "shape": [2, 3], "stride": [3, 1], "offset": 0,
                          "values": be.flatten().tolist()}
np.save(p("uint16.npy"), np.arange(3, dtype=np.uint16))
expected["npy"] = npys
arrays = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "mask": np.array([True, False]),
          "f": np.asfortranarray(np.arange(6, dtype=np.int64).reshape(2, 3)), "s": np.array(7.5)}
np.savez(p("arrays.npz"), **arrays)
np.savez_compressed(p("compressed.npz"), **arrays)
expected["npz"] = {k: {"dtype": str(v.dtype).replace("bool", "bool"), "shape": list(v.shape),
                       "values": [num(x) for x in v.flatten().tolist()]}
                   for k, v in arrays.items()}
expected["npz.order"] = list(arrays.keys())

with open(p("expected.json"), "w") as fh:
    json.dump(expected, fh, indent=1, sort_keys=True)
total = sum(os.path.getsize(p(n)) for n in os.listdir(OUT))
print(f"wrote {len(os.listdir(OUT))} files, {total} bytes")
