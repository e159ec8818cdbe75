"""LayerNorm, InstanceNorm, GroupNorm, L2Normalization and LRN against numpy formulas,
finite differences and MXNet 1.9.1's recorded results
(tests/data/ops_seq_norm_reference.npz)."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from recorded_cases import case_names, replay

TESTED_OPS = {'LayerNorm', 'InstanceNorm', 'GroupNorm', 'L2Normalization', 'LRN'}
REFERENCE = 'ops_seq_norm_reference.npz'


@pytest.mark.parametrize('name', case_names(REFERENCE, TESTED_OPS))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-6)


# ---- numpy references ---------------------------------------------------------------------------
def ref_layer_norm(x, gamma, beta, axis, eps):
    bshape = [1] * x.ndim
    bshape[axis] = -1
    mean = x.mean(axis=axis, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=axis, keepdims=True) + eps)
    out = (x - mean) / std * gamma.reshape(bshape) + beta.reshape(bshape)
    return out, mean, std


def ref_group_norm(x, gamma, beta, groups, eps):
    g = x.reshape(x.shape[0], groups, -1)
    mean = g.mean(axis=2, keepdims=True)
    std = np.sqrt(g.var(axis=2, keepdims=True) + eps)
    out = ((g - mean) / std * gamma.reshape(1, -1, 1) + beta.reshape(1, -1, 1))
    return out.reshape(x.shape), mean[:, :, 0], std[:, :, 0]


def ref_instance_norm(x, gamma, beta, eps):
    axes = tuple(range(2, x.ndim))
    bshape = (1, -1) + (1,) * (x.ndim - 2)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(bshape) + beta.reshape(bshape)


def ref_l2_normalization(x, mode, eps):
    if mode == 'instance':
        axes = tuple(range(1, x.ndim))
    elif mode == 'channel':
        axes = (1,)
    else:
        axes = tuple(range(2, x.ndim))
    return x / np.sqrt((x ** 2).sum(axis=axes, keepdims=True) + eps)


def ref_lrn(x, nsize, alpha, beta, knorm):
    half = (nsize - 1) // 2
    out = np.empty_like(x)
    for c in range(x.shape[1]):
        window = x[:, max(0, c - half):c + half + 1]
        norm = knorm + alpha / nsize * (window ** 2).sum(axis=1)
        out[:, c] = x[:, c] * norm ** -beta
    return out


def _tol(dtype):
    return 1e-5 if dtype == np.float32 else 1e-12


def _affine(c):
    return np.random.rand(c) + 0.5, np.random.randn(c)


# ---- forward ------------------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape,axis', [((4, 5), -1), ((2, 3, 4), 1), ((3, 2, 4), 0),
                                        ((2, 3, 2, 5), -2)])
def test_layer_norm_forward(shape, axis, dtype):
    x = (np.random.randn(*shape) * 3 + 1).astype(dtype)
    gamma, beta = _affine(shape[axis])
    outs = mx.nd.LayerNorm(mx.nd.array(x, dtype=dtype), mx.nd.array(gamma, dtype=dtype),
                           mx.nd.array(beta, dtype=dtype), axis=axis, eps=1e-4,
                           output_mean_var=True)
    assert len(outs) == 3 and all(o.dtype == dtype for o in outs)
    for got, expected in zip(outs, ref_layer_norm(x.astype(np.float64), gamma, beta, axis,
                                                  1e-4)):
        assert got.shape == expected.shape
        assert_almost_equal(got.asnumpy(), expected, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape,groups', [((2, 4, 3), 1), ((2, 4, 3, 2), 2), ((3, 6, 5), 3),
                                          ((2, 4, 3), 4)])
def test_group_norm_forward(shape, groups, dtype):
    x = (np.random.randn(*shape) * 2 - 1).astype(dtype)
    gamma, beta = _affine(groups)
    outs = mx.nd.GroupNorm(mx.nd.array(x, dtype=dtype), mx.nd.array(gamma, dtype=dtype),
                           mx.nd.array(beta, dtype=dtype), num_groups=groups, eps=1e-3,
                           output_mean_var=True)
    for got, expected in zip(outs, ref_group_norm(x.astype(np.float64), gamma, beta, groups,
                                                  1e-3)):
        assert got.shape == expected.shape and got.dtype == dtype
        assert_almost_equal(got.asnumpy(), expected, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(2, 3, 5), (2, 3, 4, 2), (1, 2, 2, 3, 2)])
def test_instance_norm_forward(shape, dtype):
    x = (np.random.randn(*shape) * 2 + 0.5).astype(dtype)
    gamma, beta = _affine(shape[1])
    out = mx.nd.InstanceNorm(mx.nd.array(x, dtype=dtype), mx.nd.array(gamma, dtype=dtype),
                             mx.nd.array(beta, dtype=dtype))        # eps=1e-3 by default
    assert out.dtype == dtype
    assert_almost_equal(out.asnumpy(), ref_instance_norm(x.astype(np.float64), gamma, beta,
                                                         1e-3),
                        rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('mode,shape', [('instance', (3, 4)), ('instance', (2, 3, 2, 2)),
                                        ('channel', (2, 3, 4)), ('channel', (2, 4, 3, 2)),
                                        ('spatial', (2, 3, 4)), ('spatial', (2, 3, 2, 3))])
def test_l2_normalization_forward(mode, shape, dtype):
    x = np.random.randn(*shape).astype(dtype)
    out = mx.nd.L2Normalization(mx.nd.array(x, dtype=dtype), mode=mode, eps=1e-3)
    assert out.dtype == dtype
    assert_almost_equal(out.asnumpy(), ref_l2_normalization(x.astype(np.float64), mode, 1e-3),
                        rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('nsize,alpha,beta,knorm', [(3, 1e-4, 0.75, 2.0), (5, 0.5, 0.6, 1.5),
                                                    (1, 0.2, 1.0, 1.0), (4, 0.3, 0.9, 1.0),
                                                    (9, 0.1, 0.75, 2.0)])
def test_lrn_forward(nsize, alpha, beta, knorm, dtype):
    x = (np.random.randn(2, 6, 3, 2) * 2).astype(dtype)
    out = mx.nd.LRN(mx.nd.array(x, dtype=dtype), nsize=nsize, alpha=alpha, beta=beta,
                    knorm=knorm)
    assert out.dtype == dtype
    assert_almost_equal(out.asnumpy(), ref_lrn(x.astype(np.float64), nsize, alpha, beta, knorm),
                        rtol=_tol(dtype), atol=_tol(dtype))


def test_l2_normalization_default_eps_and_zero_rows():
    x = np.array([[3, 4], [0, 0]], np.float32)
    out = mx.nd.L2Normalization(mx.nd.array(x)).asnumpy()     # eps = 1e-10
    assert_almost_equal(out, [[0.6, 0.8], [0, 0]], rtol=1e-6, atol=0)


def test_float16_reduces_in_float32():
    x = (np.random.randn(4, 64) * 50 + 300).astype(np.float16)
    gamma, beta = np.ones(64, np.float16), np.zeros(64, np.float16)
    out = mx.nd.LayerNorm(mx.nd.array(x, dtype=np.float16), mx.nd.array(gamma, dtype=np.float16),
                          mx.nd.array(beta, dtype=np.float16))
    assert out.dtype == np.float16
    expected = ref_layer_norm(x.astype(np.float64), gamma.astype(np.float64), beta, -1, 1e-5)[0]
    assert_almost_equal(out.asnumpy(), expected, rtol=1e-2, atol=1e-2)
    out = mx.nd.L2Normalization(mx.nd.array(x, dtype=np.float16))
    assert out.dtype == np.float16
    assert_almost_equal(out.asnumpy(), ref_l2_normalization(x.astype(np.float64), 'instance', 0),
                        rtol=1e-2, atol=1e-3)


# ---- backward -----------------------------------------------------------------------------------
def _location(op, params, shape):
    x = np.random.randn(*shape)
    if op == 'LayerNorm':
        c = shape[params.get('axis', -1)]
    elif op == 'GroupNorm':
        c = params.get('num_groups', 1)
    elif op == 'InstanceNorm':
        c = shape[1]
    else:
        return {'data': x}
    gamma, beta = _affine(c)
    return {'data': x, 'n_gamma': gamma, 'n_beta': beta}


GRAD_CASES = [('LayerNorm', {}, (3, 4)), ('LayerNorm', dict(axis=1, eps=1e-2), (2, 3, 4)),
              ('LayerNorm', dict(axis=0), (4, 3)),
              ('GroupNorm', {}, (2, 3, 4)), ('GroupNorm', dict(num_groups=2), (2, 4, 2, 3)),
              ('InstanceNorm', {}, (2, 3, 4)), ('InstanceNorm', dict(eps=0.1), (2, 2, 3, 2)),
              ('L2Normalization', {}, (3, 2, 2)),
              ('L2Normalization', dict(mode='channel'), (2, 3, 2, 2)),
              ('L2Normalization', dict(mode='spatial', eps=0.1), (2, 3, 4)),
              ('LRN', dict(nsize=3, alpha=0.5, beta=0.75, knorm=1.0), (2, 5, 2, 2)),
              ('LRN', dict(nsize=4, alpha=0.3, beta=0.6, knorm=2.0), (1, 6, 2, 3)),
              ('LRN', dict(nsize=5), (2, 3, 2, 2))]


@pytest.mark.parametrize('op,params,shape', GRAD_CASES)
def test_numeric_gradient(op, params, shape):
    sym = getattr(mx.sym, op)(mx.sym.Variable('data'), name='n', **params)
    check_numeric_gradient(sym, _location(op, params, shape), numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('op,params,shape', [GRAD_CASES[i] for i in (1, 4, 5, 8, 10)])
def test_backward_add_accumulates(op, params, shape):
    sym = getattr(mx.sym, op)(mx.sym.Variable('data'), name='n', **params)
    location = _location(op, params, shape)
    dy = np.random.randn(*shape)
    grads = {}
    for req in ('write', 'add'):
        ex = sym.bind(mx.cpu(),
                      args={k: mx.nd.array(v, dtype=np.float64) for k, v in location.items()},
                      args_grad={k: mx.nd.ones(v.shape, dtype=np.float64)
                                 for k, v in location.items()},
                      grad_req=req)
        ex.forward(is_train=True)
        ex.backward(mx.nd.array(dy, dtype=np.float64))
        grads[req] = {k: v.asnumpy() for k, v in ex.grad_dict.items()}
    for k in grads['write']:
        assert_almost_equal(grads['add'][k], grads['write'][k] + 1, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('op,params,shape', [('LayerNorm', dict(axis=1), (2, 3, 4)),
                                             ('GroupNorm', dict(num_groups=2), (2, 4, 3))])
def test_no_gradient_flows_through_mean_and_std(op, params, shape):
    location = _location(op, params, shape)
    dy = np.random.randn(*shape)
    grads = []
    for visible in (False, True):
        sym = getattr(mx.sym, op)(mx.sym.Variable('data'), name='n', output_mean_var=visible,
                                  **params)
        ex = sym.bind(mx.cpu(),
                      args={k: mx.nd.array(v, dtype=np.float64) for k, v in location.items()},
                      args_grad={k: mx.nd.zeros(v.shape, dtype=np.float64)
                                 for k, v in location.items()})
        outs = ex.forward(is_train=True)
        heads = [mx.nd.array(dy, dtype=np.float64)] + [
            mx.nd.array(np.random.randn(*o.shape), dtype=np.float64) for o in outs[1:]]
        ex.backward(heads)
        grads.append({k: v.asnumpy() for k, v in ex.grad_dict.items()})
    for k in grads[0]:
        assert_almost_equal(grads[1][k], grads[0][k], rtol=1e-12, atol=1e-12)


# ---- names, shapes, types, errors ---------------------------------------------------------------
def test_names_and_shapes():
    data = mx.sym.Variable('data')
    for op, params in (('LayerNorm', {}), ('InstanceNorm', {}), ('GroupNorm', {})):
        sym = getattr(mx.sym, op)(data, name='n', **params)
        assert sym.list_arguments() == ['data', 'n_gamma', 'n_beta']
        assert sym.list_outputs() == ['n_output']
    ln = mx.sym.LayerNorm(data, axis=1, output_mean_var=True, name='ln')
    assert ln.list_outputs() == ['ln_output', 'ln_mean', 'ln_std']
    args, outs, aux = ln.infer_shape(data=(4, 6, 3, 2))
    assert args == [(4, 6, 3, 2), (6,), (6,)] and aux == []
    assert outs == [(4, 6, 3, 2), (4, 1, 3, 2), (4, 1, 3, 2)]
    assert mx.sym.LayerNorm(data).infer_shape(data=(4, 6, 3, 2))[0][1] == (2,)
    gn = mx.sym.GroupNorm(data, num_groups=3, output_mean_var=True, name='gn')
    assert gn.list_outputs() == ['gn_output', 'gn_mean', 'gn_std']
    # MXNet 1.9.1's GroupNorm has one gamma / beta per group
    args, outs, _ = gn.infer_shape(data=(4, 6, 5))
    assert args == [(4, 6, 5), (3,), (3,)] and outs == [(4, 6, 5), (4, 3), (4, 3)]
    args, outs, _ = mx.sym.InstanceNorm(data).infer_shape(data=(4, 6, 3, 2))
    assert args == [(4, 6, 3, 2), (6,), (6,)] and outs == [(4, 6, 3, 2)]
    for mode in ('instance', 'channel', 'spatial'):
        sym = mx.sym.L2Normalization(data, mode=mode, name='l2')
        assert sym.list_arguments() == ['data'] and sym.list_outputs() == ['l2_output']
        assert sym.infer_shape(data=(4, 6, 3))[1] == [(4, 6, 3)]
    lrn = mx.sym.LRN(data, nsize=3, name='lrn')
    assert lrn.list_outputs() == ['lrn_output']
    assert lrn.infer_shape(data=(2, 3, 4, 4))[1] == [(2, 3, 4, 4)]
    # the alias of MXNet's numpy extension
    x = np.random.randn(2, 3)
    out = mx.nd._npx_layer_norm(mx.nd.array(x), mx.nd.ones(3), mx.nd.zeros(3))
    assert_almost_equal(out.asnumpy(), ref_layer_norm(x, np.ones(3), np.zeros(3), -1, 1e-5)[0],
                        rtol=1e-5, atol=1e-5)


def test_hidden_statistics():
    # InstanceNorm keeps the biased variance, L2Normalization the norm, LRN the divisor base
    x = np.random.randn(2, 3, 4)
    op = registry.get('InstanceNorm')({})
    outs = [np.empty(s) for s in (x.shape, (2, 3), (2, 3))]
    op.forward(True, ['write'] * 3, [x, np.ones(3), np.zeros(3)], outs, [])
    assert_almost_equal(outs[1], x.mean(axis=2), rtol=1e-12)
    assert_almost_equal(outs[2], x.var(axis=2), rtol=1e-12)
    op = registry.get('L2Normalization')({'mode': 'channel'})
    outs = [np.empty(x.shape), np.empty((2, 1, 4))]
    op.forward(True, ['write'] * 2, [x], outs, [])
    assert_almost_equal(outs[1], np.sqrt((x ** 2).sum(axis=1, keepdims=True) + 1e-10),
                        rtol=1e-12)


def test_defaults_and_types():
    get = registry.get
    ln = get('LayerNorm')({})
    assert (ln.axis, ln.eps, ln.output_mean_var) == (-1, 1e-5, False)
    gn = get('GroupNorm')({})
    assert (gn.num_groups, gn.eps, gn.output_mean_var) == (1, 1e-5, False)
    assert get('InstanceNorm')({}).eps == 1e-3
    l2 = get('L2Normalization')({})
    assert (l2.eps, l2.mode) == (1e-10, 'instance')
    lrn = get('LRN')({'nsize': '5'})
    assert (lrn.alpha, lrn.beta, lrn.knorm, lrn.nsize) == (1e-4, 0.75, 2.0, 5)
    sym = mx.sym.LayerNorm(mx.sym.Variable('data'), output_mean_var=True)
    arg_types, out_types, _ = sym.infer_type(data=np.float64)
    assert arg_types == [np.float64] * 3 and out_types == [np.float64] * 3


def test_errors():
    data = mx.sym.Variable('data')
    with pytest.raises(MXNetError, match='axis'):
        mx.sym.LayerNorm(data, axis=3).infer_shape(data=(2, 3, 4))
    with pytest.raises(MXNetError, match='axis'):
        mx.sym.LayerNorm(data, axis=-4).infer_shape(data=(2, 3, 4))
    with pytest.raises(MXNetError, match='gamma'):
        mx.sym.LayerNorm(data, name='ln').infer_shape(data=(2, 3, 4), ln_gamma=(3,))
    with pytest.raises(MXNetError, match='divisible'):
        mx.sym.GroupNorm(data, num_groups=2).infer_shape(data=(2, 3, 4))
    with pytest.raises(MXNetError, match='3 dimensions'):
        mx.sym.GroupNorm(data).infer_shape(data=(2, 4))
    with pytest.raises(MXNetError, match='num_groups'):
        mx.sym.GroupNorm(data, num_groups=0)
    with pytest.raises(MXNetError, match='beta'):
        mx.sym.GroupNorm(data, num_groups=2, name='gn').infer_shape(data=(2, 4, 3),
                                                                    gn_beta=(4,))
    with pytest.raises(MXNetError, match='rank >= 3'):
        mx.nd.InstanceNorm(mx.nd.ones((2, 4)), mx.nd.ones(4), mx.nd.zeros(4))
    with pytest.raises(MXNetError, match='3 dimensions required in channel mode'):
        mx.sym.L2Normalization(data, mode='channel').infer_shape(data=(2, 4))
    with pytest.raises(MXNetError, match='mode'):
        mx.sym.L2Normalization(data, mode='foo')
    with pytest.raises(MXNetError, match='nsize'):
        mx.sym.LRN(data)
    with pytest.raises(MXNetError, match='nsize'):
        mx.sym.LRN(data, nsize=0)
    with pytest.raises(MXNetError, match='4D'):
        mx.nd.LRN(mx.nd.ones((2, 4, 3)), nsize=3)


def test_layer_norm_affine_gradients_over_many_rows_stay_accurate():
    # gamma's and beta's gradients sum 4096 rows: in float32, row after row, they drift
    # by ~2e-4 (MXNet's test_layer_norm compares them at 1e-4); float64 sums keep float32
    # rounding only
    rng = np.random.RandomState(0)
    x = rng.normal(size=(4096, 64)).astype(np.float32)
    dy = rng.normal(size=(4096, 64)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, 64).astype(np.float32)
    sym = mx.sym.LayerNorm(mx.sym.var('data'), mx.sym.var('gamma'), mx.sym.var('beta'),
                           axis=-1, eps=1e-3)
    exe = sym.bind(mx.cpu(), {'data': mx.nd.array(x), 'gamma': mx.nd.array(gamma),
                              'beta': mx.nd.zeros(64)},
                   args_grad={'data': mx.nd.zeros(x.shape), 'gamma': mx.nd.zeros(64),
                              'beta': mx.nd.zeros(64)})
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(dy))
    x64 = x.astype(np.float64)
    xhat = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(exe.grad_dict['gamma'].asnumpy(), (xhat * dy).sum(0),
                               rtol=0, atol=5e-5)
    np.testing.assert_allclose(exe.grad_dict['beta'].asnumpy(), dy.astype(np.float64).sum(0),
                               rtol=0, atol=5e-5)
