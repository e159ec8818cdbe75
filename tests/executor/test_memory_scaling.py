"""The memory planner's cost grows about linearly with the graph (issue 11 item 6).

Binding used to scan every free storage for every buffer and every pool block for every
storage: quadratic in the graph size (8,000 relus took 13 s). The guard counts the Python
steps taken inside ``executor/memory.py`` (line events, one per loop iteration), not
seconds, so it does not depend on the machine's load. The packing itself is checked
against a plain scanning reference of the same best-fit policy: the sorted free lists
must give the same storages, so no graph uses more memory than before.
"""
import random
import sys

import pytest

import symmod as mx
from symmod.executor import memory


def relu_chain(n):
    net = mx.sym.Variable('data')
    for i in range(n):
        net = mx.sym.Activation(net, act_type='relu', name='relu%d' % i)
    return mx.sym.MakeLoss(mx.sym.sum(net), name='loss')


def memory_steps(n):
    """Line events in memory.py while binding an n-node relu chain."""
    net = relu_chain(n)
    count = [0]
    target = memory.__file__

    def local(frame, event, arg):
        if event == 'line':
            count[0] += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename == target else None

    sys.settrace(tracer)
    try:
        net.simple_bind(mx.cpu(), data=(2, 4))
    finally:
        sys.settrace(None)
    return count[0]


def test_planner_steps_grow_linearly_with_the_graph():
    small, large = memory_steps(500), memory_steps(2000)
    assert large < 5 * small, (small, large)        # 4x nodes; quadratic would be 16x
    assert large < 100 * 2000, large                # a few dozen steps per node


# ---- the packing equals a plain scan of the same policy -----------------------------------
def reference_assign(buffers, aliases):
    """Best fit by scanning the free storages in the order they were freed."""
    order = sorted(range(len(buffers)), key=lambda b: (buffers[b][0], -buffers[b][2]))
    ends = sorted(range(len(buffers)), key=lambda b: buffers[b][1])
    storage_of, holder, sizes, free, end_pos = [None] * len(buffers), {}, [], [], 0
    for b in order:
        start, _, nbytes = buffers[b]
        while end_pos < len(ends) and buffers[ends[end_pos]][1] < start:
            dead = ends[end_pos]
            if storage_of[dead] is not None and holder.get(storage_of[dead]) == dead:
                free.append(storage_of[dead])
            end_pos += 1
        donors = [o for o in aliases.get(b, ()) if storage_of[o] is not None
                  and holder.get(storage_of[o]) == o and buffers[o][1] == start
                  and buffers[o][2] >= nbytes]
        if donors:
            storage = storage_of[donors[0]]
        elif free:
            fitting = [s for s in free if sizes[s] >= nbytes]
            storage = min(fitting, key=lambda s: sizes[s]) if fitting \
                else max(free, key=lambda s: sizes[s])
            free.remove(storage)
            sizes[storage] = max(sizes[storage], nbytes)
        else:
            storage = len(sizes)
            sizes.append(nbytes)
        storage_of[b] = storage
        holder[storage] = b
    return storage_of, sizes


def reference_back(blocks, sizes):
    taken, result = set(), [None] * len(sizes)
    blocks = list(blocks)
    for storage in sorted(range(len(sizes)), key=lambda s: -sizes[s]):
        fits = [i for i, b in enumerate(blocks) if i not in taken and b >= sizes[storage]]
        index = min(fits, key=lambda i: blocks[i]) if fits else len(blocks)
        if not fits:
            blocks.append(sizes[storage])
        taken.add(index)
        result[storage] = index
    return result, blocks


@pytest.mark.parametrize('seed', range(30))
def test_packing_equals_the_scanning_reference(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 300)
    sizes_pool = [rng.choice([64, 128, 256, 4096]) for _ in range(6)]
    buffers = []
    for _ in range(n):
        start = rng.randint(0, 200)
        buffers.append((start, start + rng.randint(0, 30), rng.choice(sizes_pool)))
    aliases = {b: rng.sample(range(n), rng.randint(0, 3)) for b in range(n) if rng.random() < 0.3}
    assert memory.assign_storage(buffers, aliases) == reference_assign(buffers, aliases)


@pytest.mark.parametrize('seed', range(10))
def test_pool_backing_equals_the_scanning_reference(seed):
    rng = random.Random(seed)
    pool = memory.MemoryPool()
    block_sizes = []
    for _ in range(4):          # several executors bound against one pool (bucketing)
        sizes = [rng.choice([64, 100, 4096, 7000, 128]) for _ in range(rng.randint(1, 40))]
        expected, block_sizes = reference_back(block_sizes, sizes)
        blocks = pool.back(sizes)
        ids = {id(b): i for i, b in enumerate(pool.blocks)}
        assert [ids[id(b)] for b in blocks] == expected
        assert [b.size for b in pool.blocks] == [max(s, 1) for s in block_sizes]
