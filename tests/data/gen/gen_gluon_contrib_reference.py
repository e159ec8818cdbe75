"""Write tests/data/gluon_contrib_reference.npz with MXNet 1.9.1's gluon.contrib blocks:
the convolutional recurrent cells, PixelShuffle1D/2D/3D, (Hybrid)Concurrent + Identity and
SyncBatchNorm (one device).

Run with the real MXNet (not in CI):

    MXNET_MKLDNN_ENABLED=0 /work/mxnet-venv/bin/python \
        tests/data/gen/gen_gluon_contrib_reference.py

(with MKL-DNN, MXNet 1.9.1 fails to read back the convolutional cells' outputs:
"Check failed: to.IsDefaultData()").

Keys (the blocks come from tests/gluon/contrib_nn_cases.py):
  conv/<case>/spec            JSON: parameter names and shapes, repr, state shapes, and the
                              names of a symbolic unroll's graph
  conv/<case>/param/<name>, x, begin_state<k>, head<k>
  conv/<case>/run/<what>      outputs, final states and gradients of an NTC unroll
  pixel<d>/x, pixel<d>/out    PixelShuffle<d>D forward
  concurrent/<hybrid>/...     parameter names (JSON), parameter values, x, out, grad_x
  syncbn/<case>/...           init/<param>, x, head; out, grad_x, grad_gamma (when
                              gamma is learnt), grad_beta, running_mean, running_var
                              after one training step
  syncbn_op/...               the raw operator with output_mean_var: out, mean, var
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'gluon_contrib_reference.npz')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from contrib_nn_cases import (BATCH, CONV_CELLS, PIXEL_FACTORS, STEPS,  # noqa: E402
                              concurrent_net, conv_cell, pixel_shuffle_input, run_conv_cell)
from rnn_cell_cases import symbolic_graph  # noqa: E402

RNG = np.random.RandomState(5)


def normal(shape, scale=0.5):
    return RNG.normal(0, scale, shape).astype(np.float32)


def conv_cells(arrays):
    for case in CONV_CELLS:
        cell = conv_cell(mx, case)
        cell.initialize()
        input_shape = CONV_CELLS[case][1]
        x = RNG.uniform(-1, 1, (BATCH, STEPS) + input_shape).astype(np.float32)
        infos = cell.state_info(BATCH)
        states = [normal(info['shape']) for info in infos]
        cell.unroll(STEPS, mx.nd.array(x), begin_state=[mx.nd.array(s) for s in states],
                    merge_outputs=True)
        params = cell.collect_params()
        for name, p in params.items():
            value = normal(p.shape)
            p.set_data(mx.nd.array(value))
            arrays['conv/%s/param/%s' % (case, name)] = value
        out_shape = (BATCH, STEPS) + tuple(infos[0]['shape'][1:])
        heads = [normal(out_shape, 1)] + [normal(info['shape'], 1) for info in infos]
        arrays['conv/%s/x' % case] = x
        for k, s in enumerate(states):
            arrays['conv/%s/begin_state%d' % (case, k)] = s
        for k, h in enumerate(heads):
            arrays['conv/%s/head%d' % (case, k)] = h
        for k, v in run_conv_cell(mx, cell, x, states, heads).items():
            arrays['conv/%s/run/%s' % (case, k)] = v
        spec = {'params': sorted(params.keys()), 'repr': repr(cell),
                'shapes': {n: list(p.shape) for n, p in params.items()},
                'state_shapes': [list(info['shape']) for info in infos],
                'graph': symbolic_graph(mx, conv_cell(mx, case), False)}
        arrays['conv/%s/spec' % case] = np.array(json.dumps(spec))


def pixel_shuffles(arrays):
    for dims, factor in PIXEL_FACTORS.items():
        x = pixel_shuffle_input(dims)
        block = getattr(mx.gluon.contrib.nn, 'PixelShuffle%dD' % dims)(factor)
        arrays['pixel%d/x' % dims] = x
        arrays['pixel%d/out' % dims] = block(mx.nd.array(x)).asnumpy()
        arrays['pixel%d/repr' % dims] = np.array(repr(block))


def concurrent(arrays):
    x = normal((3, 4), 1)
    for hybrid in (False, True):
        net = concurrent_net(mx, hybrid)
        net.initialize()
        net(mx.nd.array(x))
        key = 'concurrent/%s/' % hybrid
        names = list(net.collect_params().keys())
        arrays[key + 'names'] = np.array(json.dumps(names))
        for name, p in net.collect_params().items():
            value = normal(p.shape)
            p.set_data(mx.nd.array(value))
            arrays[key + 'param/' + name] = value
        data = mx.nd.array(x)
        data.attach_grad()
        with mx.autograd.record():
            out = net(data)
        out.backward(mx.nd.array(np.arange(out.size).reshape(out.shape) / 10.))
        arrays[key + 'x'] = x
        arrays[key + 'out'] = out.asnumpy()
        arrays[key + 'grad_x'] = data.grad.asnumpy()


SYNCBN = {
    'default': ((6, 3, 4), {}),
    'fixed_gamma': ((4, 2, 3, 2), {'scale': False, 'momentum': 0.8}),
    'global_stats': ((5, 3), {'use_global_stats': True, 'epsilon': 1e-3}),
}


def syncbn(arrays):
    for case, (shape, kwargs) in SYNCBN.items():
        channels = shape[1]
        bn = mx.gluon.contrib.nn.SyncBatchNorm(in_channels=channels, num_devices=1,
                                               **kwargs)
        bn.initialize()
        key = 'syncbn/%s/' % case
        values = {'gamma': RNG.uniform(0.5, 1.5, channels), 'beta': normal(channels),
                  'running_mean': normal(channels),
                  'running_var': RNG.uniform(0.5, 2, channels)}
        for name, value in values.items():
            getattr(bn, name).set_data(mx.nd.array(value))
            arrays[key + 'init/' + name] = value.astype(np.float32)
        x = normal(shape, 2) + 1
        head = normal(shape, 1)
        data = mx.nd.array(x)
        data.attach_grad()
        with mx.autograd.record():
            out = bn(data)
        out.backward(mx.nd.array(head))
        arrays[key + 'x'] = x
        arrays[key + 'head'] = head
        arrays[key + 'out'] = out.asnumpy()
        arrays[key + 'grad_x'] = data.grad.asnumpy()
        if bn.gamma.grad_req != 'null':
            arrays[key + 'grad_gamma'] = bn.gamma.grad().asnumpy()
        arrays[key + 'grad_beta'] = bn.beta.grad().asnumpy()
        arrays[key + 'running_mean'] = bn.running_mean.data().asnumpy()
        arrays[key + 'running_var'] = bn.running_var.data().asnumpy()
    x = normal((3, 2, 5), 2)
    args = [mx.nd.array(x), mx.nd.array([1.5, 0.5]), mx.nd.array([0.1, -0.2]),
            mx.nd.zeros(2), mx.nd.ones(2)]
    with mx.autograd.train_mode():
        out, mean, var = mx.nd.contrib.SyncBatchNorm(*args, key='op', output_mean_var=True,
                                                     fix_gamma=False, eps=1e-4)
    arrays['syncbn_op/x'] = x
    arrays['syncbn_op/out'] = out.asnumpy()
    arrays['syncbn_op/mean'] = mean.asnumpy()
    arrays['syncbn_op/var'] = var.asnumpy()


def main():
    arrays = {}
    conv_cells(arrays)
    pixel_shuffles(arrays)
    concurrent(arrays)
    syncbn(arrays)
    np.savez_compressed(OUT, **arrays)
    print('wrote %s (%d arrays, %d bytes)' % (OUT, len(arrays), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
