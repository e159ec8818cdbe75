"""The container cells: SequentialRNNCell and HybridSequentialRNNCell (cells stacked
in depth) and BidirectionalCell (one cell forward in time, one backward)."""
from ..parameter import tensor_types
from ..utils import _indent
from .base_cell import _MODIFIED, HybridRecurrentCell, RecurrentCell
from .sequence import (_cells_begin_state, _cells_state_info, _format_sequence,
                       _get_begin_state, _mask_sequence_variable_length, _reverse_sequences)

__all__ = ['SequentialRNNCell', 'HybridSequentialRNNCell', 'BidirectionalCell']


class _ChildStates:
    """The states of a container: its children's, in order."""

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        """The children's begin states, concatenated (a BidirectionalCell's forward cell
        first); keyword arguments as :meth:`RecurrentCell.begin_state`."""
        assert not self._modified, _MODIFIED
        return _cells_begin_state(self._children.values(), **kwargs)


class _CellStack(_ChildStates):
    """What the sequential stacks share: children stepped in order, each taking its
    slice of the flat state list."""

    def __repr__(self):
        modstr = '\n'.join(['({i}): {m}'.format(i=i, m=_indent(repr(m), 2))
                            for i, m in self._children.items()])
        return '{name}(\n{modstr}\n)'.format(name=self.__class__.__name__, modstr=modstr)

    def add(self, cell):
        """Append ``cell`` to the stack.

        Parameters
        ----------
        cell : RecurrentCell
            The cell (its input is the previous cell's output).
        """
        self.register_child(cell)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        p = 0
        assert all(not isinstance(cell, BidirectionalCell)
                   for cell in self._children.values()), \
            'a BidirectionalCell cannot be stepped; unroll the stack instead'
        for cell in self._children.values():
            n = len(cell.state_info())
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.append(state)
        return inputs, sum(next_states, [])

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        """Unroll each child in turn over the whole sequence (see
        :meth:`RecurrentCell.unroll`)."""
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        num_cells = len(self._children)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        p = 0
        next_states = []
        for i, cell in enumerate(self._children.values()):
            n = len(cell.state_info())
            states = begin_state[p:p + n]
            p += n
            inputs, states = cell.unroll(
                length, inputs=inputs, begin_state=states, layout=layout,
                merge_outputs=None if i < num_cells - 1 else merge_outputs,
                valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_CellStack, RecurrentCell):
    """Stack recurrent cells: each step runs the cells in order, the output of one
    being the input of the next; the states are the children's, concatenated.

    Examples
    --------
    >>> stack = mx.gluon.rnn.SequentialRNNCell()
    >>> with stack.name_scope():
    ...     stack.add(mx.gluon.rnn.LSTMCell(8))
    ...     stack.add(mx.gluon.rnn.GRUCell(8))
    >>> stack.initialize()
    >>> out, states = stack.unroll(3, mx.nd.ones((2, 3, 5)), merge_outputs=True)
    >>> len(states)
    3
    """

    def __init__(self, prefix=None, params=None):
        super(SequentialRNNCell, self).__init__(prefix=prefix, params=params)


class HybridSequentialRNNCell(_CellStack, HybridRecurrentCell):
    """:class:`SequentialRNNCell` of hybridizable cells (usable inside a hybridized
    block).

    Examples
    --------
    >>> stack = mx.gluon.rnn.HybridSequentialRNNCell()
    >>> stack.add(mx.gluon.rnn.RNNCell(8)); stack.add(mx.gluon.rnn.RNNCell(8))
    """

    def __init__(self, prefix=None, params=None):
        super(HybridSequentialRNNCell, self).__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


class BidirectionalCell(_ChildStates, HybridRecurrentCell):
    """Run one cell forward and another backward in time and concatenate their
    outputs (features axis). It can only be unrolled, not stepped.

    Parameters
    ----------
    l_cell : RecurrentCell
        The forward-time cell.
    r_cell : RecurrentCell
        The backward-time cell.
    output_prefix : str, default 'bi_'
        Prefix of the names of the concatenated outputs.

    Examples
    --------
    >>> bi = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.LSTMCell(4),
    ...                                     mx.gluon.rnn.LSTMCell(4))
    >>> bi.initialize()
    >>> out, states = bi.unroll(3, mx.nd.ones((2, 3, 5)), merge_outputs=True)
    >>> out.shape
    (2, 3, 8)
    """

    def __init__(self, l_cell, r_cell, output_prefix='bi_'):
        super(BidirectionalCell, self).__init__(prefix='', params=None)
        self.register_child(l_cell, 'l_cell')
        self.register_child(r_cell, 'r_cell')
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        # MXNet's exception for stepping a bidirectional cell
        raise NotImplementedError('Bidirectional cannot be stepped. Please use unroll')

    def __repr__(self):
        return '{name}(forward={l_cell}, backward={r_cell})'.format(
            name=self.__class__.__name__, l_cell=self._children['l_cell'],
            r_cell=self._children['r_cell'])

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        """Unroll ``l_cell`` over the sequence and ``r_cell`` over it reversed (only
        the valid part of each sequence with ``valid_length``); see
        :meth:`RecurrentCell.unroll`. The states are l_cell's, then r_cell's."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = _reverse_sequences(inputs, length, valid_length)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children.values()
        n_left = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs,
                                            begin_state=begin_state[:n_left], layout=layout,
                                            merge_outputs=merge_outputs,
                                            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs,
                                            begin_state=begin_state[n_left:], layout=layout,
                                            merge_outputs=False, valid_length=valid_length)
        reversed_r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, tensor_types)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            reversed_r_outputs, _, _, _ = _format_sequence(None, reversed_r_outputs, layout,
                                                           merge_outputs)
        if merge_outputs:
            reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(l_outputs, reversed_r_outputs, dim=2,
                               name='%sout' % self._output_prefix)
        else:
            outputs = [F.concat(l_o, r_o, dim=1, name='%st%d' % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed_r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, l_states + r_states
