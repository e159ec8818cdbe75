"""Train a bucketing LSTM language model (MXNet's example/rnn/bucketing/lstm_bucketing.py).

The default corpus is the public-domain King James Bible shipped in examples/rnn/data/
(31,102 verses, one per line): lower-cased, punctuation split into tokens, the last 10% of
verses held out for validation. ``--train-file`` / ``--val-file`` take any corpus with one
sentence per line and space-separated tokens (Penn Treebank, MXNet's Sherlock Holmes files).

    python examples/rnn/lstm_bucketing.py --num-epochs 3

Validation perplexity is compared with the unigram baseline (the perplexity of predicting
every word by its training-set frequency), which the script prints first.
"""
import argparse
import collections
import gzip
import logging
import math
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
import symmod as mx  # noqa: E402  (the example runs from a checkout too)
from symmod.progress import FirstBatchNotice, kernels_cached  # noqa: E402

KJV = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'kjv-verses.txt.gz')
BUCKETS = [10, 20, 30, 40, 50, 60]
UNKNOWN = '<unk>'


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Train a bucketing LSTM language model',
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--num-layers', type=int, default=2, help='number of stacked LSTM layers')
    parser.add_argument('--num-hidden', type=int, default=200, help='hidden layer size')
    parser.add_argument('--num-embed', type=int, default=200, help='embedding layer size')
    parser.add_argument('--gpus', type=str,
                        help='list of gpus to run, e.g. 0 or 0,2,5; empty means cpu '
                             '(symmod binds graphs on CPU contexts only)')
    parser.add_argument('--num-cpus', type=int, default=1, help='data parallel over N CPUs')
    parser.add_argument('--kv-store', type=str, default='device', help='key-value store type')
    parser.add_argument('--num-epochs', type=int, default=3, help='max num of epochs')
    parser.add_argument('--lr', type=float, default=0.01, help='initial learning rate')
    parser.add_argument('--optimizer', type=str, default='adam', help='the optimizer type')
    parser.add_argument('--mom', type=float, default=0.0, help='momentum for sgd')
    parser.add_argument('--wd', type=float, default=0.00001, help='weight decay for sgd')
    parser.add_argument('--batch-size', type=int, default=32, help='the batch size')
    parser.add_argument('--disp-batches', type=int, default=50,
                        help='show progress for every n batches')
    parser.add_argument('--train-file', help='training corpus, one sentence per line '
                                             '(default: the KJV, all but the last 10%%)')
    parser.add_argument('--val-file', help='validation corpus (default: the KJV\'s last 10%%)')
    parser.add_argument('--vocab-size', type=int, default=10000,
                        help='keep this many most frequent training words; rarer ones '
                             'become <unk> (0: keep all)')
    parser.add_argument('--max-sentences', type=int, default=0,
                        help='use only this many training sentences (0: all)')
    parser.add_argument('--seed', type=int, default=1)
    return parser.parse_args(argv)


def kjv_tokens(line):
    """Lower-case and split punctuation into tokens, as Penn-Treebank-style corpora do."""
    return re.findall(r"[a-z]+(?:'[a-z]+)?|[^\sa-z]", line.lower())


def read_corpus(args):
    """(train, val) lists of token lists."""
    if args.train_file:
        def read(path):
            with open(path, encoding='utf-8') as f:
                return [line.split() for line in f if line.strip()]
        train = read(args.train_file)
        val = read(args.val_file) if args.val_file else train[-len(train) // 10:]
        if not args.val_file:
            train = train[:-len(train) // 10]
        return train, val
    with gzip.open(KJV, 'rt', encoding='utf-8') as f:
        verses = [kjv_tokens(line) for line in f if line.strip()]
    split = len(verses) - len(verses) // 10
    return verses[:split], verses[split:]


def limit_vocab(train, val, size):
    """Replace words outside the ``size`` most frequent training words (all of them when
    ``size`` is 0) by <unk>, in both corpora."""
    counts = collections.Counter(w for s in train for w in s)
    keep = {w for w, _ in counts.most_common(size - 1 if size > 0 else None)}
    fix = lambda sents: [[w if w in keep else UNKNOWN for w in s] for s in sents]
    return fix(train), fix(val)


def unigram_perplexity(train, val):
    """Perplexity on ``val`` of the training unigram distribution (the baseline)."""
    counts = collections.Counter(w for s in train for w in s)
    total = sum(counts.values())
    floor = 1.0 / total      # unseen words (none after limit_vocab)
    logp = [math.log(counts[w] / total if counts[w] else floor) for s in val for w in s[1:]]
    return math.exp(-sum(logp) / len(logp))


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format='%(asctime)-15s %(message)s')
    # every source of randomness: initialization (mx.random), each bucket's sentence order
    # (numpy) and the batch order (Python's random, as MXNet's BucketSentenceIter uses)
    mx.random.seed(args.seed)
    import numpy as np
    np.random.seed(args.seed)
    random.seed(args.seed)
    train_tokens, val_tokens = read_corpus(args)
    if args.max_sentences:
        train_tokens = train_tokens[:args.max_sentences]
    train_tokens, val_tokens = limit_vocab(train_tokens, val_tokens, args.vocab_size)
    logging.info('unigram baseline: validation perplexity %.1f',
                 unigram_perplexity(train_tokens, val_tokens))

    start_label, invalid_label = 1, 0
    train_sent, vocab = mx.rnn.encode_sentences(train_tokens, invalid_label=invalid_label,
                                                start_label=start_label)
    vocab.setdefault(UNKNOWN, max(vocab.values()) + 1)   # validation-only words
    val_sent, _ = mx.rnn.encode_sentences(val_tokens, vocab=vocab, invalid_label=invalid_label,
                                          start_label=start_label)
    logging.info('%d training and %d validation sentences, vocabulary %d',
                 len(train_sent), len(val_sent), len(vocab))
    data_train = mx.rnn.BucketSentenceIter(train_sent, args.batch_size, buckets=BUCKETS,
                                           invalid_label=invalid_label)
    data_val = mx.rnn.BucketSentenceIter(val_sent, args.batch_size, buckets=BUCKETS,
                                         invalid_label=invalid_label)

    stack = mx.rnn.SequentialRNNCell()
    for i in range(args.num_layers):
        stack.add(mx.rnn.LSTMCell(num_hidden=args.num_hidden, prefix='lstm_l%d_' % i))
    vocab_size = max(vocab.values()) + 1

    def sym_gen(seq_len):
        data = mx.sym.Variable('data')
        label = mx.sym.Variable('softmax_label')
        embed = mx.sym.Embedding(data=data, input_dim=vocab_size, output_dim=args.num_embed,
                                 name='embed')
        stack.reset()
        outputs = stack.unroll(seq_len, inputs=embed, merge_outputs=True)[0]
        pred = mx.sym.Reshape(outputs, shape=(-1, args.num_hidden))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=vocab_size, name='pred')
        label = mx.sym.Reshape(label, shape=(-1,))
        pred = mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax')
        return pred, ('data',), ('softmax_label',)

    if args.gpus:
        contexts = [mx.gpu(int(i)) for i in args.gpus.split(',')]
    else:
        contexts = [mx.cpu(i) for i in range(args.num_cpus)]
    model = mx.mod.BucketingModule(sym_gen=sym_gen,
                                   default_bucket_key=data_train.default_bucket_key,
                                   context=contexts)
    optimizer_params = {'learning_rate': args.lr, 'wd': args.wd}
    if args.optimizer in ('sgd', 'nag'):
        optimizer_params['momentum'] = args.mom
    if not kernels_cached():
        logging.info('compiling kernels (first run only) ...')
    model.fit(train_data=data_train,
              eval_data=data_val,
              eval_metric=mx.metric.Perplexity(invalid_label),
              kvstore=args.kv_store,
              optimizer=args.optimizer,
              optimizer_params=optimizer_params,
              initializer=mx.init.Xavier(factor_type='in', magnitude=2.34),
              num_epoch=args.num_epochs,
              batch_end_callback=[mx.callback.Speedometer(args.batch_size, args.disp_batches,
                                                          auto_reset=False),
                                  FirstBatchNotice()])
    return dict(model.score(data_val, mx.metric.Perplexity(invalid_label)))


if __name__ == '__main__':
    main()
