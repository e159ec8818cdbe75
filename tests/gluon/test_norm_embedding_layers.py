"""gluon.nn Embedding, LayerNorm, InstanceNorm, GroupNorm and the activation layers
(PReLU, ELU, SELU, GELU, Swish): against MXNet 1.9.1's numbers
(tests/data/gluon_layers_reference.npz), numpy formulas and finite differences."""
import math

import numpy as np
import pytest

import symmod as mx
from symmod import autograd
from symmod.base import MXNetError
from symmod.gluon import nn

from gluon_layer_cases import (REF, case_keys, check_against_reference, check_gradients,
                               run_case)

NORMS = ('LayerNorm', 'InstanceNorm', 'GroupNorm')
ACTIVATIONS = ('PReLU', 'ELU', 'SELU', 'GELU', 'Swish')


SELU_LAMBDA = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-2, 2, shape).astype(np.float32)


# ---- numpy references ----------------------------------------------------------------
def np_normalize(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def np_layer_norm(x, gamma, beta, axis, eps):
    shape = [1] * x.ndim
    shape[axis] = -1
    return np_normalize(x, (axis,), eps) * gamma.reshape(shape) + beta.reshape(shape)


def np_instance_norm(x, gamma, beta, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    normed = np_normalize(x, tuple(range(2, x.ndim)), eps)
    return normed * gamma.reshape(shape) + beta.reshape(shape)


def np_group_norm(x, gamma, beta, groups, eps):
    grouped = x.reshape(x.shape[0], groups, -1)
    normed = np_normalize(grouped, (2,), eps)
    return (normed * gamma[None, :, None] + beta[None, :, None]).reshape(x.shape)


def np_gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


# ---- MXNet's numbers ------------------------------------------------------------------
@pytest.mark.parametrize('hybridize', [False, True])
@pytest.mark.parametrize('key', case_keys(('Embedding',) + NORMS + ACTIVATIONS))
def test_matches_mxnet(key, hybridize):
    check_against_reference(key, hybridize)


def test_reference_file_covers_every_layer():
    for cls in ('Embedding',) + NORMS + ACTIVATIONS:
        assert case_keys((cls,)), cls


# ---- Embedding ------------------------------------------------------------------------
def test_embedding_forward_and_weight_gradient():
    emb = nn.Embedding(6, 3, prefix='e_')
    assert list(emb.params.keys()) == ['e_weight'] and emb.weight.shape == (6, 3)
    emb.initialize(mx.init.Uniform(1.0))
    idx = np.array([[0, 5, 2], [2, 2, 1]], dtype=np.float32)
    head = rand(2, 3, 3, seed=1)
    with autograd.record():
        out = emb(mx.nd.array(idx))
    out.backward(mx.nd.array(head))
    table = emb.weight.data().asnumpy()
    np.testing.assert_array_equal(out.asnumpy(), table[idx.astype(int)])
    expected = np.zeros_like(table)
    np.add.at(expected, idx.astype(int).ravel(), head.reshape(-1, 3))
    np.testing.assert_allclose(emb.weight.grad().asnumpy(), expected, rtol=1e-6)


def test_embedding_clips_out_of_range_indices():
    emb = nn.Embedding(3, 1, weight_initializer=mx.init.Constant(0))
    emb.initialize()
    emb.weight.set_data(mx.nd.array([[0.], [1.], [2.]]))
    # as MXNet: below 0 reads row 0, past the end the last row, fractions are cut
    np.testing.assert_array_equal(emb(mx.nd.array([-1, 5, 1.7])).asnumpy().ravel(),
                                  [0, 2, 1])


def test_embedding_dtype_repr_and_sparse_grad():
    emb = nn.Embedding(4, 2, dtype='float64')
    emb.initialize()
    assert emb(mx.nd.array([1, 3])).dtype == np.float64
    assert repr(emb) == 'Embedding(4 -> 2, float64)'
    sparse = nn.Embedding(4, 2, sparse_grad=True)
    sparse.initialize()
    assert sparse.weight.grad().stype == 'row_sparse'    # tests/gluon/test_sparse_trainer.py


# ---- normalization layers --------------------------------------------------------------
@pytest.mark.parametrize('axis,shape', [(-1, (2, 3, 5)), (1, (3, 4, 2)), (0, (4, 3))])
def test_layer_norm_matches_numpy(axis, shape):
    norm = nn.LayerNorm(axis=axis, epsilon=1e-4, gamma_initializer=mx.init.Uniform(1.0),
                        beta_initializer=mx.init.Uniform(1.0))
    norm.initialize()
    x = rand(*shape, seed=2)
    out = norm(mx.nd.array(x)).asnumpy()
    assert norm.gamma.shape == (shape[axis],)
    expected = np_layer_norm(x, norm.gamma.data().asnumpy(), norm.beta.data().asnumpy(),
                             axis, 1e-4)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('axis,shape', [(1, (2, 3, 5)), (1, (2, 2, 3, 4)), (2, (2, 3, 4, 2))])
def test_instance_norm_matches_numpy(axis, shape):
    norm = nn.InstanceNorm(axis=axis, scale=True, gamma_initializer=mx.init.Uniform(1.0),
                           beta_initializer=mx.init.Uniform(1.0))
    norm.initialize()
    x = rand(*shape, seed=3)
    out = norm(mx.nd.array(x)).asnumpy()
    gamma, beta = norm.gamma.data().asnumpy(), norm.beta.data().asnumpy()
    assert gamma.shape == (shape[axis],)
    expected = np.swapaxes(np_instance_norm(np.swapaxes(x, 1, axis), gamma, beta, 1e-5),
                           1, axis)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('groups,shape', [(1, (2, 3, 4)), (2, (2, 4, 3, 2)), (3, (1, 6, 5))])
def test_group_norm_matches_numpy(groups, shape):
    norm = nn.GroupNorm(num_groups=groups, gamma_initializer=mx.init.Uniform(1.0),
                        beta_initializer=mx.init.Uniform(1.0))
    norm.initialize()
    x = rand(*shape, seed=4)
    out = norm(mx.nd.array(x)).asnumpy()
    gamma, beta = norm.gamma.data().asnumpy(), norm.beta.data().asnumpy()
    assert gamma.shape == (groups,)
    np.testing.assert_allclose(out, np_group_norm(x, gamma, beta, groups, 1e-5),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('make,shape', [
    (lambda: nn.LayerNorm(), (2, 4)),
    (lambda: nn.LayerNorm(axis=1, center=False), (2, 3, 2)),
    (lambda: nn.InstanceNorm(scale=True), (2, 2, 3)),
    (lambda: nn.InstanceNorm(axis=2, scale=True), (1, 2, 3, 2)),
    (lambda: nn.GroupNorm(num_groups=2), (2, 4, 2)),
])
def test_norm_gradients_match_finite_differences(make, shape):
    layer = make()
    layer.initialize(mx.init.Uniform(1.0))
    check_gradients(layer, np.random.RandomState(7).uniform(-1, 1, shape), rtol=1e-4,
                    atol=1e-6)


def test_norm_parameters_and_repr_before_first_batch():
    ln = nn.LayerNorm(prefix='ln_')
    assert list(ln.params.keys()) == ['ln_gamma', 'ln_beta'] and ln.gamma.shape == (0,)
    assert repr(ln) == 'LayerNorm(eps=1e-05, axis=-1, center=True, scale=True, in_channels=0)'
    inorm = nn.InstanceNorm(in_channels=3)
    assert inorm.gamma.grad_req == 'null' and inorm.beta.grad_req == 'write'
    gn = nn.GroupNorm(num_groups=4, center=False)
    assert gn.gamma.shape == (4,) and gn.beta.grad_req == 'null'
    assert repr(gn) == 'GroupNorm(eps=1e-05, num_groups=4, center=False, scale=True)'


def test_norm_layers_hybridize_and_export(tmp_path):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.LayerNorm(axis=1), nn.InstanceNorm(axis=2), nn.GroupNorm(num_groups=2))
    net.initialize(mx.init.Uniform(1.0))
    x = mx.nd.array(rand(2, 4, 3, 2, seed=8))
    eager = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-5, atol=1e-6)
    net.export(str(tmp_path / 'norms'))
    text = (tmp_path / 'norms-symbol.json').read_text()
    assert all('"%s"' % op in text for op in NORMS)


# ---- activation layers ------------------------------------------------------------------
@pytest.mark.parametrize('make,formula', [
    (lambda: nn.ELU(), lambda x: np.where(x > 0, x, np.expm1(x))),
    (lambda: nn.ELU(alpha=0.3), lambda x: np.where(x > 0, x, 0.3 * np.expm1(x))),
    (lambda: nn.SELU(),
     lambda x: SELU_LAMBDA * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    (lambda: nn.GELU(), np_gelu),
    (lambda: nn.Swish(), lambda x: x / (1 + np.exp(-x))),
    (lambda: nn.Swish(beta=2.5), lambda x: x / (1 + np.exp(-2.5 * x))),
])
def test_activation_layers_match_numpy(make, formula):
    x = rand(3, 7, seed=9)
    np.testing.assert_allclose(make()(mx.nd.array(x)).asnumpy(), formula(x), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize('in_channels', [1, 3])
def test_prelu_matches_numpy(in_channels):
    prelu = nn.PReLU(alpha_initializer=mx.init.Uniform(0.5), in_channels=in_channels)
    prelu.initialize()
    assert prelu.alpha.shape == (in_channels,)
    x = rand(2, 3, 4, seed=10)
    alpha = prelu.alpha.data().asnumpy().reshape((1, -1, 1))
    np.testing.assert_allclose(prelu(mx.nd.array(x)).asnumpy(),
                               np.where(x > 0, x, alpha * x), rtol=1e-6)


def test_prelu_default_slope():
    prelu = nn.PReLU(prefix='pr_')
    assert list(prelu.params.keys()) == ['pr_alpha']
    prelu.initialize()
    np.testing.assert_allclose(prelu.alpha.data().asnumpy(), [0.25])


# SELU is left out: MXNet 1.9.1's SELU gradient for x <= 0 is lambda * (alpha + y), not
# the exact derivative, and symmod keeps MXNet's numbers (test_matches_mxnet checks them)
@pytest.mark.parametrize('make', [lambda: nn.PReLU(in_channels=2), lambda: nn.ELU(0.7),
                                  lambda: nn.GELU(), lambda: nn.Swish(1.3)])
def test_activation_gradients_match_finite_differences(make):
    layer = make()
    layer.initialize(mx.init.Uniform(0.5))
    # keep away from the kink at 0, where central differences are wrong
    x = np.random.RandomState(11).uniform(0.1, 1.5, (2, 2, 3))
    x *= np.sign(np.random.RandomState(12).uniform(-1, 1, x.shape))
    check_gradients(layer, x, rtol=1e-5, atol=1e-7)


def test_activation_reprs_are_empty_blocks_as_in_mxnet():
    for cls in (nn.PReLU, nn.ELU, nn.SELU, nn.GELU, nn.Swish):
        assert repr(cls()) == '%s(\n\n)' % cls.__name__


def test_prelu_reference_case_runs_hybridized_with_symbol_names():
    key = case_keys(('PReLU',))[0]
    layer, out, _, _ = run_case(key, hybridize=True)
    np.testing.assert_allclose(out, REF[key + '/out'], rtol=1e-5)
    sym = layer(mx.sym.var('data'))
    assert sym.list_arguments() == ['data', layer.alpha.name]
