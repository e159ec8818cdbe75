"""Ranks started by a plain mpiexec (no launcher) move into sessions of their own when
they create a distributed store; the store still works. Rank 0 records the session of
every process of the job (workers and the dist_async server)."""
import json
import os
import sys

import numpy as np

import symmod as mx

out_dir = sys.argv[1]


def job_processes():
    """pid -> (session id, autogroup) of every process running this script for out_dir
    (but mpiexec, whose command line names it too)."""
    found = {}
    for name in os.listdir('/proc'):
        if not name.isdigit() or int(name) == os.getppid():
            continue
        try:
            with open('/proc/%s/cmdline' % name, 'rb') as fin:
                args = fin.read().split(b'\0')
            if os.path.abspath(__file__).encode() not in args or out_dir.encode() not in args:
                continue
            with open('/proc/%s/autogroup' % name) as fin:
                group = fin.read().split()[0]
            found[int(name)] = (os.getsid(int(name)), group)
        except OSError:
            continue
    return found


kv = mx.kv.create('dist_sync')
kv.init('w', mx.nd.zeros((3,)))
total = mx.nd.zeros((3,))
kv.pushpull('w', mx.nd.ones((3,)) * (kv.rank + 1), out=total)
servers = mx.kv.create('dist_async')
servers.init('a', mx.nd.zeros((2,)))
servers.set_optimizer(mx.optimizer.SGD(learning_rate=1.0, rescale_grad=1.0))
servers.push('a', mx.nd.ones((2,)))
servers.barrier()
pulled = mx.nd.zeros((2,))
servers.pull('a', out=pulled)
if kv.rank == 0:
    with open(os.path.join(out_dir, 'sessions.json'), 'w') as fout:
        json.dump({'processes': job_processes(), 'launcher_session': os.getsid(os.getppid())},
                  fout)
np.savez(os.path.join(out_dir, 'rank%d.npz' % kv.rank), pid=os.getpid(), sid=os.getsid(0),
         pgid=os.getpgid(0), total=total.asnumpy(), pulled=pulled.asnumpy())
