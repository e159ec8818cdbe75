"""Bucketing LSTM language model: symmod BucketingModule.fit vs PyTorch, positions/s.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/lstm_bucketing.py            # ~1,000 sentences per side, 3 rounds
    python benchmarks/lstm_bucketing.py --quick

Model (both sides): Embedding(10k, 200) -> 2-layer LSTM (200 hidden) -> Linear(200, 10k)
-> softmax cross-entropy, batch 32, buckets 10..60, SGD lr 0.01. The batches are those of
``mx.rnn.BucketSentenceIter`` over the bundled King James Bible (10k-word vocabulary);
PyTorch trains on exactly the same padded batches, bucket by bucket (nn.Embedding +
nn.LSTM + nn.Linear, padding ignored in the loss). Throughput counts every position of
every batch (batch x bucket length). Each side warms up on one batch of every bucket,
then trains one timed pass; the sides alternate and the best round counts.
"""
import argparse
import logging
import os
import sys
import time
import warnings

import numpy as np

from _progress import first_run_notice, say

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
# symmod is imported lazily: importing it sets OMP_WAIT_POLICY, which must not change how
# PyTorch's threads behave in the PyTorch worker process.
mx = None


def _symmod():
    global mx
    if mx is None:
        import symmod
        mx = symmod
    return mx


def _load_example():
    """The example's corpus helpers (same file name as this benchmark, so load by path)."""
    import importlib.util
    path = os.path.join(HERE, '..', 'examples', 'rnn', 'lstm_bucketing.py')
    spec = importlib.util.spec_from_file_location('lstm_bucketing_example', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module



BUCKETS = [10, 20, 30, 40, 50, 60]
HIDDEN = EMBED = 200
LAYERS = 2
BATCH = 32
VOCAB = 10000


def make_batches(n_sentences):
    """Padded (data, label, bucket) batches from BucketSentenceIter, and the vocab size."""
    _symmod()
    example = _load_example()
    args = example.parse_args(['--vocab-size', str(VOCAB)])
    train, _ = example.read_corpus(args)
    train, _ = example.limit_vocab(train, [], VOCAB)       # the 10k most frequent words
    sentences, vocab = mx.rnn.encode_sentences(train, invalid_label=0, start_label=1)
    rng = np.random.RandomState(0)
    sentences = [sentences[i] for i in rng.permutation(len(sentences))[:n_sentences]]
    it = mx.rnn.BucketSentenceIter(sentences, BATCH, buckets=BUCKETS, invalid_label=0)
    batches = [(b.data[0].asnumpy(), b.label[0].asnumpy(), b.bucket_key) for b in it]
    return batches, max(vocab.values()) + 1


class _ListIter:
    """Replays fixed batches, with the bucketing fields BucketingModule needs."""

    def __init__(self, batches, default_bucket_key):
        self.batch_size = BATCH
        self.batches = batches
        self.default_bucket_key = default_bucket_key
        self.provide_data = [mx.io.DataDesc('data', (BATCH, default_bucket_key))]
        self.provide_label = [mx.io.DataDesc('softmax_label', (BATCH, default_bucket_key))]
        self.cursor = 0

    def __iter__(self):
        return self

    def reset(self):
        self.cursor = 0

    def __next__(self):
        return self.next()

    def next(self):
        if self.cursor == len(self.batches):
            raise StopIteration
        data, label, key = self.batches[self.cursor]
        self.cursor += 1
        return mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(label)], pad=0,
                               bucket_key=key,
                               provide_data=[mx.io.DataDesc('data', data.shape)],
                               provide_label=[mx.io.DataDesc('softmax_label', label.shape)])


def symmod_pass(batches, vocab_size, warm):
    _symmod()
    stack = mx.rnn.SequentialRNNCell()
    for i in range(LAYERS):
        stack.add(mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix='lstm_l%d_' % i))

    def sym_gen(seq_len):
        data = mx.sym.Variable('data')
        label = mx.sym.Variable('softmax_label')
        embed = mx.sym.Embedding(data=data, input_dim=vocab_size, output_dim=EMBED, name='embed')
        stack.reset()
        outputs = stack.unroll(seq_len, inputs=embed, merge_outputs=True)[0]
        pred = mx.sym.Reshape(outputs, shape=(-1, HIDDEN))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=vocab_size, name='pred')
        label = mx.sym.Reshape(label, shape=(-1,))
        return mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax'), ('data',), \
            ('softmax_label',)

    model = mx.mod.BucketingModule(sym_gen, default_bucket_key=max(BUCKETS))
    kwargs = dict(eval_metric=mx.metric.Perplexity(0), optimizer='sgd',
                  optimizer_params={'learning_rate': 0.01},
                  initializer=mx.init.Xavier(factor_type='in', magnitude=2.34))
    model.fit(_ListIter(warm, max(BUCKETS)), num_epoch=1, **kwargs)
    start = time.perf_counter()
    model.fit(_ListIter(batches, max(BUCKETS)), begin_epoch=1, num_epoch=2, **kwargs)
    return time.perf_counter() - start


def torch_pass(batches, vocab_size, warm):
    import torch
    import torch.nn as nn
    torch.set_num_threads(2)

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, EMBED)
            self.lstm = nn.LSTM(EMBED, HIDDEN, LAYERS, batch_first=True)
            self.pred = nn.Linear(HIDDEN, vocab_size)

        def forward(self, x):
            out, _ = self.lstm(self.embed(x))
            return self.pred(out.reshape(-1, HIDDEN))

    model = LM()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss(ignore_index=0)

    def run(items):
        for data, label, _ in items:
            x = torch.from_numpy(data.astype(np.int64))
            y = torch.from_numpy(label.astype(np.int64)).reshape(-1)
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()

    run(warm)
    start = time.perf_counter()
    run(batches)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true')
    parser.add_argument('--sentences', type=int, default=1000)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--worker', nargs=2, metavar=('FRAMEWORK', 'BATCHES'),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    logging.getLogger().setLevel(logging.ERROR)
    warnings.simplefilter('ignore')
    if args.worker:
        saved = np.load(args.worker[1])
        keys = saved['keys']
        batches = [(saved['d%d' % i], saved['l%d' % i], int(k)) for i, k in enumerate(keys)]
        warm = [batches[int(i)] for i in saved['warm']]
        run = symmod_pass if args.worker[0] == 'symmod' else torch_pass
        print(run(batches, int(saved['vocab']), warm))
        return
    import subprocess
    import tempfile
    n = 300 if args.quick else args.sentences
    batches, vocab_size = make_batches(n)
    warm = []
    for key in BUCKETS:
        found = [i for i, b in enumerate(batches) if b[2] == key]
        if found:
            warm.append(found[0])
    positions = sum(d.size for d, _, _ in batches)
    path = os.path.join(tempfile.mkdtemp(), 'batches.npz')
    arrays = {'keys': np.array([b[2] for b in batches]), 'warm': np.array(warm),
              'vocab': np.array(vocab_size)}
    for i, (data, label, _) in enumerate(batches):
        arrays['d%d' % i], arrays['l%d' % i] = data, label
    np.savez(path, **arrays)
    env = {k: v for k, v in os.environ.items() if k not in ('OMP_WAIT_POLICY', 'GOMP_SPINCOUNT')}

    def timed(framework):
        say('%s: %d batches (%d positions) of the bucketing LSTM ...', framework,
            len(batches), positions)
        out = subprocess.run([sys.executable, os.path.abspath(__file__), '--worker', framework,
                              path], env=env, check=True, capture_output=True, text=True).stdout
        seconds = float(out.strip().splitlines()[-1])
        say('%s: %.2f s (%.0f positions/s)', framework, seconds, positions / seconds)
        return seconds

    first_run_notice()
    best_s = best_t = float('inf')
    for round_ in range(1 if args.quick else args.rounds):
        say('round %d of %d', round_ + 1, 1 if args.quick else args.rounds)
        best_s = min(best_s, timed('symmod'))
        best_t = min(best_t, timed('torch'))
    import torch
    print('torch %s, %d batches, %d positions, vocabulary %d, best of %d rounds'
          % (torch.__version__, len(batches), positions, vocab_size,
             1 if args.quick else args.rounds))
    print('| | positions/s |')
    print('|---|---|')
    print('| symmod BucketingModule.fit | %.0f |' % (positions / best_s))
    print('| PyTorch (nn.LSTM) | %.0f |' % (positions / best_t))
    print('| ratio symmod / PyTorch | %.2f |' % (best_t / best_s))


if __name__ == '__main__':
    main()
