"""Record MXNet 1.9.1's CTCLoss results (tests/ops/test_ctc.py).

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_ops_ctc_reference.py

Writes tests/data/ops_ctc_reference.npz in the layout tests/ops/recorded_cases.py
replays: ``<case>/meta`` (operator, parameters, argument names, no_grad), the inputs
``<case>/arg/<name>``, head gradients ``<case>/ograd/<i>``, and what MXNet computed:
``<case>/out/<i>`` and ``<case>/grad/data``.
"""
import json
import os

import mxnet as mx
import numpy as np

from reference_npz import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'ops_ctc_reference.npz')

RNG = np.random.RandomState(4321)
CASES = []


def randn(*shape):
    return RNG.randn(*shape).astype(np.float32)


def case(name, params, args, op='CTCLoss', backward=True):
    CASES.append(dict(name=name, op=op, params=params, args=args, backward=backward))


def build_cases():
    # blank first: labels 1..4, padding 0; repeated labels need a blank between them
    case('first_padded', {}, {'data': randn(6, 3, 5) * 2,
                              'label': np.array([[1, 2, 0], [3, 3, 4], [2, 0, 0]], np.float32)})
    case('last_padded', {'blank_label': 'last'},
         {'data': randn(6, 3, 5), 'label': np.array([[0, 1, -1], [2, 2, 3], [3, -1, -1]],
                                                    np.float32)})
    case('alias_ctc_loss', {'blank_label': 'last'},
         {'data': randn(4, 2, 3), 'label': np.array([[0, 1], [1, -1]], np.float32)},
         op='ctc_loss')
    case('contrib_alias', {}, {'data': randn(5, 2, 4),
                               'label': np.array([[1, 3], [2, 0]], np.float32)},
         op='contrib.CTCLoss')
    case('data_lengths', {'use_data_lengths': True, 'blank_label': 'last'},
         {'data': randn(7, 3, 4), 'label': np.array([[0, 1, 2], [1, -1, -1], [2, 2, -1]],
                                                    np.float32),
          'data_lengths': np.array([7, 3, 5], np.float32)})
    case('label_lengths', {'use_label_lengths': True, 'blank_label': 'last'},
         {'data': randn(6, 2, 5), 'label': np.array([[0, 1, 3, 2], [3, 3, 0, 0]], np.float32),
          'label_lengths': np.array([2, 3], np.float32)})
    case('both_lengths', {'use_data_lengths': True, 'use_label_lengths': True},
         {'data': randn(8, 3, 6), 'label': np.array([[1, 5, 5, 2], [4, 0, 0, 0],
                                                     [2, 3, 1, 1]], np.float32),
          'data_lengths': np.array([8, 2, 6], np.float32),
          'label_lengths': np.array([4, 1, 4], np.float32)})
    # a sequence too short for its labels (2 labels + 1 repeat > 2 steps) costs 0; MXNet
    # leaves its gradient unwritten (whatever the memory held), so only forward is kept
    case('infeasible', {'use_data_lengths': True},
         {'data': randn(4, 2, 3), 'label': np.array([[1, 1], [2, 1]], np.float32),
          'data_lengths': np.array([2, 4], np.float32)}, backward=False)
    case('empty_label', {}, {'data': randn(3, 2, 3),
                             'label': np.array([[0, 0], [2, 0]], np.float32)})
    case('large_alphabet', {'blank_label': 'last'},
         {'data': randn(12, 2, 40) * 3, 'label': RNG.randint(0, 39, (2, 5)).astype(np.float32)})
    case('int_label', {}, {'data': randn(5, 2, 4),
                           'label': np.array([[1, 2], [3, 0]], np.int32)})


def run(c):
    names = list(c['args'])
    variables = {n: mx.sym.Variable(n) for n in names}
    func = mx.sym
    for part in c['op'].split('.'):
        func = getattr(func, part)
    sym = func(name='op', **variables, **c['params'])
    assert sym.list_arguments() == names, sym.list_arguments()
    args = {n: mx.nd.array(v, dtype=v.dtype) for n, v in c['args'].items()}
    grads = {'data': mx.nd.zeros(args['data'].shape)}
    reqs = {n: 'write' if n == 'data' else 'null' for n in names}
    ex = sym.bind(mx.cpu(), args=args, args_grad=grads, grad_req=reqs)
    outs = [o.asnumpy() for o in ex.forward(is_train=True)]
    ograds = [randn(*o.shape) for o in outs]
    key = c['name']
    meta = {'op': c['op'].replace('contrib.', '_contrib_'),
            'params': {k: str(v) for k, v in c['params'].items()},
            'args': names, 'backward': c['backward'],
            'no_grad': [n for n in names if n != 'data']}
    record = {key + '/meta': np.array(json.dumps(meta))}
    if c['backward']:
        ex.backward([mx.nd.array(g) for g in ograds])
        record[key + '/grad/data'] = ex.grad_dict['data'].asnumpy()
    for n in names:
        record['%s/arg/%s' % (key, n)] = c['args'][n]
    for i, (o, g) in enumerate(zip(outs, ograds)):
        record['%s/out/%d' % (key, i)] = o
        record['%s/ograd/%d' % (key, i)] = g
    return record


def main():
    build_cases()
    write_cases(OUT, CASES, run)


if __name__ == '__main__':
    main()
