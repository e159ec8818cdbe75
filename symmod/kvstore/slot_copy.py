"""How a worker copies its part into its shared-memory slot (``shared.py``): through the
cache (numpy's copy) or with streaming stores, chosen per repeated round by measured time.

A slot's lines were read by the other workers in the round before last. Writing them
again makes the writing core take each line back from the readers' caches. Measured on
this project's 2-vCPU KVM guest (AMD EPYC), 2 ranks at nice -20, 437 KB (an MLP's
gradients) copied into a slot the peer had read, then the peer's sum that reads it: in
most minutes 15 + 12-18 us through the cache and 30 + 30 us with non-temporal 64-byte
stores (which write the lines to memory without taking them back), but in some minutes
(same code, processes and buffers; presumably where the host puts the two vCPUs)
157-187 + 26-31 us through the cache and still 18 + 30 streaming. MPI's own ``Allreduce`` is ~3x slower
in those minutes too. A whole MLP pushpull with SGD took 89-95 us cached and 125-131
streaming in a fast minute, 274-279 cached and 105-110 streaming in a slow one. So
neither way wins always: a :class:`CopyChoice` times both (the copy plus the sum that
reads the peers' slots, which pays for the peers' way of writing) and uses the faster.

``SYMMOD_KVSTORE_SLOT_COPY`` = ``auto`` (default), ``cached`` or ``streaming`` fixes
the choice (every way gives the same bytes).
"""
import collections
import os
import platform
from functools import partial

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..base import MXNetError

__all__ = ['copy_streaming', 'streamer', 'CopyChoice', 'choice_for', 'mode', 'ENV_SLOT_COPY',
           'CACHED', 'STREAMING']

ENV_SLOT_COPY = 'SYMMOD_KVSTORE_SLOT_COPY'
CACHED, STREAMING = 0, 1
# smaller rounds always copy through the cache: their copy takes a few microseconds, the
# timing would cost more than the choice saves
AUTO_MIN_BYTES = 64 << 10
LINE = 64
# the store fence below is an x86 instruction
STREAMING_STORES = platform.machine().lower() in ('x86_64', 'amd64')


def mode():
    """``SYMMOD_KVSTORE_SLOT_COPY``: 'auto' (default), 'cached' or 'streaming'. Streaming
    stores are x86-64 only: elsewhere every mode copies through the cache."""
    text = os.environ.get(ENV_SLOT_COPY, 'auto').strip().lower() or 'auto'
    if text not in ('auto', 'cached', 'streaming'):
        raise MXNetError("%s must be 'auto', 'cached' or 'streaming', found %r"
                         % (ENV_SLOT_COPY, text))
    return text if STREAMING_STORES else 'cached'


def choice_for(nbytes):
    """The :class:`CopyChoice` of a repeated round of ``nbytes`` per worker, or None when
    it always copies through the cache."""
    how = mode()
    if how == 'cached' or (how == 'auto' and nbytes < AUTO_MIN_BYTES):
        return None
    return CopyChoice(fixed=STREAMING if how == 'streaming' else None)


class CopyChoice:
    """Which way (``CACHED`` or ``STREAMING``) a repeated round copies, from the time its
    copy and sum took lately: the smallest of the last ``KEEP`` timed rounds of each way
    (a round that lost its core for a while does not count).

    Every worker runs the same rounds, so the way not in use is tried in the same rounds
    everywhere (they depend on the round number): ``PROBE`` rounds every ``PERIOD``
    (every ``FIRST_PERIOD`` until it has been timed ``KEEP`` times). The first ``SETTLE`` rounds
    after a change of way are not timed: they find the slots' lines where the other way
    left them (in memory after streaming stores, in the peers' caches after cached
    copies), which no steady run of either way does.

    Parameters
    ----------
    fixed : int or None
        Always this way (no timing), or None to choose.
    """

    KEEP = 6
    SETTLE = 2
    PROBE = KEEP + SETTLE
    PERIOD = 256
    FIRST_PERIOD = 32

    def __init__(self, fixed=None):
        self.fixed = fixed
        self.current = CACHED if fixed is None else fixed
        self._times = (collections.deque(maxlen=self.KEEP),
                       collections.deque(maxlen=self.KEEP))
        self._last = None       # the way of the last round, and how many rounds in a row
        self._run = 0

    def way(self, number):
        """The way round ``number`` copies."""
        if self.fixed is not None:
            return self.fixed
        other = 1 - self.current
        # until the other way has been timed KEEP times, it is tried more often
        period = self.PERIOD if len(self._times[other]) == self.KEEP else self.FIRST_PERIOD
        return other if number % period < self.PROBE else self.current

    def fastest(self):
        """The smallest recent time of each way (None before it has one), seconds."""
        return [min(times) if times else None for times in self._times]

    def record(self, way, seconds):
        """Round of ``way`` took ``seconds`` (copy and sum)."""
        if way != self._last:
            self._last, self._run = way, 0
        self._run += 1
        if self._run <= self.SETTLE:
            return
        times = self._times
        times[way].append(seconds)
        if times[0] and times[1]:
            self.current = CACHED if min(times[0]) <= min(times[1]) else STREAMING


def copy_streaming(dst, src):
    """``dst[...] = src`` for C-contiguous arrays of one dtype and shape, written with
    non-temporal stores (whole 64-byte lines; the bytes before the first and after the
    last line boundary of ``dst`` through the cache); ``np.copyto`` for other arrays."""
    streamer(dst, src)()


def streamer(dst, src):
    """:func:`copy_streaming` of these arrays as a function of no arguments."""
    if (not STREAMING_STORES or dst.shape != src.shape or dst.dtype != src.dtype
            or not dst.flags.c_contiguous or not src.flags.c_contiguous):
        return partial(np.copyto, dst, src)
    return partial(_stream_bytes, dst.reshape(-1).view(np.uint8),
                   src.reshape(-1).view(np.uint8))


@intrinsic
def _store_line(typingctx, dst, at, src, src_at):
    """``dst[at:at + 64] = src[src_at:src_at + 64]`` (bytes; ``dst + at`` on a line
    boundary) as one non-temporal vector store."""
    sig = types.void(dst, at, src, src_at)

    def codegen(context, builder, signature, args):
        d, i, s, j = args
        dst_array = context.make_array(signature.args[0])(context, builder, d)
        src_array = context.make_array(signature.args[2])(context, builder, s)
        vector = ir.VectorType(ir.IntType(64), LINE // 8)
        source = builder.bitcast(builder.gep(src_array.data, [j]), vector.as_pointer())
        target = builder.bitcast(builder.gep(dst_array.data, [i]), vector.as_pointer())
        store = builder.store(builder.load(source, align=1), target, align=LINE)
        store.set_metadata('nontemporal', builder.module.add_metadata(
            [ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def _store_fence(typingctx):
    """x86 ``sfence``: the streaming stores before it are visible before any later store
    (they are weakly ordered)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        name = 'llvm.x86.sse.sfence'
        fence = builder.module.globals.get(name) or ir.Function(
            builder.module, ir.FunctionType(ir.VoidType(), []), name)
        builder.call(fence, [])
        return context.get_dummy_value()
    return sig, codegen


@njit(cache=True, boundscheck=False)
def _stream_bytes(dst, src):
    n = dst.size
    head = min(n, (-dst.ctypes.data) % LINE)
    for k in range(head):
        dst[k] = src[k]
    lines = (n - head) // LINE
    for k in range(lines):
        at = head + k * LINE
        _store_line(dst, at, src, at)
    for k in range(head + lines * LINE, n):
        dst[k] = src[k]
    _store_fence()
