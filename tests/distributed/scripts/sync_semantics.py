"""dist_sync semantics under mpiexec: init, push, pull, pushpull, broadcast, updaters,
compression, states, mismatched rounds. Each rank saves what it saw to rank<r>.npz."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import numpy as np  # noqa: E402

import symmod as mx  # noqa: E402
from symmod.kvstore import shared, shared_round  # noqa: E402
from dist_cases import KEYS, value  # noqa: E402

out_dir = sys.argv[1]
kv = mx.kv.create('dist_sync')
r, n = kv.rank, kv.num_workers
saved = {'rank': np.array(kv.rank), 'num_workers': np.array(n), 'type': np.array(kv.type),
         'shared_memory': np.array(kv._transport.shared is not None)}
ctxs = [mx.cpu(0), mx.cpu(1)]


def nd(key, device, step):
    return mx.nd.array(value(key, r, device, step), ctx=ctxs[device], dtype=KEYS[key][1])


def pulled(key):
    out = mx.nd.zeros(KEYS[key][0], dtype=KEYS[key][1])
    kv.pull(key, out=out)
    return out.asnumpy()


# init: every rank offers its own values; rank 0's win (int and str keys, all dtypes)
int_keys = [3, 9]
str_keys = ['big', 'half', 'dbl']
kv.init(int_keys, [nd(k, 0, 0) for k in int_keys])
str_kv = mx.kv.create('dist_sync')
str_kv.init(str_keys, [nd(k, 0, 0) for k in str_keys])
for k in int_keys:
    saved['init_%s' % k] = pulled(k)
kv, str_kv = str_kv, kv
for k in str_keys:
    saved['init_%s' % k] = pulled(k)
kv, str_kv = str_kv, kv

# push with two devices per rank, then pull; pushpull into out and in place
kv.push(int_keys, [[nd(k, 0, 1), nd(k, 1, 1)] for k in int_keys])
for k in int_keys:
    saved['push_%s' % k] = pulled(k)
kv, str_kv = str_kv, kv
vals = [[nd(k, 0, 2), nd(k, 1, 2)] for k in str_keys]
kv.pushpull(str_keys, vals)
for k, v in zip(str_keys, vals):
    saved['pushpull_%s' % k] = v[1].asnumpy()
outs = [mx.nd.zeros(KEYS[k][0], dtype=KEYS[k][1]) for k in str_keys]
kv.pushpull(str_keys, [nd(k, 0, 3) for k in str_keys], out=outs)
for k, o in zip(str_keys, outs):
    saved['pushpull_out_%s' % k] = o.asnumpy()
kv, str_kv = str_kv, kv

# pushpull from one device sums in place; a later pull still returns the sum
one = nd(9, 0, 5)
kv.pushpull(9, one)
saved['inplace_9'] = one.asnumpy()
one[:] = 0
saved['inplace_pull_9'] = pulled(9)

# one array pushed for two keys (a big one sent alone, a small one fused): each key's
# sum counts it once; the second call repeats the first (the store's recorded plan)
dkv = mx.kv.create('dist_sync')
dkv.init(['d1', 'd2', 'e1', 'e2'], [nd('big', 0, 0), nd('big', 0, 0), nd(9, 0, 0),
                                    nd(9, 0, 0)])
both, small = nd('big', 0, 0), nd(9, 0, 0)
for step in (40, 41):
    both[:] = value('big', r, 0, step)
    small[:] = value(9, r, 0, step)
    dkv.pushpull(['d1', 'd2', 'e1', 'e2'], [both, both, small, small])
    saved['twice_big_%d' % step] = both.asnumpy()
    saved['twice_9_%d' % step] = small.asnumpy()
for k, like in (('d1', 'big'), ('d2', 'big'), ('e1', 9), ('e2', 9)):
    o = mx.nd.zeros(KEYS[like][0])
    dkv.pull(k, out=o)
    saved['twice_pull_%s' % k] = o.asnumpy()

# a pushpull repeated on the very same array (the store replays its recorded round)
again = nd(9, 0, 0)
for step in (50, 51, 52):
    again[:] = value(9, r, 0, step)
    dkv.pushpull('e1', again)
    saved['again_%d' % step] = again.asnumpy()

# small repeated rounds run as one compiled call each (shared_round.py): one key in
# place, one key pulled into an output (float64), two keys in place
compiled, finished_late = [], []
start_round, finish_round = shared_round.start, shared_round.finish
shared_round.start = lambda plan, number: (compiled.append(number),
                                           start_round(plan, number))[1]
# a round whose peers come later than its spin waits in Python, then finishes
shared_round.finish = lambda plan, number: (finished_late.append(number),
                                            finish_round(plan, number))[1]
skv = mx.kv.create('dist_sync')
small = {'s1': ((5,), 'float32'), 's2': ((3, 4), 'float64'), 's3': ((2,), 'float32'),
         's4': ((6,), 'float32')}
skv.init(list(small), [mx.nd.zeros(sh, dtype=dt) for sh, dt in small.values()])
sarr = {k: mx.nd.zeros(sh, dtype=dt) for k, (sh, dt) in small.items()}
sout = mx.nd.zeros((3, 4), dtype='float64')
calls = [(['s1'], lambda: skv.pushpull('s1', sarr['s1']), {'s1': sarr['s1']}),
         (['s2'], lambda: skv.pushpull('s2', sarr['s2'], out=sout), {'s2': sout}),
         (['s3', 's4'], lambda: skv.pushpull(['s3', 's4'], [sarr['s3'], sarr['s4']]),
          {'s3': sarr['s3'], 's4': sarr['s4']})]
for keys, call, results in calls:     # a call repeats the one before it from step 1
    for step in range(4):
        for k in keys:
            sh = small[k][0]
            sarr[k][:] = np.arange(np.prod(sh)).reshape(sh) * (r + 1) * (step + 1)
        if step == 2 and r == 0:
            time.sleep(0.2)     # the other ranks wait longer than their spin
        call()
        for k, res in results.items():
            saved['small_%s_%d' % (k, step)] = res.asnumpy()
shared_round.start, shared_round.finish = start_round, finish_round
saved['small_finished_late'] = np.array(len(finished_late))
for k, (sh, dt) in small.items():
    sarr[k][:] = -1
    saved['small_pull_%s' % k] = (lambda o: (skv.pull(k, out=o), o.asnumpy())[1])(
        mx.nd.zeros(sh, dtype=dt))
saved['small_compiled_rounds'] = np.array(len(compiled))

# the sum reaches the stored value lazily (from the shared slots), and stays right after
# rounds of other stores and after the slots were reallocated for a bigger round
lkv = mx.kv.create('dist_sync')
lkv.init(['p', 'q1', 'q2'], [mx.nd.zeros((5,)), mx.nd.zeros((200000,)),
                             mx.nd.zeros((200000,))])
p = mx.nd.ones((5,)) * (r + 1)
lkv.pushpull('p', p)
saved['lazy_pending'] = np.array('p' in getattr(lkv, '_pending', {}))
kv.barrier()
p[:] = 0
saved['lazy_after_round'] = (lambda o: (lkv.pull('p', out=o), o.asnumpy())[1])(
    mx.nd.zeros((5,)))
p = mx.nd.ones((5,)) * (r + 1) * 2
lkv.pushpull('p', p)
lkv.pushpull(['q1', 'q2'], [mx.nd.ones((200000,)) * (r + 1) for _ in range(2)])
p[:] = 0
saved['lazy_after_growth'] = (lambda o: (lkv.pull('p', out=o), o.asnumpy())[1])(
    mx.nd.zeros((5,)))
saved['lazy_q2'] = (lambda o: (lkv.pull('q2', out=o), o.asnumpy())[1])(
    mx.nd.zeros((200000,)))[::1000]

# on one host the round headers go through shared memory: no point-to-point message
class CountingComm:
    def __init__(self, comm):
        self.comm, self.calls = comm, 0

    def __getattr__(self, name):
        self.calls += 1
        return getattr(self.comm, name)


control = kv._transport.control
kv._transport.control = counting = CountingComm(control)
kv.barrier()
kv.pushpull(9, nd(9, 0, 6))
kv._transport.control = control
saved['header_messages'] = np.array(counting.calls)

# broadcast: rank 0's value lands in every output
bouts = [mx.nd.zeros((2, 3), ctx=c) for c in ctxs]
kv.broadcast(11, mx.nd.array(value(3, r, 0, 4)), out=bouts)
saved['broadcast'] = np.stack([b.asnumpy() for b in bouts])

# the optimizer runs once per round on the sum over all workers and devices
kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01,
                                  rescale_grad=0.5))
for step in range(3):
    kv.pushpull(3, [nd(3, 0, 10 + step), nd(3, 1, 10 + step)],
                out=[mx.nd.zeros((2, 3), ctx=c) for c in ctxs])
saved['sgd_3'] = pulled(3)
kv.save_optimizer_states(os.path.join(out_dir, 'sgd.states'))
kv.barrier()
saved['states_written'] = np.array(os.path.exists(os.path.join(out_dir, 'sgd.states')))

# a user updater is called once per key and round, with the summed value
calls = []


def updater(key, grad, stored):
    calls.append(key)
    stored[:] = stored * 2 + grad


str_kv._set_updater(updater)
str_kv.push(['big', 'dbl'], [nd('big', 0, 20), nd('dbl', 0, 20)])
saved['updater_big'] = (lambda k: (lambda o: (str_kv.pull(k, out=o), o.asnumpy())[1])(
    mx.nd.zeros(KEYS[k][0])))('big')
saved['updater_calls'] = np.array([str(c) for c in calls])

# 2-bit compression: every worker quantizes its own sum with its own residual
ckv = mx.kv.create('dist_device_sync')
ckv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
ckv.init('c', mx.nd.zeros((37,)))
for step in range(3):
    grads = [mx.nd.array(value('c', r, d, step, shape=(37,), dtype='float32'), ctx=ctxs[d])
             for d in range(2)]
    out = mx.nd.zeros((37,))
    ckv.pushpull('c', grads, out=out)
    saved['compressed_%d' % step] = out.asnumpy()

# workers that push different keys get an error naming the round, not a wrong sum
try:
    kv.push(3 if r == 0 else 9, nd(3 if r == 0 else 9, 0, 30))
    saved['mismatch'] = np.array('no error')
except mx.MXNetError as err:
    saved['mismatch'] = np.array(str(err))
kv.barrier()    # the rounds still line up after the refused one

# a replayed pushpull that fails (rank 0 replays, the others call a barrier) leaves the
# stored value at the previous round's sum, which still sits in the shared slots: the
# rounds after the failure must not write over it before it is copied out
fkv = mx.kv.create('dist_sync')
fkv.init(['f', 'g'], [mx.nd.zeros((5,)), mx.nd.zeros((5,))])
f = mx.nd.ones((5,)) * (r + 1)
fkv.pushpull('f', f)
f[:] = (r + 1) * 3
fkv.pushpull('f', f)        # replayed: its sum stays in the slots until read
saved['failed_replay_pending'] = np.array('f' in fkv._pending)
for how in ('replay', 'push'):      # a replayed pushpull, a plain push
    if how == 'push':
        f[:] = (r + 1) * 3
        fkv.pushpull('f', f)
    try:
        if r != 0:
            fkv.barrier()
        elif how == 'replay':
            fkv.pushpull('f', f)
        else:
            fkv.push('f', f)
        saved['failed_%s_error' % how] = np.array('no error')
    except mx.MXNetError as err:
        saved['failed_%s_error' % how] = np.array(str(err))
    fkv.pushpull('g', mx.nd.ones((5,)) * 100 * (r + 1))     # writes the slots
    saved['failed_%s_f' % how] = (lambda o: (fkv.pull('f', out=o), o.asnumpy())[1])(
        mx.nd.zeros((5,)))

# a round bigger than the shared-memory slots goes through MPI's Allreduce instead
shared.MAX_SLOT = 1024
okv = mx.kv.create('dist_sync')
okv.init(str_keys, [nd(k, 0, 0) for k in str_keys])
over = [nd(k, 0, 30) for k in str_keys]
shared_rounds = []
reduce_shared = okv._transport.reduce_shared
okv._transport.reduce_shared = lambda *args: (shared_rounds.append(args),
                                              reduce_shared(*args))[1]
okv.pushpull(str_keys, over)
okv._transport.reduce_shared = reduce_shared
saved['over_slot_shared_rounds'] = np.array(len(shared_rounds))
for k, v in zip(str_keys, over):
    saved['over_slot_%s' % k] = v.asnumpy()
kv.barrier()

np.savez(os.path.join(out_dir, 'rank%d.npz' % r), **saved)
