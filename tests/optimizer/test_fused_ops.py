"""mx.nd fused update functions: output handling, argument checks, preloaded variants.

Their numbers are checked against MXNet in test_reference_extra.py.
"""
import numpy as np
import pytest

import symmod as mx
from symmod.optimizer.kernels import reference


def _arrays(n, shape=(3, 4), seed=0, dtype='float32'):
    rng = np.random.RandomState(seed)
    return [mx.nd.array(rng.uniform(-1, 1, shape), dtype=dtype) for _ in range(n)]


def test_out_none_returns_a_new_array_and_keeps_the_weight():
    w, g = _arrays(2)
    before = w.asnumpy()
    out = mx.nd.sgd_update(w, g, lr=0.1)
    assert out is not w
    np.testing.assert_array_equal(w.asnumpy(), before)
    np.testing.assert_allclose(out.asnumpy(), reference.sgd(before, g.asnumpy(), 0.1, 0.0),
                               rtol=1e-6)


def test_out_weight_updates_in_place_and_states_always_in_place():
    w, g, m = _arrays(3)
    w0, m0 = w.asnumpy(), m.asnumpy()
    out = mx.nd.sgd_mom_update(w, g, m, lr=0.1, momentum=0.9, out=w)
    assert out is w
    new_w, new_m = reference.sgd_mom(w0, g.asnumpy(), m0, 0.1, 0.0, 0.9)
    np.testing.assert_allclose(w.asnumpy(), new_w, rtol=1e-6)
    np.testing.assert_allclose(m.asnumpy(), new_m, rtol=1e-6)


def test_out_elsewhere_leaves_the_weight():
    w, g, mean, var = _arrays(4)
    var = mx.nd.abs(var) if hasattr(mx.nd, 'abs') else mx.nd.array(np.abs(var.asnumpy()))
    target = mx.nd.zeros(w.shape)
    w0 = w.asnumpy()
    mx.nd.adam_update(w, g, mean, var, lr=0.01, out=target)
    np.testing.assert_array_equal(w.asnumpy(), w0)
    assert np.abs(target.asnumpy() - w0).max() > 0


def test_shape_mismatch_is_an_error():
    w, = _arrays(1)
    with pytest.raises(mx.MXNetError, match=r'shape mismatch, expected \(3, 4\)'):
        mx.nd.sgd_update(w, mx.nd.ones((4, 3)), lr=0.1)
    with pytest.raises(TypeError, match='must be an NDArray'):
        mx.nd.sgd_update(np.ones((3, 4)), w, lr=0.1)


def test_multi_argument_counts_are_checked():
    w, g = _arrays(2)
    with pytest.raises(mx.MXNetError, match='expected 4 inputs'):
        mx.nd.multi_sgd_update(w, g, w, lrs=[0.1, 0.1], wds=[0, 0], num_weights=2)
    with pytest.raises(mx.MXNetError, match='1 lrs for num_weights=2'):
        mx.nd.multi_sgd_update(w, g, w, g, lrs=[0.1], wds=[0, 0], num_weights=2)


@pytest.mark.parametrize('mp', [False, True])
def test_preloaded_equals_multi(mp):
    n = 3
    shapes = [(2, 3), (4,), (5,)]
    per = 4 if mp else 3
    data = []
    for i, shape in enumerate(shapes):
        w, g, m, w32 = _arrays(4, shape, seed=i)
        if mp:
            data += [w.astype('float16'), g.astype('float16'), m, w32]
        else:
            data += [w, g, m]
    copy = [x.copy() for x in data]
    lrs, wds = [0.1, 0.2, 0.3], [0.0, 0.01, 0.02]
    name = 'multi_mp_sgd_mom_update' if mp else 'multi_sgd_mom_update'
    getattr(mx.nd, name)(*data, lrs=lrs, wds=wds, momentum=0.9, num_weights=n,
                         out=data[0::per])
    getattr(mx.nd, 'preloaded_' + name)(*copy, mx.nd.array(lrs), mx.nd.array(wds),
                                         momentum=0.9, num_weights=n, out=copy[0::per])
    for a, b in zip(data, copy):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_preloaded_sgd_without_momentum():
    w, g = _arrays(2)
    expected = reference.sgd(w.asnumpy(), g.asnumpy(), 0.5, 0.1, multi_form=True)
    mx.nd.preloaded_multi_sgd_update(w, g, mx.nd.array([0.5]), mx.nd.array([0.1]),
                                     num_weights=1, out=[w])
    np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-6)
    w32, g32 = _arrays(2, seed=5)
    w16, g16 = w32.astype('float16'), g32.astype('float16')
    expected = reference.sgd(w32.asnumpy(), g16.asnumpy(), 0.5, 0.1, multi_form=True)
    out = mx.nd.preloaded_multi_mp_sgd_update(w16, g16, w32, mx.nd.array([0.5]),
                                              mx.nd.array([0.1]), num_weights=1)
    np.testing.assert_allclose(w32.asnumpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(out[0].asnumpy(), expected.astype(np.float16))
