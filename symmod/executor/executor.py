"""Executor: a symbol bound to arrays on a device, with forward and backward passes."""
import numpy as np

from .. import profiler as _profiler
from .. import threads as _threads
from ..base import MXNetError
from ..ndarray import pending as _pending
from ..ndarray.ndarray import NDArray
from .fusion import fuse as _fuse
from .memory import MemoryPool
from .plan import Plan
from ..symbol import cse as _cse

__all__ = ['Executor']


def _storage(array):
    """What the plan binds: a dense array's numpy buffer, a sparse NDArray itself (its
    storage is replaced when written, so the plan holds the NDArray)."""
    data = array._data
    return data if isinstance(data, np.ndarray) else array


class Executor:
    """A bound symbol. Create it with ``Symbol.bind`` or ``Symbol.simple_bind``.

    All planning happens at construction; :meth:`forward` and :meth:`backward` only
    run the operators' kernels on preallocated buffers.

    Attributes
    ----------
    arg_arrays, grad_arrays, aux_arrays, outputs : list of NDArray
    arg_dict, grad_dict, aux_dict, output_dict : dict of str to NDArray
    """

    def __init__(self, symbol, ctx, arg_arrays, grad_arrays, grad_reqs, aux_arrays,
                 shared_exec=None, group2ctx=None):
        self._symbol = symbol
        self._ctx = ctx
        self._group2ctx = group2ctx
        self._pool = shared_exec._pool if shared_exec is not None else MemoryPool()
        self._grad_reqs = list(grad_reqs)
        self.arg_arrays = list(arg_arrays)
        self.grad_arrays = list(grad_arrays)
        self.aux_arrays = list(aux_arrays)
        # the graph that runs: common subexpressions computed once, as MXNet's bind does
        self._optimized = symbol
        if _cse.enabled():
            optimized = _cse.eliminate_common_expr(symbol)
            if optimized.list_inputs() == symbol.list_inputs():
                self._optimized = optimized
        self._plan = Plan(self._optimized, [_storage(a) for a in self.arg_arrays],
                          [None if g is None else _storage(g) for g in self.grad_arrays],
                          self._grad_reqs, [_storage(a) for a in self.aux_arrays], self._pool,
                          ctx)
        self.outputs = [NDArray(data, ctx) if isinstance(data, np.ndarray) else data
                        for data in self._plan.outputs]
        # what runs: BatchNorms and residual additions fused with their relus (fusion.py);
        # a monitor and the profiler run the plan's own steps, one per operator
        self._forward_steps, self._backward_steps = _fuse(
            self._plan.forward_steps, self._plan.backward_steps, self._plan.op_nodes,
            self._plan.heads)
        self._head_grads = self._plan.head_grad_arrays
        self._head_modes = self._plan.head_grad_modes
        self._monitor = None
        self._monitor_all = False
        self._monitor_op_names = False
        self._thread_share = 1      # executors running at the same time (the group sets it)
        self._arg_dict = self._grad_dict = self._aux_dict = self._output_dict = None

    # ---- running -----------------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Run the forward pass.

        Parameters
        ----------
        is_train : bool
            Training mode (Dropout active, BatchNorm batch statistics); set it when a
            backward pass follows.
        **kwargs
            Input arrays to copy into the bound arguments first.

        Returns
        -------
        list of NDArray
            The outputs (the same arrays as :attr:`outputs`).
        """
        if kwargs:
            arg_dict = self.arg_dict
            for name, array in kwargs.items():
                if not isinstance(array, (NDArray, np.ndarray)):
                    raise ValueError('only accept keyword argument of NDArrays and '
                                     'numpy.ndarray')
                if name not in arg_dict:
                    raise TypeError('Unknown argument %s' % name)
                if arg_dict[name].shape != array.shape:
                    raise ValueError('Shape not match! Argument %s, need: %s, received: %s'
                                     % (name, str(arg_dict[name].shape), str(array.shape)))
                arg_dict[name][:] = array
        _threads.apply(self._thread_share)
        if _pending.PENDING:
            _pending.discard(self.outputs)
        try:
            if _profiler._symbolic_on:
                self._forward_profiled(is_train)
            elif self._monitor is None:
                for op, req, ins, outs, aux, _ in self._forward_steps:
                    op.forward(is_train, req, ins, outs, aux)
            else:
                for op, req, ins, outs, aux, node in self._plan.forward_steps:
                    op.forward(is_train, req, ins, outs, aux)
                    self._report(node, op, ins, outs, aux)
        except MXNetError as err:
            # an operator's error (index out of range, a CustomOp's exception): MXNet's
            # engine reports it at the first read of an output, not here
            _pending.defer(self.outputs, err)
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        """Run the backward pass, filling the gradient arrays.

        Parameters
        ----------
        out_grads : NDArray, list or dict of NDArray, optional
            Gradients of the outputs; needed only for outputs that are not loss heads.
        is_train : bool
            Kept for MXNet compatibility.
        """
        if _pending.PENDING:
            _pending.check_all(self.outputs)    # a forward error not yet reported
        if out_grads is None:
            out_grads = []
        elif isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        elif isinstance(out_grads, dict):
            out_grads = [out_grads[k] for k in self._symbol.list_outputs()]
        for i, (target, mode) in enumerate(zip(self._head_grads, self._head_modes)):
            if target is None:
                continue
            if i >= len(out_grads) or out_grads[i] is None:
                raise MXNetError('Because the last operator is not Loss function, '
                                 'head_gradient is required when calling backward. If you '
                                 'are attempting to minimize the output as an objective, '
                                 'please modify your network and pass it through the '
                                 'make_loss symbol.')
            grad = out_grads[i]
            source = grad._data if isinstance(grad, NDArray) else np.asarray(grad)
            if not isinstance(source, np.ndarray):     # a sparse head gradient
                source = grad._host()
            if source.shape != target.shape:
                if source.size == 0 and target.size == 0:
                    continue        # zero-size (np_shape): nothing to copy, as MXNet
                raise ValueError('head gradient %d has shape %s, output has shape %s'
                                 % (i, source.shape, target.shape))
            if mode == 'add':
                target += source.astype(target.dtype, copy=False)
            else:
                np.copyto(target, source, casting='unsafe')
        for grad in self._plan.zero_grad_arrays:    # gradients nothing flows into
            grad[...] = 0
        if _profiler._symbolic_on:
            self._backward_profiled()
            return
        if self._monitor is None:
            for op, req, out_grad, ins, outs, in_grad, aux, _ in self._backward_steps:
                op.backward(req, out_grad, ins, outs, in_grad, aux)
            return
        steps = self._plan.backward_steps
        if self._monitor_op_names:
            for op, req, out_grad, ins, outs, in_grad, aux, _ in steps:
                op.backward(req, out_grad, ins, outs, in_grad, aux)
            return
        for op, req, out_grad, ins, outs, in_grad, aux, node in steps:
            op.backward(req, out_grad, ins, outs, in_grad, aux)
            self._report_backward(node, in_grad)

    # ---- profiling: the same loops, timing each operator (one flag check per pass) -------
    def _forward_profiled(self, is_train):
        clock, record = _profiler.clock, _profiler.record_operator
        for op, req, ins, outs, aux, node in self._plan.forward_steps:
            start = clock()
            op.forward(is_train, req, ins, outs, aux)
            record(op.name, node.name, self._ctx, start, clock())
            if self._monitor is not None:
                self._report(node, op, ins, outs, aux)

    def _backward_profiled(self):
        clock, record = _profiler.clock, _profiler.record_operator
        for op, req, out_grad, ins, outs, in_grad, aux, node in self._plan.backward_steps:
            start = clock()
            op.backward(req, out_grad, ins, outs, in_grad, aux)
            record('_backward_' + op.name, node.name, self._ctx, start, clock())
            if self._monitor is not None and not self._monitor_op_names:
                self._report_backward(node, in_grad)

    # ---- monitoring ---------------------------------------------------------------------
    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, array)`` after every operator with its outputs
        (and inputs too when ``monitor_all``), in backward too with the gradients each
        gradient node writes (``<node>_backward_output<i>``, as MXNet names them; the
        inputs of gradient nodes are not reported). ``name`` is UTF-8 bytes, as MXNet's C
        callback hands it (``mx.base.py_str`` decodes it)."""
        self._monitor = callback
        self._monitor_all = monitor_all
        self._monitor_op_names = False

    def set_op_hook(self, callback, monitor_all=False):
        """As :meth:`set_monitor_callback`, with the operator's name too:
        ``callback(name, op_name, array)`` (gluon's ``register_op_hook``)."""
        self.set_monitor_callback(callback, monitor_all)
        self._monitor_op_names = callback is not None

    def _report(self, node, op, ins, outs, aux=()):
        if self._monitor_op_names:
            op_name = op.name.encode('utf-8')
            report = lambda name, arr: self._monitor(name, op_name, arr)  # noqa: E731
        else:
            report = self._monitor
        if self._monitor_all:
            names = op.monitor_input_names()
            for j, (name, array) in enumerate(zip(names, list(ins) + list(aux or ()))):
                source = node.inputs[j][0]
                if source.op is None and not self._monitor_op_names:
                    # the graph executor names a variable input by itself first
                    report(source.name.encode('utf-8'), self._as_ndarray(array))
                report(('%s_%s' % (node.name, name)).encode('utf-8'), self._as_ndarray(array))
        # the graph executor reports hidden outputs too (LRN's tmp_norm); op hooks do not
        shown = op.num_visible_outputs() if self._monitor_op_names else len(outs)
        for i, array in enumerate(outs[:shown]):
            report(node.output_name(i).encode('utf-8'), self._as_ndarray(array))

    def _as_ndarray(self, array):
        return array if isinstance(array, NDArray) else NDArray(array, self._ctx)

    def _report_backward(self, node, in_grad):
        # MXNet's gradient node is '<name>_backward' with one output per forward input
        # (written or not); its outputs are named like any unnamed operator's
        if len(in_grad) == 1:
            names = ['%s_backward_output' % node.name]
        else:
            names = ['%s_backward_output%d' % (node.name, i) for i in range(len(in_grad))]
        for name, array in zip(names, in_grad):
            self._monitor(name.encode('utf-8'), self._as_ndarray(array))

    # ---- dictionaries -----------------------------------------------------------------------
    @staticmethod
    def _get_dict(names, arrays):
        if len(set(names)) != len(names):
            raise ValueError('Duplicate names detected, %s' % str(names))
        return dict(zip(names, arrays))

    @property
    def arg_dict(self):
        """Argument arrays by name."""
        if self._arg_dict is None:
            self._arg_dict = self._get_dict(self._symbol.list_arguments(), self.arg_arrays)
        return self._arg_dict

    @property
    def grad_dict(self):
        """Gradient arrays by argument name (None where no gradient)."""
        if self._grad_dict is None:
            self._grad_dict = self._get_dict(self._symbol.list_arguments(), self.grad_arrays)
        return self._grad_dict

    @property
    def aux_dict(self):
        """Auxiliary state arrays by name."""
        if self._aux_dict is None:
            self._aux_dict = self._get_dict(self._symbol.list_auxiliary_states(),
                                            self.aux_arrays)
        return self._aux_dict

    @property
    def output_dict(self):
        """Output arrays by output name."""
        if self._output_dict is None:
            self._output_dict = self._get_dict(self._symbol.list_outputs(), self.outputs)
        return self._output_dict

    @property
    def symbol(self):
        """The bound symbol."""
        return self._symbol

    @property
    def _total_exec_bytes(self):
        """Bytes of intermediate storage this executor uses (its share of the pool)."""
        return self._plan.storage_bytes

    # ---- parameters ----------------------------------------------------------------------------
    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy parameter values into the bound arrays.

        Parameters
        ----------
        arg_params : dict of str to NDArray
        aux_params : dict of str to NDArray, optional
        allow_extra_params : bool
            Ignore names that are not arguments instead of raising ValueError.
        """
        for name, array in arg_params.items():
            if name in self.arg_dict:
                dst = self.arg_dict[name]
                array.astype(dst.dtype).copyto(dst)
            elif not allow_extra_params:
                raise ValueError('Find name "%s" that is not in the arguments' % name)
        if aux_params is None:
            return
        for name, array in aux_params.items():
            if name in self.aux_dict:
                dst = self.aux_dict[name]
                array.astype(dst.dtype).copyto(dst)
            elif not allow_extra_params:
                raise ValueError('Find name %s that is not in the auxiliary states' % name)

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes, sharing parameters and memory with this one.

        Parameters
        ----------
        partial_shaping : bool
            Allow shapes of unspecified arguments to change.
        allow_up_sizing : bool
            Allow arrays larger than the current ones (new memory is allocated).
        **kwargs
            New shapes of inputs by name.
        """
        from .bind import reshape_arrays
        executor = reshape_arrays(self, partial_shaping, allow_up_sizing, kwargs)
        # the reshaped executor keeps the monitor, as MXNet's does
        executor._monitor, executor._monitor_all, executor._monitor_op_names = \
            self._monitor, self._monitor_all, self._monitor_op_names
        return executor

    def get_optimized_symbol(self):
        """The graph the executor runs (after common subexpression elimination)."""
        return self._optimized.__copy__()

    def debug_str(self):
        """A summary of the plan: steps and memory."""
        lines = [self._symbol.debug_str(), '',
                 'Total %d forward steps, %d backward steps'
                 % (len(self._plan.forward_steps), len(self._plan.backward_steps)),
                 'Intermediate storage: %.1f KB (pool %.1f KB)'
                 % (self._plan.storage_bytes / 1024.0, self._pool.nbytes / 1024.0),
                 # MXNet's line: the memory the executor allocates beyond the bound arrays
                 'Total %d MB allocated' % (self._plan.storage_bytes // (1 << 20))]
        return '\n'.join(lines)
