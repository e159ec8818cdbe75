"""The fused RNN operator: forward against a step-by-step numpy reference, backward
against finite differences, and both against MXNet 1.9.1's numbers
(tests/data/gen/gen_rnn_fused_reference.py)."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward, check_symbolic_forward)

TESTED_OPS = {'RNN', '_rnn_param_concat'}

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                    'rnn_fused_reference.npz')
GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}
MODES = ['rnn_relu', 'rnn_tanh', 'lstm', 'gru']


# ---- an independent step-by-step reference ------------------------------------------------
def unpack(flat, mode, layers, dirs, I, H):
    """[(layer, direction)] -> (W_x, W_h, b_x, b_h), read off the flat vector in
    MXNet's documented order: all weights, then all biases."""
    G = GATES[mode]
    pos, weights, biases = 0, {}, {}
    for layer in range(layers):
        width = I if layer == 0 else dirs * H
        for d in range(dirs):
            wx = flat[pos:pos + G * H * width].reshape(G * H, width)
            pos += G * H * width
            wh = flat[pos:pos + G * H * H].reshape(G * H, H)
            pos += G * H * H
            weights[layer, d] = (wx, wh)
    for layer in range(layers):
        for d in range(dirs):
            biases[layer, d] = (flat[pos:pos + G * H], flat[pos + G * H:pos + 2 * G * H])
            pos += 2 * G * H
    assert pos == flat.size
    return {k: weights[k] + biases[k] for k in weights}


def sigmoid(a):
    return 1 / (1 + np.exp(-a))


def cell_step(mode, x, h, c, wx, wh, bx, bh):
    H = h.shape[1]
    if mode in ('rnn_relu', 'rnn_tanh'):
        a = x @ wx.T + bx + h @ wh.T + bh
        return (np.maximum(a, 0) if mode == 'rnn_relu' else np.tanh(a)), None
    if mode == 'lstm':
        a = x @ wx.T + bx + h @ wh.T + bh
        i, f, g, o = (a[:, k * H:(k + 1) * H] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        return sigmoid(o) * np.tanh(c), c
    xa, ha = x @ wx.T + bx, h @ wh.T + bh
    r = sigmoid(xa[:, :H] + ha[:, :H])
    z = sigmoid(xa[:, H:2 * H] + ha[:, H:2 * H])
    n = np.tanh(xa[:, 2 * H:] + r * ha[:, 2 * H:])
    return (1 - z) * n + z * h, None


def reference(mode, x, flat, h0, c0=None, layers=1, bidirectional=False, masks=None):
    """Outputs, final hidden and cell states of the fused RNN, one step at a time."""
    x = x.astype(np.float64)
    T, _, I = x.shape
    H = h0.shape[2]
    dirs = 2 if bidirectional else 1
    pieces = unpack(flat.astype(np.float64), mode, layers, dirs, I, H)
    hy, cy = np.zeros(h0.shape), np.zeros(h0.shape)
    inputs = x
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            idx = layer * dirs + d
            h = h0[idx].astype(np.float64)
            c = None if c0 is None else c0[idx].astype(np.float64)
            seq = [None] * T
            for t in (range(T - 1, -1, -1) if d else range(T)):
                h, c = cell_step(mode, inputs[t], h, c, *pieces[layer, d])
                seq[t] = h
            hy[idx] = h
            if c is not None:
                cy[idx] = c
            outs.append(np.stack(seq))
        inputs = np.concatenate(outs, axis=2)
        if masks is not None and layer < layers - 1:
            inputs = inputs * masks[layer]
    return inputs, hy, cy


def make_inputs(mode, T, N, I, H, layers, bidirectional, rng, dtype=np.float64):
    dirs = 2 if bidirectional else 1
    sym = rnn_symbol(mode, H, layers, bidirectional)
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(data=(T, N, I))[0]))
    return {k: rng.uniform(-0.7, 0.7, s).astype(dtype) for k, s in shapes.items()}, dirs


def rnn_symbol(mode, H, layers, bidirectional, state_outputs=False, **kwargs):
    return mx.sym.RNN(mx.sym.var('data'), state_size=H, num_layers=layers, mode=mode,
                      bidirectional=bidirectional, state_outputs=state_outputs, name='rnn',
                      **kwargs)


def flat_outputs(sym):
    """All outputs of an RNN symbol joined into one vector (for single-output checks)."""
    parts = [mx.sym.reshape(sym[i], shape=(-1,)) for i in range(len(sym.list_outputs()))]
    return parts[0] if len(parts) == 1 else mx.sym.concat(*parts, dim=0)


# ---- names, shapes, types ---------------------------------------------------------------
@pytest.mark.parametrize('mode', MODES)
def test_arguments_outputs_and_shapes(mode):
    sym = rnn_symbol(mode, 4, 2, True, state_outputs=True)
    args = ['data', 'rnn_parameters', 'rnn_state'] + (['rnn_state_cell'] if mode == 'lstm'
                                                      else [])
    assert sym.list_arguments() == args
    outs = ['rnn_output', 'rnn_state_output'] + (['rnn_statecell_output']
                                                 if mode == 'lstm' else [])
    assert sym.list_outputs() == outs
    arg_shapes, out_shapes, _ = sym.infer_shape(data=(5, 3, 6))
    G = GATES[mode]
    size = G * 4 * 2 * ((6 + 4 + 2) + (8 + 4 + 2))
    assert arg_shapes[:3] == [(5, 3, 6), (size,), (4, 3, 4)]
    assert out_shapes[0] == (5, 3, 8) and out_shapes[1] == (4, 3, 4)
    assert rnn_symbol(mode, 4, 1, False).list_outputs() == ['rnn_output']


def test_infer_shape_checks_the_parameter_length():
    sym = rnn_symbol('gru', 4, 1, False)
    with pytest.raises(MXNetError, match='parameters'):
        sym.infer_shape(data=(5, 3, 6), rnn_parameters=(10,))
    with pytest.raises(MXNetError, match='rank-3'):
        sym.infer_shape(data=(5, 6))


def test_infer_type_and_sequence_length_argument():
    sym = rnn_symbol('lstm', 2, 1, False, use_sequence_length=True)
    assert sym.list_arguments()[-1] == 'rnn_sequence_length'
    shapes = sym.infer_shape(data=(3, 5, 4))[0]
    assert shapes[-1] == (5,)
    types = sym.infer_type(data=np.float64, rnn_sequence_length=np.int32)[0]
    assert types[:4] == [np.float64] * 4 and types[4] == np.int32


# ---- forward against the reference ------------------------------------------------------
# one sample: W_h^T used as a view; 6: above the batch that runs its time loop in numba
@pytest.mark.parametrize('batch', [3, 1, 6])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('layers,bidirectional', [(1, False), (2, False), (1, True),
                                                  (2, True)])
@pytest.mark.parametrize('mode', MODES)
def test_forward_matches_reference(mode, layers, bidirectional, dtype, batch):
    rng = np.random.RandomState(0)
    loc, _ = make_inputs(mode, 4, batch, 5, 3, layers, bidirectional, rng, dtype)
    sym = rnn_symbol(mode, 3, layers, bidirectional, state_outputs=True)
    out, hy, cy = reference(mode, loc['data'], loc['rnn_parameters'], loc['rnn_state'],
                            loc.get('rnn_state_cell'), layers, bidirectional)
    expected = [out, hy] + ([cy] if mode == 'lstm' else [])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for is_train in (False, True):
        exe = sym.bind(mx.cpu(), {k: mx.nd.array(v, dtype=dtype) for k, v in loc.items()})
        exe.forward(is_train=is_train)
        for got, want in zip(exe.outputs, expected):
            assert got.dtype == dtype
            assert_almost_equal(got.asnumpy(), want, rtol=tol, atol=tol)


def test_imperative_call():
    rng = np.random.RandomState(1)
    loc, _ = make_inputs('lstm', 3, 2, 4, 5, 1, False, rng, np.float32)
    arrays = [mx.nd.array(loc[k]) for k in ('data', 'rnn_parameters', 'rnn_state',
                                            'rnn_state_cell')]
    out = mx.nd.RNN(*arrays, state_size=5, num_layers=1, mode='lstm')
    assert isinstance(out, mx.nd.NDArray)
    want = reference('lstm', loc['data'], loc['rnn_parameters'], loc['rnn_state'],
                     loc['rnn_state_cell'])[0]
    assert_almost_equal(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    out, hy, cy = mx.nd.RNN(*arrays, state_size=5, num_layers=1, mode='lstm',
                            state_outputs=True)
    assert hy.shape == cy.shape == (1, 2, 5)


# ---- backward ----------------------------------------------------------------------------
@pytest.mark.parametrize('mode,layers,bidirectional', [
    ('rnn_tanh', 2, True), ('rnn_relu', 2, False), ('lstm', 2, True), ('lstm', 1, False),
    ('gru', 2, True), ('gru', 1, False)])
def test_numeric_gradient(mode, layers, bidirectional):
    rng = np.random.RandomState(2)
    loc, _ = make_inputs(mode, 3, 2, 3, 2, layers, bidirectional, rng)
    if mode == 'rnn_relu':
        loc['rnn_parameters'] = np.abs(loc['rnn_parameters']) + 0.05   # stay off the kink
        loc['data'] = np.abs(loc['data'])
    sym = flat_outputs(rnn_symbol(mode, 2, layers, bidirectional, state_outputs=True))
    check_numeric_gradient(sym, loc, numeric_eps=1e-6, rtol=1e-5, atol=1e-7,
                           dtype=np.float64)


@pytest.mark.parametrize('mode', ['lstm', 'gru', 'rnn_tanh'])
def test_backward_grad_req_add_and_null(mode):
    rng = np.random.RandomState(3)
    loc, _ = make_inputs(mode, 3, 2, 3, 2, 2, True, rng)
    sym = rnn_symbol(mode, 2, 2, True)
    head = rng.uniform(-1, 1, (3, 2, 4))
    names = sym.list_arguments()
    args = {k: mx.nd.array(v, dtype=np.float64) for k, v in loc.items()}
    grads = {k: mx.nd.zeros(v.shape, dtype=np.float64) for k, v in loc.items()}
    exe = sym.bind(mx.cpu(), args, args_grad=grads)
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(head, dtype=np.float64)])
    written = {k: grads[k].asnumpy() for k in names}
    start = {k: rng.uniform(-1, 1, v.shape) for k, v in loc.items()}
    req = {k: 'add' for k in names}
    req['rnn_state'] = 'null'
    expected = {k: (written[k] + start[k] if req[k] == 'add' else start[k]) for k in names}
    grads = {k: mx.nd.array(start[k], dtype=np.float64) for k in names}
    exe = sym.bind(mx.cpu(), args, args_grad=grads, grad_req=req)
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(head, dtype=np.float64)])
    for k in names:
        assert_almost_equal(grads[k].asnumpy(), expected[k], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('mode,layers,bidirectional', [
    ('lstm', 3, False), ('lstm', 2, True), ('gru', 3, True), ('rnn_tanh', 1, False)])
def test_backward_write_fills_every_gradient_element(mode, layers, bidirectional, dtype):
    """Under 'write' the weight and data gradients are computed in the bound gradient
    arrays themselves, without zeroing them first: arrays full of NaN end up with the
    numbers that arrays full of zeros get, on the first backward and on a second one."""
    rng = np.random.RandomState(7)
    T, N, I, H = 4, 3, 5, 5
    loc, dirs = make_inputs(mode, T, N, I, H, layers, bidirectional, rng)
    sym = rnn_symbol(mode, H, layers, bidirectional)
    head = mx.nd.array(rng.uniform(-1, 1, (T, N, dirs * H)), dtype=dtype)
    args = {k: mx.nd.array(v, dtype=dtype) for k, v in loc.items()}
    results = []
    for fill in (np.nan, 0.0):
        grads = {k: mx.nd.full(v.shape, fill, dtype=dtype) for k, v in loc.items()}
        exe = sym.bind(mx.cpu(), args, args_grad=grads)
        passes = []
        for _ in range(2):
            exe.forward(is_train=True)
            exe.backward([head])
            passes.append({k: g.asnumpy().copy() for k, g in grads.items()})
        results.append(passes)
    for k in loc:
        assert not np.isnan(results[0][0][k]).any(), k
        for first, second in zip(results[0], results[1]):
            np.testing.assert_array_equal(first[k], second[k], err_msg=k)
        np.testing.assert_array_equal(results[0][0][k], results[0][1][k], err_msg=k)


@pytest.mark.parametrize('mode,bidirectional', [('lstm', False), ('gru', True)])
def test_numeric_gradient_three_layers_of_one_width(mode, bidirectional):
    """Three layers whose inputs all have one shape: each layer's data gradient (the
    next lower layer's output gradient) lives in a buffer of its own."""
    rng = np.random.RandomState(8)
    width = 2 if bidirectional else 4       # layer input = dirs * H = I
    H = width // (2 if bidirectional else 1)
    loc, _ = make_inputs(mode, 3, 2, width, H, 3, bidirectional, rng)
    sym = flat_outputs(rnn_symbol(mode, H, 3, bidirectional, state_outputs=True))
    check_numeric_gradient(sym, loc, numeric_eps=1e-6, rtol=1e-5, atol=1e-7,
                           dtype=np.float64)


def _train_and_infer(sym, loc, heads, dtype):
    """Training outputs, the gradients of every argument (sorted by name) and the
    inference outputs of ``sym`` on ``loc`` in ``dtype``."""
    args = {k: mx.nd.array(v, dtype=dtype) for k, v in loc.items()}
    grads = {k: mx.nd.zeros(v.shape, dtype=dtype) for k, v in loc.items()}
    exe = sym.bind(mx.cpu(), args, args_grad=grads)
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(h, dtype=dtype) for h in heads])
    assert all(o.dtype == dtype for o in exe.outputs)
    inference = sym.bind(mx.cpu(), args).forward(is_train=False)
    return ([o.asnumpy() for o in exe.outputs] + [grads[k].asnumpy() for k in sorted(loc)]
            + [o.asnumpy() for o in inference])


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_float16_follows_float32(mode):
    """float16 takes the numpy path (the fused step kernels are float32/float64 only)."""
    rng = np.random.RandomState(5)
    loc, _ = make_inputs(mode, 4, 3, 3, 2, 2, True, rng)
    sym = rnn_symbol(mode, 2, 2, True)
    head = rng.uniform(-1, 1, (4, 3, 4))
    results = {dtype: _train_and_infer(sym, loc, [head], dtype)
               for dtype in (np.float16, np.float32)}
    for half, single in zip(results[np.float16], results[np.float32]):
        assert_almost_equal(half.astype(np.float32), single, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize('batch', [4, 6])     # time loop in numba / in Python
@pytest.mark.parametrize('mode,bidirectional', [('lstm', False), ('lstm', True),
                                                ('gru', False), ('gru', True)])
def test_float32_step_kernels_follow_float64(mode, bidirectional, batch):
    """float32 runs whole time steps in numba (fast_math's tanh and logistic); float64
    takes the numpy path the numeric-gradient checks above cover."""
    rng = np.random.RandomState(6)
    loc, _ = make_inputs(mode, 5, batch, 6, 7, 2, bidirectional, rng)
    loc['data'] = loc['data'] * 3            # gates across their whole range
    sym = rnn_symbol(mode, 7, 2, bidirectional, state_outputs=True)
    dirs = 2 if bidirectional else 1
    heads = [rng.uniform(-1, 1, s) for s in sym.infer_shape(
        **{k: v.shape for k, v in loc.items()})[1]]
    results = {dtype: _train_and_infer(sym, loc, heads, dtype)
               for dtype in (np.float64, np.float32)}
    assert dirs * 7 == results[np.float32][0].shape[-1]
    for single, double in zip(results[np.float32], results[np.float64]):
        assert_almost_equal(single, double, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('small', [None, 3000])
@pytest.mark.parametrize('batch', [3, 6])
@pytest.mark.parametrize('mode,bidirectional', [('lstm', False), ('lstm', True),
                                                ('gru', False), ('gru', True)])
def test_float32_loops_with_and_without_numpy_sgemm(monkeypatch, mode, bidirectional, batch,
                                                    small):
    """float32 LSTM and GRU backward loops (and forward loops over 4 samples) run whole
    in numba, calling numpy's sgemm (symmod.ops.blas_numba) in blocks of at most
    ``SMALL`` multiply-adds; without that sgemm they loop in Python around numpy's
    products. Both give the same numbers."""
    from symmod.ops import blas_numba
    if not blas_numba.AVAILABLE:
        pytest.skip("numpy's BLAS exports no 64-bit-integer cblas_sgemm")
    rng = np.random.RandomState(9)
    loc, dirs = make_inputs(mode, 5, batch, 6, 7, 2, bidirectional, rng)
    loc['data'] = loc['data'] * 3
    sym = rnn_symbol(mode, 7, 2, bidirectional, state_outputs=True)
    heads = [rng.uniform(-1, 1, s) for s in sym.infer_shape(
        **{k: v.shape for k, v in loc.items()})[1]]
    if small is not None:           # blocks of the step products, whatever the BLAS core
        from symmod.ops import recurrent_kernels
        monkeypatch.setattr(recurrent_kernels, '_step_blocks', lambda: small)
    fast = _train_and_infer(sym, loc, heads, np.float32)
    monkeypatch.setattr(blas_numba, 'AVAILABLE', False)
    plain = _train_and_infer(sym, loc, heads, np.float32)
    for a, b in zip(fast, plain):
        assert_almost_equal(a, b, rtol=1e-5, atol=1e-6)


def test_step_products_split_only_at_one_blas_thread(monkeypatch):
    """OpenBLAS's small-matrix kernels run on one thread: with more BLAS threads the time
    loops pass each step's product whole."""
    from symmod import threads
    from symmod.ops import blas_numba, recurrent_kernels
    monkeypatch.setattr(blas_numba, 'SMALL', 12345)
    for blas, expected in ((1, 12345), (2, 0), (None, 0)):
        monkeypatch.setattr(threads, 'info', lambda: {'blas': blas})
        assert recurrent_kernels._step_blocks() == expected


@pytest.mark.parametrize('mode,bidirectional', [('lstm', False), ('lstm', True),
                                                ('gru', True)])
def test_float32_loop_grad_req_null_and_add(mode, bidirectional):
    """The numba backward loops with no parameter gradient wanted and the data and state
    gradients added, against float64's numpy path."""
    rng = np.random.RandomState(10)
    loc, dirs = make_inputs(mode, 4, 6, 5, 6, 2, bidirectional, rng)
    sym = rnn_symbol(mode, 6, 2, bidirectional)
    head = rng.uniform(-1, 1, (4, 6, dirs * 6))
    names = sym.list_arguments()
    req = {k: 'add' for k in names}
    req['rnn_parameters'] = 'null'
    start = {k: rng.uniform(-1, 1, v.shape) for k, v in loc.items()}
    results = {}
    for dtype in (np.float64, np.float32):
        args = {k: mx.nd.array(v, dtype=dtype) for k, v in loc.items()}
        grads = {k: mx.nd.array(start[k], dtype=dtype) for k in names}
        exe = sym.bind(mx.cpu(), args, args_grad=grads, grad_req=req)
        exe.forward(is_train=True)
        exe.backward([mx.nd.array(head, dtype=dtype)])
        results[dtype] = {k: grads[k].asnumpy() for k in names}
    for k in names:
        assert_almost_equal(results[np.float32][k], results[np.float64][k], rtol=1e-4,
                            atol=1e-5)
    np.testing.assert_array_equal(results[np.float32]['rnn_parameters'],
                                  start['rnn_parameters'].astype(np.float32))
    assert not np.allclose(results[np.float32]['data'], start['data'])


def test_fast_math_tanh_and_logistic():
    from numba import njit
    from symmod.ops import fast_math

    @njit
    def apply(x, t, s):
        for i in range(x.size):
            t[i] = fast_math.tanh(x[i])
            s[i] = fast_math.sigmoid(x[i])

    x = np.concatenate([np.linspace(-30, 30, 200001), np.logspace(-30, 1, 1000),
                        -np.logspace(-30, 1, 1000), [0.0, np.inf, -np.inf]]).astype(np.float32)
    t, s = np.empty_like(x), np.empty_like(x)
    apply(x, t, s)
    x64 = x.astype(np.float64)
    exact_t = np.tanh(x64)
    assert np.abs(t - exact_t).max() < 3e-7
    small = np.abs(x64) < 1e-2
    assert (np.abs(t - exact_t)[small] / np.abs(x64[small]).clip(1e-38)).max() < 1e-6
    with np.errstate(over='ignore'):
        assert np.abs(s - 1 / (1 + np.exp(-x64))).max() < 2e-7
    t, s = np.empty(1, np.float32), np.empty(1, np.float32)
    apply(np.array([np.nan], np.float32), t, s)
    assert np.isnan(t[0]) and np.isnan(s[0])


# ---- dropout between layers ----------------------------------------------------------------
def test_dropout_between_layers_in_training_only():
    rng = np.random.RandomState(4)
    T, N, I, H, p = 3, 4, 3, 5, 0.4
    loc, _ = make_inputs('gru', T, N, I, H, 2, True, rng)
    sym = rnn_symbol('gru', H, 2, True, p=p)
    exe = sym.bind(mx.cpu(), {k: mx.nd.array(v, dtype=np.float64) for k, v in loc.items()},
                   args_grad={k: mx.nd.zeros(v.shape, dtype=np.float64)
                              for k, v in loc.items()})
    exe.forward(is_train=False)
    plain = reference('gru', loc['data'], loc['rnn_parameters'], loc['rnn_state'],
                      layers=2, bidirectional=True)[0]
    assert_almost_equal(exe.outputs[0].asnumpy(), plain, rtol=1e-12, atol=1e-12)
    # in training the mask is drawn from symmod's generator: redraw it to check the numbers
    mx.random.seed(11)
    exe.forward(is_train=True)
    mx.random.seed(11)
    keep = mx.random.get_rng().random((T, N, 2 * H), dtype=np.float32) >= np.float32(p)
    mask = keep / (1 - p)
    assert 0 < keep.mean() < 1
    dropped = reference('gru', loc['data'], loc['rnn_parameters'], loc['rnn_state'],
                        layers=2, bidirectional=True, masks=[mask])[0]
    assert_almost_equal(exe.outputs[0].asnumpy(), dropped, rtol=1e-12, atol=1e-12)
    assert not np.allclose(dropped, plain)
    # backward with that mask against finite differences of the reference
    head = rng.uniform(-1, 1, dropped.shape)
    exe.backward([mx.nd.array(head, dtype=np.float64)])
    x = loc['data'].copy()
    numeric = np.zeros(x.size)
    flat = x.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        values = []
        for step in (1e-6, -1e-6):
            flat[i] = old + step
            values.append(np.sum(head * reference('gru', x, loc['rnn_parameters'],
                                                  loc['rnn_state'], layers=2,
                                                  bidirectional=True, masks=[mask])[0]))
        flat[i] = old
        numeric[i] = (values[0] - values[1]) / 2e-6
    assert_almost_equal(exe.grad_dict['data'].asnumpy().reshape(-1), numeric, rtol=1e-5,
                        atol=1e-8)


# ---- against MXNet 1.9.1 ------------------------------------------------------------------
def _reference_keys():
    with np.load(DATA) as z:
        return sorted({k.split('/')[0] for k in z.files if '/' in k})


@pytest.fixture(scope='module')
def mxnet_ref():
    with np.load(DATA) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize('key', _reference_keys())
def test_against_mxnet(mxnet_ref, key):
    meta = json.loads(str(mxnet_ref[key + '/meta']))
    dtype = np.dtype(meta['dtype'])
    sym = rnn_symbol(meta['mode'], 3, meta['num_layers'], meta['bidirectional'],
                     meta['state_outputs'])
    assert sym.list_arguments() == meta['arguments']
    assert sym.list_outputs() == meta['outputs']
    arg_shapes, out_shapes, _ = sym.infer_shape(data=tuple(meta['arg_shapes'][0]))
    assert [list(s) for s in arg_shapes] == meta['arg_shapes']
    assert [list(s) for s in out_shapes] == meta['out_shapes']
    names = meta['arguments']
    location = {n: mxnet_ref[key + '/arg_' + n] for n in names}
    n_out = len(meta['outputs'])
    # MXNet's relu RNN rounds its float64 outputs through float32 (a cast in its kernel)
    tol = 1e-5 if dtype == np.float32 or meta['mode'] == 'rnn_relu' else 1e-10
    check_symbolic_forward(sym, location, [mxnet_ref[key + '/out%d' % i] for i in range(n_out)],
                           rtol=tol, atol=tol, dtype=dtype)
    check_symbolic_backward(sym, location, [mxnet_ref[key + '/head%d' % i]
                                            for i in range(n_out)],
                            {n: mxnet_ref[key + '/grad_' + n] for n in names},
                            rtol=tol, atol=tol, dtype=dtype)


# ---- what MXNet's CPU build rejects ---------------------------------------------------------
@pytest.mark.parametrize('kwargs,match', [
    ({'projection_size': 2}, 'projection_size'),     # inference only, see below
    ({'lstm_state_clip_min': -1.0, 'lstm_state_clip_max': 1.0}, 'lstm_state_clip'),
    ({'use_sequence_length': True}, 'use_sequence_length'),
    ({'p': 1.0, 'num_layers': 2}, 'dropout'),
])
def test_cpu_unsupported_options_raise(kwargs, match):
    params = dict(state_size=3, num_layers=1, mode='lstm')
    params.update(kwargs)
    sym = mx.sym.RNN(mx.sym.var('data'), name='rnn', **params)
    sym.infer_shape(data=(2, 3, 4))     # shapes are still inferred, as in MXNet
    exe = sym.simple_bind(mx.cpu(), data=(2, 3, 4))
    with pytest.raises(MXNetError, match=match):
        exe.forward(is_train=True)[0].asnumpy()     # raised at the read, as MXNet


@pytest.mark.parametrize('key', ['proj_l1_b0', 'proj_l2_b1'])
def test_lstm_projection_inference_against_mxnet(mxnet_ref, key):
    meta = json.loads(str(mxnet_ref[key + '@meta']))
    sym = rnn_symbol('lstm', 3, meta['num_layers'], meta['bidirectional'], True,
                     projection_size=2)
    arg_shapes, out_shapes, _ = sym.infer_shape(data=tuple(meta['arg_shapes'][0]))
    assert [list(s) for s in arg_shapes] == meta['arg_shapes']
    assert [list(s) for s in out_shapes] == meta['out_shapes']
    args = {n: mx.nd.array(mxnet_ref[key + '@arg_' + n], dtype=np.float64)
            for n in sym.list_arguments()}
    exe = sym.bind(mx.cpu(), args)
    exe.forward(is_train=False)
    for i, out in enumerate(exe.outputs):
        assert_almost_equal(out.asnumpy(), mxnet_ref[key + '@out%d' % i], rtol=1e-12,
                            atol=1e-12)
    # without state outputs (MXNet's kernel crashes there) the output is the same
    plain = rnn_symbol('lstm', 3, meta['num_layers'], meta['bidirectional'],
                       projection_size=2)
    exe = plain.bind(mx.cpu(), args)
    exe.forward(is_train=False)
    assert_almost_equal(exe.outputs[0].asnumpy(), mxnet_ref[key + '@out0'], rtol=1e-12,
                        atol=1e-12)


def test_projection_needs_lstm():
    sym = rnn_symbol('gru', 3, 1, False, projection_size=2)
    exe = sym.simple_bind(mx.cpu(), data=(2, 3, 4))
    with pytest.raises(MXNetError, match='projection_size is only supported for LSTM'):
        exe.forward(is_train=False)[0].asnumpy()    # raised at the read, as MXNet


@pytest.mark.parametrize('kwargs,match', [
    ({'mode': 'foo'}, 'mode'),
    ({'p': -0.5}, 'p'),
    ({'p': 1.5}, 'p'),
])
def test_bad_parameters(kwargs, match):
    params = dict(state_size=3, num_layers=1, mode='lstm')
    params.update(kwargs)
    with pytest.raises(MXNetError, match=match):
        mx.sym.RNN(mx.sym.var('data'), **params)


def test_missing_num_layers():
    with pytest.raises(MXNetError, match='num_layers'):
        mx.sym.RNN(mx.sym.var('data'), state_size=3, mode='lstm')


# ---- _rnn_param_concat (gluon's parameter joining) ----------------------------------------
def test_rnn_param_concat_joins_and_splits_gradients():
    rng = np.random.RandomState(6)
    a, b = rng.uniform(size=(5,)), rng.uniform(size=(3,))
    sym = mx.sym._internal._rnn_param_concat(mx.sym.var('a'), mx.sym.var('b'), dim=0)
    check_symbolic_forward(sym, {'a': a, 'b': b}, [np.concatenate([a, b])], dtype=np.float64)
    head = rng.uniform(size=(8,))
    check_symbolic_backward(sym, {'a': a, 'b': b}, [head], {'a': head[:5], 'b': head[5:]},
                            dtype=np.float64)


def test_rnn_param_concat_infers_deferred_inputs():
    a, b, c = mx.sym.var('a'), mx.sym.var('b'), mx.sym.var('c')
    cat = mx.sym._internal._rnn_param_concat(a, b, dim=0)
    rnn = mx.sym.RNN(mx.sym.var('data'), cat, mx.sym.var('state'), state_size=2,
                     num_layers=1, mode='rnn_tanh')
    arg_shapes = rnn.infer_shape(data=(3, 1, 4), b=(6,))[0]
    assert arg_shapes[1] == (10,)     # (4 + 2 + 2) * 2 - 6
    two = mx.sym._internal._rnn_param_concat(a, b, c, dim=0)
    shapes = two.infer_shape_partial(c=(4,))[0]
    assert shapes == [(0,), (0,), (4,)] or shapes == [None, None, (4,)]
    with pytest.raises(MXNetError, match='exceeds'):
        mx.sym.RNN(mx.sym.var('data'), cat, mx.sym.var('state'), state_size=2,
                   num_layers=1, mode='rnn_tanh').infer_shape(data=(3, 1, 4), b=(20,))
