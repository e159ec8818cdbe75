"""MXNet's binary array format: ``nd.save`` files and checkpoint ``.params`` files.

A file is a list header, the array records, then the names (see FORMATS.md, section 1)::

    u64 0x112, u64 0, u64 N, N records, u64 K (0 or N), K x (u64 length, UTF-8 bytes)

One record (V2, what MXNet 1.x writes; V3 differs only in its magic)::

    u32 magic, i32 storage type, i32 ndim, ndim x i64 dims,
    i32 dev_type, i32 dev_id, i32 type flag, raw C-order little-endian data

The reader also accepts V3 (numpy shape semantics), V1 (no storage type) and the
pre-V1 records whose first word is ndim and whose dims are u32. Anything that does not
parse exactly, up to the last byte, raises :class:`MXNetError` naming the source and
the offset: a damaged checkpoint never loads halfway.
"""
import math
import os
import struct
from collections import namedtuple

import numpy as np

from ..base import MXNetError
from .atomic import atomic_open
from .dtypes import DTYPE_TO_FLAG, FLAG_TO_DTYPE, UNSUPPORTED_FLAGS

__all__ = ['encode_record', 'decode_record', 'encode_arrays', 'decode_arrays',
           'save', 'load', 'load_frombuffer', 'prepare', 'write', 'read_whole', 'load_buffer']

LIST_MAGIC = 0x112
V1_MAGIC = 0xF993FAC8
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA

_SPARSE_STYPES = {1: 'row_sparse', 2: 'csr'}
_STYPE_IDS = {'row_sparse': 1, 'csr': 2}
_NUM_AUX = {'row_sparse': 1, 'csr': 2}


class SparseRecord(namedtuple('SparseRecord', 'stype data aux shape')):
    """A sparse array record: ``data`` (numpy, the stored values), ``aux`` (csr:
    [indptr, indices]; row_sparse: [indices], numpy integer arrays in their aux types)
    and the dense ``shape``."""

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype(self):
        return self.data.dtype


def sparse_record(array):
    """The SparseRecord of a CSRNDArray / RowSparseNDArray (what MXNet saves)."""
    storage = array._data
    if array.stype == 'csr':
        aux = [storage.indptr.astype(np.int64), storage.indices.astype(np.int64)]
    else:
        aux = [storage.indices.astype(np.int64)]
    return SparseRecord(array.stype, storage.data, aux, tuple(array.shape))
_DEV_TYPES = {1: 'cpu', 2: 'gpu', 3: 'cpu_pinned', 5: 'cpu_shared'}
# More dimensions than numpy (1.x) allows can only come from a damaged file.
_MAX_NDIM = 32
# The smallest possible record (a pre-V1 "none" record) is one u32.
_MIN_RECORD_BYTES = 4


def _supported_dtypes():
    return ', '.join(str(dt.newbyteorder('=')) for dt in FLAG_TO_DTYPE.values())


def _type_flag(dtype):
    """MXNet's type flag for a numpy dtype, or a clear error."""
    flag = DTYPE_TO_FLAG.get(np.dtype(dtype).newbyteorder('<'))
    if flag is not None:
        return flag
    raise MXNetError('cannot save an array of dtype %s in MXNet format: supported dtypes are %s'
                     % (np.dtype(dtype), _supported_dtypes()))


# ---- writing ---------------------------------------------------------------------------
def _shape_bytes(shape):
    return struct.pack('<i', len(shape)) + struct.pack('<%dq' % len(shape), *shape)


def _sparse_record_parts(record):
    """(header bytes, [flat data array, flat aux arrays...]) of a sparse V2 record: the
    storage shape, shape, context, type flag, aux types and shapes, then the buffers."""
    flag = _type_flag(record.data.dtype)
    data = np.ascontiguousarray(record.data, dtype=FLAG_TO_DTYPE[flag])
    header = struct.pack('<Ii', V2_MAGIC, _STYPE_IDS[record.stype]) + _shape_bytes(data.shape)
    header += _shape_bytes(record.shape) + struct.pack('<iii', 1, 0, flag)
    buffers = [data.reshape(-1).view(np.uint8)]
    for aux in record.aux:
        aux_flag = _type_flag(aux.dtype)
        aux = np.ascontiguousarray(aux, dtype=FLAG_TO_DTYPE[aux_flag])
        header += struct.pack('<i', aux_flag) + _shape_bytes(aux.shape)
        buffers.append(aux.reshape(-1).view(np.uint8))
    return header, buffers


def _record_parts(array, magic):
    """(header bytes, flat little-endian data array) of one record."""
    if isinstance(array, SparseRecord):
        header, buffers = _sparse_record_parts(array)
        return header, np.concatenate(buffers) if len(buffers) > 1 else buffers[0]
    flag = _type_flag(array.dtype)
    data = np.asarray(array, dtype=FLAG_TO_DTYPE[flag], order='C')
    header = (struct.pack('<Iii', magic, 0, data.ndim)
              + struct.pack('<%dq' % data.ndim, *data.shape)
              + struct.pack('<iii', 1, 0, flag))
    return header, data.reshape(-1).view(np.uint8)


def _magic_for(arrays):
    # MXNet writes V3 records inside np_shape(True), and then writes every record of the
    # file as V3; a V2 record cannot hold a 0-d array that MXNet can read back.
    from ..util import is_np_shape
    if any(isinstance(a, SparseRecord) for a in arrays):
        if is_np_shape():
            raise MXNetError('only allow serializing ndarray of default storage type in np '
                             'shape semantics')
        return V2_MAGIC
    return V3_MAGIC if is_np_shape() or any(a.ndim == 0 for a in arrays) else V2_MAGIC


def encode_record(array):
    """Encode one numpy array as one MXNet array record (what ``NDArray`` pickles hold).

    Parameters
    ----------
    array : numpy.ndarray
        float32, float64, float16, uint8, int8, int32, int64 or bool.

    Returns
    -------
    bytes
        A V2 record, or a V3 record for a 0-d array. MXNet 1.9.1 saves a 0-d array in
        a V2 record that it cannot load back (the loader reads ndim 0 as an empty
        array); a V3 record is what MXNet itself writes for scalars under
        ``np_shape(True)`` and loads in that mode, so symmod never writes the broken form.

    Examples
    --------
    >>> rec = encode_record(np.ones((2, 3), np.float32))
    >>> decode_record(rec).shape
    (2, 3)
    """
    host = _host_array(array)
    array = np.asarray(array) if host is None else host
    header, data = _record_parts(array, _magic_for([array]))
    return header + data.tobytes()


def _file_chunks(arrays, names):
    """The buffers of a whole file, in order, without joining large data."""
    magic = _magic_for(arrays)
    yield struct.pack('<QQQ', LIST_MAGIC, 0, len(arrays))
    for array in arrays:
        header, data = _record_parts(array, magic)
        yield header
        yield data
    yield struct.pack('<Q', len(names))
    for name in names:
        raw = name.encode('utf-8')
        yield struct.pack('<Q', len(raw)) + raw


def encode_arrays(arrays, names=None):
    """Encode numpy arrays (and optional names) as the bytes of an ``nd.save`` file.

    Parameters
    ----------
    arrays : list of numpy.ndarray
        The arrays, in order.
    names : list of str, optional
        One name per array (a dict file), or None (a list file).

    Returns
    -------
    bytes
    """
    arrays = [a if isinstance(a, SparseRecord) else np.asarray(a) for a in arrays]
    names = [] if names is None else list(names)
    if names and len(names) != len(arrays):
        raise MXNetError('encode_arrays: %d names for %d arrays' % (len(names), len(arrays)))
    return b''.join(_file_chunks(arrays, names))


# ---- reading ---------------------------------------------------------------------------
class _Reader:
    """A cursor over a buffer whose every shortfall becomes an MXNetError naming the source."""

    def __init__(self, buf, where, owned):
        self.buf = buf
        self.size = len(buf)
        self.pos = 0
        self.where = where
        self.owned = owned   # True: arrays may be writable views of ``buf``

    def error(self, what):
        return MXNetError('%s: %s' % (self.where, what))

    def unpack(self, fmt, what):
        need = struct.calcsize(fmt)
        if self.pos + need > self.size:
            raise self.error('%s is truncated: needs %d bytes at offset %d, %s has %d'
                             % (what, need, self.pos, self.kind, self.size))
        values = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += need
        return values

    @property
    def kind(self):
        return 'file' if self.owned else 'buffer'


def _none_array():
    # An MXNet "none" array has no shape and no data; symmod reads it as an empty float32
    # array, like the placeholder NDArray(None) makes.
    return np.empty((0,), dtype=np.float32)


def _read_dims(reader, what, dim_fmt):
    (ndim,) = reader.unpack('<i', what + ' ndim')
    if ndim < -1 or ndim > _MAX_NDIM:
        raise reader.error('%s has an impossible ndim %d at offset %d'
                           % (what, ndim, reader.pos - 4))
    if ndim <= 0:
        return ndim, ()
    return ndim, reader.unpack('<%d%s' % (ndim, dim_fmt), what + ' shape')


def _read_shape(reader, what):
    """Read a record's header up to its shape; None for a "none" record (no data follows)."""
    start = reader.pos
    (magic,) = reader.unpack('<I', what + ' header')
    if magic in (V2_MAGIC, V3_MAGIC):
        (stype,) = reader.unpack('<i', what + ' storage type')
        if stype in _SPARSE_STYPES:
            if magic == V3_MAGIC:
                raise reader.error('%s is a sparse (%s) array in a NumPy-shape (V3) record, '
                                   'which MXNet never writes' % (what, _SPARSE_STYPES[stype]))
            return _SparseHeader(_SPARSE_STYPES[stype])
        if stype != 0:
            raise reader.error('%s has an unknown storage type %d at offset %d'
                               % (what, stype, reader.pos - 4))
        ndim, shape = _read_dims(reader, what, 'q')
        if magic == V3_MAGIC:
            # numpy shape semantics: ndim 0 is a scalar, -1 anywhere means "unknown"
            if ndim == -1 or -1 in shape:
                return None
        elif ndim == 0:
            return None
    elif magic == V1_MAGIC:
        ndim, shape = _read_dims(reader, what, 'q')
        if ndim == 0:
            return None
    elif magic <= _MAX_NDIM:
        # pre-V1 record: the first word is ndim, the dims are u32
        ndim = magic
        shape = reader.unpack('<%dI' % ndim, what + ' shape') if ndim else ()
        if ndim == 0:
            return None
    else:
        raise reader.error('%s has a bad magic number 0x%08X at offset %d (expected 0x%08X)'
                           % (what, magic, start, V2_MAGIC))
    if ndim < 0 or any(d < 0 for d in shape):
        raise reader.error('%s has an impossible shape %s (ndim %d) at offset %d'
                           % (what, tuple(shape), ndim, start))
    _check_shape_semantics(reader, what, magic, shape)
    return tuple(int(d) for d in shape)


def _check_shape_semantics(reader, what, magic, shape):
    """A 0 dim is a zero-size axis in a V3 (NumPy-shape) record and an unknown one in a
    V2 record: as in MXNet, such a record loads only under the semantics it was saved in."""
    if 0 not in shape:
        return
    from ..util import is_np_shape
    if magic == V3_MAGIC and not is_np_shape():
        raise reader.error('%s has zero-size shape %s saved with NumPy shape semantics; load '
                           'it within mx.np_shape(True)' % (what, tuple(shape)))
    if magic != V3_MAGIC and is_np_shape():
        raise reader.error('%s has shape %s saved with legacy shape semantics (0 means '
                           'unknown); load it outside mx.np_shape(True)' % (what, tuple(shape)))


class _SparseHeader(namedtuple('_SparseHeader', 'stype')):
    """What _read_shape returns for a sparse record: the rest is read by _read_sparse."""


def _read_context_and_type(reader, what):
    dev_type, dev_id = reader.unpack('<ii', what + ' context')
    if dev_type not in _DEV_TYPES or dev_id < 0:
        raise reader.error('%s has an impossible device (%d, %d) at offset %d'
                           % (what, dev_type, dev_id, reader.pos - 8))
    return _read_type(reader, what + ' type flag')


def _read_type(reader, what):
    (flag,) = reader.unpack('<i', what)
    if flag in UNSUPPORTED_FLAGS:
        raise reader.error('%s is dtype %s (type flag %d), which symmod does not support'
                           % (what, UNSUPPORTED_FLAGS[flag], flag))
    if flag not in FLAG_TO_DTYPE:
        raise reader.error('%s is an unknown type flag %d at offset %d'
                           % (what, flag, reader.pos - 4))
    return FLAG_TO_DTYPE[flag]


def _read_data(reader, what, dtype, shape):
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    if count == 0 and math.prod(d for d in shape if d) * dtype.itemsize >= 2 ** 63:
        # empty, yet numpy cannot describe the shape (a zero beside huge dimensions)
        raise reader.error('%s has an impossible shape %s for dtype %s (more than 2**63 '
                           'bytes)' % (what, shape, dtype))
    if reader.pos + nbytes > reader.size:
        raise reader.error('%s is truncated: needs %d bytes of data at offset %d, %s has %d'
                           % (what, nbytes, reader.pos, reader.kind, reader.size))
    array = np.frombuffer(reader.buf, dtype=dtype, count=count, offset=reader.pos)
    reader.pos += nbytes
    if not (reader.owned and array.flags.aligned and array.flags.writeable):
        array = array.copy()
    return array.reshape(shape)


def _read_plain_shape(reader, what):
    start = reader.pos
    ndim, shape = _read_dims(reader, what, 'q')
    if ndim < 0 or any(d < 0 for d in shape):
        raise reader.error('%s has an impossible shape %s (ndim %d) at offset %d'
                           % (what, tuple(shape), ndim, start))
    return tuple(int(d) for d in shape)


def _read_sparse(reader, what, stype):
    """The rest of a sparse V2 record (after its storage type) as a SparseRecord."""
    storage_shape = _read_plain_shape(reader, what + ' storage shape')
    shape = _read_plain_shape(reader, what + ' shape')
    if not shape:
        return _none_array()
    dtype = _read_context_and_type(reader, what)
    aux_types, aux_shapes = [], []
    for i in range(_NUM_AUX[stype]):
        aux_types.append(_read_type(reader, '%s aux %d type flag' % (what, i)))
        aux_shapes.append(_read_plain_shape(reader, '%s aux %d shape' % (what, i)))
    for i, t in enumerate(aux_types):
        if t.kind not in 'iu':
            raise reader.error('%s aux %d has dtype %s; indices must be integers'
                               % (what, i, t))
    expected_rows = storage_shape[0] if storage_shape else -1
    if stype == 'csr':
        # an array MXNet never filled has an empty indptr (and nothing stored)
        ok = (len(shape) == 2 and len(storage_shape) == 1
              and aux_shapes[0] in ((shape[0] + 1,), (0,))
              and aux_shapes[1] == (expected_rows,))
    else:
        ok = (len(storage_shape) == len(shape) and storage_shape[1:] == shape[1:]
              and aux_shapes[0] == (expected_rows,))
    if not ok:
        raise reader.error('%s: inconsistent %s record: shape %s, storage shape %s, aux shapes '
                           '%s' % (what, stype, shape, storage_shape, aux_shapes))
    data = _read_data(reader, what + ' values', dtype, storage_shape)
    aux = [_read_data(reader, '%s aux %d' % (what, i), t, s)
           for i, (t, s) in enumerate(zip(aux_types, aux_shapes))]
    _check_sparse_indices(reader, what, stype, aux, shape)
    return SparseRecord(stype, data, aux, shape)


def _check_sparse_indices(reader, what, stype, aux, shape):
    """Refuse indices that point outside the array (a damaged file): every later use
    (scipy, the kernels) would read or write out of bounds."""
    if stype == 'csr':
        indptr, indices = aux
        nnz = len(indices)
        if not len(indptr) and nnz:
            raise reader.error('%s: csr record stores %d values but has no indptr'
                               % (what, nnz))
        if len(indptr) and (indptr[0] != 0 or indptr[-1] != nnz
                            or np.any(np.diff(indptr.astype(np.int64)) < 0)):
            raise reader.error('%s: csr indptr must start at 0, never decrease and end at '
                               'the number of stored values (%d)' % (what, nnz))
        if nnz and (indices.min() < 0 or indices.max() >= shape[1]):
            raise reader.error('%s: csr column indices must lie in [0, %d)' % (what, shape[1]))
    else:
        indices = aux[0]
        if len(indices) and (indices.min() < 0 or indices.max() >= shape[0]
                             or np.any(np.diff(indices.astype(np.int64)) <= 0)):
            raise reader.error('%s: row_sparse indices must be ascending and lie in [0, %d)'
                               % (what, shape[0]))


def _read_record(reader, what):
    """Read one record at the cursor: a numpy array, or a SparseRecord."""
    shape = _read_shape(reader, what)
    if shape is None:
        return _none_array()
    if isinstance(shape, _SparseHeader):
        return _read_sparse(reader, what, shape.stype)
    dtype = _read_context_and_type(reader, what)
    return _read_data(reader, what, dtype, shape)


def _read_names(reader, count):
    names = []
    for i in range(count):
        what = 'name %d of %d' % (i, count)
        (length,) = reader.unpack('<Q', what + ' length')
        if reader.pos + length > reader.size:
            raise reader.error('%s is truncated: needs %d bytes at offset %d, %s has %d'
                               % (what, length, reader.pos, reader.kind, reader.size))
        raw = bytes(reader.buf[reader.pos:reader.pos + length])
        try:
            names.append(raw.decode('utf-8'))
        except UnicodeDecodeError as err:
            raise reader.error('%s at offset %d is not valid UTF-8 (%s)'
                               % (what, reader.pos, err)) from None
        reader.pos += length
    return names


def _read_file(buf, where, owned):
    """Parse a whole ``nd.save`` file: (list of numpy arrays, list of names or None)."""
    reader = _Reader(buf, where, owned)
    magic, _reserved, count = reader.unpack('<QQQ', 'file header')
    if magic != LIST_MAGIC:
        raise reader.error('not an MXNet NDArray file: header magic is 0x%X, expected 0x%X'
                           % (magic, LIST_MAGIC))
    if count * _MIN_RECORD_BYTES > reader.size - reader.pos:
        raise reader.error('the header announces %d arrays but only %d bytes follow it'
                           % (count, reader.size - reader.pos))
    arrays = [_read_record(reader, 'array record %d of %d' % (i, count)) for i in range(count)]
    (num_names,) = reader.unpack('<Q', 'name count')
    if num_names not in (0, count):
        raise reader.error('the file has %d names for %d arrays (expected 0 or %d) at offset %d'
                           % (num_names, count, count, reader.pos - 8))
    names = _read_names(reader, num_names)
    if reader.pos != reader.size:
        raise reader.error('%d unexpected bytes after the end of the data at offset %d'
                           % (reader.size - reader.pos, reader.pos))
    return arrays, (names if num_names else None)


def decode_record(buf):
    """Decode one array record (the ``handle`` of a pickled NDArray) to a numpy array.

    Parameters
    ----------
    buf : bytes, bytearray or memoryview
        Exactly one V1, V2, V3 or pre-V1 record.

    Returns
    -------
    numpy.ndarray
        A new writable array with the record's shape and dtype.

    Raises
    ------
    MXNetError
        When the bytes are not exactly one valid record.
    """
    reader = _Reader(memoryview(buf).cast('B'), 'array record', owned=False)
    array = _read_record(reader, 'array record')
    if reader.pos != reader.size:
        raise reader.error('%d unexpected bytes after the record at offset %d'
                           % (reader.size - reader.pos, reader.pos))
    return array


def decode_arrays(buf, where='<buffer>'):
    """Parse the bytes of an ``nd.save`` file into numpy arrays.

    Parameters
    ----------
    buf : bytes, bytearray or memoryview
        The complete file contents.
    where : str
        Named in error messages (a file name, say).

    Returns
    -------
    (list of numpy.ndarray, list of str or None)
        The arrays (new writable copies) and their names, None for an unnamed list.
    """
    return _read_file(memoryview(buf).cast('B'), where, owned=False)


# ---- the nd.save / nd.load interface ------------------------------------------------------
def _host_array(value):
    """The numpy array (a SparseRecord for sparse storage) behind an NDArray or numpy
    array, or None for anything else."""
    from ..ndarray.ndarray import NDArray
    if isinstance(value, NDArray):
        if value.stype != 'default':
            return sparse_record(value)
        return value._host()
    if isinstance(value, np.ndarray):
        return value
    return None


def _describe(value):
    return type(value).__name__


def _split_data(data):
    """(arrays, names) from what ``save`` accepts, with MXNet's errors for the rest."""
    single = _host_array(data)
    if single is not None:
        return [single], []
    if isinstance(data, dict):
        arrays, names = [], []
        for key, value in data.items():
            host = _host_array(value)
            if not isinstance(key, str) or host is None:
                raise TypeError('save only accept dict str->NDArray or list of NDArray; found '
                                'key %r (%s) with a value of type %s'
                                % (key, _describe(key), _describe(value)))
            names.append(key)
            arrays.append(host)
        return arrays, names
    if isinstance(data, list):
        arrays = []
        for i, value in enumerate(data):
            host = _host_array(value)
            if host is None:
                raise TypeError('save only accept dict str->NDArray or list of NDArray; item %d '
                                'is of type %s' % (i, _describe(value)))
            arrays.append(host)
        return arrays, []
    raise ValueError('data needs to either be a NDArray, dict of str, NDArray pairs or a list '
                     'of NDarrays; found %s' % _describe(data))


def _path(fname):
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError('fname required to be a string, found %s' % _describe(fname))
    return os.fspath(fname)


def prepare(data):
    """Split what ``nd.save`` accepts into (host arrays, names) and refuse, before the disk
    is touched, what MXNet's format cannot hold (a dtype, a name that is not UTF-8)."""
    arrays, names = _split_data(data)
    for array in arrays:
        _type_flag(array.dtype)
    for name in names:
        try:
            name.encode('utf-8')
        except UnicodeEncodeError as err:
            raise MXNetError('cannot save the name %r: it is not valid UTF-8 text (%s)'
                             % (name, err)) from None
    return arrays, names


def write(f, arrays, names, digest=None):
    """Stream the file's bytes to ``f`` (feeding ``digest.update`` too, when given)."""
    for chunk in _file_chunks(arrays, names):
        if digest is not None:
            digest.update(chunk)
        f.write(chunk)


def save(fname, data):
    """Save an NDArray, a list of NDArrays or a dict str->NDArray in MXNet's format.

    The file is written atomically; see :func:`symmod.ndarray.save` for the details.
    """
    path = _path(fname)
    arrays, names = prepare(data)
    try:
        with atomic_open(path, 'wb') as f:
            write(f, arrays, names)
    except OSError as err:
        raise MXNetError('%s: cannot write the file: %s' % (path, err)) from err


def wrap_record(value, ctx):
    """An NDArray (sparse for a SparseRecord) of one decoded record."""
    from ..ndarray.ndarray import NDArray
    if isinstance(value, SparseRecord):
        from ..ndarray.sparse_cast import from_record
        return from_record(value, ctx)
    return NDArray(value, ctx)


def _wrap(arrays, names):
    from ..context import Context
    ctx = Context('cpu', 0)
    values = [wrap_record(a, ctx) for a in arrays]
    if names is None:
        return values
    return dict(zip(names, values))


def read_whole(fname):
    """(path, bytearray) of a whole file; an unreadable file is an MXNetError naming it."""
    path = _path(fname)
    try:
        with open(path, 'rb') as f:
            size = os.fstat(f.fileno()).st_size
            buf = bytearray(size)
            got = f.readinto(buf)
            if got != size or f.read(1):
                raise MXNetError('%s: the file changed size while it was read' % path)
    except OSError as err:
        raise MXNetError('%s: cannot read the file: %s' % (path, err)) from err
    return path, buf


def load(fname):
    """Load a file written by ``nd.save`` (MXNet's or symmod's).

    Returns a list of NDArray for an unnamed file, else a dict str->NDArray in file order;
    see :func:`symmod.ndarray.load`.
    """
    path, buf = read_whole(fname)
    return load_buffer(buf, path)


def load_buffer(buf, path):
    """:func:`load` on bytes already read from ``path`` (a bytearray, used in place)."""
    arrays, names = _read_file(memoryview(buf), path, owned=True)
    return _wrap(arrays, names)


def load_frombuffer(buf):
    """Load an ``nd.save`` file's bytes; see :func:`symmod.ndarray.load_frombuffer`."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError('buf required to be a string or bytes, found %s' % _describe(buf))
    arrays, names = decode_arrays(buf, '<buffer>')
    return _wrap(arrays, names)
