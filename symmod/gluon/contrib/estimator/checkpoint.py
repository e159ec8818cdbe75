"""CheckpointHandler (save parameters and trainer states periodically, keep the best,
resume) and EarlyStoppingHandler (stop when a metric stops improving)."""
import os
import re
import warnings

import numpy as np

from ....metric import CompositeEvalMetric, EvalMetric
from .handlers import TrainBegin, TrainEnd, BatchEnd, EpochEnd

__all__ = ['CheckpointHandler', 'EarlyStoppingHandler']


def _improvement_op(mode, monitor, who):
    """np.greater or np.less for ``mode`` ('min', 'max', 'auto': greater for accuracy and
    F1, less otherwise)."""
    if mode not in ('auto', 'min', 'max'):
        warnings.warn('%s mode %s is unknown, fallback to auto mode. %s will use max mode for '
                      'f1 and accuracy metric comparison and use min mode other wise'
                      % (who, mode, who), RuntimeWarning)
        mode = 'auto'
    if mode == 'min':
        return np.less
    if mode == 'max':
        return np.greater
    # MXNet 1.9.1 always picks `greater` here (its test is `'acc' or ...`); the metric's
    # name decides in symmod
    name = monitor.get()[0].lower()
    if 'acc' in name or 'f1' in name:
        warnings.warn("`greater` operator will be used to determine if {} has improved. Please "
                      "specify `mode='min'` to use the `less` operator. Specify `mode='max' to "
                      "disable this warning.`".format(monitor.get()[0]))
        return np.greater
    warnings.warn("`less` operator will be used to determine if {} has improved. Please "
                  "specify `mode='max'` to use the `greater` operator. Specify `mode='min' to "
                  "disable this warning.`".format(monitor.get()[0]))
    return np.less


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Saves ``<model_prefix>-epoch<E>batch<B>.params`` / ``.states`` (parameters and
    trainer states) in ``model_dir`` every ``epoch_period`` epochs / ``batch_period``
    batches, the symbol of a hybridized network (``<model_prefix>-symbol.json``), and with
    ``save_best`` ``<model_prefix>-best.*`` whenever ``monitor`` improves. At most
    ``max_checkpoints`` periodic checkpoints are kept; ``resume_from_checkpoint`` loads
    the newest one at train begin and trains for the rest of the budget.

    Parameters
    ----------
    model_dir : str
    model_prefix : str, default 'model'
    monitor : EvalMetric, optional
        The metric ``save_best`` watches (one of the Estimator's metrics).
    verbose : int, default 0
    save_best : bool, default False
    mode : {'auto', 'min', 'max'}, default 'auto'
    epoch_period : int, default 1
    batch_period : int, optional
    max_checkpoints : int, default 5
    resume_from_checkpoint : bool, default False
    """

    def __init__(self, model_dir, model_prefix='model', monitor=None, verbose=0,
                 save_best=False, mode='auto', epoch_period=1, batch_period=None,
                 max_checkpoints=5, resume_from_checkpoint=False):
        self.monitor = monitor
        self.verbose = verbose
        os.makedirs(model_dir, exist_ok=True)
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.save_best = save_best
        if self.save_best and not isinstance(self.monitor, EvalMetric):
            raise ValueError('To save best model only, please provide one of the metric '
                             'objects from estimator.train_metrics and estimator.val_metrics '
                             'as monitor.')
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints = []
        self.trained_epoch = self.trained_batch = -1
        if self.save_best:
            self.monitor_op = _improvement_op(mode, self.monitor, 'CheckpointHandler')

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = 0
        self.current_batch = 0
        if self.save_best:
            self.best = np.inf if self.monitor_op == np.less else -np.inf
        if self.resume_from_checkpoint:
            error = ('To use resume from checkpoint, you must only specify the same type of '
                     'period you used for training.For example, if you are training based on '
                     'number of epochs,you must save only based on epochs, and set '
                     'batch_period to None.')
            if estimator.max_batch:
                assert self.batch_period and not self.epoch_period, error
            if estimator.max_epoch:
                assert self.epoch_period and not self.batch_period, error
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _save_checkpoint(self, estimator):
        epoch, batch = self.current_epoch, self.current_batch
        if self.resume_from_checkpoint:
            # numbering continues from the resumed checkpoint
            epoch += self.trained_epoch + 1
            batch += self.trained_batch + (0 if estimator.max_epoch else 1)
        prefix = '%s-epoch%dbatch%d' % (self.model_prefix, epoch, batch)
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: trained total %d batches, '
                                  'saving model at %s with prefix: %s', self.current_epoch,
                                  self.current_batch + 1, self.model_dir, prefix)
        if self.save_best:
            self._save_if_best(estimator)

    def _save_if_best(self, estimator):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                'Skipping save best because %s is not updated, make sure you pass one of the '
                'metric objects estimator.train_metrics and estimator.val_metrics as monitor'
                % name))
        elif self.monitor_op(value, self.best):
            prefix = self.model_prefix + '-best'
            self._save_params_and_trainer(estimator, prefix)
            if self.verbose > 0:
                estimator.logger.info('[Epoch %d] CheckpointHandler: %s improved from %0.5f to '
                                      '%0.5f, updating best model at %s with prefix: %s',
                                      self.current_epoch, name, self.best, value,
                                      self.model_dir, prefix)
            self.best = value
        elif self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: %s did not improve from '
                                  '%0.5f, skipping updating best model', self.current_batch,
                                  name, self.best)

    def _save_symbol(self, estimator):
        symbol_file = os.path.join(self.model_dir, self.model_prefix + '-symbol.json')
        graph = getattr(estimator.net, '_cached_graph', None)
        if graph:
            graph[1].save(symbol_file)
        else:
            estimator.logger.info('Model architecture(symbol file) is not saved, please use '
                                  'HybridBlock to construct your model, and call '
                                  'net.hybridize() before passing to Estimator in order to '
                                  'save model architecture as %s.', symbol_file)

    def _save_params_and_trainer(self, estimator, file_prefix):
        # the .states first: resuming looks for the newest .params, so a run killed between
        # the two files resumes from the last complete checkpoint
        estimator.trainer.save_states(os.path.join(self.model_dir, file_prefix + '.states'))
        estimator.net.save_parameters(os.path.join(self.model_dir, file_prefix + '.params'))
        if 'best' not in file_prefix:
            self.saved_checkpoints.append(file_prefix)
        if len(self.saved_checkpoints) > self.max_checkpoints:
            oldest = self.saved_checkpoints.pop(0)
            for fname in os.listdir(self.model_dir):
                if fname.startswith(oldest):
                    os.remove(os.path.join(self.model_dir, fname))

    def _resume_from_checkpoint(self, estimator):
        self.trained_epoch, self.trained_batch = self._newest_checkpoint()
        if self.trained_epoch == -1:
            budget = ('%d batches' % estimator.max_batch if estimator.max_batch
                      else '%d epochs' % estimator.max_epoch)
            estimator.logger.info('CheckpointHandler: No checkpoint found, training from '
                                  'scratch for ' + budget)
            return
        msg = ('CheckpointHandler: Checkpoint resumed from epoch %d batch %d, continue to '
               'train for ' % (self.trained_epoch, self.trained_batch))
        if estimator.max_epoch:
            if self.trained_epoch >= estimator.max_epoch - 1:
                raise ValueError('Found checkpoint with maximum number of epoch %d reached, '
                                 'please specify resume_from_checkpoint=False (default value) '
                                 'if you wan to train from scratch.' % estimator.max_epoch)
            estimator.max_epoch = estimator.max_epoch - self.trained_epoch - 1
            msg += '%d epochs ' % estimator.max_epoch
        if estimator.max_batch:
            if self.trained_batch >= estimator.max_batch - 1:
                raise ValueError('Found checkpoint with maximum number of batch %d reached, '
                                 'please specifyresume_from_checkpoint=False (default value) '
                                 'if you wan to train from scratch.' % self.trained_batch)
            estimator.max_batch = estimator.max_batch - self.trained_batch - 1
            msg += '%d batches ' % estimator.max_batch
        stem = os.path.join(self.model_dir, '%s-epoch%dbatch%d' % (
            self.model_prefix, self.trained_epoch, self.trained_batch))
        for ext in ('.params', '.states'):
            assert os.path.exists(stem + ext), \
                'Failed to load checkpoint, %s does not exist' % (stem + ext)
        estimator.net.load_parameters(stem + '.params', ctx=estimator.context)
        estimator.trainer.load_states(stem + '.states')
        estimator.logger.warning(msg)

    def _newest_checkpoint(self):
        """(epoch, batch) of the newest ``<prefix>-epoch<E>batch<B>.params`` in model_dir,
        (-1, -1) when there is none; the checkpoints found join ``saved_checkpoints``."""
        pattern = re.compile(re.escape(self.model_prefix) + r'-epoch(\d+)batch(\d+)\.params\Z')
        found = []
        for fname in os.listdir(self.model_dir):
            if fname.startswith(self.model_prefix + '-epoch') and '.params' in fname:
                match = pattern.match(fname)
                if match is None:
                    raise ValueError('Error parsing checkpoint file, please check your '
                                     'checkpoints have the format: {model_name}-epoch'
                                     '{epoch_number}batch{batch_number}.params, there should '
                                     'also be a .states file for each .params file ')
                found.append((int(match.group(1)), int(match.group(2))))
                self.saved_checkpoints.append(fname[:-len('.params')])
        if not found:
            return -1, -1
        epoch = max(e for e, _ in found)
        return epoch, max(b for e, b in found if e == epoch)


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stops training when ``monitor`` has not improved by ``min_delta`` for ``patience``
    epochs.

    Parameters
    ----------
    monitor : EvalMetric
        One of the Estimator's metrics (not a CompositeEvalMetric).
    min_delta : float, default 0
    patience : int, default 0
    mode : {'auto', 'min', 'max'}, default 'auto'
    baseline : float, optional
        The value to beat first.
    """

    def __init__(self, monitor, min_delta=0, patience=0, mode='auto', baseline=None):
        if not isinstance(monitor, EvalMetric):
            raise ValueError('Please provide one of the metric objects from '
                             'estimator.train_metrics and estimator.val_metrics as monitor.')
        if isinstance(monitor, CompositeEvalMetric):
            raise ValueError('CompositeEvalMetric is not supported for EarlyStoppingHandler, '
                             'please specify a simple metric instead.')
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.monitor_op = _improvement_op(mode, monitor, 'EarlyStopping')
        self.min_delta = min_delta if self.monitor_op == np.greater else -min_delta

    def train_begin(self, estimator, *args, **kwargs):
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op == np.less else -np.inf

    def epoch_end(self, estimator, *args, **kwargs):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                '%s is not updated, make sure you pass one of the metric objects from '
                'estimator.train_metrics and estimator.val_metrics as monitor.' % name))
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        if self.stopped_epoch > 0:
            estimator.logger.info('[Epoch %d] EarlyStoppingHanlder: early stopping due to %s '
                                  'not improving', self.stopped_epoch, self.monitor.get()[0])
