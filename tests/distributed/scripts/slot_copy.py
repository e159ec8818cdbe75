"""Repeated pushpulls through the shared slots with each way of copying into them
(SYMMOD_KVSTORE_SLOT_COPY): each rank saves what it pulled and which ways ran."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import numpy as np  # noqa: E402

import symmod as mx  # noqa: E402
from symmod.kvstore import slot_copy  # noqa: E402
from dist_cases import SLOT_KEYS, value  # noqa: E402

out_dir = sys.argv[1]
saved = {}
keys = sorted(SLOT_KEYS)
for mode in ('streaming', 'auto', 'cached'):
    os.environ[slot_copy.ENV_SLOT_COPY] = mode
    kv = mx.kv.create('dist_sync')
    r = kv.rank
    kv.init(keys, [mx.nd.zeros(SLOT_KEYS[k][0], dtype=SLOT_KEYS[k][1]) for k in keys])
    grads = [mx.nd.zeros(SLOT_KEYS[k][0], dtype=SLOT_KEYS[k][1]) for k in keys]
    # step 1 (the first repeat) runs round 252 (mod 256): steps 5-12 are the rounds in
    # which 'auto' tries the way not in use
    period = slot_copy.CopyChoice.PERIOD
    while (kv._transport.rounds + 2) % period != period - 4:
        kv.barrier()
    for step in range(20):
        for k, g in zip(keys, grads):
            g[:] = value(k, r, 0, step, *SLOT_KEYS[k])
        kv.pushpull(keys, grads)
        for k, g in zip(keys, grads):
            saved['%s/%s/%d' % (mode, k, step)] = g.asnumpy()
    choice = kv._repeat.run.choice
    saved['%s/has_choice' % mode] = np.array(choice is not None)
    saved['%s/fixed' % mode] = np.array(-1 if choice is None or choice.fixed is None
                                        else choice.fixed)
    saved['%s/timed' % mode] = np.array([-1, -1] if choice is None else
                                        [t is not None for t in choice.fastest()])
kv.barrier()
np.savez(os.path.join(out_dir, 'rank%d.npz' % r), **saved)
