"""Distributed training speed: symmod's MPI KVStore against raw mpi4py and PyTorch DDP.

Run (PyTorch is needed for part 3 only: ``pip install torch==2.13.0``)::

    python benchmarks/distributed.py            # all three parts, markdown tables
    python benchmarks/distributed.py --quick    # fewer samples and repetitions

1. all-reduce: ``kv.pushpull(keys, grads)`` of a ``dist_sync`` store against
   ``comm.Allreduce(MPI.IN_PLACE, buf)`` for every buffer (what a hand-written mpi4py
   loop does), 2 ranks, on the same buffers: one array of each size, and the gradient
   sets of the MLP and LeNet models (many small arrays, which the store fuses).
2. scaling: Module.fit samples/s of 2 ``dist_sync`` ranks (each its own batch of B,
   1 thread each) over one plain process (``kvstore='local'``, 1 thread).
3. the same 2-rank job against PyTorch DistributedDataParallel on gloo (and PyTorch's
   own 1-process rate), same models, batches, samples and thread counts.

Every job is started with ``python -m symmod.launch``; every number is the best of
``--rounds`` rounds (the machine is shared), and the load average is printed.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mnist_fit import load_digits, tiled, torch_model  # noqa: E402

ONE_THREAD = {'OMP_NUM_THREADS': '1', 'NUMBA_NUM_THREADS': '1', 'OPENBLAS_NUM_THREADS': '1',
              'MKL_NUM_THREADS': '1'}
SIZES = [4 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]
BATCH = {'mlp': 100, 'lenet': 64}


def model_shapes(kind):
    """The parameter shapes of the MLP / LeNet of examples/mnist/symbols.py."""
    import symmod as mx
    sys.path.insert(0, os.path.join(HERE, '..', 'examples', 'mnist'))
    from symbols import mlp, lenet
    sym = mlp() if kind == 'mlp' else lenet()
    data = (1, 784) if kind == 'mlp' else (1, 1, 28, 28)
    shapes, _, _ = sym.infer_shape(data=data, softmax_label=(1,))
    return [s for n, s in zip(sym.list_arguments(), shapes)
            if n not in ('data', 'softmax_label')]


# ---- part 1: all-reduce ------------------------------------------------------------------
def part_allreduce(trials):
    import symmod as mx
    kv = mx.kv.create('dist_sync')     # first: MPI starts with symmod's settings
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    cases = [('%d KiB' % (s >> 10), [(s // 4,)]) for s in SIZES]
    cases += [('MLP grads', model_shapes('mlp')), ('LeNet grads', model_shapes('lenet'))]
    rows = []
    for index, (name, shapes) in enumerate(cases):
        keys = ['%d_%d' % (index, i) for i in range(len(shapes))]
        kv.init(keys, [mx.nd.zeros(s) for s in shapes])
        grads = [mx.nd.zeros(s) for s in shapes]
        bufs = [g._data for g in grads]
        nbytes = sum(b.nbytes for b in bufs)
        count = max(2, min(20, int(20 * (256 << 10) / max(nbytes, 1))))

        def store():
            kv.pushpull(keys, grads)

        def raw():
            for buf in bufs:
                comm.Allreduce(MPI.IN_PLACE, buf)
        # many short trials, alternating: on a shared machine the best trial is the one
        # in which both ranks had a core (what the code costs, not the queue)
        best = {}
        for _ in range(trials):
            for label, fn in (('store', store), ('raw', raw)):
                fn()
                comm.Barrier()
                start = time.perf_counter()
                for _ in range(count):
                    fn()
                took = comm.allreduce((time.perf_counter() - start) / count, op=MPI.MAX)
                best[label] = min(best.get(label, float('inf')), took)
        rows.append((name, len(shapes), nbytes, best['raw'], best['store']))
    if comm.rank == 0:
        print(json.dumps(rows))


# ---- part 2 and 3: training -----------------------------------------------------------------
def _data(kind, n):
    x, y = load_digits()
    xs, ys = tiled(x, y, n)
    if kind == 'mlp':
        xs = np.ascontiguousarray(xs.reshape(n, 784))
    return xs, ys


def part_symmod(kind, n, kvstore):
    """Module.fit over n samples (per rank); prints samples/s of the whole job."""
    import logging
    import warnings
    logging.getLogger().setLevel(logging.ERROR)
    warnings.simplefilter('ignore')
    import symmod as mx
    sys.path.insert(0, os.path.join(HERE, '..', 'examples', 'mnist'))
    from symbols import mlp, lenet
    kv = mx.kv.create(kvstore) if kvstore != 'local' else 'local'
    workers = kv.num_workers if kvstore != 'local' else 1
    x, y = _data(kind, n)
    batch = BATCH[kind]
    mod = mx.mod.Module(mlp() if kind == 'mlp' else lenet())
    params = {'learning_rate': 0.05, 'momentum': 0.9}
    mod.fit(mx.io.NDArrayIter(x[:batch * 5], y[:batch * 5], batch), kvstore=kv,
            optimizer='sgd', optimizer_params=params, initializer=mx.init.Xavier(),
            num_epoch=1)
    data = mx.io.NDArrayIter(x, y, batch)     # its copy of the samples is not timed
    if kvstore != 'local':
        kv.barrier()
    start = time.perf_counter()
    mod.fit(data, kvstore=kv, optimizer='sgd', optimizer_params=params, begin_epoch=1,
            num_epoch=2)
    if kvstore != 'local':
        kv.barrier()
    took = time.perf_counter() - start
    if kvstore == 'local' or kv.rank == 0:
        print(json.dumps(workers * n / took))


def part_torch(kind, n, ddp):
    """A PyTorch loop (DDP on gloo over the launcher's ranks when ``ddp``)."""
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    rank, size = 0, 1
    if ddp:
        rank = int(os.environ.get('OMPI_COMM_WORLD_RANK', os.environ.get('PMI_RANK', 0)))
        size = int(os.environ.get('OMPI_COMM_WORLD_SIZE', os.environ.get('PMI_SIZE', 1)))
        dist.init_process_group('gloo', rank=rank, world_size=size)
    torch.manual_seed(0)
    model = torch_model(kind)
    if ddp:
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = _data(kind, n)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()
    batch = BATCH[kind]

    def run(samples):
        correct = 0
        for start in range(0, samples, batch):
            xb, yb = xt[start:start + batch], yt[start:start + batch]
            opt.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            opt.step()
            correct += int((out.argmax(1) == yb).sum())
        return correct

    run(batch * 5)
    if ddp:
        dist.barrier()
    start = time.perf_counter()
    run(n)
    if ddp:
        dist.barrier()
    took = time.perf_counter() - start
    if rank == 0:
        print(json.dumps(size * n / took))
    if ddp:
        dist.destroy_process_group()


# ---- the driver --------------------------------------------------------------------------
def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def launch(workers, part_args, extra_env=None):
    """Run this script as ``--part ...`` on ``workers`` ranks; return rank 0's JSON."""
    env = dict(os.environ, **ONE_THREAD)
    env.pop('OMP_WAIT_POLICY', None)
    env.pop('GOMP_SPINCOUNT', None)
    env.update(extra_env or {})
    cmd = [sys.executable, '-m', 'symmod.launch', '-n', str(workers), '--timeout', '1200',
           sys.executable, os.path.abspath(__file__), '--part'] + [str(a) for a in part_args]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='fewer samples')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--skip', default='', help='parts to skip, e.g. 3 or 2,3')
    parser.add_argument('--part', nargs='+', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part:
        kind = args.part[0]
        if kind == 'allreduce':
            part_allreduce(int(args.part[1]))
        elif kind == 'symmod':
            part_symmod(args.part[1], int(args.part[2]), args.part[3])
        else:
            part_torch(args.part[1], int(args.part[2]), args.part[3] == 'ddp')
        return
    skip = set(args.skip.split(',')) - {''}
    print('load average at start: %.2f %.2f %.2f' % os.getloadavg())
    if '1' not in skip:
        rows = launch(2, ['allreduce', 20 if args.quick else 100])
        print('\n1. all-reduce between 2 ranks, us per call (best of %d short interleaved '
              'trials)\n' % (20 if args.quick else 100))
        print('| buffers | arrays | bytes | raw mpi4py Allreduce | KVStore pushpull | '
              'raw / KVStore |')
        print('|---|---|---|---|---|---|')
        for name, count, nbytes, raw, store in rows:
            print('| %s | %d | %d | %.1f | %.1f | %.2f |' % (name, count, nbytes, raw * 1e6,
                                                            store * 1e6, raw / store))
    samples = {'mlp': 6000 if args.quick else 30000, 'lenet': 640 if args.quick else 3200}
    results = {}
    for kind in ('mlp', 'lenet'):
        n = samples[kind]
        best = {}
        for _ in range(args.rounds):
            runs = []
            if '2' not in skip or '3' not in skip:
                runs += [('symmod 1 process', lambda: launch(1, ['symmod', kind, n, 'local'])),
                         ('symmod 2 ranks', lambda: launch(2, ['symmod', kind, n,
                                                               'dist_sync']))]
            if '3' not in skip:
                port = {'MASTER_ADDR': '127.0.0.1', 'MASTER_PORT': str(_free_port())}
                runs += [('torch 1 process', lambda: launch(1, ['torch', kind, n, 'single'])),
                         ('torch DDP 2 ranks', lambda p=port: launch(2, ['torch', kind, n,
                                                                        'ddp'], p))]
            for label, fn in runs:
                best[label] = max(best.get(label, 0.0), fn())
        results[kind] = best
    if results['mlp']:
        print('\n2./3. training samples/s (1 thread per process, batch %d (MLP) / %d (LeNet) '
              'per rank, %d / %d samples per rank, best of %d rounds)\n'
              % (BATCH['mlp'], BATCH['lenet'], samples['mlp'], samples['lenet'], args.rounds))
        labels = list(results['mlp'])
        print('| model | ' + ' | '.join(labels) + ' | symmod 2 ranks / 1 process |'
              + (' symmod 2 ranks / torch DDP |' if 'torch DDP 2 ranks' in labels else ''))
        print('|---' * (len(labels) + 2 + ('torch DDP 2 ranks' in labels)) + '|')
        for kind, best in results.items():
            cells = ['%.0f' % best[label] for label in labels]
            cells.append('%.2f' % (best['symmod 2 ranks'] / best['symmod 1 process']))
            if 'torch DDP 2 ranks' in best:
                cells.append('%.2f' % (best['symmod 2 ranks'] / best['torch DDP 2 ranks']))
            print('| %s | %s |' % (kind, ' | '.join(cells)))
    print('\nload average at end: %.2f %.2f %.2f' % os.getloadavg())


if __name__ == '__main__':
    main()
