"""Symbol graphs built the same way by the tests (with symmod) and by the fixture
generator (with real MXNet): each builder takes the ``mx`` module to use."""


def composite(mx):
    """Naming, scopes, hidden attributes, BatchNorm, pooling, Concat/SliceChannel and
    symbol arithmetic in one graph."""
    data = mx.sym.var('data')
    with mx.AttrScope(ctx_group='stage1'):
        conv = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=(1, 1), name='conv1')
        bn = mx.sym.BatchNorm(conv, fix_gamma=False, name='bn1')
    act = mx.sym.Activation(bn, act_type='relu')
    pool = mx.sym.Pooling(act, kernel=(2, 2), stride=(2, 2), pool_type='max')
    parts = mx.sym.SliceChannel(pool, num_outputs=2, axis=1)
    joined = mx.sym.Concat(parts[1], parts[0], dim=1)
    with mx.name.Prefix('head_'):
        flat = mx.sym.Flatten(joined)
        w = mx.sym.var('w', shape=(10, 64), lr_mult=2.0, wd_mult=0.5, dtype='float32')
        fc = mx.sym.FullyConnected(flat, weight=w, num_hidden=10, name='fc')
    scaled = (fc * 2.0 + 1) / fc - fc ** 2
    return mx.sym.Group([mx.sym.SoftmaxOutput(scaled, name='softmax'), mx.sym.BlockGrad(bn)])
