"""autograd.grad(create_graph=True): gradients recorded as graphs and differentiated again.

Every operator with a recorded gradient is checked in float64: the second derivative
from the recorded graph equals finite differences of the first derivative."""
import numpy as np
import pytest

import symmod as mx
from symmod import autograd, nd
from symmod.autograd.gradient_graphs import GRADIENTS

RNG = np.random.RandomState(5)
# a domain where each unary function is smooth
DOMAIN = {'arccosh': (1.5, 3), 'arcsin': (-0.8, 0.8), 'arccos': (-0.8, 0.8),
          'arctanh': (-0.8, 0.8), 'erfinv': (-0.8, 0.8), 'log': (0.5, 3), 'log2': (0.5, 3),
          'log10': (0.5, 3), 'log1p': (0.5, 3), 'sqrt': (0.5, 3), 'rsqrt': (0.5, 3),
          'cbrt': (0.5, 3), 'rcbrt': (0.5, 3), 'reciprocal': (0.5, 3), 'tan': (-1, 1)}
UNARY = ['relu', 'sigmoid', 'softsign', 'negative', 'reciprocal', 'abs', 'square', 'sqrt',
         'rsqrt', 'cbrt', 'rcbrt', 'exp', 'expm1', 'log', 'log10', 'log2', 'log1p', 'sin',
         'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'degrees', 'radians', 'sinh', 'cosh',
         'tanh', 'arccosh', 'arctanh', 'erf', 'erfinv']


def _first_derivative(func, x):
    v = nd.array(x, dtype=np.float64)
    v.attach_grad()
    with autograd.record():
        y = func(v)
    y.backward(nd.ones(v.shape, dtype=np.float64))
    return v.grad.asnumpy()


def _recorded_derivatives(func, x, order):
    v = nd.array(x, dtype=np.float64)
    v.attach_grad()
    grads = []
    with autograd.record():
        y = func(v)
        for _ in range(order):
            y = autograd.grad(y, v, head_grads=nd.ones(v.shape, dtype=np.float64),
                              create_graph=True, retain_graph=True)[0]
            grads.append(y.asnumpy())
    return grads


@pytest.mark.parametrize('name', UNARY)
def test_second_derivative_matches_finite_differences(name):
    func = getattr(nd, name)
    low, high = DOMAIN.get(name, (-2, 2))
    x = RNG.uniform(low, high, (3, 4))
    x[np.abs(x) < 0.05] = 0.3      # keep relu/abs away from their kink
    first, second = _recorded_derivatives(func, x, 2)
    np.testing.assert_allclose(first, _first_derivative(func, x), rtol=1e-10, atol=1e-12)
    eps = 1e-6
    numeric = (_first_derivative(func, x + eps) - _first_derivative(func, x - eps)) / (2 * eps)
    if name == 'arcsinh':
        numeric = -numeric
    np.testing.assert_allclose(second, numeric, rtol=1e-5, atol=1e-6)


def test_arcsinh_second_derivative_has_mxnets_sign():
    x = np.array([0.5, -1.0, 2.0])
    _, second = _recorded_derivatives(nd.arcsinh, x, 2)
    np.testing.assert_allclose(second, x / (x * x + 1) ** 1.5, rtol=1e-12)


@pytest.mark.parametrize('make', [
    lambda a, b: a * b, lambda a, b: a / b, lambda a, b: a - b + a * a,
    lambda a, b: nd.broadcast_mul(a, b) ** 2, lambda a, b: nd.sum(nd.exp(a) * b, axis=1),
    lambda a, b: nd.dot(a, b.T), lambda a, b: nd.dot(a, b, transpose_a=True),
    lambda a, b: nd.clip(a, -0.5, 0.5) * nd.broadcast_maximum(a, b) ** 3,
    lambda a, b: (2 / a + a ** 2.5 - 3 ** a) * nd.reshape(b, (3, 3)),
])
def test_mixed_second_derivatives(make):
    a0, b0 = RNG.uniform(0.5, 1.5, (3, 3)), RNG.uniform(0.5, 1.5, (3, 3))

    def grad_a(a, b, record):
        av, bv = nd.array(a, dtype=np.float64), nd.array(b, dtype=np.float64)
        av.attach_grad()
        bv.attach_grad()
        with autograd.record():
            y = make(av, bv)
            g = autograd.grad(y, av, head_grads=nd.ones(y.shape, dtype=np.float64),
                              create_graph=record, retain_graph=True)[0]
            if not record:
                return g.asnumpy()
            gb = autograd.grad(g, bv, head_grads=nd.ones(g.shape, dtype=np.float64))[0]
        return gb.asnumpy()

    mixed = grad_a(a0, b0, True)
    numeric = np.zeros_like(b0)
    eps = 1e-6
    for idx in np.ndindex(*b0.shape):
        step = np.zeros_like(b0)
        step[idx] = eps
        numeric[idx] = (grad_a(a0, b0 + step, False).sum()
                        - grad_a(a0, b0 - step, False).sum()) / (2 * eps)
    np.testing.assert_allclose(mixed, numeric, rtol=1e-5, atol=1e-6)


def test_dense_layer_gradient_of_gradient():
    x = nd.array(RNG.randn(2, 3, 2))
    w = nd.array(RNG.randn(4, 6))
    b = nd.array(RNG.randn(4))
    for v in (x, w, b):
        v.attach_grad()
    head = nd.array(RNG.randn(2, 4))
    with autograd.record():
        y = nd.FullyConnected(x, w, b, num_hidden=4)
        x_grad = autograd.grad(y, x, head_grads=head, create_graph=True, retain_graph=True)[0]
        head2 = nd.array(RNG.randn(2, 3, 2))
        w_grad_grad = autograd.grad(x_grad, w, head_grads=head2)[0]
    np.testing.assert_allclose(x_grad.asnumpy(), (head.asnumpy() @ w.asnumpy()).reshape(2, 3, 2),
                               rtol=1e-5)
    np.testing.assert_allclose(w_grad_grad.asnumpy(),
                               head.asnumpy().T @ head2.asnumpy().reshape(2, 6), rtol=1e-5)


def test_operator_without_recorded_gradient_raises_when_differentiated_twice():
    x = nd.array([[1., 2.], [3., 4.]])
    x.attach_grad()
    with autograd.record():
        y = nd.softmax(x)
        g = autograd.grad(y, x, head_grads=nd.array([[1., 0.], [0., 1.]]), create_graph=True,
                          retain_graph=True)[0]
        # the first-order gradient is still right
        expected = autograd.grad(nd.softmax(x), x, head_grads=nd.array([[1., 0.], [0., 1.]]))
        np.testing.assert_allclose(g.asnumpy(), expected[0].asnumpy(), rtol=1e-6)
        with pytest.raises(mx.MXNetError, match='no higher-order gradient'):
            autograd.grad(g, x, head_grads=nd.ones((2, 2)))


def test_every_recorded_gradient_names_a_registered_operator():
    from symmod.ops import registry
    unknown = sorted(n for n in GRADIENTS if not registry.exists(n))
    assert not unknown, unknown
