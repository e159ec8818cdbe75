"""Vocabulary: the mapping between tokens and integer indices."""
import collections

__all__ = ['Vocabulary']

UNKNOWN_IDX = 0     # the unknown token's index


class Vocabulary:
    """Indices for tokens: the unknown token is 0, the reserved tokens follow, then the
    counted tokens by decreasing frequency (ties in lexicographic order).

    Parameters
    ----------
    counter : collections.Counter, optional
        Token frequencies (e.g. from :func:`utils.count_tokens_from_str`).
    most_freq_count : int, optional
        Keep at most this many counted tokens.
    min_freq : int, default 1
        Keep only tokens counted at least this often.
    unknown_token : hashable, default '<unk>'
        What unknown tokens map to.
    reserved_tokens : list, optional
        Tokens always indexed (e.g. padding, sentence boundaries).

    Examples
    --------
    >>> vocab = Vocabulary(collections.Counter(['b', 'a', 'b']), reserved_tokens=['<pad>'])
    >>> vocab.idx_to_token
    ['<unk>', '<pad>', 'b', 'a']
    >>> vocab.to_indices(['a', 'zzz'])
    [3, 0]
    """

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token='<unk>',
                 reserved_tokens=None):
        assert min_freq > 0, '`min_freq` must be set to a positive value.'
        if reserved_tokens is not None:
            reserved = set(reserved_tokens)
            assert unknown_token not in reserved, \
                '`reserved_token` cannot contain `unknown_token`.'
            assert len(reserved) == len(reserved_tokens), \
                '`reserved_tokens` cannot contain duplicate reserved tokens.'
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + list(reserved_tokens or [])
        self._token_to_idx = {token: idx for idx, token in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter(counter, most_freq_count, min_freq)

    def _index_counter(self, counter, most_freq_count, min_freq):
        assert isinstance(counter, collections.Counter), \
            '`counter` must be an instance of collections.Counter.'
        special = set(self._idx_to_token)
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        # by frequency, ties broken by the token (a stable sort of the sorted tokens)
        ranked = sorted(sorted(counter.items(), key=lambda kv: kv[0]), key=lambda kv: kv[1],
                        reverse=True)
        for token, freq in ranked:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._token_to_idx[token] = len(self._idx_to_token)
                self._idx_to_token.append(token)

    def __len__(self):
        return len(self._idx_to_token)

    @property
    def token_to_idx(self):
        """dict: token -> index."""
        return self._token_to_idx

    @property
    def idx_to_token(self):
        """list: index -> token."""
        return self._idx_to_token

    @property
    def unknown_token(self):
        """The token unknown tokens map to."""
        return self._unknown_token

    @property
    def reserved_tokens(self):
        """The reserved tokens (None when none were given)."""
        return self._reserved_tokens

    def to_indices(self, tokens):
        """Index of a token, or list of indices of a list of tokens (unknown: 0)."""
        single = not isinstance(tokens, list)
        indices = [self._token_to_idx.get(t, UNKNOWN_IDX) for t in
                   ([tokens] if single else tokens)]
        return indices[0] if single else indices

    def to_tokens(self, indices):
        """Token of an index, or list of tokens of a list of indices."""
        single = not isinstance(indices, list)
        tokens = []
        for idx in ([indices] if single else indices):
            if not isinstance(idx, int) or idx > len(self._idx_to_token) - 1:
                raise ValueError('Token index %d in the provided `indices` is invalid.' % idx)
            tokens.append(self._idx_to_token[idx])
        return tokens[0] if single else tokens
