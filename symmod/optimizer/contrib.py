"""``mx.optimizer.contrib``: GroupAdaGrad."""
import numpy

from ..ndarray import NDArray, zeros
from .kernels import dispatch, sparse_rows
from .sparse import rows_view, row_sparse_parts
from ..ndarray.sparse_array import RowSparseNDArray
from .optimizer import Optimizer, register

__all__ = ['GroupAdaGrad']


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one learning rate per row of a 2-D weight (e.g. an embedding).

    The update::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += mean(grad**2, axis=1, keepdims=True)
        weight -= lr * grad / sqrt(history + eps)

    Weight decay is not supported.

    Parameters
    ----------
    eps : float, optional, default 1e-5
        Added inside the square root.
    """

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        assert len(weight.shape) == 2
        return zeros((weight.shape[0], 1), weight.context, stype=weight.stype)

    def update(self, index, weight, grad, state):
        assert isinstance(weight, NDArray)
        assert isinstance(grad, NDArray)
        self._update_count(index)
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        assert wd == 0, 'Weight decay is not supported for GroupAdaGrad'
        if weight.dtype != numpy.float32 or grad.dtype != numpy.float32:
            raise TypeError('GroupAdaGrad supports float32 weights and gradients, found %s '
                            'and %s' % (numpy.dtype(weight.dtype).name,
                                        numpy.dtype(grad.dtype).name))
        if isinstance(grad, RowSparseNDArray):
            # MXNet's group_adagrad_update on the gradient's rows (clips when truthy)
            w = rows_view(weight)
            rows, g = row_sparse_parts(grad, w.dtype)
            f32 = numpy.float32
            clip = f32(self.clip_gradient) if self.clip_gradient else f32(-1)
            sparse_rows.group_adagrad_rows(w, rows_view(state, 'state'), rows, g, f32(lr),
                                           f32(self.float_stable_eps),
                                           f32(self.rescale_grad), clip)
            return
        clip = -1.0 if self.clip_gradient is None else float(self.clip_gradient)
        dispatch.group_adagrad(weight._data, grad._data, state._data, lr,
                               self.float_stable_eps, self.rescale_grad, clip)
