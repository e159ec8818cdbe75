"""Every operator symmod registers has an ONNX export decision.

Either it exports (a translator, and a case in ``onnx_export_cases.py`` that ONNX Runtime
checks against symmod) or it is in ``symmod/onnx/export/unsupported.py`` with the reason
ONNX cannot express it. An operator registered later that is in neither fails here,
with a message saying what to add and where.
"""
import inspect
import os

import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.onnx.export.unsupported import NOT_EXPRESSIBLE
from onnx_check import NEWEST, OPSETS, export
from onnx_export_cases import CASES, RANDOM_CASES


# Operators ONNX can express whose translations are still to be written. Empty: every
# registered operator exports or is refused with its reason; a newly registered operator
# must not be added here (it gets a translation or a NOT_EXPRESSIBLE entry).
PENDING = set()


def registered_operators():
    """Canonical names of every registered operator (aliases export as their operator)."""
    return sorted({registry.get(name).name for name in registry.list_operators()})


def _where(op_name):
    path = inspect.getsourcefile(registry.get(op_name))
    root = os.path.dirname(os.path.dirname(mx.__file__))
    return os.path.relpath(path, root)


def test_every_registered_operator_exports_or_is_refused_with_a_reason():
    exported = set(mx.onnx.get_operator_support(NEWEST))
    undecided = [op for op in registered_operators()
                 if op not in exported and op not in NOT_EXPRESSIBLE and op not in PENDING]
    assert not undecided, (
        'operators registered without an ONNX export decision:\n  %s\nFor each one, either '
        "(a) add a translator in symmod/onnx/export/translations/ (@translator('NAME'), "
        'one module per operator family) and a case in tests/onnx/onnx_export_cases.py '
        '(ONNX Runtime must reproduce symmod at opsets 12, 13 and the newest), or (b) if ONNX '
        'cannot express it faithfully, add NAME with the reason to NOT_EXPRESSIBLE in '
        'symmod/onnx/export/unsupported.py.' % '\n  '.join(
            '%s (registered in %s)' % (op, _where(op)) for op in undecided))


def test_pending_operators_are_undecided_ones():
    exported = set(mx.onnx.get_operator_support(NEWEST))
    done = sorted(PENDING & (exported | set(NOT_EXPRESSIBLE)))
    assert not done, 'remove from PENDING (they are decided now): %s' % done


def test_no_operator_is_both_exported_and_refused():
    for opset in OPSETS:
        both = sorted(set(mx.onnx.get_operator_support(opset)) & set(NOT_EXPRESSIBLE))
        assert not both, ('operators with a translation at opset %d that unsupported.py '
                          'still calls inexpressible: %s' % (opset, both))


def test_refusal_table_names_registered_operators_only():
    stale = sorted(set(NOT_EXPRESSIBLE) - set(registered_operators()))
    assert not stale, 'NOT_EXPRESSIBLE names operators that are not registered: %s' % stale
    for op, why in NOT_EXPRESSIBLE.items():
        assert len(why) > 40, 'the reason given for %s says too little: %r' % (op, why)


def test_every_exported_operator_has_a_case():
    covered = set()
    for _, sym, _, _ in CASES + RANDOM_CASES:
        covered.update(node.op for node in sym._nodes() if node.op is not None)
    for opset in OPSETS:
        missing = sorted(set(mx.onnx.get_operator_support(opset)) - covered)
        assert not missing, 'operators exported at opset %d without a case in ' \
                            'onnx_export_cases.py: %s' % (opset, missing)


def test_refused_operator_error_names_node_operator_and_reason(tmp_path):
    weight, grad = mx.sym.var('weight'), mx.sym.var('grad')
    sym = mx.sym.sgd_mom_update(weight, grad, mx.sym.var('mom'), lr=0.1, name='step')
    with pytest.raises(MXNetError, match=r"node 'step' \(operator sgd_mom_update\) to opset "
                                         r"\d+: ONNX cannot express it: an optimizer step "
                                         r"that updates its optimizer states \(mom\) in place"):
        export(sym, {}, [(3,), (3,), (3,)], onnx_file_path=str(tmp_path / 'u.onnx'))
    assert not list(tmp_path.iterdir())

