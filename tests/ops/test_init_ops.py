"""Creation operators without inputs: _zeros, _zeros_without_dtype, _ones, _full,
_arange, _eye."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import assert_almost_equal, simple_forward

TESTED_OPS = {'_zeros', '_zeros_without_dtype', '_ones', '_full', '_arange', '_eye',
              '_contrib_arange_like'}
DATA = os.path.join(os.path.dirname(__file__), '..', 'data')


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'int32', 'uint8', 'bool'])
def test_zeros_ones_full(dtype):
    for op, expected in [('_zeros', 0), ('_ones', 1), ('_full', 3)]:
        kwargs = {'value': 3} if op == '_full' else {}
        out = getattr(mx.nd._internal, op)(shape=(2, 3), dtype=dtype, **kwargs)
        assert out.shape == (2, 3) and out.dtype == np.dtype(dtype)
        assert (out.asnumpy() == np.array(expected).astype(dtype)).all()


def test_default_dtype_is_float32_and_nd_namespace():
    out = mx.nd._zeros(shape=(2, 3))
    assert out.dtype == np.float32 and out.shape == (2, 3)
    assert mx.nd._full(shape=(2,), value=2.5).asnumpy().tolist() == [2.5, 2.5]
    assert mx.nd._ones(shape=(1,), ctx=mx.cpu()).asnumpy().tolist() == [1.0]


def test_symbol_has_no_arguments_and_infers_from_params():
    sym = mx.sym._internal._zeros(shape=(2, 3), dtype='float64')
    assert sym.list_arguments() == []
    _, outs, _ = sym.infer_shape()
    assert outs == [(2, 3)]
    assert sym.infer_type()[1] == [np.float64]
    assert (simple_forward(sym) == 0).all()
    both = mx.sym.Variable('x') + mx.sym._internal._ones(shape=(2, 2))
    got = simple_forward(both, x=np.full((2, 2), 4.0, dtype=np.float32))
    assert_almost_equal(got, np.full((2, 2), 5.0))


def test_zeros_without_dtype_takes_dtype_from_use():
    sym = mx.sym.Variable('x') + mx.sym._internal._zeros_without_dtype(shape=(3,))
    assert sym.infer_type(x=np.float64)[1] == [np.float64]
    got = simple_forward(sym, x=np.arange(3.0))
    assert_almost_equal(got, np.arange(3.0))


@pytest.mark.parametrize('kwargs,expected', [
    ({'start': 2}, [0, 1]),
    ({'start': 0.5, 'stop': 3, 'step': 0.7, 'repeat': 2},
     [0.5, 0.5, 1.2, 1.2, 1.9, 1.9, 2.6, 2.6]),
    ({'start': 5, 'stop': 1, 'step': -1.5}, [5, 3.5, 2]),
    ({'start': 1, 'stop': 4, 'dtype': 'int32'}, [1, 2, 3]),
])
def test_arange(kwargs, expected):
    out = mx.nd._internal._arange(**kwargs)
    assert out.dtype == np.dtype(kwargs.get('dtype', 'float32'))
    assert_almost_equal(out.asnumpy().astype(np.float64), np.array(expected, dtype=np.float64),
                        rtol=1e-6, atol=1e-6)


def test_arange_errors():
    with pytest.raises(MXNetError, match=r'invalid range \(start, stop, step\) = \(3.0, 1.0'):
        mx.nd._internal._arange(start=3, stop=1)
    with pytest.raises(MXNetError, match='step=0'):
        mx.nd._internal._arange(start=0, stop=3, step=0)
    with pytest.raises(MXNetError, match='repeat > 0'):
        mx.nd._internal._arange(start=0, stop=3, repeat=0)


def test_nd_arange_casts_start_and_step_to_the_dtype_first():
    # values from MXNet 1.9.1: int(1.3) = 1 is the start and the step; uint8 wraps around
    assert mx.nd.arange(1.3, 10, 1.3, dtype='int32').asnumpy().tolist() == [1, 2, 3, 4, 5, 6, 7]
    assert mx.nd.arange(1.3, 10, 1.3, repeat=2, dtype='int32').asnumpy().tolist() == \
        [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]
    np.testing.assert_array_equal(mx.nd.arange(50, -50, -2, dtype='uint8').asnumpy(),
                                  np.arange(50, -50, -2) % 256)
    with pytest.raises(MXNetError, match='invalid range'):
        mx.nd.arange(50, -50, 2)
    with pytest.warns(DeprecationWarning, match='infer_range'):
        mx.nd.arange(3, infer_range=False)


def test_nd_arange_float16_computes_the_intended_values():
    # MXNet 1.9.1 bug, not reproduced: its kernel truncates start and step to integers for
    # its half type (arange(0, 2, 0.5, dtype='float16') is [0, 0, 0, 0] there)
    assert mx.nd.arange(0, 2, 0.5, dtype='float16').asnumpy().tolist() == [0, 0.5, 1, 1.5]
    assert mx.nd.arange(1.5, 4, 1, dtype='float16').asnumpy().tolist() == [1.5, 2.5, 3.5]


_LIKE = np.load(os.path.join(DATA, 'arange_like_reference.npz'))
_LIKE_CASES = sorted({k.split('__')[0] for k in _LIKE.files})


@pytest.mark.parametrize('name', _LIKE_CASES)
def test_arange_like_matches_mxnet(name):
    """tests/data/gen/gen_arange_like_reference.py: real MXNet 1.9.1's values."""
    params = json.loads(str(_LIKE[name + '__params']))
    shape, dtype = tuple(_LIKE[name + '__shape']), str(_LIKE[name + '__dtype'])
    data = mx.nd.array(np.random.rand(*shape), dtype=dtype)
    got = mx.nd.contrib.arange_like(data, **params)
    expected = _LIKE[name + '__out']
    if dtype == 'float16':
        # MXNet 1.9.1 truncates start and step to integers for float16 (a bug, see
        # test_nd_arange_float16_computes_the_intended_values): its values are the
        # integer ones; symmod's are start + i * step rounded to float16
        mxnet_values = (int(params.get('start', 0)) + np.arange(expected.size) //
                        params.get('repeat', 1) * int(params.get('step', 1)))
        np.testing.assert_array_equal(expected.ravel(), mxnet_values.astype(np.float16))
        start, step = np.float16(params.get('start', 0)), np.float16(params.get('step', 1))
        positions = (np.arange(expected.size) // params.get('repeat', 1)).astype(np.float16)
        expected = (start + positions * step).reshape(expected.shape)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got.asnumpy(), expected)
    sym = mx.sym.contrib.arange_like(mx.sym.var('x'), **params)
    assert sym.infer_shape(x=shape)[1] == [expected.shape]
    assert sym.infer_type(x=dtype)[1] == [np.dtype(dtype)]
    bound = sym.bind(mx.cpu(), {'x': data})
    np.testing.assert_array_equal(bound.forward()[0].asnumpy(), expected)


def test_arange_like_gradient_is_zero_and_errors():
    x = mx.nd.array(np.random.rand(3, 4))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.arange_like(x, axis=1) * 2
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.zeros((3, 4)))
    with pytest.raises(MXNetError, match='axis 2 is out of range'):
        mx.nd.contrib.arange_like(x, axis=2)
    with pytest.raises(MXNetError, match='repeat > 0'):
        mx.nd.contrib.arange_like(x, repeat=0)


def test_arange_infer_range_takes_length_from_output():
    sym = mx.sym.Variable('x') + mx.sym._internal._arange(start=1, step=2, infer_range=True)
    _, outs, _ = sym.infer_shape(x=(4,))
    assert outs == [(4,)]
    got = simple_forward(sym, x=np.zeros(4, dtype=np.float32))
    assert_almost_equal(got, np.array([1.0, 3.0, 5.0, 7.0]))


@pytest.mark.parametrize('n,m,k', [(3, 0, 0), (3, 4, -1), (2, 5, 2), (4, 2, 3)])
def test_eye(n, m, k):
    out = mx.nd._internal._eye(N=n, M=m, k=k)
    assert out.dtype == np.float32
    assert_almost_equal(out.asnumpy(), np.eye(n, m or n, k))


def test_bad_params():
    with pytest.raises(MXNetError, match='value'):
        mx.nd._internal._full(shape=(2,))
    with pytest.raises(MXNetError, match='dtype'):
        mx.nd._internal._zeros(shape=(2,), dtype='float7')
