"""Export cases of the operators that hold graphs (_CachedOp, _foreach, _while_loop,
_cond) and of the operators translated in this file's siblings' later additions."""
import numpy as np

import symmod as mx

S = mx.sym
C = S.contrib
RNG = np.random.RandomState(7)
D, D2 = S.var('data'), S.var('data2')


def x(*shape, low=-2.0, high=2.0, dtype=np.float32):
    return RNG.uniform(low, high, shape).astype(dtype)


def case(name, sym, inputs, **options):
    return (name, sym, inputs, options)


def _mlp(norm):
    hidden = S.Activation(S.FullyConnected(S.var('data'), num_hidden=4, name='fc1'),
                          act_type='tanh')
    if norm:
        hidden = S.BatchNorm(hidden, fix_gamma=False, name='bn')
    return S.FullyConnected(hidden, num_hidden=3, name='fc2')


def _cached(norm=False):
    return S._CachedOp(subgraph=_mlp(norm).tojson(), name='c')


def _rnn_step(x_t, states, w):
    h = S.tanh(x_t * w + states[0])
    return [h, h * 2], [h * 0.5]


def _foreach():
    outs, states = S.contrib.foreach(lambda x_t, s: _rnn_step(x_t, s, S.var('w')), D,
                                     [D2])
    return S.Group(outs + states)


def _foreach_free_of_parameters():
    outs, states = S.contrib.foreach(lambda x_t, s: _rnn_step(x_t, s, D2 * 0.5), D, [D2])
    return S.Group(outs + states)


def _foreach_no_state():
    outs, _ = S.contrib.foreach(lambda x_t, s: (S.sin(x_t) * S.var('w'), []), D, [])
    return outs


def _while(max_iterations):
    outs, final = S.contrib.while_loop(
        lambda i, s: S.sum(i) < 4, lambda i, s: ([s * i, S.exp(s)], [i + 1, s * 0.5 + i]),
        [D, D2], max_iterations=max_iterations)
    return S.Group(outs + final)


def _while_free():
    w = S.var('w')
    outs, final = S.contrib.while_loop(
        lambda s: S.sum(s) < S.sum(w) * 3, lambda s: ([s], [s + w]), [D], max_iterations=5)
    return S.Group(outs + final)


def _cond():
    return S.Group(S.contrib.cond(S.sum(D) > 0, lambda: [D * D2, D - D2],
                                  lambda: [D2 - 2 * D, D]))


def _foreach_with_cond():
    def step(x_t, states):
        h = S.contrib.cond(S.sum(x_t) > 0, lambda: x_t + states[0], lambda: x_t * states[0])
        return h, [h * 0.5]
    outs, states = S.contrib.foreach(step, D, [D2])
    return S.Group([outs] + states)


GRAPH_CASES = [
    case('CachedOp', _cached(), {'c_data': x(2, 5)}),
    case('CachedOp_batchnorm_dynamic', _cached(norm=True), {'c_data': x(2, 5)}, dynamic=True,
         dynamic_input_shapes=[('batch', 5)], dynamic_inputs=[{'c_data': x(7, 5)}]),
    case('foreach', _foreach(), {'data': x(4, 2, 3), 'data2': x(2, 3)},
         params={'w': x(2, 3)}),
    case('foreach_dynamic', _foreach_free_of_parameters(),
         {'data': x(4, 2, 3), 'data2': x(2, 3)}, dynamic=True,
         dynamic_input_shapes=[('T', 2, 3), (2, 3)],
         dynamic_inputs=[{'data': x(6, 2, 3), 'data2': x(2, 3)}]),
    case('foreach_no_state', _foreach_no_state(), {'data': x(3, 4)}, params={'w': x(4)}),
    case('while_loop', _while(6), {'data': np.array([1.0], np.float32),
                                   'data2': np.array([0.7], np.float32)}),
    case('while_loop_runs_to_max', _while(2), {'data': np.array([1.0], np.float32),
                                               'data2': np.array([0.7], np.float32)}),
    case('while_loop_no_step', _while(3), {'data': np.array([5.0], np.float32),
                                           'data2': np.array([0.7], np.float32)}),
    case('while_loop_free_variable', _while_free(), {'data': x(2, low=0, high=1)},
         params={'w': x(2, low=0.2, high=0.5)}),
    case('foreach_with_cond_inside', _foreach_with_cond(),
         {'data': x(5, 3), 'data2': x(3)}),
    case('cond_then', _cond(), {'data': x(3, low=0.1, high=1), 'data2': x(3)}),
    case('cond_else', _cond(), {'data': x(3, low=-1, high=-0.1), 'data2': x(3)}),
]


def _v(*names):
    return [S.var(n) for n in names]


_W, _G = x(3, 4), x(3, 4)
_INF = np.array([[1, np.inf], [2, 3]], np.float32)
OPTIMIZER_CASES = [
    case('sgd_update', S.sgd_update(*_v('w', 'g'), lr=0.1, wd=0.01, rescale_grad=0.5),
         {'w': _W, 'g': _G}),
    case('sgd_update_clip_float16', S.sgd_update(*_v('w', 'g'), lr=0.1, wd=0.01,
                                                 clip_gradient=0.3),
         {'w': _W.astype(np.float16), 'g': _G.astype(np.float16)}),
    case('signsgd_update', S.signsgd_update(*_v('w', 'g'), lr=0.1, wd=0.2, rescale_grad=9),
         {'w': _W, 'g': np.where(np.abs(_G) < 0.5, 0, _G).astype(np.float32)}),
    case('multi_sgd_update', S.Group(list(S.multi_sgd_update(
        *_v('w0', 'g0', 'w1', 'g1'), lrs=(0.1, 0.2), wds=(0.0, 0.01), rescale_grad=2,
        clip_gradient=0.5, num_weights=2))),
        {'w0': _W, 'g0': _G, 'w1': x(5), 'g1': x(5)}),
    case('preloaded_multi_sgd_update', S.Group(list(S.preloaded_multi_sgd_update(
        *_v('w0', 'g0', 'w1', 'g1', 'lrs', 'wds'), rescale_grad=0.5, num_weights=2))),
        {'w0': _W, 'g0': _G, 'w1': x(5), 'g1': x(5),
         'lrs': np.array([0.1, 0.3], np.float32), 'wds': np.array([0.01, 0], np.float32)}),
    case('multi_sum_sq', S.multi_sum_sq(*_v('a', 'b'), num_arrays=2),
         {'a': x(3, 4), 'b': x(7, high=100)}),
    case('multi_lars', S.multi_lars(*_v('lrs', 'wsq', 'gsq', 'wds'), eta=0.1, eps=1e-8,
                                    rescale_grad=0.5),
         {'lrs': np.array([0.1, 0.2, 0.3], np.float32),
          'wsq': np.array([4, 0, 9], np.float32), 'gsq': np.array([1, 2, 0], np.float32),
          'wds': np.array([0.01, 0.01, 0], np.float32)}),
    case('lamb_update_phase2', S.lamb_update_phase2(*_v('w', 'g', 'r1', 'r2'), lr=0.01,
                                                    lower_bound=0.1, upper_bound=5),
         {'w': _W, 'g': _G, 'r1': np.array([7.5], np.float32),
          'r2': np.array([2.0], np.float32)}),
    case('lamb_update_phase2_zero_norm', S.lamb_update_phase2(*_v('w', 'g', 'r1', 'r2'),
                                                              lr=0.01),
         {'w': _W, 'g': _G, 'r1': np.array([0.0], np.float32),
          'r2': np.array([2.0], np.float32)}),
    case('mp_lamb_update_phase2', S.mp_lamb_update_phase2(
        *_v('w', 'g', 'r1', 'r2', 'w32'), lr=0.01, lower_bound=0.5),
        {'w': _W.astype(np.float16), 'g': _G, 'r1': np.array([0.2], np.float32),
         'r2': np.array([3.0], np.float32), 'w32': _W}),
    case('all_finite', S.Group([S.all_finite(S.var('a')), S.all_finite(S.var('b'))]),
         {'a': x(3, 4), 'b': _INF}),
    case('all_finite_float64_overflow', S.all_finite(S.var('a')),
         {'a': np.array([1e300, 1.0])}),
    case('multi_all_finite', S.Group([
        S.multi_all_finite(D, D2, num_arrays=2),
        S.multi_all_finite(D, S.var('c'), num_arrays=2)]),
        {'data': x(3, 4), 'data2': np.array([np.nan, 1], np.float32), 'c': x(2)}),
]


_LO, _HI = S.var('lo'), S.var('hi')


def _quantized(out_type):
    return S.contrib.quantize(D, _LO, _HI, out_type=out_type)


_RANGE = {'lo': np.array([-1.5], np.float32), 'hi': np.array([2.5], np.float32)}
_IN_RANGE = np.concatenate([x(40, low=-1.5, high=2.5), np.float32(
    [-1.5, 2.5, 0, -0.75, 0.5, 1.0 / 3, -2.5 / 3, 2.5 * 126.5 / 127])])
QUANTIZATION_CASES = [
    case('quantize_uint8', S.Group(list(_quantized('uint8'))), dict(_RANGE, data=_IN_RANGE)),
    case('quantize_int8', S.Group(list(_quantized('int8'))), dict(_RANGE, data=_IN_RANGE)),
    case('dequantize_uint8', S.contrib.dequantize(_quantized('uint8')[0], _LO, _HI),
         dict(_RANGE, data=_IN_RANGE)),
    case('dequantize_int8', S.contrib.dequantize(*_quantized('int8')),
         dict(_RANGE, data=_IN_RANGE)),
    case('dequantize_codes', S.contrib.dequantize(D, _LO, _HI),
         dict(_RANGE, data=np.arange(-128, 128, dtype=np.int8))),
]
BLOCK_CASES = [
    case('col2im_2d', S.col2im(D, output_size=(6, 5), kernel=(3, 2), stride=(2, 1),
                               dilate=(1, 2), pad=(1, 1)), {'data': x(2, 3 * 6, 3 * 5)}),
    case('col2im_1d', S.col2im(D, output_size=(9,), kernel=(3,), stride=(2,)),
         {'data': x(1, 2 * 3, 4)}),
    case('col2im_3d', S.col2im(D, output_size=(3, 4, 3), kernel=(2, 2, 2), pad=(1, 0, 1)),
         {'data': x(1, 2 * 8, 4 * 3 * 4)}),
    case('col2im_dynamic_batch', S.col2im(D, output_size=(4, 4), kernel=(2, 2), stride=(2, 2)),
         {'data': x(2, 4 * 4, 4)}, dynamic=True, dynamic_input_shapes=[('N', 16, 4)],
         dynamic_inputs=[{'data': x(5, 16, 4)}]),
]


def _wide(*parts):
    return np.concatenate([np.asarray(p, np.float64).reshape(-1) for p in parts]).astype(
        np.float32)


# wide ranges, both sides of the reflection, the tails, and the poles / edges
SPECIAL_CASES = [
    case('gammaln', S.gammaln(D), {'data': _wide(
        RNG.uniform(-30, 60, 300), np.exp(RNG.uniform(-20, 80, 100)),
        -np.exp(RNG.uniform(-20, 15, 100)), [0, -1, -2, -7, 1, 2, 0.5, 1e-30, 3.4e38])}),
    case('gamma', S.gamma(D), {'data': _wide(
        RNG.uniform(-30, 36, 400), np.exp(RNG.uniform(-20, 3.5, 100)),
        [0, -0.0, -1, -2, 1, 2, 0.5, -0.5, 1e-30, 40])}),
    case('erfinv', S.erfinv(D), {'data': _wide(
        RNG.uniform(-1, 1, 300), 1 - np.exp(RNG.uniform(-16.5, 0, 100)),
        -1 + np.exp(RNG.uniform(-16.5, 0, 100)), [1, -1, 0, 1e-30, 1.5, -2])}),
]


def _simplex(*shape):
    raw = RNG.uniform(0.05, 1, shape)
    return (raw / raw.sum(-1, keepdims=True)).astype(np.float32)


_COUNTS = RNG.randint(0, 12, (2, 5)).astype(np.float32)
_POSITIVE = np.array([0.7, 3.5], np.float32)
DENSITY_CASES = [
    case('random_pdf_gamma', S._random_pdf_gamma(D, S.var('alpha'), S.var('beta')),
         {'data': x(2, 5, low=0.05, high=6), 'alpha': np.array([0.6, 4.5], np.float32),
          'beta': np.array([2.0, 0.3], np.float32)}),
    case('random_pdf_gamma_log', S._random_pdf_gamma(D, S.var('alpha'), S.var('beta'),
                                                     is_log=True),
         {'data': x(2, 5, low=0.05, high=6), 'alpha': np.array([0.6, 30.5], np.float32),
          'beta': np.array([2.0, 0.3], np.float32)}),
    case('random_pdf_poisson', S._random_pdf_poisson(D, S.var('lam')),
         {'data': _COUNTS, 'lam': _POSITIVE}),
    case('random_pdf_negative_binomial', S._random_pdf_negative_binomial(
        D, S.var('k'), S.var('p'), is_log=True),
        {'data': _COUNTS, 'k': np.array([2.5, 7], np.float32),
         'p': np.array([0.3, 0.85], np.float32)}),
    case('random_pdf_generalized_negative_binomial',
         S._random_pdf_generalized_negative_binomial(D, S.var('mu'), S.var('alpha')),
         {'data': _COUNTS, 'mu': np.array([2.0, 6.0], np.float32), 'alpha': _POSITIVE}),
    case('random_pdf_dirichlet', S._random_pdf_dirichlet(D, S.var('alpha')),
         {'data': _simplex(2, 3, 4), 'alpha': x(2, 4, low=0.5, high=3)}),
    case('random_pdf_dirichlet_vector_log', S._random_pdf_dirichlet(D, S.var('alpha'),
                                                                    is_log=True),
         {'data': _simplex(4), 'alpha': x(4, low=0.5, high=3)}),
]


_ROIS = np.array([[0, 1.4, 2.5, 9.6, 7.5], [1, 0, 0, 3, 3], [0, 5, 5, 4, 4],
                  [1, -2, 3.5, 20, 11.2]], np.float32)
_RROIS = np.array([[0, 5, 4, 6, 3, 30], [1, 2.5, 7, 10, 4, -75], [0, 0, 0, 1, 1, 0],
                   [1, 9, 1, 20, 12, 170]], np.float32)
_CELLS = x(1, 6, 5, 6, low=0, high=1)
_PROPOSAL_INPUTS = [S.var('cls'), S.var('bbox'), S.var('info')]
_ONE_IMAGE = {'cls': _CELLS, 'bbox': x(1, 12, 5, 6, low=-0.3, high=0.3),
              'info': np.array([[70, 90, 1.0]], np.float32)}
VISION_CASES = [
    case('histogram_bin_cnt', S.Group(list(S._histogram(D, bin_cnt=5, range=(-1, 1.5)))),
         {'data': _wide(RNG.uniform(-2, 2, 50), [-1, 1.5, 1.6, np.nan, 0.0])}),
    case('histogram_empty_range', S.Group(list(S._histogram(D, bin_cnt=3, range=(1, 1)))),
         {'data': np.float32([0.5, 1, 1.2, 1.5, 0.6, 2])}),
    case('histogram_edges', S.Group(list(S._histogram(D, D2))),
         {'data': _wide(RNG.uniform(-2, 2, 50), [-1, 1.5, 3, np.nan]),
          'data2': np.float32([-1, -0.5, 0.25, 1, 1.5])}),
    case('Correlation', S.Correlation(D, D2, kernel_size=1, max_displacement=2, pad_size=2),
         {'data': x(2, 3, 6, 7), 'data2': x(2, 3, 6, 7)}),
    case('Correlation_kernel_strides_absdiff', S.Correlation(
        D, D2, kernel_size=3, max_displacement=2, stride1=2, stride2=2, pad_size=3,
        is_multiply=False), {'data': x(1, 2, 8, 9), 'data2': x(1, 2, 8, 9)}),
    case('PSROIPooling', S.contrib.PSROIPooling(D, S.var('rois'), spatial_scale=0.5,
                                                output_dim=2, pooled_size=3),
         {'data': x(2, 18, 6, 7), 'rois': _ROIS}),
    case('PSROIPooling_group', S.contrib.PSROIPooling(
        D, S.var('rois'), spatial_scale=1.0, output_dim=3, pooled_size=4, group_size=2),
        {'data': x(2, 12, 8, 9), 'rois': _ROIS}),
    case('DeformableConvolution', S.contrib.DeformableConvolution(
        D, S.var('offset'), kernel=(3, 3), num_filter=4, pad=(1, 1)),
        {'data': x(2, 4, 5, 6), 'offset': x(2, 18, 5, 6, low=-3, high=3)}),
    case('DeformableConvolution_groups', S.contrib.DeformableConvolution(
        D, S.var('offset'), kernel=(2, 3), num_filter=4, stride=(2, 1), dilate=(1, 2),
        num_group=2, num_deformable_group=2, no_bias=True),
        {'data': x(1, 4, 7, 8), 'offset': x(1, 24, 3, 4, low=-4, high=4)}),
    case('ModulatedDeformableConvolution', S.contrib.ModulatedDeformableConvolution(
        D, S.var('offset'), S.var('mask'), kernel=(3, 3), num_filter=3, pad=(1, 1),
        num_deformable_group=2),
        {'data': x(2, 4, 5, 6), 'offset': x(2, 36, 5, 6, low=-3, high=3),
         'mask': x(2, 18, 5, 6, low=0, high=1)}),
    case('Proposal', S.Group(list(S.contrib.Proposal(
        *_PROPOSAL_INPUTS, scales=(2, 4, 8), ratios=(1,), feature_stride=16,
        rpn_pre_nms_top_n=40, rpn_post_nms_top_n=20, threshold=0.5, rpn_min_size=8,
        output_score=True))), _ONE_IMAGE),
    case('Proposal_iou_loss_cyclic_fill', S.contrib.Proposal(
        *_PROPOSAL_INPUTS, scales=(2, 4, 8), ratios=(1,), feature_stride=16,
        rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=120, threshold=0.3, iou_loss=True),
        dict(_ONE_IMAGE, bbox=x(1, 12, 5, 6, low=-5, high=5))),
    case('MultiProposal', S.Group(list(S.contrib.MultiProposal(
        *_PROPOSAL_INPUTS, scales=(4, 8), ratios=(0.5, 2), feature_stride=8,
        rpn_pre_nms_top_n=50, rpn_post_nms_top_n=10, threshold=0.6, rpn_min_size=4,
        output_score=True))),
        {'cls': x(2, 8, 4, 5, low=0, high=1), 'bbox': x(2, 16, 4, 5, low=-0.5, high=0.5),
         'info': np.array([[30, 40, 1.0], [25, 33, 0.5]], np.float32)}),
    case('RROIAlign', S.contrib.RROIAlign(D, S.var('rois'), pooled_size=(3, 2),
                                          spatial_scale=0.5, sampling_ratio=2),
         {'data': x(2, 3, 6, 8), 'rois': _RROIS}),
    case('RROIAlign_unscaled', S.contrib.RROIAlign(D, S.var('rois'), pooled_size=(2, 4),
                                                   spatial_scale=1.0, sampling_ratio=3),
         {'data': x(2, 2, 9, 7), 'rois': _RROIS}),
]

_LABEL = S.var('label')
CTC_CASES = [
    case('CTCLoss', S.CTCLoss(D, _LABEL),     # the last label cannot fit: cost 0
         {'data': x(6, 3, 5), 'label': np.array([[1, 2, 2, 0], [3, 1, 0, 0], [4, 4, 4, 4]],
                                                np.float32)}, rtol=1e-5),
    case('CTCLoss_blank_last', S.CTCLoss(D, _LABEL, blank_label='last'),
         {'data': x(7, 2, 4), 'label': np.array([[0, 1, -1], [2, 2, 1]], np.float32)},
         rtol=1e-5),
    case('CTCLoss_lengths', S.CTCLoss(D, _LABEL, S.var('data_lengths'), S.var('label_lengths'),
                                      use_data_lengths=True, use_label_lengths=True),
         {'data': x(6, 3, 5), 'label': np.array([[1, 2, 2, 3], [3, 1, 4, 0], [4, 4, 1, 2]],
                                                np.float32),
          'data_lengths': np.float32([6, 2, 5]), 'label_lengths': np.float32([3, 2, 0])},
         rtol=1e-5),
    case('CTCLoss_one_step', S.CTCLoss(D, _LABEL),
         {'data': x(1, 2, 3), 'label': np.array([[1], [0]], np.float32)}, rtol=1e-5),
]



def _scored_boxes(count, items=1, classes=3):
    corner = RNG.uniform(0, 10, (items, count, 2))
    size = RNG.uniform(1, 6, (items, count, 2))
    score = RNG.uniform(0, 1, (items, count, 1))
    score[:, ::5] = 0.5                                  # ties keep their row order
    ids = RNG.randint(0, classes, (items, count, 1))
    return np.concatenate([ids, score, corner, corner + size], -1).astype(np.float32)


NMS_CASES = [
    case('box_nms', C.box_nms(D, overlap_thresh=0.3), {'data': _scored_boxes(20)[0]}),
    case('box_nms_batch_valid_topk', C.box_nms(D, overlap_thresh=0.4, valid_thresh=0.3,
                                               topk=8), {'data': _scored_boxes(15, 3)}),
    case('box_nms_force_suppress_background', C.box_nms(
        D, overlap_thresh=0.5, id_index=0, background_id=1, force_suppress=True),
        {'data': _scored_boxes(12, 2)}),
    case('box_nms_center_to_corner', C.box_nms(D, overlap_thresh=0.5, in_format='center'),
         {'data': _scored_boxes(12, 2)}),
    case('box_nms_corner_to_center', C.box_nms(D, overlap_thresh=0.5, out_format='center'),
         {'data': _scored_boxes(12, 2)}),
]


def _class_probs(items, classes, count):
    raw = RNG.uniform(0, 1, (items, classes, count))
    raw[:, :, ::7] = 0.25                                # score ties keep anchor order
    return (raw / raw.sum(1, keepdims=True)).astype(np.float32)


_ANCHOR_CORNERS = RNG.uniform(0, 0.7, (1, 30, 2))
_SSD_ANCHORS = np.concatenate([_ANCHOR_CORNERS, _ANCHOR_CORNERS + RNG.uniform(0.1, 0.4, (
    1, 30, 2))], -1).astype(np.float32)
_SSD = [S.var('cls_prob'), S.var('loc_pred'), S.var('anchor')]


def _ssd_inputs(items):
    return {'cls_prob': _class_probs(items, 4, 30), 'anchor': _SSD_ANCHORS,
            'loc_pred': x(items, 30 * 4, low=-1, high=1)}


def _ground_truths(items, count, padding):
    corner = RNG.uniform(0, 0.6, (items, count, 2))
    boxes = np.concatenate([corner, corner + RNG.uniform(0.1, 0.4, (items, count, 2))], -1)
    labels = np.concatenate([RNG.randint(0, 3, (items, count, 1)), boxes], -1)
    for item, pad in enumerate(padding):
        if pad:
            labels[item, -pad:] = -1                     # class -1 ends the ground truths
    return labels.astype(np.float32)


_TARGET = [S.var('anchor'), S.var('label'), S.var('cls_pred')]
_PREDICTIONS = x(3, 4, 30, low=-1, high=1)
_PREDICTIONS[:, :, ::6] = 0.3                            # background ties: anchor order
_TARGET_INPUTS = {'anchor': _SSD_ANCHORS, 'label': _ground_truths(3, 4, [0, 2, 4]),
                  'cls_pred': _PREDICTIONS}

MULTIBOX_CASES = [
    case('MultiBoxTarget', S.Group(list(C.MultiBoxTarget(*_TARGET))), _TARGET_INPUTS),
    case('MultiBoxTarget_threshold_mining', S.Group(list(C.MultiBoxTarget(
        *_TARGET, overlap_threshold=0.4, negative_mining_ratio=3, negative_mining_thresh=0.4))),
        _TARGET_INPUTS),
    case('MultiBoxTarget_greedy_only_mining', S.Group(list(C.MultiBoxTarget(
        *_TARGET, overlap_threshold=0, negative_mining_ratio=2, ignore_label=-2,
        variances=(0.2, 0.2, 0.1, 0.1)))), _TARGET_INPUTS),
    case('MultiBoxDetection', C.MultiBoxDetection(*_SSD, threshold=0.3, nms_threshold=0.3),
         _ssd_inputs(2)),
    case('MultiBoxDetection_force_suppress_topk', C.MultiBoxDetection(
        *_SSD, threshold=0.2, nms_threshold=0.45, force_suppress=True, nms_topk=6),
        _ssd_inputs(1)),
    case('MultiBoxDetection_no_nms_unclipped', C.MultiBoxDetection(
        *_SSD, threshold=0.3, nms_threshold=0, clip=False), _ssd_inputs(2)),
    case('MultiBoxDetection_nothing_detected', C.MultiBoxDetection(*_SSD, threshold=0.99),
         _ssd_inputs(1)),
]

_PAIR_SCORES = x(4, 6, low=0, high=1)
_PAIR_SCORES[0, :3] = 0.5                                # ties: the stable order decides
_PAIR_SCORES[1, 2] = 0.5
MATCHING_CASES = [
    case('bipartite_matching', S.Group(list(C.bipartite_matching(D, threshold=0.3))),
         {'data': _PAIR_SCORES}),
    case('bipartite_matching_ascend_topk', S.Group(list(C.bipartite_matching(
        D, threshold=0.8, is_ascend=True, topk=1))), {'data': x(2, 5, 3, low=0, high=1)}),
    case('bipartite_matching_batch', S.Group(list(C.bipartite_matching(D, threshold=0.6))),
         {'data': x(2, 5, 3, low=0, high=1)}),
]


def _positive_definite(*batch, n=4):
    m = RNG.randn(*batch, n, n)
    a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    a[..., 0, n - 1] = 99.0                              # in the triangle potrf ignores
    return a.astype(np.float32)


def _triangular(*shape):
    m = RNG.uniform(-1, 1, shape)
    diagonal = np.arange(shape[-1])
    m[..., diagonal, diagonal] = RNG.uniform(1, 2, shape[:-1]) * RNG.choice([-1, 1],
                                                                          shape[:-1])
    return m.astype(np.float32)


CHOLESKY_CASES = [
    case('linalg_potrf', S.linalg.potrf(D), {'data': _positive_definite()}),
    case('linalg_trsm', S.linalg.trsm(D, D2, alpha=1.5),
         {'data': _triangular(4, 4), 'data2': x(4, 3)}),
    case('linalg_trsm_transpose_upper_batch', S.linalg.trsm(D, D2, transpose=True, lower=False),
         {'data': _triangular(2, 4, 4), 'data2': x(2, 4, 3)}),
    case('linalg_trsm_rightside', S.linalg.trsm(D, D2, rightside=True, alpha=-0.5),
         {'data': _triangular(2, 4, 4), 'data2': x(2, 3, 4)}),
    case('linalg_trsm_rightside_transpose_upper', S.linalg.trsm(
        D, D2, rightside=True, transpose=True, lower=False), {'data': _triangular(4, 4),
                                                              'data2': x(3, 4)}),
    case('linalg_potri', S.linalg.potri(D), {'data': _triangular(3, 4, 4)}),
    case('linalg_inverse_pivoting', S.linalg.inverse(D),           # a zero first pivot
         {'data': np.vstack([[0, 1, 2, 0.5], x(3, 4)]).astype(np.float32)}),
    case('linalg_slogdet_pivoting', S.Group(list(S.linalg.slogdet(D))),
         {'data': np.vstack([[0, 1, 2, 0.5], x(3, 4)]).astype(np.float32)}),
    case('linalg_slogdet_batch_singular', S.Group(list(S.linalg.slogdet(D))),
         {'data': np.concatenate([x(1, 5, 5, low=-3, high=3),
                                  np.repeat(x(1, 1, 5), 5, axis=1)]).astype(np.float32)}),
    case('linalg_inverse_batch', S.linalg.inverse(D),
         {'data': (x(2, 3, 5, 5, low=-1, high=1) + 2 * np.eye(5)).astype(np.float32)}),
    case('linalg_potri_upper', S.linalg.potri(D, lower=False), {'data': _triangular(4, 4)}),
    case('linalg_potrf_batch_upper', S.linalg.potrf(D, lower=False),
         {'data': np.swapaxes(_positive_definite(2, 3, n=5), -1, -2).copy()}),
]

_LQ_ROWS = x(3, 5)
_LQ_ROWS[1] = 0.0                                    # a zero row: LAPACK does not reflect it
FACTORIZATION_CASES = [
    case('linalg_gelqf', S.Group(list(S.linalg.gelqf(D))), {'data': _LQ_ROWS}),
    case('linalg_gelqf_square_batch', S.Group(list(S.linalg.gelqf(D))),
         {'data': x(2, 3, 4, 4)}),
    case('linalg_syevd', S.Group(list(S.linalg.syevd(D))),      # the upper triangle is unread
         {'data': x(4, 4)}),
    case('linalg_syevd_batch', S.Group(list(S.linalg.syevd(D))), {'data': x(2, 3, 5, 5)}),
    case('linalg_syevd_one', S.Group(list(S.linalg.syevd(D))), {'data': x(1, 1)}),
]


def _hawkes_inputs(n, t, k, dtype=np.float32):
    return {'lda': x(n, k, low=0.5, high=2.0, dtype=dtype),
            'alpha': x(k, low=0.1, high=0.5, dtype=dtype),
            'beta': x(k, low=0.5, high=2.0, dtype=dtype),
            'state': x(n, k, low=0.1, high=1.0, dtype=dtype),
            'lags': x(n, t, low=0.1, high=1.5, dtype=dtype),
            'marks': RNG.randint(0, k, (n, t)).astype(np.int32),
            'valid_length': np.array([t, 2, 0, t - 1][:n], dtype),
            'max_time': np.full(n, 3.0 * t, dtype)}


_HAWKES = S.Group(list(C.hawkesll(*[S.var(name) for name in _hawkes_inputs(1, 1, 1)])))
HAWKES_CASES = [
    case('hawkesll', _HAWKES, _hawkes_inputs(4, 6, 3)),
    case('hawkesll_float64_one_process', _HAWKES, _hawkes_inputs(3, 4, 1, np.float64)),
]
