#!/usr/bin/env python3
"""Cases for the rules of issue 30 that the shared corpus does not reach, computed by PyTorch.

Family `local_rules` (corpus format, compared like every family):
- `cdist` with more than 25 rows (PyTorch's matrix-product Euclidean distance), each
  `compute_mode`, batched, forward and as `grad` cases (whose node names show the switch);
- `avg_pool2d`/`avg_pool3d` with a negative `divisor_override`;
- `conv_transpose1d` whose output is too small and whose operands' dtypes differ (the size
  error comes first);
- `local_response_norm` with `size` <= 0 (the pooling's error) and on int64;
- integer convolutions that wrap (int8, uint8) and integer max/avg pooling;
- gradients through views and multi-output ops (`cartesian_prod`, `movedim`, `unbind`);
- node names (`grad_fn`) of the overloads PyTorch names apart (`ClampMinBackward1`,
  `SortBackward1`, `SqueezeBackward2`, `Rot90Backward0`, `TraceBackward0`, `CopyBackwards`,
  `UnsafeViewBackward0`, `NormBackward1`, `IndexBackward0`, ...);
- error types and texts (losses, pools, `narrow_copy`, `trace`, `group_norm`, setitem);
- `adaptive_avg_pool3d`/`adaptive_max_pool3d` and `interpolate(mode='area')` of 5-d inputs;
- gradients at ±inf, NaN, ±0 and domain edges of the unary and binary ops;
- output layouts of batched products with size-1 dims and of composites over empty and
  size-1 dims (`deg2rad`, `prelu`, `isinf`, `float_power`, `binary_cross_entropy_with_logits`);
- half-precision `arange`, empty `batch_norm`/`group_norm`, strided `ctc_loss` targets.

And `tensile/tests/rules/ranges.json`: `torch.linspace` and `torch.logspace` values bit for
bit (every float dtype, short and vectorized lengths), which a tolerance cannot check (the
midpoint of `linspace(-1, 1, 7)` is -2.98e-8 in PyTorch); `tensile/tests/rules/half_bits.json`:
float16/bfloat16 results bit for bit where PyTorch's rounding points matter by an ulp, and a
tensor to a number power in every float dtype (PyTorch's kernel choice per exponent).

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
    r2, _ = gen.run(fn)
    # a result that differs between two runs read uninitialised memory (PyTorch's own
    # multi_margin_loss of an empty batch): no rule fixes it, so no case is made
    if not err and isinstance(r, torch.Tensor) and not torch.equal(r.nan_to_num(), r2.nan_to_num()):
        print('skipped (differs between runs):', op)
        return
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
def grad_case(fn, specs, kw, go_shapes, go_dtype='float32'):
    """A `grad` case: `fn(*specs, **kw)`, then backward with random grad_outputs of `go_dtype`
    (None where a shape is None)."""
    for sp in specs:
        if 'tensor' in sp and sp['tensor']['dtype'].startswith('float'):
            sp['tensor']['requires_grad'] = True
    gos = [None if sh is None else gen.make_input(sh, go_dtype, 'contig', lambda k: [round(R.uniform(-2, 2), 2) for _ in range(k)])[1]
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

# node names (`grad_fn`) as PyTorch's derivatives.yaml names them
_, sx = T([3, 4])
_, sy = T([3, 4])
grad_case('clamp_min', [sx, sy], {}, [[3, 4]])
grad_case('clamp_max', [sx, sy], {}, [[3, 4]])
grad_case('clamp', [sx, sy], {}, [[3, 4]])
grad_case('clamp', [sx], {'min': -0.5}, [[3, 4]])
grad_case('sort', [sx], {'stable': True}, [[3, 4], None])
grad_case('sort', [sx], {'stable': True, 'descending': True}, [[3, 4], [3, 4]])
grad_case('sort', [sx], {}, [[3, 4], None])
grad_case('rot90', [sx], {}, [[4, 3]])
grad_case('rot90', [sx, {'int': 2}], {}, [[3, 4]])
grad_case('rot90', [sx, {'int': 0}], {}, [[3, 4]])
grad_case('trace', [sx], {}, [[]])
grad_case('kron', [sx, sy], {}, [[9, 16]])
grad_case('diff', [sx], {}, [[3, 3]])
grad_case('diff', [sx], {'n': 0}, [[3, 4]])
grad_case('diff', [sx], {'n': 2, 'dim': 0}, [[1, 4]])
grad_case('diff', [sx], {'n': 5}, [[3, 0]])
grad_case('pairwise_distance', [sx, sy], {}, [[3]])
grad_case('pairwise_distance', [sx, sy], {'p': 1.0}, [[3]])
grad_case('pairwise_distance', [sx, sy], {'p': 0.0}, [[3]])
# p = 0: norm_backward returns no gradient, so `.grad` stays None
grad_case('norm', [sx], {'p': 0}, [[]])
grad_case('norm', [sx], {'p': 0, 'dim': 1}, [[3]])
grad_case('getitem', [sx, {'index': [{'slice': [None, None, None]}, {'slice': [None, None, None]}]}], {}, [[3, 4]])
grad_case('getitem', [sx, {'index': [{'ellipsis': True}]}], {}, [[3, 4]])
grad_case('getitem', [sx, {'index': [{'slice': [None, None, None]}]}], {}, [[3, 4]])
grad_case('cumsum', [sx, {'int': 0}], {'dtype': {'dtype': 'float64'}}, [[3, 4]])
grad_case('cumprod', [sx, {'int': 1}], {'dtype': {'dtype': 'float64'}}, [[3, 4]])
_, sz = T([3, 1, 1, 2])
grad_case('squeeze', [sz, {'ints': [1, 2]}], {}, [[3, 2]])
grad_case('squeeze', [sz, {'ints': [1]}], {}, [[3, 1, 2]])
_, sv = T([4])
grad_case('combinations', [sv], {}, [[6, 2]])
grad_case('combinations', [sv], {'r': 3, 'with_replacement': True}, [[20, 3]])
grad_case('combinations', [sv], {'r': 1}, [[4, 1]])
_, se = T([2, 0])
_, sf = T([0, 3])
grad_case('matmul', [se, sf], {}, [[2, 3]])
_, se = T([2, 3, 0])
_, sf = T([2, 0, 4])
grad_case('matmul', [se, sf], {}, [[2, 3, 4]])
_, sb0 = T([0, 4])
grad_case('diff', [sb0], {'dim': 0}, [[0, 4]])
_, st = T([3, 4], values=lambda k: [R.choice([-1.0, 1.0]) for _ in range(k)])
for red in ('mean', 'none', 'sum'):
    grad_case('hinge_embedding_loss', [sx, st], {'reduction': red}, [[3, 4] if red == 'none' else []])

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
# error types and texts of losses, adaptive pooling, narrow_copy, trace and setitem
LT = lambda size, hi: gen.make_input(list(size), 'int64', 'contig', lambda k: [R.randint(0, hi) for _ in range(k)])
for size, tsize, hi, kw in [([3, 4], [2], 3, {}), ([3, 4], [3], 5, {}), ([3, 4], [1, 3], 3, {}),
                            ([2, 3, 4], [2], 3, {}), ([3, 4], [3], 3, {'p': 3}), ([0, 4], [0], 3, {})]:
    x, sx = T(size)
    t, st = LT(tsize, hi)
    emit('multi_margin_loss', [x, t], [sx, st], lambda: F.multi_margin_loss(x, t, **kw), kw)
x, sx = T([3, 4])
t, st = LT([3], 3)
w, sw = T([3])
emit('multi_margin_loss', [x, t, w], [sx, st], lambda: F.multi_margin_loss(x, t, weight=w), {'weight': sw})
for sa, sp, sn, kw in [([3, 4], [3, 4], [3], {}), ([3, 4], [3, 5], [3, 4], {}), ([4], [3, 4], [3, 4], {}),
                       ([3, 4, 5], [3, 4, 5], [3, 4, 5], {}), ([3, 4], [3, 4], [3, 4], {'margin': -1.0})]:
    a, ja = T(sa)
    p_, jp = T(sp)
    n_, jn = T(sn)
    emit('triplet_margin_loss', [a, p_, n_], [ja, jp, jn], lambda: F.triplet_margin_loss(a, p_, n_, **kw), kw)
for op, size in [('adaptive_avg_pool2d', [4]), ('adaptive_max_pool2d', [4]), ('adaptive_avg_pool1d', [2, 3, 4, 5]),
                 ('adaptive_max_pool1d', [4]), ('adaptive_avg_pool3d', [4, 4]), ('adaptive_max_pool3d', [4, 4]),
                 ('adaptive_avg_pool2d', [1, 2, 3, 4, 5])]:
    x, sx = T(size)
    kw = {'output_size': 2}
    emit(op, [x], [sx], lambda: getattr(F, op)(x, **kw), kw)
for size, a in [([3, 4], [0, 2, 3]), ([3, 4], [2, 0, 1]), ([3, 4], [0, -5, 1]), ([], [0, 0, 1])]:
    x, sx = T(size)
    emit('narrow_copy', [x, {'int': a[0]}, {'int': a[1]}, {'int': a[2]}], [sx, {'int': a[0]}, {'int': a[1]}, {'int': a[2]}],
         lambda: torch.narrow_copy(x, *a))
for size, tsize in [([3, 4], [2]), ([3, 4, 5], [3, 4]), ([3, 4, 5], [3, 6])]:
    x, sx = T(size)
    t, st = LT(tsize, 3)
    emit('nll_loss', [x, t], [sx, st], lambda: F.nll_loss(x, t))
import gen_indexing as GI  # noqa: E402
for dt, v in [('uint8', 300), ('uint8', -1), ('uint8', 256), ('int8', 300), ('uint8', 1e10), ('uint8', True)]:
    it, jt = gen.make_input([2], 'int64', 'contig', lambda k: [0, 1])
    for idx, items in [((0,), [{'int': 0}]), ((slice(0, 2),), [{'slice': [0, 2, None]}]),
                       ((it,), [{'tensor': jt['tensor']}])]:
        c = GI.C(out, FAM, 'setitem')
        c.arg(T([3], dt, values=lambda k: [0] * k))
        c.arg((idx, {'index': items}))
        c.arg(GI.SC(v))
        c.emit(inplace=True)
# adaptive pooling over three dims (and `interpolate(mode='area')` of 5-d inputs, which runs
# it); the rank check of a list output_size (Python's `_list_with_default`, a ValueError)
RA.F_NAMES |= {'adaptive_avg_pool3d', 'adaptive_max_pool3d', 'interpolate'}


def gen_numel(size):
    n = 1
    for v in size:
        n *= v
    return n


for op in ('adaptive_avg_pool3d', 'adaptive_max_pool3d'):
    for size, osz, lay in [([2, 3, 4, 5, 6], 2, 'contig'), ([2, 3, 4, 5, 6], [2, 3, 4], 'contig'),
                           ([1, 2, 5, 4, 6], [3, None, 4], 'contig'), ([2, 3, 4, 5, 6], 1, 'contig'),
                           ([2, 3, 4, 5, 6], [1, 1, 1], 'channels_last'), ([2, 3, 4, 5, 6], 2, 'channels_last'),
                           ([2, 3, 4, 5, 6], [2, 3], 'contig'), ([2, 3, 4, 5, 6], [2, -1, 3], 'contig'),
                           ([3, 4, 5], 2, 'contig'), ([3, 4, 5, 6], 2, 'contig'), ([0, 3, 4, 5, 6], 2, 'contig'),
                           ([2, 0, 4, 5, 6], 2, 'contig'), ([2, 3, 0, 5, 6], 2, 'contig'), ([3, 0, 5, 6], 2, 'contig'),
                           ([4, 5], 2, 'contig'), ([1, 2, 3, 4, 5, 6], 2, 'contig'), ([2, 3, 4, 5], [None, 2, 2], 'contig'),
                           ([2, 3, 4, 5], [2, 2, None, 2], 'contig'), ([2, 3, 4, 5, 6], [0, 2, 2], 'contig'),
                           ([2, 3, 4, 5, 6], [3, 2, 7], 'contig'), ([3, 4, 5], [2, 2, 2], 'contig')]:
        if lay == 'channels_last':
            # channels-last-3d strides over a storage holding the elements in that order
            st = [size[1] * size[2] * size[3] * size[4], 1, size[1] * size[3] * size[4], size[1] * size[4], size[1]]
            sx = {'tensor': {'dtype': 'float32', 'storage': [round(R.uniform(-3, 3), 3) for _ in range(gen_numel(size))],
                             'size': size, 'stride': st, 'offset': 0}}
            x = RA.dec(sx)
        else:
            x, sx = T(size)
        kw = {'output_size': osz}
        emit(op, [x], [sx], lambda: getattr(F, op)(x, **kw), kw)
    x, sx = T([2, 3, 4, 5, 6], 'int64')
    emit(op, [x], [sx], lambda: getattr(F, op)(x, 2), {'output_size': 2})
    _, sx = T([1, 2, 3, 4, 5])
    grad_case(op, [sx], {'output_size': [2, 3, 2]}, [[1, 2, 2, 3, 2]])
    _, sx = T([2, 5, 3, 4], 'float64')
    grad_case(op, [sx], {'output_size': [3, 2, 3]}, [[2, 3, 2, 3]])
_, sx = T([1, 2, 3, 4, 5])
grad_case('adaptive_max_pool3d', [sx], {'output_size': 2, 'return_indices': True}, [[1, 2, 2, 2, 2], None])
for size, osz in [([1, 2, 3, 4, 5], [2, 3, 4]), ([2, 1, 5, 3, 4], [3, 3, 2]), ([1, 1, 4, 4, 4], [2, 2, 2])]:
    x, sx = T(size)
    kw = {'size': osz, 'mode': 'area'}
    emit('interpolate', [x], [sx], lambda: F.interpolate(x, **kw), kw)
for op, size, osz in [('adaptive_avg_pool2d', [4], [2, 2]), ('adaptive_avg_pool2d', [4, 4], [2, 2]),
                      ('adaptive_max_pool2d', [4, 4], [2, 2]), ('adaptive_avg_pool2d', [3, 4, 4], [2, 2, 2]),
                      ('adaptive_max_pool2d', [3, 4], [2, 2, 2]), ('adaptive_avg_pool2d', [4, 4], 2),
                      ('adaptive_max_pool2d', [4, 4], 2), ('adaptive_avg_pool1d', [4], [2])]:
    x, sx = T(size)
    kw = {'output_size': osz}
    emit(op, [x], [sx], lambda: getattr(F, op)(x, **kw), kw)
# layouts: batched products with size-1 batch or matrix dims (PyTorch's bmm output is
# contiguous whatever its size-1 dims; its einsum permutes and reshapes around bmm)
# a dim of size 1 in both operands counts as right-only; the operands swap sides when every
# right-only dim comes before the left-only ones
for eq, sa, sb in [('aij,ajk->aik', [1, 2, 3], [1, 3, 4]), ('aij,jk->aik', [1, 2, 3], [3, 4]),
                   ('abij,abjk->abik', [1, 1, 2, 3], [1, 1, 3, 2]), ('aij,ajk->iak', [1, 2, 3], [1, 3, 4]),
                   ('aij,ajk->ika', [1, 2, 3], [1, 3, 4]), ('aij,ajk->kia', [1, 2, 3], [1, 3, 4]),
                   ('aij,ajk->kai', [1, 2, 3], [1, 3, 4]), ('aij,ajk->kia', [2, 1, 3], [2, 3, 4]),
                   ('aij,ajk->iak', [2, 1, 3], [2, 3, 4]), ('ij,jk->ki', [1, 3], [3, 4]),
                   ('aij,ajk->aik', [2, 1, 3], [2, 3, 4]),
                   ('aij,ajk->aik', [2, 2, 3], [2, 3, 1]), ('aij,ajk->aik', [1, 1, 3], [1, 3, 1]),
                   ('ij,jk->ik', [1, 3], [3, 4]), ('ij,jk->ik', [2, 3], [3, 1]),
                   ('bi,bj->bij', [1, 3], [1, 2]), ('bij,bjk->bik', [3, 2, 3], [3, 3, 4]),
                   ('aij,ajk->aki', [1, 2, 3], [1, 3, 4])]:
    a, ja = T(sa)
    b, jb = T(sb)
    emit('einsum', [a, b], [{'str': eq}, ja, jb], lambda: torch.einsum(eq, a, b))
    _, ja = T(sa)
    _, jb = T(sb)
    grad_case('einsum', [{'str': eq}, ja, jb], {}, [list(torch.einsum(eq, torch.empty(sa), torch.empty(sb)).shape)])
for sa, sb in [([1, 2, 3], [1, 3, 4]), ([2, 1, 3], [2, 3, 4]), ([2, 2, 3], [2, 3, 1]), ([1, 1, 3], [1, 3, 1]),
               ([1, 2, 3], [3, 4]), ([3], [1, 3, 2]), ([1, 1, 2, 3], [1, 3, 2]), ([2, 1, 2, 3], [1, 3, 2])]:
    a, ja = T(sa)
    b, jb = T(sb)
    emit('matmul', [a, b], [ja, jb], lambda: torch.matmul(a, b))
    if len(sa) == 3 and len(sb) == 3:
        emit('bmm', [a, b], [ja, jb], lambda: torch.bmm(a, b))


def strided(size, stride, dtype='float32', offset=0):
    """A tensor of `size` and `stride` (elements) over a storage just large enough."""
    n = 0 if any(v == 0 for v in size) else 1 + offset + sum((a - 1) * b for a, b in zip(size, stride))
    spec = {'tensor': {'dtype': dtype, 'storage': [round(R.uniform(-3, 3), 2) if dtype.startswith('float') else R.randint(-5, 5)
                                                   for _ in range(n)], 'size': size, 'stride': stride, 'offset': offset}}
    return RA.dec(spec), spec


# TensorIterator's output strides for empty and size-1 dims, and the ops that write into
# `empty_like(self)` (preserve format) instead
for size, stride in [([3, 0, 3], [18, 6, 2]), ([2, 1, 3], [1, 7, 2]), ([0, 4], [1, 3]), ([2, 0], [1, 5])]:
    for dt in ('float32', 'int64'):
        x, sx = strided(size, stride, dt)
        for op, fn in [('deg2rad', torch.deg2rad), ('rad2deg', torch.rad2deg), ('isinf', torch.isinf),
                       ('isnan', torch.isnan), ('exp', torch.exp), ('neg', torch.neg), ('isfinite', torch.isfinite),
                       ('isposinf', torch.isposinf), ('signbit', torch.signbit), ('nan_to_num', torch.nan_to_num),
                       ('isreal', torch.isreal), ('frac', torch.frac), ('relu', torch.relu)]:
            emit(op, [x], [sx], lambda: fn(x))
        emit('float_power', [x], [sx, {'scalar': 2, 'kind': 'int'}], lambda: torch.float_power(x, 2))
        emit('float_power', [x], [sx, sx], lambda: torch.float_power(x, x))
        emit('add', [x], [sx, {'scalar': 1, 'kind': 'int'}], lambda: torch.add(x, 1))
        if dt == 'float32':
            w, sw = T([1])
            emit('prelu', [x, w], [sx, sw], lambda: F.prelu(x, w))
            y, sy = T(size)
            emit('binary_cross_entropy_with_logits', [x, y], [sx, sy],
                 lambda: F.binary_cross_entropy_with_logits(x, y, reduction='none'), {'reduction': 'none'})
            emit('binary_cross_entropy_with_logits', [x], [sx, sx],
                 lambda: F.binary_cross_entropy_with_logits(x, x, reduction='none'), {'reduction': 'none'})
            emit('binary_cross_entropy_with_logits', [y, x], [sy, sx],
                 lambda: F.binary_cross_entropy_with_logits(y, x, reduction='none'), {'reduction': 'none'})
for tsize, tstride in [([3, 2], [4, 1]), ([2, 3], [1, 2]), ([2, 3], [1, 4])]:
    t, st = strided(tsize, tstride)
    x, sx = T(tsize)
    emit('binary_cross_entropy_with_logits', [x, t], [sx, st],
         lambda: F.binary_cross_entropy_with_logits(x, t, reduction='none'), {'reduction': 'none'})
    w, sw = T([1])
    emit('prelu', [t, w], [st, sw], lambda: F.prelu(t, w))

# gradients at ±inf, NaN, zeros and domain edges: each formula as derivatives.yaml writes it,
# masks included
RA.F_NAMES |= {'hardsigmoid', 'hardswish', 'logsigmoid', 'tanhshrink', 'softsign', 'relu6'}
SPECIAL = [0.0, -0.0, 1.0, -1.0, float('inf'), float('-inf'), float('nan'), 2.0, 0.5, -0.5, 1e-300, 40.0, -40.0]
# at most 7 elements a tensor: PyTorch's CPU kernels (AVX2 here) run the vectorized form of a
# derivative on whole blocks of 2 vectors (8 doubles, 16 floats) and the scalar form on the
# rest, and the two disagree at NaN for some ops (`hardtanh`'s blend gives 0 where its scalar
# form passes `grad`); tensile follows the scalar form, which is derivatives.yaml's formula
SPECIAL_PARTS = [SPECIAL[:7], SPECIAL[7:]]


def special(values, dtype='float64'):
    return {'tensor': {'dtype': dtype, 'storage': [RA.jval(v) for v in values], 'size': [len(values)], 'stride': [1], 'offset': 0}}


for op in ['abs', 'acos', 'asin', 'atan', 'cos', 'cosh', 'sin', 'sinh', 'tan', 'tanh', 'exp', 'exp2', 'expm1',
           'log', 'log10', 'log1p', 'log2', 'sqrt', 'rsqrt', 'reciprocal', 'sigmoid', 'logit', 'erf', 'erfc',
           'digamma', 'lgamma', 'elu', 'celu', 'selu', 'gelu', 'silu', 'mish', 'softplus', 'relu', 'leaky_relu',
           'hardtanh', 'hardsigmoid', 'hardswish', 'logsigmoid', 'tanhshrink', 'softsign', 'square', 'sign',
           'frac', 'trunc', 'floor', 'neg', 'erfinv', 'asinh', 'acosh', 'atanh', 'sinc', 'deg2rad', 'rad2deg',
           'nan_to_num', 'relu6']:
    for dt in ('float64', 'float32'):
        for part in SPECIAL_PARTS:
            if op == 'gelu' and dt == 'float32':
                # PyTorch's float32 gelu of +inf is NaN on every input longer than one element
                # (its vectorized erf), inf on a one-element one: a kernel-path artefact tensile
                # does not follow (it gives inf)
                part = [v for v in part if v != float('inf')]
            grad_case(op, [special(part, dt)], {}, [[len(part)]])
for op, kw in [('elu', {'alpha': 0.5}), ('logit', {'eps': 0.1}), ('hardtanh', {'min_val': -1.0, 'max_val': 1.0}),
               ('celu', {'alpha': 2.0}), ('softplus', {'beta': 2.0, 'threshold': 1.0}), ('leaky_relu', {'negative_slope': 0.2})]:
    for part in SPECIAL_PARTS:
        grad_case(op, [special(part)], kw, [[len(part)]])
grad_case('logit', [special([0.0, 0.05, 0.1, 0.5, 0.9, 0.95, 1.0, float('nan'), 1.5, -0.5])], {'eps': 0.1}, [[10]])
grad_case('hardtanh', [special([-1.0, 1.0, -1.5, 0.5, 1.5])], {}, [[5]])
PAIRS_A = [0.0, 0.0, 1.0, 2.0, 0.0, float('inf'), float('nan'), 0.0, float('inf'), float('-inf'), float('inf'), 1.0, -0.0]
PAIRS_B = [0.0, 2.0, 0.0, float('inf'), float('nan'), 1.0, 1.0, -1.0, float('inf'), float('-inf'), float('-inf'), float('nan'), 0.0]
for op in ['xlogy', 'logaddexp', 'logaddexp2', 'atan2', 'hypot', 'pow', 'maximum', 'minimum', 'fmax', 'fmin',
           'div', 'mul', 'copysign', 'fmod', 'remainder', 'sub']:
    for lo in (0, 7):
        pa, pb = PAIRS_A[lo:lo + 7], PAIRS_B[lo:lo + 7]
        grad_case(op, [special(pa), special(pb)], {}, [[len(pa)]])
grad_case('norm', [special([0.0, 1.0, -2.0, float('inf')])], {'p': {'scalar': 'inf', 'kind': 'float'}}, [[]])
grad_case('norm', [special([0.0, 0.0])], {'p': 2}, [[]])

# half-precision aranges (each point computed in float, then rounded once), batch_norm of an
# empty 1-d input, group_norm's gradient of an empty batch, ctc_loss with strided targets
SC = lambda v: {'scalar': v, 'kind': 'float' if isinstance(v, float) else 'int'}
for start, end, step, dt in [(0, 10, 0.7, 'bfloat16'), (-3, 300, 7.3, 'bfloat16'), (250, 270, 1, 'bfloat16'),
                             (0.5, 20, 1.5, 'float16'), (0.1, 3.3, 0.1, 'bfloat16'), (-1, 1, 0.03, 'float16')]:
    kw = {'dtype': {'dtype': dt}}
    emit('arange', [], [SC(start), SC(end), SC(step)],
         lambda: torch.arange(start, end, step, dtype=getattr(torch, dt)), kw)
for size, training in [([0], True), ([0], False), ([0, 3], True)]:
    x, sx = T(size)
    c = size[1] if len(size) > 1 else 0
    rm, srm = T([c])
    rv, srv = T([c], values=lambda k: [1.0] * k)
    emit('batch_norm', [x, rm, rv], [sx, srm, srv],
         lambda: F.batch_norm(x, rm, rv, training=training), {'training': training})
_, sx = T([0, 4, 3])
grad_case('group_norm', [sx, {'int': 2}], {}, [[0, 4, 3]])
_, sx = T([0, 4])
_, sw = T([4])
_, sb = T([4])
grad_case('group_norm', [sx, {'int': 2}, sw, sb], {}, [[0, 4]])
torch.manual_seed(30)
for tl in ([3, 2, 2], [1, 2, 1]):
    lp = torch.randn(6, 2, 4).log_softmax(2)
    slp = {'tensor': {'dtype': 'float32', 'storage': lp.flatten().tolist(), 'size': [6, 2, 4], 'stride': [8, 4, 1], 'offset': 0}}
    lp = RA.dec(slp)
    n = sum(tl[:2])
    # a 1-d concatenated target with stride 3 and offset 1
    tv = [R.randint(1, 3) for _ in range(3 * n + 1)]
    stg = {'tensor': {'dtype': 'int64', 'storage': tv, 'size': [n], 'stride': [3], 'offset': 1}}
    tg = RA.dec(stg)
    il, sil = gen.make_input([2], 'int64', 'contig', lambda k: [6, 5])
    tlen, stl = gen.make_input([2], 'int64', 'contig', lambda k: tl[:2])
    emit('ctc_loss', [lp, tg, il, tlen], [slp, stg, sil, stl], lambda: F.ctc_loss(lp, tg, il, tlen, reduction='none'),
         {'reduction': 'none'})
    # a 2-d padded target, transposed
    tv2 = [R.randint(1, 3) for _ in range(2 * 3)]
    st2 = {'tensor': {'dtype': 'int64', 'storage': tv2, 'size': [2, 3], 'stride': [1, 2], 'offset': 0}}
    tg2 = RA.dec(st2)
    emit('ctc_loss', [lp, tg2, il, tlen], [slp, st2, sil, stl], lambda: F.ctc_loss(lp, tg2, il, tlen, reduction='sum'),
         {'reduction': 'sum'})

# float16/bfloat16 at PyTorch's rounding points. PyTorch's CPU kernels here (AVX2) run whole
# blocks of 64 bytes (32 halves) through their vectorized form and the rest through the scalar
# one, which for `Half` rounds after every operation; the tensors below stay under 32 elements,
# where only the scalar form runs. (Not yet: bfloat16 instance_norm; see the note of stop 48.)
for dt in ('float16', 'bfloat16'):
    x, sx = T([4, 9], dt, values=lambda k: [round(R.uniform(0.01, 0.99), 3) for _ in range(k)])
    emit('logit', [x], [sx], lambda: torch.logit(x))
    emit('logit', [x], [sx], lambda: torch.logit(x, 0.05), {'eps': 0.05})
    a, sa = T([4, 7], dt)
    b, sb = T([4, 7], dt)
    for alpha in (2, 0.3, -1.5):
        emit('add', [a, b], [sa, sb], lambda: torch.add(a, b, alpha=alpha), {'alpha': SC(alpha)})
        emit('sub', [a, b], [sa, sb], lambda: torch.sub(a, b, alpha=alpha), {'alpha': SC(alpha)})
    x, sx = T([1, 3, 5, 5], dt)
    w, sw = T([3, 2, 3, 3], dt)
    for kw in ({}, {'stride': 2}, {'stride': 2, 'padding': 1, 'output_padding': 1}):
        emit('conv_transpose2d', [x, w], [sx, sw], lambda: F.conv_transpose2d(x, w, **kw), kw)
    x, sx = T([6, 5], dt)
    y, sy = T([6, 5], dt)
    for op in ('mse_loss', 'l1_loss', 'smooth_l1_loss', 'huber_loss', 'soft_margin_loss'):
        emit(op, [x, y], [sx, sy], lambda: getattr(F, op)(x, y))
        emit(op, [x, y], [sx, sy], lambda: getattr(F, op)(x, y, reduction='sum'), {'reduction': 'sum'})
    p_, sp = T([6, 5], dt, values=lambda k: [round(R.uniform(0.05, 0.95), 3) for _ in range(k)])
    q_, sq = T([6, 5], dt, values=lambda k: [round(R.uniform(0.0, 1.0), 3) for _ in range(k)])
    emit('binary_cross_entropy', [p_, q_], [sp, sq], lambda: F.binary_cross_entropy(p_, q_))
    emit('binary_cross_entropy_with_logits', [x, q_], [sx, sq], lambda: F.binary_cross_entropy_with_logits(x, q_))
    # kl_div is `xlogy(t, t) - t * x`; xlogy/xlog1py of `Half` values round the logarithm to
    # the type before the product
    emit('kl_div', [x, q_], [sx, sq], lambda: F.kl_div(x, q_, reduction='none'), {'reduction': 'none'})
    emit('kl_div', [x, q_], [sx, sq], lambda: F.kl_div(x, q_, reduction='sum'), {'reduction': 'sum'})
    a, sa = T([4, 7], dt)
    u, su = T([4, 7], dt, values=lambda k: [round(R.uniform(0.0, 3.0), 3) for _ in range(k)])
    emit('xlogy', [a, u], [sa, su], lambda: torch.xlogy(a, u))
    emit('special.xlog1py', [a, u], [sa, su], lambda: torch.special.xlog1py(a, u))
    kn = F.kl_div(x, q_, reduction='none')
    skn = {'tensor': {'dtype': dt, 'storage': [RA.jval(v) for v in kn.flatten().tolist()], 'size': [6, 5], 'stride': [5, 1], 'offset': 0}}
    emit('sum', [kn], [skn], lambda: kn.sum())
    emit('xlogy', [q_, q_], [sq, sq], lambda: torch.xlogy(q_, q_))
    emit('mul', [q_, x], [sq, sx], lambda: torch.mul(q_, x))
    x, sx = T([2, 3, 4, 5], dt)
    w, sw = T([3], dt)
    b, sb = T([3], dt)
    # batch/instance norm with parameters of the input's type store the mean and the sum of
    # squares in that type and divide the sum as `T / int64_t` (rounded again)
    emit('instance_norm', [x], [sx], lambda: F.instance_norm(x, weight=w, bias=b), {'weight': sw, 'bias': sb})
    x2, sx2 = T([3, 3, 7, 6], dt, values=lambda k: [round(R.uniform(-6, 8), 2) for _ in range(k)])
    emit('instance_norm', [x2], [sx2], lambda: F.instance_norm(x2, weight=w, bias=b), {'weight': sw, 'bias': sb})
    rm, srm = T([3], dt, values=lambda k: [0.0] * k)
    rv, srv = T([3], dt, values=lambda k: [1.0] * k)
    emit('batch_norm', [x2, rm, rv], [sx2, srm, srv],
         lambda: F.batch_norm(x2, rm.clone(), rv.clone(), weight=w, bias=b, training=True),
         {'weight': sw, 'bias': sb, 'training': True})
    emit('group_norm', [x], [sx, {'int': 3}], lambda: F.group_norm(x, 3, w, b), {'weight': sw, 'bias': sb})
    emit('layer_norm', [x], [sx, {'ints': [4, 5]}], lambda: F.layer_norm(x, [4, 5]))
    # linear, trilinear and bicubic interpolation hold their weights in the half type
    # (bilinear's kernel keeps float weights); either memory format, both corner rules
    for mode, size, osz in [('linear', [2, 3, 9], [17]), ('trilinear', [1, 2, 4, 5, 6], [7, 9, 11]),
                            ('bicubic', [1, 3, 6, 7], [11, 13]), ('bilinear', [1, 3, 6, 7], [11, 13])]:
        for lay in (('contig', 'channels_last') if len(size) > 3 else ('contig',)):
            if lay == 'channels_last':
                c, sp = size[1], size[2:]
                st = [0, 1] + [c * gen_numel(sp[i + 1:]) for i in range(len(sp))]
                st[0] = c * gen_numel(sp)
                sx = {'tensor': {'dtype': dt, 'storage': [round(R.uniform(-3, 3), 3) for _ in range(gen_numel(size))],
                                 'size': size, 'stride': st, 'offset': 0}}
                x = RA.dec(sx)
            else:
                x, sx = T(size, dt)
            for ac in (False, True):
                kw = {'size': osz, 'mode': mode, 'align_corners': ac}
                emit('interpolate', [x], [sx], lambda: F.interpolate(x, **kw), kw)
                if lay == 'contig':
                    grad_case('interpolate', [sx], kw, [size[:2] + osz], dt)
out.close()

# linspace and logspace bit for bit. Half precision: float16 and bfloat16 round the points
# differently (two float roundings against a fused multiply-add), which the (31, -31, 27) and
# (17, -34, 10) cases tell apart; the 5000-step ones reach far past one vector block.
fix = []
for start, end, steps, dt in [(-1, 1, 7, 'float32'), (-3, 7, 100, 'float32'), (0.1, 9.7, 37, 'float32'),
                              (-1, 1, 7, 'float64'), (-2.5, 11, 61, 'float64'), (1, -1, 1000, 'float32'),
                              (31, -31, 27, 'float16'), (9, -27, 77, 'float16'), (-3, 50, 50, 'float16'),
                              (0.1, 7.7, 100, 'float16'), (-1, 1, 5000, 'float16'),
                              (17, -34, 10, 'bfloat16'), (-31, 21, 100, 'bfloat16'), (4.3, -3, 50, 'bfloat16'),
                              (-60, 45.5, 5000, 'bfloat16')]:
    t = torch.linspace(start, end, steps, dtype=getattr(torch, dt))
    fix.append({'op': 'linspace', 'start': start, 'end': end, 'steps': steps, 'dtype': dt,
                'bits': [float(v).hex() for v in t.tolist()]})
for start, end, steps, base, dt in [(-2, 2, 300, 10.0, 'float16'), (0.5, -2, 3000, 10.0, 'float16'),
                                    (-1, 3, 1000, 2.0, 'bfloat16'), (-2.7, 1.3, 33, 1.5, 'bfloat16'),
                                    (-2.7, 1.3, 33, 10.0, 'float32'), (0.3, -1.9, 257, 2.0, 'float32'),
                                    (-2.7, 1.3, 33, 10.0, 'float64'), (0, 9.9, 10, 2.0, 'int64'),
                                    (1, 3, 1, 10.0, 'float16')]:
    t = torch.logspace(start, end, steps, base=base, dtype=getattr(torch, dt))
    fix.append({'op': 'logspace', 'start': start, 'end': end, 'steps': steps, 'base': base, 'dtype': dt,
                'bits': [float(v).hex() for v in t.tolist()]})
os.makedirs(os.path.join(here, '..', 'tensile', 'tests', 'rules'), exist_ok=True)
with open(os.path.join(here, '..', 'tensile', 'tests', 'rules', 'ranges.json'), 'w') as f:
    json.dump(fix, f, indent=0)

# float16/bfloat16 rounding points bit for bit, where a one-ulp slip hides inside the corpus
# tolerance: xlogy/xlog1py (the logarithm rounded to the type), instance norm (bfloat16's
# stored sum of squares), and linear/trilinear/bicubic interpolation (weights in the type)
HR = random.Random(30)
half_fix = []
for dt in ('float16', 'bfloat16'):
    tdt = getattr(torch, dt)
    def vals(n, lo, hi):
        return torch.tensor([round(HR.uniform(lo, hi), 3) for _ in range(n)]).to(tdt)
    a, u = vals(400, -3, 3), vals(400, 0, 3)
    for op, fn in (('xlogy', torch.xlogy), ('xlog1py', torch.special.xlog1py)):
        half_fix.append({'op': op, 'dtype': dt, 'inputs': [a.tolist(), u.tolist()], 'shape': [400],
                         'bits': [float(v).hex() for v in fn(a, u).tolist()]})
    for n, c, h, w in ((2, 3, 4, 5), (3, 3, 7, 6), (2, 4, 9, 9)):
        x, wt, b = vals(n * c * h * w, -6, 8), vals(c, -2, 2), vals(c, -1, 1)
        x = x.reshape(n, c, h, w)
        half_fix.append({'op': 'instance_norm', 'dtype': dt, 'inputs': [x.flatten().tolist(), wt.tolist(), b.tolist()],
                         'shape': [n, c, h, w],
                         'bits': [float(v).hex() for v in F.instance_norm(x, weight=wt, bias=b).flatten().tolist()]})
    for mode, size, osz in (('linear', [2, 3, 9], [17]), ('trilinear', [1, 2, 4, 5, 6], [7, 9, 11]),
                            ('bicubic', [1, 3, 6, 7], [11, 13])):
        x = vals(gen_numel(size), -3, 3).reshape(size)
        for ac in (False, True):
            y = F.interpolate(x, size=osz, mode=mode, align_corners=ac)
            half_fix.append({'op': 'interpolate', 'dtype': dt, 'inputs': [x.flatten().tolist()], 'shape': size,
                             'mode': mode, 'size': osz, 'align_corners': ac,
                             'bits': [float(v).hex() for v in y.flatten().tolist()]})
    # add with alpha: fused over whole 32-element blocks of a contiguous (or scalar-broadcast)
    # inner run, `Half` roundings elsewhere (the tail, a row of 40 past 32, a strided run)
    a = vals(200, -3, 3).reshape(5, 40)
    for lay, b in (('same', vals(200, -3, 3).reshape(5, 40)), ('scalar', vals(1, -3, 3)),
                   ('row', vals(40, -3, 3)), ('transposed', vals(200, -3, 3).reshape(40, 5).t())):
        for alpha in (0.3, -1.5):
            y = torch.add(a, b, alpha=alpha)
            half_fix.append({'op': 'add', 'dtype': dt, 'layout': lay, 'alpha': alpha,
                             'inputs': [a.flatten().tolist(), b.contiguous().flatten().tolist()
                                        if lay != 'transposed' else b.t().flatten().tolist()],
                             'shape': [5, 40], 'bits': [float(v).hex() for v in y.flatten().tolist()]})
# a tensor to a number power: PyTorch's kernel choice (1/x; x*x, x*x*x and 1/(x*x), each
# product rounded; the exponent rounded to float16/bfloat16 for those dtypes), bit for bit
# where it differs from a correctly rounded pow by an ulp. (Not 0.5 and -0.5: PyTorch's
# vectorised float sqrt is not correctly rounded, sqrt(2.1189) is 1.45564413 where IEEE gives
# 1.45564425, and it shows through the half types' rounding too, rarely; their signed zeros
# and infinities are a unit test.)
for dt in ('float32', 'float64', 'float16', 'bfloat16'):
    tdt = getattr(torch, dt)
    x = torch.tensor([-0.0, 0.0] + [round(HR.uniform(-4, 4), 4) for _ in range(298)]).to(tdt)
    half = dt in ('float16', 'bfloat16')
    exps = [-1.0, 2.0, 3.0, -2.0] + ([2.001, 0.1, 1.7] if half else [])
    for e in exps:
        y = x.pow(e)
        half_fix.append({'op': 'pow', 'dtype': dt, 'exponent': e, 'inputs': [x.tolist()], 'shape': [300],
                         'bits': [float(v).hex() for v in y.tolist()]})
with open(os.path.join(here, '..', 'tensile', 'tests', 'rules', 'half_bits.json'), 'w') as f:
    json.dump(half_fix, f, indent=0)
print(out.counts)
