"""SequentialModule: a chain of modules, each one's outputs feeding the next one's data."""
import copy
import logging

from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ['SequentialModule']


class SequentialModule(BaseModule):
    """A container running several modules one after another.

    The outputs of module ``i`` are the data of module ``i + 1``; in backward the input
    gradients of module ``i + 1`` are the output gradients of module ``i``. Modules added
    with ``take_labels=True`` receive the batch's labels (and update the metric).

    Parameters
    ----------
    logger : logging.Logger
        Default ``logging``.

    Examples
    --------
    >>> net1 = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=32, name='fc1')
    >>> net2 = mx.sym.SoftmaxOutput(
    ...     mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=10, name='fc2'), name='softmax')
    >>> seq = mx.mod.SequentialModule()
    >>> seq.add(mx.mod.Module(net1, label_names=None)).add(
    ...     mx.mod.Module(net2), take_labels=True, auto_wiring=True)
    """
    META_TAKE_LABELS = 'take_labels'
    META_AUTO_WIRING = 'auto_wiring'

    def __init__(self, logger=logging):
        super(SequentialModule, self).__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Append ``module`` to the chain.

        Parameters
        ----------
        module : BaseModule
            The module to append.
        **kwargs
            Meta information: ``take_labels`` (the module receives the batch's labels)
            and ``auto_wiring`` (rename the previous outputs to this module's data names).

        Returns
        -------
        SequentialModule
            ``self``, so that calls chain.
        """
        for key in kwargs:
            assert key in self._meta_keys, 'Unknown meta "%s", a typo?' % key
        self._modules.append(module)
        self._metas.append(kwargs)
        # a changed chain must be bound and initialized again
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    def _takes_labels(self, index):
        return bool(self._metas[index].get(self.META_TAKE_LABELS, False))

    # ---- names and shapes ----------------------------------------------------------------
    @property
    def data_names(self):
        """Data names of the first module."""
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        """Output names of the last module."""
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        """Data shapes of the first module."""
        self._require('binded')
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        """The label shapes given to ``bind``, or None when no module takes labels."""
        self._require('binded')
        return self._label_shapes

    @property
    def output_shapes(self):
        """Output shapes of the last module."""
        self._require('binded')
        return self._modules[-1].output_shapes

    # ---- parameters ----------------------------------------------------------------------
    def get_params(self):
        """All modules' parameters merged into one ``(arg_params, aux_params)`` pair."""
        self._require('binded', 'params_initialized')
        arg_params, aux_params = {}, {}
        for module in self._modules:
            args, auxs = module.get_params()
            arg_params.update(args)
            aux_params.update(auxs)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialize every module's parameters; parameter names must not repeat.

        Parameters are as in :meth:`Module.init_params`; ``arg_params`` and
        ``aux_params`` may hold the parameters of all modules.
        """
        if self.params_initialized and not force_init:
            return
        assert self.binded, 'call bind before initializing the parameters'
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params,
                               aux_params=aux_params, allow_missing=allow_missing,
                               force_init=force_init, allow_extra=allow_extra)
        owners = ({}, {})       # parameter name -> index of the module holding it
        for index, module in enumerate(self._modules):
            for names, known in zip(module.get_params(), owners):
                for name in names:
                    if name in known:
                        first = known[name]
                        raise AssertionError(
                            'Duplicated parameter names: name "%s" in layer %d (%s) is already '
                            'used in layer %d (%s).' % (name, index, type(module), first,
                                                        type(self._modules[first])))
                    known[name] = index
        self.params_initialized = True

    # ---- binding and optimizer -----------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True,
             inputs_need_grad=False, force_rebind=False, shared_module=None,
             grad_req='write'):
        """Bind each module on the output shapes of the one before it.

        Parameters are as in :meth:`Module.bind`; ``shared_module`` is not supported.
        Every module after the first is bound with ``inputs_need_grad`` when training,
        since its input gradients are the previous module's output gradients.
        """
        if self.binded and not force_rebind:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if inputs_need_grad:
            assert for_training is True
        assert shared_module is None, 'Shared module is not supported'
        assert self._modules, 'Attempting to bind an empty SequentialModule'
        self.binded = True
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        shapes = data_shapes
        any_takes_labels = False
        for index, module in enumerate(self._modules):
            takes_labels = self._takes_labels(index)
            any_takes_labels |= takes_labels
            if self._metas[index].get(self.META_AUTO_WIRING, False):
                names = module.data_names
                assert len(names) == len(shapes)
                shapes = [(name, desc[1]) for name, desc in zip(names, shapes)]
            module.bind(data_shapes=shapes, label_shapes=label_shapes if takes_labels else None,
                        for_training=for_training,
                        inputs_need_grad=bool(inputs_need_grad or (for_training and index > 0)),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            shapes = module.output_shapes
        self._label_shapes = label_shapes if any_takes_labels else None

    def init_optimizer(self, kvstore='local', optimizer='sgd',
                       optimizer_params=(('learning_rate', 0.01),), force_init=False):
        """Install the optimizer in every module (arguments as in :meth:`Module.init_optimizer`)."""
        self._require('binded', 'params_initialized')
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring.')
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                                  optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    # ---- computation ---------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run the modules in order, feeding each one's outputs to the next."""
        self._require('binded', 'params_initialized')
        # a shallow copy keeps pad, bucket_key, index... without changing the caller's batch
        data_batch = copy.copy(data_batch)
        last = len(self._modules) - 1
        for index, module in enumerate(self._modules):
            module.forward(data_batch, is_train=is_train)
            if index == last:
                break
            data_batch.data = module.get_outputs()
            if hasattr(data_batch, 'provide_data'):
                names = [desc[0] for desc in module.output_shapes]
                assert len(names) == len(data_batch.data)
                data_batch.provide_data = [(name, array.shape)
                                           for name, array in zip(names, data_batch.data)]

    def backward(self, out_grads=None):
        """Run backward from the last module to the first."""
        self._require('binded', 'params_initialized')
        for index in range(len(self._modules) - 1, -1, -1):
            module = self._modules[index]
            module.backward(out_grads=out_grads)
            if index > 0:
                out_grads = module.get_input_grads()

    def update(self):
        """Apply the optimizer in every module."""
        self._require('binded', 'params_initialized', 'optimizer_initialized')
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        """Outputs of the last module."""
        self._require('binded', 'params_initialized')
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """Input gradients of the first module (bind with ``inputs_need_grad=True``)."""
        self._require('binded', 'params_initialized', 'inputs_need_grad')
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` from every module that takes labels."""
        self._require('binded', 'params_initialized')
        for index, module in enumerate(self._modules):
            if self._takes_labels(index):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install ``mon`` on every module's executors."""
        self._require('binded')
        for module in self._modules:
            module.install_monitor(mon)
