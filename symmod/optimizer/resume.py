"""What a states file restores into an optimizer, and what the user's settings keep.

symmod's ``.states`` files record, besides the per-parameter states, an optimizer's
*progress* (``num_update``, the per-index update counts, optimizer-specific counters,
the lr scheduler's position) and its *settings* (learning rate, weight decay, momentum,
the scheduler's step and factor ...). On resume:

- progress is restored, so a run continues exactly where it stopped;
- settings are those of the optimizer the user built (as in MXNet, whose Module files
  hold no settings at all); where the file's differ, one warning line says which value
  is used. A scheduler whose settings differ keeps its own and catches up to the
  restored ``num_update`` on its next call (every built-in schedule is a function of it);
- with ``file_wins`` (a gluon Trainer file, MXNet's ``dump_optimizer=True``), the
  file's settings replace the user's, as MXNet does.

Only attributes an optimizer or scheduler declares (public names a freshly made instance
has) are ever set from a file; every value is type-checked first.
"""
import copy
import logging
import numbers

from ..base import MXNetError

__all__ = ['capture', 'restore', 'declared_attrs', 'set_declared', 'scheduler_from_attrs',
           'NOT_SETTINGS']

_log = logging.getLogger(__name__)
_PROGRESS = ('num_update', 'begin_num_update')
NOT_SETTINGS = ('param_dict', 'sym_info', 'lr_scheduler', 'idx2name', 'lr_mult', 'wd_mult')


def _plain(value):
    """Whether ``value`` may be stored as a setting (numbers, strings, lists of those)."""
    if value is None or isinstance(value, (bool, str, numbers.Real)):
        return True
    return isinstance(value, list) and all(
        isinstance(v, (bool, str, numbers.Real)) for v in value)


def declared_attrs(obj, progress=()):
    """The public plain attributes of ``obj`` that are settings (not ``progress``)."""
    return {key: value for key, value in vars(obj).items()
            if not key.startswith('_') and key not in NOT_SETTINGS
            and key not in progress and _plain(value)}


def set_declared(obj, attrs, where, what):
    """Set ``attrs`` on ``obj``: only names ``obj`` declares, only plain values."""
    allowed = {key for key in vars(obj) if not key.startswith('_')}
    for key, value in attrs.items():
        if not isinstance(key, str) or key not in allowed or key in NOT_SETTINGS:
            raise MXNetError('%s: %s has no setting %r that a file may set (allowed: %s)'
                             % (where, what, key, ', '.join(sorted(allowed - set(NOT_SETTINGS)))))
        if not _plain(value):
            raise MXNetError('%s: %s.%s must be a number, string or list of them, found %s'
                             % (where, what, key, type(value).__name__))
        current = getattr(obj, key)
        if isinstance(current, bool) != isinstance(value, bool) and current is not None \
                and value is not None:
            raise MXNetError('%s: %s.%s must be %s, found %r'
                             % (where, what, key, type(current).__name__, value))
        setattr(obj, key, value)


# ---- saving ------------------------------------------------------------------------------
def capture(optimizer):
    """The optimizer's progress and settings as JSON-able data (see the module doc)."""
    counts = {str(dev): [[k, v] for k, v in table.items()]
              for dev, table in optimizer._all_index_update_counts.items()}
    extra = optimizer._extra_resume_state()
    state = {'num_update': optimizer.num_update, 'counts': counts, 'lr': optimizer.lr,
             'settings': declared_attrs(optimizer, _PROGRESS + tuple(extra)),
             'extra': extra}
    sched = optimizer.lr_scheduler
    if sched is not None:
        state['lr_scheduler'] = {'class': type(sched).__name__,
                                 'attrs': declared_attrs(sched)}
    return state


# ---- checking what a file holds ---------------------------------------------------------
def _expect(value, kinds, where, what):
    if isinstance(value, bool) and bool not in kinds:
        kinds_ok = False
    else:
        kinds_ok = isinstance(value, kinds)
    if not kinds_ok:
        names = '/'.join(k.__name__ for k in kinds)
        raise MXNetError('%s: %s must be %s, found %s' % (where, what, names,
                                                         type(value).__name__))
    return value


def _counts(raw, where):
    _expect(raw, (dict,), where, 'the update counts')
    tables = {}
    for dev, pairs in raw.items():
        if not isinstance(dev, str) or not dev.lstrip('-').isdigit() or len(dev) > 9:
            raise MXNetError('%s: update counts are keyed by device id, found %r' % (where, dev))
        table = {}
        for pair in _expect(pairs, (list,), where, 'the update counts of device %s' % dev):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise MXNetError('%s: an update count must be [index, count], found %r'
                                 % (where, pair))
            index, count = pair
            _expect(index, (int, str), where, 'a parameter index')
            table[index] = _expect(count, (int,), where, 'the update count of %r' % (index,))
        tables[int(dev)] = table
    tables.setdefault(0, {})
    return tables


def _check(state, where):
    _expect(state, (dict,), where, 'the optimizer state')
    for key in ('num_update', 'counts'):
        if key not in state:
            raise MXNetError('%s: the optimizer state has no %r' % (where, key))
    _expect(state['num_update'], (int,), where, 'num_update')
    if state.get('lr') is not None:
        _expect(state['lr'], (numbers.Real,), where, 'the learning rate')
    _expect(state.get('extra', {}), (dict,), where, 'the optimizer-specific state')
    settings = _expect(state.get('settings', {}), (dict,), where, 'the optimizer settings')
    for key, value in settings.items():
        if not _plain(value):
            raise MXNetError('%s: setting %r must be plain data, found %s'
                             % (where, key, type(value).__name__))
    sched = state.get('lr_scheduler')
    if sched is not None:
        if not isinstance(sched, dict) or not isinstance(sched.get('class'), str) \
                or not isinstance(sched.get('attrs'), dict):
            raise MXNetError('%s: lr_scheduler must be {"class": name, "attrs": {...}}, '
                             'found %s' % (where, type(sched).__name__))
    return _counts(state['counts'], where)


# ---- restoring ---------------------------------------------------------------------------
def _differences(file_values, own_values, prefix=''):
    """'name own (file value)' for each setting both have with different values."""
    def same(a, b):
        return a == b and isinstance(a, bool) == isinstance(b, bool)
    return ['%s%s %r (file %r)' % (prefix, key, own_values[key], file_values[key])
            for key in sorted(set(file_values) & set(own_values))
            if not same(file_values[key], own_values[key])]


def _scheduler_notes(optimizer, saved, num_update, where, file_wins):
    """Restore the scheduler's position; return the differences to warn about."""
    own = optimizer.lr_scheduler
    if saved is None:
        return []
    if own is None or type(own).__name__ != saved['class']:
        if file_wins:
            optimizer.lr_scheduler = scheduler_from_attrs(saved['class'], saved['attrs'],
                                                          where)
            return []
        return ['lr_scheduler %s (file %s)'
                % ('None' if own is None else type(own).__name__, saved['class'])]
    if file_wins:
        set_declared(own, saved['attrs'], where, type(own).__name__)
        return []
    probe = copy.deepcopy(own)        # where the user's schedule stands at num_update
    probe(num_update)
    notes = _differences(saved['attrs'], declared_attrs(probe), 'lr_scheduler.')
    if not notes:
        set_declared(own, saved['attrs'], where, type(own).__name__)
    return notes


def restore(optimizer, state, where, file_wins=False):
    """Restore what :func:`capture` recorded into ``optimizer``.

    Parameters
    ----------
    optimizer : Optimizer
    state : dict
        From a states file (checked here: an MXNetError names ``where`` on bad data).
    where : str
        The file, for messages.
    file_wins : bool
        Take the file's settings (gluon Trainer files) instead of keeping the user's.
    """
    counts = _check(state, where)
    optimizer.num_update = state['num_update']
    optimizer._all_index_update_counts = counts
    optimizer._index_update_count = counts[0]
    extra = state.get('extra', {})
    notes = []
    settings = dict(state.get('settings', {}))
    settings.setdefault('lr', state.get('lr'))
    own = declared_attrs(optimizer, _PROGRESS + tuple(extra))
    if file_wins:
        set_declared(optimizer, {k: v for k, v in settings.items() if k in own}, where,
                     type(optimizer).__name__)
    else:
        notes += _differences(settings, own)
    notes += _scheduler_notes(optimizer, state.get('lr_scheduler'), optimizer.num_update,
                              where, file_wins)
    try:
        optimizer._load_extra_resume_state(extra)
    except (TypeError, ValueError, KeyError, AttributeError) as err:
        raise MXNetError('%s: bad optimizer-specific state for %s (%s)'
                         % (where, type(optimizer).__name__, err)) from None
    if notes:
        _log.warning('%s: resuming with the settings passed to the optimizer where they '
                     'differ from the file: %s', where, '; '.join(notes))


def scheduler_from_attrs(class_name, attrs, where):
    """Make the built-in scheduler ``class_name`` and set its declared attributes."""
    from .. import lr_scheduler
    classes = {cls.__name__: cls for cls in (
        lr_scheduler.FactorScheduler, lr_scheduler.MultiFactorScheduler,
        lr_scheduler.PolyScheduler, lr_scheduler.CosineScheduler)}
    if class_name not in classes:
        raise MXNetError('%s: unknown lr scheduler %r (symmod has %s)'
                         % (where, class_name, ', '.join(sorted(classes))))
    cls = classes[class_name]
    required = 'step' if class_name in ('FactorScheduler', 'MultiFactorScheduler') \
        else 'max_update'
    if required not in attrs:
        raise MXNetError('%s: the %s in the file has no %r' % (where, class_name, required))
    try:
        sched = cls(attrs[required])
    except (TypeError, ValueError, AssertionError) as err:
        raise MXNetError('%s: cannot make %s(%s=%r): %s'
                         % (where, class_name, required, attrs[required], err)) from None
    set_declared(sched, attrs, where, class_name)
    return sched
