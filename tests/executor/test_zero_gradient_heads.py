"""Outputs of operators whose gradient is zero whatever flows in (comparisons, rounding,
shape_array, BlockGrad, ...) need no head gradient: backward() runs without one, as in
MXNet, and gives zero input gradients."""
import numpy as np
import pytest

import symmod as mx
from symmod.ops import registry

from test_grad_req_null import NO_ARGUMENTS, _sample

ZERO_GRADIENT = sorted(n for n in {registry.get(k).name for k in registry.list_operators()}
                       if registry.get(n).zero_gradient and n not in NO_ARGUMENTS)


def test_there_are_zero_gradient_operators():
    assert {'_equal', 'broadcast_greater', '_lesser_scalar', 'round', 'shape_array',
            'BlockGrad', 'argmax', 'argmin'} <= set(ZERO_GRADIENT)


@pytest.mark.parametrize('name', ZERO_GRADIENT)
def test_backward_without_head_gradient(name):
    params, arrays = _sample(name)
    names = ['in%d' % i for i in range(len(arrays))]
    sym = getattr(mx.sym, name)(*[mx.sym.var(n) for n in names], **params)
    args = {n: mx.nd.array(a, dtype=a.dtype) for n, a in zip(names, arrays)}
    grads = {n: mx.nd.full(a.shape, 3, dtype=a.dtype) for n, a in zip(names, arrays)}
    exe = sym.bind(mx.cpu(), args, args_grad=grads)
    exe.forward(is_train=True)
    exe.backward()
    for n in names:
        assert (grads[n].asnumpy() == 0).all(), n


def test_head_gradient_of_any_shape_is_ignored_when_unused():
    x = mx.sym.var('x')
    exe = mx.sym.shape_array(x).bind(mx.cpu(), {'x': mx.nd.ones((2, 3))},
                                     args_grad={'x': mx.nd.ones((2, 3))})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((2, 3))])      # MXNet does not look at it either
    assert (exe.grad_dict['x'].asnumpy() == 0).all()


def test_other_heads_still_need_their_gradient():
    x = mx.sym.var('x')
    exe = mx.sym.Group([x > 1, mx.sym.exp(x)]).simple_bind(mx.cpu(), x=(2,))
    exe.forward(is_train=True)
    with pytest.raises(mx.MXNetError, match='head_gradient is required'):
        exe.backward()
    exe.backward([mx.nd.ones((2,)), mx.nd.ones((2,))])


def test_topk_indices_need_no_head_gradient():
    x = mx.sym.var('x')
    exe = mx.sym.topk(x, k=1, axis=1).bind(mx.cpu(), {'x': mx.nd.ones((2, 3))},
                                           args_grad={'x': mx.nd.ones((2, 3))})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((2, 3))])      # the wrong shape is never read (MXNet)
    assert (exe.grad_dict['x'].asnumpy() == 0).all()
