"""``dumps``: per-category, per-name aggregate statistics of the records."""
import json

from .state import _STATE


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
