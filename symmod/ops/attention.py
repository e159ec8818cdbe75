"""Multi-head attention products over interleaved projections (MXNet's contrib transformer
operators): interleaved_matmul_selfatt_qk / _valatt and interleaved_matmul_encdec_qk /
_valatt.

Projections are laid out (seq_length, batch, heads * parts * head_dim): for each head the
query, key and value (self-attention, parts 3) or key and value (encoder-decoder, parts
2) of ``head_dim`` values follow each other. Scores are ``q @ k.T / sqrt(head_dim)`` per
(batch, head), shaped (batch * heads, len_q, len_k); the value products give back
(len_q, batch, heads * head_dim).
"""
import numpy as np

from ..base import parse_int
from .common import int_shape, store_from
from .registry import Operator, Param, ShapeError, register

__all__ = []


def _split(array, heads, parts):
    """(L, B, H * parts * D) -> a list of ``parts`` arrays (B * H, L, D)."""
    length, batch, width = array.shape
    tmp = array.reshape(length, batch, heads, parts, width // (heads * parts))
    return [np.ascontiguousarray(tmp[:, :, :, p, :].transpose(1, 2, 0, 3)).reshape(
        batch * heads, length, -1) for p in range(parts)]


def _join(pieces, heads, shape):
    """Inverse of :func:`_split` for gradients: pieces (B * H, L, D) (None: zero)."""
    length, batch, width = shape
    parts = len(pieces)
    tmp = np.zeros((length, batch, heads, parts, width // (heads * parts)),
                   np.result_type(*[p for p in pieces if p is not None]))
    for p, piece in enumerate(pieces):
        if piece is not None:
            tmp[:, :, :, p, :] = piece.reshape(batch, heads, length, -1).transpose(2, 0, 1, 3)
    return tmp.reshape(shape)


def _merge_heads(values, heads):
    """(B * H, L, D) -> (L, B, H * D)."""
    bh, length, depth = values.shape
    return values.reshape(bh // heads, heads, length, depth).transpose(2, 0, 1, 3).reshape(
        length, bh // heads, heads * depth)


def _split_heads(values, heads):
    """(L, B, H * D) -> (B * H, L, D)."""
    length, batch, width = values.shape
    return values.reshape(length, batch, heads, width // heads).transpose(1, 2, 0, 3).reshape(
        batch * heads, length, -1)


def _scale(head_dim, dtype):
    return dtype.type(1) / np.sqrt(dtype.type(head_dim))


class _Interleaved(Operator):
    params = (Param('heads', parse_int, doc='Number of attention heads.'),)
    backward_uses_outputs = False

    def _check(self, what, shape, parts):
        if shape is None:
            return None
        if len(shape) != 3 or shape[2] % (self.heads * parts):
            raise ShapeError('%s: %s must be (seq_length, batch, heads * %d * head_dim) with '
                             'heads=%d, found %s' % (self.name, what, parts, self.heads, shape))
        return shape


@register
class InterleavedSelfAttQK(_Interleaved):
    """Self-attention scores ``q @ k.T / sqrt(head_dim)`` from ``queries_keys_values``."""
    name = '_contrib_interleaved_matmul_selfatt_qk'

    def list_arguments(self):
        return ['queries_keys_values']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        qkv = self._check('queries_keys_values', int_shape(in_shapes[0]), 3)
        if qkv is None:
            return [None], list(out_shapes), []
        return [qkv], [(self.heads * qkv[1], qkv[0], qkv[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        q, k, _ = _split(in_data[0], self.heads, 3)
        scale = _scale(q.shape[2], out_data[0].dtype)
        store_from(out_data[0], req[0], np.matmul(q * scale, k.transpose(0, 2, 1)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        q, k, _ = _split(in_data[0], self.heads, 3)
        dy = out_grad[0]
        scale = _scale(q.shape[2], dy.dtype)
        dq = np.matmul(dy, k) * scale
        dk = np.matmul(dy.transpose(0, 2, 1), q) * scale
        store_from(in_grad[0], req[0], _join([dq, dk, None], self.heads, in_data[0].shape))


class _ValAtt(_Interleaved):
    """Base of the value products: ``attention @ v`` with v projection ``value_part`` of
    ``parts`` interleaved in the first input."""
    parts = value_part = None

    def _values(self, projections):
        return _split(projections, self.heads, self.parts)[self.value_part]

    def forward(self, is_train, req, in_data, out_data, aux):
        v = self._values(in_data[0])
        store_from(out_data[0], req[0], _merge_heads(np.matmul(in_data[1], v), self.heads))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        v = self._values(in_data[0])
        dy = _split_heads(out_grad[0], self.heads)
        if req[0] != 'null':
            pieces = [None] * self.parts
            pieces[self.value_part] = np.matmul(in_data[1].transpose(0, 2, 1), dy)
            store_from(in_grad[0], req[0], _join(pieces, self.heads, in_data[0].shape))
        store_from(in_grad[1], req[1], np.matmul(dy, v.transpose(0, 2, 1)))


@register
class InterleavedSelfAttValAtt(_ValAtt):
    """Attention-weighted values ``attention @ v`` merged back to (L, B, heads * head_dim)."""
    name = '_contrib_interleaved_matmul_selfatt_valatt'
    parts, value_part = 3, 2

    def list_arguments(self):
        return ['queries_keys_values', 'attention']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        qkv = self._check('queries_keys_values', int_shape(in_shapes[0]), 3)
        att = int_shape(in_shapes[1])
        if qkv is None:
            return [qkv, att], list(out_shapes), []
        expected = (self.heads * qkv[1], qkv[0], qkv[0])
        if att is not None and att != expected:
            raise ShapeError('%s: attention must be %s, found %s' % (self.name, expected, att))
        return [qkv, expected], [(qkv[0], qkv[1], qkv[2] // 3)], []


@register
class InterleavedEncDecQK(_Interleaved):
    """Encoder-decoder scores ``q @ k.T / sqrt(head_dim)`` from ``queries`` and
    ``keys_values``."""
    name = '_contrib_interleaved_matmul_encdec_qk'

    def list_arguments(self):
        return ['queries', 'keys_values']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        q = self._check('queries', int_shape(in_shapes[0]), 1)
        kv = self._check('keys_values', int_shape(in_shapes[1]), 2)
        if q is None or kv is None:
            return [q, kv], list(out_shapes), []
        if q[2] * 2 != kv[2] or q[1] != kv[1]:
            raise ShapeError('%s: keys_values %s must hold twice the projections of queries '
                             '%s for the same batch' % (self.name, kv, q))
        return [q, kv], [(q[1] * self.heads, q[0], kv[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        q = _split_heads(in_data[0], self.heads)
        k = _split(in_data[1], self.heads, 2)[0]
        scale = _scale(q.shape[2], out_data[0].dtype)
        store_from(out_data[0], req[0], np.matmul(q * scale, k.transpose(0, 2, 1)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        q = _split_heads(in_data[0], self.heads)
        k = _split(in_data[1], self.heads, 2)[0]
        dy = out_grad[0]
        scale = _scale(q.shape[2], dy.dtype)
        store_from(in_grad[0], req[0], _merge_heads(np.matmul(dy, k) * scale, self.heads))
        if req[1] != 'null':
            dk = np.matmul(dy.transpose(0, 2, 1), q) * scale
            store_from(in_grad[1], req[1], _join([dk, None], self.heads, in_data[1].shape))


@register
class InterleavedEncDecValAtt(_ValAtt):
    """Encoder-decoder attention-weighted values ``attention @ v``, (L_q, B, heads * D)."""
    name = '_contrib_interleaved_matmul_encdec_valatt'
    parts, value_part = 2, 1

    def list_arguments(self):
        return ['keys_values', 'attention']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        kv = self._check('keys_values', int_shape(in_shapes[0]), 2)
        att = int_shape(in_shapes[1])
        if kv is None or att is None:
            return [kv, att], list(out_shapes), []
        if len(att) != 3 or att[2] != kv[0] or att[0] != kv[1] * self.heads:
            raise ShapeError('%s: attention must be (batch * heads, len_q, %d), found %s'
                             % (self.name, kv[0], att))
        return [kv, att], [(att[1], kv[1], kv[2] // 2)], []
