"""CTCLoss against MXNet 1.9.1's recorded results (tests/data/ops_ctc_reference.npz), a
brute-force sum over every alignment, and finite differences."""
import itertools

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from recorded_cases import case_names, replay

TESTED_OPS = {'CTCLoss'}

REFERENCE = 'ops_ctc_reference.npz'


@pytest.mark.parametrize('name', case_names(
    REFERENCE, {'CTCLoss', 'ctc_loss', '_contrib_CTCLoss', '_contrib_ctc_loss'}))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-5)


def collapse(path, blank):
    """The labelling an alignment stands for: merge repeats, then drop blanks."""
    merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
    return [k for k in merged if k != blank]


def brute_force_nll(acts, label, blank):
    """-log of the summed probability of every alignment of ``label`` (T, A acts)."""
    probs = np.exp(acts - acts.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(acts.shape[1]), repeat=acts.shape[0]):
        if collapse(path, blank) == list(label):
            total += np.prod(probs[np.arange(len(path)), path])
    return -np.log(total)


@pytest.mark.parametrize('blank_label', ['first', 'last'])
def test_loss_is_the_sum_over_alignments(blank_label):
    rng = np.random.RandomState(0)
    acts = rng.randn(4, 3, 3)
    blank = 0 if blank_label == 'first' else 2
    pad = 0 if blank_label == 'first' else -1
    tokens = [1, 2] if blank_label == 'first' else [0, 1]
    labels = [[tokens[0], tokens[1]], [tokens[1], tokens[1]], [tokens[0], pad]]
    out = mx.nd.CTCLoss(mx.nd.array(acts), mx.nd.array(labels), blank_label=blank_label)
    expected = [brute_force_nll(acts[:, b], [k for k in labels[b] if k != pad], blank)
                for b in range(3)]
    assert_almost_equal(out.asnumpy(), np.array(expected, np.float32), rtol=1e-5, atol=1e-6)


def test_lengths_cut_data_and_labels():
    rng = np.random.RandomState(1)
    acts = rng.randn(5, 2, 4)
    labels = np.array([[2, 1, 3], [1, 3, 3]], np.float32)
    out = mx.nd.CTCLoss(mx.nd.array(acts), mx.nd.array(labels), mx.nd.array([3, 5]),
                        mx.nd.array([1, 3]), use_data_lengths=True, use_label_lengths=True)
    expected = [brute_force_nll(acts[:3, 0], [2], 0), brute_force_nll(acts[:, 1], [1, 3, 3], 0)]
    assert_almost_equal(out.asnumpy(), np.array(expected, np.float32), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('params', [{}, {'blank_label': 'last'},
                                    {'use_data_lengths': True, 'use_label_lengths': True}])
def test_numeric_gradient(params):
    rng = np.random.RandomState(2)
    data, label = mx.sym.var('data'), mx.sym.var('label')
    location = {'data': rng.randn(5, 2, 4),
                'label': np.array([[1, 2], [2, 0]] if params.get('blank_label') != 'last'
                                  else [[0, 1], [2, -1]], np.float64)}
    extra = []
    if params.get('use_data_lengths'):
        extra.append(mx.sym.var('dlen'))
        location['dlen'] = np.array([5, 3], np.float64)
        extra.append(mx.sym.var('llen'))
        location['llen'] = np.array([2, 1], np.float64)
    sym = mx.sym.CTCLoss(data, label, *extra, **params)
    check_numeric_gradient(sym, location, grad_nodes=['data'], numeric_eps=1e-5, rtol=1e-4,
                           atol=1e-6, dtype=np.float64)


def test_gradient_is_zero_past_the_data_length():
    acts = mx.nd.array(np.random.RandomState(3).randn(6, 2, 3))
    acts.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.CTCLoss(acts, mx.nd.array([[1, 2], [1, 0]]), mx.nd.array([6, 2]),
                             use_data_lengths=True)
    loss.backward()
    grad = acts.grad.asnumpy()
    assert not grad[2:, 1].any() and grad[:2, 1].any()
    # each step's gradient sums to zero over the alphabet (softmax minus a distribution)
    assert_almost_equal(grad[:, 0].sum(1), np.zeros(6), atol=1e-6)


def test_symbol_names_and_shapes():
    sym = mx.sym.ctc_loss(mx.sym.var('d'), mx.sym.var('l'), None, mx.sym.var('ll'),
                          use_label_lengths=True)
    assert sym.list_arguments() == ['d', 'l', 'll']
    arg_shapes, out_shapes, _ = sym.infer_shape(d=(7, 3, 5), l=(3, 4))
    assert arg_shapes == [(7, 3, 5), (3, 4), (3,)] and out_shapes == [(3,)]


@pytest.mark.parametrize('shapes', [dict(d=(7, 5), l=(3, 4)), dict(d=(7, 3, 5), l=(2, 4)),
                                    dict(d=(3, 3, 5), l=(3, 4))])
def test_bad_shapes_are_refused(shapes):
    sym = mx.sym.CTCLoss(mx.sym.var('d'), mx.sym.var('l'))
    with pytest.raises(MXNetError):
        sym.infer_shape(**shapes)


def test_label_outside_the_alphabet_is_refused():
    with pytest.raises(MXNetError, match='alphabet'):
        mx.nd.CTCLoss(mx.nd.zeros((4, 1, 3)), mx.nd.array([[1, 5]]))
    with pytest.raises(MXNetError, match='data_lengths'):
        mx.nd.CTCLoss(mx.nd.zeros((4, 1, 3)), mx.nd.array([[1]]), mx.nd.array([9]),
                      use_data_lengths=True)


def test_infeasible_sequence_costs_zero_with_zero_gradient():
    # 'a a' needs three steps (a blank between the repeats); two are given
    acts = mx.nd.array(np.random.RandomState(4).randn(2, 1, 3))
    acts.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.CTCLoss(acts, mx.nd.array([[1, 1]]))
    loss.backward()
    assert loss.asnumpy().tolist() == [0.0] and not acts.grad.asnumpy().any()
