"""Shared basics: the error type, the small helpers ``mxnet.base`` exports, and parsing of
the string attributes that symbols store (MXNet keeps every operator parameter as its
Python ``str()``)."""
import ast
import ctypes
import os

import numpy as np

__all__ = ['MXNetError', 'NotImplementedForSymbol', 'NotSupportedForSparseNDArray',
           'string_types', 'numeric_types', 'integer_types', 'mx_real_t', 'py_str',
           'data_dir', 'data_dir_default', 'parse_bool', 'parse_int', 'parse_float', 'parse_tuple', 'parse_optional',
           'parse_dtype', 'attr_str', 'NDArrayHandle']

string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)


mx_real_t = np.float32

# what an NDArray turns into under ctypes (``ctypes.cast(arr, NDArrayHandle)``, as MXNet's
# monitor callbacks do); ``NDArray(handle)`` turns it back
NDArrayHandle = ctypes.c_void_p


class MXNetError(RuntimeError):
    """Error raised by symmod where MXNet raises ``mxnet.base.MXNetError`` (a RuntimeError)."""


class NotImplementedForSymbol(MXNetError):
    """An NDArray-only function was called with a Symbol."""

    def __init__(self, function, alias=None, *args):
        super().__init__()
        self.function = getattr(function, '__name__', function)
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = 'Function %s' % self.function
        if self.alias:
            msg += ' (namely operator "%s")' % self.alias
        if self.args:
            msg += ' with arguments (%s)' % ', '.join(self.args)
        return msg + ' is not implemented for Symbol and only available in NDArray.'


class NotSupportedForSparseNDArray(NotImplementedForSymbol):
    """A dense-only function was called with a sparse array."""

    def __str__(self):
        return super().__str__().replace('is not implemented for Symbol',
                                         'is not supported for SparseNDArray')


def py_str(data):
    """Decode UTF-8 bytes to str (what C strings become in Python)."""
    return data.decode('utf-8')


def _as_list(obj):
    """``obj`` itself if it is a list or tuple, otherwise ``[obj]``."""
    if isinstance(obj, (list, tuple)):
        return obj
    return [obj]


def data_dir_default():
    """The default data directory: ``%APPDATA%/mxnet`` on Windows, ``~/.mxnet`` elsewhere."""
    if os.name == 'nt':
        return os.path.join(os.environ.get('APPDATA', ''), 'mxnet')
    return os.path.join(os.path.expanduser('~'), '.mxnet')


def data_dir():
    """Where downloads and model files live: ``$MXNET_HOME`` or :func:`data_dir_default`."""
    return os.getenv('MXNET_HOME', data_dir_default())


class _NullType:
    """Placeholder for "argument not given", distinct from None (as MXNet's ``_Null``)."""
    __slots__ = ()

    def __repr__(self):
        return '_Null'


_Null = _NullType()


def parse_bool(value):
    """Parse MXNet's boolean spellings: True/False/1/0 in any case."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, integer_types):
        return bool(value)
    text = str(value).strip().lower()
    if text in ('true', '1'):
        return True
    if text in ('false', '0'):
        return False
    raise ValueError('expected a boolean (True/False/1/0), found %r' % (value,))


def parse_int(value):
    """Parse an integer attribute (accepts ``"128"``, ``128``, ``128.0``)."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, integer_types):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if float(value) != int(value):
            raise ValueError('expected an integer, found %r' % (value,))
        return int(value)
    text = str(value).strip()
    try:
        return int(text)
    except ValueError:
        as_float = float(text)
        if as_float != int(as_float):
            raise ValueError('expected an integer, found %r' % (value,)) from None
        return int(as_float)


def parse_float(value):
    """Parse a float attribute (``"0.5"``, ``0.5``, ``"1e-3"``, ``"inf"``)."""
    if isinstance(value, (int, float, np.number)):
        return float(value)
    return float(str(value).strip())


def parse_tuple(value, item=int):
    """Parse a shape-like attribute: ``"(5, 5)"``, ``"[2,2]"``, ``"3"``, ``(5, 5)``.

    Returns a tuple whose items are parsed by ``item``; ``None``/``"None"`` gives ``None``.
    """
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return tuple(item(v) for v in value)
    if isinstance(value, integer_types + (float,)):
        return (item(value),)
    text = str(value).strip()
    if text in ('None', ''):
        return None if text == 'None' else ()
    try:
        parsed = ast.literal_eval(text)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        # MemoryError / RecursionError: the parser's nesting limits ("-----1", "1+1+...")
        if len(text) > 60:
            text = text[:57] + '...'
        raise ValueError('expected a tuple such as "(1, 2)", found %r' % (text,)) from None
    if parsed is None:
        return None
    if isinstance(parsed, (tuple, list)):
        return tuple(item(v) for v in parsed)
    return (item(parsed),)


def parse_optional(parser):
    """Wrap ``parser`` so that None / "None" parse to None (MXNet's ``dmlc::optional``)."""
    def parse(value):
        if value is None or (isinstance(value, str) and value.strip() == 'None'):
            return None
        return parser(value)
    parse.__name__ = 'optional_' + getattr(parser, '__name__', 'value')
    return parse


_DTYPE_ALIASES = {'float': 'float32', 'double': 'float64', 'half': 'float16'}


def parse_dtype(value):
    """Parse a dtype given as a numpy dtype, a type, or a name such as ``"float32"``."""
    if value is None:
        return None
    if isinstance(value, str):
        value = _DTYPE_ALIASES.get(value.strip(), value.strip())
        if value == 'None':
            return None
    return np.dtype(value)


def attr_str(value):
    """Render a parameter value the way MXNet stores it in symbol attributes."""
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, np.generic):       # numpy 2 would print np.int64(3)
        return str(value.item())
    if isinstance(value, (tuple, list)):
        # numpy 2 prints np.int64(3) inside containers; MXNet's str() saw plain 3
        value = type(value)(v.item() if isinstance(v, np.generic) else v for v in value)
    return str(value)
