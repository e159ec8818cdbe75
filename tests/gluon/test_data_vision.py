"""gluon.data.vision: MNIST files, image datasets and transforms vs MXNet 1.9.1's numbers."""
import gzip
import json
import os
import shutil

import numpy as np
import pytest

import symmod as mx
from symmod import gluon
from symmod.base import MXNetError
from symmod.gluon.data.vision import transforms as T

REF_PATH = os.path.join(os.path.dirname(__file__), '..', 'data', 'gluon_data_reference.json')
with open(REF_PATH) as _f:
    REF = json.load(_f)['transforms']
MNIST_DIR = os.path.join(os.path.dirname(__file__), '..', '..', 'examples', 'mnist', 'data')


@pytest.mark.parametrize('train,prefix,count', [(True, 'train', 4000), (False, 't10k', 1000)])
def test_mnist_equals_mnist_iter_pixels(train, prefix, count):
    data = gluon.data.vision.MNIST(MNIST_DIR, train=train)
    assert len(data) == count
    image, label = data[0]
    assert isinstance(image, mx.nd.NDArray) and image.shape == (28, 28, 1)
    assert image.dtype == np.uint8 and isinstance(label, np.int32)
    it = mx.io.MNISTIter(image=os.path.join(MNIST_DIR, prefix + '-images-idx3-ubyte.gz'),
                         label=os.path.join(MNIST_DIR, prefix + '-labels-idx1-ubyte.gz'),
                         batch_size=count, shuffle=False, silent=True)
    batch = next(iter(it))
    # MNISTIter scales by 1/256, exactly representable: multiplying back is exact
    pixels = batch.data[0].asnumpy()[:, 0] * 256
    loaded = np.stack([data[i][0].asnumpy()[:, :, 0] for i in range(count)])
    np.testing.assert_array_equal(loaded, pixels)
    labels = np.array([data[i][1] for i in range(count)])
    np.testing.assert_array_equal(labels, batch.label[0].asnumpy())


def test_mnist_transform_and_loader():
    data = gluon.data.vision.MNIST(MNIST_DIR, train=False,
                                   transform=lambda x, y: (x.astype('float32') / 255, y + 1))
    x, y = data[3]
    assert x.dtype == np.float32 and y == gluon.data.vision.MNIST(MNIST_DIR, False)[3][1] + 1
    loader = gluon.data.DataLoader(gluon.data.vision.MNIST(MNIST_DIR, train=False)
                                   .transform_first(T.ToTensor()), batch_size=300)
    shapes = [(bx.shape, by.shape, by.dtype) for bx, by in loader]
    assert shapes[0] == ((300, 1, 28, 28), (300,), np.int32) and shapes[-1][0][0] == 100


def test_mnist_reads_uncompressed_files(tmp_path):
    for name in ('t10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'):
        with gzip.open(os.path.join(MNIST_DIR, name + '.gz'), 'rb') as src, \
                open(tmp_path / name, 'wb') as dst:
            shutil.copyfileobj(src, dst)
    plain = gluon.data.vision.FashionMNIST(str(tmp_path), train=False)
    packed = gluon.data.vision.MNIST(MNIST_DIR, train=False)
    np.testing.assert_array_equal(plain[7][0].asnumpy(), packed[7][0].asnumpy())


def test_mnist_missing_files_error_names_them(tmp_path):
    with pytest.raises(MXNetError) as err:
        gluon.data.vision.MNIST(str(tmp_path), train=True)
    message = str(err.value)
    for expected in ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz',
                     str(tmp_path), 'does not download'):
        assert expected in message
    with pytest.raises(MXNetError, match='t10k-images-idx3-ubyte.gz'):
        gluon.data.vision.FashionMNIST(str(tmp_path), train=False)


def _rgb_images(count, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.randint(0, 256, (6 + i, 9, 3)).astype(np.uint8) for i in range(count)]


def test_image_record_dataset(tmp_path):
    rec, idx = str(tmp_path / 'img.rec'), str(tmp_path / 'img.idx')
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    images = _rgb_images(3)
    for i, rgb in enumerate(images):
        header = mx.recordio.IRHeader(0, float(i) + 0.5, i, 0)
        # pack_img takes OpenCV's BGR order; the dataset hands out RGB like mx.image
        writer.write_idx(i, mx.recordio.pack_img(header, rgb[:, :, ::-1], quality=3,
                                                        img_fmt='.png'))
    writer.close()
    data = gluon.data.vision.ImageRecordDataset(rec)
    assert len(data) == 3
    for i, rgb in enumerate(images):
        img, label = data[i]
        np.testing.assert_array_equal(img.asnumpy(), rgb)
        assert label == i + 0.5
    gray, _ = gluon.data.vision.ImageRecordDataset(rec, flag=0)[1]
    assert gray.shape == (7, 9, 1)
    shapes = [x.shape for x, _ in gluon.data.vision.ImageRecordDataset(
        rec, transform=lambda x, y: (T.Resize(4)(x), y))]
    assert shapes == [(4, 4, 3)] * 3


def test_image_folder_dataset(tmp_path):
    from PIL import Image
    images = _rgb_images(3, seed=1)
    for folder, name, rgb in (('cat', 'a.png', images[0]), ('cat', 'b.png', images[1]),
                              ('dog', 'c.PNG', images[2])):
        os.makedirs(tmp_path / folder, exist_ok=True)
        Image.fromarray(rgb).save(tmp_path / folder / name)
    (tmp_path / 'dog' / 'notes.txt').write_text('not an image')
    (tmp_path / 'readme.md').write_text('not a class')
    with pytest.warns(UserWarning):
        data = gluon.data.vision.ImageFolderDataset(str(tmp_path))
    assert data.synsets == ['cat', 'dog'] and len(data) == 3
    assert [label for _, label in data.items] == [0, 0, 1]
    for i, rgb in enumerate(images):
        img, label = data[i]
        np.testing.assert_array_equal(img.asnumpy(), rgb)


def test_to_tensor_matches_mxnet():
    img = mx.nd.array(np.array(REF['img'], np.uint8), dtype='uint8')
    out = T.ToTensor()(img)
    assert out.dtype == np.float32 and out.shape == (3, 4, 5)
    np.testing.assert_array_equal(out.asnumpy(), np.array(REF['to_tensor'], np.float32))
    batch = mx.nd.array(np.array(REF['batch'], np.uint8), dtype='uint8')
    np.testing.assert_array_equal(T.ToTensor()(batch).asnumpy(),
                                  np.array(REF['to_tensor_batch'], np.float32))


@pytest.mark.parametrize('key,mean,std,source', [
    ('normalize', (0.485, 0.456, 0.406), (0.229, 0.224, 0.225), 'chw'),
    ('normalize_scalar', 0.5, 0.25, 'gray'),
    ('normalize_std3', 0.1, (1.0, 2.0, 3.0), 'chw')])
@pytest.mark.parametrize('hybridize', [False, True])
def test_normalize_matches_mxnet(key, mean, std, source, hybridize):
    block = T.Normalize(mean, std)
    if hybridize:
        block.hybridize()
    out = block(mx.nd.array(np.array(REF[source], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), np.array(REF[key], np.float32),
                               rtol=1e-6, atol=1e-7)


def test_compose_hybridizes_and_matches_mxnet():
    composed = T.Compose([T.ToTensor(), T.Normalize((0.1, 0.2, 0.3), (0.5, 0.6, 0.7))])
    # two consecutive HybridBlocks become one hybridized HybridSequential, as in MXNet
    assert len(composed) == 1 and isinstance(composed[0], gluon.nn.HybridSequential)
    img = mx.nd.array(np.array(REF['img'], np.uint8), dtype='uint8')
    for _ in range(2):      # the second call runs the cached graph
        np.testing.assert_allclose(composed(img).asnumpy(), np.array(REF['compose']),
                                   rtol=1e-6, atol=1e-7)


def test_compose_hybridizes_every_run_of_hybrid_blocks():
    composed = T.Compose([T.Resize(8), T.Cast('float32'), T.CenterCrop(4)])
    # Resize is an operator (F.image.resize) as in MXNet: it joins the graph
    assert [type(b).__name__ for b in composed] == ['HybridSequential', 'CenterCrop']
    img = mx.nd.array(np.arange(300).reshape(10, 10, 3) % 256, dtype='uint8')
    out = composed(img)
    assert out.shape == (4, 4, 3) and out.dtype == np.float32
    resized = T.Resize(8)(img).asnumpy().astype(np.float32)
    np.testing.assert_array_equal(out.asnumpy(), resized[2:6, 2:6])


@pytest.mark.parametrize('key', sorted(REF['resize']))
def test_resize_matches_mxnet_opencv(key):
    size, keep, interp = key.split('|')
    size = eval(size)  # noqa: S307  (keys written by our generator: "(17, 13)" or "8")
    big = mx.nd.array(np.array(REF['big'], np.uint8), dtype='uint8')
    out = T.Resize(size, keep == 'True', int(interp))(big).asnumpy()
    expected = np.array(REF['resize'][key], np.uint8)
    assert out.shape == expected.shape and out.dtype == np.uint8
    # OpenCV's fixed-point bilinear kernel (rows keep their weights at the edges): exact
    diff = np.abs(out.astype(int) - expected.astype(int))
    assert diff.max() == 0
    assert diff.mean() < 0.03


def test_resize_float_and_batch():
    big = np.array(REF['big'], np.float32)
    out = T.Resize((17, 13))(mx.nd.array(big)).asnumpy()
    np.testing.assert_allclose(out, np.array(REF['resize_float'], np.float32), atol=1e-6)
    batch = mx.nd.array(np.stack([big, big[::-1]]))
    resized = T.Resize((17, 13))(batch)
    assert resized.shape == (2, 13, 17, 3)
    np.testing.assert_allclose(resized.asnumpy()[0], out, atol=1e-5)


@pytest.mark.parametrize('key,size', [('10x8', (10, 8)), ('40x25', (40, 25))])
def test_center_crop_matches_mxnet(key, size):
    big = mx.nd.array(np.array(REF['big'], np.uint8), dtype='uint8')
    out = T.CenterCrop(size)(big).asnumpy()
    expected = np.array(REF['center_crop'][key], np.uint8)
    assert out.shape == expected.shape
    assert np.abs(out.astype(int) - expected.astype(int)).max() == 0


def test_random_resized_crop_and_flip():
    import random
    img = mx.nd.array(np.arange(20 * 30 * 3).reshape(20, 30, 3) % 251, dtype='uint8')
    random.seed(5)
    first = T.RandomResizedCrop((7, 5))(img).asnumpy()
    random.seed(5)
    assert first.shape == (5, 7, 3)
    np.testing.assert_array_equal(T.RandomResizedCrop((7, 5))(img).asnumpy(), first)
    mx.random.seed(0)
    flips = [T.RandomFlipLeftRight()(img).asnumpy() for _ in range(40)]
    mirrored = [np.array_equal(f, img.asnumpy()[:, ::-1]) for f in flips]
    kept = [np.array_equal(f, img.asnumpy()) for f in flips]
    assert all(m or k for m, k in zip(mirrored, kept)) and 5 < sum(mirrored) < 35


@pytest.mark.parametrize('name', ['to_tensor_2d', 'normalize_4ch', 'normalize_bad_mean'])
def test_transform_errors_match_mxnet(name):
    calls = {'to_tensor_2d': lambda: T.ToTensor()(mx.nd.zeros((4, 5), dtype='uint8')),
             'normalize_4ch': lambda: T.Normalize()(mx.nd.zeros((4, 2, 2))),
             'normalize_bad_mean': lambda: T.Normalize((1, 2))(mx.nd.zeros((3, 2, 2)))}
    with pytest.raises(MXNetError) as err:
        calls[name]()
    # MXNet prefixes "Check failed: <condition>: "; the explanation is the same
    assert str(err.value) in REF['errors'][name]


def test_cast():
    out = T.Cast('float16')(mx.nd.array([1, 2], dtype='uint8'))
    assert out.dtype == np.float16 and out.asnumpy().tolist() == [1.0, 2.0]
