"""Every registered optimizer has a reference or behaviour test."""
import os

from symmod.optimizer import Optimizer
from optimizer_refdata import optimizer_names_with_reference

HERE = os.path.dirname(__file__)
# optimizers whose behaviour tests live in their own files (statistics, formulas)
BEHAVIOUR_TESTS = {'sgld': 'test_sgld.py', 'adamw': 'test_adamw.py'}


def test_every_registered_optimizer_is_tested():
    covered = optimizer_names_with_reference()
    for name, filename in BEHAVIOUR_TESTS.items():
        with open(os.path.join(HERE, filename)) as f:
            assert "'%s'" % name in f.read(), '%s does not test %s' % (filename, name)
        covered.add(name)
    builtin = {name for name, cls in Optimizer.opt_registry.items()
               if cls.__module__.startswith('symmod.')}
    missing = sorted(builtin - covered)
    assert not missing, 'optimizers without a test: %s' % missing
