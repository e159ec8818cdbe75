"""Deformable convolutions against MXNet 1.9.1's recorded results
(tests/data/ops_deformable_reference.npz), the plain convolution (zero offsets, unit
mask), and finite differences."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from recorded_cases import case_names, replay

TESTED_OPS = {'_contrib_DeformableConvolution', '_contrib_ModulatedDeformableConvolution'}

REFERENCE = 'ops_deformable_reference.npz'


@pytest.mark.parametrize('name', case_names(REFERENCE, TESTED_OPS))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize('modulated', [False, True])
def test_zero_offsets_are_a_convolution(modulated):
    rng = np.random.RandomState(1)
    x = mx.nd.array(rng.randn(2, 4, 6, 5))
    w = mx.nd.array(rng.randn(6, 2, 3, 3))
    b = mx.nd.array(rng.randn(6))
    params = dict(kernel=(3, 3), num_filter=6, num_group=2, pad=(1, 1))
    offset = mx.nd.zeros((2, 2 * 18, 6, 5))
    if modulated:
        out = mx.nd.contrib.ModulatedDeformableConvolution(
            x, offset, mx.nd.ones((2, 18, 6, 5)), w, b, num_deformable_group=2, **params)
    else:
        out = mx.nd.contrib.DeformableConvolution(x, offset, w, b, num_deformable_group=2,
                                                  **params)
    want = mx.nd.Convolution(x, w, b, **params)
    assert_almost_equal(out.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('op', ['DeformableConvolution', 'ModulatedDeformableConvolution'])
def test_numeric_gradient(op):
    rng = np.random.RandomState(2)
    names = ['data', 'offset'] + (['mask'] if op.startswith('Mod') else []) + ['weight', 'bias']
    sym = getattr(mx.sym.contrib, op)(*[mx.sym.var(n) for n in names], kernel=(2, 2),
                                      num_filter=2)
    # offsets away from integers: bilinear sampling has kinks at whole pixels
    location = {'data': rng.randn(1, 2, 4, 4),
                'offset': rng.uniform(0.1, 0.4, (1, 8, 3, 3)) * rng.choice([-1, 1], (1, 8, 3, 3)),
                'weight': rng.randn(2, 2, 2, 2), 'bias': rng.randn(2)}
    if 'mask' in names:
        location['mask'] = rng.uniform(0.2, 1, (1, 4, 3, 3))
    check_numeric_gradient(sym, location, numeric_eps=1e-5, rtol=1e-3, atol=1e-5,
                           dtype=np.float64)


def test_shape_errors():
    sym = mx.sym.contrib.DeformableConvolution(mx.sym.var('d'), mx.sym.var('o'), kernel=(3, 3),
                                               num_filter=2)
    assert sym.infer_shape(d=(1, 3, 6, 6))[0][1:] == [(1, 18, 4, 4), (2, 3, 3, 3), (2,)]
    with pytest.raises(MXNetError, match='offset'):
        sym.infer_shape(d=(1, 3, 6, 6), o=(1, 18, 5, 4))
    with pytest.raises(MXNetError, match='2-D'):
        mx.sym.contrib.DeformableConvolution(mx.sym.var('d'), mx.sym.var('o'), kernel=(3,),
                                             num_filter=2)
