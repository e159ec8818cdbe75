"""``import_model``, ``get_model_metadata`` and ``import_to_gluon`` (MXNet 1.9.1's
``mx.contrib.onnx`` API) over ImportGraph."""
import os

from ...base import MXNetError
from .. import _deps
from .graph import ImportGraph
from . import translations  # noqa: F401  (registers the translators)

__all__ = ['import_model', 'get_model_metadata', 'import_to_gluon']


def _load(model_file):
    onnx = _deps.onnx()
    if isinstance(model_file, onnx.ModelProto):
        return model_file
    path = os.fspath(model_file)
    if not os.path.isfile(path):
        raise MXNetError('ONNX import: no model file %s' % path)
    try:
        return onnx.load_model(path)
    except Exception as err:  # noqa: BLE001  (protobuf raises its own DecodeError)
        raise MXNetError('ONNX import: %s is not an ONNX model: %s' % (path, err)) from None


def _opset(model):
    versions = [o.version for o in model.opset_import if o.domain in ('', 'ai.onnx')]
    return max(versions) if versions else 1


def import_model(model_file):
    """Read an ONNX model into a symmod Symbol and parameters.

    Parameters
    ----------
    model_file : str
        The ``.onnx`` file (an ``onnx.ModelProto`` is accepted too).

    Returns
    -------
    sym : Symbol
        The network; its inputs are the model's graph inputs (not its initializers).
    arg_params : dict of str to NDArray
        The weights.
    aux_params : dict of str to NDArray
        Auxiliary states (BatchNorm's running mean and variance).

    Examples
    --------
    >>> sym, arg_params, aux_params = mx.contrib.onnx.import_model('mlp.onnx')
    >>> mod = mx.mod.Module(sym, data_names=['data'], label_names=None)
    """
    from ... import ndarray as nd
    model = _load(model_file)
    graph = ImportGraph(model.graph, _opset(model))
    graph.infer_static_shapes(model)
    sym = graph.build()
    args, auxs = set(sym.list_arguments()), set(sym.list_auxiliary_states())
    arg_params = {k: nd.array(v, dtype=v.dtype) for k, v in graph.param_values.items()
                  if k in args}
    aux_params = {k: nd.array(v, dtype=v.dtype) for k, v in graph.param_values.items()
                  if k in auxs}
    return sym, arg_params, aux_params


def get_model_metadata(model_file):
    """Names and shapes of an ONNX model's inputs and outputs.

    Returns
    -------
    dict
        ``{'input_tensor_data': [(name, shape, elem_type), ...],
        'output_tensor_data': [(name, shape), ...]}`` leaving out the initializers;
        an unknown (dynamic) dimension is 0. ``elem_type`` is ONNX's TensorProto type.
    """
    model = _load(model_file)
    params = {t.name for t in model.graph.initializer}

    def dims(info):
        return tuple(d.dim_value for d in info.type.tensor_type.shape.dim)
    inputs = [(i.name, dims(i), i.type.tensor_type.elem_type) for i in model.graph.input
              if i.name not in params]
    outputs = [(o.name, dims(o)) for o in model.graph.output]
    return {'input_tensor_data': inputs, 'output_tensor_data': outputs}


def import_to_gluon(model_file, ctx):
    """Read an ONNX model into a ``gluon.SymbolBlock`` with its parameters loaded.

    Parameters
    ----------
    model_file : str
    ctx : Context or list of Context

    Returns
    -------
    gluon.SymbolBlock
    """
    from ... import symbol
    from ...gluon import SymbolBlock
    sym, arg_params, aux_params = import_model(model_file)
    names = [name for name, _, _ in get_model_metadata(model_file)['input_tensor_data']]
    net = SymbolBlock(outputs=sym, inputs=[symbol.var(name) for name in names])
    params = net.collect_params()
    for name, value in list(arg_params.items()) + list(aux_params.items()):
        if name in params:
            params[name].shape = value.shape
            params[name]._load_init(value, ctx=ctx)
    return net
