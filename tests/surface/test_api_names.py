"""Every public name of MXNet 1.9.1's mxnet.ndarray and mxnet.symbol (and their random,
linalg and contrib namespaces) and every public method of NDArray and Symbol exists in
symmod, sparse and NumPy interfaces aside. The lists were taken from real MXNet
(tests/data/gen/gen_api_names.py)."""
import json
import pathlib

import pytest

import symmod as mx
from symmod.ops import fluent

NAMES = json.loads((pathlib.Path(__file__).resolve().parents[1] / 'data' /
                    'mxnet_api_names.json').read_text())

NAMESPACES = {'ndarray': 'nd', 'symbol': 'sym', 'ndarray.random': 'nd.random',
              'symbol.random': 'sym.random', 'ndarray.linalg': 'nd.linalg',
              'symbol.linalg': 'sym.linalg'}


def _resolve(path):
    obj = mx
    for part in path.split('.'):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize('key', sorted(NAMESPACES))
def test_every_public_name_exists(key):
    namespace = _resolve(NAMESPACES[key])
    missing = sorted(n for n in NAMES[key]
                     if not hasattr(namespace, n))
    assert not missing, 'mx.%s lacks %s' % (NAMESPACES[key], ', '.join(missing))


@pytest.mark.parametrize('cls, key', [(mx.nd.NDArray, 'NDArray'), (mx.sym.Symbol, 'Symbol')])
def test_every_public_method_exists(cls, key):
    missing = sorted(n for n in NAMES[key] if not hasattr(cls, n))
    assert not missing, '%s lacks %s' % (key, ', '.join(missing))


def test_fluent_methods_are_the_registry_functions():
    x = mx.nd.array([[1.0, -4.0], [9.0, 16.0]])
    s = mx.sym.var('s')
    for name, op_name in fluent.FLUENT.items():
        method = getattr(mx.nd.NDArray, name)
        assert callable(method) and callable(getattr(mx.sym.Symbol, name)), name
    assert (x.abs().sqrt().asnumpy() == [[1, 2], [3, 4]]).all()
    assert (x.topk(k=1, axis=1).asnumpy() == mx.nd.topk(x, k=1, axis=1).asnumpy()).all()
    assert x.diag(1).asnumpy().tolist() == [-4.0]
    assert s.softmin(axis=0).list_arguments() == ['s']
    node = s.expm1()
    assert node.tojson() == mx.sym.expm1(s, name=node.name).tojson()

