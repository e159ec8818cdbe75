"""mx.io.ImageRecordIter against the batches MXNet 1.9.1's ImageRecordIter produced
(tests/data/recordio/reference.npz, made by tests/data/gen/gen_recordio_reference.py)."""
import json
import logging
import os

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.io.image_record import resize

DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'recordio')


@pytest.fixture(scope='module')
def ref():
    with np.load(os.path.join(DATA, 'reference.npz')) as z:
        return {k: z[k] for k in z.files}


def case_kwargs(ref, key):
    """The generator's arguments, with paths moved to this checkout's data folder."""
    kwargs = json.loads(ref[key + '/kwargs'].tobytes())
    for name in ('path_imgrec', 'path_imgidx', 'path_imglist'):
        if name in kwargs:
            kwargs[name] = os.path.join(DATA, os.path.basename(kwargs[name]))
    return kwargs


def expected_epochs(ref, key):
    epochs = []
    e = 0
    while '%s/e%d/b0/data' % (key, e) in ref:
        batches, b = [], 0
        while '%s/e%d/b%d/data' % (key, e, b) in ref:
            tag = '%s/e%d/b%d/' % (key, e, b)
            batches.append((ref[tag + 'data'], ref[tag + 'label'], int(ref[tag + 'pad'])))
            b += 1
        epochs.append(batches)
        e += 1
    return epochs


# exact cases: PNG images, no random augmentation
EXACT = ['full', 'norm', 'resize', 'half', 'nearest', 'upscale', 'mirror', 'pad', 'cropsize',
         'uint8', 'int8', 'imglist', 'part', 'idxpart', 'shuffle_idx', 'shuffle_rec', 'gray',
         'gray_from_colour', 'multilabel']


@pytest.mark.parametrize('key', EXACT)
def test_batches_equal_mxnets(ref, key):
    it = mx.io.ImageRecordIter(**case_kwargs(ref, key))
    for epoch in expected_epochs(ref, key):
        got = list(it)
        assert len(got) == len(epoch)
        for batch, (data, label, pad) in zip(got, epoch):
            assert batch.data[0].dtype == data.dtype
            np.testing.assert_array_equal(batch.data[0].asnumpy(), data)
            np.testing.assert_array_equal(batch.label[0].asnumpy(), label)
            assert batch.pad == pad
        it.reset()


def test_jpeg_batches_close_to_mxnets(ref):
    it = mx.io.ImageRecordIter(**case_kwargs(ref, 'jpeg'))
    (data, label, _), = expected_epochs(ref, 'jpeg')[0]
    batch = it.next()
    assert np.abs(batch.data[0].asnumpy() - data).max() <= 2
    np.testing.assert_array_equal(batch.label[0].asnumpy(), label)


def test_without_round_batch_the_valid_rows_match_and_pad_counts_the_rest(ref):
    it = mx.io.ImageRecordIter(**case_kwargs(ref, 'noround'))
    for epoch in expected_epochs(ref, 'noround'):
        got = list(it)
        assert len(got) == len(epoch) == 3
        for batch, (data, label, _) in zip(got, epoch):
            valid = 5 - batch.pad
            np.testing.assert_array_equal(batch.data[0].asnumpy()[:valid], data[:valid])
            np.testing.assert_array_equal(batch.label[0].asnumpy()[:valid], label[:valid])
        # 12 images, batch 5: the last batch holds 2 (MXNet reports pad 0 there)
        assert [b.pad for b in got] == [0, 0, 3]
        assert not got[-1].data[0].asnumpy()[2:].any()
        it.reset()


def test_descriptions_labels_and_index(ref):
    it = mx.io.ImageRecordIter(**case_kwargs(ref, 'imglist'), data_name='img',
                               label_name='lab')
    assert it.provide_data == [('img', (6, 3, 8, 10))]
    assert it.provide_data[0].dtype == np.float32
    assert it.provide_label == [('lab', (6, 2))]
    batch = it.next()
    assert batch.index.tolist() == list(range(100, 106))
    single = mx.io.ImageRecordIter(**case_kwargs(ref, 'full'))
    assert single.provide_label == [('softmax_label', (5,))]


def numpy_reference_batch(ref, rows, cols, mean, std, scale):
    """Centre crop and normalisation written directly with numpy."""
    px = ref['images/pixels_rgb'][:4].astype(np.float32)
    y, x = (8 - rows) // 2, (10 - cols) // 2
    crop = px[:, y:y + rows, x:x + cols].transpose(0, 3, 1, 2)
    mean = np.array(mean, np.float32).reshape(1, 3, 1, 1)
    mult = np.float32(scale) / np.array(std, np.float32).reshape(1, 3, 1, 1)
    return (crop - mean) * mult


def test_normalisation_matches_numpy_formula(ref):
    kwargs = case_kwargs(ref, 'norm')
    expected = numpy_reference_batch(ref, 6, 6, [120.5, 100.0, 90.0], [50.0, 60.0, 70.0], 0.5)
    got = mx.io.ImageRecordIter(**kwargs).next().data[0].asnumpy()
    np.testing.assert_array_equal(got, expected)


def test_resize_matches_opencv_on_a_ramp():
    ramp = np.tile(np.arange(0, 200, 20, dtype=np.uint8), (4, 1))     # 4 x 10
    out = resize(ramp, 5, 2)     # exact halving: 2x2 box mean, rounded
    np.testing.assert_array_equal(out[0], [10, 50, 90, 130, 170])
    out = resize(ramp, 20, 4)    # bilinear upscale: midpoints between pixels
    assert out[0, 0] == 0 and out[0, -1] == 180
    np.testing.assert_array_equal(out[0, 1:-1:2], [5, 25, 45, 65, 85, 105, 125, 145, 165])


def test_random_augmentations_are_seeded_and_within_range(ref):
    kwargs = case_kwargs(ref, 'full')
    kwargs.update(data_shape=(3, 6, 6), rand_crop=True, rand_mirror=True, seed=5,
                  max_random_contrast=0.2, max_random_illumination=5, preprocess_threads=3)
    first = [b.data[0].asnumpy() for b in mx.io.ImageRecordIter(**kwargs)]
    again = [b.data[0].asnumpy() for b in mx.io.ImageRecordIter(**kwargs)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    plain = mx.io.ImageRecordIter(**case_kwargs(ref, 'full')).next().data[0].asnumpy()
    assert first[0].shape == (5, 3, 6, 6)
    # every image is some 6x6 window (maybe mirrored, maybe contrast-scaled) of the original
    assert np.abs(first[0].mean(axis=(1, 2, 3)) - plain.mean(axis=(1, 2, 3))).max() < 60


def test_random_resized_crop_shape(ref):
    kwargs = case_kwargs(ref, 'full')
    kwargs.update(data_shape=(3, 5, 5), random_resized_crop=True, min_random_area=0.3,
                  max_random_area=0.9, max_aspect_ratio=1.3, min_aspect_ratio=0.7)
    batch = mx.io.ImageRecordIter(**kwargs).next()
    assert batch.data[0].shape == (5, 3, 5, 5)
    assert 0 <= batch.data[0].asnumpy().min() and batch.data[0].asnumpy().max() <= 255


@pytest.mark.parametrize('extra, pattern', [
    (dict(max_rotate_angle=10), 'max_rotate_angle'),
    (dict(brightness=0.3, pca_noise=0.1), 'brightness.*pca_noise'),
    (dict(mean_img='mean.bin'), 'mean_img'),
    (dict(inter_method=3), 'inter_method'),
    (dict(dtype='float16'), 'float16'),
    (dict(label_width=2), 'label_width must be 1'),
    (dict(batch_size=30), 'bigger than the batch size'),
    (dict(num_parts=2, part_index=2), 'part_index'),
    (dict(data_shape=(3, 8)), 'data_shape'),
    (dict(data_shape=(3, 12, 30), resize=-1, max_crop_size=9, min_crop_size=9), 'max_crop_size'),
])
def test_clear_errors(ref, extra, pattern):
    kwargs = case_kwargs(ref, 'full')
    kwargs.update(extra)
    with pytest.raises(MXNetError, match=pattern):
        mx.io.ImageRecordIter(**kwargs)


def test_unsupported_at_default_is_accepted_and_unknown_is_reported(ref, caplog):
    kwargs = case_kwargs(ref, 'full')
    with caplog.at_level(logging.WARNING):
        mx.io.ImageRecordIter(max_rotate_angle=0, brightness=0.0, not_a_param=3, **kwargs)
    assert 'not_a_param' in caplog.text
    with pytest.raises(MXNetError, match='Required parameter batch_size'):
        mx.io.ImageRecordIter(path_imgrec=kwargs['path_imgrec'], data_shape=(3, 8, 10))
    with pytest.raises(MXNetError, match='must specify image_rec'):
        mx.io.ImageRecordIter(data_shape=(3, 8, 10), batch_size=2)
    with pytest.raises(TypeError):
        mx.io.ImageRecordIter('x.rec')


def test_corrupt_record_file_names_file_and_offset(tmp_path, ref):
    data = open(os.path.join(DATA, 'images.rec'), 'rb').read()
    path = tmp_path / 'cut.rec'
    path.write_bytes(data[:len(data) - 100])
    kwargs = case_kwargs(ref, 'full')
    kwargs['path_imgrec'] = str(path)
    with pytest.raises(MXNetError, match='cut.rec.*offset'):
        mx.io.ImageRecordIter(**kwargs)


def test_module_fit_runs_on_image_record_iter(ref):
    train = mx.io.ImageRecordIter(**case_kwargs(ref, 'norm'))
    data = mx.sym.Variable('data')
    net = mx.sym.FullyConnected(mx.sym.Flatten(data), num_hidden=4, name='fc')
    net = mx.sym.SoftmaxOutput(net, name='softmax')
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.fit(train, num_epoch=2, optimizer='sgd', optimizer_params={'learning_rate': 0.1},
            eval_metric='acc')
    score = dict(mod.score(train, 'acc'))
    assert 0.0 <= score['accuracy'] <= 1.0
    assert mod.get_params()[0]['fc_weight'].shape == (4, 108)
