"""encode_sentences and BucketSentenceIter against what MXNet 1.9.1 produced (with the
same seeds for Python's and numpy's generators), plus their rules checked directly."""
import random

import numpy as np
import pytest

import symmod as mx


def test_encode_sentences_matches_mxnet(mxnet_ref):
    sentences = [['the', 'cat', 'sat'], ['on', 'the', 'mat'], ['a', 'cat', 'and', 'a', 'dog'],
                 [], ['dog']]
    for case in mxnet_ref['encode']:
        kwargs = dict(case['kwargs'])
        if 'vocab' in kwargs:
            kwargs['vocab'] = dict(kwargs['vocab'])
        if 'error' in case:
            with pytest.raises(AssertionError) as info:
                mx.rnn.encode_sentences(sentences, **kwargs)
            assert str(info.value) == case['error']
            continue
        result, vocab = mx.rnn.encode_sentences(sentences, **kwargs)
        assert result == case['result'], kwargs
        assert vocab == case['vocab'], kwargs
        if 'vocab' in kwargs:
            assert vocab is kwargs['vocab']            # the given vocabulary is extended


def test_encode_sentences_rules():
    result, vocab = mx.rnn.encode_sentences([['b', 'a', 'b'], ['c']], invalid_label=1,
                                            start_label=0)
    assert vocab == {'\n': 1, 'b': 0, 'a': 2, 'c': 3}      # id 1 is skipped
    assert result == [[0, 2, 0], [3]]
    assert mx.rnn.encode_sentences([['x', '\n']])[0] == [[0, -1]]


def test_encode_sentences_takes_token_iterators():
    """MXNet's bucketing example passes ``filter`` objects, not lists."""
    lines = ['a b  c\n', 'c a\n']
    encoded, vocab = mx.rnn.encode_sentences([filter(None, l.split(' ')) for l in lines],
                                             invalid_label=0, start_label=1)
    assert encoded == [[1, 2, 3], [4, 5]]
    assert vocab == {'\n': 0, 'a': 1, 'b': 2, 'c\n': 3, 'c': 4, 'a\n': 5}


def _iter_case(mxnet_ref, index):
    case = mxnet_ref['iter']['cases'][index]
    kwargs = dict(case['kwargs'])
    if 'buckets' in kwargs:
        kwargs['buckets'] = list(kwargs['buckets'])
    return mxnet_ref['iter']['sentences'], kwargs, case


@pytest.mark.parametrize('index', range(5))
def test_bucket_iter_matches_mxnet(mxnet_ref, index, capsys):
    sentences, kwargs, case = _iter_case(mxnet_ref, index)
    random.seed(11)
    np.random.seed(11)
    it = mx.rnn.BucketSentenceIter(sentences, **kwargs)
    assert capsys.readouterr().out == case['printed']
    assert it.buckets == case['buckets']
    assert it.default_bucket_key == case['default_bucket_key']
    assert [[d.name, list(d.shape), d.layout] for d in it.provide_data] == case['provide_data']
    assert [[d.name, list(d.shape), d.layout] for d in it.provide_label] == \
        case['provide_label']
    for epoch in case['epochs']:
        got = list(it)
        assert len(got) == len(epoch) == case['num_batches']
        for batch, want in zip(got, epoch):
            assert batch.bucket_key == want['bucket_key']
            assert batch.pad == want['pad']
            assert np.dtype(batch.data[0].dtype).name == want['dtype']
            np.testing.assert_array_equal(batch.data[0].asnumpy(), want['data'])
            np.testing.assert_array_equal(batch.label[0].asnumpy(), want['label'])
            assert [[d.name, list(d.shape), d.layout] for d in batch.provide_data] == \
                want['provide_data']
            assert [[d.name, list(d.shape), d.layout] for d in batch.provide_label] == \
                want['provide_label']
        it.reset()


def test_bucket_iter_rules(capsys):
    """Padding, label shift, bucket choice and discarding, checked from the sentences."""
    sentences = [[1, 2], [3, 4, 5], [6], [7, 8, 9, 10], [11, 12, 13, 14, 15, 16], [17, 18]]
    buckets = [4, 2]
    it = mx.rnn.BucketSentenceIter(sentences, 1, buckets=buckets, invalid_label=0)
    assert buckets == [2, 4]                        # sorted in place, as in MXNet
    assert capsys.readouterr().out == \
        'WARNING: discarded 1 sentences longer than the largest bucket.\n'
    assert it.default_bucket_key == 4
    seen = []
    for batch in it:
        data = batch.data[0].asnumpy()[0]
        label = batch.label[0].asnumpy()[0]
        assert data.shape == (batch.bucket_key,)
        np.testing.assert_array_equal(label[:-1], data[1:])
        assert label[-1] == 0
        sent = [int(t) for t in data if t != 0]
        assert batch.bucket_key == (2 if len(sent) <= 2 else 4)
        seen.append(sent)
    assert sorted(seen) == sorted(s for s in sentences if len(s) <= 4)


def test_bucket_iter_time_major_layout():
    sentences = [[i, i + 1, i + 2] for i in range(1, 9)]
    random.seed(0)
    np.random.seed(0)
    nt = mx.rnn.BucketSentenceIter(sentences, 4, buckets=[3])
    random.seed(0)
    np.random.seed(0)
    tn = mx.rnn.BucketSentenceIter(sentences, 4, buckets=[3], layout='TN')
    assert tn.provide_data[0].shape == (3, 4) and tn.provide_data[0].layout == 'TN'
    for a, b in zip(nt, tn):
        np.testing.assert_array_equal(a.data[0].asnumpy().T, b.data[0].asnumpy())
        np.testing.assert_array_equal(a.label[0].asnumpy().T, b.label[0].asnumpy())
        assert b.provide_label[0].shape == (3, 4)


def test_bucket_iter_reset_reshuffles():
    sentences = [[i] * 5 for i in range(1, 41)]
    it = mx.rnn.BucketSentenceIter(sentences, 4, buckets=[5])
    first = np.concatenate([b.data[0].asnumpy() for b in it])
    it.reset()
    second = np.concatenate([b.data[0].asnumpy() for b in it])
    assert sorted(first[:, 0]) == sorted(second[:, 0]) == list(range(1, 41))
    assert not np.array_equal(first, second)


def test_bucket_iter_automatic_buckets():
    sentences = [[1] * 3] * 4 + [[2] * 5] * 2 + [[3] * 7] * 4
    it = mx.rnn.BucketSentenceIter(sentences, 3)
    # lengths with at least batch_size sentences; the two of length 5 go to bucket 7
    assert it.buckets == [3, 7]
    keys = sorted(b.bucket_key for b in it)
    assert keys == [3, 7, 7]


def test_bucket_iter_exhausts_then_stops():
    it = mx.rnn.BucketSentenceIter([[1, 2]] * 4, 2, buckets=[2])
    assert len(list(it)) == 2
    with pytest.raises(StopIteration):
        it.next()
