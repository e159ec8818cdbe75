"""The gluon vision transforms built on the image operators and mx.image.imrotate:
CropResize, Resize (bicubic), Rotate against MXNet 1.9.1 (tests/data/image_ops_reference.npz);
RandomRotation, RandomApply, the colour transforms and hybridization."""
import functools
import pathlib
import random

import numpy as np
import pytest

import symmod as mx
from symmod.gluon.data.vision import transforms as T
from symmod.test_utils import assert_almost_equal

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'image_ops_reference.npz'


@functools.lru_cache(maxsize=None)
def ref():
    with np.load(DATA) as data:
        return {k: data[k] for k in data.files}


def u8():
    return mx.nd.array(ref()['in/u8'], dtype='uint8')


@pytest.mark.parametrize('name,block', [
    ('crop_resize', lambda: T.CropResize(1, 1, 5, 4, (3, 6), 2)),
    ('crop_resize_nosize', lambda: T.CropResize(2, 0, 3, 6)),
    ('resize_cubic', lambda: T.Resize(10, keep_ratio=True, interpolation=2))])
@pytest.mark.parametrize('hybridize', [False, True])
def test_against_mxnet(name, block, hybridize):
    transform = block()
    if hybridize:
        transform.hybridize()
    assert np.array_equal(transform(u8()).asnumpy(), ref()['transform/%s/out' % name])


def test_rotate_against_mxnet():
    out = T.Rotate(25)(mx.nd.array(ref()['in/rot']))
    assert_almost_equal(out.asnumpy(), ref()['transform/rotate/out'], rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match='ToTensor'):
        T.Rotate(10)(mx.nd.ones((3, 4, 4), dtype='uint8'))


def test_random_rotation():
    with pytest.raises(ValueError, match='ordered'):
        T.RandomRotation((10, -10))
    with pytest.raises(ValueError, match='between 0 and 1'):
        T.RandomRotation((-10, 10), rotate_with_proba=1.5)
    img = mx.nd.array(np.random.RandomState(0).uniform(0, 1, (3, 6, 8)).astype(np.float32))
    assert np.array_equal(T.RandomRotation((-90, 90), rotate_with_proba=0)(img).asnumpy(),
                          img.asnumpy())
    assert T.RandomRotation((-90, 90))(img).shape == (3, 6, 8)


def test_random_apply_follows_python_random():
    double = T.Compose([T.Cast('float32'), T.Resize((5, 4))])
    apply = T.RandomApply(double, p=0.3)
    img = u8()
    random.seed(1)
    shapes = [apply(img).shape for _ in range(200)]
    applied = sum(s == (4, 5, 3) for s in shapes)
    assert all(s in ((4, 5, 3), img.shape) for s in shapes) and 40 < applied < 80


@pytest.mark.parametrize('block', [T.RandomBrightness(0.3), T.RandomContrast(0.3),
                                   T.RandomSaturation(0.3), T.RandomHue(0.1),
                                   T.RandomColorJitter(0.2, 0.2, 0.2, 0.1),
                                   T.RandomLighting(0.2), T.RandomFlipTopBottom()])
def test_colour_transforms_keep_shape_and_dtype(block):
    out = block(u8())
    assert out.shape == u8().shape and out.dtype == np.uint8


def test_compose_of_operator_transforms_hybridizes_end_to_end():
    composed = T.Compose([T.Resize(12, interpolation=2), T.RandomFlipLeftRight(),
                          T.RandomColorJitter(0.1, 0.1, 0.1, 0.1), T.ToTensor(),
                          T.Normalize((0.5, 0.5, 0.5), (0.2, 0.2, 0.2))])
    assert len(composed) == 1 and isinstance(composed[0], mx.gluon.nn.HybridSequential)
    out = composed(u8())
    assert out.shape == (3, 12, 12) and out.dtype == np.float32
