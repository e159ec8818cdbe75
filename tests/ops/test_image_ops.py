"""The image operators (mx.nd.image / mx.sym.image) against MXNet 1.9.1's recorded results
(tests/data/image_ops_reference.npz), numpy formulas and finite differences; the random
ones by their distribution."""
import functools
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

TESTED_OPS = {'_image_to_tensor', '_image_normalize', '_image_crop', '_image_resize',
              '_image_flip_left_right', '_image_flip_top_bottom',
              '_image_random_flip_left_right', '_image_random_flip_top_bottom',
              '_image_random_brightness', '_image_random_contrast', '_image_random_saturation',
              '_image_random_hue', '_image_random_color_jitter', '_image_adjust_lighting',
              '_image_random_lighting'}

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'image_ops_reference.npz'


@functools.lru_cache(maxsize=None)
def ref():
    with np.load(DATA) as data:
        return {k: data[k] for k in data.files}


def cases():
    return json.loads(str(ref()['cases']))


def _input(source):
    value = ref()['in/' + source]
    return mx.nd.array(value, dtype=value.dtype)


@pytest.mark.parametrize('name', sorted(cases()))
def test_matches_mxnet(name):
    op, source, params, differentiable = cases()[name]
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}
    x = _input(source)
    func = getattr(mx.nd.image, op)
    if differentiable:
        x.attach_grad()
        with mx.autograd.record():
            out = func(x, **params)
        out.backward(mx.nd.array(ref()[name + '/head']))
        assert_almost_equal(x.grad.asnumpy(), ref()[name + '/grad'], rtol=1e-5, atol=1e-6)
    else:
        out = func(x, **params)
    expected = ref()[name + '/out']
    assert out.dtype == expected.dtype and out.shape == expected.shape
    if expected.dtype == np.uint8:
        assert np.array_equal(out.asnumpy(), expected)
    else:
        assert_almost_equal(out.asnumpy(), expected, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize('name', ['normalize', 'crop', 'resize_cubic', 'flip_left_right'])
def test_symbolic_equals_imperative(name):
    op, source, params, _ = cases()[name]
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}
    x = _input(source)
    sym = getattr(mx.sym.image, op)(mx.sym.var('data'), **params)
    ex = sym.bind(mx.cpu(), {'data': x}, grad_req='null')
    assert np.array_equal(ex.forward()[0].asnumpy(), getattr(mx.nd.image, op)(x, **params)
                          .asnumpy())


@pytest.mark.parametrize('name', sorted(json.loads(str(ref()['errors']))))
def test_error_messages_are_mxnets(name):
    calls = {
        'crop_outside': lambda: mx.nd.image.crop(mx.nd.zeros((4, 4, 3)), 2, 2, 3, 1),
        'resize_size3': lambda: mx.nd.image.resize(mx.nd.zeros((4, 4, 3)), (1, 2, 3)),
        'to_tensor_5d': lambda: mx.nd.image.to_tensor(mx.nd.zeros((1, 2, 3, 4, 5))),
        'brightness_2d': lambda: mx.nd.image.random_brightness(mx.nd.zeros((4, 4)), 1, 2),
    }
    with pytest.raises(MXNetError) as err:
        calls[name]()
    assert str(err.value) in json.loads(str(ref()['errors']))[name]


# ---- gradients -------------------------------------------------------------------------
@pytest.mark.parametrize('op,params,shape', [
    ('normalize', {'mean': (0.1, 0.2, 0.3), 'std': (0.5, 2.0, 4.0)}, (2, 3, 2, 2)),
    ('crop', {'x': 1, 'y': 0, 'width': 2, 'height': 2}, (3, 4, 1)),
    ('flip_left_right', {}, (2, 3, 3)),
    ('flip_top_bottom', {}, (1, 3, 2, 3))])
def test_numeric_gradient(op, params, shape):
    sym = getattr(mx.sym.image, op)(mx.sym.var('data'), **params)
    data = np.random.RandomState(0).uniform(0, 1, shape)
    check_numeric_gradient(sym, {'data': data}, numeric_eps=1e-4, rtol=1e-3, atol=1e-6,
                           dtype=np.float64)


def test_to_tensor_gradient():
    x = mx.nd.array(np.random.RandomState(2).uniform(0, 255, (3, 4, 2)))
    x.attach_grad()
    head = np.random.RandomState(3).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    with mx.autograd.record():
        out = mx.nd.image.to_tensor(x)
    out.backward(mx.nd.array(head))
    assert_almost_equal(x.grad.asnumpy(), head.transpose(1, 2, 0) / 255, rtol=1e-6)


def test_odd_flip_writes_the_middle_column():
    x = mx.nd.array(np.arange(15, dtype=np.float32).reshape(1, 5, 3))
    assert np.array_equal(mx.nd.image.flip_left_right(x).asnumpy(), x.asnumpy()[:, ::-1])


# ---- random operators --------------------------------------------------------------------
def test_random_flips_flip_half_the_time():
    mx.random.seed(3)
    x = mx.nd.array(np.arange(24, dtype=np.float32).reshape(2, 4, 3))
    for op, axis in (('random_flip_left_right', 1), ('random_flip_top_bottom', 0)):
        outs = [getattr(mx.nd.image, op)(x).asnumpy() for _ in range(60)]
        flipped = [np.array_equal(o, np.flip(x.asnumpy(), axis)) for o in outs]
        kept = [np.array_equal(o, x.asnumpy()) for o in outs]
        assert all(f or k for f, k in zip(flipped, kept)) and 15 < sum(flipped) < 45


def test_random_factors_lie_in_their_range_and_follow_the_seed():
    img = mx.nd.array(np.full((2, 2, 3), 100, np.uint8), dtype='uint8')
    mx.random.seed(7)
    values = [int(mx.nd.image.random_brightness(img, 0.5, 1.5).asnumpy()[0, 0, 0])
              for _ in range(30)]
    assert min(values) >= 50 and max(values) <= 150 and len(set(values)) > 5
    mx.random.seed(7)
    again = [int(mx.nd.image.random_brightness(img, 0.5, 1.5).asnumpy()[0, 0, 0])
             for _ in range(30)]
    assert values == again


def test_saturation_blends_with_the_luma():
    rgb = np.array([[[200, 100, 50]]], np.float32)
    out = mx.nd.image.random_saturation(mx.nd.array(rgb), 0.25, 0.25).asnumpy()
    grey = 0.299 * 200 + 0.587 * 100 + 0.114 * 50
    assert_almost_equal(out, grey * 0.75 + rgb * 0.25, rtol=1e-5)
    gray_img = mx.nd.array(np.full((2, 2, 1), 9, np.uint8), dtype='uint8')
    assert np.array_equal(mx.nd.image.random_saturation(gray_img, 0, 2).asnumpy(),
                          gray_img.asnumpy())


def test_color_jitter_and_lighting_keep_dtype_and_range():
    img = mx.nd.array(np.random.RandomState(1).randint(0, 256, (5, 6, 3)), dtype='uint8')
    mx.random.seed(0)
    out = mx.nd.image.random_color_jitter(img, 0.4, 0.4, 0.4, 0.1)
    assert out.dtype == np.uint8 and out.shape == img.shape
    assert not np.array_equal(out.asnumpy(), img.asnumpy())
    unchanged = mx.nd.image.random_color_jitter(img, 0, 0, 0, 0)
    assert np.array_equal(unchanged.asnumpy(), img.asnumpy())
    lit = mx.nd.image.random_lighting(mx.nd.array(img.asnumpy().astype(np.float32)), 0.5)
    shift = lit.asnumpy() - img.asnumpy()
    # one colour shift for every pixel
    assert np.allclose(shift, shift[0, 0], atol=1e-3)
