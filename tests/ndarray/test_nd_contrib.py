"""``mx.nd.contrib``: MXNet's contrib update operators, against MXNet 1.9.1's numbers.

The reference calls were made with ``mx.nd.contrib.adamw_update`` and
``mx.nd.contrib.mp_adamw_update`` (tests/data/gen/gen_optimizers_extra.py).
"""
import json
import os

import numpy as np
import pytest

import symmod as mx

DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'mxnet-reference')
with open(os.path.join(DATA, 'optimizers_extra.json')) as _f:
    OPS = {op['name']: op for op in json.load(_f)['ops']}
ARRAYS = np.load(os.path.join(DATA, 'optimizers_extra.npz'))


def _inputs(entry):
    return [mx.nd.array(ARRAYS[key], dtype=ARRAYS[key].dtype) for key in entry['inputs']]


def test_contrib_names_are_mxnets_contrib_updates():
    registered = {n[len('_contrib_'):] for n in mx.ops.registry.list_operators()
                  if n.startswith('_contrib_')}
    updates = {'adamw_update', 'mp_adamw_update', 'multi_adamw_update', 'multi_mp_adamw_update',
               'multi_lamb_update', 'multi_mp_lamb_update', 'group_adagrad_update',
               'isinf', 'isfinite', 'isnan', 'rand_zipfian', 'foreach', 'while_loop', 'cond'}
    assert set(mx.nd.contrib.__all__) == registered | updates
    for name in ('adamw_update', 'mp_adamw_update'):     # the top-level names keep working
        assert getattr(mx.nd.contrib, name) is getattr(mx.nd, name)


@pytest.mark.parametrize('name', ['adamw_update', 'mp_adamw_update'])
def test_contrib_update_matches_mxnet(name):
    entry = OPS[name]
    inputs = _inputs(entry)
    result = getattr(mx.nd.contrib, name)(*inputs, **entry['kwargs'])
    expected = ARRAYS[entry['outputs'][0]]
    assert result.dtype == expected.dtype
    rtol, atol = (1e-2, 2e-3) if expected.dtype == np.float16 else (1e-5, 1e-6)
    np.testing.assert_allclose(result.asnumpy(), expected, rtol=rtol, atol=atol)
    for index, key in entry['written'].items():     # moments (and master weights) in place
        np.testing.assert_allclose(inputs[int(index)].asnumpy(), ARRAYS[key], rtol=1e-5,
                                   atol=1e-6)


def test_contrib_adamw_update_skips_an_infinite_rescale_grad():
    entry = OPS['adamw_update_skip']
    inputs = _inputs(entry)
    weight = inputs[0]
    out = mx.nd.contrib.adamw_update(*inputs, out=weight, **entry['kwargs'])
    assert out is weight
    for index in range(4):      # weight, grad and both moments untouched
        np.testing.assert_array_equal(inputs[index].asnumpy(),
                                      ARRAYS[entry['inputs'][index]])
