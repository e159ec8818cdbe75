"""``Initializer``: fills parameter arrays, choosing a rule from the parameter's name.

Rules, as in MXNet 1.9.1. Called with an :class:`InitDesc` (what Module does):
an ``__init__`` attribute on the variable (``'["zero", {}]'``, set by
``Variable(init=...)`` or by operators such as BatchNorm for their auxiliary
states) names the initializer to use; otherwise the name's ending decides:
``weight`` -> ``_init_weight`` (the subclass's distribution), ``bias`` / ``beta``
/ ``min`` -> 0, ``gamma`` / ``max`` -> 1, anything else is an error. Called
with a plain string (the deprecated form) a longer list of name rules applies
(``moving_mean`` -> 0, ``moving_var`` -> 1, ``upsampling*`` -> bilinear, ...).
"""
import json
import logging
import warnings
from math import sqrt

import numpy as np

from ..ndarray import NDArray
from .. import random
from ..registry import get_alias_func, get_create_func, get_register_func

_LOGGER = logging.getLogger(__name__)

__all__ = ['InitDesc', 'Initializer', 'register', 'alias', 'create']


class InitDesc(str):
    """The name of a parameter to initialize, with its attributes.

    A ``str`` subclass (so it compares and prints as the name) that also carries
    the variable's attributes and the initializer to fall back to.

    Parameters
    ----------
    name : str
        Parameter name.
    attrs : dict of str to str, optional
        The variable's attributes (``Symbol.attr_dict()[name]``), e.g. ``__init__``.
    global_init : Initializer, optional
        The initializer used for everything that has no ``__init__`` attribute.

    Examples
    --------
    >>> desc = mx.init.InitDesc('fc1_weight', {'__init__': '["one", {}]'})
    >>> desc == 'fc1_weight'
    True
    """

    def __new__(cls, name, attrs=None, global_init=None):
        desc = super(InitDesc, cls).__new__(cls, name)
        desc.attrs = attrs or {}
        desc.global_init = global_init
        return desc


class Initializer:
    """Base class of the initializers.

    Subclasses define ``_init_weight(name, arr)``; biases, ``gamma`` and
    ``beta`` get MXNet's fixed values unless a subclass overrides
    ``_init_bias`` etc. Call an initializer as ``init(desc, arr)``.
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Log a line for every array initialized.

        Parameters
        ----------
        verbose : bool
            Switch logging on or off.
        print_func : callable(NDArray) -> str, optional
            Statistic to log; default ``norm(x) / sqrt(x.size)``.

        Returns
        -------
        Initializer
            self
        """
        self._verbose = verbose
        if print_func is None:
            def print_func(arr):
                host = np.asarray(arr, dtype=np.float32).ravel()
                return str(np.float32(np.linalg.norm(host) / sqrt(host.size)))
        self._print_func = print_func
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            _LOGGER.info('Initialized %s as %s: %s', desc, init, self._print_func(arr))

    def dumps(self):
        """The initializer as a JSON string ``'["name", {kwargs}]'`` that :func:`create` reads.

        Examples
        --------
        >>> mx.init.Normal(0.5).dumps()
        '["normal", {"sigma": 0.5}]'
        """
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        """Initialize ``arr`` (an NDArray, filled in place) for the parameter ``desc``.

        Parameters
        ----------
        desc : InitDesc
            The parameter (a plain str is accepted but deprecated).
        arr : NDArray
            The array to fill.
        """
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get('__init__', '')
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for suffix, method in (('weight', self._init_weight), ('bias', self._init_bias),
                               ('gamma', self._init_gamma), ('beta', self._init_beta),
                               ('min', self._init_zero), ('max', self._init_one),
                               ('weight_quantize', self._init_quantized_weight),
                               ('bias_quantize', self._init_quantized_bias)):
            if desc.endswith(suffix):
                method(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr):
        """Initialize by name alone (the pre-InitDesc interface)."""
        warnings.warn('Calling initializer with init(str, NDArray) has been deprecated. '
                      'please use init(mx.init.InitDesc(...), NDArray) instead.',
                      DeprecationWarning, stacklevel=3)
        if not isinstance(name, str):
            raise TypeError('name must be string')
        if not isinstance(arr, NDArray):
            raise TypeError('arr must be NDArray')
        if name.startswith('upsampling'):
            self._init_bilinear(name, arr)
        elif name.startswith('stn_loc') and name.endswith('weight'):
            self._init_zero(name, arr)
        elif name.startswith('stn_loc') and name.endswith('bias'):
            self._init_loc_bias(name, arr)
        else:
            for suffix, method in (('bias', self._init_bias), ('gamma', self._init_gamma),
                                   ('beta', self._init_beta), ('weight', self._init_weight),
                                   ('moving_mean', self._init_zero),
                                   ('moving_var', self._init_one),
                                   ('moving_inv_var', self._init_zero),
                                   ('moving_avg', self._init_zero),
                                   ('min', self._init_zero), ('max', self._init_one)):
                if name.endswith(suffix):
                    method(name, arr)
                    return
            self._init_default(name, arr)

    # ---- the fixed rules -------------------------------------------------------------
    def _init_bilinear(self, _, arr):
        arr[:] = bilinear_kernel(arr.shape)

    def _init_loc_bias(self, _, arr):
        assert arr.shape[0] == 6, 'stn_loc bias must have 6 elements, found shape %s' \
            % (arr.shape,)
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    # separate names, so that a subclass can override one rule alone
    _init_bias = _init_beta = _init_quantized_bias = _init_zero
    _init_gamma = _init_one

    def _init_weight(self, name, arr):
        # subclasses define the weight distribution; MXNet raises the same error here
        raise NotImplementedError('Must override it')

    def _init_quantized_weight(self, _, arr):
        # as MXNet: one random int8 value (shape (1,)) broadcast over the array
        value = random.randint(-127, 127, dtype='int32').asnumpy()
        arr[:] = np.int8(value)

    def _init_default(self, name, _):
        raise ValueError(
            'Unknown initialization pattern for %s. Default initialization is now limited to '
            '"weight", "bias", "gamma" (1.0), and "beta" (0.0).Please use '
            'mx.sym.Variable(init=mx.init.*) to set initialization pattern' % name)

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs


def bilinear_kernel(shape):
    """The bilinear-upsampling kernel of ``shape`` (N, C, H, W) as float32.

    Every (n, c) slice holds the same H x W tent ``(1 - |x/f - c|)(1 - |y/f - c|)``
    with ``f = ceil(W / 2)``, ``c = (2f - 1 - f % 2) / (2f)``.
    """
    f = np.ceil(shape[3] / 2.)
    centre = (2 * f - 1 - f % 2) / (2. * f)
    wx = 1 - np.abs(np.arange(shape[3]) / f - centre)
    wy = 1 - np.abs(np.arange(shape[2]) / f - centre)
    return np.broadcast_to(np.outer(wy, wx), shape).astype(np.float32)


# ---- registry ------------------------------------------------------------------------
_register = get_register_func(Initializer, 'initializer')
alias = get_alias_func(Initializer, 'initializer')
create = get_create_func(Initializer, 'initializer')


def register(klass):
    """Register an Initializer subclass under its lower-cased class name.

    Registered initializers can be named in strings: ``module.init_params('myinit')``
    and in ``__init__`` attributes.

    Parameters
    ----------
    klass : type
        The Initializer subclass.

    Returns
    -------
    type
        ``klass``, so that ``register`` works as a class decorator.

    Examples
    --------
    >>> @mx.init.register
    ... class CustomInit(mx.init.Initializer):
    ...     def _init_weight(self, _, arr):
    ...         arr[:] = 0.1
    >>> mx.init.create('custominit')
    """
    return _register(klass)
