#!/usr/bin/env python3
"""Cases beyond the shared corpus, computed by running PyTorch, in the corpus format.

Family `local_inplace_ops`: every in-place form of the binary and unary pointwise ops
(`remainder_`, `pow_`, `floor_divide_`, `exp_`, `sign_`, ...) on random layouts and dtypes, with
tensor, 0-d and Python-scalar operands, so that the conformance runner is shown to call every
in-place op the corpus format allows, with PyTorch's values, writes through views and errors.

Usage (needs torch, and the shared generator beside the repo for its encoding helpers):
    python3 scripts/make_local_corpus.py [--shared ../shared/conformance] [--n 12]
writes tensile/tests/corpus/local_inplace_ops.jsonl.
"""
import argparse
import os
import random
import sys

ap = argparse.ArgumentParser()
ap.add_argument('--shared', default=os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'conformance'))
ap.add_argument('--n', type=int, default=12, help='cases per op')
ap.add_argument('--seed', type=int, default=7)
args = ap.parse_args()
sys.path.insert(0, os.path.abspath(args.shared))
import gen  # noqa: E402  (the shared generator: make_input, enc_out, storage_values, run, Out)
import torch  # noqa: E402

gen.R = random.Random(args.seed)
R = gen.R

BINARY = ['add_', 'sub_', 'mul_', 'div_', 'remainder_', 'floor_divide_', 'pow_', 'maximum_',
          'minimum_', 'atan2_', 'eq_', 'ne_', 'lt_', 'le_', 'gt_', 'ge_', 'logical_and_',
          'logical_or_', 'logical_xor_', 'bitwise_and_', 'bitwise_or_', 'bitwise_xor_']
UNARY = ['neg_', 'abs_', 'exp_', 'log_', 'sqrt_', 'rsqrt_', 'sin_', 'cos_', 'tanh_', 'sigmoid_',
         'relu_', 'erf_', 'floor_', 'ceil_', 'round_', 'trunc_', 'sign_', 'reciprocal_', 'square_',
         'logical_not_', 'bitwise_not_', 'zero_']

out_dir = os.path.join(os.path.dirname(__file__), '..', 'tensile', 'tests', 'corpus')
out = gen.Out(out_dir)
fam = 'local_inplace_ops'


def emit(op, tensors, encs):
    ts = tensors[0]
    r, err = gen.run(lambda: getattr(ts, op)(*tensors[1:]))
    if err:
        out.emit(fam, op, encs, err)
    else:
        out.emit(fam, op, encs, {'self': gen.enc_out(ts, [ts]), 'storage_after': gen.storage_values(ts)})


for op in BINARY:
    if not hasattr(torch.Tensor, op):
        continue
    for _ in range(args.n):
        size = gen.rand_shape(max_rank=3)
        ds = gen.pick_dtype()
        ts, es = gen.make_input(size, ds, layout=R.choice(['contig', 'permuted', 'sliced', 'offset', 'expanded']))
        form = R.choice(['t', 't', 's', '0'])
        if form == 's':
            v, eo = gen.scalar_arg()
            if op == 'pow_' and not isinstance(v, bool):
                v = abs(v)
                eo = {'scalar': v, 'kind': eo['kind']}
            other = v
        else:
            so = [] if form == '0' else [1 if R.random() < 0.3 else s for s in size]
            do = gen.pick_dtype() if R.random() < 0.5 else ds
            vals = (lambda k: [R.randint(0, 3) for _ in range(k)]) if op == 'pow_' and do != 'bool' else None
            other, eo = gen.make_input(so, do, values=vals)
        emit(op, [ts, other], [es, eo])

for op in UNARY:
    for _ in range(args.n):
        size = gen.rand_shape(max_rank=3)
        ds = gen.pick_dtype()
        ts, es = gen.make_input(size, ds, layout=R.choice(['contig', 'permuted', 'sliced', 'offset', 'expanded']))
        emit(op, [ts], [es])

out.close()
print('wrote', os.path.join(out_dir, fam + '.jsonl'), out.counts)
