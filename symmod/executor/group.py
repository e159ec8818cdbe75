"""DataParallelExecutorGroup: one executor per device, each on a slice of the batch.

Parameter, gradient and auxiliary arrays are laid out ``[param][device]``. With
several contexts the executors run concurrently on a thread pool (numpy and BLAS
release the GIL); outputs are concatenated back along the batch axis.
"""
import logging
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

from .. import ndarray as nd
from .. import threads as _threads
from ..context import Context, cpu
from ..io import DataDesc
from ..formats.dtypes import dtype_from_flag
from .manager import _split_input_slice
from .._logging import module_logger

__all__ = ['DataParallelExecutorGroup']


def _load_general(data, targets, major_axis):
    """Copy source arrays into (slice, destination) targets along each batch axis."""
    for d_src, d_targets, axis in zip(data, targets, major_axis):
        if isinstance(d_targets, nd.NDArray):
            d_src.copyto(d_targets)
        elif isinstance(d_src, (list, tuple)):
            for src, dst in zip(d_src, d_targets):
                src.copyto(dst)
        else:
            for slice_idx, d_dst in d_targets:
                if axis < 0 or (slice_idx.start == 0 and d_src.shape[axis] == slice_idx.stop):
                    d_src.copyto(d_dst)
                elif axis == 0:
                    d_src[slice_idx.start:slice_idx.stop].copyto(d_dst)
                else:
                    nd.slice_axis(d_src, axis=axis, begin=slice_idx.start,
                                  end=slice_idx.stop).copyto(d_dst)


def _load_data(batch, targets, major_axis):
    if isinstance(batch, list):
        sources = [[b.data[i] for b in batch] for i in range(len(targets))]
        _load_general(sources, [[dst for _, dst in t] for t in targets], major_axis)
    else:
        _load_general(batch.data, targets, major_axis)


def _load_label(batch, targets, major_axis):
    if isinstance(batch, list):
        sources = [[b.label[i] for b in batch] for i in range(len(targets))]
        _load_general(sources, [[dst for _, dst in t] for t in targets], major_axis)
    else:
        _load_general(batch.label, targets, major_axis)


def _merge_multi_context(outputs, major_axis):
    """Concatenate per-device arrays along their batch axis."""
    merged = []
    for tensors, axis in zip(outputs, major_axis):
        if axis >= 0 and len(tensors) > 1:
            merged.append(nd.concat(*[t.as_in_context(tensors[0].context) for t in tensors],
                                    dim=axis))
        else:
            merged.append(tensors[0])
    return merged


def _prepare_group2ctxs(group2ctxs, ctx_len):
    """One ``{ctx_group: Context}`` dict (or None) per device."""
    if group2ctxs is None:
        return [None] * ctx_len
    if isinstance(group2ctxs, list):
        assert len(group2ctxs) == ctx_len, 'length of group2ctxs should be %d' % ctx_len
        return group2ctxs
    if isinstance(group2ctxs, dict):
        result = [{} for _ in range(ctx_len)]
        for key, value in group2ctxs.items():
            if isinstance(value, Context):
                ctxs = [value] * ctx_len
            elif len(value) == 1:
                ctxs = list(value) * ctx_len
            else:
                assert len(value) == ctx_len, \
                    'length of group2ctxs[%s] should be %d or 1' % (key, ctx_len)
                ctxs = value
            for i in range(ctx_len):
                result[i][key] = ctxs[i]
        return result
    raise AssertionError('group2ctxs should be list of dict of str to context, or dict of str '
                         'to context or list of context')


class DataParallelExecutorGroup:
    """Executors on several devices, each computing on a slice of every batch.

    Parameters
    ----------
    symbol : Symbol
    contexts : list of Context
    workload : list of float
        Relative share of the batch for each context.
    data_shapes, label_shapes : list of DataDesc or (name, shape)
    param_names : list of str
    for_training : bool
        Whether gradients are needed (else grad_req is 'null' everywhere).
    inputs_need_grad : bool
        Whether gradients of the data inputs are needed.
    shared_group : DataParallelExecutorGroup, optional
        Group whose parameters, gradients and memory are shared (bucketing).
    logger : logging.Logger
    fixed_param_names : list of str, optional
        Parameters that get no gradient.
    grad_req : str, list or dict
    state_names : list of str, optional
    group2ctxs : dict or list, optional
    """

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=logging,
                 fixed_param_names=None, grad_req='write', state_names=None, group2ctxs=None):
        self.param_names = param_names
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.symbol = symbol
        self.contexts = contexts
        self.workload = workload
        self.group2ctxs = _prepare_group2ctxs(group2ctxs, len(contexts))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = module_logger(logger, __name__)
        self._total_exec_bytes = 0
        self.fixed_param_names = fixed_param_names or []
        self.state_names = state_names or []
        if not for_training:
            grad_req = 'null'
        data_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in data_shapes]
        if label_shapes is not None:
            label_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in label_shapes]
        self.grad_req = self._grad_req_dict(grad_req, [x.name for x in data_shapes])
        self.shared_data_arrays = shared_group.shared_data_arrays if shared_group is not None \
            else [{} for _ in contexts]
        self.batch_size = None
        self.slices = None
        self.execs = []
        self._default_execs = None
        self.data_arrays = self.label_arrays = self.param_arrays = None
        self.state_arrays = self.grad_arrays = self.aux_arrays = None
        self.input_grad_arrays = None
        self.data_shapes = self.label_shapes = None
        self.data_names = self.label_names = None
        self.data_layouts = self.label_layouts = None
        self.output_names = self.symbol.list_outputs()
        self.num_outputs = len(self.output_names)
        self.output_layouts = [DataDesc.get_batch_axis(self.symbol[i].attr('__layout__'))
                               for i in range(self.num_outputs)]
        # the contexts share the thread budget: at most that many run at once; operators
        # that meet across devices (SyncBatchNorm) need every device running at once
        self._meet = any(getattr(node.operator(), 'synchronizes_devices', False)
                         for node in symbol._nodes() if not node.is_variable)
        workers = len(contexts) if self._meet else min(len(contexts), _threads.budget())
        self._threads = ThreadPoolExecutor(workers) if workers > 1 else None
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_req_dict(self, grad_req, data_names):
        if isinstance(grad_req, str):
            result = {}
            for k in self.arg_names:
                if k in self.param_names:
                    result[k] = 'null' if k in self.fixed_param_names else grad_req
                elif k in data_names:
                    result[k] = grad_req if self.inputs_need_grad else 'null'
                else:
                    result[k] = 'null'
            return result
        if isinstance(grad_req, (list, tuple)):
            assert len(grad_req) == len(self.arg_names)
            return dict(zip(self.arg_names, grad_req))
        if isinstance(grad_req, dict):
            result = self._grad_req_dict('write', data_names)
            result.update(grad_req)
            return result
        raise ValueError('grad_req must be one of str, list, tuple, or dict.')

    def _each(self, function):
        """Call ``function(i, executor)`` for every device: concurrently when there are
        several and the thread budget's current width allows, each executor then using
        its share of the threads; one after another otherwise."""
        share = 1 if self._threads is None else min(len(self.execs), _threads.width())
        for exe in self.execs:
            exe._thread_share = share
        if share == 1 and not (self._meet and self._threads is not None):
            for i, exe in enumerate(self.execs):
                function(i, exe)
            return
        futures = [self._threads.submit(function, i, exe) for i, exe in enumerate(self.execs)]
        for future in futures:
            future.result()

    # ---- binding ----------------------------------------------------------------------------
    def decide_slices(self, data_shapes):
        """Set batch_size and the per-device slices; return each input's batch axis."""
        assert len(data_shapes) > 0
        major_axis = [DataDesc.get_batch_axis(x.layout) for x in data_shapes]
        for (name, shape), axis in zip(data_shapes, major_axis):
            if axis == -1:
                continue
            batch_size = shape[axis]
            if self.batch_size is not None:
                assert batch_size == self.batch_size, (
                    'all data must have the same batch size: batch_size = %d, but %s has shape %s'
                    % (self.batch_size, name, shape))
            else:
                self.batch_size = batch_size
                self.slices = _split_input_slice(self.batch_size, self.workload)
        return major_axis

    def _collect_arrays(self):
        execs = self.execs
        slices = self.slices or [slice(i, i + 1) for i in range(len(execs))]
        self.data_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                            for name, _ in self.data_shapes]
        self.state_arrays = [[e.arg_dict[name] for e in execs] for name in self.state_names]
        if self.label_shapes is not None:
            self.label_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                                 for name, _ in self.label_shapes]
        else:
            self.label_arrays = None
        param_index = [i for i, name in enumerate(self.arg_names) if name in self.param_names]
        self.param_arrays = [[e.arg_arrays[i] for e in execs] for i in param_index]
        self.grad_arrays = [[e.grad_arrays[i] for e in execs] for i in param_index] \
            if self.for_training else None
        if self.inputs_need_grad:
            self.input_grad_arrays = [[e.grad_arrays[self.arg_names.index(name)] for e in execs]
                                      for name, _ in self.data_shapes if name in self.arg_names]
        else:
            self.input_grad_arrays = None
        self.aux_arrays = [[e.aux_arrays[i] for e in execs] for i in range(len(self.aux_names))]

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Bind (or, with ``reshape``, re-shape) one executor per context."""
        assert reshape or not self.execs
        self.batch_size = None
        self.data_layouts = self.decide_slices(data_shapes)
        if label_shapes is not None:
            self.label_layouts = self.decide_slices(label_shapes)
        for i in range(len(self.contexts)):
            data_shapes_i = self._sliced_shape(data_shapes, i, self.data_layouts)
            label_shapes_i = self._sliced_shape(label_shapes, i, self.label_layouts) \
                if label_shapes is not None else []
            if reshape:
                self.execs[i] = self._default_execs[i].reshape(
                    allow_up_sizing=True, **dict(data_shapes_i + label_shapes_i))
            else:
                self.execs.append(self._bind_ith_exec(i, data_shapes_i, label_shapes_i,
                                                      shared_group))
        self.data_shapes = data_shapes
        self.label_shapes = label_shapes
        self.data_names = [d.name for d in data_shapes]
        if label_shapes is not None:
            self.label_names = [d.name for d in label_shapes]
        self._collect_arrays()

    def reshape(self, data_shapes, label_shapes):
        """Re-shape the executors for new input shapes (sharing parameters)."""
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        if self._default_execs is None:
            self._default_execs = list(self.execs)
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def _bind_ith_exec(self, i, data_shapes, label_shapes, shared_group):
        shared_exec = None if shared_group is None else shared_group.execs[i]
        input_shapes = dict(data_shapes)
        if label_shapes is not None:
            input_shapes.update(dict(label_shapes))
        input_types = {x.name: x.dtype for x in data_shapes}
        attrs = self.symbol.attr_dict()
        for name in self.symbol.list_inputs():
            declared = attrs.get(name, {}).get('__dtype__')
            if name in input_types and declared not in (None, '-1'):
                input_types[name] = dtype_from_flag(int(declared))
        if label_shapes is not None:
            input_types.update({x.name: x.dtype for x in label_shapes})
        executor = self.symbol.simple_bind(
            ctx=self.contexts[i], grad_req=self.grad_req, type_dict=input_types,
            shared_arg_names=self.param_names, shared_exec=shared_exec,
            group2ctx=self.group2ctxs[i], shared_buffer=self.shared_data_arrays[i],
            **input_shapes)
        self._total_exec_bytes += executor._total_exec_bytes
        return executor

    def _sliced_shape(self, shapes, i, major_axis):
        sliced = []
        for desc, axis in zip(shapes, major_axis):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            sliced.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return sliced

    # ---- parameters -----------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy parameters into every executor."""
        for exe in self.execs:
            exe.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Copy the parameters, averaged over devices, into ``arg_params``/``aux_params``."""
        for name, block in zip(self.param_names, self.param_arrays):
            self._average_into(block, arg_params[name])
        for name, block in zip(self.aux_names, self.aux_arrays):
            self._average_into(block, aux_params[name])

    @staticmethod
    def _average_into(block, target):
        if len(block) == 1:
            block[0].astype(target.dtype).copyto(target)
            return
        total = block[0].copyto(cpu())
        for array in block[1:]:
            total += array.copyto(cpu())
        (total / len(block)).astype(target.dtype).copyto(target)

    # ---- computation ----------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Load the batch slices into the executors and run forward on all devices."""
        _load_data(data_batch, self.data_arrays, self.data_layouts)
        if is_train is None:
            is_train = self.for_training
        if isinstance(data_batch, list):
            if self.label_arrays is not None and data_batch and data_batch[0].label:
                _load_label(data_batch, self.label_arrays, self.label_layouts)
        elif self.label_arrays is not None and data_batch.label:
            _load_label(data_batch, self.label_arrays, self.label_layouts)
        if len(self.execs) == 1:
            # what _each does for one executor (it runs alone, with all the threads),
            # without a closure per call
            exe = self.execs[0]
            exe._thread_share = 1
            exe.forward(is_train=is_train)
            return
        self._each(lambda i, exe: exe.forward(is_train=is_train))

    def backward(self, out_grads=None):
        """Run backward on all devices (``out_grads`` are sliced per device)."""
        assert self.for_training, 're-bind with for_training=True to run backward'
        if out_grads is None:
            out_grads = []
        if self._threads is None and not out_grads:
            for exe in self.execs:
                exe.backward()
            return

        def run(i, exe):
            islice = self.slices[i]
            sliced = []
            for grad, axis in zip(out_grads, self.output_layouts):
                if axis >= 0:
                    part = nd.slice_axis(grad, axis=axis, begin=islice.start, end=islice.stop)
                    sliced.append(part.as_in_context(self.contexts[i]))
                else:
                    sliced.append(grad.copyto(self.contexts[i]))
            exe.backward(out_grads=sliced)
        self._each(run)

    def get_output_shapes(self):
        """(name, shape) of each output for the whole batch."""
        shapes = []
        for key, out, axis in zip(self.symbol.list_outputs(), self.execs[0].outputs,
                                  self.output_layouts):
            shape = list(out.shape)
            if axis >= 0:
                shape[axis] = self.batch_size
            shapes.append((key, tuple(shape)))
        return shapes

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs of the last forward: merged ``[out1, ...]`` or ``[[dev1, dev2], ...]``."""
        if end is None:
            end = self.num_outputs
        if merge_multi_context and len(self.execs) == 1:
            return self.execs[0].outputs[begin:end]     # nothing to merge
        outputs = [[exe.outputs[i] for exe in self.execs] for i in range(begin, end)]
        if merge_multi_context:
            outputs = _merge_multi_context(outputs, self.output_layouts[begin:end])
        return outputs

    def get_states(self, merge_multi_context=True):
        """The state arrays ``[[state1_dev1, ...], ...]``."""
        assert not merge_multi_context, \
            'merge_multi_context=True is not supported for get_states yet.'
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """Set the state arrays from ``states`` or to the scalar ``value``."""
        if states is not None:
            assert value is None, 'Only one of states & value can be specified.'
            _load_general(states, self.state_arrays, (0,) * len(states))
        else:
            assert value is not None, 'At least one of states & value must be specified.'
            for arrays in self.state_arrays:
                for array in arrays:
                    array[:] = value

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the data inputs (``inputs_need_grad`` must be set)."""
        assert self.inputs_need_grad
        if merge_multi_context:
            return _merge_multi_context(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def update_metric(self, eval_metric, labels, pre_sliced):
        """Update ``eval_metric`` with every device's outputs and its slice of ``labels``."""
        for current, (exe, islice) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_slice = labels[current]
            elif len(self.execs) == 1:
                labels_slice = labels
            else:
                labels_slice = []
                for label, axis in zip(labels, self.label_layouts):
                    if axis == 0:
                        labels_slice.append(label[islice])
                    elif axis > 0:
                        labels_slice.append(nd.slice_axis(label, axis=axis, begin=islice.start,
                                                          end=islice.stop))
                    else:
                        labels_slice.append(label)
            eval_metric.update_dict(OrderedDict(zip(self.label_names or [], labels_slice)),
                                    OrderedDict(zip(self.output_names, exe.outputs)))

    def install_monitor(self, mon):
        """Install a Monitor on every executor."""
        for exe in self.execs:
            mon.install(exe)
