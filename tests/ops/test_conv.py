"""Convolution and Pooling against direct loop references, finite differences and
MXNet 1.9.1's recorded results."""
import itertools
import json
import math

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from nn_reference import cases, run_case

TESTED_OPS = {'Convolution', 'Pooling'}

DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize('name', cases(TESTED_OPS))
def test_matches_mxnet_reference(name):
    run_case(name, rtol=1e-4, atol=1e-4)


# ---- Convolution --------------------------------------------------------------------------
def conv_reference(x, w, b, stride, pad, dilate, groups):
    """Direct convolution: one output position at a time."""
    n, c = x.shape[:2]
    f, nd = w.shape[0], x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    k = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - (1 + (k[i] - 1) * dilate[i])) // stride[i] + 1
              for i in range(nd)]
    out = np.zeros((n, f) + tuple(out_sp))
    cg, fg = c // groups, f // groups
    for pos in itertools.product(*[range(o) for o in out_sp]):
        window = tuple(slice(pos[i] * stride[i], pos[i] * stride[i] + (k[i] - 1) * dilate[i] + 1,
                             dilate[i]) for i in range(nd))
        patch = xp[(slice(None), slice(None)) + window]
        for g in range(groups):
            cols = patch[:, g * cg:(g + 1) * cg].reshape(n, -1)
            out[(slice(None), slice(g * fg, (g + 1) * fg)) + pos] = \
                cols @ w[g * fg:(g + 1) * fg].reshape(fg, -1).T
    if b is not None:
        out += b.reshape((1, f) + (1,) * nd)
    return out


CONV_CASES = [
    # data shape, kernel, stride, pad, dilate, num_filter, num_group, no_bias
    ((2, 3, 7, 6), (3, 3), (1, 1), (0, 0), (1, 1), 4, 1, False),
    ((2, 4, 9, 8), (3, 2), (2, 1), (1, 2), (1, 2), 6, 2, False),
    ((1, 3, 5, 5), (1, 1), (1, 1), (0, 0), (1, 1), 2, 1, True),
    ((2, 4, 6, 6), (2, 2), (2, 2), (0, 0), (1, 1), 4, 4, False),
    ((3, 2, 10), (3,), (2,), (1,), (2,), 4, 1, False),
    ((2, 2, 5, 6, 4), (2, 3, 2), (1, 2, 1), (1, 0, 1), (1, 1, 2), 4, 2, False),
    # the direct 3x3 kernels (conv_direct.py): filters in blocks of four plus a rest,
    # samples in uneven chunks, planes that are not square
    ((11, 3, 5, 7), (3, 3), (1, 1), (1, 1), (1, 1), 6, 1, False),
    ((2, 5, 4, 9), (3, 3), (1, 1), (1, 1), (1, 1), 4, 1, True),
    ((1, 2, 1, 1), (3, 3), (1, 1), (1, 1), (1, 1), 3, 1, False),
    # 1x1 convolutions as per-sample products (conv_pointwise.py), strided or not
    ((3, 4, 7, 5), (1, 1), (2, 2), (0, 0), (1, 1), 5, 1, False),
    ((2, 3, 4, 4), (1, 1), (1, 2), (0, 0), (1, 1), 2, 1, True),
]


def _conv_params(case):
    _, kernel, stride, pad, dilate, num_filter, num_group, no_bias = case
    return dict(kernel=kernel, stride=stride, pad=pad, dilate=dilate, num_filter=num_filter,
                num_group=num_group, no_bias=no_bias)


def _conv_inputs(case, dtype=np.float64):
    shape, kernel, _, _, _, num_filter, num_group, no_bias = case
    x = np.random.randn(*shape).astype(dtype)
    w = np.random.randn(num_filter, shape[1] // num_group, *kernel).astype(dtype)
    b = None if no_bias else np.random.randn(num_filter).astype(dtype)
    return x, w, b


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('case', CONV_CASES)
def test_convolution_forward(case, dtype):
    x, w, b = _conv_inputs(case, dtype)
    params = _conv_params(case)
    args = [mx.nd.array(a, dtype=dtype) for a in (x, w, b) if a is not None]
    y = mx.nd.Convolution(*args, **params)
    expected = conv_reference(x.astype(np.float64), w, b, params['stride'], params['pad'],
                              params['dilate'], params['num_group'])
    tol = 1e-4 if dtype == np.float32 else 1e-10
    assert y.dtype == dtype
    assert_almost_equal(y.asnumpy(), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize('case', CONV_CASES)
def test_convolution_numeric_gradient(case):
    x, w, b = _conv_inputs(case)
    sym = mx.sym.Convolution(mx.sym.Variable('data'), name='conv', **_conv_params(case))
    location = [a for a in (x, w, b) if a is not None]
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


@pytest.mark.parametrize('case', CONV_CASES[:2] + CONV_CASES[4:5] + CONV_CASES[6:7] + CONV_CASES[9:])
def test_convolution_backward_add_accumulates(case):
    x, w, b = _conv_inputs(case)
    sym = mx.sym.Convolution(mx.sym.Variable('data'), name='conv', **_conv_params(case))
    names = sym.list_arguments()
    values = dict(zip(names, [a for a in (x, w, b) if a is not None]))
    dy = None
    grads = {}
    for req in ('write', 'add'):
        start = {k: np.full(v.shape, 0.5) for k, v in values.items()}
        ex = sym.bind(mx.cpu(), args={k: mx.nd.array(v, dtype=np.float64)
                                      for k, v in values.items()},
                      args_grad={k: mx.nd.array(v, dtype=np.float64) for k, v in start.items()},
                      grad_req=req)
        out = ex.forward(is_train=True)[0]
        if dy is None:
            dy = np.random.randn(*out.shape)
        ex.backward(mx.nd.array(dy, dtype=np.float64))
        grads[req] = {k: ex.grad_dict[k].asnumpy() - (0.5 if req == 'add' else 0)
                      for k in names}
    for k in names:
        assert_almost_equal(grads['add'][k], grads['write'][k], rtol=1e-10, atol=1e-10)


def test_direct_kernels_take_3x3_same_convolutions_only():
    from symmod.ops.conv_direct import supports
    assert supports((3, 3), (1, 1), (1, 1), (1, 1), 1, np.float32)
    assert not supports((3, 3), (2, 2), (1, 1), (1, 1), 1, np.float32)
    assert not supports((3, 3), (1, 1), (1, 1), (0, 0), 1, np.float32)
    assert not supports((3, 3), (1, 1), (1, 1), (1, 1), 2, np.float32)
    assert not supports((3, 3), (1, 1), (1, 1), (1, 1), 1, np.float16)


def test_direct_weight_gradient_does_not_depend_on_thread_count():
    import numba
    from symmod.ops import conv_direct
    x = np.random.randn(13, 3, 6, 5).astype(np.float32)
    dy = np.random.randn(13, 4, 6, 5).astype(np.float32)
    before = numba.get_num_threads()
    try:
        results = []
        for n in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(n)
            results.append(conv_direct.backward_weight(x, dy))
    finally:
        numba.set_num_threads(before)
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


@pytest.mark.parametrize('add', [False, True])
@pytest.mark.parametrize('module, x_shape, dy_shape', [
    ('conv_direct', (13, 3, 6, 5), (13, 6, 6, 5)),
    ('conv_strided', (13, 3, 10, 8), (13, 5, 5, 4))])
def test_backward_in_one_pass_gives_both_gradients_bit_for_bit(add, module, x_shape,
                                                               dy_shape):
    # one pass packs the output gradient once for both gradients; the same bits as each
    # gradient alone, at any thread count
    import importlib
    import numba
    kernels = importlib.import_module('symmod.ops.' + module)
    rng = np.random.default_rng(9)
    x = rng.standard_normal(x_shape).astype(np.float32)
    dy = rng.standard_normal(dy_shape).astype(np.float32)
    w = rng.standard_normal((dy_shape[1], x_shape[1], 3, 3)).astype(np.float32)
    start = rng.standard_normal(x.shape).astype(np.float32)
    alone = start.copy()
    kernels.backward_data(dy, w, alone, add=add)
    alone_dw = kernels.backward_weight(x, dy)
    before = numba.get_num_threads()
    try:
        for n in sorted({1, 2, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(n)
            dx = start.copy()
            dw = kernels.backward(x, w, dy, dx, add=add)
            np.testing.assert_array_equal(dx, alone)
            np.testing.assert_array_equal(dw, alone_dw)
    finally:
        numba.set_num_threads(before)
    assert kernels.backward(x, w, dy, None, weight=False) is None


@pytest.mark.parametrize('req', [{'data': 'write', 'conv_weight': 'write'},
                                 {'data': 'add', 'conv_weight': 'null'},
                                 {'data': 'null', 'conv_weight': 'add'}])
def test_direct_convolution_backward_is_one_call(monkeypatch, req):
    from symmod.ops import conv_direct
    calls = []
    original = conv_direct.backward
    monkeypatch.setattr(conv_direct, 'backward',
                        lambda *a, **kw: calls.append((a[3] is not None, kw)) or original(*a, **kw))
    x = np.random.randn(2, 3, 5, 5)
    w = np.random.randn(4, 3, 3, 3)
    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(3, 3), pad=(1, 1),
                             num_filter=4, no_bias=True, name='conv')
    grads = {'data': np.full(x.shape, 0.5), 'conv_weight': np.full(w.shape, 0.5)}
    ex = sym.bind(mx.cpu(), args={'data': mx.nd.array(x, dtype=np.float64),
                                  'conv_weight': mx.nd.array(w, dtype=np.float64)},
                  args_grad={k: mx.nd.array(v, dtype=np.float64) for k, v in grads.items()},
                  grad_req=req)
    ex.forward(is_train=True)
    dy = np.random.randn(2, 4, 5, 5)
    ex.backward(mx.nd.array(dy, dtype=np.float64))
    assert calls == [(req['data'] != 'null', {'add': req['data'] == 'add',
                                              'weight': req['conv_weight'] != 'null'})]
    expected_dx = conv_reference(dy, w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1], None,
                                 (1, 1), (1, 1), (1, 1), 1)
    expected_dw = np.einsum('nkhw,nchw->kc', dy, x)     # centre tap only, as a check below
    got = {k: ex.grad_dict[k].asnumpy() for k in grads}
    if req['data'] == 'null':
        assert np.array_equal(got['data'], grads['data'])
    else:
        base = 0.5 if req['data'] == 'add' else 0.0
        assert_almost_equal(got['data'], base + expected_dx, rtol=1e-10, atol=1e-10)
    if req['conv_weight'] == 'null':
        assert np.array_equal(got['conv_weight'], grads['conv_weight'])
    else:
        base = 0.5 if req['conv_weight'] == 'add' else 0.0
        assert_almost_equal(got['conv_weight'][:, :, 1, 1], base + expected_dw, rtol=1e-10,
                            atol=1e-10)


def test_convolution_shape_inference():
    data = mx.sym.Variable('data')
    conv = mx.sym.Convolution(data, kernel=(5, 5), num_filter=20, name='conv')
    args, outs, _ = conv.infer_shape(data=(64, 1, 28, 28))
    assert args == [(64, 1, 28, 28), (20, 1, 5, 5), (20,)] and outs == [(64, 20, 24, 24)]
    grouped = mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, num_group=2,
                                 stride=(2, 2), pad=(1, 1), dilate=(2, 1), name='conv')
    args, outs, _ = grouped.infer_shape(data=(2, 6, 11, 10))
    assert args[1] == (8, 3, 3, 3) and outs == [(2, 8, 5, 5)]
    # backwards: the batch always, spatial sizes where the stride is 1
    op = registry.get('Convolution')({'kernel': '(3, 3)', 'num_filter': '4', 'pad': '(1, 0)'})
    ins, outs, _ = op.infer_shape([(0, 2, 0, 0), None, None], [(5, 4, 7, 6)], [])
    assert ins[0] == (5, 2, 7, 8) and ins[1] == (4, 2, 3, 3)


def test_convolution_params_and_errors():
    data = mx.sym.Variable('data')
    op = registry.get('Convolution')({'kernel': '(3, 3)', 'num_filter': '8',
                                      'workspace': '512', 'cudnn_tune': 'fastest',
                                      'cudnn_off': 'True'})
    assert (op.strides, op.dilates, op.pads) == ((1, 1), (1, 1), (0, 0))
    with pytest.raises(MXNetError, match='NCW or NWC'):
        mx.sym.Convolution(data, kernel=(3,), num_filter=2, layout='NHWC')
    with pytest.raises(MXNetError, match='stride'):
        mx.sym.Convolution(data, kernel=(3, 3), num_filter=2, stride=(1,))
    with pytest.raises(MXNetError, match='divisible'):
        mx.sym.Convolution(data, kernel=(3, 3), num_filter=3, num_group=2)
    with pytest.raises(MXNetError, match='4D kernel'):
        mx.sym.Convolution(data, kernel=(3, 3, 3, 3), num_filter=2)
    conv = mx.sym.Convolution(data, kernel=(5, 5), num_filter=2, num_group=2, name='c')
    with pytest.raises(MXNetError, match='exceeds input'):
        conv.infer_shape(data=(1, 2, 4, 8))
    with pytest.raises(MXNetError, match='divisible'):
        conv.infer_shape(data=(1, 3, 8, 8))
    with pytest.raises(MXNetError, match='4D data'):
        conv.infer_shape(data=(1, 2, 8))
    with pytest.raises(MXNetError, match='weight'):
        conv.infer_shape(data=(1, 2, 8, 8), c_weight=(2, 2, 5, 5))


def test_convolution_float16():
    x, w, b = _conv_inputs(CONV_CASES[0], np.float32)
    y16 = mx.nd.Convolution(mx.nd.array(x, dtype=np.float16), mx.nd.array(w, dtype=np.float16),
                            mx.nd.array(b, dtype=np.float16), kernel=(3, 3), num_filter=4)
    y32 = conv_reference(x, w, b, (1, 1), (0, 0), (1, 1), 1)
    assert y16.dtype == np.float16
    assert_almost_equal(y16.asnumpy(), y32, rtol=2e-2, atol=5e-2)


# ---- Pooling ------------------------------------------------------------------------------
def pool_reference(x, kernel, stride, pad, pool_type, convention='valid',
                   count_include_pad=True, p_value=None):
    """MXNet's pooling written as plain loops over output positions."""
    nd = x.ndim - 2
    out_sp = []
    for i in range(nd):
        span = x.shape[2 + i] + 2 * pad[i] - kernel[i]
        out_sp.append(1 + (span // stride[i] if convention == 'valid'
                           else math.ceil(span / stride[i])))
    out = np.zeros(x.shape[:2] + tuple(out_sp))
    for pos in itertools.product(*[range(o) for o in out_sp]):
        starts = [pos[i] * stride[i] - pad[i] for i in range(nd)]
        ends = [min(s + kernel[i], x.shape[2 + i] + pad[i]) for i, s in enumerate(starts)]
        padded_size = np.prod([e - s for s, e in zip(starts, ends)])
        window = tuple(slice(max(s, 0), min(e, x.shape[2 + i]))
                       for i, (s, e) in enumerate(zip(starts, ends)))
        block = x[(Ellipsis,) + window].reshape(x.shape[0], x.shape[1], -1)
        index = (slice(None), slice(None)) + pos
        if pool_type == 'max':
            out[index] = block.max(axis=2) if block.shape[2] else np.finfo(x.dtype).min
        elif pool_type == 'sum':
            out[index] = block.sum(axis=2)
        elif pool_type == 'lp':
            out[index] = (block ** p_value).sum(axis=2) ** (1 / p_value)
        else:
            size = padded_size if count_include_pad else block.shape[2]
            out[index] = block.sum(axis=2) / size
    return out


POOL_CASES = [
    # kernel, stride, pad, pool_type, convention, count_include_pad
    ((2, 2), (2, 2), (0, 0), 'max', 'valid', True),
    ((3, 3), (2, 2), (1, 1), 'max', 'full', True),
    ((3, 2), (1, 2), (1, 0), 'max', 'valid', True),
    ((2, 2), (2, 2), (0, 0), 'avg', 'valid', True),
    ((3, 3), (2, 2), (1, 1), 'avg', 'full', True),
    ((3, 3), (2, 1), (1, 1), 'avg', 'valid', False),
    ((2, 3), (1, 2), (0, 1), 'sum', 'full', True),
    ((3,), (2,), (1,), 'max', 'valid', True),
    ((2, 2, 3), (1, 2, 2), (1, 0, 1), 'avg', 'full', True),
]


def _pool_input(kernel):
    shape = {1: (2, 3, 9), 2: (2, 3, 7, 6), 3: (2, 2, 4, 5, 5)}[len(kernel)]
    # distinct values: no ties, so max pooling is differentiable everywhere
    return np.random.permutation(np.prod(shape)).reshape(shape) / 7.0 - 3


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('case', POOL_CASES)
def test_pooling_forward(case, dtype):
    kernel, stride, pad, pool_type, convention, include = case
    x = _pool_input(kernel).astype(dtype)
    y = mx.nd.Pooling(mx.nd.array(x, dtype=dtype), kernel=kernel, stride=stride, pad=pad,
                      pool_type=pool_type, pooling_convention=convention,
                      count_include_pad=include)
    expected = pool_reference(x.astype(np.float64), kernel, stride, pad, pool_type, convention,
                              include)
    assert y.dtype == dtype
    assert_almost_equal(y.asnumpy(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('case', POOL_CASES)
def test_pooling_numeric_gradient(case):
    kernel, stride, pad, pool_type, convention, include = case
    sym = mx.sym.Pooling(mx.sym.Variable('data'), kernel=kernel, stride=stride, pad=pad,
                         pool_type=pool_type, pooling_convention=convention,
                         count_include_pad=include)
    check_numeric_gradient(sym, [_pool_input(kernel)], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('p_value', [1, 2, 3])
def test_pooling_lp(p_value):
    x = np.abs(_pool_input((2, 2))) + 0.1
    y = mx.nd.Pooling(mx.nd.array(x, dtype=np.float64), kernel=(2, 2), stride=(1, 1),
                      pool_type='lp', p_value=p_value)
    assert_almost_equal(y.asnumpy(), pool_reference(x, (2, 2), (1, 1), (0, 0), 'lp',
                                                    p_value=p_value), rtol=1e-10)
    sym = mx.sym.Pooling(mx.sym.Variable('data'), kernel=(2, 2), stride=(1, 1),
                         pool_type='lp', p_value=p_value)
    # gradients here are small next to the summed objective: a larger step keeps the
    # finite differences clear of rounding
    check_numeric_gradient(sym, [x], numeric_eps=1e-5, rtol=1e-5, dtype=np.float64)


@pytest.mark.parametrize('pool_type', ['max', 'avg', 'sum'])
def test_global_pooling(pool_type):
    x = np.random.randn(2, 3, 5, 4)
    y = mx.nd.Pooling(mx.nd.array(x, dtype=np.float64), global_pool=True, pool_type=pool_type,
                      kernel=(1, 1))
    reduce = {'max': np.max, 'avg': np.mean, 'sum': np.sum}[pool_type]
    assert_almost_equal(y.asnumpy(), reduce(x, axis=(2, 3), keepdims=True), rtol=1e-12)


@pytest.mark.parametrize('shape', [(2, 3, 9), (2, 3, 5, 4), (2, 2, 3, 4, 3)])
def test_global_max_pooling_without_kernel_gradient(shape):
    # no kernel: no workspace output, so backward finds each plane's maximum again
    x = np.random.permutation(int(np.prod(shape))).reshape(shape) / 7.0 - 3
    sym = mx.sym.Pooling(mx.sym.Variable('data'), global_pool=True, pool_type='max')
    assert sym.list_outputs() == [sym.name + '_output']
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)
    dy = np.random.randn(*shape[:2])
    for req, start in (('write', 0.0), ('add', 1.0)):
        ex = sym.bind(mx.cpu(), args={'data': mx.nd.array(x, dtype=np.float64)},
                      args_grad={'data': mx.nd.full(shape, start, dtype=np.float64)},
                      grad_req=req)
        ex.forward(is_train=True)
        ex.backward(mx.nd.array(dy.reshape(shape[:2] + (1,) * (len(shape) - 2)),
                                dtype=np.float64))
        flat = x.reshape(shape[0] * shape[1], -1)
        expected = np.zeros_like(flat)
        expected[np.arange(len(flat)), flat.argmax(axis=1)] = dy.reshape(-1)
        assert_almost_equal(ex.grad_dict['data'].asnumpy(),
                            expected.reshape(shape) + start, rtol=1e-12)


def test_max_pool_gradient_goes_to_first_maximum():
    x = np.ones((1, 1, 4, 4))
    ex = mx.sym.Pooling(mx.sym.Variable('data'), kernel=(2, 2), stride=(2, 2)).simple_bind(
        mx.cpu(), data=x.shape)
    ex.forward(is_train=True, data=x)
    ex.backward(mx.nd.ones((1, 1, 2, 2)))
    expected = np.zeros((4, 4))
    expected[::2, ::2] = 1
    assert np.array_equal(ex.grad_dict['data'].asnumpy()[0, 0], expected)


def test_max_pooling_workspace_output():
    # MXNet's CPU build: max pooling with a kernel has a hidden int32 'workspace' output
    op = registry.get('Pooling')({'kernel': '(2, 2)', 'stride': '(2, 2)'})
    assert op.list_outputs() == ['output', 'workspace'] and op.num_visible_outputs() == 1
    _, outs, _ = op.infer_shape([(2, 3, 6, 6)], [None, None], [])
    assert outs == [(2, 3, 3, 3)] * 2
    _, types, _ = op.infer_type([np.dtype(np.float32)], [None, None], [])
    assert types == [np.float32, np.int32]
    assert registry.get('Pooling')({'kernel': '(2, 2)', 'pool_type': 'avg'}).list_outputs() \
        == ['output']
    assert registry.get('Pooling')({'global_pool': 'True'}).list_outputs() == ['output']
    sym = mx.sym.Pooling(mx.sym.Variable('data'), kernel=(2, 2), name='pool')
    assert sym.list_outputs() == ['pool_output']
    assert json.loads(sym.tojson())['node_row_ptr'] == [0, 1, 3]   # as MXNet writes it


def test_pooling_backward_add_accumulates():
    x = _pool_input((3, 3))
    sym = mx.sym.Pooling(mx.sym.Variable('data'), kernel=(3, 3), stride=(2, 1), pad=(1, 1),
                         pool_type='max')
    results = {}
    for req in ('write', 'add'):
        ex = sym.bind(mx.cpu(), args={'data': mx.nd.array(x)},
                      args_grad={'data': mx.nd.ones(x.shape)}, grad_req=req)
        out = ex.forward(is_train=True)[0]
        ex.backward(mx.nd.ones(out.shape) * 2)
        results[req] = ex.grad_dict['data'].asnumpy()
    assert_almost_equal(results['add'], results['write'] + 1)


@pytest.mark.parametrize('size,kernel,stride,pad,convention,expected', [
    (28, 2, 2, 0, 'valid', 14), (7, 2, 2, 0, 'valid', 3), (7, 2, 2, 0, 'full', 4),
    (5, 3, 2, 1, 'full', 3), (6, 3, 2, 1, 'valid', 3), (6, 3, 2, 1, 'full', 4),
    (10, 3, 3, 0, 'full', 4), (9, 3, 2, 0, 'same', 5)])
def test_pooling_output_shapes(size, kernel, stride, pad, convention, expected):
    shape = (2, 3, size) if convention == 'same' else (2, 3, size, size)
    nd = len(shape) - 2
    sym = mx.sym.Pooling(mx.sym.Variable('data'), kernel=(kernel,) * nd, stride=(stride,) * nd,
                         pad=(pad,) * nd, pooling_convention=convention)
    _, outs, _ = sym.infer_shape(data=shape)
    assert outs == [(2, 3) + (expected,) * nd]


def test_pooling_float16_and_errors():
    x = _pool_input((2, 2))
    y = mx.nd.Pooling(mx.nd.array(x, dtype=np.float16), kernel=(2, 2), stride=(2, 2),
                      pool_type='avg')
    assert y.dtype == np.float16
    assert_almost_equal(y.asnumpy(), pool_reference(x, (2, 2), (2, 2), (0, 0), 'avg'),
                        rtol=1e-2, atol=1e-2)
    data = mx.sym.Variable('data')
    with pytest.raises(MXNetError, match='kernel must be given'):
        mx.sym.Pooling(data, pool_type='max')
    with pytest.raises(MXNetError, match='p_value'):
        mx.sym.Pooling(data, kernel=(2, 2), pool_type='lp')
    with pytest.raises(MXNetError, match="'same'"):
        mx.sym.Pooling(data, kernel=(2, 2), pooling_convention='same')
    with pytest.raises(MXNetError, match='NCDHW or NDHWC'):
        mx.sym.Pooling(data, kernel=(2, 2, 2), layout='NHWC')
    with pytest.raises(MXNetError, match='pool_type'):
        mx.sym.Pooling(data, kernel=(2, 2), pool_type='median')
    pool = mx.sym.Pooling(data, kernel=(3, 3))
    with pytest.raises(MXNetError, match='exceeds input'):
        pool.infer_shape(data=(1, 1, 2, 5))
    with pytest.raises(MXNetError, match='4D data'):
        pool.infer_shape(data=(1, 1, 5))


def test_pooling_reads_the_leading_values_of_a_longer_pad():
    x = mx.nd.array(np.arange(10.).reshape(1, 1, 10))
    out = mx.nd.Pooling(x, kernel=(2,), stride=(2,), pad=(0, 0, 0), pool_type='max',
                        pooling_convention='same')
    np.testing.assert_array_equal(out.asnumpy().ravel(), [1, 3, 5, 7, 9])
    with pytest.raises(mx.MXNetError, match="'same'"):
        mx.nd.Pooling(x, kernel=(2,), stride=(2,), pad=(2,), pool_type='max',
                      pooling_convention='same')


@pytest.fixture
def split_products(monkeypatch):
    """im2col products cut into three column ranges, and 1x1 products into three sample
    ranges, however small they are."""
    from symmod.ops import conv, conv_pointwise, thread_split
    monkeypatch.setattr(conv, 'SPLIT_MIN_WORK', 1)
    monkeypatch.setattr(conv_pointwise, 'SPLIT_MIN_WORK', 1)
    monkeypatch.setattr(thread_split, 'parts', lambda: 3)


# stride 2 3x3 unpadded (padded ones take conv_strided.py), dilated, a 1-D and a grouped
# one (not split); 1x1 strided and not (samples split)
SPLIT_CASES = [((4, 3, 9, 8), (3, 3), (2, 2), (0, 0), (1, 1), 5, 1, False),
               ((2, 2, 11, 7), (3, 3), (1, 1), (2, 2), (2, 2), 3, 1, True),
               ((2, 4, 11), (5,), (2,), (2,), (1,), 4, 1, False),
               ((2, 4, 7, 7), (3, 3), (2, 2), (1, 1), (1, 1), 4, 2, False),
               ((5, 3, 7, 6), (1, 1), (2, 2), (0, 0), (1, 1), 4, 1, False),
               ((4, 3, 5, 5), (1, 1), (1, 1), (0, 0), (1, 1), 2, 1, True)]


@pytest.mark.parametrize('case', SPLIT_CASES)
def test_convolution_split_products_match_reference(split_products, case):
    x, w, b = _conv_inputs(case)
    params = _conv_params(case)
    sym = mx.sym.Convolution(mx.sym.Variable('data'), name='conv', **params)
    args = {'data': x, 'conv_weight': w}
    if b is not None:
        args['conv_bias'] = b
    exe = sym.bind(mx.cpu(), {k: mx.nd.array(v, dtype=v.dtype) for k, v in args.items()},
                   args_grad={k: mx.nd.zeros(v.shape, dtype=v.dtype) for k, v in args.items()})
    exe.forward(is_train=True)
    expected = conv_reference(x, w, b, params['stride'], params['pad'], params['dilate'],
                              params['num_group'])
    assert_almost_equal(exe.outputs[0].asnumpy(), expected, rtol=1e-10, atol=1e-10)
    check_numeric_gradient(sym, args, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_split_products_run_on_several_threads(split_products, monkeypatch):
    import threading
    from symmod.ops import conv
    seen = set()
    real = conv.matmul_into

    def recorded(*args):
        seen.add(threading.get_ident())
        return real(*args)
    monkeypatch.setattr(conv, 'matmul_into', recorded)
    x = np.random.randn(4, 3, 17, 16).astype(np.float32)      # 224 output columns
    w = np.random.randn(6, 3, 3, 3).astype(np.float32)
    y = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), kernel=(3, 3), stride=(2, 2),
                          pad=(0, 0), num_filter=6, no_bias=True)
    assert len(seen) > 1
    assert_almost_equal(y.asnumpy(), conv_reference(x.astype(np.float64), w, None, (2, 2),
                                                    (0, 0), (1, 1), 1), rtol=1e-4, atol=1e-4)


def _pointwise_step(x, w, dy, stride, req):
    """Output, data and weight gradients of a 1x1 convolution node (grad_req ``req``,
    gradients starting at one so that 'add' shows)."""
    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(1, 1), stride=stride,
                             num_filter=w.shape[0], no_bias=True, name='conv')
    exe = sym.bind(mx.cpu(), {'data': mx.nd.array(x), 'conv_weight': mx.nd.array(w)},
                   args_grad={'data': mx.nd.ones(x.shape), 'conv_weight': mx.nd.ones(w.shape)},
                   grad_req=req)
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(dy))
    return (exe.outputs[0].asnumpy(), exe.grad_dict['data'].asnumpy(),
            exe.grad_dict['conv_weight'].asnumpy())


@pytest.mark.parametrize('req', ['write', 'add'])
@pytest.mark.parametrize('stride', [(1, 1), (2, 2)])
def test_pointwise_products_give_the_same_bits_however_the_samples_are_cut(
        monkeypatch, req, stride):
    import threading
    from symmod.ops import conv_pointwise, thread_split
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 6, 9, 8)).astype(np.float32)
    w = rng.standard_normal((5, 6, 1, 1)).astype(np.float32)
    oh, ow = -(-9 // stride[0]), -(-8 // stride[1])
    dy = rng.standard_normal((7, 5, oh, ow)).astype(np.float32)
    monkeypatch.setattr(conv_pointwise, 'SPLIT_MIN_WORK', 1)
    seen = set()
    real = thread_split.run

    def recorded(fn, count):
        def part(i):
            seen.add(threading.get_ident())
            fn(i)
        real(part, count)
    monkeypatch.setattr(thread_split, 'run', recorded)
    results = []
    for parts in (1, 2, 3):
        monkeypatch.setattr(thread_split, 'parts', lambda parts=parts: parts)
        results.append(_pointwise_step(x, w, dy, stride, req))
    assert len(seen) > 1
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert np.array_equal(a, b)
    out, dx, dw = results[0]
    x64, w64, dy64 = x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64)
    assert_almost_equal(out, conv_reference(x64, w64, None, stride, (0, 0), (1, 1), 1),
                        rtol=1e-4, atol=1e-4)
    base = 1.0 if req == 'add' else 0.0
    expected_dx = np.zeros_like(x64)
    expected_dx[:, :, ::stride[0], ::stride[1]] = np.einsum('kc,nkhw->nchw', w64[:, :, 0, 0],
                                                            dy64)
    assert_almost_equal(dx, base + expected_dx, rtol=1e-4, atol=1e-4)
    xs = x64[:, :, ::stride[0], ::stride[1]]
    assert_almost_equal(dw[:, :, 0, 0], base + np.einsum('nkhw,nchw->kc', dy64, xs),
                        rtol=1e-4, atol=1e-4)
