"""Name -> class registries for things that can be named in strings and configs.

Metrics (``mx.metric.create('acc')``) and initializers (``'["xavier", {}]'`` in an
``__init__`` attribute) are found by name. Each family has one registry, keyed by
its base class; the functions here make the family's ``register``, ``alias`` and
``create``, as MXNet's ``mxnet.registry`` does::

    register = get_register_func(EvalMetric, 'metric')
    alias = get_alias_func(EvalMetric, 'metric')
    create = get_create_func(EvalMetric, 'metric')

Names are case-insensitive (stored lower-cased).
"""
import json
import warnings

from ._suggest import did_you_mean

__all__ = ['get_registry', 'get_register_func', 'get_alias_func', 'get_create_func']

_REGISTRIES = {}    # base class -> {lower-case name or alias: subclass}


# docstrings of the functions made below, filled in with the family's names
_REGISTER_DOC = """Register a {base} subclass under its lower-cased class name (or ``name``).

Parameters
----------
klass : type
    The {nickname} class.
name : str, optional
    The name to register it under (default: the class name).

Returns
-------
type
    ``klass``, so that ``register`` works as a class decorator.
"""

_ALIAS_DOC = """Class decorator registering a {base} subclass under extra names.

Parameters
----------
*aliases : str
    The extra names.

Returns
-------
callable(klass) -> klass
"""

_CREATE_DOC = """Make a {nickname} from a registered name, a JSON config or an instance.

Parameters
----------
{nickname} : str, dict or {base}
    A registered name, ``'["name", {{kwargs}}]'``, ``'{{"{nickname}": "name", ...}}'``,
    a dict of constructor arguments with the ``'{nickname}'`` key, or an instance
    (returned as is).
*args, **kwargs
    Constructor arguments when a name is given.

Returns
-------
{base}
"""


def _registry_of(base_class):
    return _REGISTRIES.setdefault(base_class, {})


def get_registry(base_class):
    """A copy of the name -> class table of ``base_class``'s family.

    Parameters
    ----------
    base_class : type
        The family's base class (``EvalMetric``, ``Initializer`` ...).

    Returns
    -------
    dict of str to type
        Lower-case names and aliases mapped to the registered classes.

    Examples
    --------
    >>> from symmod.registry import get_registry
    >>> get_registry(mx.metric.EvalMetric)['acc'].__name__
    'Accuracy'
    """
    return dict(_registry_of(base_class))


def get_register_func(base_class, nickname):
    """Make the ``register(klass, name=None)`` function of a family.

    The function files ``klass`` under ``name`` (default: the class name),
    lower-cased, and returns ``klass``, so it works as a class decorator.
    Registering a name again replaces the old class with a ``UserWarning``.

    Parameters
    ----------
    base_class : type
        Only its subclasses may be registered.
    nickname : str
        The family's name in messages (``'metric'``, ``'initializer'``).

    Returns
    -------
    callable(klass, name=None) -> klass

    Examples
    --------
    >>> register = get_register_func(mx.metric.EvalMetric, 'metric')
    >>> @register
    ... class MyAcc(mx.metric.Accuracy):
    ...     pass
    """
    registry = _registry_of(base_class)

    def register(klass, name=None):
        assert issubclass(klass, base_class), \
            'Can only register subclass of %s' % base_class.__name__
        name = (klass.__name__ if name is None else name).lower()
        if name in registry:
            old = registry[name]
            warnings.warn('New %s %s.%s registered with name %s is overriding existing '
                          '%s %s.%s' % (nickname, klass.__module__, klass.__name__, name,
                                        nickname, old.__module__, old.__name__),
                          UserWarning, stacklevel=2)
        registry[name] = klass
        return klass

    register.__doc__ = _REGISTER_DOC.format(nickname=nickname, base=base_class.__name__)
    return register


def get_alias_func(base_class, nickname):
    """Make the ``alias(*names)`` class decorator of a family.

    ``@alias('acc')`` registers the decorated class under each extra name.

    Parameters
    ----------
    base_class : type
        The family's base class.
    nickname : str
        The family's name in messages.

    Returns
    -------
    callable(*names) -> class decorator

    Examples
    --------
    >>> alias = get_alias_func(mx.init.Initializer, 'initializer')
    >>> @alias('zeros_again')
    ... class MyZero(mx.init.Zero):
    ...     pass
    """
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def reg(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return reg

    alias.__doc__ = _ALIAS_DOC.format(nickname=nickname, base=base_class.__name__)
    return alias


def get_create_func(base_class, nickname):
    """Make the ``create(*args, **kwargs)`` factory of a family.

    The factory's first argument (or the keyword named ``nickname``) is one of:

    * an instance of ``base_class``: returned as is (no further arguments allowed);
    * a registered name: the class is called with the remaining arguments;
    * a JSON string, ``'["name", {kwargs}]'`` or ``'{"<nickname>": "name", ...}'``;
    * a dict of constructor arguments including the ``nickname`` key.

    Parameters
    ----------
    base_class : type
        The family's base class.
    nickname : str
        The family's name in messages, and the config key holding the class name.

    Returns
    -------
    callable(*args, **kwargs) -> base_class instance

    Examples
    --------
    >>> create = get_create_func(mx.init.Initializer, 'initializer')
    >>> create('["normal", {"sigma": 0.5}]').sigma
    0.5
    """
    registry = _registry_of(base_class)

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        else:
            name = kwargs.pop(nickname)
        if isinstance(name, base_class):
            assert not args and not kwargs, \
                '%s is already an instance. Additional arguments are invalid' % nickname
            return name
        if isinstance(name, dict):
            return create(**name)
        assert isinstance(name, str), '%s must be of string type' % nickname
        if name.startswith('['):
            assert not args and not kwargs
            name, kwargs = json.loads(name)
            return create(name, **kwargs)
        if name.startswith('{'):
            assert not args and not kwargs
            return create(**json.loads(name))
        name = name.lower()
        if name not in registry:
            # MXNet asserts here; raise the same exception type even under python -O
            raise AssertionError('%s is not registered. Please register with %s.register first.'
                                 '%s Registered %ss: %s' % (name, nickname,
                                                           did_you_mean(name, registry), nickname,
                                                           ', '.join(sorted(registry))))
        return registry[name](*args, **kwargs)

    create.__doc__ = _CREATE_DOC.format(nickname=nickname, base=base_class.__name__)
    return create
