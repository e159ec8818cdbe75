"""Record MXNet 1.9.1's results for _contrib_hawkesll and _identity_with_attr_like_rhs
(tests/ops/test_hawkesll.py): forward outputs and the gradients MXNet computes.

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_ops_hawkesll_reference.py

Writes tests/data/ops_hawkesll_reference.npz (layout: see symbolic_cases.py).
"""
import os

import numpy as np

from symbolic_cases import RNG, case, randn, uniform, write

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                   'ops_hawkesll_reference.npz')
# MXNet computes no gradient for the observations and leaves the state's unwritten
NO_GRAD = ['state', 'lags', 'marks', 'valid_length', 'max_time']


def hawkes_args(n, t, k, valid, horizon):
    return {'lda': uniform(0.5, 2.5, n, k), 'alpha': uniform(0.1, 0.6, k),
            'beta': uniform(0.5, 3.0, k), 'state': uniform(0.0, 1.5, n, k),
            'lags': uniform(0.05, 2.0, n, t),
            'marks': RNG.randint(0, k, (n, t)).astype(np.int32),
            'valid_length': np.array(valid, np.float32),
            'max_time': np.array(horizon, np.float32)}


def build_cases():
    case('hawkes_multi', 'contrib.hawkesll', {}, hawkes_args(3, 6, 3, [6, 3, 0],
                                                             [15., 9., 4.]),
         no_grad=NO_GRAD)
    case('hawkes_single', 'contrib.hawkesll', {}, hawkes_args(2, 5, 1, [5, 4], [12., 30.]),
         no_grad=NO_GRAD)
    case('hawkes_long', 'contrib.hawkesll', {}, hawkes_args(4, 12, 2, [12, 7, 1, 10],
                                                            [20., 14., 3., 25.]),
         no_grad=NO_GRAD)
    case('identity_like_rhs', '_internal._identity_with_attr_like_rhs', {},
         {'lhs': randn(3, 4), 'rhs': randn(3, 4)})


if __name__ == '__main__':
    build_cases()
    write(OUT)
