"""Spatial transformer networks: GridGenerator, BilinearSampler and SpatialTransformer.

A sampling grid holds, for every output pixel, the source position ``(x, y)`` normalised
to ``[-1, 1]`` over the input's width and height. BilinearSampler reads the input there
with bilinear interpolation (points outside the input count as zero); its gradient flows
into the input (scattered to the four neighbours) and into the grid. GridGenerator makes
grids from affine matrices or optical flow, and SpatialTransformer is the affine grid
and the bilinear sampler in one operator, as in MXNet 1.9.1.
"""
import numba
import numpy as np

from ..base import MXNetError, parse_bool, parse_optional, parse_tuple
from .common import choice, int_shape, kernel_array, matmul_into, store_from
from .registry import Operator, Param, ShapeError, register, shape_is_known

__all__ = []


# ---- the bilinear kernels (MXNet's CPU loops: same order, same bounds) -------------------
@numba.njit(cache=True, nogil=True, error_model='numpy')
def _corner(data, n, c, y, x):
    """data[n, c, y, x], or 0 outside the image."""
    if 0 <= x < data.shape[3] and 0 <= y < data.shape[2]:
        return data[n, c, y, x]
    return 0.0


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _source(gx, gy, n, h, w, in_h, in_w):
    """Top-left source pixel of grid point (n, h, w) and the weights of its row/column."""
    y_real = (gy[n, h, w] + 1) * (in_h - 1) / 2
    x_real = (gx[n, h, w] + 1) * (in_w - 1) / 2
    top = int(np.floor(y_real))
    left = int(np.floor(x_real))
    return top, left, 1 - (y_real - top), 1 - (x_real - left)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _sample_forward(data, gx, gy, out):
    """out[n, c, h, w] = data sampled at grid (gx, gy)[n, h, w] in [-1, 1] coordinates."""
    batch, channels, height, width = out.shape
    in_h, in_w = data.shape[2], data.shape[3]
    for n in range(batch):
        for h in range(height):
            for w in range(width):
                top, left, wy, wx = _source(gx, gy, n, h, w, in_h, in_w)
                for c in range(channels):
                    out[n, c, h, w] = (_corner(data, n, c, top, left) * wy * wx
                                       + _corner(data, n, c, top, left + 1) * wy * (1 - wx)
                                       + _corner(data, n, c, top + 1, left) * (1 - wy) * wx
                                       + _corner(data, n, c, top + 1, left + 1)
                                       * (1 - wy) * (1 - wx))


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _scatter(gdata, n, c, y, x, value):
    if 0 <= x < gdata.shape[3] and 0 <= y < gdata.shape[2]:
        gdata[n, c, y, x] += value


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _sample_backward(data, gx, gy, dy, gdata, want_data, ggx, ggy):
    """Accumulate the input gradient into ``gdata`` (when ``want_data``) and write the grid
    gradient into ``ggx``/``ggy`` (in normalised coordinates)."""
    batch, channels, height, width = dy.shape
    in_h, in_w = data.shape[2], data.shape[3]
    for n in range(batch):
        for h in range(height):
            for w in range(width):
                top, left, wy, wx = _source(gx, gy, n, h, w, in_h, in_w)
                y_gw = 0.0
                x_gw = 0.0
                for c in range(channels):
                    g = dy[n, c, h, w]
                    if want_data:
                        _scatter(gdata, n, c, top, left, g * wy * wx)
                        _scatter(gdata, n, c, top, left + 1, g * wy * (1 - wx))
                        _scatter(gdata, n, c, top + 1, left, g * (1 - wy) * wx)
                        _scatter(gdata, n, c, top + 1, left + 1, g * (1 - wy) * (1 - wx))
                    tl = _corner(data, n, c, top, left)
                    tr = _corner(data, n, c, top, left + 1)
                    bl = _corner(data, n, c, top + 1, left)
                    br = _corner(data, n, c, top + 1, left + 1)
                    y_gw -= g * (tr - br + (tl - tr - bl + br) * wx)
                    x_gw -= g * (bl - br + (tl - tr - bl + br) * wy)
                ggy[n, h, w] = y_gw * (in_h - 1) / 2
                ggx[n, h, w] = x_gw * (in_w - 1) / 2


def bilinear_sample(data, grid_x, grid_y, out):
    """Sample ``data`` (N, C, H, W) at normalised ``grid_x``/``grid_y`` (N, h, w) into ``out``."""
    target = kernel_array(out)
    _sample_forward(np.ascontiguousarray(kernel_array(data)), kernel_array(grid_x),
                    kernel_array(grid_y), target)
    if target is not out:
        out[...] = target


def bilinear_sample_grad(data, grid_x, grid_y, dy, gdata, data_req):
    """Gradients of :func:`bilinear_sample`: adds into (or writes) ``gdata`` by
    ``data_req`` and returns the grid gradient as ``(d grid_x, d grid_y)``."""
    want = data_req != 'null'
    if data_req == 'write':
        gdata.fill(0)
    target = kernel_array(gdata) if want else np.zeros((1, 1, 1, 1), np.float32)
    dy = np.ascontiguousarray(kernel_array(dy))
    ggx = np.empty(grid_x.shape, dy.dtype)
    ggy = np.empty(grid_y.shape, dy.dtype)
    _sample_backward(np.ascontiguousarray(kernel_array(data)), kernel_array(grid_x),
                     kernel_array(grid_y), dy, target, want, ggx, ggy)
    if want and target is not gdata:
        gdata[...] = target
    return ggx.astype(gdata.dtype), ggy.astype(gdata.dtype)


def _uniform_dtype(opname, in_types, n_out, n_in):
    known = [t for t in in_types if t is not None]
    if not known:
        return list(in_types), [None] * n_out, []
    for t in known:
        if t != known[0]:
            raise MXNetError('Non-uniform data type in %s: %s vs %s'
                             % (opname, np.dtype(known[0]).name, np.dtype(t).name))
    return [known[0]] * n_in, [known[0]] * n_out, []


def _target_shape(value):
    shape = parse_tuple(value)
    if len(shape) != 2:
        raise ValueError('expected (height, width), found %r' % (value,))
    return shape


# ---- GridGenerator --------------------------------------------------------------------------
@register
class GridGenerator(Operator):
    """Makes a sampling grid for BilinearSampler.

    ``affine``: ``data`` is (N, 6), one 2x3 matrix per sample mapping target coordinates
    ``(x, y, 1)`` in [-1, 1] to source coordinates; the grid is (N, 2, H, W) for
    ``target_shape`` (H, W). ``warp``: ``data`` is an optical flow (N, 2, H, W) in pixels;
    the grid is the flow added to each pixel's position, normalised to [-1, 1].
    """
    name = 'GridGenerator'
    params = (Param('transform_type', choice('affine', 'warp'), doc='affine or warp.'),
              Param('target_shape', _target_shape, (0, 0),
                    'Output (H, W); required for affine.'))

    def list_outputs(self):
        return ['output', 'grid_dst']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = int_shape(in_shapes[0])
        if dshape is None:
            return [None], [int_shape(out_shapes[0]), None], []
        if self.transform_type == 'affine':
            if len(dshape) != 2 or dshape[1] != 6:
                raise ShapeError('GridGenerator: affine data must be (batch, 6), found %s'
                                 % (dshape,))
            height, width = self.target_shape
            if height <= 0 or width <= 0:
                raise ShapeError('GridGenerator: affine needs target_shape (H, W) > 0, '
                                 'found %s' % (self.target_shape,))
            return [dshape], [(dshape[0], 2, height, width), (3, height * width)], []
        if len(dshape) != 4 or dshape[1] != 2:
            raise ShapeError('GridGenerator: warp data (optical flow) must be '
                             '(batch, 2, H, W), found %s' % (dshape,))
        return [dshape], [dshape, (2, dshape[2], dshape[3])], []

    def infer_type(self, in_types, out_types, aux_types):
        return _uniform_dtype(self.name, list(in_types) + list(out_types[:1]), 2, 1)

    def forward(self, is_train, req, in_data, out_data, aux):
        data, out, grid_dst = in_data[0], out_data[0], out_data[1]
        dtype = out.dtype.type
        if self.transform_type == 'affine':
            height, width = self.target_shape
            index = np.arange(height * width)
            grid_dst[0] = -1.0 + (index % width).astype(out.dtype) \
                * dtype(2.0 / (width - 1) if width > 1 else np.inf)
            grid_dst[1] = -1.0 + (index // width).astype(out.dtype) \
                * dtype(2.0 / (height - 1) if height > 1 else np.inf)
            grid_dst[2] = 1
            matmul_into(out.reshape(-1, height * width), data.reshape(-1, 3), grid_dst,
                        req[0])
            return
        height, width = data.shape[2], data.shape[3]
        grid_dst[0] = np.arange(width, dtype=out.dtype)[None, :]
        grid_dst[1] = np.arange(height, dtype=out.dtype)[:, None]
        scale = np.array([(width - 1.0) / 2.0, (height - 1.0) / 2.0], out.dtype)
        store_from(out, req[0], (data + grid_dst) / scale[:, None, None] - 1)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        dy, grid_dst, gdata = out_grad[0], out_data[1], in_grad[0]
        if self.transform_type == 'affine':
            height, width = self.target_shape
            matmul_into(gdata.reshape(-1, 3), dy.reshape(-1, height * width), grid_dst.T,
                        req[0])
            return
        height, width = gdata.shape[2], gdata.shape[3]
        scale = np.array([(width - 1.0) / 2.0, (height - 1.0) / 2.0], dy.dtype)
        store_from(gdata, req[0], dy / scale[:, None, None])


# ---- BilinearSampler ----------------------------------------------------------------------
@register
class BilinearSampler(Operator):
    """Samples ``data`` (N, C, H, W) at the positions of ``grid`` (N, 2, h, w), channel 0
    holding x and channel 1 y, both normalised to [-1, 1]; the output is (N, C, h, w)
    and positions outside the input read zero."""
    name = 'BilinearSampler'
    params = (Param('cudnn_off', parse_optional(parse_bool), None,
                    'Kept for MXNet compatibility (no cuDNN here).'),)

    def list_arguments(self):
        return ['data', 'grid']

    def list_outputs(self):
        return ['output', 'tmp']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, gshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if not shape_is_known(dshape) or not shape_is_known(gshape):
            return [dshape, gshape], [int_shape(out_shapes[0]), None], []
        if len(dshape) != 4:
            raise ShapeError('BilinearSampler: data must be 4D (batch, channel, y, x), '
                             'found %s' % (dshape,))
        if len(gshape) != 4 or gshape[1] != 2 or gshape[0] != dshape[0]:
            raise ShapeError('BilinearSampler: grid must be (%d, 2, h, w), found %s'
                             % (dshape[0], gshape))
        out = (dshape[0], dshape[1], gshape[2], gshape[3])
        return [dshape, gshape], [out, (gshape[0], gshape[2], gshape[3], 2)], []

    def infer_type(self, in_types, out_types, aux_types):
        return _uniform_dtype(self.name, list(in_types) + list(out_types[:1]), 2, 2)

    def forward(self, is_train, req, in_data, out_data, aux):
        data, grid = in_data
        if req[0] == 'write':
            bilinear_sample(data, grid[:, 0], grid[:, 1], out_data[0])
        elif req[0] == 'add':
            tmp = np.empty_like(out_data[0])
            bilinear_sample(data, grid[:, 0], grid[:, 1], tmp)
            out_data[0] += tmp

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null' and req[1] == 'null':
            return
        data, grid = in_data
        ggx, ggy = bilinear_sample_grad(data, grid[:, 0], grid[:, 1], out_grad[0], in_grad[0],
                                        req[0])
        store_from(in_grad[1], req[1], np.stack([ggx, ggy], axis=1))


# ---- SpatialTransformer -------------------------------------------------------------------
@register
class SpatialTransformer(Operator):
    """An affine grid from ``loc`` (N, 6) sampled bilinearly from ``data`` (N, C, H, W)
    into an output of ``target_shape`` (the localisation network's output is ``loc``)."""
    name = 'SpatialTransformer'
    params = (Param('target_shape', _target_shape, (0, 0), 'Output (H, W).'),
              Param('transform_type', choice('affine'), doc='Only affine.'),
              Param('sampler_type', choice('bilinear'), doc='Only bilinear.'),
              Param('cudnn_off', parse_optional(parse_bool), None,
                    'Kept for MXNet compatibility (no cuDNN here).'))

    def list_arguments(self):
        return ['data', 'loc']

    def list_outputs(self):
        return ['output', 'grid_dst', 'grid_src']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, lshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if not shape_is_known(dshape) or not shape_is_known(lshape):
            return [dshape, lshape], [int_shape(out_shapes[0]), None, None], []
        if len(dshape) != 4:
            raise ShapeError('SpatialTransformer: data must be 4D (batch, channel, y, x), '
                             'found %s' % (dshape,))
        if len(lshape) != 2 or lshape[1] != 6:
            raise ShapeError('SpatialTransformer: loc must be (batch, 6), found %s'
                             % (lshape,))
        height, width = self.target_shape
        if height <= 0 or width <= 0:
            raise ShapeError('SpatialTransformer: target_shape must be > 0, found %s'
                             % (self.target_shape,))
        return ([dshape, lshape],
                [(dshape[0], dshape[1], height, width), (3, height * width),
                 (dshape[0], 2, height * width)], [])

    def infer_type(self, in_types, out_types, aux_types):
        return _uniform_dtype(self.name, list(in_types) + list(out_types[:1]), 3, 2)

    def forward(self, is_train, req, in_data, out_data, aux):
        data, loc = in_data
        out, grid_dst, grid_src = out_data
        height, width = self.target_shape
        index = np.arange(height * width)
        # computed in double, stored in the data type (MXNet's host workspace)
        grid_dst[0] = -1.0 + (index % width) * 2.0 / (width - 1) if width > 1 else np.nan
        grid_dst[1] = -1.0 + (index // width) * 2.0 / (height - 1) if height > 1 else np.nan
        grid_dst[2] = 1
        np.matmul(loc.reshape(-1, 2, 3), grid_dst, out=grid_src)
        grid = grid_src.reshape(-1, 2, height, width)
        if req[0] == 'write':
            bilinear_sample(data, grid[:, 0], grid[:, 1], out)
        elif req[0] == 'add':
            tmp = np.empty_like(out)
            bilinear_sample(data, grid[:, 0], grid[:, 1], tmp)
            out += tmp

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null' and req[1] == 'null':
            return
        data = in_data[0]
        _, grid_dst, grid_src = out_data
        height, width = self.target_shape
        grid = grid_src.reshape(-1, 2, height, width)
        ggx, ggy = bilinear_sample_grad(data, grid[:, 0], grid[:, 1], out_grad[0], in_grad[0],
                                        req[0])
        ggrid = np.stack([ggx, ggy], axis=1).reshape(-1, 2, height * width)
        matmul_into(in_grad[1].reshape(-1, 2, 3), ggrid, grid_dst.T, req[1])
