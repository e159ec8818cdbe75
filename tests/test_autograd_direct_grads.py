"""backward writes a FullyConnected's weight and bias gradients straight into the
variables' buffers (grad_req 'write'), and keeps every other case as before: a variable
used twice, given twice to one call, 'add', autograd.grad."""
import numpy as np
import pytest

import symmod as mx
from symmod import autograd, nd
from symmod.ops.nn import FullyConnected
from symmod.test_utils import assert_almost_equal


def _arrays(seed=0):
    rng = np.random.RandomState(seed)
    x = nd.array(rng.randn(4, 6))
    w = nd.array(rng.randn(6, 6))
    b = nd.array(rng.randn(6))
    for a in (w, b):
        a.attach_grad()
    return x, w, b


def _reference(loss_fn, variables):
    """Gradients from autograd.grad (which never writes the variables' buffers)."""
    with autograd.record():
        loss = loss_fn()
    return [g.asnumpy() for g in autograd.grad(loss, variables)]


def _backward(loss_fn):
    with autograd.record():
        loss = loss_fn()
    loss.backward()


def test_fully_connected_writes_into_the_gradient_buffers(monkeypatch):
    x, w, b = _arrays()
    seen = []
    real = FullyConnected.backward

    def spy(self, req, out_grad, in_data, out_data, in_grad, aux):
        seen.append((in_grad[1] is w.grad._data, in_grad[2] is b.grad._data))
        return real(self, req, out_grad, in_data, out_data, in_grad, aux)

    def loss_fn():
        return (nd.FullyConnected(x, w, b, num_hidden=6) ** 2).sum()

    want = _reference(loss_fn, [w, b])
    monkeypatch.setattr(FullyConnected, 'backward', spy)
    _backward(loss_fn)
    assert seen == [(True, True)]
    assert_almost_equal(w.grad.asnumpy(), want[0], rtol=1e-5, atol=1e-6)
    assert_almost_equal(b.grad.asnumpy(), want[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('tied', ['two_calls', 'data_and_weight', 'also_elementwise'])
def test_a_variable_reached_twice_gets_the_sum(tied):
    x, w, b = _arrays(1)
    if tied == 'two_calls':
        def loss_fn():
            h = nd.FullyConnected(x, w, b, num_hidden=6)
            return (nd.FullyConnected(nd.tanh(h), w, b, num_hidden=6) ** 2).sum()
    elif tied == 'data_and_weight':
        def loss_fn():
            return (nd.FullyConnected(w, w, b, num_hidden=6) ** 2).sum()
    else:
        def loss_fn():
            return (nd.FullyConnected(x, w, b, num_hidden=6) ** 2).sum() + (w * w).sum()
    want = _reference(loss_fn, [w, b])
    for _ in range(2):      # the buffers hold the last step's gradient when it starts
        _backward(loss_fn)
        assert_almost_equal(w.grad.asnumpy(), want[0], rtol=1e-5, atol=1e-5)
        assert_almost_equal(b.grad.asnumpy(), want[1], rtol=1e-5, atol=1e-5)


def test_add_requests_accumulate():
    x, w, b = _arrays(2)
    w.attach_grad(grad_req='add')

    def loss_fn():
        return (nd.FullyConnected(x, w, b, num_hidden=6) ** 2).sum()

    want = _reference(loss_fn, [w])[0]
    for _ in range(2):
        _backward(loss_fn)
    assert_almost_equal(w.grad.asnumpy(), 2 * want, rtol=1e-5, atol=1e-5)


def test_autograd_grad_leaves_the_buffers_alone():
    x, w, b = _arrays(3)
    w.grad[:] = 7

    def loss_fn():
        return (nd.FullyConnected(x, w, b, num_hidden=6) ** 2).sum()

    _reference(loss_fn, [w, b])
    np.testing.assert_array_equal(w.grad.asnumpy(), np.full((6, 6), 7, np.float32))


def test_a_non_contiguous_gradient_buffer_gets_a_copy():
    # FullyConnected flattens 3-D data: a reshape of a strided buffer would be a copy
    _, w, b = _arrays(4)
    x = nd.array(np.random.RandomState(5).randn(4, 2, 3))
    store = nd.zeros((4, 4, 3))
    autograd.mark_variables([x], [nd.NDArray(store._data[:, ::2])])

    def loss_fn():
        return (nd.FullyConnected(x, w, b, num_hidden=6) ** 2).sum()

    want = _reference(loss_fn, [x])[0]
    _backward(loss_fn)
    assert np.abs(want).sum() > 0
    assert_almost_equal(store.asnumpy()[:, ::2], want, rtol=1e-5, atol=1e-5)
    assert not store.asnumpy()[:, 1::2].any()
