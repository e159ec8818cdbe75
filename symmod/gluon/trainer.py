"""Trainer: applies an optimizer to gluon Parameters after ``autograd.backward``.

One step: the gradients of every Parameter are summed over its contexts through a
KVStore (when there are several contexts), then the optimizer updates each copy -
either inside the KVStore (``update_on_kvstore``; the updated weight is pulled back to
every context) or by one Updater per context on identical summed gradients. Gradients
are scaled by ``rescale_grad = scale / batch_size``.
"""
from .. import autograd
from .. import optimizer as opt
from ..formats.atomic import atomic_write
from ..model import _create_kvstore, _create_sparse_kvstore, _pushpull_all
from .parameter import Parameter
from .parameter_dict import ParameterDict

__all__ = ['Trainer']


class Trainer:
    """Applies an Optimizer on a set of Parameters; use it together with ``autograd``.

    Parameters
    ----------
    params : ParameterDict, dict or list of Parameter
        The Parameters to optimize (a dict is taken in sorted key order).
    optimizer : str or Optimizer
        The optimizer, by name (``'sgd'``) or as an instance.
    optimizer_params : dict, optional
        Arguments of the optimizer's constructor (only with a name), e.g.
        ``{'learning_rate': 0.1}``.
    kvstore : str or KVStore, default 'device'
        The store that sums gradients over contexts; none is used for one context.
    compression_params : dict, optional
        Gradient compression for the store, e.g. ``{'type': '2bit', 'threshold': 0.5}``.
    update_on_kvstore : bool, optional
        Run the optimizer in the store. None chooses: True for a store that supports it
        unless the environment variable ``MXNET_UPDATE_ON_KVSTORE`` is 0.

    Examples
    --------
    >>> net = mx.gluon.nn.Dense(10); net.initialize()
    >>> trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    >>> x = mx.nd.ones((4, 5))
    >>> with mx.autograd.record():
    ...     loss = net(x).sum()
    >>> loss.backward()
    >>> trainer.step(4)
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore='device',
                 compression_params=None, update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(list(params.keys()))]
        if not isinstance(params, (list, tuple)):
            raise ValueError('First argument must be a list or dict of Parameters, got %s.'
                             % type(params))
        self._params = []
        self._contains_sparse_weight = False
        self._contains_sparse_grad = False
        self._param2idx = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError('First argument must be a list or dict of Parameters, got '
                                 'list of %s.' % type(param))
            self._param2idx[param.name] = i
            self._params.append(param)
            if param._stype != 'default':
                self._contains_sparse_weight = True
            if param._grad_stype != 'default':
                self._contains_sparse_grad = True
            param._set_trainer(self)
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params if optimizer_params else {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {'kvstore': kvstore, 'update_on_kvstore': update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            assert contexts is None or contexts == ctx, \
                'All Parameters must be initialized on the same set of contexts, but ' \
                'Parameter %s is initialized on %s while previous Parameters are initialized ' \
                'on %s.' % (param.name, str(ctx), str(contexts))
            contexts = ctx
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = {i: param for i, param in enumerate(self._params)}
        if isinstance(optimizer, opt.Optimizer):
            assert not optimizer_params, \
                'optimizer_params must be None if optimizer is an instance of Optimizer ' \
                'instead of str'
            self._optimizer = optimizer
            # not copied: later changes of a Parameter's lr_mult / wd_mult take effect
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    # ---- the KVStore ----------------------------------------------------------------------
    def _init_params(self):
        """Put the initialized Parameters into the store (deferred ones wait)."""
        assert self._kv_initialized, 'Cannot initialize parameters in KVStore when KVStore ' \
                                     'is not initialized.'
        params_to_init = []
        if self._kvstore:
            for param in self._params_to_init:
                if param._deferred_init:
                    params_to_init.append(param)
                else:
                    arrays = param._check_and_get(param._data, list)
                    idx = self._param2idx[param.name]
                    if param._stype != 'default':
                        self._kvstore.init(idx, arrays[0])   # pulled by row_sparse_data
                    else:
                        self._kvstore.broadcast(idx, arrays[0], arrays)
        self._params_to_init = params_to_init

    def _reset_kvstore(self):
        """Forget the store; it is made again at the next step."""
        if self._kvstore and 'dist' in self._kvstore.type:
            raise RuntimeError('Cannot reset distributed KVStore.')
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Create the store and decide ``update_on_kvstore`` (MXNet's three cases)."""
        config = self._kvstore_params
        if self._contains_sparse_weight:
            # row_sparse weights live in the store: pull rows, forward, backward, push
            kvstore, update_on_kvstore = _create_sparse_kvstore(config['kvstore'])
            self._distributed = 'dist' in kvstore.type
            if config['update_on_kvstore'] is False:
                raise ValueError('Cannot set update_on_kvstore=False when sparse weights are '
                                 'present.')
        elif self._contains_sparse_grad:
            kvstore, update_on_kvstore = self._sparse_grad_kvstore(config)
        else:
            kvstore, update_on_kvstore = self._dense_kvstore(config)
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    def _sparse_grad_kvstore(self, config):
        """Dense weights, row_sparse gradients: one machine pushes and pulls the gradients
        and updates on the workers (MXNet's choice, usually faster); several machines can
        only update in the store (there is no row_sparse_pull of gradients)."""
        arg_arrays = {param.name: param.data(self._contexts[0]) for param in self._params}
        kvstore, _ = _create_kvstore(config['kvstore'], len(self._contexts), arg_arrays)
        self._distributed = 'dist' in kvstore.type if kvstore else False
        update_on_kvstore = self._distributed
        if config['update_on_kvstore'] is not None:
            if config['update_on_kvstore'] is False and self._distributed:
                raise ValueError('Cannot set update_on_kvstore=False on dist kvstore when '
                                 'sparse gradients are present.')
            update_on_kvstore = config['update_on_kvstore']
        self._check_store_for(kvstore, update_on_kvstore)
        return kvstore, update_on_kvstore

    def _dense_kvstore(self, config):
        """Dense weights and gradients: only dist_async forces updates in the store."""
        arg_arrays = {param.name: param.data(self._contexts[0]) for param in self._params}
        kvstore, update_on_kvstore = _create_kvstore(config['kvstore'], len(self._contexts),
                                                     arg_arrays)
        self._distributed = 'dist' in kvstore.type if kvstore else False
        if self._distributed and 'async' in kvstore.type:
            update_on_kvstore = True
            if config['update_on_kvstore'] is False:
                raise ValueError('Please set update_on_kvstore=True when training in async '
                                 'mode.')
        if config['update_on_kvstore'] is not None:
            update_on_kvstore = config['update_on_kvstore']
        self._check_store_for(kvstore, update_on_kvstore)
        if update_on_kvstore and not kvstore.is_capable('optimizer'):
            if config['update_on_kvstore']:
                raise ValueError('Please set update_on_kvstore=False when training with {}'
                                 .format(type(kvstore)))
            update_on_kvstore = False
        return kvstore, update_on_kvstore

    def _check_store_for(self, kvstore, update_on_kvstore):
        if update_on_kvstore and kvstore is None:
            # MXNet fails here with an AttributeError on None
            raise ValueError('update_on_kvstore=True needs a KVStore, but none is used: '
                             'one context with kvstore=%r creates none. Use several '
                             'contexts, or leave update_on_kvstore as None or False'
                             % (self._kvstore_params['kvstore'],))

    def _prepare(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        """Pull the rows ``row_id`` of a row_sparse Parameter from the store into ``out``
        (all rows through ``pull`` when ``full_idx`` and the store is local)."""
        self._prepare()
        idx = self._param2idx[parameter.name]
        if full_idx and 'dist' not in self._kvstore.type:
            assert row_id.size == out.shape[0]
            self._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)

    # ---- learning rate -------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The optimizer's current learning rate."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning('Optimizer has to be defined before its learning rate can be '
                              'accessed.')
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        """The Optimizer."""
        if isinstance(self._optimizer, opt.Optimizer):
            return self._optimizer
        raise UserWarning('Optimizer has not been initialized yet')

    def set_learning_rate(self, lr):
        """Set the optimizer's learning rate.

        Parameters
        ----------
        lr : float
            The new learning rate.
        """
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning('Optimizer has to be defined before its learning rate is '
                              'mutated.')
        self._optimizer.set_learning_rate(lr)

    # ---- stepping ----------------------------------------------------------------------------
    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning('Possible change in the `batch_size` from previous `step` '
                                  'detected. Optimizer gradient normalizing factor will not '
                                  'change w.r.t new batch_size when update_on_kvstore=True '
                                  'and when distributed kvstore is used.')
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad=False):
        """One update: sum gradients over contexts, then apply the optimizer.

        Call it after ``backward`` and outside ``autograd.record()``.

        Parameters
        ----------
        batch_size : int
            Gradients are scaled by ``1 / batch_size`` (use 1 when the loss is already a
            mean).
        ignore_stale_grad : bool, default False
            Skip Parameters whose gradient ``backward`` has not written since the last
            step, instead of raising.

        Raises
        ------
        UserWarning
            (raised, as MXNet does) when a Parameter's gradient is stale.
        """
        self._check_and_rescale_grad(self._scale / batch_size)
        self._prepare()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum each Parameter's gradients over its contexts (all copies get the sum).

        For custom work on the summed gradients (e.g. clipping) between
        ``allreduce_grads()`` and ``update()``; needs ``update_on_kvstore=False``.
        """
        self._prepare()
        assert not (self._kvstore and self._update_on_kvstore), \
            'allreduce_grads() when parameters are updated on kvstore is not supported. Try ' \
            'setting `update_on_kvstore` to False when creating trainer.'
        self._allreduce_grads()

    def _allreduce_grads(self):
        if not self._kvstore:
            return
        keys = [i for i, param in enumerate(self._params) if param.grad_req != 'null'
                and param._stype == 'default' and param.list_grad()[0].stype == 'default']
        grads = [self._params[i].list_grad() for i in keys]
        outs = [self._params[i].list_data() for i in keys] if self._update_on_kvstore \
            else None
        _pushpull_all(self._kvstore, keys, grads, outs)
        for i, param in enumerate(self._params):
            if param.grad_req == 'null' or i in keys:
                continue
            # row_sparse gradients: pushed (summed as row_sparse), then the sum pulled
            # into the gradients, or the updated weights when the store updates; a
            # row_sparse weight stays in the store (row_sparse_data pulls its rows)
            self._kvstore.push(i, param.list_grad(), priority=-i)
            if param._stype != 'default':
                continue
            pull_list = param.list_data() if self._update_on_kvstore else param.list_grad()
            self._kvstore.pull(i, pull_list, priority=-i, ignore_sparse=self._distributed)

    def update(self, batch_size, ignore_stale_grad=False):
        """Apply the optimizer (after :meth:`allreduce_grads`); see :meth:`step`.

        Parameters
        ----------
        batch_size : int
            Gradients are scaled by ``1 / batch_size``.
        ignore_stale_grad : bool, default False
            Skip Parameters with stale gradients instead of raising.
        """
        self._prepare()
        assert not (self._kvstore and self._update_on_kvstore), \
            'update() when parameters are updated on kvstore is not supported. Try setting ' \
            '`update_on_kvstore` to False when creating trainer.'
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        loss_scaler = getattr(self, '_amp_loss_scaler', None)   # set by amp.init_trainer
        if loss_scaler is not None and loss_scaler.has_overflow(self._params):
            return      # an overflowing float16 gradient: skip this step (AMP)
        on_kvstore = bool(self._kvstore and self._update_on_kvstore)
        updates = [[] for _ in self._updaters]
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            arrays = param._check_and_get(param._data, list)
            if not ignore_stale_grad:
                for data in arrays:
                    if not autograd._get_fresh_grad(data):
                        raise UserWarning(
                            'Gradient of Parameter `%s` on context %s has not been updated by '
                            'backward since last `step`. This could mean a bug in your model '
                            'that made it only use a subset of the Parameters (Blocks) for '
                            'this iteration. If you are intentionally only using a subset, '
                            'call step with ignore_stale_grad=True to suppress this warning '
                            'and skip updating of Parameters with stale gradient'
                            % (param.name, str(data.context)))
            if on_kvstore:
                continue
            for upd, arr, grad in zip(updates, arrays, param.list_grad()):
                if not ignore_stale_grad or autograd._get_fresh_grad(arr):
                    upd.append((i, grad, arr))
                    autograd._set_fresh_grad(arr, False)
        if on_kvstore:
            return
        for updater, upd in zip(self._updaters, updates):
            if upd:
                indices, grads, weights = zip(*upd)
                updater(list(indices), list(grads), list(weights))

    # ---- states ----------------------------------------------------------------------------
    def save_states(self, fname):
        """Save the optimizer states (momentum etc.) and the optimizer to ``fname``.

        As MXNet does: a pickle of ``(states, optimizer)`` that MXNet 1.x's
        ``Trainer.load_states`` reads (``mxnet.optimizer.optimizer.<Class>`` with its
        attributes, update counts and lr scheduler included, so a resumed run continues
        exactly). An optimizer or scheduler MXNet does not have is saved in symmod's own
        states format instead. The Parameters' ``lr_mult`` / ``wd_mult``
        (``optimizer.param_dict``) are not saved.

        Parameters
        ----------
        fname : str
            Output file (written atomically).
        """
        assert self._optimizer is not None
        self._prepare()
        if self._update_on_kvstore:
            assert not self._params_to_init, 'Cannot save trainer states when some ' \
                                             'parameters are not yet initialized in kvstore.'
            updater = getattr(self._kvstore, '_updater', None)
            if updater is None:         # a distributed store keeps them
                self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
                return
        else:
            updater = self._updaters[0]
        atomic_write(fname, updater.get_states(dump_optimizer=True, mxnet_format=True))

    def load_states(self, fname):
        """Load states saved by :meth:`save_states` (or MXNet's pickled states).

        ``optimizer.param_dict`` is set again from this Trainer's Parameters.

        Parameters
        ----------
        fname : str
            Input file.
        """
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, 'rb') as fin:
                states = fin.read()
            for updater in self._updaters:
                updater._set_states(states, str(fname))
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = {i: param for i, param in enumerate(self._params)}
