"""gluon.loss CTCLoss, TripletLoss, CosineEmbeddingLoss, SDMLLoss and PoissonNLLLoss
against MXNet 1.9.1's recorded values and gradients (tests/data/gluon_loss_reference.npz),
numpy formulas, and hybridized runs."""
import functools
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod import autograd
from symmod.gluon import loss as gloss
from symmod.test_utils import assert_almost_equal

REFERENCE = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'gluon_loss_reference.npz'


@functools.lru_cache(maxsize=None)
def reference():
    with np.load(REFERENCE) as data:
        return {k: data[k] for k in data.files}


def case_names():
    return sorted(k[:-len('/meta')] for k in reference() if k.endswith('/meta'))


def run_case(name, hybridize):
    ref = reference()
    meta = json.loads(str(ref[name + '/meta']))
    loss = getattr(gloss, meta['loss'])(**meta['kwargs'])
    if hybridize:
        loss.hybridize()
    inputs = [ref.get('%s/in/%s' % (name, n)) for n in meta['inputs']]
    arrays = [None if a is None else mx.nd.array(a) for a in inputs]
    grads = {n: arrays[meta['inputs'].index(n)] for n in meta['grad_of']}
    for a in grads.values():
        a.attach_grad()
    with autograd.record():
        out = loss(*arrays)
    if grads:
        out.backward()
    assert_almost_equal(out.asnumpy(), ref[name + '/out'], rtol=1e-5, atol=1e-5,
                        names=('symmod', 'mxnet'))
    for n, a in grads.items():
        assert_almost_equal(a.grad.asnumpy(), ref['%s/grad/%s' % (name, n)], rtol=1e-4,
                            atol=1e-5, names=('symmod d' + n, 'mxnet'), equal_nan=True)


@pytest.mark.parametrize('name', case_names())
def test_matches_mxnet(name):
    run_case(name, hybridize=False)


@pytest.mark.parametrize('name', [n for n in case_names() if not n.startswith('sdml')])
def test_hybridized_matches_mxnet(name):
    run_case(name, hybridize=True)


def test_triplet_formula():
    rng = np.random.RandomState(0)
    pred, pos, neg = (rng.randn(5, 3).astype(np.float32) for _ in range(3))
    out = gloss.TripletLoss(margin=0.5)(mx.nd.array(pred), mx.nd.array(pos), mx.nd.array(neg))
    gap = ((pos - pred) ** 2).sum(1) - ((neg - pred) ** 2).sum(1)
    assert_almost_equal(out.asnumpy(), np.maximum(gap + 0.5, 0), rtol=1e-5, atol=1e-6)


def test_cosine_embedding_formula():
    rng = np.random.RandomState(1)
    a, b = rng.randn(4, 6).astype(np.float32), rng.randn(4, 6).astype(np.float32)
    label = np.array([1, -1, -1, 1], np.float32)
    out = gloss.CosineEmbeddingLoss(margin=0.1)(mx.nd.array(a), mx.nd.array(b),
                                                mx.nd.array(label))
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    expected = np.where(label == 1, 1 - cos, np.maximum(cos - 0.1, 0))
    assert out.shape == (4, 1)
    assert_almost_equal(out.asnumpy()[:, 0], expected, rtol=1e-5, atol=1e-6)


def test_sdml_formula_and_weight():
    rng = np.random.RandomState(2)
    x1, x2 = rng.randn(3, 2).astype(np.float32), rng.randn(3, 2).astype(np.float32)
    dist = ((x1[:, None] - x2[None]) ** 2).sum(-1)
    logp = -dist - np.log(np.exp(-dist).sum(1, keepdims=True))
    target = np.full((3, 3), 0.3 / 2)
    np.fill_diagonal(target, 0.7)
    expected = (target * (np.log(target) - logp)).sum(1)
    out = gloss.SDMLLoss()(mx.nd.array(x1), mx.nd.array(x2))
    assert_almost_equal(out.asnumpy(), expected, rtol=1e-4, atol=1e-6)
    doubled = gloss.SDMLLoss(weight=2.)(mx.nd.array(x1), mx.nd.array(x2))
    assert_almost_equal(doubled.asnumpy(), 2 * expected, rtol=1e-4, atol=1e-6)


def test_poisson_zero_target_with_stirling_term_is_finite():
    out = gloss.PoissonNLLLoss(from_logits=False, compute_full=True)(
        mx.nd.array([[1., 2.]]), mx.nd.array([[0., 3.]]))
    stirling = 3 * np.log(3) - 3 + 0.5 * np.log(2 * np.pi * 3)
    expected = ((1 - 0 * np.log(1 + 1e-8)) + (2 - 3 * np.log(2 + 1e-8) + stirling)) / 2
    assert_almost_equal(out.asnumpy(), np.array([expected], np.float32), rtol=1e-5)


def test_ctc_loss_trains_toward_the_labels():
    # a free activation tensor driven by the loss makes the labelled path most likely
    pred = mx.nd.zeros((1, 4, 3))
    pred.attach_grad()
    loss_fn = gloss.CTCLoss()
    label = mx.nd.array([[0, 1]])
    for _ in range(30):
        with autograd.record():
            loss = loss_fn(pred, label)
        loss.backward()
        pred -= 1.0 * pred.grad
    best = pred.asnumpy()[0].argmax(1)
    decoded = [k for i, k in enumerate(best) if (i == 0 or k != best[i - 1]) and k != 2]
    assert decoded == [0, 1] and loss.asnumpy()[0] < 0.5


def test_ctc_bad_layout_is_refused():
    with pytest.raises(AssertionError, match='layouts'):
        gloss.CTCLoss(layout='NCT')
