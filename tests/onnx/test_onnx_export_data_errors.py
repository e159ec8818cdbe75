"""Inputs on which symmod raises but an exported graph, which cannot raise, marks its
result: the affected rows are NaN, the others still equal symmod's."""
import numpy as np
import pytest

import symmod as mx
from onnx_check import OPSETS, session, symmod_forward
from onnx_export_cases_graphs import _HAWKES, _TARGET, _TARGET_INPUTS, _hawkes_inputs
from symmod.onnx.export.model import to_onnx_model


def test_hawkesll_sequences_symmod_refuses_are_nan():
    good = _hawkes_inputs(3, 4, 2)
    bad = dict(good, marks=good['marks'].copy(), valid_length=good['valid_length'].copy())
    bad['marks'][1, 0] = 2                        # only processes 0 and 1 exist
    bad['valid_length'][2] = 5                    # more events than the 4 slots
    names = _HAWKES.list_inputs()
    for opset in OPSETS:
        model = to_onnx_model(_HAWKES, {}, [good[n].shape for n in names],
                              [good[n].dtype for n in names], opset_version=opset)
        ll, _ = session(model).run(None, {n: bad[n] for n in names})
        assert np.isnan(ll[1:]).all()
        expected = symmod_forward(_HAWKES, good, {})[0]
        np.testing.assert_allclose(ll[0], expected[0], rtol=1e-5)
    for row, message in ((1, 'marks must be process ids'), (2, 'valid_length must be in')):
        one_bad = {n: v[[0, row]] for n, v in bad.items() if n not in ('alpha', 'beta')}
        one_bad.update(alpha=bad['alpha'], beta=bad['beta'])
        with pytest.raises(mx.MXNetError, match=message):
            symmod_forward(_HAWKES, one_bad, {})


def test_multibox_target_item_with_too_few_negatives_to_mine_is_nan():
    sym = mx.sym.Group(list(mx.sym.contrib.MultiBoxTarget(
        *_TARGET, negative_mining_ratio=20, negative_mining_thresh=0.001)))
    names = sym.list_inputs()
    feed = {n: v if n == 'anchor' else v[1:] for n, v in _TARGET_INPUTS.items()}
    model = to_onnx_model(sym, {}, [feed[n].shape for n in names],
                          [feed[n].dtype for n in names], opset_version=OPSETS[-1])
    _, _, cls = session(model).run(None, {n: feed[n] for n in names})
    assert np.isnan(cls[0]).all()        # 2 truths: 28 negatives wanted, fewer candidates
    assert (cls[1] == -1).all()                   # no ground truth: every anchor ignored
    with pytest.raises(mx.MXNetError, match='negatives to mine, only'):
        symmod_forward(sym, feed, {})
