"""The compiled small round (symmod/kvstore/shared_round.py) in one process: the other
workers' slots and header rows are plain arrays that the test fills, as a peer would."""
import numpy as np
import pytest

from symmod.kvstore import shared_round
from symmod.kvstore.shared import SharedHeaders

WORDS = SharedHeaders.WORDS
KIND, SIG = 1, 12345


def _round(size, rank, dtype, shapes, in_place):
    """Slots, sends, receivers and the plans of both slot sets for worker ``rank``."""
    rng = np.random.RandomState(size * 10 + rank)
    board = np.zeros(2 * size * WORDS, dtype=np.int64)
    # slots[parity][r][i]: worker r's copy of array i
    slots = [[[np.zeros(s, dtype) for s in shapes] for _ in range(size)] for _ in range(2)]
    sends = [rng.randn(*s).astype(dtype) for s in shapes]
    recvs = sends if in_place else [np.full(s, np.nan, dtype) for s in shapes]
    plans = []
    for parity in range(2):
        terms = [[sends[i] if r == rank and not in_place else slots[parity][r][i]
                  for r in range(size)] for i in range(len(shapes))]
        plans.append(shared_round.make_plan(rank, size, KIND, SIG, board, WORDS,
                                            slots[parity][rank], sends, terms, recvs))
    return board, slots, sends, recvs, plans


def _post(board, size, rank, number, kind=KIND, sig=SIG):
    row = ((number & 1) * size + rank) * WORDS
    board[row], board[row + 1], board[row + 2] = kind, number, sig


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('size,rank', [(2, 0), (2, 1), (3, 2)])
@pytest.mark.parametrize('in_place', [True, False])
def test_round_sums_in_rank_order_once_every_header_is_there(dtype, size, rank, in_place):
    shapes = [(7,), (3, 5), (1,)]
    board, slots, sends, recvs, plans = _round(size, rank, dtype, shapes, in_place)
    mine = [s.copy() for s in sends]
    number = 5
    parity = number & 1
    for r in range(size):
        if r != rank:
            for i, s in enumerate(shapes):
                slots[parity][r][i][...] = np.random.RandomState(r + i).randn(*s)
            _post(board, size, r, number)
    assert shared_round.start(plans[parity], number) == shared_round.DONE
    row = (parity * size + rank) * WORDS
    assert list(board[row:row + 3]) == [KIND, number, SIG]       # this worker's header
    for i in range(len(shapes)):
        np.testing.assert_array_equal(slots[parity][rank][i], mine[i])
        parts = [mine[i] if r == rank else slots[parity][r][i] for r in range(size)]
        want = parts[0] + parts[1]
        for part in parts[2:]:
            want = want + part
        assert recvs[i].dtype == np.dtype(dtype)
        np.testing.assert_array_equal(recvs[i], want)      # the same bits as numpy's


def test_round_waits_for_a_late_peer_then_finishes():
    board, slots, sends, recvs, plans = _round(2, 0, 'float32', [(4,)], False)
    number = 8
    assert shared_round.start(plans[0], number) == shared_round.WAITING
    assert np.isnan(recvs[0]).all()         # nothing summed yet
    slots[0][1][0][...] = 1.0
    _post(board, 2, 1, number)
    assert shared_round.finish(plans[0], number) == shared_round.DONE
    np.testing.assert_array_equal(recvs[0], sends[0] + 1)


@pytest.mark.parametrize('kind,sig', [(KIND, SIG + 1), (9, 0)])
def test_round_with_another_header_adds_nothing(kind, sig):
    """A peer in another round (other keys, or its exit) is reported, not summed."""
    board, slots, sends, recvs, plans = _round(2, 1, 'float64', [(6,)], False)
    number = 3
    _post(board, 2, 0, number, kind, sig)
    assert shared_round.start(plans[1], number) == shared_round.DIFFERENT
    assert np.isnan(recvs[0]).all()


def test_only_contiguous_float32_or_float64_arrays_are_eligible():
    a32, b32 = np.zeros(4, np.float32), np.zeros(4, np.float32)
    assert shared_round.eligible([a32], [b32])
    assert not shared_round.eligible([a32], [np.zeros(4, np.float64)])
    assert not shared_round.eligible([np.zeros(4, np.float16)], [np.zeros(4, np.float16)])
    assert not shared_round.eligible([np.zeros(8, np.float32)[::2]], [b32])
    assert not shared_round.eligible([np.zeros(4, np.int32)], [np.zeros(4, np.int32)])
