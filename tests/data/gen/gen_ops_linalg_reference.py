"""Record what real MXNet 1.9.1 computes for the linalg operators (gemm, potrf, potri,
trmm, trsm, sumlogdiag, syrk, gelqf, syevd, inverse, det, slogdet, extractdiag,
makediag, extracttrian, maketrian): outputs and input gradients, float64, a few
configurations each.

Run with the MXNet environment (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_ops_linalg_reference.py

Writes tests/data/ops_linalg_reference.npz in the layout tests/ops/recorded_cases.py
replays: ``<case>/meta`` (JSON: op, params, args, no_grad, backward), ``<case>/arg/<a>``,
``<case>/out/<i>``, ``<case>/ograd/<i>``, ``<case>/grad/<a>``.
"""
import json
import os
import pathlib

os.environ['MXNET_MKLDNN_ENABLED'] = '0'
import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

from reference_npz import write_cases  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / 'ops_linalg_reference.npz'
rng = np.random.RandomState(4321)
CASES = []


def randn(*shape):
    return rng.randn(*shape)


def spd(*shape):
    """Well-conditioned symmetric positive definite matrices."""
    x = rng.randn(*shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def tri(shape):
    """Random matrices whose triangles are well conditioned (diagonal in [1, 2]); the
    triangle the operator does not read holds noise it must ignore."""
    x = rng.randn(*shape) * 0.3
    n = shape[-1]
    x[..., np.arange(n), np.arange(n)] = rng.uniform(1.0, 2.0, size=shape[:-1])
    return x


def case(name, short, params, args):
    CASES.append(dict(name=name, short=short, params=params, args=args))


def all_cases():
    case('gemm_basic', 'gemm', {'alpha': 1.5, 'beta': 0.5},
         {'A': randn(2, 3, 4), 'B': randn(2, 4, 5), 'C': randn(2, 3, 5)})
    case('gemm_transposed_axis', 'gemm', {'transpose_a': True, 'transpose_b': True,
                                          'alpha': -2.0, 'beta': 3.0, 'axis': 0},
         {'A': randn(4, 2, 3), 'B': randn(5, 2, 4), 'C': randn(3, 2, 5)})
    case('potrf_lower', 'potrf', {}, {'A': spd(2, 4, 4)})
    case('potrf_upper', 'potrf', {'lower': False}, {'A': spd(3, 3)})
    case('potri_lower', 'potri', {}, {'A': tri((2, 3, 3))})
    case('potri_upper', 'potri', {'lower': False}, {'A': tri((3, 3))})
    for rightside in (False, True):
        for transpose in (False, True):
            lower = not (rightside and transpose)
            shape_b = (2, 4, 3) if rightside else (2, 3, 4)
            for short in ('trmm', 'trsm'):
                case('%s_r%d_t%d' % (short, rightside, transpose), short,
                     {'rightside': rightside, 'transpose': transpose, 'lower': lower,
                      'alpha': 1.5},
                     {'A': tri((2, 3, 3)), 'B': randn(*shape_b)})
    case('sumlogdiag', 'sumlogdiag', {}, {'A': spd(2, 3, 3)})
    case('sumlogdiag_2d', 'sumlogdiag', {}, {'A': spd(3, 3)})
    case('syrk', 'syrk', {'alpha': 0.5}, {'A': randn(2, 3, 4)})
    case('syrk_transpose', 'syrk', {'transpose': True}, {'A': randn(3, 4)})
    case('gelqf', 'gelqf', {}, {'A': randn(2, 3, 5)})
    case('gelqf_square', 'gelqf', {}, {'A': randn(3, 3)})
    case('syevd', 'syevd', {}, {'A': spd(2, 4, 4)})
    case('syevd_2d', 'syevd', {}, {'A': spd(3, 3)})
    case('inverse', 'inverse', {}, {'A': spd(2, 3, 3)})
    case('det', 'det', {}, {'A': randn(2, 3, 3)})
    case('det_2d', 'det', {}, {'A': randn(4, 4)})
    case('slogdet', 'slogdet', {}, {'A': randn(2, 3, 3)})
    case('extractdiag', 'extractdiag', {'offset': -1}, {'A': randn(2, 4, 4)})
    case('makediag', 'makediag', {'offset': 2}, {'A': randn(2, 3)})
    for offset, lower in ((0, True), (0, False), (1, True), (-2, False)):
        case('extracttrian_%d_%d' % (offset, lower), 'extracttrian',
             {'offset': offset, 'lower': lower}, {'A': randn(2, 4, 4)})
        m = 4 - abs(offset)
        case('maketrian_%d_%d' % (offset, lower), 'maketrian',
             {'offset': offset, 'lower': lower}, {'A': randn(2, m * (m + 1) // 2)})


def run(c):
    names = list(c['args'])
    variables = [mx.sym.Variable(n) for n in names]
    sym = getattr(mx.sym.linalg, c['short'])(*variables, name='op', **c['params'])
    assert sym.list_arguments() == names, sym.list_arguments()
    args = {n: mx.nd.array(a, dtype=np.float64) for n, a in c['args'].items()}
    grads = {n: mx.nd.zeros(a.shape, dtype=np.float64) for n, a in c['args'].items()}
    ex = sym.bind(mx.cpu(), args=args, args_grad=grads)
    outs = ex.forward(is_train=True)
    ograds = [rng.randn(*o.shape) for o in outs]
    ex.backward([mx.nd.array(g, dtype=np.float64) for g in ograds])
    key = c['name']
    meta = {'op': '_linalg_' + c['short'], 'params': {k: str(v) for k, v in c['params'].items()},
            'args': names, 'no_grad': [], 'backward': True}
    record = {key + '/meta': np.array(json.dumps(meta))}
    for n in names:
        record['%s/arg/%s' % (key, n)] = c['args'][n]
        record['%s/grad/%s' % (key, n)] = grads[n].asnumpy()
    for i, (o, g) in enumerate(zip(outs, ograds)):
        record['%s/out/%d' % (key, i)] = o.asnumpy()
        record['%s/ograd/%d' % (key, i)] = g
    return record


def main():
    all_cases()
    write_cases(OUT, CASES, run)


if __name__ == '__main__':
    main()
