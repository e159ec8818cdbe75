"""The per-sample softmax cross-entropy that gluon's ``SoftmaxCrossEntropyLoss`` runs as
one operator when called imperatively on 2-D predictions with class-index labels.

Called imperatively, the loss was four recorded operators (log_softmax, pick, negative,
mean), each a dispatch and a tape entry: ~155 us of a ~1.3 ms MLP training step at batch
64, where the arithmetic is a few microseconds. This operator gives the same values (the
same float operations in the same order as log_softmax then pick) and the same gradient,
``(softmax(pred) - onehot(label)) * out_grad``, in one call. Labels are truncated to
integers and clipped to the classes, as ``pick`` does. A hybridized loss keeps MXNet's
graph of the four operators.

The forward pass keeps numpy's exp / log / sums (the values equal the chain's bit for bit);
the backward pass is one numba loop over the rows (softmax, minus one at the label, times
the head gradient), which numpy took about ten calls for.
"""
import numba
import numpy as np

from .common import copy_into, int_shape, zero_grad
from .registry import Operator, register, ShapeError, unify

__all__ = []


def _rows_and_labels(data, label):
    labels = label.reshape(-1).astype(np.int64)
    # pick's clipping (np.clip's Python wrapper costs more than the two ufuncs)
    np.minimum(np.maximum(labels, 0, out=labels), data.shape[1] - 1, out=labels)
    return np.arange(data.shape[0]), labels


@numba.njit(cache=True, nogil=True)
def _softmax_ce_grad(x, label, head, grad):
    """``grad[i] = (softmax(x[i]) - onehot(label[i])) * head[i]``, labels truncated and
    clipped to the classes as ``pick`` does."""
    rows, classes = x.shape
    for i in range(rows):
        top = x[i, 0]
        for j in range(1, classes):
            if x[i, j] > top:
                top = x[i, j]
        total = x.dtype.type(0)
        for j in range(classes):
            e = np.exp(x[i, j] - top)
            grad[i, j] = e
            total += e
        scale = head[i] / total
        for j in range(classes):
            grad[i, j] *= scale
        k = int(label[i])
        k = min(max(k, 0), classes - 1)
        grad[i, k] -= head[i]


@register
class GluonSoftmaxCELoss(Operator):
    """``-log_softmax(data, axis=1)[i, label[i]]`` per sample ``i`` of 2-D ``data``."""
    name = '_gluon_softmax_ce_loss'

    def list_arguments(self):
        return ['data', 'label']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, lshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if dshape is not None and len(dshape) != 2:
            raise ShapeError('%s: data must be 2-D, found shape %s' % (self.name, dshape))
        out = unify(out_shapes[0], None if dshape is None else dshape[:1])
        if out is not None:
            if lshape is None:
                lshape = tuple(out)
            elif int(np.prod(lshape)) != out[0]:
                raise ShapeError('%s: one label per sample expected (%d), found shape %s'
                                 % (self.name, out[0], lshape))
        return [dshape, lshape], [out], []

    def infer_type(self, in_types, out_types, aux_types):
        return [in_types[0], in_types[1]], [in_types[0]], []

    def forward(self, is_train, req, in_data, out_data, aux):
        x, label = in_data
        # np.sum / np.max are these reductions behind a Python wrapper
        shifted = x - np.maximum.reduce(x, axis=1, keepdims=True)
        total = np.log(np.add.reduce(np.exp(shifted), axis=1))
        rows, labels = _rows_and_labels(x, label)
        picked = shifted[rows, labels]
        picked -= total
        np.negative(picked, out=picked)
        copy_into(out_data[0], picked, req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[1], req[1])
        if req[0] == 'null':
            return
        x, label = in_data
        head = out_grad[0].reshape(-1)
        if req[0] == 'write' and in_grad[0].flags.c_contiguous and x.dtype == head.dtype:
            _softmax_ce_grad(x, label.reshape(-1), head, in_grad[0])
            return
        # another head type (cast to the gradient's), or 'add': through a buffer
        grad = np.empty(x.shape, dtype=in_grad[0].dtype)
        _softmax_ce_grad(x, label.reshape(-1), head.astype(x.dtype, copy=False), grad)
        copy_into(in_grad[0], grad, req[0])
