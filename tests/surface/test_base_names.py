"""mx.base names MXNet code imports."""
import warnings

import numpy as np
import pytest

import symmod as mx
from symmod.base import (py_str, _as_list, mx_real_t, NotImplementedForSymbol,
                         NotSupportedForSparseNDArray, MXNetError, string_types, numeric_types,
                         integer_types, data_dir, data_dir_default)


def test_py_str_decodes_utf8():
    assert py_str('grüße'.encode('utf-8')) == 'grüße'


def test_as_list():
    assert _as_list(3) == [3]
    pair = (1, 2)
    assert _as_list(pair) is pair
    items = [1]
    assert _as_list(items) is items


def test_type_names():
    assert mx_real_t is np.float32
    assert isinstance('a', string_types)
    assert isinstance(np.float16(1), numeric_types) and isinstance(2.0, numeric_types)
    assert isinstance(np.int64(1), integer_types) and not isinstance(1.0, integer_types)


def test_mxnet_error_is_runtime_error():
    # MXNet's MXNetError derives from RuntimeError; code catches it as such
    with pytest.raises(RuntimeError):
        raise MXNetError('x')


def test_not_implemented_for_symbol_message():
    err = NotImplementedForSymbol(test_as_list, 'op', 1, 'a')
    assert isinstance(err, MXNetError)
    text = str(err)
    assert 'test_as_list' in text and '"op"' in text and "<class 'int'>" in text
    assert 'not implemented for Symbol' in text
    assert 'not supported for SparseNDArray' in str(NotSupportedForSparseNDArray(len, None))


def test_symbol_truth_value_raises_not_implemented_for_symbol():
    with pytest.raises(NotImplementedForSymbol):
        bool(mx.sym.var('x'))


def test_data_dir_follows_mxnet_home(monkeypatch, tmp_path):
    monkeypatch.setenv('MXNET_HOME', str(tmp_path))
    assert data_dir() == str(tmp_path)
    monkeypatch.delenv('MXNET_HOME')
    assert data_dir() == data_dir_default()
    assert data_dir_default().endswith('.mxnet') or data_dir_default().endswith('mxnet')


def test_context_default_ctx_is_deprecated_alias_of_current_context():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert mx.Context.default_ctx == mx.current_context()
        with mx.cpu(3):
            assert mx.Context.default_ctx == mx.cpu(3)
        old = mx.current_context()
        mx.Context.default_ctx = mx.cpu(2)
        try:
            assert mx.current_context() == mx.cpu(2)
        finally:
            mx.Context.default_ctx = old
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
