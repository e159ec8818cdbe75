"""Bind time against graph size: relu chains and unrolled LSTMs (issue 11 item 6).

    python benchmarks/bind_time.py [--quick] [--repeat R] [--max-chain N]

For each graph: nodes, the best of a few ``simple_bind`` times, and the bytes the bound
executor holds (planned storage, pool). Bind should grow about linearly with the node
count. Prints the load average, since other processes share the machine.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import symmod as mx  # noqa: E402


def relu_chain(n):
    net = mx.sym.Variable('data')
    for i in range(n):
        net = mx.sym.Activation(net, act_type='relu', name='relu%d' % i)
    return mx.sym.MakeLoss(mx.sym.sum(net), name='loss'), {'data': (16, 64)}


def unrolled_lstm(steps, layers=2, hidden=200, embed=200):
    cell = mx.rnn.SequentialRNNCell()
    for i in range(layers):
        cell.add(mx.rnn.LSTMCell(hidden, prefix='lstm_l%d_' % i))
    data = mx.sym.Variable('data')
    outputs, _ = cell.unroll(steps, data, layout='NTC', merge_outputs=True)
    pred = mx.sym.FullyConnected(mx.sym.Reshape(outputs, shape=(-1, hidden)), num_hidden=50,
                                 name='pred')
    label = mx.sym.Reshape(mx.sym.Variable('softmax_label'), shape=(-1,))
    return mx.sym.SoftmaxOutput(pred, label, name='softmax'), \
        {'data': (8, steps, embed), 'softmax_label': (8, steps)}


def measure(net, shapes, repeat):
    best, executor = None, None
    for _ in range(repeat):
        start = time.perf_counter()
        executor = net.simple_bind(mx.cpu(), **shapes)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, executor._plan.storage_bytes, executor._pool.nbytes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='smaller graphs, one bind each')
    parser.add_argument('--repeat', type=int, default=3, help='binds per graph (best is kept)')
    parser.add_argument('--max-chain', type=int, default=16000, help='longest relu chain')
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    chains = [1000, 2000, 4000] if args.quick else \
        [n for n in (1000, 2000, 4000, 8000, 16000) if n <= args.max_chain]
    lstms = [30, 60] if args.quick else [30, 60, 120, 240]
    print('load average at start: %.2f %.2f %.2f' % os.getloadavg())
    print('| graph | nodes | bind s (best of %d) | s per 1k nodes | storage MB | pool MB |'
          % repeat)
    print('|---|---|---|---|---|---|')
    cases = [('relu chain %d' % n, relu_chain(n)) for n in chains]
    cases += [('2-layer LSTM x %d steps' % t, unrolled_lstm(t)) for t in lstms]
    for label, (net, shapes) in cases:
        nodes = len(net.tojson().split('"op"')) - 1
        seconds, storage, pool = measure(net, shapes, repeat)
        print('| %s | %d | %.3f | %.3f | %.2f | %.2f |'
              % (label, nodes, seconds, 1000 * seconds / nodes, storage / 2 ** 20, pool / 2 ** 20))
        sys.stdout.flush()
    print('load average at end: %.2f %.2f %.2f' % os.getloadavg())


if __name__ == '__main__':
    main()
