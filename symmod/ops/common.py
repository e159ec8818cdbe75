"""Helpers shared by the operator families.

Nothing here knows a particular operator: parsers for enum parameters, shape and
dtype rules several families use, per-thread scratch buffers, and the ways of
storing a result into a destination under its write request ``req`` ('write',
'add' or 'null').
"""
import threading

import numpy as np

from ..base import MXNetError
from .registry import ShapeError, unify

__all__ = ['choice', 'int_shape', 'size_of', 'canonical_axis', 'axis_slice', 'expect_shape',
           'data_shape',
           'data_dtype', 'scratch', 'work_buffer', 'store', 'store_from', 'store_cast',
           'copy_into', 'fill_into', 'zero_grad', 'matmul_into', 'kernel_array',
           'OperatorIndexError']


class OperatorIndexError(MXNetError, IndexError):
    """An index out of range in an operator's input: MXNet raises Python's IndexError
    for these (its 'IndexError:' messages), so this is both."""


# ---- parameters, shapes and dtypes ----------------------------------------------------------
def choice(*names):
    """Parser for an enum parameter whose value must be one of ``names``."""
    def parse(value):
        text = str(value).strip()
        if text not in names:
            raise ValueError('expected one of {%s}, found %r'
                             % (', '.join("'%s'" % n for n in names), value))
        return text
    parse.__name__ = '{%s}' % ', '.join("'%s'" % n for n in names)
    return parse


def int_shape(shape):
    """A shape as a tuple of Python ints (None stays None)."""
    return None if shape is None else tuple(int(d) for d in shape)


def size_of(shape):
    """Number of elements of a shape (a Python int)."""
    n = 1
    for d in shape:
        n *= int(d)
    return n


def canonical_axis(axis, ndim, opname, what='axis'):
    """``axis`` made non-negative, or ShapeError when it is outside ``[-ndim, ndim)``."""
    if not -ndim <= axis < ndim:
        raise ShapeError('%s: %s %d is out of bounds for an array of %d dimensions'
                         % (opname, what, axis, ndim))
    return axis + ndim if axis < 0 else axis


def axis_slice(axis, start, stop):
    """An index tuple selecting ``start:stop`` along ``axis``."""
    return (slice(None),) * axis + (slice(start, stop),)


def expect_shape(shape, expected, opname, what, reason):
    """Merge ``shape`` with ``expected`` or raise a ShapeError saying why it was expected."""
    try:
        return unify(shape, expected)
    except ShapeError:
        raise ShapeError('%s: %s shape %s does not match %s: expected %s'
                         % (opname, what, tuple(shape), reason, tuple(expected))) from None


def data_shape(opname, data, out):
    """The one shape of an operator's data and its same-shaped output, or ShapeError."""
    try:
        return unify(data, out)
    except ShapeError:
        raise ShapeError('%s: output shape %s does not match data %s'
                         % (opname, tuple(out), tuple(data))) from None


def data_dtype(in_types, out_types):
    """Type rule of operators whose output has the first input's dtype, the other inputs
    (indices, shape donors) keeping their own."""
    dtype = in_types[0] if in_types[0] is not None else out_types[0]
    return [dtype] + list(in_types[1:]), [dtype], []


def kernel_array(array):
    """``array`` as a numba kernel can take it: float16 widened to float32 (numba has no
    half precision), anything else as it is."""
    return array.astype(np.float32) if array.dtype == np.float16 else array


# ---- scratch buffers ------------------------------------------------------------------------
_SCRATCH = threading.local()


def scratch(key, shape, dtype):
    """A work buffer for the duration of one operator call, reused across calls.

    Buffers are shared by all operators of a thread (one executor runs one operator
    at a time; devices run on separate threads), so unrolled graphs with hundreds of
    nodes do not hold one temporary each. A buffer must not be kept past the call.
    """
    cache = getattr(_SCRATCH, 'buffers', None)
    if cache is None:
        cache = _SCRATCH.buffers = {}
    full_key = (key, tuple(shape), np.dtype(dtype))
    buf = cache.get(full_key)
    if buf is None:
        if len(cache) >= 64:
            cache.clear()
        buf = cache[full_key] = np.empty(shape, dtype)
    return buf


def work_buffer(key, dst, req):
    """Where to compute a result: ``dst`` itself for 'write', a scratch buffer otherwise
    (the caller then adds it to ``dst``)."""
    return dst if req == 'write' else scratch(key, dst.shape, dst.dtype)


# ---- storing under a write request ------------------------------------------------------------
def store(dst, req, func, *args):
    """Write ``func(*args)`` into ``dst`` following the write request ``req``.

    ``func`` accepts an ``out=`` keyword (a ufunc or a function written like one):
    with 'write' it writes straight into ``dst``, with 'add' it computes a temporary.
    """
    if req == 'add':
        dst += func(*args, out=None)
    elif req == 'write':
        func(*args, out=dst)


def store_from(dst, req, value):
    """Store an already computed ``value`` (``dst``'s shape, or broadcasting to it)
    following ``req``."""
    if req == 'write':
        np.copyto(dst, value)
    elif req == 'add':
        dst += value


def store_cast(dst, req, value):
    """Store ``value`` into ``dst`` following ``req``, converting to ``dst``'s dtype the
    way C casts do (float to int truncates)."""
    if req == 'add':
        dst += value.astype(dst.dtype)
    elif req == 'write':
        np.copyto(dst, value, casting='unsafe')


def _same_memory(a, b):
    return (a.__array_interface__['data'][0] == b.__array_interface__['data'][0]
            and a.nbytes == b.nbytes)


def copy_into(dst, src, req):
    """Store ``src`` (any view, same shape as ``dst``) into ``dst`` following ``req``.

    A 'write' whose destination already is the source's memory (an in-place plan
    for a reshape) is skipped.
    """
    if req == 'write':
        if not (src.flags.c_contiguous and _same_memory(dst, src)):
            np.copyto(dst, src)
    elif req == 'add':
        dst += src


def fill_into(dst, req, value):
    """Store the constant ``value`` everywhere in ``dst`` following ``req``."""
    if req == 'write':
        dst.fill(value)
    elif req == 'add':
        dst += dst.dtype.type(value)


def zero_grad(dst, req):
    """Store a zero gradient (inputs MXNet gives no gradient); 'add' leaves ``dst`` as is."""
    if req == 'write':
        dst.fill(0)


def matmul_into(dst, a, b, req, scale=None):
    """``dst (req)= scale * (a @ b)``: BLAS writes straight into ``dst`` for 'write';
    'add' goes through a scratch buffer (numpy's matmul cannot accumulate)."""
    if req == 'null':
        return
    if req == 'write':
        np.matmul(a, b, out=dst)
        if scale is not None:
            dst *= scale
        return
    tmp = scratch('matmul', dst.shape, dst.dtype)
    np.matmul(a, b, out=tmp)
    if scale is not None:
        tmp *= scale
    dst += tmp
