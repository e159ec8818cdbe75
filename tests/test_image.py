"""mx.image functions and augmenters against the numbers the real MXNet 1.9.1 computed
(tests/data/image_reference.npz, written by tests/data/gen/gen_image_reference.py)."""
import json
import os
import random

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError

REF = np.load(os.path.join(os.path.dirname(__file__), 'data', 'image_reference.npz'))
COLOUR = REF['img/colour']


def src():
    return mx.nd.array(COLOUR, dtype='uint8')


def seed(value):
    random.seed(value)
    np.random.seed(value)


def same(out, key, tol=0.0):
    expected = REF[key]
    out = out.asnumpy() if isinstance(out, mx.nd.NDArray) else np.asarray(out)
    assert out.shape == expected.shape, key
    assert out.dtype == expected.dtype, key
    if tol:
        np.testing.assert_allclose(out, expected, rtol=tol, atol=tol * 10, err_msg=key)
    else:
        np.testing.assert_array_equal(out, expected, err_msg=key)


# ---- decoding -------------------------------------------------------------------------
@pytest.mark.parametrize('name', ['colour', 'gray'])
@pytest.mark.parametrize('flag', [0, 1])
@pytest.mark.parametrize('to_rgb', [0, 1])
def test_imdecode_png_matches_mxnet(name, flag, to_rgb):
    buf = REF['decode/png_' + name].tobytes()
    same(mx.image.imdecode(buf, flag=flag, to_rgb=to_rgb),
         'decode/%s/f%d_rgb%d' % (name, flag, to_rgb))


@pytest.mark.parametrize('flag', [0, 1])
def test_imdecode_jpeg_matches_mxnet(flag):
    same(mx.image.imdecode(REF['decode/jpeg'].tobytes(), flag=flag), 'decode/jpeg/f%d_rgb1' % flag)


def test_imdecode_accepts_arrays_and_out():
    buf = REF['decode/png_colour']
    expected = REF['decode/colour/f1_rgb1']
    np.testing.assert_array_equal(mx.image.imdecode(buf).asnumpy(), expected)
    np.testing.assert_array_equal(mx.image.imdecode(bytearray(buf.tobytes())).asnumpy(), expected)
    np.testing.assert_array_equal(mx.image.imdecode(mx.nd.array(buf, dtype='uint8')).asnumpy(),
                                  expected)
    out = mx.nd.zeros(expected.shape, dtype='uint8')
    assert mx.image.imdecode(buf, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), expected)


def test_imread(tmp_path):
    path = tmp_path / 'img.png'
    path.write_bytes(REF['decode/png_colour'].tobytes())
    same(mx.image.imread(str(path)), 'decode/colour/f1_rgb1')
    same(mx.image.imread(str(path), flag=0), 'decode/colour/f0_rgb1')
    same(mx.image.imread(str(path), to_rgb=False), 'decode/colour/f1_rgb0')


def test_decode_errors(tmp_path):
    with pytest.raises(ValueError, match='bytes, bytearray or numpy.ndarray'):
        mx.image.imdecode('not bytes')
    with pytest.raises(MXNetError, match='Invalid image'):
        mx.image.imdecode(b'certainly not an image')
    with pytest.raises(MXNetError, match='Invalid image'):
        mx.image.imdecode(b'certainly not an image', flag=0)
    with pytest.raises(MXNetError, match='empty'):
        mx.image.imdecode(b'')
    with pytest.raises(MXNetError, match='uint8'):
        mx.image.imdecode(mx.nd.array(REF['decode/png_colour'], dtype='float32'))
    with pytest.raises(MXNetError, match="couldn't open"):
        mx.image.imread(str(tmp_path / 'missing.png'))


# ---- resize, border, crops ------------------------------------------------------------
RESIZE_KEYS = sorted(k for k in REF.files if k.startswith('resize/'))


@pytest.mark.parametrize('key', RESIZE_KEYS)
def test_imresize_matches_mxnet(key):
    _, kind, interp, size = key.split('/')
    w, h = map(int, size.split('x'))
    img = src() if kind == 'u8' else mx.nd.array(REF['img/float'])
    # float results agree to the last bit or two of float32 (OpenCV's SIMD sums)
    same(mx.image.imresize(img, w, h, interp=int(interp)), key, tol=0 if kind == 'u8' else 1e-6)


@pytest.mark.parametrize('interp', [0, 1, 2])
@pytest.mark.parametrize('size', [6, 20, 13])
def test_resize_short_matches_mxnet(interp, size):
    same(mx.image.resize_short(src(), size, interp=interp), 'resize_short/%d/%d' % (interp, size))


def test_resize_short_tall_image():
    tall = mx.nd.array(COLOUR.transpose(1, 0, 2), dtype='uint8')
    same(mx.image.resize_short(tall, 9, interp=1), 'resize_short/tall')


def test_imresize_errors():
    with pytest.raises(MXNetError, match='area'):
        mx.image.imresize(src(), 5, 5, interp=3)
    with pytest.raises(MXNetError, match='height, width, channels'):
        mx.image.imresize(mx.nd.zeros((4, 4), dtype='uint8'), 2, 2)
    with pytest.raises(MXNetError, match='at least 1'):
        mx.image.imresize(src(), 0, 3)
    with pytest.raises(ValueError, match='Unknown interp'):
        mx.image.resize_short(src(), 5, interp=7)


def test_get_interp_method_auto():
    from symmod.image.image import _get_interp_method
    assert _get_interp_method(9, (10, 10, 20, 20)) == 2
    assert _get_interp_method(9, (10, 10, 5, 5)) == 3
    assert _get_interp_method(9, (10, 10, 5, 20)) == 1
    assert _get_interp_method(9) == 2
    seed(3)
    drawn = [_get_interp_method(10) for _ in range(20)]
    seed(3)
    assert drawn == [random.randint(0, 4) for _ in range(20)]


@pytest.mark.parametrize('btype', range(5))
def test_copy_make_border_types(btype):
    same(mx.image.copyMakeBorder(src(), 1, 2, 3, 4, type=btype), 'border/%d' % btype)


def test_copy_make_border_values():
    same(mx.image.copyMakeBorder(src(), 2, 0, 1, 3, value=77), 'border/value')
    same(mx.image.copyMakeBorder(src(), 2, 1, 0, 3, values=(1, 300, 2.6)), 'border/values')
    same(mx.image.copyMakeBorder(mx.nd.array(REF['img/float']), 1, 1, 2, 2, type=0,
                                 values=(1.5, -2.25, 3.0)), 'border/float')
    with pytest.raises(MXNetError, match='border type'):
        mx.image.copyMakeBorder(src(), 1, 1, 1, 1, type=7)


def test_fixed_crop():
    same(mx.image.fixed_crop(src(), 2, 3, 7, 5), 'fixed_crop/plain')
    same(mx.image.fixed_crop(src(), 2, 3, 7, 5, size=(10, 9), interp=1), 'fixed_crop/resized')


def test_center_crop_and_rects():
    keys = [str(k) for k in REF['center_crop/keys']]
    for key, rect in zip(keys, REF['center_crop/rects']):
        w, h = map(int, key.split('x'))
        out, got = mx.image.center_crop(src(), (w, h), interp=1)
        same(out, 'center_crop/' + key)
        assert got == tuple(rect)


def test_scale_down():
    for row, expected in zip(REF['scale_down/in'], REF['scale_down/out']):
        assert mx.image.scale_down(tuple(row[:2]), tuple(row[2:])) == tuple(expected)


def test_color_normalize():
    mean, std = mx.nd.array([120.5, 100.0, 90.25]), mx.nd.array([50.0, 60.0, 70.0])
    img = src().astype('float32')
    assert mx.image.color_normalize(img, mean, std) is img    # in place, as MXNet
    same(img, 'normalize/both', tol=1e-6)
    same(mx.image.color_normalize(src().astype('float32'), mean), 'normalize/mean')


def test_random_crops_match_mxnet_with_the_same_seed():
    rects = []
    for s in range(6):
        seed(s)
        out, rect = mx.image.random_crop(src(), (9, 7), interp=1)
        same(out, 'random_crop/%d' % s)
        rects.append(rect)
        seed(s)
        out, rect = mx.image.random_size_crop(src(), (8, 8), 0.3, (0.75, 1.333), interp=1)
        same(out, 'random_size_crop/%d' % s)
        rects.append(rect)
    np.testing.assert_array_equal(np.array(rects), REF['random_crop/rects'])
    seed(5)
    same(mx.image.random_crop(src(), (20, 15), interp=0)[0], 'random_crop/upsample')


def test_random_size_crop_falls_back_to_center_crop():
    # an area larger than the image never fits: the centre crop is taken
    out, rect = mx.image.random_size_crop(src(), (6, 6), (4.0, 5.0), (1.0, 1.0), interp=1)
    expected, centre = mx.image.center_crop(src(), (6, 6), interp=1)
    assert rect == centre
    np.testing.assert_array_equal(out.asnumpy(), expected.asnumpy())


# ---- augmenters -----------------------------------------------------------------------
EIGVAL = np.array([55.46, 4.794, 1.148])
EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                   [-0.5836, -0.6948, 0.4203]])
UINT8_AUGS = {
    'resize': lambda: mx.image.ResizeAug(9, interp=1),
    'force_resize': lambda: mx.image.ForceResizeAug((11, 5), interp=1),
    'random_crop': lambda: mx.image.RandomCropAug((9, 7), interp=1),
    'random_sized_crop': lambda: mx.image.RandomSizedCropAug((8, 6), (0.2, 0.9), (0.5, 2.0), 1),
    'center_crop': lambda: mx.image.CenterCropAug((9, 7), interp=1),
    'flip': lambda: mx.image.HorizontalFlipAug(0.5),
    'cast': lambda: mx.image.CastAug(),
}
FLOAT_AUGS = {
    'brightness': lambda: mx.image.BrightnessJitterAug(0.4),
    'contrast': lambda: mx.image.ContrastJitterAug(0.4),
    'saturation': lambda: mx.image.SaturationJitterAug(0.4),
    'hue': lambda: mx.image.HueJitterAug(0.3),
    'color_jitter': lambda: mx.image.ColorJitterAug(0.3, 0.3, 0.3),
    'lighting': lambda: mx.image.LightingAug(0.1, EIGVAL, EIGVEC),
    'normalize': lambda: mx.image.ColorNormalizeAug([120.0, 110.0, 100.0], [50.0, 55.0, 60.0]),
    'gray': lambda: mx.image.RandomGrayAug(0.5),
}


@pytest.mark.parametrize('name', sorted(UINT8_AUGS) + sorted(FLOAT_AUGS))
def test_augmenter_matches_mxnet(name):
    aug = (UINT8_AUGS.get(name) or FLOAT_AUGS[name])()
    assert str(aug.dumps()) == str(REF['aug/%s/dumps' % name])
    for s in range(4):
        seed(s)
        x = src() if name in UINT8_AUGS else src().astype('float32')
        same(aug(x), 'aug/%s/%d' % (name, s), tol=0 if name in UINT8_AUGS else 2e-6)


@pytest.mark.parametrize('name', ['random_crop', 'random_sized_crop', 'flip', 'brightness',
                                  'color_jitter', 'hue', 'lighting', 'gray'])
def test_random_augmenters_repeat_with_the_seed(name):
    make = UINT8_AUGS.get(name) or FLOAT_AUGS[name]
    outs = []
    for s in (7, 7, 8, 9, 10, 11):
        # a fresh augmenter: RandomOrderAug keeps its shuffled order between calls
        aug = make()
        seed(s)
        outs.append(aug(src().astype('float32')).asnumpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    # some other seed gives a different result
    assert any(o.shape != outs[0].shape or not np.array_equal(o, outs[0]) for o in outs[2:])


def test_flip_and_gray_properties():
    img = src().astype('float32')
    flips = [mx.image.HorizontalFlipAug(1.0)(img).asnumpy(),
             mx.image.HorizontalFlipAug(0.0)(img).asnumpy()]
    np.testing.assert_array_equal(flips[0], COLOUR[:, ::-1])
    np.testing.assert_array_equal(flips[1], COLOUR)
    gray = mx.image.RandomGrayAug(1.0)(img).asnumpy()
    np.testing.assert_allclose(gray[..., 0], COLOUR @ np.array([0.21, 0.72, 0.07]), rtol=1e-5)
    np.testing.assert_array_equal(gray[..., 0], gray[..., 2])


def test_saturation_zero_gives_luma():
    # alpha = 0 exactly is out of reach; with saturation 1 the result stays on the
    # line between the image and its luma, per pixel
    seed(1)
    out = mx.image.SaturationJitterAug(1.0)(src().astype('float32')).asnumpy()
    seed(1)
    alpha = 1.0 + random.uniform(-1.0, 1.0)
    luma = (COLOUR * np.array([0.299, 0.587, 0.114])).sum(axis=2, keepdims=True)
    np.testing.assert_allclose(out, alpha * COLOUR + (1 - alpha) * luma, rtol=1e-4, atol=1e-3)


def test_sequential_and_random_order_dumps():
    seq = mx.image.SequentialAug([mx.image.CenterCropAug((9, 7), 1), mx.image.CastAug()])
    assert str(seq.dumps()) == str(REF['aug/sequential/dumps'])
    same(seq(src()), 'aug/sequential/0')
    order = mx.image.RandomOrderAug([mx.image.BrightnessJitterAug(0.1)])
    assert order.dumps() == ['randomorderaug', [json.dumps(['brightnessjitteraug',
                                                            {'brightness': 0.1}])]]


CREATE_SETTINGS = [dict(), dict(resize=10, rand_crop=True, rand_mirror=True),
                   dict(rand_crop=True, rand_resize=True, brightness=0.1, hue=0.1),
                   dict(mean=True, std=True, pca_noise=0.1, rand_gray=0.2, inter_method=1),
                   dict(mean=np.array([1.0, 2.0, 3.0]), contrast=0.2, saturation=0.3)]


@pytest.mark.parametrize('i', range(len(CREATE_SETTINGS)))
def test_create_augmenter_builds_mxnets_list(i):
    augs = mx.image.CreateAugmenter((3, 6, 8), **CREATE_SETTINGS[i])
    assert [str(a.dumps()) for a in augs] == [str(d) for d in REF['create/%d' % i]]


def test_create_augmenter_errors():
    with pytest.raises(AssertionError):
        mx.image.CreateAugmenter((3, 6, 8), rand_resize=True)      # needs rand_crop
    with pytest.raises(AssertionError):
        mx.image.CreateAugmenter((3, 6, 8), mean=np.zeros(2))
    with pytest.raises(TypeError, match='abstract'):
        mx.image.Augmenter()(src())
