"""``mx.contrib.text``: token counting (``utils``) and token indexing (``vocab``).

MXNet's ``embedding`` module (pretrained GloVe / fastText vectors fetched from the
network) is not provided: symmod does not download.
"""
from . import utils
from . import vocab

__all__ = ['utils', 'vocab']
