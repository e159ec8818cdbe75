"""``mx.contrib.text``: token counting (``utils``), token indexing (``vocab``) and token
embeddings (``embedding``: custom and composite embeddings; MXNet's pretrained GloVe /
fastText files are read from a local folder, never downloaded)."""
from . import utils
from . import vocab
from . import embedding

__all__ = ['utils', 'vocab', 'embedding']
