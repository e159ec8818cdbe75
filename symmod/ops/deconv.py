"""Deconvolution (transposed convolution) on channel-first data (NCW, NCHW, NCDHW).

A deconvolution is the data gradient of a convolution run backwards: a convolution
whose input is the deconvolution's output (padded by ``pad``) produces an output of
the deconvolution's input size. So the forward pass multiplies the input by the
weight into a column matrix and scatters the columns onto the output (col2im), and
the backward pass gathers the output gradient into columns (im2col) and multiplies
them with the weight (data gradient) and with the input (weight gradient). The
column helpers are Convolution's (:mod:`symmod.ops.conv`).
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_int, parse_tuple
from .common import expect_shape, scratch
from .conv import (_CUDNN_OFF, _CUDNN_TUNE, _DILATE, _KERNEL, _LAYOUT, _NUM_FILTER, _NUM_GROUP,
                   _ConvGeometry, _FilterOperator, _check_layout, _spatial_params,
                   channel_rows, columns, scatter_columns, store_channel_rows)
from .registry import Param, ShapeError, register

__all__ = ['deconv_padding']


def deconv_padding(size, kernel, stride, dilate, pad, adj, target):
    """The (pad, adj) MXNet uses along one axis of input length ``size``.

    Without a target length (``target`` 0) they are the given ``pad`` and ``adj``.
    With one, the full transposed-convolution length ``stride * (size - 1) +
    dilated kernel`` is trimmed to ``target``: half of the excess from each side,
    rounded up, and ``adj`` adds back the odd element at the end.
    """
    if not target:
        return pad, adj
    full = stride * (size - 1) + 1 + (kernel - 1) * dilate
    if full < target:
        raise ShapeError('Deconvolution: too big target shape: target %d exceeds the largest '
                         'output %d of an input of length %d' % (target, full, size))
    excess = full - target
    return (excess + 1) // 2, excess % 2


@register
class Deconvolution(_FilterOperator):
    """Transposed convolution: the gradient of Convolution with respect to its data.

    For 2-D: data ``(batch, in_channels, height, width)``, weight
    ``(in_channels, num_filter / num_group, kernel[0], kernel[1])``, bias
    ``(num_filter,)`` (only with ``no_bias=False``; MXNet's default is no bias),
    output ``(batch, num_filter, out_height, out_width)`` with
    ``out = stride * (in - 1) + dilate * (kernel - 1) + 1 - 2 * pad + adj``. When
    ``target_shape`` is given, ``pad`` and ``adj`` are ignored and chosen so that the
    output has that spatial shape. 1-D (NCW) and 3-D (NCDHW, no dilation) work the
    same way. ``workspace`` and the cuDNN options are accepted and ignored.

    Examples
    --------
    >>> up = mx.sym.Deconvolution(mx.sym.Variable('data'), kernel=(4, 4), stride=(2, 2),
    ...                           pad=(1, 1), num_filter=8, name='up')
    >>> up.infer_shape(data=(1, 16, 7, 7))[1]
    [(1, 8, 14, 14)]
    """
    name = 'Deconvolution'
    aliases = ('_npx_deconvolution',)
    params = (_KERNEL,
              Param('stride', parse_tuple, (), 'Stride of the matching convolution.'),
              _DILATE,
              Param('pad', parse_tuple, (), 'Padding of the matching convolution.'),
              Param('adj', parse_tuple, (), 'Extra output length at the end of each axis.'),
              Param('target_shape', parse_tuple, (), 'Spatial output shape (sets pad, adj).'),
              _NUM_FILTER, _NUM_GROUP,
              Param('workspace', parse_int, 512, 'Ignored (workspace limit in MB).'),
              Param('no_bias', parse_bool, True, 'Whether to disable the bias.'),
              _CUDNN_TUNE, _CUDNN_OFF, _LAYOUT)

    def check_params(self):
        self.kernel = tuple(self.kernel or ())
        if len(self.kernel) > 3:
            raise MXNetError('Deconvolution: %dD deconvolution is not supported; use a kernel '
                             'of 1, 2 or 3 dims, found %s' % (len(self.kernel), self.kernel))
        self.strides, self.dilates, self.pads, self.adjs = _spatial_params(
            self.name, self.kernel, (('stride', self.stride, 1), ('dilate', self.dilate, 1),
                                     ('pad', self.pad, 0), ('adj', self.adj, 0)))
        self.target = tuple(self.target_shape or ())
        if self.target and len(self.target) != len(self.kernel):
            raise MXNetError('Deconvolution: target_shape must have the same number of '
                             'dimensions as kernel, but kernel is set to %s while target_shape '
                             'is %s' % (self.kernel, self.target))
        if len(self.kernel) == 3 and any(d != 1 for d in self.dilates):
            raise MXNetError('Deconvolution: dilate is not supported in 3D deconvolution, '
                             'found dilate=%s' % (self.dilates,))
        _check_layout(self.name, self.layout, len(self.kernel))
        self._setup_filters('Deconvolution', 'output num_filter')

    def padding(self, spatial):
        """Per-axis (pads, adjs) for input spatial sizes ``spatial`` (0: unknown)."""
        target = self.target if any(self.target) else (0,) * len(self.kernel)
        pads, adjs = [], []
        for size, k, st, d, p, a, t in zip(spatial, self.kernel, self.strides, self.dilates,
                                           self.pads, self.adjs, target):
            p, a = deconv_padding(size, k, st, d, p, a, t) if size else (p, a)
            if a > st - 1:
                raise ShapeError('Deconvolution: adj %d must be smaller than stride %d'
                                 % (a, st))
            pads.append(p)
            adjs.append(a)
        return tuple(pads), tuple(adjs)

    # ---- shapes -----------------------------------------------------------------------
    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ins, outs = list(in_shapes), list(out_shapes)
        data = ins[0]
        if data is None:
            return ins, outs, list(aux_shapes)
        filters, group = self.num_filter, self.num_group
        reason = self._infer_weight_bias(
            'Deconvolution', ins, lambda channels: (channels, filters // group) + self.kernel)
        batch, spatial = data[0], data[2:]
        pads, adjs = self.padding(spatial)
        out_spatial = []
        for i, size in enumerate(spatial):
            dilated = 1 + (self.kernel[i] - 1) * self.dilates[i]
            length = self.strides[i] * (size - 1) + dilated - 2 * pads[i] + adjs[i]
            if size and length < 1:
                raise ShapeError('Deconvolution: pad %s is too large for data %s: output '
                                 'length %d' % (self.pads, tuple(data), length))
            out_spatial.append(length if size else 0)
        outs[0] = expect_shape(outs[0], (batch, filters) + tuple(out_spatial), self.name,
                               'output', reason)
        return ins, outs, list(aux_shapes)

    # ---- compute ------------------------------------------------------------------------
    def _geometry(self, xshape, yshape):
        """The geometry of the matching convolution, whose input is our output."""
        return self._cached_geometry((xshape, yshape), self._new_geometry, xshape, yshape)

    def _new_geometry(self, xshape, yshape):
        pads, _ = self.padding(xshape[2:])
        geo = _ConvGeometry(yshape, self.kernel, self.strides, self.dilates, pads)
        if geo.out != tuple(xshape[2:]):
            raise ShapeError('Deconvolution: output shape %s does not match data %s'
                             % (yshape, xshape))
        return geo

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        x, w, out = in_data[0], in_data[1], out_data[0]
        geo = self._geometry(x.shape, out.shape)
        rows = channel_rows(x, geo.n_out, 'deconv_rows')
        dcol = scratch('deconv_col', geo.col_shape, x.dtype)
        self._matmul(dcol, w, rows, trans_a=True)
        scatter_columns(dcol, geo, out, req[0])
        if not self.no_bias:
            out += in_data[2].reshape((1, -1) + (1,) * geo.nd)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x, w, dy = in_data[0], in_data[1], out_grad[0]
        geo = self._geometry(x.shape, dy.shape)
        if req[0] != 'null' or req[1] != 'null':
            col = columns(dy, geo, self._columns)
        if req[1] != 'null':
            rows = channel_rows(x, geo.n_out, 'deconv_rows')
            self._matmul(in_grad[1], rows, col, req[1], trans_b=True)
        if not self.no_bias and req[2] != 'null':
            axes = (0,) + tuple(range(2, dy.ndim))
            if req[2] == 'write':
                np.sum(dy, axis=axes, out=in_grad[2])
            else:
                in_grad[2] += np.sum(dy, axis=axes)
        if req[0] != 'null':
            n, channels = x.shape[0], x.shape[1]
            direct = n == 1 and req[0] == 'write'
            dx = in_grad[0].reshape(channels, geo.n_out) if direct else \
                scratch('deconv_dx', (channels, n * geo.n_out), x.dtype)
            self._matmul(dx, w, col)
            if not direct:
                store_channel_rows(in_grad[0], req[0], dx, geo.n_out)
