"""mx.image.imrotate / random_rotate against MXNet 1.9.1's outputs
(tests/data/image_ops_reference.npz) and their defining properties."""
import functools
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import assert_almost_equal

DATA = pathlib.Path(__file__).resolve().parent / 'data' / 'image_ops_reference.npz'


@functools.lru_cache(maxsize=None)
def ref():
    with np.load(DATA) as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize('angle', [30, -75, 180])
def test_rotation_matches_mxnet(angle):
    out = mx.image.imrotate(mx.nd.array(ref()['in/rot']), angle)
    assert_almost_equal(out.asnumpy(), ref()['rotate/%d/out' % angle], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('zoom', ['zoom_in', 'zoom_out'])
def test_zoom_matches_mxnet(zoom):
    out = mx.image.imrotate(mx.nd.array(ref()['in/rot']), 40, **{zoom: True})
    assert_almost_equal(out.asnumpy(), ref()['rotate/%s/out' % zoom], rtol=1e-5, atol=1e-5)


def test_batch_with_one_angle_per_image_matches_mxnet():
    out = mx.image.imrotate(mx.nd.array(ref()['in/rot_batch']),
                            mx.nd.array(ref()['rotate/batch/angles']))
    assert_almost_equal(out.asnumpy(), ref()['rotate/batch/out'], rtol=1e-5, atol=1e-5)


def test_quarter_turns_move_pixels_exactly():
    img = mx.nd.array(np.arange(9, dtype=np.float32).reshape(1, 3, 3))
    for turns in range(4):
        want = np.rot90(img.asnumpy()[0], k=turns)     # counter-clockwise
        got = mx.image.imrotate(img, 90 * turns).asnumpy()[0]
        assert_almost_equal(got, want, atol=1e-4)


def test_argument_checks():
    with pytest.raises(TypeError, match='float32'):
        mx.image.imrotate(mx.nd.ones((3, 4, 4), dtype='uint8'), 10)
    with pytest.raises(ValueError, match='both'):
        mx.image.imrotate(mx.nd.ones((3, 4, 4)), 10, zoom_in=True, zoom_out=True)
    with pytest.raises(TypeError, match='scalar'):
        mx.image.imrotate(mx.nd.ones((3, 4, 4)), mx.nd.array([1, 2]))
    with pytest.raises(ValueError, match='number of images'):
        mx.image.imrotate(mx.nd.ones((2, 3, 4, 4)), mx.nd.array([1, 2, 3]))
    with pytest.raises(ValueError, match='3D and 4D'):
        mx.image.imrotate(mx.nd.ones((4, 4)), 10)


def test_random_rotate_draws_angles_in_the_limits():
    img = mx.nd.array(np.random.RandomState(0).uniform(0, 1, (2, 3, 8, 8)).astype(np.float32))
    np.random.seed(4)
    out = mx.image.random_rotate(img, (-20, 20))
    np.random.seed(4)
    angles = np.random.uniform(-20, 20, size=2)
    assert_almost_equal(out.asnumpy(), mx.image.imrotate(img, mx.nd.array(angles)).asnumpy())
    assert mx.image.random_rotate(img[0], (5, 6)).shape == (3, 8, 8)
