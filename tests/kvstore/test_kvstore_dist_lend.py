"""With the optimizer in a dist_sync store, Module lends the store its weight arrays: the
store keeps its values in them and the pull copies nothing. Everything a user can see
must stay as with a store that keeps its own copy (MXNet's, and symmod's 'local'
store): a push reaches the weights only when pulled, and Module.set_params between
updates is overwritten by the next update's pull. A job of one worker."""
import numpy as np
import pytest

import symmod as mx

BATCH = 6


def _mlp():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=8, name='fc1')
    net = mx.sym.Activation(net, act_type='tanh')
    net = mx.sym.FullyConnected(net, num_hidden=3, name='fc2')
    return mx.sym.SoftmaxOutput(net, name='softmax')


def _batches():
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (4 * BATCH, 5)).astype(np.float32)
    y = rng.randint(0, 3, 4 * BATCH).astype(np.float32)
    return list(mx.io.NDArrayIter(x, y, batch_size=BATCH, label_name='softmax_label'))


def _params(seed):
    rng = np.random.RandomState(seed)
    shapes = {'fc1_weight': (8, 5), 'fc1_bias': (8,), 'fc2_weight': (3, 8), 'fc2_bias': (3,)}
    return {k: mx.nd.array(rng.uniform(-0.5, 0.5, s).astype(np.float32))
            for k, s in shapes.items()}


def _module(kvstore):
    mod = mx.mod.Module(_mlp())
    mod.bind(data_shapes=[('data', (BATCH, 5))], label_shapes=[('softmax_label', (BATCH,))])
    mod.init_params(arg_params=_params(0))
    mod.init_optimizer(kvstore=kvstore, optimizer='sgd',
                       optimizer_params={'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3})
    assert mod._update_on_kvstore
    return mod


def _train(mod, batches):
    for batch in batches:
        mod.forward_backward(batch)
        mod.update()


def _weights(mod):
    return {name: arrs[0].asnumpy() for name, arrs in
            zip(mod._exec_group.param_names, mod._exec_group.param_arrays)}


def _stored(kv, names):
    out = {}
    for name in names:
        value = mx.nd.zeros(kv._store[name].shape)
        kv.pull(name, out=value)
        out[name] = value.asnumpy()
    return out


def _assert_same(got, want):
    assert sorted(got) == sorted(want)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_module_lends_its_weights_and_trains_like_a_store_with_its_own_copy():
    batches = _batches()
    mods = {}
    for name in ('local', 'dist_sync'):
        kv = mx.kv.create(name)
        mods[name] = (_module(kv), kv)
        _train(mods[name][0], batches)
    mod, kv = mods['dist_sync']
    for name, arrs in zip(mod._exec_group.param_names, mod._exec_group.param_arrays):
        assert kv._store[name]._data is arrs[0]._data, name   # the pull copied nothing
    _assert_same(_weights(mod), _weights(mods['local'][0]))
    _assert_same(_stored(kv, kv._store), _stored(mods['local'][1], kv._store))


def test_set_params_between_updates_is_overwritten_by_the_next_pull():
    batches = _batches()
    results = {}
    for name in ('local', 'dist_sync'):
        kv = mx.kv.create(name)
        mod = _module(kv)
        _train(mod, batches[:2])
        before = _stored(kv, kv._store)
        mod.set_params(_params(7), {})
        results[name] = [_weights(mod), _stored(kv, kv._store)]
        _assert_same(results[name][1], before)     # the store kept its values
        _train(mod, batches[2:])    # gradients at the new values, applied to the store's
        results[name] += [_weights(mod), _stored(kv, kv._store)]
    for got, want in zip(results['dist_sync'], results['local']):
        _assert_same(got, want)


def test_a_push_reaches_lent_weights_only_when_pulled():
    batches = _batches()
    results = {}
    for name in ('local', 'dist_sync'):
        kv = mx.kv.create(name)
        mod = _module(kv)
        _train(mod, batches[:2])
        before = _weights(mod)
        grad = mx.nd.ones((8, 5)) * 0.5
        kv.push('fc1_weight', grad)
        _assert_same(_weights(mod), before)
        mod._exec_group.param_arrays[0][0][:] = -1.0    # the module's own business
        results[name] = [_weights(mod), _stored(kv, kv._store)]
        kv.pull('fc1_weight', out=mod._exec_group.param_arrays[0])
        _train(mod, batches[2:])
        results[name] += [_weights(mod), _stored(kv, kv._store)]
    for got, want in zip(results['dist_sync'], results['local']):
        _assert_same(got, want)


@pytest.mark.parametrize('other_out', [False, True])
def test_a_plain_pushpull_takes_the_weights_back(other_out):
    """Also one of the very arrays of Module's calls (which repeats their work)."""
    batches = _batches()
    results = {}
    for name in ('local', 'dist_sync'):
        kv = mx.kv.create(name)
        mod = _module(kv)
        _train(mod, batches[:2])
        group = mod._exec_group
        if other_out:
            grads = [[mx.nd.ones(g[0].shape) * 0.25] for g in group.grad_arrays]
            outs = [[mx.nd.zeros(a[0].shape)] for a in group.param_arrays]
        else:
            grads, outs = group.grad_arrays, group.param_arrays
        kv.pushpull(group.param_names, grads, out=outs)
        if name == 'dist_sync':
            assert not kv._lent
        group.param_arrays[1][0][:] = 2.0       # the module writes its array
        results[name] = [_weights(mod), _stored(kv, kv._store)]
        _train(mod, batches[2:])
        results[name] += [_weights(mod), _stored(kv, kv._store)]
    for got, want in zip(results['dist_sync'], results['local']):
        _assert_same(got, want)
