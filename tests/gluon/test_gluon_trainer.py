"""gluon.Trainer: updates, multi-context reduction through the KVStore, stale gradients,
update_on_kvstore resolution, states."""
import numpy as np
import pytest

import symmod as mx
from symmod import autograd, gluon

SHAPE = (3, 4)
CTX2 = [mx.cpu(0), mx.cpu(1)]


def make_params(ctxs=None, n=2, seed=0, **kwargs):
    rng = np.random.RandomState(seed)
    params = []
    for i in range(n):
        p = gluon.Parameter('p%d_weight' % i, shape=SHAPE, **kwargs)
        p.initialize(ctx=ctxs or [mx.cpu(0)])
        p.set_data(mx.nd.array(rng.normal(size=SHAPE)))
        params.append(p)
    return params


def backward_with(params, coeffs):
    """Per-context gradient of sum(w * c) is c: coeffs[i][k] for parameter i on context k."""
    with autograd.record():
        losses = []
        for p, per_ctx in zip(params, coeffs):
            for arr, c in zip(p.list_data(), per_ctx):
                losses.append((arr * mx.nd.array(c, ctx=arr.context)).sum())
    autograd.backward(losses)


def random_coeffs(params, nctx, seed=1):
    rng = np.random.RandomState(seed)
    return [[rng.normal(size=SHAPE).astype(np.float32) for _ in range(nctx)]
            for _ in params]


@pytest.mark.parametrize('optimizer,kwargs', [('sgd', {'learning_rate': 0.1, 'momentum': 0.9,
                                                        'wd': 0.01}),
                                               ('adam', {'learning_rate': 0.01}),
                                               ('rmsprop', {'learning_rate': 0.01})])
def test_step_equals_manual_optimizer_update(optimizer, kwargs):
    params = make_params()
    reference = [mx.nd.array(p.data().asnumpy()) for p in params]
    trainer = gluon.Trainer(params, optimizer, kwargs)
    opt = mx.optimizer.create(optimizer, **kwargs)
    updater = mx.optimizer.get_updater(opt)
    batch_size = 8
    for step in range(3):
        coeffs = random_coeffs(params, 1, seed=step)
        backward_with(params, coeffs)
        trainer.step(batch_size)
        opt.rescale_grad = 1.0 / batch_size
        for i, ref in enumerate(reference):
            updater(i, mx.nd.array(coeffs[i][0]), ref)
        for p, ref in zip(params, reference):
            np.testing.assert_allclose(p.data().asnumpy(), ref.asnumpy(), rtol=1e-6,
                                       atol=1e-7)
    assert trainer.optimizer.rescale_grad == 1.0 / batch_size


def test_rescale_grad_is_scale_over_batch_size():
    params = make_params(n=1)
    opt = mx.optimizer.SGD(learning_rate=1.0, rescale_grad=2.0)
    trainer = gluon.Trainer(params, opt)
    w0 = params[0].data().asnumpy()
    backward_with(params, [[np.ones(SHAPE, np.float32)]])
    trainer.step(4)
    assert opt.rescale_grad == 0.5
    np.testing.assert_allclose(params[0].data().asnumpy(), w0 - 0.5, rtol=1e-6)


@pytest.mark.parametrize('uok', [True, False])
@pytest.mark.parametrize('kvstore', ['device', 'local'])
def test_multi_context_gradients_summed_and_copies_identical(uok, kvstore):
    params = make_params(CTX2)
    w0 = [p.data(mx.cpu(0)).asnumpy() for p in params]
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 0.1, 'momentum': 0.9},
                            kvstore=kvstore, update_on_kvstore=uok)
    mom = [np.zeros(SHAPE, np.float32) for _ in params]
    expected = [w.copy() for w in w0]
    for step in range(3):
        coeffs = random_coeffs(params, 2, seed=10 + step)
        backward_with(params, coeffs)
        trainer.step(5)
        for i in range(len(params)):
            g = (coeffs[i][0] + coeffs[i][1]) / np.float32(5)
            mom[i] = np.float32(0.9) * mom[i] - np.float32(0.1) * g
            expected[i] = expected[i] + mom[i]
        for p, exp in zip(params, expected):
            copies = [arr.asnumpy() for arr in p.list_data()]
            np.testing.assert_array_equal(copies[0], copies[1])
            np.testing.assert_allclose(copies[0], exp, rtol=1e-5, atol=1e-6)
    assert trainer._kvstore.type == kvstore
    assert trainer._update_on_kvstore is uok


def test_no_kvstore_updates_each_context_separately():
    params = make_params(CTX2, n=1)
    w0 = params[0].data(mx.cpu(0)).asnumpy()
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 1.0}, kvstore=None)
    coeffs = [[np.ones(SHAPE, np.float32), 2 * np.ones(SHAPE, np.float32)]]
    backward_with(params, coeffs)
    trainer.step(1)
    assert trainer._kvstore is None
    np.testing.assert_allclose(params[0].data(mx.cpu(0)).asnumpy(), w0 - 1, rtol=1e-6)
    np.testing.assert_allclose(params[0].data(mx.cpu(1)).asnumpy(), w0 - 2, rtol=1e-6)


def test_allreduce_grads_then_update():
    params = make_params(CTX2, n=1)
    w0 = params[0].data(mx.cpu(0)).asnumpy()
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 1.0}, update_on_kvstore=False)
    coeffs = random_coeffs(params, 2)
    backward_with(params, coeffs)
    trainer.allreduce_grads()
    total = coeffs[0][0] + coeffs[0][1]
    for g in params[0].list_grad():
        np.testing.assert_allclose(g.asnumpy(), total, rtol=1e-6)
        g *= 0.5               # e.g. clipping between the two calls
    trainer.update(2)
    np.testing.assert_allclose(params[0].data(mx.cpu(1)).asnumpy(), w0 - total / 4, rtol=1e-5,
                               atol=1e-6)


def test_allreduce_and_update_refused_on_kvstore():
    params = make_params(CTX2, n=1)
    trainer = gluon.Trainer(params, 'sgd', update_on_kvstore=True)
    with pytest.raises(AssertionError, match=r'allreduce_grads\(\) when parameters are updated '
                                             'on kvstore is not supported'):
        trainer.allreduce_grads()
    with pytest.raises(AssertionError, match=r'update\(\) when parameters are updated on '
                                             'kvstore is not supported'):
        trainer.update(1)


STALE = ('Gradient of Parameter `p1_weight` on context cpu(0) has not been updated by '
         'backward since last `step`. This could mean a bug in your model that made it only '
         'use a subset of the Parameters (Blocks) for this iteration. If you are '
         'intentionally only using a subset, call step with ignore_stale_grad=True to '
         'suppress this warning and skip updating of Parameters with stale gradient')


def test_stale_gradient_raises_user_warning():
    params = make_params()
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 1.0})
    backward_with(params[:1], [[np.ones(SHAPE, np.float32)]])
    with pytest.raises(UserWarning) as info:
        trainer.step(1)
    assert str(info.value) == STALE


def test_ignore_stale_grad_skips_stale_parameters():
    params = make_params()
    before = [p.data().asnumpy() for p in params]
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 1.0})
    backward_with(params[:1], [[np.ones(SHAPE, np.float32)]])
    trainer.step(1, ignore_stale_grad=True)
    np.testing.assert_allclose(params[0].data().asnumpy(), before[0] - 1, rtol=1e-6)
    np.testing.assert_array_equal(params[1].data().asnumpy(), before[1])
    with pytest.raises(UserWarning, match='p0_weight'):
        trainer.step(1)     # params[0]'s gradient is stale again after the step


def test_grad_req_null_parameters_are_skipped():
    params = make_params()
    params[1].grad_req = 'null'
    before = params[1].data().asnumpy()
    trainer = gluon.Trainer(params, 'sgd')
    backward_with(params[:1], [[np.ones(SHAPE, np.float32)]])
    trainer.step(1)
    np.testing.assert_array_equal(params[1].data().asnumpy(), before)


def test_update_on_kvstore_resolution(monkeypatch):
    single = gluon.Trainer(make_params(), 'sgd')
    backward_with(single._params, random_coeffs(single._params, 1))
    single.step(1)
    assert single._kvstore is None and single._update_on_kvstore is None

    multi = gluon.Trainer(make_params(CTX2), 'sgd')
    multi._init_kvstore()
    assert multi._kvstore.type == 'device' and multi._update_on_kvstore is True

    monkeypatch.setenv('MXNET_UPDATE_ON_KVSTORE', '0')
    env = gluon.Trainer(make_params(CTX2), 'sgd')
    env._init_kvstore()
    assert env._update_on_kvstore is False
    explicit = gluon.Trainer(make_params(CTX2), 'sgd', update_on_kvstore=True)
    explicit._init_kvstore()
    assert explicit._update_on_kvstore is True      # the argument wins over the variable
    monkeypatch.delenv('MXNET_UPDATE_ON_KVSTORE')

    test_store = gluon.Trainer(make_params(CTX2), 'sgd', kvstore='teststore')
    test_store._init_kvstore()
    assert test_store._update_on_kvstore is False   # the store cannot run optimizers
    refused = gluon.Trainer(make_params(CTX2), 'sgd', kvstore='teststore',
                            update_on_kvstore=True)
    with pytest.raises(ValueError, match='Please set update_on_kvstore=False when training '
                                         'with .*TestStore'):
        refused._init_kvstore()
    no_store = gluon.Trainer(make_params(), 'sgd', update_on_kvstore=True)
    with pytest.raises(ValueError, match='update_on_kvstore=True needs a KVStore'):
        no_store._init_kvstore()


def test_teststore_training_sums_gradients():
    params = make_params(CTX2, n=1)
    w0 = params[0].data(mx.cpu(0)).asnumpy()
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 1.0}, kvstore='teststore')
    coeffs = random_coeffs(params, 2)
    backward_with(params, coeffs)
    trainer.step(1)
    for arr in params[0].list_data():
        np.testing.assert_allclose(arr.asnumpy(), w0 - coeffs[0][0] - coeffs[0][1], rtol=1e-5,
                                   atol=1e-6)


def test_gradient_compression_is_applied():
    params = make_params(CTX2, n=1)
    w0 = params[0].data(mx.cpu(0)).asnumpy()
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 1.0},
                            compression_params={'type': '2bit', 'threshold': 10.0},
                            update_on_kvstore=False)
    backward_with(params, [[np.ones(SHAPE, np.float32), np.ones(SHAPE, np.float32)]])
    trainer.step(1)            # every |residual| < 10: the quantized gradient is 0
    np.testing.assert_array_equal(params[0].data(mx.cpu(1)).asnumpy(), w0)
    with pytest.raises(Exception, match='Gradient compression is not supported'):
        bad = gluon.Trainer(make_params(CTX2), 'sgd', kvstore='local',
                            compression_params={'type': '2bit'})
        bad._init_kvstore()


def test_set_data_resets_kvstore():
    params = make_params(CTX2, n=1)
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 1.0}, update_on_kvstore=True)
    backward_with(params, [[np.ones(SHAPE, np.float32)] * 2])
    trainer.step(1)
    params[0].set_data(mx.nd.full(SHAPE, 5.0))
    assert not trainer._kv_initialized
    backward_with(params, [[np.ones(SHAPE, np.float32)] * 2])
    trainer.step(1)
    for arr in params[0].list_data():
        np.testing.assert_allclose(arr.asnumpy(), np.full(SHAPE, 3.0))


def test_deferred_parameters_join_the_store_later():
    net = gluon.nn.Dense(2)
    net.initialize(ctx=CTX2)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5})
    xs = [mx.nd.ones((3, 4), ctx=c) for c in CTX2]
    with autograd.record():
        losses = [net(x).sum() for x in xs]
    autograd.backward(losses)
    trainer.step(6)
    w = net.weight.list_data()
    np.testing.assert_array_equal(w[0].asnumpy(), w[1].asnumpy())
    np.testing.assert_allclose(net.bias.data(mx.cpu(1)).asnumpy(), -0.5 * 6 / 6 * np.ones(2),
                               rtol=1e-6)


@pytest.mark.parametrize('uok', [True, False])
def test_save_load_states_round_trip(tmp_path, uok):
    def run(trainer, params, seeds):
        for s in seeds:
            backward_with(params, random_coeffs(params, 2, seed=s))
            trainer.step(3)
        return [p.data(mx.cpu(0)).asnumpy() for p in params]

    params = make_params(CTX2)
    trainer = gluon.Trainer(params, 'adam', {'learning_rate': 0.01}, update_on_kvstore=uok)
    mid = run(trainer, params, [1, 2])
    fname = str(tmp_path / 'trainer.states')
    trainer.save_states(fname)
    with open(fname, 'rb') as f:
        assert f.read(2) == b'\x80\x04'          # MXNet's pickle, read by symmod's own reader
    ahead = run(trainer, params, [3, 4])

    fresh = make_params(CTX2, seed=99)
    for p, value in zip(fresh, mid):
        p.set_data(mx.nd.array(value))
    other = gluon.Trainer(fresh, 'adam', {'learning_rate': 0.5}, update_on_kvstore=uok)
    other.load_states(fname)
    assert other.learning_rate == 0.01
    assert other.optimizer.param_dict[0] is fresh[0]
    for got, want in zip(run(other, fresh, [3, 4]), ahead):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    fresh[1].lr_mult = 0.0                        # the re-attached param_dict is live
    before = fresh[1].data(mx.cpu(0)).asnumpy()
    run(other, fresh, [5])
    np.testing.assert_array_equal(fresh[1].data(mx.cpu(0)).asnumpy(), before)


def test_learning_rate_and_scheduler():
    trainer = gluon.Trainer(make_params(), 'sgd', {'learning_rate': 0.3})
    assert trainer.learning_rate == 0.3
    trainer.set_learning_rate(0.05)
    assert trainer.learning_rate == 0.05 and trainer.optimizer.lr == 0.05
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    with_sched = gluon.Trainer(make_params(), 'sgd', {'lr_scheduler': sched})
    with pytest.raises(UserWarning, match='LRScheduler of the optimizer has already been'):
        with_sched.set_learning_rate(0.1)


def test_constructor_errors_and_dict_order():
    p = make_params()
    with pytest.raises(ValueError, match='First argument must be a list or dict of Parameters, '
                                         'got <class'):
        gluon.Trainer(p[0], 'sgd')
    with pytest.raises(ValueError, match="got list of <class 'str'>"):
        gluon.Trainer([p[0], 'x'], 'sgd')
    q = make_params(CTX2, n=1)
    with pytest.raises(AssertionError, match='All Parameters must be initialized on the same '
                                             'set of contexts'):
        gluon.Trainer([p[0], q[0]], 'sgd')
    with pytest.raises(AssertionError, match='optimizer_params must be None'):
        gluon.Trainer(p, mx.optimizer.SGD(), {'learning_rate': 1})
    trainer = gluon.Trainer({'b': p[1], 'a': p[0]}, 'sgd')
    assert trainer._params == [p[0], p[1]]
    uninit = gluon.Parameter('u', shape=(2,))
    with pytest.raises(RuntimeError, match="Parameter 'u' has not been initialized"):
        gluon.Trainer([uninit], 'sgd')
