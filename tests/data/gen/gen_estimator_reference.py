"""Record MXNet 1.9.1's gluon.contrib.estimator runs (tests/gluon/test_estimator.py).

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_estimator_reference.py

Writes tests/data/estimator_reference.json: for each run of
tests/gluon/estimator_cases.py the final weights and bias, the metrics' (name, value)
and, for the checkpoint runs, the files left in model_dir.
"""
import json
import os
import sys
import tempfile
import warnings

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'estimator_reference.json')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from estimator_cases import estimator, setup  # noqa: E402

E = mx.gluon.contrib.estimator


def snapshot(net, est):
    return {'weight': net.weight.data().asnumpy().tolist(),
            'bias': net.bias.data().asnumpy().tolist(),
            'train_metrics': [list(m.get()) for m in est.train_metrics],
            'val_metrics': [list(m.get()) for m in est.val_metrics]}


def run_epochs():
    net, train, val, trainer = setup(mx)
    est = estimator(mx, net, trainer)
    est.fit(train, val_data=val, epochs=2)
    return snapshot(net, est)


def run_batches():
    net, train, _, trainer = setup(mx)
    est = estimator(mx, net, trainer)
    est.fit(train, batches=5)
    return snapshot(net, est)


def run_evaluate():
    net, _, val, trainer = setup(mx)
    est = estimator(mx, net, trainer)
    est.evaluate(val)
    return snapshot(net, est)


def run_checkpoints(**kwargs):
    net, train, val, trainer = setup(mx)
    est = estimator(mx, net, trainer)
    with tempfile.TemporaryDirectory() as tmp:
        handler = E.CheckpointHandler(tmp, model_prefix='m', **kwargs)
        fit = {'epochs': 3} if kwargs.get('epoch_period') else {'batches': 7}
        est.fit(train, val_data=val, event_handlers=[handler], **fit)
        files = sorted(os.listdir(tmp))
    record = snapshot(net, est)
    record['files'] = files
    return record


def run_early_stopping():
    net, train, val, trainer = setup(mx)
    est = estimator(mx, net, trainer)
    # the training loss must improve by 10 each epoch: training stops after patience 1
    stopper = E.EarlyStoppingHandler(monitor=est.train_metrics[1], mode='min', min_delta=10,
                                     patience=1)
    est.fit(train, event_handlers=[stopper], epochs=6)
    record = snapshot(net, est)
    record['stopped_epoch'] = stopper.stopped_epoch
    return record


def main():
    warnings.simplefilter('ignore')
    record = {
        'epochs': run_epochs(), 'batches': run_batches(), 'evaluate': run_evaluate(),
        'checkpoint_epochs': run_checkpoints(epoch_period=1, max_checkpoints=2),
        'checkpoint_batches': run_checkpoints(epoch_period=None, batch_period=3),
        'early_stopping': run_early_stopping(),
    }
    with open(OUT, 'w') as f:
        json.dump(record, f, indent=1, sort_keys=True)
    print('wrote', OUT)


if __name__ == '__main__':
    main()
