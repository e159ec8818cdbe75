"""_contrib_hawkesll (Hawkes process log likelihood) and _identity_with_attr_like_rhs:
against MXNet 1.9.1's numbers (tests/data/gen/gen_ops_hawkesll_reference.py), float64
finite differences, and the shape, type and gradient-request rules."""
import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient

from recorded_cases import case_names, replay

TESTED_OPS = {'_contrib_hawkesll', '_identity_with_attr_like_rhs'}
RECORDED = {'contrib.hawkesll', '_internal._identity_with_attr_like_rhs'}
REFERENCE = 'ops_hawkesll_reference.npz'
OBSERVED = ['lags', 'marks', 'valid_length', 'max_time']
RNG = np.random.RandomState(3)


@pytest.mark.parametrize('name', case_names(REFERENCE, RECORDED))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-4, atol=1e-5)


def _inputs(n=3, t=5, k=2, dtype=np.float64):
    return {'lda': RNG.uniform(0.5, 2.0, (n, k)).astype(dtype),
            'alpha': RNG.uniform(0.1, 0.5, k).astype(dtype),
            'beta': RNG.uniform(0.5, 2.0, k).astype(dtype),
            'state': RNG.uniform(0.1, 1.0, (n, k)).astype(dtype),
            'lags': RNG.uniform(0.1, 1.5, (n, t)).astype(dtype),
            'marks': RNG.randint(0, k, (n, t)).astype(np.int32),
            'valid_length': np.array([t, 2, 0][:n], dtype),
            'max_time': np.full(n, 10.0, dtype)}


def _log_likelihood(int_marks=True):
    names = ['lda', 'alpha', 'beta', 'state'] + OBSERVED
    inputs = [mx.sym.var(n) for n in names]
    if not int_marks:
        # the gradient checker feeds and perturbs every input in float64: marks and
        # valid_length go through round (and marks to int32) to stay whole numbers
        inputs[5] = mx.sym.cast(mx.sym.round(inputs[5]), dtype='int32')
        inputs[6] = mx.sym.round(inputs[6])
    return mx.sym.contrib.hawkesll(*inputs)[0]


def test_numeric_gradient_of_the_log_likelihood():
    # the parameters and the initial state (MXNet leaves the state's gradient unwritten)
    check_numeric_gradient(_log_likelihood(int_marks=False), _inputs(), numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-7, dtype=np.float64,
                           grad_nodes=['lda', 'alpha', 'beta', 'state'])


def test_a_sequence_without_events_is_the_compensator_alone():
    values = _inputs(n=1, t=3, k=2)
    values['valid_length'] = np.zeros(1)
    ll, state = mx.nd.contrib.hawkesll(*[mx.nd.array(values[n], dtype=values[n].dtype)
                                        for n in ['lda', 'alpha', 'beta', 'state'] + OBSERVED])
    decay = np.exp(-values['beta'] * 10.0)
    expected = -np.sum(values['lda'][0] * 10.0 + values['alpha'] * values['state'][0]
                       * (1 - decay))
    np.testing.assert_allclose(ll.asnumpy(), [expected], rtol=1e-12)
    np.testing.assert_allclose(state.asnumpy(), values['state'] * decay, rtol=1e-12)


def test_observations_take_no_gradient():
    values = _inputs()
    exe = _log_likelihood().simple_bind(mx.cpu(), grad_req='write', type_dict={
        n: v.dtype for n, v in values.items()}, **{n: v.shape for n, v in values.items()})
    for name, value in values.items():
        exe.arg_dict[name][:] = value
    exe.forward(is_train=True)
    with pytest.raises(mx.MXNetError, match="lags is an observation without a gradient"):
        exe.backward(mx.nd.ones((3,), dtype=np.float64))


def test_shape_type_and_mark_checks():
    values = _inputs(dtype=np.float32)
    sym = mx.sym.contrib.hawkesll(*[mx.sym.var(n) for n in values], name='h')
    shapes = {n: v.shape for n, v in values.items()}
    assert sym.infer_shape(**shapes)[1] == [(3,), (3, 2)]
    with pytest.raises(mx.MXNetError, match='alpha has shape'):
        sym.infer_shape(**dict(shapes, alpha=(3,)))
    with pytest.raises(mx.MXNetError, match='marks must be int32'):
        sym.infer_type(lda=np.float32, marks=np.float32)
    arrays = [mx.nd.array(v, dtype=v.dtype) for v in values.values()]
    arrays[5] = mx.nd.array(np.full((3, 5), 2), dtype=np.int32)     # only processes 0, 1
    with pytest.raises(mx.MXNetError, match=r'marks must be process ids in \[0, 2\)'):
        mx.nd.contrib.hawkesll(*arrays)


def test_identity_with_attr_like_rhs_constrains_shapes_backwards():
    w = mx.sym.var('w')
    shifted = mx.sym.broadcast_add(w, mx.sym.var('shift', shape=(1,)))
    like = mx.sym._internal._identity_with_attr_like_rhs(shifted, w)
    net = mx.sym.FullyConnected(mx.sym.var('data'), weight=like, num_hidden=5, no_bias=True)
    args, _, _ = net.infer_shape(data=(2, 7))
    assert dict(zip(net.list_arguments(), args))['w'] == (5, 7)
    check_numeric_gradient(mx.sym._internal._identity_with_attr_like_rhs(
        mx.sym.var('a'), mx.sym.var('b')), {'a': RNG.randn(2, 3), 'b': RNG.randn(2, 3)},
        dtype=np.float64)
