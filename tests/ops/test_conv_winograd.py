"""Winograd F(2x2, 3x3) convolution kernels (symmod/ops/conv_winograd.py): against a loop
reference, the direct kernels, finite differences through the operator, and the choice
of kernels per shape."""
import numba
import numpy as np
import pytest

import symmod as mx
from symmod.ops import conv_direct, conv_winograd, blas_numba
from symmod.ops import conv_winograd_transforms as transforms
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from test_conv import conv_reference

# even and odd planes (tiles cut by the border), one pixel, one sample, more filters
# than channels and the reverse
SHAPES = [(2, 3, 4, 4, 5), (3, 4, 5, 7, 6), (1, 2, 1, 1, 3), (2, 6, 3, 2, 2), (1, 5, 6, 3, 1)]


@pytest.mark.parametrize('block_bytes', [None, 1])
@pytest.mark.parametrize('n, c, h, w, k', SHAPES)
def test_winograd_kernels_match_reference_and_direct(n, c, h, w, k, block_bytes, monkeypatch):
    if block_bytes is not None:
        # blocks of 16 tiles: several per sample, or samples cut between two blocks
        monkeypatch.setattr(conv_winograd, 'BLOCK_BYTES', block_bytes)
    rng = np.random.default_rng(n * 100 + c * 10 + h)
    x = rng.standard_normal((n, c, h, w))
    weight = rng.standard_normal((k, c, 3, 3))
    dy = rng.standard_normal((n, k, h, w))
    out = np.empty((n, k, h, w))
    conv_winograd.forward(x, weight, out)
    assert_almost_equal(out, conv_reference(x, weight, None, (1, 1), (1, 1), (1, 1), 1),
                        rtol=1e-12, atol=1e-12)
    dx, dx_direct = np.empty_like(x), np.empty_like(x)
    conv_winograd.backward_data(dy, weight, dx)
    conv_direct.backward_data(dy, weight, dx_direct)
    assert_almost_equal(dx, dx_direct, rtol=1e-12, atol=1e-12)
    assert_almost_equal(conv_winograd.backward_weight(x, dy),
                        conv_direct.backward_weight(x, dy), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('kernels', [conv_direct, conv_winograd])
@pytest.mark.parametrize('n, c, h, w, k', SHAPES[:2])
def test_kernels_add_into_their_output(kernels, n, c, h, w, k):
    # add=True accumulates (a data gradient with grad_req 'add', a second writer) with no
    # scratch buffer: the sum equals what was there plus the plain result
    rng = np.random.default_rng(n + c + k)
    x = rng.standard_normal((n, c, h, w))
    weight = rng.standard_normal((k, c, 3, 3))
    dy = rng.standard_normal((n, k, h, w))
    for call, source, shape in ((kernels.forward, x, (n, k, h, w)),
                                (kernels.backward_data, dy, (n, c, h, w))):
        before = rng.standard_normal(shape)
        plain, summed = np.empty(shape), before.copy()
        call(source, weight, plain)
        call(source, weight, summed, add=True)
        assert_almost_equal(summed, before + plain, rtol=1e-12, atol=1e-12)


def test_winograd_float32_error_is_small():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 64, 8, 8)).astype(np.float32)
    weight = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    out = np.empty((4, 64, 8, 8), np.float32)
    conv_winograd.forward(x, weight, out)
    expected = conv_reference(x.astype(np.float64), weight.astype(np.float64), None, (1, 1),
                              (1, 1), (1, 1), 1)
    assert out.dtype == np.float32
    assert np.abs(out - expected).max() <= 1e-5 * np.abs(expected).max()


@pytest.fixture
def winograd_everywhere(monkeypatch):
    """Every 3x3 same convolution through the Winograd kernels."""
    monkeypatch.setattr(conv_winograd, 'MIN_CHANNELS', 1)


@pytest.mark.parametrize('no_bias', [True, False])
def test_winograd_numeric_gradient(winograd_everywhere, no_bias):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 5, 4))
    w = rng.standard_normal((4, 3, 3, 3))
    b = rng.standard_normal(4)
    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(3, 3), pad=(1, 1), num_filter=4,
                             no_bias=no_bias, name='conv')
    check_numeric_gradient(sym, [x, w] if no_bias else [x, w, b], numeric_eps=1e-6,
                           rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_convolution_picks_winograd_for_wide_layers(monkeypatch):
    calls = []
    for name in ('forward', 'backward_data', 'backward_weight'):
        original = getattr(conv_winograd, name)

        def counted(*args, _original=original, _name=name, **kwargs):
            calls.append(_name)
            return _original(*args, **kwargs)
        monkeypatch.setattr(conv_winograd, name, counted)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 64, 4, 6)).astype(np.float32)
    w = (rng.standard_normal((64, 64, 3, 3)) / 24).astype(np.float32)
    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(3, 3), pad=(1, 1),
                             num_filter=64, no_bias=True, name='conv')
    ex = sym.bind(mx.cpu(), args={'data': mx.nd.array(x), 'conv_weight': mx.nd.array(w)},
                  args_grad={'data': mx.nd.zeros(x.shape), 'conv_weight': mx.nd.zeros(w.shape)})
    out = ex.forward(is_train=True)[0].asnumpy()
    dy = rng.standard_normal(out.shape).astype(np.float32)
    ex.backward(mx.nd.array(dy))
    assert calls == ['forward', 'backward_weight', 'backward_data']
    x64, w64, dy64 = x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64)
    assert_almost_equal(out, conv_reference(x64, w64, None, (1, 1), (1, 1), (1, 1), 1),
                        rtol=1e-4, atol=1e-4)
    dw = np.empty_like(w64)
    dw[:] = conv_direct.backward_weight(x64, dy64)
    dx = np.empty_like(x64)
    conv_direct.backward_data(dy64, w64, dx)
    assert_almost_equal(ex.grad_dict['conv_weight'].asnumpy(), dw, rtol=1e-4, atol=1e-3)
    assert_almost_equal(ex.grad_dict['data'].asnumpy(), dx, rtol=1e-4, atol=1e-4)


def test_narrow_layers_keep_the_direct_kernels():
    assert conv_winograd.preferred(64, 64, np.float32)
    assert conv_winograd.preferred(32, 64, np.float64)
    assert not conv_winograd.preferred(16, 64, np.float32)
    assert not conv_winograd.preferred(64, 16, np.float32)
    assert not conv_winograd.preferred(64, 64, np.float16)


def test_winograd_backward_add_accumulates(winograd_everywhere):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 3, 4, 5))
    w = rng.standard_normal((2, 3, 3, 3))
    dy = rng.standard_normal((2, 2, 4, 5))
    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(3, 3), pad=(1, 1), num_filter=2,
                             no_bias=True, name='conv')
    grads = {}
    for req in ('write', 'add'):
        ex = sym.bind(mx.cpu(), args={'data': mx.nd.array(x, dtype=np.float64),
                                      'conv_weight': mx.nd.array(w, dtype=np.float64)},
                      args_grad={'data': mx.nd.ones(x.shape, dtype=np.float64),
                                 'conv_weight': mx.nd.ones(w.shape, dtype=np.float64)},
                      grad_req=req)
        ex.forward(is_train=True)
        ex.backward(mx.nd.array(dy, dtype=np.float64))
        grads[req] = [ex.grad_dict[k].asnumpy() - (1 if req == 'add' else 0)
                      for k in ('data', 'conv_weight')]
    for a, b in zip(grads['add'], grads['write']):
        assert_almost_equal(a, b, rtol=1e-10, atol=1e-10)


@pytest.fixture(params=['numba BLAS', 'numpy products'])
def product_paths(request, monkeypatch):
    """Both ways of running the products: BLAS called inside one parallel numba call, and
    (where numpy's BLAS cannot be called from numba) numpy's products on thread_split."""
    if request.param == 'numba BLAS' and not blas_numba.AVAILABLE:
        pytest.skip("numpy's BLAS is not callable from numba here")
    if request.param == 'numpy products':
        monkeypatch.setattr(blas_numba, 'AVAILABLE', False)
    return request.param


def _three_passes(x, weight, dy):
    out, dx = np.empty_like(dy), np.empty_like(x)
    conv_winograd.forward(x, weight, out)
    conv_winograd.backward_data(dy, weight, dx)
    return out, dx, conv_winograd.backward_weight(x, dy)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_winograd_splits_over_threads_with_the_same_bits(product_paths, dtype, monkeypatch):
    from symmod.ops import thread_split
    monkeypatch.setattr(conv_winograd, 'BLOCK_BYTES', 1)       # 16 tiles a block: 8 blocks
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 8, 8)).astype(dtype)
    weight = rng.standard_normal((4, 3, 3, 3)).astype(dtype)
    dy = rng.standard_normal((2, 4, 8, 8)).astype(dtype)
    results = {}
    for parts in (1, 2, 3, 4, 5):
        # parts beyond numba's threads run in turn on the threads there are; the forward
        # cuts the blocks into that many runs, the weight gradient its 16 products
        # (at most 4 parts)
        monkeypatch.setattr(thread_split, 'parts', lambda parts=parts: parts)
        results[parts] = _three_passes(x, weight, dy)
    for parts in (2, 3, 4, 5):
        for a, b in zip(results[parts], results[1]):
            np.testing.assert_array_equal(a, b)      # not a rounding apart
    expected = conv_reference(x.astype(np.float64), weight.astype(np.float64), None, (1, 1),
                              (1, 1), (1, 1), 1)
    assert np.abs(results[2][0] - expected).max() <= 1e-5 * np.abs(expected).max()


def test_winograd_runs_on_numba_threads_with_the_same_bits():
    # ResNet-20's 64-channel layer, at one and at two of numba's threads (the width the
    # executor sets), through the operator as it runs in training
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip('one numba thread')
    rng = np.random.default_rng(12)
    x = rng.standard_normal((8, 64, 8, 8)).astype(np.float32)
    weight = (rng.standard_normal((64, 64, 3, 3)) / 24).astype(np.float32)
    dy = rng.standard_normal((8, 64, 8, 8)).astype(np.float32)
    before = numba.get_num_threads()
    try:
        results = []
        for width in (1, 2):
            numba.set_num_threads(width)
            results.append(_three_passes(x, weight, dy))
    finally:
        numba.set_num_threads(before)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_winograd_products_match_numpy_products(product_paths):
    # the 'numpy products' run of the fixture is the reference here for the other
    rng = np.random.default_rng(13)
    x = rng.standard_normal((3, 5, 7, 6))
    weight = rng.standard_normal((4, 5, 3, 3))
    dy = rng.standard_normal((3, 4, 7, 6))
    out, dx, dw = _three_passes(x, weight, dy)
    assert_almost_equal(out, conv_reference(x, weight, None, (1, 1), (1, 1), (1, 1), 1),
                        rtol=1e-12, atol=1e-12)
    dx_direct = np.empty_like(x)
    conv_direct.backward_data(dy, weight, dx_direct)
    assert_almost_equal(dx, dx_direct, rtol=1e-12, atol=1e-12)
    assert_almost_equal(dw, conv_direct.backward_weight(x, dy), rtol=1e-12, atol=1e-12)


def test_thread_split_runs_every_part_and_raises_their_errors():
    from symmod.ops import thread_split
    done = []
    thread_split.run(done.append, 3)
    assert sorted(done) == [0, 1, 2]

    def fails(i):
        if i == 1:
            raise ValueError('part 1')
    with pytest.raises(ValueError, match='part 1'):
        thread_split.run(fails, 2)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_filter_transforms_are_g_w_gt_and_its_adjoint(dtype):
    """The numba filter transforms equal their definitions: U = G g G^T per (k, c), and
    the weight gradient's dg = G^T dU G; they also come out right in the padded planes
    the transforms write."""
    g_mat = np.array(((1, 0, 0), (.5, .5, .5), (.5, -.5, .5), (0, 0, 1)))
    rng = np.random.RandomState(3)
    w = rng.standard_normal((7, 5, 3, 3)).astype(dtype)
    expected = np.einsum('ia,kcab,jb->ijkc', g_mat, w.astype(np.float64), g_mat)
    got = conv_winograd._planes('u', 7, 5, dtype)
    for rows in ((0, 7), (0, 3), (3, 7)):       # the filters split between two threads
        got[...] = np.nan
        transforms.weight_transform(w, got, False, *rows)
        np.testing.assert_allclose(got[:, slice(*rows)], expected.reshape(16, 7, 5)[:, slice(*rows)],
                                   rtol=1e-6, atol=1e-6)
    # the data gradient's filters: flipped, channel axes swapped
    flipped = conv_winograd._planes('u', 5, 7, dtype)
    transforms.weight_transform(w, flipped, True, 0, 5)
    np.testing.assert_allclose(
        flipped, np.einsum('ia,ckab,jb->ijkc', g_mat, w[:, :, ::-1, ::-1].astype(np.float64),
                           g_mat).reshape(16, 5, 7), rtol=1e-6, atol=1e-6)
    du = rng.standard_normal((16, 7, 5)).astype(dtype)
    dg = np.empty((7, 5, 3, 3), dtype)
    transforms.weight_grad_transform(du, dg, 0, 4)
    transforms.weight_grad_transform(du, dg, 4, 7)
    np.testing.assert_allclose(
        dg, np.einsum('ia,ijkc,jb->kcab', g_mat, du.astype(np.float64).reshape(4, 4, 7, 5),
                      g_mat), rtol=1e-6, atol=1e-6)
