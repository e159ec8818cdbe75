"""Loader for tests/data/ops_nn_reference.npz: what real MXNet 1.9.1 computed for the
neural-network operators (see tests/data/gen/gen_ops_nn_reference.py).

Each case is replayed through symmod's symbolic API: the operator is composed on
variables, bound with the recorded inputs and auxiliary states, run forward (in the
recorded mode) and backward with the recorded head gradients, and every output,
input gradient and updated auxiliary state is compared with MXNet's.
"""
import functools
import json
import pathlib

import numpy as np

import symmod as mx
from symmod.test_utils import assert_almost_equal

PATH = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'ops_nn_reference.npz'


@functools.lru_cache(maxsize=1)
def _load():
    with np.load(PATH) as data:
        return {k: data[k] for k in data.files}


def cases(ops):
    """Names of the recorded cases of the operators ``ops``."""
    arrays = _load()
    names = sorted(k[:-len('/meta')] for k in arrays if k.endswith('/meta'))
    return [n for n in names if json.loads(str(arrays[n + '/meta']))['op'] in ops]


def run_case(name, rtol=1e-5, atol=1e-5, outputs=None):
    """Replay case ``name`` and assert symmod matches MXNet; returns the executor.

    ``outputs`` limits the comparison to those output indices (MXNet leaves some
    outputs unwritten, e.g. rrelu's mask in inference).
    """
    arrays = _load()
    meta = json.loads(str(arrays[name + '/meta']))
    # arguments are variables named by their role; auxiliary states are auto-created
    variables = {n: mx.sym.Variable(n) for n in meta['args']}
    sym = getattr(mx.sym, meta['op'])(**variables, **meta['params'], name='op')
    args = {n: mx.nd.array(arrays['%s/arg/%s' % (name, n)],
                           dtype=arrays['%s/arg/%s' % (name, n)].dtype)
            for n in meta['args']}
    grads, reqs = {}, {}
    for n in meta['args']:
        wanted = meta['backward'] and n not in meta['no_grad']
        reqs[n] = 'write' if wanted else 'null'
        if wanted:
            grads[n] = mx.nd.zeros(args[n].shape, dtype=args[n].dtype)
    aux = {'op_' + n: mx.nd.array(arrays['%s/aux/%s' % (name, n)]) for n in meta['aux']}
    ex = sym.bind(mx.cpu(), args=args, args_grad=grads, grad_req=reqs, aux_states=aux)
    outs = ex.forward(is_train=meta['is_train'])
    for i, out in enumerate(outs):
        if outputs is not None and i not in outputs:
            continue
        assert_almost_equal(out.asnumpy(), arrays['%s/out/%d' % (name, i)], rtol, atol,
                            ('symmod output %d' % i, 'mxnet'))
    if meta['backward']:
        ograds = [mx.nd.array(arrays['%s/ograd/%d' % (name, i)]) for i in range(len(outs))]
        ex.backward(ograds)
        for n in meta['args']:
            if reqs[n] == 'write':
                assert_almost_equal(ex.grad_dict[n].asnumpy(),
                                    arrays['%s/grad/%s' % (name, n)], rtol, atol,
                                    ('symmod grad %s' % n, 'mxnet'))
    for n in meta['aux']:
        assert_almost_equal(ex.aux_dict['op_' + n].asnumpy(),
                            arrays['%s/aux_after/%s' % (name, n)], rtol, atol,
                            ('symmod %s' % n, 'mxnet'))
    return ex
