"""mx.image.ImageIter against the batches the real MXNet 1.9.1 produced on the same files
(tests/data/image_reference.npz, written by tests/data/gen/gen_image_reference.py)."""
import os
import random
import struct
import zlib

import numpy as np
import pytest

import symmod as mx

DATA = os.path.join(os.path.dirname(__file__), '..', 'data')
REF = np.load(os.path.join(DATA, 'image_reference.npz'))
REC = os.path.join(DATA, 'recordio', 'images.rec')
IDX = os.path.join(DATA, 'recordio', 'images.idx')
MULTI = os.path.join(DATA, 'recordio', 'multilabel.rec')


def seed(value):
    random.seed(value)
    np.random.seed(value)


def png_bytes(pixels):
    """A PNG (no filter) of an (h, w, 3) uint8 RGB array, as the generator wrote them."""
    h, w = pixels.shape[:2]

    def chunk(kind, body):
        return (struct.pack('>I', len(body)) + kind + body
                + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff))

    rows = b''.join(b'\x00' + pixels[r].tobytes() for r in range(h))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b''))


def check_epochs(key, epochs, tol=0.0, **kwargs):
    """Every batch of ``epochs`` epochs equals MXNet's (seeded as the generator did)."""
    seed(0)
    it = mx.image.ImageIter(**kwargs)
    for e in range(epochs):
        count = 0
        for count, batch in enumerate(it, start=1):
            tag = '%s/e%d/b%d/' % (key, e, count - 1)
            data = batch.data[0].asnumpy()
            assert data.dtype == np.float32
            np.testing.assert_allclose(data, REF[tag + 'data'].astype(np.float32),
                                       rtol=tol, atol=tol, err_msg=tag)
            np.testing.assert_array_equal(batch.label[0].asnumpy(), REF[tag + 'label'])
            assert batch.pad == int(REF[tag + 'pad']), tag
        assert count == int(REF['%s/e%d/count' % (key, e)]), (key, e)
        it.reset()
    return it


@pytest.mark.parametrize('handle', ['pad', 'discard', 'roll_over'])
def test_sequential_rec_last_batch_handles(handle):
    check_epochs('iter/seq_' + handle, 3, batch_size=5, data_shape=(3, 8, 10),
                 path_imgrec=REC, last_batch_handle=handle)


@pytest.mark.parametrize('handle', ['pad', 'discard', 'roll_over'])
def test_indexed_rec_last_batch_handles(handle):
    check_epochs('iter/idx_' + handle, 3, batch_size=5, data_shape=(3, 6, 6),
                 path_imgrec=REC, path_imgidx=IDX, last_batch_handle=handle)


def test_shuffle_follows_python_random():
    check_epochs('iter/shuffle', 2, batch_size=4, data_shape=(3, 8, 10), path_imgrec=REC,
                 path_imgidx=IDX, shuffle=True)


def test_partition():
    check_epochs('iter/part', 2, batch_size=2, data_shape=(3, 8, 10), path_imgrec=REC,
                 path_imgidx=IDX, num_parts=3, part_index=1)


def test_multilabel_rec():
    it = check_epochs('iter/multilabel', 1, batch_size=2, data_shape=(3, 8, 10), label_width=3,
                      path_imgrec=MULTI)
    assert it.provide_label == [('softmax_label', (2, 3))]


def test_random_augmentation_matches_mxnet_with_the_same_seed():
    check_epochs('iter/augs', 1, tol=1e-5, batch_size=4, data_shape=(3, 6, 7),
                 path_imgrec=REC, resize=7, rand_crop=True, rand_mirror=True, inter_method=1,
                 mean=np.array([120.0, 110.0, 100.0]), std=np.array([50.0, 55.0, 60.0]))


@pytest.fixture
def image_folder(tmp_path):
    names = []
    for i, img in enumerate(REF['files/pixels']):
        names.append('img_%d.png' % i)
        (tmp_path / names[-1]).write_bytes(png_bytes(img))
    lst = tmp_path / 'list.lst'
    lst.write_text(''.join('%d\t%f\t%f\t%s\n' % (i * 3, i * 0.5, 7.0 - i, name)
                           for i, name in enumerate(names)))
    return str(tmp_path), str(lst), names


def test_image_list_file(image_folder):
    root, lst, _ = image_folder
    check_epochs('iter/lst', 2, batch_size=3, data_shape=(3, 8, 10), label_width=2,
                 path_imglist=lst, path_root=root)
    check_epochs('iter/lst_shuffle', 2, batch_size=3, data_shape=(3, 8, 10), label_width=2,
                 path_imglist=lst, path_root=root, shuffle=True, last_batch_handle='discard')


def test_python_image_list(image_folder):
    root, _, names = image_folder
    check_epochs('iter/pylist', 1, batch_size=4, data_shape=(3, 8, 10),
                 imglist=[[float(i), name] for i, name in enumerate(names)], path_root=root,
                 dtype='int32')


def test_provide_data_and_label_and_custom_names():
    it = mx.image.ImageIter(4, (3, 8, 10), path_imgrec=REC, data_name='img',
                            label_name='lbl')
    assert it.provide_data == [('img', (4, 3, 8, 10))]
    assert it.provide_label == [('lbl', (4,))]


def test_aug_list_replaces_create_augmenter():
    augs = [mx.image.CenterCropAug((5, 4), 1), mx.image.CastAug('float32'),
            mx.image.HorizontalFlipAug(1.0)]
    it = mx.image.ImageIter(3, (3, 4, 5), path_imgrec=REC, aug_list=augs)
    assert it.auglist is augs
    batch = it.next()
    rec = mx.recordio.MXRecordIO(REC, 'r')
    for i in range(3):
        _, img = mx.recordio.unpack_img(rec.read())
        crop = img[2:6, 2:7, ::-1][:, ::-1]           # BGR -> RGB, centre, mirrored
        np.testing.assert_array_equal(batch.data[0].asnumpy()[i], crop.transpose(2, 0, 1))


def test_hard_reset_forgets_the_rolled_over_batch():
    it = mx.image.ImageIter(5, (3, 8, 10), path_imgrec=REC, last_batch_handle='roll_over')
    assert len(list(it)) == 2           # the 2 leftover images wait for the next epoch
    it.hard_reset()
    labels = [b.label[0].asnumpy() for b in it]
    np.testing.assert_array_equal(labels[0], REF['iter/seq_pad/e0/b0/label'])


def test_errors(tmp_path):
    with pytest.raises(AssertionError):
        mx.image.ImageIter(2, (3, 8, 10))                      # no data source
    with pytest.raises(AssertionError, match='label not supported'):
        mx.image.ImageIter(2, (3, 8, 10), path_imgrec=REC, dtype='uint8')
    with pytest.raises(ValueError, match='3 channels'):
        mx.image.ImageIter(2, (1, 8, 10), path_imgrec=REC)
    with pytest.raises(ValueError, match='length 3'):
        mx.image.ImageIter(2, (8, 10), path_imgrec=REC)
    with pytest.raises(AssertionError, match='path_imgidx'):
        mx.image.ImageIter(2, (3, 8, 10), path_imgrec=REC, shuffle=True)
    with pytest.raises(ValueError, match='last_batch_handle'):
        mx.image.ImageIter(2, (3, 8, 10), path_imgrec=REC, last_batch_handle='wrap')
    (tmp_path / 'bad.png').write_bytes(b'not an image')
    it = mx.image.ImageIter(1, (3, 8, 10), imglist=[[1.0, 'bad.png']], path_root=str(tmp_path))
    with pytest.raises(RuntimeError, match='Broken image filename: bad.png'):
        it.next()
