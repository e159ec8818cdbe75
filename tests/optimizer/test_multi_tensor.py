"""Updater called with lists: one compiled call per dtype, identical to one-by-one updates."""
import numpy as np
import pytest

import symmod as mx
from symmod.optimizer.kernels import dispatch

SHAPES = [(4, 3), (5,), (2, 2, 2), (7,), (3, 3)]
OPTIMIZERS = [('sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01}),
              ('sgd', {'learning_rate': 0.1}),
              ('nag', {'learning_rate': 0.1, 'momentum': 0.9}),
              ('adam', {'learning_rate': 0.01, 'clip_gradient': 0.5}),
              ('adamw', {'learning_rate': 0.01, 'wd': 0.1}),
              ('rmsprop', {'learning_rate': 0.01, 'centered': True}),
              ('adagrad', {}), ('adadelta', {}), ('ftml', {}), ('ftrl', {}),
              ('signum', {}), ('adamax', {}), ('lamb', {}), ('dcasgd', {}), ('test', {})]


def _data(seed, dtype='float32'):
    rng = np.random.RandomState(seed)
    return ([rng.uniform(-1, 1, s).astype(dtype) for s in SHAPES],
            [[rng.normal(0, 1, s).astype(dtype) for s in SHAPES] for _ in range(3)])


@pytest.mark.parametrize('name,kwargs', OPTIMIZERS,
                         ids=['%s-%d' % (o[0], i) for i, o in enumerate(OPTIMIZERS)])
def test_list_update_equals_single_updates(name, kwargs):
    w0, grads = _data(0)
    together = [mx.nd.array(w) for w in w0]
    upd_all = mx.optimizer.get_updater(mx.optimizer.create(name, **kwargs))
    single = [mx.nd.array(w) for w in w0]
    upd_one = mx.optimizer.get_updater(mx.optimizer.create(name, **kwargs))
    indices = list(range(len(SHAPES)))
    for step in grads:
        upd_all(indices, [mx.nd.array(g) for g in step], together)
        for i in indices:
            upd_one(i, mx.nd.array(step[i]), single[i])
    for a, b in zip(together, single):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_one_kernel_call_per_dtype(monkeypatch):
    calls = []
    real = dispatch.run

    def counting(rule, operands, *args, **kwargs):
        calls.append((rule, len(operands[0])))
        return real(rule, operands, *args, **kwargs)
    monkeypatch.setattr(dispatch, 'run', counting)
    w0, grads = _data(1)
    weights = [mx.nd.array(w) for w in w0]
    weights[1] = mx.nd.array(w0[1], dtype='float64')
    g = [mx.nd.array(x, dtype=w.dtype) for x, w in zip(grads[0], weights)]
    upd = mx.optimizer.get_updater(mx.optimizer.create('adam'))
    upd(list(range(5)), g, weights)
    assert sorted(calls) == [('adam', 1), ('adam', 4)]


def test_prepared_call_is_reused_for_the_same_arrays():
    w0, grads = _data(2)
    weights = [mx.nd.array(w) for w in w0]
    nd_grads = [mx.nd.array(g) for g in grads[0]]
    upd = mx.optimizer.get_updater(mx.optimizer.create('sgd', momentum=0.9))
    upd(list(range(5)), nd_grads, weights)
    plans = dict(dispatch._PLANS)
    upd(list(range(5)), nd_grads, weights)
    assert dict(dispatch._PLANS) == plans   # same prepared call, nothing rebuilt
    key = next(k for k, p in plans.items() if p.arrays[0][0] is weights[0]._data)
    assert plans[key] is dispatch._PLANS[key]


def test_plan_cache_is_bounded():
    upd = mx.optimizer.get_updater(mx.optimizer.create('sgd'))
    w = mx.nd.ones((3,))
    for _ in range(3 * dispatch._MAX_PLANS):
        upd(0, mx.nd.ones((3,)), w)
    assert len(dispatch._PLANS) <= dispatch._MAX_PLANS


def test_sgd_aggregation_counts_in_chunks(monkeypatch):
    monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '2')
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.create('sgd', lr_scheduler=sched)
    assert opt.aggregate_num == 2
    rows = opt._hyper_params([0, 1, 2], [mx.nd.ones((1,))] * 3)
    # first chunk sees num_update 1, the second chunk num_update 1 as well (lockstep)
    assert [r[0] for r in rows] == [1.0, 1.0, 1.0]
    rows = opt._hyper_params([0, 1, 2], [mx.nd.ones((1,))] * 3)
    assert [r[0] for r in rows] == [0.5, 0.5, 0.5]


def test_user_subclass_update_is_used_where_mxnet_uses_it():
    class Doubling(mx.optimizer.Adam):
        def update(self, index, weight, grad, state):
            weight[:] = weight.asnumpy() * 2
    opt = Doubling()
    assert not opt._can_fuse()
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.ones((2,))
    upd([0], [mx.nd.ones((2,))], [w])
    np.testing.assert_array_equal(w.asnumpy(), [2, 2])


def test_an_update_method_replaced_after_a_step_is_used():
    # whether the fused kernels may run is remembered per class and its methods
    class Later(mx.optimizer.Adam):
        pass
    opt = Later()
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.ones((2,))
    upd([0], [mx.nd.ones((2,))], [w])
    assert opt._can_fuse()
    Later.update = lambda self, index, weight, grad, state: weight.__setitem__(
        slice(None), weight.asnumpy() * 2)
    assert not opt._can_fuse()
    before = w.asnumpy()
    upd([0], [mx.nd.ones((2,))], [w])
    np.testing.assert_array_equal(w.asnumpy(), before * 2)


def test_sgd_subclass_update_is_bypassed_as_in_mxnet():
    # MXNet's SGD.update_multi_precision (what its Updater calls) never calls update()
    class Doubling(mx.optimizer.SGD):
        def update(self, index, weight, grad, state):
            weight[:] = weight.asnumpy() * 2
    upd = mx.optimizer.get_updater(Doubling(learning_rate=0.5))
    w = mx.nd.ones((2,))
    upd([0], [mx.nd.ones((2,))], [w])
    np.testing.assert_array_equal(w.asnumpy(), [0.5, 0.5])


def test_mismatched_lists_are_an_error():
    upd = mx.optimizer.get_updater(mx.optimizer.create('sgd'))
    with pytest.raises(mx.MXNetError, match='2 indices, 1 gradients'):
        upd([0, 1], [mx.nd.ones((2,))], [mx.nd.ones((2,)), mx.nd.ones((2,))])
