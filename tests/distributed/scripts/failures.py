"""A job that fails on rank 1 in the way argv[2] names; the job must end, not hang."""
import os
import signal
import sys
import time

import numpy as np

import symmod as mx

mode = sys.argv[2]
if mode == 'async_no_optimizer':
    kv = mx.kv.create('dist_async')
    kv.init('w', mx.nd.zeros((4,)))
    kv.push('w', mx.nd.ones((4,)))      # the server refuses: no optimizer
    kv.barrier()
    sys.exit(0)

kv = mx.kv.create('dist_sync')
kv.init('w', mx.nd.zeros((4,)))
if mode in ('timeout_repeat', 'differ_repeat'):
    # the third call repeats the second (its round is prepared), except on rank 1
    kv.init('v', mx.nd.zeros((4,)))
    grads = [mx.nd.ones((4,))]
    for step in range(3):
        if kv.rank == 1 and step == 2:
            if mode == 'timeout_repeat':
                time.sleep(120)
            kv.pushpull(['v'], grads)
        kv.pushpull(['w'], grads)
    sys.exit(0)
if kv.rank == 1:
    if mode == 'exception':
        raise RuntimeError('rank 1 fails on purpose')
    if mode == 'kill':
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == 'timeout':
        time.sleep(120)
if mode == 'uneven':
    # rank 1 has fewer batches than rank 0 and leaves fit (and the script) early
    rows = 12 if kv.rank == 0 else 8
    x = np.random.uniform(-1, 1, (rows, 3)).astype(np.float32)
    mod = mx.mod.Module(mx.sym.LinearRegressionOutput(
        mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=1, name='fc'), name='lro'),
        label_names=['lro_label'])
    mod.fit(mx.io.NDArrayIter(x, x[:, :1], batch_size=4, label_name='lro_label'),
            kvstore=kv, optimizer='sgd', num_epoch=1)
    sys.exit(0)
kv.push('w', mx.nd.ones((4,)))
