"""Indexing operators: take, pick, batch_take, one_hot, gather_nd, scatter_nd.

Indices are float arrays (MXNet's convention) truncated toward zero. Numeric gradient
checks use fractional indices (2.25, -1.25) so that finite-difference steps on the
index input cannot change the truncated value.
"""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward, check_symbolic_forward)

from shape_loss_reference import case_names, check_case

TESTED_OPS = {'take', 'pick', 'batch_take', 'one_hot', 'gather_nd', 'scatter_nd'}

DTYPES = [np.float32, np.float64]


def fractional(idx):
    """Indices nudged away from integers without changing their truncation."""
    idx = np.asarray(idx, dtype=np.float64)
    return idx + np.where(idx < 0, -0.25, 0.25)


def numeric(sym, location, nodes):
    check_numeric_gradient(sym, location, grad_nodes=nodes, numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('name', case_names('take', 'pick', 'one_hot', 'gather_nd',
                                            'scatter_nd'))
def test_matches_mxnet_reference(name):
    check_case(name)


# ---- take -----------------------------------------------------------------------------
def _np_take(a, idx, axis, mode):
    idx = idx.astype(np.int64)
    n = a.shape[axis]
    idx = np.clip(idx, 0, n - 1) if mode == 'clip' else np.mod(idx, n)
    return np.take(a, idx, axis=axis)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('axis', [0, 1, -1])
@pytest.mark.parametrize('mode', ['clip', 'wrap'])
def test_take(dtype, axis, mode):
    a = np.random.randn(4, 3, 5).astype(dtype)
    idx = np.array([[0, 2, 7], [-1, 2, 1]])
    sym = mx.sym.take(mx.sym.Variable('a'), mx.sym.Variable('indices'), axis=axis, mode=mode)
    assert sym.list_arguments() == ['a', 'indices']
    check_symbolic_forward(sym, [a, idx], [_np_take(a, idx, axis, mode)], dtype=dtype)
    numeric(sym, [a, fractional(idx)], ['a'])


def test_take_gradient_sums_repeated_indices():
    a = np.random.randn(3, 2)
    idx = np.array([1, 1, 0, 1.0])
    head = np.random.randn(4, 2)
    grad = np.zeros((3, 2))
    np.add.at(grad, idx.astype(int), head)
    sym = mx.sym.take(mx.sym.Variable('a'), mx.sym.Variable('indices'))
    check_symbolic_backward(sym, [a, idx], [head], {'a': grad, 'indices': np.zeros(4)},
                            dtype=np.float64)
    check_symbolic_backward(sym, [a, idx], [head], {'a': grad},
                            grad_req={'a': 'add', 'indices': 'null'}, dtype=np.float64)


def test_take_raise_mode_and_float_indices():
    a = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    assert mx.nd.take(a, mx.nd.array([2.9, 0.5])).asnumpy().tolist() == [[5, 6], [1, 2]]
    assert mx.nd.take(a, mx.nd.array([1]), mode='raise').asnumpy().tolist() == [[3, 4]]
    for bad in ([0, 3], [0, -1]):
        with pytest.raises(MXNetError, match='out of bound'):     # at the read, as MXNet
            mx.nd.take(a, mx.nd.array(bad), mode='raise').asnumpy()
    with pytest.raises(MXNetError, match='mode'):
        mx.nd.take(a, mx.nd.array([0]), mode='nearest')


def test_take_shape_inference():
    sym = mx.sym.take(mx.sym.Variable('a'), mx.sym.Variable('i'), axis=1)
    assert sym.infer_shape(a=(4, 5, 6), i=(2, 3))[1] == [(4, 2, 3, 6)]
    with pytest.raises(MXNetError, match='out of bounds'):
        mx.sym.take(mx.sym.Variable('a'), mx.sym.Variable('i'), axis=3).infer_shape(
            a=(4, 5, 6), i=(2,))


# ---- pick ------------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('axis', [0, 1, -1])
@pytest.mark.parametrize('keepdims', [False, True])
def test_pick(dtype, axis, keepdims):
    data = np.random.randn(3, 4, 2).astype(dtype)
    ax = axis % 3
    idx_shape = tuple(1 if i == ax else d for i, d in enumerate(data.shape))
    idx = np.random.randint(-1, data.shape[ax] + 1, size=idx_shape).astype(np.float64)
    clipped = np.clip(idx.astype(int), 0, data.shape[ax] - 1)
    expected = np.take_along_axis(data, clipped, axis=ax)
    if not keepdims:
        expected = expected.squeeze(ax)
        idx = idx.squeeze(ax)
    sym = mx.sym.pick(mx.sym.Variable('data'), mx.sym.Variable('index'), axis=axis,
                      keepdims=keepdims)
    assert sym.list_arguments() == ['data', 'index']
    check_symbolic_forward(sym, [data, idx], [expected], dtype=dtype)
    numeric(sym, [data, fractional(idx)], ['data'])


def test_pick_mxnet_examples():
    x = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    assert mx.nd.pick(x, mx.nd.array([0, 1]), 0).asnumpy().tolist() == [1, 4]
    assert mx.nd.pick(x, mx.nd.array([0, 1, 0]), 1).asnumpy().tolist() == [1, 4, 5]
    assert mx.nd.pick(x, mx.nd.array([2, -1, -2]), 1, mode='wrap').asnumpy().tolist() == \
        [1, 4, 5]
    got = mx.nd.pick(x, mx.nd.array([[1], [0], [2]]), 1, keepdims=True)
    assert got.asnumpy().tolist() == [[2], [3], [6]]
    assert mx.nd.choose_element_0index(x, mx.nd.array([1, 1, 0])).asnumpy().tolist() == \
        [2, 4, 5]
    with pytest.raises(MXNetError, match='axis=None'):
        mx.sym.pick(mx.sym.Variable('d'), mx.sym.Variable('i'), axis='None')


def test_pick_index_gets_zero_gradient_and_add():
    data, idx = np.random.randn(3, 4), np.array([0, 3, 1.0])
    head = np.random.randn(3)
    grad = np.zeros((3, 4))
    grad[np.arange(3), idx.astype(int)] = head
    sym = mx.sym.pick(mx.sym.Variable('data'), mx.sym.Variable('index'))
    check_symbolic_backward(sym, [data, idx], [head], [grad, np.zeros(3)], dtype=np.float64)
    check_symbolic_backward(sym, [data, idx], [head], {'data': grad},
                            grad_req={'data': 'add', 'index': 'null'}, dtype=np.float64)


# ---- batch_take ------------------------------------------------------------------------
def test_batch_take():
    a = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    out = mx.nd.batch_take(a, mx.nd.array([0, 1, 7], dtype=np.int32))
    assert out.asnumpy().tolist() == [1, 4, 6]
    with pytest.raises(MXNetError, match='int32'):
        mx.nd.batch_take(a, mx.nd.array([0, 1, 0]))
    with pytest.raises(MXNetError, match='2-D'):
        mx.nd.batch_take(mx.nd.zeros((2, 2, 2)), mx.nd.array([0, 1], dtype=np.int32))


# ---- one_hot -----------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int32', 'uint8'])
def test_one_hot(dtype):
    idx = np.array([[1, 0], [2, 5], [-1, 0.0]])
    out = mx.nd.one_hot(mx.nd.array(idx), depth=3, on_value=8, off_value=1, dtype=dtype)
    assert out.dtype == np.dtype(dtype) and out.shape == (3, 2, 3)
    expected = np.ones((3, 2, 3))
    for i, j in np.ndindex(3, 2):
        if 0 <= idx[i, j] < 3:
            expected[i, j, int(idx[i, j])] = 8
    assert_almost_equal(out.asnumpy().astype(np.float64), expected)


def test_one_hot_default_float32_and_zero_gradient():
    sym = mx.sym.one_hot(mx.sym.Variable('indices'), depth=4)
    assert sym.infer_type(indices=np.float64)[1] == [np.float32]
    assert sym.infer_shape(indices=(2, 3))[1] == [(2, 3, 4)]
    x = mx.nd.array([1, 2])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.one_hot(x, depth=3)
    y.backward()
    assert not x.grad.asnumpy().any()


# ---- gather_nd, scatter_nd ----------------------------------------------------------------
def test_gather_nd_mxnet_examples():
    data = mx.nd.array([[0, 1], [2, 3]])
    got = mx.nd.gather_nd(data, mx.nd.array([[1, 1, 0], [0, 1, 0]]))
    assert got.asnumpy().tolist() == [2, 3, 0]
    data = mx.nd.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    got = mx.nd.gather_nd(data, mx.nd.array([[0, 1], [1, 0]]))
    assert got.asnumpy().tolist() == [[3, 4], [5, 6]]
    with pytest.raises(MXNetError, match='index 3 is out of bounds for axis 0 with size 3'):
        mx.nd.gather_nd(mx.nd.ones((3, 2)), mx.nd.array([[0, 3]]))
    with pytest.raises(IndexError):     # MXNet raises Python's IndexError here
        mx.nd.gather_nd(mx.nd.ones((3, 2)), mx.nd.array([[0, -4]]))


@pytest.mark.parametrize('dtype', DTYPES)
def test_gather_nd_gradient(dtype):
    data = np.random.randn(3, 4, 2).astype(dtype)
    idx = np.array([[0, 2, 2, 0], [1, 3, 0, 1.0]])      # (0, 1) is gathered twice
    sym = mx.sym.gather_nd(mx.sym.Variable('data'), mx.sym.Variable('indices'))
    check_symbolic_forward(sym, [data, idx], [data[idx[0].astype(int), idx[1].astype(int)]],
                           dtype=dtype)
    numeric(sym, [data, fractional(idx)], ['data'])


def test_scatter_nd():
    data, idx = np.random.randn(3, 2), np.array([[0, 3, 1.0]])
    sym = mx.sym.scatter_nd(mx.sym.Variable('data'), mx.sym.Variable('indices'), shape=(4, 2))
    expected = np.zeros((4, 2))
    expected[[0, 3, 1]] = data
    check_symbolic_forward(sym, [data, idx], [expected], dtype=np.float64)
    numeric(sym, [data, fractional(idx)], ['data'])
    got = mx.nd.scatter_nd(mx.nd.array([2, 3, 0]), mx.nd.array([[1, 1, 0], [0, 1, 0]]),
                           shape=(2, 2))
    assert got.asnumpy().tolist() == [[0, 0], [2, 3]]
    with pytest.raises(MXNetError, match='invalid data, indices, and output shape'):
        mx.sym.scatter_nd(mx.sym.Variable('d'), mx.sym.Variable('i'), shape=(4, 2)).infer_shape(
            d=(3, 5), i=(1, 3))


def test_index_read_twice_sums_a_zero_gradient():
    # an index variable that take and another operator read: the executor adds take's zero
    # index gradient to the other one (MXNet 1.9.1 gives i.grad == 1, x.grad rows [0, 1])
    i, x = mx.sym.var('i'), mx.sym.var('x')
    exe = mx.sym.Group([mx.sym.take(x, i), i + 1]).bind(
        mx.cpu(), {'i': mx.nd.array([1]), 'x': mx.nd.array([[1, 2], [3, 4]])},
        args_grad={'i': mx.nd.ones(1), 'x': mx.nd.zeros((2, 2))})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((1, 2)), mx.nd.ones(1)])
    np.testing.assert_array_equal(exe.grad_dict['i'].asnumpy(), [1])
    np.testing.assert_array_equal(exe.grad_dict['x'].asnumpy(), [[0, 0], [1, 1]])
