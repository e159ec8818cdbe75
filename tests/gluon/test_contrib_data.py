"""gluon.contrib.data (WikiText2 / WikiText103, IntervalSampler) and mx.contrib.text
against what MXNet 1.9.1 makes of a small corpus (tests/data/gen/gen_contrib_data_reference.py)."""
import collections
import hashlib
import json
import pathlib
import shutil
import zipfile

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.gluon.contrib.data import IntervalSampler
from symmod.gluon.contrib.data import text as text_data
from symmod.contrib import text

CORPUS = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'gluon' / 'wikitext'
REF = json.loads((CORPUS / 'reference.json').read_text())
SEGMENTS = {'train': 'wiki.train.tokens', 'validation': 'wiki.valid.tokens',
            'test': 'wiki.test.tokens'}


@pytest.fixture
def local_hashes(monkeypatch):
    """Point WikiText2's SHA-1 checks at the small corpus."""
    files = {segment: (name, hashlib.sha1((CORPUS / name).read_bytes()).hexdigest())
             for segment, name in SEGMENTS.items()}
    monkeypatch.setattr(text_data.WikiText2, '_files', files)
    return files


@pytest.mark.parametrize('segment', ['train', 'validation', 'test'])
def test_wikitext_against_mxnet(local_hashes, segment):
    vocab = None
    if segment == 'validation':
        vocab = text_data.WikiText2(root=str(CORPUS), segment='train', seq_len=5).vocabulary
    data = text_data.WikiText2(root=str(CORPUS), segment=segment, vocab=vocab, seq_len=5)
    expected = REF['segments'][segment]
    assert data.vocabulary.idx_to_token == expected['idx_to_token']
    assert dict(data.frequencies) == expected['frequencies']
    assert len(data) == expected['len']
    sample, label = data[0]
    assert sample.dtype == np.int32 and sample.shape == (5,)
    assert [data[i][0].asnumpy().tolist() for i in range(len(data))] == expected['data']
    assert [data[i][1].asnumpy().tolist() for i in range(len(data))] == expected['label']


def test_wikitext_unpacks_the_archive(local_hashes, tmp_path):
    with zipfile.ZipFile(tmp_path / 'wikitext-2-v1.zip', 'w') as zf:
        for name in SEGMENTS.values():
            zf.write(CORPUS / name, 'wikitext-2/' + name)
    data = text_data.WikiText2(root=str(tmp_path), segment='test', seq_len=5)
    assert len(data) == REF['segments']['test']['len']


def test_wikitext_missing_or_altered_files(local_hashes, tmp_path):
    with pytest.raises(MXNetError, match='wikitext-2-v1.zip'):
        text_data.WikiText2(root=str(tmp_path))
    shutil.copy(CORPUS / 'wiki.train.tokens', tmp_path / 'wiki.train.tokens')
    with open(tmp_path / 'wiki.train.tokens', 'a') as f:
        f.write('extra\n')
    with pytest.raises(MXNetError, match='SHA-1'):
        text_data.WikiText2(root=str(tmp_path))
    with pytest.raises(MXNetError, match='segment'):
        text_data.WikiText103(root=str(tmp_path), segment='dev')


def test_interval_sampler_against_mxnet():
    assert list(IntervalSampler(10, 3)) == REF['sampler']['10_3']
    assert list(IntervalSampler(10, 3, rollover=False)) == REF['sampler']['10_3_norollover']
    assert list(IntervalSampler(7, 7)) == REF['sampler']['7_7']
    assert len(IntervalSampler(10, 3)) == 10
    with pytest.raises(AssertionError, match='Interval'):
        IntervalSampler(3, 5)


def test_text_counter_and_vocabulary_against_mxnet():
    counter = text.utils.count_tokens_from_str(' Life is great ! \n life is good . \n',
                                               to_lower=True)
    assert dict(counter) == REF['counter']
    vocab = text.vocab.Vocabulary(counter, most_freq_count=3, reserved_tokens=['<pad>'])
    assert vocab.idx_to_token == REF['vocab']['idx_to_token']
    assert vocab.to_indices(['life', 'good', 'zzz']) == REF['vocab']['indices']
    assert vocab.to_tokens([0, 2]) == REF['vocab']['tokens']
    counter2 = collections.Counter(['a', 'b', 'b', 'c', 'c', 'c'])
    assert text.vocab.Vocabulary(counter2, min_freq=2).idx_to_token == REF['vocab_min_freq']
    with pytest.raises(ValueError, match='invalid'):
        vocab.to_tokens(99)
    updated = text.utils.count_tokens_from_str('a b', counter_to_update=counter2)
    assert updated is counter2 and counter2['a'] == 2
