"""Imperative operator calls: ``mx.nd.<op>(...)`` generated from the operator registry."""
import copy

import numpy as np

from ..base import MXNetError, attr_str
from ..context import current_context
from ..ops import registry
from ..util import is_np_shape
from .. import autograd
from ..autograd import state as _autograd_state
from .. import profiler as _profiler
from . import device
from . import pending as _pending
from .ndarray import NDArray, _OPS
from .sparse_invoke import involves_sparse, invoke_sparse

__all__ = ['invoke', 'make_function', 'operator_instance']

_INSTANCES = {}


def operator_instance(op_name, params):
    """A (cached) operator instance for ``op_name`` with the given parameter values."""
    key = (op_name, tuple(sorted((k, attr_str(v)) for k, v in params.items())))
    inst = _INSTANCES.get(key)
    if inst is None:
        inst = registry.get(op_name)({k: v for k, v in params.items()})
        inst._given_attrs = key[1]      # what autograd.get_symbol writes into the graph
        if len(_INSTANCES) > 4096:
            _INSTANCES.clear()
        _INSTANCES[key] = inst
    return inst


def _fits(expected, shape):
    """Whether ``shape`` matches ``expected``, where 0 in ``expected`` is unknown."""
    return len(expected) == len(shape) and all(e in (0, s) for e, s in zip(expected, shape))


_MAX_PLANS = 64      # input signatures remembered per operator instance


def _signature(inputs):
    """``((shape, dtype), ...)`` of inputs all held in host memory, else None."""
    signature = []
    for x in inputs:
        data = x._data
        if type(data) is not np.ndarray:
            return None
        signature.append((data.shape, data.dtype))
    return tuple(signature)


def invoke(op, inputs, out=None):
    """Run operator instance ``op`` on NDArray ``inputs`` (arguments then aux states).

    Outputs are new arrays unless ``out`` (an NDArray or a list of them) is given.
    Returns the visible outputs: one NDArray, or a list when there are several.

    The checks and shape and type inference of a call are done once per input
    signature (shapes and dtypes) and operator instance; later calls with the same
    signature allocate the outputs and run the kernel (``_invoke_planned``).
    """
    if _pending.PENDING:
        return _invoke_inheriting(op, inputs, out)
    plans = op.__dict__.get('_invoke_plans')
    if plans is not None and out is None:
        # (only an instance whose calls can be planned, as below, has plans)
        signature = _signature(inputs)
        plan = None if signature is None else plans.get(signature)
        if plan is not None:
            return _invoke_planned(op, inputs, plan)
    signature = None
    # value-sized outputs (boolean_mask's output_shapes) are worked out on every call
    if out is None and inputs and not op.stateful and not op.makes_sparse \
            and not hasattr(op, 'output_shapes'):
        signature = _signature(inputs)
    result, out_meta = _invoke_checked(op, inputs, out)
    if signature is not None and not is_np_shape():
        # (NumPy-shape semantics admit shapes legacy calls refuse: plans of legacy only)
        plans = op.__dict__.setdefault('_invoke_plans', {})
        if len(plans) >= _MAX_PLANS:
            plans.clear()
        plans[signature] = (len(op.list_arguments()), op.num_visible_outputs(), out_meta)
    return result


def _invoke_inheriting(op, inputs, out):
    """A call while some operator error is held: outputs computed from an array holding
    one hold it too (the call runs, as MXNet's engine would, on whatever values)."""
    error = next((e for e in map(_pending.peek, inputs) if e is not None), None)
    if error is None:
        return _invoke_checked(op, inputs, out)[0]
    _pending.discard(inputs)            # read without raising, then passed on
    try:
        result, _ = _invoke_checked(op, inputs, out)
    finally:
        _pending.defer(inputs, error)
    _pending.defer(result if isinstance(result, list) else [result], error)
    return result


def _run_forward(op, is_train, req, in_data, out_data, aux):
    """``op.forward``; a value-dependent error it raises is returned (held for the
    outputs' first read, as MXNet's engine reports it) instead of raised."""
    try:
        op.forward(is_train, req, in_data, out_data, aux)
    except _pending.ValueDependentError as err:
        return err
    return None


def _invoke_planned(op, inputs, plan):
    """A call whose signature an earlier call checked: outputs as that call inferred."""
    n_args, n_visible, out_meta = plan
    host = [x._data for x in inputs]
    out_data = [np.empty(shape, dtype=dtype) for shape, dtype in out_meta]
    ctx = inputs[0]._ctx
    start = _profiler.clock() if _profiler._imperative_on else None
    state = _autograd_state._STATE
    error = _run_forward(op, state.training, ['write'] * len(out_data), host[:n_args],
                         out_data, host[n_args:])
    if start is not None:
        _profiler.record_operator(op.name, None, ctx, start, _profiler.clock())
    results = [NDArray(a, ctx) for a in out_data]
    if error is not None:
        _pending.defer(results, error)
    if state.recording:
        autograd._record_op(op, inputs, results, n_args)
    return results[0] if n_visible == 1 else results[:n_visible]


def _invoke_checked(op, inputs, out):
    """:func:`invoke` with every check and inference done for this call; returns the
    visible outputs and every output's (shape, dtype)."""
    arg_names = op.list_arguments()
    aux_names = op.list_auxiliary_states()
    n_args = len(arg_names)
    if len(inputs) != n_args + len(aux_names):
        raise MXNetError('Operator %s expects %d inputs (%s), found %d'
                         % (op.name, n_args + len(aux_names),
                            ', '.join(arg_names + aux_names), len(inputs)))
    ctx = inputs[0].context if inputs else None
    outs = out if isinstance(out, (list, tuple)) else ([out] if out is not None else [])
    on_host = all(isinstance(x._data, np.ndarray)
                  for x in list(inputs) + [o for o in outs if o is not None])
    if (not on_host and involves_sparse(list(inputs) + outs)) or op.makes_sparse:
        return invoke_sparse(op, inputs, outs, invoke), None
    host = [x._data if on_host else x._host() for x in inputs]
    in_data, aux = host[:n_args], host[n_args:]
    if op.stateful:
        # per-call state (Custom's CustomOp) lives on a copy: the tape keeps each call's own
        op = copy.copy(op)
        op.create_state(ctx if ctx is not None else current_context(),
                        [a.shape for a in host], [a.dtype for a in host])
    n_out = len(op.list_outputs())
    # under NumPy-shape semantics a 0 dim of an input array is a zero size, not unknown
    with registry.known_zero_dims(is_np_shape() and any(0 in a.shape for a in host)):
        in_shapes, out_shapes, aux_shapes = op.infer_shape(
            [a.shape for a in in_data], [None] * n_out, [a.shape for a in aux])
    if hasattr(op, 'output_shapes'):
        # an output sized by the input values (boolean_mask): known only now
        out_shapes = op.output_shapes(in_data)
    for name, expected, array in zip(arg_names + aux_names, list(in_shapes) + list(aux_shapes),
                                     host):
        # inputs the operator's shape rule disagrees with (a state for another batch size)
        if expected is not None and not _fits(tuple(expected), array.shape):
            raise MXNetError('Operator %s: input %s has shape %s, expected %s'
                             % (op.name, name, array.shape, tuple(expected)))
    _, out_types, _ = op.infer_type([a.dtype for a in in_data], [None] * n_out,
                                    [a.dtype for a in aux])
    n_visible = op.num_visible_outputs()
    out_data = []
    for i, (shape, dtype) in enumerate(zip(out_shapes, out_types)):
        given = outs[i] if i < len(outs) else None
        if given is not None:
            # dims the operator leaves unknown (0, as in _zeros(shape=(1, 0, 8))) are
            # taken from out=, as MXNet does
            try:
                shape = registry.unify(shape, tuple(given.shape))
            except registry.ShapeError:
                raise MXNetError('Operator %s: out= has shape %s, expected %s'
                                 % (op.name, tuple(given.shape), tuple(shape))) from None
        if shape is None or dtype is None:
            raise MXNetError('Operator %s: cannot infer output %d from inputs of shapes %s'
                             % (op.name, i, [a.shape for a in in_data]))
        if given is not None and on_host:
            if tuple(given.shape) != tuple(shape):
                raise MXNetError('Operator %s: out= has shape %s, expected %s'
                                 % (op.name, tuple(given.shape), tuple(shape)))
            out_data.append(given._data)
        else:
            out_data.append(np.empty(shape, dtype=dtype))
    start = _profiler.clock() if _profiler._imperative_on else None
    error = _run_forward(op, autograd.is_training(), ['write'] * n_out, in_data, out_data, aux)
    if start is not None:
        _profiler.record_operator(op.name, None, ctx if ctx is not None else current_context(),
                                  start, _profiler.clock())
    if not on_host:
        for x, a in zip(inputs[n_args:], aux):
            device.copy_into(x._data, a)
    results = []
    for i in range(n_out):
        if i < len(outs) and outs[i] is not None:
            if not on_host:
                device.copy_into(outs[i]._data, out_data[i])
            results.append(outs[i])
        else:
            results.append(NDArray(out_data[i] if on_host
                                   else device.to_context(out_data[i], ctx), ctx))
    if error is not None:
        _pending.defer(results, error)
    if autograd.is_recording():
        autograd._record_op(op, inputs, results)
    visible = results[:n_visible]
    return (visible[0] if n_visible == 1 else visible), [(a.shape, a.dtype) for a in out_data]


def make_function(func_name, op_cls):
    """Build the ``mx.nd.<func_name>`` function for operator class ``op_cls``."""
    param_order = [p.name for p in op_cls.params]
    # the parameters of a call (positional ones and keywords, with their types; None
    # where an array goes) -> the operator instance, for calls whose arrays are exactly
    # the operator's inputs in order
    resolved = {}

    def function(*args, out=None, name=None, **kwargs):
        try:
            key = (tuple([None if isinstance(a, NDArray) else (type(a), a) for a in args]),
                   tuple([(k, type(v), v) for k, v in kwargs.items()]))
            op = resolved.get(key)
        except TypeError:       # an unhashable parameter value
            key = op = None
        if op is not None:
            return invoke(op, [a for a in args if isinstance(a, NDArray)], out=out)
        # leading positional arguments fill the array inputs (None: not given, as in
        # MXNet's generated signatures); the rest are parameters in declaration order
        nd_args = []
        params = {}
        extra = []
        for a in args:
            if not extra and (a is None or isinstance(a, NDArray)):
                nd_args.append(a)
            else:
                extra.append(a)
        # inputs given as None are skipped, as in MXNet's generated functions
        nd_args = [a for a in nd_args if a is not None]
        if extra:
            if op_cls.key_var_num_args:
                raise TypeError('%s: positional arguments must be NDArrays, found %s'
                                % (func_name, type(extra[0]).__name__))
            free = [p for p in param_order if p not in kwargs]
            if len(extra) > len(free):
                raise TypeError('%s: too many positional arguments' % func_name)
            params.update(zip(free, extra))
        nd_kwargs = {}
        for param, value in kwargs.items():
            if isinstance(value, NDArray):
                nd_kwargs[param] = value
            else:       # None is passed on: MXNet stores it as "None" (optional params)
                params[param] = value
        if op_cls.key_var_num_args and op_cls.key_var_num_args not in params:
            params[op_cls.key_var_num_args] = len(nd_args)
        op = operator_instance(func_name, params)
        names = op.list_arguments() + op.list_auxiliary_states()
        if len(nd_args) > len(names):
            raise MXNetError('%s: too many inputs, expected at most %d (%s), found %d'
                             % (func_name, len(names), ', '.join(names), len(nd_args)))
        inputs = []
        for i, input_name in enumerate(names):
            given = nd_args[i] if i < len(nd_args) else None
            if given is None:
                given = nd_kwargs.pop(input_name, None)
            if given is None:
                raise MXNetError('%s: missing input %r (inputs are %s)'
                                 % (func_name, input_name, ', '.join(names)))
            inputs.append(given)
        if nd_kwargs:
            raise MXNetError('%s: unknown inputs %s (inputs are %s)'
                             % (func_name, ', '.join(sorted(nd_kwargs)), ', '.join(names)))
        result = invoke(op, inputs, out=out)
        if key is not None and len(nd_args) == len(names) \
                and not any(a is None for a in args) \
                and not any(isinstance(v, NDArray) for v in kwargs.values()):
            if len(resolved) > 256:
                resolved.clear()
            resolved[key] = op
        return result

    function.__name__ = func_name
    function.__qualname__ = func_name
    function.__doc__ = _doc(func_name, op_cls)
    return function


def _doc(func_name, op_cls):
    lines = [(op_cls.__doc__ or func_name).strip(), '', 'Parameters', '----------']
    for p in op_cls.params:
        default = '' if p.default is registry.REQUIRED else ", optional, default=%r" % (p.default,)
        lines.append('%s : %s%s' % (p.name, getattr(p.parse, '__name__', 'value'), default))
        if p.doc:
            lines.append('    ' + p.doc)
    lines += ['out : NDArray, optional', '    The output array.']
    return '\n'.join(lines)


def populate(namespace, internal_namespace):
    """Add a function per registered operator name to the given module dicts."""
    for op_name in registry.list_operators():
        fn = make_function(op_name, registry.get(op_name))
        _OPS[op_name] = fn
        if op_name.startswith('_'):
            internal_namespace[op_name] = fn
        namespace[op_name] = fn
