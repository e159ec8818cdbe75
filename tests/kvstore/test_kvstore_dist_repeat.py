"""dist_sync's pushpull of the very arrays of the previous call (Module.fit's every step)
reuses that call's work instead of parsing its arguments again; any other call parses.
Results must equal the 'local' store's, step after step (a job of one worker)."""
import numpy as np
import pytest

import symmod as mx

SHAPES = [(3, 4), (5,), (2, 2)]


def _arrays(rng, scale=1.0):
    return [mx.nd.array(rng.randn(*s).astype(np.float32) * scale) for s in SHAPES]


def _stores(optimizer):
    stores = []
    for name in ('local', 'dist_sync'):
        kv = mx.kv.create(name)
        kv.init(['a', 'b', 'c'], _arrays(np.random.RandomState(0)))
        if optimizer:
            kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01))
        stores.append(kv)
    return stores


def _step(kv, grads, outs, rng_seed):
    """Fill grads with this step's numbers, then pushpull as Module does."""
    rng = np.random.RandomState(rng_seed)
    for g in grads:
        g[:] = rng.randn(*g.shape).astype(np.float32)
    kv.pushpull(['a', 'b', 'c'], [[g] for g in grads],
                out=None if outs is None else [[o] for o in outs])


@pytest.mark.parametrize('optimizer', [True, False])
@pytest.mark.parametrize('with_out', [True, False])
def test_repeated_pushpull_equals_local_and_skips_parsing(optimizer, with_out, monkeypatch):
    local, dist = _stores(optimizer)
    arrays = {}
    for kv in (local, dist):
        grads = _arrays(np.random.RandomState(1))
        outs = _arrays(np.random.RandomState(2)) if with_out else None
        arrays[kv] = (grads, outs)
    for step in range(4):
        for kv in (local, dist):
            _step(kv, *arrays[kv], step)
        if step == 0:       # from now on dist_sync must not parse its arguments
            def refuse(*args):
                raise AssertionError('pushpull parsed the arguments of a repeated call')
            monkeypatch.setattr(dist, '_parse', refuse)
        for a, b in zip(*(arrays[kv][1] or arrays[kv][0] for kv in (local, dist))):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    monkeypatch.undo()
    for k, shape in zip(('a', 'b', 'c'), SHAPES):       # the stored values agree too
        want, got = mx.nd.zeros(shape), mx.nd.zeros(shape)
        local.pull(k, out=want)
        dist.pull(k, out=got)
        np.testing.assert_array_equal(want.asnumpy(), got.asnumpy())


def test_other_arrays_or_a_new_optimizer_are_not_repeats():
    local, dist = _stores(True)
    grads = {kv: _arrays(np.random.RandomState(1)) for kv in (local, dist)}
    outs = {kv: _arrays(np.random.RandomState(2)) for kv in (local, dist)}
    for kv in (local, dist):
        _step(kv, grads[kv], outs[kv], 0)
        outs[kv][1] = mx.nd.zeros(SHAPES[1])         # a new output array
        _step(kv, grads[kv], outs[kv], 1)
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))     # a new updater
        _step(kv, grads[kv], outs[kv], 2)
        outs[kv][0]._data = np.zeros(SHAPES[0], np.float32)     # new storage, same object
        _step(kv, grads[kv], outs[kv], 3)
    for a, b in zip(outs[local], outs[dist]):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert float(np.abs(outs[dist][1].asnumpy()).sum()) > 0


@pytest.mark.parametrize('form', ['flat list', 'one array'])
def test_flat_list_and_single_array_repeats_and_their_changes(form, monkeypatch):
    """pushpull(keys, [a, b, c]) and pushpull('a', a) (benchmark part 1's calls) repeat
    without parsing; another array object, new storage or another list content parse."""
    local, dist = _stores(False)
    keys = ['a', 'b', 'c'] if form == 'flat list' else 'a'
    rng = np.random.RandomState(3)
    made = {kv: _arrays(rng) for kv in (local, dist)}

    def call(kv, step):
        arrays = made[kv]
        for g in arrays:
            g[:] = np.random.RandomState(step).randn(*g.shape).astype(np.float32)
        kv.pushpull(keys, arrays if form == 'flat list' else arrays[0])

    parsed = []
    parse = dist._parse
    monkeypatch.setattr(dist, '_parse', lambda *a: (parsed.append(1), parse(*a))[1])
    for step in range(3):
        for kv in (local, dist):
            call(kv, step)
    assert len(parsed) == 2     # the first call only (its value and its out)
    for kv in (local, dist):
        made[kv][0] = mx.nd.zeros(SHAPES[0])                  # another array object
        call(kv, 3)
    assert len(parsed) == 4
    for kv in (local, dist):
        made[kv][0]._data = np.zeros(SHAPES[0], np.float32)  # new storage
        call(kv, 4)
    assert len(parsed) == 6
    for a, b in zip(made[local], made[dist]):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_module_form_repeats_and_notices_new_gradient_arrays(monkeypatch):
    """Module's form (lists of one-array lists, with outputs) is recognised without
    parsing, and a new gradient array or new storage in it is not a repeat."""
    local, dist = _stores(True)
    grads = {kv: _arrays(np.random.RandomState(1)) for kv in (local, dist)}
    outs = {kv: _arrays(np.random.RandomState(2)) for kv in (local, dist)}
    for kv in (local, dist):
        _step(kv, grads[kv], outs[kv], 0)
    parsed = []
    parse = dist._parse
    monkeypatch.setattr(dist, '_parse', lambda *a: (parsed.append(1), parse(*a))[1])
    for kv in (local, dist):
        _step(kv, grads[kv], outs[kv], 1)
    assert not parsed
    for kv in (local, dist):
        grads[kv][2] = mx.nd.zeros(SHAPES[2])                   # a new gradient array
        _step(kv, grads[kv], outs[kv], 2)
        grads[kv][0]._data = np.zeros(SHAPES[0], np.float32)    # new storage, same object
        _step(kv, grads[kv], outs[kv], 3)
    assert parsed
    for a, b in zip(outs[local], outs[dist]):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
