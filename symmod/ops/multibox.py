"""SSD's multibox operators: MultiBoxPrior (anchor generation), MultiBoxTarget (training
targets for anchors) and MultiBoxDetection (decoding and non-maximum suppression).

Anchors are corner boxes ``[xmin, ymin, xmax, ymax]`` in coordinates normalised to the
image, shared by the batch: (1, num_anchors, 4). The arithmetic is MXNet 1.9.1's: anchor
geometry in float32, matching and mining in the CPU kernels' order (first maximum wins,
stable sorts). None of the three has a gradient (their inputs get zeros).
"""
import numba
import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int, parse_tuple
from .common import int_shape, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = []


def _floats(value):
    return parse_tuple(value, float)


def _zero_grads(req, in_grad):
    for grad, r in zip(in_grad, req):
        zero_grad(grad, r)


def _variances(op):
    if len(op.variances) != 4:
        raise MXNetError('%s: variances must have 4 values, found %s'
                         % (op.name, op.variances))
    return [np.float32(v) for v in op.variances]


# ---- MultiBoxPrior --------------------------------------------------------------------------
@register
class MultiBoxPrior(Operator):
    """Anchor boxes for every pixel of a feature map (N, C, H, W): one per size (with the
    first ratio) and one per further ratio (with the first size), centred at
    ``(pixel + offsets) * steps``; output (1, H * W * (len(sizes) + len(ratios) - 1), 4)."""
    name = '_contrib_MultiBoxPrior'
    aliases = ('_npx_multibox_prior',)
    params = (Param('sizes', _floats, (1.0,), 'Box sizes relative to the image.'),
              Param('ratios', _floats, (1.0,), 'Aspect ratios (width / height).'),
              Param('clip', parse_bool, False, 'Clip boxes to [0, 1].'),
              Param('steps', _floats, (-1.0, -1.0), 'Step (y, x); -1 for 1 / size.'),
              Param('offsets', _floats, (0.5, 0.5), 'Centre offsets (y, x) in a pixel.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if not self.sizes or not self.ratios:
            raise MXNetError('MultiBoxPrior: sizes and ratios must not be empty')
        if len(self.steps) != 2 or len(self.offsets) != 2:
            raise MXNetError('MultiBoxPrior: steps and offsets need two values (y, x), found '
                             '%s and %s' % (self.steps, self.offsets))
        if not all(0 <= o <= 1 for o in self.offsets):
            raise MXNetError('MultiBoxPrior: offsets must be in [0, 1], found %s'
                             % (self.offsets,))
        if self.steps[0] * self.steps[1] < 0:
            raise MXNetError('MultiBoxPrior: give both step_y and step_x, found %s'
                             % (self.steps,))

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = int_shape(in_shapes[0])
        if dshape is None:
            return [None], list(out_shapes), []
        if len(dshape) < 4 or dshape[2] <= 0 or dshape[3] <= 0:
            raise ShapeError('MultiBoxPrior: data must be 4D (batch, channel, y, x), found %s'
                             % (dshape,))
        per_pixel = len(self.sizes) + len(self.ratios) - 1
        return [dshape], [(1, dshape[2] * dshape[3] * per_pixel, 4)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        f32 = np.float32
        height, width = in_data[0].shape[2], in_data[0].shape[3]
        step_y, step_x = (f32(s) for s in self.steps)
        if step_y <= 0 or step_x <= 0:
            step_y, step_x = f32(1) / f32(height), f32(1) / f32(width)
        # (half width, half height) of each anchor of a pixel, in MXNet's float32 order
        shapes = []
        first_ratio = np.sqrt(f32(self.ratios[0]))
        for size in self.sizes:
            shapes.append((f32(size) * f32(height) / f32(width) * first_ratio / f32(2),
                           f32(size) / first_ratio / f32(2)))
        for ratio in self.ratios[1:]:
            root = np.sqrt(f32(ratio))
            size = f32(self.sizes[0])
            shapes.append((size * f32(height) / f32(width) * root / f32(2),
                           size / root / f32(2)))
        half = np.array(shapes, f32)                                    # (k, 2)
        cy = (np.arange(height, dtype=f32) + f32(self.offsets[0])) * step_y
        cx = (np.arange(width, dtype=f32) + f32(self.offsets[1])) * step_x
        cy, cx = np.broadcast_arrays(cy[:, None, None], cx[None, :, None])
        boxes = np.stack([cx - half[:, 0], cy - half[:, 1], cx + half[:, 0], cy + half[:, 1]],
                         axis=-1)
        if self.clip:
            boxes = np.clip(boxes, 0, 1)
        store_from(out_data[0], req[0], boxes.reshape(out_data[0].shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _zero_grads(req, in_grad)


# ---- MultiBoxTarget -----------------------------------------------------------------------
def _anchor_gt_iou(anchors, gts):
    """IoU (num_anchors, num_gt) in the data type, 0 where the union is empty."""
    a, g = anchors[:, None, :], gts[None, :, :]
    inter = (np.maximum(0, np.minimum(a[..., 2], g[..., 2]) - np.maximum(a[..., 0], g[..., 0]))
             * np.maximum(0, np.minimum(a[..., 3], g[..., 3])
                          - np.maximum(a[..., 1], g[..., 1])))
    union = ((a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
             + (g[..., 2] - g[..., 0]) * (g[..., 3] - g[..., 1]) - inter)
    with np.errstate(all='ignore'):
        return np.where(union == 0, 0, inter / union).astype(anchors.dtype)


def _encode(anchor, gt, variances):
    """Regression target of one anchor for one ground truth box (float32 arithmetic)."""
    al, at, ar, ab = (np.float32(v) for v in anchor)
    gl, gt_, gr, gb = (np.float32(v) for v in gt)
    aw, ah = ar - al, ab - at
    ax, ay = (al + ar) * np.float32(0.5), (at + ab) * np.float32(0.5)
    gw, gh = gr - gl, gb - gt_
    gx, gy = (gl + gr) * np.float32(0.5), (gt_ + gb) * np.float32(0.5)
    vx, vy, vw, vh = variances
    with np.errstate(all='ignore'):
        return [(gx - ax) / aw / vx, (gy - ay) / ah / vy,
                np.log(gw / aw) / vw, np.log(gh / ah) / vh]


@register
class MultiBoxTarget(Operator):
    """Training targets of anchors (1, A, 4) for labels (B, L, >=5: class, xmin, ymin,
    xmax, ymax; class -1 pads) and class predictions (B, classes, A).

    Each ground truth first takes its best free anchor; then every other anchor whose
    best IoU exceeds ``overlap_threshold`` is positive. With ``negative_mining_ratio`` > 0
    the hardest negatives (lowest background probability among anchors with IoU below
    ``negative_mining_thresh``), ``ratio`` times the positives, are negative; otherwise all
    others are. Outputs: box regression targets and masks (B, A * 4) and class targets
    (B, A): class + 1 for positives, 0 for negatives, ``ignore_label`` for the rest.
    """
    name = '_contrib_MultiBoxTarget'
    aliases = ('_npx_multibox_target',)
    params = (Param('overlap_threshold', parse_float, 0.5, 'IoU to be a positive match.'),
              Param('ignore_label', parse_float, -1.0, 'Class target of ignored anchors.'),
              Param('negative_mining_ratio', parse_float, -1.0,
                    'Negatives per positive (-1: no mining, all negatives).'),
              Param('negative_mining_thresh', parse_float, 0.5,
                    'IoU below which an anchor may be a mined negative.'),
              Param('minimum_negative_samples', parse_int, 0,
                    'Kept for MXNet compatibility (MXNet 1.9.1 ignores it).'),
              Param('variances', _floats, (0.1, 0.1, 0.2, 0.2),
                    'Scales of the regression targets.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['anchor', 'label', 'cls_pred']

    def list_outputs(self):
        return ['loc_target', 'loc_mask', 'cls_target']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ashape, lshape, pshape = (int_shape(s) for s in in_shapes)
        if ashape is None or lshape is None:
            return [ashape, lshape, pshape], list(out_shapes), []
        if len(ashape) != 3 or ashape[0] != 1 or ashape[2] != 4:
            raise ShapeError('MultiBoxTarget: anchor must be (1, num_anchors, 4), found %s'
                             % (ashape,))
        if len(lshape) != 3 or lshape[2] < 5:
            raise ShapeError('MultiBoxTarget: label must be (batch, num_labels, >=5), '
                             'found %s' % (lshape,))
        if pshape is not None and (len(pshape) != 3 or pshape[2] != ashape[1]):
            raise ShapeError('MultiBoxTarget: cls_pred must be (batch, num_classes, %d), '
                             'found %s' % (ashape[1], pshape))
        loc = (lshape[0], ashape[1] * 4)
        return [ashape, lshape, pshape], [loc, loc, (lshape[0], ashape[1])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        anchors = in_data[0].reshape(-1, 4)
        labels, cls_preds = in_data[1], in_data[2]
        dtype = out_data[0].dtype
        num_anchors = anchors.shape[0]
        loc = np.zeros((labels.shape[0], num_anchors, 4), dtype)
        mask = np.zeros_like(loc)
        cls = np.full((labels.shape[0], num_anchors), self.ignore_label, dtype)
        variances = _variances(self)
        for b in range(labels.shape[0]):
            flags, best = self._match(anchors, labels[b], cls_preds[b])
            if flags is None:
                continue
            for i in np.flatnonzero(flags == 1):
                gt = labels[b, best[i]]
                cls[b, i] = gt[0] + 1
                mask[b, i] = 1
                loc[b, i] = _encode(anchors[i], gt[1:5], variances)
            cls[b, flags == 0] = 0
        store_from(out_data[0], req[0], loc.reshape(out_data[0].shape))
        store_from(out_data[1], req[1], mask.reshape(out_data[1].shape))
        store_from(out_data[2], req[2], cls)

    def _match(self, anchors, labels, cls_pred):
        """Anchor flags (1 positive, 0 negative, -1 ignored) and each anchor's best ground
        truth, or (None, None) when the sample has no ground truth."""
        num_gt = 0
        while num_gt < labels.shape[0] and labels[num_gt, 0] != -1:
            num_gt += 1
        if num_gt == 0:
            return None, None
        num_anchors = anchors.shape[0]
        iou = _anchor_gt_iou(anchors, labels[:num_gt, 1:5]).astype(np.float32)
        flags = np.full(num_anchors, -1, np.int8)
        best_iou = np.full(num_anchors, -1.0, np.float32)
        best_gt = np.full(num_anchors, -1, np.int64)
        gt_free = np.ones(num_gt, bool)
        num_positive = 0
        # every ground truth takes its best free anchor, best pairs first
        while gt_free.any():
            free = np.where((flags != 1)[:, None] & gt_free[None, :], iou, -np.inf)
            j, k = np.unravel_index(np.argmax(free), free.shape)
            if not free[j, k] > np.float32(1e-6):
                break
            best_iou[j], best_gt[j] = free[j, k], k
            flags[j], gt_free[k] = 1, False
            num_positive += 1
        rest = flags != 1
        if self.overlap_threshold > 0:
            best_iou[rest] = iou[rest].max(axis=1)
            best_gt[rest] = iou[rest].argmax(axis=1)
            positive = rest & (best_iou > np.float32(self.overlap_threshold))
            flags[positive] = 1
            num_positive += int(positive.sum())
        if self.negative_mining_ratio > 0:
            self._mine_negatives(iou, flags, best_iou, cls_pred, num_positive)
        else:
            flags[flags != 1] = 0
        return flags, best_gt

    def _mine_negatives(self, iou, flags, best_iou, cls_pred, num_positive):
        if not self.negative_mining_thresh > 0:
            raise MXNetError('MultiBoxTarget: negative_mining_thresh must be > 0, found %s'
                             % self.negative_mining_thresh)
        num_negative = int(num_positive * np.float32(self.negative_mining_ratio))
        num_negative = min(num_negative, flags.size - num_positive)
        if num_negative <= 0:
            return
        unset = (flags != 1) & (best_iou < 0)
        best_iou[unset] = iou[unset].max(axis=1)
        candidates = np.flatnonzero((flags == -1)
                                    & (best_iou < np.float32(self.negative_mining_thresh)))
        scores = cls_pred[:, candidates]
        exp = np.exp(scores - scores.max(axis=0))
        background = exp[0] / exp.sum(axis=0)
        hardest = candidates[np.argsort(background, kind='stable')]
        if hardest.size < num_negative:
            raise MXNetError('MultiBoxTarget: %d negatives to mine, only %d candidates'
                             % (num_negative, hardest.size))
        flags[hardest[:num_negative]] = 0

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _zero_grads(req, in_grad)


# ---- MultiBoxDetection ---------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, error_model='numpy')
def _box_iou(a, b):
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return 0.0 if union <= 0 else inter / union


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _nms_rows(rows, count, threshold, force):
    """Drop (id -1) rows overlapping a better row of the same class (any class if force)."""
    for i in range(count):
        if rows[i, 0] < 0:
            continue
        for j in range(i + 1, count):
            if rows[j, 0] < 0:
                continue
            if force or rows[i, 0] == rows[j, 0]:
                if _box_iou(rows[i, 2:], rows[j, 2:]) >= threshold:
                    rows[j, 0] = -1


@register
class MultiBoxDetection(Operator):
    """Detections from class probabilities (B, classes, A), box regressions (B, A * 4)
    and anchors (1, A, 4): rows ``[class, score, xmin, ymin, xmax, ymax]`` (B, A, 6),
    valid ones first, sorted by score and non-maximum suppressed; class 0 is background
    and rows of class -1 are padding."""
    name = '_contrib_MultiBoxDetection'
    aliases = ('_npx_multibox_detection',)
    params = (Param('clip', parse_bool, True, 'Clip boxes to [0, 1].'),
              Param('threshold', parse_float, 0.01, 'Score to be a detection.'),
              Param('background_id', parse_int, 0,
                    'Background class (MXNet 1.9.1 always uses 0).'),
              Param('nms_threshold', parse_float, 0.5, 'IoU suppression threshold.'),
              Param('force_suppress', parse_bool, False, 'Suppress across classes.'),
              Param('variances', _floats, (0.1, 0.1, 0.2, 0.2),
                    'Scales of the box regressions.'),
              Param('nms_topk', parse_int, -1, 'Keep at most this many before NMS.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['cls_prob', 'loc_pred', 'anchor']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        cshape, lshape, ashape = (int_shape(s) for s in in_shapes)
        if cshape is None or ashape is None:
            return [cshape, lshape, ashape], list(out_shapes), []
        if len(cshape) != 3 or len(ashape) != 3 or ashape[2] != 4 or cshape[2] != ashape[1]:
            raise ShapeError('MultiBoxDetection: cls_prob (batch, classes, A) and anchor '
                             '(1, A, 4) do not fit: %s and %s' % (cshape, ashape))
        loc = (cshape[0], ashape[1] * 4)
        if lshape is not None and lshape != loc:
            raise ShapeError('MultiBoxDetection: loc_pred must be %s, found %s' % (loc, lshape))
        return [cshape, loc, ashape], [(cshape[0], ashape[1], 6)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        cls_prob, loc_pred = in_data[0], in_data[1]
        anchors = in_data[2].reshape(-1, 4)
        dtype = out_data[0].dtype
        out = np.full(out_data[0].shape, -1, dtype)
        boxes = self._decode(loc_pred.reshape(loc_pred.shape[0], -1, 4), anchors, dtype)
        for b in range(cls_prob.shape[0]):
            foreground = cls_prob[b, 1:]
            class_id = foreground.argmax(axis=0) + 1 if foreground.size else \
                np.zeros(cls_prob.shape[2], np.int64)
            score = np.take_along_axis(foreground, class_id[None] - 1, 0)[0] \
                if foreground.size else np.full(cls_prob.shape[2], -1, dtype)
            score = np.where(score > -1, score, -1)
            class_id = np.where(score > -1, class_id, 0)
            class_id[(class_id > 0) & (score < dtype.type(self.threshold))] = 0
            valid = np.flatnonzero(class_id > 0)
            rows = out[b]
            rows[:valid.size, 0] = class_id[valid] - 1
            rows[:valid.size, 1] = score[valid]
            rows[:valid.size, 2:] = boxes[b, valid]
            if valid.size < 1 or not 0 < self.nms_threshold <= 1:
                continue
            order = np.argsort(-rows[:valid.size, 1], kind='stable')
            keep = valid.size if not 0 < self.nms_topk < valid.size else self.nms_topk
            sorted_rows = rows[order[:keep]].copy()
            rows[keep:valid.size, 0] = -1
            rows[:keep] = sorted_rows
            _nms_rows(rows, keep, self.nms_threshold, self.force_suppress)
        store_from(out_data[0], req[0], out)

    def _decode(self, loc, anchors, dtype):
        """Corner boxes (B, A, 4) from regressions ``loc`` (B, A, 4) around ``anchors``."""
        vx, vy, vw, vh = _variances(self)
        al, at, ar, ab = (anchors[:, k] for k in range(4))
        aw, ah = ar - al, ab - at
        ax, ay = (al + ar) / dtype.type(2), (at + ab) / dtype.type(2)
        ox = loc[..., 0] * vx * aw + ax
        oy = loc[..., 1] * vy * ah + ay
        with np.errstate(over='ignore'):
            ow = np.exp(loc[..., 2] * vw) * aw / 2
            oh = np.exp(loc[..., 3] * vh) * ah / 2
        boxes = np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(dtype)
        return np.clip(boxes, 0, 1) if self.clip else boxes

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _zero_grads(req, in_grad)
