"""Slicing and repeating: slice, slice_axis, slice_like, tile, repeat, reverse, Pad."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import (check_numeric_gradient, check_symbolic_backward,
                               check_symbolic_forward)

from shape_loss_reference import case_names, check_case

TESTED_OPS = {'slice', 'slice_axis', 'slice_like', 'tile', 'repeat', 'reverse', 'Pad'}

DTYPES = [np.float32, np.float64]


def numeric(sym, location, **kwargs):
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64, **kwargs)


@pytest.mark.parametrize('name', case_names('slice', 'slice_axis', 'slice_like', 'tile',
                                            'repeat', 'flip', 'Pad'))
def test_matches_mxnet_reference(name):
    check_case(name)


# ---- slice, slice_axis, slice_like ------------------------------------------------------
SLICES = [((0, 1), (2, 4), ()),
          ((None, 0), (None, 3), (-1, 2)),
          ((1, None, -1), (None, None, 0), (1, -1, -1)),
          ((-2,), (None,), ()),
          ((0, -7), (2, 100), (1, 2))]


def _numpy_slice(x, begin, end, step):
    index = []
    for i, (b, e) in enumerate(zip(begin, end)):
        s = step[i] if step and step[i] is not None else 1
        index.append(slice(b, e, s))
    return x[tuple(index)]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('begin,end,step', SLICES)
def test_slice(dtype, begin, end, step):
    x = np.random.randn(3, 4, 5).astype(dtype)
    sym = mx.sym.slice(mx.sym.Variable('data'), begin=begin, end=end, step=step)
    expected = _numpy_slice(x, begin, end, step)
    check_symbolic_forward(sym, [x], [expected], dtype=dtype)
    head = np.random.randn(*expected.shape)
    grad = np.zeros(x.shape)
    _numpy_slice(grad, begin, end, step)[...] = head
    check_symbolic_backward(sym, [x], [head], [grad], dtype=dtype)
    check_symbolic_backward(sym, [x], [head], [grad], grad_req='add', dtype=dtype)
    numeric(sym, [x])


def test_slice_mxnet_examples_and_crop_alias():
    x = mx.nd.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    assert mx.nd.slice(x, begin=(0, 1), end=(2, 4)).asnumpy().tolist() == [[2, 3, 4],
                                                                           [6, 7, 8]]
    got = mx.nd.slice(x, begin=(None, 0), end=(None, 3), step=(-1, 2))
    assert got.asnumpy().tolist() == [[9, 11], [5, 7], [1, 3]]
    assert mx.nd.crop(x, begin=(1, 1), end=(3, 2)).asnumpy().tolist() == [[6], [10]]
    assert mx.nd.slice(x, begin=(1,), end=(1,)).shape == (0, 4)


def test_slice_step_none_is_the_default():
    """step=None, as MXNet's own tests pass it, means no step (MXNet parses "None" as an
    empty tuple)."""
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    got = mx.nd.slice(mx.nd.array(x), begin=(None, 1), end=(2, None), step=None)
    np.testing.assert_array_equal(got.asnumpy(), x[:2, 1:])
    sym = mx.sym.slice(mx.sym.var('x'), begin=(0, 1), end=(2, 3), step=None)
    assert sym.infer_shape(x=(3, 4, 5))[1] == [(2, 2, 5)]


def test_slice_param_errors():
    x = mx.nd.zeros((3, 4))
    with pytest.raises(MXNetError, match='same length'):
        mx.nd.slice(x, begin=(0, 1), end=(2,))
    with pytest.raises(MXNetError, match='cannot be 0'):
        mx.nd.slice(x, begin=(0,), end=(2,), step=(0,))
    with pytest.raises(MXNetError, match='exceeds'):
        mx.nd.slice(x, begin=(0, 0, 0), end=(1, 1, 1))


@pytest.mark.parametrize('axis,begin,end', [(0, 1, 3), (1, 0, 2), (1, -3, -1), (-1, 2, None),
                                            (2, 0, 5)])
def test_slice_axis(axis, begin, end):
    x = np.random.randn(3, 4, 5)
    sym = mx.sym.slice_axis(mx.sym.Variable('data'), axis=axis, begin=begin, end=end)
    expected = x[(slice(None),) * (axis % 3) + (slice(begin, end),)]
    check_symbolic_forward(sym, [x], [expected], dtype=np.float64)
    numeric(sym, [x])


def test_slice_axis_errors():
    x = mx.nd.zeros((3, 4))
    with pytest.raises(MXNetError, match='invalid end'):
        mx.nd.slice_axis(x, axis=1, begin=0, end=5)
    with pytest.raises(MXNetError, match='invalid begin, end'):
        mx.nd.slice_axis(x, axis=1, begin=3, end=2)
    with pytest.raises(MXNetError, match='out of bounds'):
        mx.nd.slice_axis(x, axis=2, begin=0, end=1)


def test_slice_like():
    x, like = np.random.randn(3, 4, 5), np.random.randn(2, 3, 9)
    data, shape_like = mx.sym.Variable('data'), mx.sym.Variable('shape_like')
    all_axes = mx.sym.slice_like(data, shape_like, axes=(0, 1))
    assert all_axes.list_arguments() == ['data', 'shape_like']
    check_symbolic_forward(all_axes, [x, like], [x[:2, :3]], dtype=np.float64)
    head = np.random.randn(2, 3, 5)
    grad = np.zeros_like(x)
    grad[:2, :3] = head
    check_symbolic_backward(all_axes, [x, like], [head], [grad, np.zeros_like(like)],
                            dtype=np.float64)
    numeric(all_axes, [x, like], grad_nodes=['data'])
    with pytest.raises(MXNetError, match='exceeds'):
        mx.nd.slice_like(mx.nd.array(x), mx.nd.array(like))


# ---- tile, repeat, reverse ------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('reps', [(2,), (2, 3), (3, 1, 2), (1, 1)])
def test_tile(dtype, reps):
    x = np.random.randn(2, 3).astype(dtype)
    sym = mx.sym.tile(mx.sym.Variable('data'), reps=reps)
    expected = np.tile(x, reps)
    check_symbolic_forward(sym, [x], [expected], dtype=dtype)
    numeric(sym, [x])
    check_symbolic_backward(sym, [x], [np.ones(expected.shape)],
                            [np.full(x.shape, expected.size / x.size)], grad_req='add',
                            dtype=dtype)


@pytest.mark.parametrize('axis', [None, 0, 1, -1])
def test_repeat(axis):
    x = np.random.randn(2, 3)
    sym = mx.sym.repeat(mx.sym.Variable('data'), repeats=3, axis=axis)
    check_symbolic_forward(sym, [x], [np.repeat(x, 3, axis=axis)], dtype=np.float64)
    numeric(sym, [x])


def test_repeat_negative_raises():
    with pytest.raises(MXNetError, match='negative'):
        mx.nd.repeat(mx.nd.ones((2,)), repeats=-1)


@pytest.mark.parametrize('axis', [(0,), (1, 2), (-1,)])
def test_reverse_and_flip_alias(axis):
    x = np.random.randn(2, 3, 4)
    for op in (mx.sym.reverse, mx.sym.flip):
        sym = op(mx.sym.Variable('data'), axis=axis)
        check_symbolic_forward(sym, [x], [np.flip(x, axis)], dtype=np.float64)
    numeric(sym, [x])


# ---- Pad -------------------------------------------------------------------------------
@pytest.mark.parametrize('mode', ['constant', 'edge', 'reflect'])
@pytest.mark.parametrize('shape,width', [((2, 2, 3, 4), (0, 0, 0, 0, 1, 2, 2, 1)),
                                         ((1, 2, 3, 3, 4), (0, 0, 0, 0, 1, 1, 0, 2, 2, 1))])
def test_pad(mode, shape, width):
    x = np.random.randn(*shape)
    sym = mx.sym.pad(mx.sym.Variable('data'), mode=mode, pad_width=width, constant_value=0.5)
    pairs = [(width[2 * i], width[2 * i + 1]) for i in range(len(shape))]
    kwargs = {'constant_values': 0.5} if mode == 'constant' else {}
    check_symbolic_forward(sym, [x], [np.pad(x, pairs, mode=mode, **kwargs)], dtype=np.float64)
    numeric(sym, [x])


def test_pad_errors():
    x = mx.nd.zeros((1, 1, 3, 3))
    with pytest.raises(MXNetError, match='first two axes'):
        mx.nd.Pad(x, mode='edge', pad_width=(1, 0, 0, 0, 1, 1, 1, 1))
    with pytest.raises(MXNetError, match='4-D or 5-D'):
        mx.nd.Pad(mx.nd.zeros((3, 3)), mode='edge', pad_width=(1, 1, 1, 1))
    with pytest.raises(MXNetError, match='smaller than the input'):
        mx.nd.Pad(x, mode='reflect', pad_width=(0, 0, 0, 0, 3, 0, 0, 0))
    with pytest.raises(MXNetError, match='mode'):
        mx.nd.Pad(x, mode='wrap', pad_width=(0, 0, 0, 0, 1, 1, 1, 1))
