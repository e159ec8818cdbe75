"""Fails when a registered operator is not exercised by any operator test module.

Each tests/ops/test_*.py module lists the canonical operator names it tests in a
module-level set ``TESTED_OPS``.
"""
import importlib.util
import pathlib

from symmod.ops import registry


def _tested_names():
    names = set()
    for path in sorted(pathlib.Path(__file__).parent.glob('test_*.py')):
        if path.name == 'test_ops_coverage.py':
            continue
        spec = importlib.util.spec_from_file_location('_cov_' + path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        names |= set(getattr(module, 'TESTED_OPS', ()))
    return names


def test_every_registered_operator_is_tested():
    canonical = {registry.get(n).name for n in registry.list_operators()}
    missing = sorted(canonical - _tested_names())
    assert not missing, 'operators without tests: %s' % ', '.join(missing)
