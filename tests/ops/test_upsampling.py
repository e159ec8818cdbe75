"""UpSampling (nearest with one or several inputs, bilinear) against numpy references,
finite differences and MXNet 1.9.1's recorded results."""
import itertools
import json

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from recorded_cases import case_names, replay_with_shapes

TESTED_OPS = {'UpSampling'}

DTYPES = [np.float32, np.float64]
REFERENCE = 'ops_deconv_sort_reference.npz'


# ---- MXNet's recorded results -----------------------------------------------------------------
@pytest.mark.parametrize('name', case_names(REFERENCE, TESTED_OPS))
def test_matches_mxnet_reference(name):
    replay_with_shapes(REFERENCE, name, tol=1e-5)


# ---- nearest ----------------------------------------------------------------------------------
def nearest_reference(x, scale):
    return np.repeat(np.repeat(x, scale, axis=2), scale, axis=3)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,scale', [((2, 3, 4, 5), 2), ((1, 2, 3, 3), 3), ((2, 1, 2, 4), 1)])
def test_nearest_single_input(shape, scale, dtype):
    x = np.random.randn(*shape).astype(dtype)
    y = mx.nd.UpSampling(mx.nd.array(x, dtype=dtype), scale=scale, sample_type='nearest')
    assert y.dtype == dtype
    assert np.array_equal(y.asnumpy(), nearest_reference(x, scale))
    sym = mx.sym.UpSampling(mx.sym.Variable('data'), scale=scale, sample_type='nearest')
    check_numeric_gradient(sym, [x.astype(np.float64)], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


# every input is brought to the first input's size times scale
MULTI = [((2, 2, 2, 3), (2, 3, 4, 6), (2, 1, 2, 3)), ((1, 2, 2, 2), (1, 2, 1, 1), (1, 2, 4, 4))]


@pytest.mark.parametrize('mode', ['concat', 'sum'])
@pytest.mark.parametrize('shapes', MULTI)
def test_nearest_several_inputs(shapes, mode):
    if mode == 'sum' and len({s[1] for s in shapes}) > 1:
        shapes = [s[:1] + (2,) + s[2:] for s in shapes]
    scale = 2
    xs = [np.random.randn(*s) for s in shapes]
    height = shapes[0][2] * scale
    ups = [nearest_reference(x, height // x.shape[2]) for x in xs]
    expected = np.concatenate(ups, axis=1) if mode == 'concat' else sum(ups)
    y = mx.nd.UpSampling(*[mx.nd.array(x, dtype=np.float64) for x in xs], scale=scale,
                         sample_type='nearest', multi_input_mode=mode)
    assert_almost_equal(y.asnumpy(), expected, rtol=1e-12, atol=1e-12)
    variables = [mx.sym.Variable('x%d' % i) for i in range(len(xs))]
    sym = mx.sym.UpSampling(*variables, scale=scale, sample_type='nearest',
                            multi_input_mode=mode, name='up')
    assert sym.list_arguments() == ['x0', 'x1', 'x2']
    assert json.loads(sym.tojson())['nodes'][-1]['attrs']['num_args'] == '3'
    check_numeric_gradient(sym, xs, numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_nearest_float16_concat():
    xs = [np.random.randn(2, 2, 2, 3), np.random.randn(2, 1, 4, 6)]
    y = mx.nd.UpSampling(*[mx.nd.array(x, dtype=np.float16) for x in xs], scale=2,
                         sample_type='nearest')
    expected = np.concatenate([nearest_reference(xs[0], 2), xs[1]], axis=1)
    assert y.dtype == np.float16
    assert_almost_equal(y.asnumpy(), expected, rtol=1e-3, atol=1e-3)
    ex = mx.sym.UpSampling(mx.sym.Variable('a'), mx.sym.Variable('b'), scale=2,
                           sample_type='nearest').simple_bind(
        mx.cpu(), a=xs[0].shape, b=xs[1].shape, type_dict={'a': np.float16, 'b': np.float16})
    ex.forward(is_train=True, a=xs[0], b=xs[1])
    ex.backward(mx.nd.ones((2, 3, 4, 6), dtype=np.float16))
    assert np.array_equal(ex.grad_dict['a'].asnumpy(), np.full(xs[0].shape, 4.0))
    assert np.array_equal(ex.grad_dict['b'].asnumpy(), np.ones(xs[1].shape))


def test_nearest_backward_add_accumulates():
    xs = [np.random.randn(2, 2, 3, 3), np.random.randn(2, 1, 6, 6)]
    sym = mx.sym.UpSampling(mx.sym.Variable('a'), mx.sym.Variable('b'), scale=2,
                            sample_type='nearest')
    dy = np.random.randn(2, 3, 6, 6)
    grads = {}
    for req in ('write', 'add'):
        ex = sym.bind(mx.cpu(), args={'a': mx.nd.array(xs[0]), 'b': mx.nd.array(xs[1])},
                      args_grad={'a': mx.nd.ones(xs[0].shape), 'b': mx.nd.ones(xs[1].shape)},
                      grad_req=req)
        ex.forward(is_train=True)
        ex.backward(mx.nd.array(dy))
        grads[req] = [ex.grad_dict[k].asnumpy() for k in 'ab']
    # a's gradient sums 2x2 blocks of its channels; b's is its channel of dy unchanged
    expected_a = dy[:, :2].reshape(2, 2, 3, 2, 3, 2).sum(axis=(3, 5))
    assert_almost_equal(grads['write'][0], expected_a, rtol=1e-5, atol=1e-5)
    assert_almost_equal(grads['write'][1], dy[:, 2:], rtol=1e-6, atol=1e-6)
    for w, a in zip(grads['write'], grads['add']):
        assert_almost_equal(a, w + 1, rtol=1e-5, atol=1e-5)


# ---- bilinear ---------------------------------------------------------------------------------
def bilinear_reference(x, w, scale):
    """Per-channel transposed convolution, stride ``scale``, cropped by ceil((scale-1)/2)."""
    n, c, h, wd = x.shape
    k = w.shape[-1]
    pad = int(np.ceil((scale - 1) / 2.0))
    full = np.zeros((n, c, scale * (h - 1) + k, scale * (wd - 1) + k))
    for i, j in itertools.product(range(h), range(wd)):
        full[:, :, i * scale:i * scale + k, j * scale:j * scale + k] += \
            x[:, :, i, j, None, None] * w[None, :, 0]
    return full[:, :, pad:pad + h * scale, pad:pad + wd * scale]


def bilinear_kernel(scale):
    """The weight MXNet's Bilinear initializer makes for a (k, k) upsampling kernel."""
    k = 2 * scale - scale % 2
    f = np.ceil(k / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    axis = 1 - np.abs(np.arange(k) / f - c)
    return np.outer(axis, axis)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('scale', [1, 2, 3, 4])
def test_bilinear_forward_and_gradient(scale, dtype):
    c = 3
    k = 2 * scale - scale % 2
    x = np.random.randn(2, c, 3, 4)
    w = np.random.randn(c, 1, k, k)
    y = mx.nd.UpSampling(mx.nd.array(x, dtype=dtype), mx.nd.array(w, dtype=dtype), scale=scale,
                         sample_type='bilinear', num_filter=c)
    assert y.dtype == dtype and y.shape == (2, c, 3 * scale, 4 * scale)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    assert_almost_equal(y.asnumpy(), bilinear_reference(x, w, scale), rtol=tol, atol=tol)
    sym = mx.sym.UpSampling(mx.sym.Variable('data'), scale=scale, sample_type='bilinear',
                            num_filter=c, name='up')
    check_numeric_gradient(sym, [x, w], numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_bilinear_weight_variable_and_kernel():
    sym = mx.sym.UpSampling(mx.sym.Variable('data'), scale=2, sample_type='bilinear',
                            num_filter=3, name='up')
    assert sym.list_arguments() == ['data', 'up_weight']
    assert sym.attr_dict()['up_weight']['__init__'] == '["bilinear", {}]'
    args, outs, _ = sym.infer_shape(data=(1, 3, 4, 5))
    assert args[1] == (3, 1, 4, 4) and outs == [(1, 3, 8, 10)]
    # a Module initializes the weight from that attribute, whatever its initializer
    mod = mx.mod.Module(sym, data_names=['data'], label_names=None)
    mod.bind(data_shapes=[('data', (1, 3, 4, 5))])
    mod.init_params(mx.init.Xavier())
    weight = mod.get_params()[0]['up_weight'].asnumpy()
    assert_almost_equal(weight, np.broadcast_to(bilinear_kernel(2), (3, 1, 4, 4)), rtol=1e-6)
    # with the bilinear kernel, the inside of a linear ramp stays a (finer) linear ramp
    ramp = np.arange(6.0)[None, None, None, :].repeat(4, axis=2)
    w = bilinear_kernel(2)[None, None]
    y = mx.nd.UpSampling(mx.nd.array(ramp, dtype=np.float64), mx.nd.array(w, dtype=np.float64),
                         scale=2, sample_type='bilinear', num_filter=1).asnumpy()[0, 0]
    assert_almost_equal(np.diff(y[2:-2, 2:-2], axis=1), np.full((4, 7), 0.5), rtol=1e-12)


# ---- shapes, params and errors ----------------------------------------------------------------
def test_upsampling_params_and_errors():
    data = mx.sym.Variable('data')
    with pytest.raises(MXNetError, match='sample_type'):
        mx.sym.UpSampling(data, scale=2)
    with pytest.raises(MXNetError, match='sample_type'):
        mx.sym.UpSampling(data, scale=2, sample_type='bicubic')
    with pytest.raises(MXNetError, match='multi_input_mode'):
        mx.sym.UpSampling(data, scale=2, sample_type='nearest', multi_input_mode='max')
    with pytest.raises(MXNetError, match='scale'):
        mx.sym.UpSampling(data, scale=0, sample_type='nearest')
    other = mx.sym.Variable('other')
    cases = [
        (mx.sym.UpSampling(data, scale=2, sample_type='bilinear', num_filter=2),
         {'data': (1, 3, 4, 4)}, 'num_filter'),
        (mx.sym.UpSampling(data, scale=2, sample_type='bilinear', num_filter=3),
         {'data': (1, 3, 4)}, '4D'),
        (mx.sym.UpSampling(data, scale=2, sample_type='nearest'), {'data': (1, 3, 4)}, '4D'),
        (mx.sym.UpSampling(data, other, scale=2, sample_type='nearest'),
         {'data': (1, 3, 4, 4), 'other': (1, 3, 3, 3)}, 'cannot be upsampled'),
        (mx.sym.UpSampling(data, other, scale=2, sample_type='nearest'),
         {'data': (1, 3, 4, 4), 'other': (1, 3, 4, 2)}, 'cannot be upsampled'),
        (mx.sym.UpSampling(data, other, scale=2, sample_type='nearest',
                           multi_input_mode='sum'),
         {'data': (1, 3, 4, 4), 'other': (1, 2, 4, 4)}, 'same when multi_input_mode=sum'),
    ]
    for sym, shapes, message in cases:
        with pytest.raises(MXNetError, match=message):
            sym.infer_shape(**shapes)
    up = mx.sym.UpSampling(data, other, scale=2, sample_type='nearest')
    with pytest.raises(MXNetError, match='dtype'):
        up.infer_type(data=np.float32, other=np.float64)
    assert up.infer_type(data=np.float64)[1] == [np.float64]
