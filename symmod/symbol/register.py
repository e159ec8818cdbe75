"""``mx.sym.<op>`` functions generated from the operator registry.

A call creates one operator node, names it (``NameManager``), attaches scope
attributes (``AttrScope``), and composes its inputs: positional symbols fill the
operator's inputs in order, keyword symbols fill them by name, and any input left
over becomes a new variable ``<name>_<input>`` that copies the node's attributes
(as MXNet does, so ``fc1_weight`` carries ``num_hidden``).
"""
from ..base import MXNetError, attr_str
from ..ops import registry
from .. import attribute, name as _name
from .node import Node
from .symbol import Symbol, hidden_attrs, _FUNCS

__all__ = ['make_function', 'create', 'populate']


def create(op_name, hint, args, kwargs, params, name=None, attr=None):
    """Create an operator node and compose it with input symbols.

    Parameters
    ----------
    op_name : str
        Registered operator name or alias.
    hint : str
        Stem for automatic naming.
    args : list of Symbol
        Positional inputs.
    kwargs : dict of str to Symbol
        Inputs by name.
    params : dict
        Operator parameters (any Python values; stored as strings).
    name : str, optional
    attr : dict of str to str, optional
    """
    op_cls = registry.get(op_name)
    param_names = {p.name for p in op_cls.params}
    node_attrs = {}
    other = attribute.current().get(attr)
    for key, value in params.items():
        if op_cls.takes_param(key):
            node_attrs[key] = attr_str(value)
        else:
            other[key] = value
    for key, value in hidden_attrs(other).items():
        if not (key.startswith('__') and key.endswith('__')):
            raise MXNetError("Cannot find argument '%s' of operator %s. Possible arguments: %s"
                             % (key, op_cls.name, ', '.join(sorted(param_names)) or '(none)'))
        node_attrs[key] = value
    node_name = _name.current().get(name, hint)
    node = Node(op_cls.name, node_name, node_attrs)
    op = node.operator()      # parses and validates the parameters
    input_names = op.list_arguments() + op.list_auxiliary_states()
    for i, arg in enumerate(list(args) + list(kwargs.values())):
        if not isinstance(arg, Symbol):
            raise TypeError('%s: inputs must be Symbols, found %s' % (hint, type(arg).__name__))
        if len(arg._outputs) != 1:
            raise MXNetError('%s: input %d is a group of %d outputs; a single output is '
                             'required' % (node_name, i, len(arg._outputs)))
    if len(args) > len(input_names):
        raise MXNetError('Operator %s takes %d inputs (%s), %d given'
                         % (op_cls.name, len(input_names), ', '.join(input_names), len(args)))
    if not input_names:
        kwargs = {}         # nnvm ignores symbols given to an operator without inputs
    order = op.positional_inputs()
    slots = range(len(args)) if order == input_names else \
        [input_names.index(n) for n in order[:len(args)]]
    positional = dict(zip(slots, args))
    free = [n for i, n in enumerate(input_names) if i not in positional]
    unknown = [k for k in kwargs if k not in free]
    if unknown:
        raise MXNetError('Symbol.Compose: keyword argument name %s not found for operator %s. '
                         'Candidate arguments: %s' % (', '.join(unknown), op_cls.name,
                                                      ', '.join(free)))
    inputs = []
    for index, input_name in enumerate(input_names):
        given = positional[index] if index in positional else kwargs.get(input_name)
        if given is not None:
            inputs.append(given._outputs[0])
        else:
            var_name = '%s_%s' % (node_name, input_name) if node_name else input_name
            inputs.append((Node(None, var_name, dict(node.attrs)), 0))
    node.inputs = inputs
    node.bump_versions()
    for index, (child, _) in enumerate(inputs):
        if child.op is None:
            extra = op.input_var_attrs(index)
            if extra:
                child.set_attrs({k: v for k, v in extra.items() if k not in child.attrs})
    return Symbol([(node, i) for i in range(op.num_visible_outputs())])


def make_function(func_name, op_cls):
    """Build the ``mx.sym.<func_name>`` function for operator class ``op_cls``."""
    param_order = [p.name for p in op_cls.params]
    hint = func_name.lower()

    def function(*args, name=None, attr=None, out=None, **kwargs):
        # leading Symbols (and Nones: inputs not given, skipped as MXNet does) are the
        # array inputs; the rest are parameters in declaration order
        sym_args, extra = [], []
        for a in args:
            if extra or not (a is None or isinstance(a, Symbol)):
                extra.append(a)
            elif a is not None:
                sym_args.append(a)
        sym_args += [a for a in extra if isinstance(a, Symbol)]
        extra = [a for a in extra if not isinstance(a, Symbol)]
        sym_kwargs = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
        # an input given as None is not given (MXNet's generated functions skip it)
        params = {k: v for k, v in kwargs.items() if not isinstance(v, Symbol)
                  and not (v is None and not op_cls.takes_param(k))}
        if extra:
            if op_cls.key_var_num_args:
                raise TypeError('Positional arguments must be Symbol instances, but got %s'
                                % str(extra[0]))
            free = [p for p in param_order if p not in params]
            params.update(zip(free, extra))
        if op_cls.key_var_num_args and op_cls.key_var_num_args not in params:
            params[op_cls.key_var_num_args] = len(sym_args) + len(sym_kwargs)
        return create(func_name, hint, sym_args, sym_kwargs, params, name=name, attr=attr)

    function.__name__ = func_name
    function.__qualname__ = func_name
    function.__doc__ = (op_cls.__doc__ or func_name).strip()
    return function


def populate(namespace, internal_namespace):
    """Add a symbol function per registered operator name to the given module dicts."""
    for op_name in registry.list_operators():
        fn = make_function(op_name, registry.get(op_name))
        _FUNCS[op_name] = fn
        if op_name.startswith('_'):
            internal_namespace[op_name] = fn
        namespace[op_name] = fn
