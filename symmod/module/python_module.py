"""PythonModule and PythonLossModule: modules whose computation is written in Python."""
import logging

from ..base import MXNetError
from ..initializer import Uniform
from .. import ndarray as nd
from .base_module import BaseModule

__all__ = ['PythonModule', 'PythonLossModule']


class PythonModule(BaseModule):
    """A module without parameters whose computation a subclass writes in Python.

    Parameter handling, ``update`` and ``init_optimizer`` do nothing; ``bind`` checks
    the names and records the shapes, then asks ``_compute_output_shapes`` (which a
    subclass defines) for the output shapes.

    Parameters
    ----------
    data_names : list of str
        Names of the data inputs.
    label_names : list of str or None
        Names of the label inputs; None when the module takes no labels.
    output_names : list of str
        Names of the outputs.
    logger : logging.Logger
    """

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super(PythonModule, self).__init__(logger=logger)
        self._data_names = list(data_names) if isinstance(data_names, tuple) else data_names
        self._label_names = list(label_names) if isinstance(label_names, tuple) else label_names
        self._output_names = output_names
        self._data_shapes = None
        self._label_shapes = None
        self._output_shapes = None

    @property
    def data_names(self):
        """Names of the data inputs."""
        return self._data_names

    @property
    def output_names(self):
        """Names of the outputs."""
        return self._output_names

    @property
    def data_shapes(self):
        """``(name, shape)`` of each data input, known after ``bind``."""
        return self._data_shapes

    @property
    def label_shapes(self):
        """``(name, shape)`` of each label input; None without labels."""
        return self._label_shapes

    @property
    def output_shapes(self):
        """``(name, shape)`` of each output, from ``_compute_output_shapes``."""
        return self._output_shapes

    def get_params(self):
        """A module without parameters: ``({}, {})``."""
        return {}, {}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Nothing to initialize; subclasses with parameters override this."""
        self.params_initialized = True

    def update(self):
        """Nothing to update; subclasses with parameters override this."""

    def init_optimizer(self, kvstore='local', optimizer='sgd',
                       optimizer_params=(('learning_rate', 0.01),), force_init=False):
        """No optimizer is needed; subclasses with parameters override this."""
        self.optimizer_initialized = True

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with ``labels`` and the outputs (when bound with labels)."""
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise RuntimeError('PythonModule does not support presliced labels')
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True,
             inputs_need_grad=False, force_rebind=False, shared_module=None,
             grad_req='write'):
        """Record the input shapes and compute the output shapes.

        Parameters are as in :meth:`Module.bind`; only ``grad_req='write'`` is supported
        and the names in the shapes must equal the module's names, in order.
        """
        if self.binded and not force_rebind:
            self.logger.warning('Already bound, ignoring bind()')
            return
        assert grad_req == 'write', 'Python module only support write gradient'
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        assert len(data_shapes) == len(self._data_names)
        assert [desc[0] for desc in data_shapes] == self._data_names
        if label_shapes is not None:
            assert self._label_names is not None
            assert len(self._label_names) == len(label_shapes)
            assert [desc[0] for desc in label_shapes] == self._label_names
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        """``(name, shape)`` of each output from ``self._data_shapes``: subclasses define it."""
        raise MXNetError('%s must define _compute_output_shapes() to be bound: PythonModule '
                         'cannot know its output shapes' % type(self).__name__)

    def install_monitor(self, mon):
        """A Python module has no executors to monitor: nothing is installed."""


class PythonLossModule(PythonModule):
    """A loss written in Python: outputs its input scores, backward gives their gradient.

    Parameters
    ----------
    name : str
        Module name; the output is named ``name + '_output'``.
    data_names : list of str
        One data name, default ``('data',)``.
    label_names : list of str
        One label name, default ``('softmax_label',)``.
    logger : logging.Logger
    grad_func : callable, optional
        ``grad_func(scores, labels)`` returning the gradient of the loss with respect
        to the scores (NDArray or numpy array). Without it a subclass overrides
        ``_backward_impl``.

    Examples
    --------
    >>> def softmax_grad(scores, labels):
    ...     prob = mx.nd.softmax(scores).asnumpy()
    ...     prob[np.arange(len(prob)), labels.asnumpy().astype(int)] -= 1
    ...     return prob
    >>> loss = mx.mod.PythonLossModule(grad_func=softmax_grad)
    """

    def __init__(self, name='pyloss', data_names=('data',), label_names=('softmax_label',),
                 logger=logging, grad_func=None):
        super(PythonLossModule, self).__init__(data_names, label_names, [name + '_output'],
                                               logger=logger)
        assert len(data_names) == 1
        assert len(label_names) == 1
        if grad_func is not None:
            assert callable(grad_func)
        self._name = name
        self._scores = None
        self._labels = None
        self._scores_grad = None
        self._grad_func = grad_func

    def _compute_output_shapes(self):
        return [(self._name + '_output', self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        """Keep the scores (and, in training, the labels) for backward."""
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        """The scores given to the last ``forward``."""
        assert merge_multi_context is True
        return [self._scores]

    def backward(self, out_grads=None):
        """Compute the gradient of the loss with respect to the scores."""
        assert out_grads is None, 'For a loss module, out_grads should be None'
        self._require('for_training')
        self._backward_impl()

    def _backward_impl(self):
        """Set ``self._scores_grad`` from ``self._scores`` and ``self._labels``."""
        if self._grad_func is None:
            raise MXNetError('PythonLossModule %r has no grad_func: pass grad_func=... or '
                             'override _backward_impl() in a subclass' % self._name)
        grad = self._grad_func(self._scores, self._labels)
        self._scores_grad = grad if isinstance(grad, nd.NDArray) else nd.array(grad)

    def get_input_grads(self, merge_multi_context=True):
        """The gradient computed by the last ``backward``."""
        assert merge_multi_context is True
        return [self._scores_grad]
