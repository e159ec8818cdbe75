"""Record MXNet 1.9.1's gluon losses (tests/gluon/test_gluon_loss_extra.py): CTCLoss,
TripletLoss, CosineEmbeddingLoss, SDMLLoss and PoissonNLLLoss.

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_gluon_loss_reference.py

Writes tests/data/gluon_loss_reference.npz: for every case ``<case>``, ``<case>/meta``
(JSON: the loss class, its keyword arguments, the input names in call order),
the inputs ``<case>/in/<name>``, the loss MXNet returned ``<case>/out`` and the gradient
of the summed loss with respect to each input named in ``grad_of`` ``<case>/grad/<name>`` (none for
PoissonNLLLoss(compute_full=True), which MXNet cannot run under autograd.record).
"""
import json
import os

import mxnet as mx
import numpy as np

from reference_npz import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'gluon_loss_reference.npz')

RNG = np.random.RandomState(77)
CASES = []


def randn(*shape):
    return RNG.randn(*shape).astype(np.float32)


def case(name, loss, kwargs, inputs, grad_of):
    CASES.append(dict(name=name, loss=loss, kwargs=kwargs, inputs=inputs, grad_of=grad_of))


def build_cases():
    labels = np.array([[0, 1, 2], [2, 2, -1], [1, -1, -1]], np.float32)
    case('ctc_ntc', 'CTCLoss', {}, {'pred': randn(3, 6, 4), 'label': labels}, ['pred'])
    case('ctc_tnc_tn', 'CTCLoss', {'layout': 'TNC', 'label_layout': 'TN', 'weight': 0.5},
         {'pred': randn(6, 3, 4), 'label': labels.T.copy()}, ['pred'])
    case('ctc_lengths', 'CTCLoss', {},
         {'pred': randn(3, 7, 5), 'label': np.array([[0, 1, 3], [2, 2, 0], [1, 0, 0]],
                                                     np.float32),
          'pred_lengths': np.array([7, 5, 3], np.float32),
          'label_lengths': np.array([3, 2, 1], np.float32)}, ['pred'])
    case('ctc_sample_weight', 'CTCLoss', {},
         {'pred': randn(2, 5, 4), 'label': np.array([[0, 1], [2, -1]], np.float32),
          'pred_lengths': None, 'label_lengths': None,
          'sample_weight': np.array([0.5, 2.0], np.float32)}, ['pred'])

    case('triplet', 'TripletLoss', {}, {'pred': randn(4, 5), 'positive': randn(4, 5),
                                        'negative': randn(4, 5)},
         ['pred', 'positive', 'negative'])
    case('triplet_margin_3d', 'TripletLoss', {'margin': 3, 'weight': 2.0},
         {'pred': randn(3, 2, 4), 'positive': randn(3, 8), 'negative': randn(3, 2, 4)},
         ['pred', 'positive', 'negative'])

    x1, x2 = randn(6, 4), randn(6, 4)
    x2[4] = 0       # a zero vector: the norm product is floored at 1e-12
    sign = np.array([1, -1, 1, -1, -1, 1], np.float32)
    case('cosine', 'CosineEmbeddingLoss', {}, {'input1': x1, 'input2': x2, 'label': sign},
         ['input1', 'input2'])
    case('cosine_margin_weighted', 'CosineEmbeddingLoss', {'margin': 0.2, 'weight': 0.7},
         {'input1': randn(5, 3), 'input2': randn(5, 3),
          'label': np.array([-1, -1, 1, -1, 1], np.float32),
          'sample_weight': RNG.uniform(0, 2, (5, 1)).astype(np.float32)},
         ['input1', 'input2'])

    case('sdml', 'SDMLLoss', {}, {'x1': randn(5, 3), 'x2': randn(5, 3)}, ['x1', 'x2'])
    case('sdml_smooth', 'SDMLLoss', {'smoothing_parameter': 0.1},
         {'x1': randn(4, 6), 'x2': randn(4, 6)}, ['x1', 'x2'])

    case('poisson_logits', 'PoissonNLLLoss', {}, {'pred': randn(4, 3),
                                                  'target': RNG.poisson(2, (4, 3)).astype(
                                                      np.float32)}, ['pred'])
    case('poisson_rate', 'PoissonNLLLoss', {'from_logits': False, 'weight': 1.5},
         {'pred': RNG.uniform(0.1, 3, (3, 4)).astype(np.float32),
          'target': RNG.poisson(2, (3, 4)).astype(np.float32)}, ['pred'])
    case('poisson_full', 'PoissonNLLLoss', {'from_logits': False, 'compute_full': True},
         {'pred': RNG.uniform(1, 5, (2, 3)).astype(np.float32),
          'target': RNG.uniform(1, 5, (2, 3)).astype(np.float32)}, [])


def run(c):
    loss = getattr(mx.gluon.loss, c['loss'])(**c['kwargs'])
    names = list(c['inputs'])
    arrays = {n: None if v is None else mx.nd.array(v) for n, v in c['inputs'].items()}
    for n in c['grad_of']:
        arrays[n].attach_grad()
    if c['grad_of']:
        with mx.autograd.record():
            out = loss(*[arrays[n] for n in names])
        out.backward()
    else:       # compute_full adds in place: MXNet cannot record it
        out = loss(*[arrays[n] for n in names])
    key = c['name']
    meta = {'loss': c['loss'], 'kwargs': c['kwargs'], 'inputs': names, 'grad_of': c['grad_of']}
    record = {key + '/meta': np.array(json.dumps(meta)), key + '/out': out.asnumpy()}
    for n, v in c['inputs'].items():
        if v is not None:
            record['%s/in/%s' % (key, n)] = v
    for n in c['grad_of']:
        record['%s/grad/%s' % (key, n)] = arrays[n].grad.asnumpy()
    return record


def main():
    build_cases()
    write_cases(OUT, CASES, run)


if __name__ == '__main__':
    main()
