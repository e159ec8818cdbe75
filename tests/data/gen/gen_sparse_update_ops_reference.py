"""The fused update operators called with row_sparse gradients in real MXNet 1.9.1
(``mx.nd.sgd_update`` ..., ``mx.nd.sparse.adagrad_update``), for
tests/optimizer/test_sparse_update_ops.py.

Run with the MXNet virtual environment (not part of CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_sparse_update_ops_reference.py

Each case runs STEPS calls on a dense float32 (6, 3) weight and dense states, each with a
row_sparse gradient holding 2 of the 6 rows, through ``mx.nd.<op>`` (or
``mx.nd.sparse.<op>``), with ``out=weight`` or with ``out`` left out (a new array, the weight
unchanged).

Outputs, under tests/data/sparse/:
  update_ops_cases.json     [{name, op, namespace, kwargs, n_states, in_place, steps,
                             error}]; error: the last line of MXNet's message, or null
                             (MXNet's lazy kernels refuse an ``out`` other than the weight)
  update_ops_reference.npz  '<name>/w0', '<name>/s<i>_0' (initial states),
                            '<name>/g<step>_rows', '<name>/g<step>_values',
                            '<name>/w<step>', '<name>/s<i>_<step>' (after each step)
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'sparse')
SHAPE = (6, 3)
STEPS = 3

# name, namespace, op, number of states, kwargs, in place
CASES = [
    ('sgd_lazy', 'nd', 'sgd_update', 0, {'lr': 0.1, 'wd': 0.1}, True),
    ('sgd_lazy_new_out', 'nd', 'sgd_update', 0, {'lr': 0.1, 'wd': 0.1}, False),
    ('sgd_std', 'nd', 'sgd_update', 0, {'lr': 0.1, 'wd': 0.1, 'lazy_update': False}, True),
    ('sgd_sparse_ns', 'nd.sparse', 'sgd_update', 0,
     {'lr': 0.1, 'wd': 0.05, 'rescale_grad': 0.5, 'clip_gradient': 0.2}, True),
    ('sgd_mom_lazy', 'nd', 'sgd_mom_update', 1, {'lr': 0.1, 'momentum': 0.9, 'wd': 0.1}, True),
    ('sgd_mom_std', 'nd', 'sgd_mom_update', 1,
     {'lr': 0.1, 'momentum': 0.9, 'wd': 0.1, 'lazy_update': False}, True),
    ('sgd_mom_sparse_ns', 'nd.sparse', 'sgd_mom_update', 1,
     {'lr': 0.1, 'momentum': 0.5, 'wd': 0.1, 'clip_gradient': 0.3}, False),
    ('adam_lazy', 'nd', 'adam_update', 2, {'lr': 0.1, 'wd': 0.1}, True),
    ('adam_std', 'nd', 'adam_update', 2, {'lr': 0.1, 'wd': 0.1, 'lazy_update': False}, True),
    ('adam_sparse_ns', 'nd.sparse', 'adam_update', 2,
     {'lr': 0.05, 'beta1': 0.8, 'epsilon': 1e-6, 'rescale_grad': 2.0}, True),
    ('ftrl_fallback', 'nd', 'ftrl_update', 2, {'lr': 0.1, 'wd': 0.1, 'lamda1': 0.01}, True),
    ('ftrl_sparse_ns', 'nd.sparse', 'ftrl_update', 2, {'lr': 0.1, 'beta': 0.5}, True),
    ('rmsprop_fallback', 'nd', 'rmsprop_update', 1, {'lr': 0.01, 'wd': 0.1}, True),
    ('signum_fallback', 'nd', 'signum_update', 1, {'lr': 0.01, 'momentum': 0.9, 'wd': 0.1},
     True),
    ('adagrad', 'nd.sparse', 'adagrad_update', 1, {'lr': 0.1, 'epsilon': 1e-7}, True),
    ('adagrad_clip', 'nd.sparse', 'adagrad_update', 1,
     {'lr': 0.1, 'rescale_grad': 3.0, 'clip_gradient': 0.5}, False),
    ('adagrad_wd', 'nd.sparse', 'adagrad_update', 1, {'lr': 0.1, 'wd': 0.1}, True),
    ('adam_lazy_new_out', 'nd', 'adam_update', 2, {'lr': 0.1, 'wd': 0.1}, False),
    ('sgd_mom_std_new_out', 'nd', 'sgd_mom_update', 1,
     {'lr': 0.1, 'momentum': 0.9, 'wd': 0.1, 'lazy_update': False}, False),
    ('adam_std_new_out', 'nd', 'adam_update', 2, {'lr': 0.1, 'lazy_update': False}, False),
    ('ftrl_fallback_new_out', 'nd', 'ftrl_update', 2, {'lr': 0.1, 'wd': 0.1}, False),
]


def _namespace(mx_module, namespace):
    return mx_module.nd if namespace == 'nd' else mx_module.nd.sparse


def main():
    rng = np.random.RandomState(5)
    out = {}
    cases = []
    for name, namespace, op, n_states, kwargs, in_place in CASES:
        w0 = rng.uniform(-1, 1, SHAPE).astype(np.float32)
        out['%s/w0' % name] = w0
        # positive states: rmsprop's n and adagrad's history are sums of squares
        states0 = [rng.uniform(0.1, 1, SHAPE).astype(np.float32) for _ in range(n_states)]
        for i, s in enumerate(states0):
            out['%s/s%d_0' % (name, i)] = s
        for step in range(STEPS):
            out['%s/g%d_rows' % (name, step)] = np.sort(rng.choice(SHAPE[0], 2, replace=False))
            out['%s/g%d_values' % (name, step)] = rng.uniform(-1, 1, (2, SHAPE[1])).astype(
                np.float32)
        case = {'name': name, 'op': op, 'namespace': namespace, 'kwargs': kwargs,
                'n_states': n_states, 'in_place': in_place, 'steps': STEPS, 'error': None}
        weight = mx.nd.array(w0)
        states = [mx.nd.array(s) for s in states0]
        fn = getattr(_namespace(mx, namespace), op)
        try:
            for step in range(STEPS):
                grad = mx.nd.sparse.row_sparse_array(
                    (out['%s/g%d_values' % (name, step)], out['%s/g%d_rows' % (name, step)]),
                    shape=SHAPE)
                if in_place:
                    fn(weight, grad, *states, out=weight, **kwargs)
                    result = weight
                else:
                    result = fn(weight, grad, *states, **kwargs)
                out['%s/w%d' % (name, step + 1)] = result.asnumpy()
                out['%s/unchanged%d' % (name, step + 1)] = weight.asnumpy()
                for i, s in enumerate(states):
                    out['%s/s%d_%d' % (name, i, step + 1)] = s.asnumpy()
        except mx.base.MXNetError as err:
            case['error'] = str(err).strip().splitlines()[-1]
        cases.append(case)
    os.makedirs(OUT, exist_ok=True)
    np.savez(os.path.join(OUT, 'update_ops_reference.npz'), **out)
    with open(os.path.join(OUT, 'update_ops_cases.json'), 'w') as f:
        json.dump(cases, f, indent=1)


if __name__ == '__main__':
    main()
