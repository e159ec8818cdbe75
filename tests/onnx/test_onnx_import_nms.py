"""ONNX NonMaxSuppression imports as box_nms over every (batch, class) pair: the selected
``[batch, class, box]`` rows equal ONNX Runtime's, in its order, followed by -1 rows up to
the fixed number a symmod graph holds; a model reading the selection's length is refused."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import symmod as mx
from symmod.base import MXNetError
from onnx_check import session
from test_onnx_import import _model, _value, imported_forward

RNG = np.random.RandomState(11)


def _nms_model(batches, classes, count, limit, iou, floor=None, center=0, reader=None):
    inputs = ['boxes', 'scores', 'limit', 'iou'] + (['floor'] if floor is not None else [])
    nodes = [helper.make_node('NonMaxSuppression', inputs, ['selected'],
                              center_point_box=center)]
    outputs = [_value('selected', [None, 3], TensorProto.INT64)]
    if reader:
        nodes.append(helper.make_node(reader, ['selected'], ['length']))
        outputs.append(_value('length', [2] if reader == 'Shape' else [], TensorProto.INT64))
    constants = {'limit': np.array([limit], np.int64), 'iou': np.array([iou], np.float32)}
    if floor is not None:
        constants['floor'] = np.array([floor], np.float32)
    return _model(nodes, [_value('boxes', [batches, count, 4]),
                          _value('scores', [batches, classes, count])], outputs, constants)


def _boxes(batches, count, center):
    low = RNG.uniform(0, 10, (batches, count, 2))
    size = RNG.uniform(1, 6, (batches, count, 2))
    if center:
        return np.concatenate([low + size / 2, size], -1).astype(np.float32)
    corners = np.concatenate([low, low + size], -1)
    flip = RNG.rand(batches, count) < 0.3                # the other diagonal's corners
    corners[flip] = corners[flip][:, [2, 1, 0, 3]]
    return corners[..., [1, 0, 3, 2]].astype(np.float32)  # ONNX's [y1, x1, y2, x2]


@pytest.mark.parametrize('batches,classes,count,limit,iou,floor,center', [
    (1, 1, 12, 12, 0.3, None, 0),
    (2, 3, 10, 4, 0.5, 0.25, 0),
    (2, 2, 9, 20, 0.4, None, 1),
    (1, 2, 8, 3, 0.0, 0.6, 1),
])
def test_selection_equals_onnx_runtime_then_minus_one_rows(batches, classes, count, limit, iou,
                                                          floor, center):
    model = _nms_model(batches, classes, count, limit, iou, floor, center)
    scores = RNG.uniform(0, 1, (batches, classes, count)).astype(np.float32)
    scores[..., ::4] = 0.5                               # ties: the lower box index first
    feed = {'boxes': _boxes(batches, count, center), 'scores': scores}
    expected = session(model).run(None, feed)[0]
    got = imported_forward(model, feed)[0]
    assert got.dtype == np.int64
    assert got.shape == (batches * classes * min(limit, count), 3)
    np.testing.assert_array_equal(got[:len(expected)], expected)
    assert (got[len(expected):] == -1).all()


@pytest.mark.parametrize('reader', ['Shape', 'Size'])
def test_reading_the_selection_length_is_refused(reader):
    with pytest.raises(MXNetError, match=r"\(NonMaxSuppression\): its output's length is read "
                                         r"\(%s\)" % reader):
        mx.contrib.onnx.import_model(_nms_model(1, 1, 5, 5, 0.5, reader=reader))


def test_selecting_no_box_is_refused():
    with pytest.raises(MXNetError, match='max_output_boxes_per_class of 0'):
        mx.contrib.onnx.import_model(_nms_model(1, 1, 5, 0, 0.5))
