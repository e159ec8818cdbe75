"""gluon.contrib.estimator: Estimator runs against MXNet 1.9.1's
(tests/data/gen/gen_estimator_reference.py: weights, metrics, checkpoint files, early
stopping), the handlers' order and checks, a custom BatchProcessor, resuming."""
import json
import logging
import os
import pathlib
import warnings

import numpy as np
import pytest

import symmod as mx
from symmod.gluon.contrib import estimator as E
from symmod.test_utils import assert_almost_equal

from estimator_cases import X, Y, estimator, setup

REF = json.loads((pathlib.Path(__file__).resolve().parent.parent / 'data' /
                  'estimator_reference.json').read_text())


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        yield


def _silent(est):
    est.logger.setLevel(logging.WARNING)
    return est


def check(name, net, est):
    expected = REF[name]
    assert_almost_equal(net.weight.data().asnumpy(), np.array(expected['weight'], np.float32),
                        rtol=1e-4, atol=1e-5)
    assert_almost_equal(net.bias.data().asnumpy(), np.array(expected['bias'], np.float32),
                        rtol=1e-4, atol=1e-5)
    for got, want in zip(est.train_metrics + est.val_metrics,
                         expected['train_metrics'] + expected['val_metrics']):
        assert got.get()[0] == want[0]
        np.testing.assert_allclose(got.get()[1], want[1], rtol=1e-4, atol=1e-6)


def test_fit_epochs_with_validation_matches_mxnet():
    net, train, val, trainer = setup(mx)
    est = _silent(estimator(mx, net, trainer))
    est.fit(train, val_data=val, epochs=2)
    check('epochs', net, est)


def test_fit_batches_matches_mxnet():
    net, train, _, trainer = setup(mx)
    est = _silent(estimator(mx, net, trainer))
    est.fit(train, batches=5)
    check('batches', net, est)


def test_evaluate_matches_mxnet():
    net, _, val, trainer = setup(mx)
    est = _silent(estimator(mx, net, trainer))
    est.evaluate(val)
    check('evaluate', net, est)


@pytest.mark.parametrize('name,kwargs', [
    ('checkpoint_epochs', {'epoch_period': 1, 'max_checkpoints': 2}),
    ('checkpoint_batches', {'epoch_period': None, 'batch_period': 3})])
def test_checkpoints_match_mxnet(tmp_path, name, kwargs):
    net, train, val, trainer = setup(mx)
    est = _silent(estimator(mx, net, trainer))
    handler = E.CheckpointHandler(str(tmp_path), model_prefix='m', **kwargs)
    fit = {'epochs': 3} if kwargs.get('epoch_period') else {'batches': 7}
    est.fit(train, val_data=val, event_handlers=[handler], **fit)
    assert sorted(os.listdir(tmp_path)) == REF[name]['files']
    check(name, net, est)


def test_early_stopping_matches_mxnet():
    net, train, _, trainer = setup(mx)
    est = _silent(estimator(mx, net, trainer))
    stopper = E.EarlyStoppingHandler(monitor=est.train_metrics[1], mode='min', min_delta=10,
                                     patience=1)
    est.fit(train, event_handlers=[stopper], epochs=6)
    assert stopper.stopped_epoch == REF['early_stopping']['stopped_epoch']
    check('early_stopping', net, est)


def test_resume_from_checkpoint_continues_the_budget(tmp_path):
    net, train, val, trainer = setup(mx)
    est = _silent(estimator(mx, net, trainer))
    est.fit(train, event_handlers=[E.CheckpointHandler(str(tmp_path), 'r')], epochs=1)
    saved = net.weight.data().asnumpy()
    net2, train2, _, trainer2 = setup(mx)
    est2 = _silent(estimator(mx, net2, trainer2))
    resume = E.CheckpointHandler(str(tmp_path), 'r', resume_from_checkpoint=True)
    seen = []

    class Spy(E.TrainBegin):
        priority = 10

        def train_begin(self, estimator, *args, **kwargs):
            seen.append((estimator.max_epoch, estimator.net.weight.data().asnumpy()))
    est2.fit(train2, event_handlers=[resume, Spy()], epochs=3)
    assert seen[0][0] == 2 and np.array_equal(seen[0][1], saved)
    # numbering continues from the resumed epoch 0 / batch 4
    assert 'r-epoch2batch12.params' in os.listdir(tmp_path)
    with pytest.raises(ValueError, match='maximum number of epoch'):
        _silent(estimator(mx, *setup(mx)[::3])).fit(
            train, event_handlers=[E.CheckpointHandler(str(tmp_path), 'r',
                                                       resume_from_checkpoint=True)],
            epochs=2)


def test_default_handlers_and_their_order():
    net, train, _, trainer = setup(mx)
    est = estimator(mx, net, trainer)
    est.max_epoch, est.max_batch = 1, None
    stopper = E.EarlyStoppingHandler(monitor=est.val_metrics[0])
    handlers = est._prepare_default_handlers(val_data=None, event_handlers=[stopper])
    kinds = [type(h).__name__ for h in handlers]
    assert kinds == ['GradientUpdateHandler', 'MetricHandler', 'EarlyStoppingHandler',
                     'StoppingHandler', 'LoggingHandler']
    foreign = E.LoggingHandler(metrics=[mx.metric.Accuracy()])
    with pytest.raises(ValueError, match='outside of the known'):
        est._prepare_default_handlers(val_data=None, event_handlers=[foreign])
    train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = \
        est._categorize_handlers(handlers)
    assert len(train_begin) == 3 and len(batch_end) == 4 and len(train_end) == 2


def test_metric_names_and_logging(capsys):
    net, train, val, trainer = setup(mx)
    est = estimator(mx, net, trainer)
    assert [m.name for m in est.train_metrics] == ['training accuracy',
                                                   'training softmaxcrossentropyloss']
    assert [m.name for m in est.val_metrics] == ['validation accuracy',
                                                 'validation softmaxcrossentropyloss']
    est.fit(train, val_data=val, epochs=1,
            event_handlers=[E.LoggingHandler(log_interval=2, metrics=est.train_metrics)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith('Training begin: using optimizer SGD with current learning '
                               'rate 0.5000')
    assert lines[1] == 'Train for 1 epochs.'
    assert any(line.startswith('[Epoch 0][Batch 2][Samples 18] time/interval: ')
               for line in lines)
    assert lines[-1].startswith('Train finished using total')


def test_custom_batch_processor_and_argument_checks():
    calls = []

    class Counting(E.BatchProcessor):
        def fit_batch(self, estimator, train_batch, batch_axis=0):
            calls.append(train_batch[0].shape)
            return super().fit_batch(estimator, train_batch, batch_axis)

    net, train, _, trainer = setup(mx)
    est = _silent(E.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer,
                              context=mx.cpu(), batch_processor=Counting()))
    est.fit(train, batches=3)
    assert calls == [(6, 5)] * 3
    with pytest.raises(ValueError, match='fit_batch'):
        E.Estimator(net, mx.gluon.loss.L2Loss(), trainer=trainer, batch_processor=object())
    with pytest.raises(ValueError, match='exactly one'):
        est.fit(train, epochs=1, batches=1)
    with pytest.raises(ValueError, match='DataLoader'):
        est.fit([(mx.nd.array(X), mx.nd.array(Y))], epochs=1)
    with pytest.raises(ValueError, match='loss must be a Loss'):
        E.Estimator(net, lambda a, b: a)
    with pytest.raises(ValueError, match='Trainer'):
        E.Estimator(net, mx.gluon.loss.L2Loss(), trainer='sgd')
