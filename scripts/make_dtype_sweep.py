#!/usr/bin/env python3
"""Every op of the shared corpus on every dtype, as PyTorch 2.15's CPU kernels take or refuse it.

Families `local_dtypes` (integer and bool targets) and `local_dtypes_half` (float16 and
bfloat16 targets): for each op of the single-call families (conv, pool, norm, loss, unary,
math, reduce, scan, ...), cases of the shared corpus are taken again with every floating tensor
(positional or keyword) turned into each other dtype (bool, uint8, int8, int16, int32, int64,
float16, bfloat16), and run through PyTorch. Whatever PyTorch does is the expectation: a result
(integer max pooling, integer convolution, bool unfold) or an error (`"..." not implemented for
'Long'`, which the corpus format compares by type). So an op's dtype list is checked against
PyTorch's dispatch macros as a whole, not case by case (issue 30).

Values: a float value v becomes round(4·v) for signed integer dtypes, |round(4·v)| for uint8,
v > 0 for bool, and v itself (rounded) for the half types. Each case runs under 1 and 2 threads;
a case whose result differs between them is not emitted.

Usage (needs torch, and the shared conformance folder beside the repo):
    python3 scripts/make_dtype_sweep.py [--shared ../shared/conformance] [--per 3] [--seed 5]
writes tensile/tests/corpus/local_dtypes.jsonl and local_dtypes_half.jsonl.
"""
import argparse
import copy
import json
import os
import random
import sys

ap = argparse.ArgumentParser()
ap.add_argument('--shared', default=os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'conformance'))
ap.add_argument('--per', type=int, default=3, help='results kept per (op, dtype); errors: 1')
ap.add_argument('--seed', type=int, default=5)
args = ap.parse_args()
shared = os.path.abspath(args.shared)
sys.path.insert(0, shared)
import gen  # noqa: E402
import replay  # noqa: E402
import torch  # noqa: E402

replay.load_plugins()
import replay_indexing  # noqa: E402
import replay_nn  # noqa: E402

R = random.Random(args.seed)
FAMILIES = ['conv', 'pool', 'norm', 'loss', 'attention', 'unary', 'math', 'reduce', 'scan', 'sort_search',
            'gather_scatter', 'shape_ops', 'matmul', 'binary']
# family -> target dtypes: the integer/bool dtype lists, and the half types apart (their
# rounding points are a class of their own, pending in the conformance test until done)
TARGETS = {'local_dtypes': ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64'],
           'local_dtypes_half': ['float16', 'bfloat16']}
FLOATS = ('float32', 'float64')
INT_RANGE = {'uint8': (0, 255), 'int8': (-128, 127), 'int16': (-32768, 32767), 'int32': (-2**31, 2**31 - 1),
             'int64': (-2**63, 2**63 - 1)}


def conv_value(v, dt):
    v = replay.num(v)
    if v != v or v in (float('inf'), float('-inf')):
        return None
    if dt == 'bool':
        return v > 0
    if dt in ('float16', 'bfloat16'):
        t = torch.tensor([v], dtype=replay.DT[dt])
        return gen.storage_values(t)[0]
    x = int(round(4 * v))
    if dt == 'uint8':
        x = abs(x)
    lo, hi = INT_RANGE[dt]
    return min(max(x, lo), hi)


def retype(a, dt):
    """ARG a with every floating tensor in it turned into dt; None if a value has no image."""
    if isinstance(a, list):
        out = [retype(x, dt) for x in a]
        return None if any(x is None and y is not None for x, y in zip(out, a)) else out
    if not isinstance(a, dict):
        return a
    if 'tensor' in a and isinstance(a['tensor'], dict) and 'storage' in a['tensor']:
        s = a['tensor']
        if s['dtype'] not in FLOATS:
            return a
        vals = [conv_value(v, dt) for v in s['storage']]
        if any(v is None for v in vals):
            return None
        b = copy.deepcopy(a)
        b['tensor']['dtype'] = dt
        b['tensor']['storage'] = vals
        b['tensor'].pop('requires_grad', None)
        return b
    if 'tensors' in a:
        ts = [retype(x, dt) for x in a['tensors']]
        return None if any(x is None for x in ts) else dict(a, tensors=ts)
    return a


def distinct(args):
    """The number of distinct values in the first tensor argument's storage."""
    for a in args:
        if isinstance(a, dict) and 'tensor' in a and isinstance(a['tensor'], dict) and 'storage' in a['tensor']:
            return len({json.dumps(v) for v in a['tensor']['storage']})
    return 0


def has_float(a):
    return '"float32"' in json.dumps(a) or '"float64"' in json.dumps(a)


def execute(fam, op, a, kw):
    """PyTorch's result of the case, as its family's replay reads it: (result, args, error)."""
    if fam in replay_indexing.FAMILIES:
        vals = [replay_indexing.dec_arg(x)[0] for x in a]
        k = replay_indexing.dec_kw(kw)
        r, err = gen.run(lambda: replay_indexing.call_op(op, vals, k))
    else:
        vals = [replay.arg(x)[0] for x in a]
        k = replay_nn.kwargs_of(kw)
        r, err = gen.run(lambda: replay.call(op, vals, k))
    return r, vals, err


def encode(r, vals, err):
    if err:
        return err
    if isinstance(r, torch.Tensor):
        return {'tensor': gen.enc_out(r, vals)}
    if isinstance(r, (tuple, list)) and all(isinstance(x, torch.Tensor) for x in r):
        return {'tensors': [gen.enc_out(x, vals) for x in r]}
    return None


def stable(fam, op, a, kw):
    outs = []
    nt = torch.get_num_threads()
    try:
        for th in (1, 2):
            torch.set_num_threads(th)
            outs.append(encode(*execute(fam, op, a, kw)))
    finally:
        torch.set_num_threads(nt)
    if outs[0] is None or json.dumps(outs[0], sort_keys=True) != json.dumps(outs[1], sort_keys=True):
        return None
    return outs[0]


out = gen.Out(os.path.join(os.path.dirname(__file__), '..', 'tensile', 'tests', 'corpus'))
for fam in FAMILIES:
    cases = [json.loads(line) for line in open(os.path.join(shared, 'corpus', fam + '.jsonl'))]
    cases = [c for c in cases if 'error' not in c['expect'] and 'mutated' not in c['expect']
             and has_float([c['args'], c['kwargs']])]
    by_op = {}
    for c in cases:
        by_op.setdefault(c['op'], []).append(c)
    for op in sorted(by_op):
        pool = by_op[op]
        R.shuffle(pool)
        for fam_out, dt in [(f, d) for f, ds in TARGETS.items() for d in ds]:
            kept = errs = 0
            for c in pool[:40]:
                if kept >= args.per:
                    break
                a = retype(c['args'], dt)
                kw = {k: retype(v, dt) for k, v in c['kwargs'].items()}
                if a is None or any(v is None and c['kwargs'][k] is not None for k, v in kw.items()):
                    continue
                if fam == 'sort_search' and distinct(a) < distinct(c['args']):
                    continue  # new ties: their order is the sorting algorithm's, not a rule
                e = stable(fam, op, a, kw)
                if e is None:
                    continue
                if 'error' in e:
                    if errs >= 1 or e['error']['type'] == 'TypeError':
                        continue
                    errs += 1
                else:
                    kept += 1
                out.emit(fam_out, op, a, e, kw)
out.close()
print(out.counts)
