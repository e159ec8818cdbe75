"""The per-sample softmax cross-entropy operator of gluon's imperative
SoftmaxCrossEntropyLoss (tests/gluon/test_softmax_ce_fused.py compares it with the
operator chain it replaces)."""
import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient

TESTED_OPS = {'_gluon_softmax_ce_loss'}


def _sym():
    return mx.sym._internal._gluon_softmax_ce_loss(mx.sym.var('data'), mx.sym.var('label'))


def test_numeric_gradient():
    rng = np.random.RandomState(2)
    check_numeric_gradient(_sym(), {'data': rng.randn(4, 5), 'label': np.array([0, 4, 2, 1.])},
                           grad_nodes=['data'], numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_values_and_shapes():
    data = np.array([[0, 0, 0], [1, 2, 3]], dtype=np.float32)
    out = mx.nd._internal._gluon_softmax_ce_loss(mx.nd.array(data), mx.nd.array([2, 7]))
    expected = np.log(np.exp(data).sum(axis=1)) - data[[0, 1], [2, 2]]   # 7 clipped to 2
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    with pytest.raises(mx.MXNetError, match='data must be 2-D'):
        _sym().infer_shape(data=(2, 3, 4), label=(2, 3))
