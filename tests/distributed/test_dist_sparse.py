"""dist_sync with row_sparse values on 2 workers under mpiexec (tests/distributed/scripts/
sparse_sync.py), against numpy sums of what the workers pushed."""
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
