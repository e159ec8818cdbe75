"""mx.contrib.text.embedding against MXNet 1.9.1 (tests/data/gen/gen_text_embedding_reference.py)."""
import collections
import hashlib
import json
import pathlib
import warnings
import zipfile

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.contrib import text

DATA = pathlib.Path(__file__).parents[1] / 'data' / 'text_embedding'
REF = json.loads((DATA / 'reference.json').read_text())


def _check(embed, ref):
    assert embed.idx_to_token == ref['idx_to_token']
    assert embed.token_to_idx == ref['token_to_idx']
    assert embed.unknown_token == ref['unknown_token']
    assert embed.reserved_tokens == ref['reserved_tokens']
    assert embed.vec_len == ref['vec_len']
    np.testing.assert_allclose(embed.idx_to_vec.asnumpy(), ref['idx_to_vec'], rtol=1e-6)
    assert embed.idx_to_vec.dtype == np.float32


def _custom(name, delim, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return text.embedding.CustomEmbedding(str(DATA / name), delim, **kwargs)


def test_custom_embedding_matches_mxnet():
    _check(_custom('one.txt', '\t', init_unknown_vec=mx.nd.ones), REF['one'])
    _check(_custom('one.txt', '\t', init_unknown_vec=mx.nd.ones, unknown_token='<none>'),
           REF['one_other_unknown'])
    _check(_custom('two.txt', ' '), REF['two'])


def test_duplicates_and_headers_are_skipped_with_warnings():
    with pytest.warns(UserWarning) as caught:
        text.embedding.CustomEmbedding(str(DATA / 'one.txt'), '\t')
    messages = [str(w.message) for w in caught]
    assert any('line 1' in m and 'header' in m for m in messages)
    assert any('line 5' in m and 'duplicate' in m for m in messages)


def test_lookup_matches_mxnet():
    embed = _custom('one.txt', '\t', init_unknown_vec=mx.nd.ones)
    ref = REF['lookup']
    np.testing.assert_allclose(embed.get_vecs_by_tokens('c').asnumpy(), ref['single'])
    np.testing.assert_allclose(embed.get_vecs_by_tokens(['b', 'B', 'zz']).asnumpy(),
                               ref['list'])
    np.testing.assert_allclose(
        embed.get_vecs_by_tokens(['b', 'B', 'A'], lower_case_backup=True).asnumpy(),
        ref['lower'])


def _vocab():
    counter = collections.Counter(['c', 'c', 'a', 'd', 'zz', 'a', 'c'])
    return text.vocab.Vocabulary(counter, reserved_tokens=['<pad>'])


def test_vocabulary_and_composite_embeddings_match_mxnet():
    _check(_custom('one.txt', '\t', vocabulary=_vocab()), REF['one_with_vocabulary'])
    one = _custom('one.txt', '\t', init_unknown_vec=mx.nd.ones)
    composite = text.embedding.CompositeEmbedding(_vocab(), [one, _custom('two.txt', ' ')])
    _check(composite, REF['composite'])
    composite.update_token_vectors(['a', '<unk>'], mx.nd.array([[1, 2, 3, 4, 5],
                                                                 [6, 7, 8, 9, 10]]))
    composite.update_token_vectors('c', mx.nd.array([0, 0, 0, 0, 1]))
    _check(composite, REF['composite_updated'])


def test_update_errors():
    embed = _custom('two.txt', ' ')
    with pytest.raises(ValueError, match='Token nope is unknown'):
        embed.update_token_vectors('nope', mx.nd.array([0, 0]))
    with pytest.raises(AssertionError, match=r'expected shape \(1, 2\), found \(1, 3\)'):
        embed.update_token_vectors('a', mx.nd.array([0, 0, 0]))
    with pytest.raises(AssertionError, match='2-D NDArray'):
        embed.update_token_vectors(['a', 'd'], mx.nd.array([0, 0]))


@pytest.mark.parametrize('content, message', [
    ('a 1 2\nb\n', 'line 2 .* expected a token and its vector'),
    ('a 1 2\nb 1 2 3\n', 'line 2 .* dimension of token b is 3 but .* previous tokens is 2')])
def test_malformed_files_raise(tmp_path, content, message):
    path = tmp_path / 'bad.txt'
    path.write_text(content)
    with pytest.raises(MXNetError, match=message) as err:
        text.embedding.CustomEmbedding(str(path))
    assert isinstance(err.value, AssertionError)      # what MXNet raises


def test_pretrained_names_registry_and_create():
    names = text.embedding.get_pretrained_file_names()
    assert {k: len(names[k]) for k in REF['pretrained_counts']} == REF['pretrained_counts']
    assert text.embedding.get_pretrained_file_names('glove') == REF['glove_names']
    with pytest.raises(KeyError, match='Cannot find `embedding_name` nope'):
        text.embedding.get_pretrained_file_names('nope')
    with pytest.raises(KeyError, match='Cannot find pretrained file x.txt for token embedding '
                                       'glove'):
        text.embedding.create('GloVe', pretrained_file_name='x.txt')


def test_pretrained_files_are_read_locally_never_downloaded(tmp_path):
    content = (DATA / 'two.txt').read_bytes()
    folder = tmp_path / 'tiny'
    folder.mkdir()
    with zipfile.ZipFile(folder / 'tiny.zip', 'w') as zf:
        zf.writestr('tiny.vec', content)
    archive = (folder / 'tiny.zip').read_bytes()
    (folder / 'tiny.zip').unlink()

    @text.embedding.register
    class Tiny(text.embedding.FastText):
        pretrained_file_name_sha1 = {'tiny.vec': hashlib.sha1(content).hexdigest()}
        pretrained_archive_name_sha1 = {'tiny.zip': hashlib.sha1(archive).hexdigest()}

    with pytest.raises(MXNetError, match=r'tiny\.vec \(Tiny, SHA-1 [0-9a-f]{40}\) is not '
                                         r'there\. symmod does not download: fetch '
                                         r'.*/gluon/embeddings/tiny/tiny\.zip'):
        text.embedding.create('tiny', pretrained_file_name='tiny.vec',
                              embedding_root=str(tmp_path))
    # the archive MXNet would download, put in place by hand, is unpacked
    (folder / 'tiny.zip').write_bytes(archive)
    _check(Tiny('tiny.vec', embedding_root=str(tmp_path)), REF['two'])
    (folder / 'tiny.zip').unlink()
    _check(Tiny('tiny.vec', embedding_root=str(tmp_path)), REF['two'])
    (folder / 'tiny.vec').write_text('a 1 2\n')
    with pytest.raises(MXNetError, match='has a different SHA-1'):
        Tiny('tiny.vec', embedding_root=str(tmp_path))
