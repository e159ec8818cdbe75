"""Write tests/data/rnn_symbol_json_reference.json: the symbol JSON MXNet 1.9.1 writes
for graphs holding a fused ``RNN`` node (its outputs count in ``node_row_ptr``).

Run with the real MXNet (not in CI):  /work/mxvenv/bin/python tests/data/gen/gen_rnn_symbol_json.py

Each graph is built inside a fresh NameManager, so auto-names start from zero; the
test builds the same graphs with symmod the same way and compares the text.
"""
import json
import os

import mxnet as mx


def fused_lstm_bidirectional():
    """FusedRNNCell: 2-layer bidirectional LSTM unrolled over 3 steps, with its states."""
    cell = mx.rnn.FusedRNNCell(5, num_layers=2, mode='lstm', bidirectional=True,
                               get_next_state=True, prefix='lstm_')
    outputs, states = cell.unroll(3, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    return mx.sym.Group([outputs] + states)


def rnn_state_outputs():
    """sym.RNN (LSTM, state_outputs=True) whose three outputs all feed later nodes."""
    data = mx.sym.var('data')
    rnn = mx.sym.RNN(data, state_size=4, num_layers=1, mode='lstm', state_outputs=True,
                     name='rnn')
    summed = rnn[1] + rnn[2]
    head = mx.sym.FullyConnected(mx.sym.reshape(rnn[0], shape=(-1, 4)), num_hidden=2,
                                 name='fc')
    return mx.sym.Group([head, mx.sym.sum(summed), rnn[2]])


def rnn_gru_single_output():
    """sym.RNN (GRU, two layers, no state outputs) followed by another operator."""
    rnn = mx.sym.RNN(mx.sym.var('data'), state_size=3, num_layers=2, mode='gru', p=0.2,
                     name='gru')
    return mx.sym.tanh(rnn, name='act')


GRAPHS = {
    'fused_lstm_bidirectional': fused_lstm_bidirectional,
    'rnn_state_outputs': rnn_state_outputs,
    'rnn_gru_single_output': rnn_gru_single_output,
}


def main():
    texts = {}
    for key, build in GRAPHS.items():
        with mx.name.NameManager():
            texts[key] = build().tojson()
    path = os.path.join(os.path.dirname(__file__), '..', 'rnn_symbol_json_reference.json')
    with open(path, 'w') as f:
        json.dump(texts, f, indent=1, sort_keys=True)
        f.write('\n')
    print('wrote %s (%d graphs)' % (os.path.abspath(path), len(texts)))


if __name__ == '__main__':
    main()
