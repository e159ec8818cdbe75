"""Optimizer step speed: symmod's Updater vs numpy vs PyTorch vs the memory bandwidth.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/optimizers.py            # prints a table, updates benchmarks/RESULTS.md
    python benchmarks/optimizers.py --quick    # fewer repetitions, no RESULTS.md update

Measured in one run, float32, for SGD with momentum and Adam:

(a) one tensor of 16M (2**24) elements; (b) 200 tensors of mixed sizes totalling 16M.

* symmod: ``updater(indices, grads, weights)`` — the call Module.update makes.
* numpy: the update written as in-place numpy expressions (one pass per operation).
* torch foreach / fused: ``torch.optim.SGD`` / ``Adam`` with ``foreach=True`` / ``fused=True``.
* bandwidth: numba ``prange`` loops that stream memory: in-place axpy (``y += a*x``, 12 B
  per element) and triad (``a = b + s*c``, 12 B per element).

Effective GB/s counts the bytes an update must touch: SGD-momentum reads weight,
gradient and momentum and writes weight and momentum (20 B per element); Adam reads
4 and writes 3 arrays (28 B per element). Times are the best single step over several
rounds (the rounds interleave the implementations, so machine noise hits all alike);
medians are printed too.
"""
import argparse
import os
import platform
import re
import statistics
import sys
import time

# PyTorch first: its OpenMP runtime then starts with the user's settings (by default
# idle threads spin briefly), while numba's runtime, which starts later, gets the
# OMP_WAIT_POLICY=PASSIVE that symmod sets on import. Each library runs as it would on
# its own; a short pause between timed blocks lets spinning threads settle.
TORCH_WAIT_POLICY = os.environ.get('OMP_WAIT_POLICY', 'default')
import torch  # noqa: E402
import symmod  # noqa: E402  (sets the wait policy for numba, which starts later)

import numpy as np  # noqa: E402
from numba import njit, prange, float32, get_num_threads  # noqa: E402

from _progress import say  # noqa: E402

N_TOTAL = 1 << 24
N_TENSORS = 200
BYTES = {'sgd_mom': 20, 'adam': 28}
LR, MOMENTUM, BETA1, BETA2, EPS = 0.01, 0.9, 0.9, 0.999, 1e-8
PAUSE_S = 0.05
IMPLS = ('symmod', 'numpy', 'torch foreach', 'torch fused')
LOAD = []   # 1-minute load average at the start and the end of the run
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'RESULTS.md')


def tensor_sizes(case):
    """(a): one tensor; (b): 200 sizes from 64 to ~1M elements summing to exactly 2**24."""
    if case == 'a':
        return [N_TOTAL]
    rng = np.random.RandomState(0)
    raw = np.exp(rng.uniform(np.log(64), np.log(1 << 20), N_TENSORS))
    sizes = np.maximum(1, (raw / raw.sum() * N_TOTAL).astype(np.int64))
    sizes[np.argmax(sizes)] += N_TOTAL - sizes.sum()
    return [int(s) for s in sizes]


def make_data(sizes, seed):
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(n, dtype=np.float32) for n in sizes]
    grads = [rng.standard_normal(n, dtype=np.float32) for n in sizes]
    return weights, grads


# ---- memory bandwidth probes -----------------------------------------------------------
@njit(parallel=True, error_model='numpy', cache=True)
def _axpy(y, x, a):
    for i in prange(y.size):
        y[i] += a * x[i]


@njit(parallel=True, error_model='numpy', cache=True)
def _triad(a, b, c, s):
    for i in prange(a.size):
        a[i] = b[i] + s * c[i]


# ---- implementations: each returns a step() callable ------------------------------------
def symmod_step(opt_name, weights, grads):
    mx = symmod
    kwargs = ({'learning_rate': LR, 'momentum': MOMENTUM} if opt_name == 'sgd_mom'
              else {'learning_rate': LR, 'beta1': BETA1, 'beta2': BETA2, 'epsilon': EPS})
    opt = mx.optimizer.create('sgd' if opt_name == 'sgd_mom' else 'adam', **kwargs)
    updater = mx.optimizer.get_updater(opt)
    nd_w = [mx.nd.from_numpy(w.copy()) for w in weights]
    nd_g = [mx.nd.from_numpy(g.copy()) for g in grads]
    indices = list(range(len(weights)))
    return lambda: updater(indices, nd_g, nd_w)


def numpy_step(opt_name, weights, grads):
    ws = [w.copy() for w in weights]
    gs = [g.copy() for g in grads]
    f = np.float32
    if opt_name == 'sgd_mom':
        moms = [np.zeros_like(w) for w in ws]
        tmp = [np.empty_like(w) for w in ws]

        def step():
            for w, g, m, t in zip(ws, gs, moms, tmp):
                m *= f(MOMENTUM)
                np.multiply(g, f(LR), out=t)
                m -= t
                w += m
        return step
    means = [np.zeros_like(w) for w in ws]
    variances = [np.zeros_like(w) for w in ws]
    tmp = [np.empty_like(w) for w in ws]
    state = {'t': 0}

    def step():
        state['t'] += 1
        t = state['t']
        lr_t = f(LR * np.sqrt(1 - BETA2 ** t) / (1 - BETA1 ** t))
        for w, g, m, v, x in zip(ws, gs, means, variances, tmp):
            m *= f(BETA1)
            m += f(1 - BETA1) * g
            v *= f(BETA2)
            np.square(g, out=x)
            x *= f(1 - BETA2)
            v += x
            np.sqrt(v, out=x)
            x += f(EPS)
            np.divide(m, x, out=x)
            x *= lr_t
            w -= x
    return step


def torch_step(opt_name, weights, grads, mode):
    params = []
    for w, g in zip(weights, grads):
        p = torch.nn.Parameter(torch.from_numpy(w.copy()))
        p.grad = torch.from_numpy(g.copy())
        params.append(p)
    flag = {mode: True}
    if opt_name == 'sgd_mom':
        opt = torch.optim.SGD(params, lr=LR, momentum=MOMENTUM, **flag)
    else:
        opt = torch.optim.Adam(params, lr=LR, betas=(BETA1, BETA2), eps=EPS, **flag)

    def step():
        with torch.no_grad():
            opt.step()
    return step


def bandwidth_steps():
    x = np.ones(N_TOTAL, np.float32)
    y = np.ones(N_TOTAL, np.float32)
    z = np.ones(N_TOTAL, np.float32)
    return {'axpy': lambda: _axpy(y, x, float32(1e-3)),
            'triad': lambda: _triad(y, x, z, float32(1e-3))}


# ---- timing -------------------------------------------------------------------------------
def time_steps(steps, rounds, reps):
    """Best and median ms per call of each step.

    Rounds interleave the implementations in blocks of ``reps`` timed calls. Before each
    block: a short pause (the previous implementation's idle threads stop spinning),
    then one untimed call (wakes this implementation's threads, as in a training loop
    where updates follow each other).
    """
    samples = {name: [] for name in steps}
    for fn in steps.values():       # warm up: compile, first touch, caches
        fn()
        fn()
    for _ in range(rounds):
        for name, fn in steps.items():
            time.sleep(PAUSE_S)
            fn()
            for _ in range(reps):
                start = time.perf_counter()
                fn()
                samples[name].append((time.perf_counter() - start) * 1e3)
    return {name: (min(s), statistics.median(s)) for name, s in samples.items()}


def run(rounds, reps):
    torch.set_num_threads(get_num_threads())
    LOAD.append(os.getloadavg()[0])
    rows = []
    say('memory bandwidth probe (axpy, triad): %d rounds of %d', rounds, reps)
    probe = time_steps(bandwidth_steps(), rounds, reps)
    bandwidth = {name: 12 * N_TOTAL / (ms[0] * 1e-3) / 1e9 for name, ms in probe.items()}
    for opt_name in ('sgd_mom', 'adam'):
        steps = {}
        for case in ('a', 'b'):     # both cases in the same rounds: same machine state
            weights, grads = make_data(tensor_sizes(case), seed=1)
            steps[(case, 'symmod')] = symmod_step(opt_name, weights, grads)
            steps[(case, 'numpy')] = numpy_step(opt_name, weights, grads)
            steps[(case, 'torch foreach')] = torch_step(opt_name, weights, grads, 'foreach')
            steps[(case, 'torch fused')] = torch_step(opt_name, weights, grads, 'fused')
            del weights, grads
        say('%s: cases a and b, %s, %d rounds of %d steps ...', opt_name, ', '.join(IMPLS),
            rounds, reps)
        timing = time_steps(steps, rounds, reps)
        del steps
        for case in ('a', 'b'):
            for impl in IMPLS:
                best, median = timing[(case, impl)]
                gbs = BYTES[opt_name] * N_TOTAL / (best * 1e-3) / 1e9
                rows.append({'opt': opt_name, 'case': case, 'impl': impl, 'best': best,
                             'median': median, 'gbs': gbs})
    LOAD.append(os.getloadavg()[0])
    return rows, probe, bandwidth


def render(rows, probe, bandwidth):
    import numba
    lines = ['## Optimizers', '',
             'Command: `python benchmarks/optimizers.py` (one run; float32; %d threads; '
             'OpenMP wait policy: torch %s, numba %s; Python %s, numpy %s, numba %s, '
             'torch %s; %s).'
             % (get_num_threads(), TORCH_WAIT_POLICY, os.environ.get('OMP_WAIT_POLICY'),
                platform.python_version(), np.__version__, numba.__version__,
                torch.__version__, platform.machine()),
             '(a) one tensor of 2^24 = 16,777,216 elements; (b) %d tensors of mixed sizes '
             'with the same total. ms per step: best of the interleaved rounds (median in '
             'brackets). GB/s: bytes an update must touch (SGD-momentum 20 B/element, '
             'Adam 28 B/element) over the best time. Load average (1 min) at the start '
             'and end of the run: %.2f and %.2f; other processes share the cores, so '
             'medians are noisy and the best times are what to compare.'
             % (N_TENSORS, LOAD[0], LOAD[-1]), '',
             'Memory bandwidth probe (numba prange, 12 B/element): axpy %.2f ms = %.1f GB/s, '
             'triad %.2f ms = %.1f GB/s.' % (probe['axpy'][0], bandwidth['axpy'],
                                             probe['triad'][0], bandwidth['triad']), '',
             '| optimizer | case | implementation | ms/step | GB/s | vs torch fused, best '
             '(median) | vs bandwidth (axpy) |',
             '|---|---|---|---|---|---|---|']
    fused = {(r['opt'], r['case']): r for r in rows if r['impl'] == 'torch fused'}
    for r in rows:
        ref = fused[(r['opt'], r['case'])]
        lines.append('| %s | (%s) | %s | %.2f (%.2f) | %.1f | %.2fx (%.2fx) | %.0f%% |'
                     % ('SGD-momentum' if r['opt'] == 'sgd_mom' else 'Adam', r['case'],
                        r['impl'], r['best'], r['median'], r['gbs'], ref['best'] / r['best'],
                        ref['median'] / r['median'], 100 * r['gbs'] / bandwidth['axpy']))
    lines.append('')
    lines.append('"vs torch fused" > 1 means the row is faster than torch fused.')
    for opt_name in ('sgd_mom', 'adam'):
        a = [r for r in rows if r['opt'] == opt_name and r['case'] == 'a' and
             r['impl'] == 'symmod'][0]
        b = [r for r in rows if r['opt'] == opt_name and r['case'] == 'b' and
             r['impl'] == 'symmod'][0]
        lines.append('symmod %s: (b) / (a) = %.2f (best), %.2f (median).'
                     % ('SGD-momentum' if opt_name == 'sgd_mom' else 'Adam', b['best'] / a['best'],
                        b['median'] / a['median']))
    return '\n'.join(lines) + '\n'


def write_results(section):
    """Replace (or append) the '## Optimizers' section of RESULTS.md."""
    text = ''
    if os.path.exists(RESULTS):
        with open(RESULTS) as f:
            text = f.read()
    if not text:
        text = '# Benchmark results\n\n'
    pattern = re.compile(r'^## Optimizers\n.*?(?=^## |\Z)', re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + '\n', text)
    else:
        text = text.rstrip('\n') + '\n\n' + section
    with open(RESULTS, 'w') as f:
        f.write(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='few repetitions, no RESULTS.md')
    args = parser.parse_args(argv)
    rows, probe, bandwidth = run(rounds=3 if args.quick else 12, reps=3 if args.quick else 5)
    section = render(rows, probe, bandwidth)
    print(section)
    if not args.quick:
        write_results(section)
        print('updated', RESULTS)


if __name__ == '__main__':
    sys.exit(main())
