"""Row-sparse optimizer kernels: MXNet's lazy updates (only the rows a row_sparse gradient
holds) and standard updates (every row, zero gradient where the gradient has no row).

Each kernel takes the weight and states as 2-D ``(rows, row_length)`` arrays, the
gradient's row indices and its ``(len(indices), row_length)`` values, and float32 (or
float64) scalars; the arithmetic is written in the order of MXNet's C kernels
(optimizer_op-inl.h / optimizer_op.cc) so float32 results agree bit for bit where the
compiler keeps that order. The gradient's rows are distinct, so rows run in parallel.
"""
import numpy as np
from numba import njit, prange

_jit = dict(cache=True, nogil=True, error_model='numpy', parallel=True)


@njit(inline='always', cache=True)
def _clip(x, bound):
    if x > bound:
        return bound
    if x < -bound:
        return -bound
    return x


@njit(**_jit)
def sgd_rows(w, rows, g, lr, wd, rescale, clip):
    """w[r] = (1 - lr*wd) * w[r] - lr * clip(rescale * g) for the gradient's rows."""
    one = w.dtype.type(1)
    decay = one - lr * wd
    lr_rescale = lr * rescale
    for r in prange(len(rows)):
        row = rows[r]
        for j in range(w.shape[1]):
            if clip >= 0:
                w[row, j] = decay * w[row, j] - lr * _clip(rescale * g[r, j], clip)
            else:
                w[row, j] = decay * w[row, j] - lr_rescale * g[r, j]


@njit(**_jit)
def scale_all(w, factor):
    """w *= factor (the weight decay a standard sparse SGD step applies to every row)."""
    for i in prange(w.shape[0]):
        for j in range(w.shape[1]):
            w[i, j] = w[i, j] * factor


@njit(**_jit)
def sgd_mom_rows(w, mom, rows, g, momentum, lr, wd, rescale, clip):
    """Lazy momentum SGD on the gradient's rows."""
    rate = lr * wd
    lr_rescale = lr * rescale
    for r in prange(len(rows)):
        row = rows[r]
        for j in range(w.shape[1]):
            if clip >= 0:
                mom[row, j] = momentum * mom[row, j] - rate * w[row, j] \
                    - lr * _clip(rescale * g[r, j], clip)
            else:
                mom[row, j] = momentum * mom[row, j] - rate * w[row, j] - lr_rescale * g[r, j]
            w[row, j] = w[row, j] + mom[row, j]


@njit(**_jit)
def sgd_mom_all(w, mom, position, g, momentum, lr, wd, rescale, clip):
    """Standard momentum SGD: every row, ``position[row]`` its gradient row or -1."""
    rate = lr * wd
    lr_rescale = lr * rescale
    zero = w.dtype.type(0)
    for row in prange(w.shape[0]):
        p = position[row]
        for j in range(w.shape[1]):
            grad = g[p, j] if p >= 0 else zero
            if clip >= 0:
                mom[row, j] = momentum * mom[row, j] - rate * w[row, j] \
                    - lr * _clip(rescale * grad, clip)
            else:
                mom[row, j] = momentum * mom[row, j] - rate * w[row, j] - lr_rescale * grad
            w[row, j] = w[row, j] + mom[row, j]


@njit(inline='always', cache=True)
def _adam_cell(w, mean, var, row, j, grad, beta1, beta2, lr, epsilon, clip, grouped):
    """One Adam element update; ``grouped``: the standard kernel's (1 - beta2) * (g * g)
    rather than the lazy kernel's (1 - beta2) * g * g."""
    one = w.dtype.type(1)
    if clip >= 0:
        c = _clip(grad, clip)
        mean[row, j] = beta1 * mean[row, j] + (one - beta1) * c
        var[row, j] = beta2 * var[row, j] + (one - beta2) * (c * c)
    elif grouped:
        mean[row, j] = beta1 * mean[row, j] + (one - beta1) * grad
        var[row, j] = beta2 * var[row, j] + (one - beta2) * (grad * grad)
    else:
        mean[row, j] = beta1 * mean[row, j] + (one - beta1) * grad
        var[row, j] = beta2 * var[row, j] + (one - beta2) * grad * grad
    w[row, j] = w[row, j] - lr * mean[row, j] / (np.sqrt(var[row, j]) + epsilon)


@njit(**_jit)
def adam_rows(w, mean, var, rows, g, beta1, beta2, lr, wd, epsilon, rescale, clip):
    """Lazy Adam on the gradient's rows (``lr`` already bias-corrected)."""
    for r in prange(len(rows)):
        row = rows[r]
        for j in range(w.shape[1]):
            grad = g[r, j] * rescale + w[row, j] * wd
            _adam_cell(w, mean, var, row, j, grad, beta1, beta2, lr, epsilon, clip, False)


@njit(**_jit)
def adam_all(w, mean, var, position, g, beta1, beta2, lr, wd, epsilon, rescale, clip):
    """Standard Adam: every row; rows without gradient see ``wd * weight`` only."""
    for row in prange(w.shape[0]):
        p = position[row]
        for j in range(w.shape[1]):
            if p >= 0:
                grad = g[p, j] * rescale + w[row, j] * wd
            else:
                grad = w[row, j] * wd
            _adam_cell(w, mean, var, row, j, grad, beta1, beta2, lr, epsilon, clip, True)


@njit(**_jit)
def ftrl_rows(w, z, n, rows, g, lamda1, beta, lr, wd, rescale, clip):
    """FTRL-Proximal on the gradient's rows."""
    zero = w.dtype.type(0)
    one = w.dtype.type(1)
    for r in prange(len(rows)):
        row = rows[r]
        for j in range(w.shape[1]):
            grad = g[r, j] * rescale
            if clip >= 0:
                grad = _clip(grad, clip)
            square = grad * grad
            z[row, j] = z[row, j] + (grad - (np.sqrt(n[row, j] + square) - np.sqrt(n[row, j]))
                                     * w[row, j] / lr)
            n[row, j] = n[row, j] + square
            zr = z[row, j]
            sign = one if zr > 0 else (-one if zr < 0 else zero)
            keep = one if abs(zr) > lamda1 else zero
            w[row, j] = (sign * lamda1 - zr) / ((beta + np.sqrt(n[row, j])) / lr + wd) * keep


@njit(**_jit)
def adagrad_rows(w, history, rows, g, lr, epsilon, rescale, clip):
    """AdaGrad on the gradient's rows (no weight decay: MXNet refuses it here)."""
    for r in prange(len(rows)):
        row = rows[r]
        for j in range(w.shape[1]):
            grad = g[r, j] * rescale
            if clip >= 0:
                grad = _clip(grad, clip)
            history[row, j] = history[row, j] + grad * grad
            div = grad / np.sqrt(history[row, j] + epsilon)
            w[row, j] = w[row, j] - div * lr


@njit(**_jit)
def group_adagrad_rows(w, history, rows, g, lr, epsilon, rescale, clip):
    """Group AdaGrad on the gradient's rows: one history value per row."""
    length = w.shape[1]
    zero = w.dtype.type(0)
    for r in prange(len(rows)):
        row = rows[r]
        ssq = zero
        for j in range(length):
            grad = g[r, j] * rescale
            if clip >= 0:
                grad = _clip(grad, clip)
            ssq += grad * grad
        history[row, 0] = history[row, 0] + ssq / w.dtype.type(length)
        for j in range(length):
            grad = g[r, j] * rescale
            if clip >= 0:
                grad = _clip(grad, clip)
            w[row, j] = w[row, j] - lr * grad / np.sqrt(history[row, 0] + epsilon)
