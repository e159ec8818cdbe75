"""gluon training with a row_sparse weight (gluon.contrib.nn.SparseEmbedding, a Trainer
that keeps the weight in its KVStore), built by a given ``mx``: symmod in
tests/gluon/test_sparse_weights.py, real MXNet 1.9.1 in
tests/data/gen/gen_gluon_sparse_weight_reference.py (tests/data/sparse/gluon_sparse_weight.npz)."""
import numpy as np

VOCAB, DIM, UNITS = 12, 3, 2
# batches of ids (4 samples x 2 ids); rows 9..11 are never looked up
BATCHES = [[[0, 2], [5, 2], [1, 1], [7, 3]],
           [[4, 0], [6, 8], [0, 0], [2, 5]],
           [[3, 3], [8, 1], [5, 6], [4, 7]]]
HEAD = np.array([[1.0, -0.5], [0.25, 2.0], [-1.5, 0.75], [0.5, 0.5]], dtype=np.float32)
# (name, optimizer, optimizer_params)
OPTIMIZERS = [('sgd_mom', 'sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01}),
              ('adam', 'adam', {'learning_rate': 0.05}),
              ('adagrad', 'adagrad', {'learning_rate': 0.2}),
              ('ftrl', 'ftrl', {'learning_rate': 0.3})]
CONTEXTS = (1, 2)       # one context, two contexts (cpu(0), cpu(1))


def initial_values():
    """Deterministic starting weights: ``{'embedding': ..., 'weight': ..., 'bias': ...}``."""
    emb = (np.arange(VOCAB * DIM, dtype=np.float32).reshape(VOCAB, DIM) % 7 - 3) / 4
    dense = (np.arange(UNITS * 2 * DIM, dtype=np.float32).reshape(UNITS, 2 * DIM) % 5 - 2) / 3
    return {'embedding': emb, 'weight': dense, 'bias': np.array([0.1, -0.2], np.float32)}


def build(mx):
    """The net: SparseEmbedding (row_sparse weight), then Dense."""
    class Net(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.embed = mx.gluon.contrib.nn.SparseEmbedding(VOCAB, DIM, prefix='emb_')
                self.dense = mx.gluon.nn.Dense(UNITS, in_units=2 * DIM, prefix='dense_')

        def forward(self, x):
            return self.dense(self.embed(x))

    return Net(prefix='net_')


def save_initial(mx, path):
    """Write the initial values as a ``.params`` file of the net's (dense) arrays."""
    vals = initial_values()
    mx.nd.save(path, {'embed.weight': mx.nd.array(vals['embedding']),
                      'dense.weight': mx.nd.array(vals['weight']),
                      'dense.bias': mx.nd.array(vals['bias'])})


def train(mx, init_file, ncontexts, optimizer, optimizer_params, kvstore='device'):
    """Three steps; returns the net, its trainer and ``{what: numpy array}``: the
    embedding gradient rows of the last step (context 0), the final weights. Under a
    distributed ``kvstore`` each worker takes its share of every batch (worker w,
    context i: samples ``w + W * i``, every ``W * ncontexts``-th), so two workers with
    one context each see what one worker's two contexts see (pass the store, not its
    name, then)."""
    ctxs = [mx.cpu(i) for i in range(ncontexts)]
    net = build(mx)
    net.load_parameters(init_file, ctx=ctxs)
    optimizer_params, batch_size = dict(optimizer_params), len(BATCHES[0])
    rank, workers = (0, 1) if isinstance(kvstore, str) else (kvstore.rank,
                                                             kvstore.num_workers)
    if workers > 1 or not isinstance(kvstore, str):
        # a distributed store that updates keeps the rescale_grad it got first (the
        # row_sparse pull of the first forward): MXNet raises if step() changes it
        optimizer_params['rescale_grad'], batch_size = 1.0 / batch_size, 1
    trainer = mx.gluon.Trainer(net.collect_params(), optimizer, optimizer_params,
                               kvstore=kvstore)
    step = workers * ncontexts
    for ids in BATCHES:
        ids = np.array(ids, dtype=np.float32)
        parts = [mx.nd.array(ids[rank + workers * i::step], ctx=c) for i, c in enumerate(ctxs)]
        heads = [mx.nd.array(HEAD[rank + workers * i::step], ctx=c)
                 for i, c in enumerate(ctxs)]
        with mx.autograd.record():
            losses = [(net(x) * h).sum() for x, h in zip(parts, heads)]
        for loss in losses:
            loss.backward()
        trainer.step(batch_size)
    grad = net.embed.weight.grad(ctxs[0])
    all_rows = mx.nd.arange(0, VOCAB, ctx=ctxs[0])
    res = {'grad_indices': grad.indices.asnumpy(), 'grad_data': grad.data.asnumpy(),
           'embedding': net.embed.weight.row_sparse_data(all_rows).asnumpy(),
           'weight': net.dense.weight.data(ctxs[0]).asnumpy(),
           'bias': net.dense.bias.data(ctxs[0]).asnumpy()}
    return net, trainer, res
