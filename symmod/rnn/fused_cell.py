"""FusedRNNCell: a whole stack of recurrent layers as one fused ``RNN`` operator,
plus the conversion of its flat parameters to and from per-gate arrays and the
equivalent stack of step-by-step cells (:meth:`FusedRNNCell.unfuse`)."""
import warnings

import numpy as np

from .. import symbol, ndarray, initializer
from ..initializer.structured import fused_rnn_pieces
from .base_cell import BaseRNNCell, _normalize_sequence
from .cells import RNNCell, LSTMCell, GRUCell
from .composite import SequentialRNNCell, BidirectionalCell
from .modifiers import DropoutCell

__all__ = ['FusedRNNCell']

_GATE_NAMES = {'rnn_relu': [''], 'rnn_tanh': [''],
               'lstm': ['_i', '_f', '_c', '_o'], 'gru': ['_r', '_z', '_o']}


class FusedRNNCell(BaseRNNCell):
    """Recurrent layers fused over time into one ``RNN`` operator.

    All layers, directions and time steps run in a single node whose weights are one
    flat vector ``<prefix>parameters`` (MXNet's cuDNN-compatible packing). It cannot
    be stepped, only unrolled; :meth:`unfuse` gives the equivalent stack of
    :class:`LSTMCell` / :class:`GRUCell` / :class:`RNNCell` for stepping, and
    :meth:`unpack_weights` / :meth:`pack_weights` convert the weights between the two.

    Parameters
    ----------
    num_hidden : int
        Size of each layer's hidden state (the output has twice this when
        bidirectional).
    num_layers : int, default 1
        Number of stacked layers.
    mode : {'lstm', 'gru', 'rnn_tanh', 'rnn_relu'}, default 'lstm'
        The recurrent cell type.
    bidirectional : bool, default False
        Run every layer forward and backward in time and concatenate the two.
    dropout : float, default 0.
        Dropout rate on the outputs of each layer but the last, during training.
    get_next_state : bool, default False
        Whether :meth:`unroll` returns the final states (to start the next call).
    forget_bias : float, default 1.0
        Initial LSTM forget-gate bias (through the parameters' ``FusedRNN``
        initializer).
    prefix : str, optional
        Prefix of names; ``'<mode>_'`` (e.g. ``'lstm_'``) by default.
    params : RNNParams, optional
        Weight container to share weights; a new one if None.

    Examples
    --------
    >>> cell = mx.rnn.FusedRNNCell(100, num_layers=2, mode='gru', prefix='gru_')
    >>> outputs, _ = cell.unroll(10, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    >>> outputs.list_arguments()
    ['data', 'gru_parameters', 'gru_begin_state_0']
    """

    def __init__(self, num_hidden, num_layers=1, mode='lstm', bidirectional=False,
                 dropout=0., get_next_state=False, forget_bias=1.0,
                 prefix=None, params=None):
        if prefix is None:
            prefix = '%s_' % mode
        super(FusedRNNCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ['l', 'r'] if bidirectional else ['l']
        init = initializer.FusedRNN(None, num_hidden, num_layers, mode, bidirectional,
                                    forget_bias)
        self._parameter = self.params.get('parameters', init=init)

    @property
    def state_info(self):
        layers = len(self._directions) * self._num_layers
        count = 2 if self._mode == 'lstm' else 1
        return [{'shape': (layers, 0, self._num_hidden), '__layout__': 'LNC'}
                for _ in range(count)]

    @property
    def _gate_names(self):
        return _GATE_NAMES[self._mode]

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def _pieces(self, flat):
        """Prefixed name -> view of each weight and bias inside ``flat`` (numpy)."""
        pieces = fused_rnn_pieces(flat, self._num_hidden, self._num_layers, self._mode,
                                  self._bidirectional)
        return {self._prefix + name: piece for name, piece in pieces.items()}

    def unpack_weights(self, args):
        """Split the flat ``<prefix>parameters`` into per-gate weights and biases.

        Parameters
        ----------
        args : dict of str to NDArray
            Parameters holding this cell's ``<prefix>parameters``.

        Returns
        -------
        dict of str to NDArray
            A new dict where the flat vector is replaced by copies named
            ``<prefix><l|r><layer>_<i2h|h2h><gate>_<weight|bias>``, e.g.
            ``lstm_l0_i2h_f_weight`` (gates ``_i _f _c _o`` for an LSTM, ``_r _z _o``
            for a GRU, none for a vanilla RNN).
        """
        args = args.copy()
        arr = args.pop(self._parameter.name)
        flat = arr.asnumpy().reshape(-1)
        for name, piece in self._pieces(flat).items():
            args[name] = ndarray.array(piece, ctx=arr.context, dtype=arr.dtype)
        return args

    def pack_weights(self, args):
        """Join per-gate weights and biases into the flat ``<prefix>parameters``.

        Parameters
        ----------
        args : dict of str to NDArray
            Parameters with the per-gate arrays :meth:`unpack_weights` makes.

        Returns
        -------
        dict of str to NDArray
            A new dict with those arrays replaced by the flat vector.
        """
        args = args.copy()
        dirs, gates, h = len(self._directions), self._num_gates, self._num_hidden
        first = args['%sl0_i2h%s_weight' % (self._prefix, self._gate_names[0])]
        num_input = first.shape[1]
        total = ((num_input + h + 2) * h * gates * dirs
                 + (self._num_layers - 1) * gates * h * (h + dirs * h + 2) * dirs)
        flat = np.zeros(total, dtype=first.dtype)
        for name, piece in self._pieces(flat).items():
            piece[...] = args.pop(name).asnumpy().reshape(piece.shape)
        args[self._parameter.name] = ndarray.array(flat, ctx=first.context, dtype=first.dtype)
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """Build the fused RNN over ``length`` steps (see :meth:`BaseRNNCell.unroll`).

        The operator works in 'TNC'; an 'NTC' input is transposed before it and the
        output transposed back. The states are returned only with
        ``get_next_state=True`` (an empty list otherwise).
        """
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using "
                          "TNC for FusedRNNCell for faster speed")
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        else:
            assert axis == 0, "Unsupported layout %s" % layout
        if begin_state is None:
            begin_state = self.begin_state()
        states = {'state': begin_state[0]}
        if self._mode == 'lstm':
            states['state_cell'] = begin_state[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter,
                         state_size=self._num_hidden, num_layers=self._num_layers,
                         bidirectional=self._bidirectional, p=self._dropout,
                         state_outputs=self._get_next_state, mode=self._mode,
                         name=self._prefix + 'rnn', **states)
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            count = 2 if self._mode == 'lstm' else 1
            states = [rnn[k + 1] for k in range(count)]
            for state in states:
                state._set_attr(__layout__='LNC')
            outputs = rnn[0]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self):
        """The equivalent stack of step-by-step cells.

        Layer ``k`` becomes a cell with prefix ``<prefix>l<k>_`` (and ``<prefix>r<k>_``
        in a :class:`BidirectionalCell` with output prefix ``<prefix>bi_l<k>_`` when
        bidirectional), with a :class:`DropoutCell` (``<prefix>_dropout<k>_``) between
        layers when ``dropout > 0``. Convert weights with this cell's
        :meth:`unpack_weights` and then the stack's :meth:`pack_weights`.

        Returns
        -------
        SequentialRNNCell
        """
        def make(cell_prefix):
            if self._mode == 'lstm':
                return LSTMCell(self._num_hidden, prefix=cell_prefix)
            if self._mode == 'gru':
                return GRUCell(self._num_hidden, prefix=cell_prefix)
            activation = 'relu' if self._mode == 'rnn_relu' else 'tanh'
            return RNNCell(self._num_hidden, activation=activation, prefix=cell_prefix)

        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make('%sl%d_' % (self._prefix, i)),
                                            make('%sr%d_' % (self._prefix, i)),
                                            output_prefix='%sbi_l%d_' % (self._prefix, i)))
            else:
                stack.add(make('%sl%d_' % (self._prefix, i)))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix='%s_dropout%d_' % (self._prefix, i)))
        return stack
