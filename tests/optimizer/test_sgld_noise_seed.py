"""SGLD's noise follows MXNet's seeding contract: after ``mx.random.seed(n)`` an update adds
exactly the noise ``mx.random.normal(0, sqrt(lr), weight.shape)`` would draw."""
import math

import numpy as np
import pytest

import symmod as mx


@pytest.mark.parametrize('dtype, multi_precision', [('float32', False), ('float64', False),
                                                    ('float16', True)])
def test_sgld_noise_is_mx_random_normal_after_the_same_seed(dtype, multi_precision):
    lr, wd = 0.1, 0.03
    weight = mx.random.uniform(shape=(3, 4, 5), dtype=dtype)
    grad = mx.random.uniform(shape=(3, 4, 5), dtype=dtype)
    expected = weight.asnumpy().astype(np.float64)
    opt = mx.optimizer.SGLD(learning_rate=lr, wd=wd, multi_precision=multi_precision)
    state = opt.create_state_multi_precision(0, weight)
    mx.random.seed(42)
    opt.update_multi_precision(0, weight, grad, state)
    mx.random.seed(42)
    noise = mx.random.normal(0, math.sqrt(lr), shape=weight.shape, dtype='float64').asnumpy()
    expected += -lr / 2 * (grad.asnumpy() + wd * expected) + noise
    tol = 1e-2 if dtype == 'float16' else 1e-5
    np.testing.assert_allclose(weight.asnumpy(), expected, rtol=tol, atol=tol)


def test_the_noise_advances_mx_random_and_a_reseed_restarts_it():
    lr = 0.25
    opt = mx.optimizer.SGLD(learning_rate=lr)
    weight, grad = mx.nd.zeros((4, 3)), mx.nd.zeros((4, 3))
    mx.random.seed(7)
    opt.update(0, weight, grad, None)
    mx.random.seed(7)
    first = mx.random.normal(0, math.sqrt(lr), shape=(4, 3), dtype='float64').asnumpy()
    second = mx.random.normal(0, math.sqrt(lr), shape=(4, 3), dtype='float64').asnumpy()
    np.testing.assert_allclose(weight.asnumpy(), first, rtol=1e-5, atol=1e-6)
    # what mx.random draws after the update is what follows the noise, as in MXNet
    mx.random.seed(7)
    weight[:] = 0
    opt.update(0, weight, grad, None)
    after = mx.random.normal(0, math.sqrt(lr), shape=(4, 3), dtype='float64').asnumpy()
    np.testing.assert_allclose(after, second, rtol=1e-6)
