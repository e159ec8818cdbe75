"""Import: ONNX model -> symmod Symbol + parameters (``mx.contrib.onnx.import_model``)."""
