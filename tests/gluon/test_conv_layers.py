"""gluon.nn convolution, transposed convolution, pooling and padding layers: against
MXNet 1.9.1's numbers (tests/data/gluon_layers_reference.npz), independent numpy
formulas and finite differences."""
import itertools
import json

import numpy as np
import pytest

import symmod as mx
from symmod import autograd
from symmod.gluon import nn

from gluon_layer_cases import case_keys, check_against_reference, check_gradients

CONV = ('Conv1D', 'Conv2D', 'Conv3D')
TRANSPOSED = ('Conv1DTranspose', 'Conv2DTranspose', 'Conv3DTranspose')
POOL = ('MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'AvgPool1D', 'AvgPool2D', 'AvgPool3D',
        'GlobalMaxPool1D', 'GlobalMaxPool2D', 'GlobalMaxPool3D', 'GlobalAvgPool1D',
        'GlobalAvgPool2D', 'GlobalAvgPool3D', 'ReflectionPad2D')


def rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


# ---- numpy references ----------------------------------------------------------------
def np_conv(x, w, b, stride, pad, dilate, groups):
    """Cross-correlation of channel-first ``x`` with ``w``: a sum over kernel offsets of
    strided input slices (N-D)."""
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out_sp = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, p, d, k, st in
              zip(x.shape[2:], pad, dilate, w.shape[2:], stride)]
    cin, cout = x.shape[1] // groups, w.shape[0] // groups
    out = np.zeros((x.shape[0], w.shape[0]) + tuple(out_sp))
    for offset in itertools.product(*[range(k) for k in w.shape[2:]]):
        index = tuple(slice(o * d, o * d + st * (n - 1) + 1, st)
                      for o, d, st, n in zip(offset, dilate, stride, out_sp))
        window = xp[(Ellipsis,) + index]
        for g in range(groups):
            wg = w[(slice(g * cout, (g + 1) * cout), slice(None)) + offset]
            out[:, g * cout:(g + 1) * cout] += np.einsum(
                'oc,nc...->no...', wg, window[:, g * cin:(g + 1) * cin])
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nd)
    return out


def np_deconv(x, w, b, stride, pad, dilate, adj, groups):
    """Transposed convolution: every input element scatters ``x * w`` into a full-size
    output, which is then cropped by ``pad`` (``adj`` extends the far end)."""
    nd = x.ndim - 2
    cin, cout = x.shape[1] // groups, w.shape[1]
    full = [(s - 1) * st + d * (k - 1) + 1 + a for s, st, d, k, a in
            zip(x.shape[2:], stride, dilate, w.shape[2:], adj)]
    out = np.zeros((x.shape[0], cout * groups) + tuple(full))
    for offset in itertools.product(*[range(k) for k in w.shape[2:]]):
        index = tuple(slice(o * d, o * d + st * (s - 1) + 1, st)
                      for o, d, st, s in zip(offset, dilate, stride, x.shape[2:]))
        for g in range(groups):
            wg = w[(slice(g * cin, (g + 1) * cin), slice(None)) + offset]
            out[(slice(None), slice(g * cout, (g + 1) * cout)) + index] += np.einsum(
                'co,nc...->no...', wg, x[:, g * cin:(g + 1) * cin])
    crop = tuple(slice(p, f - p) for p, f in zip(pad, full))
    out = out[(Ellipsis,) + crop]
    if b is not None:
        out = out + b.reshape((1, -1) + (1,) * nd)
    return out


def np_pool(x, kernel, stride, pad, pool_type, ceil_mode=False, count_include_pad=True):
    """Max / average pooling by looping over output positions."""
    spatial = x.shape[2:]
    rounding = np.ceil if ceil_mode else np.floor
    out_sp = [int(rounding((s + 2 * p - k) / st)) + 1
              for s, p, k, st in zip(spatial, pad, kernel, stride)]
    out = np.zeros(x.shape[:2] + tuple(out_sp))
    for pos in itertools.product(*[range(o) for o in out_sp]):
        starts = [o * st - p for o, st, p in zip(pos, stride, pad)]
        ends = [min(s0 + k, s + p) for s0, k, s, p in zip(starts, kernel, spatial, pad)]
        inside = tuple(slice(max(s0, 0), min(e, s)) for s0, e, s in zip(starts, ends,
                                                                          spatial))
        window = x[(Ellipsis,) + inside]
        if pool_type == 'max':
            out[(Ellipsis,) + pos] = window.max(axis=tuple(range(2, x.ndim)))
            continue
        if count_include_pad:
            count = np.prod([e - s0 for s0, e in zip(starts, ends)])
        else:
            count = np.prod(window.shape[2:])
        out[(Ellipsis,) + pos] = window.sum(axis=tuple(range(2, x.ndim))) / count
    return out


# ---- MXNet's numbers ------------------------------------------------------------------
@pytest.mark.parametrize('hybridize', [False, True])
@pytest.mark.parametrize('key', case_keys(CONV + TRANSPOSED + POOL))
def test_matches_mxnet(key, hybridize):
    check_against_reference(key, hybridize)


def test_reference_file_covers_every_layer():
    for cls in CONV + TRANSPOSED + POOL:
        assert case_keys((cls,)), cls


# ---- numpy formulas -------------------------------------------------------------------
@pytest.mark.parametrize('cls,shape,kwargs', [
    (nn.Conv1D, (2, 4, 11), dict(channels=6, kernel_size=3, strides=2, padding=2,
                                 dilation=2, groups=2)),
    (nn.Conv2D, (2, 3, 7, 6), dict(channels=4, kernel_size=(3, 2), strides=(1, 2),
                                   padding=(1, 1))),
    (nn.Conv2D, (1, 4, 5, 5), dict(channels=4, kernel_size=3, groups=4, use_bias=False)),
    (nn.Conv3D, (1, 2, 4, 5, 3), dict(channels=3, kernel_size=(2, 3, 1), padding=(0, 1, 1),
                                      strides=(2, 1, 1))),
])
def test_convolution_forward_matches_numpy(cls, shape, kwargs):
    layer = cls(**kwargs)
    layer.initialize(mx.init.Uniform(0.5))
    x = rand(*shape, seed=1)
    out = layer(mx.nd.array(x)).asnumpy()
    nd = len(shape) - 2
    tup = lambda v, d: (v,) * nd if isinstance(v, int) else v  # noqa: E731
    bias = layer.bias.data().asnumpy() if layer.bias is not None else None
    expected = np_conv(x, layer.weight.data().asnumpy(), bias,
                       tup(kwargs.get('strides', 1), 1), tup(kwargs.get('padding', 0), 0),
                       tup(kwargs.get('dilation', 1), 1), kwargs.get('groups', 1))
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('cls,shape,kwargs', [
    (nn.Conv1DTranspose, (2, 4, 5), dict(channels=4, kernel_size=3, strides=2, padding=1,
                                         output_padding=1, groups=2)),
    (nn.Conv2DTranspose, (1, 3, 4, 3), dict(channels=2, kernel_size=(3, 2), strides=(2, 1),
                                            dilation=(1, 2), padding=(1, 0))),
    (nn.Conv3DTranspose, (1, 2, 2, 3, 2), dict(channels=2, kernel_size=2, strides=2,
                                               use_bias=False)),
])
def test_transposed_forward_matches_numpy(cls, shape, kwargs):
    layer = cls(**kwargs)
    layer.initialize(mx.init.Uniform(0.5))
    x = rand(*shape, seed=2)
    out = layer(mx.nd.array(x)).asnumpy()
    nd = len(shape) - 2
    tup = lambda v: (v,) * nd if isinstance(v, int) else v  # noqa: E731
    bias = layer.bias.data().asnumpy() if layer.bias is not None else None
    expected = np_deconv(x, layer.weight.data().asnumpy(), bias,
                         tup(kwargs.get('strides', 1)), tup(kwargs.get('padding', 0)),
                         tup(kwargs.get('dilation', 1)), tup(kwargs.get('output_padding', 0)),
                         kwargs.get('groups', 1))
    assert layer.weight.shape == (shape[1], kwargs['channels'] // kwargs.get('groups', 1)) \
        + tup(kwargs['kernel_size'])
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('cls,shape,kwargs,pool_type', [
    (nn.MaxPool1D, (2, 3, 9), dict(pool_size=3, strides=2, padding=1), 'max'),
    (nn.MaxPool2D, (1, 2, 7, 5), dict(pool_size=(3, 2), strides=2, ceil_mode=True), 'max'),
    (nn.MaxPool3D, (1, 2, 4, 4, 5), dict(), 'max'),
    (nn.AvgPool1D, (2, 3, 9), dict(pool_size=4, strides=3, padding=2, ceil_mode=True), 'avg'),
    (nn.AvgPool2D, (1, 2, 6, 5), dict(pool_size=3, strides=2, padding=1,
                                      count_include_pad=False), 'avg'),
    (nn.AvgPool2D, (1, 2, 6, 5), dict(pool_size=3, strides=2, padding=1), 'avg'),
    (nn.AvgPool3D, (1, 1, 3, 4, 5), dict(pool_size=2, strides=1, padding=1,
                                         count_include_pad=False), 'avg'),
])
def test_pooling_matches_numpy(cls, shape, kwargs, pool_type):
    layer = cls(**kwargs)
    x = rand(*shape, seed=3)
    nd = len(shape) - 2
    tup = lambda v: (v,) * nd if isinstance(v, int) else v  # noqa: E731
    kernel = tup(kwargs.get('pool_size', 2))
    stride = tup(kwargs.get('strides') or kernel)
    expected = np_pool(x, kernel, stride, tup(kwargs.get('padding', 0)), pool_type,
                       kwargs.get('ceil_mode', False), kwargs.get('count_include_pad', True))
    np.testing.assert_allclose(layer(mx.nd.array(x)).asnumpy(), expected, rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_global_pooling_matches_numpy(nd):
    x = rand(*((2, 3) + (4, 3, 5)[:nd]), seed=nd)
    axes = tuple(range(2, 2 + nd))
    gmax = getattr(nn, 'GlobalMaxPool%dD' % nd)()
    gavg = getattr(nn, 'GlobalAvgPool%dD' % nd)()
    np.testing.assert_allclose(gmax(mx.nd.array(x)).asnumpy(), x.max(axes, keepdims=True))
    np.testing.assert_allclose(gavg(mx.nd.array(x)).asnumpy(), x.mean(axes, keepdims=True),
                               rtol=1e-5, atol=1e-7)


def test_reflection_pad_matches_numpy():
    x = rand(2, 3, 4, 5, seed=4)
    out = nn.ReflectionPad2D(2)(mx.nd.array(x)).asnumpy()
    np.testing.assert_array_equal(out, np.pad(x, [(0, 0), (0, 0), (2, 2), (2, 2)],
                                              mode='reflect'))
    full = nn.ReflectionPad2D((0, 0, 0, 0, 1, 0, 2, 1))(mx.nd.array(x)).asnumpy()
    np.testing.assert_array_equal(full, np.pad(x, [(0, 0), (0, 0), (1, 0), (2, 1)],
                                               mode='reflect'))


# ---- gradients: finite differences ------------------------------------------------------
@pytest.mark.parametrize('make,shape', [
    (lambda: nn.Conv2D(4, (2, 3), strides=(2, 1), padding=1, dilation=(1, 2), groups=2,
                       activation='tanh'), (1, 2, 4, 5)),
    (lambda: nn.Conv1D(2, 3, padding=1), (2, 3, 5)),
    (lambda: nn.MaxPool2D(3, 2, 1), (1, 2, 5, 5)),
    (lambda: nn.AvgPool1D(3, 2, 1, count_include_pad=False, ceil_mode=True), (2, 2, 6)),
    (lambda: nn.GlobalAvgPool3D(), (1, 2, 2, 3, 2)),
    (lambda: nn.ReflectionPad2D(1), (1, 2, 3, 3)),
])
def test_gradients_match_finite_differences(make, shape):
    layer = make()
    layer.initialize(mx.init.Uniform(0.7))
    check_gradients(layer, np.random.RandomState(5).uniform(-1, 1, shape))


def test_transposed_gradients_match_finite_differences():
    layer = nn.Conv2DTranspose(2, (2, 3), strides=2, padding=(0, 1), output_padding=1)
    layer.initialize(mx.init.Uniform(0.7))
    check_gradients(layer, np.random.RandomState(6).uniform(-1, 1, (1, 2, 3, 2)))


# ---- parameters, deferred initialization, hybridize, repr --------------------------------
def test_deferred_parameter_shapes_and_names():
    conv = nn.Conv2D(8, 3, groups=2, prefix='c_')
    assert conv.weight.shape == (8, 0, 3, 3) and conv.bias.shape == (8,)
    assert list(conv.params.keys()) == ['c_weight', 'c_bias']
    conv.initialize()
    conv(mx.nd.ones((1, 6, 5, 5)))
    assert conv.weight.shape == (8, 3, 3, 3)
    # as in MXNet, the repr shows the weight's axis 1: in_channels / groups
    assert repr(conv) == 'Conv2D(3 -> 8, kernel_size=(3, 3), stride=(1, 1), groups=2)'
    assert nn.Conv1D(3, 2, use_bias=False).bias is None
    assert nn.Conv3D(4, 1, in_channels=2).weight.shape == (4, 2, 1, 1, 1)


def test_transposed_deferred_parameter_shapes():
    layer = nn.Conv2DTranspose(5, 3, strides=2)
    assert layer.weight.shape == (0, 5, 3, 3)
    layer.initialize()
    assert layer(mx.nd.ones((1, 4, 3, 3))).shape == (1, 5, 7, 7)
    assert layer.weight.shape == (4, 5, 3, 3)
    # MXNet prints the weight's axes 1 -> 0, so channels -> in_channels here
    assert repr(layer).startswith('Conv2DTranspose(5 -> 4, kernel_size=(3, 3)')


def test_hybridized_network_matches_imperative_and_exports(tmp_path):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1, activation='relu'), nn.MaxPool2D(),
                nn.AvgPool2D(3, 1, 1, count_include_pad=False), nn.ReflectionPad2D(1),
                nn.GlobalMaxPool2D(), nn.Flatten())
    net.initialize()
    x = mx.nd.array(rand(2, 3, 8, 8, seed=7))
    with autograd.record():
        eager = net(x)
    eager.backward()
    grad = net[0].weight.grad().asnumpy().copy()
    net.hybridize()
    with autograd.record():
        graph = net(x)
    graph.backward()
    np.testing.assert_allclose(graph.asnumpy(), eager.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(net[0].weight.grad().asnumpy(), grad, rtol=1e-5, atol=1e-7)
    net.export(str(tmp_path / 'cnn'))
    with open(tmp_path / 'cnn-symbol.json') as f:
        ops = [node['op'] for node in json.load(f)['nodes']]
    assert ops.count('Convolution') == 1 and ops.count('Pooling') == 3 and 'Pad' in ops


def test_symbol_input_gives_named_nodes():
    conv = nn.Conv2D(2, 3, prefix='c_')
    out = conv(mx.sym.var('data'))
    assert out.list_arguments() == ['data', 'c_weight', 'c_bias']
    assert out.name == 'c_fwd'
    pool = nn.MaxPool1D(prefix='p_')(mx.sym.var('data'))
    assert pool.name == 'p_fwd'


def test_bad_arguments_are_refused():
    with pytest.raises(AssertionError, match='kernel_size must be a number or a list of 2'):
        nn.Conv2D(2, (1, 2, 3))
    with pytest.raises(AssertionError, match="Only supports 'NCW' layout"):
        nn.Conv1D(2, 3, layout='NWC')
    with pytest.raises(AssertionError, match='pool_size must be a number or a list of 3'):
        nn.MaxPool3D((2, 2))
    with pytest.raises(AssertionError, match='Only NCHW and NHWC layouts are valid for 2D'):
        nn.AvgPool2D(layout='NCW')
    with pytest.raises(AssertionError):
        nn.ReflectionPad2D((1, 1))
    with pytest.raises(AssertionError, match='output_padding must be a number or a list'):
        nn.Conv2DTranspose(2, 3, output_padding=(1, 1, 1))


def test_pooling_defaults_and_repr():
    assert nn.MaxPool2D().prefix.startswith('pool')
    assert repr(nn.AvgPool1D(3, padding=1, count_include_pad=False)) == (
        'AvgPool1D(size=(3,), stride=(3,), padding=(1,), ceil_mode=False, global_pool=False, '
        'pool_type=avg, layout=NCW)')
    assert nn.AvgPool2D(count_include_pad=False)._kwargs['count_include_pad'] is False
    assert 'count_include_pad' not in nn.MaxPool2D()._kwargs


def test_channel_last_layouts_run():
    """NHWC-style layouts run through channel-first copies (tests/ops/test_channel_last.py
    checks the numbers); the layers size their parameters for them."""
    conv = nn.Conv2D(3, 3, layout='NHWC', in_channels=2)
    assert conv.weight.shape == (3, 3, 3, 2)
    conv.initialize()
    assert conv(mx.nd.ones((1, 5, 5, 2))).shape == (1, 3, 3, 3)
    pool = nn.MaxPool2D(layout='NHWC')
    assert pool(mx.nd.ones((1, 4, 4, 3))).shape == (1, 2, 2, 3)
