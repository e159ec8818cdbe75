"""Text data for language models: ``encode_sentences`` (tokens to integer ids) and
``BucketSentenceIter`` (batches of equal-length, padded sentences for bucketing)."""
import bisect
import random

import numpy as np

from ..io import DataIter, DataBatch, DataDesc
from .. import ndarray

__all__ = ['encode_sentences', 'BucketSentenceIter']


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key='\n',
                     start_label=0, unknown_token=None):
    """Turn tokenized sentences into lists of integer ids, growing a vocabulary.

    A token not yet in the vocabulary gets the next free id, counting from
    ``start_label`` and skipping ``invalid_label``.

    Parameters
    ----------
    sentences : list of list of str
        The sentences, each a list of tokens.
    vocab : dict of str to int, optional
        Vocabulary to use. If None a new one is built, starting as
        ``{invalid_key: invalid_label}``. If given, a token missing from it is an
        error unless ``unknown_token`` is set.
    invalid_label : int, default -1
        Id reserved for padding / end of sentence; never given to a token.
    invalid_key : str, default '\\n'
        Token that maps to ``invalid_label`` in a new vocabulary.
    start_label : int, default 0
        First id given to a new token.
    unknown_token : str, optional
        If set, a token missing from the vocabulary is recorded under this name.
        As in MXNet 1.9.1, every such token then gives ``unknown_token`` a fresh
        id (the counter starts at ``start_label`` even for a given vocabulary),
        so this is only reliable with a vocabulary that leaves those ids free.

    Returns
    -------
    result : list of list of int
        The encoded sentences.
    vocab : dict of str to int
        The vocabulary (the given dict, updated in place, or the new one).

    Examples
    --------
    >>> mx.rnn.encode_sentences([['a', 'b'], ['b', 'c']], invalid_label=0, start_label=1)
    ([[1, 2], [2, 3]], {'\\n': 0, 'a': 1, 'b': 2, 'c': 3})
    """
    next_id = start_label
    if vocab is None:
        vocab = {invalid_key: invalid_label}
        new_vocab = True
    else:
        new_vocab = False
    result = []
    for sentence in sentences:
        coded = []
        for word in sentence:
            if word not in vocab:
                assert (new_vocab or unknown_token), "Unknown token %s" % word
                if next_id == invalid_label:
                    next_id += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = next_id
                next_id += 1
            coded.append(vocab[word])
        result.append(coded)
    return result, vocab


class BucketSentenceIter(DataIter):
    """Batches of encoded sentences grouped by length, for a language model.

    Each sentence goes to the smallest bucket at least as long as it and is
    padded with ``invalid_label`` to that length; sentences longer than the
    largest bucket are discarded (the count is printed). A batch holds
    ``batch_size`` sentences of one bucket (a bucket's leftover sentences that do
    not fill a batch are not used); its label is the data shifted left by one
    step, ending in ``invalid_label``, so each position predicts the next token.
    ``batch.bucket_key`` is the bucket length, and ``batch.provide_data`` /
    ``provide_label`` give that batch's shapes. ``reset()`` shuffles the batch
    order (Python's ``random``) and the sentences in each bucket (numpy's global
    generator), as MXNet does; with ``seed``, the order of each epoch is instead a
    function of ``(seed, epoch)`` alone, so a resumed run can see the same data order
    as one that never stopped (see :meth:`set_epoch`).

    Parameters
    ----------
    sentences : list of list of int
        Encoded sentences (see :func:`encode_sentences`).
    batch_size : int
        Sentences per batch.
    buckets : list of int, optional
        Bucket lengths (sorted in place). If None or empty, every sentence
        length with at least ``batch_size`` sentences becomes a bucket.
        Buckets no sentence falls into are dropped.
    invalid_label : int, default -1
        Padding id, also the label after a sentence's last token.
    data_name : str, default 'data'
        Name of the data input.
    label_name : str, default 'softmax_label'
        Name of the label input.
    dtype : str, default 'float32'
        Element type of data and label.
    layout : str, default 'NT'
        'NT' for (batch_size, length) batches, 'TN' for (length, batch_size).
    seed : int, optional
        A symmod addition: shuffle with generators derived from ``(seed, epoch)``
        instead of the global ones.

    Attributes
    ----------
    default_bucket_key : int
        The largest bucket; ``provide_data`` / ``provide_label`` describe it.
    epoch : int
        The epoch whose order the iterator holds (0 after construction; each
        ``reset()`` adds one).

    Resuming a shuffled run exactly: create the iterator with the same ``seed`` and
    call ``it.set_epoch(begin_epoch)`` before ``mod.fit(it, begin_epoch=begin_epoch,
    ...)`` (``fit`` resets the iterator after each epoch); the seed and the epoch are
    all the state there is, so a checkpoint needs to carry nothing else.

    Examples
    --------
    >>> sents, vocab = mx.rnn.encode_sentences(tokens, invalid_label=0, start_label=1)
    >>> it = mx.rnn.BucketSentenceIter(sents, 32, buckets=[10, 20, 30], invalid_label=0)
    >>> batch = next(it)
    >>> batch.bucket_key, batch.data[0].shape
    (20, (32, 20))
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1,
                 data_name='data', label_name='softmax_label', dtype='float32',
                 layout='NT', seed=None):
        super(BucketSentenceIter, self).__init__()
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [length for length, count in enumerate(counts) if count >= batch_size]
        buckets.sort()

        ndiscard = 0
        self.data = [[] for _ in buckets]
        used = [False] * len(buckets)
        for sent in sentences:
            buck = bisect.bisect_left(buckets, len(sent))
            if buck == len(buckets):
                ndiscard += 1
                continue
            used[buck] = True
            buff = np.full((buckets[buck],), invalid_label, dtype=dtype)
            buff[:len(sent)] = sent
            self.data[buck].append(buff)
        buckets = [length for length, is_used in zip(buckets, used) if is_used]
        self.data = [np.asarray(rows, dtype=dtype) for rows in self.data if rows]

        print("WARNING: discarded %d sentences longer than the largest bucket." % ndiscard)

        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata = []
        self.ndlabel = []
        self.major_axis = layout.find('N')
        self.layout = layout
        self.default_bucket_key = max(buckets)

        if self.major_axis == 0:
            shape = (batch_size, self.default_bucket_key)
        elif self.major_axis == 1:
            shape = (self.default_bucket_key, batch_size)
        else:
            raise ValueError("Invalid layout %s: Must by NT (batch major) or TN (time major)"
                             % layout)
        self.provide_data = [DataDesc(name=self.data_name, shape=shape, layout=self.layout)]
        self.provide_label = [DataDesc(name=self.label_name, shape=shape, layout=self.layout)]

        # one entry per full batch: (bucket index, first row)
        self.idx = []
        for i, rows in enumerate(self.data):
            self.idx.extend([(i, j) for j in range(0, len(rows) - batch_size + 1, batch_size)])
        self.curr_idx = 0
        self.seed = seed
        self.epoch = -1
        if seed is not None:
            self._original = ([row.copy() for row in self.data], list(self.idx))

        self.reset()

    def set_epoch(self, epoch):
        """Hold the order of ``epoch`` (needs ``seed``): what ``epoch`` resets give."""
        if self.seed is None:
            raise ValueError('set_epoch needs a BucketSentenceIter created with a seed')
        self.epoch = int(epoch) - 1
        self.reset()

    def reset(self):
        """Start a new epoch: shuffle the batch order and each bucket's sentences."""
        self.curr_idx = 0
        self.epoch += 1
        if self.seed is None:
            random.shuffle(self.idx)
            for rows in self.data:
                np.random.shuffle(rows)
        else:
            rng = np.random.default_rng([int(self.seed), self.epoch])
            rows_of, idx = self._original
            self.idx = [idx[k] for k in rng.permutation(len(idx))]
            self.data = [rows[rng.permutation(len(rows))] for rows in rows_of]

        self.nddata = []
        self.ndlabel = []
        for rows in self.data:
            label = np.empty_like(rows)
            label[:, :-1] = rows[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(rows, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self):
        """The next batch (a :class:`DataBatch` with ``bucket_key`` set).

        Raises
        ------
        StopIteration
            When every batch of the epoch has been returned.
        """
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1

        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data = data.T
            label = label.T
        return DataBatch([data], [label], pad=0,
                         bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape,
                                                layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape,
                                                 layout=self.layout)])
