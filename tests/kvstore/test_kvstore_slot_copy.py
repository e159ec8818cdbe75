"""slot_copy: the streaming copy equals numpy's, byte for byte, at any alignment; the
mode variable; how CopyChoice picks a way from the times it is given."""
import numpy as np
import pytest

from symmod.base import MXNetError
from symmod.kvstore import slot_copy
from symmod.kvstore.slot_copy import CopyChoice, CACHED, STREAMING

pytestmark = pytest.mark.skipif(not slot_copy.STREAMING_STORES,
                                reason='streaming stores are x86-64 only')


@pytest.mark.parametrize('dtype', ['float32', 'float16', 'float64', 'int8'])
@pytest.mark.parametrize('count', [0, 1, 7, 63, 64, 65, 1000, 40001])
def test_streaming_copy_equals_numpy_at_every_alignment(dtype, count):
    rng = np.random.RandomState(count)
    item = np.dtype(dtype).itemsize
    src_raw = rng.randint(0, 256, size=count * item + 128).astype(np.uint8)
    for dst_shift in (0, item, 8, 40, 64 - item):
        for src_shift in (0, item, 24):
            src = src_raw[src_shift:src_shift + count * item].view(dtype)
            raw = np.full(count * item + 256, 0xAB, dtype=np.uint8)
            start = (-raw.ctypes.data) % 64 + dst_shift
            dst = raw[start:start + count * item].view(dtype)
            slot_copy.copy_streaming(dst, src)
            assert dst.tobytes() == src.tobytes()
            # nothing written outside the destination
            assert (raw[:start] == 0xAB).all() and (raw[start + count * item:] == 0xAB).all()


def test_streaming_copy_of_other_layouts_falls_back_to_numpy():
    src = np.arange(24, dtype=np.float32).reshape(4, 6)
    dst = np.zeros((6, 4), dtype=np.float32).T      # not C-contiguous
    slot_copy.copy_streaming(dst, src)
    np.testing.assert_array_equal(dst, src)
    wide = np.zeros((4, 6), dtype=np.float64)       # another dtype: numpy converts
    slot_copy.copy_streaming(wide, src)
    np.testing.assert_array_equal(wide, src)


@pytest.mark.parametrize('text,expected', [('', 'auto'), ('auto', 'auto'),
                                           (' Cached ', 'cached'), ('streaming', 'streaming')])
def test_mode_reads_the_variable(monkeypatch, text, expected):
    monkeypatch.setenv(slot_copy.ENV_SLOT_COPY, text)
    assert slot_copy.mode() == expected


def test_mode_rejects_other_words(monkeypatch):
    monkeypatch.setenv(slot_copy.ENV_SLOT_COPY, 'fast')
    with pytest.raises(MXNetError, match="SYMMOD_KVSTORE_SLOT_COPY must be 'auto', "
                                         "'cached' or 'streaming', found 'fast'"):
        slot_copy.mode()


def test_choice_for_a_round(monkeypatch):
    monkeypatch.setenv(slot_copy.ENV_SLOT_COPY, 'auto')
    assert slot_copy.choice_for(slot_copy.AUTO_MIN_BYTES - 1) is None    # small: cached
    assert slot_copy.choice_for(slot_copy.AUTO_MIN_BYTES).fixed is None   # timed
    monkeypatch.setenv(slot_copy.ENV_SLOT_COPY, 'streaming')
    assert slot_copy.choice_for(64).fixed == STREAMING
    monkeypatch.setenv(slot_copy.ENV_SLOT_COPY, 'cached')
    assert slot_copy.choice_for(1 << 24) is None


def _run(choice, numbers, cost):
    """Feed the rounds ``numbers`` with times ``cost(way, rounds of that way in a row)``;
    returns the ways used."""
    ways = []
    for number in numbers:
        way = choice.way(number)
        in_a_row = ways[-1][1] + 1 if ways and ways[-1][0] == way else 1
        ways.append((way, in_a_row))
        choice.record(way, cost(way, in_a_row))
    return [way for way, _ in ways]


def _steady(cached, streaming):
    """Round times of a steady machine; the first rounds after a change of way cost a
    lot (the lines are where the other way left them) and must not count."""
    return lambda way, in_a_row: 1.0 if in_a_row <= CopyChoice.SETTLE else (
        cached if way == CACHED else streaming)


# the way not in use is tried in rounds 32-39 (once), then 256-263, 512-519, ...;
# these tests start at round 8
PERIOD, PROBE = CopyChoice.PERIOD, CopyChoice.PROBE
FIRST = CopyChoice.FIRST_PERIOD


def test_choice_tries_the_other_way_in_probe_rounds_and_keeps_the_faster():
    choice = CopyChoice()
    ways = _run(choice, range(PROBE, 2 * PERIOD), _steady(3e-5, 5e-5))
    tried = [number for number, way in zip(range(PROBE, 2 * PERIOD), ways)
             if way == STREAMING]
    assert tried == list(range(FIRST, FIRST + PROBE)) + list(range(PERIOD, PERIOD + PROBE))
    assert choice.current == CACHED and choice.fastest() == [3e-5, 5e-5]


def test_choice_switches_to_streaming_when_it_is_faster():
    choice = CopyChoice()
    _run(choice, range(PROBE, PERIOD + PROBE), _steady(2e-4, 5e-5))
    assert choice.current == STREAMING
    ways = _run(choice, range(PERIOD + PROBE, 2 * PERIOD + PROBE), _steady(2e-4, 5e-5))
    assert ways.count(CACHED) == PROBE      # now cached copies are the probes
    assert choice.fastest() == [2e-4, 5e-5]


def test_choice_follows_a_change_and_ignores_single_slow_rounds():
    choice = CopyChoice()
    number = PERIOD + 2 * PROBE       # well after the probe of rounds 256-263
    _run(choice, range(PROBE, number), _steady(3e-5, 5e-5))
    # one round that lost its core does not switch
    choice.record(choice.way(number), 1e-3)
    assert choice.current == CACHED
    # copying through the cache becomes slow for good: once the last KEEP rounds were
    # all slow, streaming takes over
    ways = _run(choice, range(number + 1, number + CopyChoice.KEEP), _steady(2e-4, 5e-5))
    assert set(ways) == {CACHED} and choice.current == STREAMING
    # and comes back once a probe finds it fast again
    _run(choice, range(number + CopyChoice.KEEP, 3 * PERIOD), _steady(3e-5, 5e-5))
    assert choice.current == CACHED


def test_fixed_choice_never_changes():
    choice = CopyChoice(fixed=STREAMING)
    assert set(_run(choice, range(1, 2 * PERIOD), _steady(1e-6, 1e-3))) == {STREAMING}
