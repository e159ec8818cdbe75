"""Loss heads and gradient control: SoftmaxOutput, the *RegressionOutput family,
MakeLoss, make_loss, BlockGrad and softmax_cross_entropy.

A loss head (``is_loss``) ignores the gradient arriving at its output and writes the
gradient MXNet defines for the loss it stands for. Where MXNet 1.9.1 computes
something surprising, the code does the same and says so in a comment. Two MXNet
defects are not copied: the label gradient is zero-filled (MXNet leaves the buffer
unwritten), and grad_req 'add' accumulates ``old + grad`` (MXNet's regression heads
compute ``(old + residual) * (1 + scale)``).
"""
import numpy as np

from .._labels import warn_out_of_range
from ..base import MXNetError, parse_bool, parse_float
from .common import copy_into, fill_into, int_shape, size_of, work_buffer, zero_grad
from .registry import Operator, Param, register, ShapeError, unify, shape_is_known
from .softmax import softmax_into
from .unary import sigmoid

__all__ = []


def _parse_normalization(value):
    text = str(value).strip()
    if text not in ('null', 'batch', 'valid'):
        raise ValueError("expected one of 'null', 'batch', 'valid', found %r" % (value,))
    return text


def _f32(value):
    """A scale factor computed the way MXNet computes it: in float32."""
    return np.float32(value)


def _zero_label_grad(req, in_grad):
    # MXNet computes no gradient for the label; give it zeros rather than garbage
    if len(in_grad) > 1 and req[1] == 'write':
        in_grad[1].fill(0)


@register
class SoftmaxOutput(Operator):
    """Softmax in forward; in backward the gradient of cross-entropy with ``label``.

    By default the input is seen as ``(d0, d1*...*dn)`` and softmax runs over each
    row; ``preserve_shape`` uses the last axis and ``multi_output`` axis 1. The label
    holds class indices (shape of the data without its softmax axis) or, when it has
    the data's shape, probabilities. The gradient is ``(softmax - onehot(label))``
    times ``grad_scale``, divided by the batch size or the number of labels not equal
    to ``ignore_label`` for ``normalization`` 'batch' / 'valid'; with ``use_ignore``
    rows whose label is ``ignore_label`` get zero gradient; ``smooth_alpha`` smooths
    the one-hot target.
    """
    name = 'SoftmaxOutput'
    aliases = ('Softmax',)
    params = (Param('grad_scale', parse_float, 1.0, 'Scales the gradient.'),
              Param('ignore_label', parse_float, -1.0, 'Label value ignored with use_ignore.'),
              Param('multi_output', parse_bool, False, 'Softmax over axis 1.'),
              Param('use_ignore', parse_bool, False, 'Zero the gradient of ignored labels.'),
              Param('preserve_shape', parse_bool, False, 'Softmax over the last axis.'),
              Param('normalization', _parse_normalization, 'null',
                    "Gradient normalization: 'null', 'batch' or 'valid'."),
              Param('out_grad', parse_bool, False,
                    'Multiply the gradient by the output (MXNet 1.9.1 behaviour).'),
              Param('smooth_alpha', parse_float, 0.0, 'Label smoothing constant in [0, 1].'))
    is_loss = True
    inplace = ((0, 0),)

    def check_params(self):
        if not 0.0 <= self.smooth_alpha <= 1.0:
            raise MXNetError('SoftmaxOutput: smooth_alpha must be in [0, 1], found %s'
                             % self.smooth_alpha)

    def list_arguments(self):
        return ['data', 'label']

    def _view3(self, shape):
        """(lead, classes, trail): the softmax runs over the middle axis."""
        if self.multi_output:
            return shape[0], shape[1], size_of(shape[2:])
        if self.preserve_shape:
            return size_of(shape[:-1]), shape[-1], 1
        return shape[0], size_of(shape[1:]), 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = unify(int_shape(in_shapes[0]), int_shape(out_shapes[0]))
        lshape = int_shape(in_shapes[1])
        if dshape is None:
            return [None, lshape], [None], []
        if lshape != dshape:
            if self.multi_output:
                n = dshape[0]
                rest = size_of(dshape[2:]) if all(dshape) else 0
                allowed = [(n, rest), (n,) + dshape[2:], (n, 1) + dshape[2:]]
                if lshape is None:
                    lshape = allowed[0]
                elif lshape not in allowed:
                    raise ShapeError('SoftmaxOutput: label shape %s does not fit data %s with '
                                     'multi_output: expecting %s or %s'
                                     % (lshape, dshape, allowed[0], allowed[1]))
            else:
                try:
                    lshape = unify(dshape[:-1], lshape)
                except ShapeError:
                    raise ShapeError('SoftmaxOutput: label shape %s does not match data %s: '
                                     'expected %s (or the data shape for probability labels)'
                                     % (lshape, dshape, dshape[:-1])) from None
        return [dshape, lshape], [dshape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        x, out = in_data[0], out_data[0]
        shape3 = self._view3(x.shape)
        dst = work_buffer('fwd', out, req[0])
        softmax_into(x.reshape(shape3), dst.reshape(shape3))
        if dst is not out:
            out += dst

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _zero_label_grad(req, in_grad)
        if req[0] == 'null':
            return
        out, label = out_data[0], in_data[1]
        grad = work_buffer('grad', in_grad[0], req[0])
        if label.shape == out.shape:
            # probability labels: no normalization, no ignore
            np.subtract(out, label, out=grad)
            grad *= out.dtype.type(_f32(self.grad_scale))
        elif self.multi_output:
            self._multi_output_grad(out, label, grad)
        else:
            self._flat_grad(out, label, grad)
        if self.out_grad:
            # MXNet 1.9.1 passes the softmax output where the head gradient belongs,
            # so out_grad=True multiplies the gradient by the output itself
            grad *= out
        if req[0] == 'add':
            in_grad[0] += grad

    def _ignored(self, labels_int):
        return labels_int == int(self.ignore_label)

    def _warn_labels(self, labels_int, classes):
        if getattr(self, '_labels_warned', False):
            return
        self._labels_warned = warn_out_of_range(
            'SoftmaxOutput', labels_int, classes,
            self.ignore_label if self.use_ignore else None,
            'those examples get no gradient toward any class')

    def _valid_count(self, labels_int):
        count = labels_int.size - int(np.count_nonzero(self._ignored(labels_int)))
        return max(count, 1)

    def _flat_grad(self, out, label, grad):
        if self.preserve_shape:
            classes = out.shape[-1]
            rows = out.size // classes
        else:
            rows = out.shape[0]
            classes = out.size // rows
        out2, grad2 = out.reshape(rows, classes), grad.reshape(rows, classes)
        labels_all = label.reshape(-1).astype(np.int64)       # truncates like a C++ cast
        labels = labels_all[:rows]
        hit = (labels >= 0) & (labels < classes)
        r = np.nonzero(hit)[0]
        if r.size != rows:      # free to test; the rare miss is then looked at
            self._warn_labels(labels, classes)
        dtype = out.dtype.type
        if self.smooth_alpha == 0.0:
            np.copyto(grad2, out2)
            grad2[r, labels[r]] -= 1
        else:
            # the true class gets out - 1 + alpha, the others out - alpha / (classes - 1)
            off = _f32(self.smooth_alpha) / _f32(classes - 1)
            np.subtract(out2, dtype(off), out=grad2)
            grad2[r, labels[r]] = out2[r, labels[r]] - dtype(1) + dtype(_f32(self.smooth_alpha))
        if self.use_ignore:
            grad2[self._ignored(labels)] = 0
        if self.normalization == 'batch':
            count = labels_all.size
        elif self.normalization == 'valid':
            count = self._valid_count(labels_all)
        else:
            count = 1
        grad *= grad.dtype.type(_f32(self.grad_scale) / _f32(count))

    def _multi_output_grad(self, out, label, grad):
        n, k, m = self._view3(out.shape)
        out3, grad3 = out.reshape(n, k, m), grad.reshape(n, k, m)
        labels = label.reshape(n, m).astype(np.int64)
        np.copyto(grad3, out3)
        hit = (labels >= 0) & (labels < k)
        i, j = np.nonzero(hit)
        if i.size != labels.size:
            self._warn_labels(labels, k)
        grad3[i, labels[i, j], j] -= 1
        if self.use_ignore:
            i, j = np.nonzero(self._ignored(labels))
            grad3[i, :, j] = 0
        scale = _f32(self.grad_scale)
        if self.normalization == 'valid':
            scale = scale / _f32(self._valid_count(labels))
        elif self.normalization == 'batch':
            scale = scale / _f32(m) / _f32(n)
        else:
            scale = scale / _f32(m)
        grad *= grad.dtype.type(scale)


class _RegressionOutput(Operator):
    """Base of the regression heads: forward maps data, backward is (out - label) * scale."""
    params = (Param('grad_scale', parse_float, 1.0, 'Scales the gradient.'),)
    is_loss = True
    inplace = ((0, 0),)

    def list_arguments(self):
        return ['data', 'label']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = unify(int_shape(in_shapes[0]), int_shape(out_shapes[0]))
        lshape = int_shape(in_shapes[1])
        if dshape is None or not shape_is_known(dshape):
            return [dshape, lshape], [dshape], []
        if lshape is None:
            # a (n, 1) output takes a 1-D label by default
            lshape = (dshape[0],) if len(dshape) == 2 and dshape[1] == 1 else dshape
        elif shape_is_known(lshape) and (lshape[0] != dshape[0]
                                         or size_of(lshape) != size_of(dshape)):
            raise ShapeError('%s: shape inconsistent, provided label shape %s, inferred shape %s'
                             % (self.name, lshape, dshape))
        return [dshape, lshape], [dshape], []

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _zero_label_grad(req, in_grad)
        if req[0] == 'null':
            return
        out, label = out_data[0], in_data[1]
        per_sample = label.size // label.shape[0]
        scale = out.dtype.type(_f32(self.grad_scale) / _f32(per_sample))
        grad = work_buffer('grad', in_grad[0], req[0])
        self._residual(out, label.reshape(out.shape), grad)
        grad *= scale
        if grad is not in_grad[0]:     # accumulate properly (MXNet scales the old value too)
            in_grad[0] += grad

    @staticmethod
    def _residual(out, label, grad):
        np.subtract(out, label, out=grad)


@register
class LinearRegressionOutput(_RegressionOutput):
    """Identity in forward; the squared-loss gradient ``(out - label) * grad_scale / m``
    in backward, m being the number of outputs per sample."""
    name = 'LinearRegressionOutput'
    aliases = ('_sparse_LinearRegressionOutput',)
    backward_uses_inputs = True

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0], req[0])


@register
class MAERegressionOutput(_RegressionOutput):
    """Identity in forward; the absolute-loss gradient ``sign(out - label) * grad_scale / m``
    in backward (MXNet takes -1 where out == label)."""
    name = 'MAERegressionOutput'
    aliases = ('_sparse_MAERegressionOutput',)

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0], req[0])

    @staticmethod
    def _residual(out, label, grad):
        np.greater(out, label, out=grad, casting='unsafe')
        grad *= 2
        grad -= 1


@register
class LogisticRegressionOutput(_RegressionOutput):
    """Sigmoid in forward; the binary cross-entropy gradient ``(sigmoid - label) *
    grad_scale / m`` in backward."""
    name = 'LogisticRegressionOutput'
    aliases = ('_sparse_LogisticRegressionOutput',)

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        out = work_buffer('fwd', out_data[0], req[0])
        with np.errstate(over='ignore'):
            sigmoid(in_data[0], out)
        if out is not out_data[0]:
            out_data[0] += out


@register
class MakeLoss(Operator):
    """Marks its input as a loss: identity in forward, gradient ``grad_scale`` in backward.

    ``normalization`` 'batch' divides by the product of all but the last dimension
    (MXNet views the input as 2-D); 'valid' divides by the number of input elements
    greater than ``valid_thresh`` (at least 1).
    """
    name = 'MakeLoss'
    params = (Param('grad_scale', parse_float, 1.0, 'Gradient scale.'),
              Param('valid_thresh', parse_float, 0.0,
                    "Elements above it count as valid for normalization='valid'."),
              Param('normalization', _parse_normalization, 'null',
                    "'null', 'batch' or 'valid'."))
    is_loss = True
    backward_uses_outputs = False
    inplace = ((0, 0),)

    @property
    def backward_uses_inputs(self):
        return self.normalization == 'valid'

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grad = in_grad[0]
        dtype = grad.dtype.type
        if self.normalization == 'valid':
            valid = int(np.count_nonzero(in_data[0] > dtype(_f32(self.valid_thresh))))
            value = dtype(_f32(self.grad_scale)) / dtype(max(valid, 1))
        elif self.normalization == 'batch':
            rows = size_of(grad.shape[:-1])
            value = _f32(self.grad_scale) / _f32(rows)
        else:
            value = _f32(self.grad_scale)
        fill_into(grad, req[0], value)


@register
class make_loss(Operator):
    """Marks its input as a loss: identity in forward, a gradient of ones in backward."""
    name = 'make_loss'
    aliases = ('_sparse_make_loss',)
    is_loss = True
    backward_uses_inputs = False
    backward_uses_outputs = False
    inplace = ((0, 0),)

    def list_outputs(self):
        return ['loss']

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        fill_into(in_grad[0], req[0], 1)


@register
class BlockGrad(Operator):
    """Identity in forward; stops the gradient: its input receives zeros."""
    name = 'BlockGrad'
    aliases = ('stop_gradient', '_sparse_stop_gradient')
    zero_gradient = True
    backward_uses_inputs = False
    backward_uses_outputs = False
    needs_grad_buffer = False
    inplace = ((0, 0),)

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if in_grad and in_grad[0] is not None:
            zero_grad(in_grad[0], req[0])


@register
class softmax_cross_entropy(Operator):
    """Sum over the batch of ``-log(softmax(data)[label])`` for 2-D data and 1-D labels.

    The output has shape (1,). Probabilities are floored at 1e-8 before the log.
    """
    name = 'softmax_cross_entropy'

    def list_arguments(self):
        return ['data', 'label']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, lshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if dshape is not None and len(dshape) != 2:
            raise ShapeError('softmax_cross_entropy: only accepts 2-D data, found shape %s'
                             % (dshape,))
        if lshape is not None and len(lshape) != 1:
            raise ShapeError('softmax_cross_entropy: only accepts a 1-D label, found shape %s'
                             % (lshape,))
        if dshape is not None:
            try:
                lshape = unify(lshape, dshape[:1])
            except ShapeError:
                raise ShapeError('softmax_cross_entropy: data %s and label %s shape mismatch'
                                 % (dshape, lshape)) from None
        return [dshape, lshape], [unify((1,), out_shapes[0])], []

    @staticmethod
    def _labels(label, classes):
        labels = label.astype(np.int64)
        if labels.size and (labels.min() < 0 or labels.max() >= classes):
            raise MXNetError('softmax_cross_entropy: labels must be in [0, %d), found values '
                             'from %d to %d' % (classes, labels.min(), labels.max()))
        return labels

    def forward(self, is_train, req, in_data, out_data, aux):
        x, label = in_data
        labels = self._labels(label, x.shape[1])
        prob = np.empty_like(x)
        softmax_into(x[:, :, None], prob[:, :, None])
        chosen = np.maximum(prob[np.arange(x.shape[0]), labels], x.dtype.type(1e-8))
        copy_into(out_data[0], -np.log(chosen).sum(keepdims=True).astype(x.dtype), req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[1] != 'null':
            raise MXNetError('softmax_cross_entropy: cannot take gradient with respect to label')
        if req[0] == 'null':
            return
        x, label = in_data
        labels = self._labels(label, x.shape[1])
        grad = np.empty_like(x)
        softmax_into(x[:, :, None], grad[:, :, None])
        grad[np.arange(x.shape[0]), labels] -= 1
        grad *= out_grad[0][0]
        copy_into(in_grad[0], grad, req[0])
