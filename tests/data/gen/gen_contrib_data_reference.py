"""Record what MXNet 1.9.1's gluon.contrib.data and contrib.text make of a small
WikiText-style corpus (tests/gluon/test_contrib_data.py).

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_contrib_data_reference.py

Writes tests/data/gluon/wikitext/wiki.{train,valid,test}.tokens (made up here; the SHA-1
checks of WikiText2 are pointed at them) and tests/data/gluon/wikitext/reference.json:
per segment the vocabulary, the frequencies, and the data / label arrays for
seq_len 5 (the validation segment indexed with the training vocabulary), plus
IntervalSampler orders and count_tokens_from_str / Vocabulary results.
"""
import collections
import hashlib
import json
import os

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'gluon', 'wikitext')

CORPUS = {
    'wiki.train.tokens': ' \n = Valkyria Chronicles III = \n \n Senjo no Valkyria 3 : '
                         'Unrecorded Chronicles is a game . \n The game began development '
                         'in 2010 , carrying over a large portion . \n \n = = Gameplay = = \n'
                         ' As with previous games , the game is a tactical game . \n',
    'wiki.valid.tokens': ' \n = Homarus gammarus = \n \n Homarus gammarus is a species of '
                         'clawed lobster . \n It is a game ? no , a lobster . \n',
    'wiki.test.tokens': ' \n = Robert Boulter = \n \n Robert Boulter is an English actor . \n',
}
SEGMENTS = {'train': 'wiki.train.tokens', 'validation': 'wiki.valid.tokens',
            'test': 'wiki.test.tokens'}


def main():
    os.makedirs(OUT, exist_ok=True)
    hashes = {}
    for name, content in CORPUS.items():
        path = os.path.join(OUT, name)
        with open(path, 'w', encoding='utf8') as f:
            f.write(content)
        hashes[name] = hashlib.sha1(content.encode('utf8')).hexdigest()
    WikiText2 = mx.gluon.contrib.data.text.WikiText2
    record = {'segments': {}}
    train_vocab = None
    for segment, name in SEGMENTS.items():
        # point the SHA-1 checks at the files written above
        files = {s: (n, hashes[n]) for s, n in SEGMENTS.items()}

        class Local(WikiText2):
            def __init__(self, **kwargs):
                self._archive_file = ('wikitext-2-v1.zip', 'none')
                self._data_file = files
                self._segment = kwargs['segment']
                self._seq_len = kwargs['seq_len']
                super(WikiText2, self).__init__(OUT, 'wikitext-2', kwargs.get('vocab'))

        vocab = train_vocab if segment == 'validation' else None
        data = Local(segment=segment, seq_len=5, vocab=vocab)
        if segment == 'train':
            train_vocab = data.vocabulary
        record['segments'][segment] = {
            'idx_to_token': data.vocabulary.idx_to_token,
            'frequencies': dict(data.frequencies),
            'data': data._data.asnumpy().astype(int).tolist(),
            'label': data._label.asnumpy().astype(int).tolist(),
            'len': len(data)}
    sampler = mx.gluon.contrib.data.IntervalSampler
    record['sampler'] = {'10_3': list(sampler(10, 3)),
                         '10_3_norollover': list(sampler(10, 3, rollover=False)),
                         '7_7': list(sampler(7, 7))}
    text = mx.contrib.text
    counter = text.utils.count_tokens_from_str(' Life is great ! \n life is good . \n',
                                               to_lower=True)
    record['counter'] = dict(counter)
    vocab = text.vocab.Vocabulary(counter, most_freq_count=3, min_freq=1,
                                  reserved_tokens=['<pad>'])
    record['vocab'] = {'idx_to_token': vocab.idx_to_token,
                       'indices': vocab.to_indices(['life', 'good', 'zzz']),
                       'tokens': vocab.to_tokens([0, 2])}
    counter2 = collections.Counter(['a', 'b', 'b', 'c', 'c', 'c'])
    record['vocab_min_freq'] = text.vocab.Vocabulary(counter2, min_freq=2).idx_to_token
    with open(os.path.join(OUT, 'reference.json'), 'w') as f:
        json.dump(record, f, sort_keys=True)
    print('wrote', sorted(os.listdir(OUT)))


if __name__ == '__main__':
    main()
