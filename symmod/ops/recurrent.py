"""The fused recurrent operator ``RNN``: vanilla RNN (relu/tanh), LSTM and GRU layers,
stacked and optionally bidirectional, run over a whole (time, batch, feature) sequence.

Numbers, parameter packing and error cases follow MXNet 1.9.1's CPU kernels
(src/operator/rnn-inl.h, rnn_impl.h). The per-direction time loops are in
:mod:`symmod.ops.recurrent_kernels`; this file declares the operator, lays out the flat
parameters and the reserve space, and stacks layers and directions. What backward
needs (gate activations, cell states, every layer's outputs, dropout masks) lives in a
reserve buffer kept in the operator's per-node state (MXNet's RNNOp state), so the node
has only MXNet's visible outputs.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int, parse_optional
from .. import random as _random
from .common import choice, expect_shape, scratch, store_from
from .join import Concat
from .recurrent_kernels import backward_direction, forward_direction, forward_projected_direction
from .registry import Operator, Param, ShapeError, register

__all__ = ['rnn_param_size']

_NUM_GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}


def rnn_param_size(mode, num_layers, input_size, state_size, bidirectional=False,
                   projection_size=None):
    """Length of the flat parameter vector of an ``RNN`` node (MXNet's GetRnnParamSize)."""
    dirs = 2 if bidirectional else 1
    width = state_size * dirs * _NUM_GATES[mode]
    rec = state_size if projection_size is None else projection_size
    first = (input_size + rec + 2) * width
    other = (rec * dirs + rec + 2) * width
    size = first + (num_layers - 1) * other
    if projection_size is not None:
        size += projection_size * state_size * num_layers * dirs
    return size


class _Layout(object):
    """Where each layer/direction's weights sit in the flat parameters, and how the
    reserve space is cut, for one (T, N, I) shape."""

    def __init__(self, mode, num_layers, dirs, T, N, I, H, dropout):
        G = _NUM_GATES[mode]
        self.T, self.N, self.I, self.H, self.G, self.dirs = T, N, I, H, G, dirs
        self.weights = []
        p = 0
        for layer in range(num_layers):
            width = I if layer == 0 else dirs * H
            row = []
            for _ in range(dirs):
                row.append(((p, G * H, width), (p + G * H * width, G * H, H)))
                p += G * H * (width + H)
            self.weights.append(row)
        self.biases = []
        for layer in range(num_layers):
            row = []
            for _ in range(dirs):
                row.append((p, p + G * H))
                p += 2 * G * H
            self.biases.append(row)
        self.param_size = p
        # reserve: per layer its output y (T, N, D*H); per direction its gates and
        # the cell states (lstm) or h2h candidate part (gru); dropout masks between layers
        seq = T * N * dirs * H
        gated = mode in ('lstm', 'gru')     # a vanilla RNN's backward needs only y
        per_dir_gates = T * N * G * H if gated else 0
        per_dir_extra = T * N * H if gated else 0
        self.reserve = []
        r = 0
        for layer in range(num_layers):
            entry = {'y': r}
            r += seq
            entry['gates'] = [r + d * per_dir_gates for d in range(dirs)]
            r += dirs * per_dir_gates
            entry['extra'] = [r + d * per_dir_extra for d in range(dirs)]
            r += dirs * per_dir_extra
            if dropout and layer < num_layers - 1:
                entry['mask'] = r
                r += seq
            self.reserve.append(entry)
        self.reserve_size = r


@register
class RNN(Operator):
    """Recurrent layers over a whole sequence: vanilla RNN, LSTM or GRU, stacked
    ``num_layers`` deep and optionally bidirectional.

    ``data`` is laid out (time, batch, feature). ``parameters`` is one flat vector:
    first the weights of every layer and direction (input-to-hidden then
    hidden-to-hidden, gates stacked in the order i, f, g, o for an LSTM and r, z, n
    for a GRU), then their biases in the same order. ``state`` (and ``state_cell``
    for an LSTM) has shape (num_layers * directions, batch, state_size). The output
    has shape (time, batch, directions * state_size); with ``state_outputs`` the
    final hidden (and cell) states are outputs too.

    The GRU is cuDNN's: the reset gate scales ``W_hn h + b_hn``. Dropout with
    probability ``p`` applies to each layer's output but the last, in training.

    Examples
    --------
    >>> x = mx.sym.Variable('data')
    >>> rnn = mx.sym.RNN(x, state_size=8, num_layers=2, mode='lstm', name='rnn')
    >>> rnn.list_arguments()
    ['data', 'rnn_parameters', 'rnn_state', 'rnn_state_cell']
    >>> rnn.infer_shape(data=(5, 3, 4))[0][1]
    (768,)
    """
    name = 'RNN'
    aliases = ('_npx_rnn',)
    stateful = True                 # the reserve space lives in the per-node state
    backward_uses_outputs = False   # backward reads the reserve space, not the outputs
    params = (Param('state_size', parse_int, doc='Size of the state of each layer.'),
              Param('num_layers', parse_int, doc='Number of stacked layers.'),
              Param('bidirectional', parse_bool, False, 'Whether layers run both ways.'),
              Param('mode', choice('rnn_relu', 'rnn_tanh', 'lstm', 'gru'),
                    doc='The recurrent cell type.'),
              Param('p', parse_float, 0.0, 'Dropout rate on the outputs of all layers '
                                            'but the last.'),
              Param('state_outputs', parse_bool, False, 'Return the final states too.'),
              Param('projection_size', parse_optional(parse_int), None,
                    'LSTM projection size (inference only on CPU).'),
              Param('lstm_state_clip_min', parse_optional(parse_float), None,
                    'Minimum LSTM cell state (GPU only; not supported).'),
              Param('lstm_state_clip_max', parse_optional(parse_float), None,
                    'Maximum LSTM cell state (GPU only; not supported).'),
              Param('lstm_state_clip_nan', parse_bool, False, 'Clip NaN cell states.'),
              Param('use_sequence_length', parse_bool, False,
                    'Take per-sample sequence lengths (GPU only; not supported).'))

    def check_params(self):
        if not 0 <= self.p <= 1:
            raise MXNetError('value %s for Parameter p exceed bound [0,1]' % self.p)
        if self.state_size < 0 or self.num_layers < 0:
            raise MXNetError('RNN: state_size and num_layers must be non-negative, found '
                             'state_size=%d, num_layers=%d'
                             % (self.state_size, self.num_layers))
        self.dirs = 2 if self.bidirectional else 1
        self.is_lstm = self.mode == 'lstm'
        self._layouts = {}
        self._dropped = False
        self._reserve_space = None

    # ---- names ---------------------------------------------------------------------
    def list_arguments(self):
        names = ['data', 'parameters', 'state']
        if self.is_lstm:
            names.append('state_cell')
        if self.use_sequence_length:
            names.append('sequence_length')
        return names

    def list_outputs(self):
        names = ['output']
        if self.state_outputs:
            names.append('state_output')
            if self.is_lstm:
                names.append('statecell_output')
        return names

    # ---- inference -----------------------------------------------------------------
    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ins, outs = list(in_shapes), list(out_shapes)
        data = ins[0]
        if data is None:
            return ins, outs, list(aux_shapes)
        if len(data) != 3:
            raise ShapeError('RNN: input data should be rank-3 tensor of dim [sequence '
                             'length, batch size, input size], found shape %s' % (tuple(data),))
        T, N, I = data
        H = self.state_size
        rec = H if self.projection_size is None else self.projection_size
        layers = self.num_layers * self.dirs
        reason = 'data %s, state_size=%d, num_layers=%d, bidirectional=%s' \
            % (tuple(data), H, self.num_layers, self.bidirectional)
        ins[2] = expect_shape(ins[2], (layers, N, rec), self.name, 'state', reason)
        if self.is_lstm:
            ins[3] = expect_shape(ins[3], (layers, N, H), self.name, 'state_cell', reason)
        if I:
            size = rnn_param_size(self.mode, self.num_layers, I, H, self.bidirectional,
                                  self.projection_size)
            ins[1] = expect_shape(ins[1], (size,), self.name, 'parameters',
                                  reason + ', mode=%s' % self.mode)
        if self.use_sequence_length:
            ins[-1] = expect_shape(ins[-1], (N,), self.name, 'sequence_length', reason)
        visible = [(T, N, self.dirs * rec)]
        if self.state_outputs:
            visible.append((layers, N, rec))
            if self.is_lstm:
                visible.append((layers, N, H))
        for i, shape in enumerate(visible):
            outs[i] = expect_shape(outs[i], shape, self.name, self.list_outputs()[i], reason)
        return ins, outs, list(aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        names = self.list_arguments()
        ins = list(in_types)
        for i, name in enumerate(names):
            if name == 'sequence_length':
                continue
            if ins[i] is None:
                ins[i] = dtype
            elif dtype is not None and ins[i] != dtype:
                raise MXNetError('RNN: type of %s (%s) does not match data (%s)'
                                 % (name, ins[i], dtype))
        return ins, [dtype] * len(out_types), list(aux_types)

    def _layout(self, T, N, I):
        key = (T, N, I)
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = _Layout(self.mode, self.num_layers, self.dirs, T, N,
                                                  I, self.state_size, self.p > 0)
        return layout

    # ---- state -----------------------------------------------------------------------
    def create_state(self, ctx, in_shapes, in_dtypes):
        """Allocate this node's reserve space (what backward reads: every layer's output,
        gate activations, cell states, dropout masks) for the bound data shape.

        Each executor, and each imperative call (on its own copy of the instance), gets
        its own buffer, so recorded calls and bucket executors never share one.
        """
        self._reserve_space = None
        data = in_shapes[0]
        if self.projection_size is None and data is not None and len(data) == 3 \
                and all(d > 0 for d in data):
            self._reserve_space = np.empty(self._layout(*data).reserve_size, in_dtypes[0])

    def _reserve_for(self, x):
        """The reserve space for data ``x``: the one made at bind time, or a new one when
        the instance runs on other shapes or dtypes (direct calls, reshaped data)."""
        size = self._layout(*x.shape).reserve_size
        space = self._reserve_space
        if space is None or space.size != size or space.dtype != x.dtype:
            space = self._reserve_space = np.empty(size, x.dtype)
        return space

    def _check_supported(self, is_train):
        if self.projection_size is not None:
            if self.mode != 'lstm':
                raise MXNetError('RNN: projection_size is only supported for LSTM, found '
                                 'mode=%s' % self.mode)
            if not 0 < self.projection_size <= self.state_size:
                raise MXNetError('RNN: projection_size must be in [1, state_size=%d], found %d'
                                 % (self.state_size, self.projection_size))
            if is_train:
                raise MXNetError('RNN: projection_size=%d: no training support for LSTM with '
                                 'projection on CPU (forward with is_train=False only)'
                                 % self.projection_size)
        if self.lstm_state_clip_min is not None or self.lstm_state_clip_max is not None:
            raise MXNetError('RNN: lstm_state_clip_min/lstm_state_clip_max: LSTM state '
                             'clipping is only supported for GPU with CuDNN later than 7.2.1')
        if self.use_sequence_length:
            raise MXNetError('RNN: use_sequence_length=True is only available for cuDNN, '
                             'not supported on CPU')
        if not 0 <= self.p < 1:
            raise MXNetError('RNN: unsupported dropout value p=%s, should be 0 <= p < 1'
                             % self.p)

    # ---- views -----------------------------------------------------------------------
    @staticmethod
    def _weights(flat, layout, layer, d):
        (pi, ri, ci), (ph, rh, ch) = layout.weights[layer][d]
        bi, bh = layout.biases[layer][d]
        G, H = layout.G, layout.H
        return (flat[pi:pi + ri * ci].reshape(ri, ci), flat[ph:ph + rh * ch].reshape(rh, ch),
                flat[bi:bi + G * H], flat[bh:bh + G * H])

    @staticmethod
    def _reserve(reserve, layout, layer):
        T, N, H, G = layout.T, layout.N, layout.H, layout.G
        entry = layout.reserve[layer]
        dirs = layout.dirs
        seq = T * N * dirs * H
        y = reserve[entry['y']:entry['y'] + seq].reshape(T, N, dirs * H)
        gates = extra = [None] * dirs     # a vanilla RNN keeps neither
        if G > 1:
            gates = [reserve[o:o + T * N * G * H].reshape(T, N, G * H) for o in entry['gates']]
            extra = [reserve[o:o + T * N * H].reshape(T, N, H) for o in entry['extra']]
        mask = None
        if 'mask' in entry:
            mask = reserve[entry['mask']:entry['mask'] + seq].reshape(T, N, dirs * H)
        return y, gates, extra, mask

    def _inputs(self, in_data):
        """Data, its layout, the flat parameters and the initial hidden and cell states
        (the cell states a list of None but for an LSTM)."""
        x, flat, hx = in_data[0], in_data[1], in_data[2]
        cx = in_data[3] if self.is_lstm else [None] * len(hx)
        return x, self._layout(*x.shape), flat, hx, cx

    # ---- forward ---------------------------------------------------------------------
    def forward(self, is_train, req, in_data, out_data, aux):
        self._check_supported(is_train)
        if self.projection_size is not None:
            self._forward_projected(req, in_data, out_data)
            return
        x, layout, flat, hx, cx = self._inputs(in_data)
        H, L, D = self.state_size, self.num_layers, self.dirs
        reserve = self._reserve_for(x)
        self._dropped = bool(is_train and self.p > 0)
        layer_in = x
        for layer in range(L):
            y, gates, extra, mask = self._reserve(reserve, layout, layer)
            for d in range(D):
                idx = layer * D + d
                wx, wh, bx, bh = self._weights(flat, layout, layer, d)
                h_last, c_last = forward_direction(
                    self.mode, layer_in, wx, wh, bx, bh, hx[idx], cx[idx], d == 1,
                    y[:, :, d * H:(d + 1) * H], gates[d], extra[d])
                if self.state_outputs:
                    store_from(out_data[1][idx], req[1], h_last)
                    if self.is_lstm:
                        store_from(out_data[2][idx], req[2], c_last)
            if layer < L - 1:
                if self._dropped:
                    keep = 1.0 - self.p
                    uniform = _random.get_rng().random(y.shape, dtype=np.float32)
                    np.greater_equal(uniform, np.float32(self.p), out=mask)
                    mask *= 1.0 / keep
                    layer_in = scratch('rnn_drop_in', y.shape, y.dtype)
                    np.multiply(y, mask, out=layer_in)
                else:
                    layer_in = y
        store_from(out_data[0], req[0], y)

    def _forward_projected(self, req, in_data, out_data):
        """Inference of an LSTM whose recurrent state is projected to projection_size:
        each layer/direction's weights are W_x (4H, in), W_h (4H, P), W_hr (P, H)."""
        x, flat, hx, cx = in_data[:4]
        T, N, I = x.shape
        H, P, L, D = self.state_size, self.projection_size, self.num_layers, self.dirs
        G = 4 * H
        pos, weights = 0, []
        for layer in range(L):
            width = I if layer == 0 else D * P
            for _ in range(D):
                wx = flat[pos:pos + G * width].reshape(G, width)
                pos += G * width
                wh = flat[pos:pos + G * P].reshape(G, P)
                pos += G * P
                whr = flat[pos:pos + P * H].reshape(P, H)
                pos += P * H
                weights.append((wx, wh, whr))
        layer_in = x
        for layer in range(L):
            y = np.empty((T, N, D * P), x.dtype)
            for d in range(D):
                idx = layer * D + d
                wx, wh, whr = weights[idx]
                bx = flat[pos:pos + G]
                bh = flat[pos + G:pos + 2 * G]
                pos += 2 * G
                r_last, c_last = forward_projected_direction(
                    layer_in, wx, wh, whr, bx, bh, hx[idx], cx[idx], d == 1,
                    y[:, :, d * P:(d + 1) * P])
                if self.state_outputs:
                    store_from(out_data[1][idx], req[1], r_last)
                    store_from(out_data[2][idx], req[2], c_last)
            layer_in = y
        store_from(out_data[0], req[0], layer_in)

    # ---- backward --------------------------------------------------------------------
    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self._check_supported(True)
        x, layout, flat, hx, cx = self._inputs(in_data)
        N, H, L, D = x.shape[1], self.state_size, self.num_layers, self.dirs
        reserve = self._reserve_space
        if reserve is None or reserve.size != layout.reserve_size or reserve.dtype != x.dtype:
            raise MXNetError('RNN: backward called before a training forward on data of '
                             'shape %s' % (x.shape,))
        dtype = x.dtype
        dy = out_grad[0]
        dhy = out_grad[1] if self.state_outputs else None
        dcy = out_grad[2] if self.state_outputs and self.is_lstm else None
        want_params = req[1] != 'null'
        # under 'write' the weight and data gradients are computed in the executor's
        # arrays themselves (every element of the flat weight gradient belongs to one
        # layer and direction, which writes it), not in new arrays copied over after
        dw = None
        if want_params:
            dw = in_grad[1] if _direct(in_grad[1], req[1], dtype) else \
                np.empty(layout.param_size, dtype)
        dhx = np.zeros((L * D, N, H), dtype)
        dcx = np.zeros((L * D, N, H), dtype) if self.is_lstm else None
        dx = None
        for layer in range(L - 1, -1, -1):
            y, gates, extra, _ = self._reserve(reserve, layout, layer)
            if layer == 0:
                layer_in = x
            else:
                prev_y, _, _, prev_mask = self._reserve(reserve, layout, layer - 1)
                layer_in = prev_y * prev_mask if self._dropped else prev_y
            dx = None
            if layer == 0 and _direct(in_grad[0], req[0], dtype):
                dx = in_grad[0]
            elif layer > 0 or req[0] != 'null':
                # two buffers in turn: this layer's dx is the next one's dy
                dx = scratch('rnn_dx%d' % (layer % 2), layer_in.shape, dtype)
            for d in range(D):
                idx = layer * D + d
                wx, wh, bx, bh = self._weights(flat, layout, layer, d)
                grads = None
                if want_params:
                    grads = self._weights(dw, layout, layer, d)
                dh0, dc0 = backward_direction(
                    self.mode, layer_in, wx, wh, hx[idx], cx[idx], d == 1,
                    y[:, :, d * H:(d + 1) * H], gates[d], extra[d], dy[:, :, d * H:(d + 1) * H],
                    dhy[idx] if dhy is not None else None,
                    dcy[idx] if dcy is not None else None, dx, grads,
                    dx_req='write' if d == 0 else 'add')
                dhx[idx] = dh0
                if self.is_lstm:
                    dcx[idx] = dc0
            if layer > 0:
                _, _, _, prev_mask = self._reserve(reserve, layout, layer - 1)
                dy = dx * prev_mask if self._dropped else dx
        if req[0] != 'null' and dx is not in_grad[0]:
            store_from(in_grad[0], req[0], dx)
        if want_params and dw is not in_grad[1]:
            store_from(in_grad[1], req[1], dw)
        store_from(in_grad[2], req[2], dhx)
        if self.is_lstm:
            store_from(in_grad[3], req[3], dcx)


def _direct(grad, req, dtype):
    """Whether a gradient can be computed in ``grad`` itself: a 'write' into a
    C-contiguous array of the computation's dtype (its views are then views)."""
    return req == 'write' and grad.dtype == dtype and grad.flags.c_contiguous


@register
class RNNParamConcat(Concat):
    """Concat for gluon's recurrent layers: joins the flattened weights and biases into
    the fused ``RNN`` parameter vector.

    Unlike ``Concat``, when the output length is known it also infers the length of one
    or two inputs left unknown (a deferred first-layer ``i2h_weight``), sharing the
    remainder equally between them.
    """
    name = '_rnn_param_concat'
    aliases = ('_npi_rnn_param_concat',)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ins, outs, aux = super(RNNParamConcat, self).infer_shape(in_shapes, out_shapes,
                                                                 aux_shapes)
        out = outs[0]
        if out is None or not ins or any(s is None for s in ins):
            return ins, outs, aux
        axis = self.dim % len(out)
        if not out[axis]:
            return ins, outs, aux
        unknown = [i for i, s in enumerate(ins) if not s[axis]]
        if not unknown:
            return ins, outs, aux
        residual = out[axis] - sum(s[axis] for s in ins if s[axis])
        if residual < 0:
            raise ShapeError('_rnn_param_concat: input size already exceeds output size '
                             '%d: residual %d' % (out[axis], residual))
        if len(unknown) > 2:
            raise ShapeError('_rnn_param_concat: expecting 1 or 2 inputs that need shape '
                             'inference, got %d' % len(unknown))
        for i in unknown:
            shape = list(ins[i])
            shape[axis] = residual // len(unknown)
            ins[i] = tuple(shape)
        return ins, outs, aux
