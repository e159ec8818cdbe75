"""Memory for bound graphs: lifetime-based buffer sharing and pools shared across executors.

The planner describes every intermediate buffer by (first step, last step, bytes).
:func:`assign_storage` packs them into few *virtual storages* (a storage is reused
once the buffer living in it is dead, and grows to its largest user), and a
:class:`MemoryPool` backs virtual storages with physical blocks. Executors that
share a pool (bucketing, ``shared_exec``) reuse the same blocks, since only one of
them runs at a time.
"""
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
    free = []
    end_pos = 0
    for b in order:
        start, _, nbytes = buffers[b]
        # release storages of buffers that died before this one starts
        while end_pos < len(ends) and buffers[ends[end_pos]][1] < start:
            dead = ends[end_pos]
            if storage_of[dead] is not None and holder.get(storage_of[dead]) == dead:
                free.append(storage_of[dead])
            end_pos += 1
        donors = [o for o in aliases.get(b, ()) if storage_of[o] is not None
                  and holder.get(storage_of[o]) == o and buffers[o][1] == start
                  and buffers[o][2] >= nbytes]
        if donors:
            storage = storage_of[donors[0]]     # in place: inherit a dying input's storage
        else:
            storage = _best_fit(free, sizes, nbytes)
            if storage is None:
                storage = len(sizes)
                sizes.append(nbytes)
            else:
                free.remove(storage)
                sizes[storage] = max(sizes[storage], nbytes)
        storage_of[b] = storage
        holder[storage] = b
    return storage_of, sizes


def _best_fit(free, sizes, nbytes):
    """The free storage that fits ``nbytes`` most tightly, else the largest free one."""
    if not free:
        return None
    fitting = [s for s in free if sizes[s] >= nbytes]
    if fitting:
        return min(fitting, key=lambda s: sizes[s])
    return max(free, key=lambda s: sizes[s])


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

        Returns a list of uint8 arrays, one per storage, each at least that large.
        """
        taken = set()
        result = [None] * len(sizes)
        for storage in sorted(range(len(sizes)), key=lambda s: -sizes[s]):
            need = sizes[storage]
            candidates = [i for i, b in enumerate(self.blocks)
                          if i not in taken and b.size >= need]
            if candidates:
                index = min(candidates, key=lambda i: self.blocks[i].size)
            else:
                index = len(self.blocks)
                self.blocks.append(_aligned_empty(need))
            taken.add(index)
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
