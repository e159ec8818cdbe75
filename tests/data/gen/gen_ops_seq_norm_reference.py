"""Record MXNet 1.9.1's results for the sequence and normalization operators
(tests/ops/test_sequence.py, tests/ops/test_normalization.py).

Run with the real MXNet (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_ops_seq_norm_reference.py

Writes tests/data/ops_seq_norm_reference.npz. For every case ``<case>`` it holds
``<case>/meta`` (JSON: operator, parameters, argument names, the arguments without a
recorded gradient), the inputs ``<case>/arg/<name>``, the head gradients
``<case>/ograd/<i>`` (one per visible output) and what MXNet computed:
``<case>/out/<i>`` (visible outputs of a training forward pass) and
``<case>/grad/<name>`` (input gradients, when ``meta['backward']``).
"""
import json
import os

import mxnet as mx
import numpy as np

from reference_npz import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'ops_seq_norm_reference.npz')

RNG = np.random.RandomState(2024)
CASES = []


def randn(*shape, dtype=np.float32):
    return RNG.randn(*shape).astype(dtype)


def case(name, op, params, args, no_grad=(), backward=True):
    CASES.append(dict(name=name, op=op, params=params, args=args, no_grad=list(no_grad),
                      backward=backward))


def sequence_cases():
    x = randn(5, 3, 2, 2)
    lengths = np.array([2, 5, 0], np.float32)
    case('mask_identity', 'SequenceMask', {}, {'data': x})
    case('mask_len_axis0', 'SequenceMask', {'use_sequence_length': True, 'value': -1.5},
         {'data': x, 'sequence_length': lengths}, no_grad=['sequence_length'])
    case('mask_len_axis1', 'SequenceMask', {'use_sequence_length': True, 'axis': 1},
         {'data': randn(3, 4, 2), 'sequence_length': np.array([1, 4, 3], np.int32)},
         no_grad=['sequence_length'])
    case('mask_len_float64', 'SequenceMask', {'use_sequence_length': True},
         {'data': randn(4, 2, dtype=np.float64),
          'sequence_length': np.array([3.7, 1], np.float64)}, no_grad=['sequence_length'])
    # MXNet's backward without sequence_length reads uninitialized lengths: forward only
    case('last_default', 'SequenceLast', {}, {'data': x}, backward=False)
    case('last_len_axis0', 'SequenceLast', {'use_sequence_length': True},
         {'data': x, 'sequence_length': np.array([2, 5, 1], np.float32)},
         no_grad=['sequence_length'])
    case('last_len_axis1', 'SequenceLast', {'use_sequence_length': True, 'axis': 1},
         {'data': randn(3, 4, 2, 3), 'sequence_length': np.array([4, 1, 3], np.int32)},
         no_grad=['sequence_length'])
    case('reverse_default', 'SequenceReverse', {}, {'data': x})
    case('reverse_len', 'SequenceReverse', {'use_sequence_length': True},
         {'data': x, 'sequence_length': np.array([3, 5, 0], np.float32)},
         no_grad=['sequence_length'])
    case('reverse_len_2d', 'SequenceReverse', {'use_sequence_length': True},
         {'data': randn(4, 3), 'sequence_length': np.array([2, 1, 4], np.int32)},
         no_grad=['sequence_length'])


def norm_cases():
    def affine(c):
        return {'gamma': RNG.rand(c).astype(np.float32) + 0.5, 'beta': randn(c)}

    case('layernorm_default', 'LayerNorm', {}, dict(data=randn(2, 3, 5) * 2 + 1, **affine(5)))
    case('layernorm_axis1_meanvar', 'LayerNorm',
         {'axis': 1, 'eps': 1e-3, 'output_mean_var': True},
         dict(data=randn(3, 4, 2), **affine(4)))
    case('layernorm_axis0', 'LayerNorm', {'axis': 0}, dict(data=randn(4, 3), **affine(4)))
    case('layernorm_float64', 'LayerNorm', {'output_mean_var': True},
         {'data': randn(3, 6, dtype=np.float64),
          'gamma': RNG.rand(6) + 0.5, 'beta': RNG.randn(6)})
    case('instancenorm_4d', 'InstanceNorm', {}, dict(data=randn(2, 3, 4, 2) * 3, **affine(3)))
    case('instancenorm_3d_eps', 'InstanceNorm', {'eps': 1e-2},
         dict(data=randn(3, 2, 5), **affine(2)))
    case('groupnorm_default', 'GroupNorm', {}, dict(data=randn(2, 4, 3), **affine(1)))
    case('groupnorm_2groups', 'GroupNorm', {'num_groups': 2},
         dict(data=randn(2, 4, 3, 2) * 2, **affine(2)))
    case('groupnorm_3groups_meanvar', 'GroupNorm',
         {'num_groups': 3, 'eps': 1e-3, 'output_mean_var': True},
         dict(data=randn(2, 6, 5), **affine(3)))
    for mode, shape in (('instance', (3, 4, 2, 2)), ('channel', (2, 3, 4, 2)),
                        ('spatial', (2, 3, 5))):
        case('l2norm_' + mode, 'L2Normalization', {'mode': mode}, {'data': randn(*shape)})
    case('l2norm_2d_eps', 'L2Normalization', {'eps': 0.5}, {'data': randn(4, 3) * 0.3})
    x = randn(2, 6, 3, 2) * 2
    case('lrn_3', 'LRN', {'nsize': 3}, {'data': x})
    case('lrn_5_params', 'LRN', {'nsize': 5, 'alpha': 0.5, 'beta': 0.6, 'knorm': 1.5},
         {'data': x})
    case('lrn_4_even', 'LRN', {'nsize': 4, 'alpha': 0.3, 'beta': 0.9, 'knorm': 1.0},
         {'data': x})


def run(c):
    variables = {n: mx.sym.Variable(n) for n in c['args']}
    sym = getattr(mx.sym, c['op'])(**variables, **c['params'], name='op')
    names = sym.list_arguments()
    assert names == list(c['args']), (names, list(c['args']))
    args = {n: mx.nd.array(a, dtype=a.dtype) for n, a in c['args'].items()}
    reqs = {n: 'write' if c['backward'] and n not in c['no_grad'] else 'null' for n in names}
    grads = {n: mx.nd.zeros(a.shape, dtype=a.dtype) for n, a in args.items()
             if reqs[n] == 'write'}
    ex = sym.bind(mx.cpu(), args=args, args_grad=grads, grad_req=reqs)
    outs = [o.asnumpy() for o in ex.forward(is_train=True)]
    ograds = [RNG.randn(*o.shape).astype(o.dtype) for o in outs]
    if c['backward']:
        ex.backward([mx.nd.array(g, dtype=g.dtype) for g in ograds])
    mx.nd.waitall()
    key = c['name']
    meta = {'op': c['op'], 'params': {k: str(v) for k, v in c['params'].items()},
            'args': names, 'no_grad': c['no_grad'], 'backward': c['backward']}
    record = {key + '/meta': np.array(json.dumps(meta))}
    for n in names:
        record['%s/arg/%s' % (key, n)] = c['args'][n]
        if reqs[n] == 'write':
            record['%s/grad/%s' % (key, n)] = ex.grad_dict[n].asnumpy()
    for i, (o, g) in enumerate(zip(outs, ograds)):
        record['%s/out/%d' % (key, i)] = o
        record['%s/ograd/%d' % (key, i)] = g
    return record


def main():
    sequence_cases()
    norm_cases()
    write_cases(OUT, CASES, run)


if __name__ == '__main__':
    main()
