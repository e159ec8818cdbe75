"""dist_async with 2 workers and 2 servers (4 processes on 2 cores, started through a
hostfile): every push is applied exactly once, as it arrives; the final weights equal a
replay of the arrival order. Also pushpull, 2-bit compression, states gathered from both
servers, Module.fit."""
import itertools

import numpy as np
import pytest

import symmod as mx
from dist_cases import value, quantize_2bit
import dist_training as dt
import mpirun

WORKERS, SERVERS, STEPS = 2, 2, 6
SIZE = WORKERS * STEPS


@pytest.fixture(scope='module')
def job(tmp_path_factory):
    hostfile = tmp_path_factory.mktemp('async') / 'hosts'
    hostfile.write_text('localhost slots=%d\n' % (WORKERS + SERVERS))    # -H, as on a cluster
    return mpirun.run_once(tmp_path_factory, 'async', 'async_pushes.py', WORKERS,
                           servers=SERVERS, hostfile=hostfile)


@pytest.fixture(scope='module')
def ranks(job):
    return mpirun.results(job, WORKERS)


def arrival_positions(weights):
    """w = 0.5 w - onehot per push: push j ends as -0.5**(pushes after it)."""
    later = -np.log2(-weights.astype(np.float64))
    assert np.all(later == np.round(later)), weights
    return (SIZE - 1 - later).astype(int)


@pytest.mark.parametrize('key', ['x', 'z'])
def test_every_push_applied_exactly_once(ranks, key):
    positions = arrival_positions(ranks[0][key])
    assert sorted(positions) == list(range(SIZE))
    for worker in range(WORKERS):   # one worker's pushes arrive in the order it sent them
        mine = positions[worker * STEPS:(worker + 1) * STEPS]
        assert list(mine) == sorted(mine)
    np.testing.assert_array_equal(ranks[1][key], ranks[0][key])


def replay(order):
    """'y' after SGD(lr 1, wd 0.5) applies the pushes (worker, step) in ``order``."""
    weight = value('y', 0, 0, 0, (4,), 'float32')
    for worker, step in order:
        grad = value('y', worker, 0, step + 1, (4,), 'float32')
        weight = weight - np.float32(1.0) * (grad + np.float32(0.5) * weight)
    return weight


def test_weights_equal_a_replay_of_the_arrival_order(ranks):
    # Each key is its own message (as MXNet's workers send them), so 'y' may interleave
    # the two workers differently from 'x': its value must equal the replay of some
    # arrival order that keeps each worker's pushes in the order sent, and no other.
    got = ranks[0]['y']
    matches = [slots for slots in itertools.combinations(range(SIZE), STEPS)
               if np.allclose(got, replay(interleave(slots)), rtol=1e-6, atol=1e-7)]
    assert len(matches) >= 1, got
    np.testing.assert_array_equal(ranks[1]['y'], got)


def interleave(worker0_slots):
    """The arrival order where worker 0's pushes take the positions ``worker0_slots``."""
    steps = [0, 0]
    order = []
    for position in range(SIZE):
        worker = 0 if position in worker0_slots else 1
        order.append((worker, steps[worker]))
        steps[worker] += 1
    return order


def test_the_replay_tells_arrival_orders_apart():
    orders = {tuple(replay(interleave(s)).tolist())
              for s in itertools.combinations(range(SIZE), STEPS)}
    assert len(orders) > 900


def test_pushpull_returns_the_value_right_after_the_own_push(ranks):
    x = ranks[0]['x']
    got = sorted([ranks[0]['pushpull_x'], ranks[1]['pushpull_x']], key=lambda a: a[0])
    np.testing.assert_array_equal(got[0], x * np.float32(0.5))
    np.testing.assert_array_equal(got[1], x * np.float32(0.25))


def test_row_sparse_key_lazy_updates_and_row_sparse_pull(ranks):
    """Each worker's rows get w = w - (g + 0.5 w) per push (SGD lr 1, wd 0.5, lazy: wd
    only on pushed rows); rows no worker pushed keep their initial values."""
    expected = np.arange(18, dtype=np.float32).reshape(6, 3) / 2
    for step in range(2):
        expected[:2 * WORKERS] = expected[:2 * WORKERS] - (step + 1.0 + 0.5 * expected[:2 * WORKERS])
    for saved in ranks:
        np.testing.assert_allclose(saved['sparse_dense'], expected, rtol=1e-6)
        np.testing.assert_array_equal(saved['sparse_rows'], [0, 2, 5])
        np.testing.assert_allclose(saved['sparse_data'], expected[[0, 2, 5]], rtol=1e-6)


def test_2bit_compression_per_worker_residual(ranks):
    weight = np.zeros(37, np.float32)
    for worker in range(WORKERS):
        residual = np.zeros(37, np.float32)
        for step in range(3):
            q, residual = quantize_2bit(residual, value('c', worker, 0, step, (37,),
                                                        'float32'), 0.5)
            weight = weight - q
    np.testing.assert_array_equal(ranks[0]['compressed'], weight)


def test_rank0_saves_the_states_of_every_server(ranks, job):
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with open(job.out / 'async.states', 'rb') as fin:
        updater.set_states(fin.read())
    assert sorted(updater.states) == ['x', 'y', 'z']
    assert updater.optimizer.wd == 0.5
    assert updater.optimizer.num_update == SIZE + WORKERS


def test_module_fit_trains_through_the_servers(ranks):
    start = dt.module_params(dt.fit_module(None, 'local', 'sgd', epochs=0))
    for rank in ranks:
        for name, initial in start.items():
            trained = rank['module/' + name]
            assert np.isfinite(trained).all()
            assert not np.allclose(trained, initial), name
