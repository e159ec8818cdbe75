"""mx.nd functions over operators and NDArray behaviours MXNet 1.9.1 has: the
scalar-aware binary functions, random namespaces, CachedOp, DLPack, contrib functions,
views of reshape/flatten/expand_dims/squeeze, 0-d arrays, from_numpy and in-place writes
while recording."""
import numpy as np
import pytest

import symmod as mx

RNG = np.random.RandomState(2)


@pytest.mark.parametrize('name, fn', [
    ('add', np.add), ('subtract', np.subtract), ('multiply', np.multiply),
    ('divide', np.divide), ('true_divide', np.divide), ('modulo', np.mod),
    ('power', np.power), ('maximum', np.maximum), ('minimum', np.minimum),
    ('equal', np.equal), ('not_equal', np.not_equal), ('greater', np.greater),
    ('greater_equal', np.greater_equal), ('lesser', np.less), ('lesser_equal', np.less_equal),
    ('logical_and', np.logical_and), ('logical_or', np.logical_or),
    ('logical_xor', np.logical_xor)])
def test_binary_functions_of_arrays_and_numbers(name, fn):
    a = np.round(RNG.uniform(0.5, 3, (2, 3)), 1)
    b = np.round(RNG.uniform(0.5, 3, (1, 3)), 1)
    func = getattr(mx.nd, name)
    expect = lambda x, y: fn(x, y).astype(np.float32)      # noqa: E731
    np.testing.assert_allclose(func(mx.nd.array(a), mx.nd.array(b)).asnumpy(), expect(a, b),
                               rtol=1e-5)
    np.testing.assert_allclose(func(mx.nd.array(a), 2.0).asnumpy(), expect(a, 2.0), rtol=1e-5)
    np.testing.assert_allclose(func(2.0, mx.nd.array(a)).asnumpy(), expect(2.0, a), rtol=1e-5)
    assert float(func(3.0, 2.0)) == float(fn(3.0, 2.0))
    with pytest.raises(TypeError):
        func('a', mx.nd.array(a))


def test_symbol_binary_functions():
    x, y = mx.sym.var('x'), mx.sym.var('y')
    args = {'x': mx.nd.array([3.0, 4.0]), 'y': mx.nd.array([4.0, 3.0])}
    assert mx.sym.power(x, 2).eval(**args)[0].asnumpy().tolist() == [9, 16]
    assert mx.sym.power(2, x).eval(**args)[0].asnumpy().tolist() == [8, 16]
    assert mx.sym.hypot(x, y).eval(**args)[0].asnumpy().tolist() == [5, 5]
    assert mx.sym.maximum(x, 3.5).eval(**args)[0].asnumpy().tolist() == [3.5, 4]
    assert mx.sym.hypot(3, 4) == 5.0 and mx.sym.minimum(1, 2) == 1


def test_random_functions_and_like_forms():
    mx.random.seed(9)
    a = mx.nd.random.normal(loc=mx.nd.array([0, 100]), scale=mx.nd.array([1, 1]), shape=3)
    assert a.shape == (2, 3) and (a.asnumpy()[1] > 90).all()
    like = mx.nd.random.uniform_like(mx.nd.zeros((4, 5), dtype='float64'), low=2, high=3)
    assert like.shape == (4, 5) and like.dtype == np.float64
    assert ((like.asnumpy() >= 2) & (like.asnumpy() < 3)).all()
    assert mx.nd.random.exponential(scale=mx.nd.array([1.0, 2.0])).shape == (2,)
    assert mx.nd.uniform(low=0, high=1, shape=(2,)).shape == (2,)     # legacy op names
    assert mx.nd.random_normal(shape=(3,)).shape == (3,)
    mx.random.seed(-5)                       # MXNet keeps the low 32 bits of the seed
    first = mx.nd.random.uniform(shape=(4,)).asnumpy()
    mx.random.seed(-5 + (1 << 32))
    np.testing.assert_array_equal(mx.nd.random.uniform(shape=(4,)).asnumpy(), first)


def test_symbol_random_namespace():
    x = mx.sym.var('x')
    noise = mx.sym.random.normal(loc=0, scale=1) + x
    assert noise.infer_shape(x=(2, 3))[1] == [(2, 3)]
    per_element = mx.sym.random.uniform(mx.sym.var('lo'), mx.sym.var('hi'), shape=(4,))
    out = per_element.eval(lo=mx.nd.array([0, 10]), hi=mx.nd.array([1, 11]))[0].asnumpy()
    assert out.shape == (2, 4) and (out[1] >= 10).all()
    randn = mx.sym.random.randn(data=mx.sym.ones((2, 3)), loc=5)     # data is ignored
    assert randn.list_arguments() == []
    picks = mx.sym.random.multinomial(mx.sym.var('p'), shape=3)
    assert len(picks.list_outputs()) == 2            # get_prob=True by default for symbols
    with pytest.raises(ValueError, match='all be Symbols'):
        mx.sym.random.normal(mx.sym.var('a'), 1.0)


def test_cached_op_runs_and_differentiates():
    sym = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc') * 2
    op = mx.nd.CachedOp(sym, flags=[('static_alloc', True)])
    data, weight, bias = mx.nd.ones((3, 4)), mx.nd.ones((2, 4)), mx.nd.zeros((2,))
    np.testing.assert_allclose(op(data, weight, bias).asnumpy(), np.full((3, 2), 8.0))
    out = mx.nd.zeros((3, 2))
    op(data, weight, bias, out=out)
    assert out.asnumpy()[0, 0] == 8.0
    weight.attach_grad()
    with mx.autograd.record():
        y = op(data, weight, bias)
    y.backward()
    np.testing.assert_allclose(weight.grad.asnumpy(), np.full((2, 4), 6.0))
    with pytest.raises(mx.MXNetError, match='expects 3 inputs'):
        op(data)


def test_dlpack_shares_memory():
    a = mx.nd.array([1.0, 2.0, 3.0])
    b = mx.nd.from_dlpack(a.to_dlpack_for_write())
    b[0] = 7
    assert a.asnumpy()[0] == 7
    c = mx.nd.from_dlpack(mx.nd.to_dlpack_for_read(a))
    np.testing.assert_array_equal(c.asnumpy(), a.asnumpy())
    d = mx.nd.from_dlpack(np.arange(4.0))
    assert d.shape == (4,)


def test_contrib_functions():
    x = mx.nd.array([1.0, np.inf, -np.inf, np.nan])
    assert mx.nd.contrib.isinf(x).asnumpy().tolist() == [0, 1, 1, 0]
    assert mx.nd.contrib.isfinite(x).asnumpy().tolist() == [1, 0, 0, 0]
    assert mx.nd.contrib.isnan(x).asnumpy().tolist() == [0, 0, 0, 1]
    mx.random.seed(0)
    sampled, exp_true, exp_sampled = mx.nd.contrib.rand_zipfian(mx.nd.array([3]), 5000, 10)
    assert sampled.dtype == np.int64 and sampled.shape == (5000,)
    freq0 = (sampled.asnumpy() == 0).mean()
    assert abs(freq0 - np.log(2) / np.log(11)) < 0.03
    np.testing.assert_allclose(exp_true.asnumpy(), np.log(5 / 4) / np.log(11) * 5000)
    sym = mx.sym.contrib.rand_zipfian(mx.sym.var('t'), 4, 10)
    assert sym[0].eval(t=mx.nd.array([1]))[0].shape == (4,)


def test_reshape_and_friends_are_views_with_mxnets_errors():
    t = mx.nd.array(np.arange(30).reshape(2, 3, 5))
    view = t.reshape(6, 5)
    flat = t.flatten(inplace=True)
    copy = t.flatten()
    expanded = t.expand_dims(axis=-1, inplace=True)
    t[0] = -1
    assert view.asnumpy()[0, 0] == -1 and flat.asnumpy()[0, 0] == -1
    assert expanded.shape == (2, 3, 5, 1) and expanded.asnumpy()[0, 0, 0, 0] == -1
    assert copy.asnumpy()[0, 0] == 0
    s = mx.nd.ones((1, 3, 1))
    squeezed = s.squeeze(inplace=True)
    s[:] = 5
    assert squeezed.shape == (3,) and (squeezed.asnumpy() == 5).all()
    with pytest.raises(ValueError, match='Cannot reshape array of size 30'):
        t.reshape(2, 3)
    with pytest.raises(mx.MXNetError):
        t.reshape(4, 10)
    assert t.reshape_like(mx.nd.zeros((5, 6))).shape == (5, 6)


def test_scalars_make_zero_dim_arrays_and_out_arguments():
    assert mx.nd.array(np.ones([])).shape == ()
    assert mx.nd.array(3.5).asscalar() == 3.5
    out = mx.nd.zeros((2, 2))
    assert mx.nd.ones((2, 2), out=out) is out and (out.asnumpy() == 1).all()
    mx.nd.zeros((2, 2), out=out)
    assert (out.asnumpy() == 0).all()


def test_from_numpy_takes_over_the_memory():
    source = np.array([[1, 2], [3, 4]], dtype='float32')
    shared = mx.nd.from_numpy(source)
    with pytest.raises(ValueError):
        source[0, 0] = 9
    shared[0, 0] = 9
    assert source[0, 0] == 9
    with pytest.raises(ValueError, match='c-contiguous'):
        mx.nd.from_numpy(np.ones((3, 2)).T)
    copied = mx.nd.from_numpy(np.ones(3), zero_copy=False)
    assert copied.dtype == np.float64


def test_setitem_while_recording_is_refused_like_mxnet():
    x = mx.nd.zeros((2, 3))
    y = mx.nd.ones((3,))
    y.attach_grad()
    with pytest.raises(mx.MXNetError, match='Inplace operations'):
        with mx.autograd.record():
            x[0] = y
    x[0] = y                          # outside recording it is a plain write
    assert (x.asnumpy()[0] == 1).all()


def test_basic_indexing_contiguity_matches_numpy():
    is_contiguous = mx.nd.NDArray._basic_indexing_slice_is_contiguous
    x = np.zeros((4, 5, 6))
    for key in [(slice(None), slice(1, 3), slice(None)), (slice(0, 1), slice(1, 3), slice(None)),
                (slice(None, None, 2), slice(None), slice(None)),
                (slice(1, 2), slice(1, 2), slice(None, None, -1)),
                (slice(None), slice(None), slice(0, 0))]:
        assert is_contiguous(key, x.shape) == x[key].flags.c_contiguous, key


def test_reset_arrays_and_legacy_imdecode(tmp_path):
    a, b = mx.nd.ones((2,)), mx.nd.ones((3, 2))
    assert mx.nd.reset_arrays(a, b, num_arrays=2) == []
    assert not a.asnumpy().any() and not b.asnumpy().any()
    with pytest.raises(mx.MXNetError, match='no symbolic form'):
        mx.sym.reset_arrays(mx.sym.var('a'), num_arrays=1)
    image = (np.arange(4 * 5 * 3) % 251).astype(np.uint8).reshape(4, 5, 3)
    png = mx.image.imencode(mx.nd.array(image, dtype='uint8'), '.png') \
        if hasattr(mx.image, 'imencode') else None
    if png is None:
        from PIL import Image
        import io
        buf = io.BytesIO()
        Image.fromarray(image).save(buf, format='PNG')
        png = buf.getvalue()
    decoded = mx.nd.imdecode(png)
    assert decoded.shape == (3, 4, 5) and decoded.dtype == np.float32
    np.testing.assert_array_equal(decoded.asnumpy(), image[:, :, ::-1].transpose(2, 0, 1))
    clipped = mx.nd.imdecode(png, clip_rect=(1, 1, 4, 3), mean=mx.nd.ones((3, 2, 3)))
    np.testing.assert_array_equal(clipped.asnumpy(),
                                  image[1:3, 1:4, ::-1].transpose(2, 0, 1) - 1.0)
    out = mx.nd.zeros((2, 3, 4, 5))
    mx.nd.imdecode(png, out=out, index=1)
    assert not out.asnumpy()[0].any() and (out.asnumpy()[1] == decoded.asnumpy()).all()


def test_indexing_helpers_and_recorded_advanced_indexing():
    assert mx.nd.get_indexing_dispatch_code((1, slice(None), None)) == 0
    assert mx.nd.get_indexing_dispatch_code((np.array([1]),)) == 1
    key, _ = mx.nd.indexing_key_expand_implicit_axes((0, Ellipsis, None), (3, 4, 5))
    assert key == (0, slice(None), slice(None), None)
    assert mx.nd.get_oshape_of_gather_nd_op((5, 6, 7), (2, 3)) == (3, 7)
    x = mx.nd.array(np.arange(24.0).reshape(2, 3, 4))
    x.attach_grad()
    key = (slice(None), [2, 0, 2], None, 1)
    with mx.autograd.record():
        y = x[key]
    y.backward()
    expected = np.zeros((2, 3, 4))
    np.add.at(expected, key, 1)
    np.testing.assert_array_equal(x.grad.asnumpy(), expected)
