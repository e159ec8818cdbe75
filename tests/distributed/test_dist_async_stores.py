"""Two dist_async stores in one job of 2 workers and 1 server keep their keys apart on
the server (scripts/async_stores.py): before, the second store's init replaced the
first store's values under the same key ids."""
import numpy as np
import pytest

import symmod as mx
import mpirun

WORKERS = 2


@pytest.fixture(scope='module')
def job(tmp_path_factory):
    return mpirun.run('async_stores.py', WORKERS, tmp_path_factory.mktemp('stores'),
                      servers=1)


@pytest.fixture(scope='module')
def ranks(job):
    return mpirun.results(job, WORKERS)


def test_each_store_keeps_its_own_values(ranks):
    for saved in ranks:
        # one push per worker of ones: SGD lr 1 (first store), lr 0.5 (second store)
        np.testing.assert_array_equal(saved['first_w'], np.full(4, 1.0 - 2 * 1.0))
        np.testing.assert_array_equal(saved['first_u'], np.full(2, 5.0))
        np.testing.assert_array_equal(saved['second_w'], np.arange(6) - 2 * 0.5)
        np.testing.assert_array_equal(saved['second_v'], np.full(3, 2.0))


@pytest.mark.parametrize('store, learning_rate', [('first', 1.0), ('second', 0.5)])
def test_each_store_keeps_its_own_optimizer(job, ranks, store, learning_rate):
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with open(job.out / ('%s.states' % store), 'rb') as fin:
        updater.set_states(fin.read())
    assert updater.optimizer.lr == learning_rate
    assert updater.optimizer.num_update == WORKERS


def test_the_server_frees_a_store_every_worker_freed(ranks):
    for saved in ranks:
        assert saved['held_before'].tolist() == [[0, 1, 2]]
        assert saved['held_after'].tolist() == [[0, 1]]
