"""2-bit gradient compression of the 'device' KVStore, against MXNet and a numpy formula."""
import os

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError

REF = np.load(os.path.join(os.path.dirname(__file__), '..', 'data', 'gluon_reference.npz'))


def quantize_reference(grads, threshold, steps):
    """numpy statement of MXNet's 2bit scheme: per-device residuals, +-threshold or 0."""
    residuals = [np.zeros_like(grads[0][0]) for _ in grads[0]]
    sums = []
    t = np.float32(threshold)
    for step in range(steps):
        total = np.zeros_like(grads[0][0])
        for dev, g in enumerate(grads[step]):
            residuals[dev] = residuals[dev] + g
            q = np.where(residuals[dev] >= t, t,
                         np.where(residuals[dev] <= -t, -t, np.float32(0)))
            residuals[dev] = residuals[dev] - q
            total = total + q
        sums.append(total)
    return sums


def grads_from_reference():
    return [[REF['kv2bit/g%d_%d' % (s, d)] for d in range(2)] for s in range(3)]


def test_matches_mxnet_2bit_store():
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv.init(0, mx.nd.zeros((37,)))
    grads = grads_from_reference()
    for step in range(3):
        out = mx.nd.zeros((37,))
        kv.pushpull(0, [mx.nd.array(g, ctx=mx.cpu(i)) for i, g in enumerate(grads[step])],
                    out=out)
        np.testing.assert_array_equal(out.asnumpy(), REF['kv2bit/pull%d' % step])


def test_matches_mxnet_2bit_store_with_optimizer():
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv.init(0, mx.nd.array(REF['kv2bit_sgd/w0']))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, rescale_grad=0.5))
    grads = grads_from_reference()
    for step in range(3):
        out = mx.nd.zeros((37,))
        kv.pushpull(0, [mx.nd.array(g) for g in grads[step]], out=out)
        np.testing.assert_allclose(out.asnumpy(), REF['kv2bit_sgd/pull%d' % step],
                                   rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('threshold', [0.5, 0.2, 1.0])
@pytest.mark.parametrize('ndev', [1, 3])
def test_matches_numpy_formula(threshold, ndev):
    rng = np.random.RandomState(ndev)
    steps = 4
    grads = [[rng.normal(0, 0.7, (5, 7)).astype(np.float32) for _ in range(ndev)]
             for _ in range(steps)]
    kv = mx.kv.create('local_allreduce_device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': threshold})
    kv.init('g', mx.nd.zeros((5, 7)))
    expected = quantize_reference(grads, threshold, steps)
    for step in range(steps):
        vals = [mx.nd.array(g) for g in grads[step]]
        kv.pushpull('g', vals)
        for v in vals:
            np.testing.assert_array_equal(v.asnumpy(), expected[step])


def test_default_threshold_is_half():
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit'})
    kv.init(0, mx.nd.zeros((3,)))
    out = mx.nd.zeros((3,))
    kv.pushpull(0, mx.nd.array([0.49, 0.5, -0.7]), out=out)
    np.testing.assert_array_equal(out.asnumpy(), [0, 0.5, -0.5])


def test_residual_is_per_key():
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 1.0})
    kv.init([0, 1], [mx.nd.zeros((1,)), mx.nd.zeros((1,))])
    out = mx.nd.zeros((1,))
    kv.pushpull(0, mx.nd.array([0.6]), out=out)
    assert out.asscalar() == 0
    kv.pushpull(1, mx.nd.array([0.6]), out=out)
    assert out.asscalar() == 0          # key 1's residual starts from zero
    kv.pushpull(0, mx.nd.array([0.6]), out=out)
    assert out.asscalar() == 1.0        # key 0's residual reached the threshold


def test_local_store_refuses_compression():
    with pytest.raises(MXNetError, match='Gradient compression is not supported for this '
                                         'type of kvstore'):
        mx.kv.create('local').set_gradient_compression({'type': '2bit'})


@pytest.mark.parametrize('params,match', [
    ({}, 'Required parameter type of string is not presented'),
    ({'threshold': 1}, 'Required parameter type'),
    ({'type': '1bit'}, 'Unknown type for gradient compression 1bit'),
    ({'type': '2bit', 'threshold': 0}, 'threshold must be greater than 0'),
    ({'type': '2bit', 'threshold': -1.0}, 'threshold must be greater than 0'),
])
def test_bad_compression_params(params, match):
    with pytest.raises(MXNetError, match=match):
        mx.kv.create('device').set_gradient_compression(params)


def test_compression_params_must_be_dict_and_extra_keys_ignored():
    kv = mx.kv.create('device')
    with pytest.raises(AssertionError, match='unexpected type for param_dict'):
        kv.set_gradient_compression('2bit')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5, 'foo': 1})


def test_compression_needs_float32():
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit'})
    kv.init(0, mx.nd.zeros((2,), dtype='float64'))
    with pytest.raises(MXNetError, match='float32'):
        kv.push(0, mx.nd.zeros((2,), dtype='float64'))


def mxnet_packed_bytes(codes):
    """MXNet's 2bit layout, written out: 16 values per float32 word, 4 per byte from the
    high bits; 0b11 for +threshold, 0b10 for -threshold."""
    out = np.zeros(((len(codes) + 15) // 16) * 4, dtype=np.uint8)
    for i, code in enumerate(codes):
        shift = 6 - 2 * (i % 4)
        if code > 0:
            out[i // 4] |= 0b11 << shift
        elif code < 0:
            out[i // 4] |= 0b10 << shift
    return out


@pytest.mark.parametrize('size', [1, 15, 16, 17, 37])
def test_worker_packing_is_mxnet_layout_and_keeps_the_residual(size):
    from symmod.kvstore.compression import WorkerCompression, packed_nbytes
    rng = np.random.RandomState(size)
    comp = WorkerCompression(0.5)
    residual = np.zeros(size, np.float32)
    for _ in range(3):
        grad = rng.normal(0, 0.6, size).astype(np.float32)
        packed = np.empty(packed_nbytes(size), np.uint8)
        comp.encode('k', grad, packed)
        r = residual + grad
        q = np.where(r >= 0.5, 0.5, np.where(r <= -0.5, -0.5, 0)).astype(np.float32)
        residual = r - q
        np.testing.assert_array_equal(packed, mxnet_packed_bytes(np.sign(q)))
        total = np.zeros(size, np.float32)
        comp.decode_sum([packed, packed], total)    # two workers sent the same codes
        np.testing.assert_array_equal(total, 2 * q)
