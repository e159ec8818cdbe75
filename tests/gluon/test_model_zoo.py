"""gluon.model_zoo.vision against MXNet 1.9.1 (tests/data/gen/gen_model_zoo_reference.py):
every architecture's parameter names, shapes and repr; a few networks run in full
(outputs, input gradients, hybridized graph node names); pretrained files found under
``root`` or refused with a message saying where to put them."""
import functools
import gzip
import hashlib
import json
import os
import pathlib
import zipfile

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.gluon.model_zoo import model_store, vision
from symmod.test_utils import assert_almost_equal

from model_zoo_cases import BUILT, build, fill, model_input, run_filled

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data'


@functools.lru_cache(maxsize=None)
def names_reference():
    with gzip.open(DATA / 'model_zoo_reference.json.gz', 'rt') as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def built_reference():
    with np.load(DATA / 'model_zoo_reference.npz') as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize('name', sorted(names_reference()))
def test_parameter_names_shapes_and_repr(name):
    with mx.name.NameManager():
        net = vision.get_model(name)
    expected = names_reference()[name]
    assert [[k, list(p.shape)] for k, p in net.collect_params().items()] == expected['params']
    assert repr(net) == expected['repr']


def test_get_model_names_and_unknown_name():
    assert sorted(vision._models) == sorted(names_reference())
    assert isinstance(vision.get_model('ResNet18_V1'), vision.ResNetV1)
    with pytest.raises(ValueError, match='resnet18_v1'):
        vision.get_model('resnet19')


def _filled(case):
    with mx.name.NameManager():
        net = build(vision, case)
    net.initialize()
    x = model_input(case)
    net(mx.nd.array(x))
    for name, p in net.collect_params().items():
        p.set_data(mx.nd.array(fill(name, p.shape)))
    return net, x


@pytest.mark.parametrize('case', sorted(BUILT))
def test_built_networks_against_mxnet(case):
    ref = built_reference()
    out, grad, nodes = run_filled(mx, case)
    assert_almost_equal(out, ref[case + '/out'], rtol=1e-4, atol=1e-5, names=('symmod', 'mxnet'))
    assert_almost_equal(grad, ref[case + '/grad'], rtol=1e-3, atol=1e-5,
                        names=('symmod dx', 'mxnet'))
    assert nodes == json.loads(str(ref[case + '/nodes']))


def test_hybridized_equals_imperative():
    net, x = _filled('resnet_v2_basic')
    want = net(mx.nd.array(x)).asnumpy()
    net.hybridize()
    for _ in range(2):
        assert_almost_equal(net(mx.nd.array(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


# ---- pretrained files --------------------------------------------------------------------
def _fake_store(monkeypatch, name, content):
    """Pretend MXNet's SHA-1 of ``name`` is that of ``content``."""
    sha1 = hashlib.sha1(content).hexdigest()
    monkeypatch.setitem(model_store._MODEL_SHA1, name, sha1)
    return '%s-%s' % (name, sha1[:8])


def test_pretrained_missing_says_where_to_put_it(tmp_path):
    with pytest.raises(MXNetError) as err:
        vision.resnet18_v1(pretrained=True, root=str(tmp_path))
    message = str(err.value)
    assert str(tmp_path) in message and 'resnet18_v1-a0666292' in message
    assert 'gluon/models/resnet18_v1-a0666292.zip' in message


def _saved_params(tmp_path, net):
    path = tmp_path / 'saved.params'
    net.save_parameters(str(path))
    return path.read_bytes()


@pytest.mark.parametrize('packed', [False, True])
def test_pretrained_loads_from_root(tmp_path, monkeypatch, packed):
    source, _ = _filled('mobilenet0.25')
    content = _saved_params(tmp_path, source)
    file_name = _fake_store(monkeypatch, 'mobilenet0.25', content)
    root = tmp_path / 'models'
    root.mkdir()
    if packed:      # the .zip MXNet's repository serves
        with zipfile.ZipFile(root / (file_name + '.zip'), 'w') as zf:
            zf.writestr(file_name + '.params', content)
    else:
        (root / (file_name + '.params')).write_bytes(content)
    net = vision.get_model('mobilenet0.25', pretrained=True, root=str(root), classes=10)
    for (name, p), (_, q) in zip(net.collect_params().items(),
                                 source.collect_params().items()):
        assert np.array_equal(p.data().asnumpy(), q.data().asnumpy()), name
    assert os.path.exists(root / (file_name + '.params'))


def test_pretrained_file_with_other_content_is_refused(tmp_path):
    name = 'squeezenet1.1'
    bad = tmp_path / ('%s-%s.params' % (name, model_store.short_hash(name)))
    bad.write_bytes(b'not the parameters')
    with pytest.raises(MXNetError, match='SHA-1'):
        vision.get_model(name, pretrained=True, root=str(tmp_path))
