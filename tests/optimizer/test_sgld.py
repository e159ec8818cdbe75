"""SGLD is random: check the mean and spread of its steps, and seeding."""
import numpy as np
import pytest

import symmod as mx
from symmod.optimizer.kernels import reference

N = 200_000


@pytest.mark.parametrize('kwargs', [{'learning_rate': 0.04, 'wd': 0.1},
                                    {'learning_rate': 0.01, 'rescale_grad': 0.5,
                                     'clip_gradient': 0.2}])
def test_step_statistics(kwargs):
    mx.random.seed(11)
    w0 = np.full(N, 0.5, dtype=np.float32)
    g = np.full(N, 0.8, dtype=np.float32)
    weight = mx.nd.array(w0)
    updater = mx.optimizer.get_updater(mx.optimizer.create('sgld', **kwargs))
    updater(0, mx.nd.array(g), weight)
    lr = kwargs['learning_rate']
    mean = reference.sgld_mean(w0, g, lr, kwargs.get('wd', 0.0), kwargs.get('rescale_grad', 1),
                               kwargs.get('clip_gradient', -1))[0]
    noise = weight.asnumpy().astype(np.float64) - mean
    std = np.sqrt(lr)
    assert abs(noise.mean()) < 5 * std / np.sqrt(N)
    assert noise.std() == pytest.approx(std, rel=0.01)
    # roughly Gaussian: the fraction within one sigma
    assert np.mean(np.abs(noise) < std) == pytest.approx(0.6827, abs=0.01)


def test_seed_makes_runs_repeatable():
    def run(seed):
        mx.random.seed(seed)
        w = mx.nd.zeros((1000,))
        updater = mx.optimizer.get_updater(mx.optimizer.create('sgld', learning_rate=0.1))
        for _ in range(2):
            updater(0, mx.nd.ones((1000,)), w)
        return w.asnumpy()
    np.testing.assert_array_equal(run(3), run(3))
    assert not np.array_equal(run(3), run(4))


def test_noise_differs_between_steps_and_tensors():
    mx.random.seed(0)
    updater = mx.optimizer.get_updater(mx.optimizer.create('sgld', learning_rate=0.1))
    a, b = mx.nd.zeros((500,)), mx.nd.zeros((500,))
    updater([0, 1], [mx.nd.zeros((500,)), mx.nd.zeros((500,))], [a, b])
    first = a.asnumpy().copy()
    assert not np.array_equal(first, b.asnumpy())
    updater([0, 1], [mx.nd.zeros((500,)), mx.nd.zeros((500,))], [a, b])
    assert not np.allclose(a.asnumpy() - first, first)
