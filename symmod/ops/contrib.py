"""Small contrib operators: quadratic, gradientmultiplier, round_ste/sign_ste,
div_sqrt_dim, index_copy, index_array, allclose, boolean_mask and khatri_rao.

``round_ste``/``sign_ste`` are straight-through estimators: they round (take the sign)
in forward and pass the gradient through unchanged. ``boolean_mask`` has an output whose
length depends on the mask's values, so it runs imperatively (``mx.nd``); a bound
symbolic graph cannot size its output.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int, parse_optional, \
    parse_tuple
from . import elemwise as ew
from .common import copy_into, int_shape, store, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register, unify
from .scalar import _scalar
from .unary import _round, _sign, _unary

__all__ = []


# ---- elementwise ----------------------------------------------------------------------------
@register
class quadratic(Operator):
    """``a * x**2 + b * x + c`` elementwise (computed as ``x * (a * x + b) + c``)."""
    name = '_contrib_quadratic'
    aliases = ('_npx_quadratic',)
    params = (Param('a', parse_float, 0.0, 'Coefficient of the quadratic term.'),
              Param('b', parse_float, 0.0, 'Coefficient of the linear term.'),
              Param('c', parse_float, 0.0, 'Constant term.'))
    backward_uses_outputs = False

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        a, b, c = (x.dtype.type(v) for v in (self.a, self.b, self.c))
        store_from(out_data[0], req[0], x * (a * x + b) + c)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        x = in_data[0]
        a, b = x.dtype.type(self.a), x.dtype.type(self.b)
        store_from(in_grad[0], req[0], out_grad[0] * (2 * a * x + b))


def _identity(x, s, out=None):
    return ew.pass_grad(None, None, x, out)


def _scaled_grad(x, y, s, dy, out=None):
    return np.multiply(dy, s, out=out)


_scalar('_contrib_gradientmultiplier', (), _identity, _scaled_grad, None,
        'Identity in forward; multiplies the gradient by ``scalar`` in backward.')
_unary('_contrib_round_ste', ('_npx_round_ste', '_sparse__contrib_round_ste'), _round, ew.pass_grad, None,
       'Rounds half away from zero in forward; passes the gradient through (straight-'
       'through estimator).', inplace=True)
_unary('_contrib_sign_ste', ('_npx_sign_ste', '_sparse__contrib_sign_ste'), _sign, ew.pass_grad, None,
       'Sign in forward; passes the gradient through (straight-through estimator).',
       inplace=True)


@register
class div_sqrt_dim(Operator):
    """``data / sqrt(data.shape[-1])`` (attention score scaling)."""
    name = '_contrib_div_sqrt_dim'
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _scale(self, array):
        return array.dtype.type(1) / np.sqrt(array.dtype.type(array.shape[-1]))

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        store(out_data[0], req[0], np.multiply, x, self._scale(x))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] != 'null':
            store(in_grad[0], req[0], np.multiply, out_grad[0], self._scale(out_grad[0]))


# ---- indexing -------------------------------------------------------------------------------
@register
class index_copy(Operator):
    """``old_tensor`` with its rows ``index_vector[i]`` replaced by ``new_tensor[i]``."""
    name = '_contrib_index_copy'
    aliases = ('_npx_index_copy',)
    backward_uses_outputs = False

    def list_arguments(self):
        return ['old_tensor', 'index_vector', 'new_tensor']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        old, index, new = (int_shape(s) for s in in_shapes)
        old = unify(old, int_shape(out_shapes[0]))
        if index is not None and len(index) != 1:
            raise ShapeError('index_copy: index_vector must be 1-D, found %s' % (index,))
        if old is not None and new is not None:
            if len(old) != len(new) or old[1:] != new[1:] or new[0] > old[0]:
                raise ShapeError('index_copy: new_tensor %s does not fit rows of old_tensor %s'
                                 % (new, old))
            if index is not None and index[0] != new[0]:
                raise ShapeError('index_copy: %d indices for %d new rows' % (index[0], new[0]))
        return [old, index, new], [old], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype, in_types[1], in_types[2] or dtype], [dtype], []

    def forward(self, is_train, req, in_data, out_data, aux):
        old, index, new = in_data
        result = old.copy()
        result[index.astype(np.int64)] = new
        store_from(out_data[0], req[0], result)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        dy, rows = out_grad[0], in_data[1].astype(np.int64)
        zero_grad(in_grad[1], req[1])
        store_from(in_grad[2], req[2], dy[rows])
        if req[0] != 'null':
            grad = dy.copy()
            grad[rows] = 0
            store_from(in_grad[0], req[0], grad)


@register
class index_array(Operator):
    """Each element's index: shape ``data.shape + (ndim,)`` (int64), or only the
    ``axes`` given (negative axes allowed)."""
    name = '_contrib_index_array'
    aliases = ('_npx_index_array',)
    params = (Param('axes', parse_optional(parse_tuple), None, 'Axes to include.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None:
            return [None], list(out_shapes), []
        count = len(shape) if self.axes is None else len(self.axes)
        return [shape], [shape + (count,)], []

    def infer_type(self, in_types, out_types, aux_types):
        return list(in_types), [np.dtype(np.int64)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        shape = in_data[0].shape
        ndim = len(shape)
        axes = range(ndim) if self.axes is None else [a % ndim if ndim else 0
                                                      for a in self.axes]
        grids = np.indices(shape, dtype=np.int64) if ndim else np.zeros((0,), np.int64)
        result = np.stack([grids[a] for a in axes], axis=-1) if ndim else \
            np.zeros(out_data[0].shape, np.int64)
        store_from(out_data[0], req[0], result)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[0], req[0])


@register
class boolean_mask(Operator):
    """The rows of ``data`` (along axis 0) where ``index`` is non-zero."""
    name = '_contrib_boolean_mask'
    aliases = ('_npi_boolean_mask',)
    params = (Param('axis', parse_int, 0, 'Axis to mask (only 0).'),)
    backward_uses_outputs = False

    def check_params(self):
        if self.axis != 0:
            raise MXNetError('boolean_mask: only axis 0 is supported, found %d' % self.axis)

    def list_arguments(self):
        return ['data', 'index']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data, index = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if index is not None and len(index) != 1:
            raise ShapeError('boolean_mask: index must be 1-D, found %s' % (index,))
        if data is not None and index is not None and data[0] != index[0]:
            raise ShapeError('boolean_mask: index of length %d for data of %d rows'
                             % (index[0], data[0]))
        out = None if data is None else (0,) + data[1:]     # the length is data-dependent
        return [data, index], [unify(out, int_shape(out_shapes[0]))], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype, in_types[1]], [dtype], []

    def output_shapes(self, in_data):
        """The output shape, known once the mask's values are (see ``nd`` invoke)."""
        return [(int(np.count_nonzero(in_data[1])),) + in_data[0].shape[1:]]

    def forward(self, is_train, req, in_data, out_data, aux):
        store_from(out_data[0], req[0], in_data[0][in_data[1] != 0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[1], req[1])
        if req[0] == 'null':
            return
        grad = np.zeros_like(in_grad[0])
        grad[in_data[1] != 0] = out_grad[0]
        store_from(in_grad[0], req[0], grad)


@register
class allclose(Operator):
    """1 when every ``|a - b| <= atol + rtol * |b|`` (NaNs equal with ``equal_nan``), else
    0, as a uint8 scalar."""
    name = '_contrib_allclose'
    aliases = ('_npi_allclose',)
    params = (Param('rtol', parse_float, 1e-05, 'Relative tolerance.'),
              Param('atol', parse_float, 1e-08, 'Absolute tolerance.'),
              Param('equal_nan', parse_bool, True, 'NaNs compare equal.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['a', 'b']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        a, b = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        try:
            common = unify(a, b)
        except ShapeError:
            raise ShapeError('allclose: a %s and b %s must have one shape' % (a, b)) from None
        return [common, common], [()], []

    def infer_type(self, in_types, out_types, aux_types):
        return list(in_types), [np.dtype(np.uint8)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        rtol = np.float32(self.rtol)
        with np.errstate(invalid='ignore'):
            close = (a == b) | (np.abs(a - b) <= np.float32(self.atol)
                                + np.where(b > 0, rtol * b, -rtol * b))
        close = np.where(nan_a | nan_b, self.equal_nan & (nan_a == nan_b), close)
        store_from(out_data[0], req[0], np.uint8(close.all()))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise MXNetError('allclose has no gradient')


@register
class khatri_rao(Operator):
    """Column-wise Khatri-Rao product of matrices (M_i, N): (M_1 * ... * M_n, N), the k-th
    column being the Kronecker product of the inputs' k-th columns."""
    name = 'khatri_rao'
    key_var_num_args = 'num_args'
    params = (Param('num_args', parse_int, doc='Number of input matrices.'),)

    def check_params(self):
        if self.num_args < 1:
            raise MXNetError('khatri_rao: num_args must be at least 1, found %d'
                             % self.num_args)

    def list_arguments(self):
        return ['arg%d' % i for i in range(self.num_args)]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = [int_shape(s) for s in in_shapes]
        if any(s is None for s in shapes):
            return shapes, list(out_shapes), []
        columns = shapes[0][1] if len(shapes[0]) > 1 else None
        rows = 1
        for s in shapes:
            if len(s) != 2 or s[1] != columns:
                raise ShapeError('khatri_rao: inputs must be matrices with %s columns, found %s'
                                 % (columns, shapes))
            rows *= s[0]
        return shapes, [(rows, columns)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        result = in_data[0]
        for matrix in in_data[1:]:
            result = (result[:, None, :] * matrix[None, :, :]).reshape(-1, matrix.shape[1])
        copy_into(out_data[0], np.ascontiguousarray(result, out_data[0].dtype), req[0])
