"""Module: a symbol bound to devices through a DataParallelExecutorGroup, with
parameters, an optimizer (or a KVStore running it) and checkpoints."""
import logging
import warnings

from .. import context as ctx
from .. import optimizer as opt
from ..executor.group import DataParallelExecutorGroup
from ..initializer import Uniform, InitDesc
from ..io import DataDesc
from .. import symbol as symbol_module
from ..base import MXNetError
from ..formats.checkpoint import check_states
from ..model import (_create_kvstore, _initialize_kvstore, _update_params,
                     _update_params_on_kvstore, load_checkpoint, _load_params_for_states,
                     _save_params_and_states)
from ..ndarray import zeros, arange as nd_arange
from ..formats.atomic import atomic_write
from ..optimizer.updater import load_states_file
from .base_module import BaseModule, _check_input_names, _parse_data_desc


__all__ = ['Module']


def _same_shapes(descs, arrays):
    """Whether ``arrays`` have the shapes of ``descs``, one for one."""
    if len(descs) != len(arrays):
        return False
    for desc, array in zip(descs, arrays):
        if desc.shape != array.shape:
            return False
    return True


class Module(BaseModule):
    """A module over one symbol, data-parallel over ``context``.

    Parameters
    ----------
    symbol : Symbol
    data_names : list of str
        Names of the data inputs.
    label_names : list of str
        Names of the label inputs (may be empty).
    logger : logging.Logger
    context : Context or list of Context
        Devices; the batch is split across them.
    work_load_list : list of float, optional
        Relative share of the batch per device.
    fixed_param_names : list of str, optional
        Parameters not updated during training.
    state_names : list of str, optional
        Inputs that are states (kept between batches, set with ``set_states``).
    group2ctxs : dict or list, optional
    compression_params : dict, optional
        Gradient compression for the KVStore.

    Examples
    --------
    >>> mod = mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)])
    >>> mod.fit(train_iter, num_epoch=10, optimizer_params={'learning_rate': 0.1})
    """

    def __init__(self, symbol, data_names=('data',), label_names=('softmax_label',),
                 logger=logging, context=ctx.cpu(), work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger=logger)
        if isinstance(context, ctx.Context):
            context = [context]
        self._context = context
        if work_load_list is None:
            work_load_list = [1] * len(self._context)
        assert len(work_load_list) == len(self._context)
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        data_names = list(data_names) if data_names is not None else []
        label_names = list(label_names) if label_names is not None else []
        state_names = list(state_names) if state_names is not None else []
        fixed_param_names = list(fixed_param_names) if fixed_param_names is not None else []
        _check_input_names(symbol, data_names, 'data', True)
        _check_input_names(symbol, label_names, 'label', False)
        _check_input_names(symbol, state_names, 'state', True)
        _check_input_names(symbol, fixed_param_names, 'fixed_param', True)
        arg_names = symbol.list_arguments()
        input_names = data_names + label_names + state_names
        self._param_names = [x for x in arg_names if x not in input_names]
        self._fixed_param_names = fixed_param_names
        self._aux_names = symbol.list_auxiliary_states()
        self._data_names = data_names
        self._label_names = label_names
        self._state_names = state_names
        self._output_names = symbol.list_outputs()
        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._compression_params = compression_params
        self._optimizer = None
        self._kvstore = None
        self._update_on_kvstore = None
        self._updater = None
        self._preload_opt_states = None
        self._grad_req = None
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # ---- checkpoints ----------------------------------------------------------------
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """Create a Module from ``prefix-symbol.json`` and ``prefix-%04d.params``.

        Parameters
        ----------
        prefix : str
        epoch : int
        load_optimizer_states : bool
            Also load ``prefix-%04d.states`` when the optimizer is initialized.
        **kwargs
            Passed to the Module constructor (data_names, context, ...).
        """
        if load_optimizer_states:
            sym = symbol_module.load('%s-symbol.json' % prefix)
            args, auxs, preload = _load_params_for_states(prefix, epoch)
        else:
            sym, args, auxs = load_checkpoint(prefix, epoch)
            preload = None
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        mod._preload_opt_states = preload
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """Save ``prefix-symbol.json``, ``prefix-%04d.params`` and optionally
        ``prefix-%04d.states`` (symmod's format, which resumes exactly).

        The states record which parameters they belong to and are written before the
        parameters, so that an interrupted save is caught when the pair is loaded.
        """
        self._symbol.save('%s-symbol.json' % prefix, remove_amp_cast=remove_amp_cast)
        if save_optimizer_states:
            assert self.optimizer_initialized
        _save_params_and_states(prefix, epoch, *self.get_params(),
                                module=self if save_optimizer_states else None)

    def _checkpoint_states(self):
        """The optimizer states as bytes for a checkpoint; None when a distributed store
        keeps them."""
        if self._update_on_kvstore:
            updater = getattr(self._kvstore, '_updater', None)
            return None if updater is None else updater.get_states()
        return self._updater.get_states()

    def _reset_bind(self):
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # ---- names and shapes -----------------------------------------------------------
    @property
    def data_names(self):
        """Names of the data inputs."""
        return self._data_names

    @property
    def label_names(self):
        """Names of the label inputs."""
        return self._label_names

    @property
    def output_names(self):
        """Names of the outputs."""
        return self._output_names

    @property
    def data_shapes(self):
        """DataDesc of each data input (bound modules only)."""
        self._require('binded')
        return self._data_shapes

    @property
    def label_shapes(self):
        """DataDesc of each label input (bound modules only)."""
        self._require('binded')
        return self._label_shapes

    @property
    def output_shapes(self):
        """(name, shape) of each output (bound modules only)."""
        self._require('binded')
        return self._exec_group.get_output_shapes()

    # ---- parameters -----------------------------------------------------------------
    def get_params(self):
        """Current ``(arg_params, aux_params)`` (on CPU, averaged over devices)."""
        self._require('params_initialized')
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialize parameters from ``arg_params``/``aux_params`` and/or ``initializer``.

        Parameters
        ----------
        initializer : Initializer
        arg_params, aux_params : dict of str to NDArray, optional
            Values to copy; missing ones are initialized only if ``allow_missing``.
        allow_missing : bool
        force_init : bool
            Re-initialize even if already initialized.
        allow_extra : bool
            Ignore names in the dicts that the symbol does not have.
        """
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. '
                          'init_params call ignored.', stacklevel=2)
            return
        assert self.binded, 'call bind before initializing the parameters'

        def _impl(name, arr, cache):
            if cache is not None:
                if name in cache:
                    cache_arr = cache[name]
                    if cache_arr is not arr:
                        cache_arr.copyto(arr)
                else:
                    if not allow_missing:
                        raise RuntimeError('%s is not presented' % name)
                    if initializer is not None:
                        initializer(name, arr)
            else:
                initializer(name, arr)

        attrs = self._symbol.attr_dict()
        for name, arr in sorted(self._arg_params.items()):
            _impl(InitDesc(name, attrs.get(name, None)), arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            _impl(InitDesc(name, attrs.get(name, None)), arr, aux_params)
        self.params_initialized = True
        self._params_dirty = False
        self._set_exec_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Assign parameter values to the devices."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init,
                             allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. '
                          'set_params call ignored.', stacklevel=2)
            return
        self._set_exec_params(arg_params, aux_params, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def _set_exec_params(self, arg_params, aux_params, allow_extra=False):
        """Copy parameters into the executors. A store running the optimizer may keep
        its weights in the executors' arrays (``update``): it gets its own copy first,
        so that, as in MXNet, the next update pulls the store's weights over these."""
        release = getattr(self._kvstore, '_release_lent', None)
        if release is not None:
            release()
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)

    def _sync_params_from_devices(self):
        self._exec_group.get_params(self._arg_params, self._aux_params)
        if self._kvstore and self._update_on_kvstore:
            # row_sparse weights live in the store: pull all their rows
            for name, value in sorted(self._arg_params.items()):
                if value.stype == 'row_sparse':
                    rows = nd_arange(0, value.shape[0], dtype='int64')
                    self._kvstore.row_sparse_pull(name, value, row_ids=rows)
        self._params_dirty = False

    # ---- binding --------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Allocate executors for the given input shapes.

        Parameters
        ----------
        data_shapes : list of DataDesc or (name, shape)
        label_shapes : list of DataDesc or (name, shape), optional
        for_training : bool
        inputs_need_grad : bool
        force_rebind : bool
        shared_module : Module, optional
            Bound module whose parameters and memory are shared (bucketing).
        grad_req : str, list or dict
        """
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        if not for_training:
            assert not inputs_need_grad
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)
        if shared_module is not None:
            assert isinstance(shared_module, Module) and shared_module.binded \
                and shared_module.params_initialized
            shared_group = shared_module._exec_group
            assert len(shared_group.execs) >= len(self._context)
        else:
            shared_group = None
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes,
            self._label_shapes, self._param_names, for_training, inputs_need_grad,
            shared_group, logger=self.logger, fixed_param_names=self._fixed_param_names,
            grad_req=grad_req, group2ctxs=self._group2ctxs, state_names=self._state_names)
        self._total_exec_bytes = self._exec_group._total_exec_bytes
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            self._set_exec_params(self._arg_params, self._aux_params)
        else:
            assert self._arg_params is None and self._aux_params is None
            self._arg_params = {name: zeros(arrs[0].shape, dtype=arrs[0].dtype,
                                            stype=arrs[0].stype)
                                for name, arrs in zip(self._param_names,
                                                      self._exec_group.param_arrays)}
            self._aux_params = {name: zeros(arrs[0].shape, dtype=arrs[0].dtype)
                                for name, arrs in zip(self._aux_names,
                                                      self._exec_group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True

    def reshape(self, data_shapes, label_shapes=None):
        """Re-shape the executors for new input shapes (e.g. a smaller last batch)."""
        self._require('binded')
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)
        self._exec_group.reshape(self._data_shapes, self._label_shapes)

    # ---- optimizer ------------------------------------------------------------------
    def init_optimizer(self, kvstore='local', optimizer='sgd',
                       optimizer_params=(('learning_rate', 0.01),), force_init=False):
        """Install an optimizer (and a KVStore when there are several devices).

        ``rescale_grad`` defaults to ``1/batch_size`` and ``param_idx2name`` is filled,
        so weight decay skips biases, as in MXNet.
        """
        self._require('binded', 'params_initialized')
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring...')
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kvstore, update_on_kvstore = _create_kvstore(kvstore, len(self._context),
                                                     self._arg_params)
        batch_size = self._exec_group.batch_size
        if kvstore and 'dist' in kvstore.type and '_sync' in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size
        idx2name = {}
        if update_on_kvstore:
            idx2name.update(enumerate(self._exec_group.param_names))
        else:
            n = len(self._context)
            for k in range(n):
                idx2name.update({i * n + k: name
                                 for i, name in enumerate(self._exec_group.param_names)})
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            if 'rescale_grad' not in optimizer_params:
                optimizer_params['rescale_grad'] = rescale_grad
            optimizer = opt.create(optimizer, sym=self.symbol, param_idx2name=idx2name,
                                   **optimizer_params)
        else:
            assert isinstance(optimizer, opt.Optimizer)
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn('Optimizer created manually outside Module but rescale_grad is '
                              'not normalized to 1.0/batch_size/num_workers (%s vs. %s). '
                              'Is this intended?' % (optimizer.rescale_grad, rescale_grad),
                              stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer = optimizer
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._updater = None
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            _initialize_kvstore(kvstore=kvstore, param_arrays=self._exec_group.param_arrays,
                                arg_params=self._arg_params, param_names=self._param_names,
                                update_on_kvstore=update_on_kvstore)
        if not update_on_kvstore:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            state_name, param_name, digest = self._preload_opt_states
            self._preload_opt_states = None
            try:
                with open(state_name, 'rb') as fin:
                    blob = fin.read()
            except OSError as err:
                raise MXNetError('%s: cannot read the optimizer states: %s'
                                 % (state_name, err)) from err
            check_states(blob, state_name, param_name, digest)
            self.load_optimizer_states(state_name)

    def borrow_optimizer(self, shared_module):
        """Use ``shared_module``'s optimizer, KVStore and updater (bucketing)."""
        assert shared_module.optimizer_initialized
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    # ---- computation ------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Forward on a batch; re-shapes the executors when the batch shape changed."""
        self._require('binded', 'params_initialized')
        if not isinstance(data_batch, list) and \
                _same_shapes(self._data_shapes, data_batch.data):
            self._exec_group.forward(data_batch, is_train)     # the bound shapes: no reshape
            return
        curr_data_shapes = tuple(i.shape for i in self._data_shapes)
        if isinstance(data_batch, list):
            assert data_batch is not None, 'Encountered empty data batch'
            new_data_shapes = []
            for i in range(len(data_batch[0].data)):
                shape = data_batch[0].data[i].shape
                for db in data_batch:
                    assert shape == db.data[i].shape, \
                        'All data batches in a list need to have the same shape'
                new_data_shapes.append((len(data_batch) * shape[0],) + shape[1:])
            new_data_shapes = tuple(new_data_shapes)
        else:
            new_data_shapes = tuple(i.shape for i in data_batch.data)
        if curr_data_shapes != new_data_shapes:
            if getattr(data_batch, 'provide_data', None):
                new_dshape = data_batch.provide_data
            else:
                new_dshape = [DataDesc(i.name, shape, i.dtype, i.layout)
                              for i, shape in zip(self._data_shapes, new_data_shapes)]
            if getattr(data_batch, 'provide_label', None):
                new_lshape = data_batch.provide_label
            elif getattr(data_batch, 'label', None):
                new_lshape = [DataDesc(i.name, j.shape, i.dtype, i.layout)
                              for i, j in zip(self._label_shapes, data_batch.label)]
            else:
                new_lshape = None
            self.reshape(new_dshape, new_lshape)
        self._exec_group.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        """Backward on the last forward's batch."""
        self._require('binded', 'params_initialized')
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """Apply the optimizer to the parameters using the computed gradients."""
        self._require('binded', 'params_initialized', 'optimizer_initialized')
        self._params_dirty = True
        if self._update_on_kvstore:
            _update_params_on_kvstore(self._exec_group.param_arrays,
                                      self._exec_group.grad_arrays,
                                      self._kvstore, self._exec_group.param_names,
                                      lend_params=True)
        else:
            _update_params(self._exec_group.param_arrays, self._exec_group.grad_arrays,
                           updater=self._updater, num_device=len(self._context),
                           kvstore=self._kvstore, param_names=self._exec_group.param_names)

    def get_outputs(self, merge_multi_context=True):
        """Outputs of the last forward."""
        self._require('binded', 'params_initialized')
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the inputs (bind with ``inputs_need_grad=True``)."""
        self._require('binded', 'params_initialized', 'inputs_need_grad')
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        """The state arrays."""
        self._require('binded', 'params_initialized')
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        """Set the state arrays from arrays or a scalar."""
        self._require('binded', 'params_initialized')
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Accumulate ``eval_metric`` on the last forward's outputs."""
        self._require('binded', 'params_initialized')
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    # ---- optimizer states ---------------------------------------------------------------
    def save_optimizer_states(self, fname):
        """Save the optimizer states (symmod's safe format, with update counts)."""
        self._require('optimizer_initialized')
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
        else:
            atomic_write(fname, self._updater.get_states())

    def load_optimizer_states(self, fname):
        """Load optimizer states written by symmod or by MXNet."""
        self._require('optimizer_initialized')
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
        else:
            load_states_file(self._updater, fname)

    def install_monitor(self, mon):
        """Install a Monitor on the executors."""
        self._require('binded')
        self._exec_group.install_monitor(mon)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Prepare for a batch: pull the rows of row_sparse parameters it needs.

        With the optimizer in a KVStore, row_sparse weights are updated there and not
        copied back by ``update()``; ``sparse_row_id_fn(data_batch)`` returns
        ``{param_name: row_ids}``, and those rows are pulled into the devices' arrays.
        """
        self._require('binded')
        if sparse_row_id_fn is None:
            return
        if not self._kvstore or not self._update_on_kvstore:
            warnings.warn(UserWarning('Parameters are not updated in the KVStore. No need to '
                                      'call sparse_row_id_fn.'))
            return
        row_ids = sparse_row_id_fn(data_batch)
        assert isinstance(row_ids, dict), 'Expected dict output from sparse_row_id_fn'
        for param_name, row_id in row_ids.items():
            param_idx = self._exec_group.param_names.index(param_name)
            param_val = self._exec_group.param_arrays[param_idx]
            assert isinstance(param_val, (tuple, list))
            if param_val[0].stype != 'row_sparse':
                warnings.warn(UserWarning("%s.stype is not 'row_sparse'. No need to perform "
                                          'row_sparse_pull.' % param_name))
            else:
                self._kvstore.row_sparse_pull(param_name, param_val, row_ids=row_id,
                                              priority=-param_idx)
