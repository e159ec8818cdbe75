"""The ways of copying a worker's part into its shared-memory slot (through the cache,
streaming stores, or chosen by time) give the same sums, bit for bit (2 workers)."""
import numpy as np
import pytest

from dist_cases import SLOT_KEYS, value
import mpirun

WORKERS = 2


@pytest.fixture(scope='module')
def ranks(tmp_path_factory):
    job = mpirun.run_once(tmp_path_factory, 'slot-copy', 'slot_copy.py', WORKERS)
    return mpirun.results(job, WORKERS)


@pytest.mark.parametrize('mode', ['streaming', 'auto', 'cached'])
def test_every_way_of_copying_sums_exactly(ranks, mode):
    for key, (shape, dtype) in SLOT_KEYS.items():
        for step in range(20):
            first, second = (value(key, r, 0, step, shape, dtype) for r in range(WORKERS))
            if dtype == 'float16':      # summed in float32, as MPI's path does
                expected = (first.astype(np.float32) + second).astype(np.float16)
            else:
                expected = first + second
            for rank in ranks:
                got = rank['%s/%s/%d' % (mode, key, step)]
                assert got.dtype == np.dtype(dtype)
                assert got.tobytes() == expected.tobytes(), (mode, key, step)


def test_the_mode_decides_the_way(ranks):
    for rank in ranks:
        assert int(rank['streaming/fixed']) == 1        # streaming stores, untimed
        assert int(rank['auto/fixed']) == -1            # chosen by time ...
        assert rank['auto/timed'].tolist() == [1, 1]    # ... after trying both ways
        assert not bool(rank['cached/has_choice'])      # numpy's copy, untimed
