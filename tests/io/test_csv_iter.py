"""CSVIter against batches recorded from MXNet 1.9.1 (tests/data/io_reference.json)."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError

REF = json.load(open(os.path.join(os.path.dirname(__file__), '..', 'data',
                                  'io_reference.json')))['csv']


@pytest.fixture
def files(tmp_path):
    (tmp_path / 'data.csv').write_text('1,2,3\n2,3,4\n3,4,5\n4,5,6\n')
    (tmp_path / 'label.csv').write_text('1\n2\n3\n4\n')
    (tmp_path / 'label2.csv').write_text('1,0\n2,0\n3,0\n4,0\n')
    return tmp_path


@pytest.mark.parametrize('key', sorted(REF))
def test_batches_match_mxnet(key, files):
    ref = REF[key]
    kwargs = dict(ref['kwargs'])
    if 'label_csv' in kwargs:
        kwargs['label_csv'] = str(files / kwargs['label_csv'])
    it = mx.io.CSVIter(data_csv=str(files / 'data.csv'), **kwargs)
    assert [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout]
            for d in it.provide_data] == ref['provide_data']
    assert [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout]
            for d in it.provide_label] == ref['provide_label']
    epochs = []
    for _ in range(len(ref['epochs'])):
        epochs.append([{'data': [b.data[0].asnumpy().tolist()],
                        'label': [b.label[0].asnumpy().tolist()],
                        'pad': b.pad, 'index': b.index.tolist()} for b in it])
        it.reset()
    assert epochs == ref['epochs']


def test_directory_of_files_is_read_in_name_order(tmp_path):
    (tmp_path / 'd').mkdir()
    (tmp_path / 'd' / 'b.csv').write_text('3,3\n4,4\n')
    (tmp_path / 'd' / 'a.csv').write_text('1,1\n\n2,2\n')
    it = mx.io.CSVIter(data_csv=str(tmp_path / 'd'), data_shape=(2,), batch_size=4)
    np.testing.assert_array_equal(next(it).data[0].asnumpy(), [[1, 1], [2, 2], [3, 3], [4, 4]])


def test_int64_values_keep_precision(tmp_path):
    (tmp_path / 'big.csv').write_text('9007199254740993\n')
    it = mx.io.CSVIter(data_csv=str(tmp_path / 'big.csv'), data_shape=(1,), batch_size=1,
                       dtype='int64')
    assert next(it).data[0].asnumpy()[0, 0] == 9007199254740993


def test_errors(files):
    data = str(files / 'data.csv')
    with pytest.raises(MXNetError, match=r'specified shape=\(4,\), the csv row-length=3'):
        mx.io.CSVIter(data_csv=data, data_shape=(4,), batch_size=2)
    with pytest.raises(MXNetError, match='float64 is not supported for CSVIter'):
        mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2, dtype='float64')
    with pytest.raises(MXNetError, match='number of input must be bigger than batch size'):
        mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=9)
    with pytest.raises(MXNetError, match='Required parameter data_shape'):
        mx.io.CSVIter(data_csv=data, batch_size=2)
    with pytest.raises(MXNetError, match='No such file'):
        mx.io.CSVIter(data_csv=str(files / 'missing.csv'), data_shape=(3,), batch_size=2)
    (files / 'short_label.csv').write_text('1\n2\n')
    with pytest.raises(MXNetError, match='has 4 rows but the label file'):
        mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2,
                      label_csv=str(files / 'short_label.csv'))
    with pytest.raises(TypeError, match='CSVIter can only accept keyword arguments'):
        mx.io.CSVIter(data)
