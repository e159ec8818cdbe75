"""Optimizer steps on float16 weights with row_sparse gradients, run by real MXNet 1.9.1,
for tests/optimizer/test_sparse_half_updates.py.

Run with the MXNet virtual environment (not part of CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_sparse_half_optimizer_reference.py

Each case runs through ``mx.optimizer.get_updater`` (``update_multi_precision``, as
Module and Trainer call it) for STEPS steps on a float16 (8, 3) weight; each step's
gradient is row_sparse float16 with 3 of the 8 rows. ``multi_precision`` cases keep a
float32 master copy.

Outputs, under tests/data/sparse/:
  half_optimizer_cases.json     [{name, optimizer, kwargs, steps, lazy_notice, error}] in
                                order; lazy_notice: whether MXNet logged its lazy-update
                                notice; error: the last line of MXNet's error, or null
  half_optimizer_reference.npz  '<name>/w0', '<name>/g<step>_rows', '<name>/g<step>_values',
                                '<name>/w<step>' (the float16 weight after each step)
"""
import json
import logging
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'sparse')
SHAPE = (8, 3)
STEPS = 3

CASES = [
    ('sgd_lazy', 'sgd', {'learning_rate': 0.1, 'wd': 0.1}),
    ('sgd_lazy_no_wd', 'sgd', {'learning_rate': 0.1}),
    ('sgd_std', 'sgd', {'learning_rate': 0.1, 'wd': 0.1, 'lazy_update': False}),
    ('sgd_mom_lazy', 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.1}),
    ('sgd_mom_std', 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.1,
                            'lazy_update': False}),
    ('sgd_mom_lazy_mp', 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.1,
                                'multi_precision': True}),
    ('adam_lazy', 'adam', {'learning_rate': 0.1, 'wd': 0.1}),
    # MXNet's standard update in float16 casts epsilon to float16: the default 1e-8 becomes
    # 0, and a row without any gradient yet gets 0 / 0 = NaN (symmod computes in float32
    # and leaves it); with wd such a row's v = (1 - beta2) (wd w)^2 ~ 1e-8 is a float16
    # subnormal, rounded differently by MXNet's float16 operations. Hence epsilon 1e-4 and
    # no wd here: rows that had a gradient before still move, as a standard update does
    ('adam_std', 'adam', {'learning_rate': 0.1, 'epsilon': 1e-4, 'lazy_update': False}),
    ('adam_lazy_mp', 'adam', {'learning_rate': 0.1, 'wd': 0.1, 'multi_precision': True}),
    ('adagrad', 'adagrad', {'learning_rate': 0.1}),
    ('ftrl', 'ftrl', {'learning_rate': 0.1, 'wd': 0.1, 'lamda1': 0.01}),
    ('rmsprop_fallback', 'rmsprop', {'learning_rate': 0.01, 'wd': 0.1}),
]


class _Notices(logging.Handler):
    def __init__(self):
        super().__init__()
        self.seen = []

    def emit(self, record):
        self.seen.append(record.getMessage())


def run_case(name, opt_name, kwargs, rng, out):
    opt = mx.optimizer.create(opt_name, **kwargs)
    updater = mx.optimizer.get_updater(opt)
    w0 = rng.uniform(-1, 1, SHAPE).astype(np.float16)
    out['%s/w0' % name] = w0
    weight = mx.nd.array(w0, dtype='float16')
    for step in range(STEPS):
        out['%s/g%d_rows' % (name, step)] = np.sort(rng.choice(SHAPE[0], 3, replace=False))
        out['%s/g%d_values' % (name, step)] = rng.uniform(-1, 1, (3, SHAPE[1])).astype(
            np.float16)
    for step in range(STEPS):
        grad = mx.nd.sparse.row_sparse_array(
            (out['%s/g%d_values' % (name, step)], out['%s/g%d_rows' % (name, step)]),
            shape=SHAPE, dtype='float16')
        updater(0, grad, weight)
        out['%s/w%d' % (name, step + 1)] = weight.asnumpy()


def main():
    rng = np.random.RandomState(11)
    out = {}
    cases = []
    for name, opt_name, kwargs in CASES:
        # MXNet logs its notice once per process (LogOnce in C++, to stderr): run each case
        # in a fresh process to see whether it logs
        import subprocess
        import sys
        probe = subprocess.run(
            [sys.executable, '-c', _PROBE % (opt_name, kwargs)], capture_output=True,
            text=True, timeout=120)
        case = {'name': name, 'optimizer': opt_name, 'kwargs': kwargs, 'steps': STEPS,
                'lazy_notice': 'lazy_update = True' in probe.stderr, 'error': None}
        try:
            run_case(name, opt_name, kwargs, rng, out)
        except mx.base.MXNetError as err:
            case['error'] = str(err).strip().splitlines()[-1]
        cases.append(case)
    os.makedirs(OUT, exist_ok=True)
    np.savez(os.path.join(OUT, 'half_optimizer_reference.npz'), **out)
    with open(os.path.join(OUT, 'half_optimizer_cases.json'), 'w') as f:
        json.dump(cases, f, indent=1)


_PROBE = '''
import mxnet as mx, numpy as np
opt = mx.optimizer.create(%r, **%r)
updater = mx.optimizer.get_updater(opt)
weight = mx.nd.ones((4, 2), dtype='float16')
grad = mx.nd.sparse.row_sparse_array((np.ones((1, 2), 'float16'), [1]), shape=(4, 2),
                                     dtype='float16')
updater(0, grad, weight)
weight.wait_to_read()
'''


if __name__ == '__main__':
    main()
