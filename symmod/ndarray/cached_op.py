"""``mx.nd.CachedOp``: a Symbol prepared once and called like a function on NDArrays.

The schedule is made when the CachedOp is created (see ``gluon.graph_runner``); each call
runs the graph operator by operator, so calls made while ``autograd.record()`` is on are
differentiated like any other NDArray computation.
"""
from ..base import MXNetError
from .ndarray import NDArray

__all__ = ['CachedOp']


class CachedOp:
    """A callable running ``sym`` on NDArray inputs given in ``sym.list_inputs()`` order.

    Parameters
    ----------
    sym : Symbol
    flags : sequence of (str, value), optional
        MXNet's CachedOp options (``static_alloc``, ``static_shape``, ...); they tune
        memory reuse in MXNet and do not change results, so symmod accepts and ignores
        them.

    Examples
    --------
    >>> op = mx.nd.CachedOp(mx.sym.var('x') * 2)
    >>> op(mx.nd.ones((2,))).asnumpy()
    array([2., 2.], dtype=float32)
    """

    def __init__(self, sym, flags=()):
        from ..gluon.graph_runner import GraphRunner
        self._runner = GraphRunner(sym)
        self.flags = tuple(flags)
        self._num_outputs = len(sym.list_outputs())

    def __call__(self, *args, out=None, **kwargs):
        if kwargs:
            raise TypeError('CachedOp.__call__ got unexpected keyword argument(s): %s'
                            % ', '.join(sorted(kwargs)))
        names = self._runner.input_names
        if len(args) != len(names):
            raise MXNetError('CachedOp expects %d inputs (%s), found %d'
                             % (len(names), ', '.join(names), len(args)))
        for name, arg in zip(names, args):
            if not isinstance(arg, NDArray):
                raise TypeError('CachedOp input %s must be an NDArray, found %s'
                                % (name, type(arg).__name__))
        results = list(self._runner(*args))
        if out is not None:
            targets = out if isinstance(out, (list, tuple)) else [out]
            if len(targets) != len(results):
                raise MXNetError('CachedOp: out has %d arrays, the graph has %d outputs'
                                 % (len(targets), len(results)))
            for target, result in zip(targets, results):
                result.copyto(target)
            return out
        return results[0] if self._num_outputs == 1 else results
