"""softmax, log_softmax and SoftmaxActivation against numpy formulas, finite differences
and MXNet 1.9.1's recorded results."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward)

from nn_reference import cases, run_case

TESTED_OPS = {'softmax', 'log_softmax', 'SoftmaxActivation'}


def np_softmax(x, axis=-1, temperature=1.0):
    z = x / temperature
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize('name', cases(TESTED_OPS))
def test_matches_mxnet_reference(name):
    run_case(name, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('axis', [-1, 0, 1])
@pytest.mark.parametrize('temperature', [None, 0.5, 3.0])
def test_softmax_and_log_softmax_forward(dtype, axis, temperature):
    x = (np.random.randn(3, 4, 5) * 3).astype(dtype)
    kwargs = {} if temperature is None else {'temperature': temperature}
    expected = np_softmax(x.astype(np.float64), axis, temperature or 1.0)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    y = mx.nd.softmax(mx.nd.array(x, dtype=dtype), axis=axis, **kwargs)
    assert y.dtype == dtype
    assert_almost_equal(y.asnumpy(), expected, rtol=tol, atol=tol)
    y = mx.nd.log_softmax(mx.nd.array(x, dtype=dtype), axis=axis, **kwargs)
    assert_almost_equal(y.asnumpy(), np.log(expected), rtol=tol, atol=tol)


def test_softmax_is_stable_for_large_inputs():
    x = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]], np.float32)
    assert_almost_equal(mx.nd.softmax(mx.nd.array(x)).asnumpy(),
                        np_softmax(x.astype(np.float64)))
    log = mx.nd.log_softmax(mx.nd.array(x)).asnumpy()
    assert np.all(np.isfinite(log))
    assert_almost_equal(log[1], [-2000.0, -1000.0, 0.0])


@pytest.mark.parametrize('op', ['softmax', 'log_softmax'])
@pytest.mark.parametrize('axis,temperature', [(-1, None), (0, 2.0), (1, 0.7)])
def test_softmax_numeric_gradient(op, axis, temperature):
    kwargs = {} if temperature is None else {'temperature': temperature}
    sym = getattr(mx.sym, op)(mx.sym.Variable('data'), axis=axis, **kwargs)
    check_numeric_gradient(sym, [np.random.randn(3, 4, 2)], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('op', ['softmax', 'log_softmax'])
def test_softmax_backward_add(op):
    x, dy = np.random.randn(4, 5), np.random.randn(4, 5)
    y = np_softmax(x)
    if op == 'softmax':
        expected = y * (dy - (dy * y).sum(axis=1, keepdims=True))
    else:
        expected = dy - y * dy.sum(axis=1, keepdims=True)
    sym = getattr(mx.sym, op)(mx.sym.Variable('data'))
    check_symbolic_backward(sym, [x], [dy], [expected], rtol=1e-10, atol=1e-12,
                            grad_req='add', dtype=np.float64)


def test_softmax_dtype_parameter():
    x = np.random.randn(2, 3).astype(np.float32)
    y = mx.nd.softmax(mx.nd.array(x), dtype='float64')
    assert y.dtype == np.float64
    assert_almost_equal(y.asnumpy(), np_softmax(x.astype(np.float64)), rtol=1e-6)
    sym = mx.sym.softmax(mx.sym.Variable('data'), dtype='float16')
    _, out_types, _ = sym.infer_type(data=np.float32)
    assert out_types == [np.float16]
    with pytest.raises(MXNetError, match='dtype'):
        mx.sym.softmax(mx.sym.Variable('data'), dtype='int32')


def test_softmax_use_length():
    x = np.random.randn(3, 5)
    length = np.array([2, 5, 0], np.int32)
    y = mx.nd.softmax(mx.nd.array(x, dtype=np.float64), mx.nd.array(length, dtype=np.int32),
                      axis=1, use_length=True).asnumpy()
    expected = np.zeros_like(x)
    for row, n in enumerate(length):
        if n:
            expected[row, :n] = np_softmax(x[row, :n])
    assert_almost_equal(y, expected, rtol=1e-12)
    sym = mx.sym.softmax(mx.sym.Variable('data'), mx.sym.Variable('length'), axis=1,
                         use_length=True)
    assert sym.list_arguments() == ['data', 'length']
    args, _, _ = sym.infer_shape(data=(3, 5))
    assert args == [(3, 5), (3,)]
    check_numeric_gradient(sym, {'data': x, 'length': length}, grad_nodes=['data'],
                           numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)
    with pytest.raises(MXNetError, match='use_length'):
        mx.sym.log_softmax(mx.sym.Variable('data'), use_length=True)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_softmax_activation_forward(dtype):
    x = np.random.randn(2, 3, 4).astype(dtype)
    # 'instance' normalizes each row of the last axis (MXNet flattens to 2-D that way)
    y = mx.nd.SoftmaxActivation(mx.nd.array(x, dtype=dtype)).asnumpy()
    assert_almost_equal(y, np_softmax(x.astype(np.float64), axis=-1), rtol=1e-5, atol=1e-6)
    y = mx.nd.SoftmaxActivation(mx.nd.array(x, dtype=dtype), mode='channel').asnumpy()
    assert_almost_equal(y, np_softmax(x.astype(np.float64), axis=1), rtol=1e-5, atol=1e-6)


def test_softmax_activation_gradient():
    # 2-D instance mode and channel mode: the exact derivative
    for shape, mode in [((4, 5), 'instance'), ((2, 3, 4), 'channel')]:
        sym = mx.sym.SoftmaxActivation(mx.sym.Variable('data'), mode=mode)
        check_numeric_gradient(sym, [np.random.randn(*shape)], numeric_eps=1e-6, rtol=1e-5,
                               atol=1e-8, dtype=np.float64)
    # MXNet 1.9.1 normalizes the gradient over axis 1 in both modes
    x, dy = np.random.randn(2, 3, 4), np.random.randn(2, 3, 4)
    y = np_softmax(x, axis=-1)
    expected = y * (dy - (dy * y).sum(axis=1, keepdims=True))
    sym = mx.sym.SoftmaxActivation(mx.sym.Variable('data'))
    check_symbolic_backward(sym, [x], [dy], [expected], rtol=1e-10, dtype=np.float64)


def test_softmax_activation_errors():
    with pytest.raises(MXNetError, match='3 dimensions'):
        mx.nd.SoftmaxActivation(mx.nd.ones((2, 3)), mode='channel')
    with pytest.raises(MXNetError, match='mode'):
        mx.sym.SoftmaxActivation(mx.sym.Variable('data'), mode='batch')
    with pytest.raises(MXNetError, match='axis'):
        mx.sym.softmax(mx.sym.Variable('data'), axis=2).infer_shape(data=(2, 3))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(1, 10, 1), (64, 10, 1), (4, 7, 3), (1, 1024, 1),
                                   (1, 1025, 1), (32, 200, 1), (5, 6, 40)])
def test_softmax_into_small_kernel_and_numpy_path_agree(dtype, shape):
    """softmax_into runs one numba pass up to 1024 elements and numpy's calls above: both
    match a float64 softmax, written in place too (out aliasing x)."""
    from symmod.ops.softmax import softmax_into
    x = (np.random.randn(*shape) * 4).astype(dtype)
    expected = np_softmax(x.astype(np.float64), axis=1)
    out = np.empty_like(x)
    softmax_into(x, out)
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(out, expected, rtol=tol, atol=tol)
    inplace = x.copy()
    softmax_into(inplace, inplace)
    np.testing.assert_array_equal(inplace, out)


def test_softmax_into_small_kernel_nan_and_infinite_rows():
    """NaN anywhere in a row, or a row of -inf, gives a row of NaN (as numpy's path);
    +inf beside finite values gives NaN too (inf - inf), as MXNet's kernel."""
    from symmod.ops.softmax import softmax_into
    x = np.array([[1, np.nan, 2], [np.nan, 1, 2], [-np.inf, -np.inf, -np.inf],
                  [0, 1, 2]], np.float32)[:, :, None]
    out = np.empty_like(x)
    softmax_into(x, out)
    assert np.isnan(out[:3]).all()
    np.testing.assert_allclose(out[3, :, 0], np_softmax(np.array([0., 1, 2])), rtol=1e-6)
