"""Replays the operator cases real MXNet 1.9.1 recorded in tests/data/ops_*_reference.npz
(written by the generators in tests/data/gen/).

A file holds, for every case ``<name>``, ``<name>/meta`` (JSON: the operator, its
parameters, its argument names, ...), the inputs ``<name>/arg/<arg>``, the head
gradients ``<name>/ograd/<i>`` and what MXNet computed: ``<name>/out/<i>`` and
``<name>/grad/<arg>``. Each case is composed in symmod on variables named like the
arguments, bound with the recorded inputs, run forward and backward, and compared.
"""
import functools
import json
import pathlib

import numpy as np

import symmod as mx
from symmod.test_utils import assert_almost_equal

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data'


@functools.lru_cache(maxsize=None)
def load(filename):
    """Every array of tests/data/``filename``, by key."""
    with np.load(DATA / filename) as data:
        return {k: data[k] for k in data.files}


def case_meta(filename, name):
    """The parsed ``<name>/meta`` record."""
    return json.loads(str(load(filename)[name + '/meta']))


def case_names(filename, ops):
    """Sorted names of the cases of the operators ``ops`` (a collection of names)."""
    arrays = load(filename)
    names = sorted(k[:-len('/meta')] for k in arrays if k.endswith('/meta'))
    return [n for n in names if case_meta(filename, n)['op'] in ops]


def symbol_function(op):
    """``mx.sym.<op>``; a dotted ``op`` ('contrib.box_nms') names a sub-namespace."""
    func = mx.sym
    for part in op.split('.'):
        func = getattr(func, part)
    return func


def replay(filename, name, rtol, atol, outputs=None):
    """Replay case ``name`` and assert symmod matches MXNet; returns the executor.

    For files whose meta says which arguments get no gradient (``no_grad``), whether
    there is a backward pass (``backward``) and, optionally, the auxiliary states
    (``aux``, created by the operator, given before and compared after) and the mode
    (``is_train``, training by default). ``outputs`` limits the comparison to those
    output indices (MXNet leaves some outputs unwritten, e.g. rrelu's mask in inference).
    """
    arrays, meta = load(filename), case_meta(filename, name)
    variables = {n: mx.sym.Variable(n) for n in meta['args']}
    sym = symbol_function(meta['op'])(**variables, **meta['params'], name='op')
    assert sym.list_arguments() == meta['args']
    given = {n: arrays['%s/arg/%s' % (name, n)] for n in meta['args']}
    args = {n: mx.nd.array(a, dtype=a.dtype) for n, a in given.items()}
    reqs = {n: 'write' if meta['backward'] and n not in meta['no_grad'] else 'null'
            for n in meta['args']}
    grads = {n: mx.nd.zeros(a.shape, dtype=a.dtype) for n, a in given.items()
             if reqs[n] == 'write'}
    aux_names = meta.get('aux', [])
    aux = {'op_' + n: mx.nd.array(arrays['%s/aux/%s' % (name, n)]) for n in aux_names}
    ex = sym.bind(mx.cpu(), args=args, args_grad=grads, grad_req=reqs, aux_states=aux)
    outs = ex.forward(is_train=meta.get('is_train', True))
    for i, out in enumerate(outs):
        if outputs is not None and i not in outputs:
            continue
        expected = arrays['%s/out/%d' % (name, i)]
        assert out.dtype == expected.dtype
        assert_almost_equal(out.asnumpy(), expected, rtol, atol, ('symmod out%d' % i, 'mxnet'),
                            equal_nan=True)
    if meta['backward']:
        ograds = [arrays['%s/ograd/%d' % (name, i)] for i in range(len(outs))]
        ex.backward([mx.nd.array(g, dtype=g.dtype) for g in ograds])
        for n in meta['args']:
            if reqs[n] == 'write':
                assert_almost_equal(ex.grad_dict[n].asnumpy(), arrays['%s/grad/%s' % (name, n)],
                                    rtol, atol, ('symmod grad %s' % n, 'mxnet'))
    for n in aux_names:
        assert_almost_equal(ex.aux_dict['op_' + n].asnumpy(),
                            arrays['%s/aux_after/%s' % (name, n)], rtol, atol,
                            ('symmod %s' % n, 'mxnet'))
    return ex


def replay_with_shapes(filename, name, tol, exact=False):
    """Replay case ``name`` of a file whose meta records the inferred shapes
    (``arg_shapes``, ``out_shapes``) and output dtypes (``out_dtypes``): compare those,
    every output (``exact``: bit for bit) and every argument's gradient (within
    ``tol``) with MXNet's. Arguments are passed positionally, in recorded order."""
    arrays, meta = load(filename), case_meta(filename, name)
    sym = getattr(mx.sym, meta['op'])(*[mx.sym.Variable(n) for n in meta['args']],
                                      name='op', **meta['params'])
    values = {n: arrays['%s/arg/%s' % (name, n)] for n in meta['args']}
    arg_shapes, out_shapes, _ = sym.infer_shape(**{n: v.shape for n, v in values.items()})
    assert [list(s) for s in arg_shapes] == meta['arg_shapes']
    assert [list(s) for s in out_shapes] == meta['out_shapes']
    ex = sym.bind(mx.cpu(), args={n: mx.nd.array(v) for n, v in values.items()},
                  args_grad={n: mx.nd.zeros(v.shape) for n, v in values.items()})
    outs = ex.forward(is_train=True)
    for i, out in enumerate(outs):
        expected = arrays['%s/out/%d' % (name, i)]
        assert np.dtype(out.dtype).name == meta['out_dtypes'][i]
        if exact:
            assert np.array_equal(out.asnumpy(), expected), i
        else:
            assert_almost_equal(out.asnumpy(), expected, rtol=tol, atol=tol)
    ex.backward([mx.nd.array(arrays['%s/ograd/%d' % (name, i)]) for i in range(len(outs))])
    for n in meta['args']:
        assert_almost_equal(ex.grad_dict[n].asnumpy(), arrays['%s/grad/%s' % (name, n)],
                            rtol=tol, atol=tol, names=('symmod d' + n, 'mxnet'))
