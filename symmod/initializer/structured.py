"""Initializers for particular layers: Bilinear (upsampling deconvolutions),
LSTMBias (forget-gate bias) and FusedRNN (the flat parameter vector of a fused RNN)."""
import json

import numpy as np

from ..ndarray import NDArray
from .base import InitDesc, Initializer, bilinear_kernel, create, register

__all__ = ['Bilinear', 'LSTMBias', 'FusedRNN']


@register
class Bilinear(Initializer):
    """Bilinear-interpolation kernels, for deconvolutions that upsample.

    Examples
    --------
    >>> w = mx.nd.zeros((1, 1, 4, 4))
    >>> mx.init.Bilinear()(mx.init.InitDesc('up_weight'), w)
    """

    def __init__(self):
        super(Bilinear, self).__init__()

    def _init_weight(self, _, arr):
        arr[:] = bilinear_kernel(arr.shape)


@register
class LSTMBias(Initializer):
    """Zero bias for an LSTM cell except the forget gate (the second quarter).

    Parameters
    ----------
    forget_bias : float, default 1.0
        Bias of the forget gate (Jozefowicz et al., 2015 recommend 1.0).

    Examples
    --------
    >>> b = mx.nd.zeros((8,))
    >>> mx.init.LSTMBias(1.0)(mx.init.InitDesc('lstm_bias', {'__init__': ''}), b)
    """

    def __init__(self, forget_bias=1.0):
        super(LSTMBias, self).__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        arr[:] = 0.0
        num_hidden = int(arr.shape[0] / 4)
        arr[num_hidden:2 * num_hidden] = self.forget_bias


_GATES = {'rnn_relu': [''], 'rnn_tanh': [''],
          'lstm': ['_i', '_f', '_c', '_o'], 'gru': ['_r', '_z', '_o']}


def fused_rnn_pieces(flat, num_hidden, num_layers, mode, bidirectional):
    """Name -> view of each weight and bias inside a fused RNN's flat parameters.

    The layout is MXNet's (cuDNN's): for each layer and direction the
    input-to-hidden then hidden-to-hidden weights of every gate, then all the
    biases in the same order. Names follow FusedRNNCell with an empty prefix
    (``l0_i2h_f_weight``, ``r1_h2h_o_bias``).
    """
    if mode not in _GATES:
        raise ValueError('FusedRNN: mode must be one of %s, found %r' % (sorted(_GATES), mode))
    gates = _GATES[mode]
    directions = ['l', 'r'] if bidirectional else ['l']
    b, h, m = len(directions), num_hidden, len(gates)
    num_input = flat.size // b // h // m - (num_layers - 1) * (h + b * h + 2) - h - 2
    expected = (num_input + h + 2) * h * m * b + (num_layers - 1) * m * h * (h + b * h + 2) * b
    if num_input < 1 or expected != flat.size:
        raise ValueError('Invalid parameters size for FusedRNNCell: %d values do not fit '
                         'num_hidden=%d, num_layers=%d, mode=%r, bidirectional=%s'
                         % (flat.size, num_hidden, num_layers, mode, bidirectional))
    pieces, p = {}, 0
    for layer in range(num_layers):
        width = num_input if layer == 0 else b * h
        for direction in directions:
            for kind, cols in (('i2h', width), ('h2h', h)):
                for gate in gates:
                    name = '%s%d_%s%s_weight' % (direction, layer, kind, gate)
                    pieces[name] = flat[p:p + h * cols].reshape(h, cols)
                    p += h * cols
    for layer in range(num_layers):
        for direction in directions:
            for kind in ('i2h', 'h2h'):
                for gate in gates:
                    pieces['%s%d_%s%s_bias' % (direction, layer, kind, gate)] = flat[p:p + h]
                    p += h
    return pieces


@register
class FusedRNN(Initializer):
    """Initialize the flat parameter vector of a fused RNN layer piece by piece.

    The vector is cut into its gate weights and biases; each weight is
    initialized by ``init`` (or the global initializer), each bias is zero
    except LSTM forget-gate biases, which get ``forget_bias``.

    Parameters
    ----------
    init : Initializer, str or None
        Initializer for the unpacked weights (a ``dumps()`` string works);
        None uses the global initializer.
    num_hidden : int
        Hidden size, as given to the fused RNN.
    num_layers : int
        Number of layers.
    mode : {'rnn_relu', 'rnn_tanh', 'lstm', 'gru'}
        Cell type.
    bidirectional : bool, optional
        Whether the RNN is bidirectional.
    forget_bias : float, optional
        LSTM forget-gate bias (default 1.0).

    Examples
    --------
    >>> init = mx.init.FusedRNN(mx.init.Xavier(), num_hidden=8, num_layers=1, mode='lstm')
    """

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False,
                 forget_bias=1.0):
        if isinstance(init, str):
            klass, kwargs = json.loads(init)
            init = create(klass, **kwargs)
        super(FusedRNN, self).__init__(init=init.dumps() if init is not None else None,
                                       num_hidden=num_hidden, num_layers=num_layers,
                                       mode=mode, bidirectional=bidirectional,
                                       forget_bias=forget_bias)
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _init_weight(self, desc, arr):
        flat = np.array(arr.asnumpy().ravel(), copy=True)
        pieces = fused_rnn_pieces(flat, self._num_hidden, self._num_layers, self._mode,
                                  self._bidirectional)
        global_init = getattr(desc, 'global_init', None)
        for name, piece in pieces.items():
            if self._mode == 'lstm' and name.endswith('_f_bias'):
                piece[:] = self._forget_bias
                continue
            target = NDArray(piece)     # a view: writes land in ``flat``
            piece_desc = InitDesc(name, global_init=global_init)
            if self._init is None:
                global_init(piece_desc, target)
            else:
                self._init(piece_desc, target)
        arr[:] = flat.reshape(arr.shape)
