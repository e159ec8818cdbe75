"""MaxRoiPool, RoiAlign and GridSample: symmod's ROIPooling, ROIAlign and BilinearSampler."""
import numpy as np

from ..registry import translator


def _sym():
    from .... import symbol
    return symbol


@translator('MaxRoiPool')
def max_roi_pool(g, node):
    return _sym().ROIPooling(node.sym(0), node.sym(1),
                             pooled_size=tuple(node.attrs['pooled_shape']),
                             spatial_scale=node.attrs.get('spatial_scale', 1.0), name=node.name)


@translator('RoiAlign')
def roi_align(g, node):
    """ROIAlign on rows ``[batch index, box]``; ONNX's half_pixel mode (opset 16's
    default) is MXNet's ``aligned``."""
    S = _sym()
    attrs = node.attrs
    if attrs.get('mode', 'avg') != 'avg':
        node.fail("mode='%s' (symmod's ROIAlign averages)" % attrs['mode'])
    default = 'half_pixel' if g.opset >= 16 else 'output_half_pixel'
    aligned = attrs.get('coordinate_transformation_mode', default) == 'half_pixel'
    pooled = (attrs.get('output_height', 1), attrs.get('output_width', 1))
    ratio = attrs.get('sampling_ratio', 0)
    scale = attrs.get('spatial_scale', 1.0)
    dtype = np.dtype(g.types.get(node.inputs[1], np.float32))
    index = S.reshape(S.Cast(node.sym(2), dtype=dtype.name), shape=(-1, 1))
    boxes = node.sym(1)
    rois = S.Concat(index, boxes, dim=1)
    out = S.contrib.ROIAlign(node.sym(0), rois, pooled_size=pooled, spatial_scale=scale,
                             sample_ratio=ratio if ratio > 0 else -1, aligned=aligned)
    if aligned and ratio <= 0:
        # ONNX divides by max(points, 1): a box whose adaptive grid is empty gives 0 where
        # symmod's average is 0 / 0
        shifted = boxes * scale - 0.5
        size = S.slice_axis(shifted, axis=1, begin=2, end=4) - S.slice_axis(
            shifted, axis=1, begin=0, end=2)
        per_bin = np.array([[pooled[1], pooled[0]]], dtype)
        bins = S.ceil(S.broadcast_div(size, g.new_param(node.name + '_bins', per_bin)))
        empty = S.reshape(S.prod(bins, axis=1) == 0, shape=(-1,))
        out = S.where(empty, S.zeros_like(out), out)
    return S.identity(out, name=node.name)


@translator('GridSample')
def grid_sample(g, node):
    attrs = node.attrs
    mode = attrs.get('mode', 'linear' if g.opset >= 20 else 'bilinear')
    if mode not in ('bilinear', 'linear') or attrs.get('padding_mode', 'zeros') != 'zeros' \
            or attrs.get('align_corners', 0) != 1:
        node.fail("mode=%s, padding_mode=%s, align_corners=%s (symmod's BilinearSampler is "
                  "bilinear, zero padding, corners aligned)"
                  % (mode, attrs.get('padding_mode', 'zeros'), attrs.get('align_corners', 0)))
    shape = node.shape(0)
    if shape is not None and len(shape) != 4:
        node.fail('a %d-D input (BilinearSampler samples 4-D NCHW data)' % len(shape))
    S = _sym()
    grid = S.transpose(node.sym(1), axes=(0, 3, 1, 2))
    return S.BilinearSampler(node.sym(0), grid, name=node.name)


@translator('NonMaxSuppression')
def non_max_suppression(g, node):
    """box_nms on every (batch, class) pair at once: rows ``[score, box, box index]``,
    suppressing above ``iou_threshold`` and keeping scores above ``score_threshold``
    (both strict, as ONNX Runtime), the best first, ties in box order.

    ONNX's output has one ``[batch, class, box]`` row per selected box, a number known
    only at run time; a symmod graph has static shapes. The rows come in ONNX's order
    (by batch, class, then score), followed by rows of -1 up to the most that can be
    selected, ``batches * classes * min(max_output_boxes_per_class, boxes)``. The number
    of batches may be unknown (a model exported with a varying batch). A model that reads
    the output's length (Shape, Size) is refused."""
    S = _sym()
    shape, score_shape = node.shape(0), node.shape(1)
    if shape is None or score_shape is None or None in shape[1:] or None in score_shape[1:]:
        node.fail('boxes or scores of unknown shape (only the number of batches may vary)')
    batches, count, _ = shape
    classes = score_shape[1]
    limit = node.const(2) if node.has(2) else np.zeros(1, np.int64)
    if limit is None:
        node.fail('max_output_boxes_per_class (input 2) must be a constant')
    limit = min(int(np.asarray(limit).reshape(-1)[0]), count)
    if limit <= 0:
        node.fail('max_output_boxes_per_class of 0 selects no box (an empty output)')
    thresholds = []
    for index, default in ((3, 0.0), (4, None)):
        value = node.const(index) if node.has(index) else default
        if node.has(index) and value is None:
            node.fail('its threshold (input %d) must be a constant' % index)
        thresholds.append(None if value is None else float(np.asarray(value).reshape(-1)[0]))
    iou, floor = thresholds
    for reader in g.readers(node.outputs[0]):
        if reader in ('Shape', 'Size'):
            node.fail("its output's length is read (%s); symmod pads the selected rows to "
                      'a fixed number' % reader)
    dtype = np.dtype(g.types.get(node.inputs[0], np.float32)).name
    boxes = node.sym(0)
    if not node.attrs.get('center_point_box', 0):
        # any two opposite corners: the lower ones, then the upper ones
        first, second = (S.slice_axis(boxes, axis=2, begin=b, end=b + 2) for b in (0, 2))
        boxes = S.Concat(S.broadcast_minimum(first, second), S.broadcast_maximum(first, second),
                         dim=2)
    boxes = S.broadcast_to(S.expand_dims(boxes, axis=1), shape=(0, classes, count, 4))
    scores = S.expand_dims(S.Cast(node.sym(1), dtype=dtype), axis=3)
    ids = S.broadcast_like(g.new_param(node.name + '_ids', np.arange(
        count, dtype=dtype).reshape(1, 1, count, 1)), scores)
    rows = S.reshape(S.Concat(scores, boxes, ids, dim=3), shape=(-1, count, 6))
    kept = S.contrib.box_nms(rows, overlap_thresh=iou,
                             valid_thresh=-3.4e38 if floor is None else floor, topk=-1,
                             coord_start=1, score_index=0, id_index=-1, force_suppress=True,
                             in_format='center' if node.attrs.get('center_point_box', 0)
                             else 'corner')
    picked = S.reshape(S.slice(kept, begin=(None, 0, 5), end=(None, limit, 6)),
                       shape=(-1,))                                    # -1: none there
    found = picked >= 0
    # slot s holds (batch, class) pair s // limit: batch pair // classes, class pair % classes
    slot = S.Cast(S.reshape(S.contrib.index_array(picked), shape=(-1,)), dtype='float64')
    pair = S.floor(slot / limit)
    batch = S.floor(pair / classes)
    pairs = S.stack(batch, pair - batch * classes, axis=1)
    # the found rows first, in slot order (distinct keys, so the sort's tie rule is moot)
    slots = S.sum(S.ones_like(slot))
    keys = S.where(found, slot, S.broadcast_add(slot, slots))
    order = S.argsort(keys, is_ascend=True, axis=0, dtype='int64')
    triples = S.Concat(S.Cast(pairs, dtype=dtype), S.reshape(picked, shape=(-1, 1)), dim=1)
    chosen = S.take(triples, order, axis=0)
    present = S.reshape(S.take(found, order, axis=0), shape=(-1, 1))
    result = S.where(S.broadcast_like(present, chosen), chosen, S.ones_like(chosen) * -1)
    return S.Cast(result, dtype='int64', name=node.name)
