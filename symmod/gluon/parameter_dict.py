"""ParameterDict: the named Parameters of a Block, with prefixes, sharing and MXNet's
``.params`` file format."""
from collections import OrderedDict

import numpy as np

from .. import initializer, ndarray
from .parameter import Parameter, Constant
from .utils import _indent, _brief_print_list

__all__ = ['ParameterDict']

_NAMING_HELP = ('For more info on naming, please see '
                'https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/naming.html')


class ParameterDict:
    """An ordered dictionary of Parameters whose names share a prefix.

    Parameters
    ----------
    prefix : str, default ''
        Prepended to the names of Parameters created with :meth:`get`.
    shared : ParameterDict, optional
        Where :meth:`get` looks first before creating a Parameter (weight sharing).

    Examples
    --------
    >>> params = mx.gluon.ParameterDict('net_')
    >>> w = params.get('weight', shape=(2, 3))
    >>> w.name
    'net_weight'
    """

    def __init__(self, prefix='', shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        name = self._prefix + ' ' if self._prefix else ''
        content = '\n'.join([_indent('  {0}'.format(v), 2) for v in self.values()])
        return '{name}(\n{content}\n)'.format(name=name, content=content)

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        """The prefix prepended to names of Parameters created by :meth:`get`."""
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._shared._params[name]
        return None

    def get(self, name, **kwargs):
        """The Parameter ``prefix + name``: found here, in the shared dict, or created.

        Parameters
        ----------
        name : str
            Name without the prefix.
        **kwargs
            Arguments of :class:`Parameter` for a new one; for an existing one they
            must agree with its attributes (a 0 dim of a shape may be filled in).

        Returns
        -------
        Parameter
        """
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for key, value in kwargs.items():
            if hasattr(param, key) and getattr(param, key) is not None:
                existing = getattr(param, key)
                if key == 'shape' and len(value) == len(existing):
                    merged = _merge_shapes(value, existing)
                    if merged is not None:
                        param._shape = merged
                        continue
                elif key == 'dtype' and np.dtype(value) == np.dtype(existing):
                    continue
                assert value is None or value == existing, \
                    "Cannot retrieve Parameter '%s' because desired attribute does not " \
                    "match with stored for attribute '%s': desired '%s' vs stored '%s'." \
                    % (name, key, str(value), str(getattr(param, key)))
            else:
                setattr(param, key, value)
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name``, created from ``value`` when it does not exist.

        Raises
        ------
        KeyError
            When it does not exist and no value is given.
        """
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError("No constant named '{}'. Please specify value if you want "
                               "to create a new constant.".format(name))
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            assert isinstance(param, Constant), \
                "Parameter '{}' already exists but it is not a constant.".format(name)
            if isinstance(value, ndarray.NDArray):
                value = value.asnumpy()
            assert param.shape == np.shape(value) and \
                (param.value.asnumpy() == value).all(), \
                "Constant '{}' already exists but it's value doesn't match new value" \
                .format(name)
        return param

    def update(self, other):
        """Add the Parameters of ``other`` (a name may not map to two Parameters)."""
        for key, value in other.items():
            if key in self._params:
                assert self._params[key] is value, \
                    'Cannot update self with other because they have different Parameters ' \
                    "with the same name '%s'" % key
        for key, value in other.items():
            self._params[key] = value

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False,
                   force_reinit=False):
        """Initialize every Parameter (each Parameter's own ``init`` takes precedence).

        Parameters
        ----------
        init : Initializer, default Uniform()
            The default initializer.
        ctx : Context or list of Context, optional
            Where to keep copies.
        verbose : bool, default False
            Print what each Parameter is initialized with.
        force_reinit : bool, default False
            Initialize again Parameters that already are.
        """
        if verbose:
            init.set_verbosity(verbose=verbose)
        for _, param in self.items():
            param.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Set every gradient buffer to 0."""
        for param in self.values():
            param.zero_grad()

    def reset_ctx(self, ctx):
        """Move every Parameter to ``ctx`` (a Context or a list of them)."""
        for param in self.values():
            param.reset_ctx(ctx)

    def list_ctx(self):
        """All contexts any Parameter lives on."""
        contexts = set()
        for param in self.values():
            contexts.update(param.list_ctx())
        return list(contexts)

    def setattr(self, name, value):
        """Set attribute ``name`` of every Parameter (e.g. ``'grad_req', 'null'``)."""
        for param in self.values():
            setattr(param, name, value)

    def save(self, filename, strip_prefix=''):
        """Save the Parameters (averaged over contexts) in MXNet's ``.params`` format.

        Parameters
        ----------
        filename : str
            The file.
        strip_prefix : str, default ''
            Removed from every name before saving; every name must start with it.
        """
        arg_dict = {}
        for param in self.values():
            weight = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise ValueError(
                    "Prefix '%s' is to be striped before saving, but Parameter's name '%s' "
                    "does not start with '%s'. this may be due to your Block shares "
                    "parameters from other Blocks or you forgot to use 'with name_scope()' "
                    "when creating child blocks. %s"
                    % (strip_prefix, param.name, strip_prefix, _NAMING_HELP))
            arg_dict[param.name[len(strip_prefix):]] = weight
        ndarray.save(filename, arg_dict)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
             restore_prefix='', cast_dtype=False, dtype_source='current'):
        """Load Parameters from a ``.params`` file (``arg:`` / ``aux:`` names accepted).

        Parameters
        ----------
        filename : str
            The file (written by :meth:`save`, ``nd.save`` or a Module checkpoint).
        ctx : Context or list of Context, optional
            Where to initialize Parameters that are not yet.
        allow_missing : bool, default False
            Skip Parameters that are not in the file.
        ignore_extra : bool, default False
            Ignore arrays of the file that match no Parameter.
        restore_prefix : str, default ''
            Prepended to the names in the file.
        cast_dtype : bool, default False
            Cast between the file's and the Parameters' dtypes.
        dtype_source : {'current', 'saved'}, default 'current'
            Which dtype wins when casting.
        """
        if restore_prefix:
            for name in self.keys():
                assert name.startswith(restore_prefix), \
                    "restore_prefix is '%s' but Parameters name '%s' does not start with " \
                    "'%s'. %s" % (restore_prefix, name, restore_prefix, _NAMING_HELP)
        self.load_dict(ndarray.load(filename), ctx, allow_missing, ignore_extra,
                       restore_prefix, filename, cast_dtype, dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False,
                  restore_prefix='', filename=None, cast_dtype=False,
                  dtype_source='current'):
        """Load Parameters from a dict of arrays (see :meth:`load`)."""
        if not isinstance(param_dict, dict):
            raise ValueError('%s holds an unnamed list of arrays; Parameters load from '
                             'named arrays' % (filename or 'param_dict'))
        lprefix = len(restore_prefix)
        loaded = [(k[4:] if k.startswith('arg:') or k.startswith('aux:') else k, v)
                  for k, v in param_dict.items()]
        arg_dict = {restore_prefix + k: v for k, v in loaded}
        error_str = 'file: %s' % filename if filename else 'param_dict'
        if not allow_missing:
            for name in self.keys():
                assert name in arg_dict, \
                    "Parameter '%s' is missing in %s, which contains parameters: %s. Please " \
                    "make sure source and target networks have the same prefix.%s" % (
                        name[lprefix:], error_str, _brief_print_list(arg_dict.keys()),
                        _NAMING_HELP)
        for name in arg_dict:
            if name not in self._params:
                assert ignore_extra, \
                    "Parameter '%s' loaded from %s is not present in ParameterDict, " \
                    "choices are: %s. Set ignore_extra to True to ignore. Please make sure " \
                    "source and target networks have the same prefix.%s" % (
                        name[lprefix:], error_str, _brief_print_list(self._params.keys()),
                        _NAMING_HELP)
                continue
            self[name]._load_init(arg_dict[name], ctx, cast_dtype=cast_dtype,
                                  dtype_source=dtype_source)


def _merge_shapes(wanted, existing):
    """Fill unknown (0 or -1) dims of either shape from the other; None on a conflict."""
    merged = []
    for dim1, dim2 in zip(wanted, existing):
        if dim1 != dim2 and dim1 > 0 and dim2 > 0:
            return None
        if dim1 == dim2:
            merged.append(dim1)
        elif dim1 in (0, -1):
            merged.append(dim2)
        else:
            merged.append(dim1)
    return tuple(merged)
