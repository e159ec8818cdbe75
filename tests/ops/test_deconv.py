"""Deconvolution against a direct scatter reference, the adjoint of Convolution, finite
differences and MXNet 1.9.1's recorded results (tests/data/ops_deconv_sort_reference.npz)."""
import itertools

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from recorded_cases import case_names, replay_with_shapes

TESTED_OPS = {'Deconvolution'}

DTYPES = [np.float32, np.float64]
REFERENCE = 'ops_deconv_sort_reference.npz'


# ---- MXNet's recorded results -----------------------------------------------------------------
@pytest.mark.parametrize('name', case_names(REFERENCE, TESTED_OPS))
def test_matches_mxnet_reference(name):
    replay_with_shapes(REFERENCE, name, tol=1e-4)


# ---- an independent reference: scatter every input value through the kernel -------------------
def deconv_reference(x, w, b, stride, pad, dilate, adj, groups):
    """Transposed convolution written as its definition: each input position adds
    ``x * w`` at ``stride * position + dilate * kernel offset`` of the padded output."""
    n, c = x.shape[:2]
    nd = x.ndim - 2
    k = w.shape[2:]
    fg = w.shape[1]
    cg = c // groups
    full = [stride[i] * (x.shape[2 + i] - 1) + dilate[i] * (k[i] - 1) + 1 + adj[i]
            for i in range(nd)]
    out = np.zeros((n, fg * groups) + tuple(full))
    for pos in itertools.product(*[range(s) for s in x.shape[2:]]):
        for off in itertools.product(*[range(s) for s in k]):
            at = tuple(stride[i] * pos[i] + dilate[i] * off[i] for i in range(nd))
            for g in range(groups):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + pos]       # (n, cg)
                ws = w[(slice(g * cg, (g + 1) * cg), slice(None)) + off]       # (cg, fg)
                out[(slice(None), slice(g * fg, (g + 1) * fg)) + at] += xs @ ws
    crop = tuple(slice(p, f - p) for p, f in zip(pad, full))
    out = out[(slice(None), slice(None)) + crop]
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nd)
    return out


CASES = [
    # data shape, kernel, stride, pad, dilate, adj, num_filter, num_group, no_bias
    ((2, 3, 4, 5), (3, 3), (1, 1), (0, 0), (1, 1), (0, 0), 4, 1, True),
    ((2, 4, 3, 4), (4, 3), (2, 3), (1, 1), (1, 1), (1, 2), 6, 1, False),
    ((1, 4, 5, 4), (3, 2), (2, 2), (2, 0), (2, 3), (1, 0), 6, 2, True),
    ((3, 6, 3, 3), (2, 2), (2, 2), (0, 0), (1, 1), (0, 0), 3, 3, False),
    ((3, 2, 6), (3,), (2,), (1,), (1,), (1,), 4, 1, False),
    ((2, 3, 5), (2,), (3,), (0,), (2,), (2,), 2, 1, True),
    ((2, 2, 3, 2, 3), (2, 3, 2), (2, 1, 2), (0, 1, 1), (1, 1, 1), (1, 0, 0), 4, 2, False),
]


def _params(case):
    _, kernel, stride, pad, dilate, adj, num_filter, num_group, no_bias = case
    return dict(kernel=kernel, stride=stride, pad=pad, dilate=dilate, adj=adj,
                num_filter=num_filter, num_group=num_group, no_bias=no_bias)


def _inputs(case, dtype=np.float64):
    shape, kernel, _, _, _, _, num_filter, num_group, no_bias = case
    x = np.random.randn(*shape).astype(dtype)
    w = np.random.randn(shape[1], num_filter // num_group, *kernel).astype(dtype)
    b = None if no_bias else np.random.randn(num_filter).astype(dtype)
    return x, w, b


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('case', CASES)
def test_deconvolution_forward(case, dtype):
    x, w, b = _inputs(case, dtype)
    p = _params(case)
    args = [mx.nd.array(a, dtype=dtype) for a in (x, w, b) if a is not None]
    y = mx.nd.Deconvolution(*args, **p)
    expected = deconv_reference(x.astype(np.float64), w, b, p['stride'], p['pad'],
                                p['dilate'], p['adj'], p['num_group'])
    tol = 1e-4 if dtype == np.float32 else 1e-10
    assert y.dtype == dtype and y.shape == expected.shape
    assert_almost_equal(y.asnumpy(), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize('case', [c for c in CASES if c[-1]])     # no bias: a linear map
def test_deconvolution_is_the_adjoint_of_convolution(case):
    x, w, _ = _inputs(case)
    p = _params(case)
    y = mx.nd.Deconvolution(mx.nd.array(x, dtype=np.float64), mx.nd.array(w, dtype=np.float64),
                            **p).asnumpy()
    r = np.random.randn(*y.shape)
    conv = mx.nd.Convolution(mx.nd.array(r, dtype=np.float64), mx.nd.array(w, dtype=np.float64),
                             kernel=p['kernel'], stride=p['stride'], pad=p['pad'],
                             dilate=p['dilate'], num_filter=x.shape[1],
                             num_group=p['num_group'], no_bias=True).asnumpy()
    # <deconv(x), r> == <x, conv(r)>: the deconvolution is the convolution's transpose
    assert conv.shape == x.shape
    assert abs(np.vdot(y, r) - np.vdot(x, conv)) < 1e-9 * (1 + abs(np.vdot(y, r)))


@pytest.mark.parametrize('case', CASES)
def test_deconvolution_numeric_gradient(case):
    x, w, b = _inputs(case)
    sym = mx.sym.Deconvolution(mx.sym.Variable('data'), name='dc', **_params(case))
    location = [a for a in (x, w, b) if a is not None]
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


@pytest.mark.parametrize('case', [CASES[1], CASES[2], CASES[4]])
def test_deconvolution_backward_add_accumulates(case):
    x, w, b = _inputs(case)
    sym = mx.sym.Deconvolution(mx.sym.Variable('data'), name='dc', **_params(case))
    names = sym.list_arguments()
    values = dict(zip(names, [a for a in (x, w, b) if a is not None]))
    grads, dy = {}, None
    for req in ('write', 'add'):
        ex = sym.bind(mx.cpu(), args={k: mx.nd.array(v, dtype=np.float64)
                                      for k, v in values.items()},
                      args_grad={k: mx.nd.full(v.shape, 0.5, dtype=np.float64)
                                 for k, v in values.items()}, grad_req=req)
        out = ex.forward(is_train=True)[0]
        dy = np.random.randn(*out.shape) if dy is None else dy
        ex.backward(mx.nd.array(dy, dtype=np.float64))
        grads[req] = {k: ex.grad_dict[k].asnumpy() - (0.5 if req == 'add' else 0)
                      for k in names}
    for k in names:
        assert_almost_equal(grads['add'][k], grads['write'][k], rtol=1e-10, atol=1e-10)


def test_deconvolution_target_shape_sets_pad_and_adj():
    x = np.random.randn(2, 2, 4, 4)
    w = np.random.randn(2, 3, 3, 3)
    data = mx.sym.Variable('data')
    for target, pad, adj in (((8, 7), (1, 1), (1, 0)), ((9, 9), (0, 0), (0, 0)),
                             ((7, 6), (1, 2), (0, 1))):
        sym = mx.sym.Deconvolution(data, kernel=(3, 3), stride=(2, 2), pad=(4, 4), adj=(0, 0),
                                   target_shape=target, num_filter=3, name='dc')
        _, outs, _ = sym.infer_shape(data=x.shape)
        assert outs == [(2, 3) + target]
        y = mx.nd.Deconvolution(mx.nd.array(x, dtype=np.float64),
                                mx.nd.array(w, dtype=np.float64), kernel=(3, 3), stride=(2, 2),
                                target_shape=target, num_filter=3)
        # pad/adj chosen as MXNet does: half the excess (rounded up) cut from each side
        assert_almost_equal(y.asnumpy(), deconv_reference(x, w, None, (2, 2), pad, (1, 1), adj,
                                                          1), rtol=1e-10, atol=1e-10)


def test_deconvolution_defaults_and_shape_inference():
    data = mx.sym.Variable('data')
    sym = mx.sym.Deconvolution(data, kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=8,
                               name='up')
    assert sym.list_arguments() == ['data', 'up_weight']         # no_bias defaults to True
    args, outs, _ = sym.infer_shape(data=(1, 16, 7, 7))
    assert args == [(1, 16, 7, 7), (16, 8, 4, 4)] and outs == [(1, 8, 14, 14)]
    biased = mx.sym.Deconvolution(data, kernel=(3,), num_filter=6, num_group=3, no_bias=False,
                                  name='dc')
    args, outs, _ = biased.infer_shape(data=(2, 9, 5))
    assert args == [(2, 9, 5), (9, 2, 3), (6,)] and outs == [(2, 6, 7)]
    op = registry.get('Deconvolution')({'kernel': '(3, 3)', 'num_filter': '4'})
    assert (op.workspace, op.no_bias, op.strides, op.dilates, op.pads, op.adjs) == \
        (512, True, (1, 1), (1, 1), (0, 0), (0, 0))
    assert registry.get('_npx_deconvolution') is registry.get('Deconvolution')
    # an unknown batch stays unknown; the weight is still inferred
    ins, outs, _ = op.infer_shape([(0, 2, 5, 5), None], [None], [])
    assert ins[1] == (2, 4, 3, 3) and outs == [(0, 4, 7, 7)]


def test_deconvolution_json_round_trip():
    sym = mx.sym.Deconvolution(mx.sym.Variable('data'), kernel=(3, 3), stride=(2, 2),
                               target_shape=(8, 7), num_filter=3, no_bias=False, name='dc')
    loaded = mx.sym.load_json(sym.tojson())
    assert loaded.list_arguments() == ['data', 'dc_weight', 'dc_bias']
    assert loaded.infer_shape(data=(2, 2, 4, 4)) == sym.infer_shape(data=(2, 2, 4, 4))
    # parameters arrive as the strings a symbol file stores
    op = registry.get('Deconvolution')({'kernel': '(3, 3)', 'stride': '(2, 2)',
                                        'adj': '(1, 0)', 'num_filter': '3', 'no_bias': 'False',
                                        'target_shape': '(0, 0)', 'cudnn_tune': 'None'})
    assert op.list_arguments() == ['data', 'weight', 'bias']
    assert op.infer_shape([(1, 2, 4, 4), None, None], [None], [])[1] == [(1, 3, 10, 9)]


def test_deconvolution_float16():
    x, w, b = _inputs(CASES[1], np.float32)
    p = _params(CASES[1])
    y16 = mx.nd.Deconvolution(*[mx.nd.array(a, dtype=np.float16) for a in (x, w, b)], **p)
    expected = deconv_reference(x, w, b, p['stride'], p['pad'], p['dilate'], p['adj'], 1)
    assert y16.dtype == np.float16
    assert_almost_equal(y16.asnumpy(), expected, rtol=2e-2, atol=5e-2)


def test_deconvolution_errors():
    data = mx.sym.Variable('data')
    with pytest.raises(MXNetError, match='NHWC'):
        mx.sym.Deconvolution(data, kernel=(3, 3), num_filter=2, layout='NHWC')
    with pytest.raises(MXNetError, match='adj'):
        mx.sym.Deconvolution(data, kernel=(3, 3), num_filter=2, adj=(1,))
    with pytest.raises(MXNetError, match='divisible'):
        mx.sym.Deconvolution(data, kernel=(3, 3), num_filter=3, num_group=2)
    with pytest.raises(MXNetError, match='4D deconvolution'):
        mx.sym.Deconvolution(data, kernel=(3, 3, 3, 3), num_filter=2)
    with pytest.raises(MXNetError, match='dilate is not supported in 3D'):
        mx.sym.Deconvolution(data, kernel=(3, 3, 3), num_filter=2, dilate=(1, 2, 1))
    with pytest.raises(MXNetError, match='target_shape'):
        mx.sym.Deconvolution(data, kernel=(3, 3), num_filter=2, target_shape=(5,))
    with pytest.raises(MXNetError, match='num_filter'):
        mx.sym.Deconvolution(data, kernel=(3, 3))
    cases = [(dict(kernel=(3, 3), num_filter=2, stride=(2, 2), adj=(2, 0)), (1, 2, 4, 4),
              'adj 2 must be smaller than stride 2'),
             (dict(kernel=(3, 3), num_filter=2, stride=(2, 2), target_shape=(12, 9)),
              (1, 2, 4, 4), 'too big target shape'),
             (dict(kernel=(3, 3), num_filter=2, target_shape=(5, 6)), (1, 2, 4, 4),
              'smaller than stride'),
             (dict(kernel=(3, 3), num_filter=4, num_group=2), (1, 3, 4, 4), 'divisible'),
             (dict(kernel=(3, 3), num_filter=2), (1, 2, 4), '4D data'),
             (dict(kernel=(2, 2), num_filter=2, pad=(3, 3)), (1, 2, 2, 2), 'too large')]
    for params, shape, message in cases:
        with pytest.raises(MXNetError, match=message):
            mx.sym.Deconvolution(data, name='dc', **params).infer_shape(data=shape)
    sym = mx.sym.Deconvolution(data, kernel=(3, 3), num_filter=2, name='dc')
    with pytest.raises(MXNetError, match='weight'):
        sym.infer_shape(data=(1, 2, 4, 4), dc_weight=(2, 3, 3, 3))
