"""DataDesc and DataBatch."""
import numpy as np
import pytest

import symmod as mx
from symmod.io import DataBatch, DataDesc


def test_datadesc_is_a_name_shape_tuple_with_dtype_and_layout():
    desc = DataDesc('data', (32, 3, 8, 8))
    name, shape = desc
    assert (name, shape) == ('data', (32, 3, 8, 8))
    assert desc.dtype is np.float32 and desc.layout == 'NCHW'
    desc = DataDesc('seq', (4, 10, 7), np.int32, layout='NTC')
    assert desc.dtype is np.int32 and desc.layout == 'NTC'
    assert desc == ('seq', (4, 10, 7))


def test_datadesc_repr_matches_mxnet():
    assert repr(DataDesc('data', (2, 3))) == "DataDesc[data,(2, 3),<class 'numpy.float32'>,NCHW]"


@pytest.mark.parametrize('layout, axis', [('NCHW', 0), ('TNC', 1), ('NTC', 0), (None, 0),
                                          ('CHW', -1)])
def test_get_batch_axis(layout, axis):
    assert DataDesc.get_batch_axis(layout) == axis


def test_get_list_with_and_without_types():
    shapes = [('data', (2, 3)), ('label', (2,))]
    plain = DataDesc.get_list(shapes, None)
    assert [d.dtype for d in plain] == [np.float32, np.float32]
    typed = DataDesc.get_list(shapes, [('label', np.int32), ('data', np.float16)])
    assert [(d.name, d.shape, d.dtype) for d in typed] == \
        [('data', (2, 3), np.float16), ('label', (2,), np.int32)]


def test_databatch_fields_and_str():
    batch = DataBatch([mx.nd.ones((2, 3))], [mx.nd.zeros((2,))], pad=1, index=np.arange(2),
                      bucket_key=5, provide_data=[DataDesc('data', (2, 3))])
    assert batch.pad == 1 and batch.bucket_key == 5
    assert batch.provide_data[0].name == 'data' and batch.provide_label is None
    assert str(batch) == 'DataBatch: data shapes: [(2, 3)] label shapes: [(2,)]'
    assert str(DataBatch([mx.nd.ones((1,))])) == \
        'DataBatch: data shapes: [(1,)] label shapes: None'


def test_databatch_requires_lists():
    with pytest.raises(AssertionError, match='Data must be list of NDArrays'):
        DataBatch(mx.nd.ones((2,)))
    with pytest.raises(AssertionError, match='Label must be list of NDArrays'):
        DataBatch([mx.nd.ones((2,))], mx.nd.ones((2,)))
