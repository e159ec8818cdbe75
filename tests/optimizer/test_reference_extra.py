"""MXNet 1.9.1 reference for what optimizers.json lacks (optimizers_extra.json).

Optimizers driven with several indices per Updater call (LAMB, LARS, SGD aggregation
chunks, dtype groups, schedulers and lr/wd multipliers), GroupAdaGrad, LBSGD's warmup
strategies, ccSGD, and one call of every fused ``mx.nd`` update operator.
"""
import numpy as np
import pytest

import symmod as mx
from optimizer_refdata import EXTRA, EXTRA_ARRAYS, make_scheduler, tolerance

CASES = {case['name']: case for case in EXTRA['cases']}
OPS = {op['name']: op for op in EXTRA['ops']}


@pytest.mark.parametrize('name', sorted(CASES))
def test_updater_case_matches_mxnet(name):
    case = CASES[name]
    dtype = case['dtype']
    kwargs = dict(case['kwargs'])
    if case['param_idx2name']:
        kwargs['param_idx2name'] = {int(k): v for k, v in case['param_idx2name'].items()}
    if case['lr_scheduler']:
        kwargs['lr_scheduler'] = make_scheduler(case['lr_scheduler'])
    opt = mx.optimizer.create(case['optimizer'], **kwargs)
    updater = mx.optimizer.get_updater(opt)
    weights = [mx.nd.array(EXTRA_ARRAYS[key], dtype=dtype) for key in case['w0']]
    rtol, atol = tolerance(dtype)
    for step, (indices, record) in enumerate(zip(case['calls'], case['steps'])):
        grads = [mx.nd.array(EXTRA_ARRAYS[key], dtype=dtype) for key in record['grads']]
        if len(indices) == 1:
            updater(indices[0], grads[0], weights[indices[0]])
        else:
            updater(list(indices), grads, [weights[i] for i in indices])
        for i, key in enumerate(record['weights']):
            np.testing.assert_allclose(weights[i].asnumpy(), EXTRA_ARRAYS[key], rtol=rtol,
                                       atol=atol, err_msg='step %d tensor %d' % (step, i))
        assert opt.num_update == record['num_update']
        assert opt._index_update_count == {int(k): v for k, v in record['counts'].items()}


def _call_op(entry):
    inputs = [mx.nd.array(EXTRA_ARRAYS[key], dtype=EXTRA_ARRAYS[key].dtype)
              for key in entry['inputs']]
    name = entry['name']
    fn = getattr(mx.nd, 'adamw_update' if name == 'adamw_update_skip' else name)
    kwargs = dict(entry['kwargs'])
    if entry['out_idx'] is not None:
        kwargs['out'] = [inputs[i] for i in entry['out_idx']]
    result = fn(*inputs, **kwargs)
    return inputs, (result if isinstance(result, list) else [result])


# a skipped adamw_update leaves MXNet's fresh output uninitialised: see the test below
@pytest.mark.parametrize('name', sorted(set(OPS) - {'adamw_update_skip'}))
def test_fused_op_matches_mxnet(name):
    entry = OPS[name]
    inputs, results = _call_op(entry)
    assert len(results) == len(entry['outputs'])
    for result, key in zip(results, entry['outputs']):
        expected = EXTRA_ARRAYS[key]
        rtol, atol = tolerance('float16' if expected.dtype == np.float16 else 'float32')
        assert result.dtype == expected.dtype
        np.testing.assert_allclose(result.asnumpy(), expected, rtol=rtol, atol=atol)
    for index, key in entry['written'].items():
        np.testing.assert_allclose(inputs[int(index)].asnumpy(), EXTRA_ARRAYS[key],
                                   rtol=1e-5, atol=1e-6)


def test_skipped_adamw_update_leaves_everything():
    entry = OPS['adamw_update_skip']
    inputs, results = _call_op(entry)
    np.testing.assert_array_equal(results[0].asnumpy(), EXTRA_ARRAYS[entry['inputs'][0]])
    np.testing.assert_array_equal(inputs[2].asnumpy(), EXTRA_ARRAYS[entry['inputs'][2]])
