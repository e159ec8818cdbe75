"""Sparse speed: lazy optimizer steps on a large embedding, and csr x dense dot.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/sparse.py            # prints a table
    python benchmarks/sparse.py --quick    # a smaller embedding, fewer repetitions

(a) One optimizer step on a 1,000,000 x 64 float32 embedding whose gradient holds 1% of
the rows (10,000 distinct random rows), for Adam and SGD (no momentum), all in one process:

* symmod lazy: ``updater(key, row_sparse grad, weight)`` with ``lazy_update=True`` (the
  default): only the gradient's rows are read and written.
* symmod dense: the same update with a dense gradient (every row moves, as without
  sparse storage).
* torch sparse: ``nn.Embedding(sparse=True)``'s gradient (a sparse COO tensor with the
  same rows) stepped by ``torch.optim.SparseAdam`` / ``torch.optim.SGD``.

(b) ``dot(csr, dense)``: a 10,000 x 100,000 csr matrix at 1% density times a
100,000 x 64 dense matrix: ``mx.nd.sparse.dot`` against ``scipy.sparse`` on the same
matrices (``csr @ dense``), and ``dot(csr.T, dense)`` (MXNet's transpose_a, a row_sparse
result) against ``csr.T @ dense``.

Times are the best of several rounds (rounds interleave the implementations, so machine
noise hits all alike); the load average is printed with the numbers.
"""
import argparse
import os
import platform
import time

import torch  # noqa: E402  (before numba's OpenMP runtime, see optimizers.py)
import numba
import numpy as np
import scipy.sparse as spsp

import symmod as mx
from symmod.ndarray.sparse_array import make_row_sparse, new_sparse

from _progress import say

ROWS, DIM, TOUCHED = 1000000, 64, 0.01
LR = 0.01


def best_time(fn, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def optimizer_case(name, rows, rounds, rng):
    """{implementation: seconds per step} for one optimizer."""
    touched = np.sort(rng.choice(rows, int(rows * TOUCHED), replace=False)).astype(np.int64)
    values = rng.standard_normal((len(touched), DIM), dtype=np.float32)
    ctx = mx.cpu()
    make = {'adam': lambda: mx.optimizer.Adam(learning_rate=LR),
            'sgd': lambda: mx.optimizer.SGD(learning_rate=LR)}[name]

    weight = mx.nd.array(rng.standard_normal((rows, DIM), dtype=np.float32))
    grad = new_sparse('row_sparse', make_row_sparse(values, touched, (rows, DIM)), ctx)
    lazy = mx.optimizer.get_updater(make())
    dense_weight = mx.nd.array(weight.asnumpy())
    dense_grad = mx.nd.array(grad.asnumpy())
    dense = mx.optimizer.get_updater(make())

    emb = torch.nn.Embedding(rows, DIM, sparse=True)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(weight.asnumpy()))
    torch_grad = torch.sparse_coo_tensor(torch.from_numpy(touched)[None, :],
                                         torch.from_numpy(values), (rows, DIM)).coalesce()
    torch_opt = (torch.optim.SparseAdam([emb.weight], lr=LR) if name == 'adam'
                 else torch.optim.SGD([emb.weight], lr=LR))
    emb.weight.grad = torch_grad

    steps = {'symmod lazy': lambda: lazy(0, grad, weight),
             'symmod dense': lambda: dense(0, dense_grad, dense_weight),
             'torch sparse': torch_opt.step}
    for step in steps.values():     # compile, allocate states
        step()
    result = {key: [] for key in steps}
    for _ in range(rounds):
        for key, step in steps.items():
            result[key].append(best_time(step, 1))
            time.sleep(0.05)
    return {key: min(times) for key, times in result.items()}


def dot_case(rounds, rng):
    """{implementation: seconds} for dot(csr, dense) and dot(csr.T, dense)."""
    m, k, n = 10000, 100000, DIM
    matrix = spsp.random(m, k, density=0.01, format='csr', dtype=np.float32,
                         random_state=np.random.RandomState(0))
    dense = rng.standard_normal((k, n), dtype=np.float32)
    dense_t = rng.standard_normal((m, n), dtype=np.float32)
    csr = mx.nd.sparse.csr_matrix(matrix)
    rhs, rhs_t = mx.nd.array(dense), mx.nd.array(dense_t)
    transposed = matrix.T.tocsr()       # what a user of scipy would hold for csr.T @ x
    cases = {'symmod dot(csr, dense)': lambda: mx.nd.sparse.dot(csr, rhs).wait_to_read(),
             'scipy csr @ dense': lambda: matrix @ dense,
             'symmod dot(csr.T, dense)': lambda: mx.nd.sparse.dot(
                 csr, rhs_t, transpose_a=True).wait_to_read(),
             'scipy csr.T @ dense': lambda: matrix.T @ dense_t,
             'scipy (csr.T as csr) @ dense': lambda: transposed @ dense_t}
    want = matrix @ dense
    np.testing.assert_allclose(mx.nd.sparse.dot(csr, rhs).asnumpy(), want, rtol=1e-4,
                               atol=1e-4)
    for fn in cases.values():
        fn()
    result = {key: [] for key in cases}
    for _ in range(rounds):
        for key, fn in cases.items():
            result[key].append(best_time(fn, 1))
    return {key: min(times) for key, times in result.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true')
    args = parser.parse_args()
    rows = 100000 if args.quick else ROWS
    rounds = 3 if args.quick else 7
    rng = np.random.default_rng(0)
    load = [os.getloadavg()[0]]
    print('# benchmarks/sparse.py%s: %s, %d cores, torch %s (%d threads), numba %d threads'
          % (' --quick' if args.quick else '', platform.processor() or platform.machine(),
             os.cpu_count(), torch.__version__, torch.get_num_threads(),
             numba.get_num_threads()))
    print('\n(a) one optimizer step, %d x %d float32 embedding, %d rows (%.0f%%) in the '
          'gradient\n' % (rows, DIM, int(rows * TOUCHED), TOUCHED * 100))
    print('| optimizer | symmod lazy ms | symmod dense ms | torch sparse ms | dense / lazy '
          '| torch / lazy |')
    print('|---|---|---|---|---|---|')
    for name in ('adam', 'sgd'):
        say('optimizer step: %s', name)
        t = optimizer_case(name, rows, rounds, rng)
        print('| %s | %.2f | %.2f | %.2f | %.1fx | %.2fx |' % (
            name, t['symmod lazy'] * 1e3, t['symmod dense'] * 1e3, t['torch sparse'] * 1e3,
            t['symmod dense'] / t['symmod lazy'], t['torch sparse'] / t['symmod lazy']))
    say('dot')
    t = dot_case(rounds, rng)
    print('\n(b) dot, 10000 x 100000 csr at 1% density, 64 dense columns\n')
    print('| case | ms | scipy / symmod |')
    print('|---|---|---|')
    pairs = (('symmod dot(csr, dense)', 'scipy csr @ dense'),
             ('symmod dot(csr.T, dense)', 'scipy csr.T @ dense'),
             ('symmod dot(csr.T, dense)', 'scipy (csr.T as csr) @ dense'))
    for ours, theirs in pairs:
        print('| %s vs %s | %.2f vs %.2f | %.2fx |' % (ours, theirs, t[ours] * 1e3,
                                                     t[theirs] * 1e3, t[theirs] / t[ours]))
    load.append(os.getloadavg()[0])
    print('\nload average (1 min) at start / end: %.1f / %.1f' % tuple(load))


if __name__ == '__main__':
    main()
