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
from .config import (set_config, profiler_set_config, set_state, profiler_set_state, pause,
                     resume)
from .recording import scope, record_operator, custom_operator
from .trace import dump, dump_profile
from .aggregate import dumps
from .objects import Domain, Task, Frame, Event, Counter, Marker
from .state import clock

__all__ = ['set_config', 'profiler_set_config', 'set_state', 'profiler_set_state', 'dump',
           'dump_profile', 'dumps', 'pause', 'resume', 'scope', 'Domain', 'Task', 'Frame',
           'Event', 'Counter', 'Marker']

# flags read by executors and nd.* calls: running, not paused, and the mode asks for it
# (kept up to date by state._Profiler.refresh)
_symbolic_on = False
_imperative_on = False
