"""``mx.gluon.model_zoo.vision``: image-classification architectures by name.

Each architecture module registers its constructors in ``_models`` (name -> function);
:func:`get_model` looks them up by MXNet's model names.
"""
from ....base import MXNetError

__all__ = ['get_model']

_models = {}


def get_model(name, **kwargs):
    """Return the network registered as ``name`` (e.g. ``'resnet18_v1'``).

    Parameters
    ----------
    name : str
        Model name, as in MXNet 1.9.1's model zoo.
    **kwargs
        Passed to the model's constructor (``pretrained``, ``classes``, ``ctx``, ``root``...).
    """
    key = name.lower()
    if key not in _models:
        raise MXNetError('Model %s is not supported. Available options are\n\t%s'
                         % (name, '\n\t'.join(sorted(_models)) or '(none)'))
    return _models[key](**kwargs)
