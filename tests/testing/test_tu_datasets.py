"""mx.test_utils data helpers: MNIST from local files, clear errors without network."""
import gzip
import os
import struct
import urllib.error

import numpy as np
import pytest

import symmod as mx
from symmod import test_utils as tu
from symmod.test_utils import datasets


def _idx_bytes(array):
    header = struct.pack('>HBB', 0, 8, array.ndim) + struct.pack('>' + 'I' * array.ndim,
                                                                  *array.shape)
    return header + array.astype(np.uint8).tobytes()


def _write_mnist(folder, count=6, packed=True):
    rng = np.random.default_rng(0)
    arrays = {}
    for split in ('train', 't10k'):
        images = rng.integers(0, 256, (count, 28, 28))
        labels = rng.integers(0, 10, count)
        arrays[split] = (images, labels)
        for kind, array in (('images-idx3', images), ('labels-idx1', labels)):
            name = os.path.join(folder, '%s-%s-ubyte' % (split, kind))
            data = _idx_bytes(array)
            if packed:
                with gzip.open(name + '.gz', 'wb') as f:
                    f.write(data)
            else:
                with open(name, 'wb') as f:
                    f.write(data)
    return arrays


@pytest.fixture
def offline(monkeypatch):
    """No network: every download attempt fails at once."""
    def refuse(*args, **kwargs):
        raise urllib.error.URLError('network disabled in tests')
    monkeypatch.setattr(datasets.urllib.request, 'urlopen', refuse)


@pytest.mark.parametrize('packed', [True, False])
def test_get_mnist_reads_local_files(tmp_path, monkeypatch, offline, packed):
    monkeypatch.chdir(tmp_path)
    arrays = _write_mnist(str(tmp_path), packed=packed)
    mnist = tu.get_mnist()
    assert mnist['train_data'].shape == (6, 1, 28, 28) and mnist['train_data'].dtype == np.float32
    np.testing.assert_allclose(mnist['test_data'][:, 0] * 255, arrays['t10k'][0], atol=1e-3)
    np.testing.assert_array_equal(mnist['train_label'], arrays['train'][1])
    assert mnist['train_label'].dtype == np.int8


def test_get_mnist_without_files_or_network_says_where_to_put_them(tmp_path, monkeypatch,
                                                                  offline):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(mx.MXNetError) as err:
        tu.get_mnist()
    assert 'train-labels-idx1-ubyte' in str(err.value) and str(tmp_path) in str(err.value)
    with pytest.raises(mx.MXNetError, match='missing from'):
        tu.get_mnist_ubyte()


def test_get_mnist_rejects_a_file_that_is_not_idx(tmp_path, monkeypatch, offline):
    monkeypatch.chdir(tmp_path)
    _write_mnist(str(tmp_path))
    with open('train-labels-idx1-ubyte.gz', 'wb') as f:
        f.write(gzip.compress(b'<html>not found</html>'))
    with pytest.raises(mx.MXNetError, match='not an MNIST IDX file'):
        tu.get_mnist()


def test_get_mnist_iterator_unpacks_into_data_dir(tmp_path, monkeypatch, offline):
    monkeypatch.chdir(tmp_path)
    _write_mnist(str(tmp_path), count=8)
    train, val = tu.get_mnist_iterator(4, (784,))
    assert os.path.exists(os.path.join('data', 'train-images-idx3-ubyte'))
    batch = next(iter(val))
    assert batch.data[0].shape == (4, 784) and batch.label[0].shape == (4,)
    assert sum(1 for _ in train) == 2


def test_download_keeps_existing_file_and_reports_failure(tmp_path, offline):
    target = tmp_path / 'x.bin'
    target.write_bytes(b'1')
    assert tu.download('http://example.invalid/x.bin', dirname=str(tmp_path)) == str(target)
    with pytest.raises(mx.MXNetError, match='failed to download'):
        tu.download('http://example.invalid/y.bin', dirname=str(tmp_path), retries=1)
    assert not (tmp_path / 'y.bin').exists() and not (tmp_path / 'y.bin.part').exists()


def test_dummy_iter_repeats_the_first_batch():
    real = mx.io.NDArrayIter(np.arange(8.).reshape(4, 2), batch_size=2)
    dummy = tu.DummyIter(real)
    first = dummy.next()
    assert dummy.next() is first
    np.testing.assert_array_equal(first.data[0].asnumpy(), [[0, 1], [2, 3]])
