"""mx.util: NumPy-shape / NumPy-array switches, scopes and decorators."""
import numpy as np
import pytest

import symmod as mx
from symmod import util


def test_np_shape_scope_and_set():
    assert not mx.is_np_shape()
    with mx.np_shape(True):
        assert mx.is_np_shape()
        with mx.np_shape(False):
            assert not mx.is_np_shape()
        assert mx.is_np_shape()
    assert not mx.is_np_shape()
    assert mx.set_np_shape(True) is False
    assert mx.set_np_shape(False) is True


def test_use_np_shape_on_function_and_class():
    @mx.use_np_shape
    def inside():
        return mx.is_np_shape()

    @util.use_np_shape
    class Holder:
        def method(self):
            return mx.is_np_shape()

        @property
        def prop(self):
            return mx.is_np_shape()

        @staticmethod
        def static():
            return mx.is_np_shape()

    assert inside() and Holder().method() and Holder().prop and Holder.static()
    assert not mx.is_np_shape()


def test_use_np_sets_both_and_restores():
    @mx.use_np
    def both():
        return mx.is_np_shape(), mx.is_np_array()

    assert both() == (True, True)
    assert (mx.is_np_shape(), mx.is_np_array()) == (False, False)


def test_set_np_rules():
    with pytest.raises(ValueError):
        util.set_np(shape=False, array=True)
    util.set_np()
    try:
        assert mx.is_np_shape() and mx.is_np_array()
        with pytest.raises(ValueError):   # shape off while array is on
            mx.set_np_shape(False)
    finally:
        util.reset_np()
    assert not mx.is_np_shape() and not mx.is_np_array()


def test_np_array_scope():
    with mx.np_array(True):
        assert mx.is_np_array()
    assert not mx.is_np_array()


def test_getenv_setenv(monkeypatch):
    monkeypatch.delenv('SYMMOD_TEST_VAR', raising=False)
    assert util.getenv('SYMMOD_TEST_VAR') is None
    util.setenv('SYMMOD_TEST_VAR', 'x')
    assert util.getenv('SYMMOD_TEST_VAR') == 'x'
    util.setenv('SYMMOD_TEST_VAR', None)
    assert util.getenv('SYMMOD_TEST_VAR') is None


def test_gpu_count_matches_context():
    assert util.get_gpu_count() == mx.context.num_gpus()
    with pytest.raises(ValueError):
        util.get_cuda_compute_capability(mx.cpu())


def test_save_load_follows_the_shape_semantics(tmp_path):
    zero_size = [mx.nd.array(np.zeros((2, 0, 1))), mx.nd.ones((3,))]
    legacy = str(tmp_path / 'legacy')
    mx.nd.save(legacy, zero_size)
    assert [a.shape for a in mx.nd.load(legacy)] == [(2, 0, 1), (3,)]
    with mx.np_shape(True):
        with pytest.raises(mx.MXNetError, match='legacy shape semantics'):
            mx.nd.load(legacy)
        numpy_file = str(tmp_path / 'numpy')
        mx.nd.save(numpy_file, zero_size + [mx.nd.array(5.0)])
        loaded = mx.nd.load(numpy_file)
        assert [a.shape for a in loaded] == [(2, 0, 1), (3,), ()]
        assert loaded[2].asscalar() == 5.0
    with pytest.raises(mx.MXNetError, match='NumPy shape semantics'):
        mx.nd.load(numpy_file)
