"""Two dist_async stores in one job (2 workers, 1 server): the servers keep their keys,
values and optimizers apart, also under the same key names, and free a store's values
once every worker has freed the store."""
import gc
import os
import sys

import numpy as np

import symmod as mx

out_dir = sys.argv[1]
first = mx.kv.create('dist_async')
first.init(['w', 'u'], [mx.nd.ones((4,)), mx.nd.full((2,), 5.0)])
first.set_optimizer(mx.optimizer.SGD(learning_rate=1.0, rescale_grad=1.0))

# the second store reuses the name 'w' with another shape, and has an optimizer of its own
second = mx.kv.create('dist_async')
second.init(['w', 'v'], [mx.nd.arange(6), mx.nd.full((3,), 2.0)])
second.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, rescale_grad=1.0))

first.push('w', mx.nd.ones((4,)))
second.push('w', mx.nd.ones((6,)))
first.barrier()
second.barrier()
saved = {}
for name, kv, key, shape in (('first_w', first, 'w', 4), ('first_u', first, 'u', 2),
                             ('second_w', second, 'w', 6), ('second_v', second, 'v', 3)):
    out = mx.nd.zeros((shape,))
    kv.pull(key, out=out)
    saved[name] = out.asnumpy()
first.save_optimizer_states(os.path.join(out_dir, 'first.states'))
second.save_optimizer_states(os.path.join(out_dir, 'second.states'))

# a third store, freed on both workers: the server frees its values, keeps the others
third = mx.kv.create('dist_async')
third.init('w', mx.nd.ones((5,)))
first.barrier()
saved['held_before'] = np.array(first._servers.held())
del third
gc.collect()
first.barrier()     # each worker's release reaches the server before its flush
saved['held_after'] = np.array(first._servers.held())
np.savez(os.path.join(out_dir, 'rank%d.npz' % first.rank), **saved)
