"""MXNet's pickled optimizer states, read without running code and written by hand.

MXNet's ``Updater.get_states()`` is ``pickle.dumps`` of ``{index: state}``, where a state
is None, an NDArray or a tuple of them. An NDArray pickles as the global
``mxnet.ndarray.ndarray.NDArray``, called with ``(None,)`` and then given the state
``{'handle': bytearray(<one array record>)}``.

Reading: unpickling runs whatever callables a file names and trusts the sizes a file
declares, so :func:`loads` goes through :mod:`symmod.formats.pickle_reader`, which
interprets the opcodes itself: a placeholder for that NDArray class, argument-checking
stand-ins for the few builtins plain data needs, every other global refused before
anything is called, and time and memory linear in the file's size.

Writing: :func:`dumps` emits the protocol-4 opcodes itself, because the standard pickler
can only name a class it can import, and MXNet is not installed alongside symmod.
"""
import struct

import numpy as np

from ..base import MXNetError
from . import params, pickle_reader
from .pickle_reader import describe

__all__ = ['loads', 'dumps', 'Instance', 'ndarray_data']

_NDARRAY_GLOBALS = {('mxnet.ndarray.ndarray', 'NDArray'),
                    ('mxnet.ndarray', 'NDArray'),            # the module before MXNet 1.0
                    ('mxnet.numpy.multiarray', 'ndarray')}   # mx.np arrays pickle alike


def _ndarray_data(obj):
    """The numpy array of a pickled MXNet NDArray: NDArray(None), then {'handle': bytes}."""
    if obj.args != (None,):
        raise MXNetError('a pickled MXNet NDArray must be created as NDArray(None), '
                         'found NDArray(%s)' % ', '.join(describe(a) for a in obj.args))
    state = obj.state
    if not obj.built:
        raise MXNetError('a pickled MXNet NDArray has no state (no handle)')
    if not isinstance(state, dict) or 'handle' not in state:
        raise MXNetError("a pickled MXNet NDArray must have the state {'handle': bytes}, "
                         'found %s' % describe(state))
    handle = state['handle']
    if handle is None:       # MXNet pickles an array without storage this way
        return np.empty((0,), dtype=np.float32)
    if isinstance(handle, (bytes, bytearray)):
        return params.decode_record(handle)
    raise MXNetError('a pickled MXNet NDArray handle must be bytes, found %s'
                     % describe(handle))


def _bytearray(*args):
    """``bytearray`` limited to what pickles of byte strings use (never bytearray(n))."""
    if not args:
        return bytearray()
    if len(args) == 1 and isinstance(args[0], (bytes, bytearray)):
        return bytearray(args[0])
    if len(args) == 2 and isinstance(args[0], str) and args[1] in ('latin-1', 'latin1'):
        return bytearray(args[0], 'latin-1')   # protocols 0-2
    raise MXNetError('refusing bytearray(%s) in an optimizer-state pickle'
                     % ', '.join(describe(a) for a in args))


def _codecs_encode(text, encoding):
    """``_codecs.encode`` as protocols 0-2 use it for bytes: (str, 'latin1') only."""
    if not isinstance(text, str) or encoding not in ('latin-1', 'latin1'):
        raise MXNetError('refusing _codecs.encode(%s, %s) in an optimizer-state pickle'
                         % (describe(text), describe(encoding)))
    return text.encode('latin-1')


def _set_of(kind):
    def build(items=()):
        if not isinstance(items, (list, tuple)):
            raise MXNetError('refusing %s(%s) in an optimizer-state pickle'
                             % (kind.__name__, describe(items)))
        return kind(pickle_reader.check_key(item) for item in items)
    build.__name__ = kind.__name__
    return build


_SAFE_FUNCTIONS = {
    ('builtins', 'bytearray'): _bytearray,
    ('builtins', 'set'): _set_of(set),
    ('builtins', 'frozenset'): _set_of(frozenset),
    ('_codecs', 'encode'): _codecs_encode,
}


def _refusal(module, name):
    """Why a global other than the allowed ones is refused."""
    if module == 'mxnet.ndarray.sparse':
        return ('refusing to load %s.%s from an optimizer-state pickle: symmod supports only '
                'dense arrays' % (module, name))
    if module.startswith(('mxnet.optimizer', 'mxnet.lr_scheduler')):
        return ('refusing to load %s.%s from an optimizer-state pickle: pickled MXNet optimizer '
                'objects (Updater.get_states(dump_optimizer=True), gluon Trainer.save_states) '
                'are read only by Updater.set_states and Trainer.load_states, and only for '
                "MXNet's built-in optimizer and lr-scheduler classes" % (module, name))
    return ('refusing to load %s.%s from an optimizer-state pickle: only MXNet NDArrays, '
            'plain containers and numbers are allowed (unpickling anything else can run '
            'code)' % (module, name))


def ndarray_data(obj):
    """The numpy array of a PickledObject that is an MXNet NDArray (else an MXNetError)."""
    if (obj.module, obj.name) in _NDARRAY_GLOBALS:
        return _ndarray_data(obj)
    raise MXNetError(_refusal(obj.module, obj.name))


def loads(data, where='optimizer states', objects=()):
    """Read an MXNet optimizer-state pickle without executing anything from it.

    The pickle is interpreted by :mod:`symmod.formats.pickle_reader`: time and memory
    are linear in the size of the data, and only MXNet's NDArray class and the
    plain-data builtins are allowed.

    Parameters
    ----------
    data : bytes
        What MXNet's ``Updater.get_states()`` returned (a ``.states`` file).
    where : str
        Named in error messages.

    objects : set of (module, name), optional
        Further classes allowed (MXNet's optimizers and lr schedulers, say); their
        instances come back as :class:`~symmod.formats.pickle_reader.PickledObject`
        placeholders, with their contents unconverted.

    Returns
    -------
    object
        The pickled structure (dict, tuples, None ...) with numpy arrays for the NDArrays.
        An array object referenced twice comes back as one numpy array.

    Raises
    ------
    MXNetError
        For a global other than MXNet's NDArray and the plain-data builtins (naming it),
        a pickled optimizer object, or bytes that are not a valid pickle.
    """
    objects = set(objects)
    obj = pickle_reader.load(data, _SAFE_FUNCTIONS, _NDARRAY_GLOBALS | objects, _refusal,
                             where)

    def convert(placeholder):
        if (placeholder.module, placeholder.name) in objects:
            return placeholder
        return ndarray_data(placeholder)

    try:
        return pickle_reader.map_leaves(obj, pickle_reader.PickledObject, convert)
    except MXNetError as err:
        raise MXNetError('%s: %s' % (where, err)) from None


class Instance:
    """An object for :func:`dumps` to write as MXNet's pickler does for a plain class:
    ``module.name`` made with no arguments (``NEWOBJ``), then given ``state`` (``BUILD``:
    ``__setstate__`` or an update of ``__dict__``)."""
    __slots__ = ('module', 'name', 'state')

    def __init__(self, module, name, state):
        self.module, self.name, self.state = module, name, state


# ---- writing: protocol-4 opcodes ---------------------------------------------------------
def _str(text):
    raw = text.encode('utf-8')
    if len(raw) < 256:
        return b'\x8c' + bytes([len(raw)]) + raw                 # SHORT_BINUNICODE
    return b'\x8d' + struct.pack('<Q', len(raw)) + raw             # BINUNICODE8


def _bytes(raw):
    if len(raw) < 256:
        return b'C' + bytes([len(raw)]) + raw                      # SHORT_BINBYTES
    return b'\x8e' + struct.pack('<Q', len(raw)) + raw             # BINBYTES8


def _int(value):
    if 0 <= value < 256:
        return b'K' + bytes([value])                                # BININT1
    if 0 <= value < 65536:
        return b'M' + struct.pack('<H', value)                      # BININT2
    if -2 ** 31 <= value < 2 ** 31:
        return b'J' + struct.pack('<i', value)                      # BININT
    raw = value.to_bytes((value.bit_length() + 8) // 8, 'little', signed=True)
    if len(raw) < 256:
        return b'\x8a' + bytes([len(raw)]) + raw                    # LONG1
    return b'\x8b' + struct.pack('<i', len(raw)) + raw              # LONG4


_GLOBAL_NDARRAY = _str('mxnet.ndarray.ndarray') + _str('NDArray') + b'\x93'   # STACK_GLOBAL
_GLOBAL_BYTEARRAY = _str('builtins') + _str('bytearray') + b'\x93'
_TUPLE_N = {1: b'\x85', 2: b'\x86', 3: b'\x87'}


def _emit(obj, out, host_array):
    if obj is None:
        out.append(b'N')
    elif isinstance(obj, (bool, np.bool_)):
        out.append(b'\x88' if obj else b'\x89')                      # NEWTRUE / NEWFALSE
    elif isinstance(obj, (int, np.integer)):
        out.append(_int(int(obj)))
    elif isinstance(obj, (float, np.floating)):
        out.append(b'G' + struct.pack('>d', float(obj)))            # BINFLOAT
    elif isinstance(obj, str):
        out.append(_str(obj))
    elif isinstance(obj, bytes):
        out.append(_bytes(obj))
    elif isinstance(obj, tuple):
        if not obj:
            out.append(b')')                                         # EMPTY_TUPLE
            return
        if len(obj) > 3:
            out.append(b'(')                                         # MARK
        for item in obj:
            _emit(item, out, host_array)
        out.append(_TUPLE_N.get(len(obj), b't'))                    # TUPLE1..3 / TUPLE
    elif isinstance(obj, list):
        out.append(b']')                                             # EMPTY_LIST
        if obj:
            out.append(b'(')
            for item in obj:
                _emit(item, out, host_array)
            out.append(b'e')                                         # APPENDS
    elif isinstance(obj, Instance):
        out.append(_str(obj.module) + _str(obj.name) + b'\x93' + b')\x81')  # NEWOBJ cls()
        _emit(obj.state, out, host_array)
        out.append(b'b')                                             # BUILD
    elif isinstance(obj, dict):
        out.append(b'}')                                             # EMPTY_DICT
        if obj:
            out.append(b'(')
            for key, value in obj.items():
                _emit(key, out, host_array)
                _emit(value, out, host_array)
            out.append(b'u')                                         # SETITEMS
    else:
        host = host_array(obj)
        if host is None:
            raise TypeError('cannot write an object of type %s into an MXNet optimizer-state '
                            'pickle: expected None, numbers, str, tuples, lists, dicts and '
                            'arrays' % type(obj).__name__)
        # NDArray(None), then BUILD with {'handle': bytearray(record)}
        out.append(_GLOBAL_NDARRAY + b'N\x85R' + b'}' + _str('handle') + _GLOBAL_BYTEARRAY)
        out.append(_bytes(params.encode_record(host)))
        out.append(b'\x85R' + b's' + b'b')                           # TUPLE1 REDUCE SETITEM BUILD


def dumps(obj, host_array):
    """Write ``obj`` as a protocol-4 pickle that MXNet's ``pickle.loads`` rebuilds.

    Parameters
    ----------
    obj : object
        None, bool, int, float, str, bytes, tuple, list, dict, arrays and
        :class:`Instance` objects.
    host_array : callable
        Maps an array object to its numpy array, or returns None for a non-array.

    Returns
    -------
    bytes
        Each array becomes an ``mxnet.ndarray.ndarray.NDArray`` whose handle is one V2
        array record, as MXNet's own ``NDArray.__reduce__`` writes it.
    """
    out = [b'\x80\x04']                                              # PROTO 4
    _emit(obj, out, host_array)
    out.append(b'.')                                                 # STOP
    return b''.join(out)
