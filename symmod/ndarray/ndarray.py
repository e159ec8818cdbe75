"""NDArray: an n-dimensional array on a device context, MXNet's imperative array.

On CPU an NDArray wraps a numpy array (``_data``) and shares its memory: slicing
the first axis and ``reshape`` give views, ``a[:] = b`` writes in place. On GPU
the storage is a numba device array. Arithmetic goes through the operator
registry (``broadcast_add``, ``_plus_scalar`` ...), so autograd can record it.
"""
import ctypes
import weakref

import numpy as np

from ..base import MXNetError, numeric_types, integer_types
from ..context import Context, current_context
from . import device
from . import pending as _pending

__all__ = ['NDArray', 'array', 'empty', 'zeros', 'ones', 'full', 'arange', 'concat',
           'concatenate', 'waitall', 'from_numpy', 'mx_real_t', 'moveaxis', 'onehot_encode']

mx_real_t = np.float32
py_slice = slice    # MXNet's name for the builtin (``NDArray.__getitem__`` shadows ``slice``)

# MXNet's enumerations, as ``mxnet.ndarray.ndarray`` exports them
_STORAGE_TYPE_STR_TO_ID = {'undefined': -1, 'default': 0, 'row_sparse': 1, 'csr': 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}
_GRAD_REQ_MAP = {'null': 0, 'write': 1, 'add': 3}
_DTYPE_NP_TO_MX = {None: -1, np.float32: 0, np.float64: 1, np.float16: 2, np.uint8: 3,
                   np.int32: 4, np.int8: 5, np.int64: 6, np.bool_: 7}
_DTYPE_MX_TO_NP = {v: k for k, v in _DTYPE_NP_TO_MX.items()}

# Filled in by .register once the operator functions exist (avoids an import cycle).
_OPS = {}


def _op(name):
    return _OPS[name]


def _as_dtype(dtype, default=mx_real_t):
    return np.dtype(default if dtype is None else dtype)


_HANDLES = weakref.WeakValueDictionary()


def _from_handle(handle, writable):
    """The storage and context of the live NDArray behind a ctypes handle."""
    source = _HANDLES.get(handle.value)
    if source is None:
        raise MXNetError('NDArray handle %s does not belong to a live symmod NDArray'
                         % handle.value)
    data = source._data
    if not writable and isinstance(data, np.ndarray):
        data = data.view()
        data.flags.writeable = False
    return data, source._ctx


class NDArray:
    """An array on a device context (numpy-backed on CPU).

    Users create NDArrays with :func:`array`, :func:`zeros`, :func:`ones` and the
    operator functions in ``mx.nd``, not with this constructor.
    """
    __slots__ = ('_data', '_ctx', '_grad', '_grad_req', '_ag_entry', '_ag_name', '__weakref__')
    __array_priority__ = 1000.0

    def __init__(self, data, ctx=None, writable=True):
        if data is None:   # unpickling path: NDArray(None) then __setstate__
            data = np.empty((0,), dtype=mx_real_t)
        elif type(data) is ctypes.c_void_p:     # pylint: disable=unidiomatic-typecheck
            data, ctx = _from_handle(data, writable)
        self._data = data
        self._ctx = current_context() if ctx is None else ctx
        self._grad = None
        self._grad_req = 'null'
        self._ag_entry = None
        self._ag_name = None      # autograd.get_symbol's variable name when not recorded

    # ---- attributes ----------------------------------------------------------
    @property
    def shape(self):
        """Tuple of array dimensions."""
        return tuple(self._data.shape)

    @property
    def size(self):
        """Number of elements."""
        return int(np.prod(self._data.shape, dtype=np.int64))

    @property
    def ndim(self):
        """Number of dimensions."""
        return len(self._data.shape)

    @property
    def dtype(self):
        """The numpy type of the elements (``numpy.float32`` etc.)."""
        return np.dtype(self._data.dtype).type

    @property
    def context(self):
        """The device context of the array."""
        return self._ctx

    ctx = context

    @property
    def stype(self):
        """Storage type: 'default' (dense); sparse arrays say 'csr' or 'row_sparse'."""
        return 'default'

    @property
    def handle(self):
        """The underlying storage (numpy array on CPU)."""
        return self._data

    @property
    def _as_parameter_(self):
        # ctypes' view of the array (ctypes.cast(arr, NDArrayHandle)); NDArray(handle)
        # resolves it back while the array lives
        _HANDLES[id(self)] = self
        return ctypes.c_void_p(id(self))

    @property
    def T(self):
        """Transpose of a 2-D array."""
        if self.ndim != 2:
            raise ValueError('Only 2D matrix is allowed to be transposed')
        return _op('transpose')(self)

    @property
    def grad(self):
        """The gradient buffer attached by :meth:`attach_grad`, or None."""
        return self._grad

    @property
    def _fresh_grad(self):
        """Whether backward wrote this variable's gradient since Trainer last consumed it."""
        from .. import autograd
        return autograd._get_fresh_grad(self)

    @_fresh_grad.setter
    def _fresh_grad(self, value):
        from .. import autograd
        autograd._set_fresh_grad(self, value)

    @property
    def writable(self):
        """Whether the array may be written."""
        return True

    def _host(self):
        """The values as a numpy array (the storage itself on CPU, a copy on GPU)."""
        if _pending.PENDING:
            _pending.check(self)        # an operator error deferred to this read
        return device.to_host(self._data)

    # ---- conversion ----------------------------------------------------------
    def asnumpy(self):
        """Return a copy of the values as a numpy array."""
        return np.array(self._host(), copy=True)

    def __array__(self, dtype=None, copy=None):
        host = self._host()
        if dtype is not None and np.dtype(dtype) != host.dtype:
            return host.astype(dtype)
        return np.array(host, copy=True) if copy else host

    def asscalar(self):
        """Return the value of a one-element array as a numpy scalar."""
        if self.shape != (1,) and self.shape != ():
            raise ValueError('The current array is not a scalar')
        return self._host().reshape(-1)[0]

    def item(self):
        """The value of a one-element array as a Python scalar."""
        return self.asscalar().item()

    def astype(self, dtype, copy=True):
        """Return the array cast to ``dtype`` (self when ``copy=False`` and nothing changes)."""
        dtype = np.dtype(dtype)
        if not copy and np.dtype(self._data.dtype) == dtype:
            return self
        if self._recorded():
            return _op('Cast')(self, dtype=dtype.name)
        return NDArray(device.to_context(self._host().astype(dtype), self._ctx), self._ctx)

    def copy(self):
        """A deep copy on the same context."""
        if self._recorded():
            return _op('_copy')(self)
        data = self._data
        # pylint: disable-next=unidiomatic-typecheck
        if type(data) is np.ndarray and not _pending.PENDING:
            return NDArray(data.copy(), self._ctx)     # dense CPU: no copyto checks
        return self.copyto(self._ctx)

    def copyto(self, other):
        """Copy the values to a context (new array) or into an existing NDArray.

        Parameters
        ----------
        other : NDArray or Context
            The destination array (same shape) or context.

        Returns
        -------
        NDArray
            The destination array.
        """
        if _pending.PENDING and _pending.peek(self) is not None:
            return _pending_copy(self, lambda: self.copyto(other))  # the copy holds it too
        if isinstance(other, NDArray):
            src, dst = self._data, other._data
            # two dense CPU arrays of one shape (a batch into the bound input): np.copyto
            # straight away (this runs per call of Module.forward)
            # pylint: disable-next=unidiomatic-typecheck
            if type(src) is np.ndarray and type(dst) is np.ndarray and src.shape == dst.shape:
                if other is not self:
                    np.copyto(dst, src, casting='unsafe')
                return other
            if other is self:
                return other
            if other.shape != self.shape:
                raise ValueError('copyto: shape mismatch, destination %s vs source %s'
                                 % (other.shape, self.shape))
            if not isinstance(other._data, np.ndarray) and other.stype != 'default':
                other[:] = self._host()     # into sparse storage: converted
                return other
            device.copy_into(other._data, self._data)
            return other
        if isinstance(other, Context):
            host = np.array(self._host(), copy=True)
            return NDArray(device.to_context(host, other), other)
        raise TypeError('copyto does not support type ' + str(type(other)))

    def as_in_context(self, context):
        """Return this array on ``context``: itself if already there, else a copy."""
        if self._ctx == context:
            return self
        return self.copyto(context)

    def tostype(self, stype):
        """A copy with storage type ``stype``: 'default', 'row_sparse' or 'csr' (2-D)."""
        from .sparse_cast import cast_storage_array
        return cast_storage_array(self, stype)

    def wait_to_read(self):
        """Block until pending writes finish (computation is synchronous here); raises
        the error of the operator that wrote the array, as MXNet does."""
        if _pending.PENDING:
            _pending.check(self)

    def detach(self):
        """A new NDArray sharing memory but cut out of the autograd graph."""
        return NDArray(self._data, self._ctx)

    def to_dlpack_for_read(self):
        """A DLPack capsule viewing this array's memory (see ``mx.nd.from_dlpack``)."""
        from .dlpack import to_dlpack_for_read
        return to_dlpack_for_read(self)

    def to_dlpack_for_write(self):
        """A DLPack capsule viewing this array's memory, for writing."""
        from .dlpack import to_dlpack_for_write
        return to_dlpack_for_write(self)

    def split_v2(self, *args, **kwargs):
        """``mx.nd.split_v2(self, ...)``: split at indices or into equal sections."""
        from .functions import split_v2
        return split_v2(self, *args, **kwargs)

    def slice_assign(self, rhs, begin, end, step):
        """Write ``rhs`` into the region ``self[begin:end:step]`` in place; returns self."""
        return _op('_slice_assign')(self, rhs, begin=begin, end=end, step=step, out=self)

    def slice_assign_scalar(self, value, begin, end, step):
        """Set the region ``self[begin:end:step]`` to ``value`` in place; returns self."""
        return _op('_slice_assign_scalar')(self, scalar=float(value), begin=begin, end=end,
                                           step=step, out=self)

    def as_np_ndarray(self):
        return self

    def as_nd_ndarray(self):
        return self

    # ---- shape manipulation --------------------------------------------------
    def reshape(self, *shape, **kwargs):
        """Return a view with a new shape (sharing memory); supports MXNet's special values
        0 and -1..-4.

        Raises ValueError when the new shape holds fewer elements than the array.

        Examples
        --------
        >>> mx.nd.zeros((2, 3, 4)).reshape((-1, 0)).shape
        (8, 3)
        """
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = tuple(shape[0])
        elif not shape:
            shape = kwargs.pop('shape', None)
            if shape is None:
                raise TypeError('reshape() needs a shape')
        reverse = kwargs.pop('reverse', False)
        if kwargs:
            raise TypeError('Got unknown keywords in reshape: %s' % ', '.join(kwargs))
        shape = tuple(int(d) for d in shape)
        if self._recorded():
            return _op('Reshape')(self, shape=shape, reverse=reverse)
        return self._view(self._reshaped(shape, reverse))

    def _reshaped(self, shape, reverse=False):
        """The shape ``reshape(shape)`` gives, by the Reshape operator's rules."""
        from ..ops.registry import ShapeError
        from .register import operator_instance
        op = operator_instance('Reshape', {'shape': shape, 'reverse': reverse})
        try:
            return tuple(op.infer_shape([self.shape], [None], [])[1][0])
        except ShapeError as err:
            if all(d > 0 for d in shape) and int(np.prod(shape)) < self.size:
                raise ValueError('Cannot reshape array of size %d into shape %s'
                                 % (self.size, shape)) from None
            raise MXNetError(str(err)) from None

    def _view(self, shape):
        """An NDArray of ``shape`` sharing this array's memory."""
        return NDArray(self._data.reshape(shape), self._ctx)

    def reshape_like(self, *args, **kwargs):
        """Reshape to the shape of another array (``reshape_like`` operator's rules)."""
        return _op('reshape_like')(self, *args, **kwargs)

    def flatten(self, inplace=False):
        """Collapse all axes but the first (a view sharing memory when ``inplace``)."""
        if inplace and not self._recorded():
            return self._view((self.shape[0] if self.ndim else 1, -1))
        return _op('Flatten')(self)

    def expand_dims(self, axis, inplace=False):
        """Insert a new axis of size 1 at ``axis`` (a view when ``inplace``)."""
        if inplace and not self._recorded():
            shape = list(self.shape)
            shape.insert(axis + self.ndim + 1 if axis < 0 else axis, 1)
            return self._view(tuple(shape))
        return _op('expand_dims')(self, axis=axis)

    def squeeze(self, axis=None, inplace=False):
        """Remove axes of size 1 (all, or those in ``axis``; a view when ``inplace``)."""
        result = _op('squeeze')(self, axis=axis)
        if inplace and not self._recorded():
            return self._view(result.shape)
        return result

    def broadcast_to(self, shape):
        """Broadcast to ``shape``."""
        return _op('broadcast_to')(self, shape=tuple(shape))

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        for i in range(self.shape[0]):
            yield self[i]

    # ---- indexing ------------------------------------------------------------
    def _recorded(self):
        """Whether operations on this array must go through the operator registry so
        autograd records them."""
        if self._ag_entry is None:
            return False
        from .. import autograd
        return autograd.is_recording()

    def _recorded_getitem(self, key):
        """Basic indexing (ints and slices) as the ``slice`` operator, for autograd."""
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > self.ndim or not all(isinstance(k, (int, np.integer, slice)) for k in key):
            # None, Ellipsis, arrays: a gather whose gradient scatters back
            from .indexing import IndexGather
            return IndexGather(key)(self)
        begin, end, step, shape = [], [], [], []
        for axis, k in enumerate(key):
            if isinstance(k, slice):
                start, stop, stride = k.indices(self.shape[axis])
                begin.append(start)
                end.append(stop if stop >= 0 else None)
                step.append(stride)
                shape.append(len(range(start, stop, stride)))
            else:
                index = int(k) + (self.shape[axis] if k < 0 else 0)
                if not 0 <= index < self.shape[axis]:
                    raise IndexError('index %d is out of bounds for axis %d with size %d'
                                     % (k, axis, self.shape[axis]))
                begin.append(index)
                end.append(index + 1)
                step.append(1)
        result = _op('slice')(self, begin=tuple(begin), end=tuple(end), step=tuple(step))
        shape += list(self.shape[len(key):])
        return result.reshape(tuple(shape) or (1,))

    def __getitem__(self, key):
        if _pending.PENDING and _pending.peek(self) is not None:
            return _pending_copy(self, lambda: self[key])      # the part holds it too
        if self._recorded():
            return self._recorded_getitem(key)
        if isinstance(key, NDArray):
            key = key._host().astype(np.int64)
        elif isinstance(key, tuple):
            key = tuple(k._host().astype(np.int64) if isinstance(k, NDArray) else k
                        for k in key)
        if isinstance(self._data, np.ndarray):
            result = np.asarray(self._data[key])
            if result.ndim == 0:    # legacy shape rules: no 0-d arrays
                result = result.reshape(1)
            return NDArray(result, self._ctx)
        result = np.asarray(self._host()[key])
        return NDArray(device.to_context(result.reshape(result.shape or (1,)), self._ctx),
                       self._ctx)

    def __setitem__(self, key, value):
        if (self._ag_entry is not None or getattr(value, '_ag_entry', None) is not None):
            from .. import autograd
            if autograd.is_recording():
                raise MXNetError('Inplace operations (+=, -=, x[:]=, etc) are not supported '
                                 'when recording with autograd.')
        if isinstance(value, NDArray):
            value = value._host()
        elif not isinstance(value, numeric_types + (np.ndarray,)):
            value = np.asarray(value)
        if isinstance(key, NDArray):
            key = key._host().astype(np.int64)
        if isinstance(value, np.ndarray) and value.size == 1 and value.ndim:
            value = value.reshape(())      # MXNet broadcasts a one-element array anywhere
        if isinstance(key, slice) and key == slice(None) and not self.shape:
            key = ()                       # x[:] = v fills a 0-d array too, as in MXNet
        if isinstance(self._data, np.ndarray):
            self._data[key] = value
        else:
            host = self._host()
            host[key] = value
            device.copy_into(self._data, host)

    @staticmethod
    def _basic_indexing_slice_is_contiguous(slc_key, shape):
        """Whether slicing an array of ``shape`` (C order) with a tuple of slices, one per
        axis, gives a C-contiguous view."""
        if len(slc_key) != len(shape):
            raise ValueError('one slice per axis expected: %d slices for shape %s'
                             % (len(slc_key), tuple(shape)))
        sizes, strides = [], []
        stride = 1
        for slc, n in reversed(list(zip(slc_key, shape))):
            start, stop, step = slc.indices(n)
            sizes.append(len(range(start, stop, step)))
            strides.append(stride * step)
            stride *= n
        if 0 in sizes:
            return True
        expected = 1
        for size, step in zip(sizes, strides):      # innermost axis first
            if size != 1 and step != expected:
                return False
            expected *= size
        return True

    def _slice(self, start, stop):
        """A view of rows ``start:stop`` along the first axis."""
        return NDArray(self._data[start:stop], self._ctx)

    def _at(self, idx):
        """A view of row ``idx`` (first axis)."""
        return NDArray(self._data[idx], self._ctx)

    # ---- arithmetic ----------------------------------------------------------
    def _binary(self, other, array_op, scalar_op, reverse=False, out=None):
        if isinstance(other, NDArray):
            lhs, rhs = (other, self) if reverse else (self, other)
            return _op(array_op)(lhs, rhs, out=out)
        if isinstance(other, numeric_types) or (isinstance(other, np.ndarray) and other.ndim == 0):
            return _op(scalar_op)(self, scalar=float(other), out=out)
        if isinstance(other, np.ndarray):
            return self._binary(array(other, ctx=self._ctx, dtype=self.dtype),
                                array_op, scalar_op, reverse, out)
        raise TypeError('type %s not supported' % str(type(other)))

    def __add__(self, other):
        return self._binary(other, 'broadcast_add', '_plus_scalar')

    __radd__ = __add__

    def __iadd__(self, other):
        return self._binary(other, 'broadcast_add', '_plus_scalar', out=self)

    def __sub__(self, other):
        return self._binary(other, 'broadcast_sub', '_minus_scalar')

    def __rsub__(self, other):
        return self._binary(other, 'broadcast_sub', '_rminus_scalar', reverse=True)

    def __isub__(self, other):
        return self._binary(other, 'broadcast_sub', '_minus_scalar', out=self)

    def __mul__(self, other):
        return self._binary(other, 'broadcast_mul', '_mul_scalar')

    __rmul__ = __mul__

    def __imul__(self, other):
        return self._binary(other, 'broadcast_mul', '_mul_scalar', out=self)

    def __truediv__(self, other):
        return self._binary(other, 'broadcast_div', '_div_scalar')

    def __rtruediv__(self, other):
        return self._binary(other, 'broadcast_div', '_rdiv_scalar', reverse=True)

    def __itruediv__(self, other):
        return self._binary(other, 'broadcast_div', '_div_scalar', out=self)

    __div__ = __truediv__
    __rdiv__ = __rtruediv__
    __idiv__ = __itruediv__

    def __mod__(self, other):
        return self._binary(other, 'broadcast_mod', '_mod_scalar')

    def __rmod__(self, other):
        return self._binary(other, 'broadcast_mod', '_rmod_scalar', reverse=True)

    def __imod__(self, other):
        return self._binary(other, 'broadcast_mod', '_mod_scalar', out=self)

    def __pow__(self, other):
        return self._binary(other, 'broadcast_power', '_power_scalar')

    def __rpow__(self, other):
        return self._binary(other, 'broadcast_power', '_rpower_scalar', reverse=True)

    def __neg__(self):
        return _op('negative')(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _op('abs')(self)

    def __eq__(self, other):
        return self._binary(other, 'broadcast_equal', '_equal_scalar')

    def __ne__(self, other):
        return self._binary(other, 'broadcast_not_equal', '_not_equal_scalar')

    def __gt__(self, other):
        return self._binary(other, 'broadcast_greater', '_greater_scalar')

    def __ge__(self, other):
        return self._binary(other, 'broadcast_greater_equal', '_greater_equal_scalar')

    def __lt__(self, other):
        return self._binary(other, 'broadcast_lesser', '_lesser_scalar')

    def __le__(self, other):
        return self._binary(other, 'broadcast_lesser_equal', '_lesser_equal_scalar')

    __hash__ = object.__hash__

    def __bool__(self):
        size = self.size
        if size == 0:
            return False
        if size == 1:
            return bool(self.asscalar())
        raise ValueError('The truth value of an NDArray with multiple elements is ambiguous.')

    # ---- reductions and friends as methods (MXNet forwards these to nd.*) -----
    def sum(self, *args, **kwargs):
        return _op('sum')(self, *args, **kwargs)

    def mean(self, *args, **kwargs):
        return _op('mean')(self, *args, **kwargs)

    def max(self, *args, **kwargs):
        return _op('max')(self, *args, **kwargs)

    def min(self, *args, **kwargs):
        return _op('min')(self, *args, **kwargs)

    def prod(self, *args, **kwargs):
        return _op('prod')(self, *args, **kwargs)

    def norm(self, *args, **kwargs):
        return _op('norm')(self, *args, **kwargs)

    def argmax(self, *args, **kwargs):
        return _op('argmax')(self, *args, **kwargs)

    def argmin(self, *args, **kwargs):
        return _op('argmin')(self, *args, **kwargs)

    def clip(self, *args, **kwargs):
        return _op('clip')(self, *args, **kwargs)

    def abs(self, *args, **kwargs):
        return _op('abs')(self, *args, **kwargs)

    def sign(self, *args, **kwargs):
        return _op('sign')(self, *args, **kwargs)

    def sqrt(self, *args, **kwargs):
        return _op('sqrt')(self, *args, **kwargs)

    def square(self, *args, **kwargs):
        return _op('square')(self, *args, **kwargs)

    def exp(self, *args, **kwargs):
        return _op('exp')(self, *args, **kwargs)

    def log(self, *args, **kwargs):
        return _op('log')(self, *args, **kwargs)

    def relu(self, *args, **kwargs):
        return _op('relu')(self, *args, **kwargs)

    def sigmoid(self, *args, **kwargs):
        return _op('sigmoid')(self, *args, **kwargs)

    def tanh(self, *args, **kwargs):
        return _op('tanh')(self, *args, **kwargs)

    def softmax(self, *args, **kwargs):
        return _op('softmax')(self, *args, **kwargs)

    def log_softmax(self, *args, **kwargs):
        return _op('log_softmax')(self, *args, **kwargs)

    def transpose(self, *args, **kwargs):
        return _op('transpose')(self, *args, **kwargs)

    def swapaxes(self, *args, **kwargs):
        return _op('SwapAxis')(self, *args, **kwargs)

    def split(self, *args, **kwargs):
        return _op('SliceChannel')(self, *args, **kwargs)

    def slice_axis(self, *args, **kwargs):
        return _op('slice_axis')(self, *args, **kwargs)

    def one_hot(self, *args, **kwargs):
        return _op('one_hot')(self, *args, **kwargs)

    def pick(self, *args, **kwargs):
        return _op('pick')(self, *args, **kwargs)

    def take(self, *args, **kwargs):
        return _op('take')(self, *args, **kwargs)

    def tile(self, *args, **kwargs):
        return _op('tile')(self, *args, **kwargs)

    def zeros_like(self, *args, **kwargs):
        return _op('zeros_like')(self, *args, **kwargs)

    def ones_like(self, *args, **kwargs):
        return _op('ones_like')(self, *args, **kwargs)

    # ---- autograd ------------------------------------------------------------
    def attach_grad(self, grad_req='write', stype=None):
        """Allocate a gradient buffer and mark the array as a variable for autograd.

        Parameters
        ----------
        grad_req : {'write', 'add', 'null'}
            How gradients are stored into the buffer by ``backward``.
        stype : {None, 'default', 'row_sparse', 'csr'}, optional
            Storage type of the gradient buffer (None: this array's).
        """
        from .. import autograd
        grad = zeros(self.shape, ctx=self._ctx, dtype=self.dtype,
                     stype=self.stype if stype is None else stype)
        autograd.mark_variables([self], [grad], grad_reqs=grad_req)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Compute the gradients of this array with respect to recorded variables."""
        from .. import autograd
        autograd.backward([self], None if out_grad is None else [out_grad],
                          retain_graph=retain_graph, train_mode=train_mode)

    # ---- pickling: the same state MXNet uses ({'handle': one array record}) ----
    def __getstate__(self):
        from ..formats.params import encode_record
        return {'handle': bytearray(encode_record(self._host()))}

    def __setstate__(self, state):
        from ..formats.params import decode_record
        handle = state.get('handle')
        data = np.empty((0,), dtype=mx_real_t) if handle is None \
            else decode_record(bytes(handle))
        if not isinstance(data, np.ndarray):
            raise MXNetError('a pickled NDArray holds a %s array; it must be unpickled as '
                             'mxnet.ndarray.sparse.%s' % (data.stype, 'CSRNDArray'
                                                          if data.stype == 'csr'
                                                          else 'RowSparseNDArray'))
        self._data = data
        self._ctx = Context('cpu', 0)
        self._grad = None
        self._grad_req = 'null'
        self._ag_entry = None
        self._ag_name = None      # autograd.get_symbol's variable name when not recorded

    def __reduce__(self):
        return NDArray, (None,), self.__getstate__()

    def __repr__(self):
        shape_info = 'x'.join('%d' % x for x in self.shape)
        return '\n%s\n<%s %s @%s>' % (str(self._host()), type(self).__name__,
                                      shape_info, self._ctx)


def _pending_copy(array, make):
    """``make()`` (a slice or copy of ``array``, which holds an operator error not yet
    reported), its result holding the error too."""
    error = _pending.peek(array)
    _pending.discard([array])
    try:
        result = make()
    finally:
        _pending.defer([array], error)
    _pending.defer([result], error)
    return result


# ---- creation functions -----------------------------------------------------------
def _ctx(ctx):
    return current_context() if ctx is None else ctx


def _shape(shape):
    shape = (int(shape),) if isinstance(shape, integer_types) else tuple(int(s) for s in shape)
    if any(d < 0 for d in shape):
        raise MXNetError('cannot create an array of shape %s: dimensions must be non-negative '
                         '(an unknown dimension, -1 or 0, is for graphs, whose shape '
                         'inference fills it)' % (shape,))
    return shape


def empty(shape, ctx=None, dtype=None, stype=None):
    """An array of ``shape`` with unspecified values (float32 unless ``dtype``); a
    sparse ``stype`` gives an empty (all-zero) sparse array."""
    if stype not in (None, 'default'):
        from .sparse import empty as sparse_empty
        return sparse_empty(stype, shape, ctx=ctx, dtype=dtype)
    ctx = _ctx(ctx)
    return NDArray(device.empty(_shape(shape), _as_dtype(dtype), ctx), ctx)


def zeros(shape, ctx=None, dtype=None, stype=None, out=None, **kwargs):
    """An array of zeros (float32 unless ``dtype``; written into ``out`` when given);
    ``stype`` 'row_sparse' or 'csr' gives a sparse array with nothing stored."""
    if stype not in (None, 'default'):
        from .sparse import zeros as sparse_zeros
        return sparse_zeros(stype, shape, ctx=ctx, dtype=dtype, out=out)
    return full(shape, 0, ctx=ctx, dtype=dtype, out=out, _op_name='_zeros')


def ones(shape, ctx=None, dtype=None, out=None, **kwargs):
    """An array of ones (float32 unless ``dtype``; written into ``out`` when given)."""
    return full(shape, 1, ctx=ctx, dtype=dtype, out=out, _op_name='_ones')


def full(shape, val, ctx=None, dtype=None, out=None, _op_name='_full'):
    """An array of ``shape`` filled with ``val``."""
    from .. import profiler as _profiler
    if _op_name is not None and _profiler._imperative_on:     # MXNet runs an operator here
        start = _profiler.clock()
        result = full(shape, val, ctx, dtype, out, _op_name=None)
        _profiler.record_operator(_op_name, None, result.context, start, _profiler.clock())
        return result
    if out is not None:
        out[:] = val
        return out
    ctx = _ctx(ctx)
    host = np.full(_shape(shape), val, dtype=_as_dtype(dtype))
    return NDArray(device.to_context(host, ctx), ctx)


def array(source_array, ctx=None, dtype=None):
    """Create an NDArray from an array-like object (a copy).

    The dtype is ``source_array``'s when it is an NDArray, else float32 unless given,
    as in MXNet (``mx.nd.array(np.arange(3))`` is float32).
    """
    if _is_sparse_source(source_array):
        from .sparse import array as sparse_array
        return sparse_array(source_array, ctx=ctx, dtype=dtype)
    ctx = _ctx(ctx)
    if isinstance(source_array, NDArray):
        dtype = source_array.dtype if dtype is None else dtype
        host = source_array._host()
    else:
        dtype = mx_real_t if dtype is None else dtype
        try:
            host = np.asarray(source_array)
        except (ValueError, TypeError) as err:
            raise TypeError('source_array must be array like object: %s' % err) from None
        if host.dtype == object:
            raise TypeError('source_array must be array like object, found %r'
                            % type(source_array))
    # a scalar gives a 0-d array, as in MXNet (shape (), not (1,)); row-major, as MXNet
    host = np.array(host, dtype=np.dtype(dtype), copy=True, order='C')
    return NDArray(device.to_context(host, ctx), ctx)


def _is_sparse_source(source):
    """A sparse NDArray or a scipy sparse matrix (``nd.array`` keeps those sparse)."""
    if isinstance(source, NDArray):
        return not isinstance(source._data, np.ndarray) and source.stype != 'default'
    return type(source).__module__.startswith('scipy.sparse')


def from_numpy(ndarray, zero_copy=True):
    """An NDArray of a numpy array's values.

    With ``zero_copy`` (the default) the NDArray takes over the memory: the numpy array
    becomes read-only (writes go through the NDArray) and must be C-contiguous.
    """
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    if not ndarray.flags.c_contiguous:
        raise ValueError('Only c-contiguous arrays are supported for zero-copy')
    if not ndarray.flags.writeable:
        try:        # taken over before (we made it read-only): it owns its memory
            ndarray.flags.writeable = True
        except ValueError:
            raise ValueError('from_numpy(zero_copy=True) needs a writable array (its memory '
                             'becomes the NDArray\'s)') from None
    shared = ndarray.view()
    ndarray.flags.writeable = False
    return NDArray(shared, current_context())


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=mx_real_t):
    """Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times."""
    if infer_range is not None:
        import warnings
        warnings.warn('`infer_range` argument has been deprecated', DeprecationWarning)
    # the operator casts start and step to dtype first, as MXNet does
    out = _op('_arange')(start=start, stop=stop, step=step, repeat=repeat, infer_range=False,
                         dtype=dtype)
    return out if ctx is None else out.as_in_context(ctx)


def concat(*arrays, **kwargs):
    """Concatenate arrays along ``dim`` (default 1), as ``mx.nd.concat``."""
    return _op('Concat')(*arrays, **kwargs)


def concatenate(arrays, axis=0, always_copy=True):
    """Concatenate a list of arrays along ``axis`` (default 0)."""
    if not arrays:
        raise ValueError('concatenate needs at least one array')
    if not always_copy and len(arrays) == 1:
        return arrays[0]
    ctx = arrays[0].context
    host = np.concatenate([a._host() for a in arrays], axis=axis)
    return NDArray(device.to_context(host, ctx), ctx)


def moveaxis(tensor, source, destination):
    """Move an axis to a new position."""
    return array(np.moveaxis(tensor._host(), source, destination), ctx=tensor.context,
                 dtype=tensor.dtype)


def onehot_encode(indices, out):
    """One-hot encode ``indices`` into ``out`` (shape batch x classes)."""
    host = np.zeros(out.shape, dtype=out.dtype)
    host[np.arange(host.shape[0]), indices._host().astype(np.int64)] = 1
    out[:] = host
    return out


def waitall():
    """Wait for all pending computation (symmod computes synchronously); raises an
    operator error not yet reported, as MXNet does."""
    if _pending.PENDING:
        _pending.raise_any()

