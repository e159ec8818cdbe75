"""Direct 3x3 stride-2 convolution kernels (symmod/ops/conv_strided.py): against the im2col
path and a loop reference, finite differences through the operator, write/add requests,
thread-count independence, and which convolutions take them."""
import numba
import numpy as np
import pytest

import symmod as mx
from symmod.ops import conv_strided
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from test_conv import conv_reference

# even and odd planes, one pixel, one sample, more samples than chunks, more filters
# than channels and the reverse, filter counts with a rest after blocks of four
SHAPES = [(2, 3, 8, 8, 4), (3, 4, 7, 9, 5), (1, 2, 1, 1, 3), (2, 6, 2, 5, 2),
          (11, 5, 6, 3, 7), (1, 1, 3, 4, 1)]


def _bind(x, w, req, grad_init=0.0):
    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(3, 3), stride=(2, 2),
                             pad=(1, 1), num_filter=w.shape[0], no_bias=True, name='conv')
    dtype = x.dtype
    return sym.bind(mx.cpu(), args={'data': mx.nd.array(x, dtype=dtype),
                                    'conv_weight': mx.nd.array(w, dtype=dtype)},
                    args_grad={'data': mx.nd.full(x.shape, grad_init, dtype=dtype),
                               'conv_weight': mx.nd.full(w.shape, grad_init, dtype=dtype)},
                    grad_req=req)


def _run(x, w, dy, req='write', grad_init=0.0):
    ex = _bind(x, w, req, grad_init)
    out = ex.forward(is_train=True)[0].asnumpy()
    ex.backward(mx.nd.array(dy, dtype=x.dtype))
    return out, ex.grad_dict['data'].asnumpy(), ex.grad_dict['conv_weight'].asnumpy()


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('n, c, h, w, k', SHAPES)
def test_strided_kernels_match_the_im2col_path(n, c, h, w, k, dtype, monkeypatch):
    rng = np.random.default_rng(n * 100 + c * 10 + h)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    weight = rng.standard_normal((k, c, 3, 3)).astype(dtype)
    oh, ow = conv_strided.output_size(h), conv_strided.output_size(w)
    dy = rng.standard_normal((n, k, oh, ow)).astype(dtype)
    out = np.empty((n, k, oh, ow), dtype)
    conv_strided.forward(x, weight, out)
    dx = np.empty_like(x)
    conv_strided.backward_data(dy, weight, dx)
    dw = conv_strided.backward_weight(x, dy)
    assert out.dtype == dx.dtype == dw.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    reference = conv_reference(x.astype(np.float64), weight.astype(np.float64), None,
                               (2, 2), (1, 1), (1, 1), 1)
    assert_almost_equal(out, reference, rtol=tol, atol=tol)
    # add: onto what the destination holds
    held_out, held_dx = rng.standard_normal(out.shape), rng.standard_normal(x.shape)
    out_add, dx_add = held_out.astype(dtype), held_dx.astype(dtype)
    conv_strided.forward(x, weight, out_add, add=True)
    conv_strided.backward_data(dy, weight, dx_add, add=True)
    assert_almost_equal(out_add, held_out + out, rtol=tol, atol=tol)
    assert_almost_equal(dx_add, held_dx + dx, rtol=tol, atol=tol)
    monkeypatch.setattr(conv_strided, 'supports', lambda *args: False)
    im2col = _run(x, weight, dy)
    for mine, theirs in zip((out, dx, dw), im2col):
        assert_almost_equal(mine, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_operator_write_and_add_requests_match_im2col(dtype, monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 9, 6)).astype(dtype)
    w = rng.standard_normal((6, 4, 3, 3)).astype(dtype)
    dy = rng.standard_normal((3, 6, 5, 3)).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    calls = []
    original = conv_strided.backward
    monkeypatch.setattr(conv_strided, 'backward',
                        lambda *args, **kw: calls.append(kw) or original(*args, **kw))
    mine = {req: _run(x, w, dy, req, 1.0) for req in ('write', 'add')}
    # both gradients in one call, the data gradient added under 'add'
    assert calls == [{'add': False, 'weight': True}, {'add': True, 'weight': True}]
    monkeypatch.setattr(conv_strided, 'supports', lambda *args: False)
    theirs = {req: _run(x, w, dy, req, 1.0) for req in ('write', 'add')}
    for req in ('write', 'add'):
        for a, b in zip(mine[req], theirs[req]):
            assert_almost_equal(a, b, rtol=tol, atol=tol)
    # add keeps what the gradient buffers held (ones)
    for a, b in zip(mine['add'][1:], mine['write'][1:]):
        assert_almost_equal(a - 1.0, b, rtol=tol, atol=tol)


@pytest.mark.parametrize('shape', [(2, 3, 5, 4), (1, 2, 6, 7)])
@pytest.mark.parametrize('no_bias', [True, False])
def test_strided_numeric_gradient(shape, no_bias):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape)
    w = rng.standard_normal((4, shape[1], 3, 3))
    b = rng.standard_normal(4)
    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(3, 3), stride=(2, 2),
                             pad=(1, 1), num_filter=4, no_bias=no_bias, name='conv')
    check_numeric_gradient(sym, [x, w] if no_bias else [x, w, b], numeric_eps=1e-6,
                           rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_strided_weight_gradient_does_not_depend_on_thread_count():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((21, 3, 9, 8)).astype(np.float32)
    dy = rng.standard_normal((21, 5, 5, 4)).astype(np.float32)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    before = numba.get_num_threads()
    results = []
    try:
        for threads in sorted({1, 2, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            dx = np.empty_like(x)
            conv_strided.backward_data(dy, w, dx)
            results.append((conv_strided.backward_weight(x, dy), dx))
    finally:
        numba.set_num_threads(before)
    for dw, dx in results[1:]:
        np.testing.assert_array_equal(dw, results[0][0])
        np.testing.assert_array_equal(dx, results[0][1])


def test_only_3x3_stride_2_pad_1_convolutions_take_the_strided_kernels():
    supports = conv_strided.supports
    assert supports((3, 3), (2, 2), (1, 1), (1, 1), 1, np.float32)
    assert supports((3, 3), (2, 2), (1, 1), (1, 1), 1, np.float64)
    assert not supports((3, 3), (1, 1), (1, 1), (1, 1), 1, np.float32)
    assert not supports((3, 3), (2, 1), (1, 1), (1, 1), 1, np.float32)
    assert not supports((3, 3), (2, 2), (2, 2), (1, 1), 1, np.float32)
    assert not supports((3, 3), (2, 2), (1, 1), (0, 0), 1, np.float32)
    assert not supports((3, 3), (2, 2), (1, 1), (1, 1), 2, np.float32)
    assert not supports((1, 1), (2, 2), (1, 1), (0, 0), 1, np.float32)
    assert not supports((3, 3), (2, 2), (1, 1), (1, 1), 1, np.float16)


@pytest.mark.parametrize('strides', [(2, 2), (2, 3), (3, 1)])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_pointwise_strided_copies_match_numpy_slicing(strides, dtype):
    # conv_pointwise.py's subsample (forward) and strided add (data gradient) kernels
    from symmod.ops import conv_pointwise
    rng = np.random.default_rng(13)
    x = rng.standard_normal((3, 2, 7, 8)).astype(dtype)
    oh, ow = -(-7 // strides[0]), -(-8 // strides[1])
    rows = np.empty((3, 2, oh, ow), dtype)
    conv_pointwise._subsample(x, rows, *strides)
    np.testing.assert_array_equal(rows, x[:, :, ::strides[0], ::strides[1]])
    dx = rng.standard_normal(x.shape).astype(dtype)
    expected = dx.copy()
    expected[:, :, ::strides[0], ::strides[1]] += rows
    conv_pointwise._scatter_add(rows, dx, *strides)
    np.testing.assert_array_equal(dx, expected)
