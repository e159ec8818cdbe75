"""Every on-disk format symmod reads and writes.

- ``params``: MXNet's binary array files (``nd.save`` / ``nd.load``, checkpoint ``.params``).
- ``states``: optimizer states (symmod's own safe format; MXNet's pickles read safely through
  ``mxnet_pickle``, which also writes pickles MXNet can load).
- ``symbol_json``: MXNet's symbol JSON.
- ``atomic``: the temp-file-then-rename writer every format uses.
"""
