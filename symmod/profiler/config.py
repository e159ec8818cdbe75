"""``set_config`` / ``set_state`` / ``pause`` / ``resume``: what is recorded, and when."""
import warnings

from ..base import MXNetError
from .state import _STATE, _check_process


def _parse_bool(key, value):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ('true', '1'):
        return True
    if text in ('false', '0'):
        return False
    raise MXNetError('Invalid Parameter format for %s expect boolean but value=%r'
                     % (key, str(value)))


def _parse_float(key, value):
    try:
        return float(value)
    except (TypeError, ValueError):
        raise MXNetError('Invalid Parameter format for %s expect float but value=%r'
                         % (key, str(value))) from None


def _parse_process(key, value):
    if str(value) not in ('worker', 'server'):
        raise MXNetError("Invalid Input: %r, valid values are: {'server', 'worker'}"
                         % str(value))
    return str(value)


# key -> (parser, default when set_config leaves it out, description); as in MXNet, keys
# that set_config does not name fall back to these defaults (profile_* default to True)
_CONFIG = {
    'profile_all': (_parse_bool, False, 'Profile all. Default is False.'),
    'profile_symbolic': (_parse_bool, True, 'Profile symbolic operators. Default is True.'),
    'profile_imperative': (_parse_bool, True,
                           'Profile imperative operators. Default is True.'),
    'profile_memory': (_parse_bool, True, 'Profile memory. Default is True.'),
    'profile_api': (_parse_bool, True, 'Profile C API. Default is True.'),
    'filename': (lambda key, value: str(value), 'profile.json',
                 'File name to write profiling info.'),
    'continuous_dump': (_parse_bool, True, 'Periodically dump (and append) profiling data '
                        'to file while running. Default is True.'),
    'dump_period': (_parse_float, 1.0, 'When continuous dump is enabled, the period between '
                    'subsequent profile info dumping.'),
    'aggregate_stats': (_parse_bool, False, 'Maintain aggregate stats, required for '
                        'dumps(). Default is False.'),
    'profile_process': (_parse_process, 'worker', "Which process to profile: 'worker' or "
                        "'server'."),
}


def set_config(**kwargs):
    """Configure the profiler (keyword arguments only).

    Keys left out take their defaults, so ``set_config(filename='x.json')`` turns on
    symbolic, imperative, memory and API profiling, as MXNet does.

    Parameters
    ----------
    filename : str
        Where :func:`dump` writes the trace (default ``'profile.json'``).
    profile_all : bool
        Turn on every kind of profiling.
    profile_symbolic : bool
        Record each operator that executors run (forward and backward).
    profile_imperative : bool
        Record each ``mx.nd`` operator call.
    profile_memory, profile_api : bool
        Accepted for compatibility; symmod records no allocations or C API calls.
    continuous_dump : bool
        Keep the output open for further dumps after ``dump(finished=False)``.
    dump_period : float
        Must be positive when ``continuous_dump`` is set.
    aggregate_stats : bool
        Keep per-name statistics for :func:`dumps`.
    profile_process : {'worker', 'server'}
        Only ``'worker'`` (this process) can be profiled.

    Examples
    --------
    >>> mx.profiler.set_config(profile_symbolic=True, aggregate_stats=True,
    ...                        filename='trace.json')
    """
    parsed = {}
    for key, value in kwargs.items():
        if key not in _CONFIG:
            listing = '\n'.join('%s : %s' % (k, doc) for k, (_, _, doc) in _CONFIG.items())
            raise MXNetError("Cannot find argument '%s', Possible Arguments:\n"
                             "----------------\n%s" % (key, listing))
        parsed[key] = _CONFIG[key][0](key, value)
    config = {key: parsed.get(key, default) for key, (_, default, _) in _CONFIG.items()}
    if config['continuous_dump'] and config['dump_period'] <= 0:
        raise MXNetError('Check failed: !continuous_dump || dump_period > 0: dump_period '
                         'must be positive, found %s' % config['dump_period'])
    _check_process(config['profile_process'])
    every = config['profile_all']
    state = _STATE
    with state.lock:
        for mode in ('symbolic', 'imperative', 'memory', 'api'):
            state.modes[mode] = every or config['profile_' + mode]
        state.filename = config['filename']
        state.continuous_dump = config['continuous_dump']
        if config['aggregate_stats'] and not state.aggregate:
            state.stats, state.folded = {}, len(state.records)
        state.aggregate = config['aggregate_stats']
        state.refresh()


def profiler_set_config(mode='symbolic', filename='profile.json'):
    """Configure the profiler (deprecated: use :func:`set_config`).

    Parameters
    ----------
    mode : {'symbolic', 'all'}
        What to profile.
    filename : str
        The trace file name.
    """
    warnings.warn('profiler.profiler_set_config() is deprecated. '
                  'Please use profiler.set_config() instead')
    set_config(**{'profile_' + mode: True, 'filename': filename})


def set_state(state='stop', profile_process='worker'):
    """Start (``'run'``) or stop (``'stop'``) recording.

    Parameters
    ----------
    state : {'stop', 'run'}
    profile_process : {'worker', 'server'}
        Only ``'worker'`` is available.

    Examples
    --------
    >>> mx.profiler.set_state('run')
    >>> # ... forward / backward ...
    >>> mx.profiler.set_state('stop')
    """
    if state not in ('stop', 'run'):
        raise KeyError("profiler state must be 'run' or 'stop', found %r" % (state,))
    _check_process(profile_process)
    with _STATE.lock:
        _STATE.running = state == 'run'
        # running un-pauses and enables output; stopping pauses, as in MXNet
        _STATE.paused = not _STATE.running
        if _STATE.running:
            _STATE.output_enabled = True
        _STATE.refresh()


def profiler_set_state(state='stop'):
    """Start or stop recording (deprecated: use :func:`set_state`)."""
    warnings.warn('profiler.profiler_set_state() is deprecated. '
                  'Please use profiler.set_state() instead')
    set_state(state)


def pause(profile_process='worker'):
    """Stop recording for a while without stopping the profiler (see :func:`resume`)."""
    _check_process(profile_process)
    with _STATE.lock:
        _STATE.paused = True
        _STATE.refresh()


def resume(profile_process='worker'):
    """Resume recording after :func:`pause`."""
    _check_process(profile_process)
    with _STATE.lock:
        _STATE.paused = False
        _STATE.refresh()
