"""``mx.operator``: operators written in Python (MXNet's CustomOp interface).

Write the computation as a :class:`CustomOp` and its description (names, shape and
type inference, backward dependencies, how to create the op) as a
:class:`CustomOpProp`; register the prop under a name and use it in graphs with
``mx.sym.Custom(..., op_type=name)`` or imperatively with ``mx.nd.Custom(...)``.

Examples
--------
>>> class Sigmoid(mx.operator.CustomOp):
...     def forward(self, is_train, req, in_data, out_data, aux):
...         y = 1 / (1 + mx.nd.exp(-in_data[0]))
...         self.assign(out_data[0], req[0], y)
...     def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
...         y = out_data[0]
...         self.assign(in_grad[0], req[0], out_grad[0] * y * (1 - y))
>>> @mx.operator.register('my_sigmoid')
... class SigmoidProp(mx.operator.CustomOpProp):
...     def create_operator(self, ctx, in_shapes, in_dtypes):
...         return Sigmoid()
>>> mx.nd.Custom(mx.nd.zeros((2,)), op_type='my_sigmoid').asnumpy()
array([0.5, 0.5], dtype=float32)
"""
import ctypes

import numpy as np

from .base import MXNetError, NDArrayHandle
from .ndarray.ndarray import NDArray
from .ops import registry as _op_registry
from .ops import custom as _custom
from .ops.describe import OperatorArguments, operator_arguments as _operator_arguments

# MXNet's operator module has no __all__: ``from mxnet.operator import *`` also hands out
# what it imports, and MXNet's own monitor callbacks rely on ctypes / NDArrayHandle /
# NDArray from there
__all__ = ['CustomOp', 'CustomOpProp', 'register', 'get_all_registered_operators',
           'PythonOp', 'NumpyOp', 'NDArrayOp',
           'OperatorArguments', 'get_operator_arguments', 'NDArray', 'NDArrayHandle', 'ctypes']


class CustomOp:
    """Base class of the computation of a custom operator.

    ``forward`` and ``backward`` receive NDArrays that are the executor's own
    buffers: write results into ``out_data`` / ``in_grad`` (``self.assign`` or
    ``array[:] = value``), never rebind the list entries.
    """

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Compute the outputs.

        Parameters
        ----------
        is_train : bool
            Whether this pass is for training.
        req : list of str
            How to store each output: ``'null'``, ``'write'``, ``'inplace'`` or
            ``'add'`` (see :meth:`assign`).
        in_data : list of NDArray
            The inputs, in ``list_arguments`` order.
        out_data : list of NDArray
            The outputs to fill, in ``list_outputs`` order.
        aux : list of NDArray
            The auxiliary states, updated in place.
        """

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Compute the gradients of the inputs.

        Parameters
        ----------
        req : list of str
            How to store each input gradient (see :meth:`assign`).
        out_grad : list of NDArray
            Gradients of the outputs (unused by loss operators, whose prop says
            ``need_top_grad=False``).
        in_data, out_data : list of NDArray
            The forward pass's inputs and outputs.
        in_grad : list of NDArray
            The input gradients to fill.
        aux : list of NDArray
            The auxiliary states.
        """

    def assign(self, dst, req, src):
        """Store ``src`` into ``dst`` as the write request ``req`` asks.

        Parameters
        ----------
        dst : NDArray
            Destination (an element of ``out_data`` or ``in_grad``).
        req : str
            ``'null'`` (leave ``dst`` alone), ``'write'`` / ``'inplace'`` (overwrite)
            or ``'add'`` (accumulate).
        src : NDArray, numpy.ndarray or number
            The value.
        """
        if req == 'null':
            return
        if req in ('write', 'inplace'):
            dst[:] = src
        elif req == 'add':
            value = src._host() if isinstance(src, NDArray) else src
            if isinstance(dst._data, np.ndarray):
                np.add(dst._data, value, out=dst._data, casting='unsafe')
            else:
                dst[:] = dst._host() + value
        else:
            raise MXNetError("assign: req must be 'null', 'write', 'inplace' or 'add', "
                             "found %r" % (req,))


class CustomOpProp:
    """Base class of the description of a custom operator.

    Subclass it, override what differs from the defaults (one input ``data``, one
    output ``output`` of the same shape and dtype, no auxiliary states) and decorate
    it with :func:`register`. Its constructor receives the keyword arguments given
    to ``Custom`` (other than ``op_type``) as strings.

    Parameters
    ----------
    need_top_grad : bool, default True
        Whether backward needs the gradient of the outputs; False makes the
        operator a loss (no head gradient is passed to ``backward``).
    """

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """Infer shapes from the input shapes.

        Parameters
        ----------
        in_shape : list of list of int
            Shapes of the arguments in ``list_arguments`` order (``[]`` when unknown).

        Returns
        -------
        in_shape, out_shape[, aux_shape] : lists of shapes
            Argument shapes (may fill unknown ones), output shapes in
            ``list_outputs`` order, and optionally auxiliary-state shapes. The default
            gives every output the first input's shape.
        """
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """Infer dtypes from the input dtypes.

        Parameters
        ----------
        in_type : list of numpy type
            Argument dtypes (``numpy.float32`` ...; None when unknown).

        Returns
        -------
        in_type, out_type[, aux_type] : lists of numpy types
            The default gives every output and auxiliary state the first input's dtype.
        """
        return in_type, [in_type[0]] * len(self.list_outputs()), \
            [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        """Infer storage types: by default every argument must be dense and the outputs
        and auxiliary states are dense; override it (and
        :meth:`infer_storage_type_backward`) for csr / row_sparse arrays.

        Parameters
        ----------
        in_stype : list of str
            Argument storage types.

        Returns
        -------
        in_stype, out_stype, aux_stype : lists of str
        """
        for i, stype in enumerate(in_stype):
            if stype != 'default':
                raise MXNetError("Default infer_storage_type implementation doesn't allow "
                                 "non default stypes: found non default stype '%s' for "
                                 "in_stype[%d]. Please implement infer_storage_type and "
                                 "infer_storage_type_backward interface in your custom "
                                 "operator if you have non-default input/output stypes"
                                 % (stype, i))
        return in_stype, ['default'] * len(self.list_outputs()), \
            ['default'] * len(self.list_auxiliary_states())

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        """Infer storage types of the backward pass: by default all dense
        (``'default'``).

        Returns
        -------
        ograd_stype, in_stype, out_stype, igrad_stype, aux_stype : lists of str
        """
        for what, stypes in (('ograd_stype', ograd_stype), ('igrad_stype', igrad_stype)):
            for i, stype in enumerate(stypes):
                if stype not in ('default', 'undefined'):
                    raise MXNetError("Default infer_storage_type_backward implementation "
                                     "doesn't allow non default stypes: found non default "
                                     "stype '%s' for %s[%d]. Please implement "
                                     "infer_storage_type and infer_storage_type_backward "
                                     "interface in your custom operator" % (stype, what, i))
        return tuple(['default'] * len(s) for s in
                     (ograd_stype, in_stype, out_stype, igrad_stype, aux_stype))

    def list_outputs(self):
        """Names of the outputs (default ``['output']``)."""
        return ['output']

    def list_arguments(self):
        """Names of the array arguments (default ``['data']``)."""
        return ['data']

    def list_auxiliary_states(self):
        """Names of the auxiliary states (default none)."""
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """Which arrays ``backward`` reads.

        Parameters
        ----------
        out_grad, in_data, out_data : list of int
            Ids of the output gradients, inputs and outputs.

        Returns
        -------
        list of int
            The ids backward needs; the default is all of them, without the output
            gradients when ``need_top_grad`` is False.
        """
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """Create the :class:`CustomOp` that computes.

        Called once per graph node when an executor is bound (once per call for
        ``mx.nd.Custom``).

        Parameters
        ----------
        ctx : Context
        in_shapes : list of list of int
            Shapes of the arguments and auxiliary states.
        in_dtypes : list of int
            Their dtypes as MXNet type flags (0 is float32, 1 float64, ...).
        """
        return CustomOp()


def register(reg_name):
    """Register a :class:`CustomOpProp` subclass as custom operator ``reg_name``.

    Parameters
    ----------
    reg_name : str
        The ``op_type`` to use with ``mx.sym.Custom`` / ``mx.nd.Custom``. Registering
        a name again replaces the earlier prop (with a warning, as MXNet).

    Returns
    -------
    callable
        A class decorator that returns the class unchanged.

    Examples
    --------
    >>> @mx.operator.register('identity_op')
    ... class IdentityProp(mx.operator.CustomOpProp):
    ...     pass
    """
    def do_register(prop_cls):
        _custom.register_prop(reg_name, prop_cls)
        return prop_cls
    return do_register


register('custom_op')(CustomOpProp)


def get_all_registered_operators():
    """Names of every registered operator (canonical names and aliases).

    Returns
    -------
    list of str
    """
    return _op_registry.list_operators()


def get_operator_arguments(op_name):
    """The array inputs and parameters of operator ``op_name``.

    Parameters
    ----------
    op_name : str
        A registered operator name.

    Returns
    -------
    OperatorArguments
        ``(narg, names, types)``: the input names then the parameter names, with MXNet's
        type strings (``'NDArray-or-Symbol'``, ``'int, required'``, ...).
    """
    return _operator_arguments(op_name)


from .python_op import PythonOp, NumpyOp, NDArrayOp  # noqa: E402,F401  (deprecated API)
