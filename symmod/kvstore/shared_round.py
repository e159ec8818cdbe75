"""A small all-reduce round through shared memory (``shared.py``) in one compiled call.

A repeated round of a few KiB (a model's biases, a small layer) costs less in memory
traffic than in Python: copying each array into the worker's slot, posting the header,
testing the peers' headers and adding up the parts were a dozen numpy and mpi4py calls,
~2 us more than MPI's own ``Allreduce`` (1.6 us for 4 KiB on 2 ranks). Here one numba
call does all of it: :func:`start` copies, posts the header (the same words, in the same
order, with the same memory barriers as :class:`shared.SharedHeaders`) and spins a
little for the peers' headers; when they are there it checks them and adds up the
parts (:func:`finish`). Only a wait longer than the spin goes back to Python, which
waits as every other round does (Poller, watchdog and timeout) and then calls
:func:`finish`.

Everything a round needs is in one int64 *plan* of addresses and sizes, built once per
slot set (:func:`make_plan`); the caller keeps the arrays alive and rebuilds the plan
when the slots are reallocated.
"""
import platform

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.extending import intrinsic

__all__ = ['eligible', 'make_plan', 'start', 'finish', 'DONE', 'WAITING', 'DIFFERENT', 'DTYPES']

DONE, WAITING, DIFFERENT = 0, 1, 2
# the sums are compiled for these dtypes (others take the numpy round)
DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# how many times start() tests the peers' headers before it leaves the wait to Python
# (~10-40 us: a round's peers are usually that close or far behind)
SPIN = 1000
_PAUSE = platform.machine().lower() in ('x86_64', 'amd64')

# plan words
_RANK, _SIZE, _KIND, _SIG, _BOARD, _BOARD_WORDS, _ROW_WORDS, _SPIN, _COUNT, _DTYPE = range(10)
_HEAD = 10
# per array: slot, send, bytes, recv, elements, then one term address per worker
_SLOT, _SEND, _BYTES, _RECV, _ELEMENTS, _TERMS = range(6)


def eligible(sends, recvs):
    """Whether the compiled round can sum ``sends`` into ``recvs``: C-contiguous arrays,
    all of one dtype in :data:`DTYPES`."""
    arrays = list(sends) + list(recvs)
    return bool(arrays) and arrays[0].dtype in DTYPES and all(
        a.dtype == arrays[0].dtype and a.flags.c_contiguous for a in arrays)


def make_plan(rank, size, kind, sig, board, row_words, mine, sends, terms, recvs,
              spin=SPIN):
    """The plan of a round whose arrays are :func:`eligible`.

    Parameters
    ----------
    rank, size : int
        This worker and the number of workers.
    kind, sig : int
        The round's header (kind, signature), as the board holds it.
    board : numpy.ndarray
        The header board's int64 words (``SharedHeaders``).
    row_words : int
        Words per header row.
    mine : list of numpy.ndarray
        This worker's slot views of the arrays (slot set of the round).
    sends, recvs : list of numpy.ndarray
        What this worker sends, where the sums go.
    terms : list of list of numpy.ndarray
        Per array, what to add up in rank order.
    """
    dtype = recvs[0].dtype
    stride = _TERMS + size
    plan = np.zeros(_HEAD + stride * len(recvs), dtype=np.int64)
    plan[:_HEAD] = (rank, size, kind, sig, board.ctypes.data, board.size, row_words,
                    spin, len(recvs), DTYPES.index(dtype))
    for i, (slot, send, recv, parts) in enumerate(zip(mine, sends, recvs, terms)):
        at = _HEAD + i * stride
        plan[at:at + _TERMS] = (slot.ctypes.data, send.ctypes.data, send.nbytes,
                                recv.ctypes.data, recv.size)
        plan[at + _TERMS:at + stride] = [p.ctypes.data for p in parts]
    return plan


@intrinsic
def _pointer(typingctx, address):
    """The int64 ``address`` as a pointer (for ``carray``)."""
    sig = types.voidptr(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], ir.IntType(8).as_pointer())
    return sig, codegen


@intrinsic
def _load_acquire(typingctx, words, index):
    """``words[index]`` read from memory every time (an atomic load, acquire)."""
    sig = types.int64(words, index)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        place = builder.gep(array.data, [args[1]])
        return builder.load_atomic(place, 'acquire', 8)
    return sig, codegen


@intrinsic
def _store_release(typingctx, words, index, value):
    """``words[index] = value`` as an atomic store (release): the writes before it are
    visible first."""
    sig = types.void(words, index, value)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        place = builder.gep(array.data, [args[1]])
        builder.store_atomic(args[2], place, 'release', 8)
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def _fence(typingctx):
    """A full memory barrier (what ``MPI_Win_sync`` is for a shared-memory window)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        builder.fence('seq_cst')
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def _pause(typingctx):
    """x86 ``pause`` in a spin loop (elsewhere nothing)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        if _PAUSE:
            name = 'llvm.x86.sse2.pause'
            pause = builder.module.globals.get(name) or ir.Function(
                builder.module, ir.FunctionType(ir.VoidType(), []), name)
            builder.call(pause, [])
        return context.get_dummy_value()
    return sig, codegen


@njit(cache=True, boundscheck=False)
def _arrived(plan, words, number):
    base = (number & 1) * plan[_SIZE] * plan[_ROW_WORDS] + 1
    for r in range(plan[_SIZE]):
        if _load_acquire(words, base + r * plan[_ROW_WORDS]) != number:
            return False
    return True


@njit(cache=True, boundscheck=False)
def start(plan, number):
    """Round ``number``: copy this worker's arrays into its slot, post its header and
    wait up to ``plan``'s spin for the peers'. Returns :data:`WAITING` when they have not
    all arrived, else what :func:`finish` returns."""
    size = plan[_SIZE]
    stride = _TERMS + size
    for i in range(plan[_COUNT]):
        at = _HEAD + i * stride
        count = plan[at + _BYTES]
        slot = carray(_pointer(plan[at + _SLOT]), count, np.uint8)
        send = carray(_pointer(plan[at + _SEND]), count, np.uint8)
        for b in range(count):
            slot[b] = send[b]
    words = carray(_pointer(plan[_BOARD]), plan[_BOARD_WORDS], np.int64)
    row = ((number & 1) * size + plan[_RANK]) * plan[_ROW_WORDS]
    words[row] = plan[_KIND]
    words[row + 2] = plan[_SIG]
    _fence()
    _store_release(words, row + 1, number)
    for _ in range(plan[_SPIN]):
        if _arrived(plan, words, number):
            return finish(plan, number)
        _pause()
    return WAITING


@njit(cache=True, boundscheck=False)
def finish(plan, number):
    """Round ``number`` once every header has arrived: :data:`DIFFERENT` when one is not
    this round's (nothing is added), else the sums in rank order and :data:`DONE`."""
    size = plan[_SIZE]
    words = carray(_pointer(plan[_BOARD]), plan[_BOARD_WORDS], np.int64)
    _fence()
    base = (number & 1) * size * plan[_ROW_WORDS]
    for r in range(size):
        row = base + r * plan[_ROW_WORDS]
        if words[row] != plan[_KIND] or words[row + 2] != plan[_SIG]:
            return DIFFERENT
    if plan[_DTYPE] == 0:
        _add_up(plan, np.float32)
    else:
        _add_up(plan, np.float64)
    return DONE


@njit(cache=True, boundscheck=False)
def _add_up(plan, dtype):
    size = plan[_SIZE]
    stride = _TERMS + size
    for i in range(plan[_COUNT]):
        at = _HEAD + i * stride
        count = plan[at + _ELEMENTS]
        out = carray(_pointer(plan[at + _RECV]), count, dtype)
        first = carray(_pointer(plan[at + _TERMS]), count, dtype)
        if size == 1:
            for j in range(count):
                out[j] = first[j]
            continue
        second = carray(_pointer(plan[at + _TERMS + 1]), count, dtype)
        for j in range(count):
            out[j] = first[j] + second[j]
        for r in range(2, size):
            more = carray(_pointer(plan[at + _TERMS + r]), count, dtype)
            for j in range(count):
                out[j] += more[j]
