"""CSRNDArray and RowSparseNDArray: MXNet's two sparse storage types.

A ``CSRNDArray`` keeps its values in a ``scipy.sparse.csr_matrix`` (its ``_data``), so
products, transposes and conversions are scipy's. scipy chooses the index width it
computes with (int32 when it fits); the aux arrays MXNet reports and saves are int64, the
only aux type MXNet 1.x supports.

A ``RowSparseNDArray`` keeps the stored rows and their sorted row indices in a
:class:`RowSparseStorage` (scipy has no row-sparse format): ``dense[indices[i]] = data[i]``.

Sparse arrays live in host memory whatever their context says; an operator that has no
sparse implementation for its inputs computes on dense copies (MXNet's storage fallback).
Writing into a sparse array replaces its storage, so every holder of the NDArray object
sees the new values.
"""
import numpy as np
import scipy.sparse as spsp

from ..base import MXNetError, NotSupportedForSparseNDArray, numeric_types
from ..context import Context, current_context
from . import device
from .ndarray import NDArray, py_slice

__all__ = ['BaseSparseNDArray', 'CSRNDArray', 'RowSparseNDArray', 'RowSparseStorage',
           'make_csr', 'make_row_sparse', 'empty_sparse', 'to_storage', 'dense_of',
           'is_sparse', 'STORAGE_AUX_TYPES']

# MXNet's default aux types: csr (indptr, indices), row_sparse (indices)
STORAGE_AUX_TYPES = {'csr': (np.dtype(np.int64), np.dtype(np.int64)),
                     'row_sparse': (np.dtype(np.int64),)}


class RowSparseStorage:
    """The storage of a RowSparseNDArray: ``data`` holds the rows listed in ``indices``.

    Parameters
    ----------
    data : numpy.ndarray
        Shape ``(len(indices),) + shape[1:]``.
    indices : numpy.ndarray
        1-D integer row indices, ascending.
    shape : tuple of int
        The shape of the dense array represented.
    """
    __slots__ = ('data', 'indices', 'shape')

    def __init__(self, data, indices, shape):
        self.data = data
        self.indices = indices
        self.shape = tuple(int(d) for d in shape)

    @property
    def dtype(self):
        return self.data.dtype

    def toarray(self):
        """The dense numpy array."""
        dense = np.zeros(self.shape, dtype=self.data.dtype)
        if len(self.indices):
            dense[self.indices] = self.data
        return dense


def _check_scipy_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        raise MXNetError('csr storage of float16 values is not supported by symmod: '
                         'scipy.sparse has no float16 (use float32, or row_sparse)')
    return dtype


def make_csr(data, indices, indptr, shape):
    """A csr_matrix holding exactly these arrays (no validation, no index narrowing).

    MXNet builds a CSR array from its parts without checking them (``check_format`` does
    that), so scipy's constructor, which validates and may copy, is bypassed.
    """
    dtype = _check_scipy_dtype(data.dtype)
    matrix = spsp.csr_matrix(tuple(int(d) for d in shape), dtype=dtype)
    index_dtype = np.promote_types(indices.dtype, indptr.dtype)
    matrix.data = np.ascontiguousarray(data)
    matrix.indices = np.ascontiguousarray(indices, dtype=index_dtype)
    matrix.indptr = np.ascontiguousarray(indptr, dtype=index_dtype)
    return matrix


def make_row_sparse(data, indices, shape):
    """A RowSparseStorage of ``data`` rows at ``indices`` (int64 unless already integer)."""
    indices = np.asarray(indices)
    if indices.dtype.kind not in 'iu':
        indices = indices.astype(np.int64)
    return RowSparseStorage(np.ascontiguousarray(data), indices, shape)


def empty_sparse(stype, shape, dtype):
    """The storage of an all-zero sparse array."""
    dtype = np.dtype(dtype)
    shape = tuple(int(d) for d in shape)
    if stype == 'csr':
        if len(shape) != 2:
            raise ValueError('csr storage needs a 2-D shape, found %s' % (shape,))
        return make_csr(np.zeros(0, dtype), np.zeros(0, np.int64),
                        np.zeros(shape[0] + 1, np.int64), shape)
    if stype == 'row_sparse':
        if len(shape) < 1:
            raise ValueError('row_sparse storage needs at least 1 dimension')
        return RowSparseStorage(np.zeros((0,) + shape[1:], dtype), np.zeros(0, np.int64),
                                shape)
    raise ValueError('unknown storage type %r' % (stype,))


def _dense_to_csr(dense):
    if dense.ndim != 2:
        raise ValueError('cast_storage to csr needs a 2-D array, found shape %s'
                         % (dense.shape,))
    _check_scipy_dtype(dense.dtype)
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(dense.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=dense.shape[0]), out=indptr[1:])
    return make_csr(dense[rows, cols], cols.astype(np.int64), indptr, dense.shape)


def _dense_to_row_sparse(dense):
    if dense.ndim < 1:
        raise ValueError('cast_storage to row_sparse needs at least 1 dimension')
    flat = dense.reshape(dense.shape[0], -1)
    rows = np.flatnonzero(np.any(flat != 0, axis=1)).astype(np.int64)
    return RowSparseStorage(np.ascontiguousarray(dense[rows]), rows, dense.shape)


def to_storage(dense, stype):
    """The storage of type ``stype`` representing the numpy array ``dense``."""
    if stype == 'csr':
        return _dense_to_csr(dense)
    if stype == 'row_sparse':
        return _dense_to_row_sparse(dense)
    raise ValueError('unknown storage type %r' % (stype,))


def dense_of(array):
    """A numpy array of any NDArray's values (the storage itself for dense CPU arrays)."""
    data = array._data
    if isinstance(data, np.ndarray):
        return data
    return array._host()


def is_sparse(array):
    """True for a CSRNDArray or RowSparseNDArray."""
    return isinstance(array, BaseSparseNDArray)


class BaseSparseNDArray(NDArray):
    """An NDArray stored in a sparse format; see CSRNDArray and RowSparseNDArray."""
    __slots__ = ()
    _stype = None

    def __init__(self, data=None, ctx=None):
        if data is None:        # unpickling: CSRNDArray(None), then __setstate__
            data = empty_sparse(self._stype, (1,) * (2 if self._stype == 'csr' else 1),
                                np.float32)
        super().__init__(data, ctx)

    # ---- attributes ------------------------------------------------------------------
    @property
    def stype(self):
        """Storage type: 'csr' or 'row_sparse'."""
        return self._stype

    @property
    def size(self):
        # the number of elements of a sparse array is ambiguous (MXNet refuses it too)
        raise NotImplementedError()

    @property
    def _num_aux(self):
        """How many aux arrays the storage format has."""
        return len(STORAGE_AUX_TYPES[self._stype])

    @property
    def _aux_types(self):
        """The numpy types of the aux arrays (int64)."""
        return [d.type for d in STORAGE_AUX_TYPES[self._stype]]

    def _aux_type(self, i):
        return STORAGE_AUX_TYPES[self._stype][i].type

    @property
    def data(self):
        """A copy of the stored values (csr) or rows (row_sparse)."""
        return NDArray(np.array(self._data.data, copy=True), self._ctx)

    @property
    def indices(self):
        """A copy of the column (csr) or row (row_sparse) indices, int64."""
        return NDArray(self._data.indices.astype(np.int64), self._ctx)

    @property
    def handle(self):
        """The storage (a scipy csr_matrix or a RowSparseStorage)."""
        return self._data

    def _set_storage(self, storage):
        self._data = storage

    def _host(self):
        return self._data.toarray()

    def asnumpy(self):
        """A dense numpy copy of the values."""
        return self._host()

    def __array__(self, dtype=None, copy=None):
        host = self._host()
        return host if dtype is None else host.astype(dtype)

    def __repr__(self):
        shape_info = 'x'.join('%d' % x for x in self.shape)
        return '\n<%s %s @%s>' % (type(self).__name__, shape_info, self.context)

    def _new(self, storage, ctx=None):
        return type(self)(storage, self._ctx if ctx is None else ctx)

    # ---- what sparse storage does not support ----------------------------------------
    def _at(self, idx):
        raise NotSupportedForSparseNDArray(self._at, '[idx]', idx)

    def _slice(self, start, stop):
        raise NotSupportedForSparseNDArray(self._slice, None, start, stop)

    def reshape(self, *shape, **kwargs):
        raise NotSupportedForSparseNDArray(self.reshape, None, shape)

    def _view(self, shape):
        raise NotSupportedForSparseNDArray(self.reshape, None, shape)

    def to_dlpack_for_read(self):
        raise NotSupportedForSparseNDArray(self.to_dlpack_for_read, None)

    to_dlpack_for_write = to_dlpack_for_read

    # ---- conversion ------------------------------------------------------------------
    def astype(self, dtype, copy=True):
        """A copy with values cast to ``dtype`` (self when ``copy=False`` and the dtype
        is already ``dtype``), keeping the storage type."""
        dtype = np.dtype(dtype)
        if not copy and dtype == np.dtype(self.dtype):
            return self
        return self._new(self._cast_values(dtype))

    def _cast_values(self, dtype):
        raise NotImplementedError

    def copy(self):
        """A deep copy on the same context."""
        return self.copyto(self._ctx)

    def copyto(self, other):
        """Copy to a context (a new array of this storage type) or into an NDArray.

        Parameters
        ----------
        other : NDArray or Context
            A destination of the same shape whose storage type is 'default' or this
            array's own, or a context.

        Returns
        -------
        NDArray
            The destination.
        """
        if isinstance(other, Context):
            _check_host_context(other)
            return self._new(self._copy_storage(), ctx=other)
        if not isinstance(other, NDArray):
            raise TypeError('copyto does not support type ' + str(type(other)))
        if other is self:
            return other
        if other.shape != self.shape:
            raise ValueError('copyto: shape mismatch, destination %s vs source %s'
                             % (other.shape, self.shape))
        if other.stype == 'default':
            device.copy_into(other._data, self._host().astype(other.dtype, copy=False))
        elif other.stype == self._stype:
            storage = self._copy_storage()
            if np.dtype(other.dtype) != np.dtype(self.dtype):
                storage = self._new(storage)._cast_values(np.dtype(other.dtype))
            other._set_storage(storage)
        else:
            raise TypeError('copyto does not support destination NDArray stype '
                            + str(other.stype))
        return other

    def _copy_storage(self):
        raise NotImplementedError

    def detach(self):
        """A new array sharing this storage, cut out of the autograd graph."""
        return self._new(self._data)

    def wait_to_read(self):
        """Computation is synchronous: nothing to wait for."""

    def check_format(self, full_check=True):
        """Check that the storage is a valid array of this storage type.

        Parameters
        ----------
        full_check : bool, default True
            Check every index (O(nnz)); otherwise only the sizes (O(1)).

        Raises
        ------
        MXNetError
            Naming the first rule the storage breaks.
        """
        from .sparse_check import check_storage
        check_storage(self._stype, self._data, full_check)

    # ---- in-place arithmetic: compute, then copy back into this array -----------------
    def __iadd__(self, other):
        (self + other).copyto(self)
        return self

    def __isub__(self, other):
        (self - other).copyto(self)
        return self

    def __imul__(self, other):
        (self * other).copyto(self)
        return self

    def __itruediv__(self, other):
        (self / other).copyto(self)
        return self

    __idiv__ = __itruediv__

    def __add__(self, other):
        from .sparse import add
        return add(self, other)

    def __sub__(self, other):
        from .sparse import subtract
        return subtract(self, other)

    def __mul__(self, other):
        from .sparse import multiply
        return multiply(self, other)

    # ---- assignment --------------------------------------------------------------------
    def __setitem__(self, key, value):
        if key is not Ellipsis and not (isinstance(key, py_slice) and key.start is None
                                        and key.stop is None and key.step is None):
            if isinstance(key, py_slice):
                raise ValueError('Assignment with slice for %s is not implemented yet.'
                                 % type(self).__name__)
            raise TypeError('%s only supports [:] for assignment' % type(self).__name__)
        if isinstance(value, NDArray):
            if value is not self:
                value.copyto(self)
        elif isinstance(value, numeric_types):
            self._fill(value)
        elif isinstance(value, (np.ndarray, np.generic, list, tuple)):
            dense = np.asarray(value, dtype=self.dtype)
            self._set_storage(to_storage(np.broadcast_to(dense, self.shape), self._stype))
        else:
            raise TypeError('type %s not supported' % str(type(value)))

    def _fill(self, value):
        raise ValueError('Assigning numeric types to %s is not implemented yet.'
                         % type(self).__name__)

    # ---- pickling: MXNet's state, {'handle': one (sparse) array record} ------------------
    def __getstate__(self):
        from ..formats.params import encode_record
        return {'handle': bytearray(encode_record(self))}

    def __setstate__(self, state):
        from ..formats.params import decode_record
        from .sparse_cast import from_record
        record = decode_record(bytes(state['handle']))
        array = from_record(record, Context('cpu', 0))
        if array.stype != self._stype:
            raise MXNetError('a pickled %s holds a %s array' % (type(self).__name__,
                                                               array.stype))
        NDArray.__setstate__(self, {'handle': None})
        self._data = array._data

    def __reduce__(self):
        return type(self), (None,), self.__getstate__()


def _check_host_context(ctx):
    if ctx.device_type == 'gpu':
        raise MXNetError('sparse arrays live in host memory in symmod: %s is not supported '
                         'for csr / row_sparse storage' % ctx)


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row format.

    The column indices of row ``i`` are ``indices[indptr[i]:indptr[i+1]]`` (ascending,
    no duplicates) and their values ``data[indptr[i]:indptr[i+1]]``. Create one with
    :func:`mx.nd.sparse.csr_matrix` or ``array.tostype('csr')``.
    """
    __slots__ = ()
    _stype = 'csr'

    @property
    def indptr(self):
        """A copy of the row pointers."""
        return NDArray(self._data.indptr.astype(np.int64), self._ctx)

    def asscipy(self):
        """A ``scipy.sparse.csr_matrix`` copy of this array."""
        return self._data.copy()

    def _copy_storage(self):
        return self._data.copy()

    def _cast_values(self, dtype):
        _check_scipy_dtype(dtype)
        m = self._data
        return make_csr(m.data.astype(dtype), m.indices.copy(), m.indptr.copy(), m.shape)

    def __getitem__(self, key):
        from .sparse_cast import csr_row_slice
        if isinstance(key, (int, np.integer)):
            begin = int(key) + (self.shape[0] if key < 0 else 0)
            if not 0 <= begin < self.shape[0]:
                raise IndexError('index %d is out of bounds for axis 0 with size %d'
                                 % (key, self.shape[0]))
            return csr_row_slice(self, begin, begin + 1)
        if isinstance(key, py_slice):
            if key.step is not None:
                raise ValueError('CSRNDArray only supports continuous slicing on axis 0')
            if key.start is None and key.stop is None:
                return self
            begin, end, _ = key.indices(self.shape[0])
            return csr_row_slice(self, begin, max(begin, end))
        if isinstance(key, tuple):
            raise ValueError('Multi-dimension indexing is not supported')
        raise ValueError('Undefined behaviour for {}'.format(key))


class RowSparseNDArray(BaseSparseNDArray):
    """An array stored as a set of row slices at given row indices.

    ``dense[indices[i], ...] = data[i, ...]``; rows not listed are zero. Gradients of
    sparse dot and embedding lookups come in this format; create one with
    :func:`mx.nd.sparse.row_sparse_array` or ``array.tostype('row_sparse')``.
    """
    __slots__ = ()
    _stype = 'row_sparse'

    def _copy_storage(self):
        s = self._data
        return RowSparseStorage(s.data.copy(), s.indices.copy(), s.shape)

    def _cast_values(self, dtype):
        s = self._data
        return RowSparseStorage(s.data.astype(dtype), s.indices.copy(), s.shape)

    def _fill(self, value):
        dense = np.full(self.shape, value, dtype=self.dtype)
        self._set_storage(to_storage(dense, 'row_sparse'))

    def retain(self, *args, **kwargs):
        """``mx.nd.sparse.retain(self, ...)``: keep only the given rows."""
        from .sparse import retain
        return retain(self, *args, **kwargs)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            raise Exception('__getitem__ with int key is not implemented for '
                            'RowSparseNDArray yet')
        if isinstance(key, py_slice):
            if key.step is not None or key.start is not None or key.stop is not None:
                raise Exception('RowSparseNDArray only supports [:] for __getitem__')
            return self
        if isinstance(key, tuple):
            raise ValueError('Multi-dimension indexing is not supported')
        raise ValueError('Undefined behaviour for {}'.format(key))


_CLASSES = {'csr': CSRNDArray, 'row_sparse': RowSparseNDArray}


def new_sparse(stype, storage, ctx=None):
    """A CSRNDArray / RowSparseNDArray of ``storage`` on ``ctx``."""
    ctx = current_context() if ctx is None else ctx
    _check_host_context(ctx)
    return _CLASSES[stype](storage, ctx)
