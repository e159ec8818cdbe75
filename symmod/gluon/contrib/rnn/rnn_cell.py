"""``gluon.contrib.rnn.rnn_cell``: ``dynamic_unroll`` (a cell run over the time steps with
``F.contrib.foreach``, so a hybridized block holds one loop node instead of one copy of
the cell per step) beside the contrib cells MXNet keeps in this module."""
from ...rnn.cells import LSTMPCell
from ...rnn.modifiers import VariationalDropoutCell
from ...rnn.sequence import _as_list, _format_sequence

__all__ = ['VariationalDropoutCell', 'LSTMPCell', 'dynamic_unroll']


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0,
                   layout='TNC', valid_length=None):
    """Run ``cell`` over the steps of ``inputs`` with ``F.contrib.foreach``.

    Parameters
    ----------
    cell : RecurrentCell
        The cell to run.
    inputs : Symbol or NDArray
        ``(length, batch, ...)`` for layout 'TNC', ``(batch, length, ...)`` for 'NTC'.
    begin_state : list of Symbol or NDArray
        The cell's initial states.
    drop_inputs, drop_outputs : float, default 0
        Dropout rates on the inputs and outputs (the same mask for every step).
    layout : str, default 'TNC'
    valid_length : Symbol or NDArray, optional
        ``(batch,)`` lengths: states stop changing after a sequence's last step, and the
        outputs beyond it are 0.

    Returns
    -------
    outputs : Symbol or NDArray
        In ``layout``.
    states : list of Symbol or NDArray
        The states after each sequence's last valid step.
    """
    inputs, axis, F, _ = _format_sequence(0, inputs, layout, True)
    if axis != 0:
        axes = list(range(len(layout)))
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    states = begin_state
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    if valid_length is None:
        def loop_body(step, states):
            return cell(step, states)
    else:
        states = list(_as_list(states)) + [F.zeros((1,))]    # the last: the step number

        def loop_body(step, states):
            cell_states, step_no = states[:-1], states[-1]
            out, new_states = cell(step, cell_states)
            running = F.broadcast_greater(valid_length, step_no)
            new_states = [F.where(running, new, old)
                          for new, old in zip(new_states, cell_states)]
            return out, new_states + [step_no + 1]
    outputs, states = F.contrib.foreach(loop_body, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axis != 0:
        outputs = F.transpose(outputs, axes)
    if valid_length is None:
        return outputs, states
    outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True,
                             axis=axis)
    return outputs, states[:-1]
