"""Bounding-box contrib operators: box_nms, box_iou, bipartite_matching, box_encode and
box_decode against MXNet 1.9.1 (tests/data/gen/gen_ops_contrib_reference.py) and
against small hand-checked cases."""
import numpy as np
import pytest

import symmod as mx

from recorded_cases import case_names, replay

TESTED_OPS = {'_contrib_box_nms', '_contrib_box_iou', '_contrib_bipartite_matching',
              '_contrib_box_encode', '_contrib_box_decode'}
REFERENCE = 'ops_contrib_reference.npz'
RECORDED = {'contrib.box_nms', 'contrib.box_iou', 'contrib.bipartite_matching',
            'contrib.box_encode', 'contrib.box_decode'}


@pytest.mark.parametrize('name', case_names(REFERENCE, RECORDED))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-6)


def test_nms_keeps_best_of_overlapping_boxes_and_routes_gradient_back():
    boxes = np.array([[0, 0.9, 0, 0, 1, 1], [0, 0.8, 0, 0, 1, 0.9], [0, 0.7, 2, 2, 3, 3]])
    data = mx.nd.array(boxes)
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.box_nms(data, overlap_thresh=0.5)
    expected = np.array([boxes[0], boxes[2], [-1] * 6])
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    head = np.arange(18.).reshape(3, 6)
    out.backward(mx.nd.array(head))
    np.testing.assert_allclose(data.grad.asnumpy(), [head[0], np.zeros(6), head[1]])


def test_iou_and_aliases():
    a = mx.nd.array([[0, 0, 2, 2]])
    b = mx.nd.array([[1, 1, 3, 3], [5, 5, 6, 6]])
    np.testing.assert_allclose(mx.nd.contrib.box_iou(a, b).asnumpy(), [[1 / 7, 0]],
                               rtol=1e-6)
    assert mx.nd.contrib.box_non_maximum_suppression is not None


def test_bipartite_matching_greedy():
    scores = mx.nd.array([[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]])
    rows, cols = mx.nd.contrib.bipartite_matching(scores, threshold=1e-12)
    np.testing.assert_array_equal(rows.asnumpy(), [1, -1, 0])
    np.testing.assert_array_equal(cols.asnumpy(), [2, 0])


def test_shape_errors():
    with pytest.raises(mx.MXNetError, match='last dimension'):
        mx.nd.contrib.box_nms(mx.nd.ones((3, 4)))
    with pytest.raises(mx.MXNetError, match='last dimension of 4'):
        mx.nd.contrib.box_iou(mx.nd.ones((3, 5)), mx.nd.ones((2, 4)))
    with pytest.raises(mx.MXNetError, match='overlaps the'):
        mx.nd.contrib.box_nms(mx.nd.ones((3, 6)), score_index=3)


@pytest.mark.parametrize('dtype', ['float16', 'float64'])
def test_nms_and_iou_in_other_dtypes(dtype):
    boxes = np.array([[0, 0.9, 0, 0, 1, 1], [0, 0.8, 0, 0, 1, 0.9], [0, 0.7, 2, 2, 3, 3]])
    out = mx.nd.contrib.box_nms(mx.nd.array(boxes, dtype=dtype), overlap_thresh=0.5)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.asnumpy(), [boxes[0], boxes[2], [-1] * 6], rtol=1e-3)
    iou = mx.nd.contrib.box_iou(mx.nd.array(boxes[:, 2:], dtype=dtype),
                                mx.nd.array(boxes[:1, 2:], dtype=dtype))
    assert iou.dtype == np.dtype(dtype)
    np.testing.assert_allclose(iou.asnumpy()[:, 0], [1, 0.9, 0], rtol=1e-3)
