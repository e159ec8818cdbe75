"""mx.nd.contrib's multi-tensor updates against MXNet 1.9.1's numbers
(tests/data/gen/gen_fused_contrib_reference.py), and group_adagrad_update against its
formula."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx

DATA = np.load(pathlib.Path(__file__).resolve().parent.parent / 'data'
               / 'fused_contrib_reference.npz')
CASES = sorted(k[:-len('/meta')] for k in DATA.files if k.endswith('/meta'))


@pytest.mark.parametrize('name', CASES)
def test_matches_mxnet(name):
    meta = json.loads(str(DATA[name + '/meta']))
    lists = {key: [mx.nd.array(DATA['%s/in/%s/%d' % (name, key, k)],
                               dtype=DATA['%s/in/%s/%d' % (name, key, k)].dtype)
                   for k in range(meta['count'])] for key in meta['lists']}
    out = [mx.nd.zeros(w.shape, dtype=w.dtype) for w in lists['weights']]
    result = getattr(mx.nd.contrib, meta['func'])(*lists.values(), *meta['after'], out=out,
                                                   **meta['kwargs'])
    assert all(r is o for r, o in zip(result, out))
    for k, o in enumerate(out):
        expected = DATA['%s/out/%d' % (name, k)]
        assert o.dtype == expected.dtype
        tol = 2e-3 if o.dtype == np.float16 else 2e-5
        np.testing.assert_allclose(o.asnumpy(), expected, rtol=tol, atol=tol, err_msg=str(k))
    for key, values in lists.items():
        for k, array in enumerate(values):
            np.testing.assert_allclose(array.asnumpy(), DATA['%s/after/%s/%d' % (name, key, k)],
                                       rtol=2e-5, atol=2e-5, err_msg='%s %d' % (key, k))


def test_group_adagrad_update_formula():
    rng = np.random.RandomState(0)
    w, g, h = rng.randn(4, 3), rng.randn(4, 3), rng.uniform(0, 1, (4, 1))
    weight, history = mx.nd.array(w), mx.nd.array(h)
    out = mx.nd.contrib.group_adagrad_update(weight, mx.nd.array(g), history, lr=0.2,
                                             rescale_grad=1.5, clip_gradient=0.5, epsilon=1e-3)
    grad = np.clip(g * 1.5, -0.5, 0.5)
    expected_h = h + np.mean(grad ** 2, axis=1, keepdims=True)
    np.testing.assert_allclose(history.asnumpy(), expected_h, rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), w - 0.2 * grad / np.sqrt(expected_h + 1e-3),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weight.asnumpy(), w.astype(np.float32))     # out= not given


def test_list_lengths_are_checked():
    w = [mx.nd.ones((2,))]
    with pytest.raises(mx.MXNetError, match='lrs'):
        mx.nd.contrib.multi_adamw_update(w, w, w, w, 1.0, lrs=[0.1, 0.2], wds=[0], etas=[1])
    with pytest.raises(mx.MXNetError, match='history'):
        mx.nd.contrib.group_adagrad_update(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)),
                                           mx.nd.ones((3, 1)), lr=0.1)
