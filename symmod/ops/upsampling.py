"""UpSampling of NCHW images: nearest-neighbour (one or several inputs) or bilinear.

Nearest upsampling repeats every pixel ``scale x scale`` times, written as one
broadcast copy into a ``(N, C, H, scale, W, scale)`` view of the output; its
gradient sums those blocks back. Several inputs are each upsampled to the first
input's size times ``scale`` and then concatenated along channels or summed.
Bilinear upsampling is, as in MXNet, a per-channel (grouped) Deconvolution with a
learnt ``(C, 1, k, k)`` weight, ``k = 2 * scale - scale % 2``, which the ``bilinear``
initializer sets to the bilinear interpolation kernel.
"""
import numba
import numpy as np

from ..base import MXNetError, parse_int
from .common import choice, expect_shape, store_from
from .deconv import Deconvolution
from .registry import Operator, Param, ShapeError, register

__all__ = ['bilinear_kernel_size']


def bilinear_kernel_size(scale):
    """Side of the square deconvolution kernel bilinear upsampling by ``scale`` uses."""
    return 2 * scale - scale % 2


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _repeat_kernel(x, scale, out, accumulate):
    """out[n, c, i * s + a, j * s + b] (+)= x[n, c, i, j] for a, b < s."""
    batch, channels, height, width = x.shape
    for n in range(batch):
        for c in range(channels):
            for i in range(height):
                src = x[n, c, i]
                for a in range(scale):
                    dst = out[n, c, i * scale + a]
                    for j in range(width):
                        value = src[j]
                        for b in range(scale):
                            if accumulate:
                                dst[j * scale + b] += value
                            else:
                                dst[j * scale + b] = value


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _block_sum_kernel(dy, scale, gx, accumulate):
    """gx[n, c, i, j] (+)= the sum of dy's s x s block at (i * s, j * s)."""
    batch, channels, height, width = gx.shape
    for n in range(batch):
        for c in range(channels):
            for i in range(height):
                dst = gx[n, c, i]
                for a in range(scale):
                    src = dy[n, c, i * scale + a]
                    for j in range(width):
                        base = j * scale
                        if a == 0 and not accumulate:
                            total = src[base]
                            for b in range(1, scale):
                                total += src[base + b]
                        else:
                            total = dst[j]
                            for b in range(scale):
                                total += src[base + b]
                        dst[j] = total


def _blocks(a, scale):
    """View (N, C, H * s, W * s) as (N, C, H, s, W, s)."""
    n, c, h, w = a.shape
    return a.reshape(n, c, h // scale, scale, w // scale, scale)


def _repeat_into(out, x, scale, req):
    """``out (req)= x`` repeated ``scale`` times along height and width."""
    if req == 'null':
        return
    if x.dtype in (np.float32, np.float64):
        _repeat_kernel(x, scale, out, req == 'add')
    else:
        store_from(_blocks(out, scale), req, x[:, :, :, None, :, None])


def _block_sum_into(gx, dy, scale, req):
    """``gx (req)=`` the sums of ``dy``'s ``scale x scale`` blocks."""
    if req == 'null':
        return
    if dy.dtype in (np.float32, np.float64):
        _block_sum_kernel(dy, scale, gx, req == 'add')
    else:
        store_from(gx, req, _blocks(dy, scale).sum(axis=(3, 5)))


@register
class UpSampling(Operator):
    """Upsamples NCHW data by an integer ``scale``.

    ``sample_type='nearest'`` takes ``num_args`` inputs; the output has the first
    input's height and width times ``scale``, every input is repeated up to that size,
    and the results are concatenated along channels (``multi_input_mode='concat'``) or
    added (``'sum'``, all inputs need the same channels). ``sample_type='bilinear'``
    takes ``data`` and ``weight`` ``(C, 1, k, k)`` with ``k = 2 * scale - scale % 2``
    and needs ``num_filter`` equal to the channels ``C``; it runs a grouped
    Deconvolution with stride ``scale`` and pad ``ceil((scale - 1) / 2)``. Its weight
    variable is created with the ``bilinear`` initializer.

    Examples
    --------
    >>> x = mx.nd.array([[[[1, 2], [3, 4]]]])
    >>> mx.nd.UpSampling(x, scale=2, sample_type='nearest').asnumpy()[0, 0]
    array([[1., 1., 2., 2.],
           [1., 1., 2., 2.],
           [3., 3., 4., 4.],
           [3., 3., 4., 4.]], dtype=float32)
    """
    name = 'UpSampling'
    params = (Param('scale', parse_int, doc='Upsampling factor.'),
              Param('num_filter', parse_int, 0, 'Channels (bilinear only).'),
              Param('sample_type', choice('nearest', 'bilinear'), doc='Upsampling method.'),
              Param('multi_input_mode', choice('concat', 'sum'), 'concat',
                    'How several inputs are combined (nearest only).'),
              Param('num_args', parse_int, doc='Number of inputs (bilinear: data and weight).'),
              Param('workspace', parse_int, 512, 'Ignored (workspace limit in MB).'))
    key_var_num_args = 'num_args'
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.scale < 1:
            raise MXNetError('UpSampling: scale must be at least 1, found %d' % self.scale)
        if self.num_args < 1:
            raise MXNetError('UpSampling: num_args must be at least 1, found %d'
                             % self.num_args)
        self._deconv = None
        if self.sample_type == 'bilinear':
            # backward of the deconvolution reads data and weight
            self.backward_uses_inputs = True
            if self.num_filter >= 1:
                # pad = ceil((scale - 1) / 2) brings the output to exactly scale * input
                k, pad = bilinear_kernel_size(self.scale), self.scale // 2
                self._deconv = Deconvolution({
                    'kernel': (k, k), 'stride': (self.scale,) * 2, 'pad': (pad, pad),
                    'num_filter': self.num_filter, 'num_group': self.num_filter,
                    'no_bias': True, 'workspace': self.workspace})

    def list_arguments(self):
        if self.sample_type == 'bilinear':
            return ['data', 'weight']
        return ['arg%d' % i for i in range(self.num_args)]

    def input_var_attrs(self, index):
        # MXNet gives the second input variable the bilinear initializer, whatever the mode
        return {'__init__': '["bilinear", {}]'} if index == 1 else None

    # ---- shapes and types ----------------------------------------------------------------
    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ins, outs = list(in_shapes), list(out_shapes)
        if self.sample_type == 'bilinear':
            return self._bilinear_shape(ins, outs, aux_shapes)
        if any(s is None for s in ins):
            return ins, outs, list(aux_shapes)
        first, s = ins[0], self.scale
        for shape in ins:
            if len(shape) != 4:
                raise ShapeError('UpSampling: input data should be 4D in (batch, channel, y, '
                                 'x), found shape %s' % (tuple(shape),))
        height, width = first[2] * s, first[3] * s
        channels = 0
        for shape in ins:
            if (shape[2] and height % shape[2]) or (shape[3] and width % shape[3]) or \
                    (shape[2] and shape[3] and height // shape[2] != width // shape[3]):
                raise ShapeError('UpSampling: input of shape %s cannot be upsampled by one '
                                 'integer factor to the output size (%d, %d)'
                                 % (tuple(shape), height, width))
            if self.multi_input_mode == 'sum':
                if channels and shape[1] != channels:
                    raise ShapeError('UpSampling: number of channels must be the same when '
                                     'multi_input_mode=sum, found shapes %s'
                                     % ', '.join(str(tuple(x)) for x in ins))
                channels = shape[1]
            else:
                channels += shape[1]
        outs[0] = expect_shape(outs[0], (first[0], channels, height, width), self.name,
                               'output', 'the inputs %s and scale=%d'
                               % (', '.join(str(tuple(x)) for x in ins), s))
        return ins, outs, list(aux_shapes)

    def _bilinear_shape(self, ins, outs, aux_shapes):
        data = ins[0]
        if data is None:
            return ins, outs, list(aux_shapes)
        if len(data) != 4:
            raise ShapeError('UpSampling: bilinear input data should be 4D in (batch, '
                             'channel, y, x), found shape %s' % (tuple(data),))
        if data[1] and data[1] != self.num_filter:
            raise ShapeError('UpSampling: bilinear upsampling needs num_filter equal to the '
                             'channels of data %s, found num_filter=%d'
                             % (tuple(data), self.num_filter))
        k = bilinear_kernel_size(self.scale)
        ins[1] = expect_shape(ins[1], (data[1], 1, k, k), self.name, 'weight',
                              'data %s and scale=%d' % (tuple(data), self.scale))
        outs[0] = expect_shape(outs[0], (data[0], data[1], data[2] * self.scale,
                                         data[3] * self.scale), self.name, 'output',
                               'data %s and scale=%d' % (tuple(data), self.scale))
        return ins, outs, list(aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0]
        if dtype is None:
            return list(in_types), list(out_types), list(aux_types)
        names = self.list_arguments()
        for name, t in zip(names, in_types):
            if t is not None and t != dtype:
                raise MXNetError('UpSampling: input %s has dtype %s, expected %s like %s'
                                 % (name, np.dtype(t).name, np.dtype(dtype).name, names[0]))
        return [dtype] * len(in_types), [dtype], list(aux_types)

    # ---- compute ------------------------------------------------------------------------
    def _parts(self, inputs, full):
        """``(input, the part of full it maps to, its scale)`` for each input: all of
        ``full`` when the inputs are summed, the input's channels when concatenated."""
        begin = 0
        for x in inputs:
            end = begin + x.shape[1]
            part = full if self.multi_input_mode == 'sum' else full[:, begin:end]
            yield x, part, full.shape[2] // x.shape[2]
            begin = end

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        if self.sample_type == 'bilinear':
            self._deconv.forward(is_train, req, in_data, out_data, aux)
            return
        summed = self.multi_input_mode == 'sum'
        for i, (x, part, s) in enumerate(self._parts(in_data, out_data[0])):
            # summed inputs: the first stores, the others add to it
            _repeat_into(part, x, s, 'add' if summed and i else req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if self.sample_type == 'bilinear':
            self._deconv.backward(req, out_grad, in_data, out_data, in_grad, aux)
            return
        for i, (gx, part, s) in enumerate(self._parts(in_grad, out_grad[0])):
            _block_sum_into(gx, part, s, req[i])
