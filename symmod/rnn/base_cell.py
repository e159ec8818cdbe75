"""BaseRNNCell: what every symbolic RNN cell shares — states, unrolling over time,
and the (un)packing of per-gate weights — plus the sequence splitting/merging helper."""
from .. import symbol, ndarray
from ..base import string_types
from .params import RNNParams

__all__ = ['BaseRNNCell']


def _normalize_sequence(length, inputs, layout, merge, in_layout=None):
    """Bring a sequence into the form a step loop or the caller wants.

    ``inputs`` is either one symbol holding all time steps (time on the axis
    where ``layout`` has ``'T'``) or a list of per-step symbols. With
    ``merge=False`` the result is a list of ``length`` per-step symbols (a symbol
    is split along time, squeezing that axis); with ``merge=True`` it is one
    symbol (a list is stacked with ``expand_dims`` + ``Concat``); with
    ``merge=None`` it is left as it is.

    Returns
    -------
    (inputs, axis) : the normalized sequence and the time axis of ``layout``.
    """
    assert inputs is not None, \
        "unroll(inputs=None) has been deprecated. " \
        "Please create input variables outside unroll."

    axis = layout.find('T')
    in_axis = in_layout.find('T') if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            assert len(inputs.list_outputs()) == 1, \
                "unroll doesn't allow grouped symbol as input. Please convert " \
                "to list with list(inputs) first or let unroll handle splitting."
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length,
                                       squeeze_axis=1))
    else:
        assert length is None or len(inputs) == length
        if merge is True:
            stacked = [symbol.expand_dims(step, axis=axis) for step in inputs]
            inputs = symbol.Concat(*stacked, dim=axis)
            in_axis = axis

    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim0=axis, dim1=in_axis)
    return inputs, axis


class BaseRNNCell(object):
    """Base class of the symbolic RNN cells.

    A cell describes one time step: ``output, states = cell(input, states)``
    builds the symbols of that step. :meth:`unroll` repeats it over a sequence,
    naming step ``t`` of a cell with prefix ``p`` as ``p + 't%d_' % t``.
    Subclasses define ``__call__`` and :attr:`state_info`.

    Parameters
    ----------
    prefix : str, default ''
        Prefix of the names of the cell's nodes, and of its weights when
        ``params`` is None.
    params : RNNParams, optional
        Container to take weights from (to share them with other cells). A new
        one with ``prefix`` is made if None.
    """

    def __init__(self, prefix='', params=None):
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the step and begin-state counters (and those of child cells), so a
        new graph gets names starting from ``t0`` and ``begin_state_0``."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, '_cells', ()):
            cell.reset()

    def __call__(self, inputs, states):
        """Build one time step.

        Parameters
        ----------
        inputs : Symbol
            The step's input, shape (batch_size, input_size).
        states : list of Symbol
            The previous states (from :meth:`begin_state` or the last step).

        Returns
        -------
        output : Symbol
            The step's output.
        states : list of Symbol
            The new states, in the layout of :meth:`begin_state`.
        """
        raise NotImplementedError('%s does not define a single time step; a cell must '
                                  'implement __call__(inputs, states)' % type(self).__name__)

    @property
    def params(self):
        """The cell's :class:`RNNParams` (asking for it marks them as shared)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """One dict per state: ``{'shape': (0, num_hidden), '__layout__': 'NC'}``
        (0 marks the batch size, inferred when the graph is bound)."""
        raise NotImplementedError('%s does not describe its states; a cell must define '
                                  'the state_info property' % type(self).__name__)

    @property
    def state_shape(self):
        """The shapes of the states (0 for the batch size)."""
        return [info['shape'] for info in self.state_info]

    @property
    def _gate_names(self):
        """Suffixes of the gates packed in the i2h/h2h weights (none by default)."""
        return ()

    def begin_state(self, func=symbol.zeros, **kwargs):
        """Symbols for the states before the first step.

        Parameters
        ----------
        func : callable, default symbol.zeros
            Makes each state from ``name``, the state's ``shape`` and ``__layout__``
            and ``kwargs``: :func:`symbol.zeros` for zero states, or
            :func:`symbol.Variable` to feed the states as inputs.
        **kwargs
            More keyword arguments for ``func`` (``dtype`` ...).

        Returns
        -------
        list of Symbol
            Named ``<prefix>begin_state_<k>``, ``k`` counting up since the last
            :meth:`reset`.

        Examples
        --------
        >>> cell = mx.rnn.LSTMCell(100, prefix='lstm_')
        >>> [s.name for s in cell.begin_state(func=mx.sym.Variable)]
        ['lstm_begin_state_0', 'lstm_begin_state_1']
        """
        assert not self._modified, \
            "After applying modifier cells (e.g. DropoutCell) the base " \
            "cell cannot be called directly. Call the modifier cell instead."
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            name = '%sbegin_state_%d' % (self._prefix, self._init_counter)
            states.append(func(name=name, **kwargs))
        return states

    def unpack_weights(self, args):
        """Split the packed i2h/h2h weights and biases into one array per gate.

        Parameters
        ----------
        args : dict of str to NDArray
            Parameters with this cell's packed ``<prefix>i2h_weight``,
            ``<prefix>i2h_bias``, ``<prefix>h2h_weight``, ``<prefix>h2h_bias``
            (e.g. ``Module.get_params()[0]``).

        Returns
        -------
        dict of str to NDArray
            A new dict where those four are replaced by per-gate copies named
            ``<prefix>i2h<gate>_weight`` etc. (gates ``_i _f _c _o`` for an LSTM,
            ``_r _z _o`` for a GRU, ``''`` for a plain RNN).

        See Also
        --------
        pack_weights : the inverse.
        """
        args = args.copy()
        if not self._gate_names:
            return args
        num_hidden = self._num_hidden
        for group in ('i2h', 'h2h'):
            weight = args.pop('%s%s_weight' % (self._prefix, group))
            bias = args.pop('%s%s_bias' % (self._prefix, group))
            for j, gate in enumerate(self._gate_names):
                rows = slice(j * num_hidden, (j + 1) * num_hidden)
                args['%s%s%s_weight' % (self._prefix, group, gate)] = weight[rows].copy()
                args['%s%s%s_bias' % (self._prefix, group, gate)] = bias[rows].copy()
        return args

    def pack_weights(self, args):
        """Join per-gate weights and biases back into the packed i2h/h2h arrays.

        Parameters
        ----------
        args : dict of str to NDArray
            Parameters with this cell's per-gate arrays (see :meth:`unpack_weights`).

        Returns
        -------
        dict of str to NDArray
            A new dict with the per-gate arrays replaced by the packed ones.
        """
        args = args.copy()
        if not self._gate_names:
            return args
        for group in ('i2h', 'h2h'):
            weights = [args.pop('%s%s%s_weight' % (self._prefix, group, gate))
                       for gate in self._gate_names]
            biases = [args.pop('%s%s%s_bias' % (self._prefix, group, gate))
                      for gate in self._gate_names]
            args['%s%s_weight' % (self._prefix, group)] = ndarray.concatenate(weights)
            args['%s%s_bias' % (self._prefix, group)] = ndarray.concatenate(biases)
        return args

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """Build ``length`` time steps of the cell.

        Parameters
        ----------
        length : int
            Number of time steps.
        inputs : Symbol or list of Symbol
            One symbol of shape (batch_size, length, ...) for layout 'NTC' or
            (length, batch_size, ...) for 'TNC' (e.g. an Embedding's output), or a
            list of ``length`` symbols of shape (batch_size, ...).
        begin_state : list of Symbol, optional
            The initial states; :meth:`begin_state` if None.
        layout : str, default 'NTC'
            Where the time axis is, for a single-symbol input and merged output.
        merge_outputs : bool, optional
            True: one output symbol in ``layout``; False: a list of per-step
            outputs; None: whichever the cell produces naturally (a list for
            step-by-step cells).

        Returns
        -------
        outputs : Symbol or list of Symbol
        states : list of Symbol
            The states after the last step.

        Examples
        --------
        >>> cell = mx.rnn.LSTMCell(200, prefix='lstm_')
        >>> data = mx.sym.Embedding(mx.sym.var('data'), input_dim=100, output_dim=200)
        >>> outputs, states = cell.unroll(10, data, merge_outputs=True)
        """
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        states = begin_state
        outputs = []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """Apply ``activation``: an ``Activation`` act_type name, or a symbol function."""
        if isinstance(activation, string_types):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)
