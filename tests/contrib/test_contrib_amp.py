"""mx.contrib.amp: graph conversion, the loss scaler and the Trainer hooks; amp.init() (which
patches mx.nd / mx.sym for the rest of the process) runs in a subprocess."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import symmod as mx
from symmod.contrib import amp
from symmod.contrib.amp import LossScaler


def _net():
    data = mx.sym.var('data')
    fc = mx.sym.FullyConnected(data, num_hidden=4, name='fc')
    act = mx.sym.Activation(fc, act_type='softrelu', name='act')
    return mx.sym.softmax(mx.sym.elemwise_add(act, fc, name='add'), name='sm')


def _ops(sym):
    return [(n.op, n.name) for n in sym._nodes() if n.op]


def test_module_paths():
    from symmod.contrib.amp import amp as amp_module
    assert amp_module.convert_symbol is amp.convert_symbol
    assert 'FullyConnected' in amp.list_lp16_ops('float16')
    assert 'softmax' in amp.list_fp32_ops('float16')
    with pytest.raises(mx.MXNetError, match='float16'):
        amp.list_fp32_ops('bfloat16')


def test_convert_symbol_inserts_casts_where_the_lists_say():
    converted = amp.convert_symbol(_net())
    ops = _ops(converted)
    assert ('amp_cast', 'data_amp_cast_float16') in ops
    assert ('amp_cast', 'fc_weight_amp_cast_float16') in ops
    assert ('amp_cast', 'fc_output_amp_cast_float32') in ops       # softrelu: fp32
    assert ('amp_multicast', 'add_amp_multicast') in ops
    exe = converted.simple_bind(mx.cpu(), data=(2, 3))
    types = dict(zip(converted.get_internals().list_outputs(),
                     converted.get_internals().infer_type(data='float32', fc_weight='float32',
                                                          fc_bias='float32')[1]))
    assert types['fc_output'] == np.float16 and types['sm_output'] == np.float32
    assert exe.forward()[0].dtype == np.float32
    # the casts are left out of saved JSON unless asked for
    assert converted.tojson() == _net().tojson()
    kept = json.loads(converted.tojson(remove_amp_cast=False))
    assert any(n['op'] == 'amp_cast' for n in kept['nodes'])


def test_excluded_and_custom_lists():
    converted = amp.convert_symbol(_net(), excluded_sym_names=['fc'])
    assert ('amp_cast', 'data_amp_cast_float32') in _ops(converted)
    custom = amp.convert_symbol(_net(), target_dtype_ops=['FullyConnected'], fp32_ops=[],
                                conditional_fp32_ops=[])
    assert not any(n == 'fc_output_amp_cast_float32' for _, n in _ops(custom))
    with pytest.raises(mx.MXNetError, match='two or more lists'):
        amp.convert_symbol(_net(), target_dtype_ops=['softmax'], fp32_ops=['softmax'])


def test_convert_model_numbers_and_float16_params():
    rng = np.random.RandomState(0)
    args = {'fc_weight': mx.nd.array(rng.randn(4, 3) * 0.3),
            'fc_bias': mx.nd.array(rng.randn(4) * 0.1)}
    data = mx.nd.array(rng.randn(5, 3))
    reference = _net().bind(mx.cpu(), dict(data=data, **args)).forward()[0].asnumpy()
    converted, new_args, _ = amp.convert_model(_net(), args, {}, cast_optional_params=True)
    assert new_args['fc_weight'].dtype == np.float16
    assert converted.attr_dict()['fc_weight']['__dtype__'] == '2'
    assert ('amp_cast', 'fc_weight_amp_cast_float16') not in _ops(converted)
    out = converted.bind(mx.cpu(), dict(data=data, **new_args)).forward()[0].asnumpy()
    np.testing.assert_allclose(out, reference, atol=2e-3)


def test_loss_scaler_halves_on_overflow_and_grows_after_clean_steps():
    net = mx.gluon.nn.Dense(2, in_units=2)
    net.initialize()
    scaler = LossScaler()
    scaler._scale_seq_len = 3
    params = list(net.collect_params().values())
    with mx.autograd.record():
        loss = net(mx.nd.ones((1, 2))).sum()
    loss.backward()
    assert not scaler.has_overflow(params)
    params[0].grad()[:] = np.inf
    assert scaler.has_overflow(params)
    assert scaler.loss_scale == 2. ** 16
    params[0].grad()[:] = 0
    for _ in range(4):
        scaler.has_overflow(params)
    assert scaler.loss_scale == 2. ** 16        # halved, then doubled after 3 clean steps


SCRIPT = r'''
import numpy as np
import symmod as mx
from symmod.contrib import amp
amp.init()
x = mx.nd.ones((2, 3))
w = mx.nd.ones((4, 3))
out = mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=4)
assert out.dtype == np.float16, out.dtype
assert mx.nd.softmax(out).dtype == np.float32
s = mx.sym.FullyConnected(mx.sym.var('d'), num_hidden=2, name='fc')
assert 'amp_cast' in [n.op for n in s._nodes() if n.op]
net = mx.gluon.nn.Dense(1, in_units=3)
net.initialize()
trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
amp.init_trainer(trainer)
before = net.weight.data().asnumpy().copy()
with mx.autograd.record():
    loss = net(mx.nd.ones((2, 3)).astype('float16')).astype('float32').sum()
    with amp.scale_loss(loss, trainer) as scaled:
        mx.autograd.backward(scaled)
net.weight.grad()[:] = np.inf                 # overflow: the step is skipped
trainer.step(1)
assert (net.weight.data().asnumpy() == before).all()
assert trainer._amp_loss_scaler._next_loss_scale == 2. ** 15
print('ok')
'''


def test_init_patches_functions_and_trainer_skips_overflowing_steps():
    result = subprocess.run([sys.executable, '-c', SCRIPT], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().endswith('ok')


def test_convert_hybrid_block_and_bucketing_module():
    rng = np.random.RandomState(1)
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, in_units=3), mx.gluon.nn.Dense(2, in_units=4))
    net.initialize()
    net.hybridize()
    x = mx.nd.array(rng.randn(5, 3))
    reference = net(x).asnumpy()
    converted = amp.convert_hybrid_block(net, cast_optional_params=True)
    out = converted(x)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.asnumpy(), reference, atol=5e-3)

    def sym_gen(key):
        fc = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
        return mx.sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
    module = mx.mod.BucketingModule(sym_gen, default_bucket_key=3)
    module.bind([('data', (4, 3))], [('softmax_label', (4,))])
    module.init_params()
    mixed = amp.convert_bucketing_module(module)
    batch = mx.io.DataBatch([mx.nd.array(rng.randn(4, 3))], [mx.nd.zeros(4)], bucket_key=3,
                            provide_data=[mx.io.DataDesc('data', (4, 3))],
                            provide_label=[mx.io.DataDesc('softmax_label', (4,))])
    module.forward(batch, is_train=False)
    mixed.forward(batch, is_train=False)
    np.testing.assert_allclose(mixed.get_outputs()[0].asnumpy(),
                               module.get_outputs()[0].asnumpy(), atol=2e-3)
