"""Loader for tests/data/ops_math_reference.npz: forward values and gradients that real
MXNet 1.9.1 computed (see tests/data/gen/gen_ops_math_reference.py)."""
import functools
import json
import pathlib

import numpy as np

import symmod as mx

PATH = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'ops_math_reference.npz'


@functools.lru_cache(maxsize=1)
def _load():
    with np.load(PATH) as data:
        pools = {k: data[k] for k in data.files}
    index = json.loads(str(pools.pop('index')))
    arrays = {}
    for k, c in enumerate(index):
        for name, (dtype, shape, offset) in c['arrays'].items():
            size = int(np.prod(shape, dtype=np.int64))
            arrays['c%d_%s' % (k, name)] = pools[dtype][offset:offset + size].reshape(shape)
    return arrays, index


def cases(ops):
    """pytest params ``(case_number, op, params)`` for the reference cases of ``ops``."""
    _, index = _load()
    return [(k, c['op'], c['params']) for k, c in enumerate(index) if c['op'] in ops]


def case_id(value):
    """Readable pytest id for one case tuple element."""
    return str(value)


def check_case(k):
    """Run reference case ``k`` through ``mx.nd`` and autograd and compare with MXNet."""
    arrays, index = _load()
    c = index[k]
    inputs = [arrays['c%d_in%d' % (k, i)] for i in range(c['n_in'])]
    nd_inputs = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    if c['grad']:
        for a in nd_inputs:
            a.attach_grad()
    func = getattr(mx.nd, c['op'])
    with mx.autograd.record():
        out = func(*nd_inputs, **c['params'])
    expected = arrays['c%d_out' % k]
    got = out.asnumpy()
    assert got.dtype == expected.dtype, (c['op'], got.dtype, expected.dtype)
    assert got.shape == expected.shape, (c['op'], got.shape, expected.shape)
    tol = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6}.get(got.dtype, 1e-12)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, equal_nan=True,
                               err_msg='forward of %s %s' % (c['op'], c['params']))
    if not c['grad']:
        return
    head = arrays['c%d_head' % k]
    out.backward(mx.nd.array(head, dtype=head.dtype))
    for i, a in enumerate(nd_inputs):
        np.testing.assert_allclose(a.grad.asnumpy(), arrays['c%d_grad%d' % (k, i)],
                                   rtol=1e-5, atol=1e-6, equal_nan=True,
                                   err_msg='gradient %d of %s %s' % (i, c['op'], c['params']))
