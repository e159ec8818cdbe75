"""The modifier cells: DropoutCell, and ModifierCell with ZoneoutCell, ResidualCell and
VariationalDropoutCell (gluon.contrib's), which wrap a base cell and change what it
computes."""
from ... import symbol
from ...base import numeric_types
from ..parameter import tensor_types
from .base_cell import _MODIFIED, HybridRecurrentCell
from .composite import BidirectionalCell, SequentialRNNCell
from .sequence import _format_sequence, _get_begin_state, _mask_sequence_variable_length

__all__ = ['DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell',
           'VariationalDropoutCell']


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


class VariationalDropoutCell(ModifierCell):
    """Variational dropout (Gal and Ghahramani 2016, MXNet's
    ``gluon.contrib.rnn.VariationalDropoutCell``): in training, one dropout mask per
    sequence, drawn at the first step and reused at every later step, for each of the
    inputs, the first state (``h``) and the outputs (three independent masks).

    The masks are kept until :meth:`reset` (which :meth:`unroll` calls); when stepping
    the cell by hand, call ``reset()`` between sequences.

    Parameters
    ----------
    base_cell : RecurrentCell
        The cell to modify (not bidirectional when ``drop_states`` is set).
    drop_inputs : float, default 0.
        Dropout rate of the inputs; no dropout when 0.
    drop_states : float, default 0.
        Dropout rate of the first state fed to the base cell; no dropout when 0.
    drop_outputs : float, default 0.
        Dropout rate of the outputs; no dropout when 0.

    Examples
    --------
    >>> cell = mx.gluon.contrib.rnn.VariationalDropoutCell(mx.gluon.rnn.GRUCell(8),
    ...                                                    drop_inputs=0.2, drop_outputs=0.3)
    >>> cell.initialize()
    >>> out, states = cell.unroll(3, mx.nd.ones((2, 3, 5)), merge_outputs=True)
    >>> out.shape
    (2, 3, 8)
    """

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        assert not drop_states or not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell doesn't support variational state dropout. " \
            'Please add VariationalDropoutCell to the cells underneath instead.'
        assert not drop_states or not isinstance(base_cell, SequentialRNNCell) \
            or not getattr(base_cell, '_bidirectional', False), \
            "Bidirectional SequentialRNNCell doesn't support variational state dropout. " \
            'Please add VariationalDropoutCell to the cells underneath instead.'
        super(VariationalDropoutCell, self).__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _alias(self):
        return 'vardrop'

    def reset(self):
        super(VariationalDropoutCell, self).reset()
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def __repr__(self):
        return '{name}(p_out = {p_out}, p_state = {p_state})'.format(
            name=self.__class__.__name__, p_out=self.drop_outputs, p_state=self.drop_states)

    @staticmethod
    def _mask(F, like, rate):
        # scaled keep-mask (0 or 1/(1-rate)) in training, ones outside it
        return F.Dropout(F.ones_like(like), p=rate)

    def hybrid_forward(self, F, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = self._mask(F, states[0], self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = self._mask(F, inputs, self.drop_inputs)
        if self.drop_states:
            states = list(states)
            states[0] = states[0] * self.drop_states_mask
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        output, next_states = self.base_cell(inputs, states)
        if self.drop_outputs and self.drop_outputs_mask is None:
            self.drop_outputs_mask = self._mask(F, output, self.drop_outputs)
        if self.drop_outputs:
            output = output * self.drop_outputs_mask
        return output, next_states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        """Without state dropout, drop out the whole input and output sequences at once
        (``Dropout`` with its mask shared along the time axis) around the base cell's
        own unroll; with it, step through the sequence. Arguments and results as
        :meth:`RecurrentCell.unroll`."""
        if self.drop_states:
            return super(VariationalDropoutCell, self).unroll(
                length, inputs, begin_state=begin_state, layout=layout,
                merge_outputs=merge_outputs, valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs, states, layout,
                                                merge_outputs=True, valid_length=valid_length)
        self.base_cell._modified = True
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, tensor_types)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, states
