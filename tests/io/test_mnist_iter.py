"""MNISTIter on the digits shipped in examples/mnist/data and on tiny IDX files,
against what MXNet 1.9.1 produced (tests/data/io_reference.json)."""
import gzip
import hashlib
import json
import logging
import os
import struct

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.io.mnist import mt19937_shuffle_order

HERE = os.path.dirname(__file__)
REF = json.load(open(os.path.join(HERE, '..', 'data', 'io_reference.json')))['mnist']
DATA = os.path.join(HERE, '..', '..', 'examples', 'mnist', 'data')
TRAIN_IMG = os.path.join(DATA, 'train-images-idx3-ubyte.gz')
TRAIN_LAB = os.path.join(DATA, 'train-labels-idx1-ubyte.gz')
TEST_IMG = os.path.join(DATA, 't10k-images-idx3-ubyte.gz')
TEST_LAB = os.path.join(DATA, 't10k-labels-idx1-ubyte.gz')


def raw_idx(path):
    with gzip.open(path) as f:
        raw = f.read()
    header = 16 if raw[3] == 3 else 8
    return np.frombuffer(raw, dtype=np.uint8, offset=header)


def write_idx(path, array, magic, compress=False):
    payload = struct.pack('>i', magic) + b''.join(struct.pack('>i', d) for d in array.shape)
    payload += array.astype(np.uint8).tobytes()
    opener = gzip.open if compress else open
    with opener(path, 'wb') as f:
        f.write(payload)


def test_shipped_data_shapes_scaling_and_first_labels():
    train = mx.io.MNISTIter(image=TRAIN_IMG, label=TRAIN_LAB, batch_size=100, shuffle=False,
                            silent=True)
    assert train.provide_data == [('data', (100, 1, 28, 28))]
    assert train.provide_label == [('softmax_label', (100,))]
    batch = next(train)
    np.testing.assert_array_equal(batch.label[0].asnumpy()[:10], [2, 4, 7, 8, 9, 6, 1, 9, 4, 1])
    pixels = raw_idx(TRAIN_IMG)[:100 * 784].reshape(100, 1, 28, 28)
    np.testing.assert_array_equal(batch.data[0].asnumpy(), pixels.astype(np.float32) / 256)
    assert batch.data[0].asnumpy().max() == np.float32(255 / 256)
    assert batch.data[0].dtype == np.float32 and batch.label[0].dtype == np.float32
    test = mx.io.MNISTIter(image=TEST_IMG, label=TEST_LAB, batch_size=10, shuffle=False,
                           flat=True, silent=True)
    assert test.provide_data == [('data', (10, 784))]
    np.testing.assert_array_equal(next(test).label[0].asnumpy(), [8, 3, 5, 8, 3, 2, 5, 9, 0, 7])


@pytest.mark.parametrize('key', sorted(REF['shipped_train']))
def test_shipped_data_matches_mxnet(key):
    ref = REF['shipped_train'][key]
    it = mx.io.MNISTIter(image=TRAIN_IMG, label=TRAIN_LAB, batch_size=100, silent=True,
                         **ref['kwargs'])
    labels, sums = [], []
    for batch in it:
        labels.extend(batch.label[0].asnumpy().astype(int).tolist())
        sums.append(float(batch.data[0].asnumpy().astype(np.float64).sum()))
        assert batch.pad == 0
    assert len(sums) == ref['num_batches']
    assert labels == ref['labels']
    np.testing.assert_allclose(sums, ref['data_sums'], rtol=1e-12)
    assert [[d.name, list(d.shape)] for d in it.provide_data] == \
        [d[:2] for d in ref['provide_data']]


@pytest.mark.parametrize('key', sorted(REF['shuffle_order']))
def test_shuffle_order_is_mxnets(key, tmp_path):
    n, seed = map(int, key.split('_'))
    idx = np.arange(n)
    write_idx(tmp_path / 'img', np.stack([idx // 256, idx % 256], 1).reshape(n, 1, 2), 2051)
    write_idx(tmp_path / 'lab', idx % 10, 2049)
    it = mx.io.MNISTIter(image=str(tmp_path / 'img'), label=str(tmp_path / 'lab'), batch_size=n,
                         seed=seed, flat=True, silent=True)
    pixels = np.round(next(it).data[0].asnumpy() * 256).astype(np.int64)
    order = pixels[:, 0] * 256 + pixels[:, 1]
    expected = REF['shuffle_order'][key]
    if isinstance(expected, dict):
        assert order[:50].tolist() == expected['head']
        assert hashlib.sha256(order.astype('<i8').tobytes()).hexdigest() == \
            expected['sha256_int64']
    else:
        assert order.tolist() == expected
    assert sorted(order.tolist()) == list(range(n))


def test_shuffle_order_handles_rejected_draws():
    # with n = 60000 some 32-bit draws fall in the rejected tail; the permutation
    # must stay a permutation and be reproducible
    order = mt19937_shuffle_order(60000, 11)
    assert np.array_equal(np.sort(order), np.arange(60000))
    assert np.array_equal(order, mt19937_shuffle_order(60000, 11))


def test_plain_and_gzip_files_read_the_same(tmp_path):
    rs = np.random.RandomState(0)
    images = rs.randint(0, 256, size=(7, 3, 4))
    labels = rs.randint(0, 10, size=7)
    write_idx(tmp_path / 'i', images, 2051)
    write_idx(tmp_path / 'l', labels, 2049)
    write_idx(tmp_path / 'i.gz', images, 2051, compress=True)
    write_idx(tmp_path / 'l.gz', labels, 2049, compress=True)
    plain = mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'),
                            batch_size=7, shuffle=False, silent=True)
    packed = mx.io.MNISTIter(image=str(tmp_path / 'i.gz'), label=str(tmp_path / 'l.gz'),
                             batch_size=7, shuffle=False, silent=True)
    a, b = next(plain), next(packed)
    np.testing.assert_array_equal(a.data[0].asnumpy(), b.data[0].asnumpy())
    np.testing.assert_array_equal(a.data[0].asnumpy(), images.reshape(7, 1, 3, 4) / 256.0)
    np.testing.assert_array_equal(a.label[0].asnumpy(), labels)


def test_last_incomplete_batch_is_dropped_and_reset_rewinds(tmp_path):
    write_idx(tmp_path / 'i', np.arange(10).reshape(10, 1, 1), 2051)
    write_idx(tmp_path / 'l', np.arange(10), 2049)
    it = mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'), batch_size=4,
                         shuffle=False, silent=True)
    for _ in range(2):
        assert [b.label[0].asnumpy().tolist() for b in it] == [[0, 1, 2, 3], [4, 5, 6, 7]]
        it.reset()
    batch = next(it)
    assert batch.index.dtype == np.uint64 and batch.index.tolist() == [0, 0, 0, 0]


def test_string_arguments_like_mxnets_parser(tmp_path):
    write_idx(tmp_path / 'i', np.zeros((6, 2, 2)), 2051)
    write_idx(tmp_path / 'l', np.zeros(6), 2049)
    it = mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'), batch_size='3',
                         shuffle='False', flat='1', silent='True', input_shape='(1,2,2)')
    assert it.provide_data[0].shape == (3, 4) and it.batch_size == 3


def test_load_log_line(tmp_path, caplog):
    write_idx(tmp_path / 'i', np.zeros((6, 2, 3)), 2051)
    write_idx(tmp_path / 'l', np.zeros(6), 2049)
    with caplog.at_level(logging.INFO):
        mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'), batch_size=3)
        mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'), batch_size=2,
                        shuffle=False, flat=True)
        mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'), batch_size=2,
                        silent=True)
    assert caplog.messages == ['MNISTIter: load 6 images, shuffle=1, shape=[3,1,2,3]',
                               'MNISTIter: load 6 images, shuffle=0, shape=(2,6)']


def test_part_index_reads_mxnets_slices(tmp_path):
    write_idx(tmp_path / 'i', np.arange(10).reshape(10, 1, 1), 2051)
    write_idx(tmp_path / 'l', np.arange(10), 2049)
    parts = []
    for index in range(3):
        it = mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'), batch_size=1,
                             shuffle=False, silent=True, num_parts=3, part_index=index)
        parts.append([int(b.label[0].asnumpy()[0]) for b in it])
    # int(10 / 3 * k) boundaries: 0, 3, 6, 10
    assert parts == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]


def test_errors(tmp_path):
    write_idx(tmp_path / 'i', np.zeros((4, 2, 2)), 2051)
    write_idx(tmp_path / 'l', np.zeros(5), 2049)
    write_idx(tmp_path / 'l4', np.zeros(4), 2049)
    kw = dict(silent=True, batch_size=2)
    with pytest.raises(MXNetError, match='cannot open "nope"'):
        mx.io.MNISTIter(image='nope', label=str(tmp_path / 'l'), **kw)
    with pytest.raises(MXNetError, match='magic number 2049, expected 2051'):
        mx.io.MNISTIter(image=str(tmp_path / 'l'), label=str(tmp_path / 'l'), **kw)
    with pytest.raises(MXNetError, match='holds 4 images but .* holds 5 labels'):
        mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'), **kw)
    with pytest.raises(MXNetError, match='batch_size 8 is larger than the 4 images'):
        mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l4'), batch_size=8,
                        silent=True)
    with pytest.raises(MXNetError, match='part_index=3 with num_parts=2'):
        mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l4'), num_parts=2,
                        part_index=3, **kw)
    with open(tmp_path / 'short', 'wb') as f:
        f.write(struct.pack('>iiii', 2051, 100, 28, 28) + b'\x00' * 10)
    with pytest.raises(MXNetError, match='declares 100 items of 784 bytes'):
        mx.io.MNISTIter(image=str(tmp_path / 'short'), label=str(tmp_path / 'l4'), **kw)
    with pytest.raises(TypeError, match='MNISTIter can only accept keyword arguments'):
        mx.io.MNISTIter(str(tmp_path / 'i'))


def test_native_iterator_protocol(tmp_path, caplog):
    write_idx(tmp_path / 'i', np.arange(6).reshape(6, 1, 1), 2051)
    write_idx(tmp_path / 'l', np.arange(6), 2049)
    kw = dict(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'), batch_size=2,
              shuffle=False, silent=True)
    it = mx.io.MNISTIter(**kw)
    assert isinstance(it, mx.io.MXDataIter)
    seen = []
    while it.iter_next():
        seen.append((it.getlabel().asnumpy().tolist(), it.getpad(), it.getdata().shape))
    assert seen == [([0, 1], 0, (2, 1, 1, 1)), ([2, 3], 0, (2, 1, 1, 1)),
                    ([4, 5], 0, (2, 1, 1, 1))]
    it.reset()
    assert next(it).label[0].asnumpy().tolist() == [0, 1]
    # the first batch read at construction is dropped by an immediate reset, not repeated
    it = mx.io.MNISTIter(**kw)
    it.reset()
    assert [b.label[0].asnumpy().tolist() for b in it] == [[0, 1], [2, 3], [4, 5]]
    # debug_skip_load hands out the first batch forever
    it = mx.io.MNISTIter(**kw)
    with caplog.at_level(logging.INFO):
        it.debug_skip_load()
    assert caplog.messages == ['Set debug_skip_load to be true, will simply return first batch']
    assert [next(it).label[0].asnumpy().tolist() for _ in range(5)] == [[0, 1]] * 5


def test_dtype_and_names(tmp_path):
    write_idx(tmp_path / 'i', np.full((4, 2, 2), 128), 2051)
    write_idx(tmp_path / 'l', np.arange(4), 2049)
    it = mx.io.MNISTIter(image=str(tmp_path / 'i'), label=str(tmp_path / 'l'), batch_size=2,
                         silent=True, dtype='float64', data_name='x', label_name='y')
    assert [(d.name, d.dtype) for d in it.provide_data] == [('x', np.float64)]
    assert [(d.name, d.dtype) for d in it.provide_label] == [('y', np.float64)]
    assert next(it).data[0].asnumpy().max() == 0.5
