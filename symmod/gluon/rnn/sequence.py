"""How the gluon recurrent cells take and give sequences: one tensor or a list of
per-step tensors in layout 'NTC' or 'TNC', begin states made on demand, and the
``valid_length`` masking (``SequenceMask``) and reversal (``SequenceReverse``) that
MXNet 1.9.1 applies."""
from ... import ndarray, symbol
from ..parameter import tensor_types


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
