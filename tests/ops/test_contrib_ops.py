"""Small contrib operators (quadratic, gradientmultiplier, round_ste, sign_ste,
div_sqrt_dim, index_copy, index_array, boolean_mask, allclose, khatri_rao) against MXNet
1.9.1 (tests/data/gen/gen_ops_contrib_reference.py), numpy and finite differences."""
import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient

from recorded_cases import case_names, replay

TESTED_OPS = {'_contrib_quadratic', '_contrib_gradientmultiplier', '_contrib_round_ste',
              '_contrib_sign_ste', '_contrib_div_sqrt_dim', '_contrib_index_copy',
              '_contrib_index_array', '_contrib_boolean_mask', '_contrib_allclose',
              'khatri_rao'}
REFERENCE = 'ops_contrib_reference.npz'
RECORDED = {'contrib.quadratic', 'contrib.gradientmultiplier', 'contrib.round_ste',
            'contrib.sign_ste', 'contrib.div_sqrt_dim', 'contrib.index_copy',
            'contrib.index_array', 'contrib.allclose', 'khatri_rao'}
RNG = np.random.RandomState(3)


@pytest.mark.parametrize('name', case_names(REFERENCE, RECORDED))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('make', [
    lambda x: mx.sym.contrib.quadratic(x, a=0.3, b=-2, c=1),
    lambda x: mx.sym.contrib.div_sqrt_dim(x),
])
def test_numeric_gradient_float64(make):
    check_numeric_gradient(make(mx.sym.var('x')), {'x': RNG.randn(3, 4)}, numeric_eps=1e-6,
                           rtol=1e-6, atol=1e-8, dtype=np.float64)


def test_index_copy_numeric_gradient():
    sym = mx.sym.contrib.index_copy(mx.sym.var('old'), mx.sym.var('idx'), mx.sym.var('new'))
    check_numeric_gradient(sym, {'old': RNG.randn(4, 2), 'idx': np.array([2., 0.]),
                                 'new': RNG.randn(2, 2)}, grad_nodes=['old', 'new'],
                           numeric_eps=1e-6, rtol=1e-6, atol=1e-8, dtype=np.float64)


def test_boolean_mask_rows_and_gradient():
    data = RNG.randn(4, 3)
    mask = np.array([1, 0, 1, 1])
    x = mx.nd.array(data)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.boolean_mask(x, mx.nd.array(mask))
    np.testing.assert_allclose(y.asnumpy(), data[mask != 0].astype(np.float32))
    head = RNG.randn(3, 3)
    y.backward(mx.nd.array(head))
    expected = np.zeros((4, 3))
    expected[mask != 0] = head
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-6)
    assert mx.nd.contrib.boolean_mask(x, mx.nd.zeros(4)).shape == (0, 3)


def test_straight_through_estimators_pass_the_gradient():
    x = mx.nd.array([-1.5, 0.4, 2.5])
    for op, forward in ((mx.nd.contrib.round_ste, [-2, 0, 3]), (mx.nd.contrib.sign_ste,
                                                               [-1, 1, 1])):
        x.attach_grad()
        with mx.autograd.record():
            y = op(x)
        y.backward(mx.nd.array([1., 2., 3.]))
        np.testing.assert_array_equal(y.asnumpy(), forward)
        np.testing.assert_array_equal(x.grad.asnumpy(), [1, 2, 3])


def test_allclose_nan_rules():
    a = mx.nd.array([1, np.nan])
    assert mx.nd.contrib.allclose(a, a).asscalar() == 1
    assert mx.nd.contrib.allclose(a, a, equal_nan=False).asscalar() == 0


def test_errors():
    with pytest.raises(mx.MXNetError, match='1-D'):
        mx.nd.contrib.boolean_mask(mx.nd.ones((2, 2)), mx.nd.ones((2, 1)))
    with pytest.raises(mx.MXNetError, match='columns'):
        mx.nd.khatri_rao(mx.nd.ones((2, 2)), mx.nd.ones((2, 3)))
    with pytest.raises(mx.MXNetError, match='new_tensor'):
        mx.nd.contrib.index_copy(mx.nd.ones((2, 2)), mx.nd.ones(3), mx.nd.ones((3, 2)))


@pytest.mark.parametrize('name', ['_contrib_sign_ste', '_contrib_round_ste', 'sign'])
def test_ste_ops_in_place_and_in_a_graph(name):
    x = np.array([-3.2, 0.0, 1.6, -0.4], np.float32)
    expected = {'_contrib_round_ste': [-3, 0, 2, -0]}.get(name, [-1, 0, 1, -1])
    inplace = x.copy()
    mx.ops.registry.get(name)({}).forward(False, ['write'], [inplace], [inplace], [])
    np.testing.assert_array_equal(inplace, expected)
    # after a product whose buffer it may reuse (the hybridized sign_ste net of MXNet's tests)
    w, d = mx.sym.var('w'), mx.sym.var('d')
    sym = getattr(mx.sym, name)(w * d) * w
    exe = sym.bind(mx.cpu(), {'w': mx.nd.full(4, 2.0), 'd': mx.nd.array(x)})
    doubled = {'_contrib_round_ste': [-6, 0, 3, -1]}.get(name, expected)    # of 2 * x
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), np.array(doubled) * 2)
