"""Writes tests/data/sparse/square_sum_rsp_grad.npz with real MXNet 1.9.1: the gradient of
_square_sum on a row_sparse input (its storage type, rows and values) for axis 0 and 1, as
simple_bind allocates it, with a dense head gradient (row_sparse for axis 1 with keepdims, whose output is).

Run: /work/mxnet-venv/bin/python tests/data/gen/gen_square_sum_rsp_grad.py
"""
import os

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'sparse', 'square_sum_rsp_grad.npz')

rng = np.random.RandomState(3)
dense = rng.uniform(-1, 1, (6, 4)).astype(np.float32)
dense[[1, 4]] = 0
dense[2] = [0, 1.5, 0, -2]
x = mx.nd.array(dense).tostype('row_sparse')
saved = {'x': dense}
for axis, keepdims in ((0, False), (1, True), (1, False)):
    sym = mx.sym._internal._square_sum(mx.sym.var('x', stype='row_sparse'), axis=axis,
                                       keepdims=keepdims)
    exe = sym.simple_bind(mx.cpu(), x=(6, 4), stype_dict={'x': 'row_sparse'})
    x.copyto(exe.arg_dict['x'])
    out = exe.forward(is_train=True)[0]
    head = rng.uniform(-1, 1, out.shape).astype(np.float32)
    if out.stype == 'row_sparse':     # MXNet wants the head's rows to be the input's
        head[[1, 4]] = 0
        exe.backward(mx.nd.array(head).tostype('row_sparse'))
    else:
        exe.backward(mx.nd.array(head))
    saved[('a%d_k%d_' % (axis, keepdims)) + 'out_stype'] = np.array(out.stype)
    g = exe.grad_dict['x']
    key = 'a%d_k%d_' % (axis, keepdims)
    saved[key + 'head'] = head
    saved[key + 'stype'] = np.array(g.stype)
    saved[key + 'rows'] = g.indices.asnumpy()
    saved[key + 'data'] = g.data.asnumpy()
np.savez(OUT, **saved)
print('wrote', OUT, {k: saved[k] for k in saved if k.endswith('stype') or k.endswith('rows')})
