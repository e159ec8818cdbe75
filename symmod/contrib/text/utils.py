"""Counting the tokens of a text."""
import collections
import re

__all__ = ['count_tokens_from_str']


def count_tokens_from_str(source_str, token_delim=' ', seq_delim='\n', to_lower=False,
                          counter_to_update=None):
    """Count the tokens of ``source_str``, split at ``token_delim`` and ``seq_delim``
    (regular expressions, joined with ``|``); empty tokens are skipped.

    Parameters
    ----------
    source_str : str
        The text.
    token_delim : str, default ' '
        What separates tokens.
    seq_delim : str, default '\\n'
        What separates sequences.
    to_lower : bool, default False
        Count lower-cased tokens.
    counter_to_update : collections.Counter, optional
        A counter to add the counts to (and return).

    Returns
    -------
    collections.Counter
        Token -> count.

    Examples
    --------
    >>> count_tokens_from_str(' Life is great ! \\n life is good . \\n')
    Counter({'is': 2, 'Life': 1, 'great': 1, '!': 1, 'life': 1, 'good': 1, '.': 1})
    """
    tokens = [t for t in re.split(token_delim + '|' + seq_delim, source_str) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
