"""Pooling's plane loops: threaded over planes and the unclipped 2-D max loop give the
results of the one-thread clipped loops (which test_conv checks against MXNet's
definition), bit for bit."""
import numba
import numpy as np
import pytest

import symmod as mx
from symmod.ops import pooling_kernels as pk

LOWEST = np.finfo(np.float32).min


def _threads():
    return sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)})


def _at_width(n, fn):
    before = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        return fn()
    finally:
        numba.set_num_threads(before)


def _geometry(shape, kernel, stride, pad):
    out = tuple((shape[i + 2] + 2 * pad[i] - kernel[i]) // stride[i] + 1 for i in range(2))
    return (1,) + kernel, (1,) + stride, (0,) + pad, (shape[0] * shape[1], 1) + out


def _planes(x):
    return x.reshape((x.shape[0] * x.shape[1], 1) + x.shape[2:])


def _generic_max(x, k, s, p, out_shape):
    """The clipped one-thread loop, whatever the shape."""
    out = np.empty(out_shape, x.dtype)
    where = np.empty(out_shape, np.int32)
    xf = x.reshape(x.shape[0], -1)
    pk._max_pool_serial(xf, out.reshape(out.shape[0], -1), where.reshape(out.shape[0], -1),
                        pk._windows(x.shape, out_shape, k, s, p), x.shape[2], x.shape[3],
                        LOWEST)
    return out, where


MAX_CASES = [((2, 2), (2, 2), (0, 0)),     # LeNet's, every window inside
             ((3, 3), (2, 2), (0, 0)),
             ((3, 3), (2, 2), (1, 1)),     # clipped windows
             ((2, 3), (1, 2), (0, 1))]


@pytest.mark.parametrize('kernel, stride, pad', MAX_CASES)
def test_max_pool_at_any_width_matches_the_clipped_loop(kernel, stride, pad):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 6, 40, 38)).astype(np.float32)
    x[0, 0, :4, :4] = 1.5                 # ties: the first maximum wins
    x[1, 2, :6, :6] = LOWEST              # windows holding only the lowest value: -1
    k, s, p, out_shape = _geometry(x.shape, kernel, stride, pad)
    assert pk._threaded(_planes(x))
    expected, expected_where = _generic_max(_planes(x), k, s, p, out_shape)
    for n in _threads():
        out = np.empty(out_shape, np.float32)
        where = np.empty(out_shape, np.int32)
        _at_width(n, lambda: pk.max_pool(_planes(x), out, where, k, s, p, LOWEST))
        np.testing.assert_array_equal(out, expected)
        np.testing.assert_array_equal(where, expected_where)
    assert (expected_where == -1).any()
    if kernel == (2, 2):
        blocks = x.reshape(8, 6, 20, 2, 19, 2).max(axis=(3, 5))
        np.testing.assert_array_equal(out.reshape(blocks.shape), blocks)


def test_unclipped_loop_is_chosen_only_when_every_window_is_inside():
    x = np.zeros((4, 1, 9, 9), np.float32)
    assert pk._inside(x, np.zeros((4, 1, 4, 4)), (1, 2, 2), (1, 2, 2), (0, 0, 0))
    assert pk._inside(x, np.zeros((4, 1, 4, 4)), (1, 3, 3), (1, 2, 2), (0, 0, 0))
    # 'full' convention: the last window reaches past the input
    assert not pk._inside(x, np.zeros((4, 1, 5, 5)), (1, 2, 2), (1, 2, 2), (0, 0, 0))
    assert not pk._inside(x, np.zeros((4, 1, 5, 5)), (1, 3, 3), (1, 2, 2), (0, 1, 1))


@pytest.mark.parametrize('overwrite', [True, False])
def test_scatter_max_at_any_width(overwrite):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 6, 40, 38)).astype(np.float32)
    k, s, p, out_shape = _geometry(x.shape, (3, 3), (2, 2), (1, 1))
    _, where = _generic_max(_planes(x), k, s, p, out_shape)
    dy = rng.standard_normal(out_shape).astype(np.float32)
    start = rng.standard_normal(_planes(x).shape).astype(np.float32)
    expected = np.zeros_like(start) if overwrite else start.copy()
    flat = expected.reshape(expected.shape[0], -1)
    for q in range(flat.shape[0]):
        np.add.at(flat[q], where[q].reshape(-1), dy[q].reshape(-1))
    for n in _threads():
        dx = start.copy()
        _at_width(n, lambda: pk.scatter_max(where, dy, dx, overwrite))
        np.testing.assert_allclose(dx, expected, rtol=1e-6, atol=1e-6)
        if n > 1:
            np.testing.assert_array_equal(dx, first)
        first = dx


@pytest.mark.parametrize('pool_type', ['avg', 'sum', 'lp'])
def test_sum_pools_at_any_width_give_the_same_bits(pool_type):
    rng = np.random.default_rng(5)
    x = mx.nd.array(rng.standard_normal((8, 6, 40, 38)).astype(np.float32))
    dy = mx.nd.array(rng.standard_normal((8, 6, 20, 19)).astype(np.float32))
    extra = {'p_value': 2} if pool_type == 'lp' else {}
    sym = mx.sym.Pooling(mx.sym.Variable('data'), kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                         pool_type=pool_type, **extra)
    results = []
    for n in _threads():
        def run():
            ex = sym.bind(mx.cpu(), {'data': x}, args_grad={'data': mx.nd.zeros(x.shape)})
            ex.forward(is_train=True)
            ex.backward(dy)
            return ex.outputs[0].asnumpy(), ex.grad_dict['data'].asnumpy()
        results.append(_at_width(n, run))
    assert results[0][0].shape == dy.shape
    for out, grad in results[1:]:
        np.testing.assert_array_equal(out, results[0][0])
        np.testing.assert_array_equal(grad, results[0][1])
