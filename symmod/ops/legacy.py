"""MXNet's legacy ``*_v1`` operators: Convolution_v1, Pooling_v1 and BatchNorm_v1.

Graphs saved by old MXNet versions name these operators; MXNet 1.9.1 still registers
them, so symbol files that use them load, train and re-save unchanged. Each is the
current operator with the older parameter set and these differences:

- Convolution_v1 and Pooling_v1 take 2-D or 3-D kernels only (4-D / 5-D data);
- Pooling_v1 has no hidden workspace output (max pooling finds the positions again in
  backward), only the 'valid' and 'full' conventions, and average pooling always
  divides by the kernel size;
- BatchNorm_v1 always normalizes axis 1, and its ``var`` output (with
  ``output_mean_var``) is the batch variance, not the inverse standard deviation.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_tuple
from .common import choice
from .conv import Convolution
from .norm import BatchNorm
from .pooling import Pooling
from .registry import Param, register, ShapeError

__all__ = ['Convolution_v1', 'Pooling_v1', 'BatchNorm_v1']


class _LegacyParams:
    """Gives the parameters the current operator has and the legacy one lacks their
    current defaults, so the current operator's code runs unchanged."""
    current = None      # the current operator class

    def __init__(self, attrs=None):
        legacy = {p.name for p in self.params}
        for p in self.current.params:
            if p.name not in legacy:
                setattr(self, p.name, p.default)
        super().__init__(attrs)


def _check_spatial(op, ndim):
    if ndim not in (2, 3):
        raise MXNetError('%s: kernel must be 2-D or 3-D (4-D or 5-D data), found %d-D'
                         % (op, ndim))


@register
class Convolution_v1(_LegacyParams, Convolution):  # pylint: disable=invalid-name
    """Legacy convolution (2-D and 3-D): the same computation as :class:`Convolution`."""
    name = 'Convolution_v1'
    aliases = ()
    current = Convolution

    def check_params(self):
        _check_spatial(self.name, len(self.kernel or ()))
        super().check_params()


@register
class Pooling_v1(_LegacyParams, Pooling):  # pylint: disable=invalid-name
    """Legacy max / average / sum pooling over 2-D or 3-D windows, without a workspace
    output."""
    name = 'Pooling_v1'
    aliases = ()
    current = Pooling
    params = (Param('kernel', parse_tuple, (), 'Pooling window: (y, x) or (d, y, x).'),
              Param('pool_type', choice('max', 'avg', 'sum'), 'max', 'Pooling type.'),
              Param('global_pool', parse_bool, False, 'Pool the whole spatial extent.'),
              Param('pooling_convention', choice('valid', 'full'), 'valid',
                    'Output size rounding: valid (floor) or full (ceil).'),
              Param('stride', parse_tuple, (), 'Stride; 1 per dimension by default.'),
              Param('pad', parse_tuple, (), 'Padding; 0 per dimension by default.'))

    def check_params(self):
        if self.kernel:
            _check_spatial(self.name, len(self.kernel))
        super().check_params()
        # no workspace output: max pooling rescans its input in backward
        self.workspace = False
        self.backward_uses_inputs = self.pool_type == 'max'
        self.backward_uses_outputs = False

    def _divisors(self, shape, out_shape, kernel, stride, pad, dtype):
        # average pooling always divides by the whole window, even where a 'full'
        # window runs past the padded input
        return np.full(out_shape[1:], np.prod(kernel), dtype=dtype)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if data is not None and len(data) not in (4, 5):
            raise ShapeError('Pooling_v1: data must be 4-D or 5-D, found shape %s'
                             % (tuple(data),))
        return super().infer_shape(in_shapes, out_shapes, aux_shapes)


@register
class BatchNorm_v1(_LegacyParams, BatchNorm):  # pylint: disable=invalid-name
    """Legacy batch normalization over axis 1; its ``var`` output is the batch variance."""
    name = 'BatchNorm_v1'
    aliases = ()
    current = BatchNorm
    params = tuple(p for p in BatchNorm.params
                   if p.name in ('eps', 'momentum', 'fix_gamma', 'use_global_stats',
                                 'output_mean_var'))

    def forward(self, is_train, req, in_data, out_data, aux):
        super().forward(is_train, req, in_data, out_data, aux)
        invstd = out_data[2]
        np.copyto(invstd, 1.0 / np.square(invstd.astype(np.float64)) - self.eps,
                  casting='unsafe')

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        variance = out_data[2]
        invstd = (1.0 / np.sqrt(variance.astype(np.float64) + self.eps)).astype(variance.dtype)
        super().backward(req, out_grad, in_data, [out_data[0], out_data[1], invstd], in_grad,
                         aux)
