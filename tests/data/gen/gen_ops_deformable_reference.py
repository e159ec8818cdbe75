"""Record MXNet 1.9.1's deformable convolutions (tests/ops/test_deformable_conv.py).

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_ops_deformable_reference.py

Writes tests/data/ops_deformable_reference.npz in the layout tests/ops/recorded_cases.py
replays (inputs, head gradients, outputs and gradients of every input). MXNet's CPU build
has no backward for the modulated version's offsets ("only implemented in GPU"): its cases
are forward only.
"""
import json
import os

import mxnet as mx
import numpy as np

from reference_npz import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'ops_deformable_reference.npz')
RNG = np.random.RandomState(8)
CASES = []


def case(name, op, params, shapes, offset_scale=1.5, backward=True):
    args = {}
    for arg, shape in shapes.items():
        value = RNG.randn(*shape).astype(np.float32)
        if arg == 'offset':
            value *= offset_scale       # moves of a pixel or two, past the border too
        if arg == 'mask':
            value = RNG.uniform(0, 1, shape).astype(np.float32)
        args[arg] = value
    CASES.append(dict(name=name, op=op, params=params, args=args, backward=backward))


def build_cases():
    d, m = '_contrib_DeformableConvolution', '_contrib_ModulatedDeformableConvolution'
    case('dcn', d, {'kernel': (3, 3), 'num_filter': 4},
         {'data': (2, 3, 6, 7), 'offset': (2, 18, 4, 5), 'weight': (4, 3, 3, 3), 'bias': (4,)})
    case('dcn_pad_stride_dilate', d,
         {'kernel': (3, 2), 'num_filter': 2, 'pad': (1, 1), 'stride': (2, 1), 'dilate': (1, 2),
          'no_bias': True},
         {'data': (1, 2, 7, 6), 'offset': (1, 12, 4, 6), 'weight': (2, 2, 3, 2)})
    case('dcn_groups', d, {'kernel': (2, 2), 'num_filter': 4, 'num_group': 2,
                           'num_deformable_group': 2},
         {'data': (1, 4, 5, 5), 'offset': (1, 16, 4, 4), 'weight': (4, 2, 2, 2), 'bias': (4,)})
    case('mdcn', m, {'kernel': (3, 3), 'num_filter': 3, 'pad': (1, 1)},
         {'data': (2, 2, 5, 6), 'offset': (2, 18, 5, 6), 'mask': (2, 9, 5, 6),
          'weight': (3, 2, 3, 3), 'bias': (3,)}, backward=False)
    case('mdcn_groups', m, {'kernel': (1, 3), 'num_filter': 2, 'num_deformable_group': 2,
                            'no_bias': True},
         {'data': (1, 4, 4, 5), 'offset': (1, 12, 4, 3), 'mask': (1, 6, 4, 3),
          'weight': (2, 4, 1, 3)}, backward=False)


def run(c):
    names = list(c['args'])
    func = mx.sym.contrib.DeformableConvolution if 'Modulated' not in c['op'] \
        else mx.sym.contrib.ModulatedDeformableConvolution
    sym = func(name='op', **{n: mx.sym.var(n) for n in names}, **c['params'])
    assert sym.list_arguments() == names, sym.list_arguments()
    args = {n: mx.nd.array(v) for n, v in c['args'].items()}
    grads = {n: mx.nd.zeros(v.shape) for n, v in c['args'].items()}
    ex = sym.bind(mx.cpu(), args=args, args_grad=grads)
    out = ex.forward(is_train=True)[0].asnumpy()
    head = RNG.randn(*out.shape).astype(np.float32)
    key = c['name']
    meta = {'op': c['op'], 'params': {k: str(v) for k, v in c['params'].items()},
            'args': names, 'backward': c['backward'], 'no_grad': []}
    record = {key + '/meta': np.array(json.dumps(meta)), key + '/out/0': out,
              key + '/ograd/0': head}
    if c['backward']:
        ex.backward([mx.nd.array(head)])
    for n in names:
        record['%s/arg/%s' % (key, n)] = c['args'][n]
        if c['backward']:
            record['%s/grad/%s' % (key, n)] = ex.grad_dict[n].asnumpy()
    return record


def main():
    build_cases()
    write_cases(OUT, CASES, run)


if __name__ == '__main__':
    main()
