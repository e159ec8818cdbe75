"""A hybridized gluon block with a sparse-gradient Embedding, one of whose looked-up rows
gets a gradient of exactly zero (masked), trained with lazy Adam by real MXNet 1.9.1, for
tests/gluon/test_hybridized_sparse_embedding.py.

Run with the MXNet virtual environment (not part of CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_hybridized_sparse_embedding_reference.py

Output: tests/data/sparse/hybridized_embedding_reference.npz with 'w0' (initial weight),
'x<step>', 'mask<step>' (the batch of each step) and 'w<step>' (the weight after it), for
the block hybridized (MXNet's result is the same without hybridize: checked here).
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'sparse')
STEPS = 3


class Net(mx.gluon.HybridBlock):
    """More operators than hybridize's inline limit, so the graph is one CachedOp."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.emb = mx.gluon.nn.Embedding(6, 3, sparse_grad=True)

    def hybrid_forward(self, F, x, mask):
        return F.relu(F.broadcast_mul(self.emb(x) * 2 + 1, mask)) * 0.5


def run(hybridize, w0, batches):
    net = Net(prefix='net_')
    net.initialize()
    net.emb.weight.set_data(mx.nd.array(w0))
    if hybridize:
        net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), 'adam',
                               {'learning_rate': 0.1, 'wd': 0.1})
    weights = []
    for x, mask in batches:
        with mx.autograd.record():
            loss = net(mx.nd.array(x), mx.nd.array(mask)).sum()
        loss.backward()
        trainer.step(1)
        weights.append(net.emb.weight.data().asnumpy())
    return weights


def main():
    rng = np.random.RandomState(3)
    w0 = rng.uniform(0.5, 1.5, (6, 3)).astype(np.float32)
    # each batch looks up a row whose mask is 0: its gradient sums to exactly zero
    batches = [(np.array([0, 1, 2]), np.array([[1], [1], [0]], np.float32)),
               (np.array([3, 2, 4]), np.array([[0], [1], [1]], np.float32)),
               (np.array([5, 0, 1]), np.array([[1], [0], [0]], np.float32))]
    hybrid = run(True, w0, batches)
    for a, b in zip(hybrid, run(False, w0, batches)):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    out = {'w0': w0}
    for step, ((x, mask), w) in enumerate(zip(batches, hybrid)):
        out['x%d' % step], out['mask%d' % step], out['w%d' % (step + 1)] = x, mask, w
    os.makedirs(OUT, exist_ok=True)
    np.savez(os.path.join(OUT, 'hybridized_embedding_reference.npz'), **out)


if __name__ == '__main__':
    main()
