"""``fit``'s watch for NaN / Inf: one warning naming the epoch and batch where they appear.

MXNet trains on silently. Small outputs are summed whole after every batch (a NaN or
Inf anywhere makes the sum NaN or Inf); for large ones (a language model's softmax over
the vocabulary) only the first row is, since a NaN or Inf in a parameter spreads to every
row of the next forward. Only after a hit are the parameters scanned, to name them.
"""
import numpy as np


def _arrays(nested):
    """The numpy arrays behind a (possibly nested) list of NDArrays."""
    if isinstance(nested, (list, tuple)):
        for item in nested:
            yield from _arrays(item)
    elif nested is not None:
        yield np.asarray(nested)


_WHOLE = 1 << 16     # outputs up to this size are summed whole; larger ones by first row


def _looks_finite(array):
    if array.size == 0 or array.dtype.kind not in 'fc':
        return True
    if array.size > _WHOLE and array.ndim > 1:
        array = array.reshape(array.shape[0], -1)[0]
    # any NaN / Inf makes the sum NaN / Inf; a sum overflowing alone is told apart after
    return bool(np.isfinite(array.sum())) or bool(np.isfinite(array).all())


class FiniteWatch:
    """Called after every training batch; warns once per ``fit``, then stops looking."""

    def __init__(self, module):
        self.module = module
        self.active = True

    def check(self, epoch, nbatch):
        """Warn (once) when the outputs of the batch just run hold NaN or Inf."""
        try:
            outputs = self.module.get_outputs(merge_multi_context=False)
        except (AssertionError, TypeError, NotImplementedError):
            return
        if all(_looks_finite(a) for a in _arrays(outputs)):
            return
        self.active = False
        arg_params, aux_params = self.module.get_params()
        bad = sorted(name for name, value in list(arg_params.items()) + list(aux_params.items())
                     if not np.isfinite(np.asarray(value)).all())
        where = 'the outputs (loss)' + ('' if not bad else ' and the parameters %s'
                                        % ', '.join(bad[:8]) + (', ...' if len(bad) > 8 else ''))
        self.module.logger.warning(
            'Epoch[%d] Batch[%d]: NaN or Inf in %s. Training goes on, but it will not recover '
            'by itself: lower the learning rate, clip gradients (optimizer_params '
            "'clip_gradient'), or check the data of this batch.", epoch, nbatch, where)
