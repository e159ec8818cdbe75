"""``mx.onnx.export_model`` and ``get_operator_support``: MXNet 1.9.1's API over ExportGraph."""
import logging
import os

import numpy as np

from ...base import MXNetError
from ...formats.atomic import atomic_write
from .. import _deps
from . import registry
from .graph import ExportGraph
from . import translations  # noqa: F401  (registers the translators)

__all__ = ['export_model', 'get_operator_support', 'to_onnx_model']

log = logging.getLogger(__name__)


def get_operator_support(opset_version=None):
    """The symmod operators that export to ONNX at an opset.

    Parameters
    ----------
    opset_version : int, optional
        The ONNX opset; the newest the installed ``onnx`` package supports by default.

    Returns
    -------
    list of str
        Sorted operator names (canonical names; aliases such as ``reshape`` export as
        their operator does).
    """
    if opset_version is None:
        opset_version = _deps.newest_opset()
    return registry.supported_operators(int(opset_version))


def export_model(sym, params, in_shapes=None, in_types=np.float32,
                 onnx_file_path='model.onnx', verbose=False, dynamic=False,
                 dynamic_input_shapes=None, run_shape_inference=False, input_type=None,
                 input_shape=None, opset_version=None):
    """Export a symmod (or MXNet) model to an ONNX file.

    Parameters
    ----------
    sym : str or Symbol
        The network, or the path of its ``-symbol.json`` file.
    params : str or dict or list of two dicts
        The parameters: a ``.params`` file path, one dict holding arguments and
        auxiliary states (keys may carry ``arg:`` / ``aux:`` prefixes), or
        ``[arg_params, aux_params]``.
    in_shapes : list of tuple
        The shape of each input, in the order of ``sym.list_inputs()`` leaving out the
        parameters and the label of the output layer (``<last node>_label``).
    in_types : dtype or list of dtype
        The input data types (one for all inputs, or one per input).
    onnx_file_path : str
        Where to write the model.
    verbose : bool
        Log each converted node.
    dynamic : bool
        Let input dimensions vary: those given as None or a name in
        ``dynamic_input_shapes``, or every dimension when that is None. A dimension the
        graph cannot vary in (the length of an unrolled RNN) stays fixed, with a warning.
    dynamic_input_shapes : list of tuple, optional
        Per input, its shape with the varying dimensions as None or a string (the ONNX
        dimension name, e.g. ``('batch', 1, 28, 28)``). Dimensions of several inputs
        given the same name vary together (a batch shared by data and labels); a None
        one varies alone.
    run_shape_inference : bool
        Store ONNX's inferred shapes of the intermediate tensors in the file.
    input_type, input_shape
        Old names of ``in_types`` and ``in_shapes``.
    opset_version : int, optional
        Target ONNX opset, 12 or newer; the newest the installed ``onnx`` supports by
        default.

    Returns
    -------
    str
        ``onnx_file_path``.

    Examples
    --------
    >>> sym, arg_params, aux_params = mx.model.load_checkpoint('mlp', 3)
    >>> mx.onnx.export_model(sym, [arg_params, aux_params], [(1, 784)],
    ...                      onnx_file_path='mlp.onnx', dynamic=True,
    ...                      dynamic_input_shapes=[('batch', 784)])
    'mlp.onnx'
    """
    model = to_onnx_model(sym, params, in_shapes, in_types, verbose, dynamic,
                          dynamic_input_shapes, run_shape_inference, input_type, input_shape,
                          opset_version)
    atomic_write(onnx_file_path, model.SerializeToString())
    log.info('Input shape of the model %s ', in_shapes if input_shape is None else input_shape)
    log.info('Exported ONNX file %s saved to disk', onnx_file_path)
    return onnx_file_path


def to_onnx_model(sym, params, in_shapes=None, in_types=np.float32, verbose=False,
                  dynamic=False, dynamic_input_shapes=None, run_shape_inference=False,
                  input_type=None, input_shape=None, opset_version=None):
    """What :func:`export_model` writes, as an ``onnx.ModelProto`` (checked)."""
    onnx = _deps.onnx()
    if input_type is not None:
        in_types = input_type
    if input_shape is not None:
        in_shapes = input_shape
    newest = _deps.newest_opset()
    opset = newest if opset_version is None else int(opset_version)
    if not registry.OLDEST_OPSET <= opset <= newest:
        raise ValueError('opset_version must be between %d and %d (the newest the installed '
                         'onnx %s supports), found %s'
                         % (registry.OLDEST_OPSET, newest, onnx.__version__, opset_version))
    sym, params = _load(sym, params)
    output_label = sym.get_internals()[len(sym.get_internals()) - 1].name + '_label'
    input_names = [name for name in sym.list_inputs()
                   if name not in params and name != output_label]
    shapes, types, dynamic_dims = _input_specs(input_names, in_shapes, in_types, dynamic,
                                               dynamic_input_shapes)
    graph = ExportGraph(sym, params, shapes, types, opset, dynamic_dims,
                        skip_inputs=[output_label], verbose=verbose).build()
    opset_ids = [onnx.helper.make_opsetid('', opset)]
    model = onnx.helper.make_model(graph, opset_imports=opset_ids, producer_name='symmod',
                                   ir_version=onnx.helper.find_min_ir_version_for(opset_ids))
    onnx.checker.check_model(model, full_check=True)
    if run_shape_inference:
        try:
            model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        except Exception as err:  # noqa: BLE001  (onnx raises several kinds)
            log.info('Shape inference failed, original export is kept: %s', err)
    return model


def _load(sym, params):
    """(Symbol, {name: numpy array}) from the accepted forms of the two arguments."""
    from ... import symbol as _symbol
    from ... import ndarray as _nd
    if isinstance(sym, (str, os.PathLike)):
        if not os.path.isfile(sym):
            raise ValueError('Symbol and params files provided are invalid: no symbol file %s'
                             % os.fspath(sym))
        sym = _symbol.load(os.fspath(sym))
    elif not isinstance(sym, _symbol.Symbol):
        raise ValueError('Input sym and params should either be files or objects: sym is %s'
                         % type(sym).__name__)
    if isinstance(params, (str, os.PathLike)):
        if not os.path.isfile(params):
            raise ValueError('Symbol and params files provided are invalid: no params file '
                             '%s' % os.fspath(params))
        path = os.fspath(params)
        params = _nd.load(path)
        if isinstance(params, list) and not params:
            # a file of no arrays loads as a list (a graph without parameters): MXNet's
            # checkpoint loading warns and goes on with none
            logging.warning("Params file '%s' is empty", path)
            params = {}
        if not isinstance(params, dict):
            raise ValueError('params file %s holds a list of %d arrays, not named parameters'
                             % (path, len(params)))
    elif isinstance(params, (list, tuple)) and len(params) == 2 \
            and all(isinstance(p, dict) for p in params):
        merged = dict(params[0])
        merged.update(params[1])
        params = merged
    elif not isinstance(params, dict):
        raise ValueError('Input sym and params should either be files or objects: params '
                         'must be a path, a dict or [arg_params, aux_params], found %s'
                         % type(params).__name__)
    arrays = {}
    for key, value in params.items():
        name = key[4:] if key.startswith(('arg:', 'aux:')) else key
        arrays[name] = value.asnumpy() if hasattr(value, 'asnumpy') else np.asarray(value)
    return sym, arrays


def _input_specs(names, in_shapes, in_types, dynamic, dynamic_input_shapes):
    """Shapes, dtypes and dynamic dimensions of the graph inputs, checked."""
    if in_shapes is None:
        raise ValueError('in_shapes is required: one shape per input %s' % names)
    in_shapes = [tuple(int(d) for d in shape) for shape in in_shapes]
    if len(in_shapes) != len(names):
        raise MXNetError('ONNX export: %d input shapes given, but the model has %d inputs %s '
                         '(parameters and the output label left out)'
                         % (len(in_shapes), len(names), names))
    if not isinstance(in_types, (list, tuple)):
        in_types = [in_types] * len(in_shapes)
    if len(in_types) != len(in_shapes):
        raise ValueError('The lengths of in_types and in_shapes must equal: %d types for %d '
                         'shapes' % (len(in_types), len(in_shapes)))
    types = [np.dtype(t) for t in in_types]
    for t in types:
        _deps.tensor_type(t)    # rejects dtypes ONNX has no type for
    dynamic_dims = {}
    if dynamic:
        if dynamic_input_shapes is None:
            dynamic_input_shapes = [(None,) * len(s) for s in in_shapes]
        if len(dynamic_input_shapes) != len(in_shapes):
            raise ValueError('The length of dynamic_input_shapes must equal to the length of '
                             'in_shapes: %d and %d' % (len(dynamic_input_shapes),
                                                      len(in_shapes)))
        for name, shape, dyn in zip(names, in_shapes, dynamic_input_shapes):
            if len(dyn) != len(shape):
                raise ValueError('The dimensionality of each shape must match: input %s has '
                                 'shape %s and dynamic shape %s' % (name, shape, tuple(dyn)))
            axes = {axis: (d if isinstance(d, str) else None)
                    for axis, d in enumerate(dyn) if d is None or isinstance(d, str)}
            for axis, (d, size) in enumerate(zip(dyn, shape)):
                if axis not in axes and int(d) != size:
                    raise ValueError('dynamic_input_shapes: input %s has size %d in dimension '
                                     '%d of in_shapes but %s in dynamic_input_shapes'
                                     % (name, size, axis, d))
            if axes:
                dynamic_dims[name] = axes
    elif dynamic_input_shapes is not None:
        raise ValueError('dynamic_input_shapes is specified. Please set dynamic=True to enable '
                         'dynamic input shapes')
    return dict(zip(names, in_shapes)), dict(zip(names, types)), dynamic_dims
