"""Dynamic loss scaling: scale the loss up so float16 gradients do not underflow, halve
the scale when a gradient overflows (and skip that update), double it after a run of
clean steps."""
import logging

__all__ = ['LossScaler']

_LOG = logging.getLogger(__name__)


class LossScaler:
    """The current loss scale and its dynamic adjustment.

    Starts at 2**16, at most 2**24; doubles after 2000 steps without overflow.
    """

    def __init__(self):
        self._loss_scale = 2. ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2. ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        """The scale the loss is multiplied by."""
        return self._loss_scale

    def has_overflow(self, params):
        """Whether any gradient of ``params`` (gluon Parameters) holds inf or NaN; adjusts
        the scale for the next step accordingly."""
        from ... import autograd
        from ... import ndarray as nd
        with autograd.pause():
            grads = [g for p in params if p.grad_req != 'null' and p._grad is not None
                     for g in p.list_grad()]
            flag = nd.ones((1,), ctx=grads[0].context) if grads else None
            for start in range(0, len(grads), 200):
                chunk = grads[start:start + 200]
                nd.multi_all_finite(*chunk, num_arrays=len(chunk), init_output=False,
                                    out=flag)
        overflow = flag is not None and not bool(flag.asscalar())
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.
            self._unskipped = 0
            _LOG.info('AMP: decreasing loss scale to %f', self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.)
            _LOG.info('AMP: increasing loss scale to %f', self._next_loss_scale)
        return overflow
