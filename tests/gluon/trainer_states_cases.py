"""The gluon Trainer-states cases, shared by tests/gluon/test_trainer_mxnet_states.py and
its MXNet generator (tests/data/gen/gen_trainer_states.py); ``mx`` is symmod or MXNet."""

# case -> optimizer, its settings (a FactorScheduler when 'scheduler' is given), the number
# of cpu contexts, update_on_kvstore
CASES = {
    'sgd_momentum_1ctx': dict(optimizer='sgd', params={'learning_rate': 0.1, 'momentum': 0.9,
                                                       'wd': 1e-3}, ctxs=1, uok=None),
    'adam_factor_1ctx': dict(optimizer='adam', params={'learning_rate': 0.01},
                             scheduler=dict(step=2, factor=0.5), ctxs=1, uok=None),
    'sgd_momentum_2ctx': dict(optimizer='sgd', params={'learning_rate': 0.1, 'momentum': 0.9},
                              ctxs=2, uok=None),
    'adam_factor_2ctx_local': dict(optimizer='adam', params={'learning_rate': 0.01},
                                   scheduler=dict(step=2, factor=0.5), ctxs=2, uok=False),
}


def make_net(mx, ctxs):
    """Dense(3, tanh) then Dense(2), on ``ctxs``.

    The layers are named inside the net's own scope (net_dense0, net_dense1) whatever
    other tests created before: Trainer takes parameters in sorted name order (as MXNet),
    and global counters passing 9 -> 10 would reorder them against the states file."""
    net = mx.gluon.nn.Sequential(prefix='net_')
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(3, in_units=4, activation='tanh'),
                mx.gluon.nn.Dense(2, in_units=3))
    net.initialize(ctx=ctxs)
    return net


def step(mx, net, trainer, x, y, ctxs):
    """One L2-loss step on the batch (x, y) split over ``ctxs``."""
    loss_fn = mx.gluon.loss.L2Loss()
    xs = mx.gluon.utils.split_and_load(mx.nd.array(x), ctxs)
    ys = mx.gluon.utils.split_and_load(mx.nd.array(y), ctxs)
    with mx.autograd.record():
        losses = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
    for loss in losses:
        loss.backward()
    trainer.step(x.shape[0])
