"""MXNet's legacy executor manager: splitting a batch by workload, argument checks,
binding executors that share data arrays across buckets, and the manager itself."""
import logging

import numpy as np

from ..base import MXNetError
from ..context import cpu
from ..io import DataDesc
from ..ndarray.ndarray import NDArray, zeros as nd_zeros
from .._logging import module_logger

__all__ = ['_split_input_slice', '_check_arguments', '_bind_exec', '_load_data', '_load_label',
           'DataParallelExecutorGroup', 'DataParallelExecutorManager']


def _split_input_slice(batch_size, work_load_list):
    """Split ``batch_size`` samples into one slice per device, proportional to workload.

    Parameters
    ----------
    batch_size : int
    work_load_list : list of float
        Relative workload of each device.

    Returns
    -------
    list of slice

    Raises
    ------
    ValueError
        When a device would get an empty slice.
    """
    total = sum(work_load_list)
    counts = [round(load * batch_size / total) for load in work_load_list]
    if sum(counts) < batch_size:
        counts[-1] += batch_size - sum(counts)
    slices = []
    end = 0
    for count in counts:
        begin = int(min(end, batch_size))
        end = int(min(begin + count, batch_size))
        if begin >= end:
            raise ValueError('Too many slices. Some splits are empty.')
        slices.append(slice(begin, end))
    return slices


def _check_arguments(symbol):
    """Raise ValueError when argument or auxiliary-state names are duplicated."""
    arg_names = symbol.list_arguments()
    seen = set()
    for name in arg_names:
        if name in seen:
            raise ValueError(('Find duplicated argument name "%s", please make the weight name '
                              'non-duplicated(using name arguments), arguments are %s')
                             % (name, str(arg_names)))
        seen.add(name)
    aux_names = symbol.list_auxiliary_states()
    seen = set()
    for name in aux_names:
        if name in seen:
            raise ValueError(('Find duplicated auxiliary param name "%s", please make the weight '
                              'name non-duplicated(using name arguments), arguments are %s, '
                              'auxiliary params are %s') % (name, str(arg_names), str(aux_names)))
        seen.add(name)


def _load_general(data, targets):
    """Copy each source array into its (slice, destination) targets."""
    for d_src, d_targets in zip(data, targets):
        if isinstance(d_targets, NDArray):
            d_src.copyto(d_targets)
        else:
            assert d_targets[-1][0].stop == d_src.shape[0], \
                'Batch size miss match. Expected %d, got %d' % (d_targets[-1][0].stop,
                                                                 d_src.shape[0])
            for slice_idx, d_dst in d_targets:
                d_src[slice_idx].copyto(d_dst)


def _load_data(batch, targets):
    """Load a batch's data into sliced targets."""
    _load_general(batch.data, targets)


def _load_label(batch, targets):
    """Load a batch's labels into sliced targets."""
    _load_general(batch.label, targets)


def _bind_exec(sym, ctx, input_shapes, param_names, need_grad=False, base_exec=None,
               shared_data_arrays=None, input_types=None, logger=logging):
    """Bind ``sym`` for the given input shapes, sharing parameters with ``base_exec`` and
    data arrays through ``shared_data_arrays`` (re-allocated, with a warning, when a
    bucket needs larger ones).

    Parameters
    ----------
    need_grad : bool or set of str
        True: gradients for every non-input argument; a set: for those names.
    """
    arg_shape, _, aux_shape = sym.infer_shape(**input_shapes)
    assert arg_shape is not None
    if input_types is None:
        input_types = {k: np.float32 for k in input_shapes}
    arg_types, _, aux_types = sym.infer_type(**input_types)
    assert arg_types is not None
    arg_names = sym.list_arguments()
    if need_grad is False:
        need_grad = set()
    elif need_grad is True:
        need_grad = set(arg_names) - set(input_shapes)
    elif not isinstance(need_grad, set):
        raise AssertionError('need_grad must be boolean or set.')
    grad_arrays = {} if need_grad else None
    grad_req = {name: ('write' if name in need_grad else 'null') for name in arg_names}
    arg_arrays = []
    for i, name in enumerate(arg_names):
        if name not in param_names:
            if shared_data_arrays is not None and name in shared_data_arrays:
                arr = shared_data_arrays[name]
                if np.prod(arr.shape) >= np.prod(arg_shape[i]):
                    assert np.dtype(arg_types[i]) == np.dtype(arr.dtype)
                    arr = NDArray(arr._data.reshape(-1)[:int(np.prod(arg_shape[i]))]
                                  .reshape(arg_shape[i]), arr.context)
                else:
                    module_logger(logger, __name__).warning(('bucketing: data "%s" has a shape %s' % (name, arg_shape[i]))
                                   + ', which is larger than already allocated '
                                   + ('shape %s' % (arr.shape,))
                                   + '. Need to re-allocate. Consider putting '
                                   + 'default_bucket_key to be the bucket taking the largest '
                                   + 'input for better memory sharing.')
                    arr = nd_zeros(arg_shape[i], ctx, dtype=arg_types[i])
                    shared_data_arrays[name] = arr
            else:
                arr = nd_zeros(arg_shape[i], ctx, dtype=arg_types[i])
                if shared_data_arrays is not None:
                    shared_data_arrays[name] = arr
            arg_arrays.append(arr)
        else:
            if base_exec is None:
                arr = nd_zeros(arg_shape[i], ctx, dtype=arg_types[i])
                if name in need_grad:
                    grad_arrays[name] = nd_zeros(arg_shape[i], ctx, dtype=arg_types[i])
            else:
                arr = base_exec.arg_dict[name]
                assert arr.shape == arg_shape[i]
                assert np.dtype(arr.dtype) == np.dtype(arg_types[i])
                if name in need_grad:
                    grad_arrays[name] = base_exec.grad_dict[name]
            arg_arrays.append(arr)
    if base_exec is None:
        aux_arrays = [nd_zeros(s, ctx, dtype=t) for s, t in zip(aux_shape, aux_types)]
    else:
        for i, a in enumerate(base_exec.aux_arrays):
            assert aux_shape[i] == a.shape
            assert np.dtype(aux_types[i]) == np.dtype(a.dtype)
        aux_arrays = list(base_exec.aux_arrays)
    return sym.bind(ctx=ctx, args=arg_arrays, args_grad=grad_arrays, aux_states=aux_arrays,
                    grad_req=grad_req, shared_exec=base_exec)


class DataParallelExecutorGroup:
    """The legacy (pre-Module) executor group used by DataParallelExecutorManager.

    Parameters
    ----------
    sym : Symbol
    arg_names, param_names : list of str
    ctx : list of Context
    slices : list of slice
        The part of each batch every context computes.
    train_data : DataIter or DataBatch
        Provides ``provide_data`` / ``provide_label``.
    shared_group : DataParallelExecutorGroup, optional
    """

    def __init__(self, sym, arg_names, param_names, ctx, slices, train_data, shared_group=None):
        _check_arguments(sym)
        self.shared_data_arrays = [{} for _ in ctx] if shared_group is None \
            else shared_group.shared_data_arrays
        self.data_names = [x[0] for x in train_data.provide_data]
        self.label_names = [x[0] for x in train_data.provide_label]
        self.aux_names = sym.list_auxiliary_states()
        self.param_idx = [i for i in range(len(arg_names)) if arg_names[i] in param_names]
        self.param_names = [arg_names[i] for i in self.param_idx]
        self.train_execs = []
        for i, ctxi in enumerate(ctx):
            data_shapes, data_types = {}, {}
            for x in train_data.provide_data + train_data.provide_label:
                data_shapes[x[0]] = tuple([slices[i].stop - slices[i].start] + list(x[1][1:]))
                data_types[x[0]] = x.dtype if isinstance(x, DataDesc) else np.float32
            shared_exec = None if shared_group is None else shared_group.train_execs[i]
            self.train_execs.append(_bind_exec(sym, ctxi, data_shapes, self.param_names,
                                               need_grad=True, base_exec=shared_exec,
                                               shared_data_arrays=self.shared_data_arrays[i],
                                               input_types=data_types))
        self.data_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(self.train_execs)]
                            for name in self.data_names]
        self.label_arrays = [[(slices[i], e.arg_dict[name])
                              for i, e in enumerate(self.train_execs)]
                             for name in self.label_names]
        self.param_arrays = [[e.arg_arrays[i] for e in self.train_execs] for i in self.param_idx]
        self.grad_arrays = [[e.grad_arrays[i] for e in self.train_execs] for i in self.param_idx]
        self.aux_arrays = [[e.aux_arrays[i] for e in self.train_execs]
                           for i in range(len(self.aux_names))]
        self.slices = slices

    def load_data_batch(self, data_batch):
        """Copy a batch's slices into the executors."""
        _load_data(data_batch, self.data_arrays)
        _load_label(data_batch, self.label_arrays)

    def forward(self, is_train=False):
        """Forward on every executor."""
        for texec in self.train_execs:
            texec.forward(is_train=is_train)

    def backward(self):
        """Backward on every executor."""
        for texec in self.train_execs:
            texec.backward()

    def update_metric(self, metric, labels, pre_sliced=False):
        """Update ``metric`` with every executor's outputs."""
        for current, (texec, islice) in enumerate(zip(self.train_execs, self.slices)):
            labels_slice = labels[current] if pre_sliced else [label[islice] for label in labels]
            metric.update(labels_slice, texec.outputs)


class DataParallelExecutorManager:
    """Legacy manager of data-parallel executors, with optional bucketing (``sym_gen``).

    Parameters
    ----------
    symbol : Symbol
    ctx : list of Context
    train_data : DataIter
    arg_names, param_names, aux_names : list of str
    work_load_list : list of float, optional
    logger : logging.Logger, optional
    sym_gen : callable, optional
        ``sym_gen(bucket_key)`` -> Symbol, for bucketing iterators.
    """

    def __init__(self, symbol, ctx, train_data, arg_names, param_names, aux_names,
                 work_load_list=None, logger=None, sym_gen=None):
        logger = module_logger(logger, __name__)
        num_device = len(ctx)
        logger.info('Start training with %s', str(ctx))
        if work_load_list is None:
            work_load_list = [1] * num_device
        assert isinstance(work_load_list, list) and len(work_load_list) == num_device, \
            'Invalid settings for work load. '
        slices = _split_input_slice(train_data.batch_size, work_load_list)
        self.slices = slices
        self.arg_names = arg_names
        self.param_names = param_names
        self.aux_names = aux_names
        self.ctx = ctx
        self.execgrp = DataParallelExecutorGroup(symbol, self.arg_names, self.param_names,
                                                 self.ctx, self.slices, train_data)
        self.symbol = symbol
        self.sym_gen = sym_gen
        self.curr_execgrp = None
        if self.sym_gen is not None:
            self.execgrp_bucket = {train_data.default_bucket_key: self.execgrp}

    def install_monitor(self, monitor):
        """Install a monitor on the executors (not available with bucketing)."""
        if self.sym_gen is not None:
            raise MXNetError('Monitoring is not implemented for bucketing')
        for train_exec in self.execgrp.train_execs:
            monitor.install(train_exec)

    def set_params(self, arg_params, aux_params):
        """Copy parameters into every executor."""
        for texec in self.execgrp.train_execs:
            texec.copy_params_from(arg_params, aux_params)

    def copy_to(self, arg_params, aux_params):
        """Copy the parameters, averaged over devices, into the given arrays."""
        for name, block in zip(self.param_names, self.param_arrays):
            weight = sum(w.copyto(cpu()) for w in block) / len(block)
            weight.astype(arg_params[name].dtype).copyto(arg_params[name])
        for name, block in zip(self.aux_names, self.aux_arrays):
            weight = sum(w.copyto(cpu()) for w in block) / len(block)
            weight.astype(aux_params[name].dtype).copyto(aux_params[name])

    @property
    def param_arrays(self):
        """Parameter arrays ``[param][device]`` (shared by all buckets)."""
        return self.execgrp.param_arrays

    @property
    def grad_arrays(self):
        """Gradient arrays ``[param][device]`` (shared by all buckets)."""
        return self.execgrp.grad_arrays

    @property
    def aux_arrays(self):
        """Auxiliary state arrays ``[aux][device]`` (shared by all buckets)."""
        return self.execgrp.aux_arrays

    def load_data_batch(self, data_batch):
        """Select (binding if new) the batch's bucket and load the batch into it."""
        if self.sym_gen is not None:
            key = data_batch.bucket_key
            if key not in self.execgrp_bucket:
                symbol = self.sym_gen(key)
                self.execgrp_bucket[key] = DataParallelExecutorGroup(
                    symbol, self.arg_names, self.param_names, self.ctx, self.slices,
                    data_batch, shared_group=self.execgrp)
            self.curr_execgrp = self.execgrp_bucket[key]
        else:
            self.curr_execgrp = self.execgrp
        self.curr_execgrp.load_data_batch(data_batch)

    def forward(self, is_train=False):
        """Forward on the current group."""
        self.curr_execgrp.forward(is_train=is_train)

    def backward(self):
        """Backward on the current group."""
        self.curr_execgrp.backward()

    def update_metric(self, metric, labels, pre_sliced=False):
        """Update ``metric`` on the current group."""
        self.curr_execgrp.update_metric(metric, labels, pre_sliced)
