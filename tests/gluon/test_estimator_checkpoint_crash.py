"""CheckpointHandler writes a checkpoint's .states before its .params (issue 11 item 2):
resuming looks for the newest .params, so a run killed between the two files resumes from
the last complete checkpoint instead of failing on the newest one's missing .states."""
import logging
import warnings

import numpy as np
import pytest

import symmod as mx
from symmod import gluon
from symmod.gluon.contrib import estimator as E

from estimator_cases import estimator, setup


class Killed(BaseException):
    """The process dying mid-save."""


def _quiet(est):
    est.logger.setLevel(logging.WARNING)
    return est


def test_a_kill_between_the_two_files_resumes_from_the_last_complete_checkpoint(
        tmp_path, monkeypatch):
    net, train, _, trainer = setup(mx)
    writes = []
    real_params = gluon.Block.save_parameters
    real_states = gluon.Trainer.save_states

    def counted(real):
        def write(self, fname, *args, **kwargs):
            writes.append(fname)
            if len(writes) == 4:            # the second file of the second checkpoint
                raise Killed()
            return real(self, fname, *args, **kwargs)
        return write
    monkeypatch.setattr(gluon.Block, 'save_parameters', counted(real_params))
    monkeypatch.setattr(gluon.Trainer, 'save_states', counted(real_states))
    with warnings.catch_warnings(), pytest.raises(Killed):
        warnings.simplefilter('ignore')
        _quiet(estimator(mx, net, trainer)).fit(
            train, event_handlers=[E.CheckpointHandler(str(tmp_path), 'r')], epochs=3)
    monkeypatch.undo()
    complete = mx.nd.load(str(tmp_path / 'r-epoch0batch4.params'))

    net2, train2, _, trainer2 = setup(mx)
    seen = []

    class Spy(E.TrainBegin):
        priority = 10

        def train_begin(self, estimator, *args, **kwargs):
            seen.append((estimator.max_epoch, estimator.net.weight.data().asnumpy()))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        _quiet(estimator(mx, net2, trainer2)).fit(
            train2, event_handlers=[E.CheckpointHandler(str(tmp_path), 'r',
                                                        resume_from_checkpoint=True), Spy()],
            epochs=3)
    # resumed from epoch 0 (2 epochs left) with its weights
    assert seen[0][0] == 2
    np.testing.assert_array_equal(seen[0][1], complete['weight'].asnumpy())
