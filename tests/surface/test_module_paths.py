"""Module paths and aliases MXNet 1.9.1 has (mx.mon, mx.img, mx.rnd, mx.contrib, ...)."""
import importlib

import pytest

import symmod as mx


@pytest.mark.parametrize('alias, target', [('mon', 'monitor'), ('img', 'image'),
                                           ('rnd', 'random'), ('nd', 'ndarray'),
                                           ('sym', 'symbol')])
def test_short_aliases(alias, target):
    assert getattr(mx, alias) is getattr(mx, target)


def test_executor_group_module_path():
    from symmod.module.executor_group import DataParallelExecutorGroup
    from symmod.executor.group import DataParallelExecutorGroup as group
    assert DataParallelExecutorGroup is group


def test_py_slice_is_builtin_slice():
    from symmod.ndarray.ndarray import py_slice, _STORAGE_TYPE_STR_TO_ID, _GRAD_REQ_MAP
    assert py_slice is slice
    assert _STORAGE_TYPE_STR_TO_ID['default'] == 0 and _STORAGE_TYPE_STR_TO_ID['csr'] == 2
    assert _GRAD_REQ_MAP == {'null': 0, 'write': 1, 'add': 3}


@pytest.mark.parametrize('path', ['symmod.symbol._internal', 'symmod.ndarray._internal'])
def test_internal_modules_hold_underscore_operators(path):
    module = importlib.import_module(path)
    assert callable(module._plus_scalar)
    assert not hasattr(module, 'FullyConnected')


def test_contrib_namespaces_are_the_registry_contrib_modules():
    import symmod.contrib.ndarray
    import symmod.contrib.symbol
    assert mx.contrib.nd is mx.nd.contrib and mx.contrib.ndarray is mx.nd.contrib
    assert mx.contrib.sym is mx.sym.contrib and mx.contrib.symbol is mx.sym.contrib
    assert symmod.contrib.ndarray is mx.nd.contrib
    registered = [n[len('_contrib_'):] for n in mx.ops.registry.list_operators()
                  if n.startswith('_contrib_')]
    for name in registered:
        assert callable(getattr(mx.nd.contrib, name)) and callable(getattr(mx.sym.contrib, name))
    assert callable(mx.contrib.nd.adamw_update)


def test_model_zoo_is_a_package_with_get_model():
    from symmod.gluon.model_zoo import vision
    assert mx.gluon.model_zoo.vision is vision
    with pytest.raises(ValueError, match='not supported'):     # MXNet's error type
        vision.get_model('no_such_net')


def test_numpy_interface_imports_but_refuses_use():
    import symmod.numpy as mxnp
    with pytest.raises(mx.MXNetError, match='NumPy interface'):
        mxnp.zeros


def test_engine_bulk_scope_sets_and_restores_size():
    prev = mx.engine.set_bulk_size(4)
    try:
        with mx.engine.bulk(10):
            assert mx.engine.set_bulk_size(10) == 10
            x = mx.nd.ones((3,))
            for _ in range(20):
                x += 1
        assert mx.engine.set_bulk_size(4) == 4
        assert (x.asnumpy() == 21).all()
    finally:
        mx.engine.set_bulk_size(prev)
