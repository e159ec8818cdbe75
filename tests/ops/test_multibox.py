"""SSD's multibox operators: MultiBoxPrior, MultiBoxTarget and MultiBoxDetection against
MXNet 1.9.1 (tests/data/gen/gen_ops_contrib_reference.py) and hand-checked cases."""
import numpy as np
import pytest

import symmod as mx

from recorded_cases import case_names, replay

TESTED_OPS = {'_contrib_MultiBoxPrior', '_contrib_MultiBoxTarget', '_contrib_MultiBoxDetection'}
REFERENCE = 'ops_contrib_reference.npz'
RECORDED = {'contrib.MultiBoxPrior', 'contrib.MultiBoxTarget', 'contrib.MultiBoxDetection'}


@pytest.mark.parametrize('name', case_names(REFERENCE, RECORDED))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-6)


def test_prior_boxes_of_one_pixel():
    boxes = mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 1, 1, 1)), sizes=(0.5,),
                                        ratios=(1, 4)).asnumpy()
    np.testing.assert_allclose(boxes[0], [[0.25, 0.25, 0.75, 0.75],
                                          [0, 0.375, 1, 0.625]], rtol=1e-6)


def test_target_matches_best_anchor_and_encodes_offsets():
    anchors = mx.nd.array([[[0, 0, 0.5, 0.5], [0.5, 0.5, 1, 1]]])
    label = mx.nd.array([[[3, 0.5, 0.5, 0.9, 1.0]]])
    loc, mask, cls = mx.nd.contrib.MultiBoxTarget(anchors, label, mx.nd.zeros((1, 2, 2)))
    np.testing.assert_array_equal(cls.asnumpy(), [[0, 4]])
    np.testing.assert_array_equal(mask.asnumpy(), [[0, 0, 0, 0, 1, 1, 1, 1]])
    expected = [(0.7 - 0.75) / 0.5 / 0.1, 0, np.log(0.8) / 0.2, 0]
    np.testing.assert_allclose(loc.asnumpy()[0, 4:], expected, rtol=1e-5, atol=1e-6)


def test_detection_suppresses_overlapping_boxes_of_a_class():
    anchors = mx.nd.array([[[0, 0, 0.5, 0.5], [0.01, 0, 0.5, 0.5], [0.5, 0.5, 1, 1]]])
    probs = mx.nd.array([[[0.1, 0.2, 0.3], [0.9, 0.8, 0.7]]])
    out = mx.nd.contrib.MultiBoxDetection(probs, mx.nd.zeros((1, 12)), anchors).asnumpy()[0]
    np.testing.assert_allclose(out[:, :2], [[0, 0.9], [-1, 0.8], [0, 0.7]], rtol=1e-6)


def test_shape_errors():
    with pytest.raises(mx.MXNetError, match='anchor must be'):
        mx.nd.contrib.MultiBoxTarget(mx.nd.ones((2, 3, 4)), mx.nd.ones((1, 1, 5)),
                                     mx.nd.ones((1, 2, 3)))
    with pytest.raises(mx.MXNetError, match='4D'):
        mx.nd.contrib.MultiBoxPrior(mx.nd.ones((2, 3)))
