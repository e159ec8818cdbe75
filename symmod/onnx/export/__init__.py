"""Export: symmod Symbol + parameters -> ONNX model (``mx.onnx.export_model``)."""
