"""Every exported operator: ONNX Runtime on the exported graph equals symmod's forward."""
import pytest

from symmod.onnx import get_operator_support
from onnx_check import OPSETS, check_export
from onnx_export_cases import CASES


@pytest.mark.parametrize('name,sym,inputs,options', CASES, ids=[c[0] for c in CASES])
def test_operator_exports(name, sym, inputs, options):
    check_export(sym, inputs, **options)


def test_every_translated_operator_has_a_case():
    covered = set()
    for _, sym, _, _ in CASES:
        covered.update(node.op for node in sym._nodes() if node.op is not None)
    for opset in OPSETS:
        missing = sorted(set(get_operator_support(opset)) - covered)
        assert not missing, 'operators exported at opset %d without a test: %s' % (opset,
                                                                                  missing)
