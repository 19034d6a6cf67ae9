#!/usr/bin/env python3
"""Cases for the rules of issue 30 that the shared corpus does not reach, computed by PyTorch.

Family `local_rules` (corpus format, compared like every family):
- `cdist` with more than 25 rows (PyTorch's matrix-product Euclidean distance), each
  `compute_mode`, batched, forward and as `grad` cases (whose node names show the switch);
- `avg_pool2d`/`avg_pool3d` with a negative `divisor_override`;
- `conv_transpose1d` whose output is too small and whose operands' dtypes differ (the size
  error comes first);
- `local_response_norm` with `size` <= 0 (the pooling's error) and on int64;
- integer convolutions that wrap (int8, uint8) and integer max/avg pooling.

And `tensile/tests/rules/linspace.json`: `torch.linspace` values bit for bit (float32 and
float64, short and vectorized lengths), which a tolerance cannot check (the midpoint of
`linspace(-1, 1, 7)` is -2.98e-8 in PyTorch).

Usage (needs torch, and the shared generator beside the repo for its encoders):
    python3 scripts/make_rules_corpus.py [--shared ../shared/conformance]
"""
import argparse
import json
import os
import random
import sys

ap = argparse.ArgumentParser()
ap.add_argument('--shared', default=os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'conformance'))
args = ap.parse_args()
sys.path.insert(0, os.path.abspath(args.shared))
import gen  # noqa: E402
import replay  # noqa: E402
import torch  # noqa: E402

replay.load_plugins()
import replay_autograd as RA  # noqa: E402
import torch.nn.functional as F  # noqa: E402

gen.R = random.Random(30)
R = gen.R
here = os.path.dirname(__file__)
out = gen.Out(os.path.join(here, '..', 'tensile', 'tests', 'corpus'))
FAM = 'local_rules'


def T(size, dtype='float32', values=None, layout='contig'):
    if values is None:
        values = (lambda k: [round(R.uniform(-3, 3), 3) for _ in range(k)]) if dtype.startswith('float') \
            else (lambda k: [R.randint(-9, 9) if dtype != 'uint8' else R.randint(0, 200) for _ in range(k)])
    return gen.make_input(list(size), dtype, layout, values)


def emit(op, tensors, specs, fn, kwargs=None):
    r, err = gen.run(fn)
    if err:
        out.emit(FAM, op, specs, err, kwargs)
    elif isinstance(r, torch.Tensor):
        out.emit(FAM, op, specs, {'tensor': gen.enc_out(r, tensors)}, kwargs)
    else:
        out.emit(FAM, op, specs, {'tensors': [gen.enc_out(x, tensors) for x in r]}, kwargs)


# cdist: the matrix-product switch
for rows, cols, mode, batch, dt in [(30, 8, None, [], 'float32'), (26, 3, None, [], 'float64'),
                                    (25, 4, None, [], 'float32'), (5, 4, 'use_mm_for_euclid_dist', [], 'float32'),
                                    (40, 5, 'donot_use_mm_for_euclid_dist', [], 'float32'),
                                    (27, 4, None, [2], 'float32'), (30, 6, None, [3], 'float64')]:
    # distances between different rows: a row's distance to itself is a residue whose value
    # depends on the BLAS's summation order (MKL's, in PyTorch), which no rule fixes
    a, sa = T(batch + [rows, cols], dt)
    b, sb = T([R.randint(2, 40), cols], dt)
    kw = {'p': 2.0}
    if mode:
        kw['compute_mode'] = mode
    emit('cdist', [a, b], [sa, sb], lambda: torch.cdist(a, b, **kw), kw)
    # the recorded graph shows the switch: `ViewBackward0` over `EuclideanDistBackward0`, or
    # `CdistBackward0`, and the gradients of either formula
    for spec in (sa, sb):
        spec['tensor']['requires_grad'] = True
    shape = list(torch.cdist(a, b, **kw).shape)
    go = gen.make_input(shape, dt, 'contig', lambda k: [round(R.uniform(-2, 2), 2) for _ in range(k)])[1]
    case = {'op': 'grad', 'args': [sa, sb], 'kwargs': dict({'fn': 'cdist', 'grad_output': go}, **kw)}
    exp = RA.exec_grad(case)
    out.emit(FAM, 'grad', case['args'], exp, case['kwargs'])

# avg_pool with a negative divisor_override
for op, size, k in [('avg_pool2d', [1, 2, 4, 5], 2), ('avg_pool3d', [1, 2, 3, 4, 4], 2),
                    ('avg_pool2d', [2, 3, 5], 3)]:
    for dv in (-2, -3, -1):
        x, sx = T(size)
        kw = {'kernel_size': k, 'divisor_override': dv}
        emit(op, [x], [sx], lambda: getattr(F, op)(x, **kw), kw)
    x, sx = T(size, 'int64')
    kw = {'kernel_size': k, 'divisor_override': -3, 'padding': 1}
    emit(op, [x], [sx], lambda: getattr(F, op)(x, **kw), kw)

# conv_transpose1d: output size before dtype
for xd, wd in [('float64', 'float32'), ('float32', 'float64')]:
    x, sx = T([1, 2, 1], xd)
    w, sw = T([2, 1, 1], wd)
    kw = {'padding': 1}
    emit('conv_transpose1d', [x, w], [sx, sw], lambda: F.conv_transpose1d(x, w, **kw), kw)

# local_response_norm: size <= 0, integer input
for size, shape, dt in [(0, [2, 3, 4], 'float32'), (-1, [2, 3, 4, 5], 'float32'), (2, [2, 4, 3], 'int64'),
                        (3, [1, 5, 2, 2], 'int64'), (3, [1, 5, 2, 2], 'int32')]:
    x, sx = T(shape, dt)
    kw = {'size': size}
    emit('local_response_norm', [x], [sx], lambda: F.local_response_norm(x, **kw), kw)

# integer convolutions that wrap, integer pooling
for dt in ('int8', 'uint8', 'int16'):
    big = (lambda k: [R.choice([100, 120, 90]) for _ in range(k)])
    x, sx = T([1, 2, 4, 4], dt, big)
    w, sw = T([3, 2, 2, 2], dt, big)
    emit('conv2d', [x, w], [sx, sw], lambda: F.conv2d(x, w), {})
    kw = {'kernel_size': 2, 'padding': 1, 'return_indices': True}
    emit('max_pool2d', [x], [sx], lambda: F.max_pool2d(x, **kw), kw)
x, sx = T([2, 3, 5], 'int64')
w, sw = T([3, 1, 2], 'int64')
b, sb = T([3], 'int64')
kw = {'bias': sb, 'groups': 3, 'stride': 2, 'padding': 1}
emit('conv1d', [x, w, b], [sx, sw], lambda: F.conv1d(x, w, bias=b, groups=3, stride=2, padding=1), kw)
kw = {'bias': sb, 'stride': 2, 'output_padding': 1}
w2, sw2 = T([3, 2, 2], 'int64')
emit('conv_transpose1d', [x, w2, b], [sx, sw2], lambda: F.conv_transpose1d(x, w2, bias=b, stride=2, output_padding=1), kw)
# gradients through views and multi-output ops
def grad_case(fn, specs, kw, go_shapes):
    """A `grad` case: `fn(*specs, **kw)`, then backward with random grad_outputs (None where a
    shape is None)."""
    for sp in specs:
        if 'tensor' in sp and sp['tensor']['dtype'].startswith('float'):
            sp['tensor']['requires_grad'] = True
    gos = [None if sh is None else gen.make_input(sh, 'float32', 'contig', lambda k: [round(R.uniform(-2, 2), 2) for _ in range(k)])[1]
           for sh in go_shapes]
    case = {'op': 'grad', 'args': specs, 'kwargs': dict({'fn': fn, 'grad_output': gos if len(gos) > 1 else gos[0]}, **kw)}
    out.emit(FAM, 'grad', case['args'], RA.exec_grad(case), case['kwargs'])


_, sa = T([1])
_, sb = T([3])
grad_case('cartesian_prod', [sa, sb], {}, [[3, 2]])
_, sa = T([2])
_, sb = T([1])
_, sc = T([2])
grad_case('cartesian_prod', [sa, sb, sc], {}, [[4, 3]])
_, sx = T([3, 1, 2], layout='expanded')
grad_case('movedim', [sx, {'int': 0}, {'int': 2}], {}, [list(torch.empty(3, 1, 2).movedim(0, 2).shape)])
_, sx = T([2, 3, 4], layout='expanded')
grad_case('movedim', [sx, {'ints': [0, 1]}, {'ints': [2, 0]}], {}, [list(torch.empty(2, 3, 4).movedim([0, 1], [2, 0]).shape)])
_, sx = T([3, 2])
grad_case('unbind', [sx], {}, [[2], None, [2]])
grad_case('unbind', [sx], {}, [None, [2], None])

# errors PyTorch raises (its texts)
for delta in (0.0, -1.0, 0.5):
    x, sx = T([3, 2])
    y, sy = T([3, 2])
    kw = {'delta': delta}
    emit('huber_loss', [x, y], [sx, sy], lambda: F.huber_loss(x, y, **kw), kw)
for size, groups in [([2, 0, 3], 1), ([2, 4, 0], 2), ([2, 4, 0, 3], 4)]:
    x, sx = T(size)
    kw = {'num_groups': groups}
    emit('group_norm', [x], [sx], lambda: F.group_norm(x, **kw), kw)
for size in ([3], [2, 3, 4], []):
    x, sx = T(size)
    emit('trace', [x], [sx], lambda: torch.trace(x))
for op, size in [('max_pool1d', [0, 10]), ('max_pool3d', [1, 0, 4, 4]), ('max_pool3d', [2, 1, 0, 4, 4]),
                 ('max_pool2d', [0, 4]), ('max_pool1d', [2, 0, 5])]:
    x, sx = T(size)
    kw = {'kernel_size': 2}
    emit(op, [x], [sx], lambda: getattr(F, op)(x, **kw), kw)
out.close()

# linspace bit for bit
fix = []
for start, end, steps, dt in [(-1, 1, 7, 'float32'), (-3, 7, 100, 'float32'), (0.1, 9.7, 37, 'float32'),
                              (-1, 1, 7, 'float64'), (-2.5, 11, 61, 'float64'), (1, -1, 1000, 'float32')]:
    t = torch.linspace(start, end, steps, dtype=getattr(torch, dt))
    vals = t.tolist()
    fix.append({'start': start, 'end': end, 'steps': steps, 'dtype': dt,
                'bits': [v.hex() for v in vals]})
os.makedirs(os.path.join(here, '..', 'tensile', 'tests', 'rules'), exist_ok=True)
with open(os.path.join(here, '..', 'tensile', 'tests', 'rules', 'linspace.json'), 'w') as f:
    json.dump(fix, f, indent=0)
print(out.counts)
