"""The intermediate module API every module implements, declared once.

``BaseModule`` inherits these declarations, so a module (or a test double built from a
bare ``BaseModule``) that lacks one of them raises NotImplementedError, as in MXNet, instead
of an AttributeError; ``fit`` relies on that to skip optional steps.
"""
from ..initializer import Uniform

__all__ = ['ModuleInterface']


class ModuleInterface:
    """Abstract intermediate API of a module: names, shapes, parameters, computation."""

    # ---- symbol information ------------------------------------------------------------
    @property
    def data_names(self):
        """Names of the data inputs of this module."""
        raise NotImplementedError()

    @property
    def output_names(self):
        """Names of the outputs of this module."""
        raise NotImplementedError()

    # ---- input / output information ------------------------------------------------------
    @property
    def data_shapes(self):
        """``(name, shape)`` of every data input."""
        raise NotImplementedError()

    @property
    def label_shapes(self):
        """``(name, shape)`` of every label input (``[]`` without labels)."""
        raise NotImplementedError()

    @property
    def output_shapes(self):
        """``(name, shape)`` of every output."""
        raise NotImplementedError()

    # ---- parameters ----------------------------------------------------------------------
    def get_params(self):
        """Return ``(arg_params, aux_params)``, dictionaries of name to NDArray."""
        raise NotImplementedError()

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialize the parameters (from ``arg_params``/``aux_params`` or ``initializer``)."""
        raise NotImplementedError()

    def install_monitor(self, mon):
        """Install a :class:`~symmod.monitor.Monitor` on the executors."""
        raise NotImplementedError()

    # ---- computation -----------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run the forward pass on ``data_batch``."""
        raise NotImplementedError()

    def backward(self, out_grads=None):
        """Run the backward pass (``out_grads`` for outputs that are not loss heads)."""
        raise NotImplementedError()

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last forward pass."""
        raise NotImplementedError()

    def get_input_grads(self, merge_multi_context=True):
        """The gradients of the inputs (bound with ``inputs_need_grad=True``)."""
        raise NotImplementedError()

    def update(self):
        """Apply the optimizer to the parameters with the last gradients."""
        raise NotImplementedError()

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Accumulate ``eval_metric`` over the last outputs and ``labels``."""
        raise NotImplementedError()

    # ---- module setup ----------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Allocate the executors for the given input shapes."""
        raise NotImplementedError()

    def init_optimizer(self, kvstore='local', optimizer='sgd',
                       optimizer_params=(('learning_rate', 0.01),), force_init=False):
        """Create the optimizer (and kvstore) used by :meth:`update`."""
        raise NotImplementedError()
