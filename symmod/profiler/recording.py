"""Adding records: operator runs, user objects' records, and ``scope`` labels."""
import contextlib
import contextvars
import threading

from .state import _STATE


@contextlib.contextmanager
def scope(name='<unk>:', append_mode=True):
    """Label the operators recorded inside the block (as in MXNet 2's ``profiler.scope``).

    Operator events recorded in the block carry ``args.scope`` in the trace.

    Parameters
    ----------
    name : str
        The scope name; a trailing ``':'`` is added when missing.
    append_mode : bool
        Prefix the enclosing scope's name.

    Examples
    --------
    >>> with mx.profiler.scope('encoder'):
    ...     exe.forward()
    """
    name = name if name.endswith(':') else name + ':'
    outer = _SCOPE.get()
    if append_mode and outer != '<unk>:':
        name = outer + name
    token = _SCOPE.set(name)
    try:
        yield name
    finally:
        _SCOPE.reset(token)


_SCOPE = contextvars.ContextVar('symmod_profiler_scope', default='<unk>:')


_CUSTOM = contextvars.ContextVar('symmod_profiler_custom_op', default=None)


@contextlib.contextmanager
def custom_operator(name):
    """Attribute what runs inside to custom operator ``name`` (``MySigmoid`` or
    ``_backward_MySigmoid``): the Python code itself is recorded as ``<name>::pure_python``
    and each operator it calls as ``<name>::<operator>``, all in MXNet's "Custom Operator"
    domain."""
    from .. import profiler as package
    if not (package._imperative_on or package._symbolic_on):
        yield
        return
    token = _CUSTOM.set(name)
    start = package.clock()
    try:
        yield
    finally:
        _CUSTOM.reset(token)
        from ..context import current_context
        _record('op', name + '::pure_python', 'Custom Operator', start, package.clock(),
                (current_context(), None, _SCOPE.get()))


def record_operator(op_name, node_name, ctx, start_ns, end_ns):
    """Record one operator run (called by executors and ``nd.*`` while profiling)."""
    scope_name = _SCOPE.get()
    custom = _CUSTOM.get()
    if custom is not None:      # called by a custom operator's Python code
        op_name, category = '%s::%s' % (custom, op_name), 'Custom Operator'
    else:
        category = 'operator'
    _STATE.records.append(('op', op_name, category, start_ns, end_ns,
                           threading.get_ident(), (ctx, node_name, scope_name)))


def _record(kind, name, category, start_ns, end, extra=None):
    if _STATE.recording:
        _STATE.records.append((kind, name, category, start_ns, end, threading.get_ident(),
                               extra))
