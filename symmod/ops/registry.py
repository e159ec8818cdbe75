"""The operator registry.

Every operator is declared once, as a subclass of :class:`Operator`: its typed
parameters (parsed from the strings a symbol stores), its input / output /
auxiliary-state names, shape and type inference, and ``forward`` / ``backward``
written with numpy into preallocated buffers. ``sym.*`` and ``nd.*`` functions,
the executor and autograd all read this one declaration.

An operator *instance* holds parsed parameters for one node (``FullyConnected``
with ``num_hidden=128``); the executor makes one instance per node at bind time,
so shape-dependent precomputation may be cached on it.
"""
import threading

from .._suggest import did_you_mean
from ..base import MXNetError, attr_str

__all__ = ['Param', 'Operator', 'register', 'get', 'exists', 'list_operators',
           'assign', 'REQUIRED', 'ShapeError', 'zero_dims_known', 'known_zero_dims',
           'dim_known']

REQUIRED = object()
_REGISTRY = {}          # name or alias -> Operator subclass


class ShapeError(MXNetError):
    """Raised by ``infer_shape`` when shapes are inconsistent."""


class Param:
    """One typed operator parameter.

    Parameters
    ----------
    name : str
        The keyword name, as in MXNet (``num_hidden``).
    parse : callable
        Turns a value or its string form into the typed value.
    default : object
        Default value; ``REQUIRED`` when the parameter must be given.
    doc : str
        One line for the generated function's docstring.
    """
    __slots__ = ('name', 'parse', 'default', 'doc')

    def __init__(self, name, parse, default=REQUIRED, doc=''):
        self.name = name
        self.parse = parse
        self.default = default
        self.doc = doc


class Operator:
    """Base class of all operators; subclasses override what differs.

    Conventions for the array arguments (all numpy arrays):

    - ``in_data``: the inputs listed by :meth:`list_arguments`, in that order;
    - ``aux``: the auxiliary states (:meth:`list_auxiliary_states`), updated in place;
    - ``out_data``: every output of :meth:`list_outputs`, hidden ones included;
    - ``req``: one write request per destination array: ``'write'``, ``'add'``
      (accumulate into it) or ``'null'`` (leave it alone);
    - ``backward`` receives ``out_grad`` for the visible outputs only (hidden outputs
      have no gradient) and fills ``in_grad``, one per argument, honouring ``req``.
    """
    name = None
    aliases = ()
    params = ()
    key_var_num_args = None     # parameter counting variable-length inputs (Concat: num_args)
    is_loss = False             # defines its own gradient; takes no head gradient
    backward_uses_inputs = True     # memory planner: may in_data be freed before backward?
    backward_uses_outputs = True    # ... and out_data?
    inplace = ()                # (input index, output index) pairs whose buffers may alias
    grad_inplace = ()           # (output index, input index): the input gradient is the output
                                # gradient unchanged; backward leaves it alone when the plan
                                # gives both one buffer (elemwise_add)
    needs_grad_buffer = True    # False for ops whose backward writes nothing (BlockGrad)
    zero_gradient = False       # True: input gradients are zero whatever the output gradient,
                                # so a bound graph needs no head gradient for this output
    stateful = False            # True: create_state makes per-run state (see there)
    names_inputs = True         # False: MXNet lists no input names (monitors see input<i>)
    makes_sparse = False        # True: a sparse output from dense inputs (cast_storage to
                                # csr, dot with forward_stype): see ops/sparse
    writes_input_grads = False  # True: a 'write' request stores every element of the input
                                # gradient (none starts from zero): the tape may hand backward
                                # a variable's own gradient buffer

    def __init__(self, attrs=None):
        attrs = dict(attrs or {})
        known = {p.name: p for p in self.params}
        for key in attrs:
            if key.startswith('__') or self.takes_param(key):
                continue
            raise MXNetError(
                "Cannot find argument '%s' of operator %s. Possible arguments: %s"
                % (key, self.name, ', '.join(known) or '(none)'))
        for p in self.params:
            if p.name in attrs:
                raw = attrs[p.name]
                try:
                    value = p.parse(raw)
                except (TypeError, ValueError) as err:
                    raise MXNetError('Invalid value %r for parameter %s of operator %s: %s'
                                     % (raw, p.name, self.name, err)) from None
            elif p.default is REQUIRED:
                raise MXNetError("Required parameter %s of operator %s is not given"
                                 % (p.name, self.name))
            else:
                value = p.default
            setattr(self, p.name, value)
        self.check_params()

    @classmethod
    def takes_param(cls, key):
        """Whether the keyword ``key`` is a parameter of this operator (rather than a
        node attribute). Custom overrides it: it forwards any keyword to the user's prop.

        An operator without parameters takes (and ignores) every keyword, as MXNet's
        operators registered without a parameter parser do: ``broadcast_maximum(a, b,
        axis=1)`` runs there and keeps ``axis`` as a node attribute."""
        return not cls.params or any(p.name == key for p in cls.params)

    def check_params(self):
        """Validate parsed parameters (override to raise MXNetError)."""

    def param_dict(self):
        """The parsed parameters as a dict."""
        return {p.name: getattr(self, p.name) for p in self.params}

    # ---- names ---------------------------------------------------------------
    def list_arguments(self):
        """Names of the array inputs (not counting auxiliary states)."""
        return ['data']

    def list_outputs(self):
        """Names of all outputs, hidden ones included."""
        return ['output']

    def list_auxiliary_states(self):
        """Names of the auxiliary states the operator updates in place."""
        return []

    def positional_inputs(self):
        """The input names in the order positional symbols fill them when a node is
        composed (``mx.sym.<op>(a, b, ...)``); the node itself keeps its inputs as the
        arguments then the auxiliary states."""
        return self.list_arguments() + self.list_auxiliary_states()

    def num_visible_outputs(self):
        """How many leading outputs a symbol exposes."""
        return len(self.list_outputs())

    def monitor_input_names(self):
        """The input names monitors and op hooks report (``<node>_<name>``): the argument
        names then the auxiliary states', or ``input0, input1, ...`` for operators MXNet
        registers without names."""
        names = self.list_arguments() + self.list_auxiliary_states()
        if self.names_inputs:
            return names
        return ['input%d' % i for i in range(len(names))]

    def input_var_attrs(self, index):
        """Attributes to set on an input variable created at composition, or None."""
        return None

    # ---- inference -----------------------------------------------------------
    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        """Fill unknown shapes (None, or 0 for an unknown dim) from known ones.

        Returns ``(in_shapes, out_shapes, aux_shapes)``. The default treats the
        operator as elementwise: every input and output has one common shape.
        """
        shape = unify_all(list(in_shapes) + list(out_shapes), self.name)
        n_out = len(out_shapes)
        return [shape] * len(in_shapes), [shape] * n_out, list(aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        """Fill unknown dtypes (None). The default gives everything one dtype."""
        known = [t for t in list(in_types) + list(out_types) + list(aux_types) if t is not None]
        dtype = known[0] if known else None
        for t in known:
            if t != dtype:
                raise MXNetError('Operator %s: inconsistent dtypes, expected %s, found %s'
                                 % (self.name, dtype, t))
        return ([dtype] * len(in_types), [dtype] * len(out_types), [dtype] * len(aux_types))

    # ---- compute -------------------------------------------------------------
    def create_state(self, ctx, in_shapes, in_dtypes):
        """Make the per-run state of a ``stateful`` operator (MXNet's FCreateOpState).

        Called once per graph node when an executor is bound, and, on a fresh copy of
        the instance, once per imperative call, with the context and the shapes and
        dtypes of the inputs (arguments, then auxiliary states). Custom creates the
        user's CustomOp here. Operators that are not ``stateful`` never get this call.
        """

    def forward(self, is_train, req, in_data, out_data, aux):
        raise MXNetError('operator %s has no forward computation' % self.name)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise MXNetError('operator %s is not differentiable' % self.name)

    def __repr__(self):
        args = ', '.join('%s=%s' % (p.name, attr_str(getattr(self, p.name)))
                         for p in self.params)
        return '%s(%s)' % (self.name, args)


def register(cls):
    """Class decorator adding an operator (and its aliases) to the registry."""
    if not cls.name:
        raise ValueError('operator class %s has no name' % cls.__name__)
    for key in (cls.name,) + tuple(cls.aliases):
        if key in _REGISTRY and _REGISTRY[key] is not cls:
            raise ValueError('operator name %s registered twice' % key)
        _REGISTRY[key] = cls
    return cls


def get(name):
    """The operator class registered under ``name`` (canonical name or alias)."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise MXNetError('Cannot find operator %s: it is not registered in symmod.%s'
                         % (name, did_you_mean(name, _REGISTRY))) from None


def exists(name):
    """Whether an operator is registered under ``name``."""
    return name in _REGISTRY


def list_operators():
    """All registered names (canonical names and aliases), sorted."""
    return sorted(_REGISTRY)


# ---- helpers for operator implementations -------------------------------------
def assign(dst, req, value):
    """Store ``value`` into ``dst`` following the write request ``req``."""
    if req == 'null':
        return
    if req == 'add':
        dst += value
    else:
        dst[...] = value


_ZERO_DIMS = threading.local()


def zero_dims_known():
    """True while shapes are inferred from concrete arrays with NumPy-shape semantics:
    a 0 dim is then a zero size, not an unknown dim (see :class:`known_zero_dims`)."""
    return getattr(_ZERO_DIMS, 'on', False)


class known_zero_dims:
    """``with known_zero_dims(active):`` infer shapes reading 0 dims as zero sizes.

    Imperative calls and binds turn it on under ``mx.np_shape()`` when an input array has
    a 0 dim: every input shape is then concrete, so no 0 stands for an unknown dim.
    """

    def __init__(self, active=True):
        self._active = bool(active)
        self._prev = False

    def __enter__(self):
        self._prev = zero_dims_known()
        _ZERO_DIMS.on = self._active or self._prev
        return self

    def __exit__(self, *exc):
        _ZERO_DIMS.on = self._prev


def dim_known(d):
    """True when a dim is known: positive, or 0 under :class:`known_zero_dims`."""
    return d is not None and (d > 0 or (d == 0 and zero_dims_known()))


def shape_is_known(shape):
    """True when a shape and all its dims are known (no None, no 0 unless 0 dims are
    known zero sizes)."""
    return shape is not None and all(dim_known(d) for d in shape)


def unify(a, b, what='shape'):
    """Merge two partially known shapes, or raise ShapeError when they conflict.

    ``None`` is a wholly unknown shape; a 0 dim is an unknown dim (a zero size under
    :class:`known_zero_dims`).
    """
    if a is None:
        return None if b is None else tuple(b)
    if b is None:
        return tuple(a)
    if len(a) != len(b):
        raise ShapeError('%s mismatch: %s vs %s' % (what, tuple(a), tuple(b)))
    zeros = zero_dims_known()
    out = []
    for x, y in zip(a, b):
        if (zeros or (x and y)) and x != y:
            raise ShapeError('%s mismatch: %s vs %s' % (what, tuple(a), tuple(b)))
        out.append(x if zeros else (x or y))
    return tuple(out)


def unify_all(shapes, opname=''):
    """Unify a list of shapes into one (None if none is known)."""
    result = None
    for s in shapes:
        try:
            result = unify(result, s)
        except ShapeError as err:
            raise ShapeError('%s: %s' % (opname, err)) from None
    return result
