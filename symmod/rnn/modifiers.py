"""Cells that change what another cell does: DropoutCell (dropout on the sequence),
and the ModifierCell family wrapping a base cell — ZoneoutCell and ResidualCell."""
from .. import symbol
from ..base import numeric_types
from .base_cell import BaseRNNCell, _normalize_sequence
from .composite import BidirectionalCell, SequentialRNNCell

__all__ = ['DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell']


class DropoutCell(BaseRNNCell):
    """Dropout on its input; has no states and no weights (put it between layers
    of a :class:`SequentialRNNCell`).

    Parameters
    ----------
    dropout : float
        Fraction of the elements set to zero during training (0 disables it).
    prefix : str, default ``'dropout_'``
        Prefix of the cell's names.
    params : RNNParams, optional
        Weight container (unused, kept for a uniform interface).

    Examples
    --------
    >>> stack = mx.rnn.SequentialRNNCell()
    >>> stack.add(mx.rnn.LSTMCell(100, prefix='l0_'))
    >>> stack.add(mx.rnn.DropoutCell(0.5))
    >>> stack.add(mx.rnn.LSTMCell(100, prefix='l1_'))
    """

    def __init__(self, dropout, prefix='dropout_', params=None):
        super(DropoutCell, self).__init__(prefix, params)
        assert isinstance(dropout, numeric_types), "dropout probability must be a number"
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        # a merged sequence gets one Dropout node for all steps
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super(DropoutCell, self).unroll(length, inputs, begin_state=begin_state,
                                               layout=layout, merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """Base class of cells that wrap a base cell and change its behaviour.

    The wrapped cell is marked as modified: from then on its ``begin_state``
    refuses to be called directly; use the modifier cell instead. Weights,
    states and (un)packing are the base cell's.

    Parameters
    ----------
    base_cell : BaseRNNCell
        The cell to modify.
    """

    def __init__(self, base_cell):
        super(ModifierCell, self).__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):  # pylint: disable=arguments-differ
        """The base cell's begin states.

        ``init_sym`` plays the role of ``func`` in :meth:`BaseRNNCell.begin_state`;
        ``func=`` is accepted too (so a stack can pass it on to a modifier cell),
        and the base cell may be a stack or a bidirectional cell (MXNet 1.9.1
        raises TypeError in those cases).
        """
        assert not self._modified, \
            "After applying modifier cells (e.g. DropoutCell) the base " \
            "cell cannot be called directly. Call the modifier cell instead."
        init_sym = kwargs.pop('func', init_sym)
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(func=init_sym, **kwargs)
        self.base_cell._modified = True
        return begin

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError('%s does not define a single time step; a modifier cell '
                                  'must implement __call__(inputs, states)'
                                  % type(self).__name__)


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): during training, each unit of the output and
    of the states keeps its previous value with the given probability instead of
    taking the new one. At inference the base cell runs unchanged.

    The random masks are ``Dropout`` of ones, so a unit takes the new value
    where the mask is nonzero.

    Parameters
    ----------
    base_cell : BaseRNNCell
        Cell to apply zoneout to; it must be steppable (not bidirectional).
    zoneout_outputs : float, default 0.
        Probability that an output unit keeps the previous step's output (zero
        before the first step).
    zoneout_states : float, default 0.
        Probability that a state unit keeps its previous value.

    Examples
    --------
    >>> cell = mx.rnn.ZoneoutCell(mx.rnn.LSTMCell(100), zoneout_states=0.1)
    >>> outputs, states = cell.unroll(5, mx.sym.var('data'))
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        assert not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell doesn't support zoneout since it doesn't support step. " \
            "Please add ZoneoutCell to the cells underneath instead."
        # MXNet 1.9.1 reads a `_bidirectional` flag SequentialRNNCell never sets
        # (AttributeError); here a stack is refused only if it holds a bidirectional layer.
        assert not isinstance(base_cell, SequentialRNNCell) or not any(
            isinstance(cell, BidirectionalCell) for cell in base_cell._cells), \
            "Bidirectional SequentialRNNCell doesn't support zoneout. " \
            "Please add ZoneoutCell to the cells underneath instead."
        super(ZoneoutCell, self).__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super(ZoneoutCell, self).reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(prob, like):
            return symbol.Dropout(symbol.ones_like(like), p=prob)

        # before the first step the previous output is zeros shaped like the output
        prev_output = self.prev_output if self.prev_output is not None \
            else symbol.zeros((0, 0))
        if self.zoneout_outputs != 0.:
            output = symbol.where(keep_new(self.zoneout_outputs, next_output),
                                  next_output, prev_output)
        else:
            output = next_output
        if self.zoneout_states != 0.:
            states = [symbol.where(keep_new(self.zoneout_states, new), new, old)
                      for new, old in zip(next_states, states)]
        else:
            states = next_states
        self.prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output (a residual connection, Wu et al.
    2016); input and output sizes must agree.

    Parameters
    ----------
    base_cell : BaseRNNCell
        Cell whose output gets the input added.

    Examples
    --------
    >>> cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(50, prefix='gru_'))
    >>> outputs, _ = cell.unroll(2, mx.sym.var('data'))
    >>> [o.name for o in outputs]
    ['gru_t0_out_plus_residual', 'gru_t1_out_plus_residual']
    """

    def __init__(self, base_cell):
        super(ResidualCell, self).__init__(base_cell)

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(output, inputs, name='%s_plus_residual' % output.name)
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        # unroll the base cell as a whole (it may be bidirectional or a stack),
        # then add the input sequence in the same form as the outputs
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state,
                                                layout=layout, merge_outputs=merge_outputs)
        self.base_cell._modified = True

        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            outputs = symbol.elemwise_add(outputs, inputs,
                                          name='%s_plus_residual' % outputs.name)
        else:
            outputs = [symbol.elemwise_add(out, inp, name='%s_plus_residual' % out.name)
                       for out, inp in zip(outputs, inputs)]
        return outputs, states
