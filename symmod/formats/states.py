"""Optimizer states on disk: symmod's own safe format, and MXNet's pickles.

symmod writes (:func:`dumps`) a format that needs no pickle::

    b'SYMMODST'            magic
    u32 version            1
    u64 H                  length of the header
    H bytes                UTF-8 JSON: {"num_arrays": n, "tree": <node>}
    the arrays             an nd.save list file (see params.py) with the n arrays

A node of the tree is ``null``, ``true``/``false``, a JSON int, a JSON string, or an
object with one key: ``{"float": repr(x)}`` (exact, inf and nan included),
``{"list": [nodes]}``, ``{"tuple": [nodes]}``, ``{"dict": [[key, node], ...]}`` (key a
JSON int or string, order kept) or ``{"array": i}`` (the i-th array). An array object
that appears twice is stored once and comes back as one object.

:func:`loads` reads that format and also MXNet's pickled ``.states`` files, through a
restricted unpickler that never runs code from the file (``mxnet_pickle.py``).
:func:`dumps_mxnet` writes pickles MXNet's ``Updater.set_states`` accepts.
"""
import json
import struct

import numpy as np

from ..base import MXNetError
from . import mxnet_pickle, params, pickle_reader

__all__ = ['dumps', 'loads', 'dumps_mxnet', 'add_entry', 'read_entry']

MAGIC = b'SYMMODST'
VERSION = 1
_PREFIX = struct.Struct('<IQ')   # version, header length
_WHERE = 'optimizer states'


def _host_array(value):
    """The numpy array behind an NDArray or numpy array, or None."""
    from ..ndarray.ndarray import NDArray
    if isinstance(value, NDArray):
        return value._host()
    if isinstance(value, np.ndarray):
        return value
    return None


# ---- writing ---------------------------------------------------------------------------
class _Encoder:
    """Turns a state structure into a JSON tree plus a list of arrays."""

    def __init__(self):
        self.arrays = []
        self.index_of = {}   # id(array object) -> position, so shared arrays stay shared
        self.keep = []       # the array objects, alive until encoding ends (ids stay unique)

    def key(self, key):
        if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer, str)):
            raise TypeError('optimizer-state dict keys must be int or str, found %r (%s)'
                            % (key, type(key).__name__))
        return key if isinstance(key, str) else int(key)

    def node(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, (int, np.integer)):
            return int(obj)
        if isinstance(obj, (float, np.floating)):
            return {'float': repr(float(obj))}
        if isinstance(obj, list):
            return {'list': [self.node(item) for item in obj]}
        if isinstance(obj, tuple):
            return {'tuple': [self.node(item) for item in obj]}
        if isinstance(obj, dict):
            return {'dict': [[self.key(k), self.node(v)] for k, v in obj.items()]}
        host = _host_array(obj)
        if host is None:
            raise TypeError('cannot save an object of type %s in optimizer states: expected '
                            'None, bool, int, float, str, list, tuple, dict or arrays'
                            % type(obj).__name__)
        if id(obj) not in self.index_of:
            params._type_flag(host.dtype)   # a clear error for an unsupported dtype, now
            self.index_of[id(obj)] = len(self.arrays)
            self.arrays.append(host)
            self.keep.append(obj)
        return {'array': self.index_of[id(obj)]}


def dumps(obj):
    """Serialize optimizer states to bytes in symmod's format, without pickle.

    Parameters
    ----------
    obj : object
        Nested dicts (int or str keys; order and key types are kept), lists, tuples,
        None, bool, int, float (exact, inf and nan included), str, and arrays (NDArray
        or numpy, any dtype ``nd.save`` supports). numpy scalars are stored as the
        matching Python number.

    Returns
    -------
    bytes

    Raises
    ------
    TypeError
        For an object or dict key of another type.

    Examples
    --------
    >>> blob = dumps({0: (mx.nd.zeros((2,)), None), 'num_update': 7})
    >>> loads(blob)['num_update']
    7
    """
    encoder = _Encoder()
    try:
        tree = encoder.node(obj)
    except RecursionError:
        raise MXNetError('optimizer states are nested too deeply to save') from None
    header = json.dumps({'num_arrays': len(encoder.arrays), 'tree': tree},
                        separators=(',', ':')).encode('utf-8')
    blob = params.encode_arrays(encoder.arrays)
    return MAGIC + _PREFIX.pack(VERSION, len(header)) + header + blob


def dumps_mxnet(obj):
    """Serialize optimizer states as the pickle MXNet 1.x writes and reads.

    MXNet's ``Updater.set_states`` (and so ``Module.load_optimizer_states``) loads the
    result: each array becomes an ``mxnet.ndarray.ndarray.NDArray`` holding one V2 array
    record. Update counts and scheduler state have no place in this format, as in MXNet.

    Parameters
    ----------
    obj : dict
        Usually ``{index: None | NDArray | tuple of those}``; nested lists, tuples,
        dicts, None, bool, int, float and str are allowed too.

    Returns
    -------
    bytes
        A protocol-4 pickle.

    Examples
    --------
    >>> blob = dumps_mxnet({0: mx.nd.zeros((2, 3))})
    >>> blob[:2]
    b'\\x80\\x04'
    """
    try:
        return mxnet_pickle.dumps(obj, _host_array)
    except RecursionError:
        raise MXNetError('optimizer states are nested too deeply to save') from None


# ---- one top-level entry, without touching the arrays -------------------------------------
def _split(blob):
    """(header dict, bytes after the header) of a symmod states blob, or None."""
    data = bytes(blob[:len(MAGIC) + _PREFIX.size])
    if len(data) < len(MAGIC) + _PREFIX.size or data[:len(MAGIC)] != MAGIC:
        return None
    _, header_len = _PREFIX.unpack_from(data, len(MAGIC))
    start = len(MAGIC) + _PREFIX.size
    try:
        header = json.loads(bytes(blob[start:start + header_len]).decode('utf-8'))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(header, dict) or not isinstance(header.get('tree'), dict) \
            or not isinstance(header['tree'].get('dict'), list):
        return None
    return header, blob[start + header_len:]


def add_entry(blob, key, value):
    """Return ``blob`` (symmod's format, a dict at the top) with ``key: value`` added.

    ``value`` is a dict of str to str/int. Only the JSON header is rewritten, so this
    is cheap for any size of arrays. Readers that do not know ``key`` ignore it.
    """
    split = _split(blob)
    if split is None:
        raise MXNetError('add_entry: not symmod optimizer states with a dict at the top')
    header, arrays = split
    header['tree']['dict'].append([key, _Encoder().node(value)])
    text = json.dumps(header, separators=(',', ':')).encode('utf-8')
    return MAGIC + _PREFIX.pack(VERSION, len(text)) + text + bytes(arrays)


def read_entry(blob, key):
    """The plain value stored under top-level ``key`` by :func:`add_entry`, or None
    (also for MXNet's pickles, damaged data and files without it)."""
    split = _split(blob)
    if split is None:
        return None
    for pair in split[0]['tree']['dict']:
        if isinstance(pair, list) and len(pair) == 2 and pair[0] == key:
            try:
                return _Decoder([], _WHERE).node(pair[1])
            except (MXNetError, RecursionError):
                return None
    return None


# ---- reading ---------------------------------------------------------------------------
class _Decoder:
    """Rebuilds the structure from the JSON tree, checking every node."""

    def __init__(self, arrays, where):
        self.arrays = arrays
        self.where = where

    def error(self, what):
        return MXNetError('%s: corrupt header: %s' % (self.where, what))

    def key(self, key):
        if isinstance(key, bool) or not isinstance(key, (int, str)):
            raise self.error('a dict key must be an int or a str, found %r' % (key,))
        return key

    def items(self, value, tag):
        if not isinstance(value, list):
            raise self.error('"%s" must hold a JSON array, found %r' % (tag, value))
        return value

    def node(self, node):
        if node is None or isinstance(node, (bool, int, str)):
            return node
        if not isinstance(node, dict) or len(node) != 1:
            raise self.error('unexpected node %r' % (node,))
        ((tag, value),) = node.items()
        if tag == 'float':
            if not isinstance(value, str):
                raise self.error('a float must be written as a string, found %r' % (value,))
            try:
                return float(value)
            except ValueError:
                raise self.error('bad float %r' % value) from None
        if tag == 'list':
            return [self.node(item) for item in self.items(value, tag)]
        if tag == 'tuple':
            return tuple(self.node(item) for item in self.items(value, tag))
        if tag == 'dict':
            result = {}
            for pair in self.items(value, tag):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise self.error('a dict entry must be [key, value], found %r' % (pair,))
                result[self.key(pair[0])] = self.node(pair[1])
            return result
        if tag == 'array':
            if isinstance(value, bool) or not isinstance(value, int) \
                    or not 0 <= value < len(self.arrays):
                raise self.error('array reference %r is out of range (the file has %d arrays)'
                                 % (value, len(self.arrays)))
            return self.arrays[value]
        raise self.error('unknown node type %r' % tag)


def _loads_symmod(data, wrap, where):
    head = len(MAGIC) + _PREFIX.size
    if len(data) < head:
        raise MXNetError('%s: truncated: the header needs %d bytes, found %d'
                         % (where, head, len(data)))
    version, header_len = _PREFIX.unpack_from(data, len(MAGIC))
    if version != VERSION:
        raise MXNetError('%s: format version %d, this symmod reads version %d (was the file '
                         'written by a newer symmod?)' % (where, version, VERSION))
    if header_len > len(data) - head:
        raise MXNetError('%s: truncated: the header needs %d bytes at offset %d, found %d'
                         % (where, header_len, head, len(data) - head))
    try:
        header = json.loads(bytes(data[head:head + header_len]).decode('utf-8'))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise MXNetError('%s: corrupt header: %s' % (where, err)) from None
    if not isinstance(header, dict) or set(header) != {'num_arrays', 'tree'}:
        raise MXNetError('%s: corrupt header: expected the keys num_arrays and tree' % where)
    arrays, names = params.decode_arrays(data[head + header_len:], where + ' (arrays)')
    if names is not None or len(arrays) != header['num_arrays']:
        raise MXNetError('%s: the header lists %r arrays but the data holds %d%s'
                         % (where, header['num_arrays'], len(arrays),
                            ' named ones' if names is not None else ''))
    try:
        return _Decoder([wrap(a) for a in arrays], where).node(header['tree'])
    except RecursionError:
        raise MXNetError('%s: corrupt header: nested too deeply' % where) from None


def loads(data, ctx=None, where=_WHERE, objects=()):
    """Load optimizer states written by :func:`dumps` or by MXNet (a pickle).

    Nothing in the data is ever executed: symmod's format holds no code, and MXNet's
    pickles go through an unpickler that rebuilds only NDArrays and plain containers
    and numbers and refuses any other global by name.

    Parameters
    ----------
    data : bytes
        The contents of a ``.states`` file.
    ctx : Context, optional
        Where the arrays are placed (default ``cpu(0)``).
    where : str, optional
        What error messages name (the file name, when there is one).
    objects : set of (module, name), optional
        Classes a pickle may also hold (see ``mxnet_pickle.loads``).

    Returns
    -------
    object
        The saved structure, with every array as an NDArray on ``ctx``.

    Raises
    ------
    MXNetError
        For data in neither format, a corrupt or truncated file, a pickle naming any
        other global (a pickled optimizer object from ``get_states(dump_optimizer=True)``
        included).

    Examples
    --------
    >>> with open('mlp-0003.states', 'rb') as f:
    ...     states = loads(f.read())
    >>> sorted(states)
    [0, 1, 2, 3, 4, 5]
    """
    from ..context import Context
    from ..ndarray import device
    from ..ndarray.ndarray import NDArray
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError('optimizer states must be bytes, found %s' % type(data).__name__)
    data = memoryview(data).cast('B')
    ctx = Context('cpu', 0) if ctx is None else ctx

    def wrap(host):
        return NDArray(device.to_context(host, ctx), ctx)

    if bytes(data[:len(MAGIC)]) == MAGIC:
        return _loads_symmod(data, wrap, where)
    if not data:
        raise MXNetError('%s: the data is empty' % where)
    return pickle_reader.map_leaves(mxnet_pickle.loads(data, where, objects), np.ndarray, wrap)
