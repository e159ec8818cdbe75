"""The local KVStore: create, init/push/pull/pushpull/broadcast, keys, optimizer."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError

SHAPE = (2, 3)


def nd(value, ctx=None):
    return mx.nd.array(np.asarray(value, dtype=np.float32), ctx=ctx)


@pytest.mark.parametrize('name', ['local', 'device', 'local_update_cpu', 'local_allreduce_cpu',
                                  'local_allreduce_device', 'LOCAL', 'Device'])
def test_create_types(name):
    kv = mx.kv.create(name)
    assert isinstance(kv, mx.kvstore.KVStore)
    assert kv.type == name.lower()
    assert kv.rank == 0 and kv.num_workers == 1
    assert kv.is_capable('optimizer') and kv.is_capable(mx.kvstore.KVStoreBase.OPTIMIZER)
    kv._barrier()


def test_create_default_and_alias():
    assert mx.kv.create().type == 'local'
    assert mx.kv is mx.kvstore


def test_create_none_and_non_string():
    with pytest.raises(TypeError, match='name must be a string'):
        mx.kv.create(None)
    with pytest.raises(TypeError, match='name must be a string'):
        mx.kv.create(3)


@pytest.mark.parametrize('name,match', [('dist_foo', 'Unknown KVStore type'),
                                        ('nccl', 'NCCL'), ('horovod', 'Horovod'),
                                        ('byteps', 'BytePS'), ('foo', 'Unknown KVStore type')])
def test_create_refused(name, match):
    with pytest.raises(MXNetError, match=match):
        mx.kv.create(name)


def test_is_capable_unknown():
    with pytest.raises(ValueError, match='Unknown capability: foo'):
        mx.kv.create().is_capable('foo')


def test_teststore_registered():
    kv = mx.kv.create('teststore')
    assert isinstance(kv, mx.kvstore.TestStore) and kv.type == 'teststore'
    assert not kv.is_capable('optimizer')
    vals = [nd(np.ones(SHAPE)), nd(2 * np.ones(SHAPE))]
    kv.pushpull(0, vals)
    for v in vals:
        np.testing.assert_array_equal(v.asnumpy(), 3 * np.ones(SHAPE))
    outs = [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)]
    kv.broadcast(1, nd(np.full(SHAPE, 4.)), out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 4.))


def test_register_custom_store():
    @mx.kvstore.KVStoreBase.register
    class MyTestStoreForRegistry(mx.kvstore.TestStore):
        pass
    assert type(mx.kv.create('MyTestStoreForRegistry')) is MyTestStoreForRegistry
    with pytest.warns(UserWarning, match='overriding existing kvstore'):
        mx.kvstore.KVStoreBase.register(MyTestStoreForRegistry)


@pytest.mark.parametrize('key', [3, 'w'])
def test_init_pull(key):
    kv = mx.kv.create()
    value = np.arange(6, dtype=np.float32).reshape(SHAPE)
    kv.init(key, nd(value))
    out = mx.nd.zeros(SHAPE)
    kv.pull(key, out=out)
    np.testing.assert_array_equal(out.asnumpy(), value)


def test_init_copies_value():
    kv = mx.kv.create()
    value = nd(np.ones(SHAPE))
    kv.init('a', value)
    value[:] = 5
    out = mx.nd.zeros(SHAPE)
    kv.pull('a', out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.ones(SHAPE))


@pytest.mark.parametrize('ndev', [1, 2, 4])
def test_push_sums_devices_and_pull_broadcasts(ndev):
    kv = mx.kv.create('local')
    kv.init(0, mx.nd.zeros(SHAPE))
    rng = np.random.RandomState(ndev)
    vals = [rng.normal(size=SHAPE).astype(np.float32) for _ in range(ndev)]
    kv.push(0, [nd(v, mx.cpu(i)) for i, v in enumerate(vals)])
    outs = [mx.nd.zeros(SHAPE, ctx=mx.cpu(i)) for i in range(3)]
    kv.pull(0, out=outs)
    expected = np.sum(vals, axis=0, dtype=np.float32)
    for o in outs:
        np.testing.assert_allclose(o.asnumpy(), expected, rtol=1e-6, atol=1e-6)


def test_push_replaces_stored_value_without_updater():
    kv = mx.kv.create()
    kv.init('k', nd(np.full(SHAPE, 10.)))
    kv.push('k', nd(np.ones(SHAPE)))
    out = mx.nd.zeros(SHAPE)
    kv.pull('k', out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.ones(SHAPE))


def test_list_of_keys_single_and_multi_device():
    kv = mx.kv.create()
    keys = ['4', '5', '6']
    kv.init(keys, [mx.nd.zeros(SHAPE)] * 3)
    kv.push(keys, [nd(np.full(SHAPE, float(i))) for i in range(3)])
    outs = [mx.nd.zeros(SHAPE) for _ in keys]
    kv.pull(keys, out=outs)
    for i, o in enumerate(outs):
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, float(i)))
    grads = [[nd(np.full(SHAPE, float(i + d))) for d in range(2)] for i in range(3)]
    kv.push(keys, grads)
    outs = [[mx.nd.zeros(SHAPE) for _ in range(2)] for _ in keys]
    kv.pull(keys, out=outs)
    for i, devs in enumerate(outs):
        for o in devs:
            np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 2. * i + 1))


def test_same_key_twice_in_one_push_is_summed():
    kv = mx.kv.create()
    kv.init(1, mx.nd.zeros(SHAPE))
    kv.push([1, 1], [nd(np.ones(SHAPE)), nd(2 * np.ones(SHAPE))])
    out = mx.nd.zeros(SHAPE)
    kv.pull(1, out=out)
    np.testing.assert_array_equal(out.asnumpy(), 3 * np.ones(SHAPE))


def test_pushpull_with_and_without_out():
    kv = mx.kv.create('device')
    kv.init('g', mx.nd.zeros(SHAPE))
    vals = [nd(np.ones(SHAPE)), nd(3 * np.ones(SHAPE))]
    kv.pushpull('g', vals)
    for v in vals:
        np.testing.assert_array_equal(v.asnumpy(), 4 * np.ones(SHAPE))
    out = mx.nd.zeros(SHAPE)
    kv.pushpull('g', [nd(np.ones(SHAPE))] * 2, out=out)
    np.testing.assert_array_equal(out.asnumpy(), 2 * np.ones(SHAPE))


def test_broadcast_inits_and_copies():
    kv = mx.kv.create()
    outs = [mx.nd.zeros(SHAPE, ctx=mx.cpu(i)) for i in range(2)]
    kv.broadcast('w', nd(np.full(SHAPE, 2.)), out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 2.))
    with pytest.raises(MXNetError, match='duplicate init of key w'):
        kv.broadcast('w', nd(np.ones(SHAPE)), out=outs)


def test_duplicate_init():
    kv = mx.kv.create()
    kv.init(3, mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match='duplicate init of key 3'):
        kv.init(3, mx.nd.zeros(SHAPE))


def test_uninitialized_keys():
    kv = mx.kv.create()
    kv.init('a', mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="key b doesn't exist. Did you init?"):
        kv.push('b', mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="key b doesn't exist"):
        kv.pull('b', out=mx.nd.zeros(SHAPE))
    kv2 = mx.kv.create()
    with pytest.raises(MXNetError, match='key 7 has not been inited'):
        kv2.pull(7, out=mx.nd.zeros(SHAPE))


def test_mixed_key_types_refused():
    kv = mx.kv.create()
    kv.init('a', mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match='Mixed key types are not allowed'):
        kv.init(1, mx.nd.zeros(SHAPE))
    with pytest.raises(AssertionError, match='inconsistent types of keys detected'):
        mx.kv.create().init(['a', 1], [mx.nd.zeros(SHAPE)] * 2)


def test_bad_key_and_value_types():
    kv = mx.kv.create()
    with pytest.raises(AssertionError, match='unexpected type for keys'):
        kv.init(1.5, mx.nd.zeros(SHAPE))
    with pytest.raises(AssertionError, match='unexpected type for keys'):
        kv.init(np.int64(1), mx.nd.zeros(SHAPE))
    with pytest.raises(AssertionError):
        kv.init(['a', 'b'], [mx.nd.zeros(SHAPE)])
    with pytest.raises(AssertionError):
        kv.pull('a')


def test_shape_mismatch():
    kv = mx.kv.create()
    kv.init('a', mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match=r'shape \(3,\)'):
        kv.push('a', mx.nd.zeros((3,)))
    with pytest.raises(MXNetError, match='output has shape'):
        kv.pull('a', out=mx.nd.zeros((3,)))


def test_pull_casts_dtype():
    kv = mx.kv.create()
    kv.init('a', nd([1.5, 2.5]))
    out = mx.nd.zeros((2,), dtype='float64')
    kv.pull('a', out=out)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.asnumpy(), [1.5, 2.5])


def test_row_sparse_pull_refused():
    kv = mx.kv.create()
    kv.init('a', mx.nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match='row_sparse'):
        kv.row_sparse_pull('a', out=mx.nd.zeros(SHAPE), row_ids=mx.nd.array([0]))


@pytest.mark.parametrize('key', [3, 'w'])
def test_set_optimizer_updates_in_store(key):
    kv = mx.kv.create()
    w0 = np.random.RandomState(0).normal(size=SHAPE).astype(np.float32)
    kv.init(key, nd(w0))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, rescale_grad=0.5))
    grads = [np.random.RandomState(s).normal(size=SHAPE).astype(np.float32) for s in (1, 2)]
    mom = np.zeros(SHAPE, np.float32)
    w = w0.copy()
    out = mx.nd.zeros(SHAPE)
    for _ in range(3):
        kv.pushpull(key, [nd(g) for g in grads], out=out)
        g = (grads[0] + grads[1]) * np.float32(0.5)
        mom = np.float32(0.9) * mom - np.float32(0.1) * g
        w = w + mom
        np.testing.assert_allclose(out.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_custom_updater_gets_key_and_sum():
    kv = mx.kv.create()
    calls = []

    def update(key, inp, stored):
        calls.append(key)
        stored += inp * 2
    kv._set_updater(update)
    kv.init('x', mx.nd.ones(SHAPE))
    kv.push('x', [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE)])
    out = mx.nd.zeros(SHAPE)
    kv.pull('x', out=out)
    assert calls == ['x']
    np.testing.assert_array_equal(out.asnumpy(), 5 * np.ones(SHAPE))


def test_optimizer_states_round_trip(tmp_path):
    """Save after two Adam steps, load into a fresh store: the next steps are identical
    (symmod's states keep the update counts Adam's bias correction needs)."""
    def push(kv, values):
        out = mx.nd.zeros(SHAPE)
        for v in values:
            kv.pushpull(0, nd(np.full(SHAPE, v)), out=out)
        return out.asnumpy()

    kv = mx.kv.create()
    kv.init(0, mx.nd.ones(SHAPE))
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.01))
    w_mid = push(kv, [0.1, 0.2])
    fname = str(tmp_path / 'kv.states')
    kv.save_optimizer_states(fname, dump_optimizer=True)
    ahead = push(kv, [0.3, -0.4])

    kv2 = mx.kv.create()
    kv2.init(0, nd(w_mid))
    kv2.set_optimizer(mx.optimizer.Adam(learning_rate=0.5))
    kv2.load_optimizer_states(fname)
    assert kv2._updater.optimizer.lr == 0.01      # dump_optimizer restored the settings
    np.testing.assert_array_equal(push(kv2, [0.3, -0.4]), ahead)


def test_optimizer_states_need_updater(tmp_path):
    kv = mx.kv.create()
    with pytest.raises(AssertionError, match='Cannot save states'):
        kv.save_optimizer_states(str(tmp_path / 'x'))
    with pytest.raises(AssertionError, match='Cannot load states'):
        kv.load_optimizer_states(str(tmp_path / 'x'))
