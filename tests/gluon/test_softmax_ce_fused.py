"""SoftmaxCrossEntropyLoss called imperatively on 2-D predictions runs as one operator
(symmod.ops.loss_fused): the same values and gradients as MXNet's four-operator form
(log_softmax, pick, negative, mean), which other calls still take."""
import json
import warnings

import numpy as np
import pytest

import symmod as mx


def _recorded_ops(out):
    nodes = json.loads(mx.autograd.get_symbol(out).tojson())['nodes']
    return [n['op'] for n in nodes if n['op'] != 'null']


def _loss_and_grad(loss_fn, pred, label, dtype):
    x = mx.nd.array(pred, dtype=dtype)
    x.attach_grad()
    head = np.linspace(0.5, 2, pred.shape[0]).astype(dtype)
    with mx.autograd.record():
        out = loss_fn(x, mx.nd.array(label))
    ops = _recorded_ops(out)
    out.backward(mx.nd.array(head.reshape(out.shape), dtype=dtype))
    return out.asnumpy(), x.grad.asnumpy(), out, ops


def _unfused():
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    loss_fn._fused = lambda *args: False
    return loss_fn


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('label', [[0, 4, 2, 3, 1, 3], [[0], [4], [2], [3], [1], [3]],
                                   [0, 4, 9, -2, 1.7, 3]])       # out of range: clipped
def test_fused_loss_equals_the_operator_chain(dtype, label):
    pred = np.random.RandomState(0).randn(6, 5).astype(dtype) * 3
    label = np.array(label, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')         # the out-of-range label warning
        fused_value, fused_grad, out, ops = _loss_and_grad(
            mx.gluon.loss.SoftmaxCrossEntropyLoss(), pred, label, dtype)
        value, grad, chain_out, chain_ops = _loss_and_grad(_unfused(), pred, label, dtype)
    assert out.shape == chain_out.shape == (6,)
    assert out.dtype == chain_out.dtype
    np.testing.assert_array_equal(fused_value, value)
    tol = 1e-6 if dtype == 'float32' else 1e-14
    np.testing.assert_allclose(fused_grad, grad, rtol=tol, atol=tol)
    assert ops == ['_gluon_softmax_ce_loss']          # one recorded operator
    assert 'log_softmax' in chain_ops and 'pick' in chain_ops


def test_fused_loss_warns_once_about_labels_out_of_range():
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    with pytest.warns(UserWarning, match='clips them to the nearest class'):
        loss_fn(mx.nd.ones((2, 3)), mx.nd.array([0, 5]))


@pytest.mark.parametrize('call', [
    {'shape': (2, 3, 4), 'kwargs': {}},                             # 3-D prediction
    {'shape': (4, 3), 'kwargs': {'sample_weight': True}},
    {'shape': (4, 3), 'kwargs': {}, 'loss': {'from_logits': True}},
    {'shape': (4, 3), 'kwargs': {}, 'loss': {'weight': 2.0}},
])
def test_other_calls_keep_the_operator_chain(call):
    shape = call['shape']
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss(**call.get('loss', {}))
    pred = mx.nd.array(np.random.RandomState(1).randn(*shape))
    pred.attach_grad()
    label = mx.nd.array(np.zeros(shape[:-1]))
    extra = [mx.nd.ones(shape[:-1] + (1,))] if call['kwargs'].get('sample_weight') else []
    with mx.autograd.record():
        out = loss_fn(pred, label, *extra)
    ops = _recorded_ops(out)
    assert '_gluon_softmax_ce_loss' not in ops and 'pick' in ops


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_fused_loss_gradient_accumulates_with_add_and_another_head_type(dtype):
    pred = np.random.RandomState(1).randn(5, 4).astype(dtype)
    label = np.array([3, 0, 2, 7, -1], dtype=np.float32)       # 7, -1: clipped
    grads = []
    for loss_fn in (mx.gluon.loss.SoftmaxCrossEntropyLoss(), _unfused()):
        x = mx.nd.array(pred, dtype=dtype)
        x.attach_grad(grad_req='add')
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            for head in (1.0, 2.5):
                with mx.autograd.record():
                    out = loss_fn(x, mx.nd.array(label))
                # a head gradient of the other float type: the operator casts it
                other = 'float64' if dtype == 'float32' else 'float32'
                out.backward(mx.nd.full(out.shape, head, dtype=other))
        grads.append(x.grad.asnumpy())
    tol = 1e-6 if dtype == 'float32' else 1e-14
    np.testing.assert_allclose(grads[0], grads[1], rtol=tol, atol=tol)
    assert np.abs(grads[0]).sum() > 0


def test_fused_loss_gradient_of_a_strided_prediction():
    base = np.random.RandomState(2).randn(4, 12).astype(np.float32)
    label = mx.nd.array([1, 0, 5, 2])
    grads = []
    for loss_fn in (mx.gluon.loss.SoftmaxCrossEntropyLoss(), _unfused()):
        whole = mx.nd.array(base)
        whole.attach_grad()
        with mx.autograd.record():
            out = loss_fn(whole[:, 3:9], label)
        out.backward()
        grads.append(whole.grad.asnumpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-6)
    assert not grads[0][:, :3].any() and not grads[0][:, 9:].any()
