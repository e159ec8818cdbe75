"""The sampling operators (_random_*, _random_*_like, _sample_*, _sample_multinomial,
_random_randint, _shuffle, _sample_unique_zipfian) and the densities (_random_pdf_*):
densities against MXNet 1.9.1's numbers (tests/data/gen/gen_ops_array_math_reference.py),
scipy and float64 finite differences; samplers by their moments, shapes, dtypes and
MXNet's seeding semantics in NDArray calls and in bound graphs."""
import numpy as np
import pytest
import scipy.stats as ss

import symmod as mx
from symmod.ops import random_draw
from symmod.test_utils import check_numeric_gradient

from recorded_cases import case_names, replay

DISTRIBUTIONS = sorted(random_draw.DISTRIBUTIONS)
PDFS = DISTRIBUTIONS + ['dirichlet']
TESTED_OPS = ({'_random_%s' % d for d in DISTRIBUTIONS} |
              {'_random_%s_like' % d for d in DISTRIBUTIONS} |
              {'_sample_%s' % d for d in DISTRIBUTIONS} |
              {'_random_pdf_%s' % d for d in PDFS} |
              {'_sample_multinomial', '_random_randint', '_shuffle', '_sample_unique_zipfian'})
REFERENCE = 'ops_array_math_reference.npz'
RNG = np.random.RandomState(5)

# distribution -> (scalar parameters, mean, variance)
MOMENTS = {
    'uniform': ({'low': -1.0, 'high': 3.0}, 1.0, 16 / 12.),
    'normal': ({'loc': 2.0, 'scale': 0.5}, 2.0, 0.25),
    'gamma': ({'alpha': 3.0, 'beta': 2.0}, 6.0, 12.0),
    'exponential': ({'lam': 0.5}, 2.0, 4.0),
    'poisson': ({'lam': 4.0}, 4.0, 4.0),
    'negative_binomial': ({'k': 3, 'p': 0.4}, 4.5, 11.25),
    'generalized_negative_binomial': ({'mu': 2.0, 'alpha': 0.5}, 2.0, 4.0),
}


@pytest.mark.parametrize('name', case_names(REFERENCE, {'random_pdf_' + d for d in PDFS}))
def test_pdf_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-4, atol=1e-5)


def _check_moments(values, mean, var):
    values = values.astype(np.float64)
    assert abs(values.mean() - mean) < 0.03 * max(1.0, abs(mean)), values.mean()
    assert abs(values.var() - var) < 0.06 * var, values.var()


@pytest.mark.parametrize('distr', DISTRIBUTIONS)
def test_scalar_sampler_moments_in_a_graph(distr):
    params, mean, var = MOMENTS[distr]
    sym = getattr(mx.sym, '_random_' + distr)(shape=(40000,), **params)
    mx.random.seed(3)
    first = sym.eval()[0].asnumpy()
    _check_moments(first, mean, var)
    mx.random.seed(3)
    np.testing.assert_array_equal(sym.eval()[0].asnumpy(), first)


@pytest.mark.parametrize('distr', DISTRIBUTIONS)
def test_like_sampler_takes_shape_and_dtype_of_data(distr):
    params, mean, var = MOMENTS[distr]
    data = mx.nd.zeros((200, 200), dtype='float64')
    out = getattr(mx.nd._internal, '_random_%s_like' % distr)(data, **params)
    assert out.shape == (200, 200) and out.dtype == np.float64
    _check_moments(out.asnumpy(), mean, var)


@pytest.mark.parametrize('distr', DISTRIBUTIONS)
def test_array_sampler_draws_per_parameter_element(distr):
    params, mean, var = MOMENTS[distr]
    names = random_draw.DISTRIBUTIONS[distr][1]
    values = list(params.values())
    arrays = {n: mx.nd.array([v, v]) for n, v in zip(names, values)}
    out = getattr(mx.nd, 'sample_' + distr)(**arrays, shape=(20000,))
    assert out.shape == (2, 20000) and out.dtype == np.float32
    _check_moments(out.asnumpy()[1], mean, var)
    sym = getattr(mx.sym, 'sample_' + distr)(*[mx.sym.var(n) for n in names], shape=(3,))
    assert sym.infer_shape(**{n: (4, 2) for n in names})[1] == [(4, 2, 3)]


def test_random_ops_in_a_bound_graph_follow_the_seed():
    x = mx.sym.var('x')
    y = mx.sym.random.uniform(low=-1, high=1) + x    # shape from x
    assert y.infer_shape(x=(3, 4))[1] == [(3, 4)]
    grad = mx.nd.zeros((3, 4))
    exe = y.bind(mx.cpu(), {'x': mx.nd.zeros((3, 4))}, {'x': grad})
    mx.random.seed(42)
    exe.forward(is_train=True)
    first = exe.outputs[0].asnumpy()
    exe.backward(exe.outputs[0])
    np.testing.assert_array_equal(grad.asnumpy(), first)
    mx.random.seed(42)
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), first)
    assert not np.array_equal(exe.forward()[0].asnumpy(), first)


def test_sampler_dtypes_and_errors():
    assert mx.nd._internal._random_normal(shape=(2,), dtype='float64').dtype == np.float64
    assert mx.nd.random_randint(0, 5, shape=(9,)).dtype == np.int32
    values = mx.nd.random_randint(-3, 2, shape=(500,), dtype='int64')
    assert values.dtype == np.int64 and set(values.asnumpy()) == {-3, -2, -1, 0, 1}
    with pytest.raises(mx.MXNetError, match='float16, float32, float64'):
        mx.nd._internal._random_uniform(shape=(2,), dtype='int32')
    with pytest.raises(mx.MXNetError, match='non-zero'):
        mx.nd.sample_normal(mx.nd.ones((2,)), mx.nd.ones((2,)), shape=(0,))
    with pytest.raises(mx.MXNetError, match='below'):
        mx.nd.random_randint(3, 3, shape=(2,))


def test_multinomial_samples_and_log_probability_gradient():
    mx.random.seed(1)
    probs = mx.nd.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]])
    picks = mx.nd.sample_multinomial(probs, shape=(4000,)).asnumpy()
    assert picks.shape == (2, 4000) and picks.dtype == np.int32
    assert abs((picks[0] == 1).mean() - 0.8) < 0.03 and not (picks[0] == 2).any()
    probs.attach_grad()
    with mx.autograd.record():
        idx, logp = mx.nd.sample_multinomial(probs, shape=(5,), get_prob=True)
    logp.backward(mx.nd.ones_like(logp))
    chosen = probs.asnumpy()[np.arange(2)[:, None], idx.asnumpy()]
    np.testing.assert_allclose(np.exp(logp.asnumpy()), chosen, rtol=1e-6)
    expected = np.zeros((2, 3))
    for row in range(2):
        for pick in idx.asnumpy()[row]:
            expected[row, pick] += 1 / probs.asnumpy()[row, pick]
    np.testing.assert_allclose(probs.grad.asnumpy(), expected, rtol=1e-5)


def test_shuffle_permutes_the_first_axis():
    data = mx.nd.array(np.arange(40).reshape(20, 2))
    out = mx.nd.shuffle(data).asnumpy()
    assert sorted(out[:, 0].tolist()) == list(range(0, 40, 2))
    np.testing.assert_array_equal(out[:, 1] - out[:, 0], 1)


def test_unique_zipfian_samples_are_distinct_and_log_uniform():
    samples, tries = mx.nd._internal._sample_unique_zipfian(range_max=50, shape=(3, 20))
    samples = samples.asnumpy()
    assert samples.dtype == np.int64 and samples.min() >= 0 and samples.max() < 50
    assert all(len(set(row)) == 20 for row in samples)
    assert (tries.asnumpy() >= 20).all()
    mx.random.seed(2)
    draws = mx.nd._internal._sample_unique_zipfian(range_max=1000, shape=(4000, 1))[0]
    draws = draws.asnumpy().ravel()
    # MXNet's kernel rounds exp(u), u ~ U[0, log(range_max)): P(class 0) = log(1.5) / log(1000)
    assert abs((draws == 0).mean() - np.log(1.5) / np.log(1000)) < 0.015
    with pytest.raises(mx.MXNetError, match='exceed'):
        mx.nd._internal._sample_unique_zipfian(range_max=5, shape=(1, 6))


PDF_CASES = {
    'normal': ([RNG.randn(2, 5), RNG.randn(2), RNG.uniform(0.5, 2, 2)],
               lambda x, m, s: ss.norm.pdf(x, m, s)),
    'uniform': ([RNG.uniform(0, 1, (2, 5)), RNG.uniform(-2, -1, 2), RNG.uniform(1, 2, 2)],
                lambda x, lo, hi: ss.uniform.pdf(x, lo, hi - lo)),
    'gamma': ([RNG.uniform(0.2, 3, (2, 5)), RNG.uniform(0.5, 3, 2), RNG.uniform(0.5, 2, 2)],
              lambda x, a, b: ss.gamma.pdf(x, a, 0, 1 / b)),
    'exponential': ([RNG.uniform(0.1, 3, (2, 5)), RNG.uniform(0.5, 2, 2)],
                    lambda x, lam: ss.expon.pdf(x, 0, 1 / lam)),
    'poisson': ([np.floor(RNG.uniform(0, 6, (2, 5))), RNG.uniform(0.5, 4, 2)],
                lambda x, lam: ss.poisson.pmf(x, lam)),
    'negative_binomial': ([np.floor(RNG.uniform(0, 6, (2, 5))), RNG.uniform(1, 5, 2),
                           RNG.uniform(0.2, 0.8, 2)],
                          lambda x, k, p: ss.nbinom.pmf(x, k, p)),
    'generalized_negative_binomial': (
        [np.floor(RNG.uniform(0, 6, (2, 5))), RNG.uniform(0.5, 4, 2), RNG.uniform(0.2, 2, 2)],
        lambda x, mu, a: ss.nbinom.pmf(x, 1 / a, 1 / (1 + mu * a))),
}


@pytest.mark.parametrize('distr', sorted(PDF_CASES))
@pytest.mark.parametrize('is_log', [False, True])
def test_pdf_against_scipy_and_finite_differences(distr, is_log):
    inputs, reference = PDF_CASES[distr]
    names = ['v%d' % i for i in range(len(inputs))]
    sym = getattr(mx.sym, 'random_pdf_' + distr)(*[mx.sym.var(n) for n in names],
                                                 is_log=is_log)
    out = sym.eval(**{n: mx.nd.array(v, dtype='float64') for n, v in zip(names, inputs)})
    want = reference(inputs[0], *[p[:, None] for p in inputs[1:]])
    want = np.log(want) if is_log else want
    np.testing.assert_allclose(out[0].asnumpy(), want, rtol=1e-10)
    discrete = distr in ('poisson', 'negative_binomial', 'generalized_negative_binomial')
    check_numeric_gradient(sym, inputs, grad_nodes=names[1:] if discrete else names,
                           numeric_eps=1e-6, rtol=1e-4, atol=1e-7, dtype=np.float64)


def test_dirichlet_pdf_against_scipy():
    alpha = RNG.uniform(0.5, 2, (2, 3))
    sample = np.stack([RNG.dirichlet(a, size=4) for a in alpha])
    sym = mx.sym.random_pdf_dirichlet(mx.sym.var('s'), mx.sym.var('a'), is_log=True)
    out = sym.eval(s=mx.nd.array(sample, dtype='float64'), a=mx.nd.array(alpha, dtype='float64'))
    want = [[ss.dirichlet.logpdf(sample[i, j], alpha[i]) for j in range(4)] for i in range(2)]
    np.testing.assert_allclose(out[0].asnumpy(), want, rtol=1e-10)
    check_numeric_gradient(sym, [sample, alpha], numeric_eps=1e-7, rtol=1e-4, atol=1e-6,
                           dtype=np.float64)


def test_invalid_distribution_parameters_are_mxnet_errors():
    # numpy refuses a negative scale with ValueError; symmod reports an MXNetError naming
    # the operator at the first read of the result, as MXNet's engine does
    with pytest.raises(mx.MXNetError, match='_random_normal: invalid distribution'):
        mx.nd.random.normal(0, -1, shape=(2, 2)).asnumpy()
    with pytest.raises(mx.MXNetError, match='_sample_normal: invalid distribution'):
        mx.nd.sample_normal(mx.nd.array([0.0]), mx.nd.array([-1.0]), shape=(2,)).asnumpy()
    exe = mx.sym.random.normal(0, -1, shape=(2, 2)).bind(mx.cpu(), {})
    exe.forward()
    with pytest.raises(mx.MXNetError, match='scale < 0'):
        exe.outputs[0].asnumpy()
