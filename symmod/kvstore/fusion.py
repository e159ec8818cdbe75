"""Collectives over many keys at once: small arrays travel together in one buffer.

A Module step pushes one gradient per parameter; most are small (biases, small
layers), and one MPI call per array would pay a round's latency each time. The
:class:`Fusion` groups the arrays of one call by dtype, in key order, and packs
consecutive small ones into one contiguous buffer per message (at most
``BUCKET_BYTES``). Arrays of ``ALONE_BYTES`` or more go in a message of their own,
straight from and into their own memory (no copy, never split into small pieces).
The plan for a list of keys is made once and reused for every later call.

When all workers share one host, the whole call is one round through shared memory
instead (``shared.py``), with no fused buffer: each array is copied into the worker's
slot and the sum is added up straight into its destination.
"""
import numpy as np

from .mpi import ALLREDUCE, BCAST, ALLGATHER, signature
from .shared import aligned

__all__ = ['Fusion', 'describe_keys']

ALONE_BYTES = 256 * 1024
BUCKET_BYTES = 4 * 1024 * 1024


def describe_keys(keys):
    """'key 'w'' or 'keys ['a', 'b', ...]' (at most 6 named) for messages."""
    keys = list(keys)
    if len(keys) == 1:
        return 'key %r' % (keys[0],)
    shown = ', '.join(repr(k) for k in keys[:6])
    return 'keys [%s%s]' % (shown, ', ... (%d keys)' % len(keys) if len(keys) > 6 else '')


class _Plan:
    """The messages of one call: each a list of item positions, its offsets, signature."""

    def __init__(self, kind, keys, arrays):
        self.messages = []
        open_bucket = {}
        for pos, (key, arr) in enumerate(zip(keys, arrays)):
            if arr.nbytes >= ALONE_BYTES:
                self.messages.append([pos])
                continue
            bucket = open_bucket.get(arr.dtype)
            if bucket is None or bucket[1] + arr.nbytes > BUCKET_BYTES:
                bucket = open_bucket[arr.dtype] = [[], 0]
                self.messages.append(bucket[0])
            bucket[0].append(pos)
            bucket[1] += arr.nbytes
        self.offsets = []
        self.sizes = []
        self.signatures = []
        for message in self.messages:
            offsets = np.cumsum([0] + [arrays[p].size for p in message])
            self.offsets.append(offsets)
            self.sizes.append(int(offsets[-1]))
            self.signatures.append(signature(
                kind, [(keys[p], arrays[p].shape, arrays[p].dtype.str) for p in message]))
        # one round for the whole call (shared memory): byte offsets in a slot
        spans = [aligned(a.nbytes) for a in arrays]
        self.layout = tuple((int(offset), a.dtype, a.shape) for offset, a in
                            zip(np.cumsum([0] + spans[:-1]), arrays))
        self.nbytes = int(sum(spans))
        self.signature = signature(
            kind, [(k, a.shape, a.dtype.str) for k, a in zip(keys, arrays)])


class Fusion:
    """Runs all-reduce and broadcast over lists of arrays with few messages.

    Parameters
    ----------
    transport : mpi.WorkerTransport or mpi.SingleTransport
        Where the rounds go.
    """

    def __init__(self, transport):
        self.transport = transport
        self._plans = {}
        self._buffers = {}

    def _plan(self, kind, keys, arrays):
        ident = (kind, tuple(keys), tuple((a.shape, a.dtype.str) for a in arrays))
        plan = self._plans.get(ident)
        if plan is None:
            plan = self._plans[ident] = _Plan(kind, keys, arrays)
        return plan

    def _buffer(self, dtype, size, slot=0):
        buf = self._buffers.get((dtype, slot))
        if buf is None or buf.size < size:
            buf = self._buffers[(dtype, slot)] = np.empty(max(size, 1024), dtype=dtype)
        return buf[:size]

    def allreduce(self, keys, sends, recvs):
        """``recvs[i]`` = the sum over workers of ``sends[i]`` (host arrays; a send may be
        its own recv). Every worker calls this with the same keys, shapes and dtypes.
        Returns every worker's part of each array when the round went through shared
        memory (see ``WorkerTransport.reduce_shared``), else None."""
        if not keys:
            return None
        plan = self._plan(ALLREDUCE, keys, sends)
        transport = self.transport
        if transport.shared is not None and transport.shared.fits(plan.nbytes):
            return transport.reduce_shared(plan.layout, sends, recvs, plan.nbytes,
                                           _describer(keys), plan.signature)
        for message, offsets, size, sig in zip(plan.messages, plan.offsets, plan.sizes,
                                               plan.signatures):
            describe = _describer([keys[p] for p in message])
            if len(message) == 1:
                pos = message[0]
                send, recv = sends[pos], recvs[pos]
                if recv.flags.c_contiguous and send.flags.c_contiguous:
                    transport.allreduce(send, recv, describe, sig)
                    continue
            buf = self._buffer(sends[message[0]].dtype, size)
            for pos, start, stop in zip(message, offsets[:-1], offsets[1:]):
                buf[start:stop] = sends[pos].reshape(-1)
            transport.allreduce(buf, buf, describe, sig)
            for pos, start, stop in zip(message, offsets[:-1], offsets[1:]):
                recvs[pos][...] = buf[start:stop].reshape(recvs[pos].shape)
        return None

    def prepare_allreduce(self, keys, sends, recvs):
        """``allreduce(keys, sends, recvs)`` of these very arrays as a function of no
        arguments (for a call repeated every step: the plan is looked up once)."""
        plan = self._plan(ALLREDUCE, keys, sends)
        shared = self.transport.shared
        if shared is not None and shared.fits(plan.nbytes):
            return self.transport.prepare_reduce_shared(
                plan.layout, sends, recvs, plan.nbytes, _describer(keys), plan.signature)
        return lambda: self.allreduce(keys, sends, recvs)

    def broadcast(self, keys, arrays):
        """Overwrite every array with rank 0's (host arrays, same on every worker)."""
        if not keys:
            return
        plan = self._plan(BCAST, keys, arrays)
        for message, offsets, size, sig in zip(plan.messages, plan.offsets, plan.sizes,
                                               plan.signatures):
            describe = _describer([keys[p] for p in message])
            if len(message) == 1 and arrays[message[0]].flags.c_contiguous:
                self.transport.bcast(arrays[message[0]], describe, sig)
                continue
            buf = self._buffer(arrays[message[0]].dtype, size)
            for pos, start, stop in zip(message, offsets[:-1], offsets[1:]):
                buf[start:stop] = arrays[pos].reshape(-1)
            self.transport.bcast(buf, describe, sig)
            for pos, start, stop in zip(message, offsets[:-1], offsets[1:]):
                arrays[pos][...] = buf[start:stop].reshape(arrays[pos].shape)

    def allgather_bytes(self, keys, chunks):
        """Gather every worker's byte strings (``chunks[i]`` for ``keys[i]``, equal sizes
        on every worker) in one message; returns ``rows[i]``: one row per worker."""
        sizes = [c.size for c in chunks]
        offsets = np.cumsum([0] + sizes)
        total = int(offsets[-1])
        send = self._buffer(np.dtype(np.uint8), total, slot=1)
        for chunk, start, stop in zip(chunks, offsets[:-1], offsets[1:]):
            send[start:stop] = chunk
        gathered = np.empty((self.transport.size, total), dtype=np.uint8)
        sig = signature(ALLGATHER, list(zip(keys, sizes)))
        self.transport.allgather(send, gathered, _describer(keys), sig)
        return [gathered[:, start:stop] for start, stop in zip(offsets[:-1], offsets[1:])]


def _describer(keys):
    return lambda: describe_keys(keys)
