"""Every exported operator: ONNX Runtime on the exported graph equals symmod's forward."""
import pytest

from onnx_check import check_export
from onnx_export_cases import CASES


@pytest.mark.parametrize('name,sym,inputs,options', CASES, ids=[c[0] for c in CASES])
def test_operator_exports(name, sym, inputs, options):
    check_export(sym, inputs, **options)

