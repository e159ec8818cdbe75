"""MXNet's deprecated Python operators: ``mx.operator.PythonOp``, ``NumpyOp`` and
``NDArrayOp``, kept for old scripts.

``get_symbol`` registers the instance as a custom operator of its own and returns a
``Custom`` node, so it runs through the same machinery as :class:`CustomOp`: NumpyOp's
``forward(in_data, out_data)`` and ``backward(out_grad, in_data, out_data, in_grad)`` get
numpy arrays to fill in place, NDArrayOp's get NDArrays. ``need_top_grad() == False``
makes a loss layer (no head gradient).
"""
import itertools
import warnings

import numpy as np

from .operator import CustomOp, CustomOpProp, register

__all__ = ['PythonOp', 'NumpyOp', 'NDArrayOp']

_IDS = itertools.count()


class PythonOp:
    """Base of the Python operators: override ``forward``/``backward`` and, when the shapes
    or names differ from one input to one output of its shape, ``infer_shape``,
    ``list_arguments`` and ``list_outputs``."""

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn('PythonOp has been deprecated. Please use CustomOp')

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        """The operator applied to Symbols ``args`` (one node)."""
        from . import symbol
        op_type = '_python_op_%d' % next(_IDS)
        register(op_type)(_prop_class(self))
        return symbol.Custom(*args, op_type=op_type, **kwargs)

    def forward(self, in_data, out_data):
        """Fill ``out_data`` from ``in_data`` (identity by default)."""
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        """Fill ``in_grad`` (ones by default)."""
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        """(input shapes, output shapes); the default output takes the first input's."""
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ['output']

    def list_arguments(self):
        return ['data']

    def need_top_grad(self):
        """Whether backward needs the output gradient (False for loss layers)."""
        return self.need_top_grad_


class NumpyOp(PythonOp):
    """A Python operator computing on numpy arrays."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn('NumpyOp has been deprecated. Please use CustomOp')


class NDArrayOp(PythonOp):
    """A Python operator computing on NDArrays."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn('NDArrayOp has been deprecated. Please use CustomOp')

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """Ids of the blobs backward reads: the output gradients (when needed), the inputs
        and the outputs."""
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)


def _prop_class(py_op):
    class _Op(CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            if isinstance(py_op, NumpyOp):
                outs = [np.zeros(o.shape, o.dtype) for o in out_data]
                py_op.forward([a.asnumpy() for a in in_data], outs)
            else:
                outs = [o.copy() for o in out_data]
                py_op.forward(list(in_data), outs)
            for target, value, r in zip(out_data, outs, req):
                self.assign(target, r, value)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            if isinstance(py_op, NumpyOp):
                grads = [np.zeros(g.shape, g.dtype) for g in in_grad]
                py_op.backward([g.asnumpy() for g in out_grad],
                               [a.asnumpy() for a in in_data],
                               [o.asnumpy() for o in out_data], grads)
            else:
                grads = [g.copy() for g in in_grad]
                py_op.backward(list(out_grad), list(in_data), list(out_data), grads)
            for target, value, r in zip(in_grad, grads, req):
                self.assign(target, r, value)

    class _Prop(CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=py_op.need_top_grad())

        def list_arguments(self):
            return py_op.list_arguments()

        def list_outputs(self):
            return py_op.list_outputs()

        def infer_shape(self, in_shape):
            in_shape, out_shape = py_op.infer_shape(in_shape)
            return in_shape, out_shape, []

        def declare_backward_dependency(self, out_grad, in_data, out_data):
            if isinstance(py_op, NDArrayOp):
                return py_op.declare_backward_dependency(out_grad, in_data, out_data)
            return super().declare_backward_dependency(out_grad, in_data, out_data)

        def create_operator(self, ctx, shapes, dtypes):
            return _Op()

    return _Prop
