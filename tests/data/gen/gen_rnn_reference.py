"""Record what MXNet 1.9.1's ``mx.rnn`` builds and computes, for tests/rnn/.

Run with the real MXNet (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_rnn_reference.py

Writes
- tests/data/rnn_reference.json.gz: per graph case (tests/rnn/rnn_cases.py) the output,
  state, argument and internal names and the inferred shapes; begin_state names and
  attributes; unpacked weight names; encode_sentences and BucketSentenceIter results;
  the exception type and message of each misuse case.
- tests/data/rnn_reference.npz: inputs, outputs and gradients of the numeric cases,
  and unpacked weights.
- tests/data/rnn_checkpoint/: a small language model saved with save_rnn_checkpoint.
"""
import contextlib
import gzip
import io
import json
import os
import random
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'rnn'))

import rnn_cases  # noqa: E402  (shared with the tests)


def graph_reference(arrays):
    out = {}
    for name, build in sorted(rnn_cases.graph_cases().items()):
        with mx.name.NameManager():
            cells, outputs, states, shapes = build(mx)
        entry = rnn_cases.describe(mx, outputs, states)
        group = rnn_cases.as_group(mx, outputs, states)
        arg_shapes, out_shapes, _ = group.infer_shape(**shapes)
        entry['input_shapes'] = {k: list(v) for k, v in shapes.items()}
        entry['arg_shapes'] = [list(s) for s in arg_shapes]
        entry['out_shapes'] = [list(s) for s in out_shapes]
        if name in rnn_cases.NUMERIC_CASES:
            numeric(name, group, dict(zip(group.list_arguments(), arg_shapes)), out_shapes,
                    arrays, train='zoneout' not in name)
        out[name] = entry
    return out


def numeric(name, group, shapes, out_shapes, arrays, train):
    """Forward (and backward with fixed head gradients) at fixed argument values."""
    names = group.list_arguments()
    values = rnn_cases.input_values(names, shapes, seed=len(name))
    heads = [np.random.RandomState(i).uniform(-1, 1, size=s).astype(np.float32)
             for i, s in enumerate(out_shapes)]
    args = {k: mx.nd.array(v) for k, v in values.items()}
    grads = {k: mx.nd.zeros(v.shape) for k, v in values.items()}
    exe = group.bind(mx.cpu(), args=args, args_grad=grads)
    exe.forward(is_train=train)
    for k, v in values.items():
        arrays['%s/arg/%s' % (name, k)] = v
    for i, o in enumerate(exe.outputs):
        arrays['%s/out/%d' % (name, i)] = o.asnumpy()
    if train:
        exe.backward([mx.nd.array(h) for h in heads])
        for i, h in enumerate(heads):
            arrays['%s/head/%d' % (name, i)] = h
        for k in names:
            arrays['%s/grad/%s' % (name, k)] = grads[k].asnumpy()


def begin_state_reference():
    out = {}
    with mx.name.NameManager():
        lstm = mx.rnn.LSTMCell(3, prefix='l_')
        first = lstm.begin_state()
        second = lstm.begin_state(func=mx.sym.Variable)
        out['lstm_twice'] = [[s.name, s.list_attr()] for s in first + second]
        lstm.reset()
        out['lstm_after_reset'] = [s.name for s in lstm.begin_state()]
        out['lstm_dtype'] = [[s.name, s.list_attr()]
                             for s in lstm.begin_state(dtype='float64')]
        stack = mx.rnn.SequentialRNNCell()
        stack.add(mx.rnn.LSTMCell(3, prefix='a_'))
        stack.add(mx.rnn.DropoutCell(0.5))
        stack.add(mx.rnn.GRUCell(4, prefix='b_'))
        out['stack'] = [[s.name, s.list_attr()] for s in stack.begin_state()]
        out['stack_state_info'] = [[list(i['shape']), i['__layout__']]
                                   for i in stack.state_info]
        out['stack_state_shape'] = [list(s) for s in stack.state_shape]
        bi = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(2, prefix='x_'),
                                      mx.rnn.LSTMCell(2, prefix='y_'))
        out['bi'] = [s.name for s in bi.begin_state()]
        zone = mx.rnn.ZoneoutCell(mx.rnn.GRUCell(6, prefix='z_'), 0.1, 0.1)
        out['zoneout'] = [[s.name, s.list_attr()] for s in zone.begin_state()]
        res = mx.rnn.ResidualCell(mx.rnn.LSTMCell(2, prefix='r_'))
        out['residual_var'] = [[s.name, s.list_attr()]
                               for s in res.begin_state(mx.sym.Variable)]
    return out


def unpack_reference(arrays):
    out = {}
    builders = {
        'lstm': lambda: mx.rnn.LSTMCell(3, prefix='l_'),
        'gru': lambda: mx.rnn.GRUCell(3, prefix='g_'),
        'rnn': lambda: mx.rnn.RNNCell(3, prefix='r_'),
        'bi': lambda: mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(3, prefix='bl_'),
                                               mx.rnn.GRUCell(3, prefix='br_')),
        'zoneout': lambda: mx.rnn.ZoneoutCell(mx.rnn.GRUCell(3, prefix='zg_'), 0.2, 0.2),
    }
    for name, make in builders.items():
        with mx.name.NameManager():
            cell = make()
            stack = mx.rnn.SequentialRNNCell()
            stack.add(cell)
            stack.add(mx.rnn.RNNCell(3, prefix='top_'))
            outputs, _ = stack.unroll(2, mx.sym.var('data'), merge_outputs=True)
        arg_shapes, _, _ = outputs.infer_shape(data=(2, 2, 4))
        names = outputs.list_arguments()
        values = rnn_cases.input_values(names, dict(zip(names, arg_shapes)), seed=7)
        values['other_weight'] = np.arange(6, dtype=np.float32).reshape(2, 3)
        packed = {k: mx.nd.array(v) for k, v in values.items() if k != 'data'}
        unpacked = stack.unpack_weights(packed)
        repacked = stack.pack_weights(unpacked)
        out[name] = {'packed': sorted(packed), 'unpacked': sorted(unpacked),
                     'repacked': sorted(repacked)}
        for k, v in packed.items():
            arrays['unpack_%s/packed/%s' % (name, k)] = v.asnumpy()
        for k, v in unpacked.items():
            arrays['unpack_%s/unpacked/%s' % (name, k)] = v.asnumpy()
    return out


SENTENCES = [['the', 'cat', 'sat'], ['on', 'the', 'mat'], ['a', 'cat', 'and', 'a', 'dog'],
             [], ['dog']]


def encode_reference():
    cases = []
    for kwargs in [{}, {'invalid_label': 0, 'start_label': 1},
                   {'invalid_label': 2, 'start_label': 0},
                   {'invalid_label': -1, 'start_label': 5, 'invalid_key': '<eos>'},
                   {'unknown_token': '<unk>'},
                   {'vocab': {'the': 0, 'cat': 1, 'sat': 2, 'on': 3, 'mat': 4, 'a': 5,
                              'and': 6, 'dog': 7}},
                   {'vocab': {'\n': 0, 'the': 1, 'cat': 2}, 'unknown_token': '<unk>',
                    'start_label': 10},
                   {'vocab': {'the': 0}}]:
        given = dict(kwargs)
        if 'vocab' in given:
            given['vocab'] = dict(given['vocab'])
        try:
            res, vocab = mx.rnn.encode_sentences(SENTENCES, **given)
            cases.append({'kwargs': kwargs, 'result': res, 'vocab': vocab})
        except AssertionError as err:
            cases.append({'kwargs': kwargs, 'error': str(err)})
    return cases


def bucket_sentences():
    rng = np.random.RandomState(3)
    lengths = list(rng.randint(1, 13, size=60)) + [15, 16, 17]
    return [list(rng.randint(1, 20, size=n).astype(int)) for n in lengths]


def iter_reference():
    sentences = [[int(t) for t in s] for s in bucket_sentences()]
    cases = []
    for kwargs in [{'batch_size': 4, 'buckets': [4, 8, 12], 'invalid_label': 0},
                   {'batch_size': 3, 'buckets': [12, 4, 8, 100], 'invalid_label': -1,
                    'layout': 'TN'},
                   {'batch_size': 5},
                   {'batch_size': 4, 'buckets': [2, 6, 9], 'invalid_label': 0,
                    'data_name': 'words', 'label_name': 'next_words', 'dtype': 'int32'},
                   {'batch_size': 2, 'buckets': [5, 6, 16, 20], 'invalid_label': 21,
                    'dtype': 'float64'}]:
        random.seed(11)
        np.random.seed(11)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            it = mx.rnn.BucketSentenceIter(sentences, **kwargs)
        epochs = []
        for _ in range(2):
            batches = []
            for batch in it:
                batches.append({
                    'bucket_key': batch.bucket_key, 'pad': batch.pad,
                    'data': batch.data[0].asnumpy().tolist(),
                    'label': batch.label[0].asnumpy().tolist(),
                    'dtype': np.dtype(batch.data[0].dtype).name,
                    'provide_data': [[d.name, list(d.shape), d.layout]
                                     for d in batch.provide_data],
                    'provide_label': [[d.name, list(d.shape), d.layout]
                                      for d in batch.provide_label]})
            epochs.append(batches)
            it.reset()
        cases.append({'kwargs': kwargs, 'printed': printed.getvalue(),
                      'buckets': it.buckets, 'default_bucket_key': it.default_bucket_key,
                      'provide_data': [[d.name, list(d.shape), d.layout]
                                       for d in it.provide_data],
                      'provide_label': [[d.name, list(d.shape), d.layout]
                                        for d in it.provide_label],
                      'num_batches': len(it.idx), 'epochs': epochs})
    return {'sentences': sentences, 'cases': cases}


def lm_symbol(stack, vocab, seq_len):
    data = mx.sym.Variable('data')
    label = mx.sym.Variable('softmax_label')
    embed = mx.sym.Embedding(data=data, input_dim=vocab, output_dim=4, name='embed')
    outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
    pred = mx.sym.Reshape(outputs, shape=(-1, 3))
    pred = mx.sym.FullyConnected(data=pred, num_hidden=vocab, name='pred')
    label = mx.sym.Reshape(label, shape=(-1,))
    return mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax')


def lm_stack():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(3, prefix='lstm_l0_'))
    stack.add(mx.rnn.GRUCell(3, prefix='gru_l1_'))
    return stack


def checkpoint_reference(arrays):
    folder = os.path.join(DATA, 'rnn_checkpoint')
    os.makedirs(folder, exist_ok=True)
    with mx.name.NameManager():
        stack = lm_stack()
        net = lm_symbol(stack, vocab=7, seq_len=5)
    arg_shapes, _, _ = net.infer_shape(data=(2, 5), softmax_label=(2, 5))
    names = net.list_arguments()
    values = rnn_cases.input_values(names, dict(zip(names, arg_shapes)), seed=21)
    arg_params = {k: mx.nd.array(v) for k, v in values.items()
                  if k not in ('data', 'softmax_label')}
    prefix = os.path.join(folder, 'lm')
    mx.rnn.save_rnn_checkpoint(stack, prefix, 3, net, arg_params, {})
    for k, v in arg_params.items():
        arrays['checkpoint/packed/%s' % k] = v.asnumpy()
    saved = mx.nd.load(prefix + '-0003.params')
    _, loaded, _ = mx.rnn.load_rnn_checkpoint(stack, prefix, 3)
    return {'saved_keys': sorted(saved), 'loaded_keys': sorted(loaded),
            'arguments': net.list_arguments()}


def error_reference():
    out = {}
    for name, fn in sorted(rnn_cases.error_cases().items()):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                fn(mx)
        except Exception as err:  # pylint: disable=broad-except
            out[name] = [type(err).__name__, str(err)]
        else:
            out[name] = None
    return out


def main():
    arrays = {}
    reference = {
        'graphs': graph_reference(arrays),
        'begin_state': begin_state_reference(),
        'unpack': unpack_reference(arrays),
        'encode': encode_reference(),
        'iter': iter_reference(),
        'checkpoint': checkpoint_reference(arrays),
        'errors': error_reference(),
    }
    with gzip.open(os.path.join(DATA, 'rnn_reference.json.gz'), 'wt') as f:
        json.dump(reference, f, indent=None, sort_keys=True)
    np.savez_compressed(os.path.join(DATA, 'rnn_reference.npz'), **arrays)


if __name__ == '__main__':
    main()
