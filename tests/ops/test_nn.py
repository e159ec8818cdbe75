"""FullyConnected, Activation, LeakyReLU, Dropout and Embedding against numpy formulas,
finite differences and MXNet 1.9.1's recorded results."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward, check_symbolic_forward)

from nn_reference import cases, run_case

TESTED_OPS = {'FullyConnected', 'Activation', 'LeakyReLU', 'Dropout', 'Embedding'}

DTYPES = [np.float32, np.float64]
TOL = {np.float32: 1e-5, np.float64: 1e-12}


def _nd(a, dtype=None):
    return mx.nd.array(a, dtype=dtype or a.dtype)


def _away_from_zero(shape, rng=np.random):
    """Random values at least 0.05 away from 0, where the kinked activations bend."""
    x = rng.randn(*shape)
    return np.where(np.abs(x) < 0.05, 0.5, x)


@pytest.mark.parametrize('name', cases(TESTED_OPS))
def test_matches_mxnet_reference(name):
    # rrelu's mask is left unwritten by MXNet in inference: compare the output only
    run_case(name, outputs=[0] if name == 'rrelu_eval' else None)


# ---- FullyConnected --------------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape,flatten,no_bias', [
    ((4, 6), True, False), ((3, 2, 5), True, False), ((3, 2, 5), False, False),
    ((2, 3, 2, 4), False, True), ((5,), True, True)])
def test_fully_connected_forward(dtype, shape, flatten, no_bias):
    x = np.random.randn(*shape).astype(dtype)
    n_in = x.reshape(shape[0], -1).shape[1] if flatten else shape[-1]
    w = np.random.randn(7, n_in).astype(dtype)
    b = np.random.randn(7).astype(dtype)
    args = [_nd(x), _nd(w)] + ([] if no_bias else [_nd(b)])
    y = mx.nd.FullyConnected(*args, num_hidden=7, flatten=flatten, no_bias=no_bias)
    x2 = x.reshape(shape[0], -1) if flatten else x
    expected = x2 @ w.T + (0 if no_bias else b)
    assert y.dtype == dtype
    assert_almost_equal(y.asnumpy(), expected, rtol=TOL[dtype], atol=TOL[dtype] * 10)


@pytest.mark.parametrize('flatten,no_bias,shape', [(True, False, (3, 2, 4)),
                                                   (False, False, (3, 2, 4)),
                                                   (True, True, (4, 5))])
def test_fully_connected_numeric_gradient(flatten, no_bias, shape):
    sym = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, flatten=flatten,
                                no_bias=no_bias, name='fc')
    arg_shapes, _, _ = sym.infer_shape(data=shape)
    location = [np.random.randn(*s) for s in arg_shapes]
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-6, atol=1e-8,
                           dtype=np.float64)


@pytest.mark.parametrize('req', ['write', 'add'])
def test_fully_connected_backward_req(req):
    x, w, b = np.random.randn(4, 6), np.random.randn(3, 6), np.random.randn(3)
    dy = np.random.randn(4, 3)
    sym = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc')
    expected = {'data': dy @ w, 'fc_weight': dy.T @ x, 'fc_bias': dy.sum(axis=0)}
    check_symbolic_backward(sym, [x, w, b], [dy], expected, rtol=1e-10, atol=1e-10,
                            grad_req=req, dtype=np.float64)


def test_fully_connected_shape_inference():
    data = mx.sym.Variable('data')
    fc = mx.sym.FullyConnected(data, num_hidden=10, name='fc')
    args, outs, _ = fc.infer_shape(data=(4, 3, 5))
    assert args == [(4, 3, 5), (10, 15), (10,)] and outs == [(4, 10)]
    fc2 = mx.sym.FullyConnected(data, num_hidden=10, flatten=False, name='fc')
    args, outs, _ = fc2.infer_shape(data=(4, 3, 5))
    assert args == [(4, 3, 5), (10, 5), (10,)] and outs == [(4, 3, 10)]
    # backwards: the weight gives the input width, the output gives the batch
    op = registry.get('FullyConnected')({'num_hidden': '10'})
    ins, outs, _ = op.infer_shape([(0, 0), (10, 15), None], [(8, 10)], [])
    assert ins == [(8, 15), (10, 15), (10,)] and outs == [(8, 10)]


def test_fully_connected_errors():
    fc = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=10, name='fc')
    with pytest.raises(MXNetError, match='weight'):
        fc.infer_shape(data=(4, 30), fc_weight=(10, 20))
    with pytest.raises(MXNetError, match='num_hidden'):
        mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=0)
    with pytest.raises(MXNetError, match='num_hidden'):
        mx.sym.FullyConnected(mx.sym.Variable('data'))
    assert mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=2, no_bias=True,
                                 name='fc').list_arguments() == ['data', 'fc_weight']


def test_fully_connected_params_from_strings():
    op = registry.get('FullyConnected')({'num_hidden': '128', 'no_bias': 'True',
                                         'flatten': 'False'})
    assert (op.num_hidden, op.no_bias, op.flatten) == (128, True, False)
    assert op.list_arguments() == ['data', 'weight']


# ---- Activation ---------------------------------------------------------------------------
ACTIVATIONS = {
    'relu': lambda x: np.maximum(x, 0),
    'sigmoid': lambda x: 1 / (1 + np.exp(-x)),
    'tanh': np.tanh,
    'softrelu': lambda x: np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20)))),
    'softsign': lambda x: x / (1 + np.abs(x)),
}


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('act', sorted(ACTIVATIONS))
def test_activation_forward(act, dtype):
    x = (np.random.randn(3, 7) * 3).astype(dtype)
    y = mx.nd.Activation(_nd(x), act_type=act)
    assert y.dtype == dtype
    assert_almost_equal(y.asnumpy(), ACTIVATIONS[act](x.astype(np.float64)),
                        rtol=TOL[dtype] * 10, atol=TOL[dtype])


@pytest.mark.parametrize('act', sorted(ACTIVATIONS))
def test_activation_numeric_gradient(act):
    sym = mx.sym.Activation(mx.sym.Variable('data'), act_type=act)
    check_numeric_gradient(sym, [_away_from_zero((3, 5)) * 2], numeric_eps=1e-6,
                           rtol=1e-5, atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('act', sorted(ACTIVATIONS))
def test_activation_backward_add(act):
    x = _away_from_zero((4, 3))
    dy = np.random.randn(4, 3)
    eps = 1e-6
    slope = (ACTIVATIONS[act](x + eps) - ACTIVATIONS[act](x - eps)) / (2 * eps)
    sym = mx.sym.Activation(mx.sym.Variable('data'), act_type=act)
    check_symbolic_backward(sym, [x], [dy], [dy * slope], rtol=1e-6, atol=1e-8,
                            grad_req='add', dtype=np.float64)


@pytest.mark.parametrize('req', ['write', 'add'])
@pytest.mark.parametrize('act', ['relu', 'sigmoid', 'tanh'])
def test_activation_backward_large_arrays(act, req):
    # past the size where the fused slope kernel runs on numba's threads
    x = np.random.randn(3, 70001).astype(np.float32)
    dy = np.random.randn(3, 70001).astype(np.float32)
    x64 = x.astype(np.float64)
    y = ACTIVATIONS[act](x64)
    slope = {'relu': x64 > 0, 'sigmoid': y * (1 - y), 'tanh': 1 - y * y}[act]
    sym = mx.sym.Activation(mx.sym.Variable('data'), act_type=act)
    check_symbolic_backward(sym, [x], [dy], [dy * slope], rtol=1e-5, atol=1e-6,
                            grad_req=req, dtype=np.float32)


def test_activation_softrelu_large_inputs_do_not_overflow():
    x = np.array([-100, 25, 100, 1000], np.float32)
    y = mx.nd.Activation(_nd(x), act_type='softrelu').asnumpy()
    assert np.all(np.isfinite(y))
    assert_almost_equal(y, [np.log1p(np.exp(-100)), 25, 100, 1000])


def test_activation_memory_flags_and_errors():
    relu = registry.get('Activation')({'act_type': 'relu'})
    assert not relu.backward_uses_inputs and relu.backward_uses_outputs
    softsign = registry.get('Activation')({'act_type': 'softsign'})
    assert softsign.backward_uses_inputs
    with pytest.raises(MXNetError, match='act_type'):
        mx.sym.Activation(mx.sym.Variable('data'), act_type='swish')
    with pytest.raises(MXNetError, match='act_type'):
        mx.sym.Activation(mx.sym.Variable('data'))


# ---- LeakyReLU ----------------------------------------------------------------------------
SELU_ALPHA, SELU_LAMBDA = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _gelu(x):
    from math import erf
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


LEAKY = {
    'leaky': lambda x, s: np.where(x > 0, x, s * x),
    'elu': lambda x, s: np.where(x > 0, x, s * np.expm1(x)),
    'selu': lambda x, s: SELU_LAMBDA * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)),
    'gelu': lambda x, s: _gelu(x),
}


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('act', sorted(LEAKY))
def test_leaky_relu_forward(act, dtype):
    x = (np.random.randn(2, 3, 4) * 2).astype(dtype)
    y = mx.nd.LeakyReLU(_nd(x), act_type=act, slope=0.3)
    assert_almost_equal(y.asnumpy(), LEAKY[act](x.astype(np.float64), 0.3),
                        rtol=TOL[dtype] * 10, atol=TOL[dtype])


@pytest.mark.parametrize('act', ['leaky', 'elu', 'gelu'])
def test_leaky_relu_numeric_gradient(act):
    sym = mx.sym.LeakyReLU(mx.sym.Variable('data'), act_type=act, slope=0.2)
    check_numeric_gradient(sym, [_away_from_zero((3, 4)) * 2], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


def test_selu_gradient_is_mxnets():
    # MXNet 1.9.1 computes lambda * (alpha + y) for x <= 0 (the exact derivative is
    # y + lambda * alpha); on the positive side both are lambda
    x = np.array([-2.0, -0.5, 0.5, 1.5])
    y = LEAKY['selu'](x, None)
    dy = np.random.randn(4)
    expected = dy * SELU_LAMBDA * np.where(x > 0, 1, SELU_ALPHA + y)
    sym = mx.sym.LeakyReLU(mx.sym.Variable('data'), act_type='selu')
    check_symbolic_backward(sym, [x], [dy], [expected], rtol=1e-10, dtype=np.float64)
    check_numeric_gradient(sym, [np.abs(x) + 0.1], numeric_eps=1e-6, rtol=1e-6,
                           dtype=np.float64)


@pytest.mark.parametrize('gamma_shape', [(3,), (1,)])
def test_prelu(gamma_shape):
    x = _away_from_zero((2, 3, 4, 2))
    gamma = np.random.rand(*gamma_shape) + 0.1
    g = gamma.reshape((1, -1, 1, 1))
    y = mx.nd.LeakyReLU(_nd(x), _nd(gamma), act_type='prelu')
    assert_almost_equal(y.asnumpy(), np.where(x > 0, x, g * x), rtol=1e-12)
    sym = mx.sym.LeakyReLU(mx.sym.Variable('data'), act_type='prelu', name='p')
    check_numeric_gradient(sym, [x, gamma], numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_prelu_gamma_variable_and_shape():
    sym = mx.sym.LeakyReLU(mx.sym.Variable('data'), act_type='prelu', name='p')
    assert sym.list_arguments() == ['data', 'p_gamma']
    gamma_var = sym.get_internals()['p_gamma']
    assert gamma_var.attr('__init__') == '["Constant", {"value": 0.25}]'
    args, outs, _ = sym.infer_shape(data=(2, 5, 3))
    assert args == [(2, 5, 3), (5,)] and outs == [(2, 5, 3)]
    with pytest.raises(MXNetError, match='gamma'):
        mx.nd.LeakyReLU(mx.nd.ones((2, 3)), mx.nd.ones((4,)), act_type='prelu')


def test_rrelu_training_and_inference():
    x = np.random.randn(50, 40).astype(np.float32)
    sym = mx.sym.LeakyReLU(mx.sym.Variable('data'), act_type='rrelu', lower_bound=0.1,
                           upper_bound=0.3, name='r')
    assert sym.list_outputs() == ['r_output', 'r_mask']
    ex = sym.simple_bind(mx.cpu(), data=x.shape)
    out, mask = [o.asnumpy() for o in ex.forward(is_train=True, data=x)]
    assert mask.min() >= 0.1 and mask.max() < 0.3 and mask.std() > 0.03
    assert_almost_equal(out, np.where(x > 0, x, x * mask))
    dy = np.random.randn(*x.shape).astype(np.float32)
    ex.backward([mx.nd.array(dy), mx.nd.zeros(x.shape)])
    assert_almost_equal(ex.grad_dict['data'].asnumpy(), dy * np.where(x > 0, 1, mask))
    out, _ = [o.asnumpy() for o in ex.forward(is_train=False, data=x)]
    assert_almost_equal(out, np.where(x > 0, x, x * np.float32(0.2)))


def test_leaky_relu_errors():
    with pytest.raises(MXNetError, match='act_type'):
        mx.sym.LeakyReLU(mx.sym.Variable('data'), act_type='swish')
    assert registry.get('LeakyReLU')({}).act_type == 'leaky'


# ---- Dropout ------------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
def test_dropout_training_scales_kept_values(dtype):
    x = np.random.rand(200, 100).astype(dtype) + 1
    sym = mx.sym.Dropout(mx.sym.Variable('data'), p=0.3)
    ex = sym.simple_bind(mx.cpu(), data=x.shape, type_dict={'data': dtype})
    y = ex.forward(is_train=True, data=x)[0].asnumpy()
    kept = y != 0
    # MXNet computes the keep scale 1 / (1 - p) in float32, whatever the data type
    scale = dtype(np.float32(1) / (np.float32(1) - np.float32(0.3)))
    assert_almost_equal(y[kept], x[kept] * scale, rtol=TOL[dtype])
    assert abs(kept.mean() - 0.7) < 0.02
    dy = np.random.randn(*x.shape).astype(dtype)
    ex.backward(mx.nd.array(dy, dtype=dtype))
    assert_almost_equal(ex.grad_dict['data'].asnumpy(), np.where(kept, dy * scale, 0),
                        rtol=TOL[dtype])


def test_dropout_inference_and_modes():
    x = np.random.randn(30, 40).astype(np.float32)
    sym = mx.sym.Dropout(mx.sym.Variable('data'), p=0.5, name='drop')
    assert sym.list_outputs() == ['drop_output']
    check_symbolic_forward(sym, [x], [x])
    always = mx.sym.Dropout(mx.sym.Variable('data'), p=0.5, mode='always')
    y = mx.nd.Dropout(mx.nd.array(x), p=0.5, mode='always').asnumpy()
    assert 0.3 < (y == 0).mean() < 0.7
    ex = always.simple_bind(mx.cpu(), data=x.shape)
    assert (ex.forward(is_train=False, data=x)[0].asnumpy() == 0).any()
    # identity in inference, also for its gradient
    ex = sym.simple_bind(mx.cpu(), data=x.shape)
    ex.forward(is_train=False, data=x)
    dy = np.random.randn(*x.shape).astype(np.float32)
    ex.backward(mx.nd.array(dy))
    assert_almost_equal(ex.grad_dict['data'].asnumpy(), dy)


def test_dropout_axes_share_the_mask():
    x = np.ones((4, 6, 5), np.float32)
    y = mx.nd.Dropout(mx.nd.array(x), p=0.5, axes=(1,), mode='always').asnumpy()
    assert np.all(y == y[:, :1, :])
    op = registry.get('Dropout')({'axes': '(1,)'})
    _, outs, _ = op.infer_shape([(4, 6, 5)], [None, None], [])
    assert outs == [(4, 6, 5), (4, 1, 5)]


def test_dropout_seed_repeats_and_p_limits():
    x = mx.nd.ones((10, 10))
    mx.random.seed(7)
    a = mx.nd.Dropout(x, p=0.4, mode='always').asnumpy()
    mx.random.seed(7)
    b = mx.nd.Dropout(x, p=0.4, mode='always').asnumpy()
    assert np.array_equal(a, b)
    assert np.array_equal(mx.nd.Dropout(x, p=0.0, mode='always').asnumpy(), x.asnumpy())
    assert np.all(np.isnan(mx.nd.Dropout(x, p=1.0, mode='always').asnumpy()))   # as MXNet
    with pytest.raises(MXNetError, match='p must be'):
        mx.sym.Dropout(mx.sym.Variable('data'), p=1.5)
    with pytest.raises(MXNetError, match='mode'):
        mx.sym.Dropout(mx.sym.Variable('data'), mode='sometimes')


# ---- Embedding ----------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
def test_embedding_forward_clips_and_truncates(dtype):
    weight = np.random.randn(6, 4).astype(dtype)
    data = np.array([[0, 5, 9], [-3, 2.9, 1]], np.float32)
    y = mx.nd.Embedding(mx.nd.array(data), _nd(weight), input_dim=6, output_dim=4)
    rows = np.clip(data.astype(np.int64), 0, 5)
    assert y.dtype == dtype and y.shape == (2, 3, 4)
    assert np.array_equal(y.asnumpy(), weight[rows])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('req', ['write', 'add'])
def test_embedding_weight_gradient(dtype, req):
    data = np.random.randint(-1, 9, size=(5, 7)).astype(np.float32)
    weight = np.random.randn(8, 3)
    dy = np.random.randn(5, 7, 3)
    expected = np.zeros((8, 3))
    np.add.at(expected, np.clip(data.astype(int), 0, 7).ravel(), dy.reshape(-1, 3))
    sym = mx.sym.Embedding(mx.sym.Variable('data'), input_dim=8, output_dim=3, name='e')
    check_symbolic_backward(sym, {'data': data, 'e_weight': weight}, [dy],
                            {'e_weight': expected}, rtol=TOL[dtype] * 10,
                            atol=TOL[dtype] * 10, grad_req={'data': 'null', 'e_weight': req},
                            dtype=dtype)


def test_embedding_numeric_gradient_and_data_gradient_refused():
    sym = mx.sym.Embedding(mx.sym.Variable('data'), input_dim=5, output_dim=2, name='e')
    location = {'data': np.array([[1, 4], [0, 1]]), 'e_weight': np.random.randn(5, 2)}
    check_numeric_gradient(sym, location, grad_nodes=['e_weight'], numeric_eps=1e-6,
                           rtol=1e-6, dtype=np.float64)
    ex = sym.simple_bind(mx.cpu(), data=(2, 2), grad_req='write')
    ex.forward(is_train=True)
    with pytest.raises(MXNetError, match='data gradient'):
        ex.backward(mx.nd.ones((2, 2, 2)))


def test_embedding_shapes_types_and_params():
    sym = mx.sym.Embedding(mx.sym.Variable('data'), input_dim=10, output_dim=4, name='e')
    args, outs, _ = sym.infer_shape(data=(3, 5))
    assert args == [(3, 5), (10, 4)] and outs == [(3, 5, 4)]
    sym64 = mx.sym.Embedding(mx.sym.Variable('data'), input_dim=10, output_dim=4,
                             dtype='float64', name='e')
    arg_types, out_types, _ = sym64.infer_type(data=np.int32)
    assert arg_types == [np.int32, np.float64] and out_types == [np.float64]
    sparse = mx.sym.Embedding(mx.sym.Variable('data'), input_dim=3, output_dim=2,
                              sparse_grad=True, name='e')
    assert sparse.attr_dict()['e']['sparse_grad'] == 'True'
    with pytest.raises(MXNetError, match='weight'):
        sym.infer_shape(data=(3, 5), e_weight=(10, 5))
