"""User-defined differentiable functions (``autograd.Function``)."""
import numpy as np

from ..base import MXNetError
from .state import is_recording, set_recording
from .tape import _SEQ, _entry

__all__ = ['Function']


class _FunctionNode:
    """A recorded call of a user :class:`Function`: its backward is the user's."""
    __slots__ = ('seq', 'function', 'in_entries', 'in_meta', 'out_meta', 'n_visible',
                 'cleared')

    def __init__(self, function, entries, inputs, outputs):
        self.seq = next(_SEQ)
        self.function = function
        self.in_entries = entries
        self.in_meta = [(x.shape, x.dtype, x.context) for x in inputs]
        self.out_meta = [(y.shape, y.dtype, y.context) for y in outputs]
        self.n_visible = len(outputs)
        self.cleared = False

    @property
    def out_data(self):
        return [np.zeros(shape, dtype=dtype) for shape, dtype, _ in self.out_meta]

    def run_backward(self, req, out_grad):
        from ..ndarray.ndarray import NDArray, array
        grads = [array(g, ctx=ctx, dtype=dtype)
                 for g, (_, dtype, ctx) in zip(out_grad, self.out_meta)]
        result = self.function.backward(*grads)
        if isinstance(result, NDArray):
            result = [result]
        result = list(result)
        if len(result) != len(self.in_meta):
            raise MXNetError('%s.backward must return %d gradients (one per input of '
                             'forward), found %d' % (type(self.function).__name__,
                                                     len(self.in_meta), len(result)))
        in_grad = []
        for g, (shape, dtype, _) in zip(result, self.in_meta):
            if not isinstance(g, NDArray) or tuple(g.shape) != tuple(shape):
                raise MXNetError('%s.backward must return NDArrays shaped like the inputs '
                                 '(%s), found %r' % (type(self.function).__name__, shape, g))
            in_grad.append(np.asarray(g._host(), dtype=dtype))
        return in_grad

    def clear(self):
        self.cleared = True


class Function:
    """A differentiable function with a user-written gradient.

    Subclass it and define ``forward`` (on NDArrays, not recorded) and ``backward``
    (output gradients in, one gradient per forward input out). Use each instance once.

    Examples
    --------
    >>> class Sigmoid(mx.autograd.Function):
    ...     def forward(self, x):
    ...         y = 1 / (1 + mx.nd.exp(-x))
    ...         self.save_for_backward(y)
    ...         return y
    ...     def backward(self, dy):
    ...         y, = self.saved_tensors
    ...         return dy * y * (1 - y)
    >>> x = mx.nd.zeros((3,)); x.attach_grad()
    >>> with mx.autograd.record():
    ...     m = Sigmoid()(x)
    >>> m.backward(); x.grad.asnumpy()
    array([0.25, 0.25, 0.25], dtype=float32)
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        """Keep arrays for ``backward`` in ``self.saved_tensors``."""
        self.saved_tensors = args

    def __call__(self, *inputs):
        from ..ndarray.ndarray import NDArray
        assert not self._used, \
            'Each Function instance can only be called once. Please create another instance.'
        self._used = True
        for x in inputs:
            if not isinstance(x, NDArray):
                raise TypeError('%s: inputs must be NDArrays, found %s'
                                % (type(self).__name__, type(x).__name__))
        prev = set_recording(False)
        try:
            outputs = self.forward(*inputs)
        finally:
            set_recording(prev)
        single = isinstance(outputs, NDArray)
        out_list = [outputs] if single else list(outputs)
        for out in out_list:
            if not isinstance(out, NDArray):
                raise TypeError('%s.forward must return NDArray or a list/tuple of NDArrays, '
                                'found %s' % (type(self).__name__, type(out).__name__))
        if is_recording():
            entries = [_entry(x) for x in inputs]
            if any(e is not None for e in entries):
                node = _FunctionNode(self, entries, inputs, out_list)
                for i, out in enumerate(out_list):
                    out._ag_entry = (node, i)
        return outputs

    def forward(self, *inputs):
        """Compute the outputs from NDArray inputs (override this)."""
        raise MXNetError('%s must define forward()' % type(self).__name__)

    def backward(self, *output_grads):
        """Compute the input gradients from the output gradients (override this)."""
        raise MXNetError('%s must define backward()' % type(self).__name__)
