"""Cells made of other cells: SequentialRNNCell (a stack of layers) and
BidirectionalCell (one cell forward in time, one backward)."""
from .. import symbol
from .base_cell import BaseRNNCell, _normalize_sequence

__all__ = ['SequentialRNNCell', 'BidirectionalCell']


def _cells_state_info(cells):
    return sum([cell.state_info for cell in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([cell.begin_state(**kwargs) for cell in cells], [])


def _cells_unpack_weights(cells, args):
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def _cells_pack_weights(cells, args):
    for cell in cells:
        args = cell.pack_weights(args)
    return args


def _adopt_params(parent, children, override, who):
    """Merge the children's weight variables into ``parent``'s container.

    With ``override`` (the parent was given a container), the children must own
    theirs, and first receive the parent's variables so that shared names resolve
    to the parent's.
    """
    if override:
        assert all(child._own_params for child in children), \
            "Either specify params for %s or child cells, not both." % who
        for child in children:
            child.params._params.update(parent.params._params)
    for child in children:
        parent.params._params.update(child.params._params)


class SequentialRNNCell(BaseRNNCell):
    """A stack of cells: each cell's output is the next cell's input.

    Its states are the concatenation of its cells' states, in order.

    Parameters
    ----------
    params : RNNParams, optional
        Weight container for all stacked cells. If given, cells added later must
        not have been given a container of their own.

    Examples
    --------
    >>> stack = mx.rnn.SequentialRNNCell()
    >>> for i in range(2):
    ...     stack.add(mx.rnn.LSTMCell(num_hidden=200, prefix='lstm_l%d_' % i))
    >>> outputs, states = stack.unroll(10, mx.sym.var('embed'), merge_outputs=True)
    >>> len(states)
    4
    """

    def __init__(self, params=None):
        super(SequentialRNNCell, self).__init__(prefix='', params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Append ``cell`` to the top of the stack.

        Parameters
        ----------
        cell : BaseRNNCell
            Takes the previous cell's output (or the stack's input) as its input.
        """
        self._cells.append(cell)
        _adopt_params(self, [cell], self._override_cell_params, 'SequentialRNNCell')

    @property
    def state_info(self):
        return _cells_state_info(self._cells)

    def begin_state(self, **kwargs):  # pylint: disable=arguments-differ
        """The begin states of all stacked cells, in order (see
        :meth:`BaseRNNCell.begin_state` for ``kwargs``)."""
        assert not self._modified, \
            "After applying modifier cells (e.g. ZoneoutCell) the base " \
            "cell cannot be called directly. Call the modifier cell instead."
        return _cells_begin_state(self._cells, **kwargs)

    def unpack_weights(self, args):
        return _cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return _cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        start = 0
        for cell in self._cells:
            assert not isinstance(cell, BidirectionalCell)
            count = len(cell.state_info)
            inputs, cell_states = cell(inputs, states[start:start + count])
            start += count
            next_states.append(cell_states)
        return inputs, sum(next_states, [])

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        # Layer by layer: each cell unrolls over the whole sequence, so a
        # bidirectional layer can sit in the stack. Only the last layer's output
        # form follows merge_outputs; inner layers hand over whatever is natural.
        self.reset()
        if begin_state is None:
            begin_state = self.begin_state()
        last = len(self._cells) - 1
        start = 0
        next_states = []
        for i, cell in enumerate(self._cells):
            count = len(cell.state_info)
            inputs, states = cell.unroll(length, inputs=inputs,
                                         begin_state=begin_state[start:start + count],
                                         layout=layout,
                                         merge_outputs=None if i < last else merge_outputs)
            start += count
            next_states.extend(states)
        return inputs, next_states


class BidirectionalCell(BaseRNNCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward in time and concatenates
    their outputs at each step (along the feature axis).

    It can only be unrolled, not stepped. Its states are ``[l_states, r_states]``
    after unrolling.

    Parameters
    ----------
    l_cell : BaseRNNCell
        Cell for the forward direction.
    r_cell : BaseRNNCell
        Cell for the backward direction.
    params : RNNParams, optional
        Weight container for both cells (they must not have their own then).
    output_prefix : str, default ``'bi_'``
        Prefix of the output names: ``<output_prefix>t<k>`` per step, or
        ``<output_prefix>out`` for the merged output.

    Examples
    --------
    >>> bi = mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(100, prefix='l_'),
    ...                               mx.rnn.LSTMCell(100, prefix='r_'))
    >>> outputs, states = bi.unroll(10, mx.sym.var('data'), merge_outputs=True)
    >>> outputs.name
    'bi_out'
    """

    def __init__(self, l_cell, r_cell, params=None, output_prefix='bi_'):
        super(BidirectionalCell, self).__init__('', params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        _adopt_params(self, [l_cell, r_cell], self._override_cell_params, 'BidirectionalCell')
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return _cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return _cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    @property
    def state_info(self):
        return _cells_state_info(self._cells)

    def begin_state(self, **kwargs):  # pylint: disable=arguments-differ
        """The begin states of the forward then the backward cell."""
        assert not self._modified, \
            "After applying modifier cells (e.g. DropoutCell) the base " \
            "cell cannot be called directly. Call the modifier cell instead."
        return _cells_begin_state(self._cells, **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        l_cell, r_cell = self._cells
        num_left = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs,
                                            begin_state=begin_state[:num_left],
                                            layout=layout, merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)),
                                            begin_state=begin_state[num_left:],
                                            layout=layout, merge_outputs=merge_outputs)

        if merge_outputs is None:
            merge_outputs = (isinstance(l_outputs, symbol.Symbol)
                             and isinstance(r_outputs, symbol.Symbol))
            if not merge_outputs:
                if isinstance(l_outputs, symbol.Symbol):
                    l_outputs = list(symbol.SliceChannel(l_outputs, axis=axis,
                                                         num_outputs=length, squeeze_axis=1))
                if isinstance(r_outputs, symbol.Symbol):
                    r_outputs = list(symbol.SliceChannel(r_outputs, axis=axis,
                                                         num_outputs=length, squeeze_axis=1))

        if merge_outputs:
            # one merged symbol each; the backward one is flipped back in time
            l_outputs = [l_outputs]
            r_outputs = [symbol.reverse(r_outputs, axis=axis)]
        else:
            r_outputs = list(reversed(r_outputs))

        # per-step outputs are (N, C): features on axis 1; merged ones on axis 2
        outputs = [symbol.Concat(l_out, r_out, dim=1 + merge_outputs,
                                 name=('%sout' % self._output_prefix if merge_outputs
                                       else '%st%d' % (self._output_prefix, i)))
                   for i, (l_out, r_out) in enumerate(zip(l_outputs, r_outputs))]
        if merge_outputs:
            outputs = outputs[0]
        return outputs, [l_states, r_states]
