"""Gluon's recurrent cells: one time step per call, ``unroll`` for a whole sequence.

The step cells (RNNCell, LSTMCell, GRUCell) are HybridBlocks whose ``hybrid_forward``
uses the same operators as MXNet 1.9.1 (two FullyConnected, ``elemwise_*``,
``SliceChannel``, activations) with the same node names (``t<k>_i2h`` ...), so they
run on NDArrays, on Symbols and hybridized. The containers (SequentialRNNCell,
BidirectionalCell) and modifiers (DropoutCell, ZoneoutCell, ResidualCell) wrap them.
``valid_length`` masks padded steps with ``SequenceMask`` and picks each sequence's
last state with ``SequenceLast``, as MXNet does.
"""
from ... import ndarray, symbol
from ...base import MXNetError, numeric_types, string_types
from ..block import Block
from ..hybrid_block import HybridBlock
from ..parameter import tensor_types
from ..utils import _indent
from ..nn import LeakyReLU

__all__ = ['RecurrentCell', 'HybridRecurrentCell', 'RNNCell', 'LSTMCell', 'GRUCell',
           'SequentialRNNCell', 'HybridSequentialRNNCell', 'DropoutCell', 'ModifierCell',
           'ZoneoutCell', 'ResidualCell', 'BidirectionalCell']

_MODIFIED = ('After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be '
             'called directly. Call the modifier cell instead.')


# ---- sequence helpers ----------------------------------------------------------------
def _as_list(obj):
    return obj if isinstance(obj, list) else [obj]


def _split_steps(F, data, num_outputs, axis):
    """The steps of ``data`` along ``axis`` (that axis removed), as a list."""
    steps = F.split(data, axis=axis, num_outputs=num_outputs, squeeze_axis=True)
    return list(steps) if isinstance(steps, symbol.Symbol) else _as_list(steps)


def _cells_state_info(cells, batch_size):
    return sum([c.state_info(batch_size) for c in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


def _get_begin_state(cell, F, begin_state, inputs, batch_size):
    """``begin_state``, or zeros made by the cell (on the inputs' context for NDArrays)."""
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        ctx = inputs.context if isinstance(inputs, tensor_types) else inputs[0].context
        with ctx:
            return cell.begin_state(func=F.zeros, batch_size=batch_size)
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """Bring ``inputs`` to one tensor in ``layout`` (``merge`` True), a list of
    per-step (N, C) tensors (False), or leave its form (None).

    Returns ``(inputs, time axis, F, batch size)``; the batch size is 0 for Symbols.
    """
    assert inputs is not None, \
        'unroll(inputs=None) has been deprecated. Please create input variables outside unroll.'
    axis = layout.find('T')
    batch_axis = layout.find('N')
    batch_size = 0
    in_axis = in_layout.find('T') if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        F = symbol
        if merge is False:
            assert len(inputs.list_outputs()) == 1, \
                "unroll doesn't allow grouped symbol as input. Please convert to list with " \
                'list(inputs) first or let unroll handle splitting.'
            inputs = _split_steps(symbol, inputs, length, in_axis)
    elif isinstance(inputs, ndarray.NDArray):
        F = ndarray
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            assert length is None or length == inputs.shape[in_axis], \
                'unroll length %s does not match the %d steps of the input' % (
                    length, inputs.shape[in_axis])
            inputs = _split_steps(ndarray, inputs, inputs.shape[in_axis], in_axis)
    else:
        assert length is None or len(inputs) == length, \
            'unroll length %s does not match the %d inputs given' % (length, len(inputs))
        if isinstance(inputs[0], symbol.Symbol):
            F = symbol
        else:
            F = ndarray
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, tensor_types) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    """Zero the steps of ``data`` past each sequence's ``valid_length``."""
    assert valid_length is not None
    if not isinstance(data, tensor_types):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True,
                             axis=time_axis)
    if not merge:
        outputs = _split_steps(F, outputs, length, time_axis)
    return outputs


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    """The list of steps in reverse order; with ``valid_length`` only each sequence's
    valid part is reversed (the padding stays at the end)."""
    F = symbol if isinstance(sequences[0], symbol.Symbol) else ndarray
    if valid_length is None:
        return list(reversed(sequences))
    reversed_sequences = F.SequenceReverse(F.stack(*sequences, axis=0),
                                           sequence_length=valid_length,
                                           use_sequence_length=True)
    if unroll_step > 1 or F is symbol:
        return _split_steps(F, reversed_sequences, unroll_step, 0)
    return [reversed_sequences[0]]


# ---- base classes --------------------------------------------------------------------
class RecurrentCell(Block):
    """Base class of the recurrent cells.

    Subclasses define ``state_info`` and the one-step computation; calling a cell runs
    one step (``output, new_states = cell(x_t, states)``), :meth:`unroll` runs a
    sequence.

    Parameters
    ----------
    prefix : str, optional
        Prefix of the names of child blocks and (when ``params`` is None) weights.
    params : ParameterDict, optional
        Parameters to share with another cell; new ones when None.
    """

    def __init__(self, prefix=None, params=None):
        super(RecurrentCell, self).__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Reset the step and begin-state counters (done by :meth:`unroll`)."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            # an activation block (RNNCell(activation=nn.LeakyReLU(...))) is a child too;
            # MXNet's reset() fails on it, which breaks its unroll()
            if isinstance(cell, RecurrentCell):
                cell.reset()

    def state_info(self, batch_size=0):
        """One dict per state with its ``shape`` and ``__layout__``."""
        raise MXNetError('%s must define state_info()' % type(self).__name__)

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """The initial states of this cell.

        Parameters
        ----------
        batch_size : int, default 0
            Size of the batch ('N' of the layout); needed for NDArray states.
        func : callable, default ndarray.zeros
            Makes each state from ``name``, ``shape``, ``__layout__`` and ``kwargs``:
            ``nd.zeros``/``nd.ones`` for NDArrays, ``sym.zeros``/``sym.var`` ... for
            Symbols.
        **kwargs
            More keyword arguments for ``func`` (``dtype``, ``ctx``, ...).

        Returns
        -------
        list
            The states, named ``<prefix>begin_state_<k>``.

        Examples
        --------
        >>> cell = mx.gluon.rnn.LSTMCell(8)
        >>> [s.shape for s in cell.begin_state(batch_size=2)]
        [(2, 8), (2, 8)]
        """
        assert not self._modified, _MODIFIED
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            if info is not None:
                info.update(kwargs)
            else:
                info = kwargs
            states.append(func(name='%sbegin_state_%d' % (self._prefix, self._init_counter),
                               **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        """Run the cell over ``length`` time steps.

        Parameters
        ----------
        length : int
            Number of steps.
        inputs : Symbol, NDArray or list of them
            One tensor of shape (N, T, ...) for 'NTC' or (T, N, ...) for 'TNC', or a
            list of ``length`` tensors of shape (N, ...).
        begin_state : list, optional
            Initial states; :meth:`begin_state` zeros when None.
        layout : {'NTC', 'TNC'}, default 'NTC'
            Layout of a single-tensor input and of a merged output.
        merge_outputs : bool, optional
            True: one output tensor in ``layout``; False: a list of per-step outputs;
            None: whichever is at hand.
        valid_length : Symbol or NDArray, optional
            Shape (N,): the number of valid steps of each sequence. The outputs past it
            are zeros and the states returned are those of each sequence's last valid
            step.

        Returns
        -------
        outputs : tensor or list of tensors
        states : list of tensors

        Examples
        --------
        >>> cell = mx.gluon.rnn.GRUCell(8); cell.initialize()
        >>> out, states = cell.unroll(3, mx.nd.ones((2, 3, 5)), merge_outputs=True)
        >>> out.shape
        (2, 3, 8)
        """
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        states = begin_state
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*step_states, axis=0),
                                     sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for step_states in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        """Apply ``activation``: a name, a gluon ``LeakyReLU`` or a callable."""
        func = {'tanh': F.tanh, 'relu': F.relu, 'sigmoid': F.sigmoid,
                'softsign': F.softsign}.get(activation)
        if func:
            return func(inputs, **kwargs)
        if isinstance(activation, string_types):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type='leaky', slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        """Run one time step.

        Parameters
        ----------
        inputs : Symbol or NDArray
            The step's input, shape (N, C).
        states : list of Symbol or NDArray
            The states from the previous step or from :meth:`begin_state`.

        Returns
        -------
        output : Symbol or NDArray
        states : list of Symbol or NDArray
            The new states, the same structure as ``states``.
        """
        self._counter += 1
        return super(RecurrentCell, self).forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A recurrent cell that can be hybridized: define ``hybrid_forward(F, inputs,
    states, **params)`` returning ``(output, new_states)``."""

    def __init__(self, prefix=None, params=None):
        super(HybridRecurrentCell, self).__init__(prefix=prefix, params=params)


class _GatedCell(HybridRecurrentCell):
    """The Parameters, state shape and repr the step cells share: ``gates`` blocks of
    ``hidden_size`` rows in each of i2h/h2h weight and bias."""

    def __init__(self, hidden_size, gates, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params,
                 num_states=1):
        super(_GatedCell, self).__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._num_states = num_states
        rows = gates * hidden_size
        self.i2h_weight = self.params.get('i2h_weight', shape=(rows, input_size),
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=(rows, hidden_size),
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}
                for _ in range(self._num_states)]

    def _mapping(self):
        shape = self.i2h_weight.shape
        return '{0} -> {1}'.format(shape[1] if shape[1] else None, shape[0])

    def __repr__(self):
        return '{name}({mapping})'.format(name=self.__class__.__name__,
                                          mapping=self._mapping())

    def _transforms(self, F, inputs, state, i2h_weight, h2h_weight, i2h_bias, h2h_bias,
                    prefix, gates):
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias,
                               num_hidden=self._hidden_size * gates, name=prefix + 'i2h')
        h2h = F.FullyConnected(data=state, weight=h2h_weight, bias=h2h_bias,
                               num_hidden=self._hidden_size * gates, name=prefix + 'h2h')
        return i2h, h2h


# ---- step cells ----------------------------------------------------------------------
class RNNCell(_GatedCell):
    r"""Elman recurrent cell: ``h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``.

    Parameters
    ----------
    hidden_size : int
        Number of features of the output and state.
    activation : str or callable, default 'tanh'
        'tanh', 'relu', 'sigmoid', 'softsign', another ``Activation`` act_type, a
        gluon ``nn.LeakyReLU`` or a function of ``(F-tensor, name=...)``.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Initializers of the input-to-hidden and hidden-to-hidden weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the biases.
    input_size : int, default 0
        Number of input features; inferred at the first call when 0.
    prefix : str, optional
        Name prefix (``rnn<k>_`` when None).
    params : ParameterDict, optional
        Parameters to share.

    Inputs: ``data`` (N, C) and ``states``, a list with one (N, hidden_size) tensor.
    Outputs: ``out`` (N, hidden_size) and ``[out]``.

    Examples
    --------
    >>> cell = mx.gluon.rnn.RNNCell(8, activation='relu'); cell.initialize()
    >>> out, states = cell(mx.nd.ones((2, 5)), cell.begin_state(batch_size=2))
    >>> out.shape
    (2, 8)
    """

    def __init__(self, hidden_size, activation='tanh',
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super(RNNCell, self).__init__(hidden_size, 1, i2h_weight_initializer,
                                      h2h_weight_initializer, i2h_bias_initializer,
                                      h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self):
        return 'rnn'

    def __repr__(self):
        return '{name}({mapping}, {act})'.format(name=self.__class__.__name__,
                                                 mapping=self._mapping(),
                                                 act=self._activation)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._transforms(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                    h2h_bias, prefix, 1)
        i2h_plus_h2h = F.elemwise_add(i2h, h2h, name=prefix + 'plus0')
        output = self._get_activation(F, i2h_plus_h2h, self._activation, name=prefix + 'out')
        return output, [output]


class LSTMCell(_GatedCell):
    r"""Long short-term memory cell; the packed weights hold the gates in the order
    input, forget, candidate, output (as the fused ``RNN`` operator)::

        i, f, g, o = split(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh, 4)
        c_t = ract(f) * c_{t-1} + ract(i) * act(g)
        h_t = ract(o) * act(c_t)

    Parameters
    ----------
    hidden_size : int
        Number of features of the output and of both states (h and c).
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Initializers of the weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the biases.
    input_size : int, default 0
        Number of input features; inferred at the first call when 0.
    prefix : str, optional
        Name prefix (``lstm<k>_`` when None).
    params : ParameterDict, optional
        Parameters to share.
    activation : str, default 'tanh'
        ``act`` above (an ``Activation`` act_type).
    recurrent_activation : str, default 'sigmoid'
        ``ract`` above, the gates' activation.

    Inputs: ``data`` (N, C) and ``states`` = [h, c], each (N, hidden_size). Outputs:
    ``out`` (N, hidden_size) and [h, c].

    Examples
    --------
    >>> cell = mx.gluon.rnn.LSTMCell(8); cell.initialize()
    >>> out, (h, c) = cell(mx.nd.ones((2, 5)), cell.begin_state(batch_size=2))
    >>> c.shape
    (2, 8)
    """

    def __init__(self, hidden_size,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None, activation='tanh',
                 recurrent_activation='sigmoid'):
        super(LSTMCell, self).__init__(hidden_size, 4, i2h_weight_initializer,
                                       h2h_weight_initializer, i2h_bias_initializer,
                                       h2h_bias_initializer, input_size, prefix, params,
                                       num_states=2)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self):
        return 'lstm'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._transforms(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                    h2h_bias, prefix, 4)
        gates = F.elemwise_add(i2h, h2h, name=prefix + 'plus0')
        slices = F.SliceChannel(gates, num_outputs=4, name=prefix + 'slice')
        ract, act = self._recurrent_activation, self._activation
        in_gate = self._get_activation(F, slices[0], ract, name=prefix + 'i')
        forget_gate = self._get_activation(F, slices[1], ract, name=prefix + 'f')
        in_transform = self._get_activation(F, slices[2], act, name=prefix + 'c')
        out_gate = self._get_activation(F, slices[3], ract, name=prefix + 'o')
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + 'mul0'),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + 'mul1'),
                                name=prefix + 'state')
        # MXNet squashes the new cell state with Activation(act_type=activation)
        squashed = F.Activation(next_c, act_type=act, name=prefix + 'activation0')
        next_h = F.elemwise_mul(out_gate, squashed, name=prefix + 'out')
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    r"""Gated recurrent unit cell, cuDNN's variant (the reset gate scales
    ``W_hn h + b_hn``); the packed weights hold the gates in the order reset, update,
    new::

        r = sigmoid(i2h_r + h2h_r);  z = sigmoid(i2h_z + h2h_z)
        n = tanh(i2h_n + r * h2h_n)
        h_t = (1 - z) * n + z * h_{t-1}

    Parameters
    ----------
    hidden_size : int
        Number of features of the output and state.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Initializers of the weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the biases.
    input_size : int, default 0
        Number of input features; inferred at the first call when 0.
    prefix : str, optional
        Name prefix (``gru<k>_`` when None).
    params : ParameterDict, optional
        Parameters to share.

    Examples
    --------
    >>> cell = mx.gluon.rnn.GRUCell(8); cell.initialize()
    >>> out, states = cell(mx.nd.ones((2, 5)), cell.begin_state(batch_size=2))
    """

    def __init__(self, hidden_size,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super(GRUCell, self).__init__(hidden_size, 3, i2h_weight_initializer,
                                      h2h_weight_initializer, i2h_bias_initializer,
                                      h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return 'gru'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        prev_h = states[0]
        i2h, h2h = self._transforms(F, inputs, prev_h, i2h_weight, h2h_weight, i2h_bias,
                                    h2h_bias, prefix, 3)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + 'i2h_slice')
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + 'h2h_slice')
        reset_gate = F.Activation(F.elemwise_add(i2h_r, h2h_r, name=prefix + 'plus0'),
                                  act_type='sigmoid', name=prefix + 'r_act')
        update_gate = F.Activation(F.elemwise_add(i2h_z, h2h_z, name=prefix + 'plus1'),
                                   act_type='sigmoid', name=prefix + 'z_act')
        candidate = F.Activation(
            F.elemwise_add(i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + 'mul0'),
                           name=prefix + 'plus2'),
            act_type='tanh', name=prefix + 'h_act')
        ones = F.ones_like(update_gate, name=prefix + 'ones_like0')
        keep_new = F.elemwise_sub(ones, update_gate, name=prefix + 'minus0')
        next_h = F.elemwise_add(F.elemwise_mul(keep_new, candidate, name=prefix + 'mul1'),
                                F.elemwise_mul(update_gate, prev_h, name=prefix + 'mul20'),
                                name=prefix + 'out')
        return next_h, [next_h]



# ---- containers ----------------------------------------------------------------------
class _CellStack:
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

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        """The children's begin states, concatenated (keyword arguments as
        :meth:`RecurrentCell.begin_state`)."""
        assert not self._modified, _MODIFIED
        return _cells_begin_state(self._children.values(), **kwargs)

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


class BidirectionalCell(HybridRecurrentCell):
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

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        """The forward cell's begin states, then the backward cell's."""
        assert not self._modified, _MODIFIED
        return _cells_begin_state(self._children.values(), **kwargs)

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


# ---- modifiers -----------------------------------------------------------------------
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
