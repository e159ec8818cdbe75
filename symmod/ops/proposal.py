"""Proposal and MultiProposal: region proposals of a Faster R-CNN region proposal network.

For each image, anchors (``scales`` x ``ratios`` boxes around each cell of a
``feature_stride`` grid) are moved by the predicted deltas ``bbox_pred`` (or, with
``iou_loss``, offset corner by corner), clipped to the image ``im_info = (height, width,
scale)``; boxes smaller than ``rpn_min_size * scale`` and cells beyond the image get score
-1. The ``rpn_pre_nms_top_n`` best (stable sort on the foreground score, the second half
of ``cls_prob``'s channels) go through greedy NMS at ``threshold`` until
``rpn_post_nms_top_n`` are kept; the output rows ``[batch_index, x1, y1, x2, y2]`` repeat
the kept boxes cyclically when fewer survive. Arithmetic is float32 as in MXNet's CPU
kernels, so the same boxes survive. The gradient is zero for every input.
"""
import math

import numpy as np

from ..base import parse_bool, parse_float, parse_int, parse_tuple
from .common import int_shape, zero_grad
from .registry import Operator, Param, ShapeError, register, unify

__all__ = []

_F32 = np.float32


def _floats(value):
    return parse_tuple(value, item=float)


def _anchors(stride, scales, ratios):
    """(len(ratios) * len(scales), 4) base anchors, ratio-major, as MXNet makes them."""
    size = float(stride) * stride
    ctr = 0.5 * (stride - 1.0)
    rows = []
    for ratio in ratios:
        for scale in scales:
            side = math.floor(math.sqrt(math.floor(_F32(size / _F32(ratio)))) + 0.5)
            w = _F32(side * _F32(scale))
            h = _F32(math.floor(float(_F32(w / _F32(scale) * _F32(ratio))) + 0.5) * _F32(scale))
            rows.append([ctr - 0.5 * (w - 1.0), ctr - 0.5 * (h - 1.0),
                         ctr + 0.5 * (w - 1.0), ctr + 0.5 * (h - 1.0)])
    return np.array(rows, np.float32)


def _nms(dets, thresh, post_n):
    """Indices of the boxes greedy NMS keeps (at most ``post_n``), in float32."""
    x1, y1, x2, y2 = (dets[:, i] for i in range(4))
    area = (x2 - x1 + _F32(1)) * (y2 - y1 + _F32(1))
    suppressed = np.zeros(len(dets), bool)
    keep = []
    for i in range(len(dets)):
        if len(keep) >= post_n:
            break
        if suppressed[i]:
            continue
        keep.append(i)
        rest = slice(i + 1, None)
        w = np.maximum(_F32(0), np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest])
                       + _F32(1))
        h = np.maximum(_F32(0), np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest])
                       + _F32(1))
        inter = w * h
        suppressed[rest] |= inter / (area[i] + area[rest] - inter) > _F32(thresh)
    return np.array(keep, np.int64)


class _ProposalBase(Operator):
    params = (Param('rpn_pre_nms_top_n', parse_int, 6000,
                    'Boxes kept (best scores first) before NMS; <= 0: all.'),
              Param('rpn_post_nms_top_n', parse_int, 300, 'Boxes output after NMS.'),
              Param('threshold', parse_float, 0.7, 'NMS overlap above which a box is dropped.'),
              Param('rpn_min_size', parse_int, 16, 'Minimum box side (scaled by im_info[2]).'),
              Param('scales', _floats, (4.0, 8.0, 16.0, 32.0), 'Anchor scales.'),
              Param('ratios', _floats, (0.5, 1.0, 2.0), 'Anchor aspect ratios.'),
              Param('feature_stride', parse_int, 16, 'Image pixels per feature map cell.'),
              Param('output_score', parse_bool, False, 'Also output the scores.'),
              Param('iou_loss', parse_bool, False,
                    'Deltas are corner offsets (IoU loss) instead of center/size deltas.'))
    backward_uses_inputs = False
    backward_uses_outputs = False
    zero_gradient = True

    def list_arguments(self):
        return ['cls_prob', 'bbox_pred', 'im_info']

    def list_outputs(self):
        return ['output', 'score']

    def num_visible_outputs(self):
        return 2 if self.output_score else 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        cls = int_shape(in_shapes[0])
        if cls is None:
            return [None, int_shape(in_shapes[1]), int_shape(in_shapes[2])], \
                list(out_shapes), []
        if len(cls) != 4:
            raise ShapeError('%s: cls_prob must be 4D (batch, 2 * anchors, height, width), '
                             'found %s' % (self.name, cls))
        anchors = len(self.scales) * len(self.ratios)
        if cls[1] != 2 * anchors:
            raise ShapeError('%s: cls_prob must have 2 * %d channels (scales x ratios), '
                             'found %d' % (self.name, anchors, cls[1]))
        bbox = (cls[0], cls[1] * 2, cls[2], cls[3])
        for given, want, what in ((in_shapes[1], bbox, 'bbox_pred'),
                                  (in_shapes[2], (cls[0], 3), 'im_info')):
            try:
                unify(given, want)
            except ShapeError:
                raise ShapeError('%s: %s must have shape %s, found %s'
                                 % (self.name, what, want, tuple(given))) from None
        rows = self._images(cls[0]) * self.rpn_post_nms_top_n
        return [cls, bbox, (cls[0], 3)], [(rows, 5), (rows, 1)], []

    def _images(self, batch):
        return batch

    def _propose(self, scores, deltas, info):
        """(rpn_post_nms_top_n, 4) boxes and their scores for one image: ``scores``
        (anchors, H, W) foreground scores, ``deltas`` (4 * anchors, H, W), ``info``
        (height, width, scale)."""
        n_anchors, height, width = scores.shape
        stride = self.feature_stride
        base = _anchors(stride, self.scales, self.ratios)
        shift_y, shift_x = np.meshgrid(np.arange(height) * stride, np.arange(width) * stride,
                                       indexing='ij')
        shifts = np.stack([shift_x, shift_y, shift_x, shift_y], -1).astype(np.float32)
        # box order: cell (h, w) major, anchor minor
        boxes = (shifts[:, :, None, :] + base[None, None]).reshape(-1, 4)
        score = scores.transpose(1, 2, 0).reshape(-1).copy()
        d = deltas.reshape(n_anchors, 4, height, width).transpose(2, 3, 0, 1).reshape(-1, 4)
        im_h, im_w = _F32(info[0]), _F32(info[1])
        if self.iou_loss:
            pred = boxes + d
        else:
            f64 = np.float64
            w = (boxes[:, 2] - boxes[:, 0] + 1.0).astype(np.float32)
            h = (boxes[:, 3] - boxes[:, 1] + 1.0).astype(np.float32)
            cx = (boxes[:, 0] + 0.5 * (w.astype(f64) - 1.0)).astype(np.float32)
            cy = (boxes[:, 1] + 0.5 * (h.astype(f64) - 1.0)).astype(np.float32)
            pcx, pcy = d[:, 0] * w + cx, d[:, 1] * h + cy
            pw, ph = np.exp(d[:, 2]) * w, np.exp(d[:, 3]) * h
            half_w, half_h = 0.5 * (pw.astype(f64) - 1.0), 0.5 * (ph.astype(f64) - 1.0)
            pred = np.stack([pcx - half_w, pcy - half_h, pcx + half_w, pcy + half_h],
                            -1).astype(np.float32)
        pred[:, 0::2] = np.clip(pred[:, 0::2], _F32(0), im_w - _F32(1))
        pred[:, 1::2] = np.clip(pred[:, 1::2], _F32(0), im_h - _F32(1))
        real_h, real_w = int(info[0] / stride), int(info[1] / stride)
        if height < real_h or width < real_w:
            raise ShapeError('%s: the image (%s x %s) is larger than the feature map covers '
                             '(%d x %d cells of %d)' % (self.name, info[0], info[1], height,
                                                        width, stride))
        cell_h = np.repeat(np.arange(height), width * n_anchors)
        cell_w = np.tile(np.repeat(np.arange(width), n_anchors), height)
        score[(cell_h >= real_h) | (cell_w >= real_w)] = -1
        min_size = _F32(self.rpn_min_size * _F32(info[2]))
        small = ((pred[:, 2] - pred[:, 0] + _F32(1) < min_size)
                 | (pred[:, 3] - pred[:, 1] + _F32(1) < min_size))
        pred[small, :2] -= min_size / _F32(2)
        pred[small, 2:] += min_size / _F32(2)
        score[small] = -1
        count = len(score)
        pre_n = count if self.rpn_pre_nms_top_n <= 0 else min(self.rpn_pre_nms_top_n, count)
        order = np.argsort(-score, kind='stable')[:pre_n]
        pred, score = pred[order], score[order]
        keep = _nms(pred, self.threshold, min(self.rpn_post_nms_top_n, pre_n))
        chosen = keep[np.arange(self.rpn_post_nms_top_n) % len(keep)]
        return pred[chosen], score[chosen]

    def forward(self, is_train, req, in_data, out_data, aux):
        cls, deltas, info = (np.asarray(a, np.float32) for a in in_data)
        n_anchors = cls.shape[1] // 2
        rows = self.rpn_post_nms_top_n
        out, score = out_data[0].reshape(-1, rows, 5), out_data[1].reshape(-1, rows)
        for b in range(out.shape[0]):
            boxes, best = self._propose(cls[b, n_anchors:], deltas[b], info[b])
            out[b, :, 0] = b
            out[b, :, 1:] = boxes
            score[b] = best

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for grad, r in zip(in_grad, req):
            zero_grad(grad, r)


@register
class Proposal(_ProposalBase):
    """Region proposals (rpn_post_nms_top_n, 5) of one image (batch size 1)."""
    name = '_contrib_Proposal'

    def _images(self, batch):
        if batch != 1:
            raise ShapeError('Proposal: one image at a time (cls_prob batch 1), found %d; '
                             'MultiProposal takes a batch' % batch)
        return 1


@register
class MultiProposal(_ProposalBase):
    """Region proposals (batch * rpn_post_nms_top_n, 5) of a batch of images."""
    name = '_contrib_MultiProposal'
