"""``mx.contrib.onnx``: MXNet 1.9.1's ONNX import API (and its older export path).

``import_model``, ``get_model_metadata`` and ``import_to_gluon`` read ONNX models into
symmod; ``export_model`` is ``mx.onnx.export_model`` under its deprecated name. MXNet
announces with each call that these paths are deprecated; symmod logs the same notice
(logger ``symmod.contrib.onnx``, level INFO).
"""
import logging

from ..onnx import export_model as _export_model
from ..onnx.importer.model import get_model_metadata as _get_model_metadata
from ..onnx.importer.model import import_model as _import_model
from ..onnx.importer.model import import_to_gluon as _import_to_gluon

__all__ = ['import_model', 'get_model_metadata', 'import_to_gluon', 'export_model']

log = logging.getLogger(__name__)

_IMPORT_NOTICE = ('Please be advised that importing ONNX models into MXNet is going to be '
                  'deprecated in the upcoming MXNet v1.10 release. The following apis will be '
                  'deleted: mxnet.contrib.onnx.import_model/get_model_metadata/import_to_gluon.')


def import_model(model_file):
    log.info('Calling mxnet.contrib.onnx.import_model... %s', _IMPORT_NOTICE)
    return _import_model(model_file)


def get_model_metadata(model_file):
    log.info('Calling mxnet.contrib.onnx.get_model_metadata... %s', _IMPORT_NOTICE)
    return _get_model_metadata(model_file)


def import_to_gluon(model_file, ctx):
    log.info('Calling mxnet.contrib.onnx.import_to_gluon... %s', _IMPORT_NOTICE)
    return _import_to_gluon(model_file, ctx)


def export_model(*args, **kwargs):
    log.info('Calling mxnet.contrib.onnx.export_model... Please be advised that the ONNX '
             'module has been moved to mxnet.onnx and mxnet.onnx.export_model is the '
             'preferred path.')
    return _export_model(*args, **kwargs)


import_model.__doc__ = _import_model.__doc__
get_model_metadata.__doc__ = _get_model_metadata.__doc__
import_to_gluon.__doc__ = _import_to_gluon.__doc__
export_model.__doc__ = _export_model.__doc__
