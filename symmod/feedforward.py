"""The deprecated ``mx.model.FeedForward`` estimator and the training loop it runs on the
legacy DataParallelExecutorManager (``_train_multi_device``).

Scripts written for MXNet before the Module API call ``mx.model.FeedForward(...).fit``;
MXNet 1.9.1 still ships it (with a DeprecationWarning), so symmod does too.
"""
import time
import warnings

import numpy as np

from . import io
from . import metric
from . import ndarray as nd
from . import optimizer as opt
from . import symbol as sym
from .callback import LogValidationMetricsCallback
from .context import Context, cpu
from .executor.manager import DataParallelExecutorManager, _check_arguments, _load_data
from .initializer import Uniform
from .io import DataDesc
from .model import (BatchEndParam, save_checkpoint, load_checkpoint, _create_kvstore,
                    _initialize_kvstore, _update_params, _update_params_on_kvstore,
                    _multiple_callbacks)
from ._logging import module_logger

__all__ = ['FeedForward']


def _train_multi_device(symbol, ctx, arg_names, param_names, aux_names,
                        arg_params, aux_params,
                        begin_epoch, end_epoch, epoch_size, optimizer,
                        kvstore, update_on_kvstore,
                        train_data, eval_data=None, eval_metric=None,
                        epoch_end_callback=None, batch_end_callback=None,
                        logger=None, work_load_list=None, monitor=None,
                        eval_end_callback=None,
                        eval_batch_end_callback=None, sym_gen=None):
    """Train ``symbol`` on the devices ``ctx`` with the legacy executor manager.

    ``arg_params`` and ``aux_params`` are updated in place at the end of each epoch
    that has an ``epoch_end_callback`` and after the last epoch. ``epoch_size`` (batches
    per epoch) lets an epoch end before, or run past, the end of ``train_data``.
    """
    logger = module_logger(logger, __name__)
    manager = DataParallelExecutorManager(symbol=symbol, sym_gen=sym_gen, ctx=ctx,
                                          train_data=train_data, param_names=param_names,
                                          arg_names=arg_names, aux_names=aux_names,
                                          work_load_list=work_load_list, logger=logger)
    if monitor:
        manager.install_monitor(monitor)
    manager.set_params(arg_params, aux_params)
    updater = None
    if update_on_kvstore:
        kvstore.set_optimizer(optimizer)
    else:
        updater = opt.get_updater(optimizer)
    if kvstore:
        _initialize_kvstore(kvstore=kvstore, param_arrays=manager.param_arrays,
                            arg_params=arg_params, param_names=manager.param_names,
                            update_on_kvstore=update_on_kvstore)

    def train_step(batch):
        manager.load_data_batch(batch)
        if monitor is not None:
            monitor.tic()
        manager.forward(is_train=True)
        manager.backward()
        if update_on_kvstore:
            _update_params_on_kvstore(manager.param_arrays, manager.grad_arrays, kvstore,
                                      manager.param_names)
        else:
            _update_params(manager.param_arrays, manager.grad_arrays, updater=updater,
                           num_device=len(ctx), kvstore=kvstore,
                           param_names=manager.param_names)
        if monitor is not None:
            monitor.toc_print()
        manager.update_metric(eval_metric, batch.label)

    train_data.reset()
    for epoch in range(begin_epoch, end_epoch):
        tic = time.time()
        eval_metric.reset()
        nbatch = 0
        while True:     # more than one pass over the data when epoch_size asks for it
            exhausted = True
            for batch in train_data:
                train_step(batch)
                nbatch += 1
                if batch_end_callback is not None:
                    _multiple_callbacks(batch_end_callback, BatchEndParam(
                        epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()))
                if epoch_size is not None and nbatch >= epoch_size:
                    exhausted = False
                    break
            if exhausted:
                logger.info('Epoch[%d] Resetting Data Iterator', epoch)
                train_data.reset()
            if epoch_size is None or nbatch >= epoch_size:
                break
        logger.info('Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)
        if epoch_end_callback or epoch + 1 == end_epoch:
            manager.copy_to(arg_params, aux_params)
        _multiple_callbacks(epoch_end_callback, epoch, symbol, arg_params, aux_params)
        if eval_data:
            _evaluate(manager, eval_data, eval_metric, epoch, eval_batch_end_callback,
                      eval_end_callback)


def _evaluate(manager, eval_data, eval_metric, epoch, batch_end_callback, end_callback):
    """One pass of the validation data through the training executors."""
    eval_metric.reset()
    eval_data.reset()
    nbatch = 0
    for nbatch, batch in enumerate(eval_data, 1):
        manager.load_data_batch(batch)
        manager.forward(is_train=False)
        manager.update_metric(eval_metric, batch.label)
        if batch_end_callback is not None:
            _multiple_callbacks(batch_end_callback, BatchEndParam(
                epoch=epoch, nbatch=nbatch - 1, eval_metric=eval_metric, locals=locals()))
    if end_callback is not None:
        _multiple_callbacks(end_callback, BatchEndParam(
            epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()))
    eval_data.reset()


class FeedForward:
    """MXNet's original model class for single-input, single-output networks.

    Deprecated in MXNet in favour of :class:`mx.mod.Module`; kept so old scripts run.

    Parameters
    ----------
    symbol : Symbol or callable
        The network, or ``sym_gen(bucket_key)`` returning it.
    ctx : Context or list of Context, optional
        Devices for training (data parallel) and prediction (the first one). Default cpu().
    num_epoch : int, optional
        Number of training epochs.
    epoch_size : int, optional
        Batches per epoch; default one pass over the data.
    optimizer : str or Optimizer, default 'sgd'
    initializer : Initializer, default Uniform(0.01)
    numpy_batch_size : int, default 128
        Batch size when training data is given as arrays.
    arg_params, aux_params : dict of str to NDArray, optional
        Initial parameters and auxiliary states.
    allow_extra_params : bool, default False
        Drop entries of ``arg_params``/``aux_params`` the symbol does not use instead of failing.
    begin_epoch : int, default 0
    **kwargs
        Passed to the optimizer (``learning_rate``, ``momentum``, ``wd``, ...).
    """

    def __init__(self, symbol, ctx=None, num_epoch=None, epoch_size=None, optimizer='sgd',
                 initializer=Uniform(0.01), numpy_batch_size=128, arg_params=None,
                 aux_params=None, allow_extra_params=False, begin_epoch=0, **kwargs):
        warnings.warn('\033[91mmxnet.model.FeedForward has been deprecated. '
                      'Please use mxnet.mod.Module instead.\033[0m',
                      DeprecationWarning, stacklevel=2)
        if isinstance(symbol, sym.Symbol):
            self.symbol, self.sym_gen = symbol, None
        else:
            assert callable(symbol)
            self.symbol, self.sym_gen = None, symbol
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        self.argument_checked = False
        if self.sym_gen is None:
            self._check_arguments()
        if ctx is None:
            ctx = [cpu()]
        elif isinstance(ctx, Context):
            ctx = [ctx]
        self.ctx = ctx
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer = optimizer
        self.initializer = initializer
        self.numpy_batch_size = numpy_batch_size
        self._pred_exec = None
        self.begin_epoch = begin_epoch

    def _check_arguments(self):
        """Check the symbol's names once; drop unused parameters if allowed."""
        if self.argument_checked:
            return
        assert self.symbol is not None
        self.argument_checked = True
        _check_arguments(self.symbol)
        if self.allow_extra_params:
            if self.arg_params:
                names = set(self.symbol.list_arguments())
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in names}
            if self.aux_params:
                names = set(self.symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in names}

    @staticmethod
    def _is_data_arg(name):
        """Whether an argument name is an input (ends with 'data' or 'label')."""
        return name.endswith('data') or name.endswith('label')

    def _init_params(self, inputs, overwrite=False):
        """Create parameters and auxiliary states for the given input descriptors: copied
        from the given ones unless ``overwrite``, else from the initializer."""
        inputs = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in inputs]
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**{d.name: d.shape for d in inputs})
        assert arg_shapes is not None
        arg_types, _, aux_types = self.symbol.infer_type(**{d.name: d.dtype for d in inputs})
        assert arg_types is not None
        arg_names = self.symbol.list_arguments()
        input_names = {d.name for d in inputs}
        param_names = [n for n in arg_names if n not in input_names]
        aux_names = self.symbol.list_auxiliary_states()

        def make(infos, given):
            made = {}
            for name, shape, dtype in infos:
                array = nd.zeros(shape, dtype=dtype)
                if given and name in given and not overwrite:
                    array[:] = given[name]
                else:
                    self.initializer(name, array)
                made[name] = array
            return made

        self.arg_params = make([info for info in zip(arg_names, arg_shapes, arg_types)
                                if info[0] in param_names], self.arg_params)
        self.aux_params = make(zip(aux_names, aux_shapes, aux_types), self.aux_params)
        return arg_names, list(param_names), aux_names

    def __getstate__(self):
        state = self.__dict__.copy()
        state['_pred_exec'] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _init_predictor(self, input_shapes, type_dict=None):
        """Bind (or reuse) the prediction executor on the first device."""
        shapes = {name: value.shape for name, value in self.arg_params.items()}
        shapes.update(dict(input_shapes))
        if self._pred_exec is not None:
            arg_shapes, _, _ = self.symbol.infer_shape(**shapes)
            assert arg_shapes is not None, 'Incomplete input shapes'
            if arg_shapes == [x.shape for x in self._pred_exec.arg_arrays]:
                return
        pred_exec = self.symbol.simple_bind(self.ctx[0], grad_req='null', type_dict=type_dict,
                                            **shapes)
        pred_exec.copy_params_from(self.arg_params, self.aux_params)
        _check_arguments(self.symbol)
        self._pred_exec = pred_exec

    def _init_iter(self, X, y, is_train):
        """A DataIter for ``X`` (and labels ``y``) given as arrays, or ``X`` itself."""
        if isinstance(X, (np.ndarray, nd.NDArray)):
            if y is None:
                if is_train:
                    raise ValueError('y must be specified when X is numpy.ndarray')
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, nd.NDArray)):
                raise TypeError('y must be ndarray when X is numpy.ndarray')
            if X.shape[0] != y.shape[0]:
                raise ValueError('The numbers of data points and labels not equal')
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.flatten()
            if y.ndim != 1:
                raise ValueError('Label must be 1D or 2D (with 2nd dimension being 1)')
            batch_size = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return io.NDArrayIter(X, y, batch_size, shuffle=True,
                                      last_batch_handle='roll_over')
            return io.NDArrayIter(X, y, batch_size, shuffle=False)
        if not isinstance(X, io.DataIter):
            raise TypeError('X must be DataIter, NDArray or numpy.ndarray')
        return X

    def _init_eval_iter(self, eval_data):
        """A DataIter for validation data given as an iterator or a (data, label) pair."""
        if eval_data is None:
            return None
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            data, label = eval_data
            if data is None:
                raise ValueError('Eval data is NONE')
            if label is None and isinstance(data, io.DataIter):
                return data
            data = np.array(data) if isinstance(data, list) else data
            label = np.array(label) if isinstance(label, list) else label
            return self._init_iter(data, label, is_train=True)
        if not isinstance(eval_data, io.DataIter):
            raise TypeError('Eval data must be DataIter, or NDArray/numpy.ndarray/list pair '
                            '(i.e. tuple/list of length 2)')
        return eval_data

    def _prepare_prediction(self, X, reset):
        """Iterator and bound executor for predict/score; returns (iter, data arrays)."""
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        type_dict = {name: value.dtype for name, value in self.arg_params.items()}
        for desc in X.provide_data:
            type_dict[desc[0]] = desc.dtype if isinstance(desc, DataDesc) else np.float32
        self._init_predictor(X.provide_data, type_dict)
        return X, [self._pred_exec.arg_dict[desc[0]] for desc in X.provide_data]

    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """Run prediction on the first device.

        Parameters
        ----------
        X : DataIter or numpy.ndarray or NDArray
        num_batch : int, optional
            Stop after this many batches (default: all).
        return_data : bool, default False
            Also return the data and labels, concatenated.
        reset : bool, default True
            Reset the iterator first.

        Returns
        -------
        numpy.ndarray or list of numpy.ndarray
            The outputs (a list for several outputs); with ``return_data``, the tuple
            ``(outputs, data, label)``.
        """
        X, data_arrays = self._prepare_prediction(X, reset)
        outputs = [[] for _ in self._pred_exec.outputs]
        data = [[] for _ in X.provide_data]
        label = [[] for _ in X.provide_label]
        for i, batch in enumerate(X, 1):
            _load_data(batch, data_arrays)
            self._pred_exec.forward(is_train=False)
            real_size = X.batch_size - batch.pad
            for store, out in zip(outputs, self._pred_exec.outputs):
                store.append(out[0:real_size].asnumpy())
            if return_data:
                for store, x in zip(data, batch.data):
                    store.append(x[0:real_size].asnumpy())
                for store, y in zip(label, batch.label):
                    store.append(y[0:real_size].asnumpy())
            if num_batch is not None and i == num_batch:
                break

        def joined(parts):
            arrays = [np.concatenate(p) for p in parts]
            return arrays[0] if len(arrays) == 1 else arrays
        if return_data:
            return joined(outputs), joined(data), joined(label)
        return joined(outputs)

    def score(self, X, eval_metric='acc', num_batch=None, batch_end_callback=None, reset=True):
        """Evaluate ``eval_metric`` on ``X`` and return its value.

        Parameters
        ----------
        X : DataIter or numpy.ndarray or NDArray
        eval_metric : EvalMetric or str, default 'acc'
        num_batch : int, optional
        batch_end_callback : callable, optional
        reset : bool, default True

        Returns
        -------
        float
        """
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        X, data_arrays = self._prepare_prediction(X, reset)
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            _load_data(batch, data_arrays)
            self._pred_exec.forward(is_train=False)
            eval_metric.update(batch.label, self._pred_exec.outputs)
            if batch_end_callback is not None:
                _multiple_callbacks(batch_end_callback, BatchEndParam(
                    epoch=0, nbatch=i, eval_metric=eval_metric, locals=locals()))
        return eval_metric.get()[1]

    def fit(self, X, y=None, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', logger=None, work_load_list=None,
            monitor=None, eval_end_callback=LogValidationMetricsCallback(),
            eval_batch_end_callback=None):
        """Train the model for ``num_epoch`` epochs.

        Parameters
        ----------
        X : DataIter or numpy.ndarray or NDArray
            Training data (with ``y`` as labels when arrays).
        y : numpy.ndarray or NDArray, optional
        eval_data : DataIter or (data, label) pair, optional
        eval_metric : EvalMetric or str or callable, default 'acc'
        epoch_end_callback : callable(epoch, symbol, arg_params, aux_params), optional
        batch_end_callback : callable(BatchEndParam), optional
        kvstore : KVStore or str, default 'local'
        logger : logging.Logger, optional
        work_load_list : list of float, optional
            Relative work per device.
        monitor : Monitor, optional
        eval_end_callback, eval_batch_end_callback : callable, optional
        """
        data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        if self.sym_gen:
            self.symbol = self.sym_gen(data.default_bucket_key)
            self._check_arguments()
        self.kwargs['sym'] = self.symbol
        arg_names, param_names, aux_names = self._init_params(data.provide_data +
                                                              data.provide_label)
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        kvstore, update_on_kvstore = _create_kvstore(kvstore, len(self.ctx), self.arg_params)
        if update_on_kvstore:
            param_idx2name = dict(enumerate(param_names))
        else:
            param_idx2name = {i * len(self.ctx) + k: name
                              for i, name in enumerate(param_names)
                              for k in range(len(self.ctx))}
        self.kwargs['param_idx2name'] = param_idx2name
        if isinstance(self.optimizer, str):
            batch_size = data.batch_size
            if kvstore and 'dist' in kvstore.type and '_async' not in kvstore.type:
                batch_size *= kvstore.num_workers
            optimizer = opt.create(self.optimizer, rescale_grad=1.0 / batch_size, **self.kwargs)
        else:
            optimizer = self.optimizer
            if not optimizer.idx2name:
                optimizer.idx2name = param_idx2name.copy()
        _train_multi_device(self.symbol, self.ctx, arg_names, param_names, aux_names,
                            self.arg_params, self.aux_params,
                            begin_epoch=self.begin_epoch, end_epoch=self.num_epoch,
                            epoch_size=self.epoch_size, optimizer=optimizer,
                            train_data=data, eval_data=eval_data, eval_metric=eval_metric,
                            epoch_end_callback=epoch_end_callback,
                            batch_end_callback=batch_end_callback,
                            kvstore=kvstore, update_on_kvstore=update_on_kvstore,
                            logger=logger, work_load_list=work_load_list, monitor=monitor,
                            eval_end_callback=eval_end_callback,
                            eval_batch_end_callback=eval_batch_end_callback,
                            sym_gen=self.sym_gen)

    def save(self, prefix, epoch=None, remove_amp_cast=True):
        """Write ``prefix-symbol.json`` and ``prefix-%04d.params`` (epoch default num_epoch)."""
        if epoch is None:
            epoch = self.num_epoch
        assert epoch is not None
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params,
                        remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """A FeedForward from a checkpoint, continuing at ``epoch``.

        Parameters
        ----------
        prefix : str
        epoch : int
        ctx : Context or list of Context, optional
        **kwargs
            Other FeedForward arguments (num_epoch, optimizer, numpy_batch_size, ...).
        """
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params,
                           begin_epoch=epoch, **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer='sgd',
               initializer=Uniform(0.01), eval_data=None, eval_metric='acc',
               epoch_end_callback=None, batch_end_callback=None, kvstore='local', logger=None,
               work_load_list=None, eval_end_callback=LogValidationMetricsCallback(),
               eval_batch_end_callback=None, **kwargs):
        """Make a FeedForward and ``fit`` it in one call (arguments as in the constructor
        and :meth:`fit`); returns the trained model."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size,
                            optimizer=optimizer, initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric,
                  epoch_end_callback=epoch_end_callback,
                  batch_end_callback=batch_end_callback, kvstore=kvstore, logger=logger,
                  work_load_list=work_load_list, eval_end_callback=eval_end_callback,
                  eval_batch_end_callback=eval_batch_end_callback)
        return model
