"""mx.profiler: what executors and nd calls record, state changes, the Chrome trace
written by dump(), the aggregate statistics of dumps(), user objects, config errors."""
import json
import os
import time

import numpy as np
import pytest

import symmod as mx
from symmod import profiler
from symmod.base import MXNetError

# the MLP's operators in execution order, by (op name, node name), from its definition
FORWARD = [('FullyConnected', 'fc1'), ('Activation', 'relu1'), ('FullyConnected', 'fc2'),
           ('SoftmaxOutput', 'softmax')]
BACKWARD = [('_backward_' + op, node) for op, node in FORWARD[::-1]]


@pytest.fixture
def trace_file(tmp_path):
    """Configure the profiler into a temp file; leave it stopped with nothing to write."""
    path = str(tmp_path / 'trace.json')
    profiler.set_config(profile_all=True, aggregate_stats=True, continuous_dump=True,
                        filename=path)
    yield path
    profiler.set_state('stop')
    profiler.resume()
    try:
        profiler.dump()     # close the output so nothing is written at exit
    except MXNetError:
        pass
    profiler.set_config(aggregate_stats=False, continuous_dump=False,
                        filename=str(tmp_path / 'unused.json'))


@pytest.fixture
def exe():
    with mx.name.NameManager():
        data = mx.sym.var('data')
        net = mx.sym.FullyConnected(data, num_hidden=8, name='fc1')
        net = mx.sym.Activation(net, act_type='relu', name='relu1')
        net = mx.sym.FullyConnected(net, num_hidden=3, name='fc2')
        net = mx.sym.SoftmaxOutput(net, name='softmax')
    executor = net.simple_bind(mx.cpu(), data=(4, 5))
    rng = np.random.RandomState(0)
    for arr in executor.arg_arrays:
        arr[:] = rng.uniform(-1, 1, arr.shape)
    executor.arg_dict['softmax_label'][:] = [0, 1, 2, 1]
    return executor


def _step(executor):
    executor.forward(is_train=True)
    executor.backward()


def _trace(path, finished=False):
    profiler.dump(finished=finished)
    with open(path) as f:
        return json.load(f)['traceEvents']


def _operators(events, creation=False):
    """(operator, node) of the operator events; nd.zeros/ones/full (operators in MXNet,
    recorded as _zeros/_ones/_full) are left out unless ``creation``."""
    return [(e['name'], e.get('args', {}).get('node')) for e in events
            if e['ph'] == 'B' and e['cat'] == 'operator'
            and (creation or e['name'] not in ('_zeros', '_ones', '_full'))]


def _table_rows(text, category):
    """{name: (count, total, min, max, avg)} of one category of a dumps() table."""
    lines = text.splitlines()
    start = lines.index(category) + 4
    rows = {}
    for line in lines[start:]:
        if not line.strip():
            break
        fields = line.split()
        rows[' '.join(fields[:-5])] = (int(fields[-5]),) + tuple(map(float, fields[-4:]))
    return rows


def test_executor_records_every_node_per_pass(trace_file, exe):
    profiler.set_state('run')
    _step(exe)
    _step(exe)
    profiler.set_state('stop')
    assert _operators(_trace(trace_file)) == (FORWARD + BACKWARD) * 2


def test_profiled_pass_computes_the_same_numbers(trace_file, exe):
    _step(exe)
    expected = [g.asnumpy().copy() for g in exe.grad_arrays] + [exe.outputs[0].asnumpy()]
    profiler.set_state('run')
    _step(exe)
    profiler.set_state('stop')
    found = [g.asnumpy() for g in exe.grad_arrays] + [exe.outputs[0].asnumpy()]
    for a, b in zip(expected, found):
        np.testing.assert_array_equal(a, b)


def test_nothing_recorded_when_stopped_or_paused(trace_file, exe):
    profiler.set_state('run')
    _step(exe)
    profiler.pause()
    _step(exe)
    mx.nd.dot(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
    profiler.Event('paused').start()
    profiler.resume()
    exe.forward(is_train=False)
    profiler.set_state('stop')
    _step(exe)
    profiler.Domain('d').new_counter('c', 3)
    assert _operators(_trace(trace_file)) == FORWARD + BACKWARD + FORWARD


def test_disabled_path_never_touches_the_clock(monkeypatch, exe):
    def fail():
        raise AssertionError('profiling code ran while the profiler is stopped')
    profiler.set_state('stop')
    monkeypatch.setattr(profiler, 'clock', fail)
    _step(exe)
    mx.nd.dot(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))


@pytest.mark.parametrize('imperative, symbolic', [(True, False), (False, True)])
def test_modes_choose_imperative_or_symbolic(tmp_path, trace_file, exe, imperative,
                                             symbolic):
    profiler.set_config(profile_imperative=imperative, profile_symbolic=symbolic,
                        filename=trace_file)
    profiler.set_state('run')
    a = mx.nd.array(np.arange(4, dtype=np.float32).reshape(2, 2))
    mx.nd.dot(a, a)
    _step(exe)
    profiler.set_state('stop')
    recorded = _operators(_trace(trace_file))
    assert (('dot', None) in recorded) == imperative
    assert (recorded[-8:] == FORWARD + BACKWARD) == symbolic


def test_default_mode_records_symbolic_only(trace_file, exe):
    # as in MXNet: before any set_config only symbolic operators are profiled, and
    # set_config without profile_* keys turns every mode on
    profiler.set_config(profile_imperative=False, filename=trace_file)
    profiler.set_state('run')
    mx.nd.dot(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
    profiler.set_config(filename=trace_file)
    mx.nd.dot(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
    profiler.set_state('stop')
    assert _operators(_trace(trace_file)) == [('dot', None)]


def test_dump_is_valid_chrome_trace(trace_file, exe):
    # the profiler stamps events with time.time_ns, the clock read here: whole-microsecond
    # bounds (floor / ceil) are exact even after the float conversion of the trace's 'ts'
    before_us = time.time_ns() // 1000
    profiler.set_state('run')
    _step(exe)
    domain = profiler.Domain('work')
    task, frame, event = domain.new_task('t'), domain.new_frame('f'), profiler.Event('e')
    for obj in (task, frame, event):
        obj.start()
        obj.stop()
    domain.new_counter('n', 2).increment()
    domain.new_marker('m').mark('thread')
    profiler.set_state('stop')
    after_us = -(-time.time_ns() // 1000)
    profiler.dump()
    with open(trace_file) as f:
        trace = json.load(f)
    assert trace['displayTimeUnit'] == 'ms'
    events = trace['traceEvents']
    named = {e['pid'] for e in events if e['ph'] == 'M' and e['name'] == 'process_name'}
    open_spans = {}
    for e in events:
        assert isinstance(e['pid'], int) and e['ph'] in 'MBEbe()Cn'
        assert e['pid'] in named
        if e['ph'] == 'M':
            continue
        assert isinstance(e['tid'], int) and isinstance(e['name'], str) and e['cat']
        assert before_us <= e['ts'] <= after_us      # microseconds since the epoch
        key = (e['pid'], e['tid'], e['cat'])
        if e['ph'] in 'Bb(':
            open_spans.setdefault(key, []).append(e)
        elif e['ph'] in 'Ee)':
            begin = open_spans[key].pop()
            assert begin['name'] == e['name'] and begin['ts'] <= e['ts']
    assert all(not spans for spans in open_spans.values())
    assert [f for f in os.listdir(os.path.dirname(trace_file))
            if f != 'trace.json'] == []       # written atomically, no temp file left


def test_user_objects_appear_in_dump(trace_file):
    profiler.set_state('run')
    domain = profiler.Domain('mydomain')
    counter = domain.new_counter('items', 5)
    counter += 3
    counter -= 1
    counter.increment(2)
    counter.decrement()
    counter.set_value(20)
    marker = domain.new_marker('here')
    marker.mark()
    marker.mark('global')
    task = domain.new_task('job')
    task.start()
    time.sleep(0.02)
    task.stop()
    frame = domain.new_frame('batch')
    frame.start()
    frame.stop()
    profiler.set_state('stop')
    events = _trace(trace_file)
    counts = [e['args']['items'] for e in events if e['ph'] == 'C']
    assert counts == [5, 8, 7, 9, 8, 20]
    assert all(e['cat'] == 'mydomain' for e in events if e['ph'] == 'C')
    marks = [(e['s'], e['cat']) for e in events if e['name'] == 'here']
    assert marks == [('p', 'mydomain,instant_marker'), ('g', 'mydomain,instant_marker')]
    job = {e['ph']: e['ts'] for e in events if e['name'] == 'job'}
    # the profiler's clock is the wall clock (as MXNet's): NTP may slew it by up to 500 ppm
    # against the sleep's monotonic clock, so a 20 ms sleep measures at least 19.98 ms
    assert set(job) == {'b', 'e'} and job['e'] - job['b'] >= 20000 * 0.999
    assert {e['ph'] for e in events if e['name'] == 'batch'} == {'(', ')'}
    assert {e['cat'] for e in events if e['name'] == 'batch'} == {'mydomain,frame'}


def test_dumps_table_counts_and_times(trace_file, exe):
    profiler.set_state('run')
    for _ in range(3):
        _step(exe)
    event = profiler.Event('sleep')
    event.start()
    time.sleep(0.01)
    event.stop()
    counter = profiler.Domain('d').new_counter('c', 4)
    counter += 6
    profiler.set_state('stop')
    text = profiler.dumps()
    assert text.startswith('\nProfile Statistics:\n')
    ops = _table_rows(text, 'operator')
    assert ops['FullyConnected'][0] == 6 and ops['_backward_FullyConnected'][0] == 6
    assert ops['Activation'][0] == 3 and ops['_backward_SoftmaxOutput'][0] == 3
    for count, total, low, high, avg in ops.values():
        assert 0 <= low <= avg <= high <= total
        assert avg == pytest.approx(total / count, abs=1e-4)
    totals = [row[1] for row in ops.values()]
    assert totals == sorted(totals, reverse=True)
    assert _table_rows(text, 'event')['sleep'][1] >= 10.0 * 0.999     # wall clock, see above
    # MXNet prints a counter's latest value, range and half-range, divided by 1000
    assert _table_rows(text, 'd')['c'] == (2, 0.01, 0.004, 0.01, 0.003)


def test_dumps_json_sorting_and_reset(trace_file, exe):
    profiler.set_state('run')
    _step(exe)
    profiler.set_state('stop')
    stats = json.loads(profiler.dumps(format='json'))
    assert stats['Unit'] == {'Time': 'ms', 'Memory': 'kB'}
    assert stats['Time']['operator']['FullyConnected']['Count'] == 2
    by_count = _table_rows(profiler.dumps(sort_by='count', ascending=True), 'operator')
    assert [row[0] for row in by_count.values()] == sorted(row[0]
                                                           for row in by_count.values())
    assert 'FullyConnected' in profiler.dumps(reset=True)
    assert 'FullyConnected' not in profiler.dumps()


def test_dumps_empty_without_aggregate_stats(trace_file, exe):
    profiler.set_config(aggregate_stats=False, filename=trace_file)
    profiler.set_state('run')
    _step(exe)
    profiler.set_state('stop')
    assert profiler.dumps() == ''


def test_finished_dump_closes_output(trace_file, exe):
    profiler.set_state('run')
    _step(exe)
    profiler.dump(finished=False)       # continuous: events kept, file rewritten later
    _step(exe)
    profiler.set_state('stop')
    assert len(_operators(_trace(trace_file, finished=True))) == 16
    with pytest.raises(MXNetError, match="hasn't been run"):
        profiler.dump()
    profiler.set_state('run')
    _step(exe)
    profiler.set_state('stop')
    assert len(_operators(_trace(trace_file))) == 8


def test_scope_labels_operators(trace_file, exe):
    profiler.set_state('run')
    with profiler.scope('outer') as outer:
        with profiler.scope('inner') as inner:
            exe.forward()
    profiler.set_state('stop')
    assert (outer, inner) == ('outer:', 'outer:inner:')
    scopes = {e.get('args', {}).get('scope') for e in _trace(trace_file) if e['ph'] == 'B'}
    assert scopes == {'outer:inner:'}


def test_deprecated_aliases(trace_file, exe):
    with pytest.warns(UserWarning, match='deprecated'):
        profiler.profiler_set_config(mode='all', filename=trace_file)
    with pytest.warns(UserWarning, match='deprecated'):
        profiler.profiler_set_state('run')
    mx.nd.dot(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
    profiler.set_state('stop')
    assert _operators(_trace(trace_file)) == [('dot', None)]
    assert _operators(_trace(trace_file), creation=True) == [('_ones', None)] * 2 + \
        [('dot', None)]


@pytest.mark.parametrize('kwargs, message', [
    ({'profile_everything': True}, "Cannot find argument 'profile_everything'"),
    ({'profile_all': 'maybe'}, 'expect boolean'),
    ({'dump_period': 'soon'}, 'expect float'),
    ({'continuous_dump': True, 'dump_period': 0}, 'dump_period'),
    ({'profile_process': 'both'}, "Invalid Input: 'both'"),
    ({'profile_process': 'server'}, 'server'),
])
def test_config_errors(trace_file, kwargs, message):
    with pytest.raises(MXNetError, match=message):
        profiler.set_config(**kwargs)


def test_argument_errors(trace_file):
    with pytest.raises(KeyError):
        profiler.set_state('go')
    with pytest.raises(AssertionError, match='format'):
        profiler.dumps(format='xml')
    with pytest.raises(AssertionError, match='sort_by'):
        profiler.dumps(sort_by='name')
    with pytest.raises(MXNetError, match='valid values'):
        profiler.Domain('d').new_marker('m').mark('galaxy')
    with pytest.raises(MXNetError, match='before start'):
        profiler.Event('e').stop()
    with pytest.raises(MXNetError, match='non-empty'):
        profiler.Domain('')
