"""The op suite of bench/ops.txt on PyTorch: parses the table (the same grammar as
tensile/examples/bench_ops/mod.rs) and builds each case lazily, so `--only` builds only the
inputs of the cases asked for. See the header of ops.txt for the grammar."""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OPS_LAT_INNER = 2000  # ops per rep for the table's latency (`ns`) cases, at most


def lat_inner(one):
    """Ops per rep for a latency case whose one op took `one` seconds: OPS_LAT_INNER, or fewer
    so that a rep stays near 10 ms (the same rule as tensile/examples/bench_ops/mod.rs)."""
    return max(10, min(OPS_LAT_INNER, int(0.01 / max(one, 1e-9))))

TENSOR = re.compile(r"^(f32|f64|f16|bf16|i64|i32|u8|bool)\[([0-9,]*)\](.*)$")


def read_table(path=os.path.join(HERE, "ops.txt")):
    """[(name, unit, op, [arg tokens], {key: value token})] in file order."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            toks = line.split()
            name, unit, op = toks[:3]
            args, kw = [], {}
            for t in toks[3:]:
                if "=" in t and not t.startswith("["):
                    k, v = t.split("=", 1)
                    kw[k] = v
                else:
                    args.append(t)
            rows.append((name, unit, op, args, kw))
    return rows


def literal(tok):
    """A Python literal: int, float, bool, None, list of ints; anything else a string."""
    if tok in ("True", "False"):
        return tok == "True"
    if tok == "None":
        return None
    if tok.startswith("["):
        return [literal(x) for x in tok[1:-1].split(",") if x]
    for conv in (int, float):
        try:
            return conv(tok)
        except ValueError:
            pass
    return tok


def count_expr(tok):
    n = 1
    for f in tok.split("*"):
        n *= int(f)
    return n


def make_tensor(torch, tok, gen):
    m = TENSOR.match(tok)
    dt, shape, mods = m.group(1), [int(s) for s in m.group(2).split(",") if s], m.group(3)
    dtype = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
             "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32,
             "u8": torch.uint8, "bool": torch.bool}[dt]
    lo = hi = None
    if "@" in mods:
        mods, rng = mods.split("@", 1)
        lo, hi = (float(x) for x in rng.split(":"))
    build = list(shape)
    perm = None
    expand = None
    for mod in re.findall(r"\.(T|s2|cl|sorted|p\d+|e\d+x\d+)", mods):
        if mod == "T":
            build[-2], build[-1] = build[-1], build[-2]
        elif mod == "s2":
            build[-1] *= 2
        elif mod.startswith("p"):
            perm = [int(c) for c in mod[1:]]
        elif mod.startswith("e"):
            expand = [int(x) for x in mod[1:].split("x")]
    if dtype == torch.bool:
        # `@1:2` gives all True, `@0:1` all False; the default is p = 0.5
        t = (torch.rand(build, generator=gen) < 0.5) if lo is None else \
            torch.full(build, lo >= 1.0, dtype=torch.bool)
    elif dtype.is_floating_point:
        lo_, hi_ = (0.5, 1.5) if lo is None else (lo, hi)
        t = (torch.rand(build, generator=gen, dtype=torch.float64) * (hi_ - lo_) + lo_).to(dtype)
    else:
        lo_, hi_ = (0, 100) if lo is None else (int(lo), int(hi))
        t = torch.randint(lo_, hi_, build, generator=gen, dtype=torch.int64).to(dtype)
    mods_l = re.findall(r"\.(T|s2|cl|sorted|p\d+|e\d+x\d+)", mods)
    if "sorted" in mods_l:
        t = t.sort(-1).values.contiguous()
    if "T" in mods_l:
        t = t.transpose(-2, -1)
    if "s2" in mods_l:
        t = t[..., ::2]
    if "cl" in mods_l:
        t = t.contiguous(memory_format=torch.channels_last)
    if perm is not None:
        t = t.permute(perm)
    if expand is not None:
        t = t.expand(expand)
    return t


def resolve(torch, op):
    import torch.nn.functional as F
    if op.startswith("F."):
        return getattr(F, op[2:])
    if op.startswith("linalg."):
        return getattr(torch.linalg, op[7:])
    if op.startswith("special."):
        return getattr(torch.special, op[8:])
    if op.startswith("T."):
        name = op[2:]
        return lambda x, *a, **k: getattr(x, name)(*a, **k)
    special = {
        "getitem_basic": lambda x: x[1, 2:100:2],
        "getitem_tensor": lambda x, i: x[i],
        "cat_pair": lambda a, b, dim: torch.cat([a, b], dim=dim),
        "stack_pair": lambda a, b, dim: torch.stack([a, b], dim=dim),
        "repr": lambda x: repr(x),
        "lstm_layer": lambda x, h, c, wi, wh, bi, bh: torch.lstm(
            x, (h, c), (wi, wh, bi, bh), True, 1, 0.0, False, False, False)[0],
    }
    return special.get(op) or getattr(torch, op)


def op_cases(torch):
    """{name: (fn, count_or_None, unit)}; count None means: max(numel of the tensor inputs,
    numel of the first output), fixed at the first (warm-up) call."""
    rows = read_table()
    cases = {}
    for name, unit, op, args, kw in rows:
        def make(op=op, args=args, kw=kw, name=name):
            gen = torch.Generator().manual_seed(abs(hash(name)) % (2 ** 31))
            vals = [make_tensor(torch, a, gen) if TENSOR.match(a) else literal(a) for a in args]
            kws = {}
            for k, v in kw.items():
                if k == "count":
                    continue
                if k == "dtype":
                    kws[k] = getattr(torch, v)
                else:
                    kws[k] = literal(v)
            fn = resolve(torch, op)
            return (lambda: fn(*vals, **kws)), vals

        state = {}

        def call(make=make, state=state, kw=kw):
            if "f" not in state:
                f, vals = make()
                state["f"] = f
                out = f()
                first = out[0] if isinstance(out, (tuple, list)) else out
                n = max([v.numel() for v in vals if isinstance(v, torch.Tensor)]
                        + [first.numel() if isinstance(first, torch.Tensor) else 0])
                state["count"] = count_expr(kw["count"]) if "count" in kw else n
            return state["f"]()

        cases[name] = (call, state, unit)
    return cases
