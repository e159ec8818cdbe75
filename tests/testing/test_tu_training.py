"""mx.test_utils comparisons of optimizers and gluon blocks."""
import numpy as np
import pytest

import symmod as mx
from symmod import test_utils as tu


def test_compare_optimizer_equal_and_different():
    tu.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
                         mx.optimizer.SGD(learning_rate=0.1, momentum=0.9), (3, 4), np.float32)
    with pytest.raises(AssertionError):
        tu.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1),
                             mx.optimizer.SGD(learning_rate=0.2), (3, 4), np.float32)


def test_check_gluon_hybridize_consistency():
    def build(prefix):
        net = mx.gluon.nn.HybridSequential(prefix=prefix)
        with net.name_scope():
            net.add(mx.gluon.nn.Dense(3, in_units=4), mx.gluon.nn.Activation('tanh'))
        return net

    x = mx.nd.array(np.random.uniform(-1, 1, (2, 4)))
    tu.check_gluon_hybridize_consistency(build, [x])

    def numpy_ref(data):
        return data * 0          # not what the network computes
    with pytest.raises(AssertionError):
        tu.check_gluon_hybridize_consistency(build, [x], numpy_func=numpy_ref)


class _RowByRowSGD(mx.optimizer.Optimizer):
    """A reference written as MXNet's tests write theirs: it indexes its (dense) weight and
    gradient row by row, which sparse arrays refuse."""

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        assert weight.stype == 'default' and grad.stype == 'default'
        lr, wd = self._get_lr(index), self._get_wd(index)
        for row in range(weight.shape[0]):
            g = grad[row].asnumpy() * self.rescale_grad + wd * weight[row].asnumpy()
            weight[row] = weight[row].asnumpy() - lr * g


@pytest.mark.parametrize('w_stype, g_stype', [('row_sparse', 'row_sparse'),
                                              ('default', 'row_sparse'), ('csr', 'csr')])
def test_compare_optimizer_gives_the_reference_dense_arrays(w_stype, g_stype):
    shape = (4, 5) if w_stype == 'csr' else (4, 2, 3)
    tu.compare_optimizer(_RowByRowSGD(learning_rate=0.1, wd=0.01),
                         mx.optimizer.SGD(learning_rate=0.1, wd=0.01, lazy_update=False),
                         shape, np.float32, w_stype=w_stype, g_stype=g_stype)
    with pytest.raises(Exception, match='type not supported yet'):
        tu.compare_optimizer(_RowByRowSGD(), mx.optimizer.SGD(), shape, np.float32,
                             w_stype='bsr')
