"""dist_async with 2 workers and 2 servers: every push applied exactly once, in
arrival order; pushpull, compression, merged optimizer states, Module.fit."""
import logging
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import numpy as np  # noqa: E402

import symmod as mx  # noqa: E402
import dist_training as dt  # noqa: E402
from dist_cases import value  # noqa: E402

logging.basicConfig(level=logging.WARNING)
out_dir = sys.argv[1]
STEPS = 6
kv = mx.kv.create('dist_async')
r, n = kv.rank, kv.num_workers
saved = {'rank': np.array(r), 'num_workers': np.array(n), 'type': np.array(kv.type)}
size = n * STEPS
# key ids 0, 1, 2: 'x' and 'y' on server 0, 'z' on server 1
kv.init(['x', 'z', 'y'], [mx.nd.zeros((size,)), mx.nd.zeros((size,)),
                          mx.nd.array(value('y', 0, 0, 0, (4,), 'float32'))])
kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0, wd=0.5, rescale_grad=1.0))
for step in range(STEPS):
    onehot = np.zeros(size, np.float32)
    onehot[r * STEPS + step] = 1
    kv.push(['x', 'z', 'y'], [mx.nd.array(onehot), mx.nd.array(onehot),
                              mx.nd.array(value('y', r, 0, step + 1, (4,), 'float32'))])
kv.barrier()
for key, shape in (('x', size), ('z', size), ('y', 4)):
    out = mx.nd.zeros((shape,))
    kv.pull(key, out=out)
    saved[key] = out.asnumpy()

# pushpull returns the value right after this worker's own push
after = mx.nd.zeros((size,))
kv.pushpull('x', mx.nd.zeros((size,)), out=after)
saved['pushpull_x'] = after.asnumpy()
kv.barrier()

kv.save_optimizer_states(os.path.join(out_dir, 'async.states'))
kv.barrier()

# a row_sparse key: the servers update only the pushed rows (SGD's lazy update); each
# worker pushes its own rows [2r, 2r + 1] twice, so the result does not depend on arrival
initial = np.arange(18, dtype=np.float32).reshape(6, 3) / 2
kv.init('e', mx.nd.array(initial).tostype('row_sparse'))
for step in range(2):
    rows = np.full((2, 3), step + 1.0, np.float32)
    grad = mx.nd.sparse.row_sparse_array((rows, [2 * r, 2 * r + 1]), shape=(6, 3))
    kv.push('e', grad)
kv.barrier()
pulled = mx.nd.sparse.zeros('row_sparse', (6, 3))
kv.row_sparse_pull('e', out=pulled, row_ids=mx.nd.array([5, 0, 2, 0]))
saved['sparse_rows'] = pulled.indices.asnumpy()
saved['sparse_data'] = pulled.data.asnumpy()
dense = mx.nd.zeros((6, 3))
kv.pull('e', out=dense)
saved['sparse_dense'] = dense.asnumpy()

# 2-bit compression: each worker quantizes its pushes with its own residual
ckv = mx.kv.create('dist_async')
ckv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
ckv.init('c', mx.nd.zeros((37,)))
ckv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0))
for step in range(3):
    ckv.push('c', mx.nd.array(value('c', r, 0, step, (37,), 'float32')))
ckv.barrier()
out = mx.nd.zeros((37,))
ckv.pull('c', out=out)
saved['compressed'] = out.asnumpy()

# Module.fit trains through the servers (update_on_kvstore, asynchronous)
module = dt.fit_module(r, 'dist_async', 'sgd', epochs=2)
for name, arr in dt.module_params(module).items():
    saved['module/%s' % name] = arr
np.savez(os.path.join(out_dir, 'rank%d.npz' % r), **saved)
