"""gluon Parameters: a weight with one copy (and one gradient buffer) per device context.

A :class:`Parameter` may be created before its shape is known
(``allow_deferred_init``); ``initialize`` then only records the initializer and the
contexts, and the arrays are made on the first forward pass once shapes are inferred.
Gradient buffers are marked as autograd variables, so ``backward`` fills them and sets
the fresh-gradient flag that ``Trainer`` checks.
"""
import warnings

import numpy as np

from ..base import MXNetError
from .. import autograd, context, initializer, ndarray, symbol
from ..context import Context, cpu
from .utils import shape_is_known

__all__ = ['DeferredInitializationError', 'Parameter', 'Constant', 'ParameterDict',
           'tensor_types']

tensor_types = (symbol.Symbol, ndarray.NDArray)
_STYPES = ('default', 'row_sparse', 'csr')


class DeferredInitializationError(MXNetError):
    """A Parameter was used before its deferred initialization could finish."""


class Parameter:
    """A container for one weight of a Block, copied on each context it lives on.

    Parameters
    ----------
    name : str
        Name of the parameter.
    grad_req : {'write', 'add', 'null'}, default 'write'
        How ``backward`` stores gradients: overwrite, accumulate (call ``zero_grad``
        yourself), or none (no gradient buffer).
    shape : int or tuple of int, optional
        The shape; 0 marks a dimension not known yet.
    dtype : numpy dtype or str, default 'float32'
        Element type.
    lr_mult : float, default 1.0
        Learning-rate multiplier for this parameter.
    wd_mult : float, default 1.0
        Weight-decay multiplier for this parameter.
    init : Initializer or str, optional
        Initializer; the global one given to ``initialize`` is used when None.
    allow_deferred_init : bool, default False
        Allow ``initialize`` before the shape is known.
    differentiable : bool, default True
        When False the gradient request is always 'null'.
    stype : {'default', 'row_sparse', 'csr'}, default 'default'
        Storage type of the weight. A 'row_sparse' weight lives in the Trainer's KVStore;
        read the rows a batch needs with :meth:`row_sparse_data` ('csr' is refused).
    grad_stype : {'default', 'row_sparse', 'csr'}, default 'default'
        Storage type of the gradient ('csr' is refused).

    Examples
    --------
    >>> w = mx.gluon.Parameter('fc_weight', shape=(64, 100), init=mx.init.Xavier())
    >>> w.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    >>> w.data(mx.cpu(1)).shape
    (64, 100)
    """

    def __init__(self, name, grad_req='write', shape=None, dtype=np.float32,
                 lr_mult=1.0, wd_mult=1.0, init=None, allow_deferred_init=False,
                 differentiable=True, stype='default', grad_stype='default'):
        self._var = None
        self._data = None
        self._grad = None
        self._ctx_list = None
        self._ctx_map = None
        self._trainer = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = shape
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        assert grad_stype in _STYPES, "grad_stype for Parameter '%s' must be one of " \
            "'default', 'row_sparse', or 'csr', but got '%s'" % (name, grad_stype)
        assert stype in _STYPES, "stype for Parameter '%s' must be one of 'default', " \
            "'row_sparse', or 'csr', but got '%s'" % (name, stype)
        self._grad_stype = grad_stype
        self._stype = stype

    def __repr__(self):
        return 'Parameter {name} (shape={shape}, dtype={dtype})'.format(
            name=self.name, shape=self.shape, dtype=self.dtype)

    # ---- attributes -------------------------------------------------------------------
    @property
    def grad_req(self):
        """How gradients are stored: 'write', 'add' or 'null' (settable)."""
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        assert req in ['write', 'add', 'null'], \
            "grad_req must be one of 'write', 'add', or 'null', but got '%s'" % req
        if not self._differentiable:
            req = 'null'
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == 'null' and self._grad is not None:
            self._grad = None
            self._data = [arr.detach() for arr in self._data]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        """The element type; setting it casts the data and gradients."""
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def shape(self):
        """The shape (0 for a dimension not known yet), or None."""
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        if self._shape is None:
            self._shape = new_shape
            return
        assert len(self._shape) == len(new_shape) and \
            all(j in (-1, 0, i) for i, j in zip(new_shape, self._shape)), \
            'Expected shape %s is incompatible with given shape %s.' % (
                str(new_shape), str(self._shape))
        self._shape = new_shape

    def _set_trainer(self, trainer):
        """Remember the Trainer that updates this parameter (a sparse one has only one)."""
        if self._stype != 'default' and self._trainer and trainer and \
                self._trainer is not trainer:
            raise RuntimeError("Failed to set the trainer for Parameter '%s' because it was "
                               "already set. More than one trainers for a %s Parameter is not "
                               "supported." % (self.name, self._stype))
        self._trainer = trainer

    # ---- lookup -----------------------------------------------------------------------
    def _check_and_get(self, arr_list, ctx):
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = context.current_context()
            ctx_list = self._ctx_map[ctx.device_typeid & 1]
            if ctx.device_id < len(ctx_list):
                idx = ctx_list[ctx.device_id]
                if idx is not None:
                    return arr_list[idx]
            raise RuntimeError("Parameter '%s' was not initialized on context %s. It was "
                               "only initialized on %s." % (self.name, str(ctx),
                                                            str(self._ctx_list)))
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was "
                "deferred. Actual initialization happens during the first forward pass. "
                "Please pass one batch of data through the network before accessing "
                "Parameters. You can also avoid deferred initialization by specifying "
                "in_units, num_features, etc., for network layers." % self.name)
        raise RuntimeError(
            "Parameter '%s' has not been initialized. Note that you should initialize "
            "parameters and create Trainer with Block.collect_params() instead of "
            "Block.params because the later does not include Parameters of nested child "
            "Blocks" % self.name)

    def data(self, ctx=None):
        """The parameter's array on ``ctx`` (the only one when None and there is one).

        Parameters
        ----------
        ctx : Context, optional
            The context.

        Returns
        -------
        NDArray

        Raises
        ------
        RuntimeError
            For a row_sparse parameter (use :meth:`row_sparse_data`).
        """
        if self._stype != 'default':
            raise RuntimeError("Cannot return a copy of Parameter '%s' on ctx %s via data() "
                               "because its storage type is %s. Please use row_sparse_data() "
                               "instead." % (self.name, str(ctx), self._stype))
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        """The arrays on all contexts, in the order of initialization (dense only)."""
        if self._stype != 'default':
            raise RuntimeError("Cannot return copies of Parameter '%s' on all contexts via "
                               "list_data() because its storage type is %s. Please use "
                               "row_sparse_data() instead." % (self.name, self._stype))
        return self._check_and_get(self._data, list)

    def grad(self, ctx=None):
        """The gradient buffer on ``ctx``.

        Raises
        ------
        RuntimeError
            When ``grad_req`` is 'null' (there is no buffer).
        """
        if self._data is not None and self._grad is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because "
                               "grad_req='null'" % self.name)
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        """The gradient buffers on all contexts, in the order of :meth:`list_data`."""
        if self._data is not None and self._grad is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because "
                               "grad_req='null'" % self.name)
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """The contexts the parameter lives on (or will, when initialization is deferred)."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError("Parameter '%s' has not been initialized" % self.name)
        return self._ctx_list

    def row_sparse_data(self, row_id):
        """The row_sparse weight on ``row_id``'s context, holding the rows ``row_id`` names.

        The rows are pulled from the Trainer's KVStore into the parameter's array on that
        context (the array autograd differentiates), so a Trainer must exist.

        Parameters
        ----------
        row_id : NDArray
            Row indices (any order, repeats allowed).

        Returns
        -------
        RowSparseNDArray
        """
        if self._stype != 'row_sparse':
            raise RuntimeError("Cannot return a copy of Parameter %s via row_sparse_data() "
                               "because its storage type is %s. Please use data() instead."
                               % (self.name, self._stype))
        return self._get_row_sparse(self._data, row_id.context, row_id)

    def list_row_sparse_data(self, row_id):
        """:meth:`row_sparse_data` on every context, in the order of initialization.

        Parameters
        ----------
        row_id : NDArray
            Row indices, pulled into every context's array.

        Returns
        -------
        list of RowSparseNDArray
        """
        if self._stype != 'row_sparse':
            raise RuntimeError("Cannot return copies of Parameter '%s' on all contexts via "
                               "list_row_sparse_data() because its storage type is %s. Please "
                               "use data() instead." % (self.name, self._stype))
        return self._get_row_sparse(self._data, list, row_id)

    def _get_row_sparse(self, arr_list, ctx, row_id):
        """Pull the rows ``row_id`` into the arrays on ``ctx`` (or all of them)."""
        if not isinstance(row_id, ndarray.NDArray):
            raise TypeError('row_id must have NDArray type, but %s is given' % type(row_id))
        if not self._trainer:
            raise RuntimeError("Cannot get row_sparse data for Parameter '%s' when no "
                               "Trainer is created with it." % self.name)
        results = self._check_and_get(arr_list, ctx)
        self._trainer._row_sparse_pull(self, results, row_id)
        return results

    # ---- initialization ----------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(),
                   force_reinit=False):
        """Create the arrays (and gradient buffers) on the given contexts.

        Parameters
        ----------
        init : Initializer, optional
            Overrides ``self.init`` and ``default_init``.
        ctx : Context or list of Context, optional
            Where to keep copies; the current context by default.
        default_init : Initializer, default Uniform()
            Used when neither ``init`` nor ``self.init`` is given.
        force_reinit : bool, default False
            Initialize again even if already initialized.

        Raises
        ------
        ValueError
            When the shape is unknown and deferred initialization is not allowed.
        """
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set "
                          "force_reinit=True to re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad = None
        if ctx is None:
            ctx = [context.current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ValueError("Cannot initialize Parameter '%s' because it has invalid "
                             "shape: %s." % (self.name, str(self.shape)))
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        """Create the arrays once the shape is known."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        assert shape_is_known(self.shape), \
            "Cannot initialize Parameter '%s' because it has invalid shape: %s. Please " \
            "specify in_units, in_channels, etc for `Block`s." % (self.name, str(self.shape))
        with autograd.pause():
            if data is None:
                data = ndarray.zeros(self.shape, dtype=self.dtype, ctx=cpu(),
                                     stype=self._stype)
                initializer.create(default_init)(
                    initializer.InitDesc(self.name, {'__init__': init}), data)
            self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list):
        """Copy ``data`` to every context and make the gradient buffers."""
        self._ctx_list = list(ctx_list)
        self._ctx_map = [[], []]
        for i, ctx in enumerate(self._ctx_list):
            dev_list = self._ctx_map[ctx.device_typeid & 1]
            while len(dev_list) <= ctx.device_id:
                dev_list.append(None)
            dev_list[ctx.device_id] = i
        self._data = [data.copyto(ctx) for ctx in self._ctx_list]
        self._init_grad()

    def _init_grad(self):
        """Zero gradient buffers, marked as autograd variables."""
        if self.grad_req == 'null':
            self._grad = None
            return
        self._grad = [ndarray.zeros(arr.shape, dtype=arr.dtype, ctx=arr.context,
                                    stype=self._grad_stype) for arr in self._data]
        autograd.mark_variables(self._check_and_get(self._data, list), self._grad,
                                self.grad_req)

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source='current'):
        """(Re)initialize from loaded ``data``, checking shape and dtype."""
        if cast_dtype:
            assert dtype_source in ['current', 'saved']
        if self.shape:
            for self_dim, data_dim in zip(self.shape, data.shape):
                assert self_dim in (0, data_dim), \
                    "Failed loading Parameter '%s' from saved params: shape incompatible " \
                    "expected %s vs saved %s" % (self.name, str(self.shape), str(data.shape))
            self.shape = tuple(i if i != 0 else j for i, j in zip(self.shape, data.shape))
        if self.dtype:
            if cast_dtype and np.dtype(self.dtype).type != data.dtype:
                if dtype_source == 'current':
                    data = data.astype(self.dtype, copy=False)
                elif dtype_source == 'saved':
                    self.dtype = data.dtype
            else:
                assert np.dtype(self.dtype).type == data.dtype, \
                    "Failed loading Parameter '%s' from saved params: dtype incompatible " \
                    "expected %s vs saved %s. Set cast_dtype=True to cast the dtype of " \
                    "saved params." % (self.name, str(self.dtype), str(data.dtype))
        if self._stype != data.stype:
            data = data.tostype(self._stype)
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                assert ctx is None or set(ctx) == set(self._deferred_init[1]), \
                    "Failed to load Parameter '%s' on %s because it was previous " \
                    "initialized on %s." % (self.name, str(ctx), str(self.list_ctx()))
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            self._init_impl(data, ctx)
        else:
            assert ctx is None or set(ctx) == set(self.list_ctx()), \
                "Failed to load Parameter '%s' on %s because it was previous initialized " \
                "on %s." % (self.name, str(ctx), str(self.list_ctx()))
            self.set_data(data)
        self._deferred_init = ()

    def _reduce(self):
        """The average of the copies, on cpu (what is saved); a row_sparse weight is
        pulled whole from the Trainer's store (before there is a Trainer, the copies
        hold the initial value)."""
        ctx = cpu()
        if self._stype != 'default':
            if self._trainer is None:
                return self._check_and_get(self._data, list)[0].copyto(ctx)
            all_row_ids = ndarray.arange(0, self.shape[0], dtype='int64', ctx=ctx)
            data = ndarray.zeros(self.shape, stype='row_sparse', dtype=self.dtype, ctx=ctx)
            self._trainer._row_sparse_pull(self, data, all_row_ids, full_idx=True)
            return data
        block = self.list_data()
        if len(block) > 1:
            return ndarray.add_n(*(w.copyto(ctx) for w in block)) / len(block)
        return self.data().copyto(ctx)

    # ---- changing values and contexts ---------------------------------------------------
    def reset_ctx(self, ctx):
        """Move the parameter to other contexts (keeping its value).

        Parameters
        ----------
        ctx : Context or list of Context
            The new contexts; the current context when None.
        """
        if ctx is None:
            ctx = [context.current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise ValueError("Cannot reset context for Parameter '%s' because it has not "
                             "been initialized." % self.name)

    def set_data(self, data):
        """Set the value on every context.

        Parameters
        ----------
        data : NDArray
            The new value (its shape must match).
        """
        self.shape = data.shape
        if self._data is None:
            assert self._deferred_init, "Parameter '%s' has not been initialized" % self.name
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        trainer = self._trainer
        if trainer and trainer._kv_initialized and trainer._update_on_kvstore:
            if self not in trainer._params_to_init:
                trainer._reset_kvstore()
        for arr in self._check_and_get(self._data, list):
            arr[:] = data

    def zero_grad(self):
        """Set the gradient buffers to 0 (nothing when there are none)."""
        if self._grad is None:
            return
        for g in self._grad:
            if g.stype != 'default':
                ndarray.zeros_like(g, out=g)     # nothing stored, as MXNet leaves it
            else:
                g[:] = 0

    def var(self):
        """A symbol variable for this parameter (with its shape, dtype and multipliers)."""
        if self._var is None:
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype,
                                   lr_mult=self.lr_mult, wd_mult=self.wd_mult,
                                   init=self.init, stype=self._stype)
        return self._var

    def cast(self, dtype):
        """Cast the data and gradient buffers to ``dtype``.

        Parameters
        ----------
        dtype : str or numpy.dtype
            The new element type.
        """
        self._dtype = dtype
        if self._data is None:
            return
        with autograd.pause():
            self._data = [arr.astype(dtype) for arr in self._data]
            if self._grad is None:
                return
            self._grad = [g.astype(dtype) for g in self._grad]
            autograd.mark_variables(self._data, self._grad, self.grad_req)


class Constant(Parameter):
    """A parameter that autograd and Trainer leave alone (``grad_req`` is always 'null').

    Parameters
    ----------
    name : str
        Name of the constant.
    value : array-like
        Its value.

    Examples
    --------
    >>> const = mx.gluon.Constant('const', [[1, 2], [3, 4]])
    >>> const.initialize()
    >>> const.data().asnumpy().sum()
    10.0
    """

    def __init__(self, name, value):
        if not isinstance(value, ndarray.NDArray):
            value = ndarray.array(value)
        self.value = value

        class Init(initializer.Initializer):
            def _init_weight(self, _, arr):
                value.copyto(arr)
        init_name = 'Constant_{}_{}'.format(name, id(self))
        initializer.alias(init_name)(Init)
        super().__init__(name, grad_req='null', shape=value.shape, dtype=value.dtype,
                         init=init_name)

    def __repr__(self):
        return 'Constant {name} (shape={shape}, dtype={dtype})'.format(
            name=self.name, shape=self.shape, dtype=self.dtype)

    @property
    def grad_req(self):
        return 'null'

    @grad_req.setter
    def grad_req(self, req):
        if req != 'null':
            warnings.warn('Constant parameter "{}" does not support grad_req other than '
                          '"null", and new value "{}" is ignored.'.format(self.name, req))


from .parameter_dict import ParameterDict  # noqa: E402  (MXNet's import path)
