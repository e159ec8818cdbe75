"""Pooling on channel-first data (NCW, NCHW, NCDHW), as MXNet 1.9.1's CPU kernels do it.

numba kernels (:mod:`.pooling_kernels`) follow MXNet's loops: every window is clipped to the input, so
max pooling never looks at padding (and returns the dtype's lowest finite value for
a window holding no input, as MXNet does); the average divides by the window size
clipped to the *padded* input (``count_include_pad``, the default) or to the input
itself; the max gradient goes to the first maximum of each window in row-major
order. Data are viewed as planes ``(N * C, D, H, W)``; 1-D and 2-D pooling add unit
leading spatial dims.

Like MXNet's (MKL-DNN) CPU build, max pooling with a kernel has a hidden second output,
``workspace`` (int32, the output's shape), which here holds the position of each
window's maximum so that the backward pass is a plain scatter; global max pooling,
which has no workspace, finds the positions again in its backward pass.
"""
import math

import numpy as np

from ..base import MXNetError, parse_bool, parse_int, parse_optional, parse_tuple
from .common import choice, expect_shape, scratch, store_from
from .channel_last import CHANNEL_LAST_LAYOUTS, ChannelLast
from .conv import _check_layout, _spatial_params
from .pooling_kernels import max_pool, scatter_max, sum_pool, sum_unpool
from .registry import Operator, Param, ShapeError, register, unify

__all__ = ['pool_output_size']


def _divisors(spatial, out, kernel, stride, pad, include_pad, dtype):
    """MXNet's average-pool divisor of every output position (3 spatial dims)."""
    sizes = []
    for size, o, k, st, p in zip(spatial, out, kernel, stride, pad):
        start = np.arange(o) * st - p
        end = np.minimum(start + k, size + p)
        if not include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, size)
        sizes.append(end - start)
    return (sizes[0][:, None, None] * sizes[1][None, :, None]
            * sizes[2][None, None, :]).astype(dtype)


def pool_output_size(size, kernel, stride, pad, convention):
    """Output length of pooling along one axis under MXNet's conventions."""
    if convention == 'valid':
        return 1 + (size + 2 * pad - kernel) // stride
    if convention == 'full':
        return 1 + int(math.ceil((size + 2 * pad - kernel) / stride))
    return int(math.ceil((size + 2 * pad) / stride))


class _Pooling(Operator):
    """Max, average, sum or Lp pooling over the spatial axes of NCW/NCHW/NCDHW data.

    Output size per axis: ``valid`` convention ``1 + (in + 2 * pad - kernel) // stride``,
    ``full`` ``1 + ceil((in + 2 * pad - kernel) / stride)`` (``same``, for 1-D max
    pooling, ``ceil(in / stride)``); ``global_pool`` pools the whole spatial extent.
    Average pooling counts the covered padding in its divisor unless
    ``count_include_pad=False``; ``lp`` pooling computes ``(sum x^p)^(1/p)``.

    Examples
    --------
    >>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> mx.nd.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type='max').asnumpy()
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    """
    name = 'Pooling'
    aliases = ('_npx_pooling',)
    params = (Param('kernel', parse_tuple, (), 'Pooling window: (x,), (y, x) or (d, y, x).'),
              Param('pool_type', choice('max', 'avg', 'sum', 'lp'), 'max', 'Pooling type.'),
              Param('global_pool', parse_bool, False, 'Pool the whole spatial extent.'),
              Param('cudnn_off', parse_bool, False, 'Ignored.'),
              Param('pooling_convention', choice('full', 'valid', 'same'), 'valid',
                    'Output size convention.'),
              Param('stride', parse_tuple, (), 'Stride; 1 per dimension by default.'),
              Param('pad', parse_tuple, (), 'Padding; 0 per dimension by default.'),
              Param('p_value', parse_optional(parse_int), None, 'p of Lp pooling (1, 2, 3).'),
              Param('count_include_pad', parse_optional(parse_bool), None,
                    'Average pooling: count padding in the divisor (default True).'),
              Param('layout', parse_optional(choice('NCW', 'NCHW', 'NCDHW', 'NWC', 'NHWC',
                                                    'NDHWC')),
                    None, 'Data layout (channel-last ones run through channel-first copies).'))

    def check_params(self):
        self.kernel = tuple(self.kernel or ())
        if not self.kernel and not self.global_pool:
            raise MXNetError('Pooling: kernel must be given (1, 2 or 3 dims) unless '
                             'global_pool=True')
        # MXNet reads the first len(kernel) values of a longer stride/pad (pad=(0, 0, 0)
        # with a 1-D kernel is accepted)
        nd = len(self.kernel)
        stride, pad = (tuple(v or ())[:nd] if nd and len(v or ()) > nd else v
                       for v in (self.stride, self.pad))
        self.strides, self.pads = _spatial_params(
            self.name, self.kernel, (('stride', stride, 1), ('pad', pad, 0)),
            allow_empty_kernel=True)
        if self.kernel:
            self.channel_last = _check_layout(self.name, self.layout, len(self.kernel),
                                              channel_last=True)
        else:
            self.channel_last = self.layout in CHANNEL_LAST_LAYOUTS
        if self.pool_type == 'lp' and self.p_value not in (1, 2, 3):
            raise MXNetError('Pooling: lp pooling needs p_value 1, 2 or 3, found %s'
                             % self.p_value)
        if self.pooling_convention == 'same' and (len(self.kernel) != 1
                                                  or any(tuple(self.pad or ()))):
            raise MXNetError("Pooling: pooling_convention='same' supports 1-D pooling "
                             "without pad only, found kernel %s and pad %s"
                             % (self.kernel, self.pads))
        self.power = self.p_value if self.pool_type == 'lp' else 1
        # MXNet's CPU build gives kernel-sized max pooling a hidden workspace output
        self.workspace = self.pool_type == 'max' and bool(self.kernel)
        rescans = self.pool_type == 'max' and not self.workspace
        self.backward_uses_inputs = self.pool_type == 'lp' or rescans
        self.backward_uses_outputs = self.pool_type == 'lp' or self.workspace

    def list_outputs(self):
        return ['output', 'workspace'] if self.workspace else ['output']

    def num_visible_outputs(self):
        return 1

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        outs = [dtype] + [np.dtype(np.int32)] * (len(out_types) - 1)
        return [dtype], outs, list(aux_types)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if data is None:
            return [None], list(out_shapes), list(aux_shapes)
        if not 3 <= len(data) <= 5:
            raise ShapeError('Pooling: data should be 3D (batch, channel, x), 4D (batch, '
                             'channel, y, x) or 5D (batch, channel, d, y, x), found shape %s'
                             % (tuple(data),))
        if self.global_pool:
            out = tuple(data[:2]) + (1,) * (len(data) - 2)
        else:
            if len(self.kernel) + 2 != len(data):
                raise ShapeError('Pooling: a %dD kernel %s needs %dD data, found shape %s'
                                 % (len(self.kernel), self.kernel, len(self.kernel) + 2,
                                    tuple(data)))
            spatial = []
            for size, k, st, p in zip(data[2:], self.kernel, self.strides, self.pads):
                if size and k > size + 2 * p:
                    raise ShapeError('Pooling: kernel size (%d) exceeds input (%d padded to '
                                     '%d), data shape %s' % (k, size, size + 2 * p,
                                                             tuple(data)))
                spatial.append(pool_output_size(size, k, st, p, self.pooling_convention)
                               if size else 0)
            out = tuple(data[:2]) + tuple(spatial)
        out = expect_shape(out_shapes[0], out, self.name, 'output', 'data %s' % (tuple(data),))
        data = unify(data, tuple(out[:2]) + (0,) * (len(data) - 2))
        return [data], [out] * len(out_shapes), list(aux_shapes)

    # ---- compute ------------------------------------------------------------------------
    def _geometry(self, shape):
        """Kernel, stride and pad over 3 spatial dims for data of ``shape``."""
        lead = 5 - len(shape)
        if self.global_pool:
            n = len(shape) - 2
            kernel, stride, pad = tuple(shape[2:]), (1,) * n, (0,) * n
        else:
            kernel, stride, pad = self.kernel, self.strides, self.pads
        return (1,) * lead + kernel, (1,) * lead + stride, (0,) * lead + pad

    @staticmethod
    def _planes(a):
        """``a`` as (N * C, D, H, W)."""
        spatial = a.shape[2:]
        return a.reshape((a.shape[0] * a.shape[1],) + (1,) * (3 - len(spatial)) + spatial)

    def _divisors(self, shape, out_shape, kernel, stride, pad, dtype):
        cache = self.__dict__.setdefault('_divisor_cache', {})
        key = (shape, out_shape, kernel, dtype)
        div = cache.get(key)
        if div is None:
            if len(cache) > 16:
                cache.clear()
            include_pad = self.count_include_pad is None or self.count_include_pad
            div = cache[key] = _divisors(shape[1:], out_shape[1:], kernel, stride, pad,
                                         include_pad, dtype)
        return div

    def _work(self, key, a):
        """The array a kernel can take: float16 goes through float32 (numba has no half)."""
        if a.dtype in (np.float32, np.float64):
            return a
        if a.dtype != np.float16:
            raise MXNetError('Pooling supports float16, float32 and float64 data, found %s'
                             % a.dtype)
        buf = scratch(key, a.shape, np.dtype(np.float32))
        np.copyto(buf, a)
        return buf

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        out = out_data[0]
        x = self._work('x32', in_data[0])
        kernel, stride, pad = self._geometry(x.shape)
        direct = req[0] == 'write' and out.dtype == x.dtype
        dst = out if direct else scratch('fwd', out.shape, x.dtype)
        xp, dp = self._planes(x), self._planes(dst)
        if self.pool_type == 'max':
            # global max pooling has no workspace output: the positions go to scratch
            where = out_data[1] if self.workspace else \
                scratch('argmax', out.shape, np.dtype(np.int32))
            max_pool(xp, dp, self._planes(where), kernel, stride, pad, np.finfo(x.dtype).min)
        else:
            div = self._divisors(xp.shape, dp.shape, kernel, stride, pad, x.dtype)
            sum_pool(xp, dp, kernel, stride, pad, div, self.pool_type == 'avg', self.power,
                      x.dtype.type(0))
        if not direct:
            with np.errstate(over='ignore'):
                store_from(out, req[0], dst.astype(out.dtype, copy=False))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        dx = in_grad[0]
        dy = self._work('dy32', out_grad[0])
        kernel, stride, pad = self._geometry(dx.shape)
        direct = dx.dtype == dy.dtype
        target = dx if direct else scratch('dx32', dx.shape, dy.dtype)
        overwrite = req[0] == 'write' or not direct
        gp, tp = self._planes(dy), self._planes(target)
        if self.pool_type == 'max':
            if self.workspace:
                where = out_data[1]
            else:       # find the maxima again
                x = self._work('x32', in_data[0])
                where = scratch('argmax', dy.shape, np.dtype(np.int32))
                peak = scratch('peak', dy.shape, x.dtype)
                max_pool(self._planes(x), self._planes(peak), self._planes(where), kernel,
                         stride, pad, np.finfo(x.dtype).min)
            scatter_max(self._planes(where), gp, tp, overwrite)
        else:
            if overwrite:
                target.fill(0)
            div = self._divisors(tp.shape, gp.shape, kernel, stride, pad, dy.dtype)
            if self.power > 1:
                xp = self._planes(self._work('x32', in_data[0]))
                yp = self._planes(self._work('y32', out_data[0]))
            else:
                xp = yp = gp      # not read by sum and avg
            sum_unpool(xp, yp, gp, tp, kernel, stride, pad, div, self.pool_type == 'avg',
                       self.power, dy.dtype.type(0))
        if not direct:
            store_from(dx, req[0], target.astype(dx.dtype))


@register
class Pooling(ChannelLast, _Pooling):
    __doc__ = _Pooling.__doc__
