"""Convolution and Pooling with channel-last layouts (NWC, NHWC, NDHWC): equal to the
channel-first computation on transposed arrays, forward and backward, and checked by
finite differences."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

TESTED_OPS = set()      # Convolution and Pooling are covered by test_conv / test_nn


def _first(a):
    return np.moveaxis(a, -1, 1)


def _last(a):
    return np.moveaxis(a, 1, -1)


def _run(sym, args, head):
    ex = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in args.items()},
                  args_grad={k: mx.nd.zeros(v.shape) for k, v in args.items()})
    out = ex.forward(is_train=True)[0].asnumpy()
    ex.backward(mx.nd.array(head))
    return out, {k: g.asnumpy() for k, g in ex.grad_dict.items()}


@pytest.mark.parametrize('layout,shape,params', [
    ('NWC', (2, 9, 3), {'kernel': (3,), 'stride': (2,), 'pool_type': 'max'}),
    ('NHWC', (2, 7, 6, 3), {'kernel': (3, 2), 'pad': (1, 0), 'pool_type': 'avg',
                            'count_include_pad': False}),
    ('NDHWC', (1, 4, 5, 6, 2), {'kernel': (2, 2, 3), 'stride': (2, 1, 2), 'pool_type': 'max'}),
    ('NHWC', (2, 5, 5, 3), {'kernel': (1, 1), 'global_pool': True, 'pool_type': 'avg'})])
def test_pooling_channel_last_equals_channel_first(layout, shape, params):
    rng = np.random.RandomState(0)
    x = rng.randn(*shape).astype(np.float32)
    last = mx.sym.Pooling(mx.sym.var('x'), layout=layout, **params)
    first = mx.sym.Pooling(mx.sym.var('x'), **params)
    out_shape = last.infer_shape(x=shape)[1][0]
    head = rng.randn(*out_shape).astype(np.float32)
    got, got_grad = _run(last, {'x': x}, head)
    want, want_grad = _run(first, {'x': _first(x)}, _first(head))
    assert_almost_equal(got, _last(want), rtol=1e-6, atol=1e-6)
    assert_almost_equal(got_grad['x'], _last(want_grad['x']), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('layout,shape,kernel,groups', [
    ('NHWC', (2, 6, 5, 4), (3, 2), 2), ('NDHWC', (1, 4, 4, 5, 2), (2, 3, 2), 1)])
def test_convolution_channel_last_equals_channel_first(layout, shape, kernel, groups):
    rng = np.random.RandomState(1)
    channels = shape[-1]
    x = rng.randn(*shape).astype(np.float32)
    w_first = rng.randn(6, channels // groups, *kernel).astype(np.float32)
    b = rng.randn(6).astype(np.float32)
    params = dict(kernel=kernel, num_filter=6, num_group=groups)
    last = mx.sym.Convolution(mx.sym.var('x'), mx.sym.var('w'), mx.sym.var('b'),
                              layout=layout, **params)
    first = mx.sym.Convolution(mx.sym.var('x'), mx.sym.var('w'), mx.sym.var('b'), **params)
    arg_shapes, out_shapes, _ = last.infer_shape(x=shape)
    assert arg_shapes[1] == (6,) + tuple(kernel) + (channels // groups,)
    head = rng.randn(*out_shapes[0]).astype(np.float32)
    got, got_grad = _run(last, {'x': x, 'w': _last(w_first), 'b': b}, head)
    want, want_grad = _run(first, {'x': _first(x), 'w': w_first, 'b': b}, _first(head))
    assert_almost_equal(got, _last(want), rtol=1e-5, atol=1e-5)
    assert_almost_equal(got_grad['x'], _last(want_grad['x']), rtol=1e-5, atol=1e-5)
    assert_almost_equal(got_grad['w'], _last(want_grad['w']), rtol=1e-5, atol=1e-5)
    assert_almost_equal(got_grad['b'], want_grad['b'], rtol=1e-5, atol=1e-5)


def test_numeric_gradients():
    rng = np.random.RandomState(2)
    conv = mx.sym.Convolution(mx.sym.var('x'), kernel=(2, 2), num_filter=2, layout='NHWC',
                              name='c')
    check_numeric_gradient(conv, {'x': rng.randn(1, 3, 3, 2), 'c_weight': rng.randn(2, 2, 2, 2),
                                  'c_bias': rng.randn(2)},
                           numeric_eps=1e-5, rtol=1e-4, atol=1e-6, dtype=np.float64)
    pool = mx.sym.Pooling(mx.sym.var('x'), kernel=(2,), pool_type='avg', layout='NWC')
    check_numeric_gradient(pool, {'x': rng.randn(2, 5, 3)}, numeric_eps=1e-5, rtol=1e-4,
                           atol=1e-6, dtype=np.float64)


def test_gluon_layers_with_channel_last_layouts():
    layer = mx.gluon.nn.Conv2D(5, (3, 3), layout='NHWC', in_channels=4)
    assert layer.weight.shape == (5, 3, 3, 4)
    layer.initialize()
    assert layer(mx.nd.ones((1, 6, 6, 4))).shape == (1, 4, 4, 5)
    pool = mx.gluon.nn.MaxPool2D(layout='NHWC', ceil_mode=True)
    assert pool(mx.nd.ones((2, 5, 5, 3))).shape == (2, 3, 3, 3)
    with pytest.raises(MXNetError, match='does not match'):
        mx.nd.Pooling(mx.nd.ones((1, 4, 4, 2)), kernel=(2,), layout='NHWC')
