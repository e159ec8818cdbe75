"""Token embeddings: vectors for the tokens of a vocabulary (``mx.contrib.text.embedding``).

``CustomEmbedding`` reads a text file of ``token v1 v2 ... vk`` lines; ``CompositeEmbedding``
concatenates several embeddings over one vocabulary; ``GloVe`` and ``FastText`` read
MXNet's pretrained files. symmod does not download: a pretrained file (or the archive
MXNet would fetch) is read from ``<embedding_root>/<glove|fasttext>/`` after a SHA-1
check, and when it is not there the error says which file to fetch and where to put it.

Index 0 is the unknown token. Its vector is the file's vector for ``unknown_token`` when
the file has one, else ``init_unknown_vec(shape=vec_len)``; reserved tokens get zero
vectors. A token listed twice keeps its first vector (a warning names the line); a line
with a one-number vector is taken for a header and skipped.
"""
import logging
import os
import tarfile
import warnings
import zipfile

import numpy as np

from ... import ndarray as nd
from ... import registry
from ...base import MXNetError, data_dir
from . import _pretrained_files as _files
from .vocab import UNKNOWN_IDX, Vocabulary

__all__ = ['register', 'create', 'get_pretrained_file_names', 'GloVe', 'FastText',
           'CustomEmbedding', 'CompositeEmbedding']

_LOG = logging.getLogger(__name__)
_REPO_URL = 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/'


class EmbeddingError(MXNetError, AssertionError):
    """A malformed embedding file or argument (an AssertionError too, which MXNet raises)."""


class _TokenEmbedding(Vocabulary):
    """Base class: a vocabulary whose tokens have vectors (``idx_to_vec``).

    Keyword arguments (``unknown_token``, ``reserved_tokens``) go to
    :class:`~symmod.contrib.text.vocab.Vocabulary`.
    """
    pretrained_file_name_sha1 = {}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._vec_len = None
        self._idx_to_vec = None

    @property
    def vec_len(self):
        """The length of each token's vector."""
        return self._vec_len

    @property
    def idx_to_vec(self):
        """The vectors (NDArray of shape ``(len(self), vec_len)``), row i for token i."""
        return self._idx_to_vec

    # ---- loading ---------------------------------------------------------------------
    def _load_embedding(self, path, elem_delim, init_unknown_vec, encoding='utf8'):
        path = os.path.expanduser(path)
        if not os.path.isfile(path):
            raise ValueError('`pretrained_file_path` must be a valid path to the pre-trained '
                             'token embedding file; %s is not a file.' % path)
        _LOG.info('Loading pre-trained token embedding vectors from %s', path)
        rows, unknown_vec, vec_len = [], None, None
        seen = set(self._idx_to_token)
        with open(path, 'r', encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                elems = line.rstrip().split(elem_delim)
                if len(elems) < 2:
                    raise EmbeddingError(
                        'At line %d of the pre-trained text embedding file %s: expected a '
                        'token and its vector separated by %r, found %r.'
                        % (line_num, path, elem_delim, line.rstrip()))
                token, vec = elems[0], [float(x) for x in elems[1:]]
                if token == self.unknown_token and unknown_vec is None:
                    unknown_vec = vec
                elif token in seen:
                    warnings.warn('At line %d of the pre-trained token embedding file: the '
                                  'embedding vector for token %s has been loaded and a '
                                  'duplicate embedding for the same token is seen and skipped.'
                                  % (line_num, token))
                elif len(vec) == 1:
                    warnings.warn('At line %d of the pre-trained text embedding file: token %s '
                                  'with 1-dimensional vector %s is likely a header and is '
                                  'skipped.' % (line_num, token, vec))
                else:
                    if vec_len is None:
                        vec_len = len(vec)
                    elif len(vec) != vec_len:
                        raise EmbeddingError(
                            'At line %d of the pre-trained token embedding file %s: the '
                            'dimension of token %s is %d but the dimension of previous tokens '
                            'is %d. Dimensions of all the tokens must be the same.'
                            % (line_num, path, token, len(vec), vec_len))
                    rows.append(vec)
                    self._token_to_idx[token] = len(self._idx_to_token)
                    self._idx_to_token.append(token)
                    seen.add(token)
        if vec_len is None:
            vec_len = len(unknown_vec) if unknown_vec is not None else None
        if vec_len is None:
            raise EmbeddingError('The pre-trained token embedding file %s holds no vectors.'
                                     % path)
        special = len(self._idx_to_token) - len(rows)      # unknown + reserved tokens
        table = np.zeros((special + len(rows), vec_len), dtype=np.float32)
        if rows:
            table[special:] = rows
        self._vec_len = vec_len
        self._idx_to_vec = nd.array(table)
        if unknown_vec is None:
            self._idx_to_vec[UNKNOWN_IDX] = init_unknown_vec(shape=vec_len)
        else:
            self._idx_to_vec[UNKNOWN_IDX] = nd.array(unknown_vec)

    def _index_tokens_from_vocabulary(self, vocabulary):
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = None if vocabulary.reserved_tokens is None \
            else list(vocabulary.reserved_tokens)

    def _set_idx_to_vec_by_embeddings(self, embeddings, vocab_len, vocab_idx_to_token):
        """Row 0: each embedding's unknown vector; row i: the tokens' vectors, concatenated
        over ``embeddings`` in order."""
        parts = []
        for embed in embeddings:
            part = np.empty((vocab_len, embed.vec_len), dtype=np.float32)
            part[0] = embed.idx_to_vec[UNKNOWN_IDX].asnumpy()
            if vocab_len > 1:
                part[1:] = embed.get_vecs_by_tokens(list(vocab_idx_to_token[1:])).asnumpy()
            parts.append(part)
        self._vec_len = sum(embed.vec_len for embed in embeddings)
        self._idx_to_vec = nd.array(np.concatenate(parts, axis=1))

    def _build_embedding_for_vocabulary(self, vocabulary):
        if vocabulary is None:
            return
        if not isinstance(vocabulary, Vocabulary):
            raise EmbeddingError('The argument `vocabulary` must be an instance of '
                            'mxnet.contrib.text.vocab.Vocabulary, found %s'
                            % type(vocabulary).__name__)
        self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
        self._index_tokens_from_vocabulary(vocabulary)

    # ---- lookup and update -----------------------------------------------------------
    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (1-D NDArray) or of a list of tokens (2-D).

        Parameters
        ----------
        tokens : str or list of str
        lower_case_backup : bool, default False
            Look a token that is not indexed up again in lower case.
        """
        single = not isinstance(tokens, list)
        if single:
            tokens = [tokens]
        index = self._token_to_idx
        if lower_case_backup:
            indices = [index[t] if t in index else index.get(t.lower(), UNKNOWN_IDX)
                       for t in tokens]
        else:
            indices = [index.get(t, UNKNOWN_IDX) for t in tokens]
        vecs = nd.Embedding(nd.array(indices), self._idx_to_vec, self._idx_to_vec.shape[0],
                            self._idx_to_vec.shape[1])
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Replace the vectors of indexed tokens.

        Parameters
        ----------
        tokens : str or list of str
            Tokens to update (the unknown token only when named explicitly).
        new_vectors : NDArray
            ``(len(tokens), vec_len)``; 1-D or 2-D for a single token.
        """
        if self._idx_to_vec is None:
            raise EmbeddingError('The property `idx_to_vec` has not been properly set.')
        if not isinstance(tokens, list) or len(tokens) == 1:
            if not isinstance(new_vectors, nd.NDArray) or new_vectors.ndim not in (1, 2):
                raise EmbeddingError('`new_vectors` must be a 1-D or 2-D NDArray if '
                                         '`tokens` is a singleton.')
            tokens = tokens if isinstance(tokens, list) else [tokens]
            if new_vectors.ndim == 1:
                new_vectors = new_vectors.reshape((1, -1))
        elif not isinstance(new_vectors, nd.NDArray) or new_vectors.ndim != 2:
            raise EmbeddingError('`new_vectors` must be a 2-D NDArray if `tokens` is a '
                                     'list of multiple strings.')
        if tuple(new_vectors.shape) != (len(tokens), self.vec_len):
            raise EmbeddingError(
                'The length of new_vectors must be equal to the number of tokens and the width '
                'of new_vectors must be equal to the dimension of embeddings of the glossary: '
                'expected shape %s, found %s' % ((len(tokens), self.vec_len),
                                                 tuple(new_vectors.shape)))
        indices = []
        for token in tokens:
            if token not in self._token_to_idx:
                raise ValueError('Token %s is unknown. To update the embedding vector for an '
                                 'unknown token, please specify it explicitly as the '
                                 '`unknown_token` %s in `tokens`. This is to avoid unintended '
                                 'updates.' % (token, self._idx_to_token[UNKNOWN_IDX]))
            indices.append(self._token_to_idx[token])
        table = self._idx_to_vec.asnumpy()
        table[indices] = new_vectors.asnumpy()
        self._idx_to_vec[:] = table

    # ---- pretrained files ------------------------------------------------------------
    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        name = cls.__name__.lower()
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise KeyError('Cannot find pretrained file %s for token embedding %s. Valid '
                           'pretrained files for embedding %s: %s'
                           % (pretrained_file_name, name, name,
                              ', '.join(cls.pretrained_file_name_sha1)))

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        """The path of the checked pretrained file, unpacked from its archive if only that
        is there."""
        from ...gluon.utils import check_sha1
        folder = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower())
        path = os.path.join(folder, pretrained_file_name)
        sha1 = cls.pretrained_file_name_sha1[pretrained_file_name]
        if os.path.exists(path) and check_sha1(path, sha1):
            return path
        archive_name = cls._get_download_file_name(pretrained_file_name)
        archive = os.path.join(folder, archive_name)
        archive_sha1 = getattr(cls, 'pretrained_archive_name_sha1', {}).get(archive_name, sha1)
        url = '{}gluon/embeddings/{}/{}'.format(os.environ.get('MXNET_GLUON_REPO', _REPO_URL),
                                                cls.__name__.lower(), archive_name)
        if archive != path and os.path.exists(archive) and check_sha1(archive, archive_sha1):
            if archive.endswith('.zip'):
                with zipfile.ZipFile(archive) as zf:
                    zf.extract(pretrained_file_name, folder)
            else:
                with tarfile.open(archive, 'r:gz') as tar:
                    tar.extract(pretrained_file_name, folder, filter='data')
            if check_sha1(path, sha1):
                return path
        state = 'has a different SHA-1' if os.path.exists(path) else 'is not there'
        what = 'it' if archive == path else 'it (or the file %s it holds)' % pretrained_file_name
        raise MXNetError('%s (%s, SHA-1 %s) %s. symmod does not download: fetch %s and put %s '
                         'into %s, or pass embedding_root=<the folder holding %s/>.'
                         % (path, cls.__name__, sha1, state, url, what, folder,
                            cls.__name__.lower()))


    def _load_pretrained(self, pretrained_file_name, embedding_root, init_unknown_vec,
                         vocabulary):
        self._check_pretrained_file_names(pretrained_file_name)
        path = self._get_pretrained_file(embedding_root or _default_root(),
                                         pretrained_file_name)
        self._load_embedding(path, ' ', init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)


def register(embedding_cls):
    """Register a token embedding class (a class decorator) for :func:`create`."""
    return registry.get_register_func(_TokenEmbedding, 'token embedding')(embedding_cls)


def create(embedding_name, **kwargs):
    """An instance of the registered embedding ``embedding_name`` (case-insensitive)."""
    return registry.get_create_func(_TokenEmbedding, 'token embedding')(embedding_name,
                                                                        **kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pretrained file names of ``embedding_name`` (a list), or of every registered
    embedding (a dict of lists)."""
    known = registry.get_registry(_TokenEmbedding)
    if embedding_name is not None:
        if embedding_name not in known:
            raise KeyError('Cannot find `embedding_name` %s. Use `get_pretrained_file_names('
                           'embedding_name=None).keys()` to get all the valid embedding names.'
                           % embedding_name)
        return list(known[embedding_name].pretrained_file_name_sha1)
    return {name: list(cls.pretrained_file_name_sha1) for name, cls in known.items()}


def _default_root():
    return os.path.join(data_dir(), 'embeddings')


@register
class GloVe(_TokenEmbedding):
    """GloVe vectors (https://nlp.stanford.edu/projects/glove/) from a pretrained file.

    Parameters
    ----------
    pretrained_file_name : str, default 'glove.840B.300d.txt'
    embedding_root : str, default $MXNET_HOME/embeddings
        Holds ``glove/<pretrained_file_name>`` (or the archive MXNet downloads).
    init_unknown_vec : callable, default nd.zeros
    vocabulary : Vocabulary, optional
        Index these tokens (default: every token of the file).
    """
    pretrained_file_name_sha1 = _files.GLOVE_FILES
    pretrained_archive_name_sha1 = _files.GLOVE_ARCHIVES

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        corpus = pretrained_file_name.split('.')[1]
        return next(a for a in cls.pretrained_archive_name_sha1 if a.split('.')[1] == corpus)

    def __init__(self, pretrained_file_name='glove.840B.300d.txt', embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_pretrained(pretrained_file_name, embedding_root, init_unknown_vec,
                              vocabulary)


@register
class FastText(_TokenEmbedding):
    """fastText vectors (https://fasttext.cc/) from a pretrained ``.vec`` file.

    Parameters
    ----------
    pretrained_file_name : str, default 'wiki.simple.vec'
    embedding_root : str, default $MXNET_HOME/embeddings
        Holds ``fasttext/<pretrained_file_name>`` (or the ``.zip`` MXNet downloads).
    init_unknown_vec : callable, default nd.zeros
    vocabulary : Vocabulary, optional
        Index these tokens (default: every token of the file).
    """
    pretrained_file_name_sha1 = _files.FASTTEXT_FILES
    pretrained_archive_name_sha1 = _files.FASTTEXT_ARCHIVES

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name.rsplit('.', 1)[0] + '.zip'

    def __init__(self, pretrained_file_name='wiki.simple.vec', embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_pretrained(pretrained_file_name, embedding_root, init_unknown_vec,
                              vocabulary)


class CustomEmbedding(_TokenEmbedding):
    """Vectors from a user's file of ``token<elem_delim>v1<elem_delim>...vk`` lines.

    Parameters
    ----------
    pretrained_file_path : str
    elem_delim : str, default ' '
    encoding : str, default 'utf8'
    init_unknown_vec : callable, default nd.zeros
        Makes the unknown token's vector when the file has none.
    vocabulary : Vocabulary, optional
        Index these tokens (default: every token of the file).
    """

    def __init__(self, pretrained_file_path, elem_delim=' ', encoding='utf8',
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The tokens of ``vocabulary`` with the vectors of one or several embeddings,
    concatenated in order.

    Parameters
    ----------
    vocabulary : Vocabulary
    token_embeddings : embedding or list of embeddings
    """

    def __init__(self, vocabulary, token_embeddings):
        if not isinstance(vocabulary, Vocabulary):
            raise EmbeddingError('The argument `vocabulary` must be an instance of '
                            'mxnet.contrib.text.vocab.Vocabulary, found %s'
                            % type(vocabulary).__name__)
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        for embed in token_embeddings:
            if not isinstance(embed, _TokenEmbedding):
                raise EmbeddingError('The argument `token_embeddings` must be an instance or a list '
                                'of instances of mxnet.contrib.text.embedding token '
                                'embeddings, found %s' % type(embed).__name__)
        super().__init__()
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
