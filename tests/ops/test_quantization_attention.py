"""quantize/dequantize and the interleaved multi-head attention products against MXNet 1.9.1
(tests/data/gen/gen_ops_contrib_reference.py), numpy and finite differences."""
import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient

from recorded_cases import case_names, replay

TESTED_OPS = {'_contrib_quantize', '_contrib_dequantize',
              '_contrib_interleaved_matmul_selfatt_qk',
              '_contrib_interleaved_matmul_selfatt_valatt',
              '_contrib_interleaved_matmul_encdec_qk',
              '_contrib_interleaved_matmul_encdec_valatt'}
REFERENCE = 'ops_contrib_reference.npz'
RECORDED = {'contrib.' + n[len('_contrib_'):] for n in TESTED_OPS}
RNG = np.random.RandomState(11)


@pytest.mark.parametrize('name', case_names(REFERENCE, RECORDED))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-6)


def test_int8_round_trip():
    a = mx.nd.array([[0.1392, 0.5928], [0.6027, 0.8579]])
    q, lo, hi = mx.nd.contrib.quantize(a, mx.nd.array([0.]), mx.nd.array([1.]),
                                       out_type='int8')
    assert q.dtype == np.int8
    np.testing.assert_array_equal(q.asnumpy(), [[18, 75], [77, 109]])
    back = mx.nd.contrib.dequantize(q, lo, hi).asnumpy()
    np.testing.assert_allclose(back, q.asnumpy() / 127.0, rtol=1e-6)


def test_uint8_quantization_formulas():
    data = np.array([[-0.8, -0.1, 0.5, 1.2]], np.float32)
    q, lo, hi = mx.nd.contrib.quantize(mx.nd.array(data), mx.nd.array([-0.8]),
                                       mx.nd.array([1.2]), out_type='uint8')
    scale = np.float32(255) / np.float32(2.0)
    np.testing.assert_array_equal(q.asnumpy(), ((data + 0.8) * scale + 0.5).astype(np.uint8))
    assert (lo.asscalar(), hi.asscalar()) == (np.float32(-0.8), np.float32(1.2))
    back = mx.nd.contrib.dequantize(q, lo, hi).asnumpy()
    np.testing.assert_allclose(back, q.asnumpy() * (2.0 / 255) - 0.8, rtol=1e-5, atol=1e-6)


def test_self_attention_matches_plain_numpy():
    heads, depth = 2, 3
    qkv = RNG.randn(4, 2, heads * 3 * depth).astype(np.float32)
    scores = mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.array(qkv), heads=heads)
    parts = qkv.reshape(4, 2, heads, 3, depth)
    q = parts[:, :, :, 0].transpose(1, 2, 0, 3).reshape(4, 4, depth)
    k = parts[:, :, :, 1].transpose(1, 2, 0, 3).reshape(4, 4, depth)
    np.testing.assert_allclose(scores.asnumpy(), q @ k.transpose(0, 2, 1) / np.sqrt(depth),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('make, shapes', [
    (lambda a, b: mx.sym.contrib.interleaved_matmul_selfatt_valatt(a, b, heads=2),
     [(3, 2, 12), (4, 3, 3)]),
    (lambda a, b: mx.sym.contrib.interleaved_matmul_encdec_qk(a, b, heads=2),
     [(3, 2, 4), (5, 2, 8)]),
    (lambda a, b: mx.sym.contrib.interleaved_matmul_encdec_valatt(a, b, heads=2),
     [(5, 2, 8), (4, 3, 5)]),
])
def test_numeric_gradient_float64(make, shapes):
    sym = make(mx.sym.var('a'), mx.sym.var('b'))
    check_numeric_gradient(sym, {'a': RNG.randn(*shapes[0]), 'b': RNG.randn(*shapes[1])},
                           numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_selfatt_qk_numeric_gradient():
    sym = mx.sym.contrib.interleaved_matmul_selfatt_qk(mx.sym.var('qkv'), heads=2)
    check_numeric_gradient(sym, {'qkv': RNG.randn(3, 2, 12)}, numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)
