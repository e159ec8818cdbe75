"""What the vision and contrib operator generators share: a list of cases, each one
operator composed on variables, bound, run forward and backward in real MXNet 1.9.1, and
recorded in the layout tests/ops/recorded_cases.py replays.

A case's ``op`` may be dotted (``contrib.box_nms`` is ``mx.sym.contrib.box_nms``).
Arguments are passed by keyword; ``no_grad`` names arguments bound with grad_req 'null';
``aux`` gives auxiliary states (compared after backward); ``backward=False`` records
the forward pass only.
"""
import json

import mxnet as mx
import numpy as np

from reference_npz import write_cases

RNG = np.random.RandomState(1234)
CASES = []


def randn(*shape):
    return RNG.randn(*shape).astype(np.float32)


def uniform(low, high, *shape):
    return RNG.uniform(low, high, shape).astype(np.float32)


def case(name, op, params, args, aux=None, no_grad=(), backward=True, is_train=True):
    CASES.append(dict(name=name, op=op, params=params, args=args, aux=aux or {},
                      no_grad=list(no_grad), backward=backward, is_train=is_train))


def resolve(namespace, dotted):
    """``namespace.a.b`` for ``dotted`` 'a.b'."""
    for part in dotted.split('.'):
        namespace = getattr(namespace, part)
    return namespace


def run(c, make_ograd=None):
    """Bind, run and record case ``c``; ``make_ograd(i, output)`` gives the head gradient
    of output ``i`` (random normal by default)."""
    variables = {n: mx.sym.Variable(n) for n in c['args']}
    sym = resolve(mx.sym, c['op'])(**variables, **c['params'], name='op')
    arg_names = sym.list_arguments()
    aux_names = sym.list_auxiliary_states()

    def short(n):
        return n[3:] if n.startswith('op_') else n

    args = {n: mx.nd.array(c['args'][short(n)], dtype=c['args'][short(n)].dtype)
            for n in arg_names}
    grads = {n: mx.nd.zeros(args[n].shape, dtype=args[n].dtype) for n in arg_names}
    reqs = {n: ('null' if short(n) in c['no_grad'] or not c['backward'] else 'write')
            for n in arg_names}
    aux = {n: mx.nd.array(c['aux'][short(n)]) for n in aux_names}
    ex = sym.bind(mx.cpu(), args=args, args_grad=grads, grad_req=reqs, aux_states=aux)
    outs = [o.asnumpy() for o in ex.forward(is_train=c['is_train'])]
    ograds = []
    if c['backward']:
        make_ograd = make_ograd or (lambda i, o: randn(*o.shape).astype(o.dtype))
        ograds = [make_ograd(i, o) for i, o in enumerate(outs)]
        ex.backward([mx.nd.array(g, dtype=g.dtype) for g in ograds])
    mx.nd.waitall()
    key = c['name']
    meta = {'op': c['op'], 'params': {k: str(v) for k, v in c['params'].items()},
            'args': [short(n) for n in arg_names], 'aux': [short(n) for n in aux_names],
            'is_train': c['is_train'], 'backward': c['backward'], 'no_grad': c['no_grad']}
    record = {key + '/meta': np.array(json.dumps(meta))}
    for n in arg_names:
        record['%s/arg/%s' % (key, short(n))] = c['args'][short(n)]
        if reqs[n] == 'write':
            record['%s/grad/%s' % (key, short(n))] = ex.grad_dict[n].asnumpy()
    for n in aux_names:
        record['%s/aux/%s' % (key, short(n))] = c['aux'][short(n)]
        record['%s/aux_after/%s' % (key, short(n))] = ex.aux_dict[n].asnumpy()
    for i, o in enumerate(outs):
        record['%s/out/%d' % (key, i)] = o
    for i, g in enumerate(ograds):
        record['%s/ograd/%d' % (key, i)] = g
    return record


def write(path):
    """Run every case declared so far and write them to ``path``."""
    write_cases(path, CASES, run)
