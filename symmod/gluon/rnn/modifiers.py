"""The modifier cells: DropoutCell, and ModifierCell with ZoneoutCell and ResidualCell,
which wrap a base cell and change what it computes."""
from ... import symbol
from ...base import numeric_types
from ..parameter import tensor_types
from .base_cell import _MODIFIED, HybridRecurrentCell
from .composite import BidirectionalCell
from .sequence import _format_sequence, _mask_sequence_variable_length

__all__ = ['DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell']


class DropoutCell(HybridRecurrentCell):
    """Dropout on the input of each step (in training); the states pass through.

    Parameters
    ----------
    rate : float
        Fraction of the elements dropped.
    axes : tuple of int, default ()
        Axes along which one dropout mask is shared; empty for plain dropout.
    prefix, params
        As for :class:`RecurrentCell`.

    Examples
    --------
    >>> cell = mx.gluon.rnn.DropoutCell(0.5)
    >>> out, states = cell.unroll(3, mx.nd.ones((2, 3, 5)))
    """

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super(DropoutCell, self).__init__(prefix, params)
        assert isinstance(rate, numeric_types), 'rate must be a number'
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return '{name}(rate={rate}, axes={axes})'.format(name=self.__class__.__name__,
                                                         rate=self._rate, axes=self._axes)

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return 'dropout'

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes,
                               name='t%d_fwd' % self._counter)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        """Drop out the whole sequence at once when it is one tensor (``valid_length``
        is not used: dropout needs no masking)."""
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, tensor_types):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super(DropoutCell, self).unroll(length, inputs, begin_state=begin_state,
                                               layout=layout, merge_outputs=merge_outputs,
                                               valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that wrap a base cell and change what it computes
    (zoneout, residual connection). Once wrapped, the base cell must not be called
    directly; its Parameters are the modifier's.

    Parameters
    ----------
    base_cell : RecurrentCell
        The cell to modify (at most one modifier per cell).
    """

    def __init__(self, base_cell):
        assert not base_cell._modified, \
            'Cell %s is already modified. One cell cannot be modified twice' % base_cell.name
        base_cell._modified = True
        super(ModifierCell, self).__init__(prefix=base_cell.prefix + self._alias(),
                                           params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=symbol.zeros, **kwargs):
        """The base cell's begin states (note MXNet's default ``func``: ``sym.zeros``)."""
        assert not self._modified, _MODIFIED
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(func=func, **kwargs)
        self.base_cell._modified = True
        return begin

    def __repr__(self):
        return '{name}({base_cell})'.format(name=self.__class__.__name__,
                                            base_cell=self.base_cell)


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training, each output and state element
    keeps its previous value with probability ``zoneout_outputs`` /
    ``zoneout_states`` instead of taking the new one.

    Parameters
    ----------
    base_cell : RecurrentCell
        The cell to modify (not bidirectional).
    zoneout_outputs : float, default 0.
        Probability of keeping the previous output.
    zoneout_states : float, default 0.
        Probability of keeping the previous state.

    Examples
    --------
    >>> cell = mx.gluon.rnn.ZoneoutCell(mx.gluon.rnn.GRUCell(8), zoneout_states=0.2)
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        assert not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell doesn't support zoneout since it doesn't support step. " \
            'Please add ZoneoutCell to the cells underneath instead.'
        assert not getattr(base_cell, '_bidirectional', False), \
            "Bidirectional SequentialRNNCell doesn't support zoneout. " \
            'Please add ZoneoutCell to the cells underneath instead.'
        super(ZoneoutCell, self).__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return '{name}(p_out={p_out}, p_state={p_state}, {base_cell})'.format(
            name=self.__class__.__name__, p_out=self.zoneout_outputs,
            p_state=self.zoneout_states, base_cell=self.base_cell)

    def _alias(self):
        return 'zoneout'

    def reset(self):
        super(ZoneoutCell, self).reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        p_outputs, p_states = self.zoneout_outputs, self.zoneout_states
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p, like):
            # 1 where the new value is taken (Dropout is the identity outside training)
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output
        if prev_output is None:
            prev_output = F.zeros_like(next_output)
        output = (F.where(mask(p_outputs, next_output), next_output, prev_output)
                  if p_outputs != 0. else next_output)
        states = ([F.where(mask(p_states, new_s), new_s, old_s)
                   for new_s, old_s in zip(next_states, states)]
                  if p_states != 0. else next_states)
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Add the input to the base cell's output (Wu et al. 2016); input and output
    must have the same size.

    Examples
    --------
    >>> cell = mx.gluon.rnn.ResidualCell(mx.gluon.rnn.GRUCell(5)); cell.initialize()
    >>> out, states = cell.unroll(3, mx.nd.ones((2, 3, 5)), merge_outputs=True)
    """

    def __init__(self, base_cell):
        super(ResidualCell, self).__init__(base_cell)

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = F.elemwise_add(output, inputs, name='t%d_fwd' % self._counter)
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        """Unroll the base cell, then add the (masked, with ``valid_length``) inputs."""
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                begin_state=begin_state, layout=layout,
                                                merge_outputs=merge_outputs,
                                                valid_length=valid_length)
        self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, tensor_types)
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis,
                                                    merge_outputs)
        if merge_outputs:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(i, j) for i, j in zip(outputs, inputs)], states
