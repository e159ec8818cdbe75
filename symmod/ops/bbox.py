"""Bounding-box operators of ``mx.nd.contrib``/``mx.sym.contrib``: box_nms, box_iou,
bipartite_matching, box_encode and box_decode.

Boxes are rows of four coordinates, ``corner`` ``[xmin, ymin, xmax, ymax]`` or
``center`` ``[x, y, width, height]``. Sorting is stable (ties keep their input order)
and suppression greedy in score order, as MXNet 1.9.1's CPU kernels do. box_nms's
gradient routes each kept box's output gradient back to the input row it came from
(a hidden output records which); the others have zero gradients.
"""
import numba
import numpy as np

from ..base import parse_bool, parse_float, parse_int
from .common import choice, int_shape, kernel_array, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = []

_FORMAT = choice('corner', 'center')


# ---- geometry ---------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, error_model='numpy')
def _overlap_1d(a0, a2, b0, b2, center):
    """Length of the overlap of two intervals given as (start, end) or (middle, width)."""
    if center:
        left = max(b0 - b2 / 2, a0 - a2 / 2)
        right = min(b0 + b2 / 2, a0 + a2 / 2)
    else:
        left = max(a0, b0)
        right = min(a2, b2)
    width = right - left
    return width if width > 0 else 0.0


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _area(box, center):
    width = box[2] if center else box[2] - box[0]
    height = box[3] if center else box[3] - box[1]
    return 0.0 if width < 0 or height < 0 else width * height


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _intersection(a, b, center):
    return (_overlap_1d(a[0], a[2], b[0], b[2], center)
            * _overlap_1d(a[1], a[3], b[1], b[3], center))


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _iou_matrix(lhs, rhs, center, out):
    for i in range(lhs.shape[0]):
        for j in range(rhs.shape[0]):
            inter = _intersection(lhs[i], rhs[j], center)
            if inter <= 0:
                out[i, j] = 0
            else:
                out[i, j] = inter / (_area(lhs[i], center) + _area(rhs[j], center) - inter)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _suppress(boxes, order, coord, id_index, thresh, force, center):
    """Greedy NMS over ``order`` (row indices of ``boxes``, best first): suppressed
    entries become -1."""
    count = order.shape[0]
    areas = np.zeros(count)
    for k in range(count):
        areas[k] = _area(boxes[order[k], coord:coord + 4], center)
    for ref in range(count):
        if order[ref] < 0:
            continue
        a = boxes[order[ref]]
        for pos in range(ref + 1, count):
            if order[pos] < 0:
                continue
            b = boxes[order[pos]]
            if not force and id_index >= 0 and int(a[id_index]) != int(b[id_index]):
                continue
            inter = _intersection(a[coord:coord + 4], b[coord:coord + 4], center)
            if inter / (areas[ref] + areas[pos] - inter) > thresh:
                order[pos] = -1


def _convert_boxes(boxes, to_center):
    """Corner <-> center in place on rows whose first coordinate is not negative (MXNet
    leaves the -1 padding rows, and any box starting left of 0, alone)."""
    rows = boxes[:, 0] >= 0
    b = boxes[rows]
    if to_center:
        converted = [(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2,
                     b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]]
    else:
        half_w, half_h = b[:, 2] / 2, b[:, 3] / 2
        converted = [b[:, 0] - half_w, b[:, 1] - half_h, b[:, 0] + half_w, b[:, 1] + half_h]
    boxes[rows] = np.stack(converted, axis=1)


def _stable_descending(keys):
    return np.argsort(-keys, kind='stable')


# ---- box_nms ------------------------------------------------------------------------------
@register
class BoxNMS(Operator):
    """Non-maximum suppression over boxes (..., N, W): rows sorted by score, overlapping
    lower-scored boxes (IoU > ``overlap_thresh``) dropped, the kept rows first and the
    rest filled with -1. Rows with score <= ``valid_thresh`` (or of ``background_id``)
    are dropped first; only the ``topk`` best are considered."""
    name = '_contrib_box_nms'
    aliases = ('_contrib_box_non_maximum_suppression', '_npx_box_nms')
    params = (Param('overlap_thresh', parse_float, 0.5, 'IoU above which a box is dropped.'),
              Param('valid_thresh', parse_float, 0.0, 'Keep boxes scoring above this.'),
              Param('topk', parse_int, -1, 'Consider the topk best boxes (-1: all).'),
              Param('coord_start', parse_int, 2, 'Column of the first coordinate.'),
              Param('score_index', parse_int, 1, 'Column of the score.'),
              Param('id_index', parse_int, -1, 'Column of the class id (-1: none).'),
              Param('background_id', parse_int, -1, 'Class id to ignore.'),
              Param('force_suppress', parse_bool, False,
                    'Suppress across classes (otherwise only within a class).'),
              Param('in_format', _FORMAT, 'corner', 'Input box encoding.'),
              Param('out_format', _FORMAT, 'corner', 'Output box encoding.'))
    backward_uses_inputs = False

    def list_outputs(self):
        return ['output0', 'output1']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0]) or int_shape(out_shapes[0])
        if shape is None:
            return [None], [None, None], []
        if len(shape) < 2:
            raise ShapeError('box_nms: input must have at least 2 dims (num_box, box_width), '
                             'found %s' % (shape,))
        width = shape[-1]
        columns = {'score_index': self.score_index}
        if self.id_index >= 0:
            columns['id_index'] = self.id_index
        if width < 5 + len(columns) - 1:
            raise ShapeError('box_nms: the last dimension must hold the score and 4 '
                             'coordinates%s: found %d columns'
                             % (' and the class id' if self.id_index >= 0 else '', width))
        if not (self.coord_start >= 0 and self.coord_start + 3 < width):
            raise ShapeError('box_nms: coordinates %d..%d out of range (0, %d)'
                             % (self.coord_start, self.coord_start + 3, width))
        for what, column in columns.items():
            if not 0 <= column < width or self.coord_start <= column <= self.coord_start + 3:
                raise ShapeError('box_nms: %s %d is out of range (0, %d) or overlaps the '
                                 'coordinates' % (what, column, width))
        if self.id_index >= 0 and self.id_index == self.score_index:
            raise ShapeError('box_nms: id_index and score_index are both %d' % self.id_index)
        return [shape], [shape, shape[:-1] + (1,)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        data = in_data[0]
        num, width = data.shape[-2], data.shape[-1]
        boxes = kernel_array(data.reshape(-1, width))
        out = out_data[0].reshape(-1, num, width)
        record = out_data[1].reshape(-1, num)
        batches = out.shape[0]
        topk = num if self.topk < 0 else min(num, self.topk)
        if topk < 1:
            out[...] = boxes.reshape(out.shape)
            record[...] = np.arange(batches * num).reshape(record.shape)
            return
        scores = boxes[:, self.score_index]
        valid = scores > scores.dtype.type(self.valid_thresh)
        if self.id_index >= 0:
            valid &= boxes[:, self.id_index] != self.background_id
        candidates = np.flatnonzero(valid)
        out.fill(-1)
        record.fill(-1)
        candidates = candidates[_stable_descending(scores[candidates])]
        candidates = candidates[np.argsort(candidates // num, kind='stable')]
        batch_of = candidates // num
        center = self.in_format == 'center'
        for b in range(batches):
            order = candidates[batch_of == b][:topk].astype(np.int64)
            _suppress(boxes, order, self.coord_start, self.id_index,
                      self.overlap_thresh, self.force_suppress, center)
            kept = order[order >= 0]
            out[b, :kept.size] = boxes[kept]
            record[b, :kept.size] = kept
        if self.in_format != self.out_format:
            coords = out.reshape(-1, width)[:, self.coord_start:self.coord_start + 4]
            converted = coords.copy()
            _convert_boxes(converted, self.out_format == 'center')
            coords[...] = converted

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        width = in_grad[0].shape[-1]
        dy = out_grad[0].reshape(-1, width)
        record = out_data[1].reshape(-1).astype(np.int64)
        grad = np.zeros((in_grad[0].size // width, width), in_grad[0].dtype)
        kept = record >= 0
        grad[record[kept]] = dy[kept]
        store_from(in_grad[0], req[0], grad.reshape(in_grad[0].shape))


# ---- box_iou ------------------------------------------------------------------------------
@register
class BoxIOU(Operator):
    """Intersection over union of every box of ``lhs`` (..., 4) with every box of
    ``rhs`` (..., 4): shape ``lhs.shape[:-1] + rhs.shape[:-1]``."""
    name = '_contrib_box_iou'
    aliases = ('_npx_box_iou',)
    params = (Param('format', _FORMAT, 'corner', 'Box encoding of both inputs.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['lhs', 'rhs']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        lhs, rhs = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        for what, shape in (('lhs', lhs), ('rhs', rhs)):
            if shape is not None and (len(shape) < 2 or shape[-1] != 4):
                raise ShapeError('box_iou: %s must have at least 2 dims and a last dimension '
                                 'of 4, found %s' % (what, shape))
        if lhs is None or rhs is None:
            return [lhs, rhs], list(out_shapes), []
        return [lhs, rhs], [lhs[:-1] + rhs[:-1]], []

    def forward(self, is_train, req, in_data, out_data, aux):
        lhs, rhs = (kernel_array(x.reshape(-1, 4)) for x in in_data)
        result = np.empty((lhs.shape[0], rhs.shape[0]), lhs.dtype)
        _iou_matrix(lhs, rhs, self.format == 'center', result)
        store_from(out_data[0], req[0], result.reshape(out_data[0].shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for grad, r in zip(in_grad, req):
            zero_grad(grad, r)


# ---- bipartite_matching ----------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, error_model='numpy')
def _match(scores, order, threshold, ascend, topk, rows, cols):
    """Greedy matching in ``order`` (flat indices, best score first)."""
    num_cols = cols.shape[0]
    count = 0
    for j in range(order.shape[0]):
        r = order[j] // num_cols
        c = order[j] % num_cols
        if rows[r] == -1 and cols[c] == -1:
            score = scores[j]
            if (not ascend and score > threshold) or (ascend and score < threshold):
                rows[r] = c
                cols[c] = r
                count += 1
                # MXNet checks after assigning: topk=k keeps k + 1 matches
                if 0 < topk < count:
                    break
            else:
                break


@register
class BipartiteMatching(Operator):
    """Greedy bipartite matching of a score matrix (..., N, M): repeatedly match the best
    remaining (row, column) pair while its score beats ``threshold``. Outputs the matched
    column of each row and the matched row of each column (-1: unmatched)."""
    name = '_contrib_bipartite_matching'
    aliases = ('_npx_bipartite_matching',)
    params = (Param('is_ascend', parse_bool, False, 'Lower scores are better.'),
              Param('threshold', parse_float, doc='Scores must beat this to match.'),
              Param('topk', parse_int, -1, 'Limit on the number of matches (-1: none).'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_outputs(self):
        return ['output0', 'output1']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None:
            return [None], list(out_shapes), []
        if len(shape) < 2:
            raise ShapeError('bipartite_matching: the score matrix must have at least 2 dims, '
                             'found %s' % (shape,))
        return [shape], [shape[:-1], shape[:-2] + shape[-1:]], []

    def forward(self, is_train, req, in_data, out_data, aux):
        data = in_data[0]
        num_rows, num_cols = data.shape[-2], data.shape[-1]
        scores = data.reshape(-1, num_rows * num_cols)
        rows = np.full((scores.shape[0], num_rows), -1.0)
        cols = np.full((scores.shape[0], num_cols), -1.0)
        for b in range(scores.shape[0]):
            keys = scores[b]
            order = np.argsort(keys, kind='stable') if self.is_ascend \
                else _stable_descending(keys)
            _match(keys[order].astype(np.float64), order.astype(np.int64),
                   np.float32(self.threshold), self.is_ascend, self.topk, rows[b], cols[b])
        store_from(out_data[0], req[0], rows.reshape(out_data[0].shape))
        store_from(out_data[1], req[1], cols.reshape(out_data[1].shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[0], req[0])


# ---- box_encode / box_decode ----------------------------------------------------------------
def _center_form(boxes):
    """Corner boxes (..., 4) as (x, y, width, height), each (...)."""
    width = boxes[..., 2] - boxes[..., 0]
    height = boxes[..., 3] - boxes[..., 1]
    return boxes[..., 0] + width * 0.5, boxes[..., 1] + height * 0.5, width, height


@register
class BoxEncode(Operator):
    """Regression targets of matched anchors: for ``samples`` > 0.5, the offsets of the
    matched reference box (``refs[matches]``) from the anchor, normalised by the anchor's
    size and by ``means``/``stds``; zero targets and masks elsewhere."""
    name = '_contrib_box_encode'
    aliases = ('_npx_box_encode',)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['samples', 'matches', 'anchors', 'refs', 'means', 'stds']

    def list_outputs(self):
        return ['output0', 'output1']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = [int_shape(s) for s in in_shapes]
        samples, matches, anchors, refs = shapes[:4]
        checks = (('samples', samples, 2, False), ('matches', matches, 2, False),
                  ('anchors', anchors, 3, True), ('refs', refs, 3, True))
        for what, shape, ndim, boxes in checks:
            if shape is not None and (len(shape) < ndim or (boxes and shape[-1] != 4)):
                raise ShapeError('box_encode: %s must have %d dims%s, found %s'
                                 % (what, ndim, ' ending in 4' if boxes else '', shape))
        shapes[4] = shapes[5] = (4,)
        out = anchors if anchors is not None else None
        return shapes, [out, out], []

    def forward(self, is_train, req, in_data, out_data, aux):
        samples, matches, anchors, refs, means, stds = in_data
        dtype = out_data[0].dtype
        batch = np.arange(refs.shape[0])[:, None]
        matched = refs[batch, matches.astype(np.int64)]
        ref_x, ref_y, ref_w, ref_h = _center_form(matched)
        a_x, a_y, a_w, a_h = _center_form(anchors)
        valid = (samples > 0.5)
        with np.errstate(all='ignore'):
            targets = np.stack([((ref_x - a_x) / a_w - means[0]) / stds[0],
                                ((ref_y - a_y) / a_h - means[1]) / stds[1],
                                (np.log(ref_w / a_w) - means[2]) / stds[2],
                                (np.log(ref_h / a_h) - means[3]) / stds[3]], axis=-1)
        targets = np.where(valid[..., None], targets, 0).astype(dtype)
        masks = np.broadcast_to(valid[..., None], targets.shape).astype(dtype)
        store_from(out_data[0], req[0], targets)
        store_from(out_data[1], req[1], masks)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for grad, r in zip(in_grad, req):
            zero_grad(grad, r)


@register
class BoxDecode(Operator):
    """Boxes (corner form) from regression outputs ``data`` (B, N, 4) and ``anchors``
    (1, N, 4) in ``format``: centre offsets scaled by ``std0``/``std1`` and the anchor
    size, sizes ``exp(data * std)`` (the exponent capped at ``clip`` when it is > 0)."""
    name = '_contrib_box_decode'
    aliases = ('_npx_box_decode',)
    params = (Param('std0', parse_float, 1.0, 'Divisor of the 1st encoded value.'),
              Param('std1', parse_float, 1.0, 'Divisor of the 2nd encoded value.'),
              Param('std2', parse_float, 1.0, 'Divisor of the 3rd encoded value.'),
              Param('std3', parse_float, 1.0, 'Divisor of the 4th encoded value.'),
              Param('clip', parse_float, -1.0, 'Cap of the size exponent when > 0.'),
              Param('format', _FORMAT, 'center', 'Encoding of the anchors.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['data', 'anchors']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, ashape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if dshape is not None and (len(dshape) != 3 or dshape[-1] != 4):
            raise ShapeError('box_decode: data must be (batch, num_box, 4), found %s'
                             % (dshape,))
        if ashape is not None and (len(ashape) < 3 or ashape[-1] != 4):
            raise ShapeError('box_decode: anchors must be (1, num_box, 4), found %s'
                             % (ashape,))
        return [dshape, ashape], [dshape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        data, anchors = in_data
        dtype = out_data[0].dtype.type
        anchors = anchors.reshape(1, -1, 4)[:, :data.shape[1]]
        if self.format == 'corner':
            a_x, a_y, a_w, a_h = _center_form(anchors)
        else:
            a_x, a_y, a_w, a_h = (anchors[..., k] for k in range(4))
        std = [dtype(s) for s in (self.std0, self.std1, self.std2, self.std3)]
        ox = data[..., 0] * std[0] * a_w + a_x
        oy = data[..., 1] * std[1] * a_h + a_y
        dw, dh = data[..., 2] * std[2], data[..., 3] * std[3]
        if self.clip > 0:
            dw, dh = np.minimum(dw, dtype(self.clip)), np.minimum(dh, dtype(self.clip))
        with np.errstate(over='ignore'):
            ow, oh = np.exp(dw) * a_w * 0.5, np.exp(dh) * a_h * 0.5
        store_from(out_data[0], req[0], np.stack([ox - ow, oy - oh, ox + ow, oy + oh], -1))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for grad, r in zip(in_grad, req):
            zero_grad(grad, r)

