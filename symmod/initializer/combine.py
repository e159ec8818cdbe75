"""Initializers that delegate: ``Load`` (values from a file or dict) and ``Mixed``
(a different initializer per name pattern)."""
import logging
import re

_LOGGER = logging.getLogger(__name__)

__all__ = ['Load', 'Mixed']


class Load:
    """Initialize parameters with saved values, falling back to ``default_init``.

    Names saved with an ``arg:`` or ``aux:`` prefix (as checkpoints store them)
    match the parameter name without it.

    Parameters
    ----------
    param : str or dict of str to NDArray
        A ``.params`` file (read with ``mx.nd.load``) or the arrays themselves.
    default_init : Initializer, optional
        Used for parameters not found in ``param``.
    verbose : bool, optional
        Log where each parameter came from.

    Examples
    --------
    >>> init = mx.init.Load('model-0010.params', default_init=mx.init.Xavier())
    >>> module.init_params(init)
    """

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            from ..ndarray import load
            param = load(param)
        assert isinstance(param, dict), 'Load needs a dict of name -> NDArray (or a file ' \
            'saved from one), found %s' % type(param).__name__
        self.param = {}
        for name, arr in param.items():
            if name.startswith('arg:') or name.startswith('aux:'):
                self.param[name[4:]] = arr
            else:
                self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            assert arr.shape == self.param[name].shape, \
                'Parameter %s cannot be initialized from loading. ' % name + \
                'Shape mismatch, target %s vs loaded %s' % (str(arr.shape),
                                                           self.param[name].shape)
            arr[:] = self.param[name]
            if self.verbose:
                _LOGGER.info('Initialized %s by loading', name)
        else:
            assert self.default_init is not None, \
                'Cannot Initialize %s. Not found in loaded param ' % name + \
                'and no default Initializer is provided.'
            self.default_init(name, arr)
            if self.verbose:
                _LOGGER.info('Initialized %s by default', name)


class Mixed:
    """Initialize each parameter with the first initializer whose pattern matches its name.

    Parameters
    ----------
    patterns : list of str
        Regular expressions, tried in order with ``re.match``.
    initializers : list of Initializer
        One initializer per pattern.

    Examples
    --------
    >>> init = mx.init.Mixed(['bias', '.*'], [mx.init.Zero(), mx.init.Uniform(0.1)])
    >>> module.init_params(init)
    """

    def __init__(self, patterns, initializers):
        assert len(patterns) == len(initializers), \
            'Mixed needs one initializer per pattern, found %d patterns and %d initializers' \
            % (len(patterns), len(initializers))
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ValueError('Parameter name %s did not match any pattern. Consider '
                         'add a ".*" pattern at the and with default Initializer.' % name)
