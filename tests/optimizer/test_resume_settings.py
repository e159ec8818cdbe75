"""On resume the settings the user passes win; progress comes from the file (issue 11 item 3).

MXNet's Module applies the optimizer the user builds after ``Module.load``; symmod's
states files also restore the update counts and the schedule's position, but never
overwrite a learning rate, a weight decay or a scheduler's step the user passed. Where
the two differ, one warning line names the value used.
"""
import logging

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.formats import states as states_format

SHAPE = (4, 3)


def _module():
    data = mx.sym.Variable('data')
    net = mx.sym.FullyConnected(data, num_hidden=2, name='fc')
    net = mx.sym.LinearRegressionOutput(net, name='lro')
    return net


def _batch(step):
    rng = np.random.RandomState(step)
    return mx.io.DataBatch([mx.nd.array(rng.uniform(-1, 1, SHAPE))],
                           [mx.nd.array(rng.uniform(-1, 1, (SHAPE[0], 2)))])


def _bind(mod):
    mod.bind(data_shapes=[('data', SHAPE)], label_shapes=[('lro_label', (SHAPE[0], 2))])


def _train(mod, first, last):
    for step in range(first, last):
        mod.forward(_batch(step), is_train=True)
        mod.backward()
        mod.update()


def _saved(tmp_path, optimizer_params, steps=3):
    mx.random.seed(0)
    mod = mx.mod.Module(_module(), label_names=['lro_label'])
    _bind(mod)
    mod.init_params(mx.init.Uniform(0.5))
    mod.init_optimizer(optimizer='sgd', optimizer_params=optimizer_params)
    _train(mod, 0, steps)
    prefix = str(tmp_path / 'run')
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    return prefix


def _resumed(prefix, optimizer_params):
    mod = mx.mod.Module.load(prefix, 1, load_optimizer_states=True,
                              label_names=['lro_label'])
    _bind(mod)
    mod.init_optimizer(optimizer='sgd', optimizer_params=optimizer_params)
    return mod


def _warnings(caplog):
    return [r for r in caplog.records if r.levelno == logging.WARNING
            and r.name.startswith('symmod.optimizer')]


def test_passed_learning_rate_wins_and_one_line_says_so(tmp_path, caplog):
    prefix = _saved(tmp_path, {'learning_rate': 0.1, 'momentum': 0.9})
    with caplog.at_level(logging.WARNING):
        mod = _resumed(prefix, {'learning_rate': 0.001, 'momentum': 0.9})
    assert mod._optimizer.lr == 0.001
    assert mod._optimizer.learning_rate == 0.001
    assert mod._optimizer.num_update == 3          # progress still comes from the file
    lines = _warnings(caplog)
    assert len(lines) == 1
    assert 'run-0001.states' in lines[0].getMessage()
    assert 'lr 0.001 (file 0.1)' in lines[0].getMessage()


def test_the_step_after_resume_uses_the_passed_learning_rate(tmp_path):
    prefix = _saved(tmp_path, {'learning_rate': 0.1})
    mod = _resumed(prefix, {'learning_rate': 0.001})
    before = mod.get_params()[0]['fc_weight'].asnumpy().copy()
    mod.forward(_batch(10), is_train=True)
    mod.backward()
    grad = mod._exec_group.grad_arrays[0][0].asnumpy().copy()
    mod.update()
    after = mod.get_params()[0]['fc_weight'].asnumpy()
    rescale = 1.0 / SHAPE[0]
    np.testing.assert_allclose(after, before - 0.001 * rescale * grad, rtol=1e-5, atol=1e-7)


def test_passed_scheduler_keeps_its_settings_and_continues_from_the_count(tmp_path, caplog):
    saved_sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.9, base_lr=0.1)
    prefix = _saved(tmp_path, {'lr_scheduler': saved_sched}, steps=5)
    mine = mx.lr_scheduler.FactorScheduler(step=100, factor=0.5, base_lr=0.001)
    with caplog.at_level(logging.WARNING):
        mod = _resumed(prefix, {'lr_scheduler': mine})
    sched = mod._optimizer.lr_scheduler
    assert sched is mine
    assert (sched.step, sched.factor, sched.base_lr) == (100, 0.5, 0.001)
    assert mod._optimizer.num_update == 5
    lines = _warnings(caplog)
    assert len(lines) == 1 and 'lr_scheduler.step 100 (file 2)' in lines[0].getMessage()
    # the passed schedule at the restored count: 0.001 until update 100
    assert mod._optimizer._get_lr(0) == 0.001


def test_same_settings_resume_silently_and_exactly(tmp_path, caplog):
    params = {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3}
    mx.random.seed(0)
    straight = mx.mod.Module(_module(), label_names=['lro_label'])
    _bind(straight)
    straight.init_params(mx.init.Uniform(0.5))
    straight.init_optimizer(optimizer='sgd', optimizer_params=params)
    _train(straight, 0, 6)

    prefix = _saved(tmp_path, params)
    with caplog.at_level(logging.WARNING):
        mod = _resumed(prefix, params)
    assert not _warnings(caplog)
    _train(mod, 3, 6)
    for name, value in straight.get_params()[0].items():
        np.testing.assert_array_equal(mod.get_params()[0][name].asnumpy(), value.asnumpy())


def _updater_blob(**optimizer_kwargs):
    opt = mx.optimizer.create('sgd', **optimizer_kwargs)
    updater = mx.optimizer.get_updater(opt)
    updater(0, mx.nd.ones((2,)), mx.nd.zeros((2,)))
    return updater


def _tamper(blob, change):
    loaded = states_format.loads(blob)
    change(loaded)
    return states_format.dumps(loaded)


@pytest.mark.parametrize('key', ['_index_update_count', '__class__', 'no_such_setting'])
def test_only_declared_optimizer_settings_may_come_from_a_file(key):
    blob = _updater_blob(momentum=0.9).get_states(dump_optimizer=True)
    bad = _tamper(blob, lambda p: p['optimizer']['attrs'].__setitem__(key, 1))
    with pytest.raises(MXNetError, match=repr(key).replace('_', '.')):
        mx.optimizer.get_updater(mx.optimizer.create('sgd')).set_states(bad)


@pytest.mark.parametrize('key', ['_secret', 'no_such_setting'])
def test_only_declared_scheduler_attributes_may_come_from_a_file(key):
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    blob = _updater_blob(lr_scheduler=sched).get_states()
    bad = _tamper(blob, lambda p: p['optimizer_state']['lr_scheduler']['attrs']
                  .__setitem__(key, 1))
    fresh = mx.optimizer.get_updater(mx.optimizer.create(
        'sgd', lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)))
    with pytest.raises(MXNetError, match=repr(key).replace('_', '.')):
        fresh.set_states(bad)


def test_dump_optimizer_file_settings_win_as_in_mxnet():
    blob = _updater_blob(learning_rate=0.3, momentum=0.9, wd=0.01).get_states(
        dump_optimizer=True)
    other = mx.optimizer.get_updater(mx.optimizer.create('sgd', learning_rate=0.5))
    other.set_states(blob)
    assert other.optimizer.lr == 0.3 and other.optimizer.momentum == 0.9
