"""The operators NDArray and Symbol offer as methods (MXNet's "fluent" methods).

``x.abs()`` is ``mx.nd.abs(x)`` (``mx.sym.abs(x)`` for a symbol): the method passes the
array itself as the operator's first input and everything else through. The list is
MXNet 1.9.1's; :func:`attach` builds the methods from the operator functions generated
from the registry, so a listed operator that is not registered fails at import, and the
methods always follow the operators' own parameters.
"""
__all__ = ['FLUENT', 'attach']

# method name -> operator name (the same unless given)
FLUENT = {name: name for name in (
    'reshape_like', 'zeros_like', 'ones_like', 'broadcast_axes', 'repeat', 'pad', 'swapaxes',
    'split', 'slice', 'slice_axis', 'slice_like', 'take', 'one_hot', 'pick', 'sort', 'topk',
    'argsort', 'argmax', 'argmax_channel', 'argmin', 'clip', 'abs', 'sign', 'flatten',
    'shape_array', 'size_array', 'expand_dims', 'tile', 'transpose', 'flip', 'depth_to_space',
    'space_to_depth', 'diag', 'sum', 'nansum', 'prod', 'nanprod', 'mean', 'max', 'min', 'norm',
    'round', 'rint', 'fix', 'floor', 'ceil', 'trunc', 'sin', 'cos', 'tan', 'arcsin', 'arccos',
    'arctan', 'degrees', 'radians', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh',
    'exp', 'expm1', 'log', 'log10', 'log2', 'log1p', 'sqrt', 'rsqrt', 'cbrt', 'rcbrt',
    'square', 'reciprocal', 'relu', 'sigmoid', 'softmax', 'log_softmax', 'softmin', 'squeeze',
    'broadcast_to', 'broadcast_like', 'reshape')}
FLUENT['astype'] = 'cast'


def _method(name, function):
    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = ('Fluent form of ``%s``: this array is its first input; other arguments '
                      'are passed through.\n\n%s' % (function.__name__, function.__doc__ or ''))
    return method


def attach(cls, functions):
    """Add the fluent methods to ``cls`` from ``functions`` (operator name -> function).

    Methods ``cls`` defines itself (``NDArray.reshape`` with MXNet's special values,
    ``NDArray.astype`` with ``copy=``) are kept.
    """
    for name, op_name in FLUENT.items():
        if name in vars(cls):
            continue
        setattr(cls, name, _method(name, functions[op_name]))
