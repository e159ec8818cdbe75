"""Optimizer steps with row_sparse gradients (lazy and standard updates, row_sparse weights,
the dense fallback) against MXNet 1.9.1 (tests/data/gen/gen_sparse_optimizer_reference.py)."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx

DATA = pathlib.Path(__file__).resolve().parents[1] / 'data' / 'sparse'
REF = np.load(DATA / 'optimizer_reference.npz')
CASES = json.loads((DATA / 'optimizer_cases.json').read_text())


def _states(state):
    if state is None:
        return []
    if isinstance(state, (tuple, list)):
        return [s for item in state for s in _states(item)]
    return [state]


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_row_sparse_gradient_steps_match_mxnet(case):
    name = case['name']
    opt = mx.optimizer.create(case['optimizer'], **case['kwargs'])
    updater = mx.optimizer.get_updater(opt)
    weight = mx.nd.array(REF['%s/w0' % name])
    if case['weight_stype'] == 'row_sparse':
        weight = weight.tostype('row_sparse')
    shape = weight.shape
    second = None
    for step in range(case['steps']):
        grad = mx.nd.sparse.row_sparse_array(
            (REF['%s/g%d_values' % (name, step)], REF['%s/g%d_rows' % (name, step)]),
            shape=shape)
        if case['weight_stype'] == 'mixed':
            if second is None:
                second = mx.nd.array(REF['%s/second0' % name])
            updater([0, 1], [grad, mx.nd.array(REF['%s/dense_g%d' % (name, step)])],
                    [weight, second])
            np.testing.assert_allclose(second.asnumpy(), REF['%s/w%d_second' % (name, step + 1)],
                                       rtol=1e-6, atol=1e-7)
        else:
            updater(0, grad, weight)
        assert weight.stype == ('row_sparse' if case['weight_stype'] == 'row_sparse'
                                else 'default')
        np.testing.assert_allclose(weight.asnumpy(), REF['%s/w%d' % (name, step + 1)],
                                   rtol=1e-6, atol=1e-7, err_msg='%s step %d' % (name, step))
        for k, state in enumerate(_states(updater.states[0])):
            np.testing.assert_allclose(state.asnumpy(), REF['%s/s%d_%d' % (name, step + 1, k)],
                                       rtol=1e-6, atol=1e-7,
                                       err_msg='%s state %d step %d' % (name, k, step))


def test_lazy_update_touches_only_gradient_rows():
    weight = mx.nd.ones((5, 2))
    grad = mx.nd.sparse.row_sparse_array(([[1., 1.]], [3]), shape=(5, 2))
    opt = mx.optimizer.Adam(learning_rate=0.1, wd=0.1)
    updater = mx.optimizer.get_updater(opt)
    updater(0, grad, weight)
    changed = np.flatnonzero((weight.asnumpy() != 1).any(axis=1))
    np.testing.assert_array_equal(changed, [3])
    mean, var = updater.states[0]
    assert not np.delete(mean.asnumpy(), 3, axis=0).any()


def test_sparse_adagrad_refuses_weight_decay():
    grad = mx.nd.sparse.row_sparse_array(([[1., 1.]], [1]), shape=(3, 2))
    updater = mx.optimizer.get_updater(mx.optimizer.AdaGrad(wd=0.1))
    with pytest.raises(mx.MXNetError, match='does not support wd'):
        updater(0, grad, mx.nd.ones((3, 2)))


def test_partial_row_sparse_weight_is_refused():
    weight = mx.nd.sparse.row_sparse_array(([[1., 1.]], [1]), shape=(3, 2))
    grad = mx.nd.sparse.row_sparse_array(([[1., 1.]], [1]), shape=(3, 2))
    with pytest.raises(mx.MXNetError, match='all 3 rows'):
        mx.optimizer.get_updater(mx.optimizer.SGD())(0, grad, weight)


# MXNet 1.9.1 logs its lazy-update notice (LogOnce) for these updates with a row_sparse
# gradient, and not for the others (checked with one fresh process per case)
LAZY_NOTICE_CASES = [('sgd', {}, False), ('sgd', {'wd': 0.1}, True),
                     ('sgd', {'momentum': 0.9}, True),
                     ('sgd', {'momentum': 0.9, 'lazy_update': False}, False),
                     ('adam', {}, True), ('adam', {'lazy_update': False}, False),
                     ('adagrad', {}, False), ('ftrl', {}, False)]


@pytest.mark.parametrize('name, kwargs, logged', LAZY_NOTICE_CASES,
                         ids=['%s-%s' % (c[0], c[1]) for c in LAZY_NOTICE_CASES])
def test_lazy_update_notice_is_logged_once_where_mxnet_logs_it(name, kwargs, logged, caplog,
                                                               monkeypatch):
    from symmod.optimizer import sparse
    monkeypatch.setattr(sparse, '_logged', set())
    updater = mx.optimizer.get_updater(mx.optimizer.create(name, learning_rate=0.1,
                                                           **kwargs))
    weight = mx.nd.ones((4, 2))
    grad = mx.nd.sparse.row_sparse_array((np.ones((1, 2), np.float32), [1]), shape=(4, 2))
    with caplog.at_level('INFO', logger='symmod.optimizer'):
        updater(0, grad, weight)
        updater(0, grad, weight)
    notices = [r for r in caplog.records if 'lazy_update = True detected' in r.getMessage()]
    assert len(notices) == int(logged)
