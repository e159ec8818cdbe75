"""gluon.data datasets and samplers against sequences recorded with MXNet 1.9.1."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod import gluon
from symmod.base import MXNetError

REF_PATH = os.path.join(os.path.dirname(__file__), '..', 'data', 'gluon_data_reference.json')
with open(REF_PATH) as _f:
    REF = json.load(_f)


@pytest.mark.parametrize('case', REF['batch_sampler'],
                         ids=lambda c: '%d-%d-%s' % (c['length'], c['batch_size'],
                                                      c['last_batch']))
def test_batch_sampler_matches_mxnet(case):
    sampler = gluon.data.BatchSampler(gluon.data.SequentialSampler(case['length']),
                                      case['batch_size'], case['last_batch'])
    for expected_len, expected in zip(case['lens'], case['passes']):
        assert len(sampler) == expected_len
        assert [[int(i) for i in batch] for batch in sampler] == expected


def test_batch_sampler_bad_mode_message():
    sampler = gluon.data.BatchSampler(gluon.data.SequentialSampler(5), 2, 'drop')
    with pytest.raises(ValueError) as err:
        list(sampler)
    assert str(err.value) == REF['errors']['bad_last_batch']['message']
    with pytest.raises(ValueError):
        len(sampler)


@pytest.mark.parametrize('case', REF['interval_sampler'],
                         ids=lambda c: '%d-%d-%s' % (c['length'], c['interval'], c['rollover']))
def test_interval_sampler_matches_mxnet_contrib(case):
    sampler = gluon.data.IntervalSampler(case['length'], case['interval'], case['rollover'])
    assert list(sampler) == case['indices']
    assert len(sampler) == case['len']


def test_interval_sampler_rejects_interval_longer_than_length():
    with pytest.raises(AssertionError, match='Interval 5 must be smaller'):
        gluon.data.IntervalSampler(3, 5)


def test_sequential_sampler_start():
    assert list(gluon.data.SequentialSampler(4, 3)) == REF['dataset']['sequential_start']


def test_random_sampler_is_a_fresh_permutation_each_pass():
    np.random.seed(3)
    sampler = gluon.data.RandomSampler(50)
    first, second = list(sampler), list(sampler)
    assert sorted(first) == list(range(50)) and sorted(second) == list(range(50))
    assert first != second and first != list(range(50))
    assert len(sampler) == 50
    # numpy.random drives it, as in MXNet
    np.random.seed(3)
    assert list(gluon.data.RandomSampler(50)) == first


def test_filter_sampler():
    data = gluon.data.SimpleDataset(list(range(10)))
    sampler = gluon.data.FilterSampler(lambda x: x % 3 == 0, data)
    assert list(sampler) == [0, 3, 6, 9] and len(sampler) == 4


@pytest.mark.parametrize('key', sorted(REF['dataset']['shard']))
def test_shard_matches_mxnet(key):
    index, num = (int(v) for v in key.split('/'))
    data = gluon.data.SimpleDataset(list(range(10)))
    shard = data.shard(num, index)
    assert list(shard) == REF['dataset']['shard'][key]
    assert len(shard) == len(REF['dataset']['shard'][key])


def test_shard_rejects_bad_index():
    data = gluon.data.SimpleDataset(list(range(10)))
    with pytest.raises(AssertionError, match='Shard index of out bound: 3 out of 3'):
        data.shard(3, 3)
    with pytest.raises(AssertionError, match='Index must be non-negative'):
        data.shard(3, -1)


@pytest.mark.parametrize('count', sorted(REF['dataset']['take']))
def test_take_matches_mxnet(count):
    data = gluon.data.SimpleDataset(list(range(10)))
    taken = data.take(None if count == 'None' else int(count))
    assert list(taken) == REF['dataset']['take'][count]


def test_filter_and_transform_match_mxnet():
    data = gluon.data.SimpleDataset(list(range(10)))
    assert list(data.filter(lambda x: x % 2 == 0)) == REF['dataset']['filter_even']
    pairs = gluon.data.ArrayDataset(list(range(4)), list(range(10, 14)))
    assert [list(s) for s in pairs.transform_first(lambda x: x * 3)] == \
        REF['dataset']['transform']


def test_transform_lazy_and_eager():
    calls = []

    def double(x):
        calls.append(x)
        return 2 * x
    data = gluon.data.SimpleDataset([1, 2, 3])
    lazy = data.transform(double)
    assert calls == [] and lazy[2] == 6 and calls == [3]
    eager = data.transform(double, lazy=False)
    assert isinstance(eager, gluon.data.SimpleDataset) and list(eager) == [2, 4, 6]
    # tuples are unpacked into fn; transform_first keeps the label
    pairs = gluon.data.ArrayDataset([1, 2], ['a', 'b'])
    assert pairs.transform(lambda x, y: (y, x))[1] == ('b', 2)
    assert pairs.transform_first(double)[0] == (2, 'a')
    assert gluon.data.SimpleDataset([5]).transform_first(double)[0] == 10


def test_sample_with_sampler_and_type_error():
    data = gluon.data.SimpleDataset(list('abcdef'))
    sampled = data.sample(gluon.data.IntervalSampler(6, 2, rollover=False))
    assert list(sampled) == ['a', 'c', 'e']
    with pytest.raises(TypeError) as err:
        data.sample([0, 1])
    assert str(err.value) == REF['errors']['bad_sampler_type']['message']


def test_array_dataset():
    x = mx.nd.array(np.arange(12).reshape(4, 3))
    labels = mx.nd.array([7, 8, 9, 10])
    data = gluon.data.ArrayDataset(x, labels, [0, 1, 2, 3])
    assert len(data) == 4
    sample = data[2]
    assert isinstance(sample, tuple) and len(sample) == 3
    np.testing.assert_array_equal(sample[0].asnumpy(), [6, 7, 8])
    # a 1-D NDArray is converted to numpy (MXNet does this for speed)
    assert isinstance(sample[1], np.generic) and sample[1] == 9
    single = gluon.data.ArrayDataset(np.arange(5))
    assert single[3] == 3
    # MXNet's message numbers the second array 2 (its i + 1)
    with pytest.raises(AssertionError, match='while array\\[2\\] has 3'):
        gluon.data.ArrayDataset(np.arange(5), np.arange(3))
    with pytest.raises(AssertionError, match='Needs at least 1 arrays'):
        gluon.data.ArrayDataset()


def _write_records(tmp_path, payloads):
    rec, idx = str(tmp_path / 'd.rec'), str(tmp_path / 'd.idx')
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    for key, payload in payloads:
        writer.write_idx(key, payload)
    writer.close()
    return rec


def test_record_file_dataset(tmp_path):
    rec = _write_records(tmp_path, [(5, b'five'), (2, b'two'), (9, b'nine')])
    data = gluon.data.RecordFileDataset(rec)
    assert len(data) == 3
    assert [data[i] for i in range(3)] == [b'five', b'two', b'nine']
    assert data[-1] == b'nine'


def test_record_file_dataset_missing_index(tmp_path):
    with pytest.raises(MXNetError, match='index file .*missing.idx'):
        gluon.data.RecordFileDataset(str(tmp_path / 'missing.rec'))
