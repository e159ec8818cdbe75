"""ONNX LSTM / GRU / RNN as symmod's fused ``RNN`` operator (one layer).

W, R and B are packed into MXNet's flat parameter vector with the gates back in MXNet's
order (the inverse of the export's reordering): at import when they are constants, in
the graph (slice, take, concat) when they are computed or fed as inputs. ONNX's outputs
are rebuilt from the operator's: Y is (T, N, dirs * H) reshaped to (T, dirs, N, H).
"""
import numpy as np

from ...export.translations.recurrent import _GATE_ORDER
from ..registry import translator

_MODES = {'LSTM': 'lstm', 'GRU': 'gru'}
_DEFAULT_ACTIVATIONS = {'LSTM': ['Sigmoid', 'Tanh', 'Tanh'], 'GRU': ['Sigmoid', 'Tanh']}


def _to_mxnet_gates(matrix, mode, hidden):
    """Rows of stacked ONNX-ordered gates back in MXNet's order."""
    order = _GATE_ORDER[mode]
    blocks = [None] * len(order)
    for onnx_position, mx_gate in enumerate(order):
        blocks[mx_gate] = matrix[onnx_position * hidden:(onnx_position + 1) * hidden]
    return np.concatenate(blocks)


def _mode(node):
    if node.op_type in _MODES:
        expected = _DEFAULT_ACTIVATIONS[node.op_type]
        acts = node.attrs.get('activations')
        if acts and [a.lower() for a in acts] != [a.lower() for a in expected] * (
                len(acts) // len(expected)):
            node.fail('activations %s' % acts)
        return _MODES[node.op_type]
    acts = [a.lower() for a in node.attrs.get('activations', ['Tanh'])]
    if len(set(acts)) != 1 or acts[0] not in ('tanh', 'relu'):
        node.fail('activations %s' % acts)
    return 'rnn_' + acts[0]


def _packed(node, mode, directions):
    """MXNet's flat parameter vector for the ONNX directions ``directions`` (gates back
    in MXNet's order): all W and R matrices, then all biases."""
    w = node.required_const(1, 'W')
    r = node.required_const(2, 'R')
    hidden = node.attrs.get('hidden_size') or r.shape[-1]
    gates = w.shape[1] // hidden
    b = node.const(3) if node.has(3) else np.zeros((w.shape[0], 2 * gates * hidden), w.dtype)
    if node.has(3) and b is None:
        node.fail('its B (input 3) must be a constant')
    weights = []
    for d in directions:
        weights.append(_to_mxnet_gates(w[d], mode, hidden).reshape(-1))
        weights.append(_to_mxnet_gates(r[d], mode, hidden).reshape(-1))
    for d in directions:
        half = gates * hidden
        weights.append(_to_mxnet_gates(b[d][:half], mode, hidden))
        weights.append(_to_mxnet_gates(b[d][half:], mode, hidden))
    return np.concatenate(weights).astype(w.dtype), hidden


def _weights(g, node):
    """(directions, hidden size, dtype name) from W / R, constant or not."""
    w_shape, r_shape = node.shape(1), node.shape(2)
    if w_shape is None or r_shape is None or None in w_shape or None in r_shape:
        node.fail('W and R of unknown shape')
    hidden = node.attrs.get('hidden_size') or r_shape[-1]
    dtype = np.dtype(g.types.get(node.inputs[1], np.float32)).name
    return w_shape[0], hidden, dtype


def _packed_in_graph(node, S, mode, directions, hidden, dtype):
    """:func:`_packed` as symbols: W, R and B not constants."""
    back = list(np.argsort(_GATE_ORDER[mode]))        # MXNet gate -> ONNX position
    gates = len(back)
    picks = [S.slice_axis(node.sym(3), axis=1, begin=0, end=gates * hidden),
             S.slice_axis(node.sym(3), axis=1, begin=gates * hidden, end=2 * gates * hidden)] \
        if node.has(3) else None

    def regate(m, d, width):
        rows = S.reshape(S.slice_axis(m, axis=0, begin=d, end=d + 1),
                         shape=(gates, hidden) + ((width,) if width else ()))
        parts = [S.slice_axis(rows, axis=0, begin=int(k), end=int(k) + 1) for k in back]
        return S.reshape(S.concat(*parts, dim=0) if gates > 1 else parts[0], shape=(-1,))
    weights = []
    for d in directions:
        weights.append(regate(node.sym(1), d, node.shape(1)[2]))
        weights.append(regate(node.sym(2), d, hidden))
    for d in directions:
        if picks is None:
            weights.append(S.zeros(shape=(2 * gates * hidden,), dtype=dtype))
        else:
            weights += [regate(picks[0], d, 0), regate(picks[1], d, 0)]
    return S.concat(*weights, dim=0)


def _parameters(g, node, S, mode, directions, name):
    """(the RNN's parameter symbol, hidden size, dtype name) for ``directions``."""
    if node.const(1) is not None and node.const(2) is not None and \
            (not node.has(3) or node.const(3) is not None):
        packed, hidden = _packed(node, mode, directions)
        return g.new_param(name + '_parameters', packed), hidden, packed.dtype.name
    _, hidden, dtype = _weights(g, node)
    return _packed_in_graph(node, S, mode, directions, hidden, dtype), hidden, dtype


def _check(node, mode):
    for attr in ('clip', 'input_forget'):
        if node.attrs.get(attr):
            node.fail('%s is not supported' % attr)
    if mode == 'gru' and not node.attrs.get('linear_before_reset', 0):
        node.fail("linear_before_reset=0 (MXNet's GRU applies the reset gate after the "
                  "recurrent product, ONNX's linear_before_reset=1)")
    if node.has(7):
        node.fail('peephole weights P')


@translator('LSTM', 'GRU', 'RNN')
def recurrent(g, node):
    """Time-major (layout 0) or batch-major (layout 1) data; without sequence_lens a
    forward or bidirectional layer is one fused RNN. With sequence_lens (or
    direction='reverse') each direction is its own RNN: the reverse one runs on the
    sequences reversed within their lengths (SequenceReverse), outputs past a length are
    0 (SequenceMask) and the final hidden state is the one at the last valid step
    (SequenceLast)."""
    from .... import symbol as S
    mode = _mode(node)
    _check(node, mode)
    batch_first = node.attrs.get('layout', 0) == 1
    dirs = _weights(g, node)[0]
    states_in = [5, 6] if mode == 'lstm' else [5]
    x = node.sym(0)
    if batch_first:
        x = S.transpose(x, axes=(1, 0, 2), name=node.name + '_time_major')
    states = {i: (S.transpose(node.sym(i), axes=(1, 0, 2)) if batch_first else node.sym(i))
              for i in states_in if node.has(i)}
    lengths = node.sym(4) if node.has(4) else None
    reverse = node.attrs.get('direction', 'forward') == 'reverse'
    if lengths is None and not reverse:
        ys, finals = _fused(g, node, S, mode, x, states, list(range(dirs)), states_in)
    else:
        if lengths is not None and mode == 'lstm' and len(node.outputs) > 2 \
                and node.outputs[2]:
            node.fail('the Y_c output with sequence_lens (the cell state at each '
                      "sequence's last step is not an output of MXNet's RNN)")
        parts = [_one_direction(g, node, S, mode, x, states, d, states_in, lengths,
                                reverse or d == 1) for d in range(dirs)]
        ys = S.concat(*[p[0] for p in parts], dim=1) if dirs > 1 else parts[0][0]
        finals = [S.concat(*[p[1][k] for p in parts], dim=0) if dirs > 1 else parts[0][1][k]
                  for k in range(len(parts[0][1]))]
    if batch_first:
        ys = S.transpose(ys, axes=(2, 0, 1, 3))
        finals = [S.transpose(f, axes=(1, 0, 2)) for f in finals]
    return [ys] + finals


def _zero_state(S, dirs, hidden, dtype):
    return S.zeros(shape=(dirs, 0, hidden), dtype=dtype)


def _fused(g, node, S, mode, x, states, directions, states_in):
    """One RNN over ``directions``: Y as (T, dirs, N, H) and the final states."""
    params, hidden, dtype = _parameters(g, node, S, mode, directions, node.name)
    dirs = len(directions)
    initial = [states.get(i, _zero_state(S, dirs, hidden, dtype)) for i in states_in]
    out = S.RNN(x, params, *initial, state_size=hidden, num_layers=1, mode=mode,
                bidirectional=dirs == 2, state_outputs=True, name=node.name)
    y = S.transpose(S.Reshape(out[0], shape=(0, 0, dirs, hidden)), axes=(0, 2, 1, 3))
    return y, [out[i] for i in range(1, len(states_in) + 1)]


def _one_direction(g, node, S, mode, x, states, d, states_in, lengths, reverse):
    """Direction ``d`` alone: Y as (T, 1, N, H) and its final states."""
    name = '%s_dir%d' % (node.name, d)
    params, hidden, dtype = _parameters(g, node, S, mode, [d], name)
    initial = [S.slice_axis(states[i], axis=0, begin=d, end=d + 1) if i in states
               else _zero_state(S, 1, hidden, dtype) for i in states_in]
    by_length = {'use_sequence_length': lengths is not None}
    extra = [lengths] if lengths is not None else []
    if reverse:
        x = S.SequenceReverse(x, *extra, **by_length)
    out = S.RNN(x, params, *initial, state_size=hidden, num_layers=1, mode=mode,
                state_outputs=True, name=name)
    y = out[0]
    finals = [out[i] for i in range(1, len(states_in) + 1)]
    if lengths is not None:
        finals[0] = S.expand_dims(S.SequenceLast(y, lengths, use_sequence_length=True), axis=0)
    if reverse:
        y = S.SequenceReverse(y, *extra, **by_length)
    if lengths is not None:
        y = S.SequenceMask(y, lengths, use_sequence_length=True)
    return S.expand_dims(y, axis=1), finals
