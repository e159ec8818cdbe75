"""The fused ``RNN`` operator: forward + backward time of symmod vs PyTorch nn.LSTM / nn.GRU.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/fused_rnn.py              # 3 rounds of 10 steps per side
    python benchmarks/fused_rnn.py --quick

Both sides: sequence length 35, batch 32, input and hidden 200, 2 layers, float32, the
same weights and data; one step = forward in training mode + backward with a gradient of
ones on the output, through all layers and time steps, computing gradients for the data,
the states and every weight. symmod runs ``mx.sym.RNN`` bound once in an executor;
PyTorch runs ``nn.LSTM`` / ``nn.GRU``. Each measurement runs in a fresh process (thread
settings of one framework must not affect the other); best round counts.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

from _progress import first_run_notice, say

HERE = os.path.dirname(os.path.abspath(__file__))
T, N, I, H, LAYERS = 35, 32, 200, 200, 2
GATES = {'lstm': 4, 'gru': 3}


def _weights(mode, rng):
    """Per layer: (W_i2h, W_h2h, b_i2h, b_h2h) in the gate order both libraries share
    for the data they take (PyTorch: i,f,g,o / r,z,n; MXNet the same)."""
    g = GATES[mode]
    layers = []
    for layer in range(LAYERS):
        n_in = I if layer == 0 else H
        layers.append((rng.uniform(-0.1, 0.1, (g * H, n_in)).astype(np.float32),
                       rng.uniform(-0.1, 0.1, (g * H, H)).astype(np.float32),
                       rng.uniform(-0.1, 0.1, g * H).astype(np.float32),
                       rng.uniform(-0.1, 0.1, g * H).astype(np.float32)))
    return layers


def run_symmod(mode, steps):
    sys.path.insert(0, os.path.join(HERE, '..'))
    import symmod as mx
    rng = np.random.default_rng(0)
    layers = _weights(mode, rng)
    flat = np.concatenate([w.ravel() for layer in layers for w in layer[:2]]
                          + [b for layer in layers for b in layer[2:]])
    sym = mx.sym.RNN(mx.sym.var('data'), mx.sym.var('params'), mx.sym.var('state'),
                     *([mx.sym.var('state_cell')] if mode == 'lstm' else []),
                     state_size=H, num_layers=LAYERS, mode=mode, name='rnn')
    shapes = {'data': (T, N, I), 'params': flat.shape, 'state': (LAYERS, N, H)}
    if mode == 'lstm':
        shapes['state_cell'] = (LAYERS, N, H)
    exe = sym.simple_bind(mx.cpu(), **shapes)
    exe.arg_dict['data'][:] = rng.standard_normal((T, N, I)).astype(np.float32)
    exe.arg_dict['params'][:] = flat
    ones = mx.nd.ones((T, N, H))
    times = []
    for _ in range(steps + 2):
        tic = time.perf_counter()
        exe.forward(is_train=True)
        exe.backward([ones])
        exe.grad_dict['params'].wait_to_read()
        times.append(time.perf_counter() - tic)
    return min(times[2:])


def run_torch(mode, steps):
    import torch
    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    layers = _weights(mode, rng)
    net = (torch.nn.LSTM if mode == 'lstm' else torch.nn.GRU)(I, H, LAYERS)
    with torch.no_grad():
        for k, (wi, wh, bi, bh) in enumerate(layers):
            for name, value in (('weight_ih', wi), ('weight_hh', wh), ('bias_ih', bi),
                                ('bias_hh', bh)):
                getattr(net, '%s_l%d' % (name, k)).copy_(torch.from_numpy(value))
    data = torch.from_numpy(rng.standard_normal((T, N, I)).astype(np.float32))
    data.requires_grad_(True)
    h0 = torch.zeros(LAYERS, N, H, requires_grad=True)
    state = (h0, torch.zeros(LAYERS, N, H, requires_grad=True)) if mode == 'lstm' else h0
    times = []
    for _ in range(steps + 2):
        tic = time.perf_counter()
        out, _ = net(data, state)
        out.backward(torch.ones_like(out))
        times.append(time.perf_counter() - tic)
    return min(times[2:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='1 round of 3 steps')
    parser.add_argument('--worker', nargs=3, metavar=('FRAMEWORK', 'MODE', 'STEPS'),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        framework, mode, steps = args.worker
        runner = run_symmod if framework == 'symmod' else run_torch
        print(json.dumps(runner(mode, int(steps))))
        return
    rounds, steps = (1, 3) if args.quick else (3, 10)
    first_run_notice()
    print('| mode | symmod ms/step | PyTorch ms/step | PyTorch time / symmod time |')
    print('|---|---|---|---|')
    for mode in ('lstm', 'gru'):
        best = {}
        for _ in range(rounds):
            for framework in ('symmod', 'torch'):
                say('%s %s: %d steps ...', framework, mode, steps)
                out = subprocess.run([sys.executable, __file__, '--worker', framework, mode,
                                      str(steps)], check=True, capture_output=True, text=True)
                seconds = json.loads(out.stdout.strip().splitlines()[-1])
                say('%s %s: %.1f ms/step', framework, mode, seconds * 1e3)
                best[framework] = min(best.get(framework, seconds), seconds)
        print('| %s | %.1f | %.1f | %.2f |' % (mode, best['symmod'] * 1e3, best['torch'] * 1e3,
                                             best['torch'] / best['symmod']))


if __name__ == '__main__':
    main()
