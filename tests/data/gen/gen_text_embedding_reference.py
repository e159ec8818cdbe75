"""Record what MXNet 1.9.1's mx.contrib.text.embedding makes of small embedding files
(tests/contrib/test_text_embedding.py).

    /work/mxnet-venv/bin/python tests/data/gen/gen_text_embedding_reference.py

Writes tests/data/text_embedding/{one,two}.txt (made up here) and reference.json: per
case the tokens, their indices and idx_to_vec, plus looked-up and updated vectors.
"""
import collections
import json
import os
import warnings

import mxnet as mx
from mxnet.contrib import text

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'text_embedding')

FILES = {
    # a header line, a duplicate token (first kept), the unknown token's own vector
    'one.txt': 'header\t3\na\t0.1\t0.2\t0.3\nB\t0.4\t0.5\t0.6\n<unk>\t9\t9\t9\n'
               'a\t7\t7\t7\nc\t1.5\t-2\t0.25\n',
    'two.txt': 'a 1 2\nd 3 4\nc -1 -2\n',
}


def state(embed):
    return {'idx_to_token': embed.idx_to_token, 'token_to_idx': embed.token_to_idx,
            'unknown_token': embed.unknown_token, 'reserved_tokens': embed.reserved_tokens,
            'vec_len': embed.vec_len, 'idx_to_vec': embed.idx_to_vec.asnumpy().tolist()}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, content in FILES.items():
        with open(os.path.join(OUT, name), 'w') as f:
            f.write(content)
    one, two = (os.path.join(OUT, n) for n in ('one.txt', 'two.txt'))
    ref = {}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        e1 = text.embedding.CustomEmbedding(one, '\t', init_unknown_vec=mx.nd.ones)
        e1b = text.embedding.CustomEmbedding(one, '\t', init_unknown_vec=mx.nd.ones,
                                             unknown_token='<none>')
        e2 = text.embedding.CustomEmbedding(two)
    ref['one'] = state(e1)
    ref['one_other_unknown'] = state(e1b)
    ref['two'] = state(e2)
    ref['lookup'] = {
        'single': e1.get_vecs_by_tokens('c').asnumpy().tolist(),
        'list': e1.get_vecs_by_tokens(['b', 'B', 'zz']).asnumpy().tolist(),
        'lower': e1.get_vecs_by_tokens(['b', 'B', 'A'], lower_case_backup=True)
                   .asnumpy().tolist(),
    }
    counter = collections.Counter(['c', 'c', 'a', 'd', 'zz', 'a', 'c'])
    vocab = text.vocab.Vocabulary(counter, reserved_tokens=['<pad>'])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        e1v = text.embedding.CustomEmbedding(one, '\t', vocabulary=vocab)
    ref['one_with_vocabulary'] = state(e1v)
    composite = text.embedding.CompositeEmbedding(vocab, [e1, e2])
    ref['composite'] = state(composite)
    composite.update_token_vectors(['a', '<unk>'], mx.nd.array([[1, 2, 3, 4, 5],
                                                                 [6, 7, 8, 9, 10]]))
    composite.update_token_vectors('c', mx.nd.array([0, 0, 0, 0, 1]))
    ref['composite_updated'] = state(composite)
    ref['pretrained_counts'] = {k: len(v) for k, v in
                                text.embedding.get_pretrained_file_names().items()}
    ref['glove_names'] = text.embedding.get_pretrained_file_names('glove')
    with open(os.path.join(OUT, 'reference.json'), 'w') as f:
        json.dump(ref, f, indent=0, sort_keys=True)


if __name__ == '__main__':
    main()
