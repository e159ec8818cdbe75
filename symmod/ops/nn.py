"""Neural-network layers: FullyConnected, Dropout and Embedding.

Formulas, defaults and corner cases follow MXNet 1.9.1's CPU kernels.
"""
import numba
import numpy as np

from ..base import MXNetError, parse_bool, parse_dtype, parse_float, parse_int, parse_optional
from ..base import parse_tuple
from .. import random as _random
from .common import choice, data_shape, expect_shape, matmul_into, scratch, work_buffer
from .registry import Operator, Param, ShapeError, register, unify

__all__ = []


# ---- FullyConnected ---------------------------------------------------------------------
def _times_transposed(x, w, out):
    """``out = x @ w.T``. For a short batch and a wider output, OpenBLAS computes the
    transposed product ``w @ x.T`` faster (64x784 by 784x256: 287 vs 334 us at one
    thread; 32x512 by 512x512: 199 vs 282 us; batches of 128 and more: no gain), so
    that is formed in a scratch buffer and stored transposed."""
    m, n = x.shape[0], w.shape[0]
    if 1 < m <= 64 and n >= 2 * m:
        tmp = scratch('fc_fwd_t', (n, m), out.dtype)
        np.matmul(w, x.T, out=tmp)
        np.copyto(out, tmp.T)
    else:
        np.matmul(x, w.T, out=out)


@register
class FullyConnected(Operator):
    """Applies a linear transformation ``Y = X W^T + b``.

    With ``flatten=True`` the data is viewed as ``(batch, prod(rest))``; with
    ``flatten=False`` the transformation applies to the last axis and the leading
    axes are kept. ``weight`` has shape ``(num_hidden, input_dim)`` and ``bias``
    ``(num_hidden,)``.

    Examples
    --------
    >>> fc = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=128, name='fc1')
    >>> fc.list_arguments()
    ['data', 'fc1_weight', 'fc1_bias']
    """
    name = 'FullyConnected'
    aliases = ('_npx_fully_connected', '_sparse_FullyConnected')
    params = (Param('num_hidden', parse_int, doc='Number of hidden nodes of the output.'),
              Param('no_bias', parse_bool, False, 'Whether to disable the bias parameter.'),
              Param('flatten', parse_bool, True,
                    'Whether to collapse all but the first axis of the input data.'))
    backward_uses_outputs = False
    writes_input_grads = True

    def check_params(self):
        if self.num_hidden < 1:
            raise MXNetError('FullyConnected: num_hidden must be at least 1, found %d'
                             % self.num_hidden)

    def list_arguments(self):
        return ['data', 'weight'] if self.no_bias else ['data', 'weight', 'bias']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ins, outs = list(in_shapes), list(out_shapes)
        data, hidden = ins[0], self.num_hidden
        if data is None:
            return ins, outs, list(aux_shapes)
        data = list(data)
        weight = ins[1]
        if weight is not None and len(weight) == 2 and weight[1]:
            # the weight tells the input width when the data leaves it open
            if not self.flatten and data and not data[-1]:
                data[-1] = weight[1]
            elif self.flatten and len(data) == 2 and not data[1]:
                data[1] = weight[1]
        out = outs[0]
        if out is not None and len(out) == (2 if self.flatten else len(data)):
            if self.flatten:
                data[0] = data[0] or out[0]
            else:
                data[:-1] = [d or o for d, o in zip(data[:-1], out[:-1])]
        if self.flatten:
            rest = data[1:]
            n_in = int(np.prod(rest)) if all(rest) else 0
            out_shape = (data[0], hidden)
        else:
            n_in = data[-1]
            out_shape = tuple(data[:-1]) + (hidden,)
        reason = 'data %s and num_hidden=%d' % (tuple(data), hidden)
        ins[0] = tuple(data)
        ins[1] = expect_shape(ins[1], (hidden, n_in), self.name, 'weight', reason)
        if not self.no_bias:
            bias = ins[2]
            expected = (hidden, 1) if bias is not None and len(bias) == 2 else (hidden,)
            ins[2] = expect_shape(bias, expected, self.name, 'bias', 'num_hidden=%d' % hidden)
        outs[0] = expect_shape(out, out_shape, self.name, 'output', reason)
        return ins, outs, list(aux_shapes)

    def _flat(self, x):
        if self.flatten:
            return x.reshape(x.shape[0], -1) if x.ndim != 2 else x
        return x.reshape(-1, x.shape[-1]) if x.ndim != 2 else x

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        x2 = self._flat(in_data[0])
        y2 = out_data[0].reshape(x2.shape[0], self.num_hidden)
        dst = work_buffer('fwd', y2, req[0])
        _times_transposed(x2, in_data[1], dst)
        if not self.no_bias:
            dst += in_data[2].reshape(self.num_hidden)
        if dst is not y2:
            y2 += dst

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x2 = self._flat(in_data[0])
        dy2 = out_grad[0].reshape(x2.shape[0], self.num_hidden)
        matmul_into(in_grad[1], dy2.T, x2, req[1])
        if not self.no_bias and req[2] != 'null':
            db = in_grad[2].reshape(self.num_hidden)
            if req[2] == 'write':
                np.add.reduce(dy2, axis=0, out=db)      # np.sum without its Python wrapper
            else:
                db += np.sum(dy2, axis=0)
        if req[0] != 'null':
            matmul_into(in_grad[0].reshape(x2.shape), dy2, in_data[1], req[0])


# ---- Dropout ----------------------------------------------------------------------------
@register
class Dropout(Operator):
    """Zeroes elements with probability ``p`` in training and scales the rest by ``1/(1-p)``.

    In inference the input passes through unchanged, unless ``mode='always'``.
    ``axes`` share one random draw along the given axes (variational dropout). The
    scaled keep-mask is a hidden output (``mask``) used by the backward pass.

    Examples
    --------
    >>> net = mx.sym.Dropout(mx.sym.Variable('data'), p=0.2)
    """
    name = 'Dropout'
    aliases = ('_npx_dropout',)
    params = (Param('p', parse_float, 0.5, 'Fraction of the input dropped in training.'),
              Param('mode', choice('training', 'always'), 'training',
                    "Dropout only in training ('training') or in inference too ('always')."),
              Param('axes', parse_tuple, (), 'Axes sharing one random draw.'),
              Param('cudnn_off', parse_optional(parse_bool), False, 'Ignored (no cuDNN).'))
    backward_uses_inputs = False
    inplace = ((0, 0),)

    def check_params(self):
        if not 0 <= self.p <= 1:
            raise MXNetError('Dropout: p must be in [0, 1], found %s' % self.p)
        self.axes = tuple(self.axes or ())

    def list_outputs(self):
        return ['output', 'mask']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = data_shape('Dropout', in_shapes[0], out_shapes[0])
        if data is None:
            return [None], [None, out_shapes[1]], list(aux_shapes)
        mask = list(data)
        for axis in self.axes:
            if not -len(data) <= axis < len(data):
                raise ShapeError('Dropout: axis %d out of range for data of shape %s'
                                 % (axis, tuple(data)))
            mask[axis] = 1
        return [data], [data, tuple(mask)], list(aux_shapes)

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        x, out, mask = in_data[0], out_data[0], out_data[1]
        keep = np.float32(1) - np.float32(self.p)
        if keep < 1 and (is_train or self.mode == 'always'):
            if keep == 0:
                mask.fill(np.nan)       # MXNet computes 0 * (1 / 0)
            else:
                uniform = scratch('uniform', mask.shape, np.dtype(np.float32))
                _random.get_rng().random(out=uniform.reshape(-1), dtype=np.float32)
                np.less_equal(uniform, keep, out=mask)
                mask *= np.float32(1) / keep
            dst = work_buffer('fwd', out, req[0])
            np.multiply(x, mask, out=dst)
            if dst is not out:
                out += dst
        else:
            # pass-through; an all-ones mask keeps backward stateless
            mask.fill(1)
            if req[0] == 'add':
                out += x
            elif out is not x:
                np.copyto(out, x)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        dy, mask = out_grad[0], out_data[1]
        if req[0] == 'write':
            np.multiply(dy, mask, out=in_grad[0])
        else:
            in_grad[0] += dy * mask


# ---- Embedding --------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, error_model='numpy')
def _embedding_grad(rows, dy, dw):
    """dw[rows[r]] += dy[r] for every r (repeated rows accumulate)."""
    for r in range(rows.size):
        dst = dw[rows[r]]
        src = dy[r]
        for j in range(src.size):
            dst[j] += src[j]


_EMBEDDING_DTYPES = ('float32', 'float64', 'float16', 'uint8', 'int8', 'int32', 'int64')


@register
class Embedding(Operator):
    """Maps integer indices to rows of a weight matrix (word embeddings).

    ``data`` holds indices (any numeric dtype, truncated to integers); out-of-range
    indices are clipped to ``[0, input_dim - 1]``. The output has shape
    ``data.shape + (output_dim,)``. Only ``weight`` has a gradient: as in MXNet,
    requesting a gradient for ``data`` is an error.

    Examples
    --------
    >>> w = mx.nd.array([[0, 1], [2, 3], [4, 5]])
    >>> mx.nd.Embedding(mx.nd.array([2, 0]), w, input_dim=3, output_dim=2).asnumpy()
    array([[4., 5.],
           [0., 1.]], dtype=float32)
    """
    name = 'Embedding'
    aliases = ('_npx_embedding', '_sparse_Embedding')
    params = (Param('input_dim', parse_int, doc='Vocabulary size of the input indices.'),
              Param('output_dim', parse_int, doc='Dimension of the embedding vectors.'),
              Param('dtype', parse_dtype, np.dtype(np.float32), 'Data type of weight.'),
              Param('sparse_grad', parse_bool, False,
                    'Compute the weight gradient as row_sparse (the rows the batch uses).'))
    backward_uses_outputs = False

    def check_params(self):
        for what in ('input_dim', 'output_dim'):
            if getattr(self, what) < 1:
                raise MXNetError('Embedding: %s must be at least 1, found %d'
                                 % (what, getattr(self, what)))
        if self.dtype.name not in _EMBEDDING_DTYPES:
            raise MXNetError('Embedding: dtype must be one of %s, found %s'
                             % (', '.join(_EMBEDDING_DTYPES), self.dtype.name))

    def list_arguments(self):
        return ['data', 'weight']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is None and out is not None and len(out) >= 1:
            data = tuple(out[:-1])
        weight = expect_shape(in_shapes[1], (self.input_dim, self.output_dim), self.name,
                              'weight', 'input_dim=%d and output_dim=%d'
                              % (self.input_dim, self.output_dim))
        if data is None:
            return [None, weight], [out], list(aux_shapes)
        expected = tuple(data) + (self.output_dim,)
        out = expect_shape(out, expected, self.name, 'output', 'data %s' % (tuple(data),))
        data = unify(data, out[:-1])
        return [data, weight], [out], list(aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        dtype = next((t for t in (in_types[1], out_types[0]) if t is not None), self.dtype)
        if in_types[1] is not None and out_types[0] is not None \
                and np.dtype(in_types[1]) != np.dtype(out_types[0]):
            raise MXNetError('Embedding: weight dtype %s and output dtype %s differ'
                             % (np.dtype(in_types[1]).name, np.dtype(out_types[0]).name))
        return [in_types[0], dtype], [dtype], list(aux_types)

    def _rows(self, data):
        """The clipped integer row of every index (truncating non-integers, as C does)."""
        rows = scratch('rows', (data.size,), np.dtype(np.int64))
        with np.errstate(invalid='ignore'):
            np.copyto(rows, data.reshape(-1), casting='unsafe')
        np.clip(rows, 0, self.input_dim - 1, out=rows)
        return rows

    def check_in_range(self, data, what='Embedding'):
        """Raise MXNet's error when an index of ``data`` lies outside ``[0, input_dim - 1]``
        (compared as given, before truncation): the row-sparse gradient and the lookup
        in a row_sparse weight refuse such indices where the dense lookup clips them."""
        data = np.asarray(data)
        bad = (data < 0) | (data > self.input_dim - 1)
        if bad.any():
            raise MXNetError('%s input contains data out of bound: indices must lie in '
                             '[0, %d] (input_dim=%d), found %s'
                             % (what, self.input_dim - 1, self.input_dim, data[bad][0]))

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        rows = self._rows(in_data[0])
        if self.sparse_grad:
            # the rows a row-sparse weight gradient holds, every one looked up even where
            # its gradient sums to zero; a hybridized graph's tape entry reads them
            self.looked_up = rows.copy()
        out2 = out_data[0].reshape(rows.size, self.output_dim)
        dst = work_buffer('fwd', out2, req[0])
        np.take(in_data[1], rows, axis=0, out=dst)
        if dst is not out2:
            out2 += dst

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] != 'null':
            raise MXNetError("Embedding layer doesn't support calculate data gradient: "
                             "bind data with grad_req='null'")
        if req[1] == 'null':
            return
        if self.sparse_grad:
            self.check_in_range(in_data[0])
        rows = self._rows(in_data[0])
        dy = out_grad[0].reshape(rows.size, self.output_dim)
        dw = in_grad[1]
        if req[1] == 'write':
            dw.fill(0)
        if dw.dtype in (np.float32, np.float64) and dy.dtype == dw.dtype:
            _embedding_grad(rows, np.ascontiguousarray(dy), dw)
        else:
            np.add.at(dw, rows, dy)
