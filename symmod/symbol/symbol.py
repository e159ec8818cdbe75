"""Symbol: a handle on output entries of a graph of nodes, MXNet's symbolic API."""
import warnings

import numpy as np

from ..base import MXNetError, NotImplementedForSymbol, numeric_types
from .. import attribute
from ..formats.dtypes import dtype_to_flag
from . import graph as _graph
from .node import Node
from .infer import infer_shapes, infer_types

__all__ = ['Symbol', 'var', 'Variable', 'Group', 'load', 'load_json', 'HIDDEN_KEYS',
           'hidden_attrs']

HIDDEN_KEYS = ('ctx_group', 'lr_mult', 'wd_mult', 'force_mirroring', 'mirror_stage')

# Filled by .register: symbol functions by operator name (avoids an import cycle).
_FUNCS = {}


def hidden_attrs(attrs):
    """Rename the hidden keys MXNet accepts in plain form (``lr_mult`` -> ``__lr_mult__``).

    Keys such as ``weight_lr_mult`` are refused with MXNet's deprecation message.
    """
    out = {}
    for key, value in attrs.items():
        for hidden in HIDDEN_KEYS:
            if key == hidden:
                key = '__%s__' % hidden
                break
            if key.endswith('_' + hidden) and not key.startswith('__'):
                raise MXNetError(
                    'setting variable attributes with %s is deprecated. please instead use\n'
                    'w = Variable(%s=%s)\nsym = YourSymbolName(%s=w)'
                    % (key, hidden, value, key[:-len(hidden) - 1]))
        out[key] = str(value)
    return out


class Symbol:
    """Symbolic expression: one or more output entries of a computation graph.

    Build symbols with :func:`var` and the operator functions in ``mx.sym``;
    combine them with arithmetic, :func:`Group` and composition (``sym(data=x)``).
    """
    __slots__ = ('_outputs', '_order')
    __array_priority__ = 1000.0

    def __init__(self, outputs):
        self._outputs = list(outputs)
        self._order = None

    # ---- graph access ------------------------------------------------------------
    def _nodes(self):
        """All nodes in MXNet's DFS post-order (cached)."""
        if self._order is None:
            self._order = _graph.post_order(self._outputs)
        return self._order

    def _head_node(self):
        """The single node behind all outputs, or None for a group of several nodes."""
        node = self._outputs[0][0]
        return node if all(n is node for n, _ in self._outputs) else None

    @property
    def name(self):
        """The name of a single-node symbol; None for a group."""
        node = self._head_node()
        return None if node is None else node.name

    def __repr__(self):
        node = self._head_node()
        if node is not None:
            return '<Symbol %s>' % node.name
        return '<Symbol group [%s]>' % ', '.join(n.name for n, _ in self._outputs)

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (self[i] for i in range(len(self._outputs)))

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, n in enumerate(names) if n == index]
            if len(matches) > 1:
                raise ValueError('There are multiple outputs with name "%s"' % index)
            if not matches:
                raise ValueError('Cannot find output that matches name "%s"' % index)
            index = matches[0]
        if isinstance(index, slice):
            return Symbol(self._outputs[index])
        if not isinstance(index, int):
            raise TypeError('Symbol only supports integer, slice or string index, found %s'
                            % type(index).__name__)
        if not -len(self._outputs) <= index < len(self._outputs):
            raise IndexError('Symbol index %d out of range (%d outputs)'
                             % (index, len(self._outputs)))
        return Symbol([self._outputs[index]])

    # ---- copying and composition ------------------------------------------------
    def __copy__(self):
        return self.__deepcopy__(None)

    def __deepcopy__(self, memo):
        mapping = {}
        for node in self._nodes():
            clone = Node(node.op, node.name, node.attrs,
                         [(mapping[id(c)], i) for c, i in node.inputs], node.versions)
            clone.mutations = node.mutations
            mapping[id(node)] = clone
        return Symbol([(mapping[id(n)], i) for n, i in self._outputs])

    def __call__(self, *args, **kwargs):
        """Compose: a copy of this symbol with its variables replaced by ``args`` / ``kwargs``."""
        result = self.__copy__()
        result._compose(*args, **kwargs)
        return result

    def _compose(self, *args, **kwargs):
        """Replace variables (in list_inputs order, or by name) by other symbols, in place."""
        name = kwargs.pop('name', None)
        if name:
            head = self._head_node()
            if head is not None:
                head.name = name
        for value in list(args) + list(kwargs.values()):
            if not isinstance(value, Symbol):
                raise TypeError('Compose expects Symbol arguments, found %s'
                                % type(value).__name__)
            if len(value._outputs) != 1:
                raise MXNetError('Compose: argument %r has %d outputs, a single output is '
                                 'required' % (value.name, len(value._outputs)))
        variables = [n for n in self._nodes() if n.op is None]
        replace = {}
        for node, value in zip(variables, args):
            replace[id(node)] = value._outputs[0]
        if len(args) > len(variables):
            raise MXNetError('Compose: %d positional arguments for %d inputs'
                             % (len(args), len(variables)))
        by_name = {n.name: n for n in variables[len(args):]}
        unknown = [k for k in kwargs if k not in by_name]
        if unknown:
            raise MXNetError('Compose: keyword argument name %s not found. Candidate '
                             'arguments: %s' % (', '.join(unknown), ', '.join(by_name)))
        for key, value in kwargs.items():
            replace[id(by_name[key])] = value._outputs[0]
        for node in self._nodes():
            node.inputs = [replace.get(id(c), (c, i)) if c.op is None else (c, i)
                           for c, i in node.inputs]
        self._outputs = [replace.get(id(n), (n, i)) if n.op is None else (n, i)
                         for n, i in self._outputs]
        self._order = None

    # ---- listing ------------------------------------------------------------------
    def list_arguments(self):
        """Names of the arguments (inputs that are not auxiliary states), in DFS order."""
        nodes = self._nodes()
        mutable = _graph.mutable_input_nodes(nodes)
        return [n.name for n in nodes if n.op is None and id(n) not in mutable]

    def list_auxiliary_states(self):
        """Names of the auxiliary states (e.g. BatchNorm's moving_mean), in DFS order."""
        nodes = self._nodes()
        mutable = _graph.mutable_input_nodes(nodes)
        return [n.name for n in nodes if n.op is None and id(n) in mutable]

    def list_inputs(self):
        """Names of all inputs: arguments and auxiliary states, in DFS order."""
        return [n.name for n in self._nodes() if n.op is None]

    def list_outputs(self):
        """Names of the outputs (``<node>_<output>``, or the variable's name)."""
        return [node.output_name(i) for node, i in self._outputs]

    def get_internals(self):
        """A group of every visible output of every node, in DFS order."""
        entries = []
        for node in self._nodes():
            entries.extend((node, i) for i in range(node.num_visible_outputs()))
        return Symbol(entries)

    def get_children(self):
        """A group of the inputs of this symbol's node(s), or None when there are none."""
        entries = []
        seen = set()
        for node, _ in self._outputs:      # each node once, as nnvm does
            if id(node) not in seen:
                seen.add(id(node))
                entries.extend(node.inputs)
        return Symbol(entries) if entries else None

    # ---- attributes ------------------------------------------------------------------
    def attr(self, key):
        """The attribute ``key`` of a single-node symbol (also looks up ``__key__``)."""
        node = self._head_node()
        if node is None:
            return None
        if key == 'name':
            return node.name
        if key in node.attrs:
            return node.attrs[key]
        return node.attrs.get('__%s__' % key)

    def list_attr(self, recursive=False):
        """The head node's attributes; hidden ``__key__`` ones also appear as ``key``."""
        if recursive:
            raise DeprecationWarning('Symbol.list_attr with recursive=True has been deprecated. '
                                     'Please use attr_dict instead.')
        node = self._head_node() or self._outputs[0][0]
        return _with_plain_keys(node.attrs)

    def attr_dict(self):
        """Attributes of every node that has any: ``{node_name: {key: value}}``."""
        result = {}
        for node in self._nodes():
            if node.attrs:
                result.setdefault(node.name, {}).update(_with_plain_keys(node.attrs))
        return result

    def _set_attr(self, **kwargs):
        """Set attributes of a single-node symbol (``lr_mult`` is stored as ``__lr_mult__``)."""
        node = self._head_node()
        if node is None:
            raise MXNetError('Symbol.SetAttrs only works for non-grouped symbol')
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ValueError('Set Attr only accepts string values')
        attrs = hidden_attrs(kwargs)
        if 'name' in attrs:
            node.name = attrs.pop('name')
        node.set_attrs(attrs)

    # ---- inference ----------------------------------------------------------------------
    def _known(self, args, kwargs, what):
        names = self.list_arguments()
        if args and kwargs:
            raise ValueError('Can only specify known argument %ss either by positional or '
                             'kwargs way.' % what)
        known = {}
        if args:
            for key, value in zip(names, args):
                if value is not None:
                    known[key] = value
        else:
            inputs = self.list_inputs()
            for key, value in kwargs.items():
                if key not in inputs:
                    raise MXNetError('Keyword argument name %s not found.\nCandidate arguments:'
                                     '\n\t%s' % (key, '\n\t'.join(inputs)))
                if value is not None:
                    known[key] = value
        return known

    def _entries(self):
        nodes = self._nodes()
        mutable = _graph.mutable_input_nodes(nodes)
        args = [n for n in nodes if n.op is None and id(n) not in mutable]
        auxs = [n for n in nodes if n.op is None and id(n) in mutable]
        return nodes, args, auxs

    def infer_shape(self, *args, **kwargs):
        """Infer the shapes of arguments, outputs and auxiliary states.

        Parameters
        ----------
        *args, **kwargs
            Known shapes, positionally (list_arguments order) or by name.

        Returns
        -------
        arg_shapes, out_shapes, aux_shapes : lists of tuples, or (None, None, None)
            when some shape cannot be decided (a warning names the arguments).
        """
        try:
            arg_shapes, out_shapes, aux_shapes = self._infer_shape_impl(args, kwargs)
        except MXNetError as err:
            given = zip(self.list_arguments(), args) if args else kwargs.items()
            listing = ''.join('\n  %s: %s' % (k, v) for k, v in given)
            raise MXNetError('infer_shape error. Arguments:%s\n%s' % (listing, err)) from None
        if any(not _complete(s) for s in arg_shapes + out_shapes + aux_shapes):
            unknowns = ['%s: %s' % (n, s) for n, s in zip(self.list_arguments(), arg_shapes)
                        if not _complete(s)]
            warnings.warn('Cannot decide shape for the following arguments (0s in shape means '
                          'unknown dimensions). Consider providing them as input:\n\t'
                          + '\n\t'.join(unknowns), stacklevel=2)
            return None, None, None
        return arg_shapes, out_shapes, aux_shapes

    def infer_shape_partial(self, *args, **kwargs):
        """Like :meth:`infer_shape`, but returns what is known. Unknown shapes are ``()``
        and unknown dims 0; with NumPy-shape semantics on (``mx.np_shape``) they are None
        and -1."""
        from ..util import is_np_shape
        arg_shapes, out_shapes, aux_shapes = self._infer_shape_impl(args, kwargs)
        if is_np_shape():
            fix = lambda shapes: [None if s is None else tuple(d if d > 0 else -1 for d in s)
                                  for s in shapes]
        else:
            fix = lambda shapes: [() if s is None else s for s in shapes]
        return fix(arg_shapes), fix(out_shapes), fix(aux_shapes)

    def _infer_shape_impl(self, args, kwargs):
        known = {k: tuple(v) for k, v in self._known(args, kwargs, 'shape').items()}
        nodes, arg_nodes, aux_nodes = self._entries()
        table = infer_shapes(nodes, known)
        return ([table.get((id(n), 0)) for n in arg_nodes],
                [table.get((id(n), i)) for n, i in self._outputs],
                [table.get((id(n), 0)) for n in aux_nodes])

    def infer_type(self, *args, **kwargs):
        """Infer the dtypes of arguments, outputs and auxiliary states.

        Returns lists of numpy types (``numpy.float32`` ...), or (None, None, None)
        when some type cannot be decided.
        """
        arg_types, out_types, aux_types = self._infer_type_impl(args, kwargs)
        if any(t is None for t in arg_types + out_types + aux_types):
            unknowns = ['%s: %s' % (n, t) for n, t in zip(self.list_arguments(), arg_types)
                        if t is None]
            warnings.warn('Cannot decide type for the following arguments. Consider providing '
                          'them as input:\n\t' + '\n\t'.join(unknowns), stacklevel=2)
            return None, None, None
        return arg_types, out_types, aux_types

    def infer_type_partial(self, *args, **kwargs):
        """Like :meth:`infer_type`, but unknown types are None instead of failing."""
        return self._infer_type_impl(args, kwargs)

    def _infer_type_impl(self, args, kwargs):
        known = {k: np.dtype(v) for k, v in self._known(args, kwargs, 'type').items()}
        nodes, arg_nodes, aux_nodes = self._entries()
        table = infer_types(nodes, known)
        as_type = lambda d: None if d is None else np.dtype(d).type
        return ([as_type(table.get((id(n), 0))) for n in arg_nodes],
                [as_type(table.get((id(n), i))) for n, i in self._outputs],
                [as_type(table.get((id(n), 0))) for n in aux_nodes])

    # ---- serialization ------------------------------------------------------------------
    def tojson(self, remove_amp_cast=True):
        """The symbol as MXNet 1.x JSON text (what ``prefix-symbol.json`` holds); the AMP
        cast nodes are left out unless ``remove_amp_cast`` is False."""
        from ..formats import symbol_json
        return symbol_json.dumps(self._without_amp_casts() if remove_amp_cast else self)

    def save(self, fname, remove_amp_cast=True):
        """Write :meth:`tojson` to ``fname`` (atomically)."""
        from ..formats import symbol_json
        symbol_json.save(self._without_amp_casts() if remove_amp_cast else self, fname)

    def _without_amp_casts(self):
        """A copy reading around amp_cast / amp_multicast nodes (self if there are none)."""
        if not any(n.op in ('amp_cast', 'amp_multicast') for n in self._nodes()):
            return self
        copy = self.__copy__()

        def source(entry):
            node, index = entry
            while node.op in ('amp_cast', 'amp_multicast'):
                node, index = node.inputs[index if node.op == 'amp_multicast' else 0]
            return node, index

        for node in copy._nodes():
            node.inputs = [source(e) for e in node.inputs]
        return Symbol([source(e) for e in copy._outputs])

    def debug_str(self):
        """A readable listing of the graph's nodes and their inputs."""
        lines = []
        for node in self._nodes():
            if node.op is None:
                lines.append('Variable:%s' % node.name)
                continue
            lines.append('--------------------')
            lines.append('Op:%s, Name=%s' % (node.op, node.name))
            lines.append('Inputs:')
            for i, (child, idx) in enumerate(node.inputs):
                lines.append('\targ[%d]=%s(%d)' % (i, child.name, idx))
            if node.attrs:
                lines.append('Attrs:')
                lines.extend('\t%s=%s' % kv for kv in sorted(node.attrs.items()))
        return '\n'.join(lines)

    # ---- binding -------------------------------------------------------------------------
    def bind(self, ctx, args, args_grad=None, grad_req='write', aux_states=None,
             group2ctx=None, shared_exec=None):
        """Bind the symbol to given arrays and return an :class:`Executor`.

        Parameters
        ----------
        ctx : Context
            The device to run on.
        args : list of NDArray or dict of str to NDArray
            Input arrays, in list_arguments order or by name.
        args_grad : list or dict of NDArray, optional
            Gradient buffers for the arguments that need gradients.
        grad_req : {'write', 'add', 'null'}, list or dict
            How gradients are stored.
        aux_states : list or dict of NDArray, optional
            Auxiliary state arrays.
        group2ctx : dict of str to Context, optional
            Accepted for compatibility; every node runs on ``ctx``.
        shared_exec : Executor, optional
            Executor whose memory pool is shared.
        """
        from ..executor.bind import bind
        return bind(self, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    def simple_bind(self, ctx, grad_req='write', type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """Bind with arrays allocated from inferred shapes; ``kwargs`` give input shapes.

        Parameters
        ----------
        ctx : Context
        grad_req : str, list or dict
        type_dict : dict of str to dtype, optional
            Input dtypes (float32 by default).
        shared_arg_names : list of str, optional
            Arguments whose arrays are taken from ``shared_exec``.
        shared_exec : Executor, optional
            Executor to share parameters and memory with.
        shared_buffer : dict of str to NDArray, optional
            Arrays reused for arguments of the same name when large enough.
        **kwargs
            Shapes of inputs by name.
        """
        from ..executor.bind import simple_bind
        return simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx,
                           shared_arg_names, shared_exec, shared_buffer, kwargs)

    def eval(self, ctx=None, **kwargs):
        """Bind to the given arrays, run forward, return the outputs."""
        from ..context import current_context
        exe = self.bind(current_context() if ctx is None else ctx, kwargs, grad_req='null')
        return exe.forward()

    # ---- arithmetic --------------------------------------------------------------------
    def _binary(self, other, sym_op, scalar_op):
        if isinstance(other, Symbol):
            return _FUNCS[sym_op](self, other)
        if isinstance(other, numeric_types):
            return _FUNCS[scalar_op](self, scalar=other)
        raise TypeError('type %s not supported' % str(type(other)))

    def __add__(self, other):
        return self._binary(other, '_Plus', '_PlusScalar')

    __radd__ = __add__

    def __sub__(self, other):
        return self._binary(other, '_Minus', '_MinusScalar')

    def __rsub__(self, other):
        return self._binary(other, '_Minus', '_RMinusScalar')

    def __mul__(self, other):
        return self._binary(other, '_Mul', '_MulScalar')

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._binary(other, '_Div', '_DivScalar')

    def __rtruediv__(self, other):
        return self._binary(other, '_Div', '_RDivScalar')

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __mod__(self, other):
        return self._binary(other, '_Mod', '_ModScalar')

    def __rmod__(self, other):
        return self._binary(other, '_Mod', '_RModScalar')

    def __pow__(self, other):
        return self._binary(other, '_Power', '_PowerScalar')

    def __rpow__(self, other):
        return self._binary(other, '_Power', '_RPowerScalar')

    def __neg__(self):
        return self.__mul__(-1.0)

    def __eq__(self, other):
        return self._binary(other, '_equal', '_equal_scalar')

    def __ne__(self, other):
        return self._binary(other, '_not_equal', '_not_equal_scalar')

    def __gt__(self, other):
        return self._binary(other, '_greater', '_greater_scalar')

    def __ge__(self, other):
        return self._binary(other, '_greater_equal', '_greater_equal_scalar')

    def __lt__(self, other):
        return self._binary(other, '_lesser', '_lesser_scalar')

    def __le__(self, other):
        return self._binary(other, '_lesser_equal', '_lesser_equal_scalar')

    def __abs__(self):
        return _FUNCS['abs'](self)

    __hash__ = object.__hash__

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, 'bool')

    # ---- NDArray-only methods: MXNet's Symbol has them and refuses them -----------------
    def asnumpy(self):
        raise NotImplementedForSymbol(self.asnumpy, None)

    def asscalar(self):
        raise NotImplementedForSymbol(self.asscalar, None)

    def copy(self):
        raise NotImplementedForSymbol(self.copy, None)

    def as_in_context(self):
        raise NotImplementedForSymbol(self.as_in_context, None)

    def detach(self):
        raise NotImplementedForSymbol(self.detach, None)

    def backward(self):
        raise NotImplementedForSymbol(self.backward, None)

    def wait_to_read(self):
        raise NotImplementedForSymbol(self.wait_to_read, None)

    def gradient(self, wrt):
        """The symbolic gradient of a loss: not implemented, as in MXNet 1.9.1 (whose C API
        refuses it too); bind the symbol and call ``Executor.backward``."""
        raise MXNetError('Symbol.gradient is not implemented (MXNet 1.9.1 refuses it as '
                         'well); bind the symbol and use Executor.backward')

    @property
    def handle(self):
        """The graph's output entries (MXNet: the C handle; symmod has no C library)."""
        return tuple(self._outputs)

    def get_backend_symbol(self, backend):
        """The symbol partitioned for subgraph ``backend``: symmod has no subgraph
        backends (MKLDNN, TensorRT), so every name is refused."""
        raise MXNetError('Cannot find subgraph backend %r: symmod registers no subgraph '
                         'backends' % (backend,))

    def optimize_for(self, backend, args=None, aux=None, ctx=None, shape_dict=None,
                     type_dict=None, stype_dict=None, skip_infer=False, **kwargs):
        """Partition for subgraph ``backend``: refused, as symmod has no backends."""
        return self.get_backend_symbol(backend)

    def split_v2(self, *args, **kwargs):
        """``mx.sym.split_v2(self, ...)``."""
        from .functions import split_v2
        return split_v2(self, *args, **kwargs)

    def _gen_atomic_symbol(self):
        """A symbol of this symbol's operator alone: same name and attributes, its inputs
        fresh variables named after the operator's inputs."""
        node = self._head_node()
        if node is None or node.op is None:
            raise MXNetError('_gen_atomic_symbol needs a symbol of one operator node, found %s'
                             % ('a variable' if node is not None else 'a group'))
        names = node.operator().list_arguments() + node.operator().list_auxiliary_states()
        inputs = [(Node(None, n), 0) for n in names]
        atom = Node(node.op, node.name, node.attrs, inputs)
        return Symbol([(atom, i) for i in range(atom.num_visible_outputs())])

    # ---- operator methods (as MXNet's Symbol forwards them) ------------------------------
    def reshape(self, *args, **kwargs):
        return _FUNCS['reshape'](self, *args, **kwargs)

    def flatten(self, *args, **kwargs):
        return _FUNCS['flatten'](self, *args, **kwargs)

    def astype(self, *args, **kwargs):
        return _FUNCS['cast'](self, *args, **kwargs)

    def transpose(self, *args, **kwargs):
        return _FUNCS['transpose'](self, *args, **kwargs)

    def expand_dims(self, *args, **kwargs):
        return _FUNCS['expand_dims'](self, *args, **kwargs)

    def sum(self, *args, **kwargs):
        return _FUNCS['sum'](self, *args, **kwargs)

    def mean(self, *args, **kwargs):
        return _FUNCS['mean'](self, *args, **kwargs)

    def slice_axis(self, *args, **kwargs):
        return _FUNCS['slice_axis'](self, *args, **kwargs)

    def split(self, *args, **kwargs):
        return _FUNCS['split'](self, *args, **kwargs)


def _complete(shape):
    return shape is not None and all(d > 0 for d in shape)


def _with_plain_keys(attrs):
    """Attributes plus the plain form of MXNet's hidden keys (``__lr_mult__`` -> ``lr_mult``)."""
    result = dict(attrs)
    for key in HIDDEN_KEYS:
        if '__%s__' % key in attrs:
            result[key] = attrs['__%s__' % key]
    return result


# ---- constructors -------------------------------------------------------------------------
_STYPE_IDS = {'default': 0, 'row_sparse': 1, 'csr': 2}


def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
        stype=None, **kwargs):
    """Create a symbolic variable (an input of the graph).

    Parameters
    ----------
    name : str
        Variable name.
    attr : dict of str to str, optional
        Extra attributes.
    shape : tuple, optional
        Shape hint for inference (stored as ``__shape__``).
    lr_mult, wd_mult : float, optional
        Learning-rate / weight-decay multipliers for this parameter.
    dtype : str or numpy dtype, optional
        Type hint (stored as MXNet's integer type flag in ``__dtype__``).
    init : Initializer or str, optional
        Initializer for this variable (stored as its JSON dump in ``__init__``).
    stype : {'default', 'row_sparse', 'csr'}, optional
        Storage type of the bound array (stored as ``__storage_type__``); simple_bind and
        Module.bind allocate it so.
    **kwargs
        Extra attributes whose names start and end with double underscores.

    Examples
    --------
    >>> data = mx.sym.var('data', shape=(0, 784))
    >>> data
    <Symbol data>
    """
    if not isinstance(name, str):
        raise TypeError('Expect a string for variable `name`')
    attrs = attribute.current().get(attr)
    if shape is not None:
        attrs['__shape__'] = str(shape)
    if lr_mult is not None:
        attrs['__lr_mult__'] = str(lr_mult)
    if wd_mult is not None:
        attrs['__wd_mult__'] = str(wd_mult)
    if dtype is not None:
        attrs['__dtype__'] = str(dtype_to_flag(dtype))
    if init is not None:
        attrs['__init__'] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        if stype not in _STYPE_IDS:
            raise MXNetError("storage type must be one of 'default', 'row_sparse', 'csr', "
                             "found %r" % (stype,))
        attrs['__storage_type__'] = str(_STYPE_IDS[stype])
    for key, value in kwargs.items():
        if key.startswith('__') and key.endswith('__'):
            attrs[key] = str(value)
        else:
            raise ValueError('Attribute name=%s is not supported. Additional attributes must '
                             'start and end with double underscores, e.g, __yourattr__' % key)
    return Symbol([(Node(None, name, hidden_attrs(attrs)), 0)])


Variable = var


def Group(symbols):
    """A symbol whose outputs are the outputs of all ``symbols``, in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError('Expected a list of symbols as input')
    outputs = []
    for s in symbols:
        outputs.extend(s._outputs)
    return Symbol(outputs)


def load_json(json_str):
    """Load a symbol from MXNet JSON text (any MXNet 0.8+ layout)."""
    from ..formats import symbol_json
    return symbol_json.loads(json_str)


def load(fname):
    """Load a symbol from an MXNet JSON file (``prefix-symbol.json``)."""
    from ..formats import symbol_json
    return symbol_json.load(fname)

