"""The float32 backward time loops (BPTT) of the fused ``RNN`` operator's LSTM and GRU
layers, whole in numba.

A backward step is one pass over the gates (the gate gradients from the hidden- and
cell-state gradients) and one small product (``dgates @ W_h``, the hidden-state
gradient of the step before). Driven from Python, each step paid for a numba dispatch,
a BLAS call through numpy, array slicing and a separate add of the output gradient
(~6 us a step at N=32, H=200); here the LSTM's step pass also adds the output gradient
and sums the bias gradient, and the product goes to numpy's ``sgemm``
(:mod:`symmod.ops.blas_numba`). The step passes also serve the Python loops used where
numpy's ``sgemm`` is not at hand (:mod:`symmod.ops.recurrent_kernels`).

Each pass loops once per array it writes: a loop writing several arrays (or one row at
several offsets) needs more runtime overlap checks than LLVM allows, and then runs
scalar (at N=32, H=200 the LSTM step took 15 us, the GRU step 31 us, as one loop).
"""
import numba

from .blas_numba import gemm_blocked
from .fast_math import FLAGS, tanh

__all__ = ['lstm_back_step', 'lstm_back_loop', 'gru_step_back32', 'gru_back_loop']

_jit = dict(cache=True, nogil=True, fastmath=FLAGS, error_model='numpy')


@numba.njit(**_jit)
def lstm_back_step(g, c, c_before, dy, dh, dc, d, db):
    """Gate gradients ``d`` (N, 4H) of one step from the activated gates ``g``, the
    cell states ``c`` and ``c_before``, the output gradient ``dy`` and the running
    hidden- and cell-state gradients ``dh`` and ``dc``; ``dc`` becomes the previous
    step's, ``d``'s rows are added to ``db``. ``dh`` holds ``dy + dh`` on return."""
    hidden = c.shape[1]
    for n in range(c.shape[0]):
        row, drow = g[n], d[n]
        i, f, cand, o = (row[:hidden], row[hidden:2 * hidden], row[2 * hidden:3 * hidden],
                         row[3 * hidden:])
        di, df, dg, do = (drow[:hidden], drow[hidden:2 * hidden],
                          drow[2 * hidden:3 * hidden], drow[3 * hidden:])
        cr, cb, dyr, dhr, dcr = c[n], c_before[n], dy[n], dh[n], dc[n]
        for j in range(hidden):
            dhr[j] += dyr[j]
        for j in range(hidden):
            do[j] = tanh(cr[j])                 # tanh(c), until do is written below
        for j in range(hidden):
            dcr[j] += dhr[j] * o[j] * (1 - do[j] * do[j])
        for j in range(hidden):
            do[j] = dhr[j] * do[j] * o[j] * (1 - o[j])
        for j in range(hidden):
            di[j] = dcr[j] * cand[j] * i[j] * (1 - i[j])
        for j in range(hidden):
            df[j] = dcr[j] * cb[j] * f[j] * (1 - f[j])
        for j in range(hidden):
            dg[j] = dcr[j] * i[j] * (1 - cand[j] * cand[j])
        for j in range(hidden):
            dcr[j] *= f[j]
        for j in range(4 * hidden):
            db[j] += drow[j]


@numba.njit(**_jit)
def lstm_back_loop(gates, cells, c0, wh, reverse, dy, dh, dc, dgates, db, small):
    """Back-propagate an LSTM direction through its time steps.

    ``gates`` (T, N, 4H) and ``cells`` (T, N, H) are what the forward pass kept; ``dy``
    (T, N, H, rows may be strided) the gradient of the direction's outputs; ``dh`` and
    ``dc`` (N, H, C-contiguous) the gradients of the last hidden and cell states on
    entry and of the initial ones on return. Writes the gate gradients of every step
    into ``dgates`` (T, N, 4H) and their sum over steps and samples into ``db`` (4H).
    ``small`` is :data:`symmod.ops.blas_numba.SMALL`.
    """
    steps = gates.shape[0]
    db[:] = 0
    for step in range(steps):
        t = step if reverse else steps - 1 - step
        if reverse:
            c_before = cells[t + 1] if t < steps - 1 else c0
        else:
            c_before = cells[t - 1] if t > 0 else c0
        lstm_back_step(gates[t], cells[t], c_before, dy[t], dh, dc, dgates[t], db)
        gemm_blocked(dgates[t], wh, dh, 0.0, small)


@numba.njit(**_jit)
def gru_step_back32(g, hn, h_prev, dh, dxg, dhg):
    """Gradients of one GRU step's input-side (``dxg``) and hidden-side (``dhg``) gate
    pre-activations (N, 3H; r, z, n) from ``dh``, which becomes the part of the
    previous state's gradient that flows through ``z`` (the hidden-side product is
    added after)."""
    hidden = hn.shape[1]
    for n in range(g.shape[0]):
        row, xrow, hrow = g[n], dxg[n], dhg[n]
        r, z, cand = row[:hidden], row[hidden:2 * hidden], row[2 * hidden:]
        dxr, dxz, dxn = xrow[:hidden], xrow[hidden:2 * hidden], xrow[2 * hidden:]
        dhgr, dhgz, dhgn = hrow[:hidden], hrow[hidden:2 * hidden], hrow[2 * hidden:]
        hnr, hp, dhr = hn[n], h_prev[n], dh[n]
        for j in range(hidden):
            dxn[j] = dhr[j] * (1 - z[j]) * (1 - cand[j] * cand[j])
        for j in range(hidden):
            dxr[j] = dxn[j] * hnr[j] * r[j] * (1 - r[j])
        for j in range(hidden):
            dxz[j] = dhr[j] * (hp[j] - cand[j]) * z[j] * (1 - z[j])
        for j in range(hidden):
            dhgr[j] = dxr[j]
        for j in range(hidden):
            dhgz[j] = dxz[j]
        for j in range(hidden):
            dhgn[j] = dxn[j] * r[j]
        for j in range(hidden):
            dhr[j] *= z[j]


@numba.njit(**_jit)
def gru_back_loop(gates, extra, h_prev, wh, reverse, dy, dh, dxg, dhg, small):
    """Back-propagate a GRU direction through its time steps: ``gates`` and ``extra``
    (``W_hn h + b_hn``) as the forward pass kept them, ``h_prev`` (T, N, H) the state
    entering each step, ``dy`` the output gradient (rows may be strided), ``dh`` (N, H,
    C-contiguous) the last state's gradient on entry and the initial one's on return.
    Writes the input- and hidden-side gate gradients of every step into ``dxg`` and
    ``dhg`` (T, N, 3H). ``small`` is :data:`symmod.ops.blas_numba.SMALL`."""
    steps = gates.shape[0]
    for step in range(steps):
        t = step if reverse else steps - 1 - step
        dyt = dy[t]
        for n in range(dh.shape[0]):
            dhr, dyr = dh[n], dyt[n]
            for j in range(dh.shape[1]):
                dhr[j] += dyr[j]
        gru_step_back32(gates[t], extra[t], h_prev[t], dh, dxg[t], dhg[t])
        gemm_blocked(dhg[t], wh, dh, 1.0, small)
