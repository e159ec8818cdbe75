"""dist_sync with row_sparse values on 2 workers under mpiexec (tests/distributed/scripts/
sparse_sync.py), against numpy sums of what the workers pushed."""
import os

import numpy as np
import pytest

import mpirun

WORKERS = 2


@pytest.fixture(scope='module')
def ranks(tmp_path_factory):
    job = mpirun.run('sparse_sync.py', WORKERS, tmp_path_factory.mktemp('sparse'))
    return mpirun.results(job, WORKERS)


def _rsp(rows, scale):
    dense = np.zeros((8, 3), dtype=np.float32)
    dense[rows] = np.arange(len(rows) * 3, dtype=np.float32).reshape(len(rows), 3) + scale
    return dense


def test_every_rank_sees_the_same_values(ranks):
    for name in ranks[0]:
        if '/grad_' in name:       # each worker's own gradient of its samples
            continue
        assert ranks[0][name].tobytes() == ranks[1][name].tobytes(), name


def test_init_push_and_row_sparse_pull(ranks):
    np.testing.assert_array_equal(ranks[0]['init'], _rsp([1, 6], 10))
    expected = sum(_rsp([r, 7], 1) + _rsp([r + 2], 2) for r in range(WORKERS))
    np.testing.assert_array_equal(ranks[0]['push'], expected)
    np.testing.assert_array_equal(ranks[0]['push_rows'], [0, 1, 2, 3, 7])
    np.testing.assert_array_equal(ranks[0]['pull_rows'], [0, 7])


def test_lazy_update_in_the_store(ranks):
    grad = sum(_rsp([2 * r + 1], 1) for r in range(WORKERS))
    expected = np.ones((8, 3), dtype=np.float32)
    for row in (1, 3):
        expected[row] = np.float32(1 - 0.5 * 0.1) * 1 - np.float32(0.5) * grad[row]
    np.testing.assert_allclose(ranks[0]['opt'], expected, rtol=1e-6)


def test_pushpull_stores_the_sum_and_leaves_sparse_outputs_alone(ranks):
    assert ranks[0]['pushpull_sparse_rows'].shape == (0,)
    np.testing.assert_array_equal(ranks[0]['pushpull_dense'],
                                  sum(_rsp([r + 4], 1) for r in range(WORKERS)))


@pytest.mark.parametrize('name', ['sgd_mom', 'adam'])
def test_gluon_sparse_embedding_on_two_workers_matches_mxnet_two_contexts(ranks, name):
    # reference: MXNet 1.9.1, one process, two contexts (tests/data/sparse/
    # gluon_sparse_weight.npz); worker r here takes context r's samples
    ref = np.load(os.path.join(os.path.dirname(__file__), '..', 'data', 'sparse',
                               'gluon_sparse_weight.npz'))
    assert ranks[0]['gluon/%s/update_on_kvstore' % name]
    np.testing.assert_array_equal(ranks[0]['gluon/%s/grad_indices' % name],
                                  ref['%s/2/grad_indices' % name])
    for what in ('embedding', 'weight', 'bias'):
        np.testing.assert_allclose(ranks[0]['gluon/%s/%s' % (name, what)],
                                   ref['%s/2/%s' % (name, what)], rtol=2e-5, atol=1e-6,
                                   err_msg=what)
