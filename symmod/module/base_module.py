"""BaseModule: the module state machine and the high-level fit / score / predict.

A module moves through four states, each method asserting the ones it needs:

- initial: names of inputs and outputs are known, no memory;
- bound (``bind``): shapes known, executors and buffers allocated;
- parameters initialized (``init_params`` / ``set_params``);
- optimizer initialized (``init_optimizer``): ``update`` may run.

Subclasses implement the intermediate API (bind, init_params, forward, backward,
update, get_outputs, update_metric, ...); ``fit``, ``score``, ``predict`` and
``iter_predict`` are written once here in terms of it.
"""
import logging
import sys
import time
import warnings

import numpy as np

from .. import metric
from .. import ndarray
from ..io import DataDesc, DataIter, DataBatch
from ..initializer import Uniform
from ..model import BatchEndParam, _join_params, _split_params
from ..progress import EpochProgress, estimate_num_batches
from .finite_watch import FiniteWatch
from .interface import ModuleInterface
from .._logging import module_logger

__all__ = ['BaseModule']


def _as_list(obj):
    return obj if isinstance(obj, list) else [obj]


def _check_input_names(symbol, names, typename, throw):
    """Check that every name is an argument of ``symbol`` (error or warning)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [arg for arg in args if not arg.endswith(('_weight', '_bias', '_gamma',
                                                                '_beta'))]
        msg = ('\033[91mYou created Module with Module(..., %s_names=%s) but input with name '
               "'%s' is not found in symbol.list_arguments(). Did you mean one of:\n\t%s\033[0m"
               % (typename, str(names), name, '\n\t'.join(candidates)))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _check_names_match(data_names, data_shapes, name, throw):
    """Check that the provided descriptors name exactly the expected inputs."""
    actual = [x[0] for x in data_shapes]
    if sorted(data_names) != sorted(actual):
        msg = "Data provided by %s_shapes don't match names specified by %s_names (%s vs. %s)" \
            % (name, name, str(data_shapes), str(data_names))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """Turn (name, shape) pairs into DataDesc and check them against the names."""
    data_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in data_shapes]
    _check_names_match(data_names, data_shapes, 'data', True)
    if label_shapes is not None:
        label_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in label_shapes]
        _check_names_match(label_names, label_shapes, 'label', False)
    else:
        _check_names_match(label_names, [], 'label', False)
    return data_shapes, label_shapes


# what to call first when a state a method needs is missing (MXNet's state machine)
_STATE_HINTS = {
    'binded': 'the module is not bound: call bind() (or fit) first',
    'params_initialized': 'the parameters are not initialized: call init_params() '
                          '(or set_params, or fit) first',
    'optimizer_initialized': 'the optimizer is not initialized: call init_optimizer() '
                             '(or fit) first',
    'inputs_need_grad': 'input gradients were not requested: bind with inputs_need_grad=True',
    'for_training': 'the module is bound for inference: bind with for_training=True',
}


class BaseModule(ModuleInterface):
    """The base class of modules: a computation component with parameters.

    Subclasses provide the intermediate-level API; the high-level ``fit``,
    ``score`` and ``predict`` come from here.

    Parameters
    ----------
    logger : logging.Logger
    """

    def __init__(self, logger=logging):
        self.logger = module_logger(logger, 'symmod.module')
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    def _require(self, *states):
        """AssertionError (MXNet's type) naming the call that is missing for ``states``."""
        for state in states:
            if not getattr(self, state):
                caller = sys._getframe(1).f_code.co_name
                raise AssertionError('%s.%s(): %s' % (type(self).__name__, caller,
                                                      _STATE_HINTS[state]))

    # ---- high-level API ---------------------------------------------------------------
    def forward_backward(self, data_batch):
        """Run ``forward`` (training mode) then ``backward``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Run prediction on ``eval_data`` and evaluate it with ``eval_metric``.

        Parameters
        ----------
        eval_data : DataIter
        eval_metric : EvalMetric, str or list
        num_batch : int, optional
            Stop after this many batches.
        batch_end_callback, score_end_callback : callable or list, optional
        reset : bool
            Reset ``eval_data`` first.
        epoch : int
            Passed to callbacks.

        Returns
        -------
        list of (str, float)
            The metric's name-value pairs.
        """
        self._require('binded', 'params_initialized')
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            if isinstance(eval_batch, list):
                self.update_metric(eval_metric, [eb.label for eb in eval_batch], pre_sliced=True)
            else:
                self.update_metric(eval_metric, eval_batch.label)
            if batch_end_callback is not None:
                params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                       locals=locals())
                for callback in _as_list(batch_end_callback):
                    callback(params)
            actual_num_batch += 1
        if score_end_callback:
            params = BatchEndParam(epoch=epoch, nbatch=actual_num_batch,
                                   eval_metric=eval_metric, locals=locals())
            for callback in _as_list(score_end_callback):
                callback(params)
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield ``(outputs, batch_index, batch)`` for each batch, padding removed."""
        self._require('binded', 'params_initialized')
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield outputs, nbatch, eval_batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """Run prediction and collect the outputs.

        Parameters
        ----------
        eval_data : DataIter or NDArray or numpy.ndarray
        num_batch : int, optional
        merge_batches : bool
            Concatenate the outputs of all batches.
        reset : bool
        always_output_list : bool
            Return a list even for a single output.

        Returns
        -------
        NDArray or list of NDArray or list of lists
        """
        self._require('binded', 'params_initialized')
        if isinstance(eval_data, (ndarray.NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = ndarray.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise ValueError('eval_data must be of type NDArray or DataIter')
        if reset:
            eval_data.reset()
        output_list = []
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad
            output_list.append([out[0:out.shape[0] - pad].copy() if pad else out.copy()
                                for out in self.get_outputs()])
        if not output_list:
            return output_list
        if merge_batches:
            num_outputs = len(output_list[0])
            for outs in output_list:
                assert len(outs) == num_outputs, \
                    'Cannot merge batches, as num of outputs is not the same in mini-batches. ' \
                    'Maybe bucketing is used?'
            # one batch: its copies are the merged outputs already (no second copy)
            merged = output_list[0] if len(output_list) == 1 else \
                [ndarray.concatenate([outs[i] for outs in output_list])
                 for i in range(num_outputs)]
            if num_outputs == 1 and not always_output_list:
                return merged[0]
            return merged
        return output_list

    def fit(self, train_data, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', optimizer='sgd',
            optimizer_params=(('learning_rate', 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Train the module parameters.

        Parameters
        ----------
        train_data : DataIter
        eval_data : DataIter, optional
            Scored after every epoch.
        eval_metric : str or EvalMetric
            Training metric (default accuracy).
        epoch_end_callback : callable or list
            Called as ``callback(epoch, symbol, arg_params, aux_params)``.
        batch_end_callback : callable or list
            Called with a BatchEndParam after every batch (e.g. Speedometer).
        kvstore : str or KVStore
        optimizer : str or Optimizer
        optimizer_params : dict or tuple of pairs
        eval_end_callback, eval_batch_end_callback : callable or list
        initializer : Initializer
        arg_params, aux_params : dict, optional
            Initial parameter values (e.g. from a checkpoint).
        allow_missing : bool
            Initialize parameters missing from ``arg_params`` with ``initializer``.
        force_rebind, force_init : bool
        begin_epoch : int
            Epoch to start from (for resuming).
        num_epoch : int
            Epoch to stop before.
        validation_metric : str or EvalMetric, optional
        monitor : Monitor, optional
        """
        assert num_epoch is not None, 'please specify number of epochs'
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        if not self.params_initialized or force_init or arg_params is not None \
                or aux_params is not None:
            # resuming (Module.load, then fit) is the documented path: MXNet's "Parameters
            # already initialized" warning there says nothing the user did wrong
            self.init_params(initializer=initializer, arg_params=arg_params,
                             aux_params=aux_params, allow_missing=allow_missing,
                             force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        num_batches = estimate_num_batches(train_data)
        finite_watch = FiniteWatch(self)

        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            next_data_batch = next(data_iter)
            with EpochProgress(total=num_batches, epoch=epoch, logger=self.logger) as progress:
                while not end_of_batch:
                    data_batch = next_data_batch
                    if monitor is not None:
                        monitor.tic()
                    self.forward_backward(data_batch)
                    self.update()
                    if isinstance(data_batch, list):
                        self.update_metric(eval_metric, [db.label for db in data_batch],
                                           pre_sliced=True)
                    else:
                        self.update_metric(eval_metric, data_batch.label)
                    if finite_watch.active:
                        finite_watch.check(epoch, nbatch)
                    try:
                        next_data_batch = next(data_iter)
                        self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
                    except StopIteration:
                        end_of_batch = True
                    if monitor is not None:
                        monitor.toc_print()
                    if end_of_batch:
                        eval_name_vals = eval_metric.get_global_name_value()
                    if batch_end_callback is not None:
                        params = BatchEndParam(epoch=epoch, nbatch=nbatch,
                                               eval_metric=eval_metric, locals=locals())
                        for callback in _as_list(batch_end_callback):
                            callback(params)
                    nbatch += 1
                    progress.update(nbatch)
            for name, val in eval_name_vals:
                self.logger.info('Epoch[%d] Train-%s=%f', epoch, name, val)
            toc = time.time()
            self.logger.info('Epoch[%d] Time cost=%.3f', epoch, (toc - tic))

            # sync parameters across devices (and into get_params's arrays)
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info('Epoch[%d] Validation-%s=%f', epoch, name, val)
            train_data.reset()

    # ---- symbol and parameters ---------------------------------------------------------
    @property
    def symbol(self):
        """The symbol of the module (for BucketingModule, the current bucket's)."""
        return self._symbol

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Assign parameter values (an ``init_params`` with no initializer)."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def save_params(self, fname):
        """Save parameters to an MXNet ``.params`` file (``arg:``/``aux:`` names)."""
        ndarray.save(fname, _join_params(*self.get_params()))

    def load_params(self, fname):
        """Load parameters from an MXNet ``.params`` file."""
        self.set_params(*_split_params(ndarray.load(fname), fname, strict=True))

    def get_states(self, merge_multi_context=True):
        """States of a stateless module: an empty list."""
        self._require('binded', 'params_initialized')
        assert not merge_multi_context
        return []

    def set_states(self, states=None, value=None):
        """A stateless module accepts no states."""
        self._require('binded', 'params_initialized')
        assert not states and not value

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Prepare for a batch (switch bucket, pull sparse rows); nothing by default."""
        if sparse_row_id_fn is not None:
            warnings.warn(UserWarning('sparse_row_id_fn is not invoked for BaseModule.'))
