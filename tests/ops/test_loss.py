"""Loss heads and gradient control: SoftmaxOutput, *RegressionOutput, MakeLoss, make_loss,
BlockGrad, softmax_cross_entropy.

Backward is checked three ways: against real MXNet numbers (reference cases), against
the analytic formula, and against finite differences of the loss each head stands for.
"""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward, check_symbolic_forward)

from shape_loss_reference import case_names, check_case

TESTED_OPS = {'SoftmaxOutput', 'LinearRegressionOutput', 'MAERegressionOutput',
              'LogisticRegressionOutput', 'MakeLoss', 'make_loss', 'BlockGrad',
              'softmax_cross_entropy'}


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def bind(sym, grad_req='write', **arrays):
    """Bind with gradient buffers for every argument and run forward in training mode."""
    args = {k: mx.nd.array(v, dtype=v.dtype) for k, v in arrays.items()}
    grads = {k: mx.nd.zeros(v.shape, dtype=v.dtype) for k, v in arrays.items()}
    ex = sym.bind(mx.cpu(), args=args, args_grad=grads, grad_req=grad_req)
    ex.forward(is_train=True)
    return ex


def numeric_grad(loss, x, eps=1e-6):
    """Central differences of a scalar numpy function at float64 ``x``."""
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        plus = loss(x)
        flat[i] = old - eps
        minus = loss(x)
        flat[i] = old
        gflat[i] = (plus - minus) / (2 * eps)
    return grad


# ---- real MXNet numbers ----------------------------------------------------------------
@pytest.mark.parametrize('name', case_names('SoftmaxOutput', 'LinearRegressionOutput',
                                            'MAERegressionOutput', 'LogisticRegressionOutput',
                                            'MakeLoss', 'make_loss', 'BlockGrad',
                                            'softmax_cross_entropy'))
def test_matches_mxnet_reference(name):
    check_case(name)


# ---- SoftmaxOutput ---------------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(4, 5), (3, 2, 4)])
def test_softmax_output_forward_flattens_trailing_axes(dtype, shape):
    x = np.random.randn(*shape).astype(dtype)
    data = mx.sym.Variable('data')
    sym = mx.sym.SoftmaxOutput(data, name='sm')
    expected = softmax(x.reshape(shape[0], -1), axis=1).reshape(shape)
    label = np.zeros(shape[:-1], dtype=dtype)
    check_symbolic_forward(sym, {'data': x, 'sm_label': label}, [expected], dtype=dtype)


def test_softmax_output_preserve_shape_and_multi_output_axes():
    x = np.random.randn(2, 3, 4)
    data = mx.sym.Variable('data')
    preserve = mx.sym.SoftmaxOutput(data, preserve_shape=True, name='a')
    multi = mx.sym.SoftmaxOutput(data, multi_output=True, name='b')
    check_symbolic_forward(preserve, {'data': x, 'a_label': np.zeros((2, 3))},
                           [softmax(x, axis=-1)], dtype=np.float64)
    check_symbolic_forward(multi, {'data': x, 'b_label': np.zeros((2, 4))},
                           [softmax(x, axis=1)], dtype=np.float64)


def test_softmax_output_float16_forward():
    x = np.random.randn(3, 6).astype(np.float16)
    out = mx.nd.SoftmaxOutput(mx.nd.array(x, dtype=np.float16),
                              mx.nd.array([0, 1, 2], dtype=np.float16))
    assert out.dtype == np.float16
    assert_almost_equal(out.asnumpy(), softmax(x.astype(np.float64)), rtol=1e-2, atol=1e-3)


def test_softmax_output_label_name_and_shape_inference():
    data = mx.sym.Variable('data')
    sym = mx.sym.SoftmaxOutput(data, name='softmax')
    assert sym.list_arguments() == ['data', 'softmax_label']
    assert sym.list_outputs() == ['softmax_output']
    args, outs, _ = sym.infer_shape(data=(8, 10))
    assert args == [(8, 10), (8,)] and outs == [(8, 10)]
    args, _, _ = sym.infer_shape(data=(8, 3, 5))
    assert args[1] == (8, 3)
    multi = mx.sym.SoftmaxOutput(data, multi_output=True, name='m')
    assert multi.infer_shape(data=(2, 4, 3, 5))[0][1] == (2, 15)
    for label in [(2, 15), (2, 3, 5), (2, 1, 3, 5)]:
        assert multi.infer_shape(data=(2, 4, 3, 5), m_label=label)[0][1] == label
    with pytest.raises(MXNetError, match='label'):
        multi.infer_shape(data=(2, 4, 3, 5), m_label=(2, 4))
    with pytest.raises(MXNetError, match='label'):
        sym.infer_shape(data=(8, 10), softmax_label=(7,))


def test_softmax_output_alias_softmax():
    data = mx.sym.Variable('data')
    sym = mx.sym.Softmax(data, name='s')
    assert sym.list_arguments() == ['data', 's_label']
    assert 'SoftmaxOutput' in sym.tojson()


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('normalization', ['null', 'batch', 'valid'])
@pytest.mark.parametrize('use_ignore', [False, True])
def test_softmax_output_backward_formula(dtype, normalization, use_ignore):
    x = np.random.randn(6, 4).astype(dtype)
    label = np.array([0, 3, -1, 2, 1, -1], dtype=dtype)
    sym = mx.sym.SoftmaxOutput(mx.sym.Variable('data'), name='sm', grad_scale=1.5,
                               use_ignore=use_ignore, normalization=normalization)
    p = softmax(x.astype(np.float64), axis=1)
    onehot = np.zeros_like(p)
    keep = label >= 0
    onehot[np.nonzero(keep)[0], label[keep].astype(int)] = 1
    grad = p - onehot
    if use_ignore:
        grad[~keep] = 0
    scale = {'null': 1.0, 'batch': 6.0, 'valid': float(keep.sum())}[normalization]
    expected = grad * 1.5 / scale
    # the head gradient is ignored by a loss head
    check_symbolic_backward(sym, {'data': x, 'sm_label': label}, [np.random.randn(6, 4)],
                            {'data': expected}, grad_req={'data': 'write', 'sm_label': 'null'},
                            rtol=1e-5, atol=1e-6, dtype=dtype)


def test_softmax_output_multi_output_formula():
    x = np.random.randn(2, 3, 4)
    label = np.array([[0, 2, 1, 1], [2, 0, 0, 1.0]])
    sym = mx.sym.SoftmaxOutput(mx.sym.Variable('data'), name='sm', multi_output=True,
                               normalization='batch')
    p = softmax(x, axis=1)
    onehot = np.moveaxis(np.eye(3)[label.astype(int)], -1, 1)
    expected = (p - onehot) / 4 / 2     # MXNet divides by the spatial size and the batch
    check_symbolic_backward(sym, {'data': x, 'sm_label': label}, None, {'data': expected},
                            grad_req={'data': 'write', 'sm_label': 'null'}, dtype=np.float64)


def test_softmax_output_gradient_is_cross_entropy_derivative():
    x = np.random.randn(5, 4)
    label = np.array([1, 0, 3, 2, 2.0])
    rows = np.arange(5)

    def loss(z):
        return -np.log(softmax(z, axis=1)[rows, label.astype(int)]).sum() * 0.7 / 5

    sym = mx.sym.SoftmaxOutput(mx.sym.Variable('data'), name='sm', grad_scale=0.7,
                               normalization='batch')
    ex = bind(sym, grad_req={'data': 'write', 'sm_label': 'null'}, data=x, sm_label=label)
    ex.backward()
    assert_almost_equal(ex.grad_dict['data'].asnumpy(), numeric_grad(loss, x.copy()),
                        rtol=1e-5, atol=1e-8)


def test_softmax_output_smoothing_is_smoothed_cross_entropy_derivative():
    x = np.random.randn(4, 5)
    label = np.array([1, 0, 4, 2.0])
    alpha = 0.25
    target = np.full((4, 5), alpha / 4)
    target[np.arange(4), label.astype(int)] = 1 - alpha

    def loss(z):
        return -(target * np.log(softmax(z, axis=1))).sum()

    sym = mx.sym.SoftmaxOutput(mx.sym.Variable('data'), name='sm', smooth_alpha=alpha)
    ex = bind(sym, grad_req={'data': 'write', 'sm_label': 'null'}, data=x, sm_label=label)
    ex.backward()
    assert_almost_equal(ex.grad_dict['data'].asnumpy(), numeric_grad(loss, x.copy()),
                        rtol=1e-4, atol=1e-6)


def test_softmax_output_label_gets_no_gradient_and_add_accumulates():
    x = np.random.randn(3, 4)
    label = np.array([0, 1, 2.0])
    sym = mx.sym.SoftmaxOutput(mx.sym.Variable('data'), name='sm')
    write = bind(sym, data=x, sm_label=label)
    write.backward()
    assert not write.grad_dict['sm_label'].asnumpy().any()
    expected = write.grad_dict['data'].asnumpy()
    check_symbolic_backward(sym, {'data': x, 'sm_label': label}, None, {'data': expected},
                            grad_req={'data': 'add', 'sm_label': 'null'}, dtype=np.float64)


def test_softmax_output_bad_params():
    data = mx.sym.Variable('data')
    with pytest.raises(MXNetError, match='normalization'):
        mx.sym.SoftmaxOutput(data, normalization='mean')
    with pytest.raises(MXNetError, match='smooth_alpha'):
        mx.sym.SoftmaxOutput(data, smooth_alpha=1.5)


# ---- regression heads ----------------------------------------------------------------
def _regression_loss(op, x, y, scale, m):
    if op == 'LinearRegressionOutput':
        return scale / m * 0.5 * ((x - y) ** 2).sum()
    if op == 'MAERegressionOutput':
        return scale / m * np.abs(x - y).sum()
    p = 1 / (1 + np.exp(-x))
    return -scale / m * (y * np.log(p) + (1 - y) * np.log(1 - p)).sum()


@pytest.mark.parametrize('op', ['LinearRegressionOutput', 'MAERegressionOutput',
                                'LogisticRegressionOutput'])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_regression_forward_and_loss_derivative(op, dtype):
    x = np.random.randn(4, 3)
    y = np.random.uniform(0.1, 0.9, size=(4, 3))
    sym = getattr(mx.sym, op)(mx.sym.Variable('data'), name='r', grad_scale=2.0)
    expected = 1 / (1 + np.exp(-x)) if op == 'LogisticRegressionOutput' else x
    check_symbolic_forward(sym, {'data': x, 'r_label': y}, [expected], dtype=dtype)
    ex = bind(sym, grad_req={'data': 'write', 'r_label': 'null'},
              data=x.astype(dtype), r_label=y.astype(dtype))
    ex.backward([mx.nd.array(np.random.randn(4, 3), dtype=dtype)])   # head gradient ignored
    numeric = numeric_grad(lambda z: _regression_loss(op, z, y, 2.0, 3), x.copy())
    tol = 1e-4 if dtype == np.float32 else 1e-6
    assert_almost_equal(ex.grad_dict['data'].asnumpy(), numeric, rtol=tol, atol=tol)


def test_mae_gradient_at_tie_is_minus_one():
    sym = mx.sym.MAERegressionOutput(mx.sym.Variable('data'), name='r')
    x = np.array([[1.0, 2.0]])
    check_symbolic_backward(sym, {'data': x, 'r_label': np.array([[1.0, 1.0]])}, None,
                            {'data': np.array([[-0.5, 0.5]])},
                            grad_req={'data': 'write', 'r_label': 'null'}, dtype=np.float64)


def test_regression_label_shape():
    sym = mx.sym.LinearRegressionOutput(mx.sym.Variable('data'), name='lro')
    assert sym.list_arguments() == ['data', 'lro_label']
    assert sym.infer_shape(data=(5, 1))[0][1] == (5,)
    assert sym.infer_shape(data=(5, 3))[0][1] == (5, 3)
    assert sym.infer_shape(data=(5, 3), lro_label=(5, 3, 1))[0][1] == (5, 3, 1)
    with pytest.raises(MXNetError, match='inconsistent'):
        sym.infer_shape(data=(5, 3), lro_label=(5, 2))


@pytest.mark.parametrize('op', ['LinearRegressionOutput', 'LogisticRegressionOutput'])
def test_regression_grad_req_add(op):
    x, y = np.random.randn(3, 2), np.random.rand(3, 2)
    sym = getattr(mx.sym, op)(mx.sym.Variable('data'), name='r')
    ex = bind(sym, grad_req={'data': 'write', 'r_label': 'null'}, data=x, r_label=y)
    ex.backward()
    check_symbolic_backward(sym, {'data': x, 'r_label': y}, None,
                            {'data': ex.grad_dict['data'].asnumpy()},
                            grad_req={'data': 'add', 'r_label': 'null'}, dtype=np.float64)


# ---- MakeLoss, make_loss, BlockGrad ---------------------------------------------------
@pytest.mark.parametrize('normalization,divisor', [('null', 1.0), ('batch', 6.0),
                                                    ('valid', None)])
def test_make_loss_gradient(normalization, divisor):
    x = np.random.randn(3, 2, 4)
    if divisor is None:
        divisor = float((x > 0.2).sum())
    sym = mx.sym.MakeLoss(mx.sym.Variable('data'), grad_scale=3.0, valid_thresh=0.2,
                          normalization=normalization)
    check_symbolic_forward(sym, {'data': x}, [x], dtype=np.float64)
    # d(3 * sum(x) / divisor)/dx; the head gradient is ignored
    check_symbolic_backward(sym, {'data': x}, [np.random.randn(3, 2, 4)],
                            {'data': np.full(x.shape, 3.0 / divisor)}, dtype=np.float64)


def test_make_loss_lowercase_is_a_separate_op_with_unit_gradient():
    x = np.random.randn(2, 3)
    sym = mx.sym.make_loss(mx.sym.Variable('data'))
    assert sym.list_outputs()[0].endswith('_loss')
    # MXNet accepts and ignores keywords of this parameterless operator: still unit gradient
    scaled = mx.sym.make_loss(mx.sym.Variable('data'), grad_scale=2.0)
    assert scaled.list_attr() == {'grad_scale': '2.0'}
    for loss in (sym, scaled):
        check_symbolic_backward(loss, {'data': x}, [np.random.randn(2, 3)],
                                {'data': np.ones((2, 3))}, dtype=np.float64)
    check_symbolic_backward(sym, {'data': x}, None, {'data': np.ones((2, 3))},
                            grad_req='add', dtype=np.float64)


def test_block_grad_stops_gradient_as_in_mxnet_example():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    loss = mx.sym.MakeLoss(mx.sym.stop_gradient(3 * b) + a)
    ex = bind(loss, a=np.array([[1.0, 2.0]]), b=np.array([[0.0, 1.0]]))
    assert_almost_equal(ex.outputs[0].asnumpy(), np.array([[1.0, 5.0]]))
    ex.backward()
    assert_almost_equal(ex.grad_dict['a'].asnumpy(), np.ones((1, 2)))
    assert not ex.grad_dict['b'].asnumpy().any()


def test_block_grad_forward_is_identity():
    x = np.random.randn(3, 4).astype(np.float32)
    check_symbolic_forward(mx.sym.BlockGrad(mx.sym.Variable('data')), {'data': x}, [x])


# ---- softmax_cross_entropy -------------------------------------------------------------
def test_softmax_cross_entropy_forward_mxnet_example():
    out = mx.nd.softmax_cross_entropy(mx.nd.array([[1, 2, 3], [11, 7, 5]]),
                                      mx.nd.array([2, 0]))
    assert out.shape == (1,)
    assert_almost_equal(out.asnumpy(), np.array([0.4281871]), rtol=1e-6)


def test_softmax_cross_entropy_numeric_gradient():
    data = mx.sym.Variable('data')
    sym = mx.sym.softmax_cross_entropy(data, mx.sym.Variable('label'))
    check_numeric_gradient(sym, {'data': np.random.randn(4, 5),
                                 'label': np.array([0, 4, 2, 1.0])},
                           grad_nodes=['data'], numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_softmax_cross_entropy_shape_errors():
    data, label = mx.sym.Variable('data'), mx.sym.Variable('label')
    sym = mx.sym.softmax_cross_entropy(data, label)
    assert sym.infer_shape(data=(4, 5))[0][1] == (4,)
    with pytest.raises(MXNetError, match='2-D'):
        sym.infer_shape(data=(4, 5, 2), label=(4,))
    with pytest.raises(MXNetError, match='mismatch'):
        sym.infer_shape(data=(4, 5), label=(3,))
