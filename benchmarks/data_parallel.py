"""Data-parallel training on CPU contexts: ``Module.fit`` with ``context=[mx.cpu(0),
mx.cpu(1)]`` vs one context, and PyTorch with the same threads.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/data_parallel.py                       # ResNet-20 at batch 64
    python benchmarks/data_parallel.py --cases lenet:64 --threads 1

The training run is ``benchmarks/convnets.py``'s (same data, SGD momentum + weight decay,
accuracy every batch): one ``Module`` over ``--contexts`` CPU contexts, each taking an
equal slice of every batch (MXNet's executor group), against the same module on one
context. Each measurement is a fresh process; the variants alternate over ``--rounds``.
Reported: samples/s best (median), the scaling (N contexts / one context), the PyTorch
row for reference, the load average and each worker's threads.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import convnets  # noqa: E402
import harness   # noqa: E402
from _progress import first_run_notice, say  # noqa: E402


def worker(variant, kind, batch, batches):
    import logging
    logging.getLogger().setLevel(logging.ERROR)
    if variant == 'torch':
        seconds, cpu = convnets.torch_run(kind, batch, batches)
        framework = 'torch'
    else:
        seconds, cpu = convnets.symmod_run(kind, batch, batches, contexts=int(variant))[:2]
        framework = 'symmod'
    return {'seconds': seconds, 'cpu': cpu, 'samples': batch * batches,
            'threads': harness.thread_report(framework)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cases', default='resnet20:64', help='MODEL:BATCH,...')
    parser.add_argument('--contexts', type=int, default=2)
    parser.add_argument('--batches', type=int, default=None,
                        help='timed batches per measurement (default 20)')
    harness.add_arguments(parser, 4)
    args = parser.parse_args()
    if args.worker:
        import json
        variant, kind, batch, batches = args.worker
        print(json.dumps(worker(variant, kind, int(batch), int(batches))))
        return
    env = harness.thread_env(args.threads)
    variants = ['1', str(args.contexts), 'torch']
    first_run_notice()
    print(harness.environment())
    print('| model | batch | symmod 1 context samples/s best (median) '
          '| symmod %d contexts | scaling %d / 1, best (median) | PyTorch '
          '| load avg | threads (1; %d; torch) |'
          % (args.contexts, args.contexts, args.contexts))
    print('|---|---|---|---|---|---|---|---|')
    for case in args.cases.split(','):
        kind, batch = case.split(':')
        batches = args.batches or 20
        start_load, reports = harness.load_average(), {}

        def measure(variant):
            say('%s contexts: %s batch %s ...', variant, kind, batch)
            report = harness.worker(__file__, [variant, kind, batch, batches], env)
            reports[variant] = report['threads']
            return report['samples'] / report['seconds']

        res = harness.interleaved(measure, variants, args.rounds)
        (ob, om), (nb, nm), (tb, tm) = (harness.best_median(res[v], max) for v in variants)
        print('| %s | %s | %.0f (%.0f) | %.0f (%.0f) | %.2f (%.2f) | %.0f (%.0f) '
              '| %.1f-%.1f | %s; %s; %s |'
              % (kind, batch, ob, om, nb, nm, nb / ob, nm / om, tb, tm, start_load,
                 harness.load_average(), *(reports[v] for v in variants)), flush=True)


if __name__ == '__main__':
    main()
