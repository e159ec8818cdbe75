"""Automatic mixed precision: casting operator inputs, converting float32 graphs, and
dynamic loss scaling for gluon Trainers."""
import contextlib
import functools
import logging

import numpy as np

from ...base import MXNetError
from . import lists
from .loss_scaler import LossScaler

__all__ = ['init', 'init_trainer', 'scale_loss', 'unscale', 'convert_symbol', 'convert_model',
           'convert_hybrid_block', 'convert_bucketing_module', 'list_lp16_ops',
           'list_fp32_ops', 'list_lp16_fp32_ops', 'list_conditional_fp32_ops',
           'list_widest_type_cast', 'list_loss_output_functions', 'list_lp16_use_fp32_params']

_LOG = logging.getLogger(__name__)
_STATE = {'initialized': False, 'scaler': None, 'scaler_used': False}


def _check_target(target_dtype):
    if str(np.dtype(target_dtype) if target_dtype != 'bfloat16' else target_dtype) \
            != 'float16':
        raise MXNetError('AMP in symmod supports target_dtype float16 only, found %r'
                         % (target_dtype,))
    return np.dtype(np.float16)


# ---- the lists ------------------------------------------------------------------------
def _listing(target_dtype, names):
    _check_target(target_dtype)
    return list(names)


def list_lp16_ops(target_dtype):
    """Operators run in the low-precision dtype."""
    return _listing(target_dtype, lists.FP16_FUNCS)


def list_fp32_ops(target_dtype):
    """Operators run in float32."""
    return _listing(target_dtype, lists.FP32_FUNCS)


def list_lp16_fp32_ops(target_dtype):
    """Operators run in whichever dtype their inputs have."""
    return _listing(target_dtype, lists.FP16_FP32_FUNCS)


def list_conditional_fp32_ops(target_dtype):
    """(operator, parameter, values): run in float32 for those parameter values."""
    return _listing(target_dtype, lists.CONDITIONAL_FP32_FUNCS)


def list_widest_type_cast(target_dtype):
    """Operators whose inputs are all cast to the widest of their dtypes."""
    return _listing(target_dtype, lists.WIDEST_TYPE_CASTS)


def list_loss_output_functions(target_dtype):
    """Loss heads whose gradients ``init`` scales by the loss scale."""
    return _listing(target_dtype, lists.LOSS_OUTPUT_FUNCTIONS)


def list_lp16_use_fp32_params(target_dtype):
    """Low-precision operators that keep some parameters in float32 (none in symmod)."""
    _check_target(target_dtype)
    return {}


# ---- casting the inputs of operator calls (init) -----------------------------------------
def _cast(value, dtype):
    from ... import ndarray as nd, symbol as sym
    if isinstance(value, sym.Symbol):
        return sym.amp_cast(value, dtype=dtype)
    if isinstance(value, nd.NDArray) and np.dtype(value.dtype) != np.dtype(dtype) \
            and np.dtype(value.dtype) in (np.dtype(np.float16), np.dtype(np.float32)):
        return nd.amp_cast(value, dtype=dtype)
    return value


def _casting(func, dtype, condition=None):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if condition is not None and kwargs.get(condition[0]) not in condition[1]:
            return func(*args, **kwargs)
        args = [_cast(a, dtype) for a in args]
        kwargs = {k: _cast(v, dtype) for k, v in kwargs.items()}
        return func(*args, **kwargs)
    return wrapper


def _widest(func, array_type, multicast):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        inputs = [a for a in list(args) + list(kwargs.values()) if isinstance(a, array_type)]
        if len(inputs) < 2:
            return func(*args, **kwargs)
        mapping = {id(a): c for a, c in zip(inputs, multicast(*inputs,
                                                               num_outputs=len(inputs)))}
        args = [mapping.get(id(a), a) for a in args]
        kwargs = {k: mapping.get(id(v), v) for k, v in kwargs.items()}
        return func(*args, **kwargs)
    return wrapper


def _scaling(func, scaler):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        kwargs['grad_scale'] = kwargs.get('grad_scale', 1.0) * scaler.loss_scale
        return func(*args, **kwargs)
    return wrapper


def _wrap_module(module, array_type, target_dtype, fp16_ops, fp32_ops, conditional):
    for name in fp16_ops:
        if hasattr(module, name):
            setattr(module, name, _casting(getattr(module, name), target_dtype))
    for name in fp32_ops:
        if hasattr(module, name):
            setattr(module, name, _casting(getattr(module, name), np.float32))
    for name, param, values in conditional:
        if hasattr(module, name):
            setattr(module, name, _casting(getattr(module, name), np.float32, (param, values)))
    for name in lists.WIDEST_TYPE_CASTS:
        if hasattr(module, name):
            setattr(module, name, _widest(getattr(module, name), array_type,
                                          module.amp_multicast))


def init(target_dtype='float16', target_precision_ops=None, conditional_fp32_ops=None,
         fp32_ops=None):
    """Turn AMP on: from now on ``mx.nd`` and ``mx.sym`` cast the inputs of the listed
    operators (float16 for ``target_precision_ops``, float32 for ``fp32_ops`` and the
    matching ``conditional_fp32_ops``, the widest dtype for multi-input operators), and the
    NDArray loss heads scale their gradients by the loss scale. Call it once, before the
    model is built."""
    from ... import ndarray as nd, symbol as sym
    if _STATE['initialized']:
        return
    dtype = _check_target(target_dtype)
    _STATE['initialized'] = True
    _LOG.info('Using AMP')
    fp16 = list_lp16_ops(dtype) if target_precision_ops is None else target_precision_ops
    fp32 = list_fp32_ops(dtype) if fp32_ops is None else fp32_ops
    conditional = list_conditional_fp32_ops(dtype) if conditional_fp32_ops is None \
        else conditional_fp32_ops
    for module, array_type in ((sym, sym.Symbol), (nd, nd.NDArray)):
        _wrap_module(module, array_type, dtype, fp16, fp32, conditional)
    scaler = LossScaler()
    _STATE['scaler'] = scaler
    for name in lists.LOSS_OUTPUT_FUNCTIONS:
        setattr(nd, name, _scaling(getattr(nd, name), scaler))


# ---- dynamic loss scaling for gluon ------------------------------------------------------
def init_trainer(optimizer_or_trainer):
    """Give a gluon Trainer dynamic loss scaling (call :func:`init` first)."""
    from ...gluon import Trainer
    from ...optimizer import Optimizer
    if not _STATE['initialized']:
        raise MXNetError('AMP not initialized, did you forget to call amp.init()?')
    if isinstance(optimizer_or_trainer, Trainer):
        if not _STATE['scaler_used']:
            _STATE['scaler_used'] = True
            scaler = _STATE['scaler']
        else:
            scaler = LossScaler()
        optimizer_or_trainer._amp_loss_scaler = scaler
        optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale
    elif isinstance(optimizer_or_trainer, Optimizer):
        raise TypeError('AMP is currently only compatible with Gluon Trainer')
    else:
        raise TypeError('optimizer_or_trainer should be a Gluon Trainer or an optimizer, '
                        'instead is %s' % type(optimizer_or_trainer))


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """``with amp.scale_loss(loss, trainer) as scaled: autograd.backward(scaled)``: the
    loss times the loss scale; the Trainer divides the gradients by it again."""
    scaler = getattr(optimizer_or_trainer, '_amp_loss_scaler', None)
    if scaler is None:
        raise MXNetError('Loss scaler is not initialized, did you forget to call '
                         'amp.init_trainer()?')
    optimizer_or_trainer._scale = (optimizer_or_trainer._amp_original_scale
                                   / scaler.loss_scale)
    if isinstance(loss, (list, tuple)):
        yield [item * scaler.loss_scale for item in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer):
    """Divide the gradients by the loss scale now (e.g. before clipping them)."""
    from ...gluon import Trainer
    if not isinstance(optimizer_or_trainer, Trainer):
        raise TypeError('AMP is currently only compatible with Gluon Trainer')
    for param in optimizer_or_trainer._params:
        if param.grad_req != 'null' and param._grad is not None:
            for grad in param.list_grad():
                grad[:] *= optimizer_or_trainer._scale
    optimizer_or_trainer._scale = 1.


# ---- converting graphs ----------------------------------------------------------------
def convert_symbol(sym, target_dtype='float16', target_dtype_ops=None, fp32_ops=None,
                   conditional_fp32_ops=None, excluded_sym_names=None, data_names=None,
                   cast_optional_params=False):
    """A copy of the float32 graph ``sym`` with cast nodes inserted: ``amp_cast`` to
    float16 before the inputs of ``target_dtype_ops``, to float32 before those of
    ``fp32_ops`` (and matching ``conditional_fp32_ops``), ``amp_multicast`` before the
    widest-type operators. Nodes named in ``excluded_sym_names`` run in float32. With
    ``cast_optional_params`` parameters whose every consumer casts them to float16 are
    declared float16 (``__dtype__``) and not cast.
    """
    from .convert import reduce_precision
    dtype = _check_target(target_dtype)
    fp16 = list_lp16_ops(dtype) if target_dtype_ops is None else list(target_dtype_ops)
    fp32 = list_fp32_ops(dtype) if fp32_ops is None else list(fp32_ops)
    conditional = list_conditional_fp32_ops(dtype) if conditional_fp32_ops is None \
        else list(conditional_fp32_ops)
    for first, second, what in ((fp16, fp32, 'target_dtype_ops and fp32_ops'),
                                (fp16, [c[0] for c in conditional],
                                 'target_dtype_ops and conditional_fp32_ops'),
                                (fp32, [c[0] for c in conditional],
                                 'fp32_ops and conditional_fp32_ops')):
        common = set(first) & set(second)
        if common:
            raise MXNetError('Ops cannot be in two or more lists. Common ops in %s: %s'
                             % (what, sorted(common)))
    if data_names is None:      # as MXNet: inputs without a declared dtype are data
        attrs = sym.attr_dict()
        data_names = [n for n in sym.list_inputs() if '__dtype__' not in attrs.get(n, {})]
    return reduce_precision(sym, dtype, fp16, fp32, conditional, list_widest_type_cast(dtype),
                            excluded_sym_names or [], data_names, cast_optional_params)


def convert_model(sym, arg_params, aux_params, target_dtype='float16', target_dtype_ops=None,
                  fp32_ops=None, conditional_fp32_ops=None, excluded_sym_names=None,
                  cast_optional_params=False):
    """:func:`convert_symbol` for a Module checkpoint; returns (symbol, arg_params,
    aux_params), the parameters declared float16 by the conversion cast to float16."""
    data_names = [n for n in sym.list_inputs() if n not in arg_params and n not in aux_params]
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops,
                               conditional_fp32_ops, excluded_sym_names, data_names,
                               cast_optional_params)
    attrs = converted.attr_dict()
    fp16_flag = '2'     # MXNet's type flag of float16

    def cast(params):
        return {k: v.astype('float16') if attrs.get(k, {}).get('__dtype__') == fp16_flag
                else v for k, v in params.items()}
    return converted, cast(arg_params), cast(aux_params)


def convert_hybrid_block(block, target_dtype='float16', target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=None,
                         cast_optional_params=False):
    """A SymbolBlock running the converted graph of a hybridized ``block`` (which must have
    run once), holding its parameters (float16 where the conversion says so)."""
    from ...gluon import SymbolBlock
    from ... import context as context_mod
    if not block._cached_graph:
        raise RuntimeError('Please first call block.hybridize() and then run forward with '
                           'this block at least once before calling convert_hybrid_block.')
    inputs, sym = block._cached_graph
    params = {p.name: p.data(p.list_ctx()[0]) for p in block.collect_params().values()}
    aux_names = set(sym.list_auxiliary_states())
    converted, arg_params, aux_params = convert_model(
        sym, {k: v for k, v in params.items() if k not in aux_names},
        {k: v for k, v in params.items() if k in aux_names}, target_dtype, target_dtype_ops,
        fp32_ops, conditional_fp32_ops, excluded_sym_names, cast_optional_params)
    net = SymbolBlock(converted, list(inputs) if isinstance(inputs, (list, tuple)) else [inputs])
    values = dict(arg_params)
    values.update(aux_params)
    for name, param in net.collect_params().items():
        if name in values:
            param.dtype = values[name].dtype
    net.collect_params().load_dict(values, ctx=ctx or context_mod.current_context(),
                                   ignore_extra=True)
    return net


def convert_bucketing_module(bucketing_mod, target_dtype='float16', target_dtype_ops=None,
                             fp32_ops=None, conditional_fp32_ops=None,
                             excluded_sym_names=None, cast_optional_params=False):
    """A BucketingModule, bound like ``bucketing_mod`` (which must be bound and
    initialized), whose buckets run the converted graphs with the converted parameters."""
    from ...module import BucketingModule
    if not bucketing_mod.params_initialized:
        raise MXNetError('bucketing_mod params should be initialized for mixed precision '
                         'conversion')
    arg_params, aux_params = bucketing_mod.get_params()
    generator = bucketing_mod._sym_gen
    options = dict(target_dtype=target_dtype, target_dtype_ops=target_dtype_ops,
                   fp32_ops=fp32_ops, conditional_fp32_ops=conditional_fp32_ops,
                   excluded_sym_names=excluded_sym_names,
                   cast_optional_params=cast_optional_params)

    def sym_gen(bucket_key):
        sym, data_names, label_names = generator(bucket_key)
        converted = convert_symbol(sym, data_names=list(data_names) + list(label_names or []),
                                   **options)
        return converted, data_names, label_names

    _, arg_params, aux_params = convert_model(
        generator(bucketing_mod._default_bucket_key)[0], arg_params, aux_params, **options)
    result = BucketingModule(sym_gen, bucketing_mod._default_bucket_key,
                             context=bucketing_mod._context,
                             work_load_list=bucketing_mod._work_load_list)
    result.bind(bucketing_mod.data_shapes, bucketing_mod.label_shapes,
                for_training=bucketing_mod.for_training)
    result.set_params(arg_params, aux_params)
    return result
