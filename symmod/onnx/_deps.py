"""The optional ``onnx`` dependency: imported only when an ONNX function is called."""
import numpy as np

_MESSAGE = ("Onnx and protobuf need to be installed. Install them with "
            "pip install 'symmod[onnx]' (or pip install onnx onnxruntime)")


def onnx():
    """The ``onnx`` package, or ImportError saying how to install it."""
    try:
        import onnx as _onnx
    except ImportError as err:
        raise ImportError('%s (%s)' % (_MESSAGE, err)) from None
    return _onnx


def newest_opset():
    """The newest ONNX opset the installed ``onnx`` package knows."""
    return onnx().defs.onnx_opset_version()


def tensor_type(dtype):
    """ONNX TensorProto element type of a numpy dtype."""
    return onnx().helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def numpy_type(elem_type):
    """numpy dtype of an ONNX TensorProto element type."""
    return np.dtype(onnx().helper.tensor_dtype_to_np_dtype(elem_type))
