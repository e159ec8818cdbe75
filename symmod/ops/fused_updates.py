"""MXNet's fused optimizer updates as operators, so that ``mx.sym.sgd_update`` and the
others exist in symbolic graphs.

The arithmetic is the ``mx.nd`` functions' (``optimizer/fused_ops.py``, the kernels the
optimizers run); each operator declares its inputs and parameters from the function:
inputs from the table below, parameters from the function's signature. The output is the
updated weight (the weight input itself is not changed); optimizer states (``mom``,
``mean``, ...) are updated in place, as in MXNet. For the single-weight updates the states
are auxiliary states, as MXNet lists its mutated inputs; the multi-weight updates take
their interleaved arrays as arguments and update the states among them in place. The
updates are not differentiable.
"""
import inspect

import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int, parse_tuple
from .common import int_shape, store_from
from .registry import REQUIRED, Operator, Param, register

__all__ = ['UPDATES']

# name -> (arguments, states updated in place (auxiliary), or a multi-weight layout:
#          ('multi', arrays per weight, extra trailing arrays))
UPDATES = {
    'sgd_update': (('weight', 'grad'), ()),
    'sgd_mom_update': (('weight', 'grad'), ('mom',)),
    'mp_sgd_update': (('weight', 'grad'), ('weight32',)),
    'mp_sgd_mom_update': (('weight', 'grad'), ('mom', 'weight32')),
    'nag_mom_update': (('weight', 'grad'), ('mom',)),
    'mp_nag_mom_update': (('weight', 'grad'), ('mom', 'weight32')),
    'adam_update': (('weight', 'grad'), ('mean', 'var')),
    'rmsprop_update': (('weight', 'grad'), ('n',)),
    'rmspropalex_update': (('weight', 'grad'), ('n', 'g', 'delta')),
    'ftrl_update': (('weight', 'grad'), ('z', 'n')),
    'ftml_update': (('weight', 'grad'), ('d', 'v', 'z')),
    'signsgd_update': (('weight', 'grad'), ()),
    'signum_update': (('weight', 'grad'), ('mom',)),
    'lamb_update_phase1': (('weight', 'grad'), ('mean', 'var')),
    'lamb_update_phase2': (('weight', 'g', 'r1', 'r2'), ()),
    'mp_lamb_update_phase1': (('weight', 'grad'), ('mean', 'var', 'weight32')),
    'mp_lamb_update_phase2': (('weight', 'g', 'r1', 'r2', 'weight32'), ()),
    'multi_sgd_update': ('multi', 2, 0),
    'multi_sgd_mom_update': ('multi', 3, 0),
    'multi_mp_sgd_update': ('multi', 3, 0),
    'multi_mp_sgd_mom_update': ('multi', 4, 0),
    'preloaded_multi_sgd_update': ('multi', 2, 2),
    'preloaded_multi_sgd_mom_update': ('multi', 3, 2),
    'preloaded_multi_mp_sgd_update': ('multi', 3, 2),
    'preloaded_multi_mp_sgd_mom_update': ('multi', 4, 2),
}
# the phase-1 LAMB direction is float32 for mixed precision; everything else keeps the
# weight's dtype
_FLOAT32_OUTPUT = {'mp_lamb_update_phase1'}


def _function(name):
    from ..optimizer import fused_ops
    return getattr(fused_ops, name)


def _parser(default):
    if isinstance(default, bool):
        return parse_bool
    if isinstance(default, tuple):
        return lambda v: parse_tuple(v, item=float)
    return parse_float


def _params(name, skip):
    """Param declarations from the function's keyword parameters (``lr`` without a
    default is required)."""
    params = []
    for p in inspect.signature(_function(name)).parameters.values():
        if p.name in skip or p.name in ('out', 'name') or p.kind is p.VAR_POSITIONAL:
            continue
        if p.name == 'num_weights':
            params.append(Param('num_weights', parse_int, 1, 'Number of weights updated.'))
            continue
        default = REQUIRED if p.default is p.empty else p.default
        params.append(Param(p.name, _parser(p.default if default is not REQUIRED else 0.0),
                            default))
    return tuple(params)


def _wrap(array):
    from ..context import cpu
    from ..ndarray.ndarray import NDArray
    return NDArray(array, cpu())


class _Update(Operator):
    """Base of the update operators (see the module docstring)."""
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _values(self):
        return {p.name: getattr(self, p.name) for p in self.params}

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0]
        if self.name in _FLOAT32_OUTPUT:
            dtype = np.dtype(np.float32)
        return list(in_types), [dtype] * len(out_types), list(aux_types)


class _SingleUpdate(_Update):
    arguments = ()
    states = ()

    def list_arguments(self):
        return list(self.arguments)

    def list_auxiliary_states(self):
        return list(self.states)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        weight = int_shape(in_shapes[0]) or int_shape(out_shapes[0])
        if weight is None:
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        ins = [weight if name in ('weight', 'grad', 'g', 'weight32') else s
               for name, s in zip(self.arguments, in_shapes)]
        if 'r1' in self.arguments:          # lamb phase 2: the norms are 1-element arrays
            ins = [s if name not in ('r1', 'r2') else (s or (1,))
                   for name, s in zip(self.arguments, ins)]
        return ins, [weight], [weight] * len(aux_shapes)

    def forward(self, is_train, req, in_data, out_data, aux):
        arrays = [_wrap(a) for a in list(in_data) + list(aux)]
        result = _function(self.name)(*arrays, **self._values())
        store_from(out_data[0], req[0], result.asnumpy())


class _MultiUpdate(_Update):
    per_weight = 2
    trailing = 0
    key_var_num_args = None

    def check_params(self):
        if self.num_weights < 1:
            raise MXNetError('%s: num_weights must be at least 1, found %d'
                             % (self.name, self.num_weights))

    def list_arguments(self):
        names = ['weight', 'grad', 'mom', 'weight32'][:self.per_weight]
        if self.per_weight == 3 and 'mp' in self.name and 'mom' not in self.name:
            names = ['weight', 'grad', 'weight32']
        args = ['%s_%d' % (n, i) for i in range(self.num_weights) for n in names]
        return args + ['lrs', 'wds'][:self.trailing]

    def list_outputs(self):
        return ['output%d' % i for i in range(self.num_weights)]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ins = list(in_shapes)
        outs = list(out_shapes)
        for i in range(self.num_weights):
            first = i * self.per_weight
            shape = next((int_shape(s) for s in ins[first:first + self.per_weight] + [outs[i]]
                          if s is not None), None)
            if shape is not None:
                ins[first:first + self.per_weight] = [shape] * self.per_weight
                outs[i] = shape
        for j in range(self.trailing):
            ins[len(ins) - self.trailing + j] = (self.num_weights,)
        return ins, outs, []

    def forward(self, is_train, req, in_data, out_data, aux):
        arrays = [_wrap(a) for a in in_data]
        results = _function(self.name)(*arrays, **self._values())
        for out, r, result in zip(out_data, req, results):
            store_from(out, r, result.asnumpy())


def _register(name, layout):
    doc = (_function(name).__doc__ or name).strip()
    if layout[0] == 'multi':
        _, per_weight, trailing = layout
        params = _params(name, ())
        register(type(name, (_MultiUpdate,), {
            'name': name, 'per_weight': per_weight, 'trailing': trailing,
            'key_var_num_args': None, 'params': params, '__doc__': doc}))
        return
    arguments, states = layout
    params = _params(name, set(arguments) | set(states))
    register(type(name, (_SingleUpdate,), {
        'name': name, 'arguments': arguments, 'states': states, 'params': params,
        '__doc__': doc}))


for _name, _layout in UPDATES.items():
    _register(_name, _layout)


@register
class multi_sum_sq(Operator):
    """Sums of squares of ``num_arrays`` arrays, as one (num_arrays,) float32 array."""
    name = 'multi_sum_sq'
    key_var_num_args = 'num_arrays'
    params = (Param('num_arrays', parse_int, doc='Number of arrays.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['array_%d' % i for i in range(self.num_arrays)]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        return list(in_shapes), [(self.num_arrays,)], []

    def infer_type(self, in_types, out_types, aux_types):
        return list(in_types), [np.dtype(np.float32)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        result = _function('multi_sum_sq')(*[_wrap(a) for a in in_data],
                                           num_arrays=self.num_arrays)
        store_from(out_data[0], req[0], result.asnumpy())


@register
class multi_lars(Operator):
    """LARS learning rates ``lr * eta * |w| / (|g| * rescale_grad + wd * |w| + eps)`` from
    the squared norms of weights and gradients."""
    name = 'multi_lars'
    params = (Param('eta', parse_float, doc='LARS coefficient.'),
              Param('eps', parse_float, doc='Added to the denominator.'),
              Param('rescale_grad', parse_float, 1.0, 'Gradient rescaling.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['lrs', 'weights_sum_sq', 'grads_sum_sq', 'wds']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = next((int_shape(s) for s in list(in_shapes) + list(out_shapes)
                      if s is not None), None)
        return [shape] * 4, [shape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        result = _function('multi_lars')(*[_wrap(a) for a in in_data], eta=self.eta,
                                         eps=self.eps, rescale_grad=self.rescale_grad)
        store_from(out_data[0], req[0], result.asnumpy())
