"""Graphs holding a fused ``RNN`` node whose symbol JSON is compared with MXNet's, built by
a given ``mx`` (symmod in tests/ops/test_recurrent_state.py, real MXNet in
tests/data/gen/gen_rnn_symbol_json.py). Build each inside a fresh NameManager so that
auto-names start from zero."""
import warnings


def fused_lstm_bidirectional(mx):
    """FusedRNNCell: 2-layer bidirectional LSTM unrolled over 3 steps, with its states."""
    cell = mx.rnn.FusedRNNCell(5, num_layers=2, mode='lstm', bidirectional=True,
                               get_next_state=True, prefix='lstm_')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        outputs, states = cell.unroll(3, mx.sym.var('data'), layout='TNC',
                                      merge_outputs=True)
    return mx.sym.Group([outputs] + states)


def rnn_state_outputs(mx):
    """sym.RNN (LSTM, state_outputs=True) whose three outputs all feed later nodes."""
    data = mx.sym.var('data')
    rnn = mx.sym.RNN(data, state_size=4, num_layers=1, mode='lstm', state_outputs=True,
                     name='rnn')
    summed = rnn[1] + rnn[2]
    head = mx.sym.FullyConnected(mx.sym.reshape(rnn[0], shape=(-1, 4)), num_hidden=2,
                                 name='fc')
    return mx.sym.Group([head, mx.sym.sum(summed), rnn[2]])


def rnn_gru_single_output(mx):
    """sym.RNN (GRU, two layers, no state outputs) followed by another operator."""
    rnn = mx.sym.RNN(mx.sym.var('data'), state_size=3, num_layers=2, mode='gru', p=0.2,
                     name='gru')
    return mx.sym.tanh(rnn, name='act')


GRAPHS = {
    'fused_lstm_bidirectional': fused_lstm_bidirectional,
    'rnn_state_outputs': rnn_state_outputs,
    'rnn_gru_single_output': rnn_gru_single_output,
}
