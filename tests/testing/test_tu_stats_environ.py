"""mx.test_utils statistical checks and harness helpers."""
import os

import numpy as np
import pytest
import scipy.stats as ss

from symmod import test_utils as tu


def test_buckets_from_ppf_have_equal_probability():
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda p: ss.uniform.ppf(p, 0, 1), 4)
    assert probs == [0.25] * 4
    np.testing.assert_allclose([b[0] for b in buckets], [0, 0.25, 0.5, 0.75])


def test_verify_generator_accepts_the_right_distribution_and_rejects_a_wrong_one():
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda p: ss.norm.ppf(p, 0, 1), 5)
    rng = np.random.default_rng(3)
    p_values = tu.verify_generator(lambda n: rng.normal(0, 1, n), buckets, probs,
                                   nsamples=20000)
    assert len(p_values) == 5
    with pytest.raises(AssertionError, match='Generator test fails'):
        tu.verify_generator(lambda n: rng.normal(0.2, 1, n), buckets, probs, nsamples=20000)


def test_chi_square_check_discrete():
    rng = np.random.default_rng(0)
    p, obs, exp = tu.chi_square_check(lambda n: rng.integers(0, 3, n), [0, 1, 2],
                                      [1 / 3.] * 3, nsamples=3000)
    assert obs.sum() == 3000 and p > 1e-4


def test_mean_and_var_checks():
    rng = np.random.default_rng(1)
    assert tu.mean_check(lambda n: rng.normal(0, 1, n), 0, 1, nsamples=100000)
    assert not tu.mean_check(lambda n: rng.normal(0.5, 1, n), 0, 1, nsamples=100000)
    assert tu.var_check(lambda n: rng.normal(0, 2, n), 2, nsamples=100000)
    assert not tu.var_check(lambda n: rng.normal(0, 3, n), 2, nsamples=100000)


def test_environment_sets_and_restores(monkeypatch):
    monkeypatch.setenv('TU_A', 'old')
    monkeypatch.delenv('TU_B', raising=False)
    with tu.environment({'TU_A': 'new', 'TU_B': '1'}):
        assert os.environ['TU_A'] == 'new' and os.environ['TU_B'] == '1'
        with tu.environment('TU_A', None):
            assert 'TU_A' not in os.environ
        assert os.environ['TU_A'] == 'new'
    assert os.environ['TU_A'] == 'old' and 'TU_B' not in os.environ
    with pytest.raises(RuntimeError):
        with tu.environment('TU_A', 'x'):
            raise RuntimeError('body fails')
    assert os.environ['TU_A'] == 'old'


def test_discard_stderr_silences_file_descriptor_2(capfd):
    with tu.discard_stderr():
        os.write(2, b'hidden\n')
    os.write(2, b'shown\n')
    err = capfd.readouterr().err
    assert 'hidden' not in err and 'shown' in err


def test_retry_reruns_failing_attempts():
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) >= 2

    flaky()
    assert len(calls) == 2

    @tu.retry(2)
    def always():
        assert False

    with pytest.raises(AssertionError):
        always()


def test_assert_exception():
    tu.assert_exception(int, ValueError, 'x')
    with pytest.raises(AssertionError):
        tu.assert_exception(int, ValueError, '3')
