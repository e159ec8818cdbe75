"""Module.fit / BucketingModule / gluon.Trainer with dist_sync on each worker's half of
every batch, then an exact resume from a checkpoint rank 0 wrote mid-run."""
import logging
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import numpy as np  # noqa: E402

import symmod as mx  # noqa: E402
import dist_training as dt  # noqa: E402

logging.basicConfig(level=logging.WARNING)
out_dir = sys.argv[1]
kv = mx.kv.create('dist_sync')
rank = kv.rank
saved = {}
for scenario in dt.SCENARIOS:
    for name, arr in dt.train(scenario, rank, 'dist_sync').items():
        saved['%s/%s' % (scenario, name)] = arr

# resume: the uninterrupted run checkpoints (rank 0 only) after epoch 2 of 4
prefix = os.path.join(out_dir, 'ckpt')
holder = {}


def checkpoint(epoch, *_):
    if epoch + 1 == 2 and rank == 0:
        holder['module'].save_checkpoint(prefix, 2, save_optimizer_states=True)


holder['module'] = mx.mod.Module(dt.mlp(), context=[mx.cpu(0)])
dt._seed()
full = dt.fit_module(rank, 'dist_sync', 'adam', epochs=4, module=holder['module'],
                     epoch_end_callback=checkpoint)
full._kvstore.barrier()     # the checkpoint files are complete for every worker
resumed = mx.mod.Module.load(prefix, 2, load_optimizer_states=True, context=[mx.cpu(0)])
dt.fit_module(rank, 'dist_sync', 'adam', epochs=4, begin=2, module=resumed)
for name, arr in dt.module_params(full).items():
    saved['full/%s' % name] = arr
for name, arr in dt.module_params(resumed).items():
    saved['resumed/%s' % name] = arr
np.savez(os.path.join(out_dir, 'rank%d.npz' % rank), **saved)
