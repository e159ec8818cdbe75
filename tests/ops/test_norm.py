"""BatchNorm against numpy formulas, finite differences and MXNet 1.9.1's recorded results
(moving statistics, fix_gamma, inverse-std output)."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import norm_kernels, registry
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from nn_reference import cases, run_case

TESTED_OPS = {'BatchNorm'}


@pytest.mark.parametrize('name', cases(TESTED_OPS))
def test_matches_mxnet_reference(name):
    run_case(name, rtol=1e-5, atol=1e-5)


def _stats(x, axis):
    axes = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    shape = [1] * x.ndim
    shape[axis] = -1
    return axes, shape


def _bind(sym, x, gamma, beta, mean, var, dtype=np.float64):
    def arrays(a):
        return mx.nd.array(a, dtype=dtype)

    names = sym.list_arguments()
    args = dict(zip(names, map(arrays, (x, gamma, beta))))
    grads = {k: mx.nd.zeros(v.shape, dtype=dtype) for k, v in args.items()}
    aux = dict(zip(sym.list_auxiliary_states(), map(arrays, (mean, var))))
    return sym.bind(mx.cpu(), args=args, args_grad=grads, aux_states=aux)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape,axis', [((4, 3, 2, 2), 1), ((5, 4), 1), ((3, 4, 2), -1),
                                        ((3, 4, 2), 0), ((19, 3, 2, 5), 1), ((17, 4), 1)])
def test_batchnorm_training_forward(shape, axis, dtype):
    x = (np.random.randn(*shape) * 2 + 1).astype(dtype)
    c = shape[axis]
    gamma, beta = np.random.rand(c) + 0.5, np.random.randn(c)
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), fix_gamma=False, axis=axis, eps=1e-3,
                           output_mean_var=True, name='bn')
    ex = _bind(sym, x, gamma, beta, np.zeros(c), np.ones(c), dtype)
    out, mean, invstd = [o.asnumpy() for o in ex.forward(is_train=True)]
    axes, bshape = _stats(x, axis)
    x64 = x.astype(np.float64)
    ref_mean, ref_var = x64.mean(axis=axes), x64.var(axis=axes)
    expected = ((x64 - ref_mean.reshape(bshape)) / np.sqrt(ref_var.reshape(bshape) + 1e-3)
                * gamma.reshape(bshape) + beta.reshape(bshape))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert_almost_equal(out, expected, rtol=tol, atol=tol)
    assert_almost_equal(mean, ref_mean, rtol=tol, atol=tol)
    assert_almost_equal(invstd, 1 / np.sqrt(ref_var + 1e-3), rtol=tol, atol=tol)


def test_batchnorm_moving_stats_update_in_backward():
    x = np.random.randn(6, 3, 4) * 3 + 2
    mean0, var0 = np.array([0.5, -1.0, 0.0]), np.array([2.0, 0.5, 1.0])
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), momentum=0.7, name='bn')
    ex = _bind(sym, x, np.ones(3), np.zeros(3), mean0, var0)
    ex.forward(is_train=True)
    # like MXNet on CPU: nothing moves until the backward pass
    assert_almost_equal(ex.aux_dict['bn_moving_mean'].asnumpy(), mean0)
    ex.backward(mx.nd.ones(x.shape, dtype=np.float64))
    batch_mean, batch_var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))   # biased variance
    assert_almost_equal(ex.aux_dict['bn_moving_mean'].asnumpy(),
                        0.7 * mean0 + 0.3 * batch_mean, rtol=1e-10)
    assert_almost_equal(ex.aux_dict['bn_moving_var'].asnumpy(),
                        0.7 * var0 + 0.3 * batch_var, rtol=1e-10)


def test_batchnorm_backward_follows_its_own_forward_mode():
    # two executors of one symbol, the second running inference between the first's
    # forward and backward: the first still updates its moving statistics
    x = np.random.randn(6, 3, 4) * 3 + 2
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), momentum=0.5, name='bn')
    train = _bind(sym, x, np.ones(3), np.zeros(3), np.zeros(3), np.ones(3))
    infer = _bind(sym, x, np.ones(3), np.zeros(3), np.zeros(3), np.ones(3))
    train.forward(is_train=True)
    infer.forward(is_train=False)
    train.backward(mx.nd.ones(x.shape, dtype=np.float64))
    assert_almost_equal(train.aux_dict['bn_moving_mean'].asnumpy(),
                        0.5 * x.mean(axis=(0, 2)), rtol=1e-10)
    assert_almost_equal(infer.aux_dict['bn_moving_mean'].asnumpy(), np.zeros(3))


@pytest.mark.parametrize('use_global_stats', [False, True])
def test_batchnorm_inference_uses_moving_stats(use_global_stats):
    x = np.random.randn(4, 3, 5)
    mean, var = np.random.randn(3), np.random.rand(3) + 0.5
    gamma, beta = np.random.rand(3) + 0.5, np.random.randn(3)
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), fix_gamma=False, eps=1e-4,
                           use_global_stats=use_global_stats, name='bn')
    ex = _bind(sym, x, gamma, beta, mean, var)
    out = ex.forward(is_train=use_global_stats)[0].asnumpy()

    def b(a):
        return a.reshape(1, 3, 1)

    assert_almost_equal(out, (x - b(mean)) / np.sqrt(b(var) + 1e-4) * b(gamma) + b(beta),
                        rtol=1e-12)
    if use_global_stats:
        dy = np.random.randn(*x.shape)
        ex.backward(mx.nd.array(dy, dtype=np.float64))
        assert_almost_equal(ex.grad_dict['data'].asnumpy(),
                            dy * b(gamma) / np.sqrt(b(var) + 1e-4), rtol=1e-12)
        assert_almost_equal(ex.aux_dict['bn_moving_mean'].asnumpy(), mean)


def test_batchnorm_fix_gamma_sets_gamma_and_zero_gradient():
    x = np.random.randn(4, 2, 3)
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), name='bn')     # fix_gamma=True default
    ex = _bind(sym, x, np.array([3.0, 4.0]), np.zeros(2), np.zeros(2), np.ones(2))
    out = ex.forward(is_train=True)[0].asnumpy()
    assert_almost_equal(ex.arg_dict['bn_gamma'].asnumpy(), [1.0, 1.0])
    assert_almost_equal(out.std(axis=(0, 2)), 1 / np.sqrt(1 + 1e-3 / x.var(axis=(0, 2))),
                        rtol=1e-10)
    ex.backward(mx.nd.array(np.random.randn(*x.shape), dtype=np.float64))
    assert np.array_equal(ex.grad_dict['bn_gamma'].asnumpy(), [0.0, 0.0])


@pytest.mark.parametrize('params', [dict(fix_gamma=False), dict(fix_gamma=True),
                                    dict(fix_gamma=False, axis=-1),
                                    dict(fix_gamma=False, use_global_stats=True)])
@pytest.mark.parametrize('batch', [4, 2 * norm_kernels.GROUP + 1],
                         ids=['channel-split', 'sample-split'])
def test_batchnorm_numeric_gradient(params, batch):
    shape = (batch, 3, 2) if params.get('axis') is None else (batch, 2, 3)
    c = shape[params.get('axis', 1)]
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), name='bn', **params)
    location = [np.random.randn(*shape), np.random.rand(c) + 0.5, np.random.randn(c)]
    aux = [np.random.randn(c), np.random.rand(c) + 0.5]
    check_numeric_gradient(sym, location, aux_states=aux, numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('batch', [4, 2 * norm_kernels.GROUP + 1],
                         ids=['channel-split', 'sample-split'])
def test_batchnorm_backward_add_accumulates(batch):
    x = np.random.randn(batch, 3, 2)
    dy = np.random.randn(*x.shape)
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), fix_gamma=False, name='bn')
    grads = {}
    for req in ('write', 'add'):
        args = {'data': x, 'bn_gamma': np.ones(3) * 1.5, 'bn_beta': np.zeros(3)}
        ex = sym.bind(mx.cpu(), args={k: mx.nd.array(v, dtype=np.float64)
                                      for k, v in args.items()},
                      args_grad={k: mx.nd.ones(v.shape, dtype=np.float64)
                                 for k, v in args.items()},
                      grad_req=req,
                      aux_states={'bn_moving_mean': mx.nd.zeros(3, dtype=np.float64),
                                  'bn_moving_var': mx.nd.ones(3, dtype=np.float64)})
        ex.forward(is_train=True)
        ex.backward(mx.nd.array(dy, dtype=np.float64))
        grads[req] = {k: v.asnumpy() for k, v in ex.grad_dict.items()}
    for k in grads['write']:
        assert_almost_equal(grads['add'][k], grads['write'][k] + 1, rtol=1e-12)


def test_batchnorm_names_shapes_types():
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), name='bn')
    assert sym.list_arguments() == ['data', 'bn_gamma', 'bn_beta']
    assert sym.list_auxiliary_states() == ['bn_moving_mean', 'bn_moving_var']
    assert sym.list_outputs() == ['bn_output']
    internals = sym.get_internals()
    assert internals['bn_moving_mean'].attr('__init__') == '["zero", {}]'
    assert internals['bn_moving_var'].attr('__init__') == '["one", {}]'
    both = mx.sym.BatchNorm(mx.sym.Variable('data'), output_mean_var=True, name='bn')
    assert both.list_outputs() == ['bn_output', 'bn_mean', 'bn_var']
    args, outs, aux = sym.infer_shape(data=(2, 5, 3, 3))
    assert args == [(2, 5, 3, 3), (5,), (5,)] and outs == [(2, 5, 3, 3)]
    assert aux == [(5,), (5,)]
    # half-precision data keeps float32 parameters, as MXNet
    arg_types, out_types, aux_types = sym.infer_type(data=np.float16)
    assert arg_types == [np.float16, np.float32, np.float32] and out_types == [np.float16]
    assert aux_types == [np.float32, np.float32]
    op = registry.get('BatchNorm')({})
    assert (op.eps, op.momentum, op.fix_gamma, op.use_global_stats, op.axis) == \
        (1e-3, 0.9, True, False, 1)


def test_batchnorm_float16_and_errors():
    x = np.random.randn(4, 3, 2).astype(np.float16)
    out = mx.nd.BatchNorm(mx.nd.array(x, dtype=np.float16), mx.nd.ones(3), mx.nd.zeros(3),
                          mx.nd.zeros(3), mx.nd.ones(3))
    assert out.dtype == np.float16
    assert_almost_equal(out.asnumpy(), x / np.sqrt(np.float32(1 + 1e-3)), rtol=1e-2,
                        atol=1e-2)
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), axis=3, name='bn')
    with pytest.raises(MXNetError, match='axis'):
        sym.infer_shape(data=(2, 3, 4))
    with pytest.raises(MXNetError, match='gamma'):
        mx.sym.BatchNorm(mx.sym.Variable('data'), name='bn').infer_shape(
            data=(2, 3, 4), bn_gamma=(4,))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('batch', [8, 2 * norm_kernels.GROUP + 5],
                         ids=['channel-split', 'sample-split'])
def test_batchnorm_bits_do_not_depend_on_the_thread_count(dtype, batch, monkeypatch):
    """The sums run in an order fixed by the shape (norm_kernels.py: each channel on one
    thread for small batches; per group of samples, the groups in order, for larger
    ones), so the training forward, the moving statistics and every gradient are the same
    bits at one and at two threads (symmod's width fixed at each: the executor sizes
    numba's threads to it)."""
    import numba
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip('numba has one thread here')
    monkeypatch.setattr(mx.threads._STATE, 'adaptive', False)
    rng = np.random.RandomState(5)
    x = rng.standard_normal((batch, 6, 12, 10)).astype(dtype) * 3 + 1
    head = rng.standard_normal(x.shape).astype(dtype)
    sym = mx.sym.BatchNorm(mx.sym.var('data'), fix_gamma=False, name='bn')

    def run(threads):
        before = mx.threads.info()['budget']
        mx.threads.set_budget(threads)
        try:
            ex = sym.simple_bind(mx.cpu(), data=x.shape, type_dict={'data': dtype})
            ex.arg_dict['data'][:] = x
            ex.arg_dict['bn_gamma'][:] = np.linspace(0.5, 2, 6)
            ex.arg_dict['bn_beta'][:] = np.linspace(-1, 1, 6)
            ex.forward(is_train=True)
            ex.backward([mx.nd.array(head, dtype=dtype)])
            assert mx.threads.info()['numba'] == threads
            return [a.asnumpy() for a in [ex.outputs[0]] + ex.grad_arrays + ex.aux_arrays]
        finally:
            mx.threads.set_budget(before)
    for one, two in zip(run(1), run(2)):
        np.testing.assert_array_equal(one, two)


@pytest.mark.parametrize('shape', [(3, 2, 5000), (2 * norm_kernels.GROUP, 2, 3 * 1024 + 7)],
                         ids=['channel-split', 'sample-split'])
def test_batchnorm_long_rows_keep_float32_precision(shape):
    """Rows longer than norm_kernels.CHUNK: the sums run in float32 within a chunk and in
    float64 across chunks, so statistics and parameter gradients stay within float32's
    precision of a float64 computation on the same data, even with a large mean."""
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(shape) * 0.5 + 50).astype(np.float32)
    dy = (rng.standard_normal(shape) + 0.3).astype(np.float32)
    gamma = np.array([0.5, 2.0])
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), fix_gamma=False, eps=1e-3,
                           output_mean_var=True, name='bn')
    ex = _bind(sym, x, gamma, np.zeros(2), np.zeros(2), np.ones(2), np.float32)
    _, mean, invstd = [o.asnumpy() for o in ex.forward(is_train=True)]
    ex.backward([mx.nd.array(dy), mx.nd.zeros(2), mx.nd.zeros(2)])
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    ref_mean, ref_var = x64.mean(axis=(0, 2)), x64.var(axis=(0, 2))
    ref_invstd = 1 / np.sqrt(ref_var + 1e-3)
    assert_almost_equal(mean, ref_mean, rtol=1e-7, atol=0)
    assert_almost_equal(invstd, ref_invstd, rtol=2e-6, atol=0)
    # centred on the float32 mean the operator keeps (as MXNet's): its rounding, times
    # sum(dy), is not the sums' error
    centered = (x64 - mean.reshape(1, -1, 1)) * invstd.reshape(1, -1, 1)
    assert_almost_equal(ex.grad_dict['bn_gamma'].asnumpy(), (centered * dy64).sum(axis=(0, 2)),
                        rtol=1e-5, atol=0)
    assert_almost_equal(ex.grad_dict['bn_beta'].asnumpy(), dy64.sum(axis=(0, 2)),
                        rtol=1e-6, atol=0)


@pytest.mark.parametrize('fix_gamma', [False, True])
@pytest.mark.parametrize('batch', [4, 2 * norm_kernels.GROUP + 1],
                         ids=['channel-split', 'sample-split'])
def test_batchnorm_per_channel_arithmetic_is_numpys(batch, fix_gamma):
    """The per-channel steps around the passes (norm_kernels.update_moving,
    grad_coefficients) round as numpy's float32 arithmetic on the same arrays does: the
    moving statistics bit for bit, the parameter gradients under 'write' and 'add'."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((batch, 3, 5)) * 2 + 1).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    mean0 = np.array([0.5, -1.0, 0.25], np.float32)
    var0 = np.array([2.0, 0.5, 1.5], np.float32)
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), fix_gamma=fix_gamma, momentum=0.85,
                           eps=2e-3, output_mean_var=True, name='bn')
    grads = {}
    for req in ('write', 'add'):
        args = {'data': mx.nd.array(x), 'bn_gamma': mx.nd.array([0.5, 1.0, 2.0]),
                'bn_beta': mx.nd.zeros(3)}
        ex = sym.bind(mx.cpu(), args=args,
                      args_grad={k: mx.nd.full(v.shape, 0.75) for k, v in args.items()},
                      grad_req=req, aux_states={'bn_moving_mean': mx.nd.array(mean0),
                                                'bn_moving_var': mx.nd.array(var0)})
        _, mean, invstd = [o.asnumpy() for o in ex.forward(is_train=True)]
        ex.backward([mx.nd.array(dy), mx.nd.zeros(3), mx.nd.zeros(3)])
        grads[req] = {k: ex.grad_dict[k].asnumpy() for k in ('bn_gamma', 'bn_beta')}
    variance = 1.0 / (invstd.astype(np.float64) ** 2) - 2e-3
    assert np.array_equal(ex.aux_dict['bn_moving_mean'].asnumpy(),
                          mean0 * 0.85 + mean * (1 - 0.85))
    assert np.array_equal(ex.aux_dict['bn_moving_var'].asnumpy(),
                          (var0 * 0.85 + variance * (1 - 0.85)).astype(np.float32))
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    dot = ((x64 - mean.reshape(1, -1, 1)) * dy64).sum(axis=(0, 2))
    gamma_grad = np.zeros(3) if fix_gamma else dot * invstd
    assert_almost_equal(grads['write']['bn_gamma'], gamma_grad, rtol=1e-5, atol=1e-5)
    assert_almost_equal(grads['write']['bn_beta'], dy64.sum(axis=(0, 2)), rtol=1e-5, atol=1e-5)
    # 'add' onto 0.75 (fix_gamma: MXNet leaves gamma's gradient as it was)
    assert np.array_equal(grads['add']['bn_gamma'], np.full(3, 0.75, np.float32)
                          if fix_gamma else grads['write']['bn_gamma'] + np.float32(0.75))
    assert np.array_equal(grads['add']['bn_beta'], grads['write']['bn_beta'] + np.float32(0.75))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_batchnorm_zero_eps_constant_channel_has_zero_invstd(dtype):
    x = np.random.randn(2 * norm_kernels.GROUP, 2, 3).astype(dtype)
    x[:, 1] = 4.0
    sym = mx.sym.BatchNorm(mx.sym.Variable('data'), eps=0.0, output_mean_var=True,
                           name='bn')
    ex = _bind(sym, x, np.ones(2), np.zeros(2), np.zeros(2), np.ones(2), dtype)
    out, mean, invstd = [o.asnumpy() for o in ex.forward(is_train=True)]
    assert invstd[1] == 0 and mean[1] == 4.0 and np.all(out[:, 1] == 0)
    assert_almost_equal(invstd[0], 1 / x[:, 0].astype(np.float64).std(), rtol=1e-5)
