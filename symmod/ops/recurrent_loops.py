"""The float32 forward time loops of the fused ``RNN`` operator's LSTM and GRU layers,
whole in numba.

A time step is one small matrix product (``h_prev @ W_h^T``) and one pass over the
gates. Driven from Python, each step also paid for a BLAS call through numpy, two numba
dispatches and four array slicings (~5 us), which at batch 1 cost about as much as the
arithmetic. Here the loop runs in numba: the product goes to BLAS through numba's
``np.dot`` (scipy's BLAS), and the gates, the bias, the cell/state update and the copy
into the layer output are one fused pass per step (the bias is no longer a separate pass
over the whole pre-activation array). The step kernels also serve the Python loop that
larger batches use (:mod:`symmod.ops.recurrent_kernels`). Larger LSTM batches run
:func:`lstm_loop_into_gates`: numpy's own ``sgemm`` (:mod:`symmod.ops.blas_numba`) adds
each step's product to the gates, which already hold the input products, and the step
pass activates them in place while they are in cache; larger GRU batches run
:func:`gru_loop` on numpy's ``sgemm``.

The loops write exactly what :func:`symmod.ops.recurrent_kernels.forward_direction`
writes (gate activations, cell states or ``W_hn h + b_hn``, hidden states), so the
backward pass reads them unchanged.
"""
import numba
import numpy as np

from .. import threads
from .blas_numba import gemm_blocked
from .fast_math import FLAGS, tanh

__all__ = ['lstm_step', 'lstm_loop', 'lstm_cell', 'lstm_loop_into_gates', 'gru_step',
           'gru_loop', 'ready']

_jit = dict(cache=True, nogil=True, fastmath=FLAGS, error_model='numpy')
_HALF = np.float32(0.5)
_ONE = np.float32(1)


@numba.njit(**_jit)
def lstm_step(pre, hh, bias, g, c_prev, c, h, y):
    """One LSTM step for every sample: gates ``g`` from ``pre + hh + bias`` (logistic
    for i, f, o, tanh for the candidate), then ``c = f * c_prev + i * cand`` and
    ``h = o * tanh(c)``, written to ``h`` and ``y``."""
    hidden = c.shape[1]
    for n in range(g.shape[0]):
        p, q, out = pre[n], hh[n], g[n]
        # one loop over all four gates (a select per element) vectorizes better than
        # three loops over the gate blocks: 17 vs 26 us at N=32, H=200
        for j in range(4 * hidden):
            v = p[j] + q[j] + bias[j]
            logistic = j < 2 * hidden or j >= 3 * hidden
            t = tanh(v * _HALF if logistic else v)
            out[j] = (t + _ONE) * _HALF if logistic else t
        cp, cr, hr, yr = c_prev[n], c[n], h[n], y[n]
        for j in range(hidden):
            cv = out[hidden + j] * cp[j] + out[j] * out[2 * hidden + j]
            cr[j] = cv
            hv = out[3 * hidden + j] * tanh(cv)
            hr[j] = hv
            yr[j] = hv


@numba.njit(**_jit)
def lstm_loop(pre, bias, wh_t, h0, c0, reverse, y, gates, cells, hh, h_even, h_odd):
    """Run an LSTM direction over the sequence.

    ``pre`` (T, N, 4H) holds ``x W_x^T`` without bias, ``bias`` is ``b_x + b_h``;
    ``wh_t`` (H, 4H), ``h0``, ``hh`` (N, 4H), ``h_even`` and ``h_odd`` (N, H) are
    C-contiguous (BLAS operands and the alternating hidden state). Writes ``y[t]``,
    ``gates[t]`` and ``cells[t]``; returns the last hidden and cell states.
    """
    steps = pre.shape[0]
    h_prev = h0
    c_prev = c0
    for step in range(steps):
        t = steps - 1 - step if reverse else step
        np.dot(h_prev, wh_t, hh)
        h = h_even if step % 2 == 0 else h_odd
        lstm_step(pre[t], hh, bias, gates[t], c_prev, cells[t], h, y[t])
        h_prev = h
        c_prev = cells[t]
    return h_prev, c_prev


@numba.njit(**_jit)
def lstm_cell(g, bias, c_prev, c, y):
    """One LSTM step on gates ``g`` that already hold ``x W_x^T + h_prev W_h^T``:
    adds ``bias`` and activates them in place, then writes ``c = f * c_prev + i * cand``
    into ``c`` and ``h = o * tanh(c)`` into ``y``."""
    hidden = c.shape[1]
    for n in range(g.shape[0]):
        out = g[n]
        for j in range(4 * hidden):
            v = out[j] + bias[j]
            logistic = j < 2 * hidden or j >= 3 * hidden
            t = tanh(v * _HALF if logistic else v)
            out[j] = (t + _ONE) * _HALF if logistic else t
        cp, cr, yr = c_prev[n], c[n], y[n]
        for j in range(hidden):
            cv = out[hidden + j] * cp[j] + out[j] * out[2 * hidden + j]
            cr[j] = cv
            yr[j] = out[3 * hidden + j] * tanh(cv)


@numba.njit(**_jit)
def lstm_loop_into_gates(gates, bias, wh_t, h0, c0, reverse, y, cells, small):
    """Run an LSTM direction over the sequence, each step's recurrent product added
    by numpy's ``sgemm`` (:mod:`symmod.ops.blas_numba`) straight into the gates.

    ``gates`` (T, N, 4H) holds ``x W_x^T`` on entry and the activated gates on return;
    ``wh_t`` is a C-contiguous W_h^T (H, 4H); ``bias`` is ``b_x + b_h``. The hidden
    state fed back is read from ``y`` (its rows may be strided, as in a bidirectional
    layer's output). ``small`` is :data:`symmod.ops.blas_numba.SMALL`. Writes ``y[t]``
    and ``cells[t]``; returns the last hidden and cell states.
    """
    steps = gates.shape[0]
    h_prev = h0
    c_prev = c0
    for step in range(steps):
        t = steps - 1 - step if reverse else step
        g = gates[t]
        gemm_blocked(h_prev, wh_t, g, 1.0, small)
        lstm_cell(g, bias, c_prev, cells[t], y[t])
        h_prev = y[t]
        c_prev = cells[t]
    return h_prev, c_prev


@numba.njit(**_jit)
def gru_step(pre, hh, bx, bh, g, hn, h_prev, h, y):
    """One GRU step: r, z (logistic), ``hn = W_hn h + b_hn``,
    ``cand = tanh(pre_n + b_xn + r * hn)`` into ``g`` and ``hn``, then
    ``h = (1 - z) * cand + z * h_prev`` into ``h`` and ``y``."""
    hidden = hn.shape[1]
    cut = 2 * hidden
    bx_n, bh_n = bx[cut:], bh[cut:]
    for n in range(g.shape[0]):
        p, q, out = pre[n], hh[n], g[n]
        for j in range(cut):
            v = p[j] + bx[j] + q[j] + bh[j]
            out[j] = (tanh(v * _HALF) + _ONE) * _HALF
        # separate views of the gate blocks: indexing one row at two offsets (read r at
        # j, write cand at 2H + j) defeats LLVM's overlap check, and the loop ran scalar
        # (42 instead of 5 us at N=32, H=200)
        r, z, cand = out[:hidden], out[hidden:cut], out[cut:]
        p_n, q_n, hrow = p[cut:], q[cut:], hn[n]
        for j in range(hidden):
            v = q_n[j] + bh_n[j]
            hrow[j] = v
            cand[j] = tanh(p_n[j] + bx_n[j] + r[j] * v)
        hp, hr, yr = h_prev[n], h[n], y[n]
        for j in range(hidden):
            hv = (hp[j] - cand[j]) * z[j] + cand[j]
            hr[j] = hv
            yr[j] = hv


@numba.njit(**_jit)
def gru_loop(pre, bx, bh, wh_t, h0, reverse, y, gates, extra, hh, h_even, h_odd,
             small=-1):
    """Run a GRU direction over the sequence (arguments as :func:`lstm_loop`; ``pre``
    holds ``x W_x^T`` without bias, ``extra[t]`` receives ``W_hn h + b_hn``). Returns
    the last hidden state. The step products go to numba's ``np.dot`` (scipy's BLAS),
    or with ``small`` >= 0 (:data:`symmod.ops.blas_numba.SMALL`) to numpy's ``sgemm``
    in blocks."""
    steps = pre.shape[0]
    h_prev = h0
    for step in range(steps):
        t = steps - 1 - step if reverse else step
        if small >= 0:
            gemm_blocked(h_prev, wh_t, hh, 0.0, small)
        else:
            np.dot(h_prev, wh_t, hh)
        h = h_even if step % 2 == 0 else h_odd
        gru_step(pre[t], hh, bx, bh, gates[t], extra[t], h_prev, h, y[t])
        h_prev = h
    return h_prev


_READY = []


def ready():
    """Load the BLAS that numba's ``np.dot`` calls (scipy's) and put it under symmod's
    thread budget. Its OpenBLAS has its own threads, which would otherwise run at their
    default width and spin on a busy machine. Returns True."""
    if not _READY:
        import scipy.linalg.cython_blas  # noqa: F401  (what numba binds np.dot to)
        threads.adopt_blas_libraries()
        _READY.append(True)
    return True
