"""Matrix products: dot (MXNet's N-d rule), batch_dot, linalg_gemm2."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward, check_symbolic_forward)

from shape_loss_reference import case_names, check_case

TESTED_OPS = {'dot', 'batch_dot', '_linalg_gemm2'}

DTYPES = [np.float32, np.float64]


def numeric(sym, location):
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def mx_dot(a, b, ta=False, tb=False):
    """MXNet's dot in numpy: 2-D views, last axis of a with first axis of b."""
    a2 = a.reshape(a.shape[0], -1).T if ta else a.reshape(-1, a.shape[-1])
    b2 = b.reshape(-1, b.shape[-1]).T if tb else b.reshape(b.shape[0], -1)
    keep_a = (a.shape[1:] if ta else a.shape[:-1]) if a.ndim > 1 else ()
    keep_b = (b.shape[:-1] if tb else b.shape[1:]) if b.ndim > 1 else ()
    out = (a2 @ b2).reshape(keep_a + keep_b)
    return out if out.shape else out.reshape(1)


@pytest.mark.parametrize('name', case_names('dot', 'batch_dot', 'linalg_gemm2'))
def test_matches_mxnet_reference(name):
    check_case(name)


DOT_CASES = [((3, 4), (4, 5), False, False),
             ((2, 3, 4), (4, 5, 6), False, False),
             ((4, 3), (4, 5), True, False),
             ((3, 4), (5, 4), False, True),
             ((4, 3), (5, 4), True, True),
             ((3, 2, 4), (3, 5), True, False),
             ((3, 4), (2, 5, 4), False, True),
             ((4,), (4,), False, False),
             ((4,), (4, 3), False, False),
             ((3, 4), (4,), False, False)]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('lshape,rshape,ta,tb', DOT_CASES)
def test_dot(dtype, lshape, rshape, ta, tb):
    a, b = np.random.randn(*lshape), np.random.randn(*rshape)
    sym = mx.sym.dot(mx.sym.Variable('lhs'), mx.sym.Variable('rhs'), transpose_a=ta,
                     transpose_b=tb)
    assert sym.list_arguments() == ['lhs', 'rhs']
    expected = mx_dot(a, b, ta, tb)
    check_symbolic_forward(sym, [a, b], [expected], dtype=dtype)
    numeric(sym, [a, b])


def test_dot_nd_is_tensordot_not_numpy_dot():
    a, b = np.random.randn(2, 3, 4), np.random.randn(4, 5, 6)
    got = mx.nd.dot(mx.nd.array(a, dtype=np.float64), mx.nd.array(b, dtype=np.float64))
    assert got.shape == (2, 3, 5, 6)
    assert_almost_equal(got.asnumpy(), np.tensordot(a, b, axes=1))


def test_dot_backward_and_add():
    a, b = np.random.randn(3, 4), np.random.randn(4, 2)
    head = np.random.randn(3, 2)
    sym = mx.sym.dot(mx.sym.Variable('lhs'), mx.sym.Variable('rhs'))
    check_symbolic_backward(sym, [a, b], [head], [head @ b.T, a.T @ head], dtype=np.float64)
    check_symbolic_backward(sym, [a, b], [head], [head @ b.T, a.T @ head], grad_req='add',
                            dtype=np.float64)


def test_dot_errors():
    with pytest.raises(MXNetError, match=r'dot: shape error: \(2, 3\) X \(4, 5\)'):
        mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((4, 5)))
    with pytest.raises(MXNetError, match='cannot transpose vectors'):
        mx.nd.dot(mx.nd.ones((3,)), mx.nd.ones((3,)), transpose_a=True)


def test_dot_forward_stype_on_dense_inputs():
    # MXNet falls back to the dense kernel and returns the requested storage type
    got = mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)), forward_stype='csr')
    assert got.stype == 'csr'
    assert_almost_equal(got.asnumpy(), np.full((2, 2), 3.0))


def test_dot_float16():
    a = np.random.randn(3, 4).astype(np.float16)
    b = np.random.randn(4, 2).astype(np.float16)
    got = mx.nd.dot(mx.nd.array(a, dtype=np.float16), mx.nd.array(b, dtype=np.float16))
    assert got.dtype == np.float16
    assert_almost_equal(got.asnumpy(), a.astype(np.float32) @ b.astype(np.float32),
                        rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('ta,tb', [(False, False), (True, False), (False, True), (True, True)])
def test_batch_dot(dtype, ta, tb):
    a = np.random.randn(2, 3, 4) if not ta else np.random.randn(2, 4, 3)
    b = np.random.randn(2, 4, 5) if not tb else np.random.randn(2, 5, 4)
    sym = mx.sym.batch_dot(mx.sym.Variable('lhs'), mx.sym.Variable('rhs'), transpose_a=ta,
                           transpose_b=tb)
    op_a = np.swapaxes(a, 1, 2) if ta else a
    op_b = np.swapaxes(b, 1, 2) if tb else b
    check_symbolic_forward(sym, [a, b], [op_a @ op_b], dtype=dtype)
    numeric(sym, [a, b])


def test_batch_dot_errors():
    with pytest.raises(MXNetError, match='N >= 3'):
        mx.nd.batch_dot(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)))
    with pytest.raises(MXNetError, match='batch dimensions must be equal'):
        mx.nd.batch_dot(mx.nd.ones((2, 3, 4)), mx.nd.ones((3, 4, 2)))
    with pytest.raises(MXNetError, match='shape mismatch'):
        mx.nd.batch_dot(mx.nd.ones((2, 3, 4)), mx.nd.ones((2, 3, 2)))


@pytest.mark.parametrize('axis', [-2, 1, 0])
@pytest.mark.parametrize('ta,tb', [(False, False), (True, True)])
def test_linalg_gemm2(axis, ta, tb):
    def mat(rows, cols):
        """A batch of two matrices with rows on ``axis`` and columns on the last axis."""
        return np.random.randn(rows, 2, cols) if axis == 0 else np.random.randn(2, rows, cols)

    a = mat(4, 3) if ta else mat(3, 4)
    b = mat(5, 4) if tb else mat(4, 5)
    sym = mx.sym.linalg_gemm2(mx.sym.Variable('A'), mx.sym.Variable('B'), transpose_a=ta,
                              transpose_b=tb, alpha=2.0, axis=axis)
    assert sym.list_arguments() == ['A', 'B']
    am, bm = np.moveaxis(a, axis, -2), np.moveaxis(b, axis, -2)
    op_a = np.swapaxes(am, -1, -2) if ta else am
    op_b = np.swapaxes(bm, -1, -2) if tb else bm
    expected = np.moveaxis(2.0 * op_a @ op_b, -2, axis)
    check_symbolic_forward(sym, [a, b], [expected], dtype=np.float64)
    numeric(sym, [a, b])


def test_linalg_gemm2_mxnet_example_and_errors():
    a = mx.nd.array([[1.0, 1.0], [1.0, 1.0]])
    b = mx.nd.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    got = mx.nd.linalg_gemm2(a, b, transpose_b=True, alpha=2.0)
    assert got.asnumpy().tolist() == [[4.0] * 3] * 2
    with pytest.raises(MXNetError, match='incompatible matrix dimensions'):
        mx.nd.linalg_gemm2(a, b)
    with pytest.raises(MXNetError, match='float32 and float64'):
        mx.nd.linalg_gemm2(mx.nd.ones((2, 2), dtype=np.float16),
                           mx.nd.ones((2, 2), dtype=np.float16))
