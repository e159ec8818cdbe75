"""dist_sync / dist_device_sync semantics with 3 workers (on 2 cores) under mpiexec:
what every rank pulls is compared with numpy sums of what the ranks pushed."""
import numpy as np
import pytest

from dist_cases import KEYS, value, quantize_2bit
import mpirun

WORKERS = 3


# one host: the round's sum is added up in shared memory (default) or by MPI's Allreduce
# (what jobs over several hosts use)
PATHS = {'shared': {}, 'mpi': {'SYMMOD_KVSTORE_SHARED_MEMORY': '0'}}


@pytest.fixture(scope='module', params=list(PATHS))
def ranks(request, tmp_path_factory):
    job = mpirun.run_once(tmp_path_factory, 'sync-' + request.param, 'sync_semantics.py',
                          WORKERS, env=PATHS[request.param])
    found = mpirun.results(job, WORKERS)
    for r in found:
        assert bool(r['shared_memory']) == (request.param == 'shared')
    return found


def total(key, step, devices=(0, 1)):
    return sum(value(key, r, d, step).astype(np.float64) for r in range(WORKERS)
               for d in devices)


def close(actual, expected, dtype):
    tol = {'float16': 2e-3, 'float32': 1e-6, 'float64': 1e-12}[np.dtype(dtype).name]
    np.testing.assert_allclose(actual.astype(np.float64), expected, rtol=tol, atol=tol)


def test_identity(ranks):
    assert [int(r['rank']) for r in ranks] == list(range(WORKERS))
    assert all(int(r['num_workers']) == WORKERS and str(r['type']) == 'dist_sync'
               for r in ranks)


def test_every_rank_sees_the_same_bits(ranks):
    for name in ranks[0]:
        if name not in ('rank', 'mismatch', 'states_written', 'failed_replay_error',
                        'failed_push_error', 'small_finished_late'):
            for other in ranks[1:]:
                assert ranks[0][name].tobytes() == other[name].tobytes(), name


@pytest.mark.parametrize('key', list(KEYS))
def test_init_takes_rank0_value(ranks, key):
    np.testing.assert_array_equal(ranks[1]['init_%s' % key], value(key, 0, 0, 0))


@pytest.mark.parametrize('key', [3, 9])
def test_push_sums_devices_and_workers(ranks, key):
    close(ranks[2]['push_%s' % key], total(key, 1), KEYS[key][1])


@pytest.mark.parametrize('key', ['big', 'half', 'dbl'])
def test_pushpull(ranks, key):
    close(ranks[-1]['pushpull_%s' % key], total(key, 2), KEYS[key][1])
    close(ranks[-1]['pushpull_out_%s' % key], total(key, 3, devices=(0,)), KEYS[key][1])
    assert ranks[-1]['pushpull_%s' % key].dtype == np.dtype(KEYS[key][1])


@pytest.mark.parametrize('key', ['big', 'half', 'dbl'])
def test_rounds_bigger_than_the_shared_slots_go_through_mpi(ranks, key):
    for r in ranks:
        close(r['over_slot_%s' % key], total(key, 30, devices=(0,)), KEYS[key][1])
        assert int(r['over_slot_shared_rounds']) == 0


def test_pushpull_from_one_device_in_place_and_stored(ranks):
    close(ranks[0]['inplace_9'], total(9, 5, devices=(0,)), 'float32')
    np.testing.assert_array_equal(ranks[0]['inplace_pull_9'], ranks[0]['inplace_9'])


def test_one_array_pushed_for_two_keys_is_summed_once(ranks):
    for r in ranks:
        for key, prefix in (('big', 'd'), (9, 'e')):
            for step in (40, 41):
                close(r['twice_%s_%d' % (key, step)], total(key, step, devices=(0,)),
                      'float32')
            for k in (prefix + '1', prefix + '2'):
                close(r['twice_pull_%s' % k], total(key, 41, devices=(0,)), 'float32')


def test_repeated_pushpull_of_one_key_sums_every_step(ranks):
    for r in ranks:
        for step in (50, 51, 52):
            close(r['again_%d' % step], total(9, step, devices=(0,)), 'float32')


def test_small_repeated_rounds_run_compiled(ranks):
    small = {'s1': ((5,), 'float32'), 's2': ((3, 4), 'float64'), 's3': ((2,), 'float32'),
             's4': ((6,), 'float32')}
    weight = sum(r + 1 for r in range(WORKERS))
    for r in ranks:
        for step in range(4):
            for k, (shape, dtype) in small.items():
                want = np.arange(np.prod(shape)).reshape(shape) * weight * (step + 1)
                assert r['small_%s_%d' % (k, step)].dtype == np.dtype(dtype)
                np.testing.assert_array_equal(r['small_%s_%d' % (k, step)], want)
        for k, (shape, _) in small.items():
            np.testing.assert_array_equal(r['small_pull_%s' % k],
                                          np.arange(np.prod(shape)).reshape(shape) * weight * 4)
        # the first call of each prepares the round; the 3 later ones replay it compiled
        assert int(r['small_compiled_rounds']) == (9 if r['shared_memory'] else 0)
        # rank 0 came 0.2 s late to one replay of each call: the others finished it
        # after a wait in Python (any rank may wait so in other rounds too)
        if r['shared_memory'] and int(r['rank']) != 0:
            assert int(r['small_finished_late']) >= 3


def test_stored_sum_survives_later_rounds_and_slot_growth(ranks):
    ones = sum(r + 1 for r in range(WORKERS))
    shared_path = bool(ranks[0]['shared_memory'])
    for r in ranks:
        # through shared memory the copy into the stored value waits for a reader
        assert bool(r['lazy_pending']) == shared_path
        np.testing.assert_array_equal(r['lazy_after_round'], np.full(5, ones, np.float32))
        np.testing.assert_array_equal(r['lazy_after_growth'],
                                      np.full(5, 2 * ones, np.float32))
        np.testing.assert_array_equal(r['lazy_q2'], np.full(200, ones, np.float32))


def test_one_host_headers_need_no_messages(ranks):
    for r in ranks:
        assert (int(r['header_messages']) == 0) == bool(r['shared_memory'])


def test_broadcast_copies_rank0_value_to_every_output(ranks):
    for dev in range(2):
        np.testing.assert_array_equal(ranks[1]['broadcast'][dev], value(3, 0, 0, 4))


def test_optimizer_runs_once_per_round_on_the_sum(ranks):
    weight = ranks[0]['push_3'].astype(np.float64)
    mom = np.zeros_like(weight)
    for step in range(3):
        grad = total(3, 10 + step)
        mom = 0.9 * mom - 0.1 * (0.5 * grad + 0.01 * weight)
        weight = weight + mom
    close(ranks[1]['sgd_3'], weight, 'float32')
    assert bool(ranks[0]['states_written'])


def test_user_updater_called_per_key_with_the_sum(ranks):
    assert list(ranks[0]['updater_calls']) == ['big', 'dbl']
    expected = total('big', 3, devices=(0,)) * 2 + total('big', 20, devices=(0,))
    close(ranks[1]['updater_big'], expected, 'float32')


def test_2bit_compression_with_per_worker_residuals(ranks):
    residuals = [np.zeros(37, np.float32) for _ in range(WORKERS)]
    for step in range(3):
        expected = np.zeros(37, np.float32)
        for r in range(WORKERS):
            worker_sum = (value('c', r, 0, step, (37,), 'float32')
                          + value('c', r, 1, step, (37,), 'float32'))
            q, residuals[r] = quantize_2bit(residuals[r], worker_sum, 0.5)
            expected = expected + q
        np.testing.assert_array_equal(ranks[2]['compressed_%d' % step], expected)


def test_workers_pushing_different_keys_get_an_error(ranks):
    for r in ranks:
        assert 'differs between workers' in str(r['mismatch'])


@pytest.mark.parametrize('how', ['replay', 'push'])
def test_failed_round_keeps_the_previous_sum(ranks, how):
    threes = sum(3 * (r + 1) for r in range(WORKERS))
    for r in ranks:
        assert bool(r['failed_replay_pending']) == bool(ranks[0]['shared_memory'])
        assert 'differs between workers' in str(r['failed_%s_error' % how])
        np.testing.assert_array_equal(r['failed_%s_f' % how], np.full(5, threes, np.float32))
