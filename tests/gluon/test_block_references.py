"""A discarded block is freed by reference counting alone (no reference cycles), so a
hybridized block's bound executor buffers go at once, as MXNet frees a CachedOp's memory.

MXNet's test_gluon.test_slice_pooling2d_slice_pooling2d builds 16 hybridized networks on a
512 MB input one after the other; with a Block <-> name-scope cycle each kept its buffers
until Python's cycle collector ran and the process grew past 23 GB.
"""
import copy
import gc
import pickle
import weakref

import symmod as mx
from symmod import gluon
from symmod.gluon import nn


class _Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(4, 3)
            self.bn = nn.BatchNorm()
        with self.name_scope():
            self.pool = nn.MaxPool2D()
            self.dense = nn.Dense(3)
        self.layers = [self.conv, self.bn]      # a registered container of blocks

    def hybrid_forward(self, F, x):
        return self.dense(self.pool(self.bn(self.conv(x))))


def _train_hybridized():
    """A hybridized net after one recorded forward/backward; weak references to it, a
    child, and every buffer of the executor its bound graph bound."""
    net = _Net()
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((2, 3, 8, 8))
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    y.backward()
    slots = [slot for group in net._cached_op._slots.values() for slot in group]
    assert slots
    buffers = [array for slot in slots for array in
               slot.exe.arg_arrays + slot.exe.aux_arrays + slot.exe.outputs +
               [g for g in slot.exe.grad_arrays if g is not None]]
    return [weakref.ref(net), weakref.ref(net.conv), weakref.ref(slots[0].exe)] + \
        [weakref.ref(array) for array in buffers]


def test_discarded_hybridized_block_frees_its_executor_buffers_without_the_cycle_collector():
    # numba's first compilation of a kernel (a cold cache) raises and catches typing
    # errors whose tracebacks form cycles with its frames, and a frame holds its callers
    # (f_back): the whole stack down to this test. Compile everything once beforehand.
    _train_hybridized()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        refs = _train_hybridized()
        alive = [ref() for ref in refs if ref() is not None]
        assert not alive, 'kept alive by a reference cycle: %s' % [type(a).__name__
                                                                   for a in alive]
    finally:
        if enabled:
            gc.enable()


def test_name_scope_counts_children_across_scopes():
    net = _Net(prefix='net_')
    assert [c.name for c in net._children.values()] == \
        ['net_conv0', 'net_batchnorm0', 'net_pool0', 'net_dense0']
    with net.name_scope():
        extra = nn.Dense(2)
    assert extra.name == 'net_dense1'
    assert net.name_scope() is not net.name_scope()   # a block holds no scope object


def test_blocks_copy_and_pickle_with_their_scope_counter():
    net = _Net(prefix='net_')
    clone = copy.deepcopy(net)
    with clone.name_scope():
        assert nn.Dense(2).name == 'net_dense1'
    restored = pickle.loads(pickle.dumps(net))
    with restored.name_scope():
        assert nn.Dense(2).name == 'net_dense1'
    with net.name_scope():
        assert nn.Dense(2).name == 'net_dense1'
