"""HybridBlock: a block whose computation is written once for NDArrays and Symbols.

``hybrid_forward(F, x, *args, **params)`` runs with ``F = mx.nd`` on NDArrays and with
``F = mx.sym`` on Symbols. Before ``hybridize()`` a call runs ``hybrid_forward`` on
NDArrays. After it, symmod builds the block's symbolic graph once (as MXNet does) and
binds it, once per input signature, to the plan-once executor ``Module`` uses
(``BoundGraph``, symmod's CachedOp); under ``autograd.record()`` the whole graph is one
node of the tape. ``export`` writes the graph as a Module checkpoint.
"""
import warnings

from ..base import MXNetError
from .. import ndarray, symbol
from .block import Block, _flatten, _regroup, _gather_type_ctx_info
from .bound_graph import BoundGraph
from .parameter import DeferredInitializationError
from ..context import Context
from ..ndarray import NDArray


def _single_context(x, args):
    """The context of the inputs when all are NDArrays on one context, else None."""
    if not isinstance(x, NDArray):
        return None
    ctx = x._ctx
    for arg in args:
        if not isinstance(arg, NDArray) or (arg._ctx is not ctx and arg._ctx != ctx):
            return None
    return ctx


def _current_context_is(ctx):
    return getattr(Context._default_ctx, 'value', None) is ctx

__all__ = ['HybridBlock']


class HybridBlock(Block):
    """A Block that can also be run on Symbols (and so exported as a graph).

    Define ``hybrid_forward(self, F, x, *args, **params)``; registered Parameters are
    passed by attribute name as NDArrays or Symbols.

    Examples
    --------
    >>> class Model(mx.gluon.HybridBlock):
    ...     def __init__(self, **kwargs):
    ...         super().__init__(**kwargs)
    ...         with self.name_scope():
    ...             self.dense0 = mx.gluon.nn.Dense(20)
    ...     def hybrid_forward(self, F, x):
    ...         return F.relu(self.dense0(x))
    >>> model = Model(); model.initialize(); model.hybridize()
    >>> model(mx.nd.zeros((10, 10))).shape
    (10, 20)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = {}

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    # ---- the symbolic graph -------------------------------------------------------------
    def _get_graph(self, *args):
        if not self._cached_graph:
            flat_args, self._in_format = _flatten(args, 'input')
            real_args = sum(arg is not None for arg in flat_args)
            if real_args == 0:
                raise ValueError('All args are None and we do not support such a case. '
                                 'Received args={}'.format(args))
            flat_inputs, sym_inputs = [], []
            for arg in flat_args:
                if arg is None:
                    flat_inputs.append(None)
                    continue
                name = 'data{}'.format(len(sym_inputs)) if real_args > 1 else 'data'
                var = symbol.var(name)
                flat_inputs.append(var)
                sym_inputs.append(var)
            grouped = _regroup(flat_inputs, self._in_format)
            params = {key: p.var() for key, p in self._reg_params.items()}
            with self.name_scope():
                out = self.hybrid_forward(symbol, *grouped, **params)
            out, self._out_format = _flatten(out, 'output')
            self._cached_graph = sym_inputs, symbol.Group(out)
        return self._cached_graph

    def _build_cache(self, *args):
        data, out = self._get_graph(*args)
        data_names = {d.name: i for i, d in enumerate(data)}
        input_names = out.list_inputs()
        expected = set(input_names)
        if self._cached_op_args:
            params = {p.name: p for is_arg, p in self._cached_op_args if not is_arg}
        else:
            params = self.collect_params()
        param_names = set(params.keys())
        for name in expected:
            assert name in param_names or name in data_names, \
                'Unknown input to HybridBlock: %s' % name
        if any(name not in expected for name in data_names):
            unused = ', '.join(['%d-th' % i for name, i in data_names.items()
                                if name not in expected])
            warnings.warn('The %s input to HybridBlock is not used by any computation. Is '
                          'this intended?' % unused, stacklevel=4)
        unused_params = param_names - expected
        if unused_params:
            warnings.warn('Parameter %s is not used by any computation. Is this intended?'
                          % ', '.join(list(unused_params)), stacklevel=4)
        flat_args, _ = _flatten(args, 'input')
        try:
            for name in input_names:
                if name in params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*flat_args)
            for name in input_names:
                if name in params:
                    params[name]._finish_deferred_init()
        self._cached_op_args = [(True, data_names[name]) if name in data_names
                                else (False, params[name]) for name in input_names]
        self._cached_op = BoundGraph(out, shared=[i for i, (is_arg, _) in
                                                  enumerate(self._cached_op_args)
                                                  if not is_arg], **self._flags)

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as err:  # pylint: disable=broad-except
            raise ValueError('Deferred initialization failed because shape cannot be '
                             'inferred. {}'.format(err)) from None

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(node_name, op_name, array)`` for the outputs (and with
        ``monitor_all`` the inputs) of every operator the hybridized graph runs; the names
        are bytes (``mx.base.py_str`` decodes them). Set on this block and its direct
        children, as in MXNet."""
        self._callback = callback
        self._monitor_all = monitor_all
        for child in self._children.values():
            child._callback = callback
            child._monitor_all = monitor_all

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        self._cached_op.register_op_hook(getattr(self, '_callback', None),
                                         getattr(self, '_monitor_all', False))
        flat_args, fmt = _flatten(args, 'input')
        if fmt != self._in_format:
            valid = False
            if len(self._in_format) > len(fmt):
                valid = all(self._in_format[i] == -1
                            for i in range(len(fmt), len(self._in_format)))
                valid = valid and fmt == self._in_format[:len(fmt)]
            elif len(self._in_format) < len(fmt):
                valid = all(fmt[i] == -1 for i in range(len(self._in_format), len(fmt)))
                valid = valid and fmt[:len(self._in_format)] == self._in_format
            if not valid:
                raise ValueError('The argument structure of HybridBlock does not match the '
                                 'cached version. Stored format = {}, input format = {}'
                                 .format(fmt, self._in_format))
        data = [arg for arg in flat_args if arg is not None]
        inputs = [data[item] if is_arg else item.data()
                  for is_arg, item in self._cached_op_args]
        return _regroup(self._cached_op(*inputs), self._out_format)

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []

    def register_child(self, block, name=None):
        """Register a child; children of a HybridBlock must be HybridBlocks."""
        if not isinstance(block, HybridBlock):
            raise ValueError('Children of HybridBlock must also be HybridBlock, but %s has type '
                             '%s. If you are using Sequential, please try HybridSequential '
                             'instead.' % (str(block), str(type(block))))
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active=True, backend=None, clear=True, static_alloc=False,
                  static_shape=False, inline_limit=2, forward_bulk_size=None,
                  backward_bulk_size=None, **kwargs):
        """Switch graph execution on (or off) for this block and its children.

        Once active, the first call builds the symbolic graph and binds it; later calls
        with the same input shapes run the bound executor (memory is always planned
        statically per shape, so ``static_alloc`` and ``static_shape`` change nothing
        else; the bulk sizes are accepted and ignored). Under ``autograd.record()`` a
        graph of at most ``inline_limit`` operators is recorded operator by operator
        (unless ``static_alloc``), a larger one as one ``_CachedOp`` node, as in MXNet.
        Subgraph
        ``backend``\\ s are not available.

        Parameters
        ----------
        active : bool, default True
            Whether to use the graph.
        clear : bool, default True
            Drop a graph built before.
        """
        if backend is not None:
            raise ValueError('symmod has no subgraph backends; hybridize(backend=%r) is not '
                             'available' % backend)
        self._active = active
        self._flags = {'inline_limit': inline_limit, 'static_alloc': static_alloc}
        if clear:
            self._clear_cached_op()
        if active and self._forward_hooks or self._forward_pre_hooks:
            warnings.warn('"{block}" is being hybridized while still having forward '
                          'hook/pre-hook. If "{block}" is a child of HybridBlock, the hooks '
                          'will not take effect.'.format(block=self))
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape,
                          inline_limit=inline_limit, forward_bulk_size=forward_bulk_size,
                          backward_bulk_size=backward_bulk_size)

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    # ---- inference and export -----------------------------------------------------------
    def _infer_attrs(self, infer_fn, attr, *args):
        inputs, out = self._get_graph(*args)
        flat_args, _ = _flatten(args, 'input')
        data = [arg for arg in flat_args if arg is not None]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            arg_attrs, _, aux_attrs = getattr(out, infer_fn)(
                **{i.name: getattr(j, attr) for i, j in zip(inputs, data)})
            if arg_attrs is None:
                raise ValueError(str(caught[0].message) if caught else
                                 '%s failed for %s' % (infer_fn, self.name))
        values = dict(zip(out.list_arguments(), arg_attrs))
        values.update(zip(out.list_auxiliary_states(), aux_attrs))
        for param in self.collect_params().values():
            setattr(param, attr, values[param.name])

    def infer_shape(self, *args):
        """Set the shapes of the Parameters from the shapes of the inputs."""
        self._infer_attrs('infer_shape', 'shape', *args)

    def infer_type(self, *args):
        """Set the dtypes of the Parameters from the dtypes of the inputs."""
        self._infer_attrs('infer_type', 'dtype', *args)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Save the graph and Parameters as ``path-symbol.json`` and ``path-%04d.params``.

        The files are a Module checkpoint (``arg:``/``aux:`` names) that
        ``SymbolBlock.imports``, ``mx.mod.Module.load`` and MXNet itself read. The
        block must have been hybridized and run once.

        Parameters
        ----------
        path : str
            Path prefix.
        epoch : int, default 0
            The epoch number in the params file name.
        """
        if not self._cached_graph:
            raise RuntimeError('Please first call block.hybridize() and then run forward with '
                               'this block at least once before calling export.')
        sym = self._cached_graph[1]
        sym.save('%s-symbol.json' % path, remove_amp_cast=remove_amp_cast)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arg_dict = {}
        for is_arg, param in self._cached_op_args:
            if is_arg:
                continue
            if param.name in arg_names:
                arg_dict['arg:%s' % param.name] = param._reduce()
            elif param.name in aux_names:
                arg_dict['aux:%s' % param.name] = param._reduce()
            else:
                warnings.warn('Parameter "{name}" is not found in the graph. '
                              .format(name=param.name), stacklevel=3)
        ndarray.save('%s-%04d.params' % (path, epoch), arg_dict)

    # ---- calling -------------------------------------------------------------------------
    def forward(self, x, *args):
        """Run on NDArrays (imperatively, or through the graph once hybridized) or build
        the graph on Symbols."""
        ctx = _single_context(x, args)
        if ctx is not None:     # NDArrays on one context: the common call, checked quickly
            if _current_context_is(ctx):
                return self._run_ndarray(ctx, x, args)
            with ctx:
                return self._run_ndarray(ctx, x, args)
        has_symbol, has_ndarray, ctx_set, first_ctx = _gather_type_ctx_info([x] + list(args))
        if has_symbol and has_ndarray:
            raise ValueError('In HybridBlock, we do not support mixed NDArrays and Symbols '
                             'types for the input. Please check the type of the args.\n')
        if not has_symbol and not has_ndarray:
            raise ValueError('In HybridBlock, there must be one NDArray or one Symbol in the '
                             'input. Please check the type of the args.\n')
        if has_ndarray:
            ctx = first_ctx
            if self._active:
                if len(ctx_set) > 1:
                    raise ValueError('Find multiple contexts in the input, After hybridized, '
                                     'the HybridBlock only supports one input context. You can '
                                     'print the ele.ctx in the input arguments to inspect their '
                                     'contexts. Find all contexts = {}'.format(ctx_set))
            with ctx:
                return self._run_ndarray(ctx, x, args)
        params = {k: v.var() for k, v in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(symbol, x, *args, **params)

    def _run_ndarray(self, ctx, x, args):
        """The call on NDArrays, with ``ctx`` (their context) current."""
        if self._active:
            return self._call_cached_op(x, *args)
        try:
            params = {k: v.data(ctx) for k, v in self._reg_params.items()}
        except DeferredInitializationError:
            self._deferred_infer_shape(x, *args)
            for _, param in self.params.items():
                param._finish_deferred_init()
            params = {k: v.data(ctx) for k, v in self._reg_params.items()}
        return self.hybrid_forward(ndarray, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation, with ``F`` either ``mx.nd`` or ``mx.sym`` (define it)."""
        raise MXNetError('%s must define hybrid_forward()' % type(self).__name__)

