"""Test-harness helpers: environment variables, stderr, retries, expected exceptions."""
import functools
import os
import platform
import sys
from contextlib import contextmanager

__all__ = ['environment', 'discard_stderr', 'retry', 'assert_exception', 'list_gpus',
           'is_cd_run', 'is_aarch64_run', 'has_tvm_ops', 'is_op_runnable']


@contextmanager
def environment(*args):
    """Set environment variables for the body of a ``with`` block, then restore them.

    Parameters
    ----------
    *args
        ``(name, value)`` for one variable, or one dict ``{name: value}``; a value of
        None unsets the variable.

    Examples
    --------
    >>> with environment('MXNET_ENGINE_TYPE', 'NaiveEngine'):
    ...     pass
    """
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = args[0]
    elif len(args) == 2:
        env_vars = {args[0]: args[1]}
    else:
        raise TypeError('environment() takes one dict or a name and a value, found %d '
                        'arguments' % len(args))

    def apply(values):
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    snapshot = {name: os.environ.get(name) for name in env_vars}
    apply(env_vars)
    try:
        yield
    finally:
        from ..ndarray import waitall
        waitall()
        apply(snapshot)


@contextmanager
def discard_stderr():
    """Silence everything written to the process's stderr (file descriptor 2) in the block."""
    fileno = 2      # the process's stderr, which native code and sys.__stderr__ write to
    sys.stderr.flush()
    saved = os.dup(fileno)
    try:
        with open(os.devnull, 'w') as devnull:
            os.dup2(devnull.fileno(), fileno)
            try:
                yield
            finally:
                sys.stderr.flush()
                os.dup2(saved, fileno)
    finally:
        os.close(saved)


def retry(n):
    """Decorator: rerun a stochastic test up to ``n`` times until it passes its asserts."""
    assert n > 0

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    return func(*args, **kwargs)
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapper
    return decorate


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError('%s did not raise %s' % (getattr(f, '__name__', f),
                                                 exception_type.__name__))


def list_gpus():
    """``range`` over the GPUs present (empty without one)."""
    from ..context import num_gpus
    return range(num_gpus())


def is_cd_run():
    """Whether the tests run as part of a continuous-delivery job (``CD_JOB=1``)."""
    return os.environ.get('CD_JOB', 0) == '1'


def is_aarch64_run():
    """Whether the machine is aarch64."""
    return platform.machine() == 'aarch64'


def has_tvm_ops():
    """Whether TVM-generated operators exist: never in symmod."""
    return False


def is_op_runnable():
    """Whether operators can run on the current context: always in symmod."""
    return True
