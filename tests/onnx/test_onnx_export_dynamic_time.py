"""CTCLoss exported with a varying number of time steps (``dynamic=True``): the alpha
recursion is one ONNX Scan over however many steps the data has, so one exported file
scores sequences of any length in ONNX Runtime and, imported back, in symmod."""
import numpy as np
import pytest

import symmod as mx
from onnx_check import NEWEST, check_export, symmod_forward
from onnx_export_cases_graphs import CTC_CASES
from symmod.onnx.export.model import to_onnx_model

RNG = np.random.RandomState(21)


def _lengths(inputs, steps):
    """``inputs`` with data of ``steps`` time steps (new activations), data_lengths capped."""
    data = inputs['data']
    feed = dict(inputs, data=RNG.uniform(-2, 2, (steps,) + data.shape[1:]).astype(np.float32))
    if 'data_lengths' in inputs:
        feed['data_lengths'] = np.minimum(inputs['data_lengths'], steps).astype(np.float32)
    return feed


def _shapes(sym, inputs, batch=False):
    shapes = []
    for name in sym.list_inputs():
        shape = inputs[name].shape
        if name == 'data':
            shape = ('t', 'n' if batch else shape[1]) + shape[2:]
        elif batch:
            shape = ('n',) + shape[1:]
        shapes.append(shape)
    return shapes


@pytest.mark.parametrize('name,sym,inputs,options', CTC_CASES, ids=[c[0] for c in CTC_CASES])
def test_ctc_time_steps_vary(name, sym, inputs, options):
    steps, fewest = inputs['data'].shape[0], inputs['label'].shape[1]   # symmod needs T >= L
    check_export(sym, inputs, dynamic=True, dynamic_input_shapes=_shapes(sym, inputs),
                 dynamic_inputs=[_lengths(inputs, steps + 3), _lengths(inputs, fewest)],
                 opsets=[12, 13, NEWEST], rtol=1e-5)


def test_ctc_time_and_batch_vary_together():
    name, sym, inputs, options = CTC_CASES[2]          # with data and label lengths
    bigger = {k: np.concatenate([v, np.take(v, [0, 1], axis=1 if k == 'data' else 0)],
                                axis=1 if k == 'data' else 0)
              for k, v in _lengths(inputs, 9).items()}
    check_export(sym, inputs, dynamic=True, dynamic_input_shapes=_shapes(sym, inputs, True),
                 dynamic_inputs=[bigger], opsets=[12, NEWEST], rtol=1e-5)


@pytest.mark.parametrize('name,sym,inputs,options', CTC_CASES, ids=[c[0] for c in CTC_CASES])
def test_ctc_with_varying_time_imports_back(name, sym, inputs, options):
    names = sym.list_inputs()
    model = to_onnx_model(sym, {}, [inputs[n].shape for n in names],
                          [inputs[n].dtype for n in names], dynamic=True,
                          dynamic_input_shapes=_shapes(sym, inputs), opset_version=NEWEST)
    imported, args, auxs = mx.contrib.onnx.import_model(model)
    params = {k: v.asnumpy() for k, v in list(args.items()) + list(auxs.items())}
    for feed in (inputs, _lengths(inputs, inputs['data'].shape[0] + 2)):
        np.testing.assert_allclose(symmod_forward(imported, feed, params)[0],
                                   symmod_forward(sym, feed, {})[0], rtol=1e-5)
