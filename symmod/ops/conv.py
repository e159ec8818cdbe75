"""Convolution on channel-first data (NCW, NCHW, NCDHW).

The forward pass is one BLAS matrix product per group: the input windows are
gathered through a strided view into a column matrix of shape
``(C * prod(kernel), N * prod(out_spatial))`` (im2col) and multiplied by the
``(num_filter, C * prod(kernel))`` weight. The backward pass multiplies the output
gradient with the columns (weight gradient, reusing those forward computed) and with
the weight (column gradient), which a numba kernel scatter-adds back onto the input
(col2im). With more than one thread, im2col and col2im split the samples over numba's
threads and each product its output columns over the caller's parts (``thread_split``),
BLAS at one thread (``threads.serial_blas``).
"""
import threading

import numba
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import threads as _threads
from ..base import MXNetError, parse_bool, parse_int, parse_optional, parse_tuple
from . import conv_direct, conv_pointwise, conv_strided, conv_winograd, thread_split
from .common import choice, expect_shape, matmul_into, scratch, store_from
from .registry import Operator, Param, ShapeError, register, unify
from .channel_last import ChannelLast

__all__ = ['conv_output_size', 'columns', 'scatter_columns', 'channel_rows',
           'store_channel_rows']

_LAYOUTS = {1: 'NCW', 2: 'NCHW', 3: 'NCDHW'}


def _spatial_params(opname, kernel, named, allow_empty_kernel=False):
    """Fill MXNet's defaults (stride 1, dilate 1, pad 0) and check dimensions agree."""
    nd = len(kernel)
    if not 1 <= nd <= 3 and not (allow_empty_kernel and nd == 0):
        raise MXNetError('%s: %dD kernel %s is not supported; use a kernel of 1, 2 or 3 '
                         'dims' % (opname, nd, tuple(kernel)))
    nd = nd or 3
    result = []
    for what, value, default in named:
        value = tuple(value or ())
        if not value:
            value = (default,) * nd
        elif kernel and len(value) != nd:
            raise MXNetError('%s: %s must have the same number of dimensions as kernel, but '
                             'kernel is set to %s while %s is %s'
                             % (opname, what, tuple(kernel), what, value))
        low = 0 if what in ('pad', 'adj') else 1
        if any(v < low for v in value):
            raise MXNetError('%s: incorrect %s %s: every entry must be at least %d'
                             % (opname, what, value, low))
        result.append(value)
    return result


_LAST_LAYOUTS = {1: 'NWC', 2: 'NHWC', 3: 'NDHWC'}


def _check_layout(opname, layout, nd, channel_last=False):
    """Whether ``layout`` is channel-last (allowed when ``channel_last``; see
    channel_last.py); MXNetError when it does not fit a ``nd``-D kernel."""
    if layout is None or layout == _LAYOUTS.get(nd):
        return False
    if channel_last and layout == _LAST_LAYOUTS.get(nd):
        return True
    if layout in _LAST_LAYOUTS.values() and not channel_last:
        raise MXNetError('%s: layout %s is not supported by symmod; only channel-first '
                         'layouts (NCW, NCHW, NCDHW) are' % (opname, layout))
    raise MXNetError('%s: layout %s does not match a %dD kernel (expected %s)'
                     % (opname, layout, nd, ' or '.join(
                         [_LAYOUTS.get(nd)] + ([_LAST_LAYOUTS.get(nd)] if channel_last
                                               else []))))


def conv_output_size(size, kernel, stride, dilate, pad):
    """Output length of a convolution along one axis."""
    return (size + 2 * pad - (1 + (kernel - 1) * dilate)) // stride + 1


@numba.njit(cache=True, nogil=True, error_model='numpy', parallel=True)
def _im2col(x, col, stride, dilate):
    """col[c, i, j, m, n] = the window of x[n, c] at kernel offset (i, j, m) (3-D)."""
    channels, kd, kh, kw, batch, od_, oh_, ow_ = col.shape
    for n in numba.prange(batch):       # samples write apart
        for c in range(channels):
            plane = x[n, c]
            for i in range(kd):
                for j in range(kh):
                    for m in range(kw):
                        dst = col[c, i, j, m, n]
                        start = m * dilate[2]
                        for a in range(od_):
                            d = a * stride[0] + i * dilate[0]
                            for b in range(oh_):
                                row = plane[d, b * stride[1] + j * dilate[1]]
                                out = dst[a, b]
                                if stride[2] == 1:      # contiguous: lets LLVM vectorize
                                    seg = row[start:start + ow_]
                                    for e in range(ow_):
                                        out[e] = seg[e]
                                else:
                                    for e in range(ow_):
                                        out[e] = row[e * stride[2] + start]


@numba.njit(cache=True, nogil=True, error_model='numpy', parallel=True)
def _col2im(dcol, dx, stride, dilate):
    """The adjoint of :func:`_im2col`: dx[n, c, window] += dcol[c, i, j, m, n]."""
    channels, kd, kh, kw, batch, od_, oh_, ow_ = dcol.shape
    for n in numba.prange(batch):       # samples write apart
        for c in range(channels):
            plane = dx[n, c]
            for i in range(kd):
                for j in range(kh):
                    for m in range(kw):
                        src = dcol[c, i, j, m, n]
                        start = m * dilate[2]
                        for a in range(od_):
                            d = a * stride[0] + i * dilate[0]
                            for b in range(oh_):
                                row = plane[d, b * stride[1] + j * dilate[1]]
                                values = src[a, b]
                                if stride[2] == 1:
                                    seg = row[start:start + ow_]
                                    for e in range(ow_):
                                        seg[e] += values[e]
                                else:
                                    for e in range(ow_):
                                        row[e * stride[2] + start] += values[e]


# ---- geometry and columns shared with Deconvolution ----------------------------------------
class _ConvGeometry:
    """Everything about one input shape that forward and backward reuse."""

    def __init__(self, xshape, kernel, strides, dilates, pads):
        kernel, nd = tuple(kernel), len(kernel)
        self.n, self.c = xshape[0], xshape[1]
        self.spatial = xshape[2:]
        self.pads = tuple(pads)
        self.padded = tuple(s + 2 * p for s, p in zip(self.spatial, pads))
        self.out = tuple(conv_output_size(s, k, st, d, p) for s, k, st, d, p in
                         zip(self.spatial, kernel, strides, dilates, pads))
        self.n_out = int(np.prod(self.out))
        self.n_kernel = int(np.prod(kernel))
        self.col_shape = (self.c * self.n_kernel, self.n * self.n_out)
        self.view_shape = (self.c,) + kernel + (self.n,) + self.out
        self.needs_pad = any(pads)
        # columns and (padded) input seen with three spatial dims by the numba kernels
        lead = (1,) * (3 - nd)
        self.dcol8 = (self.c,) + lead + kernel + (self.n,) + lead + self.out
        self.dx5 = (self.n, self.c) + lead + self.padded
        self.stride3 = lead + tuple(strides)
        self.dilate3 = lead + tuple(dilates)
        self.nd = nd
        self.strides, self.dilates = tuple(strides), tuple(dilates)
        # where the unpadded input sits inside the padded one
        self.interior = (Ellipsis,) + tuple(slice(p, p + s)
                                            for p, s in zip(pads, self.spatial))

    def view(self, xp):
        """The (C, *kernel, N, *out) strided window view of padded input ``xp``."""
        s = xp.strides
        spatial = s[2:]
        strides = ((s[1],) + tuple(a * d for a, d in zip(spatial, self.dilates)) + (s[0],)
                   + tuple(a * st for a, st in zip(spatial, self.strides)))
        return as_strided(xp, self.view_shape, strides, writeable=False)


def columns(x, geo, cache, reuse=False):
    """The column matrix (im2col) of ``x`` for geometry ``geo``, in a buffer kept in ``cache``.

    ``cache`` is a dict owned by one operator instance; with ``reuse`` the columns left
    there by the previous call are returned when they were made from the same array.
    """
    key = (x.shape, x.dtype, geo.pads, threading.get_ident())
    entry = cache.get(key)
    if entry is None:
        if len(cache) > 16:
            cache.clear()
        padded = np.zeros((geo.n, geo.c) + geo.padded, x.dtype) if geo.needs_pad else None
        entry = cache[key] = [np.empty(geo.col_shape, x.dtype), None, padded]
    token = (x.__array_interface__['data'][0], x.strides)
    col = entry[0]
    if reuse and entry[1] == token:
        return col
    source = x
    if geo.needs_pad:
        source = entry[2]
        source[geo.interior] = x
    if x.dtype in (np.float32, np.float64):
        _im2col(source.reshape(geo.dx5), col.reshape(geo.dcol8), geo.stride3, geo.dilate3)
    else:
        np.copyto(col.reshape(geo.view_shape), geo.view(source))
    entry[1] = token
    return col


def scatter_columns(dcol, geo, dx, req):
    """The adjoint of :func:`columns` (col2im): store the sum of the column entries over
    every window position into ``dx`` following ``req``."""
    direct = not geo.needs_pad and dx.dtype in (np.float32, np.float64)
    if direct:
        target = dx
        if req == 'write':
            target.fill(0)
    else:
        target = scratch('dxpad', (geo.n, geo.c) + geo.padded, dcol.dtype)
        target.fill(0)
    if dcol.dtype in (np.float32, np.float64):
        _col2im(dcol.reshape(geo.dcol8), target.reshape(geo.dx5), geo.stride3, geo.dilate3)
    else:
        wide = dcol.astype(np.float32).reshape(geo.dcol8)
        acc = np.zeros(geo.dx5, np.float32)
        _col2im(wide, acc, geo.stride3, geo.dilate3)
        np.copyto(target, acc.reshape(target.shape), casting='unsafe')
    if not direct:
        store_from(dx, req, target[geo.interior])


def channel_rows(x, count, key):
    """Data ``(N, C, *spatial)`` (``count`` spatial positions) as the ``(C, N * count)``
    matrix the products use: ``x`` itself for one sample, else a scratch copy."""
    n, c = x.shape[0], x.shape[1]
    if n == 1:
        return x.reshape(c, count)
    rows = scratch(key, (c, n * count), x.dtype)
    np.copyto(rows.reshape(c, n, count), x.reshape(n, c, count).transpose(1, 0, 2))
    return rows


def store_channel_rows(dst, req, rows, count):
    """The adjoint of :func:`channel_rows`: store the ``(C, N * count)`` matrix ``rows``
    into ``dst`` ``(N, C, *spatial)`` following ``req``."""
    n, c = dst.shape[0], dst.shape[1]
    store_from(dst.reshape(n, c, count), req, rows.reshape(c, n, count).transpose(1, 0, 2))


# ---- the parameters and compute both operators share -------------------------------------
_KERNEL = Param('kernel', parse_tuple, doc='Kernel size: (w,), (h, w) or (d, h, w).')
_DILATE = Param('dilate', parse_tuple, (), 'Dilation; 1 per dimension by default.')
_NUM_FILTER = Param('num_filter', parse_int, doc='Number of output channels.')
_NUM_GROUP = Param('num_group', parse_int, 1, 'Number of groups.')
_CUDNN_TUNE = Param('cudnn_tune', parse_optional(choice('off', 'limited_workspace', 'fastest')),
                    None, 'Ignored (cuDNN algorithm choice).')
_CUDNN_OFF = Param('cudnn_off', parse_bool, False, 'Ignored.')
_LAYOUT = Param('layout', parse_optional(choice('NCW', 'NCHW', 'NCDHW', 'NHWC', 'NDHWC')),
                None, 'Data layout (Convolution also runs NHWC / NDHWC).')


class _FilterOperator(Operator):
    """What Convolution and Deconvolution share: data, weight and optional bias, filters
    split into groups, and per-shape geometry and column buffers cached on the node.

    The helpers take the operator name their messages give (Convolution_v1 reports as
    Convolution)."""
    backward_uses_outputs = False

    def list_arguments(self):
        return ['data', 'weight'] if self.no_bias else ['data', 'weight', 'bias']

    def _setup_filters(self, opname, filters='num_filter'):
        """Check num_filter and num_group; start with empty caches."""
        if self.num_filter < 1 or self.num_group < 1:
            raise MXNetError('%s: num_filter and num_group must be at least 1, found %d and %d'
                             % (opname, self.num_filter, self.num_group))
        if self.num_filter % self.num_group:
            raise MXNetError('%s: %s=%d must be divisible by num_group=%d'
                             % (opname, filters, self.num_filter, self.num_group))
        self._geometries = {}
        self._columns = {}

    def _infer_weight_bias(self, opname, ins, weight_shape):
        """Check the data ``ins[0]``, fill in the weight (``weight_shape(channels)``) and
        bias shapes; returns the reason later shape messages give."""
        data, nd = ins[0], len(self.kernel)
        if len(data) != nd + 2:
            raise ShapeError('%s: a %dD kernel needs %dD data (%s), found shape %s'
                             % (opname, nd, nd + 2, _LAYOUTS[nd], tuple(data)))
        channels, group, filters = data[1], self.num_group, self.num_filter
        if channels and channels % group:
            raise ShapeError('%s: input channels %d must be divisible by num_group=%d'
                             % (opname, channels, group))
        reason = 'data %s, num_filter=%d and num_group=%d' % (tuple(data), filters, group)
        ins[1] = expect_shape(ins[1], weight_shape(channels), self.name, 'weight', reason)
        if not self.no_bias:
            ins[2] = expect_shape(ins[2], (filters,), self.name, 'bias',
                                  'num_filter=%d' % filters)
        return reason

    def _cached_geometry(self, key, make, *args):
        """``make(*args)``, made once per ``key`` (a few shapes per node)."""
        geo = self._geometries.get(key)
        if geo is None:
            if len(self._geometries) > 16:
                self._geometries.clear()
            geo = self._geometries[key] = make(*args)
        return geo

    def _blocks(self, m, trans=False):
        """``m`` read as the matrix (first axis, the rest) and cut by rows into
        ``num_group`` blocks, each transposed with ``trans``."""
        groups = self.num_group
        if groups == 1:
            if m.ndim != 2:
                m = m.reshape(m.shape[0], -1)
            return m.T if trans else m
        m = m.reshape(groups, m.shape[0] // groups, -1)
        return m.transpose(0, 2, 1) if trans else m

    def _matmul(self, out, a, b, req='write', trans_a=False, trans_b=False, split=False):
        """``out (req)= a @ b``, one product per group (see :meth:`_blocks`); with
        ``split`` (callers running BLAS at one thread), one group's product is cut by
        columns over the calling thread's parts (:mod:`thread_split`)."""
        out, a, b = self._blocks(out), self._blocks(a, trans_a), self._blocks(b, trans_b)
        if split and out.ndim == 2:
            _split_matmul(out, a, b, req)
        else:
            matmul_into(out, a, b, req)


# a product is cut into parts of at least this many multiply-adds and 64 columns
SPLIT_MIN_WORK = 1 << 20


def _split_matmul(out, a, b, req):
    """``out (req)= a @ b`` (2-D), output columns cut into contiguous ranges run on
    the calling thread's parts; each entry comes from the same dot product as unsplit."""
    cols = out.shape[1]
    parts = min(thread_split.parts(), cols // 64,
                out.shape[0] * cols * a.shape[1] // SPLIT_MIN_WORK)
    if parts <= 1:
        matmul_into(out, a, b, req)
        return
    bounds = [cols * i // parts for i in range(parts + 1)]

    def run(part):
        lo, hi = bounds[part], bounds[part + 1]
        matmul_into(out[:, lo:hi], a, b[:, lo:hi], req)
    thread_split.run(run, parts)


# the 3x3 kernels of Convolution._path's choices
_KERNELS = {'direct': conv_direct, 'winograd': conv_winograd, 'strided': conv_strided}


# ---- Convolution --------------------------------------------------------------------------
class _Convolution(_FilterOperator):
    """N-D convolution (cross-correlation) of channel-first data with learnt filters.

    For 2-D: data ``(batch, channel, height, width)``, weight
    ``(num_filter, channel / num_group, kernel[0], kernel[1])``, bias ``(num_filter,)``,
    output ``(batch, num_filter, out_height, out_width)`` with
    ``out = (in + 2 * pad - (dilate * (kernel - 1) + 1)) // stride + 1``. 1-D (NCW)
    and 3-D (NCDHW) work the same way. ``workspace`` and the cuDNN options are
    accepted and ignored. Channel-last layouts (NHWC, NDHWC: data ``(batch, ..., channel)``,
    weight ``(num_filter, *kernel, channel / num_group)``) run through channel-first
    copies.

    Examples
    --------
    >>> conv = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(5, 5), num_filter=20)
    >>> conv.infer_shape(data=(64, 1, 28, 28))[1]
    [(64, 20, 24, 24)]
    """
    name = 'Convolution'
    aliases = ('_npx_convolution',)
    params = (_KERNEL,
              Param('stride', parse_tuple, (), 'Stride; 1 per dimension by default.'),
              _DILATE,
              Param('pad', parse_tuple, (), 'Zero padding; 0 per dimension by default.'),
              _NUM_FILTER, _NUM_GROUP,
              Param('workspace', parse_int, 1024, 'Ignored (workspace limit in MB).'),
              Param('no_bias', parse_bool, False, 'Whether to disable the bias.'),
              _CUDNN_TUNE, _CUDNN_OFF, _LAYOUT)

    def check_params(self):
        self.kernel = tuple(self.kernel or ())
        self.strides, self.dilates, self.pads = _spatial_params(
            self.name, self.kernel, (('stride', self.stride, 1), ('dilate', self.dilate, 1),
                                     ('pad', self.pad, 0)))
        self.channel_last = _check_layout(self.name, self.layout, len(self.kernel),
                                          channel_last=True)
        self.channel_last_inputs = (0, 1)       # data and weight
        self._setup_filters('Convolution')

    # ---- shapes ---------------------------------------------------------------------
    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ins, outs = list(in_shapes), list(out_shapes)
        data = ins[0]
        if data is None:
            return ins, outs, list(aux_shapes)
        filters, group = self.num_filter, self.num_group
        reason = self._infer_weight_bias(
            'Convolution', ins, lambda channels: (filters, channels // group) + self.kernel)
        batch, channels, spatial = data[0], data[1], data[2:]
        out_spatial = []
        for size, k, st, d, p in zip(spatial, self.kernel, self.strides, self.dilates,
                                     self.pads):
            dilated = 1 + (k - 1) * d
            if size and dilated > size + 2 * p:
                raise ShapeError('Convolution: kernel size %d (dilated) exceeds input %d '
                                 'padded to %d, data shape %s'
                                 % (dilated, size, size + 2 * p, tuple(data)))
            out_spatial.append(conv_output_size(size, k, st, d, p) if size else 0)
        out = expect_shape(outs[0], (batch, filters) + tuple(out_spatial), self.name,
                           'output', reason)
        # back-fill the data: the batch always, spatial sizes where the stride is 1
        back = [out[0], channels]
        for size, o, k, st, d, p in zip(spatial, out[2:], self.kernel, self.strides,
                                        self.dilates, self.pads):
            back.append(o + (k - 1) * d - 2 * p if (not size and o and st == 1) else size)
        ins[0] = unify(data, back)
        outs[0] = out
        return ins, outs, list(aux_shapes)

    # ---- compute ------------------------------------------------------------------------
    def _geometry(self, xshape):
        return self._cached_geometry(xshape, _ConvGeometry, xshape, self.kernel, self.strides,
                                     self.dilates, self.pads)

    def _path(self, x):
        """Which kernels compute this node: 'direct' (3x3, ``conv_direct.py``),
        'winograd' (3x3 with many channels, ``conv_winograd.py``), 'strided' (3x3 stride
        2, ``conv_strided.py``), 'pointwise' (1x1, ``conv_pointwise.py``) or None (im2col
        and GEMM)."""
        if x.ndim == 4 and conv_strided.supports(self.kernel, self.strides, self.dilates,
                                                 self.pads, self.num_group, x.dtype):
            return 'strided'
        if x.ndim == 4 and conv_direct.supports(self.kernel, self.strides, self.dilates,
                                                self.pads, self.num_group, x.dtype):
            if conv_winograd.preferred(x.shape[1], self.num_filter, x.dtype):
                return 'winograd'
            return 'direct'
        if conv_pointwise.supports(self.kernel, self.dilates, self.pads, self.num_group,
                                   x.ndim):
            return 'pointwise'
        return None

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        # the products are small and sit between parallel numba loops (threads.serial_blas)
        with _threads.serial_blas():
            self._forward(req, in_data, out_data)

    def _forward(self, req, in_data, out_data):
        x, w = in_data[0], in_data[1]
        path = self._path(x)
        if path is not None:
            out = out_data[0]
            if path == 'pointwise':
                conv_pointwise.forward(x, w, out, self.strides, req[0])
                if not self.no_bias:
                    out += in_data[2].reshape(-1, 1, 1)
                return
            _KERNELS[path].forward(x, w, out, add=req[0] == 'add')
            if not self.no_bias:
                out += in_data[2].reshape(-1, 1, 1)
            return
        geo = self._geometry(x.shape)
        col = columns(x, geo, self._columns)
        filters, out = self.num_filter, out_data[0]
        direct = geo.n == 1 and req[0] == 'write'
        res = out.reshape(filters, geo.n_out) if direct else \
            scratch('res', (filters, geo.n * geo.n_out), x.dtype)
        self._matmul(res, w, col, split=True)
        if not self.no_bias:
            res += in_data[2].reshape(filters, 1)
        if not direct:
            store_channel_rows(out, req[0], res, geo.n_out)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        with _threads.serial_blas():
            self._backward(req, out_grad[0], in_data, in_grad)

    def _backward(self, req, dy_nchw, in_data, in_grad):
        x, w = in_data[0], in_data[1]
        path = self._path(x)
        if path is not None:
            self._backward_fast(path, req, dy_nchw, x, w, in_grad)
            return
        geo = self._geometry(x.shape)
        dy = channel_rows(dy_nchw, geo.n_out, 'dy')
        if req[1] != 'null':
            # the columns forward left, when they were made from x
            col = columns(x, geo, self._columns, reuse=True)
            self._matmul(in_grad[1], dy, col, req[1], trans_b=True, split=True)
        if not self.no_bias and req[2] != 'null':
            if req[2] == 'write':
                np.sum(dy, axis=1, out=in_grad[2])
            else:
                in_grad[2] += np.sum(dy, axis=1)
        if req[0] != 'null':
            dcol = scratch('dcol', geo.col_shape, x.dtype)
            self._matmul(dcol, w, dy, trans_a=True, split=True)
            scatter_columns(dcol, geo, in_grad[0], req[0])

    def _backward_fast(self, path, req, dy, x, w, in_grad):
        """Backward through the direct or pointwise kernels (see :meth:`_path`)."""
        if not self.no_bias and req[2] != 'null':
            store_from(in_grad[2], req[2],
                       dy.reshape(dy.shape[0], dy.shape[1], -1).sum(axis=2).sum(axis=0))
        if path == 'pointwise':
            conv_pointwise.backward(x, w, dy, self.strides, req, in_grad[0], in_grad[1])
            return
        kernels = _KERNELS[path]
        if path in ('direct', 'strided'):
            # both gradients in one pass (the output gradient packed once)
            dw = kernels.backward(x, w, dy, None if req[0] == 'null' else in_grad[0],
                                  add=req[0] == 'add', weight=req[1] != 'null')
            if dw is not None:
                store_from(in_grad[1], req[1], dw)
            return
        if req[1] != 'null':
            store_from(in_grad[1], req[1], kernels.backward_weight(x, dy))
        if req[0] != 'null':
            kernels.backward_data(dy, w, in_grad[0], add=req[0] == 'add')


@register
class Convolution(ChannelLast, _Convolution):
    __doc__ = _Convolution.__doc__
