"""gluon.contrib.nn: PixelShuffle1D/2D/3D, (Hybrid)Concurrent, Identity and SyncBatchNorm
against MXNet 1.9.1's numbers (tests/data/gen/gen_gluon_contrib_reference.py), numpy
formulas, and SyncBatchNorm over two devices against BatchNorm over the whole batch."""
import json
import os
import threading

import numpy as np
import pytest

import symmod as mx
from symmod.gluon import nn
from symmod.gluon.contrib import nn as cnn
from symmod.test_utils import assert_almost_equal

from contrib_nn_cases import PIXEL_FACTORS, concurrent_net, pixel_shuffle_input

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                    'gluon_contrib_reference.npz')
REF = dict(np.load(DATA))


# ---- PixelShuffle ----------------------------------------------------------------------
@pytest.mark.parametrize('dims', [1, 2, 3])
@pytest.mark.parametrize('hybridize', [False, True])
def test_pixel_shuffle_against_mxnet(dims, hybridize):
    block = getattr(cnn, 'PixelShuffle%dD' % dims)(PIXEL_FACTORS[dims])
    if hybridize:
        block.hybridize()
    out = block(mx.nd.array(pixel_shuffle_input(dims)))
    assert np.array_equal(out.asnumpy(), REF['pixel%d/out' % dims])
    assert repr(block) == str(REF['pixel%d/repr' % dims])


def test_pixel_shuffle_2d_formula():
    # out[n, c, h*f1 + i, w*f2 + j] = x[n, c*f1*f2 + i*f2 + j, h, w]
    x = np.random.RandomState(0).randn(2, 2 * 6, 3, 4).astype(np.float32)
    out = cnn.PixelShuffle2D((2, 3))(mx.nd.array(x)).asnumpy()
    want = x.reshape(2, 2, 2, 3, 3, 4).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 12)
    assert np.array_equal(out, want)


# ---- Concurrent ------------------------------------------------------------------------
@pytest.mark.parametrize('hybrid', [False, True])
def test_concurrent_against_mxnet(hybrid):
    key = 'concurrent/%s/' % hybrid
    net = concurrent_net(mx, hybrid)
    net.initialize()
    x = REF[key + 'x']
    net(mx.nd.array(x))
    assert list(net.collect_params().keys()) == json.loads(str(REF[key + 'names']))
    for name, p in net.collect_params().items():
        p.set_data(mx.nd.array(REF[key + 'param/' + name]))
    if hybrid:
        net.hybridize()
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record():
        out = net(data)
    out.backward(mx.nd.array(np.arange(out.size).reshape(out.shape) / 10.))
    assert_almost_equal(out.asnumpy(), REF[key + 'out'], rtol=1e-5, atol=1e-6)
    assert_almost_equal(data.grad.asnumpy(), REF[key + 'grad_x'], rtol=1e-5, atol=1e-6)


def test_concurrent_axis_and_identity():
    net = cnn.HybridConcurrent(axis=0)
    net.add(cnn.Identity(), nn.HybridLambda(lambda F, x: x * 2))
    x = mx.nd.array([[1., 2.]])
    assert net(x).asnumpy().tolist() == [[1., 2.], [2., 4.]]
    exported = net(mx.sym.var('data'))
    assert exported.list_arguments() == ['data']


# ---- SyncBatchNorm ---------------------------------------------------------------------
@pytest.mark.parametrize('case', ['default', 'fixed_gamma', 'global_stats'])
def test_sync_batch_norm_one_device_against_mxnet(case):
    key = 'syncbn/%s/' % case
    kwargs = {'default': {}, 'fixed_gamma': {'scale': False, 'momentum': 0.8},
              'global_stats': {'use_global_stats': True, 'epsilon': 1e-3}}[case]
    x = REF[key + 'x']
    bn = cnn.SyncBatchNorm(in_channels=x.shape[1], num_devices=1, **kwargs)
    bn.initialize()
    for name in ('gamma', 'beta', 'running_mean', 'running_var'):
        getattr(bn, name).set_data(mx.nd.array(REF[key + 'init/' + name]))
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record():
        out = bn(data)
    out.backward(mx.nd.array(REF[key + 'head']))
    checks = {'out': out, 'grad_x': data.grad, 'grad_beta': bn.beta.grad(),
              'running_mean': bn.running_mean.data(), 'running_var': bn.running_var.data()}
    if key + 'grad_gamma' in REF:
        checks['grad_gamma'] = bn.gamma.grad()
    for name, value in checks.items():
        assert_almost_equal(value.asnumpy(), REF[key + name], rtol=1e-4, atol=1e-5,
                            names=(name, 'mxnet'))


def test_sync_batch_norm_default_devices_warns():
    with pytest.warns(UserWarning, match='num_devices'):
        bn = cnn.SyncBatchNorm()
    assert bn._kwargs['ndev'] == 1 and bn._kwargs['key'] == bn.prefix


def _run_devices(blocks, parts, heads):
    """Forward and backward of ``blocks[i]`` on ``parts[i]``, one thread per device."""
    results = [None] * len(blocks)
    errors = []

    def work(i):
        try:
            data = mx.nd.array(parts[i])
            data.attach_grad()
            with mx.autograd.record():
                out = blocks[i](data)
            out.backward(mx.nd.array(heads[i]))
            results[i] = (out.asnumpy(), data.grad.asnumpy())
        except Exception as err:        # noqa: BLE001 - reported by the main thread
            errors.append(err)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(blocks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return results


def test_sync_batch_norm_two_devices_equal_batch_norm_of_the_whole_batch():
    rng = np.random.RandomState(1)
    x = rng.randn(8, 3, 5).astype(np.float32) * 2 + 1
    head = rng.randn(8, 3, 5).astype(np.float32)
    whole = nn.BatchNorm(in_channels=3, scale=True)
    whole.initialize()
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record():
        out = whole(data)
    out.backward(mx.nd.array(head))
    # two "devices" with their own copies of the parameters, one layer key
    devices = []
    for _ in range(2):
        bn = cnn.SyncBatchNorm(in_channels=3, num_devices=2, prefix='sync_')
        bn.initialize()
        devices.append(bn)
    results = _run_devices(devices, [x[:4], x[4:]], [head[:4], head[4:]])
    got_out = np.concatenate([r[0] for r in results])
    got_grad = np.concatenate([r[1] for r in results])
    assert_almost_equal(got_out, out.asnumpy(), rtol=1e-4, atol=1e-5)
    assert_almost_equal(got_grad, data.grad.asnumpy(), rtol=1e-4, atol=1e-5)
    for bn in devices:
        assert_almost_equal(bn.running_mean.data().asnumpy(),
                            whole.running_mean.data().asnumpy(), rtol=1e-4, atol=1e-6)
        assert_almost_equal(bn.running_var.data().asnumpy(),
                            whole.running_var.data().asnumpy(), rtol=1e-4, atol=1e-6)

