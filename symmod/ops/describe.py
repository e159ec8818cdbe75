"""What MXNet's operator introspection (``mx.operator.get_operator_arguments``) reports
for a registered operator: its array inputs then its parameters, each with a type string
in MXNet's wording (``'NDArray-or-Symbol'``, ``"{'relu', 'tanh'}, required"``,
``'int, optional, default=1'``)."""
import collections

from . import registry

__all__ = ['OperatorArguments', 'operator_arguments']

OperatorArguments = collections.namedtuple('OperatorArguments', ['narg', 'names', 'types'])

# parser names (their __name__) -> MXNet's type word
_TYPE_WORDS = {'parse_int': 'int', 'parse_float': 'float', 'parse_bool': 'boolean',
               'parse_tuple': 'Shape(tuple)', 'parse_dtype': 'dtype', 'str': 'string',
               '_floats': 'tuple of <float>'}


def _type_word(parse):
    """MXNet's type word for a parser, and the separator before 'optional'."""
    name = getattr(parse, '__name__', 'value')
    optional = name.startswith('optional_')
    name = name[len('optional_'):] if optional else name
    if name.startswith('{'):          # an enum: the choices sorted, None first if allowed
        choices = sorted(part.strip() for part in name[1:-1].split(','))
        return '{%s}' % ', '.join((['None'] if optional else []) + choices), ','
    word = _TYPE_WORDS.get(name, name.lstrip('_').replace('parse_', '') or 'value')
    return ('%s or None' % word) if optional else word, ', '


def _default_text(value):
    if isinstance(value, bool):
        return '1' if value else '0'      # dmlc prints booleans as integers
    if isinstance(value, str):
        return "'%s'" % value
    if isinstance(value, tuple):
        return '[%s]' % ','.join(str(v) for v in value)
    return str(value)


def _inputs(cls):
    """Input names of an operator with its default parameters (required ones unset)."""
    if cls.key_var_num_args:
        return ['data'], 'NDArray-or-Symbol[]'
    op = cls.__new__(cls)
    for p in cls.params:
        setattr(op, p.name, None if p.default is registry.REQUIRED else p.default)
    try:
        op.check_params()
    except Exception:       # pylint: disable=broad-except  (required parameters unset)
        pass
    try:
        names = list(op.list_arguments()) + list(op.list_auxiliary_states())
    except Exception:       # pylint: disable=broad-except
        names = ['data']
    return names, 'NDArray-or-Symbol'


def operator_arguments(op_name):
    """The :class:`OperatorArguments` (count, names, types) of operator ``op_name``."""
    cls = registry.get(op_name)
    names, input_type = _inputs(cls)
    types = [input_type] * len(names)
    for p in cls.params:
        word, sep = _type_word(p.parse)
        if p.default is registry.REQUIRED:
            types.append('%s, required' % word)
        else:
            default = _default_text(p.default)
            if sep == ',' and p.default is None:
                default = "'None'"
            types.append('%s%soptional, default=%s' % (word, sep, default))
        names.append(p.name)
    return OperatorArguments(len(names), names, types)
