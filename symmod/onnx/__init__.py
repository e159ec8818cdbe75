"""ONNX export and import (``mx.onnx`` and, for import, ``mx.contrib.onnx``).

``export_model`` writes a symmod / MXNet model (symbol and parameters) as an ONNX file
for ONNX Runtime, TensorRT, OpenVINO and other frameworks; ``importer`` reads ONNX
models back (``mx.contrib.onnx.import_model``). Both need the optional ``onnx`` package
(``pip install 'symmod[onnx]'``), imported on first use.
"""
from .export.model import export_model, get_operator_support

__all__ = ['export_model', 'get_operator_support']
