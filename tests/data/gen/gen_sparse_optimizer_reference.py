"""Optimizer steps with row_sparse gradients, run by real MXNet 1.9.1, for
tests/optimizer/test_sparse_updates.py.

Run with the MXNet virtual environment (not part of CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_sparse_optimizer_reference.py

Outputs, under tests/data/sparse/:
  optimizer_cases.json      [{name, optimizer, kwargs, weight_stype, steps}] in order
  optimizer_reference.npz   '<name>/w0', '<name>/g<step>_rows', '<name>/g<step>_values',
                            '<name>/second0' and '<name>/dense_g<step>' (a second weight
                            and its dense gradient, mixed cases), '<name>/w<step>' and '<name>/s<step>_<k>' after
                            each step (weight, then each state array densified)
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'sparse')
SHAPE = (8, 3)
STEPS = 3

CASES = [
    ('sgd_lazy', 'sgd', {'learning_rate': 0.1, 'wd': 0.01}, 'default'),
    ('sgd_std', 'sgd', {'learning_rate': 0.1, 'wd': 0.01, 'lazy_update': False}, 'default'),
    ('sgd_clip', 'sgd', {'learning_rate': 0.1, 'clip_gradient': 0.3, 'rescale_grad': 2.0},
     'default'),
    ('sgd_mom_lazy', 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01}, 'default'),
    ('sgd_mom_std', 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01,
                            'lazy_update': False}, 'default'),
    ('sgd_mom_rsp_weight', 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01},
     'row_sparse'),
    ('sgd_mom_mixed', 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01}, 'mixed'),
    ('adam_lazy', 'adam', {'learning_rate': 0.01, 'wd': 0.01}, 'default'),
    ('adam_std', 'adam', {'learning_rate': 0.01, 'wd': 0.01, 'lazy_update': False}, 'default'),
    ('adam_clip', 'adam', {'learning_rate': 0.01, 'clip_gradient': 0.2}, 'default'),
    ('adam_rsp_weight', 'adam', {'learning_rate': 0.01}, 'row_sparse'),
    ('adagrad', 'adagrad', {'learning_rate': 0.1, 'clip_gradient': 0.5}, 'default'),
    ('ftrl', 'ftrl', {'learning_rate': 0.1, 'wd': 0.01, 'lamda1': 0.01}, 'default'),
    ('ftrl_clip', 'ftrl', {'learning_rate': 0.1, 'clip_gradient': 0.3}, 'default'),
    ('ftrl_rsp_weight', 'ftrl', {'learning_rate': 0.1, 'wd': 0.01, 'lamda1': 0.01},
     'row_sparse'),
    ('ftrl_rsp_weight_clip', 'ftrl', {'learning_rate': 0.1, 'clip_gradient': 0.3},
     'row_sparse'),
    ('group_adagrad', 'groupadagrad', {'learning_rate': 0.1}, 'default'),
    ('rmsprop_fallback', 'rmsprop', {'learning_rate': 0.01, 'wd': 0.01}, 'default'),
    ('nag_fallback', 'nag', {'learning_rate': 0.1, 'momentum': 0.9}, 'default'),
]


def _dense(array):
    return array.tostype('default').asnumpy() if array.stype != 'default' else array.asnumpy()


def _states(state):
    if state is None:
        return []
    if isinstance(state, (tuple, list)):
        return [s for item in state for s in _states(item)]
    return [state]


def run_case(name, opt_name, kwargs, weight_stype, rng, out):
    opt = mx.optimizer.create(opt_name, **kwargs)
    updater = mx.optimizer.get_updater(opt)
    w0 = rng.uniform(-1, 1, SHAPE).astype(np.float32)
    out['%s/w0' % name] = w0
    weight = mx.nd.array(w0)
    if weight_stype == 'row_sparse':
        weight = weight.tostype('row_sparse')
    second0 = rng.uniform(-1, 1, SHAPE).astype(np.float32)
    out['%s/second0' % name] = second0
    second = mx.nd.array(second0)
    for step in range(STEPS):
        rows = np.sort(rng.choice(SHAPE[0], 3, replace=False))
        values = rng.uniform(-1, 1, (3, SHAPE[1])).astype(np.float32)
        out['%s/g%d_rows' % (name, step)] = rows
        out['%s/g%d_values' % (name, step)] = values
        grad = mx.nd.sparse.row_sparse_array((values, rows), shape=SHAPE)
        if weight_stype == 'mixed':
            dense_g = rng.uniform(-1, 1, SHAPE).astype(np.float32)
            out['%s/dense_g%d' % (name, step)] = dense_g
            updater([0, 1], [grad, mx.nd.array(dense_g)], [weight, second])
            out['%s/w%d_second' % (name, step + 1)] = second.asnumpy()
        else:
            updater(0, grad, weight)
        out['%s/w%d' % (name, step + 1)] = _dense(weight)
        for k, s in enumerate(_states(updater.states[0])):
            out['%s/s%d_%d' % (name, step + 1, k)] = _dense(s)


def main():
    rng = np.random.RandomState(5)
    out = {}
    for name, opt_name, kwargs, weight_stype in CASES:
        run_case(name, opt_name, kwargs, weight_stype, rng, out)
    os.makedirs(OUT, exist_ok=True)
    np.savez(os.path.join(OUT, 'optimizer_reference.npz'), **out)
    with open(os.path.join(OUT, 'optimizer_cases.json'), 'w') as f:
        json.dump([{'name': n, 'optimizer': o, 'kwargs': k, 'weight_stype': s, 'steps': STEPS}
                   for n, o, k, s in CASES], f, indent=1)


if __name__ == '__main__':
    main()
