"""What the operator reference generators share: run every case and write the arrays
they recorded into one compressed npz file (read back by tests/ops/recorded_cases.py)."""
import os

import numpy as np


def write_cases(path, cases, run):
    """Write to ``path`` the union of the ``{key: array}`` dicts ``run(case)`` returns."""
    record = {}
    for c in cases:
        record.update(run(c))
    np.savez_compressed(path, **record)
    print('wrote %d cases to %s' % (len(cases), os.path.normpath(path)))
