"""``Module.predict``'s options against MXNet 1.9.1's results (tests/data/predict_reference.npz,
written by tests/data/gen/gen_predict_reference.py): pad trimming, ``num_batch``, ``reset``,
``merge_batches=False``, ``always_output_list``, one and two outputs, batch sizes 1, 4 and
13, and the 'discard' and 'roll_over' iterators."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx

REF = np.load(pathlib.Path(__file__).resolve().parents[1] / 'data' / 'predict_reference.npz')
PARAMS = {k.split('/', 1)[1]: REF[k] for k in REF.files if k.startswith('param/')}


def _network(two_outputs):
    data = mx.sym.var('data')
    hidden = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=5, name='fc1'),
                               act_type='relu', name='relu1')
    out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(hidden, num_hidden=3, name='fc2'),
                               name='softmax')
    return mx.sym.Group([out, hidden]) if two_outputs else out


def _module(two_outputs, batch_size):
    mod = mx.mod.Module(_network(two_outputs))
    with pytest.warns(UserWarning, match='label_shapes'):
        mod.bind(data_shapes=[('data', (batch_size, 6))], for_training=False)
    mod.set_params({k: mx.nd.array(v) for k, v in PARAMS.items()}, {})
    return mod


def _check(name, result):
    """``result`` has the structure and values MXNet returned for case ``name``."""
    structure = json.loads(str(REF[name + '/structure']))
    if structure[0] == 'array':
        assert isinstance(result, mx.nd.NDArray), name
        batches = [[result]]
    elif structure[0] == 'list':
        assert isinstance(result, list) and len(result) == structure[1], name
        assert all(isinstance(r, mx.nd.NDArray) for r in result), name
        batches = [result] if result else []
    else:
        assert isinstance(result, list) and len(result) == structure[1], name
        assert all(isinstance(r, list) and len(r) == structure[2] for r in result), name
        batches = result
    for b, outs in enumerate(batches):
        for o, out in enumerate(outs):
            np.testing.assert_allclose(out.asnumpy(), REF['%s/%d/%d' % (name, b, o)],
                                       rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize('two_outputs', [False, True])
@pytest.mark.parametrize('batch_size', [1, 4, 13])
def test_predict_options_match_mxnet(two_outputs, batch_size):
    mod = _module(two_outputs, batch_size)
    it = mx.io.NDArrayIter(REF['data'], batch_size=batch_size)
    pre = '%sbs%d_' % ('two_' if two_outputs else 'one_', batch_size)
    _check(pre + 'default', mod.predict(it))
    _check(pre + 'list', mod.predict(it, always_output_list=True))
    _check(pre + 'nomerge', mod.predict(it, merge_batches=False))
    _check(pre + 'num_batch2', mod.predict(it, num_batch=2))
    it.reset()
    it.next()
    _check(pre + 'noreset_after_one', mod.predict(it, reset=False))
    _check(pre + 'noreset_exhausted', mod.predict(it, reset=False))
    _check(pre + 'again', mod.predict(it))


@pytest.mark.parametrize('two_outputs', [False, True])
@pytest.mark.parametrize('handle', ['discard', 'roll_over'])
def test_predict_over_discard_and_roll_over_iterators_matches_mxnet(two_outputs, handle):
    mod = _module(two_outputs, 4)
    it = mx.io.NDArrayIter(REF['data'], batch_size=4, last_batch_handle=handle)
    pre = '%sbs4_%s_' % ('two_' if two_outputs else 'one_', handle)
    _check(pre + 'first', mod.predict(it))
    _check(pre + 'second', mod.predict(it, merge_batches=False))


@pytest.mark.parametrize('merge', [True, False])
def test_repeated_batch_one_predictions_are_separate_arrays(merge):
    """Each call's outputs are its own copies: the next call (which overwrites the
    module's output buffers) leaves them alone."""
    mod = _module(True, 1)
    it = mx.io.NDArrayIter(REF['data'][11:12], batch_size=1)     # all 5 hidden units > 0
    first = mod.predict(it, merge_batches=merge)
    first = first if merge else first[0]
    kept = [o.asnumpy().copy() for o in first]
    mod.set_params({k: mx.nd.array(v * 2) for k, v in PARAMS.items()}, {})
    second = mod.predict(it, merge_batches=merge)
    second = second if merge else second[0]
    for out, saved, buf in zip(first, kept, mod.get_outputs()):
        np.testing.assert_array_equal(out.asnumpy(), saved)
        assert not np.shares_memory(out.asnumpy(), buf.asnumpy())
    assert not np.allclose(second[1].asnumpy(), kept[1])


def test_get_outputs_of_one_device_is_a_new_list_each_call():
    """With one executor nothing is merged: the outputs are the executor's arrays, in a
    list the caller may change without changing the module's."""
    mod = _module(True, 4)
    mod.forward(mx.io.DataBatch([mx.nd.array(REF['data'][:4])]), is_train=False)
    outs = mod.get_outputs()
    assert [o.shape for o in outs] == [(4, 3), (4, 5)]
    assert outs[0] is mod._exec_group.execs[0].outputs[0]
    outs.pop()
    assert len(mod.get_outputs()) == 2 and len(mod._exec_group.execs[0].outputs) == 2
    assert len(mod.get_outputs(merge_multi_context=False)[0]) == 1
