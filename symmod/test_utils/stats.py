"""Statistical checks of random generators: mean, variance and chi-square tests."""
import numpy as np

__all__ = ['gen_buckets_probs_with_ppf', 'mean_check', 'var_check', 'chi_square_check',
           'verify_generator']


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equal-probability buckets of a distribution given its quantile function.

    Returns
    -------
    buckets : list of (low, high)
    probs : list of float
    """
    assert nbuckets > 0
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets)))
               for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the mean of ``generator(nsamples)`` lies within mu +- 3 sigma / sqrt(n)."""
    samples = np.array(generator(nsamples))
    mean = samples.mean()
    bound = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - bound < mean < mu + bound)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance lies within sigma^2 +- 3 sqrt(2 sigma^4 / (n - 1))."""
    samples = np.array(generator(nsamples))
    var = samples.var(ddof=1)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - bound < var < sigma ** 2 + bound)


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Chi-square test of ``generator`` against bucket probabilities.

    Parameters
    ----------
    generator : callable
        ``generator(n)`` returns n i.i.d. samples.
    buckets : list of (low, high) or list of values
        Ascending, non-overlapping ranges (continuous) or the possible values (discrete).
    probs : list of float
        Expected probability of each bucket.
    nsamples : int

    Returns
    -------
    p : float
        The test's p-value.
    obs_freq, expected_freq : numpy.ndarray
    """
    import scipy.stats as ss
    assert isinstance(buckets, list)
    assert len(probs) == len(buckets)
    samples = generator(nsamples)
    if hasattr(samples, 'asnumpy'):
        samples = samples.asnumpy()
    samples = np.asarray(samples).reshape(-1)
    expected_freq = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    obs_freq = np.zeros(len(buckets), dtype=np.int64)
    if isinstance(buckets[0], (list, tuple)):
        edges = np.zeros(len(buckets) * 2, dtype=np.float32)
        for i, (low, high) in enumerate(buckets):
            assert low <= high
            if i < len(buckets) - 1:
                assert high <= buckets[i + 1][0]
            edges[2 * i], edges[2 * i + 1] = low, high
        ids = np.searchsorted(edges, samples, side='right') // 2
        for i in range(len(buckets)):
            obs_freq[i] = (ids == i).sum()
    else:
        for i, value in enumerate(buckets):
            obs_freq[i] = (samples == value).sum()
    # scipy insists that observed and expected totals agree; rescale the expectation
    expected = expected_freq * (obs_freq.sum() / max(expected_freq.sum(), 1))
    _, p = ss.chisquare(f_obs=obs_freq, f_exp=expected)
    return p, obs_freq, expected_freq


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2,
                     alpha=0.05):
    """Repeat :func:`chi_square_check`; AssertionError unless enough runs have p > alpha.

    Returns
    -------
    list of float
        The p-values.
    """
    p_values, observed, expected = [], [], []
    for _ in range(nrepeat):
        p, obs, exp = chi_square_check(generator=generator, buckets=buckets, probs=probs,
                                       nsamples=nsamples)
        p_values.append(p)
        observed.append(obs)
        expected.append(exp)
    if (np.array(p_values) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError('Generator test fails, Chi-square p=%s, obs_freq=%s, '
                             'expected_freq=%s.\nbuckets=%s, probs=%s'
                             % (p_values, observed, expected, buckets, probs))
    return p_values
