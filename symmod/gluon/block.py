"""Block: the container of gluon models (Parameters, child blocks, ``forward``).

A :class:`Block` owns Parameters (in a :class:`ParameterDict` whose prefix is the
block's name) and child blocks, and computes in ``forward``. ``HybridBlock`` and
``SymbolBlock`` (imported here too, as in MXNet) live in their own files.
"""
import re
import threading
import warnings
from collections import OrderedDict, defaultdict

from ..base import MXNetError
from .. import initializer, ndarray
from .. import name as _name
from ..ndarray import NDArray
from ..symbol import Symbol
from .block_saving import save_block, load_block
from .parameter import Parameter, ParameterDict
from .utils import _indent, _brief_print_list, HookHandle

__all__ = ['Block', 'HybridBlock', 'SymbolBlock']


class _BlockScope:
    """The scope (``with block.name_scope():``) in which child blocks get their prefixes.

    A new scope is made by every ``name_scope()`` call and the block keeps only its child
    counter (``_scope_counter``): a block that held its scope would form a reference cycle,
    and a discarded hybridized block would keep its bound graph's buffers until Python's
    cycle collector ran.
    """
    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """The prefix and ParameterDict of a new block created in the current scope."""
        current = getattr(_BlockScope._current, 'value', None)
        if current is None:
            if prefix is None:
                prefix = _name.current().get(None, hint) + '_'
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            counter = current._block._scope_counter
            count = counter.get(hint, 0)
            prefix = '%s%d_' % (hint, count)
            counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, 'value', None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


def _gather_type_ctx_info(args):
    """(has_symbol, has_ndarray, set of contexts, first context) of nested args."""
    if isinstance(args, NDArray):
        return False, True, {args.context}, args.context
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_symbol = has_ndarray = False
        ctx_set = set()
        first_ctx = None
        for arg in args:
            sym_i, nd_i, ctx_i, first_i = _gather_type_ctx_info(arg)
            has_symbol = has_symbol or sym_i
            has_ndarray = has_ndarray or nd_i
            if first_ctx is None and first_i is not None:
                first_ctx = first_i
            ctx_set |= ctx_i
            if has_symbol and has_ndarray:
                break
        return has_symbol, has_ndarray, ctx_set, first_ctx
    return False, False, set(), None


def _flatten(args, inout_str):
    """Flatten nested args into a list plus a format to rebuild them (see _regroup)."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        length = len(args.list_outputs())
        return [args], (length if length > 1 else 0)
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError('When hybridized, the input of HybridBlock {} must be (nested) list '
                         'of Symbol or NDArray, but got {} of type {}'
                         .format(inout_str, str(args), str(type(args))))
    flat, fmts = [], []
    for arg in args:
        items, fmt = _flatten(arg, inout_str)
        flat.extend(items)
        fmts.append(fmt)
    return flat, fmts


def _merge(args, fmt):
    """(the structure ``fmt`` describes built from the front of ``args``, the rest of args)."""
    if isinstance(fmt, int):
        if fmt < -1:
            raise ValueError('Unsupported encoded format {}.'.format(fmt))
        if fmt == 0:
            return args[0], args[1:]
        if fmt == -1:
            if args[0] is not None:
                raise ValueError('We do not support passing types that are not None when '
                                 'the initial HybridBlock has received NoneType and has '
                                 'been hybridized. Received arg = {}, fmt = {}.'
                                 .format(args[0], fmt))
            return None, args[1:]
        return args[:fmt], args[fmt:]
    if not isinstance(args, (list, tuple)):
        raise ValueError('When hybridized, the output of HybridBlock must be (nested) list '
                         'of Symbol or NDArray, but got {} of type {}'
                         .format(args, type(args)))
    ret = []
    for item in fmt:
        res, args = _merge(args, item)
        ret.append(res)
    return ret, args


def _regroup(args, fmt):
    """Rebuild the nested structure described by ``fmt`` from a flat list."""
    # module-level recursion: a recursive closure is a reference cycle (function <-> cell)
    return _merge(args, fmt)[0]


def _holds_unregistered(data, children):
    """Whether the nested list/tuple/dict ``data`` holds a Block not in ``children``."""
    if isinstance(data, (list, tuple)):
        return any(_holds_unregistered(item, children) for item in data)
    if isinstance(data, dict):
        return any(_holds_unregistered(item, children) for item in data.values())
    if isinstance(data, Block):
        return data not in children
    return False


class Block:
    """Base class of all layers and models; subclass it and define ``forward``.

    Child blocks assigned as attributes are registered automatically, and
    :meth:`collect_params` gathers their Parameters recursively.

    Parameters
    ----------
    prefix : str, optional
        Name space of the block: prepended to the names of its Parameters and of
        children created in its :meth:`name_scope`. Made from the class name when None.
    params : ParameterDict, optional
        Parameters to share with another block.

    Examples
    --------
    >>> class Model(mx.gluon.Block):
    ...     def __init__(self, **kwargs):
    ...         super().__init__(**kwargs)
    ...         with self.name_scope():
    ...             self.dense0 = mx.gluon.nn.Dense(20)
    ...     def forward(self, x):
    ...         return mx.nd.relu(self.dense0(x))
    >>> model = Model(); model.initialize()
    >>> model(mx.nd.zeros((10, 10))).shape
    (10, 20)
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ''
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith('_') else self._prefix
        self._scope_counter = {}
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        modstr = '\n'.join(['  ({key}): {block}'.format(key=key, block=_indent(repr(block), 2))
                            for key, block in self.__dict__.items()
                            if isinstance(block, Block)])
        return '{name}(\n{modstr}\n)'.format(name=self.__class__.__name__, modstr=modstr)

    def __setattr__(self, name, value):
        """Register child blocks and Parameters assigned as attributes."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value,
                                                                           type(existing)):
                raise TypeError('Changing attribute type for {name} from {type1} to {type2}'
                                'is not allowed.'.format(name=name, type1=type(existing),
                                                         type2=type(value)))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            assert name not in self._reg_params, \
                'Overriding Parameter attribute %s is not allowed. If you want to share ' \
                "parameters between blocks, please set 'params' at Block construction " \
                'instead.'
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self):
        children = set(self._children.values())
        for key, value in self.__dict__.items():
            if isinstance(value, (list, tuple, dict)) and \
                    not (key.startswith('__') or key == '_children') and \
                    _holds_unregistered(value, children):
                warnings.warn('"{name}" is an unregistered container with Blocks. Note that '
                              'Blocks inside the list, tuple or dict will not be registered '
                              'automatically. Make sure to register them using '
                              'register_child() or switching to '
                              'nn.Sequential/nn.HybridSequential instead. '
                              .format(name=self.__class__.__name__ + '.' + key), stacklevel=3)

    def _alias(self):
        return self.__class__.__name__.lower()

    @property
    def prefix(self):
        """The block's prefix (name space)."""
        return self._prefix

    @property
    def name(self):
        """The block's name: its prefix without the trailing '_'."""
        return self._name

    def name_scope(self):
        """A ``with`` scope in which new child blocks get this block's prefix."""
        return _BlockScope(self)

    @property
    def params(self):
        """This block's own ParameterDict (children's Parameters not included)."""
        return self._params

    def collect_params(self, select=None):
        """The Parameters of this block and all its children.

        Parameters
        ----------
        select : str, optional
            A regular expression; only Parameters whose names match are returned.

        Returns
        -------
        ParameterDict
        """
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({name: value for name, value in self.params.items()
                        if pattern.match(name)})
        for child in self._children.values():
            ret.update(child.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=''):
        if prefix:
            prefix += '.'
        ret = {prefix + key: val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    # ---- saving and loading ------------------------------------------------------------
    def save_parameters(self, filename, deduplicate=False):
        """Save the Parameters under their attribute paths (``'dense0.weight'``).

        Parameters
        ----------
        filename : str
            The file (MXNet's ``.params`` format).
        deduplicate : bool, default False
            Save a Parameter shared by several children only once.
        """
        params = self._collect_params_with_prefix()
        if deduplicate:
            reverse = {v: k for k, v in params.items()}
            params = {v: k for k, v in reverse.items()}
        ndarray.save(filename, {key: val._reduce() for key, val in params.items()})

    def save(self, prefix):
        """Save the model's structure (``<prefix>-model.json``: names, children and the
        cached graphs of hybridized blocks) and Parameters (``<prefix>-model.params``),
        in MXNet 1.9.1's format; :meth:`load` restores them into the same model class."""
        save_block(self, prefix)

    def load(self, prefix):
        """Load what :meth:`save` wrote into this block (built the same way): block and
        Parameter names, hybridized graphs, Parameter values."""
        load_block(self, prefix)

    def save_params(self, filename):
        """[Deprecated] Use :meth:`save_parameters`."""
        warnings.warn('save_params is deprecated. Please use save_parameters. Note that if '
                      'you want load from SymbolBlock later, please use export instead. For '
                      'details, see https://mxnet.apache.org/tutorials/gluon/save_load_'
                      'params.html')
        try:
            self.collect_params().save(filename, strip_prefix=self.prefix)
        except ValueError as err:
            raise ValueError('%s\nsave_params is deprecated. Using save_parameters may '
                             'resolve this error.' % err) from None

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source='current'):
        """Load Parameters saved by :meth:`save_parameters` (or by ``ParameterDict.save``).

        Parameters
        ----------
        filename : str
            The file.
        ctx : Context or list of Context, optional
            Where to initialize Parameters (cpu by default).
        allow_missing : bool, default False
            Skip Parameters missing from the file.
        ignore_extra : bool, default False
            Ignore arrays that match no Parameter.
        cast_dtype : bool, default False
            Cast between saved and current dtypes.
        dtype_source : {'current', 'saved'}, default 'current'
            Which dtype wins when casting.
        """
        loaded = ndarray.load(filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not isinstance(loaded, dict):
            raise ValueError('%s holds an unnamed list of arrays; load_parameters needs named '
                             'arrays' % filename)
        if not any('.' in i for i in loaded.keys()):
            # a file written by ParameterDict.save / save_params (full names)
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        if not allow_missing:
            names_of = defaultdict(list)
            for key, value in params.items():
                names_of[value].append(key)
            for name, param in params.items():
                assert any(p in loaded for p in names_of[param]), \
                    "Parameter '%s' is missing in file '%s', which contains parameters: %s. " \
                    'Set allow_missing=True to ignore missing parameters.' % (
                        name, filename, _brief_print_list(loaded.keys()))
        for name in loaded:
            if not ignore_extra and name not in params:
                raise ValueError(
                    "Parameter '%s' loaded from file '%s' is not present in ParameterDict, "
                    'which contains parameters %s. Set ignore_extra=True to ignore. '
                    % (name, filename, _brief_print_list(self._params.keys())))
            if name in params:
                params[name]._load_init(loaded[name], ctx, cast_dtype=cast_dtype,
                                        dtype_source=dtype_source)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """[Deprecated] Use :meth:`load_parameters`."""
        warnings.warn('load_params is deprecated. Please use load_parameters.')
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    # ---- children and hooks ------------------------------------------------------------
    def register_child(self, block, name=None):
        """Register ``block`` as a child (done automatically for attributes)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_op_hook(self, callback, monitor_all=False):
        """Install an operator hook on the hybridized children (see
        :meth:`HybridBlock.register_op_hook`)."""
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def register_forward_pre_hook(self, hook):
        """Call ``hook(block, inputs)`` before each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """Call ``hook(block, inputs, outputs)`` after each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Call ``fn(block)`` on every child (recursively), then on this block."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def summary(self, *inputs):
        """Run ``inputs`` through the block and print each layer's output shape and
        parameter count, then the totals (MXNet's table). The block and its children
        must not be hybridized.

        Parameters
        ----------
        *inputs : NDArray
            The inputs of one forward pass (Parameters are initialized by it if needed).

        Examples
        --------
        >>> net = mx.gluon.nn.Dense(3, in_units=4)
        >>> net.initialize()
        >>> net.summary(mx.nd.ones((2, 4)))     # doctest: +NORMALIZE_WHITESPACE
        --------------------------------------------------------------------------------
                Layer (type)                                Output Shape         Param #
        ================================================================================
                       Input                                      (2, 4)               0
                     Dense-1                                      (2, 3)              15
        ================================================================================
        Parameters in forward computation graph, duplicate included
           Total params: 15
           Trainable params: 15
           Non-trainable params: 0
        Shared params in forward computation graph: 0
        Unique parameters in model: 15
        --------------------------------------------------------------------------------
        """
        from .summary import print_summary
        print_summary(self, inputs)

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False,
                   force_reinit=False):
        """Initialize the Parameters of this block and its children.

        Same as ``block.collect_params().initialize(...)``.
        """
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Hybridize the HybridBlock children (see :meth:`HybridBlock.hybridize`)."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Cast all Parameters to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for _, param in self.params.items():
            param.cast(dtype)

    def __call__(self, *args):
        """Run the forward pass (with hooks). Only positional arguments."""
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        return out

    def forward(self, *args):
        """The computation; subclasses define it with NDArray operations."""
        raise MXNetError('%s must define forward()' % type(self).__name__)


from .hybrid_block import HybridBlock  # noqa: E402  (MXNet's import path)
from .symbol_block import SymbolBlock  # noqa: E402
