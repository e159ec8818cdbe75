"""The fused ``RNN`` operator: symmod vs PyTorch nn.LSTM / nn.GRU, training and inference.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/fused_rnn.py                  # 3 rounds per row
    python benchmarks/fused_rnn.py --threads 1      # one thread on both sides
    python benchmarks/fused_rnn.py --quick
    python benchmarks/fused_rnn.py --threads 1 --bound   # + what bounds inference
    python benchmarks/fused_rnn.py --cases lstm:train:32,gru:infer:1   # some rows only

Both sides: sequence length 35, input = hidden = 200, 2 layers, float32, the same
weights and data. ``train`` (batch 32): one step = forward in training mode + backward
with a gradient of ones on the output, through all layers and time steps, computing
gradients for the data, the states and every weight. ``infer`` (batch 32 and 1): a
forward pass in inference mode (PyTorch under ``torch.inference_mode()``). symmod runs
``mx.sym.RNN`` bound once in an executor. Each measurement is a fresh process (the
best of ``--steps`` steps after two warm-up steps); the sides alternate over
``--rounds``; best and median over the rounds are reported, with the CPU time ratio,
the load average and each side's threads.

``--bound`` adds a table: the time of the matrix products alone, through numpy's BLAS in
the shapes symmod multiplies (forward: per layer one (T*N, in) x (in, G*H) product and T
(N, H) x (H, G*H) products; training adds per layer T (N, G*H) x (G*H, H) products and the
three weight/input gradient products; the per-step ones in numba, in the small-kernel
blocks of ``symmod.ops.blas_numba``, as symmod's time loops do), next to symmod's and
PyTorch's whole step. What symmod spends beyond the products is its gate arithmetic and
overhead.
"""
import argparse
import os
import sys
import time

import numpy as np

from _progress import first_run_notice

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402

T, I, H, LAYERS = 35, 200, 200, 2
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


def _timed(step, steps):
    """(best wall seconds, best CPU seconds) of ``steps`` calls after two warm-ups."""
    wall, cpu = [], []
    for _ in range(steps + 2):
        tic, ctic = time.perf_counter(), time.process_time()
        step()
        wall.append(time.perf_counter() - tic)
        cpu.append(time.process_time() - ctic)
    return min(wall[2:]), min(cpu[2:])


def run_symmod(mode, task, batch, steps):
    import symmod as mx
    rng = np.random.default_rng(0)
    layers = _weights(mode, rng)
    flat = np.concatenate([w.ravel() for layer in layers for w in layer[:2]]
                          + [b for layer in layers for b in layer[2:]])
    sym = mx.sym.RNN(mx.sym.var('data'), mx.sym.var('params'), mx.sym.var('state'),
                     *([mx.sym.var('state_cell')] if mode == 'lstm' else []),
                     state_size=H, num_layers=LAYERS, mode=mode, name='rnn')
    shapes = {'data': (T, batch, I), 'params': flat.shape, 'state': (LAYERS, batch, H)}
    if mode == 'lstm':
        shapes['state_cell'] = (LAYERS, batch, H)
    exe = sym.simple_bind(mx.cpu(), grad_req='write' if task == 'train' else 'null',
                         **shapes)
    exe.arg_dict['data'][:] = rng.standard_normal((T, batch, I)).astype(np.float32)
    exe.arg_dict['params'][:] = flat
    ones = mx.nd.ones((T, batch, H))

    def train():
        exe.forward(is_train=True)
        exe.backward([ones])

    def infer():
        exe.forward(is_train=False)
    return _timed(train if task == 'train' else infer, steps)


def _step_products():
    """``f(a, b, c, T)``: T per-step products ``c = a @ b`` as symmod's time loops
    compute them: in numba through numpy's sgemm in small-kernel blocks where that is at
    hand (symmod.ops.blas_numba), else numpy's matmul in a Python loop (batch 1 aside)."""
    from symmod.ops import blas_numba
    if not blas_numba.AVAILABLE:
        def loop(a, b, c, count):
            for _ in range(count):
                np.matmul(a, b, out=c)
        return loop
    import numba

    @numba.njit
    def blocked(a, b, c, count, small):
        for _ in range(count):
            blas_numba.gemm_blocked(a, b, c, 0.0, small)
    return lambda a, b, c, count: blocked(a, b, c, count, blas_numba.SMALL)


def run_products(mode, task, batch, steps):
    """The matrix products of the forward (``infer``) or of forward and backward
    (``train``) alone, on numpy's BLAS, in the shapes symmod multiplies."""
    from symmod import threads
    threads.apply()
    rng = np.random.default_rng(0)
    layers = _weights(mode, rng)
    G = GATES[mode] * H
    x = rng.standard_normal((T * batch, I)).astype(np.float32)
    pre = np.empty((T * batch, G), np.float32)
    h = np.zeros((batch, H), np.float32)
    hh = np.empty((batch, G), np.float32)
    y = np.zeros((T * batch, H), np.float32)         # the next layer's input
    wh_t = [np.ascontiguousarray(wh.T) for _, wh, _, _ in layers]
    steps_of = _step_products()

    def forward():
        layer_in = x
        for (wi, _, _, _), wht in zip(layers, wh_t):
            np.matmul(layer_in, wi.T, out=pre)
            steps_of(h, wht, hh, T)
            layer_in = y

    def train():
        forward()
        for k, (wi, wh, _, _) in enumerate(layers):
            steps_of(hh, wh, h, T)                      # dh = dgates W_h, per step
            pre.T @ (x if k == 0 else y)                # dW_x
            pre.T @ y                                   # dW_h, against the hidden states
            pre @ wi                                    # gradient of the layer input
    return _timed(train if task == 'train' else forward, steps)


def run_torch(mode, task, batch, steps):
    import torch
    harness.set_torch_threads()
    rng = np.random.default_rng(0)
    layers = _weights(mode, rng)
    net = (torch.nn.LSTM if mode == 'lstm' else torch.nn.GRU)(I, H, LAYERS)
    with torch.no_grad():
        for k, (wi, wh, bi, bh) in enumerate(layers):
            for name, value in (('weight_ih', wi), ('weight_hh', wh), ('bias_ih', bi),
                                ('bias_hh', bh)):
                getattr(net, '%s_l%d' % (name, k)).copy_(torch.from_numpy(value))
    data = torch.from_numpy(rng.standard_normal((T, batch, I)).astype(np.float32))
    h0 = torch.zeros(LAYERS, batch, H)
    state = (h0, torch.zeros(LAYERS, batch, H)) if mode == 'lstm' else h0
    if task == 'infer':
        def infer():
            with torch.inference_mode():
                net(data, state)
        return _timed(infer, steps)
    data.requires_grad_(True)
    h0.requires_grad_(True)
    if mode == 'lstm':
        state[1].requires_grad_(True)

    def train():
        out, _ = net(data, state)
        out.backward(torch.ones_like(out))
    return _timed(train, steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='1 round of 3 steps')
    parser.add_argument('--steps', type=int, default=10)
    parser.add_argument('--bound', action='store_true',
                        help='also time the inference matrix products alone')
    parser.add_argument('--cases', default=None,
                        help='rows to run, e.g. lstm:train:32,lstm:infer:32 (default: all)')
    harness.add_arguments(parser, 5)
    args = parser.parse_args()
    if args.worker:
        import json
        framework, mode, task, batch, steps = args.worker
        runner = {'symmod': run_symmod, 'torch': run_torch,
                  'products': run_products}[framework]
        wall, cpu = runner(mode, task, int(batch), int(steps))
        print(json.dumps({'seconds': wall, 'cpu': cpu,
                          'threads': harness.thread_report(framework)}))
        return
    rounds, steps = (1, 3) if args.quick else (args.rounds, args.steps)
    env = harness.thread_env(args.threads)
    first_run_notice()
    print(harness.environment())
    print('| mode | task | batch | symmod ms best (median) | PyTorch ms best (median) '
          '| PyTorch time / symmod time, best (median) | CPU time PyTorch / symmod '
          '| load avg '
          '| threads |')
    print('|---|---|---|---|---|---|---|---|---|')
    bounds = []
    rows = [(mode, task, batch) for mode in ('lstm', 'gru')
            for task, batch in (('train', 32), ('infer', 32), ('infer', 1))]
    if args.cases:
        wanted = [c.split(':') for c in args.cases.split(',')]
        rows = [(m, t, int(b)) for m, t, b in wanted]
    for mode, task, batch in rows:
        res, cpu, reports, loads = harness.side_by_side(
            __file__, [mode, task, batch, steps], env, rounds,
            lambda r: r['seconds'] * 1e3)
        (sb, sm), (tb, tm) = (harness.best_median(res[f]) for f in ('symmod', 'torch'))
        print('| %s | %s | %d | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) | %.2f '
              '| %.1f-%.1f | %s; %s |'
              % ((mode, task, batch, sb, sm, tb, tm, tb / sb, tm / sm,
                  min(cpu['torch']) / min(cpu['symmod'])) + loads
                 + (reports['symmod'], reports['torch'])), flush=True)
        if args.bound:
            bounds.append((mode, task, batch, sb, tb, min(
                harness.worker(__file__, ['products', mode, task, batch, steps],
                               env)['seconds'] * 1e3 for _ in range(rounds))))
    if bounds:
        print('\n| mode | task | batch | matrix products alone ms | symmod ms '
              '| PyTorch ms | products / symmod | products / PyTorch |')
        print('|---|---|---|---|---|---|---|---|')
        for mode, task, batch, sb, tb, pb in bounds:
            print('| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f |'
                  % (mode, task, batch, pb, sb, tb, pb / sb, pb / tb))


if __name__ == '__main__':
    main()
