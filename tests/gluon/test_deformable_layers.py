"""gluon.contrib.cnn DeformableConvolution / ModulatedDeformableConvolution against MXNet
1.9.1 (tests/data/gen/gen_deformable_layers_reference.py): parameter names and order,
repr, outputs, input gradients; hybridized equal to imperative."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import assert_almost_equal

from deformable_cases import LAYERS, build, run

REF = dict(np.load(pathlib.Path(__file__).resolve().parent.parent / 'data' /
                   'deformable_layers_reference.npz'))


@pytest.mark.parametrize('case', sorted(LAYERS))
def test_against_mxnet(case):
    names = json.loads(str(REF[case + '/names']))
    res = run(mx, case, {n: REF['%s/param/%s' % (case, n)] for n in names})
    assert list(res['params']) == names
    assert res['repr'] == str(REF[case + '/repr'])
    assert_almost_equal(res['out'], REF[case + '/out'], rtol=1e-4, atol=1e-5)
    if case + '/grad' in REF:
        assert_almost_equal(res['grad'], REF[case + '/grad'], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('case', sorted(LAYERS))
def test_hybridized_equals_imperative(case):
    layer = build(mx, case)
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 4, 7, 6)))
    layer(x)
    for name, p in layer.collect_params().items():
        p.set_data(mx.nd.array(np.random.RandomState(len(name)).randn(*p.shape) * 0.3))
    want = layer(x).asnumpy()
    layer.hybridize()
    assert_almost_equal(layer(x).asnumpy(), want, rtol=1e-5, atol=1e-6)
