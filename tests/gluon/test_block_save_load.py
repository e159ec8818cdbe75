"""Block.save / Block.load: files MXNet 1.9.1 wrote load and compute MXNet's outputs
(tests/data/gen/gen_block_save_reference.py), symmod's files round-trip, and a file for
another model is refused."""
import json
import os
import pathlib
import shutil

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import assert_almost_equal

from block_save_cases import MODELS, model_input

SAVED = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'gluon' / 'block_save'


@pytest.mark.parametrize('name', sorted(MODELS))
def test_loads_mxnet_files(name):
    expected = np.load(SAVED / 'expected.npz')[name + '/out']
    net = MODELS[name](mx)          # built under other names: load restores MXNet's
    net.load(str(SAVED / name))
    assert net.name == json.loads((SAVED / (name + '-model.json')).read_text()) \
        [type(net).__name__.lower() + '0']['orig_name']
    assert all(k.startswith(net.name + '_') for k in net.collect_params().keys())
    assert_almost_equal(net(mx.nd.array(model_input())).asnumpy(), expected, rtol=1e-5,
                        atol=1e-6)


def test_hybridized_block_gets_the_saved_graph(tmp_path):
    # the saved graph computes, not hybrid_forward: a model whose forward changed still
    # runs the saved computation
    shutil.copy(SAVED / 'hybrid-model.json', tmp_path / 'm-model.json')
    shutil.copy(SAVED / 'hybrid-model.params', tmp_path / 'm-model.params')
    net = MODELS['hybrid'](mx)
    net.load(str(tmp_path / 'm'))
    assert net._active and net._cached_graph
    expected = np.load(SAVED / 'expected.npz')['hybrid/out']
    assert_almost_equal(net(mx.nd.array(model_input())).asnumpy(), expected, rtol=1e-5,
                        atol=1e-6)


@pytest.mark.parametrize('hybridize', [False, True])
def test_round_trip(tmp_path, hybridize):
    net = MODELS['hybrid'](mx)
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    x = mx.nd.array(model_input())
    want = net(x).asnumpy()
    net.save(str(tmp_path / 'net'))
    assert sorted(os.listdir(tmp_path)) == ['net-model.json', 'net-model.params']
    other = MODELS['hybrid'](mx)
    other.load(str(tmp_path / 'net'))
    assert other.name == net.name
    assert list(other.collect_params().keys()) == list(net.collect_params().keys())
    assert_almost_equal(other(x).asnumpy(), want, rtol=1e-6, atol=1e-7)


def test_file_of_another_model_is_refused(tmp_path):
    net = MODELS['plain'](mx)
    net.initialize()
    net(mx.nd.array(model_input()))
    net.save(str(tmp_path / 'plain'))
    with pytest.raises(MXNetError, match='does not describe this model'):
        MODELS['hybrid'](mx).load(str(tmp_path / 'plain'))
