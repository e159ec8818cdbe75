"""Checkpoint files (``prefix-symbol.json`` + ``prefix-%04d.params``) and the helpers
Module uses to create a KVStore and push updates through it or an Updater."""
import logging
import os
from collections import namedtuple

import numpy as np

from . import ndarray as nd
from . import symbol as sym
from .context import cpu

_LOGGER = logging.getLogger(__name__)

__all__ = ['BatchEndParam', 'save_checkpoint', 'load_checkpoint', 'load_params', 'FeedForward']

BatchEndParam = namedtuple('BatchEndParams', ['epoch', 'nbatch', 'eval_metric', 'locals'])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Save a symbol and its parameters as MXNet checkpoint files.

    Parameters
    ----------
    prefix : str
        Path prefix of the files.
    epoch : int
        Epoch number, written as ``prefix-%04d.params``.
    symbol : Symbol or None
        Saved to ``prefix-symbol.json`` unless None.
    arg_params, aux_params : dict of str to NDArray
        Stored under ``arg:<name>`` and ``aux:<name>``.
    remove_amp_cast : bool
        Accepted for MXNet compatibility (symmod graphs have no AMP casts).
    """
    if symbol is not None:
        symbol.save('%s-symbol.json' % prefix, remove_amp_cast=remove_amp_cast)
    param_name = '%s-%04d.params' % (prefix, epoch)
    nd.save(param_name, _join_params(arg_params, aux_params))
    _LOGGER.info('Saved checkpoint to "%s"', param_name)


def _save_params_and_states(prefix, epoch, arg_params, aux_params, module=None):
    """Write ``prefix-%04d.params`` and, when ``module`` is given, its optimizer states as
    ``prefix-%04d.states`` tagged with the digest of the params (formats/checkpoint.py)."""
    from .formats import checkpoint
    param_name = '%s-%04d.params' % (prefix, epoch)
    state_name = '%s-%04d.states' % (prefix, epoch)
    blob = module._checkpoint_states() if module is not None else None
    if blob is None:
        checkpoint.save_params_and_states(param_name, _join_params(arg_params, aux_params))
        if module is not None:      # a distributed store keeps the states: save them after
            module.save_optimizer_states(state_name)
    else:
        checkpoint.save_params_and_states(param_name, _join_params(arg_params, aux_params),
                                          state_name, blob, epoch)
    _LOGGER.info('Saved checkpoint to "%s"', param_name)
    if module is not None:
        _LOGGER.info('Saved optimizer state to "%s"', state_name)


def _load_params_for_states(prefix, epoch):
    """``(arg_params, aux_params, preload)`` where ``preload`` tells ``init_optimizer``
    which states file to load and which params it must belong to."""
    from .formats import checkpoint
    param_name = '%s-%04d.params' % (prefix, epoch)
    save_dict, digest = checkpoint.load_params_with_digest(param_name)
    arg_params, aux_params = _split_params(save_dict, param_name) if save_dict else ({}, {})
    return arg_params, aux_params, ('%s-%04d.states' % (prefix, epoch), param_name, digest)


def _join_params(arg_params, aux_params):
    """The ``{'arg:<name>': ..., 'aux:<name>': ...}`` dict a ``.params`` file holds."""
    save_dict = {'arg:%s' % k: v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({'aux:%s' % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
    return save_dict


def _split_params(save_dict, fname, strict=False):
    """Split a loaded ``.params`` dict into ``(arg_params, aux_params)`` at the first ':'.

    With ``strict``, a key that is neither ``arg:`` nor ``aux:`` raises ValueError
    (BaseModule.load_params); otherwise it is ignored (model.load_params).
    """
    if not isinstance(save_dict, dict):
        raise ValueError('%s holds an unnamed list of arrays, not a checkpoint' % fname)
    arg_params, aux_params = {}, {}
    for key, value in save_dict.items():
        kind, _, name = key.partition(':')
        if kind == 'arg':
            arg_params[name] = value
        elif kind == 'aux':
            aux_params[name] = value
        elif strict:
            raise ValueError('Invalid param file ' + fname)
    return arg_params, aux_params


def load_params(prefix, epoch):
    """Load ``prefix-%04d.params`` into ``(arg_params, aux_params)`` dicts."""
    fname = '%s-%04d.params' % (prefix, epoch)
    save_dict = nd.load(fname)
    if not save_dict:
        _LOGGER.warning("Params file '%s' is empty", fname)
        return {}, {}
    return _split_params(save_dict, fname)


def load_checkpoint(prefix, epoch):
    """Load ``(symbol, arg_params, aux_params)`` from MXNet checkpoint files."""
    symbol = sym.load('%s-symbol.json' % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params


# ---- what Module uses to move gradients and weights -------------------------------------
def _create_kvstore(kvstore, num_device, arg_params):
    """Pick a KVStore for training and whether the optimizer runs inside it.

    Returns ``(kv, update_on_kvstore)``; no store is made for one local device.
    """
    update_on_kvstore = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', '1')))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, str):
        if num_device == 1 and 'dist' not in kvstore:
            kv = None       # one local device needs no store
        else:
            from . import kvstore as kvs
            kv = kvs.create(kvstore)
            if kvstore == 'local':
                max_size = max(int(np.prod(p.shape)) for p in arg_params.values())
                if max_size > 1024 * 1024 * 16:
                    update_on_kvstore = False
    else:
        from . import kvstore as kvs
        if not isinstance(kvstore, kvs.KVStoreBase):
            raise TypeError('kvstore must be KVStore, str or None')
        kv = kvstore
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore &= kv.is_capable('optimizer')
    return kv, update_on_kvstore


def _create_sparse_kvstore(kvstore):
    """The store for training with row_sparse weights, which live in it: always
    ``(kv, True)`` (the optimizer runs in the store)."""
    from . import kvstore as kvs
    if isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = kvs.create(kvstore)
    else:
        raise TypeError("Cannot create '%s' KVStore with row_sparse parameters. The type "
                        "must be KVStore or str." % kvstore)
    assert kv.is_capable(kvs.KVStoreBase.OPTIMIZER), \
        'KVStore with sparse weight requires optimizer support. However, type(kv) does ' \
        'not support optimizer. Please consider other kvstore backends (e.g. dist_device) ' \
        'instead.'
    return kv, True


def _initialize_kvstore(kvstore, param_arrays, arg_params, param_names, update_on_kvstore):
    """Register every parameter with the store (and copy it to all devices)."""
    for idx, param_on_devs in enumerate(param_arrays):
        name = param_names[idx]
        # row_sparse weights stay in the store; prepare() pulls the rows a batch needs
        if not update_on_kvstore or arg_params[name].stype != 'default':
            kvstore.init(name, arg_params[name])
        else:
            kvstore.broadcast(name, arg_params[name], out=param_on_devs)


def _pushpull_all(kvstore, keys, values, outs=None, lend_outs=False):
    """``pushpull`` of every key: in one call for symmod's own stores (a distributed
    store then sends them in few messages, and treats each key as MXNet's per-key calls
    would), else one call per key with MXNet's priorities (user-registered stores).
    ``lend_outs``: ``outs`` are the caller's weights, which it writes otherwise only
    after ``kvstore._release_lent()`` (see ``DistSyncKVStore._pushpull_lent``)."""
    from .kvstore import KVStore
    if not keys:
        return
    if isinstance(kvstore, KVStore):
        lent = getattr(kvstore, '_pushpull_lent', None) if lend_outs else None
        if lent is not None:
            lent(keys, values, outs)
        else:
            kvstore.pushpull(keys, values, out=outs)
        return
    for index, (key, value) in enumerate(zip(keys, values)):
        kvstore.pushpull(key, value, out=None if outs is None else outs[index],
                         priority=-index)


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names,
                              lend_params=False):
    """Push gradients into the store (which runs the optimizer) and pull the weights.

    Sparse gradients or weights are pushed, then pulled (a pull leaves row_sparse
    weights alone: ``Module.prepare`` pulls the rows the next batch needs).
    ``lend_params``: the store may keep its weights in ``param_arrays``, which the
    caller writes otherwise only after ``kvstore._release_lent()`` (Module does)."""
    names, grads, args = [], [], []
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        if grad_list[0].stype != 'default' or arg_list[0].stype != 'default':
            kvstore.push(param_names[index], grad_list, priority=-index)
            kvstore.pull(param_names[index], out=arg_list, priority=-index)
            continue
        names.append(param_names[index])
        grads.append(grad_list)
        args.append(arg_list)
    _pushpull_all(kvstore, names, grads, args, lend_outs=lend_params)


def _update_params(param_arrays, grad_arrays, updater, num_device, kvstore=None,
                   param_names=None):
    """Sum gradients over devices (through ``kvstore`` if any), then run ``updater`` per
    device on all parameters at once. Updater index = param_index * num_device + device."""
    updates = [[] for _ in range(num_device)]
    if kvstore:
        valid = [i for i, grad_list in enumerate(grad_arrays) if grad_list[0] is not None]
        dense = [i for i in valid if grad_arrays[i][0].stype == 'default'
                 and param_arrays[i][0].stype == 'default']
        for i in valid:
            if i not in dense:      # MXNet's push then pull (which skips sparse arrays)
                kvstore.push(param_names[i], grad_arrays[i], priority=-i)
                kvstore.pull(param_names[i], out=grad_arrays[i], priority=-i)
        _pushpull_all(kvstore, [param_names[i] for i in dense], [grad_arrays[i] for i in dense])
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        for k, (w, g) in enumerate(zip(arg_list, grad_list)):
            updates[k].append((index * num_device + k, g, w))
    for dev_updates in updates:
        if dev_updates:
            indices, grads, weights = zip(*dev_updates)
            updater(list(indices), list(grads), list(weights))


def _multiple_callbacks(callbacks, *args, **kwargs):
    """Call a callback, each of a list of callbacks, or nothing for None."""
    if isinstance(callbacks, list):
        for callback in callbacks:
            callback(*args, **kwargs)
        return
    if callbacks:
        callbacks(*args, **kwargs)


# the deprecated estimator lives in its own file; imported last because it uses the above
from .feedforward import FeedForward  # noqa: E402  pylint: disable=wrong-import-position
