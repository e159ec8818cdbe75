"""Faster R-CNN's region proposal operators Proposal and MultiProposal against MXNet 1.9.1
(tests/data/gen/gen_ops_contrib_reference.py): the same boxes survive NMS, in the same
order, with MXNet's cyclic padding, score output and zero gradients."""
import numpy as np
import pytest

import symmod as mx

from recorded_cases import case_names, replay

TESTED_OPS = {'_contrib_Proposal', '_contrib_MultiProposal'}
REFERENCE = 'ops_contrib_reference.npz'
RECORDED = {'contrib.Proposal', 'contrib.MultiProposal'}
RNG = np.random.RandomState(11)
ANCHORS = {'feature_stride': 16, 'scales': (2, 4, 8), 'ratios': (0.5, 1, 2), 'threshold': 0.6,
           'rpn_min_size': 10}


@pytest.mark.parametrize('name', case_names(REFERENCE, RECORDED))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-4)


def _inputs(batch):
    return (mx.nd.array(RNG.uniform(0, 1, (batch, 18, 5, 6))),
            mx.nd.array(RNG.normal(0, 0.3, (batch, 36, 5, 6))),
            mx.nd.array(np.tile([[70, 90, 1.0]], (batch, 1))))


def test_multi_proposal_is_proposal_per_image():
    cls, bbox, info = _inputs(3)
    rois, scores = mx.nd.contrib.MultiProposal(cls, bbox, info, rpn_post_nms_top_n=25,
                                               output_score=True, **ANCHORS)
    assert rois.shape == (75, 5) and scores.shape == (75, 1)
    for b in range(3):
        one, one_score = mx.nd.contrib.Proposal(cls[b:b + 1], bbox[b:b + 1], info[b:b + 1],
                                                rpn_post_nms_top_n=25, output_score=True,
                                                **ANCHORS)
        got = rois.asnumpy()[25 * b:25 * (b + 1)]
        assert (got[:, 0] == b).all()
        np.testing.assert_array_equal(got[:, 1:], one.asnumpy()[:, 1:])
        np.testing.assert_array_equal(scores.asnumpy()[25 * b:25 * (b + 1)], one_score.asnumpy())


def test_gradients_are_zero_and_score_is_hidden_by_default():
    names = ['cls_prob', 'bbox_pred', 'im_info']
    sym = mx.sym.contrib.MultiProposal(*[mx.sym.var(n) for n in names], rpn_post_nms_top_n=8,
                                       **ANCHORS)
    assert sym.list_outputs() == [sym.name + '_output']
    arrays = dict(zip(names, _inputs(2)))
    grads = {n: mx.nd.ones(a.shape) for n, a in arrays.items()}
    exe = sym.bind(mx.cpu(), arrays, args_grad=grads)
    assert exe.forward(is_train=True)[0].shape == (16, 5)
    exe.backward(mx.nd.ones((16, 5)))
    for n in names:
        assert (grads[n].asnumpy() == 0).all(), n


def test_shape_errors():
    cls, bbox, info = _inputs(2)
    with pytest.raises(mx.MXNetError, match='one image at a time'):
        mx.nd.contrib.Proposal(cls, bbox, info, **ANCHORS)
    with pytest.raises(mx.MXNetError, match='2 \\* 9 channels'):
        mx.nd.contrib.MultiProposal(cls[:, :10], bbox, info, **ANCHORS)
    with pytest.raises(mx.MXNetError, match='larger than the feature map'):
        mx.nd.contrib.MultiProposal(cls, bbox, mx.nd.array([[700, 90, 1], [70, 90, 1]]),
                                    **ANCHORS)
