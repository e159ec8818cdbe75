"""Axis permutations: transpose, SwapAxis (swapaxes), depth_to_space, space_to_depth."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward, check_symbolic_forward)

from shape_loss_reference import case_names, check_case

TESTED_OPS = {'transpose', 'SwapAxis', 'depth_to_space', 'space_to_depth'}

DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize('name', case_names('transpose', 'SwapAxis', 'depth_to_space',
                                            'space_to_depth'))
def test_matches_mxnet_reference(name):
    check_case(name)


# ---- transpose, SwapAxis ---------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('axes', [(), (1, 0, 2), (2, 0, 1), (0, 1, 2), (-1, 0, 1)])
def test_transpose(dtype, axes):
    x = np.random.randn(2, 3, 4).astype(dtype)
    sym = mx.sym.transpose(mx.sym.Variable('data'), axes=axes)
    check_symbolic_forward(sym, {'data': x}, [np.transpose(x, axes or None)], dtype=dtype)
    head = np.random.randn(*np.transpose(x, axes or None).shape)
    inverse = np.argsort([a % 3 for a in axes]) if axes else None
    check_symbolic_backward(sym, {'data': x}, [head], {'data': np.transpose(head, inverse)},
                            grad_req='add', dtype=dtype)
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_transpose_errors_and_inference():
    with pytest.raises(MXNetError, match='permutation'):
        mx.nd.transpose(mx.nd.zeros((2, 3, 4)), axes=(0, 0, 1))
    with pytest.raises(MXNetError, match='do not match'):
        mx.nd.transpose(mx.nd.zeros((2, 3, 4)), axes=(1, 0))
    assert mx.nd.zeros((2, 3)).T.shape == (3, 2)
    sym = mx.sym.transpose(mx.sym.Variable('x'), axes=(1, 2, 0))
    assert sym.infer_shape(x=(2, 3, 4))[1] == [(3, 4, 2)]


@pytest.mark.parametrize('dims', [(0, 2), (1, -1), (2, 2)])
def test_swapaxis(dims):
    x = np.random.randn(2, 3, 4)
    sym = mx.sym.SwapAxis(mx.sym.Variable('data'), dim1=dims[0], dim2=dims[1])
    check_symbolic_forward(sym, {'data': x}, [np.swapaxes(x, *dims)], dtype=np.float64)
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_swapaxes_alias_and_bad_axis():
    x = np.random.randn(2, 3, 4).astype(np.float32)
    assert_almost_equal(mx.nd.swapaxes(mx.nd.array(x), dim1=0, dim2=1).asnumpy(),
                        np.swapaxes(x, 0, 1))
    with pytest.raises(MXNetError, match='dim2 3 is out of bounds'):
        mx.nd.SwapAxis(mx.nd.array(x), dim1=0, dim2=3)


# ---- depth_to_space, space_to_depth -----------------------------------------------------
def test_depth_to_space_mxnet_example():
    x = mx.nd.array(np.arange(24).reshape(1, 4, 2, 3))
    expected = [[[[0, 6, 1, 7, 2, 8], [12, 18, 13, 19, 14, 20],
                  [3, 9, 4, 10, 5, 11], [15, 21, 16, 22, 17, 23]]]]
    assert_almost_equal(mx.nd.depth_to_space(x, block_size=2).asnumpy(), np.array(expected))
    back = mx.nd.space_to_depth(mx.nd.depth_to_space(x, block_size=2), block_size=2)
    assert_almost_equal(back.asnumpy(), x.asnumpy())


@pytest.mark.parametrize('op,shape', [('depth_to_space', (2, 8, 2, 3)),
                                      ('space_to_depth', (2, 2, 4, 6))])
def test_block_moves_numeric_gradient(op, shape):
    sym = getattr(mx.sym, op)(mx.sym.Variable('data'), block_size=2)
    check_numeric_gradient(sym, [np.random.randn(*shape)], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


def test_block_moves_shape_errors():
    with pytest.raises(MXNetError, match='multiple of block_size'):
        mx.nd.depth_to_space(mx.nd.zeros((1, 6, 2, 2)), block_size=2)
    with pytest.raises(MXNetError, match='multiples of block_size'):
        mx.nd.space_to_depth(mx.nd.zeros((1, 1, 3, 4)), block_size=2)
    with pytest.raises(MXNetError, match='4-D'):
        mx.nd.depth_to_space(mx.nd.zeros((4, 2, 2)), block_size=2)


@pytest.mark.parametrize('op', ['depth_to_space', 'space_to_depth'])
def test_zero_sized_input_is_refused(op):
    with pytest.raises(mx.MXNetError, match='may be 0'):
        getattr(mx.nd, op)(mx.nd.empty((1, 4, 0, 2)), 2)   # (nd.ones refuses a 0 dim)
