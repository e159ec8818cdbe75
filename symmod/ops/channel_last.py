"""Channel-last layouts (NWC, NHWC, NDHWC) for operators written for channel-first data.

An operator class that mixes in :class:`ChannelLast` and sets ``self.channel_last`` in
``check_params`` sees channel-first arrays only: shapes are moved to channel-first
before its ``infer_shape`` and back after; in ``forward`` / ``backward`` the arrays
listed in ``channel_last_inputs`` (data, and for a convolution its weight, laid out
``(num_filter, *kernel, channels)``) and every output are moved into contiguous
channel-first copies, the operator runs, and its results are moved back. The extra
copies cost a pass over memory each.
"""
import numpy as np

from .common import store_from

__all__ = ['ChannelLast', 'CHANNEL_LAST_LAYOUTS']

CHANNEL_LAST_LAYOUTS = ('NWC', 'NHWC', 'NDHWC')


def _first(shape):
    """A channel-last shape moved to channel-first (None and unknown shapes pass)."""
    if shape is None or len(shape) < 3:
        return shape
    shape = tuple(shape)
    return (shape[0], shape[-1]) + shape[1:-1]


def _last(shape):
    if shape is None or len(shape) < 3:
        return shape
    shape = tuple(shape)
    return (shape[0],) + shape[2:] + (shape[1],)


def _to_first(a):
    return np.ascontiguousarray(np.moveaxis(a, -1, 1))


class ChannelLast:
    """Mixin: run a channel-first operator on channel-last arrays (see the module)."""
    channel_last = False
    channel_last_inputs = (0,)       # inputs laid out channel-last, besides the outputs

    def _moved(self, index):
        return self.channel_last and index in self.channel_last_inputs

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        if not self.channel_last:
            return super().infer_shape(in_shapes, out_shapes, aux_shapes)
        ins = [_first(s) if self._moved(i) else s for i, s in enumerate(in_shapes)]
        ins, outs, aux = super().infer_shape(ins, [_first(s) for s in out_shapes], aux_shapes)
        return ([_last(s) if self._moved(i) else s for i, s in enumerate(ins)],
                [_last(s) for s in outs], aux)

    def forward(self, is_train, req, in_data, out_data, aux):
        if not self.channel_last:
            return super().forward(is_train, req, in_data, out_data, aux)
        ins = [_to_first(a) if self._moved(i) else a for i, a in enumerate(in_data)]
        outs = [np.empty(_first(o.shape), o.dtype) for o in out_data]
        super().forward(is_train, ['write' if r != 'null' else r for r in req], ins, outs, aux)
        for dst, src, r in zip(out_data, outs, req):
            if r != 'null':
                store_from(dst, r, np.moveaxis(src, 1, -1))
        return None

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if not self.channel_last:
            return super().backward(req, out_grad, in_data, out_data, in_grad, aux)
        ins = [_to_first(a) if self._moved(i) else a for i, a in enumerate(in_data)]
        outs = [_to_first(a) for a in out_data]
        ograds = [_to_first(a) for a in out_grad]
        grads = [np.zeros(_first(g.shape) if self._moved(i) else g.shape, g.dtype)
                 for i, g in enumerate(in_grad)]
        super().backward(['write' if r != 'null' else r for r in req], ograds, ins, outs,
                         grads, aux)
        for i, (dst, src, r) in enumerate(zip(in_grad, grads, req)):
            if r != 'null':
                store_from(dst, r, np.moveaxis(src, 1, -1) if self._moved(i) else src)
        return None
