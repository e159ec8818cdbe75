"""Inference latency: symmod ``Module.forward(is_train=False)`` and ``Module.predict`` vs
PyTorch under ``torch.inference_mode()``.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/inference_latency.py                  # MLP, LeNet, ResNet-20 at batch 1
    python benchmarks/inference_latency.py --cases resnet20:1,resnet20:64 --threads 1

Both sides run the same networks (``models.py``) in inference mode on the same random
float32 input, softmax included (symmod's ``SoftmaxOutput``; ``torch.softmax`` on the
logits). symmod: a ``Module`` bound with ``for_training=False``; "forward" is
``forward(batch, is_train=False)`` followed by reading the output into numpy, "predict"
is ``Module.predict`` over a one-batch ``NDArrayIter`` (iterator and output collection
included). Each measurement is a fresh process: 20 warm-up calls, then ``--calls``
timed calls; the per-call median of that process is kept, and the sides alternate over
``--rounds``. Reported: microseconds per call (best and median over rounds), per
operator node for symmod (the graph's non-variable nodes), the ratio, the load average
and each side's threads.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import models   # noqa: E402
from _progress import first_run_notice  # noqa: E402


def _input(kind, batch):
    rng = np.random.default_rng(0)
    return rng.standard_normal((batch,) + models.INPUT_SHAPES[kind]).astype(np.float32)


def _per_call(call, calls):
    """(median wall seconds, median CPU seconds) per call after 20 warm-up calls."""
    for _ in range(20):
        call()
    wall, cpu = [], []
    for _ in range(calls):
        tic, ctic = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - tic)
        cpu.append(time.process_time() - ctic)
    return statistics.median(wall), statistics.median(cpu)


def run_symmod(kind, batch, calls, how):
    import symmod as mx
    x = _input(kind, batch)
    sym = models.symmod_symbol(kind, mx)
    mod = mx.mod.Module(sym)
    mod.bind(data_shapes=[('data', x.shape)], for_training=False)
    mod.init_params(mx.init.Xavier())
    nodes = sum(1 for n in json.loads(sym.tojson())['nodes'] if n['op'] != 'null')
    if how == 'forward':
        batch_ = mx.io.DataBatch([mx.nd.array(x)])

        def call():
            mod.forward(batch_, is_train=False)
            mod.get_outputs()[0].asnumpy()
    else:
        it = mx.io.NDArrayIter(x, batch_size=batch)

        def call():
            mod.predict(it)
    return _per_call(call, calls) + (nodes,)


def run_torch(kind, batch, calls):
    import torch
    harness.set_torch_threads()
    model = models.torch_net(kind).eval()
    x = torch.from_numpy(_input(kind, batch))

    def call():
        with torch.inference_mode():
            torch.softmax(model(x), 1).numpy()
    return _per_call(call, calls) + (0,)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cases', default='mlp:1,lenet:1,resnet20:1')
    parser.add_argument('--calls', type=int, default=200)
    harness.add_arguments(parser, 5)
    args = parser.parse_args()
    if args.worker:
        framework, kind, batch, calls, how = args.worker
        if framework == 'symmod':
            wall, cpu, nodes = run_symmod(kind, int(batch), int(calls), how)
        else:
            wall, cpu, nodes = run_torch(kind, int(batch), int(calls))
        print(json.dumps({'seconds': wall, 'cpu': cpu, 'nodes': nodes,
                          'threads': harness.thread_report(framework)}))
        return
    env = harness.thread_env(args.threads)
    first_run_notice()
    print(harness.environment())
    print('| model | batch | symmod | symmod us/call best (median) | us per node '
          '| PyTorch us/call best (median) | PyTorch time / symmod time, best (median) '
          '| CPU time PyTorch / symmod | load avg | threads |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for case in args.cases.split(','):
        kind, batch = case.split(':')
        for how in ('forward', 'predict'):
            nodes = {}

            def value(report):
                nodes[0] = report['nodes'] or nodes.get(0, 0)
                return report['seconds'] * 1e6
            res, cpu, reports, loads = harness.side_by_side(
                __file__, [kind, batch, args.calls, how], env, args.rounds, value)
            (sb, sm), (tb, tm) = (harness.best_median(res[f]) for f in ('symmod', 'torch'))
            print('| %s | %s | %s | %.0f (%.0f) | %.1f (%d nodes) | %.0f (%.0f) '
                  '| %.2f (%.2f) | %.2f | %.1f-%.1f | %s; %s |'
                  % ((kind, batch, how, sb, sm, sb / nodes[0], nodes[0], tb, tm, tb / sb,
                      tm / sm, min(cpu['torch']) / min(cpu['symmod'])) + loads
                     + (reports['symmod'], reports['torch'])), flush=True)


if __name__ == '__main__':
    main()
