#!/usr/bin/env python3
"""Writes the fixtures of tensile/tests/modules.rs from PyTorch.

Run with the PyTorch of the conformance corpus:
    /tmp/tv/bin/python scripts/make_module_fixtures.py

Outputs (tensile/tests/data/modules/):
  tensors.safetensors  every tensor, named "<case>/<what>"
  cases.json           state-dict key lists, error texts, scalars, init checksums

Each layer case is built after torch.manual_seed(SEED), so that the Rust test can build the
same layer after tensile::manual_seed(SEED) and compare the initial state dict;
then the forward output on the stored input is compared (the test first loads PyTorch's
state dict, so a forward failure is not an init failure).
"""
import json
import math
import os
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file

OUT = os.path.join(os.path.dirname(__file__), "..", "tensile", "tests", "data", "modules")
os.makedirs(OUT, exist_ok=True)

tensors = {}
cases = {}


def put(case, name, t):
    tensors[f"{case}/{name}"] = t.detach().contiguous().clone()


def state(case, m):
    sd = m.state_dict()
    for k, v in sd.items():
        put(case, "state/" + k, v)
    return list(sd.keys())


def gen(seed, *shape, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype)


def layer_case(case, seed, make, inputs, run=None, train=False, post=None):
    """make() after manual_seed(seed); stores the initial state dict (for the init check),
    optionally perturbs it (post), stores the state dict the forward uses, the inputs and
    the outputs of run(m, *inputs) (default m(*inputs))."""
    torch.manual_seed(seed)
    m = make()
    init_keys = []
    for k, v in m.state_dict().items():
        put(case, "init/" + k, v)
        init_keys.append(k)
    if post is not None:
        with torch.no_grad():
            post(m)
    keys = state(case, m)
    m.train(train)
    for i, x in enumerate(inputs):
        put(case, f"in{i}", x)
    outs = run(m, *inputs) if run is not None else m(*inputs)
    if isinstance(outs, torch.Tensor):
        outs = [outs]
    for i, o in enumerate(outs):
        put(case, f"out{i}", o)
    cases[case] = {"seed": seed, "keys": keys, "n_in": len(inputs), "n_out": len(outs)}
    return m


def rand_affine(m):
    for n, p in m.named_parameters():
        p.copy_(gen(hash(n) % 1000, *p.shape))


# ---------------------------------------------------------------- layers
layer_case("linear", 1, lambda: nn.Linear(5, 3), [gen(10, 2, 4, 5)])
layer_case("linear_nobias", 2, lambda: nn.Linear(4, 2, bias=False), [gen(11, 3, 4)])
layer_case("conv1d", 3, lambda: nn.Conv1d(3, 4, 3, stride=2, padding=1), [gen(12, 2, 3, 9)])
layer_case("conv2d", 4, lambda: nn.Conv2d(2, 4, 3, padding=1), [gen(13, 2, 2, 5, 5)])
layer_case(
    "conv2d_groups",
    5,
    lambda: nn.Conv2d(4, 6, (3, 2), stride=(2, 1), groups=2, padding="valid"),
    [gen(14, 2, 4, 7, 5)],
)
layer_case(
    "conv2d_reflect",
    6,
    lambda: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect", bias=False),
    [gen(15, 1, 2, 4, 5)],
)
layer_case("layernorm", 7, lambda: nn.LayerNorm(6), [gen(16, 2, 3, 6)], post=rand_affine)
layer_case("layernorm2", 8, lambda: nn.LayerNorm([3, 6], eps=1e-3), [gen(17, 2, 3, 6)], post=rand_affine)
layer_case("rmsnorm", 9, lambda: nn.RMSNorm(6), [gen(18, 2, 3, 6)], post=rand_affine)
layer_case("groupnorm", 10, lambda: nn.GroupNorm(2, 4), [gen(19, 2, 4, 3, 3)], post=rand_affine)
layer_case(
    "embedding",
    11,
    lambda: nn.Embedding(10, 4, padding_idx=2),
    [torch.tensor([[1, 2, 9], [0, 2, 5]])],
)
layer_case("embedding_big", 12, lambda: nn.Embedding(7, 5), [torch.tensor([6, 0, 3])])
x_act = gen(20, 3, 5)
layer_case("relu", 13, nn.ReLU, [x_act])
layer_case("gelu", 13, nn.GELU, [x_act])
layer_case("gelu_tanh", 13, lambda: nn.GELU(approximate="tanh"), [x_act])
layer_case("silu", 13, nn.SiLU, [x_act])
layer_case("tanh", 13, nn.Tanh, [x_act])
layer_case("flatten", 13, nn.Flatten, [gen(21, 2, 3, 2, 2)])
x_pool = gen(22, 2, 3, 7, 6)
layer_case("maxpool", 14, lambda: nn.MaxPool2d(2), [x_pool])
layer_case("maxpool_s", 14, lambda: nn.MaxPool2d(3, stride=2, padding=1), [x_pool])
layer_case("avgpool", 14, lambda: nn.AvgPool2d(2), [x_pool])
layer_case(
    "avgpool_s", 14, lambda: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), [x_pool]
)
layer_case("adaptive", 14, lambda: nn.AdaptiveAvgPool2d((3, 2)), [x_pool])


# batch norm: two training forwards (running stats), then an eval forward
def bn_run(m, x1, x2, x3):
    m.train()
    o1 = m(x1)
    o2 = m(x2)
    rm, rv, nbt = m.running_mean.clone(), m.running_var.clone(), m.num_batches_tracked.clone()
    m.eval()
    o3 = m(x3)
    return [o1, o2, rm, rv, nbt.to(torch.float32), o3]


layer_case(
    "batchnorm1d", 15, lambda: nn.BatchNorm1d(3), [gen(23, 4, 3), gen(24, 4, 3), gen(25, 2, 3)],
    run=bn_run, post=rand_affine,
)
layer_case(
    "batchnorm1d_3d", 16, lambda: nn.BatchNorm1d(3, momentum=None),
    [gen(26, 2, 3, 4), gen(27, 2, 3, 4), gen(28, 2, 3, 4)], run=bn_run,
)
layer_case(
    "batchnorm2d", 17, lambda: nn.BatchNorm2d(3),
    [gen(29, 2, 3, 4, 4), gen(30, 2, 3, 4, 4), gen(31, 1, 3, 4, 4)], run=bn_run, post=rand_affine,
)


# attention
def mha_run(m, q, k, v):
    o, w = m(q, k, v)
    o2, w2 = m(q, k, v, average_attn_weights=False)
    o3, _ = m(q, k, v, need_weights=False)
    kpm = torch.zeros(q.shape[1] if not m.batch_first else q.shape[0], k.shape[0] if not m.batch_first else k.shape[1], dtype=torch.bool)
    kpm[0, -2:] = True
    o4, w4 = m(q, k, v, key_padding_mask=kpm)
    return [o, w, o2, w2, o3, o4, w4]


layer_case(
    "mha", 18, lambda: nn.MultiheadAttention(8, 2),
    [gen(32, 4, 2, 8), gen(33, 5, 2, 8), gen(34, 5, 2, 8)], run=mha_run,
)
layer_case(
    "mha_bf", 19, lambda: nn.MultiheadAttention(8, 4, batch_first=True),
    [gen(35, 2, 4, 8), gen(36, 2, 5, 8), gen(37, 2, 5, 8)], run=mha_run,
)


# recurrent
def lstm_run(m, x, h0, c0):
    o, (h, c) = m(x)
    o2, (h2, c2) = m(x, (h0, c0))
    return [o, h, c, o2, h2, c2]


def gru_run(m, x, h0):
    o, h = m(x)
    o2, h2 = m(x, h0)
    return [o, h, o2, h2]


layer_case(
    "lstm", 20, lambda: nn.LSTM(5, 4, num_layers=2, bidirectional=True),
    [gen(38, 6, 3, 5), gen(39, 4, 3, 4), gen(40, 4, 3, 4)], run=lstm_run,
)
layer_case(
    "lstm_bf", 21, lambda: nn.LSTM(5, 3, batch_first=True),
    [gen(41, 2, 4, 5), gen(42, 1, 2, 3), gen(43, 1, 2, 3)], run=lstm_run,
)
layer_case(
    "gru", 22, lambda: nn.GRU(5, 4, num_layers=2),
    [gen(44, 6, 3, 5), gen(45, 2, 3, 4)], run=gru_run,
)
layer_case(
    "gru_unbatched", 23, lambda: nn.GRU(3, 4, bidirectional=True, bias=False),
    [gen(46, 5, 3), gen(47, 2, 4)], run=gru_run,
)


# ---------------------------------------------------------------- the two training models
def mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def cnn():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(512, 10),
    )


for name, make, x in [("mlp", mlp, gen(50, 4, 64)), ("cnn", cnn, gen(51, 4, 1, 8, 8))]:
    torch.manual_seed(0)
    m = make()
    target = torch.tensor([3, 0, 9, 1])
    out = m(x)
    loss = F.cross_entropy(out, target)
    loss.backward()
    put(name, "in0", x)
    put(name, "out0", out)
    summary = {}
    for k, v in m.state_dict().items():
        summary[k] = {
            "shape": list(v.shape),
            "sum": v.double().sum().item(),
            "sumsq": v.double().pow(2).sum().item(),
            "first": v.flatten()[:6].tolist(),
        }
    grads = {}
    for k, p in m.named_parameters():
        grads[k] = {"sum": p.grad.double().sum().item(), "sumsq": p.grad.double().pow(2).sum().item()}
    cases[name] = {
        "keys": list(m.state_dict().keys()),
        "named_parameters": [k for k, _ in m.named_parameters()],
        "loss": loss.item(),
        "target": target.tolist(),
        "init": summary,
        "grads": grads,
    }

# ---------------------------------------------------------------- load_state_dict errors
errors = []


def err_case(name, make, sd_fn, strict=True):
    torch.manual_seed(0)
    m = make()
    sd = dict(m.state_dict())  # a plain dict, as from a safetensors file
    sd = sd_fn(sd)
    entry = {"name": name, "strict": strict}
    try:
        r = m.load_state_dict(sd, strict=strict)
        entry["missing"] = list(r.missing_keys)
        entry["unexpected"] = list(r.unexpected_keys)
    except RuntimeError as e:
        entry["error"] = str(e)
    errors.append(entry)


def drop(*ks):
    def f(sd):
        for k in ks:
            del sd[k]
        return sd
    return f


def add(**kv):
    def f(sd):
        for k, v in kv.items():
            sd[k.replace("__", ".")] = v
        return sd
    return f


def chain(*fs):
    def f(sd):
        for g in fs:
            sd = g(sd)
        return sd
    return f


def resize(k, shape):
    def f(sd):
        sd[k] = torch.zeros(shape)
        return sd
    return f


def small_bn():
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Linear(3, 2))


err_case("missing_one", mlp, drop("0.weight"))
err_case("missing_two", mlp, drop("0.weight", "2.bias"))
err_case("unexpected", mlp, add(**{"5.weight": torch.zeros(1), "1.foo": torch.zeros(1), "0.weight.x": torch.zeros(1), "extra": torch.zeros(1)}))
err_case("size_mismatch", mlp, resize("2.weight", (10, 127)))
err_case(
    "everything", mlp,
    chain(drop("0.bias"), add(**{"2.extra": torch.zeros(1)}), resize("0.weight", (3, 64)), resize("2.bias", (9,))),
)
err_case("non_strict", mlp, chain(drop("0.bias"), add(**{"2.extra": torch.zeros(1)})), strict=False)
err_case("non_strict_size", mlp, chain(drop("0.bias"), resize("2.bias", (9,))), strict=False)
err_case("bn_no_count", small_bn, drop("1.num_batches_tracked"))
err_case("bn_missing_mean", small_bn, drop("1.running_mean"))
err_case("linear_alone", lambda: nn.Linear(3, 2), drop("bias"))
err_case("lstm_missing", lambda: nn.LSTM(3, 2, num_layers=2), drop("weight_hh_l1", "bias_ih_l0"))
err_case("mha_missing", lambda: nn.MultiheadAttention(4, 2), drop("out_proj.weight"))
cases["load_errors"] = errors

# ---------------------------------------------------------------- init functions
init = {}


def init_case(name, seed, shape, fn, dtype=torch.float32):
    torch.manual_seed(seed)
    t = torch.empty(shape, dtype=dtype)
    fn(t)
    put("init", name, t)
    init[name] = {"seed": seed, "shape": list(shape), "dtype": str(dtype)}


init_case("uniform", 1, (7, 3), lambda t: nn.init.uniform_(t, -0.3, 0.7))
init_case("uniform_f64", 2, (5,), lambda t: nn.init.uniform_(t, -2, 3), dtype=torch.float64)
init_case("normal_small", 3, (3, 3), lambda t: nn.init.normal_(t, 0.5, 2.0))
init_case("normal_big", 4, (37,), lambda t: nn.init.normal_(t, 0.5, 2.0))
init_case("normal_f64", 5, (41,), lambda t: nn.init.normal_(t, -1, 0.5), dtype=torch.float64)
init_case("normal_f64_small", 5, (5,), lambda t: nn.init.normal_(t, -1, 0.5), dtype=torch.float64)
init_case("kaiming_uniform", 6, (6, 5), lambda t: nn.init.kaiming_uniform_(t, a=math.sqrt(5)))
init_case("kaiming_uniform_relu", 7, (4, 3, 2, 2), lambda t: nn.init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"))
init_case("kaiming_normal", 8, (8, 4), lambda t: nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"))
init_case("xavier_uniform", 9, (5, 7), lambda t: nn.init.xavier_uniform_(t, gain=nn.init.calculate_gain("tanh")))
init_case("xavier_normal", 10, (6, 6), nn.init.xavier_normal_)
gains = {
    n: nn.init.calculate_gain(n, p) if p is not None else nn.init.calculate_gain(n)
    for n, p in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None), ("selu", None)]
}
gains["leaky_relu_0.2"] = nn.init.calculate_gain("leaky_relu", 0.2)
init_errors = {}
for name, fn in [
    ("mode", lambda: nn.init.kaiming_uniform_(torch.empty(3, 3), mode="fan_avg")),
    ("fan", lambda: nn.init.kaiming_uniform_(torch.empty(3))),
    ("gain", lambda: nn.init.calculate_gain("softmax")),
]:
    try:
        fn()
    except ValueError as e:
        init_errors[name] = str(e)
cases["init"] = {"cases": init, "gains": gains, "errors": init_errors}

# ---------------------------------------------------------------- clip_grad_norm_
clip = []
for i, (max_norm, norm_type) in enumerate([(1.0, 2.0), (0.5, float("inf")), (100.0, 2.0), (2.0, 1.0)]):
    ps = [torch.nn.Parameter(gen(60 + j, *s)) for j, s in enumerate([(3, 4), (5,), (2, 2, 2)])]
    for j, p in enumerate(ps):
        p.grad = gen(70 + j, *p.shape)
        put(f"clip{i}", f"gin{j}", p.grad)
    ps.append(torch.nn.Parameter(torch.zeros(2)))  # no grad
    total = torch.nn.utils.clip_grad_norm_(ps, max_norm, norm_type)
    for j, p in enumerate(ps[:3]):
        put(f"clip{i}", f"grad{j}", p.grad)
    clip.append({"max_norm": max_norm, "norm_type": "inf" if math.isinf(norm_type) else norm_type, "total": total.item()})
cases["clip"] = clip

save_file(tensors, os.path.join(OUT, "tensors.safetensors"))
with open(os.path.join(OUT, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1, sort_keys=True)
print(len(tensors), "tensors;", os.path.getsize(os.path.join(OUT, "tensors.safetensors")), "bytes")

# ---------------------------------------------------------------- constructor and forward errors
layer_errors = {}


def layer_err(name, fn):
    try:
        fn()
        raise SystemExit(f"{name}: no error")
    except (ValueError, RuntimeError, AssertionError) as e:
        layer_errors[name] = [type(e).__name__, str(e)]


layer_err("conv_groups_in", lambda: nn.Conv2d(3, 4, 3, groups=2))
layer_err("conv_groups_out", lambda: nn.Conv2d(4, 3, 3, groups=2))
layer_err("conv_groups_zero", lambda: nn.Conv2d(4, 4, 3, groups=0))
layer_err("conv_same_strided", lambda: nn.Conv2d(4, 4, 3, stride=2, padding="same"))
layer_err("conv_padding_mode", lambda: nn.Conv2d(4, 4, 3, padding_mode="mirror"))
layer_err("groupnorm_div", lambda: nn.GroupNorm(3, 4))
layer_err("dropout_p", lambda: nn.Dropout(1.5))
layer_err("mha_div", lambda: nn.MultiheadAttention(6, 4))
layer_err("mha_zero", lambda: nn.MultiheadAttention(0, 2))
layer_err("embedding_pad", lambda: nn.Embedding(5, 2, padding_idx=5))
layer_err("lstm_hidden", lambda: nn.LSTM(3, 0))
layer_err("lstm_layers", lambda: nn.LSTM(3, 2, num_layers=0))
layer_err("lstm_dropout", lambda: nn.LSTM(3, 2, dropout=2.0))
layer_err("bn1d_dim", lambda: nn.BatchNorm1d(3)(torch.zeros(2, 3, 4, 5)))
layer_err("bn2d_dim", lambda: nn.BatchNorm2d(3)(torch.zeros(2, 3, 4)))
layer_err("bn_one_value", lambda: nn.BatchNorm1d(3)(torch.zeros(1, 3)))
layer_err("lstm_input_dim", lambda: nn.LSTM(3, 2)(torch.zeros(2, 3, 4, 5)))
layer_err("lstm_input_size", lambda: nn.LSTM(3, 2)(torch.zeros(4, 2, 5)))
layer_err("lstm_hidden_size", lambda: nn.LSTM(3, 2, num_layers=2)(torch.zeros(4, 2, 3), (torch.zeros(1, 2, 2), torch.zeros(2, 2, 2))))
layer_err("gru_hidden_size", lambda: nn.GRU(3, 2)(torch.zeros(4, 2, 3), torch.zeros(1, 3, 2)))
layer_err("gru_input_dim", lambda: nn.GRU(3, 2)(torch.zeros(3)))
layer_err("mha_embed", lambda: nn.MultiheadAttention(8, 2)(torch.zeros(3, 2, 6), torch.zeros(3, 2, 6), torch.zeros(3, 2, 6)))
layer_err("linear_shape", lambda: nn.Linear(3, 2)(torch.zeros(4, 5)))
cases["layer_errors"] = layer_errors
with open(os.path.join(OUT, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1, sort_keys=True)
