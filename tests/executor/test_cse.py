"""Common subexpression elimination at bind (MXNET_ELIMINATE_COMMON_EXPR, on by default):
what is merged, what never is, duplicated outputs, and unchanged numbers."""
import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import environment


def _savings(sym, **shapes):
    exe = sym.simple_bind(mx.cpu(), **shapes)
    return len(sym.get_internals()) - len(exe.get_optimized_symbol().get_internals())


def test_merged_nodes():
    a, b, c = mx.sym.var('a'), mx.sym.var('b'), mx.sym.var('c')
    assert _savings((a + 1) + (a + 2), a=(2,)) == 0          # different attributes
    assert _savings((a + b) + (a + b), a=(2,), b=(2,)) == 1
    assert _savings(((a + b) + c) + ((a + b) + c), a=(2,), b=(2,), c=(2,)) == 2
    d = a + 1
    # merged, then a _copy keeps the two outputs apart: no net saving
    assert _savings(mx.sym.Group([a * d, a * d]), a=(2,)) == 0
    assert _savings(mx.sym.Group([a * d + b, a * d + b]), a=(2,), b=(2,)) == 1


def test_random_stateful_and_aux_updating_nodes_are_never_merged():
    a = mx.sym.var('a')
    assert _savings(mx.sym.Dropout(a) + mx.sym.Dropout(a), a=(2,)) == 0
    assert _savings(mx.sym.random.uniform(shape=(2,)) + mx.sym.random.uniform(shape=(2,)),
                    ) == 0
    bn = [mx.sym.BatchNorm(a, name='bn', gamma=mx.sym.var('g'), beta=mx.sym.var('be'),
                           moving_mean=mx.sym.var('m'), moving_var=mx.sym.var('v'))
          for _ in range(2)]
    assert _savings(bn[0] + bn[1], a=(2, 3)) == 0


@pytest.mark.parametrize('flag', ['0', '1'])
def test_same_numbers_with_and_without_elimination(flag):
    a, b = mx.sym.var('a'), mx.sym.var('b')
    sym = mx.sym.Group([mx.sym.tanh(a * b) + mx.sym.tanh(a * b), mx.sym.tanh(a * b)])
    rng = np.random.RandomState(0)
    values = {'a': rng.randn(3), 'b': rng.randn(3)}
    with environment('MXNET_ELIMINATE_COMMON_EXPR', flag):
        exe = sym.simple_bind(mx.cpu(), a=(3,), b=(3,))
    exe.forward(is_train=True, **{k: mx.nd.array(v) for k, v in values.items()})
    t = np.tanh(values['a'] * values['b'])
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), 2 * t, rtol=1e-6)
    np.testing.assert_allclose(exe.outputs[1].asnumpy(), t, rtol=1e-6)
    exe.backward([mx.nd.ones((3,)), mx.nd.ones((3,))])
    np.testing.assert_allclose(exe.grad_dict['a'].asnumpy(),
                               3 * (1 - t ** 2) * values['b'], rtol=1e-4, atol=1e-6)
    merged = len(exe.get_optimized_symbol().get_internals()) < len(sym.get_internals())
    assert merged == (flag == '1')
