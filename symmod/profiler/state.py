"""The process-wide profiler state and the flags that hot paths read."""
import sys
import threading
import time

from ..base import MXNetError

# MXNet stamps profiler events with the system clock (microseconds since the epoch); one
# clock for recording and for the trace's timestamps, so nothing drifts between them
clock = time.time_ns


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
        self.recording = False  # user objects (Task, Counter, ...) record only when set
        self.output_enabled = False
        self.records = []       # (kind, name, category, start_ns, end_ns or value, tid, extra)
        self.stats = {}         # category -> name -> [kind, count, total, min, max]
        self.folded = 0         # records[:folded] are already in stats
        self.lock = threading.Lock()

    def refresh(self):
        """Recompute the flags after a state or configuration change."""
        self.recording = self.running and not self.paused
        # executors and nd.* calls read these two as plain attributes of symmod.profiler,
        # one look-up per call, so they live on the package module itself
        package = sys.modules[__package__]
        package._symbolic_on = self.recording and self.modes['symbolic']
        package._imperative_on = self.recording and self.modes['imperative']


_STATE = _Profiler()


def _check_process(profile_process):
    if profile_process == 'worker':
        return
    if profile_process == 'server':
        raise MXNetError('profile_process="server" profiles a distributed kvstore server; '
                         'symmod has no distributed kvstore server to profile')
    raise KeyError(profile_process)
