"""Every case of MXNet 1.9.1's optimizers.json: four Updater steps, states, counters."""
import warnings

import numpy as np
import pytest

import symmod as mx
from optimizer_refdata import BASE, BASE_ARRAYS, make_scheduler, tolerance

CASES = {case['case']: case for case in BASE['cases']}


def _create(case):
    kwargs = dict(case['kwargs'])
    if case.get('param_idx2name'):
        kwargs['param_idx2name'] = {int(k): v for k, v in case['param_idx2name'].items()}
    if case.get('lr_scheduler'):
        kwargs['lr_scheduler'] = make_scheduler(case['lr_scheduler'])
    return mx.optimizer.create(case['optimizer'], **kwargs)


def _expected_state(spec):
    if spec is None:
        return None
    if spec['type'] == 'ndarray':
        return BASE_ARRAYS[spec['key']]
    return tuple(_expected_state(item) for item in spec['items'])


def _compare_state(actual, expected, dtype):
    if expected is None:
        assert actual is None
    elif isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _compare_state(a, e, dtype)
    else:
        assert actual.dtype == expected.dtype
        rtol, atol = tolerance(dtype)
        np.testing.assert_allclose(actual.asnumpy(), expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize('name', sorted(n for n, c in CASES.items() if c['status'] == 'ok'))
def test_case_matches_mxnet(name):
    case = CASES[name]
    dtype = case['dtype']
    keys = case['keys']
    opt = _create(case)
    updater = mx.optimizer.get_updater(opt)
    weight = mx.nd.array(BASE_ARRAYS[keys['w0']], dtype=dtype)
    rtol, atol = tolerance(dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        for step in range(4):
            g_host = BASE_ARRAYS[keys['grads'][step]]
            grad = mx.nd.array(g_host, dtype=dtype)
            updater(0, grad, weight)
            np.testing.assert_allclose(weight.asnumpy(), BASE_ARRAYS[keys['weights'][step]],
                                       rtol=rtol, atol=atol, err_msg='step %d' % (step + 1))
            if case['optimizer'] == 'adadelta':
                # MXNet rescales the caller's gradient array in place
                scaled = g_host * np.float32(case['kwargs'].get('rescale_grad', 1.0))
                np.testing.assert_allclose(grad.asnumpy(), scaled, rtol=1e-6)
            assert opt.learning_rate == pytest.approx(
                case['optimizer_learning_rate_after_each_step'][step], rel=1e-12)
    _compare_state(updater.states[0], _expected_state(case['state']), dtype)
    assert opt.num_update == case['num_update_after']
    assert opt._index_update_count == {int(k): v for k, v in
                                       case['index_update_count_after'].items()}
    assert opt._get_wd(0) == pytest.approx(case['effective_wd'], rel=1e-12)
    assert opt.wd_mult == case['wd_mult']
    messages = [str(w.message) for w in caught]
    assert messages == case['warnings']


@pytest.mark.parametrize('name', sorted(n for n, c in CASES.items() if c['status'] == 'error'))
def test_error_case_fails_like_mxnet(name):
    case = CASES[name]
    assert case['error'].startswith('ValueError: ')
    opt = _create(case)
    updater = mx.optimizer.get_updater(opt)
    weight = mx.nd.array(np.ones(BASE['shape'], dtype=np.float32))
    grad = mx.nd.array(np.ones(BASE['shape'], dtype=np.float32))
    with pytest.raises(ValueError, match='truth value of an NDArray'):
        updater(0, grad, weight)


def test_idx2name_rule_matches_plain_and_wd_cases():
    """fc_bias/bn_beta ignore wd; fc_weight/bn_gamma match the wd=0.1 case bit for bit."""
    for opt in ('sgd_mom', 'adam'):
        with_wd = BASE_ARRAYS['%s__wd0.1/w4' % opt]
        for name in ('fc_weight', 'bn_gamma'):
            np.testing.assert_array_equal(
                BASE_ARRAYS['%s__wd0.1_idx2name_%s/w4' % (opt, name)], with_wd)


def test_every_reference_case_is_run():
    ok = [c for c in CASES.values() if c['status'] == 'ok']
    errors = [c for c in CASES.values() if c['status'] == 'error']
    assert len(ok) + len(errors) == len(BASE['cases']) == 79
    assert {c['optimizer'] for c in errors} == {'dcasgd'}
