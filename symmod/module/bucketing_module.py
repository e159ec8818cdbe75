"""BucketingModule: one Module per bucket key (e.g. sequence length), all sharing the
default bucket's parameters, gradients, optimizer and memory pool."""
import logging
import warnings

import numpy as np

from .. import context as ctx
from .. import ndarray as nd
from .. import symbol as sym
from ..initializer import Uniform
from ..model import load_params, _load_params_for_states, _save_params_and_states
from ..name import NameManager
from .base_module import BaseModule, _check_input_names
from .module import Module


__all__ = ['BucketingModule']


class BucketingModule(BaseModule):
    """A module that switches between symbols by bucket key.

    Parameters
    ----------
    sym_gen : callable
        ``sym_gen(bucket_key)`` returns ``(symbol, data_names, label_names)``.
    default_bucket_key : int or str
        The bucket bound first; its memory is shared by all others, so it should be
        the largest.
    logger : logging.Logger
    context : Context or list of Context
    work_load_list : list of float, optional
    fixed_param_names : list of str, optional
    state_names : list of str, optional
    group2ctxs : dict or list, optional
    compression_params : dict, optional
    """

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=ctx.cpu(),
                 work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        assert default_bucket_key is not None
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        data_names = list(data_names) if data_names is not None else []
        label_names = list(label_names) if label_names is not None else []
        state_names = list(state_names) if state_names is not None else []
        fixed_param_names = list(fixed_param_names) if fixed_param_names is not None else []
        _check_input_names(symbol, data_names, 'data', True)
        _check_input_names(symbol, label_names, 'label', False)
        _check_input_names(symbol, state_names, 'state', True)
        _check_input_names(symbol, fixed_param_names, 'fixed_param', True)
        self._compression_params = compression_params
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        self._context = context
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    def _call_sym_gen(self, *args, **kwargs):
        with NameManager():
            return self._sym_gen(*args, **kwargs)

    def _new_module(self, symbol, data_names, label_names):
        return Module(symbol, data_names, label_names, logger=self.logger,
                      context=self._context, work_load_list=self._work_load_list,
                      fixed_param_names=self._fixed_param_names, state_names=self._state_names,
                      group2ctxs=self._group2ctxs, compression_params=self._compression_params)

    # ---- names and shapes -----------------------------------------------------------
    @property
    def data_names(self):
        """Data input names of the current (or default) bucket."""
        if self.binded:
            return self._curr_module.data_names
        return self._call_sym_gen(self._default_bucket_key)[1]

    @property
    def output_names(self):
        """Output names of the current (or default) bucket."""
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        """Data shapes of the current bucket."""
        self._require('binded')
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        """Label shapes of the current bucket."""
        self._require('binded')
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        """Output shapes of the current bucket."""
        self._require('binded')
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        """The current bucket's symbol."""
        self._require('binded')
        return self._curr_module.symbol

    # ---- parameters -------------------------------------------------------------------
    def get_params(self):
        """Current parameters (shared by all buckets)."""
        self._require('params_initialized')
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Assign parameter values."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init)
            return
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. '
                          'set_params call ignored.', stacklevel=2)
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                     force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialize the (shared) parameters through the current bucket's module."""
        if self.params_initialized and not force_init:
            return
        assert self.binded, 'call bind before initializing the parameters'
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params,
                                      aux_params=aux_params, allow_missing=allow_missing,
                                      force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def get_states(self, merge_multi_context=True):
        """State arrays of the current bucket."""
        self._require('binded', 'params_initialized')
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        """Set the current bucket's state arrays."""
        self._require('binded', 'params_initialized')
        self._curr_module.set_states(states, value)

    # ---- binding and switching ------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Bind the default bucket; other buckets are bound on first use."""
        if self.params_initialized:
            arg_params, aux_params = self.get_params()
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        assert shared_module is None, 'shared_module for BucketingModule is not supported'
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.binded = True
        self._grad_req = grad_req
        symbol, data_names, label_names = self._call_sym_gen(self._default_bucket_key)
        module = self._buckets.get(self._default_bucket_key) or \
            self._new_module(symbol, data_names, label_names)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                    force_rebind=False, shared_module=None, grad_req=self._grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if self.params_initialized:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key`` current, binding its module (shared with the default) if new."""
        assert self.binded, 'call bind before switching bucket'
        module = self._buckets.get(bucket_key)
        if module is None or not module.binded:
            if module is None:
                symbol, data_names, label_names = self._call_sym_gen(bucket_key)
                module = self._new_module(symbol, data_names, label_names)
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key],
                        grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        self._curr_module = module
        self._curr_bucket_key = bucket_key

    def init_optimizer(self, kvstore='local', optimizer='sgd',
                       optimizer_params=(('learning_rate', 0.01),), force_init=False):
        """Install the optimizer once; every bucket borrows it."""
        self._require('binded', 'params_initialized')
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring.')
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params,
                                         force_init=force_init)
        for module in self._buckets.values():
            if module is not self._curr_module:
                module.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    def borrow_optimizer(self, shared_module):
        """Use another module's optimizer for every bucket."""
        for module in self._buckets.values():
            module.borrow_optimizer(shared_module)
        self.optimizer_initialized = True

    # ---- computation ------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Bind the batch's bucket ahead of time (without making it current)."""
        self._require('binded', 'params_initialized')
        original = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    def forward(self, data_batch, is_train=None):
        """Switch to the batch's bucket (binding it if new) and run forward."""
        self._require('binded', 'params_initialized')
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        """Backward on the current bucket."""
        self._require('binded', 'params_initialized')
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        """Update the shared parameters."""
        self._require('binded', 'params_initialized', 'optimizer_initialized')
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        """Outputs of the current bucket's last forward."""
        self._require('binded', 'params_initialized')
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """Input gradients of the current bucket."""
        self._require('binded', 'params_initialized', 'inputs_need_grad')
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update a metric with the current bucket's outputs."""
        self._require('binded', 'params_initialized')
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install a Monitor on every bucket, present and future."""
        self._require('binded')
        self._monitor = mon
        for module in self._buckets.values():
            module.install_monitor(mon)

    # ---- checkpoints ------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False, save_optimizer_states=False):
        """Save ``prefix-%04d.params``, ``prefix-<key>-symbol.json`` for every bucket and
        ``prefix.buckets`` (the keys), as MXNet does; optionally ``prefix-%04d.states``."""
        assert len(self._buckets) > 0, 'Empty BucketingModule cannot be saved'
        for bucket_key in self._buckets:
            symbol, _, _ = self._call_sym_gen(bucket_key)
            symbol.save('%s-%s-symbol.json' % (prefix, bucket_key),
                        remove_amp_cast=remove_amp_cast)
        nd.save('%s.buckets' % prefix, nd.array(list(self._buckets.keys()), dtype=np.int32))
        # states first, tagged with the params they belong to (formats/checkpoint.py)
        _save_params_and_states(prefix, epoch, *self.get_params(),
                                module=self._curr_module if save_optimizer_states else None)

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None,
             load_optimizer_states=False, **kwargs):
        """Create a BucketingModule from files written by :meth:`save_checkpoint`."""
        assert sym_gen is not None, 'sym_gen is required for loading BucketingModule'
        assert default_bucket_key is not None, \
            'default_bucket_key is required for loading BucketingModule'
        buckets = nd.load('%s.buckets' % prefix)
        keys = [int(k) for k in buckets[0].asnumpy().astype('int32')]
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for bucket_key in keys:
            _, data_names, label_names = mod._call_sym_gen(bucket_key)
            symbol = sym.load('%s-%s-symbol.json' % (prefix, bucket_key))
            mod._buckets[bucket_key] = Module(symbol, data_names, label_names, **kwargs)
            if bucket_key == default_bucket_key:
                mod._curr_module = mod._buckets[bucket_key]
        if mod._curr_module is None:
            raise ValueError('default_bucket_key %r is not among the saved buckets %s'
                             % (default_bucket_key, keys))
        if load_optimizer_states:
            arg_params, aux_params, preload = _load_params_for_states(prefix, epoch)
            mod._curr_module._preload_opt_states = preload
        else:
            arg_params, aux_params = load_params(prefix, epoch)
        mod._curr_module._arg_params = arg_params
        mod._curr_module._aux_params = aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod

    @staticmethod
    def load_dict(sym_dict=None, sym_gen=None, default_bucket_key=None, arg_params=None,
                  aux_params=None, **kwargs):
        """Create a BucketingModule from symbols and parameters in memory."""
        assert sym_dict is not None, 'sym_dict needs to be provided for BucketingModule.load_dict'
        assert arg_params is not None, \
            'arg_params need to be provided for BucketingModule.load_dict'
        assert aux_params is not None, \
            'aux_params need to be provided for BucketingModule.load_dict'
        assert default_bucket_key is not None, \
            'default_bucket_key needs to be provided for BucketingModule.load_dict'
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for bucket_key, loaded_sym in sym_dict.items():
            _, data_names, label_names = mod._call_sym_gen(default_bucket_key)
            mod._buckets[bucket_key] = Module(loaded_sym, data_names, label_names, **kwargs)
            if bucket_key == default_bucket_key:
                mod._curr_module = mod._buckets[bucket_key]
        mod._curr_module._arg_params = arg_params
        mod._curr_module._aux_params = aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod

