"""The fused update functions with row_sparse gradients against MXNet 1.9.1
(tests/data/gen/gen_sparse_update_ops_reference.py): ``mx.nd.sgd_update``,
``sgd_mom_update`` and ``adam_update`` update only the gradient's rows (lazy) or every
row (``lazy_update=False``), in place only; the others densify the gradient; and
``mx.nd.sparse`` holds them and ``adagrad_update``. symmod raised AttributeError for any
row_sparse gradient and had none of the ``mx.nd.sparse`` names."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError

DATA = pathlib.Path(__file__).resolve().parents[1] / 'data' / 'sparse'
REF = np.load(DATA / 'update_ops_reference.npz')
CASES = json.loads((DATA / 'update_ops_cases.json').read_text())


def _grad(name, step):
    return mx.nd.sparse.row_sparse_array(
        (REF['%s/g%d_values' % (name, step)], REF['%s/g%d_rows' % (name, step)]),
        shape=REF['%s/w0' % name].shape)


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_update_with_row_sparse_gradient_matches_mxnet(case):
    name = case['name']
    namespace = mx.nd if case['namespace'] == 'nd' else mx.nd.sparse
    update = getattr(namespace, case['op'])
    weight = mx.nd.array(REF['%s/w0' % name])
    states = [mx.nd.array(REF['%s/s%d_0' % (name, i)]) for i in range(case['n_states'])]
    if case['error']:
        match = 'in place' if 'kWriteInplace' in case['error'] else 'does not support wd'
        with pytest.raises(MXNetError, match=match):
            kwargs = dict(case['kwargs'], **({'out': weight} if case['in_place'] else {}))
            update(weight, _grad(name, 0), *states, **kwargs)
        return
    for step in range(case['steps']):
        if case['in_place']:
            result = update(weight, _grad(name, step), *states, out=weight, **case['kwargs'])
            assert result is weight
        else:
            result = update(weight, _grad(name, step), *states, **case['kwargs'])
        tag = '%s step %d' % (name, step)
        np.testing.assert_allclose(result.asnumpy(), REF['%s/w%d' % (name, step + 1)],
                                   rtol=1e-5, atol=1e-6, err_msg=tag)
        np.testing.assert_allclose(weight.asnumpy(), REF['%s/unchanged%d' % (name, step + 1)],
                                   rtol=1e-5, atol=1e-6, err_msg=tag)
        for i, state in enumerate(states):
            np.testing.assert_allclose(state.asnumpy(), REF['%s/s%d_%d' % (name, i, step + 1)],
                                       rtol=1e-5, atol=1e-6, err_msg=tag)


def test_lazy_update_leaves_rows_without_gradient_untouched():
    weight = mx.nd.array(np.arange(12, dtype=np.float32).reshape(4, 3))
    before = weight.asnumpy()
    grad = mx.nd.sparse.row_sparse_array((np.ones((1, 3), np.float32), [2]), shape=(4, 3))
    mean, var = mx.nd.zeros((4, 3)), mx.nd.zeros((4, 3))
    mx.nd.adam_update(weight, grad, mean, var, lr=0.1, wd=0.5, out=weight)
    after = weight.asnumpy()
    np.testing.assert_array_equal(after[[0, 1, 3]], before[[0, 1, 3]])
    assert (after[2] != before[2]).all()
    assert not mean.asnumpy()[[0, 1, 3]].any()


def test_sparse_weights_and_csr_gradients_are_refused_clearly():
    grad = mx.nd.sparse.row_sparse_array((np.ones((1, 3), np.float32), [2]), shape=(4, 3))
    weight = mx.nd.ones((4, 3)).tostype('row_sparse')
    with pytest.raises(MXNetError, match='weight must have default storage'):
        mx.nd.sgd_update(weight, grad, lr=0.1, out=weight)
    dense = mx.nd.ones((4, 3))
    with pytest.raises(MXNetError, match='default or row_sparse storage, found csr'):
        mx.nd.sgd_update(dense, mx.nd.ones((4, 3)).tostype('csr'), lr=0.1, out=dense)


def test_dense_gradients_keep_the_dense_path():
    weight, mom = mx.nd.ones((2, 2)), mx.nd.zeros((2, 2))
    mx.nd.sgd_mom_update(weight, mx.nd.ones((2, 2)), mom, lr=0.1, momentum=0.9, out=weight)
    np.testing.assert_allclose(weight.asnumpy(), np.full((2, 2), 0.9), rtol=1e-6)
    fresh = mx.nd.sgd_update(weight, mx.nd.ones((2, 2)), lr=0.1)    # a new array
    np.testing.assert_allclose(fresh.asnumpy(), np.full((2, 2), 0.8), rtol=1e-6)
    np.testing.assert_allclose(weight.asnumpy(), np.full((2, 2), 0.9), rtol=1e-6)
