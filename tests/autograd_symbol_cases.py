"""Recorded computations whose autograd.get_symbol graphs are compared with MXNet's, built
by a given ``mx`` (symmod in the tests, real MXNet in tests/data/gen/gen_autograd_symbol.py)."""


def mlp_head(mx):
    x = mx.nd.ones((2, 3)); x.attach_grad()
    w = mx.nd.ones((4, 3)); w.attach_grad()
    with mx.autograd.record():
        y = mx.nd.FullyConnected(x, w, num_hidden=4, no_bias=True)
        return mx.nd.relu(y) * 2 + x.sum()


def constants_and_aux(mx):
    x = mx.nd.ones((2, 3, 4, 4)); x.attach_grad()
    gamma, beta = mx.nd.ones((3,)), mx.nd.zeros((3,))
    mean, var = mx.nd.zeros((3,)), mx.nd.ones((3,))
    scale = mx.nd.full((2, 3, 4, 4), 0.5)
    with mx.autograd.record():
        y = mx.nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=False, momentum=0.8)
        return (y * scale + scale).mean(axis=(1, 2))


def split_outputs(mx):
    x = mx.nd.ones((2, 6)); x.attach_grad()
    with mx.autograd.record():
        parts = mx.nd.split(x, num_outputs=3, axis=1)
        return mx.nd.concat(parts[2], mx.nd.tanh(parts[0]), dim=1)


def _hybrid_net(mx, inline_limit, norm=True):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation='tanh'))
    net.add(mx.gluon.nn.BatchNorm() if norm else mx.gluon.nn.Dense(4))
    net.add(mx.gluon.nn.Dense(3))
    net.initialize()
    net.hybridize(inline_limit=inline_limit)
    with mx.autograd.record():
        return net(mx.nd.ones((2, 5)))


def hybrid_inlined(mx):
    """A graph of at most inline_limit operators is recorded operator by operator."""
    return _hybrid_net(mx, 4)


def hybrid_cached_op(mx):
    """A larger graph is one _CachedOp node."""
    return _hybrid_net(mx, 3, norm=False)


CASES = [mlp_head, constants_and_aux, split_outputs, hybrid_inlined, hybrid_cached_op]
