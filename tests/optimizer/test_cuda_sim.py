"""The CUDA kernels against the CPU kernels, on tiny arrays.

Without a GPU, tests/conftest.py turns on numba's CUDA simulator, so this runs the
``@cuda.jit`` kernels everywhere; on a GPU machine the same tests run on the device.
"""
import numpy as np
import pytest

import symmod as mx

pytestmark = pytest.mark.skipif(mx.num_gpus() == 0, reason='no CUDA device or simulator')

SHAPE = (3, 4)
CONFIGS = [
    ('sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01, 'clip_gradient': 0.5}),
    ('sgd', {'learning_rate': 0.1}),
    ('nag', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01}),
    ('signum', {'learning_rate': 0.1, 'wd_lh': 0.1}),
    ('signum', {'learning_rate': 0.1, 'momentum': 0.0}),
    ('adam', {'learning_rate': 0.01, 'wd': 0.01, 'rescale_grad': 0.5}),
    ('adamw', {'learning_rate': 0.01, 'wd': 0.01}),
    ('adamax', {'learning_rate': 0.01}),
    ('nadam', {'learning_rate': 0.01}),
    ('lamb', {'learning_rate': 0.01, 'wd': 0.01}),
    ('lars', {'learning_rate': 0.1, 'momentum': 0.9, 'eta': 0.01}),
    ('rmsprop', {'learning_rate': 0.01, 'clip_weights': 0.5}),
    ('rmsprop', {'learning_rate': 0.01, 'centered': True}),
    ('adagrad', {'learning_rate': 0.1, 'wd': 0.01}),
    ('adadelta', {'rescale_grad': 0.5, 'clip_gradient': 0.1}),
    ('ftrl', {}),
    ('ftml', {'learning_rate': 0.1, 'wd': 0.01}),
    ('dcasgd', {'learning_rate': 0.1}),
    ('test', {'rescale_grad': 0.5}),
    ('lbsgd', {'learning_rate': 0.1, 'momentum': 0.9}),
]


def _run(name, kwargs, ctx, dtype='float32', steps=2):
    opt = mx.optimizer.create(name, **kwargs)
    updater = mx.optimizer.get_updater(opt)
    rng = np.random.RandomState(3)
    weights = [mx.nd.array(rng.uniform(-1, 1, SHAPE), ctx=ctx, dtype=dtype) for _ in range(2)]
    for _ in range(steps):
        grads = [mx.nd.array(rng.normal(0, 1, SHAPE), ctx=ctx, dtype=dtype) for _ in range(2)]
        updater([0, 1], grads, weights)
    return [w.asnumpy() for w in weights], updater.states


@pytest.mark.parametrize('name,kwargs', CONFIGS, ids=['%s-%d' % (c[0], i)
                                                      for i, c in enumerate(CONFIGS)])
def test_optimizer_on_gpu_matches_cpu(name, kwargs):
    cpu, _ = _run(name, kwargs, mx.cpu())
    gpu, states = _run(name, kwargs, mx.gpu(0))
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    first = states[0][0] if isinstance(states[0], tuple) else states[0]
    if first is not None:
        assert first.context == mx.gpu(0)


def test_mixed_precision_sgd_on_gpu():
    kwargs = {'learning_rate': 0.1, 'momentum': 0.9, 'multi_precision': True}
    cpu, _ = _run('sgd', kwargs, mx.cpu(), dtype='float16')
    gpu, _ = _run('sgd', kwargs, mx.gpu(0), dtype='float16')
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(b.astype(np.float32), a.astype(np.float32), rtol=1e-3)


def test_group_adagrad_on_gpu():
    cpu, _ = _run('groupadagrad', {'learning_rate': 0.1}, mx.cpu())
    gpu, _ = _run('groupadagrad', {'learning_rate': 0.1}, mx.gpu(0))
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_sgld_on_gpu_moves_weights_with_noise():
    mx.random.seed(5)
    gpu, _ = _run('sgld', {'learning_rate': 0.01}, mx.gpu(0), steps=1)
    mx.random.seed(5)
    cpu, _ = _run('sgld', {'learning_rate': 0.01}, mx.cpu(), steps=1)
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_fused_nd_op_on_gpu():
    rng = np.random.RandomState(0)
    host = [rng.uniform(-1, 1, SHAPE).astype(np.float32) for _ in range(4)]
    results = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        w, g, m, v = (mx.nd.array(x, ctx=ctx) for x in host)
        v = mx.nd.array(np.abs(host[3]), ctx=ctx)
        out = mx.nd.adam_update(w, g, m, v, lr=0.01, wd=0.01, clip_gradient=0.5)
        assert out.context == ctx
        results.append((out.asnumpy(), m.asnumpy(), v.asnumpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_loaded_states_move_to_the_weights_device():
    cpu_upd = mx.optimizer.get_updater(mx.optimizer.create('sgd', momentum=0.9))
    cpu_upd(0, mx.nd.ones(SHAPE), mx.nd.zeros(SHAPE))
    gpu_upd = mx.optimizer.get_updater(mx.optimizer.create('sgd', momentum=0.9))
    gpu_upd.set_states(cpu_upd.get_states())
    assert gpu_upd.states[0].context == mx.cpu(0)
    weight = mx.nd.zeros(SHAPE, ctx=mx.gpu(0))
    gpu_upd(0, mx.nd.ones(SHAPE, ctx=mx.gpu(0)), weight)
    assert gpu_upd.states[0].context == mx.gpu(0)
    np.testing.assert_allclose(weight.asnumpy(), -0.01 * 1.9, rtol=1e-6)
