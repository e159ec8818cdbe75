"""Shared checks for the ONNX tests: run a symbol in symmod and its export in ONNX Runtime."""
import numpy as np
import onnx
import onnxruntime as ort

import symmod as mx
from symmod.onnx.export.model import to_onnx_model



def _newest_runnable(newest):
    """The newest opset both onnx and the installed ONNX Runtime support (a runtime may
    lag behind the onnx package it is installed with)."""
    from onnx import TensorProto, helper
    value = helper.make_tensor_value_info('x', TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node('Relu', ['x'], ['y'])], 'probe', [value],
                              [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1])])
    for opset in range(newest, 12, -1):
        ids = [helper.make_opsetid('', opset)]
        model = helper.make_model(graph, opset_imports=ids,
                                  ir_version=helper.find_min_ir_version_for(ids))
        try:
            ort.InferenceSession(model.SerializeToString(), providers=['CPUExecutionProvider'])
            return opset
        except Exception:  # noqa: BLE001  (the runtime refuses an opset it does not know)
            continue
    return 13


NEWEST_ONNX = onnx.defs.onnx_opset_version()
NEWEST = _newest_runnable(NEWEST_ONNX)     # the newest opset the tests run
OPSETS = sorted({12, 13, NEWEST})


def export(*args, **kwargs):
    """``mx.onnx.export_model`` at the newest opset ONNX Runtime runs (the default is the
    newest the onnx package knows, which a runtime may not support yet)."""
    kwargs.setdefault('opset_version', NEWEST)
    return mx.onnx.export_model(*args, **kwargs)


def session(model):
    """An ONNX Runtime session on one thread (the CI machine has two cores)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    data = model if isinstance(model, (bytes, str)) else model.SerializeToString()
    return ort.InferenceSession(data, options, providers=['CPUExecutionProvider'])


def random_params(sym, shapes, dtypes=None, scale=0.5, seed=0):
    """Random arguments and auxiliary states for every non-input of ``sym``."""
    rng = np.random.RandomState(seed)
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    arg_types, _, aux_types = sym.infer_type(**(dtypes or {k: np.float32 for k in shapes}))
    params = {}
    for name, shape, dtype in zip(sym.list_arguments(), arg_shapes, arg_types):
        if name not in shapes and not name.endswith('label'):
            params[name] = (rng.uniform(-scale, scale, shape)).astype(dtype or np.float32)
    for name, shape, dtype in zip(sym.list_auxiliary_states(), aux_shapes, aux_types):
        # moving variances must be positive
        params[name] = rng.uniform(0.5, 1.5, shape).astype(dtype or np.float32)
    return params


def symmod_forward(sym, inputs, params):
    """symmod's inference outputs of ``sym`` as numpy arrays."""
    shapes = {k: v.shape for k, v in inputs.items()}
    types = {k: v.dtype for k, v in inputs.items()}
    types.update({k: v.dtype for k, v in params.items() if k in sym.list_arguments()})
    exe = sym.simple_bind(mx.cpu(), grad_req='null', type_dict=types, **shapes)
    for name, value in list(inputs.items()) + list(params.items()):
        target = exe.arg_dict.get(name)
        if target is None:
            target = exe.aux_dict[name]
        target[:] = value
    return [out.asnumpy() for out in exe.forward(is_train=False)]


def check_export(sym, inputs, params=None, opsets=OPSETS, rtol=1e-4, atol=1e-5,
                 dynamic=False, dynamic_input_shapes=None, dynamic_inputs=None, seed=0):
    """Export ``sym`` at each opset and compare ONNX Runtime with symmod.

    ``inputs`` maps input names to arrays (their shapes are the export shapes);
    ``dynamic_inputs`` are further input dicts (other sizes) the dynamic model must take.
    Returns the largest absolute difference seen.
    """
    if params is None:
        params = random_params(sym, {k: v.shape for k, v in inputs.items()},
                               {k: v.dtype for k, v in inputs.items()}, seed=seed)
    names = [n for n in sym.list_inputs() if n not in params]
    names = [n for n in names if n in inputs]
    in_shapes = [inputs[n].shape for n in names]
    in_types = [inputs[n].dtype for n in names]
    worst = 0.0
    for opset in opsets:
        model = to_onnx_model(sym, params, in_shapes, in_types, dynamic=dynamic,
                              dynamic_input_shapes=dynamic_input_shapes, opset_version=opset)
        sess = session(model)
        for feed in [inputs] + list(dynamic_inputs or []):
            expected = symmod_forward(sym, feed, params)
            got = sess.run(None, {n: feed[n] for n in names})
            assert len(got) == len(expected)
            for e, o in zip(expected, got):
                assert o.shape == e.shape, 'opset %d: shape %s, expected %s' % (
                    opset, o.shape, e.shape)
                if e.dtype.kind == 'f':
                    np.testing.assert_allclose(o, e, rtol=rtol, atol=atol,
                                               err_msg='opset %d' % opset)
                    worst = max(worst, float(np.max(np.abs(o - e), initial=0.0)))
                else:
                    np.testing.assert_array_equal(o, e, err_msg='opset %d' % opset)
    return worst
