"""Joining and splitting: Concat, SliceChannel (split), stack."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward, check_symbolic_forward)

from shape_loss_reference import case_names, check_case

TESTED_OPS = {'Concat', 'SliceChannel', 'stack'}

DTYPES = [np.float32, np.float64]


def numeric(sym, location, **kwargs):
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64, **kwargs)


@pytest.mark.parametrize('name', case_names('Concat', 'stack', 'SliceChannel'))
def test_matches_mxnet_reference(name):
    check_case(name)


# ---- Concat -------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('dim', [0, 1, -1])
def test_concat(dtype, dim):
    shapes = {0: [(1, 3, 2), (2, 3, 2)], 1: [(2, 1, 2), (2, 4, 2)], -1: [(2, 3, 1), (2, 3, 3)]}
    arrays = [np.random.randn(*s).astype(dtype) for s in shapes[dim]]
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    sym = mx.sym.Concat(a, b, dim=dim)
    assert sym.list_arguments() == ['a', 'b']
    expected = np.concatenate(arrays, axis=dim)
    check_symbolic_forward(sym, arrays, [expected], dtype=dtype)
    head = np.random.randn(*expected.shape)
    split = np.split(head, [arrays[0].shape[dim]], axis=dim)
    check_symbolic_backward(sym, arrays, [head], split, grad_req='add', dtype=dtype)
    numeric(sym, arrays)


def test_concat_argument_names_and_shape_inference():
    data = [mx.sym.Variable('x%d' % i) for i in range(3)]
    sym = mx.sym.concat(*data, dim=1, name='cat')
    assert sym.list_outputs() == ['cat_output']
    args, outs, _ = sym.infer_shape(x0=(2, 3), x1=(2, 4), x2=(2, 1))
    assert outs == [(2, 8)]
    # the other dimensions are filled from the other inputs; the concat axis is not
    args, outs, _ = sym.infer_shape_partial(x0=(2, 3), x1=(0, 4), x2=(0, 0))
    assert args == [(2, 3), (2, 4), (2, 0)] and outs == [(2, 0)]
    auto = mx.sym.Concat(mx.sym.Variable('p'), mx.sym.Variable('q'))
    assert '"num_args": "2"' in auto.tojson()


def test_concat_errors():
    with pytest.raises(MXNetError, match='incompatible'):
        mx.nd.concat(mx.nd.ones((2, 3)), mx.nd.ones((3, 3)), dim=1)
    with pytest.raises(MXNetError, match='out of bounds'):
        mx.nd.concat(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)), dim=2)
    with pytest.raises(MXNetError, match='Non-uniform data type'):
        mx.nd.concat(mx.nd.ones((2, 3)), mx.nd.ones((2, 3), dtype=np.float64))


# ---- SliceChannel ------------------------------------------------------------------------
@pytest.mark.parametrize('axis,squeeze', [(1, False), (0, False), (-1, False), (1, True)])
def test_slice_channel(axis, squeeze):
    x = np.random.randn(3, 3, 3)
    sym = mx.sym.SliceChannel(mx.sym.Variable('data'), num_outputs=3, axis=axis,
                              squeeze_axis=squeeze, name='sp')
    assert sym.list_outputs() == ['sp_output0', 'sp_output1', 'sp_output2']
    parts = np.split(x, 3, axis=axis)
    if squeeze:
        parts = [p.squeeze(axis) for p in parts]
    check_symbolic_forward(sym, [x], parts, dtype=np.float64)
    heads = [np.random.randn(*p.shape) for p in parts]
    full = np.concatenate([h.reshape(np.split(x, 3, axis=axis)[0].shape) for h in heads],
                          axis=axis)
    check_symbolic_backward(sym, [x], heads, [full], dtype=np.float64)
    numeric(sym[1], [x])


def test_split_alias_shapes_and_errors():
    parts = mx.nd.split(mx.nd.zeros((2, 6, 4)), num_outputs=3)
    assert [p.shape for p in parts] == [(2, 2, 4)] * 3
    sym = mx.sym.split(mx.sym.Variable('x'), num_outputs=2, axis=1, squeeze_axis=True)
    assert sym.infer_shape(x=(4, 2, 5))[1] == [(4, 5), (4, 5)]
    with pytest.raises(MXNetError, match='does not evenly divide 3'):
        mx.nd.split(mx.nd.zeros((2, 3, 4)), num_outputs=2, axis=1)
    with pytest.raises(MXNetError, match='squeeze_axis is True'):
        mx.nd.split(mx.nd.zeros((2, 4)), num_outputs=2, axis=1, squeeze_axis=True)


def test_slice_channel_unused_output_gets_zero_gradient():
    x = np.random.randn(2, 4)
    parts = mx.sym.SliceChannel(mx.sym.Variable('data'), num_outputs=2)
    sym = mx.sym.MakeLoss(parts[1])
    ex = sym.bind(mx.cpu(), args={'data': mx.nd.array(x, dtype=np.float64)},
                  args_grad={'data': mx.nd.ones((2, 4), dtype=np.float64)})
    ex.forward(is_train=True)
    ex.backward()
    assert_almost_equal(ex.grad_dict['data'].asnumpy(),
                        np.array([[0, 0, 1, 1], [0, 0, 1, 1.0]]))


# ---- stack --------------------------------------------------------------------------
@pytest.mark.parametrize('axis', [0, 1, 2, -1])
def test_stack(axis):
    arrays = [np.random.randn(2, 3) for _ in range(3)]
    sym = mx.sym.stack(*[mx.sym.Variable('v%d' % i) for i in range(3)], axis=axis)
    expected = np.stack(arrays, axis=axis)
    check_symbolic_forward(sym, arrays, [expected], dtype=np.float64)
    head = np.random.randn(*expected.shape)
    check_symbolic_backward(sym, arrays, [head], [np.take(head, i, axis=axis) for i in range(3)],
                            dtype=np.float64)
    numeric(sym, arrays)


def test_stack_shape_mismatch():
    with pytest.raises(MXNetError, match='same shape'):
        mx.nd.stack(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)))
