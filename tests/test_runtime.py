"""mx.runtime feature queries and the mx.executor_manager module path."""
import pytest

import symmod as mx


def test_features_have_mxnets_names_and_order():
    features = mx.runtime.Features()
    assert features is mx.runtime.Features()
    assert list(features)[:5] == ['CUDA', 'CUDNN', 'NCCL', 'CUDA_RTC', 'TENSORRT']
    assert list(features)[-1] == 'TVM_OP' and len(features) == 32
    assert features.is_enabled('lapack') and features.is_enabled('BLAS_OPEN')
    assert not features.is_enabled('CUDNN') and not features.is_enabled('OPENCV')
    assert features.is_enabled('CUDA') == (mx.context.num_gpus() > 0)
    assert repr(features['CUDNN']) == '\u2716 CUDNN'
    assert repr(features['LAPACK']) == '\u2714 LAPACK'
    assert [f.name for f in mx.runtime.feature_list()] == list(features)


def test_unknown_feature_is_named():
    with pytest.raises(RuntimeError, match="Feature 'FOO' is unknown, known features are"):
        mx.runtime.Features().is_enabled('foo')


def test_executor_manager_module_path():
    assert mx.executor_manager.DataParallelExecutorManager is \
        mx.executor.manager.DataParallelExecutorManager
    assert mx.executor_manager._split_input_slice(10, [1, 1]) == [slice(0, 5), slice(5, 10)]
