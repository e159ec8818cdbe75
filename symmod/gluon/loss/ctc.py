"""CTCLoss: connectionist temporal classification over the CTCLoss operator."""
from .base import Loss, _apply_weighting

__all__ = ['CTCLoss']


class CTCLoss(Loss):
    r"""Connectionist temporal classification loss (Graves et al., 2006).

    The last channel of ``pred`` (index ``alphabet_size - 1``) is the blank; labels are
    0-based and padded with -1 (or cut by ``label_lengths``).

    Parameters
    ----------
    layout : {'NTC', 'TNC'}, default 'NTC'
        Layout of ``pred`` (batch, time, channels).
    label_layout : {'NT', 'TN'}, default 'NT'
        Layout of ``label``.
    weight : float, optional
        Global scalar weight.

    Inputs are ``pred`` (unnormalised activations), ``label``, and optionally
    ``pred_lengths`` and ``label_lengths`` (batch_size,) and ``sample_weight``. The output
    has shape (batch_size,).

    Examples
    --------
    >>> loss = mx.gluon.loss.CTCLoss()
    >>> loss(mx.nd.zeros((1, 2, 3)), mx.nd.array([[0, -1]])).asnumpy()   # -log(3 / 9)
    array([1.0986123], dtype=float32)
    """

    def __init__(self, layout='NTC', label_layout='NT', weight=None, **kwargs):
        assert layout in ['NTC', 'TNC'], \
            "Only 'NTC' and 'TNC' layouts for pred are supported. Got: %s" % layout
        assert label_layout in ['NT', 'TN'], \
            "Only 'NT' and 'TN' layouts for label are supported. Got: %s" % label_layout
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find('N'), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == 'NTC':
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths,
                         use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None,
                         blank_label='last')
        return _apply_weighting(F, loss, self._weight, sample_weight)
