"""One layer, one direction of the fused ``RNN`` operator (:mod:`symmod.ops.recurrent`):
the time loops of vanilla RNN, LSTM and GRU cells, forward and backward (BPTT), and the
forward of an LSTM with a projected state.

Each works on views the operator cuts from its flat parameters and reserve space:
the input-to-hidden products of all steps are one BLAS call, and only the
hidden-to-hidden product and the gate arithmetic run per step.
"""
import numba
import numpy as np

from .. import threads
from . import blas_numba
from .common import scratch
from .recurrent_back_loops import (gru_back_loop, gru_step_back32, lstm_back_loop,
                                   lstm_back_step)
from .recurrent_loops import (gru_loop, gru_step, lstm_loop, lstm_loop_into_gates, lstm_step,
                              ready)

__all__ = ['forward_direction', 'forward_projected_direction', 'backward_direction']


def _sigmoid_(a):
    """In-place logistic function, written through tanh so it never overflows and
    float32 stays float32."""
    a *= 0.5
    np.tanh(a, out=a)
    a *= 0.5
    a += 0.5


# the LSTM and GRU backward gate arithmetic of one time step, fused (one pass instead
# of ~15 numpy calls with temporaries); float32/float64 only, other dtypes take the numpy
# path.
_FUSED = (np.dtype(np.float32), np.dtype(np.float64))

# float32 time steps run whole in numba, tanh and the logistic function included
# (fast_math's vectorizing versions; numpy's float64 tanh is kept for float64): the
# kernels are in recurrent_loops.py (forward) and recurrent_back_loops.py (backward)
_F32 = np.dtype(np.float32)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _lstm_step_back(g, tc, c_before, dh, dc, d):
    """Gate gradients ``d`` (N, 4H) of one step from the activated gates ``g``,
    ``tc = tanh(c)``, the hidden-state gradient ``dh`` and the running cell-state
    gradient ``dc`` (updated in place to the previous step)."""
    n_rows, width = g.shape
    hidden = width // 4
    for n in range(n_rows):
        for j in range(hidden):
            i = g[n, j]
            f = g[n, hidden + j]
            cand = g[n, 2 * hidden + j]
            o = g[n, 3 * hidden + j]
            tcv = tc[n, j]
            dhv = dh[n, j]
            dcv = dc[n, j] + dhv * o * (1.0 - tcv * tcv)
            d[n, j] = dcv * cand * i * (1.0 - i)
            d[n, hidden + j] = dcv * c_before[n, j] * f * (1.0 - f)
            d[n, 2 * hidden + j] = dcv * i * (1.0 - cand * cand)
            d[n, 3 * hidden + j] = dhv * tcv * o * (1.0 - o)
            dc[n, j] = dcv * f


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _gru_step_back(g, hn, h_prev, dh, dxg, dhg):
    """Gradients of one GRU step's input-side (``dxg``) and hidden-side (``dhg``) gate
    pre-activations (N, 3H; r, z, n) from ``dh``, which becomes the part of the previous
    state's gradient that flows through ``z`` (the hidden-side product is added after)."""
    n_rows, width = g.shape
    hidden = width // 3
    for n in range(n_rows):
        for j in range(hidden):
            r = g[n, j]
            z = g[n, hidden + j]
            new = g[n, 2 * hidden + j]
            dhv = dh[n, j]
            dn = dhv * (1.0 - z) * (1.0 - new * new)
            dr = dn * hn[n, j] * r * (1.0 - r)
            dz = dhv * (h_prev[n, j] - new) * z * (1.0 - z)
            dxg[n, j] = dr
            dxg[n, hidden + j] = dz
            dxg[n, 2 * hidden + j] = dn
            dhg[n, j] = dr
            dhg[n, hidden + j] = dz
            dhg[n, 2 * hidden + j] = dn * r
            dh[n, j] = dhv * z


def forward_direction(mode, x, wx, wh, bx, bh, h0, c0, reverse, y, gates, extra):
    """Run one direction of one layer over the sequence ``x`` (T, N, I).

    Writes the hidden states into ``y`` (T, N, H; a view into the layer output), the
    gate activations into ``gates`` and cell states (lstm) or ``W_hn h + b_hn`` (gru)
    into ``extra``. Returns the final hidden and cell state.
    """
    if mode in ('lstm', 'gru') and all(
            a.dtype == _F32 for a in (x, wx, wh, bx, bh, h0, y, gates, extra)
            + ((c0,) if mode == 'lstm' else ())):
        return _forward_loop(mode, x, wx, wh, bx, bh, h0, c0, reverse, y, gates, extra)
    T, N, _ = x.shape
    H = wh.shape[1]
    GH = wx.shape[0]
    pre = scratch('rnn_pre', (T, N, GH), x.dtype)
    np.matmul(x.reshape(T * N, -1), wx.T, out=pre.reshape(T * N, GH))
    if mode == 'gru':
        pre += bx
    else:
        pre += bx + bh
    hh = scratch('rnn_hh', (N, GH), x.dtype)
    h_prev, c_prev = h0, c0
    for step in range(T):
        t = T - 1 - step if reverse else step
        np.matmul(h_prev, wh.T, out=hh)
        h = y[t]
        if mode == 'lstm':
            g = gates[t]
            np.add(pre[t], hh, out=g)
            _sigmoid_(g[:, :2 * H])
            np.tanh(g[:, 2 * H:3 * H], out=g[:, 2 * H:3 * H])
            _sigmoid_(g[:, 3 * H:])
            c = extra[t]
            np.multiply(g[:, H:2 * H], c_prev, out=c)
            c += g[:, :H] * g[:, 2 * H:3 * H]
            np.tanh(c, out=h)
            h *= g[:, 3 * H:]
            c_prev = c
        elif mode == 'gru':
            g = gates[t]
            hh += bh
            np.add(pre[t, :, :2 * H], hh[:, :2 * H], out=g[:, :2 * H])
            _sigmoid_(g[:, :2 * H])
            extra[t] = hh[:, 2 * H:]
            n = g[:, 2 * H:]
            np.multiply(g[:, :H], hh[:, 2 * H:], out=n)
            n += pre[t, :, 2 * H:]
            np.tanh(n, out=n)
            # h = (1 - z) * n + z * h_prev
            np.subtract(h_prev, n, out=h)
            h *= g[:, H:2 * H]
            h += n
        else:
            np.add(pre[t], hh, out=h)
            if mode == 'rnn_tanh':
                np.tanh(h, out=h)
            else:
                np.maximum(h, 0, out=h)
        h_prev = h
    return h_prev, c_prev


# batches up to this size run the whole time loop in numba (its np.dot calls scipy's
# BLAS, which is faster than numpy's for one sample: 6.3 vs 8.4 us); larger LSTM ones
# too, through numpy's own sgemm (blas_numba: ~20% faster than scipy's at N=32, H=200,
# 113 vs 143 us, and another 20% split into small-kernel blocks), and the others loop in
# Python around numpy's products (np.matmul), or wherever numpy's sgemm is not at hand
_NUMBA_LOOP_MAX_BATCH = 4


def _step_blocks():
    """How the time loops split each step's product: :data:`blas_numba.SMALL` while BLAS
    runs at one thread; 0 (whole products) when it has more. The small-matrix kernels
    run on one thread: at two free cores the 32x200 by 200x800 step product takes 63 us
    whole, against 90 us in blocks at one thread and 111 whole at one thread."""
    return blas_numba.SMALL if threads.info()['blas'] == 1 else 0


def _forward_loop(mode, x, wx, wh, bx, bh, h0, c0, reverse, y, gates, extra):
    """float32 LSTM/GRU: the input products in one BLAS call, then each time step as one
    product and one fused numba pass (:mod:`symmod.ops.recurrent_loops`)."""
    T, N, _ = x.shape
    H = wh.shape[1]
    GH = wx.shape[0]
    if mode == 'lstm' and N > _NUMBA_LOOP_MAX_BATCH and blas_numba.AVAILABLE:
        # the input products straight into the gates, to which each step's recurrent
        # product is added: no separate pre-activation and product buffers to read
        np.matmul(x.reshape(T * N, -1), wx.T, out=gates.reshape(T * N, GH))
        wh_t = scratch('rnn_wht', (H, GH), x.dtype)
        blas_numba.transpose_into(wh, wh_t)
        return lstm_loop_into_gates(gates, bx + bh, wh_t, np.ascontiguousarray(h0),
                                    np.ascontiguousarray(c0), reverse, y, extra,
                                    _step_blocks())
    pre = scratch('rnn_pre', (T, N, GH), x.dtype)
    np.matmul(x.reshape(T * N, -1), wx.T, out=pre.reshape(T * N, GH))
    # a contiguous W_h^T: BLAS multiplies the small per-step product by it ~1.5x faster
    # than through the transposed view; for one sample (a matrix-vector product) the view
    # is about as fast, and cheaper than the copy
    if N == 1:
        wh_t = wh.T
    else:
        wh_t = scratch('rnn_wht', (H, GH), x.dtype)
        blas_numba.transpose_into(wh, wh_t)
    hh = scratch('rnn_hh', (N, GH), x.dtype)
    bias = bx + bh if mode == 'lstm' else None
    # the hidden state fed back lives in two alternating contiguous buffers besides y:
    # written to the same array as y[t], the step kernel's loops could not be vectorized
    # (LLVM's runtime overlap check fails; 64 instead of 23 us a step at N=32, H=200)
    h_even = scratch('rnn_h_even', (N, H), x.dtype)
    h_odd = scratch('rnn_h_odd', (N, H), x.dtype)
    h0 = np.ascontiguousarray(h0)
    if N <= _NUMBA_LOOP_MAX_BATCH:
        ready()
        if mode == 'lstm':
            return lstm_loop(pre, bias, wh_t, h0, np.ascontiguousarray(c0), reverse, y,
                             gates, extra, hh, h_even, h_odd)
        return gru_loop(pre, bx, bh, wh_t, h0, reverse, y, gates, extra, hh, h_even,
                        h_odd), None
    if mode == 'gru' and blas_numba.AVAILABLE:
        return gru_loop(pre, bx, bh, wh_t, h0, reverse, y, gates, extra, hh, h_even,
                        h_odd, _step_blocks()), None
    h_prev, c_prev = h0, c0
    for step in range(T):
        t = T - 1 - step if reverse else step
        np.matmul(h_prev, wh_t, out=hh)
        h = h_even if step % 2 == 0 else h_odd
        if mode == 'lstm':
            lstm_step(pre[t], hh, bias, gates[t], c_prev, extra[t], h, y[t])
            c_prev = extra[t]
        else:
            gru_step(pre[t], hh, bx, bh, gates[t], extra[t], h_prev, h, y[t])
        h_prev = h
    return h_prev, c_prev


def forward_projected_direction(x, wx, wh, whr, bx, bh, r0, c0, reverse, y):
    """One direction of a projected LSTM layer (inference): like the plain LSTM, but
    the state fed back and written out is ``r = W_hr h`` (P values, not H)."""
    T, N, _ = x.shape
    H = whr.shape[1]
    pre = np.matmul(x.reshape(T * N, -1), wx.T).reshape(T, N, 4 * H)
    pre += bx + bh
    r_prev, c_prev = r0, c0
    for step in range(T):
        t = T - 1 - step if reverse else step
        g = pre[t] + r_prev @ wh.T
        _sigmoid_(g[:, :2 * H])
        np.tanh(g[:, 2 * H:3 * H], out=g[:, 2 * H:3 * H])
        _sigmoid_(g[:, 3 * H:])
        c_prev = g[:, H:2 * H] * c_prev + g[:, :H] * g[:, 2 * H:3 * H]
        h = g[:, 3 * H:] * np.tanh(c_prev)
        y[t] = h @ whr.T
        r_prev = y[t]
    return r_prev, c_prev


def _entering_states(y, h0, reverse, shape, dtype):
    """The hidden state entering each time step, in time order: ``h0`` then the
    direction's outputs ``y`` shifted by one step (a scratch array of ``shape``)."""
    T = shape[0]
    h_prev = scratch('rnn_h_prev', shape, dtype)
    if reverse:
        h_prev[:T - 1] = y[1:]
        h_prev[T - 1] = h0
    else:
        h_prev[0] = h0
        h_prev[1:] = y[:T - 1]
    return h_prev


def backward_direction(mode, x, wx, wh, h0, c0, reverse, y, gates, extra, dy, dhy, dcy,
                        dx, grads, dx_req='add'):
    """Back-propagate through one direction of one layer (BPTT).

    ``dy`` is the gradient of this direction's outputs; ``dx`` (or None) receives the
    gradient of the layer input, written or added as ``dx_req`` says, and ``grads``
    (or None) holds views of the weight/bias gradients, which are written (each
    belongs to this direction alone). Returns the gradients of the initial hidden and
    cell states.
    """
    T, N, _ = x.shape
    H = wh.shape[1]
    GH = wx.shape[0]
    dtype = x.dtype
    if mode in ('lstm', 'gru') and dtype == _F32 and blas_numba.AVAILABLE:
        return _backward_loop(mode, x, wx, wh, h0, c0, reverse, y, gates, extra, dy, dhy,
                              dcy, dx, grads, dx_req)
    dgx = scratch('rnn_dgx', (T, N, GH), dtype)
    dgh = scratch('rnn_dgh', (T, N, GH), dtype) if mode == 'gru' else dgx
    dh = np.zeros((N, H), dtype) if dhy is None else dhy.copy()
    dc = None
    if mode == 'lstm':
        dc = np.zeros((N, H), dtype) if dcy is None else dcy.copy()
    h_prev = _entering_states(y, h0, reverse, (T, N, H), dtype)
    db_unused = scratch('rnn_db', (GH,), dtype)     # the bias sums come after the loop
    for step in range(T):
        t = step if reverse else T - 1 - step
        if mode == 'lstm':
            g = gates[t]
            c = extra[t]
            if reverse:
                c_before = extra[t + 1] if t < T - 1 else c0
            else:
                c_before = extra[t - 1] if t > 0 else c0
            if dtype == _F32:       # adds dy[t] to dh itself
                lstm_back_step(g, c, c_before, dy[t], dh, dc, dgx[t], db_unused)
                np.matmul(dgx[t], wh, out=dh)
                continue
            dh += dy[t]
            tc = np.tanh(c, out=scratch('rnn_tc', c.shape, dtype))
            if dtype in _FUSED:
                _lstm_step_back(g, tc, c_before, dh, dc, dgx[t])
                np.matmul(dgx[t], wh, out=dh)
                continue
            i, f, gg, o = g[:, :H], g[:, H:2 * H], g[:, 2 * H:3 * H], g[:, 3 * H:]
            d = dgx[t]
            np.multiply(dh, tc, out=d[:, 3 * H:])
            d[:, 3 * H:] *= o * (1 - o)
            dc += dh * o * (1 - tc * tc)
            np.multiply(dc, gg, out=d[:, :H])
            d[:, :H] *= i * (1 - i)
            np.multiply(dc, c_before, out=d[:, H:2 * H])
            d[:, H:2 * H] *= f * (1 - f)
            np.multiply(dc, i, out=d[:, 2 * H:3 * H])
            d[:, 2 * H:3 * H] *= 1 - gg * gg
            dc *= f
            np.matmul(d, wh, out=dh)
        elif mode == 'gru':
            dh += dy[t]
            g = gates[t]
            hn = extra[t]
            dxg, dhg = dgx[t], dgh[t]
            if dtype == _F32:
                gru_step_back32(g, hn, h_prev[t], dh, dxg, dhg)
                dh += np.matmul(dhg, wh, out=scratch('rnn_dhh', dh.shape, dtype))
                continue
            if dtype in _FUSED:
                _gru_step_back(g, hn, h_prev[t], dh, dxg, dhg)
                dh += np.matmul(dhg, wh, out=scratch('rnn_dhh', dh.shape, dtype))
                continue
            r, z, n = g[:, :H], g[:, H:2 * H], g[:, 2 * H:]
            # dn through tanh, into the i2h n part
            np.multiply(dh, 1 - z, out=dxg[:, 2 * H:])
            dxg[:, 2 * H:] *= 1 - n * n
            np.multiply(dxg[:, 2 * H:], r, out=dhg[:, 2 * H:])
            np.multiply(dxg[:, 2 * H:], hn, out=dxg[:, :H])
            dxg[:, :H] *= r * (1 - r)
            np.multiply(dh, h_prev[t] - n, out=dxg[:, H:2 * H])
            dxg[:, H:2 * H] *= z * (1 - z)
            dhg[:, :2 * H] = dxg[:, :2 * H]
            dh *= z
            dh += dhg @ wh
        else:
            dh += dy[t]
            d = dgx[t]
            if mode == 'rnn_tanh':
                np.multiply(dh, 1 - y[t] * y[t], out=d)
            else:
                np.multiply(dh, y[t] > 0, out=d)
            np.matmul(d, wh, out=dh)
    flat_x = x.reshape(T * N, -1)
    flat_dgx = dgx.reshape(T * N, GH)
    flat_dgh = dgh.reshape(T * N, GH)
    if grads is not None:
        # the products straight into the gradient arrays: no temporaries to allocate
        # and add
        dwx, dwh, dbx, dbh = grads
        np.matmul(flat_dgx.T, flat_x, out=dwx)
        np.matmul(flat_dgh.T, h_prev.reshape(T * N, H), out=dwh)
        np.add.reduce(flat_dgx, axis=0, out=dbx)
        if dgh is dgx:      # one gate gradient for both biases: sum it once
            np.copyto(dbh, dbx)
        else:
            np.add.reduce(flat_dgh, axis=0, out=dbh)
    if dx is not None:
        flat_dx = dx.reshape(T * N, -1)
        if dx_req == 'write':
            np.matmul(flat_dgx, wx, out=flat_dx)
        else:
            flat_dx += np.matmul(flat_dgx, wx, out=scratch('rnn_dx_part', flat_dx.shape,
                                                           dtype))
    return dh, dc


def _backward_loop(mode, x, wx, wh, h0, c0, reverse, y, gates, extra, dy, dhy, dcy, dx,
                   grads, dx_req):
    """float32 LSTM and GRU :func:`backward_direction`: the time loop whole in numba
    (:mod:`symmod.ops.recurrent_back_loops`), then the weight and input gradients as one
    product each over all steps."""
    T, N, _ = x.shape
    H = wh.shape[1]
    GH = wx.shape[0]
    dtype = x.dtype
    dgx = scratch('rnn_dgx', (T, N, GH), dtype)
    dh = np.zeros((N, H), dtype) if dhy is None else np.array(dhy, dtype, order='C')
    want = grads is not None
    dwx, dwh, dbx, dbh = grads if want else (None, None, scratch('rnn_db', (GH,), dtype),
                                             None)
    # the state entering each time step, in time order (GRU steps and dW_h read it)
    h_prev = None
    if want or mode == 'gru':
        h_prev = _entering_states(y, h0, reverse, (T, N, H), dtype)
    dc = None
    if mode == 'lstm':
        dgh = dgx
        dc = np.zeros((N, H), dtype) if dcy is None else np.array(dcy, dtype, order='C')
        lstm_back_loop(gates, extra, np.ascontiguousarray(c0), wh, reverse, dy, dh, dc,
                       dgx, dbx, _step_blocks())
        if want:
            np.copyto(dbh, dbx)
    else:
        dgh = scratch('rnn_dgh', (T, N, GH), dtype)
        gru_back_loop(gates, extra, h_prev, wh, reverse, dy, dh, dgx, dgh, _step_blocks())
        if want:
            np.add.reduce(dgx.reshape(T * N, GH), axis=0, out=dbx)
            np.add.reduce(dgh.reshape(T * N, GH), axis=0, out=dbh)
    flat_dgx = dgx.reshape(T * N, GH)
    if want:
        np.matmul(flat_dgx.T, x.reshape(T * N, -1), out=dwx)
        np.matmul(dgh.reshape(T * N, GH).T, h_prev.reshape(T * N, H), out=dwh)
    if dx is not None:
        flat_dx = dx.reshape(T * N, -1)
        if dx_req == 'write':
            np.matmul(flat_dgx, wx, out=flat_dx)
        else:
            blas_numba.gemm_into(flat_dgx, wx, flat_dx, beta=1.0)
    return dh, dc
