"""Optimizer base behaviour: registry, learning rate, lr/wd multipliers, counts, pickling."""
import pickle
import warnings

import numpy as np
import pytest

import symmod as mx
from symmod.optimizer import Optimizer


def test_create_is_case_insensitive_and_rejects_unknown_names():
    assert type(mx.optimizer.create('SGD')) is mx.optimizer.SGD
    assert type(mx.optimizer.Optimizer.create_optimizer('aDaM')) is mx.optimizer.Adam
    assert type(mx.opt.create('ccsgd')) is mx.optimizer.ccSGD
    with pytest.raises(ValueError, match='Cannot find optimizer nosuch'):
        mx.optimizer.create('nosuch')


def test_registry_matches_mxnet_plus_adamw():
    mxnet_1_9_1 = {'adadelta', 'adagrad', 'adam', 'adamax', 'ccsgd', 'dcasgd', 'ftml', 'ftrl',
                   'groupadagrad', 'lamb', 'lars', 'lbsgd', 'nadam', 'nag', 'rmsprop', 'sgd',
                   'sgld', 'signum', 'test'}
    assert mxnet_1_9_1 | {'adamw'} <= set(Optimizer.opt_registry)


def test_register_warns_when_overriding():
    saved = dict(Optimizer.opt_registry)
    try:
        @mx.optimizer.register
        class MyOpt(mx.optimizer.Optimizer):
            pass
        assert type(mx.optimizer.create('myopt')) is MyOpt
        with pytest.warns(UserWarning, match='is overriding existing optimizer'):
            @mx.optimizer.register
            class MyOpt(mx.optimizer.Optimizer):   # noqa: F811
                pass
    finally:
        Optimizer.opt_registry.clear()
        Optimizer.opt_registry.update(saved)


def test_default_learning_rate_and_scheduler_interplay(capsys):
    assert Optimizer().learning_rate == 0.01
    sched = mx.lr_scheduler.FactorScheduler(step=10, base_lr=0.5)
    opt = Optimizer(lr_scheduler=sched)
    assert opt.learning_rate == 0.5 and opt.lr is None
    opt = Optimizer(learning_rate=0.2, lr_scheduler=mx.lr_scheduler.FactorScheduler(step=10))
    assert opt.lr_scheduler.base_lr == 0.2
    assert 'has been overwritten' in capsys.readouterr().out   # MXNet prints it
    with pytest.raises(UserWarning, match='LRScheduler of the optimizer has already been'):
        opt.set_learning_rate(0.1)
    plain = Optimizer(learning_rate=0.3)
    plain.set_learning_rate(0.1)
    assert plain.learning_rate == 0.1
    with pytest.raises(DeprecationWarning):
        plain.set_lr_scale({})


def test_update_counts_and_begin_num_update():
    opt = Optimizer(begin_num_update=5)
    opt._update_count(0)
    opt._update_count([0, 1])
    assert opt._index_update_count == {0: 7, 1: 6}
    assert opt.num_update == 7
    opt._set_current_context(1)          # counts are kept per device
    opt._update_count(0)
    assert opt._index_update_count == {0: 6}
    assert opt._all_index_update_counts[0] == {0: 7, 1: 6}
    assert opt.num_update == 7


def test_lr_and_wd_lookup_order():
    class Param:
        lr_mult = 3.0
        wd_mult = 0.25
    opt = Optimizer(learning_rate=0.1, wd=0.2, param_dict={7: Param()},
                    param_idx2name={0: 'a_weight', 1: 'a_bias', 2: 'b_gamma', 3: 'b_beta'})
    opt.set_lr_mult({0: 2.0, 'a_bias': 5.0})
    opt.set_wd_mult({'b_gamma': 0.5})
    assert opt._get_lrs([0, 1, 2, 7]) == pytest.approx([0.2, 0.5, 0.1, 0.3])
    assert opt._get_wds([0, 1, 2, 3, 7]) == pytest.approx([0.2, 0.0, 0.1, 0.0, 0.05])
    assert opt.wd_mult == {'a_bias': 0.0, 'b_beta': 0.0, 'b_gamma': 0.5}


def test_symbol_attributes_set_multipliers():
    weight = mx.sym.Variable('fc_weight', lr_mult=2.0, wd_mult=0.5)
    net = mx.sym.FullyConnected(data=mx.sym.Variable('data'), weight=weight,
                                bias=mx.sym.Variable('fc_bias'), num_hidden=3, name='fc')
    opt = Optimizer(learning_rate=0.1, wd=0.1, sym=net, param_idx2name={0: 'fc_weight',
                                                                        1: 'fc_bias'})
    assert opt.lr_mult == {'fc_weight': 2.0}
    assert opt.wd_mult == {'fc_bias': 0.0, 'fc_weight': 0.5}
    assert opt._get_lr(0) == pytest.approx(0.2)
    assert opt._get_wd(0) == pytest.approx(0.05)


def test_lars_decays_only_weights():
    opt = mx.optimizer.create('lars', wd=0.1, param_idx2name={0: 'x_weight', 1: 'bn_gamma'})
    assert opt._get_wds([0, 1]) == pytest.approx([0.1, 0.0])


def test_pickle_drops_param_dict():
    opt = mx.optimizer.create('adam', learning_rate=0.3, param_dict={0: object()})
    clone = pickle.loads(pickle.dumps(mx.optimizer.create('adam', learning_rate=0.3)))
    assert clone.lr == 0.3 and clone.param_dict == {}
    assert 'param_dict' not in opt.__getstate__()


def test_float16_master_copy_generic_layout():
    opt = mx.optimizer.create('adam', multi_precision=True)
    weight = mx.nd.array(np.ones((2, 2)), dtype='float16')
    master, (mean, var) = opt.create_state_multi_precision(0, weight)
    assert master.dtype == np.float32 and mean.dtype == np.float32
    opt = mx.optimizer.create('adam')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        opt.create_state_multi_precision(0, weight)
    assert 'multi_precision=True option of the optimizer' in str(caught[0].message)


def test_sgd_master_copy_layout_and_fp16_update():
    opt = mx.optimizer.create('sgd', momentum=0.9, multi_precision=True, learning_rate=0.1)
    weight = mx.nd.array([1.0, -2.0], dtype='float16')
    mom, master = opt.create_state_multi_precision(0, weight)
    assert mom.dtype == np.float32 and master.dtype == np.float32
    opt.update_multi_precision(0, weight, mx.nd.array([1.0, 1.0], dtype='float16'),
                               (mom, master))
    np.testing.assert_allclose(master.asnumpy(), [0.9, -2.1], rtol=1e-6)
    assert weight.dtype == np.float16
    np.testing.assert_allclose(weight.asnumpy(), master.asnumpy().astype(np.float16))


def test_base_update_is_an_error_and_plain_optimizer_has_no_state():
    with pytest.raises(mx.MXNetError, match='does not define update'):
        Optimizer().update(0, mx.nd.ones((1,)), mx.nd.ones((1,)), None)
    assert Optimizer().create_state(0, mx.nd.ones((1,))) is None


def test_direct_update_call_counts_and_uses_kernel():
    opt = mx.optimizer.create('sgd', learning_rate=0.5)
    weight = mx.nd.ones((3,))
    opt.update(0, weight, mx.nd.ones((3,)), None)
    np.testing.assert_allclose(weight.asnumpy(), [0.5] * 3)
    assert opt.num_update == 1


def test_dcasgd_momentum_fails_like_mxnet_for_one_element_too():
    upd = mx.optimizer.get_updater(mx.optimizer.create('dcasgd', momentum=0.9))
    with pytest.raises(AssertionError):     # 'if mom:' is False for a zero scalar
        upd(0, mx.nd.ones((1,)), mx.nd.ones((1,)))


def test_group_adagrad_rejects_weight_decay():
    upd = mx.optimizer.get_updater(mx.optimizer.create('groupadagrad', wd=0.1))
    with pytest.raises(AssertionError, match='Weight decay is not supported'):
        upd(0, mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))


@pytest.mark.parametrize('chunk', [1, 2])
def test_counted_rates_equal_the_lookup_calls(chunk):
    class Param:
        lr_mult = 3.0
        wd_mult = 0.25

    def make():
        opt = Optimizer(wd=0.1, begin_num_update=2, param_dict={4: Param()},
                        param_idx2name={0: 'a_weight', 1: 'a_bias', 2: 'b_gamma'},
                        lr_scheduler=mx.lr_scheduler.FactorScheduler(step=1, factor=0.5,
                                                                     base_lr=1.0))
        opt.set_lr_mult({0: 2.0, 'a_bias': 5.0})
        opt.set_wd_mult({2: 0.5})
        return opt
    fast, slow = make(), make()
    calls = [[0, 1, 2, 3, 4], [1, 1, 3], [4, 0]]
    for indices in calls:
        lrs, wds, counts = fast._counted_rates(indices, chunk)
        expected = []
        for start in range(0, len(indices), chunk):
            part = indices[start:start + chunk]
            slow._update_count(part)
            expected += zip(slow._get_lrs(part), slow._get_wds(part),
                            [slow._index_update_count[i] for i in part])
        assert list(zip(lrs, wds, counts)) == expected
    assert fast.num_update == slow.num_update
    assert fast._index_update_count == slow._index_update_count
