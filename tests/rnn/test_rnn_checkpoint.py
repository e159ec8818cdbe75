"""RNN checkpoints: files hold per-gate weights (as MXNet writes them), memory holds
packed ones. Checked against a checkpoint MXNet 1.9.1 wrote and by round trips."""
import os

import numpy as np

import symmod as mx


def _lm_stack():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(3, prefix='lstm_l0_'))
    stack.add(mx.rnn.GRUCell(3, prefix='gru_l1_'))
    return stack


def _packed(mxnet_arrays):
    tag = 'checkpoint/packed/'
    return {k[len(tag):]: v for k, v in mxnet_arrays.items() if k.startswith(tag)}


def test_load_mxnet_rnn_checkpoint(checkpoint_dir, mxnet_ref, mxnet_arrays):
    ref = mxnet_ref['checkpoint']
    sym, args, aux = mx.rnn.load_rnn_checkpoint(_lm_stack(), os.path.join(checkpoint_dir, 'lm'),
                                                3)
    assert sym.list_arguments() == ref['arguments']
    assert sorted(args) == ref['loaded_keys']
    assert aux == {}
    for name, value in _packed(mxnet_arrays).items():
        np.testing.assert_array_equal(args[name].asnumpy(), value)
    # the files themselves hold MXNet's per-gate names
    saved = mx.nd.load(os.path.join(checkpoint_dir, 'lm-0003.params'))
    assert sorted(saved) == ref['saved_keys']
    assert 'arg:lstm_l0_i2h_f_weight' in saved and 'arg:gru_l1_h2h_z_bias' in saved


def test_save_writes_what_mxnet_writes(tmp_path, checkpoint_dir, mxnet_ref, mxnet_arrays):
    args = {k: mx.nd.array(v) for k, v in _packed(mxnet_arrays).items()}
    prefix = str(tmp_path / 'lm')
    net = mx.sym.load(os.path.join(checkpoint_dir, 'lm-symbol.json'))
    mx.rnn.save_rnn_checkpoint(_lm_stack(), prefix, 3, net, args, {})
    saved = mx.nd.load(prefix + '-0003.params')
    assert sorted(saved) == mxnet_ref['checkpoint']['saved_keys']
    reference = mx.nd.load(os.path.join(checkpoint_dir, 'lm-0003.params'))
    for key, value in reference.items():
        np.testing.assert_array_equal(saved[key].asnumpy(), value.asnumpy())
    assert mx.sym.load(prefix + '-symbol.json').list_arguments() == net.list_arguments()
    # the caller's dict keeps its packed weights
    assert sorted(args) == sorted(_packed(mxnet_arrays))


def test_round_trip_with_a_single_cell(tmp_path):
    cell = mx.rnn.LSTMCell(4, prefix='solo_')
    outputs, _ = cell.unroll(2, mx.sym.var('data'), merge_outputs=True)
    rng = np.random.RandomState(1)
    args = {'solo_i2h_weight': mx.nd.array(rng.rand(16, 3)),
            'solo_i2h_bias': mx.nd.array(rng.rand(16)),
            'solo_h2h_weight': mx.nd.array(rng.rand(16, 4)),
            'solo_h2h_bias': mx.nd.array(rng.rand(16)),
            'other': mx.nd.array(rng.rand(2))}
    aux = {'moving': mx.nd.array(rng.rand(3))}
    prefix = str(tmp_path / 'solo')
    mx.rnn.save_rnn_checkpoint(cell, prefix, 12, outputs, args, aux)
    sym, loaded, loaded_aux = mx.rnn.load_rnn_checkpoint(cell, prefix, 12)
    assert sym.list_arguments() == outputs.list_arguments()
    assert sorted(loaded) == sorted(args)
    for k, v in args.items():
        np.testing.assert_array_equal(loaded[k].asnumpy(), v.asnumpy())
    np.testing.assert_array_equal(loaded_aux['moving'].asnumpy(), aux['moving'].asnumpy())


def test_do_rnn_checkpoint_period(tmp_path):
    cell = mx.rnn.GRUCell(2, prefix='g_')
    outputs, _ = cell.unroll(2, mx.sym.var('data'), merge_outputs=True)
    args = {'g_i2h_weight': mx.nd.ones((6, 3)), 'g_i2h_bias': mx.nd.ones((6,)),
            'g_h2h_weight': mx.nd.ones((6, 2)), 'g_h2h_bias': mx.nd.ones((6,))}
    prefix = str(tmp_path / 'cb')
    callback = mx.rnn.do_rnn_checkpoint([cell], prefix, period=2)
    for epoch in range(5):
        callback(epoch, outputs, args, {})
    written = sorted(f for f in os.listdir(str(tmp_path)) if f.endswith('.params'))
    assert written == ['cb-0002.params', 'cb-0004.params']
    assert 'arg:g_i2h_r_weight' in mx.nd.load(prefix + '-0002.params')
    # a period below one means every epoch
    every = mx.rnn.do_rnn_checkpoint(cell, str(tmp_path / 'all'), period=0)
    every(0, outputs, args, {})
    assert os.path.exists(str(tmp_path / 'all-0001.params'))
