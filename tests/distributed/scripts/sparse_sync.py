"""dist_sync with row_sparse values under mpiexec: init takes rank 0's row_sparse value,
pushes of different rows on every worker are summed as row_sparse, the optimizer in the
store updates only those rows, row_sparse_pull returns them. Each rank saves to
rank<r>.npz."""
import os
import sys

import numpy as np

import symmod as mx

out_dir = sys.argv[1]
kv = mx.kv.create('dist_sync')
r = kv.rank
saved = {}
shape = (8, 3)


def rsp(rows, scale):
    values = np.arange(len(rows) * 3, dtype=np.float32).reshape(len(rows), 3) + scale
    return mx.nd.sparse.row_sparse_array((values, rows), shape=shape)


def pulled(key, rows):
    out = mx.nd.sparse.zeros('row_sparse', shape)
    kv.row_sparse_pull(key, out=out, row_ids=mx.nd.array(rows))
    return out


# rank 0's initial value wins (every rank offers its own)
kv.init('plain', rsp([1, 6], 10 * (r + 1)))
kv.init('opt', mx.nd.ones(shape).tostype('row_sparse'))
saved['init'] = pulled('plain', np.arange(8)).asnumpy()
# each rank pushes different rows from two devices: summed over devices and ranks
kv.push('plain', [rsp([r, 7], 1), rsp([r + 2], 2)])
summed = pulled('plain', np.arange(8))
saved['push'] = summed.asnumpy()
saved['push_rows'] = kv._stored('plain').indices.asnumpy()   # the rows the sum holds
saved['pull_rows'] = pulled('plain', [7, 0, 7]).indices.asnumpy()
# the optimizer in the store: lazy SGD on the union of the pushed rows
kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, wd=0.1))
kv.push('opt', rsp([2 * r + 1], 1))
saved['opt'] = pulled('opt', np.arange(8)).asnumpy()

# pushpull of row_sparse values (a store without optimizer): the sum replaces the
# stored value, sparse outputs are left alone
plain = mx.kv.create('dist_sync')
plain.init('pp', mx.nd.zeros(shape).tostype('row_sparse'))
untouched = mx.nd.sparse.zeros('row_sparse', shape)
dense = mx.nd.zeros(shape)
plain.pushpull('pp', rsp([r + 4], 1), out=untouched)
plain.pushpull('pp', rsp([r + 4], 1), out=dense)
saved['pushpull_sparse_rows'] = untouched.indices.asnumpy()
saved['pushpull_dense'] = dense.asnumpy()

# gluon: a row_sparse weight (SparseEmbedding) trained through dist_sync, each worker
# one context with its share of every batch: as MXNet's 2-context local run
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'gluon'))
from sparse_weight_cases import OPTIMIZERS, save_initial, train  # noqa: E402

init_file = os.path.join(out_dir, 'init%d.params' % r)
save_initial(mx, init_file)
for name, optimizer, kwargs in OPTIMIZERS[:2]:
    store = mx.kv.create('dist_sync')
    _, trainer, res = train(mx, init_file, 1, optimizer, kwargs, kvstore=store)
    saved['gluon/%s/update_on_kvstore' % name] = np.array(trainer._update_on_kvstore)
    for what, value in res.items():
        saved['gluon/%s/%s' % (name, what)] = value
np.savez(os.path.join(out_dir, 'rank%d.npz' % r), **saved)
