"""mx.image.ImageDetIter and the detection augmenters against MXNet 1.9.1's batches
(tests/data/gen/gen_image_det_reference.py: plain, augmented with seeded crops / pads /
mirrors, roll-over), and the augmenters' box arithmetic."""
import functools
import os
import random

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import assert_almost_equal

from image_det_cases import IMAGES, RUNS, imglist, run


@functools.lru_cache(maxsize=None)
def ref():
    with np.load(os.path.join(IMAGES, 'reference.npz')) as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize('name', sorted(RUNS))
def test_batches_match_mxnet(name):
    got = run(mx, name)
    expected = {k[len(name) + 1:]: v for k, v in ref().items() if k.startswith(name + '/')}
    assert sorted(got) == sorted(expected)
    for key, value in expected.items():
        if key.endswith('data'):
            assert_almost_equal(got[key], value, rtol=1e-5, atol=1e-4, names=(key, 'mxnet'))
        else:
            assert_almost_equal(np.asarray(got[key], np.float64), value.astype(np.float64),
                                rtol=1e-5, atol=1e-6, names=(key, 'mxnet'))


def test_flip_moves_boxes():
    label = np.array([[0, 0.1, 0.2, 0.4, 0.6]], np.float32)
    img = mx.nd.array(np.arange(24, dtype=np.float32).reshape(2, 4, 3))
    out, flipped = mx.image.DetHorizontalFlipAug(1.0)(img, label.copy())
    assert np.array_equal(out.asnumpy(), img.asnumpy()[:, ::-1])
    assert_almost_equal(flipped, np.array([[0, 0.6, 0.2, 0.9, 0.6]], np.float32))


def test_pad_keeps_boxes_on_the_same_pixels():
    random.seed(0)
    img = mx.nd.array(np.full((10, 20, 3), 9, np.uint8), dtype='uint8')
    label = np.array([[1, 0.25, 0.5, 0.75, 1.0]], np.float32)
    pad = mx.image.DetRandomPadAug(area_range=(2.0, 3.0), pad_val=(1, 2, 3))
    out, moved = pad(img, label)
    h, w = out.shape[:2]
    assert h * w >= 2 * 200 and (out.asnumpy() == 9).sum() == 200 * 3
    # the box's pixel corners did not move relative to the image content
    rows, cols = np.nonzero(out.asnumpy()[:, :, 0] == 9)
    assert_almost_equal(moved[0, 1] * w, cols.min() + 0.25 * 20, atol=1e-4)
    assert_almost_equal(moved[0, 4] * h, rows.min() + 10, atol=1e-4)


def test_label_parsing_and_shape_checks():
    it = mx.image.ImageDetIter(2, (3, 8, 8), path_root=IMAGES, imglist=imglist())
    assert it.label_shape == (3, 5) and it.provide_label[0][1] == (2, 3, 5)
    with pytest.raises(RuntimeError, match='invalid'):
        it._parse_label(np.array([2, 5, 0, 0.1]))
    with pytest.raises(RuntimeError, match='no valid label'):
        it._parse_label(np.array([2, 5, 0, 0.5, 0.5, 0.2, 0.2]))
    with pytest.raises(ValueError, match='reduce'):
        it.reshape(label_shape=(2, 5))
    other = mx.image.ImageDetIter(2, (3, 8, 8), path_root=IMAGES, imglist=imglist()[:2])
    assert other.label_shape == (2, 5)
    it.sync_label_shape(other)
    assert other.provide_label[0][1] == (2, 3, 5)
    with pytest.raises(ValueError, match='DetAugmenter'):
        mx.image.DetRandomSelectAug([mx.image.CastAug()])


def test_empty_data_is_refused():
    with pytest.raises(RuntimeError, match='no image'):
        mx.image.ImageDetIter(2, (3, 8, 8), path_root=IMAGES, imglist=[])
