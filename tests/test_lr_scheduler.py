"""Learning-rate schedulers against MXNet 1.9.1 (tests/data/mxnet-reference/lr_schedulers.json)."""
import json
import os

import pytest

import symmod as mx

with open(os.path.join(os.path.dirname(__file__), 'data', 'mxnet-reference',
                       'lr_schedulers.json')) as _f:
    REFERENCE = json.load(_f)


def _make(entry):
    return getattr(mx.lr_scheduler, entry['class'])(**entry['kwargs'])


@pytest.mark.parametrize('entry', REFERENCE['schedules'], ids=lambda e: e['name'])
def test_schedule_matches_mxnet(entry):
    sched = _make(entry)
    for num_update, lr in zip(entry['num_update'], entry['lr']):
        assert sched(num_update) == pytest.approx(lr, rel=1e-12, abs=1e-12), num_update


@pytest.mark.parametrize('entry', REFERENCE['stateful_call_order'],
                         ids=lambda e: '%s-%s' % (e['class'], e['num_update']))
def test_call_order_state_matches_mxnet(entry):
    sched = _make(entry)
    assert [sched(n) for n in entry['num_update']] == pytest.approx(entry['lr'], rel=1e-12)


def test_every_class_and_warmup_mode_is_covered():
    classes = {e['class'] for e in REFERENCE['schedules']}
    assert classes == {'FactorScheduler', 'MultiFactorScheduler', 'PolyScheduler',
                       'CosineScheduler'}
    modes = {e['kwargs'].get('warmup_mode') for e in REFERENCE['schedules']}
    assert modes == {None, 'linear', 'constant'}


@pytest.mark.parametrize('make,message', [
    (lambda: mx.lr_scheduler.FactorScheduler(step=0), 'greater or equal than 1'),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, factor=1.5), 'no more than 1'),
    (lambda: mx.lr_scheduler.MultiFactorScheduler(step=[3, 2]), 'increasing integer list'),
    (lambda: mx.lr_scheduler.MultiFactorScheduler(step=[0, 2]), 'greater or equal than 1'),
    (lambda: mx.lr_scheduler.PolyScheduler(max_update=0), 'strictly positive'),
    (lambda: mx.lr_scheduler.CosineScheduler(max_update=0), 'strictly positive'),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, base_lr=0.1, warmup_begin_lr=0.5),
     'higher than warmup_begin_lr'),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, warmup_steps=-1), 'positive or 0'),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, warmup_mode='cubic'), 'linear and constant'),
])
def test_invalid_arguments_fail_like_mxnet(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_factor_scheduler_stops_at_stop_factor_lr():
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.1, stop_factor_lr=1e-3, base_lr=1)
    assert sched(100) == 1e-3


def test_optimizer_sees_num_update_starting_at_one():
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.create('sgd', lr_scheduler=sched)
    updater = mx.optimizer.get_updater(opt)
    w = mx.nd.zeros((1,))
    updater(0, mx.nd.ones((1,)), w)     # num_update 1: no decay yet
    updater(0, mx.nd.ones((1,)), w)     # num_update 2: first decay
    assert w.asnumpy()[0] == pytest.approx(-1.5)


def test_base_class_cannot_be_called():
    with pytest.raises(TypeError, match='base class'):
        mx.lr_scheduler.LRScheduler()(3)
