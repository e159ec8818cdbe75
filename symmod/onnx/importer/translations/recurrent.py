"""ONNX LSTM / GRU / RNN as symmod's fused ``RNN`` operator (one layer).

The constant W, R and B tensors are packed into MXNet's flat parameter vector with the
gates back in MXNet's order (the inverse of the export's reordering). ONNX's outputs
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


@translator('LSTM', 'GRU', 'RNN')
def recurrent(g, node):
    from .... import symbol as S
    mode = _mode(node)
    for attr in ('clip', 'input_forget'):
        if node.attrs.get(attr):
            node.fail('%s is not supported' % attr)
    if node.attrs.get('layout', 0) != 0:
        node.fail('layout=1 (batch first)')
    if mode == 'gru' and not node.attrs.get('linear_before_reset', 0):
        node.fail("linear_before_reset=0 (MXNet's GRU applies the reset gate after the "
                  "recurrent product, ONNX's linear_before_reset=1)")
    if node.has(4):
        node.fail('sequence_lens')
    if node.has(7):
        node.fail('peephole weights P')
    w = node.required_const(1, 'W')
    r = node.required_const(2, 'R')
    hidden = node.attrs.get('hidden_size') or r.shape[-1]
    dirs = w.shape[0]
    gates = w.shape[1] // hidden
    b = node.const(3) if node.has(3) else np.zeros((dirs, 2 * gates * hidden), w.dtype)
    if node.has(3) and b is None:
        node.fail('its B (input 3) must be a constant')
    weights = []
    for d in range(dirs):
        weights.append(_to_mxnet_gates(w[d], mode, hidden).reshape(-1))
        weights.append(_to_mxnet_gates(r[d], mode, hidden).reshape(-1))
    for d in range(dirs):
        half = gates * hidden
        weights.append(_to_mxnet_gates(b[d][:half], mode, hidden))
        weights.append(_to_mxnet_gates(b[d][half:], mode, hidden))
    params = g.new_param(node.name + '_parameters', np.concatenate(weights).astype(w.dtype))
    states = []
    for index in ([5, 6] if mode == 'lstm' else [5]):
        states.append(node.sym(index) if node.has(index)
                      else S.zeros(shape=(dirs, 0, hidden), dtype=w.dtype.name))
    out = S.RNN(node.sym(0), params, *states, state_size=hidden, num_layers=1, mode=mode,
                bidirectional=dirs == 2, state_outputs=True, name=node.name)
    y = S.transpose(S.Reshape(out[0], shape=(0, 0, dirs, hidden)), axes=(0, 2, 1, 3))
    return [y] + [out[i] for i in range(1, len(states) + 1)]
