"""The fused ``RNN`` operator as ONNX LSTM / GRU / RNN nodes, one per layer.

MXNet packs every weight of every layer and direction into one flat vector, gates in
the order i, f, g, o (LSTM) or r, z, n (GRU); ONNX wants per-layer W, R and B tensors
with gates i, o, f, c and z, r, h. Constant parameters (given in ``params``) are cut and
reordered here, at export time; parameters fed as a graph input are cut and reordered in
the graph (Slice, Reshape, Gather of the gates). MXNet's GRU is
cuDNN's (the reset gate scales ``W_hn h + b_hn``): ONNX's ``linear_before_reset=1``.
Layers are chained through their outputs; the initial states are sliced per layer
(or left out when they are zeros, ONNX's default, which also lets the batch vary).
"""
import numpy as np

from ....ops.recurrent import _Layout
from ..registry import translator
from .common import reshape_to, slice_axes

_ONNX_OP = {'lstm': 'LSTM', 'gru': 'GRU', 'rnn_tanh': 'RNN', 'rnn_relu': 'RNN'}
# ONNX gate position -> MXNet gate position
_GATE_ORDER = {'lstm': [0, 3, 1, 2], 'gru': [1, 0, 2], 'rnn_tanh': [0], 'rnn_relu': [0]}


def _reorder(matrix, mode, hidden):
    """Rows of stacked gates in ONNX's order."""
    return np.concatenate([matrix[g * hidden:(g + 1) * hidden] for g in _GATE_ORDER[mode]])


def _layer_weights(params, layout, layer, mode, hidden):
    """(W, R, B) of one layer, each with a leading directions axis."""
    ws, rs, bs = [], [], []
    for direction in range(layout.dirs):
        (w_at, rows, width), (r_at, _, _) = layout.weights[layer][direction]
        w = params[w_at:w_at + rows * width].reshape(rows, width)
        r = params[r_at:r_at + rows * hidden].reshape(rows, hidden)
        wb_at, rb_at = layout.biases[layer][direction]
        wb, rb = params[wb_at:wb_at + rows], params[rb_at:rb_at + rows]
        ws.append(_reorder(w, mode, hidden))
        rs.append(_reorder(r, mode, hidden))
        bs.append(np.concatenate([_reorder(wb, mode, hidden), _reorder(rb, mode, hidden)]))
    return np.stack(ws), np.stack(rs), np.stack(bs)


def _layer_weights_graph(g, node, layout, layer, mode, hidden):
    """(W, R, B) of one layer cut from the parameter input in the graph (each with a
    leading directions axis)."""
    params, gates = node.input(1), len(_GATE_ORDER[mode])
    order = g.int64s(_GATE_ORDER[mode], 'gate_order')
    hint = '%s_l%d' % (node.name, layer)

    def piece(start, shape, tag):
        """``params[start:start + prod(shape)]`` as ``shape`` with the gates (axis 0)
        in ONNX's order."""
        flat = slice_axes(g, params, [start], [start + int(np.prod(shape))], [0],
                          hint=hint + tag)
        gated = g.add('Gather', [reshape_to(g, flat, list(shape), hint=hint + tag), order],
                      hint=hint + tag + '_gates', axis=0)
        return reshape_to(g, gated, [1, -1] + list(shape[2:]), hint=hint + tag + '_dir')
    parts = [[], [], []]
    for direction in range(layout.dirs):
        (w_at, rows, width), (r_at, _, _) = layout.weights[layer][direction]
        wb_at, rb_at = layout.biases[layer][direction]
        parts[0].append(piece(w_at, (gates, hidden, width), '_w%d' % direction))
        parts[1].append(piece(r_at, (gates, hidden, hidden), '_r%d' % direction))
        parts[2].append(g.add('Concat', [piece(wb_at, (gates, hidden), '_wb%d' % direction),
                                         piece(rb_at, (gates, hidden), '_rb%d' % direction)],
                              hint=hint + '_b%d' % direction, axis=1))
    return [p[0] if len(p) == 1 else g.add('Concat', p, hint=hint + tag, axis=0)
            for p, tag in zip(parts, ('_W', '_R', '_B'))]


def _is_zeros(g, node, index):
    """Whether input ``index`` is all zeros (a zeros operator or a constant of zeros)."""
    value = node.const(index)
    if value is not None:
        return not np.any(value)
    child = node.node.inputs[index][0]
    return child.op in ('_zeros', '_zeros_without_dtype')


@translator('RNN')
def rnn(g, node):
    op = node.op
    if op.projection_size is not None:
        node.fail('projection_size (LSTMP) has no ONNX equivalent')
    if op.lstm_state_clip_min is not None or op.lstm_state_clip_max is not None:
        node.fail('lstm_state_clip_min/max (ONNX clips gates, not the cell state)')
    if op.use_sequence_length:
        node.fail('use_sequence_length=True')
    params = node.const(1)
    mode, hidden = op.mode, op.state_size
    dirs = 2 if op.bidirectional else 1
    T, N, I = node.in_shape(0)
    layout = _Layout(mode, op.num_layers, dirs, T, N, I, hidden, False)
    states = [2, 3] if op.is_lstm else [2]
    zero_states = [_is_zeros(g, node, i) for i in states]
    x = node.input(0)
    finals = [[] for _ in states]
    for layer in range(op.num_layers):
        if params is None:
            inputs = [x] + _layer_weights_graph(g, node, layout, layer, mode, hidden) + ['']
        else:
            w, r, b = _layer_weights(np.asarray(params), layout, layer, mode, hidden)
            inputs = [x, g.constant(w, '%s_l%d_W' % (node.name, layer)),
                      g.constant(r, '%s_l%d_R' % (node.name, layer)),
                      g.constant(b, '%s_l%d_B' % (node.name, layer)), '']
        for index, zero in zip(states, zero_states):
            if zero:
                inputs.append('')
            else:
                inputs.append(slice_axes(g, node.input(index), [layer * dirs],
                                         [(layer + 1) * dirs], [0],
                                         hint='%s_l%d_init' % (node.name, layer)))
        while inputs and inputs[-1] == '':
            inputs.pop()
        attrs = {'hidden_size': hidden, 'direction': 'bidirectional' if dirs == 2
                 else 'forward'}
        if mode == 'gru':
            attrs['linear_before_reset'] = 1
        elif mode.startswith('rnn'):
            attrs['activations'] = ['Relu' if mode == 'rnn_relu' else 'Tanh'] * dirs
        outs = g.add(_ONNX_OP[mode], inputs, 1 + len(states),
                     hint='%s_l%d' % (node.name, layer), **attrs)
        y, last = outs[0], outs[1:]
        for collected, state in zip(finals, last):
            collected.append(state)
        # (T, dirs, N, H) -> (T, N, dirs * H)
        y = g.add('Transpose', [y], hint='%s_l%d_y' % (node.name, layer), perm=[0, 2, 1, 3])
        is_last = layer == op.num_layers - 1
        x = reshape_to(g, y, [0, 0, -1], node.outputs[0] if is_last else None,
                       hint='%s_l%d_out' % (node.name, layer))
    if op.state_outputs:
        for collected, out in zip(finals, node.outputs[1:]):
            if len(collected) == 1:
                g.add('Identity', collected, [out])
            else:
                g.add('Concat', collected, [out], axis=0)
