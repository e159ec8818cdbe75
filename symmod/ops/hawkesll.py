"""``_contrib_hawkesll``: log likelihood of marked self-exciting (Hawkes) processes.

Each of N sequences holds up to T events (inter-arrival times ``lags``, process ids
``marks``, the first ``valid_length`` of them valid) of K processes observed on
``[0, max_time]``. Process k has background intensity ``lda[n, k]``, branching ratio
``alpha[k]`` and exponential decay ``beta[k]``; its state decays by
``exp(-beta * elapsed)`` and grows by 1 at each of its events. The operator returns the
log likelihood per sequence and the states at ``max_time`` (to continue a sequence).

As in MXNet 1.9.1 the gradient is that of the log likelihood (the state output's
gradient is not propagated) and the observations (lags, marks, valid_length, max_time)
take no gradient: they must be bound with grad_req 'null'. Unlike MXNet, which leaves
it unwritten, the gradient of the initial ``state`` is computed.
"""
import math

import numba
import numpy as np

from ..base import MXNetError
from .common import int_shape, store_from
from .registry import Operator, ShapeError, register

__all__ = []

_OBSERVED = ('lags', 'marks', 'valid_length', 'max_time')


@numba.njit(cache=True, nogil=True)
def _forward(mu, alpha, beta, state, lags, marks, valid_length, max_time, ll, out_state):
    n_seq, n_proc = mu.shape
    last = np.zeros(n_proc, dtype=mu.dtype)
    for i in range(n_seq):
        last[:] = 0
        out_state[i] = state[i]
        t = 0.0
        acc = 0.0
        j = 0
        while j < valid_length[i]:
            c = marks[i, j]
            t += lags[i, j]
            d = t - last[c]
            ed = math.exp(-beta[c] * d)
            phi = out_state[i, c]
            lda = mu[i, c] + alpha[c] * beta[c] * phi * ed
            acc += math.log(lda) - (mu[i, c] * d + alpha[c] * phi * (1 - ed))
            out_state[i, c] = 1 + phi * ed
            last[c] = t
            j += 1
        rest = 0.0
        for m in range(n_proc):     # the compensator from each last event to max_time
            d = max_time[i] - last[m]
            ed = math.exp(-beta[m] * d)
            rest += mu[i, m] * d + alpha[m] * out_state[i, m] * (1 - ed)
            out_state[i, m] *= ed
        ll[i] = acc - rest


@numba.njit(cache=True, nogil=True)
def _backward(out_grad, mu, alpha, beta, state, lags, marks, valid_length, max_time,
              g_mu, g_alpha, g_beta, g_state):
    n_seq, n_proc = mu.shape
    last = np.zeros(n_proc, dtype=mu.dtype)
    phi = np.zeros(n_proc, dtype=mu.dtype)      # the states
    dphi = np.zeros(n_proc, dtype=mu.dtype)     # their derivatives in beta
    decay = np.zeros(n_proc, dtype=mu.dtype)    # their derivatives in the initial state
    ga = np.zeros(n_proc, dtype=mu.dtype)
    gb = np.zeros(n_proc, dtype=mu.dtype)
    gs = np.zeros(n_proc, dtype=mu.dtype)
    g_alpha[:] = 0
    g_beta[:] = 0
    for i in range(n_seq):
        last[:] = 0
        phi[:] = state[i]
        dphi[:] = 0
        decay[:] = 1
        g_mu[i] = 0
        ga[:] = 0
        gb[:] = 0
        gs[:] = 0
        t = 0.0
        j = 0
        while j < valid_length[i]:
            c = marks[i, j]
            t += lags[i, j]
            d = t - last[c]
            ed = math.exp(-beta[c] * d)
            lda = mu[i, c] + alpha[c] * beta[c] * phi[c] * ed
            g_mu[i, c] += 1 / lda - d
            ga[c] += beta[c] * phi[c] * ed / lda - phi[c] * (1 - ed)
            gb[c] += (alpha[c] * ed * (phi[c] * (1 - beta[c] * d) + beta[c] * dphi[c]) / lda
                      - alpha[c] * (dphi[c] * (1 - ed) + phi[c] * d * ed))
            gs[c] += decay[c] * alpha[c] * (beta[c] * ed / lda - (1 - ed))
            dphi[c] = ed * (dphi[c] - d * phi[c])
            phi[c] = 1 + phi[c] * ed
            decay[c] *= ed
            last[c] = t
            j += 1
        for m in range(n_proc):
            d = max_time[i] - last[m]
            ed = math.exp(-beta[m] * d)
            g_mu[i, m] = out_grad[i] * (g_mu[i, m] - d)
            g_alpha[m] += out_grad[i] * (ga[m] - phi[m] * (1 - ed))
            g_beta[m] += out_grad[i] * (gb[m] - alpha[m] * (dphi[m] * (1 - ed)
                                                           + phi[m] * d * ed))
            g_state[i, m] = out_grad[i] * (gs[m] - decay[m] * alpha[m] * (1 - ed))


@register
class hawkesll(Operator):
    """Log likelihood of N marked Hawkes process sequences with exponential kernels.

    Inputs: ``lda`` (N, K) background intensities, ``alpha`` (K,) branching ratios,
    ``beta`` (K,) decay rates, ``state`` (N, K) initial states, ``lags`` (N, T)
    inter-arrival times, ``marks`` (N, T) int32 process ids, ``valid_length`` (N,)
    events per sequence, ``max_time`` (N,) observation ends. Outputs: the log
    likelihood (N,) and the states at ``max_time`` (N, K).
    """
    name = '_contrib_hawkesll'
    params = ()
    backward_uses_outputs = False

    def list_arguments(self):
        return ['lda', 'alpha', 'beta', 'state', 'lags', 'marks', 'valid_length', 'max_time']

    def list_outputs(self):
        return ['output', 'out_state']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = [int_shape(s) for s in in_shapes]
        names = self.list_arguments()
        if any(s is None for s in shapes):
            return shapes, list(out_shapes), []
        ndims = (2, 1, 1, 2, 2, 2, 1, 1)
        for name, shape, ndim in zip(names, shapes, ndims):
            if len(shape) != ndim:
                raise ShapeError('hawkesll: %s must have %d dimensions, found shape %s'
                                 % (name, ndim, shape))
        n, t = shapes[4]
        k = shapes[0][1]
        expected = ((n, k), (k,), (k,), (n, k), (n, t), (n, t), (n,), (n,))
        for name, shape, want in zip(names, shapes, expected):
            if 0 not in shape and shape != want:
                raise ShapeError('hawkesll: %s has shape %s, expected %s (N=%d sequences, '
                                 'T=%d events, K=%d processes)' % (name, shape, want, n, t, k))
        return list(expected), [(n,), (n, k)], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        if dtype is None:
            return list(in_types), list(out_types), []
        types = [dtype] * 8
        types[5] = np.dtype(np.int32)
        for name, given, want in zip(self.list_arguments(), in_types, types):
            if given is not None and np.dtype(given) != want:
                raise MXNetError('hawkesll: %s must be %s, found %s'
                                 % (name, np.dtype(want).name, np.dtype(given).name))
        return types, [dtype, dtype], []

    @staticmethod
    def _check_events(in_data):
        """The kernels index the states by mark: refuse marks outside [0, K) and more
        valid events than T before they run."""
        n_proc = in_data[0].shape[1]
        lags, marks, valid = in_data[4], in_data[5], in_data[6]
        if valid.size and (valid.max() > lags.shape[1] or valid.min() < 0):
            raise MXNetError('hawkesll: valid_length must be in [0, %d], found %s'
                             % (lags.shape[1], valid))
        used = np.arange(marks.shape[1])[None, :] < valid[:, None]
        bad = used & ((marks < 0) | (marks >= n_proc))
        if bad.any():
            raise MXNetError('hawkesll: marks must be process ids in [0, %d), found %s'
                             % (n_proc, np.unique(marks[bad])))

    def forward(self, is_train, req, in_data, out_data, aux):
        self._check_events(in_data)
        ll = np.empty(out_data[0].shape, out_data[0].dtype)
        states = np.empty(out_data[1].shape, out_data[1].dtype)
        _forward(*[np.ascontiguousarray(a) for a in in_data], ll, states)
        store_from(out_data[0], req[0], ll)
        store_from(out_data[1], req[1], states)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for name, r in zip(self.list_arguments()[4:], req[4:]):
            if r != 'null':
                raise MXNetError("hawkesll: %s is an observation without a gradient; bind it "
                                 "with grad_req 'null' (found %r)" % (name, r))
        grads = [np.empty(a.shape, a.dtype) for a in in_data[:4]]
        _backward(np.ascontiguousarray(out_grad[0]),
                  *[np.ascontiguousarray(a) for a in in_data], *grads)
        for dst, r, grad in zip(in_grad[:4], req[:4], grads):
            store_from(dst, r, grad)
