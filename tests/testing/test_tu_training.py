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
