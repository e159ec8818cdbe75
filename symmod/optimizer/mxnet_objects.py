"""MXNet's pickled optimizer and lr-scheduler objects, read and written without MXNet.

MXNet 1.9.1's gluon ``Trainer.save_states`` writes ``Updater.get_states(dump_optimizer=
True)``: a pickle of ``(states, optimizer)`` where the optimizer is an instance of, say,
``mxnet.optimizer.optimizer.Adam`` pickled with its ``__dict__`` (``param_dict``
removed), its ``lr_scheduler`` another object pickled the same way. symmod's optimizers
and schedulers have the same attribute names, so:

- reading maps each MXNet class to symmod's by the explicit tables below, makes a fresh
  symmod object and sets the file's attributes after checking each one: settings only if
  the symmod class declares them (public plain values), the update counters and the
  scheduler by name, ``_``-names other than the two counter tables refused. Nothing in
  the file is called; the pickle itself is read by ``formats/pickle_reader.py``;
- writing (:func:`pickled_optimizer`) produces the same objects for
  ``formats/mxnet_pickle.py``, so MXNet's ``Trainer.load_states`` rebuilds the optimizer.
"""
import numbers

from ..base import MXNetError
from ..formats.mxnet_pickle import Instance
from ..formats.pickle_reader import PickledObject, map_leaves
from . import resume

__all__ = ['OPTIMIZER_CLASSES', 'SCHEDULER_CLASSES', 'optimizer_from_pickle',
           'pickled_optimizer', 'ALLOWED_CLASSES']

_OPT = 'mxnet.optimizer.optimizer'
# MXNet 1.9.1 class -> symmod's registered optimizer name
OPTIMIZER_CLASSES = {
    (_OPT, 'SGD'): 'sgd', (_OPT, 'Signum'): 'signum', (_OPT, 'FTML'): 'ftml',
    (_OPT, 'LARS'): 'lars', (_OPT, 'LBSGD'): 'lbsgd', (_OPT, 'LAMB'): 'lamb',
    (_OPT, 'DCASGD'): 'dcasgd', (_OPT, 'NAG'): 'nag', (_OPT, 'SGLD'): 'sgld',
    (_OPT, 'ccSGD'): 'ccsgd', (_OPT, 'Adam'): 'adam', (_OPT, 'AdaGrad'): 'adagrad',
    (_OPT, 'RMSProp'): 'rmsprop', (_OPT, 'AdaDelta'): 'adadelta', (_OPT, 'Ftrl'): 'ftrl',
    (_OPT, 'Adamax'): 'adamax', (_OPT, 'Nadam'): 'nadam', (_OPT, 'Test'): 'test',
    ('mxnet.optimizer.contrib', 'GroupAdaGrad'): 'groupadagrad',
}
SCHEDULER_CLASSES = {('mxnet.lr_scheduler', name): name for name in (
    'FactorScheduler', 'MultiFactorScheduler', 'PolyScheduler', 'CosineScheduler')}
ALLOWED_CLASSES = set(OPTIMIZER_CLASSES) | set(SCHEDULER_CLASSES)

_COUNTERS = ('_all_index_update_counts', '_index_update_count')
_TABLES = ('idx2name', 'lr_mult', 'wd_mult')
_SYMMOD_EXTRA = '_symmod_resume'    # symmod-only progress (e.g. SGLD's noise generator)


# ---- reading --------------------------------------------------------------------------------
def _pickled_state(obj, where, what):
    if not obj.built or not isinstance(obj.state, dict) or obj.args != ():
        raise MXNetError('%s: a pickled %s must be created with no arguments and given its '
                         'attributes as a dict' % (where, what))
    return obj.state


def _table(value, where, name):
    """idx2name / lr_mult / wd_mult: {int or str: str or number}."""
    if not isinstance(value, dict):
        raise MXNetError('%s: %s must be a dict, found %s' % (where, name, type(value).__name__))
    for key, item in value.items():
        if not isinstance(key, (int, str)) or isinstance(item, bool) \
                or not isinstance(item, (str, numbers.Real)):
            raise MXNetError('%s: %s must map indices or names to names or numbers, found '
                             '%r: %s' % (where, name, key, type(item).__name__))
    return dict(value)


def _counts(value, where):
    if not isinstance(value, dict):
        raise MXNetError('%s: _all_index_update_counts must be a dict' % where)
    tables = {}
    for dev, table in value.items():
        if not isinstance(dev, int) or not isinstance(table, dict):
            raise MXNetError('%s: _all_index_update_counts must map device ids to dicts'
                             % where)
        for index, count in table.items():
            if not isinstance(index, (int, str)) or isinstance(count, bool) \
                    or not isinstance(count, int):
                raise MXNetError('%s: update counts must map indices to ints, found %r: %r'
                                 % (where, index, count))
        tables[dev] = dict(table)
    tables.setdefault(0, {})
    return tables


def _sym_info(value, where):
    if value == ():
        return ()
    ok = isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], dict) \
        and isinstance(value[1], list) and all(isinstance(n, str) for n in value[1]) \
        and all(isinstance(k, str) and isinstance(v, dict)
                and all(isinstance(a, str) and isinstance(b, str) for a, b in v.items())
                for k, v in value[0].items())
    if not ok:
        raise MXNetError('%s: sym_info must be () or (attribute dict, argument names)' % where)
    return value


def _scheduler(obj, where):
    if obj is None:
        return None
    if not isinstance(obj, PickledObject) or (obj.module, obj.name) not in SCHEDULER_CLASSES:
        raise MXNetError('%s: lr_scheduler must be one of MXNet\'s schedulers (%s), found %s'
                         % (where, ', '.join(sorted(SCHEDULER_CLASSES.values())),
                            getattr(obj, 'name', type(obj).__name__)))
    attrs = _pickled_state(obj, where, obj.name)
    return resume.scheduler_from_attrs(SCHEDULER_CLASSES[(obj.module, obj.name)], attrs, where)


def optimizer_from_pickle(obj, where, to_ndarray):
    """The symmod optimizer for a pickled MXNet optimizer object.

    Parameters
    ----------
    obj : PickledObject
        What the reader produced for ``mxnet.optimizer.optimizer.<Class>``.
    where : str
        The file, for messages.
    to_ndarray : callable
        Turns pickled MXNet NDArrays (inside DCASGD's ``weight_previous``, say) into
        NDArrays.
    """
    from .optimizer import Optimizer
    key = (obj.module, obj.name)
    if key not in OPTIMIZER_CLASSES:
        raise MXNetError('%s: refusing the optimizer class %s.%s: symmod maps only MXNet\'s '
                         'built-in optimizers' % (where, obj.module, obj.name))
    state = _pickled_state(obj, where, obj.name)
    optimizer = Optimizer.create_optimizer(OPTIMIZER_CLASSES[key])
    settings = {}
    for name, value in state.items():
        if not isinstance(name, str):
            raise MXNetError('%s: %s has an attribute that is not a name: %r'
                             % (where, obj.name, name))
        if name == '_all_index_update_counts':
            optimizer._all_index_update_counts = _counts(value, where)
        elif name in ('_index_update_count', 'param_dict'):
            continue        # rebound / set again by the Trainer
        elif name == _SYMMOD_EXTRA:
            continue        # applied last
        elif name == 'lr_scheduler':
            optimizer.lr_scheduler = _scheduler(value, where)
        elif name == 'sym_info':
            optimizer.sym_info = _sym_info(value, where)
        elif name in _TABLES:
            setattr(optimizer, name, _table(value, where, name))
        elif name in ('weight_previous', 'cumgrads') and hasattr(optimizer, name):
            setattr(optimizer, name, map_leaves(_checked_plain(value, where, name),
                                                PickledObject, to_ndarray))
        else:
            settings[name] = value
    resume.set_declared(optimizer, settings, where, type(optimizer).__name__)
    optimizer._index_update_count = optimizer._all_index_update_counts[0]
    if _SYMMOD_EXTRA in state:
        extra = state[_SYMMOD_EXTRA]
        if not isinstance(extra, dict):
            raise MXNetError('%s: %s must be a dict' % (where, _SYMMOD_EXTRA))
        try:
            optimizer._load_extra_resume_state(extra)
        except (TypeError, ValueError, KeyError, AttributeError) as err:
            raise MXNetError('%s: bad %s (%s)' % (where, _SYMMOD_EXTRA, err)) from None
    return optimizer


def _checked_plain(value, where, name):
    if not isinstance(value, dict):
        raise MXNetError('%s: %s must be a dict, found %s' % (where, name, type(value).__name__))
    return value


# ---- writing --------------------------------------------------------------------------------
def _mxnet_name(table, symmod_name):
    for key, value in table.items():
        if value == symmod_name:
            return key
    return None


def pickled_optimizer(optimizer):
    """``optimizer`` as the object MXNet pickles (None if MXNet has no such class)."""
    key = _mxnet_name(OPTIMIZER_CLASSES, type(optimizer).__name__.lower())
    if key is None:
        return None
    state = {}
    for name, value in vars(optimizer).items():
        if name in ('param_dict',) or (name.startswith('_') and name not in _COUNTERS):
            continue
        if name == 'lr_scheduler' and value is not None:
            sched = _mxnet_name(SCHEDULER_CLASSES, type(value).__name__)
            if sched is None:
                return None
            value = Instance(sched[0], sched[1], dict(vars(value)))
        state[name] = value
    extra = optimizer._extra_resume_state()
    if extra and not all(name in state for name in extra):
        state[_SYMMOD_EXTRA] = extra       # progress MXNet has no attribute for
    return Instance(key[0], key[1], state)
