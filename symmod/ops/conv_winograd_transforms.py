"""The numba transforms of the Winograd F(2x2, 3x3) convolution (:mod:`conv_winograd`).

Tiles are numbered sample-major (``t = (s * th + ty) * tw + tx`` for ``th x tw`` tiles a
plane); a block of tiles is ``count`` of them from ``t0``, and its transformed values sit
in 16 planes ``v[e, row, t - t0]`` with ``e = 4 i + j`` the position in the 4x4
transformed tile. The filter transforms take a range of filters, so that threads can
share them.
"""
import numba
import numpy as np

_jit = dict(cache=True, nogil=True, fastmath=True, error_model='numpy')


@numba.njit(**_jit)
def input_transform(x, v, th, tw, t0, count):
    """``v[e, c, t - t0] = (B^T d B)[e]`` for the tiles ``t0 .. t0 + count - 1`` of channel
    ``c`` of ``x`` zero-padded by 1 (and past odd sizes)."""
    n, channels, height, width = x.shape
    per = th * tw
    s0, s1 = t0 // per, (t0 + count - 1) // per + 1
    for c in range(channels):
        # one sample's plane zero-padded, so that the tiles need no bounds checks
        d = np.zeros((2 * th + 2, 2 * tw + 2), x.dtype)
        for s in range(s0, s1):
            plane = x[s, c]
            for i in range(height):
                for j in range(width):
                    d[i + 1, j + 1] = plane[i, j]
            for ty in range(th):
                y = 2 * ty
                for tx in range(tw):
                    t = (s * th + ty) * tw + tx - t0
                    if t < 0 or t >= count:
                        continue
                    j = 2 * tx
                    r0, r1, r2, r3 = d[y], d[y + 1], d[y + 2], d[y + 3]
                    # B^T d: rows (r0 - r2, r1 + r2, r2 - r1, r1 - r3), column by column
                    a0, a1, a2, a3 = r0[j] - r2[j], r0[j + 1] - r2[j + 1], \
                        r0[j + 2] - r2[j + 2], r0[j + 3] - r2[j + 3]
                    b0, b1, b2, b3 = r1[j] + r2[j], r1[j + 1] + r2[j + 1], \
                        r1[j + 2] + r2[j + 2], r1[j + 3] + r2[j + 3]
                    c0, c1, c2, c3 = r2[j] - r1[j], r2[j + 1] - r1[j + 1], \
                        r2[j + 2] - r1[j + 2], r2[j + 3] - r1[j + 3]
                    e0, e1, e2, e3 = r1[j] - r3[j], r1[j + 1] - r3[j + 1], \
                        r1[j + 2] - r3[j + 2], r1[j + 3] - r3[j + 3]
                    # (B^T d) B: the same combination along each row
                    v[0, c, t], v[1, c, t], v[2, c, t], v[3, c, t] = \
                        a0 - a2, a1 + a2, a2 - a1, a1 - a3
                    v[4, c, t], v[5, c, t], v[6, c, t], v[7, c, t] = \
                        b0 - b2, b1 + b2, b2 - b1, b1 - b3
                    v[8, c, t], v[9, c, t], v[10, c, t], v[11, c, t] = \
                        c0 - c2, c1 + c2, c2 - c1, c1 - c3
                    v[12, c, t], v[13, c, t], v[14, c, t], v[15, c, t] = \
                        e0 - e2, e1 + e2, e2 - e1, e1 - e3


@numba.njit(**_jit)
def output_transform(m, out, th, tw, t0, count, add):
    """``out`` (N, K, H, W) from the 2x2 tiles ``A^T m A`` of the tiles ``t0 ..
    t0 + count - 1`` (with ``add``: added to it)."""
    n, filters, height, width = out.shape
    per = th * tw
    s0, s1 = t0 // per, (t0 + count - 1) // per + 1
    for k in range(filters):
        for s in range(s0, s1):
            plane = out[s, k]
            for ty in range(th):
                for tx in range(tw):
                    t = (s * th + ty) * tw + tx - t0
                    if t < 0 or t >= count:
                        continue
                    # A^T m: rows 0 and 1 of the 2x4 intermediate
                    r00 = m[0, k, t] + m[4, k, t] + m[8, k, t]
                    r01 = m[1, k, t] + m[5, k, t] + m[9, k, t]
                    r02 = m[2, k, t] + m[6, k, t] + m[10, k, t]
                    r03 = m[3, k, t] + m[7, k, t] + m[11, k, t]
                    r10 = m[4, k, t] - m[8, k, t] - m[12, k, t]
                    r11 = m[5, k, t] - m[9, k, t] - m[13, k, t]
                    r12 = m[6, k, t] - m[10, k, t] - m[14, k, t]
                    r13 = m[7, k, t] - m[11, k, t] - m[15, k, t]
                    y, x = 2 * ty, 2 * tx
                    if add:
                        plane[y, x] += r00 + r01 + r02
                        if x + 1 < width:
                            plane[y, x + 1] += r01 - r02 - r03
                        if y + 1 < height:
                            plane[y + 1, x] += r10 + r11 + r12
                            if x + 1 < width:
                                plane[y + 1, x + 1] += r11 - r12 - r13
                        continue
                    plane[y, x] = r00 + r01 + r02
                    if x + 1 < width:
                        plane[y, x + 1] = r01 - r02 - r03
                    if y + 1 < height:
                        plane[y + 1, x] = r10 + r11 + r12
                        if x + 1 < width:
                            plane[y + 1, x + 1] = r11 - r12 - r13


@numba.njit(**_jit)
def grad_transform(dy, g, th, tw, t0, count):
    """``g[e, k, t - t0] = (A dy_tile A^T)[e]``: the output gradient's 2x2 tiles of the
    tiles ``t0 .. t0 + count - 1`` (zero past odd sizes) carried to the 4x4 transformed
    domain (the adjoint of the output transform)."""
    n, filters, height, width = dy.shape
    zero = dy.dtype.type(0)
    per = th * tw
    s0, s1 = t0 // per, (t0 + count - 1) // per + 1
    for k in range(filters):
        for s in range(s0, s1):
            plane = dy[s, k]
            for ty in range(th):
                for tx in range(tw):
                    t = (s * th + ty) * tw + tx - t0
                    if t < 0 or t >= count:
                        continue
                    y, x = 2 * ty, 2 * tx
                    a = plane[y, x]
                    b = plane[y, x + 1] if x + 1 < width else zero
                    c = plane[y + 1, x] if y + 1 < height else zero
                    d = plane[y + 1, x + 1] if (x + 1 < width and y + 1 < height) else zero
                    # columns of A dy: (a, c) -> (a, a + c, a - c, -c), same for (b, d)
                    col0 = (a, a + c, a - c, -c)
                    col1 = (b, b + d, b - d, -d)
                    for i in range(4):
                        p, q = col0[i], col1[i]
                        g[4 * i, k, t] = p
                        g[4 * i + 1, k, t] = p + q
                        g[4 * i + 2, k, t] = p - q
                        g[4 * i + 3, k, t] = -q


@numba.njit(**_jit)
def _combine(a, b, d, half):
    """Row (a, b, d) times G^T: (a, (a + b + d) / 2, (a - b + d) / 2, d)."""
    return a, (a + b + d) * half, (a - b + d) * half, d


@numba.njit(**_jit)
def weight_transform(w, u, flip, r0, r1):
    """Rows ``r0 .. r1 - 1`` of the transformed filters: ``u[4 i + j, k, c] = (G w[k, c]
    G^T)[i, j]`` with G's rows (1, 0, 0), (.5, .5, .5), (.5, -.5, .5), (0, 0, 1); with
    ``flip``, of the data gradient's filters ``w[c, k, ::-1, ::-1]`` (``u`` is then
    ``(16, C, K)``). Scalars only, the last axis innermost, so that each of the 16
    planes is written in order."""
    half = w.dtype.type(0.5)
    for k in range(r0, r1):
        for c in range(u.shape[2]):
            g = w[c, k] if flip else w[k, c]
            for j in range(3):          # the columns of G g, kept in the rows of u
                # (flipped: column 2 - j read from the bottom up)
                q = 2 - j if flip else j
                top, mid, bottom = (g[2, q], g[1, q], g[0, q]) if flip else \
                    (g[0, q], g[1, q], g[2, q])
                a, b, d, e = _combine(top, mid, bottom, half)
                u[j, k, c], u[4 + j, k, c], u[8 + j, k, c], u[12 + j, k, c] = a, b, d, e
            for i in range(4):          # (G g) G^T along each row
                q0, q1, q2, q3 = _combine(u[4 * i, k, c], u[4 * i + 1, k, c],
                                          u[4 * i + 2, k, c], half)
                u[4 * i, k, c], u[4 * i + 1, k, c] = q0, q1
                u[4 * i + 2, k, c], u[4 * i + 3, k, c] = q2, q3


@numba.njit(**_jit)
def weight_grad_transform(du, dg, k0, k1):
    """``dg[k, c] = G^T dU[k, c] G`` for the filters ``k0 .. k1 - 1`` (the adjoint of
    :func:`weight_transform`), with ``dU[k, c][i, j] = du[4 i + j, k, c]``."""
    channels = dg.shape[1]
    half = du.dtype.type(0.5)
    s = np.empty((3, 4), du.dtype)
    for k in range(k0, k1):
        for c in range(channels):
            for j in range(4):          # G^T dU: rows d0 + (d1+d2)/2, (d1-d2)/2, (d1+d2)/2 + d3
                d0, d1, d2, d3 = du[j, k, c], du[4 + j, k, c], du[8 + j, k, c], du[12 + j, k, c]
                s[0, j] = d0 + (d1 + d2) * half
                s[1, j] = (d1 - d2) * half
                s[2, j] = (d1 + d2) * half + d3
            for r in range(3):          # (G^T dU) G, the same combination along each row
                a, b, e, f = s[r, 0], s[r, 1], s[r, 2], s[r, 3]
                dg[k, c, r, 0] = a + (b + e) * half
                dg[k, c, r, 1] = (b - e) * half
                dg[k, c, r, 2] = (b + e) * half + f
