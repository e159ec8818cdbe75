"""mx.random / mx.nd.random: seeding and MXNet's sampler signatures and shape rules."""
import numpy as np
import pytest

import symmod as mx


def test_seed_makes_draws_repeatable():
    mx.random.seed(7)
    a = mx.nd.random.uniform(shape=(3, 4)).asnumpy()
    mx.random.seed(7)
    b = mx.random.uniform(shape=(3, 4)).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert mx.nd.random.uniform is mx.random.uniform
    with pytest.raises(ValueError):
        mx.random.seed('x')


def test_shapes_dtypes_and_out():
    assert mx.nd.random.uniform().shape == (1,)
    assert mx.nd.random.normal(shape=5).shape == (5,)
    assert mx.nd.random.uniform(shape=(2, 3)).dtype == np.float32
    assert mx.nd.random.normal(shape=(2,), dtype='float64').dtype == np.float64
    assert mx.nd.random.randn(2, 3).shape == (2, 3)
    assert mx.nd.random.randint(0, 5, shape=(4,)).dtype == np.int32
    out = mx.nd.zeros((2, 2))
    assert mx.nd.random.uniform(2, 3, out=out) is out
    assert ((out.asnumpy() >= 2) & (out.asnumpy() < 3)).all()
    # NDArray parameters: `shape` samples per element
    low = mx.nd.array([0, 10])
    high = mx.nd.array([1, 11])
    draws = mx.nd.random.uniform(low, high, shape=(1000,))
    assert draws.shape == (2, 1000)
    values = draws.asnumpy()
    assert (values[0] < 1).all() and (values[1] >= 10).all()
    with pytest.raises(ValueError, match='all be NDArrays'):
        mx.nd.random.uniform(low, 3)


@pytest.mark.parametrize('sampler, kwargs, mean, var', [
    (mx.nd.random.uniform, dict(low=-1, high=3), 1.0, 16 / 12),
    (mx.nd.random.normal, dict(loc=2, scale=0.5), 2.0, 0.25),
    (mx.nd.random.exponential, dict(scale=2), 2.0, 4.0),
    (mx.nd.random.gamma, dict(alpha=3, beta=2), 6.0, 12.0),
    (mx.nd.random.poisson, dict(lam=4), 4.0, 4.0),
    (mx.nd.random.negative_binomial, dict(k=3, p=0.4), 4.5, 11.25),
    (mx.nd.random.generalized_negative_binomial, dict(mu=2, alpha=0.5), 2.0, 4.0),
])
def test_distribution_moments(sampler, kwargs, mean, var):
    mx.random.seed(0)
    x = sampler(shape=(200000,), **kwargs).asnumpy().astype(np.float64)
    assert abs(x.mean() - mean) < 0.03 * max(1, abs(mean))
    assert abs(x.var() - var) < 0.05 * var


def test_multinomial_and_shuffle():
    mx.random.seed(1)
    probs = mx.nd.array([[0.1, 0.9, 0.0], [1.0, 0.0, 0.0]])
    picks = mx.nd.random.multinomial(probs, shape=5000).asnumpy()
    assert picks.shape == (2, 5000)
    assert set(np.unique(picks[1])) == {0}
    assert abs((picks[0] == 1).mean() - 0.9) < 0.02 and not (picks[0] == 2).any()
    one, logp = mx.nd.random.multinomial(probs, get_prob=True)
    assert one.shape == (2,) and np.allclose(np.exp(logp.asnumpy())[1], 1.0)
    data = mx.nd.array(np.arange(10))
    shuffled = mx.nd.random.shuffle(data).asnumpy()
    assert sorted(shuffled.tolist()) == list(range(10))
