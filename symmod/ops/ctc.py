"""Connectionist Temporal Classification loss: CTCLoss (aliases ctc_loss,
_contrib_CTCLoss, _contrib_ctc_loss).

``data`` holds unnormalised activations ``(seq_len, batch, alphabet)``; one channel is
the blank (``blank_label`` 'first': channel 0, labels 1..alphabet-1, padding 0;
'last': channel alphabet-1, labels 0..alphabet-2, padding -1). The forward pass
computes each sequence's negative log-likelihood and, as MXNet does, the gradient with
respect to the activations into a hidden second output; backward scales it by the head
gradient. The recursions run in log space in float64 (MXNet uses float32; the results
agree to float32 rounding).
"""
import numba
import numpy as np

from ..base import MXNetError, parse_bool
from .common import choice, int_shape, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = []

_NEG_INF = -np.inf


@numba.njit(cache=True, nogil=True)
def _log_add(a, b):
    if a == _NEG_INF:
        return b
    if b == _NEG_INF:
        return a
    if a > b:
        return a + np.log1p(np.exp(b - a))
    return b + np.log1p(np.exp(a - b))


@numba.njit(cache=True, nogil=True)
def _ctc_sequence(acts, labels, blank, grad):
    """Negative log-likelihood of ``labels`` under activations ``acts`` (T, A) and its
    gradient with respect to ``acts`` written into ``grad`` (T, A). Returns
    (cost, feasible); an infeasible sequence (too short for its labels) costs 0 and gets
    a zero gradient, as in MXNet."""
    T, A = acts.shape
    L = labels.shape[0]
    S = 2 * L + 1
    repeats = 0
    for i in range(1, L):
        if labels[i] == labels[i - 1]:
            repeats += 1
    grad[:, :] = 0.0
    if L + repeats > T or T == 0:
        return 0.0, False
    ext = np.empty(S, np.int64)             # the labels with blanks between and around
    for s in range(S):
        ext[s] = blank if s % 2 == 0 else labels[s // 2]
    logp = np.empty((T, A))
    for t in range(T):
        top = acts[t, 0]
        for k in range(1, A):
            top = max(top, acts[t, k])
        denom = 0.0
        for k in range(A):
            denom += np.exp(acts[t, k] - top)
        shift = top + np.log(denom)
        for k in range(A):
            logp[t, k] = acts[t, k] - shift
    alpha = np.full((T, S), _NEG_INF)
    alpha[0, 0] = logp[0, ext[0]]
    if S > 1:
        alpha[0, 1] = logp[0, ext[1]]
    for t in range(1, T):
        for s in range(S):
            acc = _log_add(alpha[t - 1, s], alpha[t - 1, s - 1]) if s > 0 else alpha[t - 1, s]
            if s > 1 and ext[s] != blank and ext[s] != ext[s - 2]:
                acc = _log_add(acc, alpha[t - 1, s - 2])
            if acc != _NEG_INF:
                alpha[t, s] = acc + logp[t, ext[s]]
    log_like = alpha[T - 1, S - 1]
    if S > 1:
        log_like = _log_add(log_like, alpha[T - 1, S - 2])
    # beta includes the emission at t, so alpha + beta - logp is the path mass through (t, s)
    beta = np.full(S, _NEG_INF)
    nxt = np.empty(S)
    mass = np.empty(A)
    for t in range(T - 1, -1, -1):
        if t == T - 1:
            beta[S - 1] = logp[t, ext[S - 1]]
            if S > 1:
                beta[S - 2] = logp[t, ext[S - 2]]
        else:
            for s in range(S):
                acc = beta[s]
                if s + 1 < S:
                    acc = _log_add(acc, beta[s + 1])
                if s + 2 < S and ext[s] != blank and ext[s] != ext[s + 2]:
                    acc = _log_add(acc, beta[s + 2])
                nxt[s] = acc + logp[t, ext[s]] if acc != _NEG_INF else _NEG_INF
            beta[:] = nxt
        mass[:] = _NEG_INF
        for s in range(S):
            if alpha[t, s] != _NEG_INF and beta[s] != _NEG_INF:
                mass[ext[s]] = _log_add(mass[ext[s]], alpha[t, s] + beta[s])
        for k in range(A):
            prob = np.exp(logp[t, k])
            if mass[k] == _NEG_INF or mass[k] == 0.0:
                grad[t, k] = prob
            else:
                grad[t, k] = prob - np.exp(mass[k] - logp[t, k] - log_like)
    return -log_like, True


def ctc_cost_and_grad(acts, labels, lengths, blank):
    """Per-sequence costs (batch,) and gradients (T, batch, A), both float64, for
    time-major ``acts``; ``labels`` is a list of int64 arrays (padding removed)."""
    max_len, batch, _ = acts.shape
    costs = np.zeros(batch)
    grads = np.zeros(acts.shape)
    for b in range(batch):
        length = int(lengths[b])
        seq = np.ascontiguousarray(acts[:length, b, :], dtype=np.float64)
        g = np.empty_like(seq)
        costs[b], _ = _ctc_sequence(seq, labels[b], blank, g)
        grads[:length, b, :] = g
    return costs, grads


@register
class CTCLoss(Operator):
    """CTC loss of ``label`` sequences under the activations ``data``.

    Inputs ``data`` (seq_len, batch, alphabet), ``label`` (batch, max_label_len) and,
    with ``use_data_lengths`` / ``use_label_lengths``, ``data_lengths`` / ``label_lengths``
    (batch,). Without label lengths a label ends at its first padding value (0 for
    ``blank_label='first'``, -1 for 'last'). Output: the loss per sequence (batch,).

    Examples
    --------
    >>> acts = mx.nd.zeros((2, 1, 3))                 # uniform over {blank, a, b}
    >>> mx.nd.CTCLoss(acts, mx.nd.array([[1]])).asnumpy()   # -log(3 paths / 9)
    array([1.0986123], dtype=float32)
    """
    name = 'CTCLoss'
    aliases = ('ctc_loss', '_contrib_CTCLoss', '_contrib_ctc_loss')
    params = (Param('use_data_lengths', parse_bool, False,
                    'Take the length of each sequence from the input data_lengths.'),
              Param('use_label_lengths', parse_bool, False,
                    'Take the length of each label from the input label_lengths.'),
              Param('blank_label', choice('first', 'last'), 'first',
                    "Which channel is the blank: 'first' (0) or 'last' (alphabet - 1)."))
    backward_uses_inputs = False

    def list_arguments(self):
        names = ['data', 'label']
        if self.use_data_lengths:
            names.append('data_lengths')
        if self.use_label_lengths:
            names.append('label_lengths')
        return names

    def list_outputs(self):
        return ['output', 'grad']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = [int_shape(s) for s in in_shapes]
        data, label = shapes[0], shapes[1]
        if data is None or label is None:
            return shapes, list(out_shapes), []
        if len(data) != 3:
            raise ShapeError('CTCLoss: data must have 3 dimensions (seq_len, batch, alphabet), '
                             'found shape %s' % (data,))
        if len(label) != 2:
            raise ShapeError('CTCLoss: label must have 2 dimensions (batch, label_len), '
                             'found shape %s' % (label,))
        if data[1] != label[0]:
            raise ShapeError('CTCLoss: the batch size of data %s and label %s differ'
                             % (data, label))
        if label[1] > data[0]:
            raise ShapeError('CTCLoss: the label length %d exceeds the sequence length %d'
                             % (label[1], data[0]))
        for i, what in enumerate(self.list_arguments()[2:], start=2):
            if shapes[i] is None:
                shapes[i] = (data[1],)
            elif shapes[i] != (data[1],):
                raise ShapeError('CTCLoss: %s must have shape (%d,) (the batch size), '
                                 'found %s' % (what, data[1], shapes[i]))
        return shapes, [(data[1],), data], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        types = [t if t is not None else dtype for t in in_types]
        return types, [dtype, dtype], []

    def _packed_labels(self, in_data, alphabet):
        label = in_data[1]
        batch = label.shape[0]
        as_int = np.trunc(label).astype(np.int64) if label.dtype.kind == 'f' \
            else label.astype(np.int64)
        if self.use_label_lengths:
            lengths = in_data[-1]
            lengths = (np.trunc(lengths) if lengths.dtype.kind == 'f' else lengths)
            lengths = lengths.astype(np.int64)
            if (lengths < 0).any() or (lengths > label.shape[1]).any():
                raise MXNetError('CTCLoss: label_lengths must lie in [0, %d], found %s'
                                 % (label.shape[1], lengths.tolist()))
        else:
            padding = 0 if self.blank_label == 'first' else -1
            lengths = np.empty(batch, np.int64)
            for b in range(batch):
                hits = np.nonzero(as_int[b] == padding)[0]
                lengths[b] = hits[0] if hits.size else label.shape[1]
        packed = [np.ascontiguousarray(as_int[b, :lengths[b]]) for b in range(batch)]
        blank = 0 if self.blank_label == 'first' else alphabet - 1
        for seq in packed:
            bad = (seq < 0) | (seq >= alphabet)
            if bad.any():
                raise MXNetError('CTCLoss: label value %d is outside the alphabet [0, %d)'
                                 % (seq[bad][0], alphabet))
        return packed, blank

    def _data_lengths(self, in_data, max_len, batch):
        if not self.use_data_lengths:
            return np.full(batch, max_len, np.int64)
        lengths = in_data[2]
        lengths = (np.trunc(lengths) if lengths.dtype.kind == 'f' else lengths).astype(np.int64)
        if (lengths < 0).any() or (lengths > max_len).any():
            raise MXNetError('CTCLoss: data_lengths must lie in [0, %d], found %s'
                             % (max_len, lengths.tolist()))
        return lengths

    def forward(self, is_train, req, in_data, out_data, aux):
        acts = in_data[0]
        max_len, batch, alphabet = acts.shape
        labels, blank = self._packed_labels(in_data, alphabet)
        lengths = self._data_lengths(in_data, max_len, batch)
        costs, grads = ctc_cost_and_grad(acts, labels, lengths, blank)
        if req[0] == 'write':
            out_data[0][...] = costs
        elif req[0] == 'add':
            out_data[0] += costs.astype(out_data[0].dtype)
        np.copyto(out_data[1], grads, casting='unsafe')

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for g, r in zip(in_grad[1:], req[1:]):
            zero_grad(g, r)
        if req[0] == 'null':
            return
        value = out_grad[0][None, :, None] * out_data[1]
        if req[0] == 'write':
            np.copyto(in_grad[0], value, casting='unsafe')
        else:
            in_grad[0] += value.astype(in_grad[0].dtype)
