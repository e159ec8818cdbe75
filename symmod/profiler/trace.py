"""``dump``: the recorded events as Chrome trace-event JSON, written atomically."""
import atexit
import json
import os
import tempfile
import warnings
import zlib

from ..base import MXNetError
from .aggregate import _fold
from .state import _STATE, _check_process

def _microseconds(ns):
    """Trace timestamps are microseconds since the epoch, as MXNet's (``clock`` is epoch-based)."""
    return round(ns / 1000.0, 3)


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
