"""mx.contrib.autograd: MXNet's section-based autograd API."""
import numpy as np

import symmod as mx
from symmod.contrib import autograd as cag


def test_train_section_marks_and_computes_gradient():
    x = mx.nd.array([1.0, 2.0, 3.0])
    gx = mx.nd.zeros((3,))
    cag.mark_variables([x], [gx])
    with cag.train_section():
        assert mx.autograd.is_training() and mx.autograd.is_recording()
        y = x * x
        with cag.test_section():
            assert not mx.autograd.is_training()
    assert not mx.autograd.is_recording()
    cag.compute_gradient([y])
    np.testing.assert_allclose(gx.asnumpy(), [2, 4, 6])


def test_grad_and_loss_with_argnum():
    def func(a, b):
        return a * b + a

    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 5.0])
    grads, loss = cag.grad_and_loss(func, argnum=1)(a, b)
    np.testing.assert_allclose(grads[0].asnumpy(), a.asnumpy())
    np.testing.assert_allclose(loss.asnumpy(), [4, 12])
    (ga, gb) = cag.grad(func)(a, b)
    np.testing.assert_allclose(ga.asnumpy(), b.asnumpy() + 1)
    np.testing.assert_allclose(gb.asnumpy(), a.asnumpy())
