"""Training runs that must give the same parameters as one process on two CPU contexts
with the whole batch (the reference) and as N workers with 1/N of every batch each.

``train(scenario, part, kvstore)``: with ``part=None`` the run uses contexts cpu(0) and
cpu(1) and whole batches; with ``part=r`` (a worker of a 2-worker job) it uses cpu(0)
and rows ``[r*B/2, (r+1)*B/2)`` of every batch, which is what the 2-context run gives
each of its contexts.
"""
import os

import numpy as np

import symmod as mx

BATCH, SAMPLES, FEATURES, CLASSES = 8, 32, 10, 4
SCENARIOS = ('sgd', 'adam', 'sgd_no_kv_update', 'bucketing', 'trainer', 'trainer_no_kv')


def dataset():
    rng = np.random.RandomState(7)
    x = rng.uniform(-1, 1, (SAMPLES, FEATURES)).astype(np.float32)
    y = rng.randint(0, CLASSES, SAMPLES).astype(np.float32)
    return x, y


def rows(part, workers=2):
    """The sample rows this part sees, batch by batch."""
    if part is None:
        return np.arange(SAMPLES)
    half = BATCH // workers
    return np.concatenate([np.arange(b, b + BATCH)[part * half:(part + 1) * half]
                           for b in range(0, SAMPLES, BATCH)])


def mlp():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=16, name='fc1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.FullyConnected(net, num_hidden=CLASSES, name='fc2')
    return mx.sym.SoftmaxOutput(net, name='softmax')


OPTIMIZERS = {
    'sgd': ('sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3}),
    'adam': ('adam', {'learning_rate': 0.01, 'wd': 1e-4}),
}


def _contexts(part):
    return [mx.cpu(0), mx.cpu(1)] if part is None else [mx.cpu(0)]


def _iter(part, **kwargs):
    x, y = dataset()
    idx = rows(part)
    batch = BATCH if part is None else BATCH // 2
    return mx.io.NDArrayIter(x[idx], y[idx], batch_size=batch, shuffle=False,
                             label_name='softmax_label', **kwargs)


def _seed():
    mx.random.seed(11)
    np.random.seed(11)


def fit_module(part, kvstore, optimizer='sgd', epochs=2, begin=0, module=None,
               epoch_end_callback=None):
    """Module.fit on the MLP; returns the module."""
    name, params = OPTIMIZERS[optimizer]
    if module is None:
        _seed()
        module = mx.mod.Module(mlp(), context=_contexts(part))
    module.fit(_iter(part), kvstore=kvstore, optimizer=name, optimizer_params=params,
               initializer=mx.init.Xavier(), num_epoch=epochs, begin_epoch=begin,
               epoch_end_callback=epoch_end_callback)
    return module


def fit_bucketing(part, kvstore):
    """BucketingModule.fit with two buckets (sequence lengths 2 and 3) sharing weights."""
    x, y = dataset()
    idx = rows(part)

    def sym_gen(length):
        data = mx.sym.var('data')
        pooled = mx.sym.sum(mx.sym.reshape(data, shape=(0, length, -1)), axis=1)
        net = mx.sym.FullyConnected(pooled, num_hidden=CLASSES, name='fc')
        return mx.sym.SoftmaxOutput(net, name='softmax'), ('data',), ('softmax_label',)

    batch = BATCH if part is None else BATCH // 2

    class Buckets(mx.io.DataIter):
        def __init__(self):
            super().__init__(batch)
            self.default_bucket_key = 3
            self.provide_data = [mx.io.DataDesc('data', (batch, 3 * 2))]
            self.provide_label = [mx.io.DataDesc('softmax_label', (batch,))]
            self.cursor = 0

        def reset(self):
            self.cursor = 0

        def next(self):
            if self.cursor >= len(idx):
                raise StopIteration
            sel = idx[self.cursor:self.cursor + batch]
            length = 2 if (self.cursor // batch) % 2 else 3
            self.cursor += batch
            data = x[sel][:, :length * 2]
            return mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(y[sel])],
                                   bucket_key=length,
                                   provide_data=[mx.io.DataDesc('data', data.shape)],
                                   provide_label=[mx.io.DataDesc('softmax_label',
                                                                 (len(sel),))])

    _seed()
    module = mx.mod.BucketingModule(sym_gen, default_bucket_key=3, context=_contexts(part))
    name, params = OPTIMIZERS['sgd']
    module.fit(Buckets(), kvstore=kvstore, optimizer=name, optimizer_params=params,
               initializer=mx.init.Xavier(), num_epoch=2)
    return module


def fit_trainer(part, kvstore, update_on_kvstore=None, epochs=2):
    """A gluon loop with Trainer.step(global batch); returns {name: array}."""
    ctxs = _contexts(part)
    _seed()
    net = mx.gluon.nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(16, activation='relu'), mx.gluon.nn.Dense(CLASSES))
    net.initialize(mx.init.Xavier(), ctx=ctxs)
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd',
                               {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3},
                               kvstore=kvstore, update_on_kvstore=update_on_kvstore)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    x, y = dataset()
    idx = rows(part)
    batch = BATCH if part is None else BATCH // 2
    for _ in range(epochs):
        for start in range(0, len(idx), batch):
            sel = idx[start:start + batch]
            xs = mx.gluon.utils.split_and_load(mx.nd.array(x[sel]), ctxs)
            ys = mx.gluon.utils.split_and_load(mx.nd.array(y[sel]), ctxs)
            with mx.autograd.record():
                losses = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
            for loss in losses:
                loss.backward()
            trainer.step(BATCH)
    return {name: p.data(ctxs[0]).asnumpy() for name, p in net.collect_params().items()}


def module_params(module):
    arg, aux = module.get_params()
    out = {k: v.asnumpy() for k, v in arg.items()}
    out.update({k: v.asnumpy() for k, v in aux.items()})
    return out


def train(scenario, part, kvstore):
    """Final parameters of ``scenario`` ({name: numpy array})."""
    if scenario in ('sgd', 'adam'):
        return module_params(fit_module(part, kvstore, scenario))
    if scenario == 'sgd_no_kv_update':
        os.environ['MXNET_UPDATE_ON_KVSTORE'] = '0'
        try:
            return module_params(fit_module(part, kvstore, 'sgd'))
        finally:
            del os.environ['MXNET_UPDATE_ON_KVSTORE']
    if scenario == 'bucketing':
        return module_params(fit_bucketing(part, kvstore))
    if scenario == 'trainer':
        return fit_trainer(part, kvstore)
    if scenario == 'trainer_no_kv':
        return fit_trainer(part, kvstore, update_on_kvstore=False)
    raise ValueError(scenario)
