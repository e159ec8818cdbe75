"""``Custom``: operators written in Python by the user (``mx.operator``).

The user registers a :class:`symmod.operator.CustomOpProp` subclass under a name
(``@mx.operator.register('softmax')``) and applies it with
``mx.sym.Custom(data, op_type='softmax', **kwargs)`` or ``mx.nd.Custom(...)``. As in
MXNet, every keyword besides ``op_type`` is kept in the node's attributes (and the
symbol JSON) as a string and handed to the prop's constructor as a string. The prop
decides the argument / output / auxiliary-state names, shape and dtype inference and
which arrays backward needs; its ``create_operator`` makes the :class:`CustomOp` that
computes, once per executor node at bind time (once per call imperatively).
"""
import logging
import traceback

import numpy as np

from .._suggest import did_you_mean
from ..base import MXNetError, attr_str
from .. import profiler as _profiler
from .registry import Operator, Param, register

_LOGGER = logging.getLogger(__name__)

__all__ = ['Custom', 'register_prop', 'find_prop']

_PROPS = {}             # op_type -> CustomOpProp subclass
# keys that stay node attributes even when given as plain keywords (lr_mult -> __lr_mult__)
_ATTR_KEYS = ('ctx_group', 'lr_mult', 'wd_mult', 'force_mirroring', 'mirror_stage')
_STYPE_DEFAULT = 'default'
_STYPES = ('default', 'csr', 'row_sparse')


def register_prop(op_type, prop_cls):
    """Make ``prop_cls`` the prop of custom operator ``op_type`` (a later one overrides)."""
    if op_type in _PROPS:
        _LOGGER.warning('New registration is overriding existing custom operator %s', op_type)
    _PROPS[op_type] = prop_cls


def find_prop(op_type):
    """The prop class registered as ``op_type``; MXNetError naming the known ones if none."""
    try:
        return _PROPS[op_type]
    except KeyError:
        raise MXNetError('Cannot find custom operator %s.%s Registered custom operators: %s '
                         '(register one with @mx.operator.register(%r))'
                         % (op_type, did_you_mean(op_type, _PROPS),
                            ', '.join(sorted(_PROPS)) or '(none)', op_type)) from None


def _user_error(op_type, what, err):
    """An MXNetError for an exception raised by the user's prop or op, with its traceback."""
    return MXNetError('Error in %s.%s: %s: %s\n%s' % (op_type, what, type(err).__name__, err,
                                                      traceback.format_exc().rstrip()))


def _shape_out(shape):
    """A shape the prop returned, as the engine's tuple (None when unknown: [] or None)."""
    if shape is None:
        return None
    shape = tuple(int(d) for d in shape)
    return shape if shape else None


def _type_out(dtype):
    return None if dtype is None else np.dtype(dtype)


def _split(result, what, counts, op_type):
    """Unpack a prop's ``(in, out[, aux])`` answer and check the list lengths as MXNet."""
    try:
        parts = list(result)
    except TypeError:
        raise MXNetError('%s.%s must return 2 or 3 lists, found %r'
                         % (op_type, what, result)) from None
    if len(parts) == 2:
        parts.append([])
    if len(parts) != 3:
        raise MXNetError('%s.%s must return 2 or 3 lists, found %d' % (op_type, what,
                                                                       len(parts)))
    label = 'InferShape' if what == 'infer_shape' else 'InferType'
    noun = 'shapes' if what == 'infer_shape' else 'types'
    ins, outs, auxs = (list(p) for p in parts)
    for values, count, kind in ((outs, counts[1], 'output'), (ins, counts[0], 'input'),
                                (auxs, counts[2], 'aux state')):
        if len(values) != count:
            raise MXNetError('%s Error: expecting %d entries in returned %s %s, got %d.'
                             % (label, count, kind, noun, len(values)))
    return ins, outs, auxs


@register
class Custom(Operator):
    """Apply a custom operator implemented in Python (see ``mx.operator``).

    The operator registered with ``@mx.operator.register(op_type)`` defines the inputs,
    outputs, auxiliary states, shape / type inference, forward and backward. Every other
    keyword is passed, as a string, to the registered CustomOpProp's constructor.
    """
    name = 'Custom'
    aliases = ('_npi_Custom',)
    params = (Param('op_type', str, doc='Name the custom operator was registered with.'),)
    stateful = True

    def __init__(self, attrs=None):
        attrs = dict(attrs or {})
        # every keyword but op_type goes to the user's prop, as the string MXNet stores
        self.kwargs = {k: attr_str(v) for k, v in attrs.items()
                       if k != 'op_type' and self.takes_param(k)}
        self._op = None
        self._ctx = None
        self._scratch = {}
        super().__init__(attrs)

    @classmethod
    def takes_param(cls, key):
        return not key.startswith('__') and key not in _ATTR_KEYS

    def check_params(self):
        prop_cls = find_prop(self.op_type)
        try:
            self.prop = prop_cls(**self.kwargs)
        except Exception as err:  # the user's constructor: report it with its traceback
            raise _user_error(self.op_type, '__init__ (with %s)' % (self.kwargs,), err) \
                from None
        prop = self.prop
        self._arguments = list(prop.list_arguments())
        self._outputs = list(prop.list_outputs())
        self._aux = list(prop.list_auxiliary_states())
        n_out, n_arg = len(self._outputs), len(self._arguments)
        out_grad = list(range(n_out))
        in_data = list(range(n_out, n_out + n_arg))
        out_data = list(range(n_out + n_arg, 2 * n_out + n_arg))
        deps = set(int(d) for d in prop.declare_backward_dependency(out_grad, in_data,
                                                                     out_data))
        # what backward reads decides what the planner keeps alive; without any output
        # gradient the operator is a loss head (no head gradient needed)
        self.is_loss = not deps.intersection(out_grad)
        self.backward_uses_inputs = bool(deps.intersection(in_data))
        self.backward_uses_outputs = bool(deps.intersection(out_data))

    def param_dict(self):
        params = dict(self.kwargs)
        params['op_type'] = self.op_type
        return params

    def __repr__(self):
        return 'Custom(op_type=%s%s)' % (self.op_type, ''.join(
            ', %s=%s' % kv for kv in sorted(self.kwargs.items())))

    # ---- names ---------------------------------------------------------------------
    def list_arguments(self):
        return list(self._arguments)

    def list_outputs(self):
        return list(self._outputs)

    def list_auxiliary_states(self):
        return list(self._aux)

    # ---- inference -----------------------------------------------------------------
    def _counts(self):
        return len(self._arguments), len(self._outputs), len(self._aux)

    def _ask_prop(self, what, given, nothing_known, convert):
        """Call the prop's infer_shape / infer_type with MXNet's arguments and check its
        answer. When no input is known yet, a prop that fails (the tutorial's softmax
        reads ``in_shape[0][0]``) just has nothing to say: the engine asks again later."""
        try:
            result = getattr(self.prop, what)(given)
        except Exception as err:  # the user's code
            if nothing_known:
                return None
            raise _user_error(self.op_type, what, err) from None
        ins, outs, auxs = _split(result, what, self._counts(), self.op_type)
        return ([convert(v) for v in ins], [convert(v) for v in outs],
                [convert(v) for v in auxs])

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        given = [[] if s is None else [int(d) for d in s] for s in in_shapes]
        nothing_known = bool(in_shapes) and all(s is None for s in in_shapes)
        answer = self._ask_prop('infer_shape', given, nothing_known, _shape_out)
        if answer is None:
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        return answer

    def infer_type(self, in_types, out_types, aux_types):
        given = [None if t is None else np.dtype(t).type for t in in_types]
        nothing_known = bool(in_types) and all(t is None for t in in_types)
        answer = self._ask_prop('infer_type', given, nothing_known, _type_out)
        if answer is None:
            return list(in_types), list(out_types), list(aux_types)
        return answer

    def forward_stypes(self, in_stypes):
        """Output storage types from the prop's ``infer_storage_type`` for the argument
        storage types ``in_stypes`` (checked: one valid type per output)."""
        n_arg, n_out, n_aux = self._counts()
        try:
            answer = self.prop.infer_storage_type(list(in_stypes[:n_arg]))
        except MXNetError:
            raise
        except Exception as err:  # the user's code
            raise _user_error(self.op_type, 'infer_storage_type', err) from None
        outs = list(answer[1]) if isinstance(answer, (tuple, list)) and len(answer) >= 2 \
            else None
        if outs is None or len(outs) != n_out or any(s not in _STYPES for s in outs):
            raise MXNetError('custom operator %s: infer_storage_type must return (in_stype, '
                             'out_stype[, aux_stype]) with %d output storage types among %s, '
                             'found %r' % (self.op_type, n_out, ', '.join(_STYPES), answer))
        return outs

    # ---- compute -------------------------------------------------------------------
    def create_state(self, ctx, in_shapes, in_dtypes):
        from ..context import cpu
        from ..formats.dtypes import dtype_to_flag
        self._ctx = ctx if ctx is not None else cpu()
        # the arrays handed to the user are host (numpy) storage, so they live on the cpu
        self._array_ctx = self._ctx if self._ctx.device_type == 'cpu' else cpu()
        self._scratch = {}
        shapes = [[int(d) for d in s] for s in in_shapes]
        dtypes = [dtype_to_flag(d) for d in in_dtypes]
        try:
            self._op = self.prop.create_operator(self._ctx, shapes, dtypes)
        except Exception as err:  # the user's code
            raise _user_error(self.op_type, 'create_operator', err) from None
        if self._op is None:
            raise MXNetError('%s.create_operator returned None; it must return a CustomOp'
                             % self.op_type)

    def _ensure_state(self, in_data, aux):
        if self._op is None:     # run without a bind (direct calls): make it from the arrays
            arrays = list(in_data) + list(aux)
            self.create_state(None, [a.shape for a in arrays], [a.dtype for a in arrays])

    def _wrap(self, arrays):
        """NDArrays for the user's code: host buffers wrapped; NDArrays (a sparse step's
        csr / row_sparse arrays, which the user's code sees as they are) passed on."""
        from ..ndarray.ndarray import NDArray
        return [a if isinstance(a, NDArray) else NDArray(a, self._array_ctx) for a in arrays]

    def _run(self, training, method, **arrays):
        """Call the user's forward / backward like MXNet: not recorded, in the op's context,
        training mode as requested."""
        from ..autograd.state import set_recording, set_training
        prev_rec, prev_train = set_recording(False), set_training(training)
        label = self.op_type if method == 'forward' else '_backward_' + self.op_type
        try:
            with self._ctx, _profiler.custom_operator(label):
                getattr(self._op, method)(**arrays)
        except MXNetError:
            raise
        except Exception as err:  # the user's code: MXNet reports it as an MXNetError
            raise MXNetError('Error in CustomOp.%s (custom operator %s): %s: %s\n%s'
                             % (method, self.op_type, type(err).__name__, err,
                                traceback.format_exc().rstrip())) from err
        finally:
            set_recording(prev_rec)
            set_training(prev_train)

    def forward(self, is_train, req, in_data, out_data, aux):
        self._ensure_state(in_data, aux)
        self._run(is_train, 'forward', is_train=is_train, req=list(req),
                  in_data=self._wrap(in_data), out_data=self._wrap(out_data),
                  aux=self._wrap(aux))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self._ensure_state(in_data, aux)
        in_grad = [g if g is not None else self._scratch_grad(i, in_data[i])
                   for i, g in enumerate(in_grad)]
        self._run(True, 'backward', req=list(req), out_grad=self._wrap(out_grad),
                  in_data=self._wrap(in_data), out_data=self._wrap(out_data),
                  in_grad=self._wrap(in_grad), aux=self._wrap(aux))

    def _scratch_grad(self, index, like):
        """A throw-away gradient buffer for an input whose request is 'null' (user code
        may write to it unconditionally; MXNet hands it an unused array too)."""
        buf = self._scratch.get(index)
        if buf is None or buf.shape != like.shape or buf.dtype != like.dtype:
            buf = self._scratch[index] = np.zeros(like.shape, like.dtype)
        return buf

