"""Callbacks (MXNet's log lines, checkpoint triggers) and the terminal progress bar."""
import io
import logging
import sys
import types
from collections import namedtuple

import numpy as np

import symmod as mx
from symmod import callback
from symmod.progress import EpochProgress, estimate_num_batches

Param = namedtuple('BatchEndParam', ['epoch', 'nbatch', 'eval_metric', 'locals'])


class FakeClock:
    def __init__(self, step):
        self.now, self.step = 1000.0, step

    def __call__(self):
        self.now += self.step
        return self.now


def accuracy_half():
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([0, 1])], [mx.nd.array([[1., 0.], [1., 0.]])])
    return metric


def test_speedometer_lines_with_auto_reset(monkeypatch, caplog):
    monkeypatch.setattr(callback.time, 'time', FakeClock(0.5))   # 0.5 s between clock reads
    speed = mx.callback.Speedometer(batch_size=10, frequent=2)
    metric = accuracy_half()
    with caplog.at_level(logging.INFO):
        for nbatch in range(5):
            speed(Param(3, nbatch, metric, None))
    # 2 batches of 10 in 0.5 s
    assert caplog.messages == ['Epoch[3] Batch [0-2]\tSpeed: 40.00 samples/sec\taccuracy=0.500000',
                               'Epoch[3] Batch [2-4]\tSpeed: 40.00 samples/sec\taccuracy=nan']
    assert metric.get_global()[1] == 0.5      # only the local statistics were reset


def test_speedometer_lines_without_reset_and_without_metric(monkeypatch, caplog):
    monkeypatch.setattr(callback.time, 'time', FakeClock(0.25))
    composite = mx.metric.create(['acc', 'mae'])
    composite.update([mx.nd.array([0, 1])], [mx.nd.array([[1., 0.], [1., 0.]])])
    speed = mx.callback.Speedometer(batch_size=4, frequent=2, auto_reset=False)
    plain = mx.callback.Speedometer(batch_size=4, frequent=2)
    with caplog.at_level(logging.INFO):
        for nbatch in range(3):
            speed(Param(0, nbatch, composite, None))
        for nbatch in range(3):
            plain(Param(1, nbatch, None, None))
    assert caplog.messages == [
        'Epoch[0] Batch [0-2]\tSpeed: 32.00 samples/sec\taccuracy=0.500000\tmae=0.500000',
        'Iter[1] Batch [2]\tSpeed: 32.00 samples/sec']
    assert composite.get()[1][0] == 0.5        # auto_reset=False leaves the metric alone


def test_speedometer_restarts_each_epoch(monkeypatch, caplog):
    monkeypatch.setattr(callback.time, 'time', FakeClock(1.0))
    speed = mx.callback.Speedometer(batch_size=1, frequent=1)
    with caplog.at_level(logging.INFO):
        for epoch in range(2):
            for nbatch in range(3):
                speed(Param(epoch, nbatch, None, None))
    # the first batch of every epoch only starts the clock
    assert [m.split('\t')[0] for m in caplog.messages] == \
        ['Iter[0] Batch [1]', 'Iter[0] Batch [2]', 'Iter[1] Batch [1]', 'Iter[1] Batch [2]']


def test_log_train_metric(caplog):
    metric = accuracy_half()
    cb = mx.callback.log_train_metric(2, auto_reset=True)
    with caplog.at_level(logging.INFO):
        cb(Param(1, 1, metric, None))
        cb(Param(1, 2, metric, None))
    assert caplog.messages == ['Iter[1] Batch[2] Train-accuracy=0.500000']
    assert np.isnan(metric.get()[1])


def test_progress_bar_and_validation_logging(caplog):
    with caplog.at_level(logging.INFO):
        mx.callback.ProgressBar(total=4, length=8)(Param(0, 1, None, None))
        mx.callback.ProgressBar(total=3, length=6)(Param(0, 3, None, None))
        mx.callback.LogValidationMetricsCallback()(Param(2, 0, accuracy_half(), None))
        mx.callback.LogValidationMetricsCallback()(Param(2, 0, None, None))
    assert caplog.messages == ['[==------] 25%\r', '[======] 100%\r',
                               'Epoch[2] Validation-accuracy=0.500000']


def test_do_checkpoint_calls_model_save_checkpoint(monkeypatch):
    calls = []

    def fake_save(prefix, epoch, sym, arg, aux):
        calls.append((prefix, epoch, sym, arg, aux))
    try:
        import symmod.model as model
        monkeypatch.setattr(model, 'save_checkpoint', fake_save)
    except ImportError:
        monkeypatch.setitem(sys.modules, 'symmod.model',
                            types.SimpleNamespace(save_checkpoint=fake_save))
    cb = mx.callback.do_checkpoint('run/model', period=2)
    for epoch in range(5):
        cb(epoch, 'sym', {'a': 1}, {'b': 2})
    assert calls == [('run/model', 2, 'sym', {'a': 1}, {'b': 2}),
                     ('run/model', 4, 'sym', {'a': 1}, {'b': 2})]
    every = mx.callback.do_checkpoint('m', period=0)      # clamped to 1
    every(0, 's', {}, {})
    assert calls[-1][:2] == ('m', 1)


def test_module_checkpoint_calls_module():
    saved = []

    class FakeModule:
        def save_checkpoint(self, prefix, epoch, save_optimizer_states):
            saved.append((prefix, epoch, save_optimizer_states))

    cb = mx.callback.module_checkpoint(FakeModule(), 'ckpt', period=3, save_optimizer_states=True)
    for epoch in range(7):
        cb(epoch)
    assert saved == [('ckpt', 3, True), ('ckpt', 6, True)]


# ---- EpochProgress ----------------------------------------------------------------
class TTY(io.StringIO):
    def isatty(self):
        return True


def test_progress_draws_bar_counts_and_eta(monkeypatch):
    monkeypatch.delenv('SYMMOD_PROGRESS', raising=False)
    clock = FakeClock(0.1)
    monkeypatch.setattr('symmod.progress.time.time', clock)
    stream = TTY()
    bar = EpochProgress(total=40, epoch=2, stream=stream, delay=0, min_interval=0, width=20)
    bar.update(10)
    line = stream.getvalue().split('\r\x1b[K')[-1]
    assert line.startswith('Epoch[2] [=====>              ] 10/40 batches, ')
    assert ', ETA ' in line
    bar.update(40)
    assert stream.getvalue().split('\r\x1b[K')[-1].startswith(
        'Epoch[2] [====================] 40/40 batches, ')
    bar.close()
    assert stream.getvalue().endswith('\r\x1b[K')        # the bar is erased at the end


def test_progress_without_total_shows_a_count(monkeypatch):
    monkeypatch.setattr('symmod.progress.time.time', FakeClock(1.0))
    stream = TTY()
    bar = EpochProgress(stream=stream, delay=0, min_interval=0)
    bar.update(7)
    assert stream.getvalue().split('\r\x1b[K')[-1].startswith('7 batches, ')


def test_progress_is_silent_off_terminal_short_epochs_and_when_disabled(monkeypatch):
    monkeypatch.delenv('SYMMOD_PROGRESS', raising=False)
    pipe = io.StringIO()
    EpochProgress(total=3, stream=pipe, delay=0).update(1)
    assert pipe.getvalue() == ''
    tty = TTY()
    quick = EpochProgress(total=3, stream=tty, delay=60)
    quick.update(1)
    quick.close()
    assert tty.getvalue() == ''
    monkeypatch.setenv('SYMMOD_PROGRESS', '0')
    EpochProgress(total=3, stream=tty, delay=0).update(1)
    assert tty.getvalue() == ''
    monkeypatch.setenv('SYMMOD_PROGRESS', '1')
    EpochProgress(total=3, stream=pipe, delay=0).update(1)
    assert '1/3 batches' in pipe.getvalue()


def test_progress_redraws_at_most_every_min_interval(monkeypatch):
    monkeypatch.setattr('symmod.progress.time.time', FakeClock(0.01))
    stream = TTY()
    bar = EpochProgress(total=100, stream=stream, delay=0, min_interval=1.0)
    for n in range(1, 101):
        bar.update(n)
    assert stream.getvalue().count('batches') == 1


def test_progress_erases_itself_before_log_lines(monkeypatch):
    monkeypatch.setattr('symmod.progress.time.time', FakeClock(0.1))
    stream = TTY()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger('symmod.test.progress')
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        bar = EpochProgress(total=10, stream=stream, delay=0, min_interval=0, logger=logger)
        bar.update(3)
        logger.info('Epoch[0] Batch [3]')
        text = stream.getvalue()
        assert text.index('3/10 batches') < text.rindex('\r\x1b[KEpoch[0] Batch [3]\n')
        bar.close()
        assert handler.filters == []
        logger.info('after')
        assert stream.getvalue().endswith('after\n')
    finally:
        logger.removeHandler(handler)


def test_estimate_num_batches():
    data = np.zeros((10, 2))
    assert estimate_num_batches(mx.io.NDArrayIter(data, batch_size=4)) == 3
    assert estimate_num_batches(mx.io.NDArrayIter(data, batch_size=4,
                                                  last_batch_handle='discard')) == 2
    assert estimate_num_batches(mx.io.ResizeIter(mx.io.NDArrayIter(data, batch_size=4), 7)) == 7
    assert estimate_num_batches(object()) is None
