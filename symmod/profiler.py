"""The profiler: time operators and user-marked regions, write a Chrome trace.

As in MXNet 1.9.1: :func:`set_config` chooses what is recorded and where it goes,
:func:`set_state` starts and stops recording, :func:`dump` writes the trace-event JSON
that ``chrome://tracing`` (or Perfetto) opens, and :func:`dumps` returns per-name
aggregate statistics. :class:`Domain`, :class:`Task`, :class:`Frame`, :class:`Event`,
:class:`Counter` and :class:`Marker` let a program add its own records.

Recording costs nothing while the profiler is off: executors and ``nd.*`` calls look
at one module flag per call (``_symbolic_on`` / ``_imperative_on``) and only then take a
timed path.
"""
import atexit
import contextlib
import contextvars
import json
import os
import tempfile
import threading
import time
import warnings
import zlib

from .base import MXNetError

__all__ = ['set_config', 'profiler_set_config', 'set_state', 'profiler_set_state', 'dump',
           'dump_profile', 'dumps', 'pause', 'resume', 'scope', 'Domain', 'Task', 'Frame',
           'Event', 'Counter', 'Marker']

clock = time.perf_counter_ns
# perf_counter has no epoch; trace timestamps are microseconds since the epoch, as MXNet's
_EPOCH_OFFSET_NS = time.time_ns() - time.perf_counter_ns()

# flags read by executors and nd.* calls: running, not paused, and the mode asks for it
_symbolic_on = False
_imperative_on = False
_recording = False      # user objects (Task, Counter, ...) record only when this is set


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


class _Profiler:
    """The process-wide profiler state (one instance, ``_STATE``)."""

    def __init__(self):
        # before any set_config MXNet profiles symbolic operators only (plus API, memory)
        self.modes = {'symbolic': True, 'imperative': False, 'api': True, 'memory': True}
        self.filename = 'profile.json'
        self.continuous_dump = False
        self.aggregate = False
        self.running = False
        self.paused = False
        self.output_enabled = False
        self.records = []       # (kind, name, category, start_ns, end_ns or value, tid, extra)
        self.stats = {}         # category -> name -> [kind, count, total, min, max]
        self.folded = 0         # records[:folded] are already in stats
        self.lock = threading.Lock()

    def refresh(self):
        global _symbolic_on, _imperative_on, _recording
        _recording = self.running and not self.paused
        _symbolic_on = _recording and self.modes['symbolic']
        _imperative_on = _recording and self.modes['imperative']


_STATE = _Profiler()


def _check_process(profile_process):
    if profile_process == 'worker':
        return
    if profile_process == 'server':
        raise MXNetError('profile_process="server" profiles a distributed kvstore server; '
                         'symmod has no distributed kvstore server to profile')
    raise KeyError(profile_process)


# ---- configuration and state ------------------------------------------------------------
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


# ---- recording ----------------------------------------------------------------------------
def record_operator(op_name, node_name, ctx, start_ns, end_ns):
    """Record one operator run (called by executors and ``nd.*`` while profiling)."""
    scope_name = _SCOPE.get()
    _STATE.records.append(('op', op_name, 'operator', start_ns, end_ns,
                           threading.get_ident(), (ctx, node_name, scope_name)))


def _record(kind, name, category, start_ns, end, extra=None):
    if _recording:
        _STATE.records.append((kind, name, category, start_ns, end, threading.get_ident(),
                               extra))


def _microseconds(ns):
    return round((ns + _EPOCH_OFFSET_NS) / 1000.0, 3)


def _device(ctx):
    """(pid, name) of a device, numbered as MXNet numbers them."""
    cpus = os.cpu_count() or 64
    kind, index = ctx.device_type, ctx.device_id
    if kind == 'gpu':
        return cpus + index, 'gpu/%d' % index
    if kind == 'cpu_pinned':
        return cpus + 32, 'cpu pinned/'
    if kind == 'cpu_shared':
        return cpus + 33, 'cpu shared/'
    return index, 'cpu/%d' % index


def _trace_events(records):
    """Chrome trace events (with process-name metadata) for ``records``."""
    events, named = [], set()

    def process(pid, name):
        if pid not in named:
            named.add(pid)
            events.append({'ph': 'M', 'args': {'name': name}, 'pid': pid,
                           'name': 'process_name'})

    for kind, name, category, start, end, tid, extra in records:
        if kind == 'op':
            ctx, node_name, scope_name = extra
            pid, device_name = _device(ctx)
            process(pid, device_name)
            args = {} if node_name is None else {'node': node_name}
            if scope_name != '<unk>:':
                args['scope'] = scope_name
            base = {'name': name, 'cat': category, 'pid': pid, 'tid': tid}
            begin = dict(base, ph='B', ts=_microseconds(start))
            if args:
                begin['args'] = args
            events.append(begin)
            events.append(dict(base, ph='E', ts=_microseconds(end)))
            continue
        pid = zlib.crc32(category.encode('utf-8'))
        process(pid, category)
        base = {'name': name, 'cat': category, 'pid': pid, 'tid': tid}
        if kind == 'counter':
            events.append(dict(base, ph='C', ts=_microseconds(start), args={name: end}))
        elif kind == 'marker':
            events.append(dict(base, ph='n', ts=_microseconds(start), s=extra, id=tid))
        else:
            begin, finish = _PHASES[kind]
            for phase, when in ((begin, start), (finish, end)):
                event = dict(base, ph=phase, ts=_microseconds(when))
                if kind == 'task':
                    event['id'] = tid
                events.append(event)
    return events


# begin / end phases of duration records: tasks are async spans, frames are contexts
_PHASES = {'task': ('b', 'e'), 'frame': ('(', ')'), 'event': ('B', 'E')}


def _write_atomically(filename, text):
    folder = os.path.dirname(os.path.abspath(filename))
    handle, temp = tempfile.mkstemp(prefix='.profile-', suffix='.tmp', dir=folder)
    try:
        with os.fdopen(handle, 'w') as stream:
            stream.write(text)
        os.replace(temp, filename)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise


def dump(finished=True, profile_process='worker'):
    """Write the recorded events to the configured file as Chrome trace-event JSON.

    Parameters
    ----------
    finished : bool
        Close the output: the recorded events are dropped after writing and a further
        dump needs ``set_state('run')`` first. With ``finished=False`` (and
        ``continuous_dump``) the events are kept and the next dump rewrites the file
        with them and any newer ones.
    profile_process : {'worker', 'server'}
        Only ``'worker'`` is available.

    Examples
    --------
    >>> mx.profiler.set_state('stop')
    >>> mx.profiler.dump()      # then open profile.json in chrome://tracing
    """
    _check_process(profile_process)
    state = _STATE
    with state.lock:
        if not state.output_enabled:
            raise MXNetError("Profiler hasn't been run. Config and start profiler first")
        records = list(state.records)
        last = finished is True or not state.continuous_dump
        if last:
            _fold(state)
            del state.records[:]
            state.folded = 0
            state.output_enabled = False
        filename = state.filename
    lines = ',\n'.join('        ' + json.dumps(event) for event in _trace_events(records))
    _write_atomically(filename, '{\n    "traceEvents": [\n%s\n    ],\n'
                                '    "displayTimeUnit": "ms"\n}\n' % lines)


def dump_profile():
    """Write the trace and close the output (deprecated: use :func:`dump`)."""
    warnings.warn('profiler.dump_profile() is deprecated. '
                  'Please use profiler.dump() instead')
    dump(True)


def _dump_at_exit():
    # MXNet writes the trace when the process ends if nobody dumped it
    if _STATE.output_enabled:
        try:
            dump(True)
        except OSError as err:
            warnings.warn('profiler: could not write %s at exit: %s' % (_STATE.filename, err))


atexit.register(_dump_at_exit)


# ---- aggregate statistics --------------------------------------------------------------------
def _fold(state):
    """Add records not yet counted to the aggregate statistics (when they are kept)."""
    if not state.aggregate:
        state.folded = len(state.records)
        return
    for kind, name, category, start, end, _, _ in state.records[state.folded:]:
        entries = state.stats.setdefault(category, {})
        if kind == 'marker':
            entries.setdefault(name, ['other', 0, 0.0, 0.0, 0.0])
            continue
        if kind == 'counter':
            value = float(end)
            entry = entries.setdefault(name, ['counter', 0, 0.0, value, value])
            entry[2] = value    # a counter's "total" is its latest value
        else:
            value = (end - start) / 1000.0      # microseconds
            entry = entries.setdefault(name, ['duration', 0, 0.0, value, value])
            entry[2] += value
        entry[1] += 1
        entry[3] = min(entry[3], value)
        entry[4] = max(entry[4], value)
    state.folded = len(state.records)


def _average(entry):
    kind, count, total, low, high = entry
    # MXNet reports half the range as a counter's "average"
    return (high - low) / 2 if kind == 'counter' else total / count


_SORT_KEYS = {'total': lambda e: e[2], 'avg': _average, 'min': lambda e: e[3],
              'max': lambda e: e[4], 'count': lambda e: e[1]}


def _sorted_rows(entries, sort_by, ascending):
    rows = [(name, e) for name, e in entries.items() if e[0] != 'other']
    key = _SORT_KEYS[sort_by]
    sign = -1 if ascending else 1
    # largest first, ties by name descending, as MXNet's max-heap pops them
    return sorted(rows, key=lambda row: (sign * key(row[1]), row[0]), reverse=True)


def _table(stats, sort_by, ascending):
    lines = ['', 'Profile Statistics:', '\tNote the difference in units for different entries.']
    for category in sorted(stats):
        lines += [category, '=================',
                  '%-25s%16s %16s %16s %16s %16s' % ('Name', 'Total Count', 'Time (ms)',
                                                     'Min Time (ms)', 'Max Time (ms)',
                                                     'Avg Time (ms)'),
                  '%-25s%16s %16s %16s %16s %16s' % ('----', '-----------', '---------',
                                                     '-------------', '-------------',
                                                     '-------------')]
        for name, entry in _sorted_rows(stats[category], sort_by, ascending):
            lines.append('%-25s%16d %16.4f %16.4f %16.4f %16.4f'
                         % (name, entry[1], entry[2] / 1000, entry[3] / 1000,
                            entry[4] / 1000, _average(entry) / 1000))
        lines.append('')
    return '\n'.join(lines) + '\n'


def _json(stats, sort_by, ascending):
    def number(microseconds):
        return '%.4g' % (microseconds / 1000)

    blocks = []
    for category in sorted(stats):
        rows = []
        for name, entry in _sorted_rows(stats[category], sort_by, ascending):
            rows.append('            %s: {\n'
                        '                "Count": %d,\n'
                        '                "Total": %s,\n'
                        '                "Min": %s,\n'
                        '                "Max": %s,\n'
                        '                "Avg": %s\n'
                        '            }\n'
                        % (json.dumps(name), entry[1], number(entry[2]), number(entry[3]),
                           number(entry[4]), number(_average(entry))))
        blocks.append('        %s: {\n%s        }\n'
                      % (json.dumps(category), '            ,\n'.join(rows)))
    return ('{\n    "Time": {\n%s    }\n    ,\n    "Memory": {\n    }\n,\n'
            '    "Unit": {\n        "Time": "ms",\n        "Memory": "kB"\n    }\n}\n'
            % '        ,\n'.join(blocks))


def dumps(reset=False, format='table', sort_by='total', ascending=False):
    """Aggregate statistics of the records so far, per category and name.

    Needs ``set_config(aggregate_stats=True)``; without it the result is ``''``.
    Times are in milliseconds. For counters the columns hold values (divided by 1000, as
    MXNet prints them).

    Parameters
    ----------
    reset : bool
        Clear the statistics after printing them.
    format : {'table', 'json'}
    sort_by : {'total', 'avg', 'min', 'max', 'count'}
        The column rows are ordered by within each category.
    ascending : bool
        Smallest first instead of largest first.

    Returns
    -------
    str

    Examples
    --------
    >>> mx.profiler.set_config(profile_all=True, aggregate_stats=True)
    >>> mx.profiler.set_state('run')
    >>> exe.forward(is_train=True); exe.backward()
    >>> print(mx.profiler.dumps(sort_by='count'))
    """
    if format not in ('table', 'json'):
        raise AssertionError("Invalid value provided for format: {0}. Support: 'table', "
                             "'json'".format(format))
    if sort_by not in _SORT_KEYS:
        raise AssertionError("Invalid value provided for sort_by: {0}. Support: 'total', "
                             "'avg', 'min', 'max', 'count'".format(sort_by))
    if ascending not in (False, True):
        raise AssertionError('Invalid value provided for ascending: {0}. Support: False, '
                             'True'.format(ascending))
    if reset not in (False, True):
        raise AssertionError('Invalid value provided for reset: {0}. Support: False, '
                             'True'.format(reset))
    state = _STATE
    with state.lock:
        if not state.aggregate:
            return ''
        _fold(state)
        text = (_table if format == 'table' else _json)(state.stats, sort_by, ascending)
        if reset:
            state.stats = {}
    return text


# ---- user objects ----------------------------------------------------------------------------
class Domain:
    """A named group of profiling objects; it is the category of their records.

    Parameters
    ----------
    name : str
        Name of the domain.

    Examples
    --------
    >>> domain = mx.profiler.Domain('training')
    >>> task = domain.new_task('load batch')
    """

    def __init__(self, name):
        if not name:
            raise MXNetError('a profiler Domain needs a non-empty name')
        self.name = name

    def __str__(self):
        return self.name

    def new_task(self, name):
        """A :class:`Task` in this domain."""
        return Task(self, name)

    def new_frame(self, name):
        """A :class:`Frame` in this domain."""
        return Frame(self, name)

    def new_counter(self, name, value=None):
        """A :class:`Counter` in this domain, optionally set to ``value``."""
        return Counter(self, name, value)

    def new_marker(self, name):
        """A :class:`Marker` in this domain."""
        return Marker(self, name)


class _Duration:
    """A region timed between :meth:`start` and :meth:`stop`."""
    _kind = None

    def __init__(self, name, category):
        self.name = name
        self._category = category
        self._start = None

    def start(self):
        """Start timing."""
        self._start = clock()

    def stop(self):
        """Stop timing and record the region (if the profiler is recording)."""
        if self._start is None:
            raise MXNetError('%s %r: stop() called before start()'
                             % (type(self).__name__, self.name))
        _record(self._kind, self.name, self._category, self._start, clock())
        self._start = None

    def __str__(self):
        return self.name


class Task(_Duration):
    """A unit of work in a domain; all passes are aggregated under one name.

    Parameters
    ----------
    domain : Domain
    name : str

    Examples
    --------
    >>> task = mx.profiler.Domain('io').new_task('decode')
    >>> task.start(); decode(); task.stop()
    """
    _kind = 'task'

    def __init__(self, domain, name):
        super().__init__(name, domain.name)


class Frame(_Duration):
    """A frame (one discrete period, such as one batch) in a domain.

    Parameters
    ----------
    domain : Domain
    name : str
    """
    _kind = 'frame'

    def __init__(self, domain, name):
        super().__init__(name, domain.name + ',frame')


class Event(_Duration):
    """A timed region in the ``event`` category.

    Parameters
    ----------
    name : str
    """
    _kind = 'event'

    def __init__(self, name):
        super().__init__(name, 'event')


class Counter:
    """A value tracked over time; every change is recorded.

    Parameters
    ----------
    domain : Domain
    name : str
    value : int, optional
        Initial value.

    Examples
    --------
    >>> counter = mx.profiler.Domain('data').new_counter('batches', 0)
    >>> counter += 1
    """

    def __init__(self, domain, name, value=None):
        self.name = name
        self._category = domain.name
        self._value = 0
        if value is not None:
            self.set_value(value)

    def _send(self):
        _record('counter', self.name, self._category, clock(), self._value)

    def set_value(self, value):
        """Set the counter to ``value``."""
        self._value = int(value)
        self._send()

    def increment(self, delta=1):
        """Add ``delta`` to the counter."""
        self._value += int(delta)
        self._send()

    def decrement(self, delta=1):
        """Subtract ``delta`` from the counter."""
        self._value -= int(delta)
        self._send()

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


_MARKER_SCOPES = {'global': 'g', 'process': 'p', 'thread': 't', 'task': 'p', 'marker': 'p'}


class Marker:
    """An instant in time, marked with :meth:`mark`.

    Parameters
    ----------
    domain : Domain
    name : str
    """

    def __init__(self, domain, name):
        self.name = name
        self.domain = domain

    def mark(self, scope='process'):
        """Record the marker now.

        Parameters
        ----------
        scope : {'global', 'process', 'thread', 'task', 'marker'}
            What the instant applies to in the trace viewer.
        """
        if scope not in _MARKER_SCOPES:
            raise MXNetError("Invalid Input: %r, valid values are: {'global', 'marker', "
                             "'process', 'task', 'thread'}" % (scope,))
        _record('marker', self.name, self.domain.name + ',instant_marker', clock(), None,
                _MARKER_SCOPES[scope])
