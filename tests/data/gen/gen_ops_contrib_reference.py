"""Record MXNet 1.9.1's results for the contrib operators (tests/ops/test_bbox.py,
test_multibox.py, test_contrib_ops.py): box_nms, box_iou, bipartite_matching,
box_encode/decode, MultiBoxPrior/Target/Detection, quadratic, gradientmultiplier,
round_ste/sign_ste, khatri_rao, index_copy, Proposal/MultiProposal, ...

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_ops_contrib_reference.py

Writes tests/data/ops_contrib_reference.npz (layout: see symbolic_cases.py).
"""
import os

import numpy as np

from symbolic_cases import RNG, case, randn, uniform, write

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                   'ops_contrib_reference.npz')


def random_boxes(batch, num, classes=3):
    """Rows [class, score, xmin, ymin, xmax, ymax] with overlapping boxes."""
    corner = uniform(0, 0.6, batch, num, 2)
    size = uniform(0.05, 0.5, batch, num, 2)
    cls = RNG.randint(0, classes, (batch, num, 1)).astype(np.float32)
    score = uniform(0, 1, batch, num, 1)
    return np.concatenate([cls, score, corner, corner + size], axis=-1)


def bbox_cases():
    boxes = np.array([[0, 0.5, 0.1, 0.1, 0.2, 0.2], [1, 0.4, 0.1, 0.1, 0.2, 0.2],
                      [0, 0.3, 0.1, 0.1, 0.14, 0.14], [2, 0.6, 0.5, 0.5, 0.7, 0.8]],
                     np.float32)
    nms = 'contrib.box_nms'
    case('nms_force', nms, {'overlap_thresh': 0.5, 'force_suppress': True, 'id_index': 0},
         {'data': boxes})
    case('nms_per_class', nms, {'overlap_thresh': 0.1, 'id_index': 0}, {'data': boxes})
    case('nms_no_class', nms, {'overlap_thresh': 0.1}, {'data': boxes})
    case('nms_batched', nms, {'overlap_thresh': 0.3, 'id_index': 0, 'topk': 5,
                              'valid_thresh': 0.2},
         {'data': random_boxes(3, 9)})
    case('nms_4d_background', nms, {'overlap_thresh': 0.4, 'id_index': 0, 'background_id': 1},
         {'data': random_boxes(6, 7).reshape(2, 3, 7, 6)})
    case('nms_center_out', nms, {'overlap_thresh': 0.5, 'out_format': 'center'},
         {'data': random_boxes(2, 6)})
    centre = random_boxes(2, 8)
    centre[..., 4:] -= centre[..., 2:4]
    centre[..., 2:4] += centre[..., 4:] / 2
    case('nms_center_in', nms, {'overlap_thresh': 0.3, 'in_format': 'center',
                                'out_format': 'corner', 'force_suppress': True,
                                'id_index': 0},
         {'data': centre})
    shuffled = np.ascontiguousarray(random_boxes(2, 6)[..., [2, 3, 4, 5, 0, 1]])
    case('nms_columns', nms, {'coord_start': 0, 'score_index': 5, 'id_index': 4,
                              'overlap_thresh': 0.2},
         {'data': shuffled})
    case('nms_float64', nms, {'overlap_thresh': 0.3, 'topk': 4},
         {'data': random_boxes(2, 7).astype(np.float64)})
    case('nms_topk_zero', nms, {'topk': 0}, {'data': boxes})
    case('nms_none_valid', nms, {'valid_thresh': 0.9}, {'data': boxes})

    a, b = random_boxes(2, 5)[..., 2:], random_boxes(1, 3)[0, :, 2:]
    case('iou_corner', 'contrib.box_iou', {}, {'lhs': np.ascontiguousarray(a),
                                               'rhs': np.ascontiguousarray(b)})
    case('iou_center', 'contrib.box_iou', {'format': 'center'},
         {'lhs': np.ascontiguousarray(a), 'rhs': np.ascontiguousarray(b)})

    scores = np.array([[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]], np.float32)
    case('match_desc', 'contrib.bipartite_matching', {'threshold': 1e-12}, {'data': scores})
    case('match_asc', 'contrib.bipartite_matching', {'threshold': 100, 'is_ascend': True},
         {'data': scores})
    case('match_batched_topk', 'contrib.bipartite_matching', {'threshold': 0.2, 'topk': 2},
         {'data': uniform(0, 1, 2, 5, 4)})

    anchors = np.array([[[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.2, 0.1, 0.6, 0.5]]] * 2,
                       np.float32)
    refs = np.array([[[0.15, 0.25, 0.35, 0.5], [0.4, 0.5, 0.8, 0.9]],
                     [[0.1, 0.1, 0.3, 0.2], [0.2, 0.2, 0.7, 0.6]]], np.float32)
    case('encode', 'contrib.box_encode', {},
         {'samples': np.array([[1, 0, 1], [1, 1, -1]], np.float32),
          'matches': np.array([[0, 1, 1], [1, 0, 0]], np.float32),
          'anchors': anchors, 'refs': refs,
          'means': np.array([0.0, 0.1, 0.0, -0.1], np.float32),
          'stds': np.array([0.1, 0.1, 0.2, 0.2], np.float32)})
    case('decode_center', 'contrib.box_decode', {'std0': 0.1, 'std1': 0.1, 'std2': 0.2,
                                                 'std3': 0.2},
         {'data': randn(2, 3, 4), 'anchors': anchors[:1]})
    case('decode_corner_clip', 'contrib.box_decode', {'format': 'corner', 'clip': 0.5},
         {'data': randn(2, 3, 4), 'anchors': anchors[:1]})


def multibox_cases():
    prior = 'contrib.MultiBoxPrior'
    case('prior_default', prior, {}, {'data': randn(1, 2, 3, 4)})
    case('prior_sizes_ratios', prior, {'sizes': (0.75, 0.5, 0.25), 'ratios': (1, 2, 0.5)},
         {'data': randn(2, 1, 5, 4)})
    case('prior_clip_steps', prior, {'sizes': (0.9, 0.3), 'ratios': (20, 0.5), 'clip': True,
                                     'steps': (0.3, 0.2), 'offsets': (0.2, 0.7)},
         {'data': randn(1, 1, 4, 6)})

    anchors = np.array([[[0.1, 0.1, 0.3, 0.3], [0.2, 0.2, 0.5, 0.4], [0.5, 0.5, 0.9, 0.8],
                         [0.0, 0.4, 0.3, 0.9], [0.6, 0.0, 0.9, 0.3], [0.45, 0.45, 0.7, 0.7],
                         [0.05, 0.05, 0.35, 0.25], [0.7, 0.6, 0.95, 0.95]]], np.float32)
    labels = np.array([[[1, 0.12, 0.1, 0.32, 0.31], [0, 0.5, 0.45, 0.85, 0.85],
                        [-1, -1, -1, -1, -1]],
                       [[2, 0.62, 0.02, 0.88, 0.33], [-1, -1, -1, -1, -1],
                        [-1, -1, -1, -1, -1]],
                       [[-1, -1, -1, -1, -1]] * 3], np.float32)
    cls_pred = randn(3, 4, 8)
    target = 'contrib.MultiBoxTarget'
    case('target_default', target, {}, {'anchor': anchors, 'label': labels,
                                        'cls_pred': cls_pred})
    case('target_mining', target, {'negative_mining_ratio': 2, 'negative_mining_thresh': 0.4,
                                   'overlap_threshold': 0.3, 'variances': (0.2, 0.2, 0.1, 0.1)},
         {'anchor': anchors, 'label': labels, 'cls_pred': cls_pred})
    case('target_no_threshold', target, {'overlap_threshold': 0, 'negative_mining_ratio': 1,
                                         'ignore_label': -2},
         {'anchor': anchors, 'label': labels, 'cls_pred': cls_pred})

    probs = uniform(0, 1, 2, 3, 8)
    probs /= probs.sum(axis=1, keepdims=True)
    loc = randn(2, 32) * 0.5
    detect = 'contrib.MultiBoxDetection'
    case('detect_default', detect, {}, {'cls_prob': probs, 'loc_pred': loc, 'anchor': anchors})
    case('detect_force_topk', detect, {'force_suppress': True, 'nms_topk': 3,
                                       'nms_threshold': 0.1, 'threshold': 0.3},
         {'cls_prob': probs, 'loc_pred': loc, 'anchor': anchors})
    case('detect_no_nms_noclip', detect, {'nms_threshold': 0, 'clip': False,
                                          'variances': (0.2, 0.2, 0.3, 0.3)},
         {'cls_prob': probs, 'loc_pred': loc, 'anchor': anchors})


def misc_cases():
    x = randn(3, 4)
    case('quadratic', 'contrib.quadratic', {'a': 0.7, 'b': -1.3, 'c': 0.4}, {'data': x})
    case('quadratic_float64', 'contrib.quadratic', {'a': -2, 'b': 0.5},
         {'data': x.astype(np.float64)})
    case('gradmult', 'contrib.gradientmultiplier', {'scalar': -0.35}, {'data': x})
    halves = np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 0.49, -0.51]], np.float32)
    case('round_ste', 'contrib.round_ste', {}, {'data': np.concatenate([halves, x[:1] * 3])})
    case('sign_ste', 'contrib.sign_ste', {}, {'data': np.concatenate([halves, [[0, 0, 1, -1]]])
                                               .astype(np.float32)})
    case('div_sqrt_dim', 'contrib.div_sqrt_dim', {}, {'data': randn(2, 3, 5)})
    case('index_copy', 'contrib.index_copy', {},
         {'old_tensor': randn(5, 3), 'index_vector': np.array([3, 0], np.float32),
          'new_tensor': randn(2, 3)}, no_grad=['index_vector'])
    case('index_array', 'contrib.index_array', {}, {'data': randn(2, 3, 2)}, backward=False)
    case('index_array_axes', 'contrib.index_array', {'axes': (-1, 0)},
         {'data': randn(2, 3, 2)}, backward=False)
    case('khatri_rao', 'khatri_rao', {'num_args': 3},
         {'arg0': randn(2, 3), 'arg1': randn(4, 3), 'arg2': randn(1, 3)}, backward=False)
    a = randn(3, 4)
    case('allclose_true', 'contrib.allclose', {'rtol': 1e-3},
         {'a': a, 'b': a * np.float32(1.0005)}, backward=False)
    case('allclose_false', 'contrib.allclose', {'rtol': 1e-5, 'atol': 1e-6},
         {'a': a, 'b': a * np.float32(1.0005)}, backward=False)


def amp_cases():
    edges = np.array([0, 1e-8, 6e-8, 5.96e-8, 3e-5, 65504, 65520, 70000, -65519.99, 0.1, 1 / 3,
                      np.inf, -np.inf, np.nan], np.float32)
    case('amp_cast_fp16', 'amp_cast', {'dtype': 'float16'}, {'data': edges}, backward=False)
    case('amp_cast_grad', 'amp_cast', {'dtype': 'float16'}, {'data': randn(3, 4)})
    case('amp_cast_fp32', 'amp_cast', {'dtype': 'float32'},
         {'data': randn(3, 4).astype(np.float16)})
    case('amp_cast_int', 'amp_cast', {'dtype': 'float16'},
         {'data': np.arange(6, dtype=np.int32).reshape(2, 3)}, backward=False)
    # (amp_multicast of float16 arrays fails in MXNet's MKLDNN CPU build: not recorded)
    case('all_finite', 'all_finite', {}, {'data': np.array([[1, np.inf]], np.float32)},
         backward=False)
    case('multi_all_finite', 'multi_all_finite', {'num_arrays': 2},
         {'array_0': randn(2, 2), 'array_1': randn(3)}, backward=False)


def quantization_attention_cases():
    # MXNet's MKLDNN build computes uint8 quantize and dequantize its own way (the plain CPU
    # kernels, which symmod follows, differ): only int8 quantize is recorded
    case('quantize_int8', 'contrib.quantize', {'out_type': 'int8'},
         {'data': uniform(-0.8, 1.2, 3, 4), 'min_range': np.array([-0.8], np.float32),
          'max_range': np.array([1.2], np.float32)}, backward=False)
    heads = 2
    qkv = randn(5, 3, heads * 3 * 4)
    case('selfatt_qk', 'contrib.interleaved_matmul_selfatt_qk', {'heads': heads},
         {'queries_keys_values': qkv})
    case('selfatt_valatt', 'contrib.interleaved_matmul_selfatt_valatt', {'heads': heads},
         {'queries_keys_values': qkv, 'attention': randn(heads * 3, 5, 5)})
    queries, kv = randn(4, 3, heads * 4), randn(6, 3, heads * 2 * 4)
    case('encdec_qk', 'contrib.interleaved_matmul_encdec_qk', {'heads': heads},
         {'queries': queries, 'keys_values': kv})
    case('encdec_valatt', 'contrib.interleaved_matmul_encdec_valatt', {'heads': heads},
         {'keys_values': kv, 'attention': randn(heads * 3, 4, 6)})


def proposal_cases():
    cls_prob = uniform(0, 1, 3, 18, 6, 7)
    bbox_pred = randn(3, 36, 6, 7) * 0.3
    im_info = np.array([[90, 100, 0.8], [60, 112, 1.0], [96, 70, 0.6]], np.float32)
    anchors = {'feature_stride': 16, 'scales': (2, 4, 8), 'ratios': (0.5, 1, 2),
               'threshold': 0.6, 'rpn_min_size': 10}
    batch = {'cls_prob': cls_prob, 'bbox_pred': bbox_pred, 'im_info': im_info}
    case('multi_proposal', 'contrib.MultiProposal',
         dict(anchors, rpn_pre_nms_top_n=100, rpn_post_nms_top_n=20, output_score=True),
         batch, backward=False)
    case('multi_proposal_all_iou', 'contrib.MultiProposal',
         dict(anchors, rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=50, iou_loss=True),
         batch, backward=False)
    one = {k: v[:1] for k, v in batch.items()}
    case('proposal', 'contrib.Proposal',
         dict(anchors, rpn_pre_nms_top_n=30, rpn_post_nms_top_n=40, output_score=True),
         one, backward=False)
    case('proposal_defaults', 'contrib.Proposal', {},
         {'cls_prob': uniform(0, 1, 1, 24, 4, 5), 'bbox_pred': randn(1, 48, 4, 5) * 0.2,
          'im_info': np.array([[60, 75, 1.5]], np.float32)}, backward=False)


if __name__ == '__main__':
    bbox_cases()
    multibox_cases()
    misc_cases()
    amp_cases()
    quantization_attention_cases()
    proposal_cases()
    write(OUT)
