"""``mx.numpy`` (MXNet's NumPy-compatible array interface) is not provided by symmod.

The module exists so that scripts importing it load; any use of it raises MXNetError.
symmod implements MXNet's classic ``mx.nd`` / ``mx.sym`` interface.
"""


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    from .base import MXNetError
    raise MXNetError('mx.numpy.%s: MXNet\'s NumPy interface (mx.np / mx.numpy) is not provided '
                     'by symmod; use mx.nd' % name)
