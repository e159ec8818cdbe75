"""RecurrentCell and HybridRecurrentCell: what every gluon recurrent cell shares
(begin states, the step counter, ``unroll`` over a sequence, the activations)."""
from ... import ndarray
from ...base import MXNetError, string_types
from ..block import Block
from ..hybrid_block import HybridBlock
from ..nn import LeakyReLU
from .sequence import _format_sequence, _get_begin_state, _mask_sequence_variable_length

__all__ = ['RecurrentCell', 'HybridRecurrentCell']

_MODIFIED = ('After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be '
             'called directly. Call the modifier cell instead.')


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
