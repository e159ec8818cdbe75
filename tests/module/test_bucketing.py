"""BucketingModule: buckets share parameters, gradients, optimizer and memory; keys
switch on every batch; checkpoints use MXNet's layout."""
import gc
import logging
import os
import tracemalloc

import numpy as np
import pytest

import symmod as mx

BUCKETS = [10, 20, 30, 40, 50, 60]


def _lstm_sym_gen(vocab=40, hidden=16, embed=8, layers=1):
    stack = mx.rnn.SequentialRNNCell()
    for i in range(layers):
        stack.add(mx.rnn.LSTMCell(num_hidden=hidden, prefix='lstm_l%d_' % i))

    def sym_gen(seq_len):
        data = mx.sym.Variable('data')
        label = mx.sym.Variable('softmax_label')
        emb = mx.sym.Embedding(data=data, input_dim=vocab, output_dim=embed, name='embed')
        stack.reset()
        outputs = stack.unroll(seq_len, inputs=emb, merge_outputs=True)[0]
        pred = mx.sym.Reshape(outputs, shape=(-1, hidden))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=vocab, name='pred')
        label = mx.sym.Reshape(label, shape=(-1,))
        return mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax'), ('data',), \
            ('softmax_label',)
    return sym_gen


def _sentences(n, vocab=40, seed=0):
    rng = np.random.RandomState(seed)
    # a learnable language: each word is followed by (word + 1) mod vocab most of the time
    sentences = []
    for _ in range(n):
        length = rng.randint(3, 58)
        start = rng.randint(1, vocab)
        sentences.append([1 + (start + k) % (vocab - 1) for k in range(length)])
    return sentences


def _batch(key, batch=4, vocab=40, seed=0):
    rng = np.random.RandomState(seed)
    data = rng.randint(1, vocab, size=(batch, key)).astype(np.float32)
    label = np.roll(data, -1, axis=1)
    return mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(label)], pad=0, bucket_key=key,
                           provide_data=[mx.io.DataDesc('data', (batch, key))],
                           provide_label=[mx.io.DataDesc('softmax_label', (batch, key))])


def _bound(sym_gen, default=60, batch=4, grad_req='write'):
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=default)
    mod.bind(data_shapes=[('data', (batch, default))],
             label_shapes=[('softmax_label', (batch, default))], grad_req=grad_req)
    mx.random.seed(0)
    mod.init_params(mx.init.Xavier())
    return mod


def test_fit_learns_and_buckets_share_everything():
    it = mx.rnn.BucketSentenceIter(_sentences(200), 8, buckets=BUCKETS, invalid_label=0)
    mod = mx.mod.BucketingModule(_lstm_sym_gen(), default_bucket_key=it.default_bucket_key)
    metric = mx.metric.Perplexity(0)
    mx.random.seed(1)
    mod.fit(it, eval_metric=metric, optimizer='adam', optimizer_params={'learning_rate': 0.02},
            initializer=mx.init.Xavier(), num_epoch=4)
    perplexity = dict(mod.score(it, mx.metric.Perplexity(0)))['perplexity']
    assert perplexity < 8      # 39 words: a unigram model is near 39
    assert sorted(mod._buckets) == sorted(set(k for k in BUCKETS if k <= 60)) or \
        len(mod._buckets) >= 4
    default = mod._buckets[60]._exec_group
    for key, module in mod._buckets.items():
        group = module._exec_group
        assert module._updater is mod._buckets[60]._updater
        for mine, shared in zip(group.param_arrays, default.param_arrays):
            assert mine[0] is shared[0]
        for mine, shared in zip(group.grad_arrays, default.grad_arrays):
            assert mine[0] is shared[0]
        assert group.execs[0]._pool is default.execs[0]._pool


def test_grad_req_add_accumulates_across_bucket_switches():
    sym_gen = _lstm_sym_gen()
    singles = []
    for key in (20, 10):
        mod = _bound(sym_gen)
        mod.forward_backward(_batch(key, seed=key))
        singles.append({n: g[0].asnumpy().copy() for n, g in
                        zip(mod._curr_module._exec_group.param_names,
                            mod._curr_module._exec_group.grad_arrays)})
    mod = _bound(sym_gen, grad_req='add')
    mod.forward_backward(_batch(20, seed=20))
    mod.forward_backward(_batch(10, seed=10))
    grads = {n: g[0].asnumpy() for n, g in zip(mod._curr_module._exec_group.param_names,
                                                mod._curr_module._exec_group.grad_arrays)}
    for name in grads:
        np.testing.assert_allclose(grads[name], singles[0][name] + singles[1][name],
                                   rtol=1e-4, atol=1e-6, err_msg=name)
    # 'write' replaces: the last bucket's gradient alone
    mod = _bound(sym_gen, grad_req='write')
    mod.forward_backward(_batch(20, seed=20))
    mod.forward_backward(_batch(10, seed=10))
    for name, value in zip(mod._curr_module._exec_group.param_names,
                           mod._curr_module._exec_group.grad_arrays):
        np.testing.assert_allclose(value[0].asnumpy(), singles[1][name], rtol=1e-5, atol=1e-7)


def _run_buckets(keys):
    """Bind the default (60) bucket of a small LSTM and run each key once."""
    mod = _bound(_lstm_sym_gen(vocab=100, hidden=64, embed=32), batch=16)
    for key in keys:
        mod.forward_backward(_batch(key, batch=16, vocab=100))
    return mod


def _traced_bytes(keys):
    """Bytes of array memory (numpy's tracemalloc domain: parameters, gradients, data and
    intermediate buffers, scratch space) alive after ``_run_buckets(keys)``. Python objects
    (each bucket's graph and step list) are not counted."""
    gc.collect()
    tracemalloc.start()     # slows every Python allocation ~5x: trace only what is measured
    mod = _run_buckets(keys)
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.DomainFilter(True, np.lib.tracemalloc_domain)])
    tracemalloc.stop()
    return sum(stat.size for stat in snapshot.statistics('filename')), mod


@pytest.mark.slow
def test_memory_does_not_grow_with_the_number_of_buckets():
    _run_buckets(BUCKETS)       # warm up: compile kernels, fill per-thread scratch space
    alone, _ = _traced_bytes([60])
    six, mod = _traced_bytes(BUCKETS)
    assert len(mod._buckets) == 6
    # unshared buckets would hold (10 + 20 + ... + 60) / 60 = 3.5x the default's buffers
    assert six <= 1.2 * alone, (six, alone)


def test_larger_bucket_than_default_warns_like_mxnet(caplog):
    mod = _bound(_lstm_sym_gen(), default=10)
    with caplog.at_level(logging.WARNING):
        mod.forward_backward(_batch(20))
    assert 'bucketing: data "data" has a shape (4, 20), which is larger than already ' \
        'allocated shape (4, 10)' in caplog.text
    assert 'default_bucket_key to be the bucket taking the largest input' in caplog.text


def test_checkpoint_round_trip(tmp_path):
    sym_gen = _lstm_sym_gen()
    mod = _bound(sym_gen)
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1,
                                                          'momentum': 0.9})
    for key in (60, 30):
        mod.forward_backward(_batch(key, seed=key))
        mod.update()
    prefix = str(tmp_path / 'lm')
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    assert sorted(os.listdir(tmp_path)) == ['lm-0001.params', 'lm-0001.states',
                                            'lm-30-symbol.json', 'lm-60-symbol.json',
                                            'lm.buckets']
    assert sorted(mx.nd.load(prefix + '.buckets')[0].asnumpy().tolist()) == [30, 60]
    loaded = mx.mod.BucketingModule.load(prefix, 1, sym_gen=sym_gen, default_bucket_key=60,
                                         load_optimizer_states=True)
    loaded.bind(data_shapes=[('data', (4, 60))], label_shapes=[('softmax_label', (4, 60))])
    loaded.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1,
                                                             'momentum': 0.9})
    batch = _batch(30, seed=7)
    for module in (mod, loaded):
        module.forward(batch, is_train=False)
    np.testing.assert_allclose(loaded.get_outputs()[0].asnumpy(),
                               mod.get_outputs()[0].asnumpy(), rtol=1e-6)
    # the momentum came back too: one more identical step gives identical weights
    for module in (mod, loaded):
        module.forward_backward(_batch(60, seed=9))
        module.update()
    for name, value in mod.get_params()[0].items():
        np.testing.assert_array_equal(loaded.get_params()[0][name].asnumpy(), value.asnumpy())


def test_state_machine_and_names():
    sym_gen = _lstm_sym_gen()
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=60)
    assert mod.data_names == ('data',) and mod.output_names == ['softmax_output']
    with pytest.raises(AssertionError, match='call bind before'):
        mod.switch_bucket(10, None)
    with pytest.raises(AssertionError):
        mx.mod.BucketingModule(sym_gen)
    mod.bind(data_shapes=[('data', (4, 60))], label_shapes=[('softmax_label', (4, 60))])
    with pytest.raises(AssertionError, match='not supported'):
        mod.bind(data_shapes=[('data', (4, 60))], force_rebind=True,
                 shared_module=mx.mod.Module(sym_gen(60)[0]))
