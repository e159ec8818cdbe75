"""Language-model datasets: WikiText-2 and WikiText-103 (Merity et al., 2016), read from
``root``.

Each sample is ``(data, label)``: ``seq_len`` token indices and the same sequence
shifted by one token. The tokens of a line get ``<eos>`` appended; the vocabulary
(``mx.contrib.text``) is built from the segment unless one is given. symmod does not
download: ``root`` must hold the segment's ``wiki.<segment>.tokens`` (or the
``wikitext-*-v1.zip`` archive, which is unpacked there).
"""
import hashlib
import os
import zipfile

import numpy as np

from .... import base, nd
from ....base import MXNetError
from ....contrib import text
from ...data import dataset

__all__ = ['WikiText2', 'WikiText103']

EOS_TOKEN = '<eos>'
_REPO = 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/dataset/'


def _sha1(path):
    digest = hashlib.sha1()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest()


class _WikiText(dataset.Dataset):
    """What the WikiText data sets share; subclasses name their files and hashes."""
    _namespace = None
    _archive = None         # (file name, SHA-1)
    _files = None           # segment -> (file name, SHA-1)

    def __init__(self, root, segment, vocab, seq_len):
        if segment not in self._files:
            raise MXNetError('%s: segment must be one of %s, found %r'
                             % (type(self).__name__, sorted(self._files), segment))
        self._root = os.path.expanduser(root)
        self._segment = segment
        self._seq_len = seq_len
        self._vocab = vocab
        self._counter = None
        self._get_data()

    @property
    def vocabulary(self):
        """The :class:`~symmod.contrib.text.vocab.Vocabulary` of the tokens."""
        return self._vocab

    @property
    def frequencies(self):
        """collections.Counter of the segment's tokens."""
        return self._counter

    def _locate(self):
        name, sha1 = self._files[self._segment]
        path = os.path.join(self._root, name)
        archive = os.path.join(self._root, self._archive[0])
        if not os.path.exists(path) and os.path.exists(archive):
            with zipfile.ZipFile(archive) as zf:
                for member in zf.namelist():
                    base_name = os.path.basename(member)
                    if base_name:
                        with zf.open(member) as src, \
                                open(os.path.join(self._root, base_name), 'wb') as dst:
                            dst.write(src.read())
        if not os.path.exists(path):
            raise MXNetError(
                '%s: cannot find "%s" in "%s". symmod does not download data sets: put that '
                'file (or %s%s/%s, which holds it) into that folder, or pass root=<folder '
                'that holds it>.' % (type(self).__name__, name, self._root, _REPO,
                                     self._namespace, self._archive[0]))
        if _sha1(path) != sha1:
            raise MXNetError('%s: "%s" is not the published file (its SHA-1 is not %s)'
                             % (type(self).__name__, path, sha1))
        return path

    def _get_data(self):
        with open(self._locate(), 'r', encoding='utf8') as f:
            content = f.read()
        if self._counter is None:
            self._counter = text.utils.count_tokens_from_str(content)
        if self._vocab is None:
            self._vocab = text.vocab.Vocabulary(counter=self._counter,
                                                reserved_tokens=[EOS_TOKEN])
        lines = [line.split() + [EOS_TOKEN] for line in content.splitlines() if line.split()]
        indices = self._vocab.to_indices([token for line in lines for token in line])
        data = np.array(indices[:-1], dtype=np.int32)
        label = np.array(indices[1:], dtype=np.int32)
        usable = len(data) // self._seq_len * self._seq_len
        self._data = nd.array(data[:usable], dtype=np.int32).reshape((-1, self._seq_len))
        self._label = nd.array(label[:usable], dtype=np.int32).reshape((-1, self._seq_len))

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2: 2 million tokens of Wikipedia articles.

    Parameters
    ----------
    root : str, default '$MXNET_HOME/datasets/wikitext-2'
        The folder holding ``wiki.train.tokens``, ``wiki.valid.tokens``,
        ``wiki.test.tokens`` (or ``wikitext-2-v1.zip``).
    segment : {'train', 'validation', 'test'}, default 'train'
    vocab : Vocabulary, optional
        Index the tokens with this vocabulary (e.g. the training segment's).
    seq_len : int, default 35
        Tokens per sample.
    """
    _namespace = 'wikitext-2'
    _archive = ('wikitext-2-v1.zip', '3c914d17d80b1459be871a5039ac23e752a53cbe')
    _files = {'train': ('wiki.train.tokens', '863f29c46ef9d167fff4940ec821195882fe29d1'),
              'validation': ('wiki.valid.tokens', '0418625c8b4da6e4b5c7a0b9e78d4ae8f7ee5422'),
              'test': ('wiki.test.tokens', 'c7b8ce0aa086fb34dab808c5c49224211eb2b172')}

    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'wikitext-2'),
                 segment='train', vocab=None, seq_len=35):
        super().__init__(root, segment, vocab, seq_len)


class WikiText103(_WikiText):
    """WikiText-103: 103 million tokens of Wikipedia articles. Parameters as for
    :class:`WikiText2` (root default '$MXNET_HOME/datasets/wikitext-103', archive
    ``wikitext-103-v1.zip``)."""
    _namespace = 'wikitext-103'
    _archive = ('wikitext-103-v1.zip', '0aec09a7537b58d4bb65362fee27650eeaba625a')
    _files = {'train': ('wiki.train.tokens', 'b7497e2dfe77e72cfef5e3dbc61b7b53712ac211'),
              'validation': ('wiki.valid.tokens', 'c326ac59dc587676d58c422eb8a03e119582f92b'),
              'test': ('wiki.test.tokens', '8a5befc548865cec54ed4273cf87dbbad60d1e47')}

    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'wikitext-103'),
                 segment='train', vocab=None, seq_len=35):
        super().__init__(root, segment, vocab, seq_len)
