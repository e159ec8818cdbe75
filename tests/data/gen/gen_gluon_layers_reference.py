"""Reference numbers for tests/gluon/test_*_layers.py and test_summary.py, written by real
MXNet 1.9.1.

Run with the MXNet virtual environment (not part of CI), from the repository root:

    /work/mxvenv/bin/python tests/data/gen/gen_gluon_layers_reference.py

Output: tests/data/gluon_layers_reference.npz with, for each case ``c<i>``:
  c<i>/spec          JSON: class name, constructor kwargs, input shape, whether the input
                     is integer (Embedding indices); the repr and the parameter shapes
                     (prefix stripped) before and after the first forward pass, and each
                     parameter's grad_req
  c<i>/x             the input
  c<i>/p/<name>      the parameter values used (set after deferred initialization)
  c<i>/head          the output gradient given to backward
  c<i>/out           the output, computed while recording (training mode)
  c<i>/dx            the input gradient (absent for integer inputs)
  c<i>/g/<name>      the parameter gradients (absent for grad_req 'null')
and tests/data/gluon_layers_summary.txt: Block.summary printed for the networks of
tests/gluon/summary_cases.py, separated by lines '#### <name>'.
"""
import contextlib
import io
import json
import os
import sys

import mxnet as mx
import numpy as np
from mxnet.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from summary_cases import NETS  # noqa: E402  (shared with tests/gluon/test_summary.py)

# (class name, kwargs, input shape); integer inputs are marked with 'int'
CASES = [
    ('Conv1D', {'channels': 3, 'kernel_size': 3, 'strides': 2, 'padding': 1,
                'in_channels': 4}, (2, 4, 9)),
    ('Conv2D', {'channels': 4, 'kernel_size': (3, 2), 'strides': (2, 1), 'padding': (1, 0),
                'dilation': (1, 2), 'groups': 2, 'activation': 'relu'}, (2, 6, 7, 8)),
    ('Conv2D', {'channels': 3, 'kernel_size': 1, 'use_bias': False}, (1, 2, 4, 4)),
    ('Conv3D', {'channels': 2, 'kernel_size': 2, 'padding': 1}, (1, 2, 3, 4, 3)),
    ('Conv1DTranspose', {'channels': 3, 'kernel_size': 3, 'strides': 2, 'padding': 1,
                         'output_padding': 1}, (2, 4, 5)),
    ('Conv2DTranspose', {'channels': 4, 'kernel_size': (3, 2), 'strides': 2,
                         'padding': (1, 0), 'output_padding': (1, 1), 'groups': 2, 'in_channels': 6,
                         'activation': 'tanh'}, (2, 6, 4, 5)),
    ('Conv2DTranspose', {'channels': 2, 'kernel_size': 3, 'dilation': 2, 'in_channels': 3,
                         'use_bias': False}, (1, 3, 4, 4)),
    ('Conv3DTranspose', {'channels': 2, 'kernel_size': 2, 'strides': 2}, (1, 3, 2, 3, 2)),
    ('MaxPool1D', {'pool_size': 3, 'strides': 2, 'padding': 1, 'ceil_mode': True},
     (2, 3, 10)),
    ('MaxPool2D', {}, (2, 3, 6, 7)),
    ('MaxPool3D', {'pool_size': 2, 'strides': 1}, (1, 2, 3, 4, 3)),
    ('AvgPool1D', {'pool_size': 3, 'strides': 2, 'padding': 1, 'count_include_pad': False},
     (2, 3, 10)),
    ('AvgPool2D', {'pool_size': 3, 'strides': 2, 'padding': 1, 'ceil_mode': True},
     (2, 3, 6, 7)),
    ('AvgPool3D', {'pool_size': 2, 'padding': 1, 'count_include_pad': False},
     (1, 2, 3, 4, 3)),
    ('GlobalMaxPool1D', {}, (2, 3, 5)),
    ('GlobalMaxPool2D', {}, (2, 3, 4, 5)),
    ('GlobalMaxPool3D', {}, (1, 2, 3, 4, 2)),
    ('GlobalAvgPool1D', {}, (2, 3, 5)),
    ('GlobalAvgPool2D', {}, (2, 3, 4, 5)),
    ('GlobalAvgPool3D', {}, (1, 2, 3, 4, 2)),
    ('ReflectionPad2D', {'padding': 2}, (2, 3, 5, 6)),
    ('Embedding', {'input_dim': 10, 'output_dim': 4}, ('int', 2, 3)),
    ('LayerNorm', {}, (2, 3, 5)),
    ('LayerNorm', {'axis': 1, 'epsilon': 1e-3, 'center': False}, (2, 4, 3)),
    ('InstanceNorm', {}, (2, 3, 5)),
    ('InstanceNorm', {'axis': 2, 'scale': True, 'in_channels': 4}, (2, 3, 4, 5)),
    ('GroupNorm', {'num_groups': 2}, (2, 4, 3, 2)),
    ('GroupNorm', {'num_groups': 3, 'epsilon': 1e-2, 'scale': False}, (2, 6, 5)),
    ('PReLU', {}, (2, 3, 4)),
    ('PReLU', {'in_channels': 3}, (2, 3, 4)),
    ('ELU', {'alpha': 0.5}, (2, 3, 4)),
    ('SELU', {}, (2, 3, 4)),
    ('GELU', {}, (2, 3, 4)),
    ('Swish', {'beta': 1.5}, (2, 3, 4)),
]


def short_shapes(layer):
    plen = len(layer.prefix)
    return {name[plen:]: list(p.shape) for name, p in layer.params.items()}


def run_case(index, cls, kwargs, shape, rng, out):
    key = 'c%d' % index
    layer = getattr(nn, cls)(**kwargs)
    spec = {'cls': cls, 'kwargs': kwargs, 'repr_before': repr(layer),
            'shapes_before': short_shapes(layer)}
    if shape[0] == 'int':
        shape = shape[1:]
        x = rng.randint(0, kwargs['input_dim'], size=shape).astype(np.float32)
        spec['int_input'] = True
    else:
        x = rng.uniform(-2, 2, size=shape).astype(np.float32)
        spec['int_input'] = False
    spec['shape'] = list(shape)
    layer.initialize()
    layer(mx.nd.array(x))                       # finishes deferred initialization
    plen = len(layer.prefix)
    for name, param in layer.params.items():
        low, high = (0.5, 1.5) if name.endswith('gamma') else (-1, 1)
        value = rng.uniform(low, high, size=param.shape).astype(np.float32)
        param.set_data(mx.nd.array(value))
        out['%s/p/%s' % (key, name[plen:])] = value
    spec['repr_after'] = repr(layer)
    spec['shapes_after'] = short_shapes(layer)
    spec['grad_req'] = {name[plen:]: p.grad_req for name, p in layer.params.items()}
    xin = mx.nd.array(x)
    if not spec['int_input']:
        xin.attach_grad()
    with mx.autograd.record():
        y = layer(xin)
    head = rng.normal(size=y.shape).astype(np.float32)
    y.backward(mx.nd.array(head))
    out[key + '/x'] = x
    out[key + '/head'] = head
    out[key + '/out'] = y.asnumpy()
    if not spec['int_input']:
        out[key + '/dx'] = xin.grad.asnumpy()
    for name, param in layer.params.items():
        if param.grad_req != 'null':
            out['%s/g/%s' % (key, name[plen:])] = param.grad().asnumpy()
    out[key + '/spec'] = np.array(json.dumps(spec))


def summary_text():
    nets = [(name, *builder(mx)) for name, builder in NETS]
    chunks = []
    for name, block, inputs in nets:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            block.summary(*inputs)
        chunks.append('#### %s\n%s' % (name, buf.getvalue()))
    _, net, inputs = nets[0]                  # the cnn
    net.hybridize()
    try:
        net.summary(*inputs)
    except AssertionError as err:
        chunks.append('#### hybridized_error\n%s\n' % err)
    return ''.join(chunks)


def main():
    mx.random.seed(5)
    rng = np.random.RandomState(5)
    out = {}
    for index, (cls, kwargs, shape) in enumerate(CASES):
        run_case(index, cls, kwargs, shape, rng, out)
    np.savez_compressed(os.path.join(DATA, 'gluon_layers_reference.npz'), **out)
    with open(os.path.join(DATA, 'gluon_layers_summary.txt'), 'w') as f:
        f.write(summary_text())
    print('wrote %d arrays for %d cases' % (len(out), len(CASES)))


if __name__ == '__main__':
    main()
