"""A pickle reader for untrusted files: no code runs, time and memory stay linear in size.

Python's own unpicklers trust the file in two ways that matter here: they call whatever
callable a file names, and they size memory by what the file declares (a 9-byte pickle
with ``LONG_BINPUT 0x10000000`` makes the C unpickler zero-fill a 4 GB memo;
``BINBYTES8`` / ``BYTEARRAY8`` allocate their declared length before reading). This
module instead interprets the opcodes that :func:`pickletools.genops` decodes (which
reads every argument from the bytes present and fails on a short one), on a stack of its
own, so that:

- a global resolves only through the caller's table: plain functions (called with
  already-built arguments) and classes whose instances stay :class:`PickledObject`
  placeholders (class, constructor arguments, ``BUILD`` state) for the caller to
  convert; anything else is refused by name before anything is called;
- the memo is a dict, and an index beyond the file's size is refused;
- dict keys and set items are ``None``, bools, strings, bytes or ints below 2**61
  (whose hashes never collide), so no insertion can degrade to quadratic time;
- after reading, the result is checked once (memoised by ``id``): no reference cycles,
  at most :data:`MAX_DEPTH` levels, and written out as a tree at most
  ``4 * len(data) + 1024`` nodes, so code that later walks it as a tree stays linear.

Every failure is an :class:`~symmod.base.MXNetError` naming ``where`` and the byte offset.
"""
import io
import pickletools

from ..base import MXNetError

__all__ = ['PickledObject', 'load', 'map_leaves', 'MAX_DEPTH', 'describe', 'check_key']

MAX_DEPTH = 64        # containers inside containers; MXNet's files need fewer than 10
_KEY_INT_LIMIT = 2 ** 61 - 1   # ints whose hash is themselves (distinct ints never collide)
_MARK = object()


class PickledObject:
    """An instance of an allowed class as the file describes it; nothing of it has run.

    Attributes
    ----------
    module, name : str
        The class the file names.
    args : tuple
        Constructor arguments (``REDUCE`` / ``NEWOBJ``).
    state : object
        What ``BUILD`` supplied (usually the instance ``__dict__``), or None.
    built : bool
        Whether ``BUILD`` was applied.
    """
    __slots__ = ('module', 'name', 'args', 'state', 'built')

    def __init__(self, module, name, args):
        self.module, self.name, self.args = module, name, args
        self.state, self.built = None, False

    def __repr__(self):
        return '<pickled %s.%s>' % (self.module, self.name)


class _Class:
    """A class named by the file whose instances become PickledObject placeholders."""
    __slots__ = ('module', 'name')

    def __init__(self, module, name):
        self.module, self.name = module, name


def describe(value):
    """A short description of a value for error messages (never a huge repr)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return repr(value) if value.bit_length() < 64 else 'an int of %d bits' \
            % value.bit_length()
    if isinstance(value, (str, bytes, bytearray)):
        text = repr(value[:40])
        return text + ('... (%d long)' % len(value) if len(value) > 40 else '')
    if isinstance(value, float):
        return repr(value)
    return 'a %s' % type(value).__name__


def check_key(key):
    """Return ``key`` if it may be a dict key or set item (hashes that never collide)."""
    if key is None or isinstance(key, (str, bytes, bool)):
        return key
    if isinstance(key, int) and -_KEY_INT_LIMIT < key < _KEY_INT_LIMIT and key not in (-1, -2):
        return key
    raise ValueError('a dict key or set item must be None, a bool, a string, bytes or a '
                     'small int, found %s' % describe(key))


class _Machine:
    """The pickle virtual machine, for the opcodes plain data and allowed classes use."""

    def __init__(self, size, functions, classes, refuse):
        self.size = size
        self.functions = functions
        self.classes = classes
        self.refuse = refuse
        self.stack = []
        self.marks = []
        self.memo = {}
        self.pos = 0

    # ---- helpers ------------------------------------------------------------------------
    def pop_mark(self):
        if not self.marks:
            raise ValueError('an opcode needs a MARK but none is on the stack')
        start = self.marks.pop()
        items = self.stack[start:]
        del self.stack[start:]
        return items

    def pop(self):
        if len(self.stack) <= (self.marks[-1] if self.marks else 0):
            raise ValueError('the stack is empty')
        return self.stack.pop()

    def top(self):
        if len(self.stack) <= (self.marks[-1] if self.marks else 0):
            raise ValueError('the stack is empty')
        return self.stack[-1]

    def resolve(self, module, name):
        if not isinstance(module, str) or not isinstance(name, str):
            raise ValueError('a global must be named by two strings')
        if module == '__builtin__':       # Python 2 pickles
            module = 'builtins'
        if (module, name) in self.functions:
            return self.functions[(module, name)]
        if (module, name) in self.classes:
            return _Class(module, name)
        if (module, name) == ('copyreg', '_reconstructor'):   # protocol 0/1 objects
            return _reconstructor
        if (module, name) == ('builtins', 'object'):
            return _OBJECT
        raise MXNetError(self.refuse(module, name))

    def call(self, func, args):
        if not isinstance(args, tuple):
            raise ValueError('call arguments must be a tuple, found %s' % describe(args))
        if isinstance(func, _Class):
            return PickledObject(func.module, func.name, args)
        if func is _reconstructor:
            if len(args) != 3 or not isinstance(args[0], _Class) \
                    or args[1] is not _OBJECT or args[2] is not None:
                raise ValueError('copyreg._reconstructor is allowed only as (class, object, '
                                 'None)')
            return PickledObject(args[0].module, args[0].name, ())
        if func is _OBJECT or not callable(func):
            raise ValueError('%s cannot be called' % describe(func))
        for arg in args:
            if isinstance(arg, (_Class, PickledObject)) or arg is _OBJECT:
                raise ValueError('a class or object cannot be passed to %s'
                                 % getattr(func, '__name__', 'a function'))
        return func(*args)

    # ---- opcodes: each takes the decoded argument (None for most) ----------------------
    def run(self, data):
        ops = _OPS
        stream = io.BytesIO(data)
        opcodes = pickletools.genops(stream)
        while True:
            self.pos = stream.tell()       # where the next opcode starts, for errors
            opcode, arg, pos = next(opcodes)
            handler = ops.get(opcode.name)
            if handler is None:
                raise MXNetError('refusing the pickle opcode %s at offset %d: symmod reads '
                                 'only plain data and its allowed classes' % (opcode.name, pos))
            if handler(self, arg) is _STOP:
                return self.stack

    def value(self, arg):
        self.stack.append(arg)        # numbers and strings, decoded and length-checked

    def bytearray8(self, arg):
        self.stack.append(bytearray(arg))

    def frame(self, arg):
        if arg > self.size - self.pos:
            raise ValueError('a frame of %s bytes, but only %d remain'
                             % (describe(arg), self.size - self.pos))

    def get(self, index):
        if index not in self.memo:
            raise ValueError('memo entry %s is read before it is written' % describe(index))
        self.stack.append(self.memo[index])

    def put(self, index):
        index = int(index)
        if not 0 <= index <= self.size:
            raise ValueError('memo index %s is beyond the %d bytes of the file'
                             % (describe(index), self.size))
        self.memo[index] = self.top()

    def memoize(self, _):
        self.memo[len(self.memo)] = self.top()

    def mark(self, _):
        self.marks.append(len(self.stack))

    def empty_list(self, _):
        self.stack.append([])

    def empty_dict(self, _):
        self.stack.append({})

    def empty_set(self, _):
        self.stack.append(set())

    def tuple(self, _):
        self.stack.append(tuple(self.pop_mark()))

    def list(self, _):
        self.stack.append(self.pop_mark())

    def dict(self, _):
        items = self.pop_mark()
        if len(items) % 2:
            raise ValueError('DICT needs key/value pairs, found an odd number of items')
        self.stack.append(_fill({}, items))

    def setitem(self, _):
        value = self.pop()
        key = self.pop()
        _fill(self.top(), [key, value])

    def setitems(self, _):
        items = self.pop_mark()
        if len(items) % 2:
            raise ValueError('SETITEMS needs key/value pairs, found an odd number of items')
        _fill(self.top(), items)

    def append(self, _):
        value = self.pop()
        target = self.top()
        if not isinstance(target, list):
            raise ValueError('APPEND needs a list, found %s' % describe(target))
        target.append(value)

    def appends(self, _):
        items = self.pop_mark()
        target = self.top()
        if not isinstance(target, list):
            raise ValueError('APPENDS needs a list, found %s' % describe(target))
        target.extend(items)

    def additems(self, _):
        items = self.pop_mark()
        target = self.top()
        if not isinstance(target, set):
            raise ValueError('ADDITEMS needs a set, found %s' % describe(target))
        target.update(check_key(item) for item in items)

    def frozenset(self, _):
        self.stack.append(frozenset(check_key(item) for item in self.pop_mark()))

    def pop_op(self, _):
        if self.marks and self.marks[-1] == len(self.stack):
            self.marks.pop()        # POP right after a MARK discards the mark, as pickle does
        else:
            self.pop()

    def pop_mark_op(self, _):
        self.pop_mark()

    def dup(self, _):
        self.stack.append(self.top())

    def global_op(self, arg):
        module, _, name = arg.partition(' ')
        self.stack.append(self.resolve(module, name))

    def stack_global(self, _):
        name = self.pop()
        module = self.pop()
        self.stack.append(self.resolve(module, name))

    def reduce(self, _):
        args = self.pop()
        func = self.pop()
        self.stack.append(self.call(func, args))

    def newobj(self, _):
        args = self.pop()
        cls = self.pop()
        if not isinstance(cls, _Class):
            raise ValueError('NEWOBJ needs an allowed class, found %s' % describe(cls))
        self.stack.append(self.call(cls, args))

    def newobj_ex(self, _):
        kwargs = self.pop()
        args = self.pop()
        cls = self.pop()
        if not isinstance(cls, _Class) or kwargs != {}:
            raise ValueError('NEWOBJ_EX needs an allowed class and no keyword arguments')
        self.stack.append(self.call(cls, args))

    def build(self, _):
        state = self.pop()
        target = self.top()
        if not isinstance(target, PickledObject) or target.built:
            raise ValueError('BUILD applies a state once to an object of an allowed class, '
                             'found %s' % describe(target))
        target.state, target.built = state, True


def _fill(target, items):
    """SETITEM(S) / DICT: insert key/value pairs, keys checked."""
    if not isinstance(target, dict):
        raise ValueError('SETITEM(S) needs a dict, found %s' % describe(target))
    for i in range(0, len(items), 2):
        target[check_key(items[i])] = items[i + 1]
    return target


def _push(value):
    return lambda self, _: self.stack.append(value)


def _tuple_n(count):
    def build(self, _):
        if len(self.stack) - (self.marks[-1] if self.marks else 0) < count:
            raise ValueError('TUPLE%d needs %d items on the stack' % (count, count))
        items = tuple(self.stack[-count:])
        del self.stack[-count:]
        self.stack.append(items)
    return build


def _reconstructor():
    """Marker for ``copyreg._reconstructor`` (never called)."""


_OBJECT = object()       # what builtins.object resolves to, for _reconstructor
_STOP = object()
_VALUE_OPS = ('INT', 'BININT', 'BININT1', 'BININT2', 'LONG', 'LONG1', 'LONG4', 'STRING',
              'BINSTRING', 'SHORT_BINSTRING', 'BINBYTES', 'SHORT_BINBYTES', 'BINBYTES8',
              'UNICODE', 'SHORT_BINUNICODE', 'BINUNICODE', 'BINUNICODE8', 'FLOAT', 'BINFLOAT')
_OPS = dict.fromkeys(_VALUE_OPS, _Machine.value)
_OPS.update({
    'PROTO': lambda self, _: None, 'STOP': lambda self, _: _STOP, 'FRAME': _Machine.frame,
    'BYTEARRAY8': _Machine.bytearray8, 'MARK': _Machine.mark,
    'NONE': _push(None), 'NEWTRUE': _push(True), 'NEWFALSE': _push(False),
    'EMPTY_LIST': _Machine.empty_list, 'EMPTY_DICT': _Machine.empty_dict,
    'EMPTY_SET': _Machine.empty_set, 'EMPTY_TUPLE': _push(()),
    'TUPLE1': _tuple_n(1), 'TUPLE2': _tuple_n(2), 'TUPLE3': _tuple_n(3),
    'TUPLE': _Machine.tuple, 'LIST': _Machine.list, 'DICT': _Machine.dict,
    'APPEND': _Machine.append, 'APPENDS': _Machine.appends,
    'SETITEM': _Machine.setitem, 'SETITEMS': _Machine.setitems,
    'ADDITEMS': _Machine.additems, 'FROZENSET': _Machine.frozenset,
    'POP': _Machine.pop_op, 'POP_MARK': _Machine.pop_mark_op, 'DUP': _Machine.dup,
    'GET': _Machine.get, 'BINGET': _Machine.get, 'LONG_BINGET': _Machine.get,
    'PUT': _Machine.put, 'BINPUT': _Machine.put, 'LONG_BINPUT': _Machine.put,
    'MEMOIZE': _Machine.memoize, 'GLOBAL': _Machine.global_op,
    'STACK_GLOBAL': _Machine.stack_global, 'REDUCE': _Machine.reduce,
    'NEWOBJ': _Machine.newobj, 'NEWOBJ_EX': _Machine.newobj_ex, 'BUILD': _Machine.build,
})


def _check_shape(root, max_nodes):
    """Refuse cycles, nesting deeper than MAX_DEPTH and more than ``max_nodes`` tree nodes.

    Each object is visited once (memoised by id); returns nothing, raises ValueError.
    """
    sizes = {}        # id -> (tree size, height) of finished objects
    keep = []         # keeps ids unique while checking
    work = [(root, False)]
    active = set()
    while work:
        obj, done = work.pop()
        if done:
            size, height = 1, 0
            for child in _children(obj):
                child_size, child_height = sizes[id(child)] if _is_node(child) else (1, 0)
                size += child_size
                height = max(height, child_height + 1)
            if height > MAX_DEPTH:
                raise ValueError('the data is nested more than %d levels deep' % MAX_DEPTH)
            if size > max_nodes:
                raise ValueError('the data expands to more than %d objects (shared '
                                 'references count once per use); the file has only %d '
                                 'bytes' % (max_nodes, (max_nodes - 1024) // 4))
            sizes[id(obj)] = (size, height)
            active.discard(id(obj))
            continue
        if id(obj) in sizes:
            continue
        if id(obj) in active:
            raise ValueError('the data contains a reference cycle')
        active.add(id(obj))
        if len(active) > MAX_DEPTH + 1:     # active holds the path from the root
            raise ValueError('the data is nested more than %d levels deep' % MAX_DEPTH)
        keep.append(obj)
        work.append((obj, True))
        for child in _children(obj):
            if isinstance(child, _Class) or child is _OBJECT:
                raise ValueError('the data holds a bare class, not an instance')
            if _is_node(child):
                if id(child) in active:
                    raise ValueError('the data contains a reference cycle')
                if id(child) not in sizes:
                    work.append((child, False))


def _is_node(obj):
    return isinstance(obj, (list, tuple, dict, set, frozenset, PickledObject))


def _children(obj):
    if isinstance(obj, dict):
        return obj.values()
    if isinstance(obj, PickledObject):
        return (obj.args, obj.state)
    return obj if isinstance(obj, (list, tuple, set, frozenset)) else ()


def load(data, functions, classes, refuse, where):
    """Read one pickle from ``data`` without running code from it.

    Parameters
    ----------
    data : bytes-like
        The pickle.
    functions : dict
        ``{(module, name): callable}``: the only callables a file may call, each with
        already-built plain arguments (they must check them).
    classes : set of (module, name)
        Classes whose instances are kept as :class:`PickledObject`.
    refuse : callable
        ``refuse(module, name) -> str``: the message for any other global.
    where : str
        Named in error messages (usually the file name).

    Returns
    -------
    object
        The unpickled value (plain containers, numbers, strings, PickledObject).

    Raises
    ------
    MXNetError
        For a refused global or opcode, a malformed or truncated pickle, a memo index or
        declared length beyond the data, a reference cycle, nesting deeper than
        MAX_DEPTH, or a structure that expands beyond ``4 * len(data) + 1024`` objects.
        The message names ``where`` and the byte offset.
    """
    data = bytes(data)
    machine = _Machine(len(data), functions, classes, refuse)
    try:
        stack = machine.run(data)
        if len(stack) != 1 or machine.marks:
            raise ValueError('STOP with %d values and %d marks on the stack (expected one '
                             'value)' % (len(stack), len(machine.marks)))
        result = stack[0]
        if isinstance(result, _Class) or result is _OBJECT:
            raise ValueError('the pickle holds a bare class')
    except MXNetError as err:
        raise MXNetError('%s: %s' % (where, err)) from None
    except (ValueError, TypeError, OverflowError, KeyError, IndexError, AttributeError,
            UnicodeDecodeError, MemoryError, RecursionError) as err:
        raise MXNetError('%s: not a valid pickle at offset %d (%s)'
                         % (where, machine.pos, err)) from None
    del machine
    try:
        _check_shape(result, 4 * len(data) + 1024)
    except ValueError as err:
        raise MXNetError('%s: %s' % (where, err)) from None
    return result


def map_leaves(root, kind, func):
    """Replace every instance of ``kind`` inside dicts, lists and tuples by ``func(obj)``.

    Each object is visited once (memoised by id), so shared references stay shared and
    the walk is linear in the number of distinct objects (:func:`load` has bounded the
    depth, so the recursion is shallow).
    """
    done = {}

    def walk(obj):
        if id(obj) in done:
            return done[id(obj)]
        if isinstance(obj, kind):
            result = func(obj)
        elif isinstance(obj, dict):
            result = {key: walk(value) for key, value in obj.items()}
        elif isinstance(obj, (list, tuple)):
            result = type(obj)(walk(item) for item in obj)
        else:
            return obj
        done[id(obj)] = result
        return result

    return walk(root)
