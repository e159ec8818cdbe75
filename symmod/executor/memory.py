"""Memory for bound graphs: lifetime-based buffer sharing and pools shared across executors.

The planner describes every intermediate buffer by (first step, last step, bytes).
:func:`assign_storage` packs them into few *virtual storages* (a storage is reused
once the buffer living in it is dead, and grows to its largest user), and a
:class:`MemoryPool` backs virtual storages with physical blocks. Executors that
share a pool (bucketing, ``shared_exec``) reuse the same blocks, since only one of
them runs at a time.

Both choose best fit (the smallest free storage or block that is large enough) from
lists kept sorted by size, searched with :mod:`bisect`, so binding a graph of n nodes
takes O(n log n) comparisons rather than a scan of every free storage per buffer.
"""
import bisect
import itertools

import numpy as np

__all__ = ['assign_storage', 'MemoryPool']

_ALIGN = 64


def assign_storage(buffers, aliases=None):
    """Pack buffers with disjoint lifetimes into shared storages.

    Parameters
    ----------
    buffers : list of (start, end, nbytes)
        Steps at which each buffer is first written and last read (inclusive).
    aliases : dict of int to list of int, optional
        ``{buffer: [other, ...]}``: ``buffer`` may take over the storage of the first
        ``other`` that is last read at the step that first writes ``buffer`` (an operator
        computing in place) and is at least as large.

    Returns
    -------
    storage_of : list of int
        Storage index of each buffer.
    sizes : list of int
        Bytes each storage needs (the largest buffer it holds).
    """
    aliases = aliases or {}
    order = sorted(range(len(buffers)), key=lambda b: (buffers[b][0], -buffers[b][2]))
    ends = sorted(range(len(buffers)), key=lambda b: buffers[b][1])
    storage_of = [None] * len(buffers)
    holder = {}         # storage -> the buffer living in it now
    sizes = []
    free = _FreeList()
    end_pos = 0
    for b in order:
        start, _, nbytes = buffers[b]
        # release storages of buffers that died before this one starts
        while end_pos < len(ends) and buffers[ends[end_pos]][1] < start:
            dead = ends[end_pos]
            if storage_of[dead] is not None and holder.get(storage_of[dead]) == dead:
                free.add(storage_of[dead], sizes[storage_of[dead]])
            end_pos += 1
        donors = [o for o in aliases.get(b, ()) if storage_of[o] is not None
                  and holder.get(storage_of[o]) == o and buffers[o][1] == start
                  and buffers[o][2] >= nbytes]
        if donors:
            storage = storage_of[donors[0]]     # in place: inherit a dying input's storage
        else:
            storage = free.take(nbytes)
            if storage is None:
                storage = len(sizes)
                sizes.append(nbytes)
            else:
                sizes[storage] = max(sizes[storage], nbytes)
        storage_of[b] = storage
        holder[storage] = b
    return storage_of, sizes


class _FreeList:
    """Free storages sorted by (size, order of release).

    :meth:`take` returns the smallest storage that fits, else the largest one (which its
    new buffer will grow); among equal sizes the one released first, so the packing is
    the same as scanning the storages in the order they were freed.
    """

    def __init__(self):
        self.keys = []                  # sorted (size, release number, storage)
        self.counter = itertools.count()

    def add(self, storage, size):
        bisect.insort(self.keys, (size, next(self.counter), storage))

    def take(self, nbytes):
        if not self.keys:
            return None
        pos = bisect.bisect_left(self.keys, (nbytes, -1))
        if pos == len(self.keys):       # none fits: the largest, first released among equals
            pos = bisect.bisect_left(self.keys, (self.keys[-1][0], -1))
        return self.keys.pop(pos)[2]


class MemoryPool:
    """Physical memory blocks shared by the executors bound against each other."""

    def __init__(self):
        self.blocks = []
        self._zeros = _aligned_empty(0)
        self._zeros[:] = 0
        self._zeros.flags.writeable = False

    @property
    def nbytes(self):
        """Total bytes held by the pool."""
        return sum(b.size for b in self.blocks) + self._zeros.size

    def zeros(self, shape, dtype):
        """A read-only array of zeros, backed by one block shared by every executor of the
        pool (for gradients that nothing flows into)."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if nbytes > self._zeros.size:
            self._zeros = _aligned_empty(nbytes)
            self._zeros[:] = 0
            self._zeros.flags.writeable = False
        return view(self._zeros, shape, dtype)

    def back(self, sizes):
        """Give each virtual storage of one executor its own block (reusing, else growing).

        Storages are served largest first, each with the smallest block that fits (the
        lowest-numbered among equal sizes). Returns a list of uint8 arrays, one per
        storage, each at least that large.
        """
        available = sorted((b.size, i) for i, b in enumerate(self.blocks))
        result = [None] * len(sizes)
        for storage in sorted(range(len(sizes)), key=lambda s: -sizes[s]):
            need = sizes[storage]
            pos = bisect.bisect_left(available, (need, -1))
            if pos < len(available):
                index = available.pop(pos)[1]
            else:
                index = len(self.blocks)
                self.blocks.append(_aligned_empty(need))
            result[storage] = self.blocks[index]
        return result


def _aligned_empty(nbytes):
    raw = np.empty(max(nbytes, 1) + _ALIGN, dtype=np.uint8)
    offset = (-raw.ctypes.data) % _ALIGN
    return raw[offset:offset + max(nbytes, 1)]


def view(block, shape, dtype):
    """An array of ``shape``/``dtype`` over the start of ``block``."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    return block[:count * dtype.itemsize].view(dtype).reshape(shape)
