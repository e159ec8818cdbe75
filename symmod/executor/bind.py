"""From ``Symbol.bind`` / ``simple_bind`` / ``Executor.reshape`` arguments to an Executor."""
import logging

import numpy as np

from ..base import MXNetError
from ..context import Context
from ..ndarray.ndarray import NDArray, zeros
from ..symbol.infer import variable_dtype_attr
from .executor import Executor
from .storage import grad_stypes

_LOGGER = logging.getLogger(__name__)

__all__ = ['bind', 'simple_bind', 'reshape_arrays']


def _check_context(ctx):
    if not isinstance(ctx, Context):
        raise TypeError('ctx must be a Context, found %s' % type(ctx).__name__)
    if ctx.device_type == 'gpu':
        raise MXNetError('symmod executors run on CPU contexts; %s is not supported for '
                         'binding a graph (optimizer kernels do run on GPU arrays)' % ctx)


def _arrays(what, given, names, allow_missing):
    """Order arrays given as a list or dict by ``names`` (MXNet's _get_ndarray_inputs)."""
    if given is None:
        if allow_missing:
            return [None] * len(names)
        raise ValueError('%s must be given' % what)
    if isinstance(given, (list, tuple)):
        if len(given) != len(names):
            raise ValueError('Length of %s does not match the number of arguments' % what)
        result = list(given)
    elif isinstance(given, dict):
        result = []
        for name in names:
            if name in given:
                result.append(given[name])
            elif allow_missing:
                result.append(None)
            else:
                raise ValueError('key `%s` is missing in `%s`' % (name, what))
    else:
        raise TypeError('Only accept list of NDArrays or dict of str to NDArray')
    for name, array in zip(names, result):
        if array is not None and not isinstance(array, NDArray):
            raise TypeError('%s: %s must be an NDArray, found %s'
                            % (what, name, type(array).__name__))
    return result


def _grad_reqs(grad_req, names):
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(names)
    elif isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(names):
            raise ValueError('grad_req list has %d entries for %d arguments'
                             % (len(grad_req), len(names)))
        reqs = list(grad_req)
    elif isinstance(grad_req, dict):
        reqs = [grad_req.get(n, 'null') for n in names]
    else:
        raise TypeError('grad_req must be a str, list or dict, found %s'
                        % type(grad_req).__name__)
    for r in reqs:
        if r not in ('write', 'add', 'null', 'inplace'):
            raise ValueError("grad_req must be one of 'write', 'add', 'null', found %r" % r)
    return ['write' if r == 'inplace' else r for r in reqs]


def bind(symbol, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec):
    """Implementation of :meth:`Symbol.bind`."""
    _check_context(ctx)
    arg_names = symbol.list_arguments()
    aux_names = symbol.list_auxiliary_states()
    arg_arrays = _arrays('args', args, arg_names, False)
    grad_arrays = _arrays('args_grad', args_grad, arg_names, True)
    aux_arrays = _arrays('aux_states', aux_states if aux_states is not None else [],
                         aux_names, False) if aux_names or aux_states else []
    reqs = _grad_reqs(grad_req, arg_names)
    reqs = [r if g is not None else 'null' for r, g in zip(reqs, grad_arrays)]
    return Executor(symbol, ctx, arg_arrays, grad_arrays, reqs, aux_arrays,
                    shared_exec=shared_exec, group2ctx=group2ctx)


def simple_bind(symbol, ctx, grad_req, type_dict, stype_dict, group2ctx, shared_arg_names,
                shared_exec, shared_buffer, shapes):
    """Implementation of :meth:`Symbol.simple_bind`: allocate every array from shapes."""
    _check_context(ctx)
    # MXNet reads only the tuples among the keyword arguments as shapes
    shapes = {k: v for k, v in shapes.items() if isinstance(v, tuple)}
    arg_stypes = variable_stypes(symbol, stype_dict)
    arg_shapes, _, aux_shapes = symbol.infer_shape(**shapes)
    if arg_shapes is None:
        arg_shapes, _, aux_shapes = symbol.infer_shape_partial(**shapes)
        missing = [n for n, s in zip(symbol.list_arguments(), arg_shapes)
                   if not s or 0 in s]
        raise MXNetError('simple_bind: cannot infer the shapes of %s from the given shapes %s'
                         % (', '.join(missing), shapes))
    if type_dict is None:
        declared = {n.name for n in symbol._nodes()
                    if n.op is None and variable_dtype_attr(n) is not None}
        type_dict = {k: np.float32 for k in symbol.list_arguments() if k not in declared}
    given = {k: v for k, v in type_dict.items() if k in symbol.list_inputs()}
    arg_types, _, aux_types = symbol.infer_type_partial(**given)
    if any(t is None for t in arg_types):
        # arguments inference leaves open (e.g. behind an amp_cast) default to float32
        declared = {n.name for n in symbol._nodes()
                    if n.op is None and variable_dtype_attr(n) is not None}
        given.update({k: np.float32 for k, t in zip(symbol.list_arguments(), arg_types)
                      if t is None and k not in declared})
        arg_types, _, aux_types = symbol.infer_type_partial(**given)
    if any(t is None for t in list(arg_types) + list(aux_types)):
        raise MXNetError('simple_bind: cannot infer every dtype from %s' % type_dict)
    arg_names = symbol.list_arguments()
    reqs = _grad_reqs(grad_req, arg_names)
    shared_names = set(shared_arg_names or [])
    shared_buffer = shared_buffer if shared_buffer is not None else {}
    grad_st = grad_stypes(symbol, arg_stypes)
    places = _variable_contexts(symbol, ctx, group2ctx)
    arg_arrays, grad_arrays = [], []
    for name, shape, dtype, req in zip(arg_names, arg_shapes, arg_types, reqs):
        stype = arg_stypes.get(name, 'default')
        place = places[name]
        gstype = grad_st.get(name, 'default')
        if name in shared_names:
            # a parameter: the shared executor's arrays, else its own (never the buffer)
            if shared_exec is not None:
                array = shared_exec.arg_dict[name]
                grad = shared_exec.grad_dict.get(name)
                if array.shape != tuple(shape):
                    raise MXNetError('shared argument %s has shape %s, this graph needs %s'
                                     % (name, array.shape, tuple(shape)))
                if grad is not None and (gstype != 'default' or grad.stype != 'default'):
                    grad = None         # MXNet shares dense gradients only
            else:
                array = zeros(shape, ctx=place, dtype=dtype, stype=stype)
                grad = None
            if grad is None and req != 'null':
                grad = zeros(shape, ctx=place, dtype=dtype, stype=gstype)
        else:
            # data, labels and arguments the shared group does not have: the buffer
            array = _from_buffer(shared_buffer, name, shape, dtype, place, stype)
            grad = None if req == 'null' else \
                _from_buffer(shared_buffer, 'grad of ' + name, shape, dtype, place, gstype)
        arg_arrays.append(array)
        grad_arrays.append(grad if req != 'null' else None)
    aux_arrays = []
    for name, shape, dtype in zip(symbol.list_auxiliary_states(), aux_shapes, aux_types):
        if shared_exec is not None and name in shared_exec.aux_dict:
            aux_arrays.append(shared_exec.aux_dict[name])
        else:
            aux_arrays.append(zeros(shape, ctx=places[name], dtype=dtype))
    reqs = [r if g is not None else 'null' for r, g in zip(reqs, grad_arrays)]
    return Executor(symbol, places[None], arg_arrays, grad_arrays, reqs, aux_arrays,
                    shared_exec=shared_exec, group2ctx=group2ctx)


_STYPE_NAMES = {'0': 'default', '1': 'row_sparse', '2': 'csr'}


def variable_stypes(symbol, stype_dict=None):
    """Storage types of the arguments that are not dense: ``stype_dict`` first, then the
    variables' ``__storage_type__`` attributes (``mx.sym.var(stype=...)``)."""
    stypes = {}
    for node in symbol._nodes():
        if node.op is None:
            value = _STYPE_NAMES.get(str(node.attrs.get('__storage_type__', '0')), 'default')
            if value != 'default':
                stypes[node.name] = value
    for name, value in (stype_dict or {}).items():
        if value not in ('default', 'row_sparse', 'csr'):
            raise MXNetError("stype_dict[%r] must be 'default', 'row_sparse' or 'csr', found "
                             "%r" % (name, value))
        stypes[name] = value
    return {k: v for k, v in stypes.items() if v != 'default'}


def _variable_contexts(symbol, ctx, group2ctx):
    """The context of every input's arrays (the bind context under the key None): a
    variable declared in a ``ctx_group`` that ``group2ctx`` names lives there, as MXNet
    places it."""
    places = {None: ctx}
    for node in symbol._nodes():
        if node.op is None:
            group = node.attrs.get('__ctx_group__')
            places[node.name] = (group2ctx or {}).get(group, ctx)
    return places


def _from_buffer(shared_buffer, name, shape, dtype, ctx, stype='default'):
    """An array for ``name``: a view of a large-enough shared one, else a new one kept in
    the buffer. Sparse arrays are not shared (MXNet's Python ``simple_bind`` accepts only
    dense arrays in a shared buffer)."""
    if stype != 'default':
        return zeros(shape, ctx=ctx, dtype=dtype, stype=stype)
    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    existing = shared_buffer.get(name)
    if existing is not None:
        if np.dtype(existing.dtype) != dtype:
            raise MXNetError('shared buffer: "%s" is %s there, this graph needs %s'
                             % (name, np.dtype(existing.dtype).name, np.dtype(dtype).name))
        if existing.size >= size:
            return NDArray(existing._data.reshape(-1)[:size].reshape(shape), ctx)
        _LOGGER.warning('bucketing: data "%s" has a shape %s, which is larger than already '
                        'allocated shape %s. Need to re-allocate. Consider putting '
                        'default_bucket_key to be the bucket taking the largest input for '
                        'better memory sharing.', name, shape, existing.shape)
    array = zeros(shape, ctx=ctx, dtype=dtype)
    shared_buffer[name] = array
    return array


def reshape_arrays(executor, partial_shaping, allow_up_sizing, shapes):
    """Implementation of :meth:`Executor.reshape` (MXNet's rules and messages)."""
    symbol = executor._symbol
    arg_shapes, _, aux_shapes = symbol.infer_shape(**shapes)
    if arg_shapes is None:
        raise MXNetError('reshape: cannot infer all shapes from %s' % shapes)

    def adapt(name, array, new_shape, given):
        new_shape = tuple(new_shape)
        if not (partial_shaping or given or new_shape == array.shape):
            raise MXNetError('Shape of unspecifie arg: %s changed. This can cause the new '
                             'executor to not share parameters with the old one. Please check '
                             'for error in network.If this is intended, set partial_shaping='
                             'True to suppress this warning.' % name)
        size = int(np.prod(new_shape, dtype=np.int64))
        if size > array.size:
            if not allow_up_sizing:
                raise MXNetError('New shape of arg: %s is larger than original.First making a '
                                 'big executor and then down sizing it is more efficient than '
                                 'the reverse.If you really want to up size, set '
                                 'allow_up_sizing=True to enable allocation of new arrays.'
                                 % name)
            return zeros(new_shape, ctx=array.context, dtype=array.dtype)
        if new_shape == array.shape:
            return array
        return NDArray(array._data.reshape(-1)[:size].reshape(new_shape), array.context)

    new_args, new_grads = [], []
    for name, array, grad, shape in zip(symbol.list_arguments(), executor.arg_arrays,
                                        executor.grad_arrays, arg_shapes):
        new_args.append(adapt(name, array, shape, name in shapes))
        new_grads.append(None if grad is None else adapt(name, grad, shape, name in shapes))
    new_aux = [adapt(name, array, shape, False)
               for name, array, shape in zip(symbol.list_auxiliary_states(),
                                             executor.aux_arrays, aux_shapes)]
    return Executor(symbol, executor._ctx, new_args, new_grads, executor._grad_reqs, new_aux,
                    shared_exec=executor, group2ctx=executor._group2ctx)
