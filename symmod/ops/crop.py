"""Crop: cut a window out of NCHW feature maps (MXNet's legacy ``Crop`` layer).

The window's size is ``h_w`` (one input) or the height and width of the second input
(``crop_like``); it sits at ``offset`` (y, x) or, with ``center_crop``, in the middle.
The gradient is the output gradient placed back in the window, zeros around it; the
``crop_like`` input only lends its shape and gets a zero gradient.
"""
from ..base import MXNetError, parse_bool, parse_int, parse_tuple
from .common import int_shape, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = []


def _pair(value):
    pair = parse_tuple(value)
    if len(pair) != 2:
        raise ValueError('expected two values (y, x), found %r' % (value,))
    return pair


@register
class Crop(Operator):
    """Crops ``data`` (N, C, H, W) to ``h_w`` or to the spatial size of ``crop_like``."""
    name = 'Crop'
    key_var_num_args = 'num_args'
    params = (Param('num_args', parse_int, doc='1 (crop to h_w) or 2 (crop like arg1).'),
              Param('offset', _pair, (0, 0), 'Crop offset (y, x).'),
              Param('h_w', _pair, (0, 0), 'Crop height and width, with num_args=1.'),
              Param('center_crop', parse_bool, False, 'Crop the centre, ignoring offset.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.num_args not in (1, 2):
            raise MXNetError('Crop: num_args must be 1 or 2, found %d' % self.num_args)

    def list_arguments(self):
        return ['arg%d' % i for i in range(self.num_args)]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        in_shapes = [int_shape(s) for s in in_shapes]
        dshape = in_shapes[0]
        if dshape is None:
            return in_shapes, list(out_shapes), []
        if len(dshape) != 4:
            raise ShapeError('Crop: data must be 4D (batch, channel, y, x), found %s'
                             % (dshape,))
        if self.num_args == 1:
            height, width = self.h_w
            if not (1 <= height <= dshape[2] and 1 <= width <= dshape[3]):
                raise ShapeError('Crop: h_w %s must be at least 1 and fit in the input %s'
                                 % (self.h_w, dshape[2:]))
        else:
            like = in_shapes[1]
            if like is None:
                return in_shapes, list(out_shapes), []
            if len(like) != 4:
                raise ShapeError('Crop: crop_like must be 4D, found %s' % (like,))
            height, width = like[2], like[3]
        return in_shapes, [(dshape[0], dshape[1], height, width)], []

    def _offset(self, dshape, oshape):
        room_y, room_x = dshape[2] - oshape[2], dshape[3] - oshape[3]
        if room_y < 0 or room_x < 0:
            raise MXNetError('Crop: the crop %s is larger than the input %s'
                             % (oshape[2:], dshape[2:]))
        if self.center_crop:
            return room_y // 2, room_x // 2
        y, x = self.offset
        if not (0 <= y <= room_y and 0 <= x <= room_x):
            raise MXNetError('Crop: offset %s must be non-negative and leave the crop %s '
                             'inside the input %s' % (self.offset, oshape[2:], dshape[2:]))
        return y, x

    def _window(self, dshape, oshape):
        y, x = self._offset(dshape, oshape)
        return (slice(None), slice(None), slice(y, y + oshape[2]), slice(x, x + oshape[3]))

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        window = in_data[0][self._window(in_data[0].shape, out.shape)]
        if req[0] == 'write':
            out[...] = window
        elif req[0] == 'add':
            out += window

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if self.num_args > 1:
            zero_grad(in_grad[1], req[1])
        if req[0] == 'null':
            return
        gdata, dy = in_grad[0], out_grad[0]
        window = self._window(gdata.shape, dy.shape)
        if req[0] == 'write':
            gdata.fill(0)
            gdata[window] = dy
        else:
            gdata[window] += dy
