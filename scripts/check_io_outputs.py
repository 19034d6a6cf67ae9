"""Reads back with PyTorch, safetensors and NumPy what tensile's io wrote (run by hand):

    TENSILE_IO_OUT=/tmp/tio cargo test --test io -- --ignored write_outputs_for_python
    /tmp/tv/bin/python scripts/check_io_outputs.py /tmp/tio
"""
import glob
import os
import sys

import numpy as np
import torch
from safetensors.torch import load_file

d = sys.argv[1]
st = load_file(os.path.join(d, "all.safetensors"))
f = torch.tensor([1.5, -2.25, 3.0e-3, 65504.0, -0.0, 7.0], dtype=torch.float64).reshape(2, 3)
for dt in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16,
           torch.float32, torch.float64]:
    name = str(dt).replace("torch.", "")
    assert st[name].dtype == dt and torch.equal(st[name], f.to(dt)), name
assert torch.equal(st["bool"], torch.tensor([True, False, True, True, False, False]).reshape(3, 2))
assert st["i64max"].tolist() == [-(2**63), 2**63 - 1, 0]
assert st["scalar"].shape == () and st["scalar"].item() == 4.5
assert st["empty"].shape == (0, 4)
m = torch.arange(24, dtype=torch.float32).reshape(4, 6)
assert torch.equal(st["t"], m.t()) and torch.equal(st["step"], m[:, ::2])
assert torch.equal(st["expand"], torch.arange(3).reshape(3, 1).expand(3, 4))
assert torch.equal(st["narrow"], m[1:3, 2:5])
print("safetensors: ok", len(st), "tensors")

for path in ["all.npz", "all_compressed.npz"]:
    z = np.load(os.path.join(d, path))
    for k in z.files:
        a = z[k]
        ref = st[k]
        assert a.shape == tuple(ref.shape) and a.dtype == ref.numpy().dtype, (path, k)
        assert np.array_equal(a, ref.numpy()), (path, k)
    print(path, ": ok", len(z.files), "arrays")
n = 0
for p in sorted(glob.glob(os.path.join(d, "*.npy"))):
    k = os.path.basename(p)[:-4]
    a = np.load(p)
    assert np.array_equal(a, st[k].numpy()) and a.dtype == st[k].numpy().dtype, k
    if k == "t":
        assert a.flags.f_contiguous and not a.flags.c_contiguous
    n += 1
print("npy: ok", n, "files")

model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
model.load_state_dict(load_file(os.path.join(d, "model.safetensors")))
ref = torch.load(os.path.join(os.path.dirname(__file__), "..", "tensile", "tests", "data", "io", "state_dict.pt"),
                 weights_only=True)
for k, v in model.state_dict().items():
    assert torch.equal(v, ref[k]), k
print("model.load_state_dict(load_file(tensile's file)): ok")
