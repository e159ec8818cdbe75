"""HybridBlock.register_op_hook: the node and operator names MXNet 1.9.1 reports
(tests/data/gen/gen_op_hook_reference.py), outputs only or inputs too."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx

from op_hook_cases import CASES, build, report

REF = json.loads((pathlib.Path(__file__).resolve().parent.parent / 'data' / 'gluon' /
                  'op_hook_reference.json').read_text())


@pytest.mark.parametrize('case,monitor_all', CASES)
def test_reports_mxnets_names(case, monitor_all):
    assert [list(pair) for pair in report(mx, case, monitor_all)] == \
        REF['%s/%s' % (case, monitor_all)]


def test_hook_sees_the_arrays_and_survives_re_hybridizing():
    model = build(mx, 'dense_relu')
    seen = {}
    model.register_op_hook(lambda name, op, arr: seen.update({mx.base.py_str(name): arr}))
    out = model(mx.nd.ones((2, 3)))
    assert np.array_equal(seen['dense_relu_relu0_fwd_output'].asnumpy(), out.asnumpy())
    model.hybridize(static_alloc=True)
    seen.clear()
    model(mx.nd.ones((2, 3)))
    assert sorted(seen) == ['dense_relu_dense0_fwd_output', 'dense_relu_relu0_fwd_output']
    model.register_op_hook(None)
    seen.clear()
    model(mx.nd.ones((2, 3)))
    assert not seen
